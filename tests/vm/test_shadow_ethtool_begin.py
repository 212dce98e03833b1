"""guest-shadow forwards an ethtool set to its lower the way the ethtool core
calls a driver: the lower's begin and complete around it (a begin that
refuses fails the set, and nothing is recorded), and a lower whose device
is not present is refused. The lower is gshadow_testlower.ko, whose begin
refuses and whose device goes absent on request (debugfs)."""

import re

import pytest

import shadow
from shadow import UPPER

TL = "gshadow_testlower"
KO = f"/lib/compsc/test/{TL}.ko"
DBG = f"/sys/kernel/debug/{TL}"


def _calls(vm) -> dict:
    return {k: int(vm.get(f"{DBG}/{k}")) for k in ("begin", "complete", "sets")}


def test_shadow_ethtool_begin(vm, vfs, bench):
    ko = bench.build / "kmod" / TL / f"{TL}.ko"
    if not ko.exists():
        pytest.skip(f"{ko} not built (make vm-test builds it)")
    vm.run("mkdir -p /lib/compsc/test")
    vm.put(KO, ko)
    shadow.load(vm, vfs)
    try:
        shadow.unplug(vm, vfs[0])
        vm.insmod(KO)
        vm.run(f"echo {TL} > {shadow.SYSFS}/lower_pci")
        shadow.wait_lower(vm, TL, notified=2)
        dev = shadow.lower(vm)
        c0 = _calls(vm)
        vm.run(f"ethtool -G {UPPER} rx 512")
        c1 = _calls(vm)
        assert c1["sets"] == c0["sets"] + 1, (c0, c1)
        assert c1["begin"] > c0["begin"], f"the set skipped {dev}'s begin: {c0} {c1}"
        assert c1["complete"] - c0["complete"] == c1["begin"] - c0["begin"], (c0, c1)
        assert shadow.rings(vm, dev)[0] == 512
        logged = shadow.stats(vm)["log_records"]

        # the lower's begin refuses: the set fails, reaches nothing, records nothing
        vm.run(f"echo 16 > {DBG}/begin_err")
        r = vm.run(f"ethtool -G {UPPER} rx 1024", check=False)
        vm.run(f"echo 0 > {DBG}/begin_err")
        assert r.rc != 0, f"a set {dev}'s begin refused succeeded: {r.out}{r.err}"
        assert _calls(vm)["sets"] == c1["sets"]
        assert shadow.rings(vm, dev)[0] == 512
        assert shadow.stats(vm)["log_records"] == logged

        # the lower's device is not present: refused
        before = _calls(vm)
        vm.run(f"echo 0 > {DBG}/present")
        r = vm.run(f"ethtool -C {UPPER} rx-usecs 50", check=False)
        vm.run(f"echo 1 > {DBG}/present")
        assert r.rc != 0, f"a set while {dev} was absent succeeded: {r.out}{r.err}"
        assert _calls(vm)["sets"] == before["sets"]
        assert shadow.stats(vm)["log_records"] == logged

        # with no lower the upper reports its record: only the set that went through
        vm.rmmod(TL)
        assert shadow.lower(vm) == "none"
        assert shadow.rings(vm, UPPER)[0] == 512
        usecs = re.search(r"^rx-usecs:\s+(\d+)", vm.run(f"ethtool -c {UPPER}").out, re.M)
        assert int(usecs.group(1)) != 50
    finally:
        shadow.unload(vm, vfs)
        vm.run(f"rmmod {TL} 2>/dev/null", check=False)
        vm.restore_stock(2)
