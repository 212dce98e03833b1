"""Statistics stay exact across migrations: interface counters never go back and match what the peer exchanged.

Besides the peer's pings, each migration brings the frames the guest announces itself with after its restore (gratuitous ARP and the like) and what the emulated switch hands back of them: measured once on a migration without pings, then required, the same for every migration, on top of the pings."""
import time

import pytest

from compsc_harness.mig import (compsc_vfs, ethtool_stats, link_stats, migrate,  # noqa: F401
                                static_neighbours)
from compsc_harness.vm import NICS

ROUNDS = 3
PINGS = 20
KEYS = ("rx_packets", "tx_packets", "rx_bytes", "tx_bytes")
# the driver refreshes the interface counters every 2 s (its watchdog)
STATS_S = 4.5


@pytest.mark.parametrize("nic", list(NICS))
def test_migrate_counters(vm, compsc_vfs, peer, measure):
    vf = compsc_vfs[0]
    # Static neighbours on both sides: no ARP, so only our pings cross.
    peer.run("sysctl -qw net.ipv6.conf.all.disable_ipv6=1")
    with static_neighbours(vm, vf, peer):
        _counted(vm, vf, peer, measure)


def _settled(vm, vf):
    time.sleep(STATS_S)
    return link_stats(vm, vf.ifname)


def _announce_cost(vm, vf) -> dict:
    """What one migration without traffic adds to each counter: its
    announcement (one, by compsc_announces), both ways."""
    before, announces = _settled(vm, vf), ethtool_stats(vm, vf.ifname)["compsc_announces"]
    migrate(vm, vf, blackout_ms=20)
    after = _settled(vm, vf)
    assert ethtool_stats(vm, vf.ifname)["compsc_announces"] == announces + 1
    return {k: after[k] - before[k] for k in KEYS}


def _counted(vm, vf, peer, measure):
    cost = _announce_cost(vm, vf)
    assert cost["tx_packets"] >= 1, f"no announcement sent: {cost}"
    base = link_stats(vm, vf.ifname)
    prev = base
    for i in range(ROUNDS):
        tr = peer.ping(vf.ip, count=PINGS, interval=0.05)
        assert tr.received == PINGS, tr.raw[-1000:]
        migrate(vm, vf, blackout_ms=20)
        now = link_stats(vm, vf.ifname)
        for k in KEYS:
            assert now[k] >= prev[k], f"{k} went backwards: {prev[k]} -> {now[k]}"
        prev = now
    prev = _settled(vm, vf)
    d = {k: prev[k] - base[k] for k in KEYS}
    measure("rx_packets delta", d["rx_packets"], "pkts")
    measure("tx_packets delta", d["tx_packets"], "pkts")
    # 84-byte echo request/reply frames (64 ICMP + 20 IP) + 14 Ethernet = 98
    for k, per_ping in (("rx_packets", 1), ("tx_packets", 1), ("rx_bytes", 98)):
        want = ROUNDS * (PINGS * per_ping + cost[k])
        assert d[k] == want, f"{k}: counted {d[k]}, want {want} ({ROUNDS} x {PINGS} pings " \
                             f"and an announcement of {cost})"
