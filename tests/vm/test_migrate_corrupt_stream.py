"""A stream spoilt between source and destination (the stand-in's corrupt=1) is refused by the destination's parse: the migration fails with the checksum's error, the source keeps its device untouched (no reset, no version bump, no restore) and traffic flows; on the 82576 (igbvf) and the 82599 (ixgbevf)."""

import pytest

from compsc_harness.mig import compsc_vfs, ethtool_stats, migrate, wait_restores  # noqa: F401
from compsc_harness.vm import NICS


@pytest.mark.parametrize("nic", list(NICS))
def test_migrate_corrupt_stream(vm, compsc_vfs, peer):
    vf = compsc_vfs[0]
    restores = ethtool_stats(vm, vf.ifname)["compsc_restores"]
    v0 = migrate(vm, vf, blackout_ms=20)["version"]  # an honest one first
    wait_restores(vm, vf, restores + 1)
    before = ethtool_stats(vm, vf.ifname)
    res = migrate(vm, vf, check=False, corrupt=1, blackout_ms=20)
    assert res["rc"] != 0 and res["status"] == "error", res
    assert "corrupt" in res["error"], res
    assert res["aborted"] == 1 and res["pf_forget"] == "no", res
    assert res["version"] == v0, "a refused migration bumped the version"
    assert peer.ping(vf.ip, count=5, interval=0.1).received == 5
    after = ethtool_stats(vm, vf.ifname)
    for k in ("compsc_restores", "compsc_resets", "compsc_state_lost"):
        assert after[k] == before[k], (k, before, after)
