"""libcompsc's self-test (compiled into compsc_selftest.ko, run against
compsc.ko) passes in kernel context, and compsc.ko carries none of it."""

import re
import subprocess

import pytest

from compsc_harness.vm import Bench


def test_libcompsc_selftest(vm, bench, measure):
    if not (bench.build / "kmod" / "libcompsc" / "compsc.ko").exists():
        pytest.skip("compsc.ko not built: libcompsc/Kbuild missing (make kmod-compsc)")
    kmod = Bench.guest_module("kmod")
    vm.run("rmmod compsc_selftest 2>/dev/null; rmmod compsc 2>/dev/null; true")
    try:
        vm.insmod(f"{kmod}/compsc_selftest.ko")  # loads compsc.ko first
        assert vm.module_loaded("compsc")
        failed = int(vm.get("/sys/kernel/debug/compsc_selftest/failed"))
        report = vm.get("/sys/kernel/debug/compsc_selftest/report")
        dmesg = vm.dmesg()
    finally:
        vm.run("rmmod compsc_selftest; rmmod compsc", check=False)
    m = re.search(r"compsc_selftest: result: (-?\d+) failed", dmesg)
    assert m, f"no result line in the kernel log\n{dmesg[-3000:]}"
    assert int(m.group(1)) == failed
    passed = re.search(r"(\d+) checks passed", report)
    if passed:
        measure("libcompsc checks passed in kernel", int(passed.group(1)), "")
    assert failed == 0, f"{failed} libcompsc checks failed in the kernel:\n{report}"


def test_compsc_ko_carries_no_selftest(bench):
    ko = bench.build / "kmod" / "libcompsc" / "compsc.ko"
    if not ko.exists():
        pytest.skip("compsc.ko not built: libcompsc/Kbuild missing (make kmod-compsc)")
    syms = subprocess.run(["nm", str(ko)], capture_output=True, text=True,
                          check=True).stdout.split()
    found = [s for s in syms if s.startswith(("compsc_selftest", "compsc_st_"))]
    assert not found, f"test code in compsc.ko: {found}"
