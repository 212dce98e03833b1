/* SPDX-License-Identifier: (GPL-2.0 OR BSD-3-Clause) */
/*
 * compsc/abi.h - the CompSC binary interfaces, uapi style.
 *
 * Two ABIs live here and nowhere else:
 *  1. the shared area: guest pages the VF driver and the hypervisor both
 *     read and write (lock, version, flags, register list, saved values,
 *     counter list, replay log);
 *  2. the migration stream: what travels from source to destination host.
 *
 * Rules: little-endian fixed-width fields, explicit reserved padding (must be
 * zero), no pointers, bools or enums inside structs, a size assert per
 * struct. Everything the guest writes is untrusted by the host.
 */
#ifndef COMPSC_ABI_H
#define COMPSC_ABI_H

#include "os.h"

#define COMPSC_CACHELINE	64

/* ------------------------------------------------------------------ */
/* Shared area                                                         */
/* ------------------------------------------------------------------ */

#define COMPSC_AREA_MAGIC	0x41435343u	/* "CSCA" */
#define COMPSC_ABI_MAJOR	1	/* incompatible layout change */
#define COMPSC_ABI_MINOR	0	/* compatible additions */

#define COMPSC_AREA_MAX_SIZE	(64u * 1024u)
#define COMPSC_MAX_SLOTS	129	/* slot 0 shared + up to 128 CPUs */
#define COMPSC_MAX_REGS		128
#define COMPSC_MAX_COUNTERS	64
#define COMPSC_NR_BARS		6

/* struct compsc_area_hdr: first 64 bytes, written by the guest at setup. */
struct compsc_area_hdr {
	__le32 magic;		/* COMPSC_AREA_MAGIC */
	__le16 abi_major;
	__le16 abi_minor;
	__le32 size;		/* bytes of the whole area */
	__le16 nr_slots;	/* reader slots, slot 0 is the shared one */
	__le16 reg_max;		/* capacity of the register list */
	__le16 reg_count;	/* entries in use */
	__le16 counter_max;
	__le16 counter_count;
	__le16 rsvd0;
	__le32 ctl_off;		/* struct compsc_area_ctl */
	__le32 slots_off;	/* struct compsc_slot[nr_slots] */
	__le32 reg_off;		/* struct compsc_reg[reg_max] */
	__le32 saved_off;	/* __le64 saved[reg_max], parallel to regs */
	__le32 counter_off;	/* struct compsc_counter_desc[counter_max] */
	__le32 replay_off;	/* replay log (struct compsc_replay_hdr + recs) */
	__le32 replay_len;
	__le32 rsvd1;
	__le64 restored_version; /* guest: version its device was restored to */
};
compsc_static_assert(sizeof(struct compsc_area_hdr) == 64, "area hdr");

/* Host-owned control line: written by the hypervisor, read by the guest. */
#define COMPSC_WRITER_FREE	0u
#define COMPSC_WRITER_HELD	1u	/* host owns (or is taking) the device */
/*
 * A hold being ended: whoever moved the word off HELD (a compare-and-swap,
 * so only one of the host and the guest's give-up) writes the hand-back and
 * then FREE; readers keep out meanwhile. Neither side can then end or write
 * into a hold the other one ended.
 */
#define COMPSC_WRITER_ENDING	2u
/*
 * The guest is giving the area back to its allocator: set by the guest's
 * compare-and-swap from FREE (compsc_reader_withdraw()), never left. A
 * host's take starts with its compare-and-swap from FREE, before any other
 * write, so a host that looked the area up earlier writes nothing into it.
 */
#define COMPSC_WRITER_WITHDRAWN	3u

#define COMPSC_F_DIRTY_LOG	(1u << 0) /* mark DMA-written pages dirty */
#define COMPSC_F_HOST_COUNTERS	(1u << 1) /* host self-emulates counters */
/*
 * Set by the host that hands the device over (with the version bump): its
 * PF already holds the VF's whole configuration, the VF's reset handshake
 * is complete and the area is registered, so the guest's restore sends no
 * mailbox message. Clear: the guest resets the VF and replays its log.
 */
#define COMPSC_F_HOST_CONFIGURED (1u << 2)
/*
 * Set by the host that hands the device over (with the version bump) when
 * the guest's memory was copied from another host: a receive buffer the
 * old device wrote after the guest last cleaned its ring may have
 * travelled as a stale copy (the device's writes are not in the CPU's
 * dirty log), so the restore drops every receive descriptor the old
 * device completed and the guest had not cleaned. Clear: memory did not
 * move (a cancelled migration, the stand-in's in place), nothing is dropped.
 */
#define COMPSC_F_MEM_COPIED	(1u << 3)
#define COMPSC_F_KNOWN		(COMPSC_F_DIRTY_LOG | COMPSC_F_HOST_COUNTERS | \
				 COMPSC_F_HOST_CONFIGURED | COMPSC_F_MEM_COPIED)

struct compsc_area_ctl {
	__le32 writer;		/* COMPSC_WRITER_* */
	__le32 flags;		/* COMPSC_F_* */
	__le64 version;		/* bumped at every completed migration */
	__le64 dirty_gen;	/* bumped each time dirty logging (re)starts */
	__le32 host_status;	/* last host-side result, 0 or -COMPSC_E* */
	__le32 rsvd0;
	__u8   rsvd[32];
};
compsc_static_assert(sizeof(struct compsc_area_ctl) == COMPSC_CACHELINE, "ctl");

/*
 * Reader slot, one cache line each so that readers on different CPUs never
 * share a line. Readers inside = sum(enter) - sum(exit) over all slots.
 */
struct compsc_slot {
	__le64 enter;
	__le64 exit;
	__u8   rsvd[48];
};
compsc_static_assert(sizeof(struct compsc_slot) == COMPSC_CACHELINE, "slot");

/* Register kinds: what the hypervisor may do with a listed register. */
/*
 * PLAIN: read at the take without side effects; the destination hands the
 * value to the guest in the area's saved values and never writes it to
 * the device. The guest's restore decides what it means (a ring head,
 * read-only on the device, becomes a ring shift).
 */
#define COMPSC_REG_PLAIN	1	/* saved for the guest, never written back */
#define COMPSC_REG_COUNTER_RO	2	/* read-only counter, wraps at 2^32 */
#define COMPSC_REG_COUNTER_RC	3	/* read-clear counter */

struct compsc_reg {
	__le32 offset;		/* byte offset inside the BAR */
	__u8   bar;		/* BAR index 0..5 */
	__u8   width;		/* 4 or 8 bytes */
	__u8   kind;		/* COMPSC_REG_* */
	__u8   flags;		/* reserved, 0 */
};
compsc_static_assert(sizeof(struct compsc_reg) == 8, "reg");

/* Counter self-emulation entry. */
#define COMPSC_CTR_F_SAVED	(1u << 0) /* hw_final is valid (host wrote it) */

struct compsc_counter_desc {
	__le32 offset;		/* register offset inside the BAR */
	__u8   bar;
	__u8   width;		/* 4 */
	__u8   kind;		/* COMPSC_REG_COUNTER_RO or _RC */
	__u8   flags;		/* COMPSC_CTR_F_*, set by the host */
	__le32 hw_final;	/* host: raw value when it took the device */
	__le32 rsvd;
	__le64 total;		/* guest: 64-bit total at its last update */
	__le64 rsvd2;
};
compsc_static_assert(sizeof(struct compsc_counter_desc) == 32, "ctr");

/* Replay log (lives in the area so the host can carry it in the stream). */
#define COMPSC_REPLAY_MAGIC	0x4c505243u	/* "CRPL" */
#define COMPSC_REPLAY_DATA_MAX	112

struct compsc_replay_hdr {
	__le32 magic;
	__le32 capacity;	/* records that fit after this header */
	__le32 count;		/* records in use, ordered by last write */
	__le32 seq;		/* last sequence number handed out */
};
compsc_static_assert(sizeof(struct compsc_replay_hdr) == 16, "replay hdr");

struct compsc_replay_rec {
	__le32 key;		/* driver-defined: what this record sets */
	__le32 seq;		/* sequence of the last write */
	__le16 len;		/* bytes of data used */
	__le16 flags;		/* reserved, 0 */
	__le32 rsvd;
	__u8   data[COMPSC_REPLAY_DATA_MAX];
};
compsc_static_assert(sizeof(struct compsc_replay_rec) == 128, "replay rec");

/*
 * Packed replay log: the form the log travels in (COMPSC_REC_DRIVER), only
 * the bytes in use. The header is followed by @count records in replay
 * order (oldest first), each __le32 key, __u8 len, then len data bytes, no
 * padding. Sequence numbers do not travel: the order is the sequence.
 */
#define COMPSC_REPLAY_PACK_MAGIC	0x52u	/* 'R' */
#define COMPSC_REPLAY_PACK_V1		1
#define COMPSC_REPLAY_PACK_REC_HDR	5	/* key + len */

struct compsc_replay_pack_hdr {
	__u8   magic;		/* COMPSC_REPLAY_PACK_MAGIC */
	__u8   version;		/* COMPSC_REPLAY_PACK_V1 */
	__le16 count;		/* records that follow */
	__le32 crc32c;		/* CRC32C of the records (all bytes after this) */
};
compsc_static_assert(sizeof(struct compsc_replay_pack_hdr) == 8, "pack hdr");

/* ------------------------------------------------------------------ */
/* Migration stream                                                    */
/* ------------------------------------------------------------------ */

#define COMPSC_STREAM_MAGIC	0x4d435343u	/* "CSCM" */
/*
 * Major 2: register values in their width, counters without the guest's
 * total, PF_VF without its unused array entries. A parser refuses every
 * other major (an old stream's records do not read as this one's).
 */
#define COMPSC_STREAM_MAJOR	2
#define COMPSC_STREAM_MINOR	0
#define COMPSC_STREAM_ALIGN	8

struct compsc_stream_hdr {
	__le32 magic;		/* COMPSC_STREAM_MAGIC */
	__le16 major;
	__le16 minor;
	__le32 total_len;	/* whole stream: header, records, end record */
	__le32 flags;		/* reserved, 0 */
	__le16 vendor;		/* device identity: PCI ids of the VF */
	__le16 device;
	__le16 subsys_vendor;
	__le16 subsys_device;
	__le32 rsvd[2];
};
compsc_static_assert(sizeof(struct compsc_stream_hdr) == 32, "stream hdr");

/* Record types. Each known type appears at most once. */
#define COMPSC_REC_END		0	/* last record: CRC32C of all before */
#define COMPSC_REC_REGS		1	/* { struct compsc_rec_reg, value }[] */
#define COMPSC_REC_COUNTERS	2	/* struct compsc_rec_counter[] */
#define COMPSC_REC_PF_VF	3	/* struct compsc_pf_vf_state, packed */
#define COMPSC_REC_DRIVER	4	/* opaque driver data (replay log) */
/*
 * struct compsc_rec_counter[]: device counters the host itself emulates
 * for the guest (whatever the guest driver does), hw_final being the value
 * the guest would have read last; total is unused (0).
 */
#define COMPSC_REC_HOST_COUNTERS 5
/*
 * struct compsc_pf_vf_ext + struct compsc_pf_vf_mac[nr_macs]: what a PF
 * holds for the VF beyond COMPSC_REC_PF_VF (which it accompanies), for
 * PFs that hold more (ixgbe). Optional: a stream without it still loads.
 */
#define COMPSC_REC_PF_VF_EXT	6
/*
 * struct compsc_rec_precopy: this stream is a stop-copy stream whose
 * configuration records (PF_VF, PF_VF_EXT, DRIVER) did not change since
 * the pre-copy stream it names, which carried them; it carries none of
 * them itself (compsc/precopy.h has the rules).
 */
#define COMPSC_REC_PRECOPY	7
#define COMPSC_REC_NR_KNOWN	8

#define COMPSC_REC_F_MANDATORY	(1u << 0) /* refuse the stream if unknown */

struct compsc_rec_hdr {
	__le16 type;
	__le16 flags;
	__le32 len;		/* payload bytes; padded to 8 on the wire */
};
compsc_static_assert(sizeof(struct compsc_rec_hdr) == 8, "rec hdr");

struct compsc_rec_end {
	__le32 crc32c;		/* over bytes [0, start of this payload) */
	__le32 rsvd;
};
compsc_static_assert(sizeof(struct compsc_rec_end) == 8, "rec end");

/*
 * A REGS entry is this descriptor followed by the register's value in
 * @width bytes (__le32 or __le64), so 12 or 16 bytes: a 4-byte register
 * carries no padding. Entries follow each other unpadded, in the order of
 * the area's register list; compsc_rec_reg_put() and compsc_rec_reg_get()
 * write and read them.
 */
struct compsc_rec_reg {
	__le32 offset;
	__u8   bar;
	__u8   width;
	__u8   kind;
	__u8   rsvd;
};
compsc_static_assert(sizeof(struct compsc_rec_reg) == 8, "rec reg");
#define COMPSC_REC_REG_MAX	(sizeof(struct compsc_rec_reg) + 8)

/*
 * The guest's 64-bit total does not travel: it lives in the area, which
 * moves with guest memory; the destination needs only the raw value.
 */
struct compsc_rec_counter {
	__le32 offset;
	__u8   bar;
	__u8   width;
	__u8   kind;
	__u8   rsvd;
	__le32 hw_final;	/* raw register value at stop-and-copy */
};
compsc_static_assert(sizeof(struct compsc_rec_counter) == 12, "rec ctr");

/* The pre-copy stream a stop-copy stream relies on, byte for byte. */
struct compsc_rec_precopy {
	__le32 len;		/* its total_len */
	__le32 crc32c;		/* CRC32C of all its bytes */
};
compsc_static_assert(sizeof(struct compsc_rec_precopy) == 8, "rec precopy");

/*
 * VF-in-PF state: what the PF holds for one VF. A PF fills and reads this
 * struct; the PF_VF record carries it packed: its first
 * COMPSC_PF_VF_REC_HDR bytes (everything before the arrays), then the
 * first nr_vlans entries of vlans[] and the first nr_mc of mc_hashes[],
 * so 24 + 2 * (nr_vlans + nr_mc) bytes (compsc_pf_vf_pack(),
 * compsc_pf_vf_unpack()).
 */
#define COMPSC_PF_MAX_VLANS	32
#define COMPSC_PF_MAX_MC	30

#define COMPSC_PFVF_F_MAC_ADMIN	(1u << 0) /* MAC set by the administrator */
#define COMPSC_PFVF_F_SPOOFCHK	(1u << 1)
#define COMPSC_PFVF_F_TRUST	(1u << 2)
#define COMPSC_PFVF_F_PROMISC_UC (1u << 3)
#define COMPSC_PFVF_F_PROMISC_MC (1u << 4) /* all-multicast */
#define COMPSC_PFVF_F_KNOWN	0x1fu

struct compsc_pf_vf_state {
	__le16 vf_index;
	__le16 flags;		/* COMPSC_PFVF_F_* */
	__u8   mac[6];
	__le16 port_vlan;	/* administrator VLAN (0 = none) */
	__u8   port_qos;
	__u8   link_state;	/* IFLA_VF_LINK_STATE_* */
	__le16 max_tx_rate;	/* Mbit/s, 0 = unlimited */
	__le16 max_frame;	/* VF-requested max frame size, 0 = default */
	__le16 nr_vlans;
	__le16 nr_mc;
	__le16 rsvd0;
	__le16 vlans[COMPSC_PF_MAX_VLANS];
	__le16 mc_hashes[COMPSC_PF_MAX_MC];
	__le32 rsvd1;
};
compsc_static_assert(sizeof(struct compsc_pf_vf_state) == 152, "pf vf");
#define COMPSC_PF_VF_REC_HDR	24	/* offsetof(struct compsc_pf_vf_state, vlans) */

/*
 * VF-in-PF state beyond struct compsc_pf_vf_state. The record is this
 * header followed by exactly nr_macs struct compsc_pf_vf_mac, so its size
 * is 16 + 8 * nr_macs and at most COMPSC_PF_EXT_MAX_BYTES.
 *
 * @lost is how a PF says it holds state for the VF that no record can
 * carry (IPsec SAs, keys that never leave the PF): any bit set, known or
 * not, forbids the destination to configure the VF on the guest's behalf,
 * so the guest resets the VF and replays its log instead of silently
 * running without that state.
 */
#define COMPSC_PF_EXT_MAX_MACS	128	/* an 82599's whole RAR table */

#define COMPSC_PFVF_X_RSS_QUERY	(1u << 0) /* VF may read the RSS key/table */
/* VF asked for no multicast at all; PF_VF's promiscuous flags win over it */
#define COMPSC_PFVF_X_MC_NONE	(1u << 1)
#define COMPSC_PFVF_X_KNOWN	0x3u

#define COMPSC_PFVF_LOST_IPSEC	(1u << 0) /* IPsec SAs offloaded for the VF */
#define COMPSC_PFVF_LOST_MACS	(1u << 1) /* more MAC filters than fit */

struct compsc_pf_vf_ext {
	__le16 flags;		/* COMPSC_PFVF_X_* */
	__le16 nr_macs;		/* struct compsc_pf_vf_mac entries that follow */
	/*
	 * Mailbox API revision the VF negotiated, in the PF driver's own
	 * numbering (ixgbe: enum ixgbe_pfvf_api_rev): only PFs of the device
	 * the stream names read it.
	 */
	__le32 mbx_api;
	__le32 lost;		/* COMPSC_PFVF_LOST_*: state not carried */
	__le32 rsvd;
};
compsc_static_assert(sizeof(struct compsc_pf_vf_ext) == 16, "pf vf ext");

/* A unicast MAC filter the VF asked for besides its own address. */
struct compsc_pf_vf_mac {
	__u8   mac[6];
	__le16 rsvd;
};
compsc_static_assert(sizeof(struct compsc_pf_vf_mac) == 8, "pf vf mac");

#define COMPSC_PF_EXT_MAX_BYTES	(sizeof(struct compsc_pf_vf_ext) + \
				 COMPSC_PF_EXT_MAX_MACS * \
				 sizeof(struct compsc_pf_vf_mac))

#endif /* COMPSC_ABI_H */
