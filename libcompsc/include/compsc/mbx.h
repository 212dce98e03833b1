/* SPDX-License-Identifier: (GPL-2.0 OR BSD-3-Clause) */
/*
 * compsc/mbx.h - the VF-to-PF mailbox message that registers a shared area,
 * and the rules by which a driver logs the PF messages it sends.
 *
 * The guest VF driver tells the PF where its area is; the PF validates the
 * message and hands the address to whichever host glue owns the VF. A stock
 * PF NACKs the unknown message type, and the VF driver then runs stock.
 *
 * Words (32-bit, in mailbox order):
 *   [0] COMPSC_MBX_AREA (the PF sets E1000_VT_MSGTYPE_ACK/NACK in its reply)
 *   [1] guest-physical address, low 32 bits (page aligned)
 *   [2] guest-physical address, high 32 bits
 *   [3] area size in bytes
 *   [4] (abi_major << 16) | abi_minor
 * An address and size of 0 unregister the area (driver unload).
 */
#ifndef COMPSC_MBX_H
#define COMPSC_MBX_H

#include "abi.h"

/* Above every message type the igb PF knows (0x01..0x06), below the flags. */
#define COMPSC_MBX_AREA		0x10
#define COMPSC_MBX_AREA_WORDS	5
#define COMPSC_MBX_PAGE		4096u

/*
 * virtchnl (iavf, and the ice and i40e PFs) carries the same five words as
 * the payload of its own opcode. Upstream numbers virtchnl opcodes densely
 * from 0 (below 100; virtchnl2 from 500), so "CS" in the upper half can
 * never name an upstream operation, and a stock PF answers it with an
 * error status, as it does any opcode it does not know.
 */
#define COMPSC_VIRTCHNL_OP_AREA	0x43530001u

/** compsc_mbx_area_encode() - fill @msg (>= COMPSC_MBX_AREA_WORDS words); returns word count. */
int compsc_mbx_area_encode(u32 *msg, u32 nwords, u64 gpa, u32 size);
/*
 * compsc_mbx_area_decode() - PF side: validate a received message (type,
 * length, ABI major, page alignment, size bounds). On success *gpa and *size
 * hold the area (both 0 = unregister).
 */
int compsc_mbx_area_decode(const u32 *msg, u32 nwords, u64 *gpa, u32 *size);

/*
 * Intel VF mailboxes (82576: igbvf and the igb VF PMD; 82599: ixgbevf):
 * the message type is in bits 15:0 of word 0, and the PF answers with
 * that type | COMPSC_MBX_ACK, or | COMPSC_MBX_NACK when it refused. The
 * replay log keeps only what the PF acknowledged: that is the VF state it
 * holds (a MAC refused under an administrator's MAC is never replayed).
 * These rules are shared by the kernel helper (compsc/vf.h) and the
 * userspace one (compsc/uvf.h).
 */
#define COMPSC_MBX_TYPE_MASK	0xffffu
#define COMPSC_MBX_ACK		0x80000000u
#define COMPSC_MBX_NACK		0x40000000u
/* A message key with this bit: the message removes what the key recorded */
#define COMPSC_MBX_KEY_DEL	0x80000000u

struct compsc_replay;

/** compsc_mbx_acked() - 1 when @reply acknowledges @msg (same type, ACK, no NACK), else 0. */
int compsc_mbx_acked(const u32 *msg, const u32 *reply);
/*
 * compsc_mbx_log() - an acknowledged message into @l by its @key: 0 keeps
 * nothing, key | COMPSC_MBX_KEY_DEL forgets the key, any other key is
 * recorded as @len bytes of @msg (last write per key wins). 0, or
 * -COMPSC_ENOSPC when the log is full (the message is not kept), or
 * another -COMPSC_E* code.
 */
int compsc_mbx_log(struct compsc_replay *l, u32 key, const u32 *msg, u32 len);
/*
 * compsc_82576vf_msg_key() - the replay log key of an 82576 VF message the
 * igb PF keeps as VF state: its type (MAC, multicast list, max frame,
 * promiscuous modes), a VLAN's type | id << 16 (| COMPSC_MBX_KEY_DEL when
 * it removes the VLAN), 0 for the rest (reset, the area). Shortens *@len
 * of a multicast list to the words its hash count uses.
 */
u32 compsc_82576vf_msg_key(const u32 *msg, u32 *len);

#endif /* COMPSC_MBX_H */
