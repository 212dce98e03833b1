"""The guest-log scanner flags Oops/BUG/WARNING/call traces and the debug kernel's detector reports, and ignores out-of-tree taint notices and the detectors' boot lines."""

from compsc_harness.vm import kernel_problems

CLEAN = """[    3.1] igbvf: loading out-of-tree module taints kernel.
[    3.2] igbvf: module verification failed: signature and/or required key missing - tainting kernel
[    1.5] PCI: Using host bridge windows from ACPI; if necessary, use "pci=nocrs" and report a bug
[    0.1] kasan: KernelAddressSanitizer initialized
[    0.2] kfence: initialized - using 2097152 bytes for 255 objects at 0x(____ptrval____)
[    0.3] kmemleak: Kernel memory leak detector initialized (mem pool available: 15706)
[    0.4] ODEBUG: selftest passed
"""


def test_log_scanner():
    assert kernel_problems(CLEAN) == []
    for bad in ["[ 5.0] WARNING: CPU: 0 PID: 1 at net/core/dev.c:1 foo+0x1/0x2",
                "[ 5.0] BUG: kernel NULL pointer dereference, address: 0000000000000008",
                "[ 5.0] Oops: general protection fault, probably for non-canonical address",
                "[ 5.0] general protection fault: 0000 [#1] PREEMPT SMP NOPTI",
                "[ 5.0] Call Trace:",
                "[ 5.0] Kernel panic - not syncing: Fatal exception",
                "[ 5.0] possible circular locking dependency detected",
                "[ 5.0] inconsistent lock state",
                "[ 5.0] sleeping function called from invalid context at mm/slub.c:4203",
                "[ 5.0] KFENCE: use-after-free read in bug_kfence+0x1/0x2",
                "[ 5.0] ODEBUG: free active (active state 0) object: 0000 object type: timer_list",
                "[ 5.0] kmemleak: 1 new suspected memory leaks (see /sys/kernel/debug/kmemleak)",
                "[ 5.0] kmemleak: Kernel memory leak detector disabled"]:
        found = kernel_problems(CLEAN + bad + "\n[ 5.1] next line\n")
        assert len(found) == 1 and bad in found[0], (bad, found)
