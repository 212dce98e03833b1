"""With DMA logging (the rebuilt VFIO core) QEMU's default pre-copy converges: the L2 moves with default migration parameters, every page goes over about once, and the driver's log was read.

Without logging (measured once: compsc_vfio dma_logging=0, otherwise this
test) the default parameters converge too, but not thanks to a log:
vfio_iommu_type1 reports all RAM dirty until compsc_vfio pins the guest's
area at the take (on the pre-copy size query), and only the pinned pages
after that. QEMU then resends the whole RAM once more: 4 dirty syncs,
128862 pages sent for 65666 pages of RAM (1.96x), 90784 KiB transferred,
downtime 322 ms, total 6.2 s. With logging: 3 syncs, 65876 pages (1.00x),
49 MiB, downtime 138-271 ms, total 2.0-2.4 s. Hence the page count below.
"""

from nested import L2_IP

L2_RAM = 256 << 20


def _log_counter(l1, vf: str, name: str) -> int:
    l1.sh("mountpoint -q /sys/kernel/debug || mount -t debugfs none /sys/kernel/debug")
    return int(l1.sh(f"cat /sys/kernel/debug/compsc_vfio/{vf}/{name}").out)


def test_migrate_converges(l1, peer):
    assert "DMA logging offered" in l1.setup_log, "compsc_vfio offers no DMA logging"
    l1.l2_pair(peer)
    l1.src.wait_stat("compsc_restores")
    with peer.ping_stream(L2_IP, interval=0.5):
        res = l1.migrate()    # QEMU's default parameters
    assert res["status"] == "completed", res
    ram = res["ram"]     # query-migrate's, in bytes and pages
    pages = ram["duplicate"] + ram["normal"]      # zero + data
    ram_pages = ram["total"] // ram["page-size"]
    reads = _log_counter(l1, l1.vf0, "log_reads")
    marked = _log_counter(l1, l1.vf0, "log_marked_bytes")
    print(f"nested: converged, transferred={ram['transferred'] >> 10} KiB"
          f" of {ram['total'] >> 10} KiB RAM, pages sent={pages}"
          f" ({pages / ram_pages:.2f}x RAM), dirty syncs={ram['dirty-sync-count']},"
          f" downtime={res['downtime']} ms, total time={res['total-time']} ms;"
          f" driver log reads={reads} marked={marked} B")
    assert ram["total"] >= L2_RAM, res     # RAM plus ROMs
    # all-dirty resends every page at each sync; with the log only the
    # first pass is whole
    assert pages < 1.5 * ram_pages, res
    assert reads > 0, "QEMU never read the device's DMA log"
    # the moved (fresh) guest runs, restored; its first line may be the source's
    l1.dst.wait_stat("compsc_restores", pred=lambda s: int(s["compsc_restores"]) > 0)
    l1.check_kernel_log()
