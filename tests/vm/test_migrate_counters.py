"""Statistics stay exact across migrations: interface counters never go back and match what the peer exchanged."""

from compsc_harness.mig import compsc_vfs, link_stats, migrate, static_neighbours  # noqa: F401

ROUNDS = 3
PINGS = 20


def test_migrate_counters(vm, compsc_vfs, peer, measure):
    vf = compsc_vfs[0]
    # Static neighbours on both sides: no ARP, so only our pings cross.
    peer.run("sysctl -qw net.ipv6.conf.all.disable_ipv6=1")
    with static_neighbours(vm, vf, peer):
        _counted(vm, vf, peer, measure)


def _counted(vm, vf, peer, measure):
    base = link_stats(vm, vf.ifname)
    prev = base
    for i in range(ROUNDS):
        tr = peer.ping(vf.ip, count=PINGS, interval=0.05)
        assert tr.received == PINGS, tr.raw[-1000:]
        migrate(vm, vf, blackout_ms=20)
        now = link_stats(vm, vf.ifname)
        for k in ("rx_packets", "tx_packets", "rx_bytes", "tx_bytes"):
            assert now[k] >= prev[k], f"{k} went backwards: {prev[k]} -> {now[k]}"
        prev = now
    d_rx = prev["rx_packets"] - base["rx_packets"]
    d_tx = prev["tx_packets"] - base["tx_packets"]
    measure("rx_packets delta", d_rx, "pkts")
    measure("tx_packets delta", d_tx, "pkts")
    assert d_rx == ROUNDS * PINGS, f"rx counted {d_rx}, peer sent {ROUNDS * PINGS}"
    assert d_tx == ROUNDS * PINGS, f"tx counted {d_tx}, peer got {ROUNDS * PINGS}"
    # 84-byte echo request/reply frames (64 ICMP + 20 IP) + 14 Ethernet = 98
    assert prev["rx_bytes"] - base["rx_bytes"] == ROUNDS * PINGS * 98
