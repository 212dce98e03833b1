"""The stand-in refuses to migrate a VF whose driver registered no area (Debian's stock igbvf or ixgbevf on the project's PF) with ENOENT, which the shell names, and that VF keeps working."""

import pytest

from compsc_harness.mig import DBG, ECHO, _mod, result
from compsc_harness.vm import NICS, STOCK, build_id


@pytest.mark.parametrize("nic", list(NICS))
def test_migrate_refused_stock_igbvf(vm, peer, bench):
    vm.teardown_vfs()
    try:
        nic = vm.nic
        vfs = vm.setup_vfs(2, igb=nic.module(nic.pf_driver), igbvf=STOCK)  # patched PF, stock VF
        ours = bench.host_module("drivers", nic.vf_driver, f"{nic.vf_driver}.ko")
        assert vm.module_build_id(nic.vf_driver) != build_id(ours), "our VF driver is loaded"
        vm.run("mountpoint -q /sys/kernel/debug || mount -t debugfs none /sys/kernel/debug")
        if not vm.module_loaded("compsc_standin"):
            vm.run(f"compsc-insmod {_mod('kmod', 'compsc_standin.ko')}")
        vf = vfs[0]
        r = vm.run(f"{ECHO} blackout_ms=10 > {DBG}/{vf.bdf}/migrate", check=False)
        assert r.rc != 0, "migration of a VF without an area succeeded"
        # the write fails with the migration's own errno
        assert "No such file or directory" in r.err, f"rc={r.rc} {r.err!r}"
        res = result(vm, vf)
        assert res["status"] == "error" and "no area" in str(res["error"]), res
        assert res["errno"] == -2, res  # -ENOENT, as the write said
        assert peer.ping(vf.ip, count=3).received == 3
    finally:
        vm.run("rmmod compsc_standin 2>/dev/null; true")
        vm.restore_stock(2)
