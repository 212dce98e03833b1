// SPDX-License-Identifier: GPL-2.0
/*
 * bench_warn.ko: emits one kernel WARNING (with its call trace) at load.
 *
 * Only the bench's own test of its kernel-log guard loads this, in a VM of
 * its own: the test passes when the harness refuses that VM's log.
 */
#include <linux/bug.h>
#include <linux/module.h>

static int __init bench_warn_init(void)
{
	WARN(1, "bench_warn: deliberate warning for the log-guard test\n");
	return 0;
}

static void __exit bench_warn_exit(void)
{
}

module_init(bench_warn_init);
module_exit(bench_warn_exit);
MODULE_DESCRIPTION("Emit one WARNING to test the bench's kernel-log guard");
MODULE_LICENSE("GPL");
