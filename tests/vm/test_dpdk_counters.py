"""The CompSC igb VF PMD's port statistics stay exact across stand-in migrations: rte_eth_stats (as testpmd prints them) count exactly the peer's pings and the replies, bytes included."""

from compsc_harness.mig import compsc_vfs, load_compsc, migrate  # noqa: F401
from compsc_harness.dpdk import TestPmd, require_testpmd

ROUNDS = 3
PINGS = 20
# 84-byte echo request/reply (64 ICMP + 20 IP) + 14 Ethernet + the 4-byte
# FCS: the PMD reports the VF's octet counters as they are (the kernel
# igbvf's netdev counts 98, without the FCS).
FRAME = 102


def test_dpdk_counters(vm, compsc_vfs, peer, measure):
    require_testpmd(vm)
    vf = compsc_vfs[0]
    tp = None
    try:
        tp = TestPmd.start(vm, vf)
        # Static neighbour and no IPv6 at the peer: only our pings cross.
        peer.run("sysctl -qw net.ipv6.conf.all.disable_ipv6=1")
        peer.run(f"ip neigh replace {vf.ip} lladdr {vf.mac} dev {peer.bridge} nud permanent")
        base = tp.fresh_stats()
        for i in range(ROUNDS):
            tr = peer.ping(vf.ip, count=PINGS, interval=0.05)
            assert tr.received == PINGS, tr.raw[-1000:]
            res = migrate(vm, vf, blackout_ms=20)
            assert res["counters"] > 0, f"the host saved no counter: {res}"
        tr = peer.ping(vf.ip, count=1, interval=0.05)  # the port is back
        assert tr.received == 1, tr.raw[-1000:]
        end = tp.fresh_stats()
        sent = ROUNDS * PINGS + 1
        d = {k: end[k] - base[k] for k in ("rx_packets", "tx_packets", "rx_bytes", "tx_bytes")}
        measure("dpdk rx_packets delta", d["rx_packets"], "pkts")
        measure("dpdk tx_packets delta", d["tx_packets"], "pkts")
        assert len(tp.restores()) == ROUNDS, tp.log()[-3000:]
        assert d["rx_packets"] == sent, f"rx counted {d}, peer sent {sent}"
        assert d["tx_packets"] == sent, f"tx counted {d}, peer got {sent}"
        assert d["rx_bytes"] == sent * FRAME and d["tx_bytes"] == sent * FRAME, d
    finally:
        if tp is not None:
            tp.stop()
        peer.run(f"ip neigh del {vf.ip} dev {peer.bridge}", check=False)
        load_compsc(vm)
