/* SPDX-License-Identifier: (GPL-2.0 OR BSD-3-Clause) */
/*
 * compsc/mbx.h - the VF-to-PF mailbox message that registers a shared area.
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

#endif /* COMPSC_MBX_H */
