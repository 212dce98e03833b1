"""A real kernel WARNING in a guest (bench_warn.ko) makes the harness fail that VM, showing the log excerpt."""

import pytest

from compsc_harness.vm import VM, KernelProblem


def test_log_guard(bench):
    ko = bench.build / "kmod" / "bench_warn" / "bench_warn.ko"
    if not ko.exists():
        pytest.skip(f"{ko} not built (make vm-test builds it)")
    vm = VM(name="warn", bench=bench, extra_files={"/lib/compsc/test/bench_warn.ko": ko})
    try:
        mark = vm.log_mark()
        vm.insmod("/lib/compsc/test/bench_warn.ko")
        vm.run("sync")
    finally:
        with pytest.raises(KernelProblem) as ei:
            vm.close(check=True)
    assert "bench_warn: deliberate warning" in str(ei.value)
    assert "WARNING:" in str(ei.value) and "Call Trace" in str(ei.value)
    assert vm.kernel_problems(since=mark)
    assert not vm.alive()
