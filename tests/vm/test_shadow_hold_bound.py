"""guest-shadow's transmit hold queue is bounded: with no lower, packets
past hold_qlen are dropped and counted, the rest are sent once a lower is
back. In trace mode every tapped call and every held or dropped packet is
logged."""

import time

from compsc_harness.vm import vf_ip
import shadow
from shadow import UPPER

BOUND = 8
SENT = 30


def traced(vm, what: str) -> int:
    """How many trace lines of @what the kernel log has."""
    return int(vm.run(f"dmesg | grep -c '{UPPER}: trace: {what}' || true").out.strip() or 0)


def test_shadow_hold_bound(vm, vfs, peer):
    shadow.load(vm, vfs, hold_qlen=BOUND)
    try:
        vm.run(f"echo 1 > {shadow.SYSFS}/trace")
        assert vm.run(f"cat {shadow.SYSFS}/trace").out.strip() == "1"
        # a tapped call, traced with its argument
        vm.run(f"ip link set {UPPER} promisc on && ip link set {UPPER} promisc off")
        assert traced(vm, "ndo_change_rx_flags change 0x100") == 2
        # the peer's MAC is known: the pings go to the upper, not to ARP
        assert peer.ping(vf_ip(0), count=2).received == 2
        vm.run("ping -c 2 -W 2 10.77.0.1")
        before = shadow.stats(vm)
        assert before["tx_hold_max"] == BOUND
        shadow.unplug(vm, vfs[0])
        r = vm.run(f"ping -c {SENT} -i 0.05 -W 1 -w 3 10.77.0.1", check=False)
        assert "sendmsg" not in r.out + r.err, f"the stack saw an error: {r.out}{r.err}"
        mid = shadow.stats(vm)
        held = mid["tx_held"] - before["tx_held"]
        dropped = mid["tx_hold_dropped"] - before["tx_hold_dropped"]
        assert mid["tx_hold_qlen"] == BOUND and held == BOUND, mid
        assert mid["tx_hold_peak"] == BOUND, mid
        assert dropped >= SENT - BOUND, mid
        # every intercepted packet traced, exactly as counted
        assert traced(vm, "xmit held") == held, mid
        assert traced(vm, "xmit dropped: hold queue full") == dropped, mid
        tx_dropped = int(vm.run(f"cat /sys/class/net/{UPPER}/statistics/tx_dropped").out)
        assert tx_dropped >= dropped, f"upper tx_dropped {tx_dropped} < {dropped}"
        shadow.plug(vm, vfs[0])
        shadow.wait_lower(vm, vfs[0].bdf, notified=before["peer_notify"] + 1)
        after = shadow.stats(vm)
        assert after["tx_held_sent"] - before["tx_held_sent"] == BOUND, after
        assert after["tx_hold_qlen"] == 0, after
        assert traced(vm, f"flush: {BOUND} held sent to") == 1
        vm.run(f"echo 0 > {shadow.SYSFS}/trace")
        time.sleep(0.5)
        assert peer.ping(vf_ip(0), count=3).received == 3
        # unloading lets go of a lower that stays: a plain igbvf netdev again
        lower = shadow.lower(vm)
        vm.run("rmmod gshadow")
        assert "master" not in vm.run(f"ip -o link show dev {lower}").out
        last = vm.run("dmesg | grep 'gsh0: released' | tail -1").out
        assert f"released {lower}" in last and "gone" not in last, last
        assert vm.run(f"cat /sys/class/net/{lower}/operstate").out.strip() == "up"
    finally:
        shadow.unload(vm, vfs)
        vm.restore_stock(2)
