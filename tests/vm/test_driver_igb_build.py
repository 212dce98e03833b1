"""igb (the PF driver) built out of tree with the drivers/igb series creates VFs that pass traffic."""

from compscvm import Bench, build_id


def test_driver_igb_build(vm, vfs, peer, bench):
    ko = Bench.guest_module("drivers", "igb", "igb.ko")
    try:
        vm.teardown_vfs()
        new = vm.setup_vfs(2, igb=ko)
        assert vm.module_build_id("igb") == build_id(bench.build / "drivers" / "igb" / "igb.ko")
        assert "O" in vm.get("/sys/module/igb/taint")  # out of tree
        assert vm.get(f"/sys/bus/pci/devices/{vm.pf_bdf}/sriov_numvfs").strip() == "2"
        tr = peer.ping(new[0].ip, count=5, interval=0.1)
        assert tr.received == 5, tr.raw
    finally:
        vm.restore_stock(2)
    assert vm.get("/sys/module/igb/taint").strip() == ""
