"""A device state spoilt on the way is refused by the destination's variant driver during QEMU's load; the migration fails and the source L2 keeps its device and its state (no restore, no reset). So is a spoilt pre-copy chunk (the VF's configuration, refused as it arrives, before the switch-over), and the destination VF does not keep the configuration of a migration that never came."""
from nested import ALL_DIRTY, DST_PORT, L2_IP, MIG_PORT, SRC_PORT


def _refused(l1, peer, before, fault, refusal):
    """Migrate with @fault spoiling one chunk: the migration fails on
    @refusal and the source L2 runs on with its device, untouched."""
    mark_log = len(l1.sh("dmesg").out)
    l1.vfio_fault("fault_corrupt", fault)
    res = l1.migrate(params=ALL_DIRTY)
    assert res["status"] == "failed", res
    mark = len(l1.l2_stats("src"))
    dmesg = l1.sh("dmesg").out[mark_log:]
    assert any(r in dmesg for r in refusal), dmesg[-3000:]
    assert l1.l2_status(SRC_PORT) == "running"
    assert peer.ping(L2_IP, count=5, interval=0.5).received >= 3
    after = l1.l2_stat_since("src", mark)
    assert after["compsc_resets"] == before["compsc_resets"], (before, after)
    assert after["compsc_restores"] == before["compsc_restores"], (before, after)
    return dmesg


def test_migrate_corrupt_stream(l1, peer):
    l1.l2_start("src", l1.vf0, SRC_PORT)
    l1.l2_start("dst", l1.vf1, DST_PORT, f"-incoming tcp:127.0.0.1:{MIG_PORT}")
    l1.wait_l2_up("src")
    before = l1.wait_l2_stat("src", "compsc_restores")[-1]
    _refused(l1, peer, before, 1, ("stream refused", "foreign or corrupt"))

    # a fresh destination; this time the pre-copy chunk is spoilt
    l1.l2_stop("dst")
    l1.l2_start("dst", l1.vf1, DST_PORT, f"-incoming tcp:127.0.0.1:{MIG_PORT}")
    l1.wait_incoming(DST_PORT)
    dmesg = _refused(l1, peer, before, 2, ("pre-copy configuration refused",))
    assert "pre-copy configuration applied" not in dmesg, dmesg[-3000:]
    l1.check_kernel_log()
