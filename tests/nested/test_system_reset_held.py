"""QMP system_reset of the L2 while compsc_vfio holds its VF: in pre-copy
(the take on the size query, kept with L1.hold_open()) and in STOP_COPY
(the source stopped for the switch-over with its device state built, kept
there by QEMU's pause-before-switchover). The reset only marks the
migration void, and the cleanup (the data fd cut off, the device given
back, the area unpinned) runs outside the reset, which holds vfio-pci's
memory_lock for write (no unpin and no data fd's lock from inside it:
kprobe stacks in L1). The migration fails instead of carrying a state the
reset voided; L1 says why, `compsc devices` says aborted; the L2 boots
again and answers the peer with its VF, a second migration completes, no
kernel reports a problem."""
import time

from nested import (ALL_DIRTY, CLEANUP_CALLS,
                    answers, inside_reset, migration_summary)

PAUSE = "pause-before-switchover"


def _caps(on: bool) -> list:
    return [{"capability": PAUSE, "state": on}]


def _reset_src(l1) -> int:
    """QMP system_reset of the source L2; its console's length before."""
    boot = len(l1.src.log())
    # the L2s run with -no-reboot, which makes a reset a shutdown
    l1.src.qmp("set-action", reboot="reset")
    l1.src.qmp("system_reset")
    return boot


def _void_and_clean(l1, res: dict, calls: list, mark: int, state: str) -> None:
    """The migration failed because the reset in @state voided it, and
    nothing of the cleanup ran inside the reset."""
    print(f"nested: migration {migration_summary(res)}")
    bad = inside_reset(calls)
    print(f"nested: {len(calls)} cleanup calls, {len(bad)} inside the reset")
    assert not bad, "cleanup inside the reset (memory_lock held for write):\n" + \
        "\n\n".join(f"{fn}:\n  " + "\n  ".join(fr) for fn, fr in bad)
    assert any(fn == "vfio_unpin_pages" for fn, _ in calls), \
        "the area pinned by the take was never unpinned"
    assert res["status"] == "failed", res
    log = l1.dmesg_since(mark)
    assert f"VF reset in {state}: the migration is void" in log, log[-3000:]
    lm = l1.last_migrations()[l1.vf0]
    assert lm and lm["status"] == "aborted", lm


def _back_and_migrates(l1, peer, boot: int) -> None:
    """The L2 boots again on its VF and answers; a second migration, to a
    fresh destination, completes."""
    l1.src.wait_up_again(boot)
    assert l1.src.status() == "running"
    assert answers(peer, tries=12) >= 3, l1.src.log()[-2000:]
    l1.dst.start_incoming()
    res = l1.migrate(params=ALL_DIRTY)
    print(f"nested: second migration {migration_summary(res)}")
    assert res["status"] == "completed", res
    l1.vf_own_mac(0)
    assert answers(peer, tries=12) >= 3, l1.dst.log()[-2000:]
    assert l1.last_migrations()[l1.vf0]["status"] == "ok"
    l1.assert_kernels_clean("src", "dst")


def test_system_reset_held_precopy(l1, peer):
    l1.l2_pair(peer)
    with l1.call_stacks(*CLEANUP_CALLS) as stacks:
        with l1.hold_open() as mark:
            l1.migrate_start(params=ALL_DIRTY)
            # not wait_taken(): QEMU learns of the void at its next size
            # query, which a capped pre-copy seldom makes
            l1.wait_dmesg(mark, r"device taken on the size query")
            boot = _reset_src(l1)
            res = l1.migrate_wait(timeout=300)
        calls = stacks()
    _void_and_clean(l1, res, calls, mark, "PRE_COPY")
    _back_and_migrates(l1, peer, boot)


def test_system_reset_held_stopcopy(l1, peer):
    l1.l2_stop("src", "dst")    # what the test before left, if it ran
    l1.l2_pair(peer)
    mark = l1.dmesg_mark()
    with l1.call_stacks(*CLEANUP_CALLS) as stacks:
        l1.src.qmp("migrate-set-capabilities", capabilities=_caps(True))
        l1.migrate_start(params=ALL_DIRTY)
        t0 = time.monotonic()
        while l1.src.qmp("query-migrate").get("status") != "pre-switchover":
            assert time.monotonic() - t0 < 300, l1.src.qmp("query-migrate")
            time.sleep(1)
        l1.wait_dmesg(mark, r"stop-copy state \d+ bytes", timeout=60)
        boot = _reset_src(l1)
        t0 = time.monotonic()
        while not any(fn == "vfio_unpin_pages" for fn, _ in stacks()):
            assert time.monotonic() - t0 < 60, "the reset never dropped the take's pin"
            time.sleep(1)
        l1.src.qmp("migrate-continue", state="pre-switchover")
        res = l1.migrate_wait(timeout=300)
        calls = stacks()
    l1.src.qmp("migrate-set-capabilities", capabilities=_caps(False))
    _void_and_clean(l1, res, calls, mark, "STOP_COPY")
    _back_and_migrates(l1, peer, boot)
