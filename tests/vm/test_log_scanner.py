"""The guest-log scanner flags Oops/BUG/WARNING/call traces and ignores out-of-tree taint notices."""

from compscvm import kernel_problems

CLEAN = """[    3.1] igbvf: loading out-of-tree module taints kernel.
[    3.2] igbvf: module verification failed: signature and/or required key missing - tainting kernel
[    1.5] PCI: Using host bridge windows from ACPI; if necessary, use "pci=nocrs" and report a bug
"""


def test_log_scanner():
    assert kernel_problems(CLEAN) == []
    for bad in ["[ 5.0] WARNING: CPU: 0 PID: 1 at net/core/dev.c:1 foo+0x1/0x2",
                "[ 5.0] BUG: kernel NULL pointer dereference, address: 0000000000000008",
                "[ 5.0] Oops: general protection fault, probably for non-canonical address",
                "[ 5.0] general protection fault: 0000 [#1] PREEMPT SMP NOPTI",
                "[ 5.0] Call Trace:",
                "[ 5.0] Kernel panic - not syncing: Fatal exception"]:
        found = kernel_problems(CLEAN + bad + "\n[ 5.1] next line\n")
        assert len(found) == 1 and bad in found[0], (bad, found)
