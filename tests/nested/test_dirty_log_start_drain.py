"""A receive poll that read the dirty-log flag before the log start set it
is accounted for before QEMU's first pass relies on the log: igbvf's
debugfs test hook compsc_rx_stall_ms holds every poll that reads the flag
clear for STALL_MS between that read and its buffers (ping traffic keeps
one running), the guest counts the polls that found the flag set after
their wait (compsc_rx_stall_raced), and compsc_vfio's log reads must have
waited for them or, while one ran, reported the whole window (its "have
left (waited N us)" and "reports whole windows" lines). Without that,
QEMU's first pass may send pages the VF writes before such a poll hands
them up, unmarked."""
import time

from nested import (ALL_DIRTY, L2_IP, MOUNT_DEBUGFS, RX_STALL_HOOK, VFIO_DEBUGFS,
                    log_drain_summary, migration_summary, rx_stall_raced)

STALL_MS = 800          # past the host's short wait (50 ms), short of soft lockups


# Pre-copy slowed (its first pass alone takes a minute at SLOW) for
# STRADDLE_S, then finished fast: a migration that switched over at once
# (ALL_DIRTY) could stop the VM before the poll that straddled the log
# start ended its wait (guest time, and the vCPU sits out QEMU's log
# reads); that poll would then finish on the destination, whose area has
# no log flag, and count nothing. The guest is not asked meanwhile: its
# console answers slowly while every poll stalls.
SLOW = {"max-bandwidth": 1 << 20}       # bytes/s
FAST = {"max-bandwidth": 1 << 30}
STRADDLE_S = 8


def test_dirty_log_start_drain(l1, peer):
    before = l1.l2_pair(peer)
    mark = l1.dmesg_mark()
    with peer.ping_stream(L2_IP, interval=0.05):
        l1.src.run(f"{MOUNT_DEBUGFS}; for f in {RX_STALL_HOOK}; do echo {STALL_MS} > $f; done")
        l1.migrate_start(params=SLOW)
        time.sleep(STRADDLE_S)
        l1.src.qmp("migrate-set-parameters", **ALL_DIRTY, **FAST)
        res = l1.migrate_wait()
    log = l1.dmesg_since(mark)
    assert res["status"] == "completed", (res, log[-3000:])
    l1.arrived(peer, before)
    raced = rx_stall_raced(l1.dst)
    drained, whole = log_drain_summary(log)
    l1.sh(f"{MOUNT_DEBUGFS}")
    drain_us = l1.sh(f"cat {VFIO_DEBUGFS}/{l1.vf0}/log_drain_us 2>/dev/null "
                     f"|| echo none").out.strip()
    print(f"nested: rx stall {STALL_MS} ms: polls that straddled the log start "
          f"{raced}; host drained {drained} us (debugfs {drain_us}), "
          f"whole-window reads {whole}; qemu: {migration_summary(res)}")
    # a poll read the flag clear and handed its buffers up after the start
    assert any(n >= 1 for n in raced), raced
    # ... and the host waited for it, or reported every page while it ran
    assert whole or (drained and max(drained) >= 1000), log[-3000:]
    l1.check_kernel_log()
