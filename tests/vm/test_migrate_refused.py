"""The stand-in refuses to migrate a VF whose driver registered no area (stock igbvf) with ENOENT, which the shell names, and that VF keeps working."""

from compsc_harness.mig import DBG, ECHO, _mod, result


def test_migrate_refused_stock_igbvf(vm, peer):
    vm.teardown_vfs()
    try:
        vfs = vm.setup_vfs(2, igb=_mod("drivers", "igb", "igb.ko"))  # patched PF, stock VF
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
