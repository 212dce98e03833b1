"""An aborted migration (released without a version bump) leaves the driver working, with no restore."""

from compsc_harness.mig import compsc_vfs, ethtool_stats, migrate  # noqa: F401


def test_migrate_abort(vm, compsc_vfs, peer):
    vf = compsc_vfs[0]
    before = ethtool_stats(vm, vf.ifname)
    res = migrate(vm, vf, abort=1, blackout_ms=50)
    assert res["status"] == "aborted" and res["aborted"] == 1, res
    v0 = res["version"]
    assert peer.ping(vf.ip, count=5).received == 5
    after = ethtool_stats(vm, vf.ifname)
    assert after["compsc_restores"] == before["compsc_restores"], "abort triggered a restore"
    assert after["compsc_resets"] == before["compsc_resets"]
    # A real migration afterwards still works and bumps the version.
    res = migrate(vm, vf)
    assert res["version"] == v0 + 1
    assert peer.ping(vf.ip, count=3).received == 3
