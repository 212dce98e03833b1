"""migrate_cancel mid-way leaves the source L2 running on its VF, with no CompSC restore and no driver reset."""
import time

from nested import DST_PORT, L2_IP, SRC_PORT


def test_migrate_cancel(l1, peer):
    l1.l2_start("src", l1.vf0, SRC_PORT)
    l1.l2_start("dst", l1.vf1, DST_PORT, "-incoming tcp:127.0.0.1:4444")
    l1.wait_l2_up("src")
    before = l1.wait_l2_stat("src", "compsc_restores")[-1]
    l1.hmp(SRC_PORT, "migrate_set_parameter max-bandwidth 8M")
    l1.hmp(SRC_PORT, "migrate -d tcp:127.0.0.1:4444")
    time.sleep(3)
    l1.hmp(SRC_PORT, "migrate_cancel")
    time.sleep(3)
    info = l1.hmp(SRC_PORT, "info migrate")
    assert "cancelled" in info, info
    mark = len(l1.l2_stats("src"))
    assert "running" in l1.hmp(SRC_PORT, "info status")
    assert peer.ping(L2_IP, count=5, interval=0.5).received >= 3
    after = l1.l2_stat_since("src", mark)
    assert after["compsc_resets"] == before["compsc_resets"], (before, after)
    assert after["compsc_restores"] == before["compsc_restores"], (before, after)
    l1.check_kernel_log()
