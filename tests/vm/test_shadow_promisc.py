"""guest-shadow keeps a lower's promiscuity and allmulti counts in balance
with the upper's flags in either mode, across a swap, a mode switch and
the module's unload; a new lower gets the upper's current MTU, never one
left in the log from another mode."""

import re

from compsc_harness.vm import vf_ip, vf_mac
import shadow
from shadow import UPPER

MTU = 4000


def _counts(vm, dev: str) -> tuple:
    """(promiscuity count, IFF_PROMISC, IFF_ALLMULTI) of @dev: the count from
    ip -d link, the flags as the device has them (sysfs; ip link shows only
    what the user set on @dev itself)."""
    out = vm.run(f"ip -d link show dev {dev}").out
    count = int(re.search(r"promiscuity (\d+)", out).group(1))
    flags = int(vm.run(f"cat /sys/class/net/{dev}/flags").out, 16)
    return count, bool(flags & 0x100), bool(flags & 0x200)


def _mtu(vm, dev: str) -> int:
    return int(vm.run(f"cat /sys/class/net/{dev}/mtu").out)


def _swap(vm, old, new, notified: int) -> str:
    shadow.unplug(vm, old)
    shadow.host_moves(vm, old, new)
    shadow.plug(vm, new)
    shadow.wait_lower(vm, new.bdf, notified=notified)
    return shadow.lower(vm)


def test_shadow_promisc(vm, vfs, peer):
    shadow.load(vm, vfs)
    try:
        vm.run(f"echo passthrough > {shadow.SYSFS}/mode")
        vm.run(f"ip link set {UPPER} promisc on && ip link set {UPPER} mtu {MTU}")
        first = shadow.lower(vm)
        assert _counts(vm, first) == (1, True, False)
        # passthrough: VF 1 joins while the upper is promiscuous, then it is cleared
        dev = _swap(vm, vfs[0], vfs[1], notified=2)
        joined = _counts(vm, dev)
        # passthrough gives VF 1 no MAC: the user does (its host trusts it)
        vm.run(f"ip link set {dev} address {vf_mac(0)}")
        vm.run(f"ip link set {UPPER} promisc off")
        assert _counts(vm, dev) == (0, False, False), \
            f"{dev} after promisc off through the upper (joined with {joined})"
        assert joined == (1, True, False), f"{dev} joined a promiscuous upper"
        assert _mtu(vm, dev) == MTU and _mtu(vm, UPPER) == MTU
        assert peer.ping(vf_ip(0), count=3).received == 3, f"traffic on {dev}"
        # interpose again: the log never saw MTU; the next lower must not undo it
        vm.run(f"echo interpose > {shadow.SYSFS}/mode")
        dev = _swap(vm, vfs[1], vfs[0], notified=3)
        assert _mtu(vm, UPPER) == MTU, "the upper's MTU after a swap in interpose mode"
        assert _mtu(vm, dev) == MTU
        assert _counts(vm, dev) == (0, False, False)
        assert peer.ping(vf_ip(0), count=3).received == 3, f"traffic on {dev}"
        # set in one mode, unloaded in the other: the lower is left as it was
        vm.run(f"ip link set {UPPER} promisc on && ip link set {UPPER} allmulticast on")
        assert _counts(vm, dev) == (1, True, True)
        vm.run(f"echo passthrough > {shadow.SYSFS}/mode")
        vm.run("rmmod gshadow")
        assert _counts(vm, dev) == (0, False, False), f"{dev} after unloading gshadow"
        assert _mtu(vm, dev) == 1500, f"{dev}'s own MTU after unloading gshadow"
    finally:
        shadow.unload(vm, vfs)
        vm.restore_stock(2)
