"""A device state spoilt on the way is refused by the destination's variant driver during QEMU's load; the migration fails and the source L2 keeps its device and its state (no restore, no reset)."""
from nested import ALL_DIRTY, DST_PORT, L2_IP, MIG_PORT, SRC_PORT


def test_migrate_corrupt_stream(l1, peer):
    l1.l2_start("src", l1.vf0, SRC_PORT)
    l1.l2_start("dst", l1.vf1, DST_PORT, f"-incoming tcp:127.0.0.1:{MIG_PORT}")
    l1.wait_l2_up("src")
    before = l1.wait_l2_stat("src", "compsc_restores")[-1]
    l1.sh("echo 1 > /sys/module/compsc_vfio/parameters/fault_corrupt")
    res = l1.migrate(params=ALL_DIRTY)
    assert res["status"] == "failed", res
    mark = len(l1.l2_stats("src"))
    dmesg = l1.sh("dmesg").out
    assert "stream refused" in dmesg or "foreign or corrupt" in dmesg, dmesg[-3000:]
    assert l1.l2_status(SRC_PORT) == "running"
    assert peer.ping(L2_IP, count=5, interval=0.5).received >= 3
    after = l1.l2_stat_since("src", mark)
    assert after["compsc_resets"] == before["compsc_resets"], (before, after)
    assert after["compsc_restores"] == before["compsc_restores"], (before, after)
    l1.check_kernel_log()
