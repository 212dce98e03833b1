// SPDX-License-Identifier: (GPL-2.0 OR BSD-3-Clause)
/*
 * Intel 82576 VF: the register allow-list, the queue-stop, interrupt, ring
 * and statistics registers, and the device model the host side uses (see
 * compsc/dev_82576vf.h). Windows are [start, end) byte ranges of BAR0.
 *
 * Left out on purpose: CTRL (a write resets the VF), the mailbox (writing
 * it talks to the PF), EICR/EICS/EIMC (reads clear causes or writes act),
 * DCA_RXCTRL/TXCTRL and head write-back (the guest does not use them), and
 * 8-byte entries (the device only takes 4-byte accesses).
 */
#include <compsc/compsc.h>
#include <compsc/dev_82576vf.h>

#define P	COMPSC_KIND_BIT(COMPSC_REG_PLAIN)
#define C	COMPSC_KIND_BIT(COMPSC_REG_COUNTER_RO)
#define W4	COMPSC_WIDTH_4
#define WIN(s, e, k)	{ .start = (s), .end = (e), .bar = 0, \
			  .width_mask = W4, .kind_mask = (k) }

static const struct compsc_allow compsc_82576vf_allow[] = {
	WIN(0x0f10, 0x0f1c, C),		/* VFGPRC, VFGPTC, VFGORC */
	WIN(0x0f34, 0x0f38, C),		/* VFGOTC */
	WIN(0x0f3c, 0x0f4c, C),		/* VFMPRC, VFGPRLBC..VFGORLBC */
	WIN(0x0f50, 0x0f54, C),		/* VFGOTLBC */
	WIN(0x1524, 0x1528, P),		/* EIMS */
	WIN(0x152c, 0x1534, P),		/* EIAC, EIAM */
	WIN(0x1680, 0x168c, P),		/* EITR(0..2) */
	WIN(0x1700, 0x1704, P),		/* IVAR0 */
	WIN(0x1740, 0x1744, P),		/* IVAR_MISC */
	WIN(0x2800, 0x2814, P),		/* RDBAL..RDH(0) */
	WIN(0x2818, 0x281c, P),		/* RDT(0) */
	WIN(0x2828, 0x282c, P),		/* RXDCTL(0) */
	WIN(0x2900, 0x2914, P),		/* RDBAL..RDH(1) */
	WIN(0x2918, 0x291c, P),		/* RDT(1) */
	WIN(0x2928, 0x292c, P),		/* RXDCTL(1) */
	WIN(0x3800, 0x380c, P),		/* TDBAL..TDLEN(0) */
	WIN(0x3810, 0x3814, P),		/* TDH(0) */
	WIN(0x3818, 0x381c, P),		/* TDT(0) */
	WIN(0x3828, 0x382c, P),		/* TXDCTL(0) */
	WIN(0x3900, 0x390c, P),		/* TDBAL..TDLEN(1) */
	WIN(0x3910, 0x3914, P),		/* TDH(1) */
	WIN(0x3918, 0x391c, P),		/* TDT(1) */
	WIN(0x3928, 0x392c, P),		/* TXDCTL(1) */
};

const struct compsc_policy compsc_82576vf_policy = {
	.bar_size = { COMPSC_82576VF_BAR0_SIZE },
	.allow = compsc_82576vf_allow,
	.nr_allow = sizeof(compsc_82576vf_allow) /
		    sizeof(compsc_82576vf_allow[0]),
	.max_regs = 64,
	.max_counters = 16,
};

COMPSC_EXPORT(compsc_82576vf_policy);

const u32 compsc_82576vf_stats[COMPSC_82576VF_NR_STATS] = {
	0x0f10, 0x0f14, 0x0f18,		/* VFGPRC, VFGPTC, VFGORC */
	0x0f34, 0x0f3c,			/* VFGOTC, VFMPRC */
	0x0f40, 0x0f44, 0x0f48, 0x0f50,	/* VFGPRLBC, VFGPTLBC, VFGORLBC, VFGOTLBC */
};
COMPSC_EXPORT(compsc_82576vf_stats);

const u32 compsc_82576vf_qctl[COMPSC_82576VF_NR_QCTL] = {
	COMPSC_82576VF_RXDCTL(0), COMPSC_82576VF_RXDCTL(1),
	COMPSC_82576VF_TXDCTL(0), COMPSC_82576VF_TXDCTL(1),
};

COMPSC_EXPORT(compsc_82576vf_qctl);

/* RX and TX ring of each queue pair */
static const u32 compsc_82576vf_rings[2 * COMPSC_82576VF_NR_QUEUES] = {
	COMPSC_82576VF_RDBAL(0), COMPSC_82576VF_TDBAL(0),
	COMPSC_82576VF_RDBAL(1), COMPSC_82576VF_TDBAL(1),
};

static const u32 compsc_82576vf_pf_vflre[COMPSC_82576_PF_NR_VFLRE] = {
	COMPSC_82576_PF_VFLRE,
};

const struct compsc_devmodel compsc_82576vf_model = {
	.name = "82576 VF",
	.vendor = COMPSC_82576VF_VENDOR,
	.device = COMPSC_82576VF_DEVICE,
	.bar0_size = COMPSC_82576VF_BAR0_SIZE,
	.policy = &compsc_82576vf_policy,
	.qctl = compsc_82576vf_qctl,
	.nr_qctl = COMPSC_82576VF_NR_QCTL,
	.qctl_enable = COMPSC_82576VF_QDCTL_ENABLE,
	.qstop_us = COMPSC_82576VF_QSTOP_US,
	.flush = COMPSC_82576VF_STATUS,
	.irq_set = COMPSC_82576VF_EICS,
	.irq_unmask = COMPSC_82576VF_EIMS,
	.irq_all = COMPSC_82576VF_VECTORS,
	.ring_base = compsc_82576vf_rings,
	.nr_rings = 2 * COMPSC_82576VF_NR_QUEUES,
	.ring_hi = COMPSC_82576VF_RING_BAH,
	.ring_len = COMPSC_82576VF_RING_LEN,
	.ring_len_mask = COMPSC_82576VF_RING_LEN_MASK,
	.stats = compsc_82576vf_stats,
	.nr_stats = COMPSC_82576VF_NR_STATS,
	.rx0_base = COMPSC_82576VF_RDBAL(0),
	.rx0_head = COMPSC_82576VF_RDH(0),
	.rx0_tail = COMPSC_82576VF_RDT(0),
	.pf_vflre = compsc_82576vf_pf_vflre,
	.nr_pf_vflre = COMPSC_82576_PF_NR_VFLRE,
	.pf_max_vfs = COMPSC_82576_PF_MAX_VFS,
	.pf_vlans = COMPSC_82576_PF_VLVF_SIZE - 1,
};

COMPSC_EXPORT(compsc_82576vf_model);
