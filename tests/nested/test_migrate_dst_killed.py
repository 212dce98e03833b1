"""The destination QEMU dies in the middle of a migration while compsc_vfio
holds the source's device (taken on the size query): the migration fails,
the source L2 gets its device back and answers the peer within seconds,
with no restore (no version bump) and no driver reset; a second migration
to a fresh destination then completes with the state carried (a CompSC
restore, still no reset).

L1.hold_open() keeps the first migration in pre-copy and the hold's own
bound out of the test, so only the failure can end the hold."""
import time

from nested import L2_IP, migration_summary, restores


def test_migrate_dst_killed(l1, peer):
    before = l1.l2_pair(peer)
    with l1.hold_open() as mark:
        l1.migrate_start()
        l1.wait_taken(mark)
        with peer.ping_stream(L2_IP, interval=0.2) as ps:
            time.sleep(1)
            t_kill = time.time()
            l1.sh("kill -9 $(cat /run/dst.pid)")
            res = l1.migrate_wait(timeout=120)
            time.sleep(6)
    assert res["status"] == "failed", res
    back = [t for t, _ in ps.trace.replies if t >= t_kill]
    assert back, "the source never answered again: its device stayed taken"
    print(f"nested: first reply {back[0] - t_kill:.2f} s after the destination died")
    assert l1.src.status() == "running"
    mark_s = len(l1.src.stats())
    assert peer.ping(L2_IP, count=5, interval=0.5).received >= 3
    mid = l1.src.stat_since(mark_s)
    assert restores(mid) == restores(before), (before, mid)
    assert mid["compsc_resets"] == before["compsc_resets"], (before, mid)
    assert "given back to the guest" not in l1.dmesg_since(mark), \
        "the hold's bound ended it, not the failure"
    # what an operator sees: the VF's last migration went back unfinished
    lm = l1.last_migrations()[l1.vf0]
    assert lm and lm["status"] == "aborted", lm

    # a second migration, to a fresh destination, carries the state
    l1.dst.start_incoming()
    res = l1.migrate()
    assert res["status"] == "completed", res
    print(f"nested: second migration {migration_summary(res)}")
    l1.vf_own_mac(0)
    after = l1.dst.wait_restores(restores(before) + 1)
    assert restores(after) == restores(before) + 1, (before, after)
    lm = l1.last_migrations()[l1.vf0]
    assert lm["status"] == "ok" and lm["migrations"] == 1, lm
    assert after["compsc_resets"] == before["compsc_resets"], (before, after)
    assert peer.ping(L2_IP, count=5, interval=0.5).received >= 3
    l1.check_kernel_log()
