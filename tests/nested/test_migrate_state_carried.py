"""QEMU migrates an L2 from VF0 to VF1 and back under ping traffic; each way
the guest restores through CompSC (not its reset path) without a mailbox
message (the destination host configured the VF), its counters continue,
its rings were shifted, and transmit keeps working well past the restore
(an 8 s quiet TX queue trips the guest's watchdog and counts as a reset).
On the 82576 (igbvf) and on the 82599 model (ixgbevf)."""
import time

import pytest

from compsc_harness.vm import NICS
from nested import (ALL_DIRTY, L2_IP, MOUNT_DEBUGFS, VFIO_DEBUGFS,
                    check_carried, last_stat, longest_quiet, migration_summary)

WATCH_S = 14


def _check_devices(l1, seen, src_bdf, dst_bdf):
    """The source saved one more device state, the destination handed one
    more over, both without error."""
    now = l1.last_migrations()
    for bdf in (src_bdf, dst_bdf):
        lm, was = now[bdf], seen[bdf]
        assert lm and lm["source"] == "compsc_vfio" and lm["status"] == "ok", (bdf, lm)
        assert lm["migrations"] == (was["migrations"] if was else 0) + 1, (bdf, was, lm)


def _migrate(l1, peer, src, dst, left_vf, restores):
    """One way, from the L2 @src to @dst; returns (result, the destination's l2stat lines up to one
    read WATCH_S of guest time after the first that shows the restore)."""
    mark = l1.dmesg_mark()
    seen = l1.last_migrations()
    with peer.ping_stream(L2_IP, interval=0.5) as ps:
        t0 = time.time()
        res = l1.migrate(params=ALL_DIRTY, src=src.port, dst=dst.port)
        t1 = time.time()
        assert res["status"] == "completed", res
        # taken in PRE_COPY, while the guest's vCPUs still ran; the
        # destination VF configured from the pre-copy chunk before that
        log = l1.dmesg_since(mark)
        assert "device taken on the size query" in log
        assert "pre-copy configuration applied" in log, log[-3000:]
        bdfs = (l1.vf0, l1.vf1) if left_vf == 0 else (l1.vf1, l1.vf0)
        _check_devices(l1, seen, *bdfs)
        print(f"nested: {src.name}->{dst.name}: source timeline {_timeline(l1, bdfs[0])}")
        # the source host goes away: its VF no longer owns the guest's MAC
        l1.vf_own_mac(left_vf)
        # (the first line on the destination may have been read on the source)
        fresh = dst.wait_restores(restores + 1)
        t_r, up_r = time.time(), float(fresh["up"])
        # past the guest's 8 s transmit watchdog (checked every 2 s)
        time.sleep(WATCH_S)
        after = dst.wait_stat(pred=lambda s: float(s["up"]) >= up_r + WATCH_S)
    quiet = longest_quiet(ps.trace, t_r, t_r + WATCH_S)
    print(f"nested: {src.name}->{dst.name}: qemu {migration_summary(res)};"
          f" peer gap {ps.trace.max_gap(t0, t1 + 10):.2f} s (ping every 0.5 s),"
          f" longest quiet after the restore {quiet:.2f} s; guest: restore"
          f" {after[-1].get('compsc_restore_us')} us, transmit restarted"
          f" {after[-1].get('compsc_resume_us')} us and first used"
          f" {after[-1].get('compsc_first_xmit_us')} us after it")
    assert quiet < 4, f"replies stopped after the restore ({quiet:.1f} s):\n" + \
        dst.log()[-2000:]
    return res, after


def _timeline(l1, bdf):
    """compsc_vfio's record of the last migration of @bdf here: chunk
    sizes, and ms from the take to the vCPUs' stop."""
    out = l1.sh(f"cat /sys/kernel/debug/compsc_vfio/{bdf}/timeline").out
    kv = dict(line.split("=", 1) for line in out.split() if "=" in line)
    taken = (int(kv["stop_ns"]) - int(kv["take_ns"])) / 1e6
    return (f"pre-copy {kv['pre_bytes']} B, stop-copy {kv['stop_bytes']} B"
            f" (configuration resent {kv['config_resent']}),"
            f" taken {taken:.1f} ms before the vCPUs stopped")


def _carried(guest, after, *was) -> None:
    """check_carried(), with the console of the L2 @guest on a failure."""
    try:
        check_carried(after, *was)
    except AssertionError:
        print(f"nested: {guest.name}'s console:\n{guest.log()[-6000:]}")
        raise


@pytest.mark.parametrize("nic", list(NICS), scope="module")
def test_migrate_state_carried(l1, peer, nic):
    l1.l2_pair(peer)
    before = l1.src.wait_stat("compsc_restores")
    rx0, restores0, resets0 = (last_stat(before, k) for k in
                               ("rx_packets", "compsc_restores", "compsc_resets"))

    _, after = _migrate(l1, peer, l1.src, l1.dst, 0, restores0)
    _carried(l1.dst, after, rx0, restores0, resets0)
    assert peer.ping(L2_IP, count=5, interval=0.5).received >= 3

    # and back, VF1 -> VF0, into a fresh QEMU on the first VF
    l1.src.start_incoming()
    # a new VM has VF0: `compsc devices` no longer shows the first VM's
    # save, nor debugfs its DMA log
    fresh = l1.last_migrations()[l1.vf0]
    assert fresh["status"] == "none" and fresh["migrations"] == 0, fresh
    assert l1.sh(f"{MOUNT_DEBUGFS}; cat {VFIO_DEBUGFS}/{l1.vf0}/log_reads").out.strip() == "0"
    mid = l1.dst.stats()
    _, back = _migrate(l1, peer, l1.dst, l1.src, 1, restores0 + 1)
    _carried(l1.src, back, last_stat(mid, "rx_packets"), restores0 + 1, resets0)
    assert peer.ping(L2_IP, count=5, interval=0.5).received >= 3
    l1.check_kernel_log()
    # what L2.stats() left out (the harness once parsed such a line)
    cut = l1.src.stat_cut() + l1.dst.stat_cut()
    print(f"nested: l2stat lines: the console's last one read unfinished"
          f" {l1.src.stat_unfinished + l1.dst.stat_unfinished} times, {len(cut)} cut by kernel messages" +
          "".join(f"\n  {line!r}" for line in cut))
