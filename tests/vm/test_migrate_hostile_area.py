"""A guest that turned its area hostile after registering it (the stand-in's hostile_area=1 raises the register count past the list's capacity, as the guest itself could) is refused before anything is taken: the migration fails saying why, and the source keeps its device untouched and its traffic; on the 82576 (igbvf) and the 82599 (ixgbevf)."""

import pytest

from compsc_harness.mig import compsc_vfs, ethtool_stats, migrate  # noqa: F401
from compsc_harness.vm import NICS


@pytest.mark.parametrize("nic", list(NICS))
def test_migrate_hostile_area(vm, compsc_vfs, peer):
    vf = compsc_vfs[0]
    before = ethtool_stats(vm, vf.ifname)
    try:
        res = migrate(vm, vf, check=False, hostile_area=1, blackout_ms=20)
        assert res["rc"] != 0 and res["status"] == "error", res
        assert "area refused" in res["error"], res
        assert res["pf_forget"] == "no", "the source's VF was reset"
        assert peer.ping(vf.ip, count=5, interval=0.1).received == 5
        after = ethtool_stats(vm, vf.ifname)
        for k in ("compsc_restores", "compsc_resets", "compsc_state_lost"):
            assert after[k] == before[k], (k, before, after)
        # the area stays hostile: the next migration is refused as well
        res = migrate(vm, vf, check=False, blackout_ms=20)
        assert res["rc"] != 0 and "area refused" in res["error"], res
    finally:
        vm.restore_stock(2)  # the driver registers a fresh area
