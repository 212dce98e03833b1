"""igbvf built out of tree from linux-source with an empty series (igbvf-upstream) loads and passes traffic."""

import subprocess

from compsc_harness.vm import Bench, build_id


def test_driver_empty_series(vm, vfs, peer, bench):
    repo = bench.build / "drivers" / "igbvf-upstream"
    log = subprocess.run(["git", "-C", str(repo), "log", "--format=%s"],
                         capture_output=True, text=True, check=True).stdout.splitlines()
    assert len(log) == 1 and log[0].startswith("igbvf: upstream"), log
    # Nothing differs from the unpacked upstream source.
    assert subprocess.run(["git", "-C", str(repo), "status", "--porcelain", "--untracked-files=no"],
                          capture_output=True, text=True, check=True).stdout == ""

    ko = Bench.guest_module("drivers", "igbvf-upstream", "igbvf.ko")
    try:
        new = vm.setup_vfs(2, igbvf=ko)
        assert vm.module_build_id("igbvf") == build_id(repo / "igbvf.ko")
        assert "O" in vm.get("/sys/module/igbvf/taint")  # out of tree
        assert vm.run("ls /sys/bus/pci/drivers/igbvf | grep -c ^0000:").out.strip() == "2"
        tr = peer.ping(new[0].ip, count=5, interval=0.1)
        assert tr.received == 5, tr.raw
    finally:
        vm.restore_stock(2)
    assert vm.get("/sys/module/igbvf/taint").strip() == ""
