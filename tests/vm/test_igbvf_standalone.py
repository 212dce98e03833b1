"""The patched igbvf loads without compsc.ko and, on a stock PF, runs exactly as stock (no CompSC entries, traffic flows)."""

from compsc_harness.mig import _mod, ethtool_stats


def test_igbvf_standalone(vm, peer):
    vm.teardown_vfs()
    try:
        vm.run("rmmod compsc_standin compsc_selftest 2>/dev/null; rmmod compsc 2>/dev/null; true")
        assert not vm.module_loaded("compsc"), "compsc.ko still loaded: nothing tested"
        ko = _mod("drivers", "igbvf", "igbvf.ko")
        assert vm.run(f"modinfo -F depends {ko}").out.strip() == ""
        vm.run("dmesg -c >/dev/null")
        vfs = vm.setup_vfs(2, igbvf=ko)  # Debian's igb: it NACKs the area message
        assert not vm.module_loaded("compsc"), "loading igbvf pulled compsc.ko in"
        assert "running stock" in vm.run("dmesg").out
        stats = ethtool_stats(vm, vfs[0].ifname)
        assert not any(k.startswith("compsc_") for k in stats), stats
        assert peer.ping(vfs[0].ip, count=5, interval=0.1).received == 5
    finally:
        vm.restore_stock(2)
