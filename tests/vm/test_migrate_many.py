"""100 consecutive CompSC migrations under ping traffic: no Oops/WARN, exactly one restore each."""

import time

from compsc_harness.mig import (compsc_vfs, ethtool_stats, migrate,  # noqa: F401
                                static_neighbours, wait_restores)

N = 100


def test_migrate_many(vm, compsc_vfs, peer, measure):
    vf = compsc_vfs[0]
    before = ethtool_stats(vm, vf.ifname)
    t0 = time.time()
    runs = []
    # the VF is held about two thirds of the time (a ~0.1 s hold every
    # ~0.16 s): ARP would fail now and then, for seconds
    with static_neighbours(vm, vf, peer), peer.ping_stream(vf.ip, interval=0.02) as ps:
        for i in range(N):
            res = migrate(vm, vf, blackout_ms=0)
            # the guest runs between migrations, as between real ones
            n = wait_restores(vm, vf, before["compsc_restores"] + i + 1)
            runs.append((res, time.time()))
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
    gap = ps.trace.max_gap(t0, t_last)
    assert gap < 5.0, f"gap {gap:.1f} s: " + _around_gap(ps.trace, t0, t_last, runs, vm)
    assert peer.ping(vf.ip, count=3).received == 3


def _around_gap(trace, t0: float, t_last: float, runs: list, vm) -> str:
    """The migrations that overlap the longest gap, with their host times
    and the stand-in's result, and the guest's last kernel messages."""
    a, b = max(trace.gaps(t0, t_last), key=lambda g: g[1] - g[0])
    lines = [f"from {a - t0:.2f} s to {b - t0:.2f} s after the start"]
    for i, (res, restored) in enumerate(runs):
        if res["t_start"] <= b and restored >= a:
            lines.append(f"migration {i + 1}: write {res['t_start'] - t0:.2f}.."
                         f"{res['t_end'] - t0:.2f} s, restored by {restored - t0:.2f} s, "
                         + " ".join(f"{k}={v}" for k, v in res.items()
                                    if k not in ("t_start", "t_end")))
    lines.append(vm.run("dmesg | tail -n 30", check=False).out)
    return "\n".join(lines)
