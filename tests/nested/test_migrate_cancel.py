"""migrate_cancel mid-way leaves the source L2 running on its VF, with no CompSC restore and no driver reset."""
import time


from nested import DST_PORT, L2_IP, MIG_PORT, SRC_PORT, cancelled


def test_migrate_cancel(l1, peer):
    l1.l2_start("src", l1.vf0, SRC_PORT)
    l1.l2_start("dst", l1.vf1, DST_PORT, f"-incoming tcp:127.0.0.1:{MIG_PORT}")
    l1.wait_l2_up("src")
    before = l1.wait_l2_stat("src", "compsc_restores")[-1]
    # 8 MiB/s: still copying when the cancel comes
    l1.migrate_start(params={"max-bandwidth": 8 << 20})
    time.sleep(3)
    l1.qmp(SRC_PORT, "migrate_cancel")
    res = l1.migrate_wait(timeout=60, poll=0.5)
    assert cancelled(res), res
    mark = len(l1.l2_stats("src"))
    assert l1.l2_status(SRC_PORT) == "running"
    assert peer.ping(L2_IP, count=5, interval=0.5).received >= 3
    after = l1.l2_stat_since("src", mark)
    assert after["compsc_resets"] == before["compsc_resets"], (before, after)
    assert after["compsc_restores"] == before["compsc_restores"], (before, after)
    l1.check_kernel_log()
