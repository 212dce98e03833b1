"""100 consecutive CompSC migrations under ping traffic: no Oops/WARN, exactly one restore each."""

import time

from compsc_harness.mig import compsc_vfs, ethtool_stats, migrate, wait_restores  # noqa: F401

N = 100


def test_migrate_many(vm, compsc_vfs, peer, measure):
    vf = compsc_vfs[0]
    before = ethtool_stats(vm, vf.ifname)
    t0 = time.time()
    with peer.ping_stream(vf.ip, interval=0.02) as ps:
        for i in range(N):
            migrate(vm, vf, blackout_ms=0)
            # the guest runs between migrations, as between real ones
            n = wait_restores(vm, vf, before["compsc_restores"] + i + 1)
            assert n == before["compsc_restores"] + i + 1, f"migration {i + 1}: {n} restores"
        t_last = time.time()
        time.sleep(1)
    after = ethtool_stats(vm, vf.ifname)
    measure("time for 100 migrations", time.time() - t0, "s")
    assert after["compsc_restores"] - before["compsc_restores"] == N
    assert after["compsc_resets"] == before["compsc_resets"]
    assert ps.trace.received > 0 and ps.trace.raw.count("(DUP!)") == 0
    # the stream kept going through all of them, not only at the start
    last = max(t for t, _ in ps.trace.replies)
    assert last >= t_last, f"no reply after the last migration ({t_last - last:.1f} s before)"
    assert ps.trace.max_gap(t0, t_last) < 5.0, f"gap {ps.trace.max_gap(t0, t_last):.1f} s"
    assert peer.ping(vf.ip, count=3).received == 3
