"""The patched VF driver (igbvf, ixgbevf) loads without compsc.ko and, on a stock PF (Debian's igb, ixgbe), runs exactly as stock (no CompSC entries, traffic flows)."""

import pytest

from compsc_harness.mig import ethtool_stats
from compsc_harness.vm import NICS, STOCK, build_id


@pytest.mark.parametrize("nic", list(NICS))
def test_igbvf_standalone(vm, peer, bench):
    vm.teardown_vfs()
    try:
        vm.run("rmmod compsc_standin compsc_selftest 2>/dev/null; rmmod compsc 2>/dev/null; true")
        assert not vm.module_loaded("compsc"), "compsc.ko still loaded: nothing tested"
        ko = vm.nic.module(vm.nic.vf_driver)
        assert vm.run(f"modinfo -F depends {ko}").out.strip() == ""
        vm.run("dmesg -c >/dev/null")
        # Debian's PF driver: it NACKs the area message
        vfs = vm.setup_vfs(2, igb=STOCK, igbvf=ko)
        assert not vm.module_loaded("compsc"), f"loading {vm.nic.vf_driver} pulled compsc.ko in"
        ours = bench.host_module("drivers", vm.nic.pf_driver, f"{vm.nic.pf_driver}.ko")
        assert vm.module_build_id(vm.nic.pf_driver) != build_id(ours), \
            "the project's PF driver is loaded, not the stock one"
        assert "running stock" in vm.run("dmesg").out
        stats = ethtool_stats(vm, vfs[0].ifname)
        assert not any(k.startswith("compsc_") for k in stats), stats
        assert peer.ping(vfs[0].ip, count=5, interval=0.1).received == 5
    finally:
        vm.restore_stock(2)
