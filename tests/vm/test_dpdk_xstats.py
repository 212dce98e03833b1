"""The CompSC igb VF PMD's own xstats, read with testpmd's `show port xstats`, count stand-in migrations exactly: restores, none refused, the ring shifts and the restore time its log gives."""

from compsc_harness.mig import compsc_vfs, load_compsc, migrate  # noqa: F401
from compsc_harness.dpdk import TestPmd, require_testpmd

MIGRATIONS = 3
PINGS = 10
# What the PMD adds after the VF's xstats (drivers/dpdk 0006)
COMPSC_XSTATS = ("compsc_restores", "compsc_restores_refused",
                 "compsc_rx_shift_total", "compsc_tx_shift_total",
                 "compsc_busy", "compsc_restore_us")


def test_dpdk_xstats(vm, compsc_vfs, peer, measure):
    require_testpmd(vm)
    vf = compsc_vfs[0]
    tp = None
    try:
        tp = TestPmd.start(vm, vf, interactive=True)
        before = tp.xstats()
        missing = [k for k in COMPSC_XSTATS + ("rx_multicast_packets",) if k not in before]
        assert not missing, f"xstats lack {missing}: {before}"
        assert before["compsc_restores"] == 0 and before["compsc_rx_shift_total"] == 0, before
        for i in range(1, MIGRATIONS + 1):
            # traffic moves the heads, so each restore shifts the rings
            tr = peer.ping(vf.ip, count=PINGS, interval=0.05)
            assert tr.received == PINGS, tr.raw[-1000:]
            migrate(vm, vf, blackout_ms=20)
            tr = peer.ping(vf.ip, count=2, interval=0.05)  # restored, answers
            assert tr.received == 2, tr.raw[-1000:]
            xs = tp.xstats()
            assert xs["compsc_restores"] == i, f"after migration {i}: {xs}"
        rs = tp.restores()
        measure("dpdk xstats compsc_restores", xs["compsc_restores"], "")
        measure("dpdk xstats compsc_busy", xs["compsc_busy"], "entries")
        measure("dpdk xstats compsc_restore_us (last)", xs["compsc_restore_us"], "us")
        assert [r.count for r in rs] == list(range(1, MIGRATIONS + 1)), rs
        assert xs["compsc_restores_refused"] == 0, xs
        # testpmd uses one queue pair: the log's queue-0 shifts are all
        assert xs["compsc_rx_shift_total"] == sum(r.rx_shift for r in rs) > 0, (xs, rs)
        assert xs["compsc_tx_shift_total"] == sum(r.tx_shift for r in rs) > 0, (xs, rs)
        assert xs["compsc_restore_us"] == rs[-1].us, (xs, rs)
        out = tp.stop()
        assert "Bye" in out, out[-2000:]
    finally:
        if tp is not None:
            tp.stop()
        load_compsc(vm)
