"""`virsh migrate --live` between two hosts, each an L1 set up as
docs/operators.md says: a Debian 12 root filesystem on which apt installed
compsc-host, compsc-vfio-core and compsc-tools (the L1 runs the modules
DKMS built from them: igb, compsc, compsc_vfio, the VFIO core) and libvirt
11.3 with QEMU 10 from bookworm-backports (tests/nested/l1root.sh). Each
host has its own PF; libvirtd runs on both (l1lib.sh l1_libvirt).

The guest is defined from the XML `tools/libvirt/compsc-domxml` writes,
with its consoles where the harness reads them. It moves host 0 (VF0) ->
host 1 (VF1) -> host 0 (VF0) with `virsh migrate --live --p2p`: peer to
peer, so that the source's libvirtd drives the whole migration (the
harness talks to one host), the stream on the hosts' own link
(--migrateuri), the destination's VF picked on the destination and named
by `--xml`, which the packaged compsc-domxml makes from the running
domain (`virsh dumpxml --migratable | compsc-domxml --retarget`). Under an iperf3 TCP stream and a ping
stream from the peer: the TCP stream survives both moves, the guest
restores through the host's path each time (state carried), `compsc
devices` on both hosts shows the VF's last migration.

Then `virsh domjobabort` during pre-copy, the destination's QEMU killed
during pre-copy, and the destination's libvirtd killed during pre-copy:
each migration fails, and the guest runs on at the source with its VF,
answering the peer, without a reset; the destination, its libvirtd
started again, keeps no guest and gives its VFs back.

Last, the same round trip with the VF from a libvirt hostdev network on
each host (`<forward mode='hostdev'>` over the PF with `<driver
model='compsc_vfio'/>`, as `compsc-domxml --pool-xml` writes it): plain
`virsh migrate`, no --xml; libvirt takes a free VF of the destination's
pool, gives it the guest's MAC, and gives the source's VF its own MAC back.
"""
import re
import threading
import time
import xml.etree.ElementTree as ET
from types import SimpleNamespace

import pytest

from libvirt_nested import (NAME, POOL, define_pool, domxml, guest_vf, libvirt_hosts, prepare,
                            ready_destination, start, state, virsh_migrate)
from nested import L1, answers, check_migrated
from shadow_nested import Streams


@pytest.fixture(scope="module")
def hosts(peer):
    with libvirt_hosts(peer) as made:
        yield made


def _move(src: L1, dst: L1, restores0: int, vf: int) -> dict:
    """The guest from @src to @dst's VF @vf, with the XML the operator's
    tools make for that VF."""
    ready_destination(dst)
    dst_vf = (dst.vf0, dst.vf1)[vf]
    xml = f"/tmp/{NAME}.dst.xml"
    src.sh(f"l1_virsh dumpxml --migratable {NAME} | "
           f"chroot /sysroot compsc-domxml --retarget - --vf {dst_vf} > /sysroot{xml}")
    t0 = time.time()
    r = virsh_migrate(src, dst, f"--xml {xml} --persistent-xml {xml}")
    took = time.time() - t0
    assert r.rc == 0, f"virsh migrate host{src.host} -> host{dst.host}:\n{r.out}\n{r.err}"
    assert state(dst) == "running" and state(src) == "absent", (state(src), state(dst))
    assert _hostdev(dst) == dst_vf, (dst_vf, _hostdev(dst))
    after = dst.l2(NAME).wait_restores(restores0 + 1)
    print(f"nested: virsh migrate host{src.host} -> host{dst.host} VF{vf} ({dst_vf}): {took:.1f} s")
    return after


def _hostdev(host: L1) -> str:
    """The host address of the guest's hostdev in @host's live domain."""
    root = ET.fromstring(host.sh(f"l1_virsh dumpxml {NAME}").out)
    a = root.find("devices/hostdev/source/address").attrib
    return "%04x:%02x:%02x.%x" % tuple(int(a[k], 16) for k in ("domain", "bus", "slot", "function"))


# How a failed move ends in pre-copy: a command on the source or the
# destination, and what virsh's error says
ENDS = {"domjobabort": ("src", f"l1_virsh domjobabort {NAME}", "canceled by client"),
        "dst_killed": ("dst", "kill -9 $(pidof qemu-system-x86_64)", "failed"),
        "dst_libvirtd_killed": ("dst", "kill -9 $(pidof libvirtd)", "")}


def _failed_move(src: L1, dst: L1, how: str) -> str:
    """A migration slowed to stay in pre-copy, ended there as ENDS[@how]
    says; virsh's error."""
    where, cmd, _ = ENDS[how]
    prepare(dst)
    result = {}
    # 1 MiB/s: pre-copy lasts minutes
    mover = threading.Thread(target=lambda: result.update(r=virsh_migrate(src, dst, "--bandwidth 1")))
    mover.start()
    try:
        deadline = time.time() + 120
        while "Data processed" not in src.sh(f"l1_virsh domjobinfo {NAME}", check=False).out:
            assert time.time() < deadline, "the migration never started"
            time.sleep(1)
        time.sleep(3)
        (src if where == "src" else dst).sh(cmd)
    finally:
        mover.join(60)
        if mover.is_alive():    # the step above failed: end the migration
            src.sh(f"l1_virsh domjobabort {NAME}", check=False)
        mover.join(300)
    r = result["r"]
    assert r.rc != 0, f"the migration completed:\n{r.out}"
    assert state(src) == "running", state(src)
    m = re.search(r"error: .*", r.out + r.err)
    assert m, r.out + r.err
    return m[0]


def test_virsh_migrate(hosts, peer):
    a, b = hosts
    start(a, domxml(a.vf0))
    assert answers(peer) >= 3
    before = a.l2(NAME).stat_now()
    r0 = int(before["compsc_restores"])
    t0 = time.time()
    with Streams(a, peer, SimpleNamespace(name=NAME)) as st:
        there = _move(a, b, r0, vf=1)
        check_migrated((a, a.vf0), (b, b.vf1))
        back = _move(b, a, r0 + 1, vf=0)
        check_migrated((b, b.vf1), (a, a.vf0))
        time.sleep(5)
        alive = st.close()
    print(f"nested: virsh: longest ping gap {st.ps.trace.max_gap(t0, time.time()):.2f} s,"
          f" TCP alive {alive}")
    assert alive, "the TCP stream died:\n" + "".join(line for _, line in st.lines[-15:])
    for stats in (there, back):
        assert int(stats["compsc_host_restores"]) == int(stats["compsc_restores"]), stats
        assert stats["compsc_restore_msgs"] == "0" and stats["compsc_state_lost"] == "0", stats
    now = a.l2(NAME).stat_now()
    assert now["compsc_resets"] == before["compsc_resets"], (before, now)
    devices = a.sh("chroot /sysroot compsc devices").out
    print(devices)
    assert "compsc_vfio" in devices


@pytest.mark.parametrize("how", list(ENDS))
def test_virsh_migrate_fails(hosts, peer, how):
    a, b = hosts
    if state(a) != "running":
        pytest.skip("test_virsh_migrate left no guest on host 0")
    before = a.l2(NAME).stat_now()
    vfs_before = b.pf_vfs()
    why = _failed_move(a, b, how)
    print(f"nested: virsh migrate, {how}: {why}")
    assert ENDS[how][2] in why, why
    if how == "dst_libvirtd_killed":
        _destination_back(b, vfs_before)
    assert answers(peer) >= 3, a.l2(NAME).log()[-3000:]
    after = a.l2(NAME).stat_now()
    assert after["compsc_resets"] == before["compsc_resets"], (before, after)
    assert after["compsc_state_lost"] == before["compsc_state_lost"], (before, after)


def _destination_back(host: L1, vfs_before: dict) -> None:
    """@host's libvirtd started again after it was killed mid-migration:
    it keeps no guest (the incoming QEMU it left is gone), and its PF
    shows its VFs as before the migration (@vfs_before, L1.pf_vfs()): the
    configuration the pre-copy brought is gone with it."""
    host.sh("l1_libvirtd")
    deadline = time.time() + 120
    while state(host) != "absent" or host.sh("pidof qemu-system-x86_64", check=False).rc == 0:
        assert time.time() < deadline, (state(host), host.sh("ps w", check=False).out[-2000:])
        time.sleep(2)
    vfs = host.pf_vfs()
    print(f"nested: host{host.host} after its libvirtd came back: VFs {vfs}")
    assert vfs == vfs_before, (vfs_before, vfs)


def _pool_move(src: L1, dst: L1, restores0: int):
    """The guest from @src to a VF libvirt takes from @dst's pool: the
    guest's stats after its restore there, and that VF's index."""
    ready_destination(dst)
    t0 = time.time()
    r = virsh_migrate(src, dst)
    took = time.time() - t0
    assert r.rc == 0, f"virsh migrate host{src.host} -> host{dst.host}:\n{r.out}\n{r.err}"
    assert state(dst) == "running" and state(src) == "absent", (state(src), state(dst))
    vf = guest_vf(dst)
    assert vf is not None, dst.sh("ip link show $(l1_pf)").out
    assert guest_vf(src) is None, "the source's VF kept the guest's MAC"
    after = dst.l2(NAME).wait_restores(restores0 + 1)
    print(f"nested: virsh migrate host{src.host} -> host{dst.host}, pool VF{vf}: {took:.1f} s")
    return after, vf


def test_virsh_migrate_pool(hosts, peer):
    a, b = hosts
    for h in (a, b):
        h.sh(f"l1_virsh destroy {NAME}; l1_virsh undefine {NAME}; true")
        define_pool(h)
    ready_destination(a)
    start(a, domxml(network=POOL))
    assert guest_vf(a) is not None, a.sh("ip link show $(l1_pf)").out
    assert answers(peer) >= 3, a.l2(NAME).log()[-3000:]
    before = a.l2(NAME).stat_now()
    r0 = int(before["compsc_restores"])
    there, vf_b = _pool_move(a, b, r0)
    assert answers(peer) >= 3, b.l2(NAME).log()[-3000:]
    back, vf_a = _pool_move(b, a, r0 + 1)
    assert answers(peer) >= 3, a.l2(NAME).log()[-3000:]
    check_migrated((b, (b.vf0, b.vf1)[vf_b]), (a, (a.vf0, a.vf1)[vf_a]))
    for stats in (there, back):
        assert int(stats["compsc_host_restores"]) == int(stats["compsc_restores"]), stats
        assert stats["compsc_state_lost"] == "0", stats
    now = a.l2(NAME).stat_now()
    assert now["compsc_resets"] == before["compsc_resets"], (before, now)
