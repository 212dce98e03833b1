// SPDX-License-Identifier: (GPL-2.0 OR BSD-3-Clause)
/*
 * Printable names of library constants, and the register policy the area
 * commands judge a register list with.
 */
#include "cli.h"

#include <compsc/dev_82576vf.h>
#include <string.h>

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
		[COMPSC_REC_HOST_COUNTERS] = "HOST_COUNTERS",
		[COMPSC_REC_PF_VF_EXT] = "PF_VF_EXT",
		[COMPSC_REC_PRECOPY] = "PRECOPY",
	};

	return type < COMPSC_REC_NR_KNOWN ? names[type] : "UNKNOWN";
}

const char *cli_link_state_name(u8 s)
{
	static const char *const names[] = { "auto", "enable", "disable" };

	return s < 3 ? names[s] : "unknown";
}

/*
 * The replay log key of an 82576 VF (igbvf) record, named after the
 * mailbox message it replays: "SET_MAC", "SET_VLAN(10)"; NULL for a key
 * igbvf does not write. @buf (@n bytes) holds names with a number.
 */
const char *cli_82576vf_replay_name(u32 key, char *buf, size_t n)
{
	static const char *const names[] = {
		[COMPSC_82576VF_MSG_RESET] = "RESET",
		[COMPSC_82576VF_MSG_SET_MAC] = "SET_MAC",
		[COMPSC_82576VF_MSG_SET_MULTICAST] = "SET_MULTICAST",
		[COMPSC_82576VF_MSG_SET_LPE] = "SET_LPE",
		[COMPSC_82576VF_MSG_SET_PROMISC] = "SET_PROMISC",
	};
	u32 type = key & 0xffff, vid = key >> 16;

	if (type == COMPSC_82576VF_MSG_SET_VLAN && vid < 4096) {
		snprintf(buf, n, "SET_VLAN(%u)", vid);
		return buf;
	}
	if (vid || type >= sizeof(names) / sizeof(names[0]))
		return NULL;
	return names[type];	/* NULL for 0 and SET_VLAN's slot */
}

/* 82576 VF BAR0 register names (igbvf's regs.h), for printing only. */
struct reg_name {
	u32 offset;
	const char *name;
};

#define QUEUE_REGS(q) \
	{ 0x2800 + 0x100 * (q), "RDBAL(" #q ")" }, \
	{ 0x2804 + 0x100 * (q), "RDBAH(" #q ")" }, \
	{ 0x2808 + 0x100 * (q), "RDLEN(" #q ")" }, \
	{ 0x280c + 0x100 * (q), "SRRCTL(" #q ")" }, \
	{ COMPSC_82576VF_RDH(q), "RDH(" #q ")" }, \
	{ 0x2818 + 0x100 * (q), "RDT(" #q ")" }, \
	{ COMPSC_82576VF_RXDCTL(q), "RXDCTL(" #q ")" }, \
	{ 0x3800 + 0x100 * (q), "TDBAL(" #q ")" }, \
	{ 0x3804 + 0x100 * (q), "TDBAH(" #q ")" }, \
	{ 0x3808 + 0x100 * (q), "TDLEN(" #q ")" }, \
	{ COMPSC_82576VF_TDH(q), "TDH(" #q ")" }, \
	{ 0x3818 + 0x100 * (q), "TDT(" #q ")" }, \
	{ COMPSC_82576VF_TXDCTL(q), "TXDCTL(" #q ")" }, \
	{ 0x3838 + 0x100 * (q), "TDWBAL(" #q ")" }, \
	{ 0x383c + 0x100 * (q), "TDWBAH(" #q ")" }

static const struct reg_name reg_names_82576vf[] = {
	{ COMPSC_82576VF_CTRL, "CTRL" },
	{ COMPSC_82576VF_STATUS, "STATUS" },
	{ COMPSC_82576VF_VMBMEM, "VMBMEM" },
	{ COMPSC_82576VF_V2PMAILBOX, "V2PMAILBOX" },
	{ COMPSC_82576VF_VFGPRC, "VFGPRC" },
	{ COMPSC_82576VF_VFGPTC, "VFGPTC" },
	{ COMPSC_82576VF_VFGORC, "VFGORC" },
	{ COMPSC_82576VF_VFGOTC, "VFGOTC" },
	{ COMPSC_82576VF_VFMPRC, "VFMPRC" },
	{ COMPSC_82576VF_VFGPRLBC, "VFGPRLBC" },
	{ COMPSC_82576VF_VFGPTLBC, "VFGPTLBC" },
	{ COMPSC_82576VF_VFGORLBC, "VFGORLBC" },
	{ COMPSC_82576VF_VFGOTLBC, "VFGOTLBC" },
	{ 0x1520, "EICS" },
	{ 0x1524, "EIMS" },
	{ 0x1528, "EIMC" },
	{ 0x152c, "EIAC" },
	{ 0x1530, "EIAM" },
	{ COMPSC_82576VF_EICR, "EICR" },
	{ 0x1680, "EITR(0)" },
	{ 0x1684, "EITR(1)" },
	{ 0x1688, "EITR(2)" },
	{ 0x1700, "IVAR0" },
	{ 0x1740, "IVAR_MISC" },
	QUEUE_REGS(0),
	QUEUE_REGS(1),
};

const char *cli_82576vf_reg_name(u8 bar, u32 offset)
{
	size_t i;

	for (i = 0; bar == 0 && i < sizeof(reg_names_82576vf) /
				    sizeof(reg_names_82576vf[0]); i++)
		if (reg_names_82576vf[i].offset == offset)
			return reg_names_82576vf[i].name;
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

/*
 * "82576vf": the host's own allow-list (what the stand-in and the VFIO
 * driver enforce); "structure": entries judged for form only.
 */
const struct compsc_policy *cli_policy(const char *name)
{
	if (!strcmp(name, "82576vf"))
		return &compsc_82576vf_policy;
	if (!strcmp(name, "structure"))
		return &cli_policy_any;
	return NULL;
}
