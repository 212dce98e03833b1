// SPDX-License-Identifier: GPL-2.0
/*
 * Module glue for the kernel build of libcompsc. The library itself has no
 * state; the module adds the PF <-> host registry (kernel/registry.c) and
 * its debugfs view.
 */
#include <linux/module.h>
#include <compsc/kernel.h>

static int __init compsc_mod_init(void)
{
	compsc_registry_debugfs_init();
	return 0;
}

static void __exit compsc_mod_exit(void)
{
	compsc_registry_debugfs_exit();
}

module_init(compsc_mod_init);
module_exit(compsc_mod_exit);
MODULE_DESCRIPTION("CompSC protocol library (shared area, sync, replay, stream)");
MODULE_LICENSE("Dual BSD/GPL");
