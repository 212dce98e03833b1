"""Dirty logging: with the stand-in's dirty_log set, every received frame marks at least one page (compsc_dirty_pages); with it clear, nothing is marked."""

from compsc_harness.mig import DBG, compsc_vfs, dirty_log, ethtool_stats, link_stats, migrate  # noqa: F401

PINGS = 30


def rx_and_dirty(vm, vf) -> tuple[int, int]:
    """Frames the stack got (software counter, always current) and pages marked."""
    return (link_stats(vm, vf.ifname)["rx_packets"],
            ethtool_stats(vm, vf.ifname)["compsc_dirty_pages"])


def test_migrate_dirty_log(vm, compsc_vfs, peer, measure):
    vf = compsc_vfs[0]
    assert ethtool_stats(vm, vf.ifname)["compsc_mode"] == 1
    assert dirty_log(vm, vf) == 0
    try:
        # logging on: each received frame's buffer pages are marked
        assert dirty_log(vm, vf, 1) == 1
        rx0, d0 = rx_and_dirty(vm, vf)
        tr = peer.ping(vf.ip, count=PINGS, interval=0.02)
        assert tr.received == PINGS, tr.raw[-1000:]
        rx1, d1 = rx_and_dirty(vm, vf)
        measure("pages marked per received frame", (d1 - d0) / max(rx1 - rx0, 1), "pages")
        assert rx1 - rx0 >= PINGS
        assert d1 - d0 >= rx1 - rx0, f"{d1 - d0} pages marked for {rx1 - rx0} frames"

        # a migration keeps the flag (it lives in the host-owned control line)
        migrate(vm, vf, blackout_ms=10)
        assert dirty_log(vm, vf) == 1

        # logging off: no extra work, nothing marked
        assert dirty_log(vm, vf, 0) == 0
        rx2, d2 = rx_and_dirty(vm, vf)
        tr = peer.ping(vf.ip, count=PINGS, interval=0.02)
        assert tr.received == PINGS, tr.raw[-1000:]
        rx3, d3 = rx_and_dirty(vm, vf)
        assert rx3 - rx2 >= PINGS
        assert d3 == d2, f"{d3 - d2} pages marked with logging off"
    finally:
        vm.run(f"echo 0 > {DBG}/{vf.bdf}/dirty_log", check=False)
