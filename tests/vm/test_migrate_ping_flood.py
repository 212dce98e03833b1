"""Migrations under a 10 ms ping stream from the peer: loss outside the blackout and duplicates, per migration."""

import time

from compsc_harness.mig import blackout_window, compsc_vfs, migrate, ping_loss  # noqa: F401

MIGRATIONS = 5


def test_migrate_ping_flood(vm, compsc_vfs, peer, measure):
    vf = compsc_vfs[0]
    windows = []
    with peer.ping_stream(vf.ip, interval=0.01) as ps:
        time.sleep(2)
        for _ in range(MIGRATIONS):
            res = migrate(vm, vf, blackout_ms=100)
            windows.append(blackout_window(res))
            time.sleep(1.5)
    loss = ping_loss(ps.trace, windows)
    assert ps.trace.sent > 300, "ping stream did not run"
    measure("pings sent", loss.sent, "pkts")
    measure("lost outside blackout (per migration)", loss.lost / MIGRATIONS, "pkts")
    measure("unanswered inside blackout (per migration)", loss.excused / MIGRATIONS, "pkts")
    measure("duplicates", loss.dup, "pkts")
    assert loss.dup == 0, f"{loss.dup} duplicate replies"
    # Every migration's loss is bounded: the stream recovers each time.
    last = max(t for t, _ in ps.trace.replies)
    assert last > windows[-1][1], "no reply after the last migration"
