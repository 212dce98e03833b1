/* SPDX-License-Identifier: (GPL-2.0 OR BSD-3-Clause) */
/*
 * The host policy the unit tests and the fuzz targets check guest areas
 * against (one table for both, so a test and a fuzz finding mean the same
 * rule): BAR0 16 KiB with plain registers below 0x1000 and 32-bit counters
 * in [0x1000, 0x2000); BAR3 16 KiB with plain 32-bit registers in
 * [0, 0x100). Everything else is denied.
 */
#ifndef COMPSC_TEST_POLICY_FIXTURE_H
#define COMPSC_TEST_POLICY_FIXTURE_H

#include <compsc/compsc.h>

#define FX_BAR_SIZE	0x4000u
#define FX_REG_MAX	16u
#define FX_CTR_MAX	8u
#define FX_NR_ALLOW	3u
#define FX_NR_ALLOW_BAR0 2u	/* the first entries, all on BAR0 */

static const struct compsc_allow fx_allow[FX_NR_ALLOW] = {
	{ .start = 0x0000, .end = 0x1000, .bar = 0,
	  .width_mask = COMPSC_WIDTH_4 | COMPSC_WIDTH_8,
	  .kind_mask = COMPSC_KIND_BIT(COMPSC_REG_PLAIN) },
	{ .start = 0x1000, .end = 0x2000, .bar = 0, .width_mask = COMPSC_WIDTH_4,
	  .kind_mask = COMPSC_KIND_BIT(COMPSC_REG_COUNTER_RO) |
		       COMPSC_KIND_BIT(COMPSC_REG_COUNTER_RC) },
	{ .start = 0x0000, .end = 0x0100, .bar = 3, .width_mask = COMPSC_WIDTH_4,
	  .kind_mask = COMPSC_KIND_BIT(COMPSC_REG_PLAIN) },
};

static inline struct compsc_policy fx_policy(void)
{
	struct compsc_policy p = {
		.bar_size = { [0] = FX_BAR_SIZE, [3] = FX_BAR_SIZE },
		.allow = fx_allow, .nr_allow = FX_NR_ALLOW,
		.max_regs = FX_REG_MAX, .max_counters = FX_CTR_MAX,
	};
	return p;
}

#endif
