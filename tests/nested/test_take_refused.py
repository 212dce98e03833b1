"""A guest reader stuck past every retry of the take: compsc_vfio remembers
the refusal for the rest of the migration and takes no more, so the
guest's readers wait take_timeout_ms once per take the documented policy
allows (the size query's take and its COMPSC_MIG_TAKE_RETRIES deferred
retries), never once more at the switch-over that the last refusal lets
QEMU start; the migration then fails the designed way (nothing held at
STOP_COPY, the guest keeps its device, `compsc devices` says why), and
the next migration, with nobody stuck, takes the device and completes.

igbvf's debugfs test hook compsc_stall_ms keeps one reader (its watchdog
task) inside the read side for STALL_MS, longer than the four takes and
their back-offs (1 + 2 + 4 s) take."""
import errno
import re
import time

from nested import ALL_DIRTY, Case, answers

TAKE_MS = 1000      # the module's default bound
TAKES = 4           # the size query's take and COMPSC_MIG_TAKE_RETRIES retries
# The first size query comes within ~3 s of the hook being served (found by a
# console poll), the fourth take ends about 11 s later: still stuck then
STALL_MS = 25000
TIMED_OUT = re.compile(r"device stays with the guest \(take (.+?)\): -110")


def test_take_refused(l1, peer):
    before = l1.l2_pair(peer)
    mark = l1.dmesg_mark()
    with l1.take_timeout(TAKE_MS):
        t_served = l1.stall_reader("src", STALL_MS)
        res = l1.migrate(params=ALL_DIRTY)
        t_end = time.time()
    log = l1.dmesg_since(mark)
    takes = TIMED_OUT.findall(log)
    print(f"nested: {res['status']} {t_end - t_served:.1f} s after the hook was "
          f"served; timed-out takes: {takes}")
    assert res["status"] == "failed", (res, log[-3000:])
    assert t_end - t_served < STALL_MS / 1000, "the stall ended before the last take"
    # the readers waited once per allowed take, none at the switch-over
    assert takes == ["on the size query"] * TAKES, log[-3000:]
    assert "device taken" not in log, log[-3000:]
    assert "nothing held to migrate" in log, log[-3000:]
    lm = l1.last_migrations()[l1.vf0]
    assert lm["status"] == "error" and lm["errno"] == -errno.ETIMEDOUT, lm

    # the stuck reader leaves; the guest kept its device
    time.sleep(max(0, t_served + STALL_MS / 1000 + 1 - time.time()))
    assert l1.src.status() == "running"
    mark_s = len(l1.src.stats())
    assert answers(peer) >= 3, l1.src.log()[-2000:]
    mid = l1.src.stat_since(mark_s)
    assert mid["compsc_restores"] == before["compsc_restores"], (before, mid)
    assert mid["compsc_resets"] == before["compsc_resets"], (before, mid)

    # the refusal was this migration's: the next one, to a fresh
    # destination, takes and completes
    out = l1.run_case(peer, Case(src_up=True))
    assert "device taken on the size query" in out.log, out.log[-3000:]
    assert out.before["compsc_restores"] == before["compsc_restores"], (before, out.before)
    l1.assert_kernels_clean("src", "dst")
