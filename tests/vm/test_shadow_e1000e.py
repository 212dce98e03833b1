"""guest-shadow with a lower of another NIC model: the VM's VF goes, an
e1000e (QEMU's 82574L under Debian's stock e1000e driver) with the VM's
MAC is hot-plugged on a free root port on another tap of the peer's
bridge, and the upper's address, MTU 9000, a VLAN subinterface, the
multicast groups, the ring sizes and the coalescing carry over to it
(peer traffic, and the e1000e driver's own ethtool answers); the offloads
it lacks are masked. Then it is hot-unplugged (the guest's pciehp lets go
of it, quiescing it first) and the VF comes back, same checks."""

import time

import pytest

from compsc_harness.vm import BenchError, vf_mac
import shadow
from shadow import UPPER

BUS = "0000:02:00.0"  # the e1000e on the spare root port rp2 (tools/compsc_harness/vm.py)
RX_RING, USECS = 512, 100


def _lower_knobs(vm) -> tuple:
    """The lower's rx ring size and rx-usecs, from its own driver."""
    dev = shadow.lower(vm)
    return shadow.rings(vm, dev)[0], shadow.rx_usecs(vm, dev)


def _qdev_ids(devices: list) -> set:
    """Every qdev id in a query-pci device list, behind bridges too."""
    ids = set()
    for d in devices:
        ids.add(d.get("qdev_id"))
        ids |= _qdev_ids(d.get("pci_bridge", {}).get("devices", []))
    return ids


def _gone(vm, dev_id: str, timeout: float = 90) -> float:
    """Until QEMU no longer has @dev_id (the guest gave it back)."""
    t0 = time.time()
    while time.time() - t0 < timeout:
        if all(dev_id not in _qdev_ids(b["devices"]) for b in vm.qmp("query-pci")):
            return time.time() - t0
        time.sleep(0.5)
    raise BenchError(f"the guest never gave {dev_id} back in {timeout} s")


def test_shadow_e1000e(vm, vfs, peer, measure):
    if vm.run("modprobe e1000e", check=False).rc:
        pytest.skip("this guest kernel has no e1000e (the debug kernel)")
    shadow.load(vm, vfs)
    tap = peer.add_tap()
    plugged = False
    try:
        shadow.configure(vm, peer)
        vm.run(f"ethtool -G {UPPER} rx {RX_RING} && ethtool -C {UPPER} rx-usecs {USECS}")
        vf_masked = shadow.check_config(vm, peer, "on VF 0")
        before = shadow.stats(vm)
        shadow.unplug(vm, vfs[0])
        # VF 0 is on "the source host" now: its MAC leaves the PF's pool
        vm.run(f"ip link set {vm.pf_if} vf 0 mac {shadow.AWAY_MAC}")
        vm.qmp("netdev_add", type="tap", id="e1kn", ifname=tap, script="no", downscript="no")
        vm.qmp("device_add", driver="e1000e", id="e1k", bus="rp2", netdev="e1kn",
               mac=vf_mac(0), romfile="")
        plugged = True
        took = shadow.wait_lower(vm, BUS, notified=before["peer_notify"] + 1, timeout=90)
        measure("device_add e1000e to usable lower", took, "s")
        masked = shadow.check_config(vm, peer, "on the e1000e")
        assert _lower_knobs(vm) == (RX_RING, USECS)
        assert "e1000e" in vm.run(f"ethtool -i {shadow.lower(vm)}").out
        # what the upper masks is what this driver lacks, said in the log
        for name in masked.split():
            if name != "none":
                assert f"lacks {name}" in vm.run("dmesg | grep 'masked in the upper'").out
        measure(f"masked on the e1000e: {masked} (on the VF: {vf_masked})", 0, "")
        s = shadow.stats(vm)
        assert s["replay_errors"] == 0 and s["ring_clamped"] == 0, s
        # the e1000e goes: the guest's hot-plug driver unbinds it (quiesced)
        before = shadow.stats(vm)
        vm.qmp("device_del", id="e1k")
        measure("device_del e1000e until QEMU has it back", _gone(vm, "e1k"), "s")
        plugged = False
        vm.qmp("netdev_del", id="e1kn")
        assert shadow.stats(vm)["quiesced"] == before["quiesced"] + 1
        vm.run(f"ip link set {vm.pf_if} vf 0 mac {vf_mac(0)}")
        shadow.plug(vm, vfs[0])
        shadow.wait_lower(vm, vfs[0].bdf, notified=before["peer_notify"] + 1)
        assert shadow.check_config(vm, peer, "on VF 0 again") == vf_masked
        assert _lower_knobs(vm) == (RX_RING, USECS)
        s = shadow.stats(vm)
        assert s["lower_adopted"] == 3 and s["lower_released"] == 2, s
    finally:
        if plugged:
            vm.qmp("device_del", id="e1k")
            _gone(vm, "e1k")
            vm.qmp("netdev_del", id="e1kn")
        shadow.unload(vm, vfs)
        shadow.unconfigure(vm, peer)
        vm.restore_stock(2)
