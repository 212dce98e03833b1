"""VFs created by the real igb driver via sriov_numvfs come up on igbvf with link and fixed MACs."""

from compsc_harness.vm import vf_mac


def test_vf_link(vm, vfs):
    pf = f"/sys/bus/pci/devices/{vm.pf_bdf}"
    assert vm.get(f"{pf}/sriov_numvfs").strip() == "2"
    assert vm.run(f"basename $(readlink {pf}/driver)").out.strip() == "igb"
    assert len(vfs) == 2
    for vf in vfs:
        dev = f"/sys/bus/pci/devices/{vf.bdf}"
        assert vm.run(f"basename $(readlink {dev}/driver)").out.strip() == "igbvf"
        assert vm.run(f"readlink {dev}/physfn").out.strip().endswith(vm.pf_bdf)
        vm.wait_link(vf.ifname, 30)
        assert vm.get(f"/sys/class/net/{vf.ifname}/operstate").strip() == "up"
        assert vm.get(f"/sys/class/net/{vf.ifname}/address").strip() == vf_mac(vf.index)
        # The PF's view agrees: it administers exactly this MAC for the VF.
        assert f"vf {vf.index}" in vm.run(f"ip link show {vm.pf_if}").out
        assert vf_mac(vf.index) in vm.run(f"ip link show {vm.pf_if}").out
