"""A migration that does not read the VF's DMA log is refused, loudly: with
QEMU on vfio_iommu_type1's dirty bitmap (x-device-dirty-page-tracking=off)
the area's pin would make type1 report only pinned pages, so receive DMA
since QEMU's last sync would reach the destination stale. compsc_vfio
refuses the take; the migration fails, the source L2 keeps its device and
its network, nothing is restored or reset, and the area was never pinned
(no 'device taken')."""
import errno

from nested import ALL_DIRTY, DST_PORT, L2_IP, MIG_PORT, SRC_PORT

NO_LOG = "VFIOOPTS=x-device-dirty-page-tracking=off"


def test_migrate_no_dma_log_refused(l1, peer):
    l1.l2_start("src", l1.vf0, SRC_PORT, env=NO_LOG)
    l1.l2_start("dst", l1.vf1, DST_PORT, f"-incoming tcp:127.0.0.1:{MIG_PORT}", env=NO_LOG)
    l1.wait_l2_up("src")
    before = l1.wait_l2_stat("src", "compsc_restores")[-1]
    mark = len(l1.sh("dmesg").out)
    res = l1.migrate(params=ALL_DIRTY, timeout=240)
    log = l1.sh("dmesg").out[mark:]
    print("nested: migration " + res["status"] + "; compsc_vfio said:\n" +
          "\n".join(x for x in log.splitlines() if "compsc" in x)[-1500:])
    assert res["status"] == "failed", res
    assert "not reading this device's DMA log" in log, log[-2000:]
    assert "device taken" not in log, "the area was pinned without a DMA log"
    assert l1.l2_status(SRC_PORT) == "running"
    # what an operator sees: the VF's last migration failed, and why
    lm = l1.last_migrations()[l1.vf0]
    assert lm["source"] == "compsc_vfio" and lm["status"] == "error", lm
    assert lm["errno"] == -errno.EOPNOTSUPP, lm
    stats = len(l1.l2_stats("src"))
    assert peer.ping(L2_IP, count=10, interval=0.5).received >= 5
    after = l1.l2_stat_since("src", stats)
    assert after["compsc_resets"] == before["compsc_resets"], (before, after)
    assert after["compsc_restores"] == before["compsc_restores"], (before, after)
    l1.check_kernel_log()
