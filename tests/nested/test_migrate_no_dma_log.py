"""A migration that does not read the VF's DMA log is refused, loudly: with
QEMU on vfio_iommu_type1's dirty bitmap (x-device-dirty-page-tracking=off)
the area's pin would make type1 report only pinned pages, so receive DMA
since QEMU's last sync would reach the destination stale. compsc_vfio
refuses the take; the migration fails, the source L2 keeps its device and
its network, nothing is restored or reset, and the area was never pinned
(no 'device taken')."""
import errno

from nested import Case

NO_LOG = "VFIOOPTS=x-device-dirty-page-tracking=off"


def test_migrate_no_dma_log_refused(l1, peer):
    out = l1.run_case(peer, Case(expect="failed", env=NO_LOG, timeout=240))
    print("nested: migration " + out.res["status"] + "; compsc_vfio said:\n" +
          "\n".join(x for x in out.log.splitlines() if "compsc" in x)[-1500:])
    assert "not reading this device's DMA log" in out.log, out.log[-2000:]
    assert "device taken" not in out.log, "the area was pinned without a DMA log"
    # what an operator sees: the VF's last migration failed, and why
    lm = l1.last_migrations()[l1.vf0]
    assert lm["source"] == "compsc_vfio" and lm["status"] == "error", lm
    assert lm["errno"] == -errno.EOPNOTSUPP, lm
    l1.check_kernel_log()
