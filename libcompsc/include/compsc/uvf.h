/* SPDX-License-Identifier: (GPL-2.0 OR BSD-3-Clause) */
/*
 * compsc/uvf.h - the VF helper for userspace drivers (DPDK poll-mode
 * drivers): what compsc/vf.h does for a kernel driver, without the kernel.
 *
 * The driver passes the area's memory (DMA-able, pinned, page aligned:
 * an rte_memzone) and its IO address, and fills an ops table with its
 * mailbox; the helper lays the area out, registers it with the PF through
 * compsc/mbx.h's message, gives the data path a per-burst read side and
 * the control path a bounded waiting one, and withdraws the area at close.
 * A PF that refuses the message leaves the driver stock: it never calls
 * the helper again.
 *
 * Locking: the read side is the lock (compsc.h); a data-path slot belongs
 * to one polling thread (a DPDK lcore), control paths share slot 0. The
 * helper keeps no lock of its own.
 */
#ifndef COMPSC_UVF_H
#define COMPSC_UVF_H

#include "compsc.h"

struct compsc_uvf;

struct compsc_uvf_ops {
	/*
	 * One mailbox message of @nwords words and the PF's answer: 0 when
	 * the PF acknowledged it, -COMPSC_EREFUSED when it said no (NACK),
	 * another -COMPSC_E* when the mailbox failed.
	 */
	int (*send)(struct compsc_uvf *vf, const u32 *msg, u32 nwords);
	/*
	 * Optional. Bring the device back after a migration (ring shift,
	 * queue registers, replay), called inside the read side; 0 on
	 * success. Without it a migrated device stays unusable: every entry
	 * reports -COMPSC_EBUSY and counts in restore_missing.
	 */
	int (*restore)(struct compsc_uvf *vf);
	/*
	 * Optional. The replay log key of a mailbox message the PF keeps as
	 * VF state (compsc/mbx.h: 0 none, | COMPSC_MBX_KEY_DEL forgets); may
	 * shorten *@len to the bytes the PF reads. Without it nothing is
	 * logged (compsc_uvf_mbx_sent() and _answered() do nothing).
	 */
	u32 (*msg_key)(struct compsc_uvf *vf, const u32 *msg, u32 *len);
};

/* Longest mailbox message logged (Intel VF mailboxes: 16 words) */
#define COMPSC_UVF_MBX_WORDS	16

/* What the host must save for the driver, as in compsc/vf.h. */
struct compsc_uvf_desc {
	const u32 *regs;	/* BAR 0 offsets of 32-bit plain registers */
	u32 nr_regs;
	const u32 *ctrs;	/* BAR 0 offsets of 32-bit read-only counters */
	u32 nr_ctrs;
	u32 replay_recs;	/* replay log capacity in records */
	u32 nr_slots;		/* data-path slots: one per polling thread */
};

struct compsc_uvf {
	struct compsc_area_hdr *area;	/* the driver's memory */
	u64 iova;			/* its address as the device sees it */
	u32 size;			/* bytes registered */
	u32 registered;			/* the PF accepted the area */
	u32 nr_regs;			/* entries in the register list */
	u32 nr_ctrs;			/* entries in the counter list */
	struct compsc_reader reader;
	struct compsc_replay log;
	const struct compsc_uvf_ops *ops;
	void *priv;			/* the driver's, for its ops */
	struct compsc_env env;		/* waits of the control path */
	u64 wait_ns;			/* bound of those waits */
	/*
	 * The message sent last, until the PF's answer (mbx_len 0: none).
	 * Written only by the control path, which the driver serialises
	 * (ethdev: one thread configures a port at a time), inside the read
	 * side; the restore reads the log while every other entry backs off.
	 */
	u32 mbx_msg[COMPSC_UVF_MBX_WORDS];
	u32 mbx_len;			/* bytes */
	/*
	 * The guest's bound on a hold (COMPSC_HOLD_MAX_MS; a test may
	 * shorten hold_max_ns after init), compsc_reader_hold_bound()
	 */
	struct compsc_hold_watch hold;
	u64 hold_max_ns;
	/* statistics, relaxed atomic adds: any thread may count */
	u64 busy;		/* entries that found the host holding the device */
	u64 restores;		/* restores that ran */
	u64 state_lost;		/* of which hand-overs without state: a reset */
	u64 restore_missing;	/* migrations found without a restore op */
	u64 replay_lost;	/* acknowledged messages the full log could not keep */
	u64 replay_nacks;	/* replayed messages the new PF refused */
	u64 dirty_pages;	/* pages marked dirty (compsc_uvf_mark_dirty()) */
	u64 given_up;		/* holds past the bound, taken back */
};

/** compsc_uvf_area_size() - bytes of area @d needs, 0 if out of range. */
u32 compsc_uvf_area_size(const struct compsc_uvf_desc *d);
/*
 * compsc_uvf_init() - lay the area out in @mem (@len bytes, zeroed here)
 * at IO address @iova and bind the helper to it. Sends nothing.
 */
int compsc_uvf_init(struct compsc_uvf *vf, void *mem, u32 len, u64 iova,
		    const struct compsc_uvf_desc *d,
		    const struct compsc_uvf_ops *ops, void *priv,
		    const struct compsc_env *env, u64 wait_ns);
/*
 * compsc_uvf_register() - tell the PF where the area is. 0: registered;
 * -COMPSC_EREFUSED: a stock PF, run stock; other codes: mailbox failure
 * (also run stock). The area is unused by the host in every failure case.
 */
int compsc_uvf_register(struct compsc_uvf *vf);
/*
 * compsc_uvf_unregister() - withdraw the area (close). 0: the PF forgot it
 * and no host holds it, the memory may be freed; otherwise the host may
 * still write into it and the caller must leak it.
 */
int compsc_uvf_unregister(struct compsc_uvf *vf);

/*
 * __compsc_uvf_slow() - internal: the burst entry found no plain path.
 * A burst that backs off also looks at how long the host has held the
 * device: past hold_max_ns of the guest's own clock, with the same
 * version held at every look, the host is gone (a destination that never
 * reached the area) and the device is taken back as lost
 * (compsc_reader_give_up()): the next entry restores by a reset.
 */
int __compsc_uvf_slow(struct compsc_uvf *vf, u32 slot, int ret);

/*
 * compsc_uvf_burst_enter() - data path, once per burst (never per packet)
 * from the polling thread owning @slot: 0 inside (call _burst_exit()),
 * -COMPSC_EBUSY outside (the host holds the device: return no packets).
 */
static inline int compsc_uvf_burst_enter(struct compsc_uvf *vf, u32 slot)
{
	int ret = compsc_read_tryenter(&vf->reader, slot);

	if (likely(ret == 0))
		return 0;
	return __compsc_uvf_slow(vf, slot, ret);
}

/** compsc_uvf_burst_exit() - leave a burst's read side. */
static inline void compsc_uvf_burst_exit(struct compsc_uvf *vf, u32 slot)
{
	compsc_read_exit(&vf->reader, slot);
}

/*
 * compsc_uvf_enter() - control path: wait (env, at most wait_ns) for the
 * device. 0 inside (call compsc_uvf_leave()), -COMPSC_ETIMEDOUT or
 * -COMPSC_EBUSY (device still held, or migrated without a restore).
 */
int compsc_uvf_enter(struct compsc_uvf *vf);
/** compsc_uvf_leave() - leave the control path's read side. */
void compsc_uvf_leave(struct compsc_uvf *vf);

/*
 * For the driver's restore op (inside the read side, the host gone):
 * compsc_uvf_state_lost() - 0, or the -COMPSC_E* code of a hand-over
 * without state (compsc_read_state_lost(): the destination's give failed,
 * or the guest took back a device no host gave back). The values in the
 * area are then not this migration's: the restore resets the VF through
 * its PF (the driver's reset handshake, then compsc_uvf_pf_replay()) and
 * its queues, dropping what they held, as the kernel helper resets its
 * driver. A restore op that succeeds on one counts in state_lost.
 */
int compsc_uvf_state_lost(const struct compsc_uvf *vf);
/*
 * compsc_uvf_saved() - the value the host saved of register list entry @i
 * (compsc_uvf_desc.regs[i]) into *@val; -COMPSC_EINVAL when @i is not in
 * the list, -COMPSC_ENOSTATE after a hand-over without state (stale: a
 * ring shifted by it would corrupt the rings). Each call reads the area
 * once: check the value you use.
 */
int compsc_uvf_saved(struct compsc_uvf *vf, u32 i, u32 *val);
/*
 * compsc_uvf_host_configured() - 1 when the destination host gave the new
 * PF the VF's configuration, the area and the reset handshake
 * (COMPSC_F_HOST_CONFIGURED): the restore needs no mailbox message.
 */
int compsc_uvf_host_configured(const struct compsc_uvf *vf);
/*
 * compsc_uvf_ctr_final() - restore op: the raw value counter @i
 * (compsc_uvf_desc.ctrs[i]) had when the host took the device, into
 * *@final. 1: saved, and consumed (never absorb it twice); 0: the host did
 * not save it (what the old device counted since the driver's last read
 * is lost; always after a hand-over without state); -COMPSC_EINVAL: no
 * such counter.
 */
int compsc_uvf_ctr_final(struct compsc_uvf *vf, u32 i, u32 *final);
/* compsc_uvf_mem_copied() - 1 when guest memory came from another host (COMPSC_F_MEM_COPIED). */
int compsc_uvf_mem_copied(const struct compsc_uvf *vf);

/*
 * The replay log: what the driver asked the PF and the PF acknowledged,
 * kept in the area by compsc/mbx.h's rules (as the kernel helper keeps
 * it), for a destination that cannot configure the new PF itself. The
 * driver wraps its mailbox's posted write and read: _mbx_sent() with the
 * message, _mbx_answered() with the PF's answer (NULL: none came).
 */
void compsc_uvf_mbx_sent(struct compsc_uvf *vf, const u32 *msg, u32 nwords);
/*
 * compsc_uvf_mbx_answered() - log the message sent last if @reply
 * acknowledges it. 0, or -COMPSC_ENOSPC when the log is full: the message
 * is not kept (counted in replay_lost; the log is bounded, as the PF's
 * table is).
 */
int compsc_uvf_mbx_answered(struct compsc_uvf *vf, const u32 *reply);
/* compsc_uvf_record() - keep @key = @msg (@len bytes) as if the PF had just acknowledged it. */
int compsc_uvf_record(struct compsc_uvf *vf, u32 key, const u32 *msg, u32 len);
/*
 * compsc_uvf_pf_replay() - restore op on a destination whose host did not
 * configure the new PF (compsc_uvf_host_configured() is 0), after the
 * driver's own VF reset handshake: register the area with the new PF and
 * send it every message the log keeps, oldest first, through ops->send.
 * Returns the messages sent (the area's included); the ones refused
 * count in replay_nacks.
 */
u32 compsc_uvf_pf_replay(struct compsc_uvf *vf);

/* compsc_uvf_dirty_logging() - 1 while the host logs dirty pages: mark what the device writes. */
static inline int compsc_uvf_dirty_logging(const struct compsc_uvf *vf)
{
	return !!(le32_to_cpu(READ_ONCE(vf->reader.ctl->flags)) &
		  COMPSC_F_DIRTY_LOG);
}

/*
 * compsc_uvf_mark_dirty() - compsc_mark_dirty() on @len bytes the device
 * wrote at @addr (a received buffer); returns the pages, which the caller
 * adds to dirty_pages once per burst.
 */
static inline u32 compsc_uvf_mark_dirty(void *addr, u32 len)
{
	return compsc_mark_dirty(addr, len);
}

#endif /* COMPSC_UVF_H */
