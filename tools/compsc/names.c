// SPDX-License-Identifier: (GPL-2.0 OR BSD-3-Clause)
/*
 * Printable names of library constants, and the register policy the area
 * commands judge a register list with.
 */
#include "cli.h"

const char *cli_kind_name(u8 kind)
{
	switch (kind) {
	case COMPSC_REG_PLAIN:
		return "plain";
	case COMPSC_REG_COUNTER_RO:
		return "counter_ro";
	case COMPSC_REG_COUNTER_RC:
		return "counter_rc";
	default:
		return "unknown";
	}
}

const char *cli_rec_name(u16 type)
{
	static const char *const names[COMPSC_REC_NR_KNOWN] = {
		[COMPSC_REC_END] = "END",
		[COMPSC_REC_REGS] = "REGS",
		[COMPSC_REC_COUNTERS] = "COUNTERS",
		[COMPSC_REC_PF_VF] = "PF_VF",
		[COMPSC_REC_DRIVER] = "DRIVER",
	};

	return type < COMPSC_REC_NR_KNOWN ? names[type] : "UNKNOWN";
}

const char *cli_link_state_name(u8 s)
{
	static const char *const names[] = { "auto", "enable", "disable" };

	return s < 3 ? names[s] : "unknown";
}

const char *cli_reg_name(u8 bar, u32 offset)
{
	(void)bar;
	(void)offset;
	return NULL;
}

/*
 * Without a device policy the entries are still judged for structure:
 * every BAR exists with the largest size and every window allows every
 * width and kind, so only flags, kind, width, alignment and overlap count.
 */
static const struct compsc_allow cli_allow_any[COMPSC_NR_BARS] = {
#define ANY(b) { 0, 0xffffffffu, b, COMPSC_WIDTH_4 | COMPSC_WIDTH_8,		\
		 COMPSC_KIND_BIT(COMPSC_REG_PLAIN) |				\
		 COMPSC_KIND_BIT(COMPSC_REG_COUNTER_RO) |			\
		 COMPSC_KIND_BIT(COMPSC_REG_COUNTER_RC), 0 }
	ANY(0), ANY(1), ANY(2), ANY(3), ANY(4), ANY(5),
#undef ANY
};

static const struct compsc_policy cli_policy_any = {
	.bar_size = { 0xffffffffu, 0xffffffffu, 0xffffffffu,
		      0xffffffffu, 0xffffffffu, 0xffffffffu },
	.allow = cli_allow_any,
	.nr_allow = COMPSC_NR_BARS,
	.max_regs = COMPSC_MAX_REGS,
	.max_counters = COMPSC_MAX_COUNTERS,
};

const struct compsc_policy *cli_policy(const char **name)
{
	*name = "structure";
	return &cli_policy_any;
}
