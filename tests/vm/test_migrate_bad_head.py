"""A host that hands back RX queue 0's saved head one past the tail the
driver gave the device (the stand-in's bad_rx_head=1: no device gets
there, only a hostile or broken host): the driver refuses to shift its
ring, says why, and resets the VF its own way; the VF answers again and
the guest kernel reports no problem. On the 82576 (igbvf) and the 82599
(ixgbevf): the check is the VF helper's, which both drivers use.

igbvf's tail trails next_to_use by one. Before the restore checked every
saved head against next_to_clean .. the tail (libcompsc/kernel/vf.c,
compsc_vf_shift_rings()), a head there was rotated to index 0: the device
then owned the descriptors the driver had cleaned and not refilled, whose
address fields still held an old write-back, and the driver's clean path
met frames with no buffer behind them."""
import pytest

from compsc_harness.mig import compsc_vfs, ethtool_stats, migrate, wait_restores, wait_stats  # noqa: F401
from compsc_harness.vm import NICS

REFUSED = "CompSC: bad saved ring state, resetting"


@pytest.mark.parametrize("nic", list(NICS))
def test_migrate_bad_rx_head(vm, compsc_vfs, peer):
    vf = compsc_vfs[0]
    # a ring that has moved: the tail is no longer where the boot left it
    assert peer.ping(vf.ip, count=20, interval=0.02).received >= 18
    before = ethtool_stats(vm, vf.ifname)
    mark = vm.log_mark()
    refused_before = vm.dmesg().count(REFUSED)
    res = migrate(vm, vf, bad_rx_head=1, blackout_ms=20)
    assert int(res["bad_rx_head"]) >= 0, f"the stand-in spoilt nothing: {res}"
    wait_restores(vm, vf, before["compsc_restores"] + 1, timeout=30)
    after = wait_stats(vm, vf, lambda s: s["compsc_resets"] > before["compsc_resets"],
                       timeout=60)
    print(f"bad head {res['bad_rx_head']}: restores {before['compsc_restores']} -> "
          f"{after['compsc_restores']}, resets {before['compsc_resets']} -> "
          f"{after['compsc_resets']}, rx shift total {after['compsc_rx_shift_total']}")
    assert vm.dmesg().count(REFUSED) == refused_before + 1, vm.dmesg()[-3000:]
    assert after["compsc_resets"] == before["compsc_resets"] + 1, (before, after)
    # nothing was rotated: the refused restore shifted no ring
    assert after["compsc_rx_shift_total"] == before["compsc_rx_shift_total"], (before, after)
    assert peer.ping(vf.ip, count=20, interval=0.05).received >= 18
    vm.check_kernel_log(mark)
    # and the next, honest migration restores without a reset
    res = migrate(vm, vf, blackout_ms=20)
    assert int(res["bad_rx_head"]) == -1, res
    wait_restores(vm, vf, after["compsc_restores"] + 1, timeout=30)
    assert peer.ping(vf.ip, count=10, interval=0.05).received >= 9
    assert ethtool_stats(vm, vf.ifname)["compsc_resets"] == after["compsc_resets"]
