"""Dirty logging with the CompSC igb VF PMD: while the stand-in's dirty_log is set, every frame testpmd receives marks one or two pages (compsc_dirty_pages in its xstats); with it clear, none is marked."""

from compsc_harness.mig import DBG, compsc_vfs, dirty_log, load_compsc  # noqa: F401
from compsc_harness.dpdk import TestPmd, require_testpmd

PINGS = 30


def rx_and_dirty(tp) -> tuple[int, int]:
    """Frames the port received (its statistics) and pages it marked."""
    return tp.fresh_stats()["rx_packets"], tp.xstats()["compsc_dirty_pages"]


def test_dpdk_dirty(vm, compsc_vfs, peer, measure):
    require_testpmd(vm)
    vf = compsc_vfs[0]
    tp = None
    try:
        tp = TestPmd.start(vm, vf, interactive=True)
        assert dirty_log(vm, vf) == 0
        rx0, d0 = rx_and_dirty(tp)
        assert peer.ping(vf.ip, count=PINGS, interval=0.02).received == PINGS
        rx1, d1 = rx_and_dirty(tp)
        assert rx1 - rx0 >= PINGS and d1 == d0, (rx0, rx1, d0, d1)

        # a logging round: each frame's data lies in one 2 KiB mbuf buffer,
        # one page or two when it straddles a page boundary
        assert dirty_log(vm, vf, 1) == 1
        assert peer.ping(vf.ip, count=PINGS, interval=0.02).received == PINGS
        rx2, d2 = rx_and_dirty(tp)
        frames, pages = rx2 - rx1, d2 - d1
        measure("dpdk pages marked per received frame", pages / max(frames, 1), "pages")
        assert frames >= PINGS, (rx1, rx2)
        assert frames <= pages <= 2 * frames, f"{pages} pages marked for {frames} frames"

        # logging off: nothing marked
        assert dirty_log(vm, vf, 0) == 0
        assert peer.ping(vf.ip, count=PINGS, interval=0.02).received == PINGS
        rx3, d3 = rx_and_dirty(tp)
        assert rx3 - rx2 >= PINGS and d3 == d2, (rx2, rx3, d2, d3)
        out = tp.stop()
        assert "Bye" in out, out[-2000:]
    finally:
        # while testpmd still holds the area (the file needs one)
        vm.run(f"echo 0 > {DBG}/{vf.bdf}/dirty_log", check=False)
        if tp is not None:
            tp.stop()
        load_compsc(vm)
