/* SPDX-License-Identifier: (GPL-2.0 OR BSD-3-Clause) */
/*
 * compsc/dev_82599vf.h - what the host needs to know about an Intel 82599
 * virtual function (ixgbevf), in one place: PCI identity, BAR0 size, the
 * registers a guest may ask the host to save, and what the host writes to
 * stop the VF's queues before it reads their heads. The counterpart of
 * compsc/dev_82576vf.h; portable (kernel and userspace), no libc.
 *
 * Offsets are the VF's own BAR0 view, as ixgbevf's regs.h and mbx.h give
 * them. Names drop the kernel's IXGBE_VF/IXGBE_VT prefix where the
 * register has a counterpart in dev_82576vf.h (IXGBE_VTEICS is EICS here,
 * IXGBE_VFRDH(n) is RDH(n)); the statistics and the mailbox keep ixgbevf's
 * names.
 *
 * Unlike the 82576 VF: up to 8 queue pairs, each queue's registers in a
 * 0x40-byte block (the 82576: 2 pairs, 0x100 apart), the statistics inside
 * queue 0's blocks, and 36-bit octet counters split into a 32-bit low
 * word (_LSB) and a 4-bit high word (_MSB).
 */
#ifndef COMPSC_DEV_82599VF_H
#define COMPSC_DEV_82599VF_H

#include "compsc.h"
#include "host.h"

#define COMPSC_82599VF_VENDOR		0x8086
#define COMPSC_82599VF_DEVICE		0x10ed
/*
 * The datasheet's VF BAR0; BARs are powers of two, and the highest
 * register ixgbevf uses on an 82599 (VFRXMEMWRAP, 0x3190) needs this much.
 */
#define COMPSC_82599VF_BAR0_SIZE	(16u * 1024u)
/*
 * Queue pairs a VF's BAR0 has registers for. An 82599 VF gets 2 or 4 of
 * them from its pool, 8 with DCB (ixgbevf then uses one per traffic
 * class), so the host stops, and the guest lists, all 8.
 */
#define COMPSC_82599VF_NR_QUEUES	8
#define COMPSC_82599VF_QSTRIDE		0x40u	/* between queue n and n + 1 */

/* Registers the host itself touches. */
#define COMPSC_82599VF_STATUS		0x0008	/* read to flush writes */
#define COMPSC_82599VF_RXDCTL(n)	(0x1028u + COMPSC_82599VF_QSTRIDE * (n))
#define COMPSC_82599VF_TXDCTL(n)	(0x2028u + COMPSC_82599VF_QSTRIDE * (n))
#define COMPSC_82599VF_RDH(n)		(0x1010u + COMPSC_82599VF_QSTRIDE * (n))
#define COMPSC_82599VF_RDT(n)		(0x1018u + COMPSC_82599VF_QSTRIDE * (n))
#define COMPSC_82599VF_TDH(n)		(0x2010u + COMPSC_82599VF_QSTRIDE * (n))
#define COMPSC_82599VF_TDT(n)		(0x2018u + COMPSC_82599VF_QSTRIDE * (n))
/* RXDCTL/TXDCTL: queue enable; cleared to stop fetching descriptors. */
#define COMPSC_82599VF_QDCTL_ENABLE	0x02000000u
/*
 * ixgbevf waits 100 us for a receive queue to stop and not at all for a
 * transmit queue; the bound the 82576 model uses covers both.
 */
#define COMPSC_82599VF_QSTOP_US		1000
/* Interrupts: cause set, mask set, and the VF's three vectors. */
#define COMPSC_82599VF_EICS		0x0104	/* IXGBE_VTEICS */
#define COMPSC_82599VF_EIMS		0x0108	/* IXGBE_VTEIMS */
#define COMPSC_82599VF_VECTORS		0x7	/* RX/TX 0, RX/TX 1, mailbox */
/* Descriptor rings: low base; high base, length at +4, +8. */
#define COMPSC_82599VF_RDBAL(n)		(0x1000u + COMPSC_82599VF_QSTRIDE * (n))
#define COMPSC_82599VF_TDBAL(n)		(0x2000u + COMPSC_82599VF_QSTRIDE * (n))
#define COMPSC_82599VF_RING_BAH		0x4
#define COMPSC_82599VF_RING_LEN		0x8
#define COMPSC_82599VF_RING_LEN_MASK	0xfff80u

/*
 * In the PF's BAR0: VF reset events, bit (n % 32) of register n / 32 for
 * VF n. On the 82599 VFLRE only reads; ixgbe's mailbox task writes the
 * bit to VFLREC to clear it and resets its state for the VF in the same
 * hold of its vfs_lock, so whatever takes that lock after the bit reads
 * clear comes after the reset. (An X540 PF reports the events in VFLREC
 * itself: not this model.)
 */
#define COMPSC_82599_PF_VFLRE(i)	(((i) & 1) ? 0x01c0u : 0x0600u)
#define COMPSC_82599_PF_VFLREC(i)	(0x0700u + 4u * (i))
#define COMPSC_82599_PF_NR_VFLRE	2	/* 64 pools, 32 a register */
/*
 * ixgbe enables 63 VFs at most (IXGBE_MAX_VFS_DRV_LIMIT): the 82599 has
 * 64 pools, one is the PF's.
 */
#define COMPSC_82599_PF_MAX_VFS		63
/* The PF's VLAN filter table; entry 0 is VLAN 0's. */
#define COMPSC_82599_PF_VLVF_SIZE	64	/* IXGBE_VLVF_ENTRIES */

/* Registers the policy must never allow (kept here for tests and docs). */
#define COMPSC_82599VF_CTRL		0x0000	/* IXGBE_VFCTRL: bit 26 resets the VF */
#define COMPSC_82599VF_EICR		0x0100	/* IXGBE_VTEICR: read clears causes */
#define COMPSC_82599VF_EIMC		0x010c	/* IXGBE_VTEIMC: a write masks */
#define COMPSC_82599VF_VFMBMEM		0x0200	/* mailbox memory, 64 bytes */
#define COMPSC_82599VF_VFMAILBOX	0x02fc	/* mailbox control */
/*
 * Interrupt routing and moderation, which ixgbevf programs again from
 * its own memory after a migration: EITR(v) for vector v, IVAR(n) for
 * queues 2n (bits 0..15) and 2n + 1 (bits 16..31), receive in the low
 * byte of each half, transmit in the high one.
 */
#define COMPSC_82599VF_EITR(v)		(0x0820u + 4u * (v))	/* IXGBE_VTEITR */
#define COMPSC_82599VF_IVAR(n)		(0x0120u + 4u * (n))	/* IXGBE_VTIVAR */
#define COMPSC_82599VF_IVAR_MISC	0x0140	/* IXGBE_VTIVAR_MISC */

/*
 * Statistics (read-only, never cleared by a read). GPRC, GPTC and MPRC
 * are 32-bit and wrap. GORC and GOTC are 36 bits: _LSB holds bits 0..31
 * and wraps at 2^32 like the others, so it is a COMPSC_REG_COUNTER_RO of
 * its own; _MSB holds bits 32..35, moves only by _LSB's carry and wraps
 * at 16, which no counter kind describes, so no list may name it.
 */
#define COMPSC_82599VF_VFGPRC		0x101c
#define COMPSC_82599VF_VFGORC_LSB	0x1020
#define COMPSC_82599VF_VFGORC_MSB	0x1024
#define COMPSC_82599VF_VFMPRC		0x1034
#define COMPSC_82599VF_VFGPTC		0x201c
#define COMPSC_82599VF_VFGOTC_LSB	0x2020
#define COMPSC_82599VF_VFGOTC_MSB	0x2024

/*
 * VF-to-PF mailbox message types (word 0, low 16 bits; ixgbevf's mbx.h
 * IXGBE_VF_*). The CompSC ixgbevf keys its replay log by them: the key of
 * a kept message is its type, a VLAN's also carries the VLAN id in bits
 * 16..27, a MAC filter's its index (at least 1) in bits 16..23.
 */
#define COMPSC_82599VF_MSG_RESET	0x01
#define COMPSC_82599VF_MSG_SET_MAC	0x02
#define COMPSC_82599VF_MSG_SET_MULTICAST 0x03
#define COMPSC_82599VF_MSG_SET_VLAN	0x04
#define COMPSC_82599VF_MSG_SET_LPE	0x05
#define COMPSC_82599VF_MSG_SET_MACVLAN	0x06
#define COMPSC_82599VF_MSG_UPDATE_XCAST	0x0c
#define COMPSC_82599VF_MSG_COMPSC_AREA	0xc0	/* the area's registration */
#define COMPSC_82599VF_MSGINFO_SHIFT	16

/* Queue control registers, in the order the host disables them. */
#define COMPSC_82599VF_NR_QCTL		(2 * COMPSC_82599VF_NR_QUEUES)
extern const u32 compsc_82599vf_qctl[COMPSC_82599VF_NR_QCTL];

/*
 * The statistics registers the host may emulate (32-bit, wrapping,
 * read-only; compsc/host.h adds a 32-bit base to each). GORC and GOTC are
 * not among them: a base on _LSB alone would not carry into _MSB, and a
 * stock ixgbevf, which reads the two words as one 36-bit value, would see
 * it fall back each time the emulated low word wraps before the real one.
 */
#define COMPSC_82599VF_NR_STATS		3
extern const u32 compsc_82599vf_stats[COMPSC_82599VF_NR_STATS];

/*
 * The allow-list: exactly what the CompSC ixgbevf lists. The ring heads
 * RDH(0..7) and TDH(0..7) as 4-byte PLAIN; VFGPRC, VFGPTC, VFGORC_LSB,
 * VFGOTC_LSB and VFMPRC as 4-byte COUNTER_RO. Everything else in BAR0 is
 * refused, and no other BAR exists.
 */
extern const struct compsc_policy compsc_82599vf_policy;

/* Everything above, as the host side takes it (compsc/host.h). */
extern const struct compsc_devmodel compsc_82599vf_model;

#endif /* COMPSC_DEV_82599VF_H */
