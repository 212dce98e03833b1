"""The one-patch proof series (series_tag parameter) is applied by git am, built, loaded, and read back."""

import subprocess
import uuid

from compsc_harness.vm import Bench, build_id


def modinfo(path, field):
    return subprocess.run(["modinfo", "-F", field, str(path)], capture_output=True,
                          text=True, check=True).stdout.strip()


def test_driver_proof_series(vm, vfs, peer, bench):
    repo = bench.build / "drivers" / "igbvf-param"
    log = subprocess.run(["git", "-C", str(repo), "log", "--format=%s"],
                         capture_output=True, text=True, check=True).stdout.splitlines()
    assert log[0] == "igbvf: add a read-only series_tag module parameter", log
    assert len(log) == 2, log
    host_ko = repo / "igbvf.ko"
    assert "series_tag" in modinfo(host_ko, "parm")

    ko = Bench.guest_module("drivers", "igbvf-param", "igbvf.ko")
    tag = f"proof-{uuid.uuid4().hex[:8]}"
    try:
        vm.teardown_vfs()
        vm.setup_vfs(2)  # stock first, then swap igbvf for the patched one
        vm.rmmod("igbvf")
        vm.insmod(ko, series_tag=tag)
        vm.setup_vfs(2)
        assert vm.module_param("igbvf", "series_tag") == tag
        assert vm.module_build_id("igbvf") == build_id(host_ko)
        assert vm.run(f"stat -c %a /sys/module/igbvf/parameters/series_tag").out.strip() == "444"
        assert f"series_tag: {tag}" in vm.dmesg()
        tr = peer.ping(vm.vfs[0].ip, count=5, interval=0.1)
        assert tr.received == 5, tr.raw

        # Default value when the parameter is not given.
        vm.rmmod("igbvf")
        vm.insmod(ko)
        assert vm.module_param("igbvf", "series_tag") == "none"
    finally:
        vm.restore_stock(2)
    # The stock module has no such parameter.
    assert vm.run("test -e /sys/module/igbvf/parameters/series_tag", check=False).rc != 0
