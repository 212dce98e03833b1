"""migrate_cancel after compsc_vfio took the device on QEMU's size query:
the cancel, not the hold's bound, gives the device back at once; the
source L2 keeps running on its VF with no restore (no version bump) and
no driver reset, and answers the peer again within seconds.

The migration is kept from switching over, and the hold's own bound out
of the test, by L1.hold_open(), so only the cancel can end the hold."""
import time

from nested import L2_IP, cancelled


def test_migrate_cancel_after_take(l1, peer):
    before = l1.l2_pair(peer)
    with l1.hold_open() as mark:
        l1.migrate_start()
        l1.wait_taken(mark)
        # held: the peer gets no answer while pre-copy goes on
        assert peer.ping(L2_IP, count=4, interval=0.5, deadline=4).received == 0
        with peer.ping_stream(L2_IP, interval=0.2) as ps:
            time.sleep(1)
            t_cancel = time.time()
            l1.src.qmp("migrate_cancel")
            res = l1.migrate_wait(timeout=60, poll=0.5)
            # replies for a while after the cancel, to see when they resumed
            time.sleep(max(0, t_cancel + 8 - time.time()))
    assert cancelled(res), res
    log = l1.dmesg_since(mark)
    assert "given back to the guest" not in log, "the hold's bound ended it, not the cancel"
    back = [t for t, _ in ps.trace.replies if t >= t_cancel]
    assert back, "no reply within 8 s of the cancel: the device stayed taken"
    print(f"nested: first reply {back[0] - t_cancel:.2f} s after migrate_cancel")
    assert back[0] - t_cancel < 5, back[0] - t_cancel
    assert l1.src.status() == "running"
    # `compsc devices`: aborted, not "ok"
    lm = l1.last_migrations()[l1.vf0]
    assert lm and lm["status"] == "aborted" and lm["migrations"] == 0, lm
    mark_s = len(l1.src.stats())
    assert peer.ping(L2_IP, count=5, interval=0.5).received >= 3
    after = l1.src.stat_since(mark_s)
    assert after["compsc_restores"] == before["compsc_restores"], (before, after)
    assert after["compsc_resets"] == before["compsc_resets"], (before, after)
    l1.check_kernel_log()
