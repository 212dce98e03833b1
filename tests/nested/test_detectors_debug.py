"""The debug nested kernels' detectors reach the verdict (any
report fails the run). A bug committed on purpose (bench_bugs.ko, built
for the debug L1 and the debug L2) is reported on L1's console and on an
L2's console, which L1 keeps in a file; the harness's scans find each
report, and closing the L1 fails on them. Only on the debug kernels
(`make nested-test-debug`): the plain L1 and L2 have no KASAN."""
import pytest

from compsc_harness.vm import KernelProblem, kernel_problems
from nested import BUGS_KO, BUGS_PATH, L1

KASAN = "BUG: KASAN: slab-out-of-bounds"
# bench_bugs' kasan bug: one byte read past a 32-byte kmalloc buffer.
COMMIT = (f"mountpoint -q /sys/kernel/debug || mount -t debugfs none /sys/kernel/debug; "
          f"insmod {BUGS_PATH} && echo 1 > /sys/kernel/debug/bench_bugs/kasan")

pytestmark = pytest.mark.skipif(
    not (BUGS_KO["L1"] and BUGS_KO["L2"]),
    reason="needs the debug L1 and L2 kernels and bench_bugs.ko built for each: "
           "make nested-test-debug")


def test_planted_bugs_fail_the_run(peer):
    l1 = L1(peer)
    closed = False
    try:
        l1.setup()
        assert l1.bench.debug, "bench_bugs.ko given, but not the debug kernels"
        l1.src.start()
        l1.src.wait_up()
        assert not kernel_problems(l1.src.log()), "the L2 reported before the bug"
        l1.src.cmd("bug", COMMIT)
        l1.src.wait_line(r"l2ctl: bug rc=\d+")
        l1.src.wait_line(KASAN, timeout=60)
        l2_probs = kernel_problems(l1.src.log())
        assert any(KASAN in p and "bench_bugs" in p for p in l2_probs), l2_probs
        print(f"L2: {len(l2_probs)} report(s) found on its console, first: "
              f"{l2_probs[0].splitlines()[3].strip()}")

        assert not l1.kernel_problems(), "L1 reported before its bug"
        l1.sh(COMMIT, check=False)
        l1_probs = l1.kernel_problems()
        assert any(KASAN in p and "bench_bugs" in p for p in l1_probs), l1_probs
        print(f"L1: {len(l1_probs)} report(s) found on its console")

        closed = True
        with pytest.raises(KernelProblem) as ei:
            l1.close(check=True)
        # the L2 consoles' verdict, raised last, with L1's own as context
        assert "L2 kernel reports" in str(ei.value) and KASAN in str(ei.value)
        l1_verdict = ei.value.__context__
        assert isinstance(l1_verdict, KernelProblem) and KASAN in str(l1_verdict), l1_verdict
    finally:
        if not closed:
            l1.close(check=False)
