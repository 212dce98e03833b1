"""compsc_harness.pf: the PF side of CompSC migrations on the bench (VF-in-PF state).

    line = pf_vf_line(vm, 0)     # "vf 0 link/ether ..., spoof checking on, ..."
    res = migrate_forgotten(vm, vf)   # reset=both: the PF forgot, then imported
    n = vlan_arp(peer, 100, "10.77.100.10")   # tagged ARP answers

The PF's view is `ip link show <pf>`; traffic checks come from the peer.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

from .mig import migrate

HERE = Path(__file__).resolve().parent
# The PF section the stand-in reports: a record header and the PF_VF record,
# which carries a 24-byte head and 2 bytes per VLAN and multicast hash in
# use, padded to 8 (the C side's compsc_pf_vf_pack() is the rule).
PF_SECTION_MIN = 8 + 24
PF_SECTION_MAX = 8 + 152


def pf_section_ok(n: int) -> bool:
    """A PF section the stand-in may report (it is there, and bounded)."""
    return PF_SECTION_MIN <= n <= PF_SECTION_MAX and n % 8 == 0


def pf_vf_line(vm, n: int) -> str:
    """The `vf N ...` line (joined) of `ip link show <pf>`."""
    out = vm.run(f"ip link show {vm.pf_if}").out
    m = re.search(rf"^\s*vf {n}\b(.*?)(?=^\s*vf \d|\Z)", out, re.M | re.S)
    assert m, f"no vf {n} in:\n{out}"
    return " ".join(m.group(0).split())


def migrate_forgotten(vm, vf, **opts) -> dict:
    """One migration onto a PF that forgot the VF (reset=both), imported."""
    res = migrate(vm, vf, reset="both", **opts)
    assert res["status"] == "ok", res
    assert res["pf_forget"] == "done" and res["pf_import"] == "done", res
    assert pf_section_ok(res["pf_bytes"]), res
    vm.wait_link(vf.ifname, 30)
    return res


def vlan_arp(peer, vid: int, addr: str, count: int = 3,
             any_tag: bool = False, dst: str = "") -> int:
    """Tagged ARP requests for addr in VLAN vid (0: untagged) from the
    peer's bridge, broadcast or to dst; returns the answers that came back
    tagged vid (any_tag: or untagged) (the host has no 8021q, so the peer
    cannot have a VLAN device: vlanarp.py speaks 802.1Q)."""
    opts = (["--any-tag"] if any_tag else []) + ([f"--dst={dst}"] if dst else [])
    r = peer.run([sys.executable, str(HERE / "vlanarp.py"), peer.bridge,
                  str(vid), addr, str(count)] + opts, timeout=30)
    return int(r.out.strip() or 0)
