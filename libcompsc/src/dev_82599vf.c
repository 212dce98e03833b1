// SPDX-License-Identifier: (GPL-2.0 OR BSD-3-Clause)
/*
 * Intel 82599 VF: the register allow-list, the queue-stop, interrupt, ring
 * and statistics registers, and the device model the host side uses (see
 * compsc/dev_82599vf.h). Windows are [start, end) byte ranges of BAR0.
 *
 * The allow-list is what the CompSC ixgbevf lists and nothing more: its
 * restore programs everything else from driver memory, so the host has no
 * reason to read it. Left out on purpose besides: VFCTRL (a write resets
 * the VF), the mailbox, VFMAILBOX and VFMBMEM (writing it talks to the
 * PF), VTEICR/VTEICS/VTEIMC (a read clears causes, a write acts), the
 * octet counters' _MSB words (a 4-bit carry, no 32-bit wrapping counter),
 * and 8-byte entries (the device only takes 4-byte accesses; an 8-byte
 * read of _LSB and _MSB would not be one counter either).
 */
#include <compsc/compsc.h>
#include <compsc/dev_82599vf.h>

#define P	COMPSC_KIND_BIT(COMPSC_REG_PLAIN)
#define C	COMPSC_KIND_BIT(COMPSC_REG_COUNTER_RO)
#define W4	COMPSC_WIDTH_4
#define WIN(s, e, k)	{ .start = (s), .end = (e), .bar = 0, \
			  .width_mask = W4, .kind_mask = (k) }
#define ONE(r, k)	WIN((r), (r) + 4, k)

static const struct compsc_allow compsc_82599vf_allow[] = {
	ONE(COMPSC_82599VF_RDH(0), P),
	WIN(0x101c, 0x1024, C),		/* VFGPRC, VFGORC_LSB */
	ONE(COMPSC_82599VF_VFMPRC, C),
	ONE(COMPSC_82599VF_RDH(1), P),
	ONE(COMPSC_82599VF_RDH(2), P),
	ONE(COMPSC_82599VF_RDH(3), P),
	ONE(COMPSC_82599VF_RDH(4), P),
	ONE(COMPSC_82599VF_RDH(5), P),
	ONE(COMPSC_82599VF_RDH(6), P),
	ONE(COMPSC_82599VF_RDH(7), P),
	ONE(COMPSC_82599VF_TDH(0), P),
	WIN(0x201c, 0x2024, C),		/* VFGPTC, VFGOTC_LSB */
	ONE(COMPSC_82599VF_TDH(1), P),
	ONE(COMPSC_82599VF_TDH(2), P),
	ONE(COMPSC_82599VF_TDH(3), P),
	ONE(COMPSC_82599VF_TDH(4), P),
	ONE(COMPSC_82599VF_TDH(5), P),
	ONE(COMPSC_82599VF_TDH(6), P),
	ONE(COMPSC_82599VF_TDH(7), P),
};

const struct compsc_policy compsc_82599vf_policy = {
	.bar_size = { COMPSC_82599VF_BAR0_SIZE },
	.allow = compsc_82599vf_allow,
	.nr_allow = sizeof(compsc_82599vf_allow) /
		    sizeof(compsc_82599vf_allow[0]),
	.max_regs = 2 * COMPSC_82599VF_NR_QUEUES,	/* the heads */
	.max_counters = 5,
};

COMPSC_EXPORT(compsc_82599vf_policy);

const u32 compsc_82599vf_stats[COMPSC_82599VF_NR_STATS] = {
	COMPSC_82599VF_VFGPRC, COMPSC_82599VF_VFGPTC, COMPSC_82599VF_VFMPRC,
};

COMPSC_EXPORT(compsc_82599vf_stats);

const u32 compsc_82599vf_qctl[COMPSC_82599VF_NR_QCTL] = {
	COMPSC_82599VF_RXDCTL(0), COMPSC_82599VF_RXDCTL(1),
	COMPSC_82599VF_RXDCTL(2), COMPSC_82599VF_RXDCTL(3),
	COMPSC_82599VF_RXDCTL(4), COMPSC_82599VF_RXDCTL(5),
	COMPSC_82599VF_RXDCTL(6), COMPSC_82599VF_RXDCTL(7),
	COMPSC_82599VF_TXDCTL(0), COMPSC_82599VF_TXDCTL(1),
	COMPSC_82599VF_TXDCTL(2), COMPSC_82599VF_TXDCTL(3),
	COMPSC_82599VF_TXDCTL(4), COMPSC_82599VF_TXDCTL(5),
	COMPSC_82599VF_TXDCTL(6), COMPSC_82599VF_TXDCTL(7),
};

COMPSC_EXPORT(compsc_82599vf_qctl);

/* RX and TX ring of each queue pair */
static const u32 compsc_82599vf_rings[2 * COMPSC_82599VF_NR_QUEUES] = {
	COMPSC_82599VF_RDBAL(0), COMPSC_82599VF_TDBAL(0),
	COMPSC_82599VF_RDBAL(1), COMPSC_82599VF_TDBAL(1),
	COMPSC_82599VF_RDBAL(2), COMPSC_82599VF_TDBAL(2),
	COMPSC_82599VF_RDBAL(3), COMPSC_82599VF_TDBAL(3),
	COMPSC_82599VF_RDBAL(4), COMPSC_82599VF_TDBAL(4),
	COMPSC_82599VF_RDBAL(5), COMPSC_82599VF_TDBAL(5),
	COMPSC_82599VF_RDBAL(6), COMPSC_82599VF_TDBAL(6),
	COMPSC_82599VF_RDBAL(7), COMPSC_82599VF_TDBAL(7),
};

/* VFs 0..31, then 32..63 (ixgbe's IXGBE_VFLRE(0), IXGBE_VFLRE(1)) */
static const u32 compsc_82599vf_pf_vflre[COMPSC_82599_PF_NR_VFLRE] = {
	COMPSC_82599_PF_VFLRE(0), COMPSC_82599_PF_VFLRE(1),
};

const struct compsc_devmodel compsc_82599vf_model = {
	.name = "82599 VF",
	.vendor = COMPSC_82599VF_VENDOR,
	.device = COMPSC_82599VF_DEVICE,
	.bar0_size = COMPSC_82599VF_BAR0_SIZE,
	.policy = &compsc_82599vf_policy,
	.qctl = compsc_82599vf_qctl,
	.nr_qctl = COMPSC_82599VF_NR_QCTL,
	.qctl_enable = COMPSC_82599VF_QDCTL_ENABLE,
	.qstop_us = COMPSC_82599VF_QSTOP_US,
	.flush = COMPSC_82599VF_STATUS,
	.irq_set = COMPSC_82599VF_EICS,
	.irq_unmask = COMPSC_82599VF_EIMS,
	.irq_all = COMPSC_82599VF_VECTORS,
	.ring_base = compsc_82599vf_rings,
	.nr_rings = 2 * COMPSC_82599VF_NR_QUEUES,
	.ring_hi = COMPSC_82599VF_RING_BAH,
	.ring_len = COMPSC_82599VF_RING_LEN,
	.ring_len_mask = COMPSC_82599VF_RING_LEN_MASK,
	.stats = compsc_82599vf_stats,
	.nr_stats = COMPSC_82599VF_NR_STATS,
	.rx0_base = COMPSC_82599VF_RDBAL(0),
	.rx0_head = COMPSC_82599VF_RDH(0),
	.rx0_tail = COMPSC_82599VF_RDT(0),
	.pf_vflre = compsc_82599vf_pf_vflre,
	.nr_pf_vflre = COMPSC_82599_PF_NR_VFLRE,
	.pf_max_vfs = COMPSC_82599_PF_MAX_VFS,
	.pf_vlans = COMPSC_82599_PF_VLVF_SIZE - 1,
};

COMPSC_EXPORT(compsc_82599vf_model);
