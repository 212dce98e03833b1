"""A guest that stays inside the read side (igbvf's debugfs test hook compsc_stall_ms) makes the host's take time out: the migration fails with ETIMEDOUT, nothing is bumped, and the guest keeps its device and network; the next migration goes through."""

import time

from compsc_harness.mig import compsc_vfs, ethtool_stats, migrate  # noqa: F401

STALL_MS = 4000
HOOK = "/sys/kernel/debug/igbvf/{bdf}/compsc_stall_ms"
MOUNT_DEBUGFS = "mountpoint -q /sys/kernel/debug || mount -t debugfs none /sys/kernel/debug"
SERVED = "test hook: inside the read side for"


def _served_by(vm, vfs, served: int):
    """The VF whose driver took the hook, once it has."""
    deadline = time.time() + 10
    while True:
        lines = [ln for ln in vm.dmesg().splitlines() if SERVED in ln]
        if len(lines) > served:
            # never an entry under RTNL (ethtool): it would hold up the
            # resume too, and the stack's transmit watchdog reset the VF
            assert "(kworker" in lines[-1], lines[-1]
            return next(vf for vf in vfs if vf.bdf in lines[-1])
        assert time.time() < deadline, "the hook was never served"
        time.sleep(0.2)


def test_migrate_reader_stuck(vm, compsc_vfs, peer):
    vf = compsc_vfs[0]
    hook = HOOK.format(bdf=vf.bdf)
    served = vm.dmesg().count(SERVED)
    before = ethtool_stats(vm, vf.ifname)
    mark = vm.log_mark()
    vm.run(f"{MOUNT_DEBUGFS}; echo {STALL_MS} > {hook}")
    # the driver's watchdog (every 2 s) is the entry that serves the hook
    assert _served_by(vm, compsc_vfs, served).bdf == vf.bdf
    res = migrate(vm, vf, check=False, blackout_ms=0, timeout_ms=500)
    assert res["rc"] != 0 and res["status"] == "error", res
    assert res["errno"] == -110, res         # ETIMEDOUT
    assert "did not leave" in str(res["error"]), res
    time.sleep(STALL_MS / 1000)              # the stuck reader leaves
    assert peer.ping(vf.ip, count=5, interval=0.2).received == 5
    mid = ethtool_stats(vm, vf.ifname)
    assert mid["compsc_restores"] == before["compsc_restores"], (before, mid)
    assert mid["compsc_resets"] == before["compsc_resets"], (before, mid)
    assert vm.run(f"cat {hook}").out.strip() == "0", "the hook served more than once"
    # and the next migration, with nobody stuck, goes through
    res = migrate(vm, vf, blackout_ms=20)
    assert res["status"] == "ok", res
    deadline = time.time() + 10
    while ethtool_stats(vm, vf.ifname)["compsc_restores"] == before["compsc_restores"]:
        assert time.time() < deadline, "no restore after the second migration"
        time.sleep(0.2)
    assert peer.ping(vf.ip, count=5, interval=0.2).received == 5
    vm.check_kernel_log(mark)
