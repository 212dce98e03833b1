"""MTU changes in a loop during back-to-back migrations: every change
succeeds, no hold grows past what the host asked for (nothing in the guest
waits for the host while holding RTNL), every migration is restored
without a reset, and the last MTU (9000) carries jumbo frames."""

from compsc_harness.mig import LOOP_MIGRATIONS, compsc_vfs, migrate_under_loop  # noqa: F401
from compsc_harness.vm import Peer

STOP = "/tmp/mtu-loop.stop"


def _mtu_loop(ifname: str) -> str:
    """Alternate 9000/1500 until STOP exists; count changes and failures."""
    return (f"rm -f {STOP}; n=0; f=0; while [ ! -e {STOP} ]; do "
            f"for m in 9000 1500; do n=$((n+1)); "
            f"ip link set dev {ifname} mtu $m 2>/tmp/mtu-loop.err || "
            "{ f=$((f+1)); cat /tmp/mtu-loop.err; }; done; done; "
            'echo "changes=$n failed=$f"')


def test_migrate_mtu_loop(vm, compsc_vfs, peer):
    vf = compsc_vfs[0]
    # ~160 changes against ~1 s held in all: some must find the device held
    migrate_under_loop(vm, vf, _mtu_loop(vf.ifname), STOP, "MTU changes", LOOP_MIGRATIONS)

    # The last MTU is applied: jumbo frames both ways (peer side too).
    tap = peer._taps[0]
    try:
        for dev in (tap, peer.bridge):
            peer.run(["ip", "link", "set", "dev", dev, "mtu", "9000"])
        vm.run(f"ip link set dev {vf.ifname} mtu 9000")
        vm.wait_link(vf.ifname, 30)
        r = peer.run(["ping", "-n", "-c", "5", "-i", "0.2", "-s", "8000", "-M", "do",
                      "-w", "30", vf.ip], timeout=40, check=False)
        tr = Peer._parse_ping(r.out, 0.2)
        assert tr.received == 5, f"jumbo ping at MTU 9000: {r.out[-1500:]}{r.err}"
    finally:
        vm.run(f"ip link set dev {vf.ifname} mtu 1500")
        for dev in (tap, peer.bridge):
            peer.run(["ip", "link", "set", "dev", dev, "mtu", "1500"], check=False)
    vm.wait_link(vf.ifname, 30)
    assert peer.ping(vf.ip, count=5).received == 5
