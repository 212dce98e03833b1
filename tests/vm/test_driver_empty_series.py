"""igbvf built out of tree from linux-source with the (empty) drivers/igbvf series loads and passes traffic."""

import subprocess

from compscvm import REPO, Bench, build_id


def test_driver_empty_series(vm, vfs, peer, bench):
    repo = bench.build / "drivers" / "igbvf"
    series = sorted((REPO / "drivers" / "igbvf").glob("*.patch"))
    log = subprocess.run(["git", "-C", str(repo), "log", "--format=%s"],
                         capture_output=True, text=True, check=True).stdout.splitlines()
    # upstream commit + one commit per patch in the series
    assert len(log) == 1 + len(series), log
    assert log[-1].startswith("igbvf: upstream")

    ko = Bench.guest_module("drivers", "igbvf", "igbvf.ko")
    try:
        new = vm.setup_vfs(2, igbvf=ko)
        # Our build is out of tree and unsigned: the kernel marks it O and E.
        assert vm.module_build_id("igbvf") == build_id(repo / "igbvf.ko")
        assert "O" in vm.get("/sys/module/igbvf/taint")  # out of tree
        assert vm.run("ls /sys/bus/pci/drivers/igbvf | grep -c ^0000:").out.strip() == "2"
        tr = peer.ping(new[0].ip, count=5, interval=0.1)
        assert tr.received == 5, tr.raw
    finally:
        vm.restore_stock(2)
    assert vm.get("/sys/module/igbvf/taint").strip() == ""
