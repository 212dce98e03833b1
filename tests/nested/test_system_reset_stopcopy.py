"""QMP system_reset of the L2 while compsc_vfio holds its VF in STOP_COPY:
the source stopped for the switch-over and its device state built, kept
there by QEMU's pause-before-switchover. The reset only marks the
migration void, and the cleanup (the data fd cut off, the device given
back, the area unpinned) runs outside the reset, which holds vfio-pci's
memory_lock for write (kprobe stacks in L1). QEMU's read of the state
then fails, so the migration fails instead of carrying a state the reset
voided; L1 says why, `compsc devices` says aborted; the L2 boots again and
answers the peer with its VF, a second migration completes, no kernel
reports a problem."""
import time

from nested import (ALL_DIRTY, CLEANUP_CALLS, DST_PORT, MIG_PORT, SRC_PORT,
                    answers, inside_reset, migration_summary)

PAUSE = "pause-before-switchover"


def _caps(on: bool) -> list:
    return [{"capability": PAUSE, "state": on}]


def test_system_reset_held_stopcopy(l1, peer):
    l1.l2_pair(peer)
    mark = len(l1.sh("dmesg").out)
    with l1.call_stacks(*CLEANUP_CALLS) as stacks:
        l1.qmp(SRC_PORT, "migrate-set-capabilities", capabilities=_caps(True))
        l1.migrate_start(params=ALL_DIRTY)
        t0 = time.monotonic()
        while l1.qmp(SRC_PORT, "query-migrate").get("status") != "pre-switchover":
            assert time.monotonic() - t0 < 300, l1.qmp(SRC_PORT, "query-migrate")
            time.sleep(1)
        l1.wait_dmesg(mark, r"stop-copy state \d+ bytes", timeout=60)
        boot = len(l1.l2_log("src"))
        # the L2s run with -no-reboot, which makes a reset a shutdown
        l1.qmp(SRC_PORT, "set-action", reboot="reset")
        l1.qmp(SRC_PORT, "system_reset")
        t0 = time.monotonic()
        while not any(fn == "vfio_unpin_pages" for fn, _ in stacks()):
            assert time.monotonic() - t0 < 60, "the reset never dropped the take's pin"
            time.sleep(1)
        l1.qmp(SRC_PORT, "migrate-continue", state="pre-switchover")
        res = l1.migrate_wait(timeout=300)
        calls = stacks()
    l1.qmp(SRC_PORT, "migrate-set-capabilities", capabilities=_caps(False))
    print(f"nested: migration {migration_summary(res)}")
    print(f"nested: {len(calls)} cleanup calls, {len(inside_reset(calls))} inside the reset")
    bad = inside_reset(calls)
    assert not bad, "cleanup inside the reset (memory_lock held for write):\n" + \
        "\n\n".join(f"{fn}:\n  " + "\n  ".join(fr) for fn, fr in bad)
    assert any(fn == "vfio_unpin_pages" for fn, _ in calls), \
        "the area pinned by the take was never unpinned"
    assert res["status"] == "failed", res
    log = l1.sh("dmesg").out[mark:]
    assert "VF reset in STOP_COPY: the migration is void" in log, log[-3000:]
    lm = l1.last_migrations()[l1.vf0]
    assert lm and lm["status"] == "aborted", lm

    # the L2 boots again on its VF and answers
    l1.wait_l2_up_again("src", boot)
    assert l1.l2_status(SRC_PORT) == "running"
    assert answers(peer, tries=12) >= 3, l1.l2_log("src")[-2000:]

    # a second migration, to a fresh destination, completes
    l1.l2_stop("dst")
    l1.l2_start("dst", l1.vf1, DST_PORT, f"-incoming tcp:127.0.0.1:{MIG_PORT}")
    l1.wait_incoming(DST_PORT)
    res = l1.migrate(params=ALL_DIRTY)
    print(f"nested: second migration {migration_summary(res)}")
    assert res["status"] == "completed", res
    l1.vf_own_mac(0)
    assert answers(peer, tries=12) >= 3, l1.l2_log("dst")[-2000:]
    assert l1.last_migrations()[l1.vf0]["status"] == "ok"
    l1.assert_kernels_clean("src", "dst")
