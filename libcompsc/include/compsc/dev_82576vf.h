/* SPDX-License-Identifier: (GPL-2.0 OR BSD-3-Clause) */
/*
 * compsc/dev_82576vf.h - what the host needs to know about an Intel 82576
 * virtual function, in one place: PCI identity, BAR0 size, the registers a
 * guest may ask the host to save, and what the host writes to stop the
 * VF's queues before it reads their heads. Shared by the stand-in and
 * the VFIO variant driver; portable (kernel and userspace), no libc.
 *
 * Offsets are the VF's own BAR0 view (the layout igbvf uses); the device
 * maps them onto the PF's per-VF registers.
 */
#ifndef COMPSC_DEV_82576VF_H
#define COMPSC_DEV_82576VF_H

#include "compsc.h"
#include "host.h"

#define COMPSC_82576VF_VENDOR		0x8086
#define COMPSC_82576VF_DEVICE		0x10ca
#define COMPSC_82576VF_BAR0_SIZE	(16u * 1024u)
#define COMPSC_82576VF_NR_QUEUES	2	/* RX and TX queue pairs */

/* Registers the host itself touches. */
#define COMPSC_82576VF_STATUS		0x0008	/* read to flush writes */
#define COMPSC_82576VF_RXDCTL(n)	(0x2828u + 0x100u * (n))
#define COMPSC_82576VF_TXDCTL(n)	(0x3828u + 0x100u * (n))
#define COMPSC_82576VF_RDH(n)		(0x2810u + 0x100u * (n))
#define COMPSC_82576VF_RDT(n)		(0x2818u + 0x100u * (n))
#define COMPSC_82576VF_TDH(n)		(0x3810u + 0x100u * (n))
/* RXDCTL/TXDCTL: queue enable; cleared to stop fetching descriptors. */
#define COMPSC_82576VF_QDCTL_ENABLE	0x02000000u
#define COMPSC_82576VF_QSTOP_US		1000	/* datasheet: stops within 1 ms */
/* Interrupts: cause set, mask set, and the VF's three vectors. */
#define COMPSC_82576VF_EICS		0x1520
#define COMPSC_82576VF_EIMS		0x1524
#define COMPSC_82576VF_VECTORS		0x7	/* RX, TX, mailbox */
/* Descriptor rings: low base; high base, length at +4, +8. */
#define COMPSC_82576VF_RDBAL(n)		(0x2800u + 0x100u * (n))
#define COMPSC_82576VF_TDBAL(n)		(0x3800u + 0x100u * (n))
#define COMPSC_82576VF_RING_BAH		0x4
#define COMPSC_82576VF_RING_LEN		0x8
#define COMPSC_82576VF_RING_LEN_MASK	0xfff80u

/*
 * In the PF's BAR0: VF reset events, write-1-to-clear, bit n for VF n.
 * igb's mailbox task clears a VF's bit and resets its state for that VF
 * in the same hold of its vfs_lock, so whatever takes that lock after the
 * bit reads clear comes after the reset.
 */
#define COMPSC_82576_PF_VFLRE		0x0c88
#define COMPSC_82576_PF_NR_VFLRE	1	/* 8 VFs: one register holds them */
/* igb enables 7 VFs at most: the 82576 has 8 pools, one is the PF's. */
#define COMPSC_82576_PF_MAX_VFS		7
/* The PF's VLAN filter table; entry 0 is VLAN 0's. */
#define COMPSC_82576_PF_VLVF_SIZE	32	/* E1000_VLVF_ARRAY_SIZE */

/* Registers the policy must never allow (kept here for tests and docs). */
#define COMPSC_82576VF_CTRL		0x0000	/* bit 26 resets the VF */
#define COMPSC_82576VF_VMBMEM		0x0800	/* mailbox memory, 64 bytes */
#define COMPSC_82576VF_V2PMAILBOX	0x0c40	/* mailbox control */
#define COMPSC_82576VF_EICR		0x1580	/* read clears causes */

/* Statistics (read-only, 32-bit, wrap). */
#define COMPSC_82576VF_VFGPRC		0x0f10
#define COMPSC_82576VF_VFGPTC		0x0f14
#define COMPSC_82576VF_VFGORC		0x0f18
#define COMPSC_82576VF_VFGOTC		0x0f34
#define COMPSC_82576VF_VFMPRC		0x0f3c
#define COMPSC_82576VF_VFGPRLBC		0x0f40
#define COMPSC_82576VF_VFGPTLBC		0x0f44
#define COMPSC_82576VF_VFGORLBC		0x0f48
#define COMPSC_82576VF_VFGOTLBC		0x0f50

/*
 * VF-to-PF mailbox message types (word 0, low 16 bits; igbvf's mbx.h
 * E1000_VF_*). igbvf keys its replay log by them: the key of a kept
 * message is its type, a VLAN's also carries the VLAN id in bits 16..27.
 */
#define COMPSC_82576VF_MSG_RESET	0x01
#define COMPSC_82576VF_MSG_SET_MAC	0x02
#define COMPSC_82576VF_MSG_SET_MULTICAST 0x03
#define COMPSC_82576VF_MSG_SET_VLAN	0x04
#define COMPSC_82576VF_MSG_SET_LPE	0x05
#define COMPSC_82576VF_MSG_SET_PROMISC	0x06	/* igb PF only */
#define COMPSC_82576VF_MSGINFO_SHIFT	16	/* SET_VLAN: 1 add, 0 remove */

/* Queue control registers, in the order the host disables them. */
#define COMPSC_82576VF_NR_QCTL		(2 * COMPSC_82576VF_NR_QUEUES)
extern const u32 compsc_82576vf_qctl[COMPSC_82576VF_NR_QCTL];

/* The VF's statistics registers (32-bit, wrapping, read-only). */
#define COMPSC_82576VF_NR_STATS		9
extern const u32 compsc_82576vf_stats[COMPSC_82576VF_NR_STATS];

/*
 * The allow-list: queue 0/1 ring registers (RDBAL..SRRCTL, RDH, RDT,
 * RXDCTL, TDBAL..TDLEN, TDH, TDT, TXDCTL), EITR(0..2), IVAR0, IVAR_MISC,
 * EIAC, EIAM and EIMS as 4-byte PLAIN; the VF statistics as 4-byte
 * COUNTER_RO. Everything else in BAR0 is refused, and no other BAR exists.
 */
extern const struct compsc_policy compsc_82576vf_policy;

/* Everything above, as the host side takes it (compsc/host.h). */
extern const struct compsc_devmodel compsc_82576vf_model;

#endif /* COMPSC_DEV_82576VF_H */
