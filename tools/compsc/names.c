// SPDX-License-Identifier: (GPL-2.0 OR BSD-3-Clause)
/*
 * Printable names of library constants, and the register policy the area
 * commands judge a register list with.
 */
#include "cli.h"

#include <compsc/dev_82576vf.h>
#include <compsc/dev_82599vf.h>
#include <compsc/host.h>
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
 * The replay log key of an 82599 VF (ixgbevf) record, named after the
 * mailbox message it replays: "SET_MAC", "SET_VLAN(100)",
 * "SET_MACVLAN(1)" (the filter's index); NULL for a key ixgbevf does not
 * write. @buf (@n bytes) holds names with a number.
 */
const char *cli_82599vf_replay_name(u32 key, char *buf, size_t n)
{
	static const char *const names[] = {
		[COMPSC_82599VF_MSG_RESET] = "RESET",
		[COMPSC_82599VF_MSG_SET_MAC] = "SET_MAC",
		[COMPSC_82599VF_MSG_SET_MULTICAST] = "SET_MULTICAST",
		[COMPSC_82599VF_MSG_SET_LPE] = "SET_LPE",
		[COMPSC_82599VF_MSG_UPDATE_XCAST] = "UPDATE_XCAST",
	};
	u32 type = key & 0xffff, info = key >> COMPSC_82599VF_MSGINFO_SHIFT;

	if (type == COMPSC_82599VF_MSG_SET_VLAN && info < 4096) {
		snprintf(buf, n, "SET_VLAN(%u)", info);
		return buf;
	}
	if (type == COMPSC_82599VF_MSG_SET_MACVLAN && info >= 1 && info < 256) {
		snprintf(buf, n, "SET_MACVLAN(%u)", info);
		return buf;
	}
	if (info || type >= sizeof(names) / sizeof(names[0]))
		return NULL;
	return names[type];	/* NULL for 0 and the numbered slots */
}

/*
 * 82599 VF BAR0 register names, as ixgbevf's regs.h spells them without
 * the IXGBE_ prefix; offsets from compsc/dev_82599vf.h where it has them.
 */
#define QUEUE_REGS_82599(q) \
	{ COMPSC_82599VF_RDBAL(q), "VFRDBAL(" #q ")" }, \
	{ COMPSC_82599VF_RDBAL(q) + COMPSC_82599VF_RING_BAH, "VFRDBAH(" #q ")" }, \
	{ COMPSC_82599VF_RDBAL(q) + COMPSC_82599VF_RING_LEN, "VFRDLEN(" #q ")" }, \
	{ 0x100c + COMPSC_82599VF_QSTRIDE * (q), "VFDCA_RXCTRL(" #q ")" }, \
	{ COMPSC_82599VF_RDH(q), "VFRDH(" #q ")" }, \
	{ 0x1014 + COMPSC_82599VF_QSTRIDE * (q), "VFSRRCTL(" #q ")" }, \
	{ COMPSC_82599VF_RDT(q), "VFRDT(" #q ")" }, \
	{ COMPSC_82599VF_RXDCTL(q), "VFRXDCTL(" #q ")" }, \
	{ 0x102c + COMPSC_82599VF_QSTRIDE * (q), "VFRSCCTL(" #q ")" }, \
	{ COMPSC_82599VF_TDBAL(q), "VFTDBAL(" #q ")" }, \
	{ COMPSC_82599VF_TDBAL(q) + COMPSC_82599VF_RING_BAH, "VFTDBAH(" #q ")" }, \
	{ COMPSC_82599VF_TDBAL(q) + COMPSC_82599VF_RING_LEN, "VFTDLEN(" #q ")" }, \
	{ 0x200c + COMPSC_82599VF_QSTRIDE * (q), "VFDCA_TXCTRL(" #q ")" }, \
	{ COMPSC_82599VF_TDH(q), "VFTDH(" #q ")" }, \
	{ COMPSC_82599VF_TDT(q), "VFTDT(" #q ")" }, \
	{ COMPSC_82599VF_TXDCTL(q), "VFTXDCTL(" #q ")" }, \
	{ 0x2038 + COMPSC_82599VF_QSTRIDE * (q), "VFTDWBAL(" #q ")" }, \
	{ 0x203c + COMPSC_82599VF_QSTRIDE * (q), "VFTDWBAH(" #q ")" }

static const struct reg_name reg_names_82599vf[] = {
	{ COMPSC_82599VF_CTRL, "VFCTRL" },
	{ COMPSC_82599VF_STATUS, "VFSTATUS" },
	{ 0x0010, "VFLINKS" },
	{ COMPSC_82599VF_EICR, "VTEICR" },
	{ COMPSC_82599VF_EICS, "VTEICS" },
	{ COMPSC_82599VF_EIMS, "VTEIMS" },
	{ COMPSC_82599VF_EIMC, "VTEIMC" },
	{ 0x0110, "VTEIAC" },
	{ 0x0114, "VTEIAM" },
	{ COMPSC_82599VF_IVAR(0), "VTIVAR(0)" },
	{ COMPSC_82599VF_IVAR(1), "VTIVAR(1)" },
	{ COMPSC_82599VF_IVAR(2), "VTIVAR(2)" },
	{ COMPSC_82599VF_IVAR(3), "VTIVAR(3)" },
	{ COMPSC_82599VF_IVAR_MISC, "VTIVAR_MISC" },
	{ COMPSC_82599VF_VFMBMEM, "VFMBMEM" },
	{ COMPSC_82599VF_VFMAILBOX, "VFMAILBOX" },
	{ 0x0300, "VFPSRTYPE" },
	{ COMPSC_82599VF_EITR(0), "VTEITR(0)" },
	{ COMPSC_82599VF_EITR(1), "VTEITR(1)" },
	{ COMPSC_82599VF_EITR(2), "VTEITR(2)" },
	{ COMPSC_82599VF_VFGPRC, "VFGPRC" },
	{ COMPSC_82599VF_VFGORC_LSB, "VFGORC_LSB" },
	{ COMPSC_82599VF_VFGORC_MSB, "VFGORC_MSB" },
	{ COMPSC_82599VF_VFMPRC, "VFMPRC" },
	{ COMPSC_82599VF_VFGPTC, "VFGPTC" },
	{ COMPSC_82599VF_VFGOTC_LSB, "VFGOTC_LSB" },
	{ COMPSC_82599VF_VFGOTC_MSB, "VFGOTC_MSB" },
	{ 0x3000, "VFMRQC" },
	{ 0x3190, "VFRXMEMWRAP" },
	QUEUE_REGS_82599(0), QUEUE_REGS_82599(1),
	QUEUE_REGS_82599(2), QUEUE_REGS_82599(3),
	QUEUE_REGS_82599(4), QUEUE_REGS_82599(5),
	QUEUE_REGS_82599(6), QUEUE_REGS_82599(7),
};

const char *cli_82599vf_reg_name(u8 bar, u32 offset)
{
	size_t i;

	for (i = 0; bar == 0 && i < sizeof(reg_names_82599vf) /
				    sizeof(reg_names_82599vf[0]); i++)
		if (reg_names_82599vf[i].offset == offset)
			return reg_names_82599vf[i].name;
	return NULL;
}

/*
 * The VF models the CLI names registers and replay keys for, each with
 * the --policy name of its allow-list. A stream's model is the one
 * compsc_devmodel_find() gives for its PCI ID.
 */
static const struct cli_dev cli_devs[] = {
	{ "82576vf", &compsc_82576vf_model, cli_82576vf_reg_name,
	  cli_82576vf_replay_name },
	{ "82599vf", &compsc_82599vf_model, cli_82599vf_reg_name,
	  cli_82599vf_replay_name },
};
#define NR_CLI_DEVS	(sizeof(cli_devs) / sizeof(cli_devs[0]))

const struct cli_dev *cli_dev_by_id(u16 vendor, u16 device)
{
	const struct compsc_devmodel *dm = compsc_devmodel_find(vendor, device);
	size_t i;

	for (i = 0; dm && i < NR_CLI_DEVS; i++)
		if (cli_devs[i].model == dm)
			return &cli_devs[i];
	return NULL;
}

const struct cli_dev *cli_dev_by_policy(const char *name)
{
	size_t i;

	for (i = 0; i < NR_CLI_DEVS; i++)
		if (!strcmp(cli_devs[i].policy_name, name))
			return &cli_devs[i];
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
 * "82576vf", "82599vf": the host's own allow-list for that VF (what the
 * stand-in and the VFIO driver enforce, from the device model);
 * "structure": entries judged for form only.
 */
const struct compsc_policy *cli_policy(const char *name)
{
	const struct cli_dev *d = cli_dev_by_policy(name);

	if (d)
		return d->model->policy;
	if (!strcmp(name, "structure"))
		return &cli_policy_any;
	return NULL;
}
