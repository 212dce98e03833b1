// SPDX-License-Identifier: GPL-2.0
/*
 * Module glue for the kernel build of libcompsc. The library itself has no
 * state; this file only gives the module its identity.
 */
#include <linux/module.h>

MODULE_DESCRIPTION("CompSC protocol library (shared area, sync, replay, stream)");
MODULE_LICENSE("Dual BSD/GPL");
