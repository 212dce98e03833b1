"""Migrations issued back to back: one the guest has not restored yet is refused cleanly (EAGAIN), never saved as guest state."""

from compsc_harness.mig import DBG, ECHO, compsc_vfs, ethtool_stats, wait_restores  # noqa: F401

N = 6


def test_migrate_back_to_back(vm, compsc_vfs, peer):
    vf = compsc_vfs[0]
    before = ethtool_stats(vm, vf.ifname)["compsc_restores"]
    # One guest command: the writes follow each other with no pause for
    # the driver, as a host that migrates again at once would.
    r = vm.run(f"for i in $(seq {N}); do {ECHO} blackout_ms=0 > {DBG}/{vf.bdf}/migrate "
               f"&& echo OK || echo REFUSED; grep '^error=' {DBG}/{vf.bdf}/result; done")
    ok = r.out.split().count("OK")
    refused = r.out.split().count("REFUSED")
    assert ok + refused == N, r.out
    assert ok >= 1, r.out
    # each refused write failed with EAGAIN, as the writer's error says
    assert r.err.count("Resource temporarily unavailable") == refused, r.err
    for line in r.out.splitlines():
        if line.startswith("error=") and line != "error=":
            assert "not restored" in line, f"unexpected refusal: {line}"
    n = wait_restores(vm, vf, before + ok)
    assert n == before + ok, f"{ok} migrations went through but {n - before} restores ran"
    assert peer.ping(vf.ip, count=5).received == 5
