"""migrate_cancel after compsc_vfio took the device on QEMU's size query:
the cancel, not the hold's bound, gives the device back at once; the
source L2 keeps running on its VF with no restore (no version bump) and
no driver reset, and answers the peer again within seconds.

The migration is kept from switching over with compsc_vfio's test-only
fault_size (a stop-copy size too big for the downtime limit), and the
hold's own bound (hold_ms) is set far beyond the test, so only the cancel
can end the hold."""
import time

from nested import DST_PORT, L2_IP, MIG_PORT, SRC_PORT, cancelled

PARAMS = "/sys/module/compsc_vfio/parameters"
HOLD_MS = 600000


def test_migrate_cancel_after_take(l1, peer):
    l1.l2_start("src", l1.vf0, SRC_PORT)
    l1.l2_start("dst", l1.vf1, DST_PORT, f"-incoming tcp:127.0.0.1:{MIG_PORT}")
    l1.wait_l2_up("src")
    assert peer.ping(L2_IP, count=5, interval=0.5).received >= 3
    before = l1.l2_stat_now("src")
    hold0 = l1.sh(f"cat {PARAMS}/hold_ms").out.strip()
    l1.sh(f"echo {HOLD_MS} > {PARAMS}/hold_ms")
    l1.vfio_fault("fault_size", 1 << 40)
    mark = len(l1.sh("dmesg").out)
    try:
        l1.migrate_start()
        l1.wait_dmesg(mark, r"device taken on the size query")
        # held: the peer gets no answer while pre-copy goes on
        assert peer.ping(L2_IP, count=4, interval=0.5, deadline=4).received == 0
        with peer.ping_stream(L2_IP, interval=0.2) as ps:
            time.sleep(1)
            t_cancel = time.time()
            l1.qmp(SRC_PORT, "migrate_cancel")
            res = l1.migrate_wait(timeout=60, poll=0.5)
            # replies for a while after the cancel, to see when they resumed
            time.sleep(max(0, t_cancel + 8 - time.time()))
    finally:
        l1.vfio_fault("fault_size", 0)
        l1.sh(f"echo {hold0} > {PARAMS}/hold_ms")
    assert cancelled(res), res
    log = l1.sh("dmesg").out[mark:]
    assert "given back to the guest" not in log, "the hold's bound ended it, not the cancel"
    back = [t for t, _ in ps.trace.replies if t >= t_cancel]
    assert back, "no reply within 8 s of the cancel: the device stayed taken"
    print(f"nested: first reply {back[0] - t_cancel:.2f} s after migrate_cancel")
    assert back[0] - t_cancel < 5, back[0] - t_cancel
    assert l1.l2_status(SRC_PORT) == "running"
    # `compsc devices`: aborted, not "ok"
    lm = l1.last_migrations()[l1.vf0]
    assert lm and lm["status"] == "aborted" and lm["migrations"] == 0, lm
    mark_s = len(l1.l2_stats("src"))
    assert peer.ping(L2_IP, count=5, interval=0.5).received >= 3
    after = l1.l2_stat_since("src", mark_s)
    assert after["compsc_restores"] == before["compsc_restores"], (before, after)
    assert after["compsc_resets"] == before["compsc_resets"], (before, after)
    l1.check_kernel_log()
