"""The project's own series (drivers/igb, drivers/igbvf) apply with git am, build, load together and pass traffic."""

import subprocess

from compsc_harness.vm import REPO, Bench, build_id


def applied(repo):
    return subprocess.run(["git", "-C", str(repo), "log", "--format=%s", "upstream..HEAD"],
                          capture_output=True, text=True, check=True).stdout.splitlines()


def test_driver_series(vm, vfs, peer, bench):
    builds = {}
    for drv in ("igb", "igbvf"):
        repo = bench.build / "drivers" / drv
        patches = sorted((REPO / "drivers" / drv).glob("*.patch"))
        assert len(applied(repo)) == len(patches), (drv, applied(repo))
        builds[drv] = repo / f"{drv}.ko"
    try:
        vm.teardown_vfs()
        new = vm.setup_vfs(2, igb=Bench.guest_module("drivers", "igb", "igb.ko"),
                           igbvf=Bench.guest_module("drivers", "igbvf", "igbvf.ko"))
        for drv, ko in builds.items():
            assert vm.module_build_id(drv) == build_id(ko), drv
        tr = peer.ping(new[0].ip, count=5, interval=0.1)
        assert tr.received == 5, tr.raw
    finally:
        vm.restore_stock(2)
