"""An idle CompSC VF migrates through the stand-in: one restore, no driver reset,
the PF side configured by the host so the restore sends no mailbox message,
link and ping work after; on the 82576 (igbvf) and on the 82599 (ixgbevf)."""

import pytest

from compsc_harness.mig import compsc_vfs, ethtool_stats, migrate  # noqa: F401
from compsc_harness.vm import NICS


@pytest.mark.parametrize("nic", list(NICS))
def test_migrate_idle(vm, compsc_vfs, peer, measure):
    vf = compsc_vfs[0]
    before = ethtool_stats(vm, vf.ifname)
    assert before.get("compsc_mode") == 1, f"{vm.nic.vf_driver} is not in CompSC mode: {before}"
    res = migrate(vm, vf, blackout_ms=0)
    assert res["status"] == "ok" and res["errno"] == 0, res
    assert res["regs"] > 0 and res["state_bytes"] > 0, res
    assert res["host_config"] == "yes", res
    vm.wait_link(vf.ifname, 30)
    tr = peer.ping(vf.ip, count=5, interval=0.2)
    assert tr.received == 5, f"ping after migration: {tr.raw[-1500:]}"
    after = ethtool_stats(vm, vf.ifname)
    assert after["compsc_restores"] == before["compsc_restores"] + 1, (before, after)
    assert after["compsc_resets"] == before["compsc_resets"], "driver took its own reset path"
    assert after["compsc_state_lost"] == before["compsc_state_lost"], after
    assert after["compsc_host_restores"] == before["compsc_host_restores"] + 1, after
    assert after["compsc_restore_msgs"] == 0, "the restore talked to the PF"
    assert after["compsc_replay_nacks"] == before["compsc_replay_nacks"], after
    measure("device held", res["hold_ns"] / 1e6, "ms")
    measure("state bytes", res["state_bytes"], "B")
