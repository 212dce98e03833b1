"""guest-shadow's ethtool taps: ring sizes, interrupt coalescing and the
receive checksum offload set through the upper (ethtool -G/-C/-K gsh0)
reach the lower under Debian's stock igbvf, are recorded, and are in
effect on the next lower after a swap; a setting made while there is no
lower is held and given to the next one; what a lower refuses fails the
call and is not recorded."""

import re

from compsc_harness.vm import vf_ip
import shadow
from shadow import UPPER

RX_RING, TX_RING = 512, 2048    # igbvf probes with 1024/1024
USECS, USECS_AWAY = 100, 200    # igbvf's default is 3 (dynamic)


def _rx_csum(vm, dev: str) -> str:
    return re.search(r"^rx-checksumming: (\w+)", vm.run(f"ethtool -k {dev}").out, re.M).group(1)


def _check(vm, peer, usecs: int, where: str) -> None:
    """The lower now has every setting (read back from its own driver)."""
    dev = shadow.lower(vm)
    assert shadow.rings(vm, dev) == (RX_RING, TX_RING), where
    assert shadow.rx_usecs(vm, dev) == usecs, where
    assert _rx_csum(vm, dev) == "off", where
    # the upper reports its lower's view
    assert shadow.rings(vm, UPPER) == (RX_RING, TX_RING), where
    assert peer.ping(vf_ip(0), count=3).received == 3, f"traffic {where}"


def test_shadow_ethtool(vm, vfs, peer):
    shadow.load(vm, vfs)
    try:
        first = shadow.lower(vm)
        assert shadow.rings(vm, first) != (RX_RING, TX_RING) and _rx_csum(vm, first) == "on"
        vm.run(f"ethtool -G {UPPER} rx {RX_RING} tx {TX_RING} && "
               f"ethtool -C {UPPER} rx-usecs {USECS} && ethtool -K {UPPER} rx off")
        shadow.wait_lower(vm, vfs[0].bdf, notified=1)  # igbvf reopened its rings
        _check(vm, peer, USECS, "on VF 0")
        s = shadow.stats(vm)
        assert s["call_ring"] == 1 and s["call_coalesce"] == 1 and s["call_features"] >= 1, s
        # refused by the lower: the call fails, nothing is recorded
        assert vm.run(f"ethtool -C {UPPER} tx-usecs 50", check=False).rc != 0
        assert vm.run(f"ethtool -C {UPPER} rx-usecs 5", check=False).rc != 0
        assert vm.run(f"ethtool -G {UPPER} rx 8192", check=False).rc != 0
        assert shadow.rx_usecs(vm, UPPER) == USECS
        before = shadow.stats(vm)
        shadow.unplug(vm, vfs[0])
        shadow.host_moves(vm, vfs[0], vfs[1])
        # no lower: held (recorded) for the next one, reported by the upper
        assert shadow.lower(vm) == "none"
        vm.run(f"ethtool -C {UPPER} rx-usecs {USECS_AWAY}")
        assert shadow.rx_usecs(vm, UPPER) == USECS_AWAY
        assert shadow.rings(vm, UPPER) == (RX_RING, TX_RING)
        shadow.plug(vm, vfs[1])
        shadow.wait_lower(vm, vfs[1].bdf, notified=before["peer_notify"] + 1)
        _check(vm, peer, USECS_AWAY, "on VF 1")
        after = shadow.stats(vm)
        assert after["replay_errors"] == 0 and after["ring_clamped"] == 0, after
        assert after["replays"] == before["replays"] + 1, after
        # turned back on through the upper: on in the lower, and recorded so
        vm.run(f"ethtool -K {UPPER} rx on")
        assert _rx_csum(vm, shadow.lower(vm)) == "on"
        vm.run(f"echo 1 > {shadow.SYSFS}/trace && ethtool -G {UPPER} rx {RX_RING * 2} && "
               f"echo 0 > {shadow.SYSFS}/trace")
        traced = vm.run("dmesg | grep 'trace: set_ringparam'").out
        assert f"set_ringparam rx {RX_RING * 2} tx {TX_RING}" in traced
        assert shadow.rings(vm, shadow.lower(vm))[0] == RX_RING * 2
    finally:
        shadow.unload(vm, vfs)
        vm.restore_stock(2)
