// SPDX-License-Identifier: (GPL-2.0 OR BSD-3-Clause)
/*
 * The host side of a migration (see compsc/host.h): one implementation of
 * what a hypervisor does with the guest's area and the VF, for every host
 * glue and for the userspace tests. Portable: register access goes through
 * compsc_rd32()/compsc_wr32(), waiting through the caller's compsc_env.
 */
#include <compsc/compsc.h>
#include <compsc/host.h>
#include <compsc/precopy.h>
#include "sync_int.h"

#define COMPSC_HOST_NONE	((u32)-1)

/* ---- the area ----------------------------------------------------------- */

/**
 * compsc_host_lists_get() - copy and check the area's lists
 * @va: the area; @size: its size; @hdr: its checked header copy
 * @p: the device's register policy
 * @l: filled with the checked copies
 * @bad: the refused entry, or (u32)-1
 *
 * Return: 0 or -COMPSC_E* (the guest changed its header meanwhile:
 * -COMPSC_EAREA_LAYOUT).
 */
static int compsc_host_lists_get(const void *va, u32 size,
				 const struct compsc_area_hdr *hdr,
				 const struct compsc_policy *p,
				 struct compsc_host_lists *l, u32 *bad)
{
	int n;

	*bad = COMPSC_HOST_NONE;
	n = compsc_area_snapshot_regs(va, size, p, l->regs, COMPSC_MAX_REGS,
				      bad);
	if (n < 0)
		return n;
	l->nr_regs = (u32)n;
	n = compsc_area_snapshot_counters(va, size, p, l->ctrs,
					  COMPSC_MAX_COUNTERS, bad);
	if (n < 0)
		return n;
	l->nr_ctrs = (u32)n;
	/* the snapshot read the live header: it must fit the checked copy */
	if (l->nr_regs > le16_to_cpu(hdr->reg_max) ||
	    l->nr_ctrs > le16_to_cpu(hdr->counter_max))
		return -COMPSC_EAREA_LAYOUT;
	return 0;
}

/**
 * compsc_host_area_check() - judge the area mapped at @a->va (@a->size
 * bytes) once: a copy of its header, checked, and checked copies of its
 * lists against the device's policy @p
 * @bad: the refused list entry, or (u32)-1
 *
 * Return: 0 or -COMPSC_E*; nothing is written to the area either way.
 */
int compsc_host_area_check(struct compsc_host_area *a,
			   const struct compsc_policy *p, u32 *bad)
{
	int err;

	*bad = COMPSC_HOST_NONE;
	if (a->size < sizeof(a->hdr))
		return -COMPSC_EAREA_LAYOUT;
	memcpy(&a->hdr, a->va, sizeof(a->hdr));
	err = compsc_area_check(&a->hdr, a->size);
	if (err)
		return err;
	return compsc_host_lists_get(a->va, a->size, &a->hdr, p, &a->lists,
				     bad);
}
COMPSC_EXPORT(compsc_host_area_check);

/* ---- the VF's queues and interrupts ------------------------------------- */

/*
 * Wait (bounded by the model's stop time) until queue control @i stopped.
 * Return: 0 or -COMPSC_EQSTOP: the queue still runs, so its ring head may
 * move after it is saved and the destination would resume at the wrong
 * descriptor. The migration must not go on.
 */
static int compsc_host_qwait(struct compsc_host_dev *d, u32 i)
{
	const struct compsc_devmodel *dm = d->dm;
	u64 until = d->env->now_ns(d->env->ctx) + (u64)dm->qstop_us * 1000u;

	while (compsc_rd32(d->bar, dm->qctl[i]) & dm->qctl_enable) {
		if (d->env->now_ns(d->env->ctx) >= until)
			return -COMPSC_EQSTOP;
		d->env->relax(d->env->ctx);
	}
	return 0;
}

/**
 * compsc_host_queues_stop() - clear the queue enables so that the ring
 * heads stay put while they are saved, remembering what they were
 * @d: the device, held
 *
 * The guest lists the queue controls to have them restored enabled, so
 * compsc_host_read_state() reports @d->qsaved for them, not the stopped
 * values.
 *
 * Return: 0 or -COMPSC_EQSTOP (a queue did not stop in time); either way
 * @d is marked stopped, so compsc_host_queues_restart() (or a give-back)
 * puts the enables back.
 */
int compsc_host_queues_stop(struct compsc_host_dev *d)
{
	const struct compsc_devmodel *dm = d->dm;
	int err = 0;
	u32 i;

	for (i = 0; i < dm->nr_qctl; i++) {
		d->qsaved[i] = compsc_rd32(d->bar, dm->qctl[i]);
		compsc_wr32(d->bar, dm->qctl[i],
			    d->qsaved[i] & ~dm->qctl_enable);
	}
	compsc_rd32(d->bar, dm->flush);
	d->stopped = true;
	for (i = 0; i < dm->nr_qctl && !err; i++)
		err = compsc_host_qwait(d, i);
	return err;
}
COMPSC_EXPORT(compsc_host_queues_stop);

/** compsc_host_queues_restart() - the queues as they were before the stop. */
void compsc_host_queues_restart(struct compsc_host_dev *d)
{
	const struct compsc_devmodel *dm = d->dm;
	u32 i;

	if (!d->stopped)
		return;
	for (i = 0; i < dm->nr_qctl; i++)
		compsc_wr32(d->bar, dm->qctl[i], d->qsaved[i]);
	compsc_rd32(d->bar, dm->flush);
	d->stopped = false;
}
COMPSC_EXPORT(compsc_host_queues_restart);

/**
 * compsc_host_kick() - make the VF raise every interrupt, so the guest
 * driver enters its read side (and restores) now rather than at its next
 * timer; a spurious interrupt is harmless, every handler enters first
 * @d: the device
 * @unmask: open the vectors first (a fresh destination VF has them all
 *	masked; the guest's restore writes its own mask back)
 */
void compsc_host_kick(const struct compsc_host_dev *d, bool unmask)
{
	const struct compsc_devmodel *dm = d->dm;

	if (!d->bar)
		return;
	if (unmask)
		compsc_wr32(d->bar, dm->irq_unmask, dm->irq_all);
	compsc_wr32(d->bar, dm->irq_set, dm->irq_all);
	compsc_rd32(d->bar, dm->flush);
}
COMPSC_EXPORT(compsc_host_kick);

/**
 * compsc_host_ring_spans() - the descriptor rings the VF writes back into
 * @d: the device
 * @base: gets up to @max ring base addresses (device addresses)
 * @len: gets their lengths in bytes
 * @max: room in @base and @len
 *
 * Return: rings found (non-zero base and length).
 */
u32 compsc_host_ring_spans(const struct compsc_host_dev *d, u64 *base,
			   u64 *len, u32 max)
{
	const struct compsc_devmodel *dm = d->dm;
	u32 i, r, n = 0;
	u64 b, l;

	for (i = 0; i < dm->nr_rings && n < max; i++) {
		r = dm->ring_base[i];
		b = compsc_rd32(d->bar, r) |
		    (u64)compsc_rd32(d->bar, r + dm->ring_hi) << 32;
		l = compsc_rd32(d->bar, r + dm->ring_len) & dm->ring_len_mask;
		if (!b || !l)
			continue;
		base[n] = b;
		len[n++] = l;
	}
	return n;
}
COMPSC_EXPORT(compsc_host_ring_spans);

/**
 * compsc_host_log_covers() - does the DMA log see every byte of a span the
 * VF writes (the area, a ring)?
 * @r: the ranges the hypervisor asked the log to track (device addresses)
 * @nr: how many
 * @addr: the span's device address, as the guest announced or programmed it
 * @len: its length (0: nothing to cover)
 *
 * The log can only report writes inside the tracked ranges; the rest would
 * reach the destination stale. The host cannot tell a guest-physical
 * address from an IOVA its guest's vIOMMU translates; a hypervisor that
 * tracks guest RAM while the guest's device addresses are IOVAs shows here
 * only if an IOVA falls outside every tracked range (QEMU tracks one span
 * from the lowest to the highest mapped address below 4 GiB, so not
 * always). QEMU itself refuses to migrate a VFIO device behind a vIOMMU.
 *
 * Return: 0, or -COMPSC_EUNLOGGED.
 */
int compsc_host_log_covers(const struct compsc_range *r, u32 nr, u64 addr,
			   u64 len)
{
	u64 at = addr, last = addr + len - 1;
	u32 i;

	if (!len)
		return 0;
	if (last < addr)
		return -COMPSC_EUNLOGGED;
	/* each pass moves @at past one range that holds it (ranges may touch) */
	for (;;) {
		for (i = 0; i < nr; i++)
			if (r[i].first <= at && at <= r[i].last)
				break;
		if (i == nr)
			return -COMPSC_EUNLOGGED;
		if (r[i].last >= last)
			return 0;
		at = r[i].last + 1;
	}
}
COMPSC_EXPORT(compsc_host_log_covers);

/* ---- source ------------------------------------------------------------- */

/**
 * compsc_host_take() - take the device from the guest: the write side
 * (bounded wait for readers), then the queues stopped
 * @a: the checked area
 * @d: the device (bar mapped, env set)
 * @timeout_ns: bound on the readers' drain
 *
 * A device the guest never restored holds no guest state (it is as the
 * last destination's reset left it): saving it would hand the next
 * destination a reset device as the guest's. It is refused and released.
 *
 * A queue that does not stop within the model's bound is given back
 * too (queues restarted, the result in host_status): its head would move
 * after the save.
 *
 * Return: 0 (held) or -COMPSC_E* (not held, nothing changed):
 * -COMPSC_ETIMEDOUT, -COMPSC_EBUSY, -COMPSC_ENOTRESTORED, -COMPSC_EQSTOP.
 */
int compsc_host_take(struct compsc_host_area *a, struct compsc_host_dev *d,
		     u64 timeout_ns)
{
	int err = compsc_writer_claim(compsc_host_ctl(a));

	return err ?: compsc_host_take_claimed(a, d, timeout_ns);
}
COMPSC_EXPORT(compsc_host_take);

/**
 * compsc_host_take_claimed() - compsc_host_take() after its first step,
 * the writer word claimed (compsc_writer_claim()) by the caller
 *
 * For a caller that must claim under its own lock (the kernel's registry:
 * compsc_host_take_registered()). Return: as compsc_host_take().
 */
int compsc_host_take_claimed(struct compsc_host_area *a,
			     struct compsc_host_dev *d, u64 timeout_ns)
{
	struct compsc_area_ctl *ctl = compsc_host_ctl(a);
	int err;

	err = compsc_writer_drain(ctl, compsc_host_sec(a->va, a->hdr.slots_off),
				  le16_to_cpu(a->hdr.nr_slots), d->env,
				  timeout_ns);
	if (err)
		return err;
	/* no one else writes it while we hold the word */
	a->held_version = le64_to_cpu(READ_ONCE(ctl->version));
	if (!compsc_writer_device_restored(a->va, ctl)) {
		compsc_writer_abort(ctl);
		return -COMPSC_ENOTRESTORED;
	}
	err = compsc_host_queues_stop(d);
	if (err)
		compsc_host_giveback(a, d, err);
	return err;
}
COMPSC_EXPORT(compsc_host_take_claimed);

/**
 * compsc_host_held() - is the device still held by this host's take?
 * @a: the checked area a compsc_host_take() held
 *
 * The guest bounds a hold (COMPSC_HOLD_MAX_MS of its running time) and
 * then takes its device back (compsc_reader_give_up()): the writer word
 * leaves HELD with a CAS and the version moves on. From then on the
 * device is the guest's and changes: a save would hand the destination a
 * stale state as the guest's, a give-back would restart queues the guest
 * has reset. Called with the vCPUs stopped (stop-copy) the answer holds
 * until they run again; a guest stopped between its CAS and its release
 * reads ENDING, not HELD.
 *
 * Return: 0 (held by this take: HELD, the version it took) or
 * -COMPSC_EABANDONED.
 */
int compsc_host_held(const struct compsc_host_area *a)
{
	const struct compsc_area_ctl *ctl = compsc_host_ctl(a);

	if (le32_to_cpu(READ_ONCE(ctl->writer)) != COMPSC_WRITER_HELD ||
	    le64_to_cpu(READ_ONCE(ctl->version)) != a->held_version)
		return -COMPSC_EABANDONED;
	return 0;
}
COMPSC_EXPORT(compsc_host_held);

/**
 * compsc_host_giveback() - the source keeps its device: queues restarted
 * (unless a reset already took them), the result published, the write
 * side released without a version bump; the glue then kicks the guest
 * @a: the checked area, held
 * @d: the device
 * @status: 0 or -COMPSC_E*, for the guest's log (host_status)
 *
 * The hold's end is claimed first (HELD -> ENDING, a CAS; the guest's
 * give-up makes the same one): a guest that took its device back wins it
 * or already has, and then nothing is written, to the device or the area.
 *
 * Return: 0, or -COMPSC_EABANDONED: the guest took its device back, the
 * glue leaves it alone (no kick).
 */
int compsc_host_giveback(struct compsc_host_area *a,
			 struct compsc_host_dev *d, int status)
{
	struct compsc_area_ctl *ctl = compsc_host_ctl(a);

	if (compsc_host_held(a) ||
	    !compsc_cas32((__u32 *)&ctl->writer,
			  cpu_to_le32(COMPSC_WRITER_HELD),
			  cpu_to_le32(COMPSC_WRITER_ENDING))) {
		d->stopped = false;	/* the guest's queues, not ours */
		return -COMPSC_EABANDONED;
	}
	compsc_host_queues_restart(d);
	WRITE_ONCE(ctl->host_status, cpu_to_le32((u32)status));
	mb();	/* the device accesses before the hand-back */
	/* no bump: readers go on without a restore (compsc_writer_abort()) */
	smp_store_release(&ctl->writer, cpu_to_le32(COMPSC_WRITER_FREE));
	return 0;
}
COMPSC_EXPORT(compsc_host_giveback);

/* A register's value to save: the queue controls as before the stop. */
static u32 compsc_host_reg(const struct compsc_host_dev *d, u32 off)
{
	u32 i;

	for (i = 0; d->stopped && i < d->dm->nr_qctl; i++)
		if (off == d->dm->qctl[i])
			return d->qsaved[i];
	return compsc_rd32(d->bar, off);
}

/**
 * compsc_host_read_state() - the listed registers and counters, as records
 * @a: the checked area; @d: the device, held, queues stopped
 * @regs: @a->lists.nr_regs REGS entries out
 * @ctrs: @a->lists.nr_ctrs records out
 *
 * Entries come from the checked copies, never from the live lists (whose
 * widths the check held to 4 and 8). Return: the bytes of @regs written.
 */
static u32 compsc_host_read_state(const struct compsc_host_area *a,
				  const struct compsc_host_dev *d, u8 *regs,
				  struct compsc_rec_counter *ctrs)
{
	const struct compsc_host_lists *l = &a->lists;
	struct compsc_rec_reg r;
	u32 i, off, len = 0;

	for (i = 0; i < l->nr_regs; i++) {
		off = le32_to_cpu(l->regs[i].offset);
		memcpy(&r, &l->regs[i], sizeof(r));
		r.rsvd = 0;
		len += compsc_rec_reg_put(regs + len, &r,
					  compsc_host_reg(d, off));
	}
	for (i = 0; i < l->nr_ctrs; i++) {
		off = le32_to_cpu(l->ctrs[i].offset);
		memcpy(&ctrs[i], &l->ctrs[i], sizeof(struct compsc_reg));
		ctrs[i].rsvd = 0;
		ctrs[i].hw_final = cpu_to_le32(compsc_host_guest_rd(d, off));
	}
	return len;
}

/**
 * compsc_host_pack_replay() - the replay log, packed for the stream
 * @a: the checked area
 * @out: hdr.replay_len bytes for the packed log
 * @scratch: hdr.replay_len bytes: the guest may rewrite its log at any
 *	moment, so it is copied here and checked on the copy
 *
 * Return: the packed length (0: the driver never formatted a log) or
 * -COMPSC_E*.
 */
static int compsc_host_pack_replay(const struct compsc_host_area *a,
				   u8 *out, u8 *scratch)
{
	u32 room = le32_to_cpu(a->hdr.replay_len);
	struct compsc_replay log;
	int ret;

	memcpy(scratch, compsc_host_sec(a->va, a->hdr.replay_off), room);
	if (compsc_replay_blank(scratch, room))
		return 0;
	/* judged by compsc_replay_check(), as compsc_area_snapshot_replay() does */
	ret = compsc_replay_attach(&log, scratch, room, NULL, 0);
	if (ret)
		return ret;
	return compsc_replay_pack(&log, out, room);
}

/* The packed log's room, rounded so that the scratch copy after it is aligned. */
static u32 compsc_host_replay_room(const struct compsc_host_area *a)
{
	return (le32_to_cpu(a->hdr.replay_len) + 7u) & ~7u;
}

/**
 * compsc_host_replay_bytes() - what struct compsc_host_save.replay must
 * hold for @a: the packed log and an aligned scratch copy of the guest's
 */
u32 compsc_host_replay_bytes(const struct compsc_host_area *a)
{
	return 2 * compsc_host_replay_room(a);
}
COMPSC_EXPORT(compsc_host_replay_bytes);

/**
 * compsc_host_save() - the held device's state as one stream
 * @a: the checked area, held
 * @d: the device, queues stopped
 * @id: the source VF's identity
 * @s: workspace; the caller sets @s->pf, @s->stats and @s->replay
 *	(compsc_host_replay_bytes() bytes, 8-byte aligned), and @s->pre
 *	after a pre-copy stream
 * @out: the stream
 * @cap: room in @out (COMPSC_HOST_STREAM_MAX always suffices)
 *
 * Return: the stream's length or -COMPSC_E* (a hostile replay log, no room,
 * -COMPSC_EABANDONED: the guest took its device back, compsc_host_held()).
 */
int compsc_host_save(const struct compsc_host_area *a,
		     const struct compsc_host_dev *d,
		     const struct compsc_ident *id, struct compsc_host_save *s,
		     void *out, u32 cap)
{
	const u16 mand = COMPSC_REC_F_MANDATORY;
	u32 room = compsc_host_replay_room(a);
	const struct compsc_host_lists *l = &a->lists;
	struct compsc_stream_writer w;
	int ret;

	/* a device the guest took back is its own, changed since the take */
	ret = compsc_host_held(a);
	if (ret)
		return ret;
	s->regs_len = compsc_host_read_state(a, d, s->regs, s->ctrs);
	ret = compsc_host_pack_replay(a, s->replay, s->replay + room);
	if (ret < 0)
		return ret;
	s->driver_bytes = (u32)ret;
	compsc_stream_begin(&w, out, cap, id);
	if (l->nr_regs)
		compsc_stream_add(&w, COMPSC_REC_REGS, mand, s->regs,
				  s->regs_len);
	if (l->nr_ctrs)
		compsc_stream_add(&w, COMPSC_REC_COUNTERS, mand, s->ctrs,
				  l->nr_ctrs * sizeof(s->ctrs[0]));
	/* the configuration, or that it is the pre-copy stream's */
	ret = compsc_precopy_add(&w, s, id);
	s->config_sent = ret == 1;
	if (s->stats)
		compsc_stream_add(&w, COMPSC_REC_HOST_COUNTERS, mand, s->stats,
				  s->nr_stats * sizeof(*s->stats));
	return compsc_stream_end(&w);	/* reports the first error */
}
COMPSC_EXPORT(compsc_host_save);

/* Tries at a copy of the live log that two reads agree on. */
#define COMPSC_HOST_LIVE_TRIES	3

/*
 * The replay log of a guest that runs and may rewrite it meanwhile: a
 * copy is checked and packed, and kept only if the log still reads the
 * same afterwards (a write in progress shows as a failed check or a
 * difference). A log that never holds still for two reads is left for
 * the stop-copy stream, read with the device held: pre-copy data is an
 * early copy, never the last word (compsc/precopy.h).
 */
static int compsc_host_pack_replay_live(const struct compsc_host_area *a,
					u8 *out, u8 *scratch)
{
	const void *live = compsc_host_sec(a->va, a->hdr.replay_off);
	u32 room = le32_to_cpu(a->hdr.replay_len), i;
	int ret;

	for (i = 0; i < COMPSC_HOST_LIVE_TRIES; i++) {
		ret = compsc_host_pack_replay(a, out, scratch);
		if (ret >= 0 && !memcmp(scratch, live, room))
			return ret;
	}
	return 0;
}

/**
 * compsc_host_save_config() - the pre-copy stream, with the guest running
 * @a: the checked area (not held; NULL: no replay log to read)
 * @id: the source VF's identity
 * @s: workspace as for compsc_host_save(); @s->pf set by the caller
 * @out: the stream
 * @cap: room in @out (COMPSC_PRECOPY_MAX always suffices)
 *
 * Return: the stream's length or -COMPSC_E*.
 */
int compsc_host_save_config(const struct compsc_host_area *a,
			    const struct compsc_ident *id,
			    struct compsc_host_save *s, void *out, u32 cap)
{
	int ret = 0;

	if (a)
		ret = compsc_host_pack_replay_live(a, s->replay,
						   s->replay + compsc_host_replay_room(a));
	s->driver_bytes = (u32)ret;
	return compsc_precopy_build(s, id, out, cap);
}
COMPSC_EXPORT(compsc_host_save_config);

/**
 * compsc_host_save_bound() - what compsc_host_save() may produce for @a
 * (NULL: nothing held, an empty stream) with @nr_stats host counters;
 * what a host reports before the device is saved (before the PF says how
 * much it holds: its PF_VF_EXT section counts at its largest)
 */
u32 compsc_host_save_bound(const struct compsc_host_area *a, u32 nr_stats)
{
	u32 n = sizeof(struct compsc_stream_hdr) + sizeof(struct compsc_rec_end);

	if (!a)
		return n;
	return n + 7 * sizeof(struct compsc_rec_hdr) +
	       a->lists.nr_regs * COMPSC_REC_REG_MAX +
	       a->lists.nr_ctrs * sizeof(struct compsc_rec_counter) +
	       sizeof(struct compsc_pf_vf_state) + COMPSC_PF_EXT_MAX_BYTES +
	       le32_to_cpu(a->hdr.replay_len) +
	       nr_stats * sizeof(struct compsc_rec_counter);
}
COMPSC_EXPORT(compsc_host_save_bound);

/* ---- destination -------------------------------------------------------- */

static bool compsc_host_same_reg(const void *rec, const void *ent)
{
	const struct compsc_reg *x = rec, *y = ent;

	return x->offset == y->offset && x->bar == y->bar &&
	       x->width == y->width && x->kind == y->kind;
}

/**
 * compsc_host_matches() - does every stream entry name the area's entry
 * at the same index?
 * @l: the destination area's checked lists; @v: a parsed stream
 */
static bool compsc_host_matches(const struct compsc_host_lists *l,
				const struct compsc_stream_view *v)
{
	const struct compsc_stream_rec *rr = &v->rec[COMPSC_REC_REGS];
	const struct compsc_stream_rec *rc = &v->rec[COMPSC_REC_COUNTERS];
	struct compsc_rec_reg r;
	u32 i, off = 0;
	u64 value;

	if (rc->len != l->nr_ctrs * sizeof(struct compsc_rec_counter))
		return false;
	for (i = 0; i < l->nr_regs; i++) {
		off = compsc_rec_reg_get(rr->data, rr->len, off, &r, &value);
		if (!off || !compsc_host_same_reg(&r, &l->regs[i]))
			return false;
	}
	if (off != rr->len)	/* more entries than the area lists */
		return false;
	for (i = 0; i < l->nr_ctrs; i++)
		if (!compsc_host_same_reg(rc->data +
					  i * sizeof(struct compsc_rec_counter),
					  &l->ctrs[i]))
			return false;
	return true;
}

/**
 * compsc_host_load() - a destination received @len bytes at @buf: parse
 * them strictly for device @id and match them against the area @a
 * @v: the parsed view (points into @buf); v->err_offset on a parse error
 *
 * Return: 0, -COMPSC_EMISMATCH or the parser's -COMPSC_E*.
 */
int compsc_host_load(const struct compsc_host_area *a, const void *buf,
		     u32 len, const struct compsc_ident *id,
		     struct compsc_stream_view *v)
{
	int err;

	err = compsc_stream_parse(buf, len, id, COMPSC_HOST_STREAM_MAX, v);
	if (err)
		return err;
	return compsc_host_matches(&a->lists, v) ? 0 : -COMPSC_EMISMATCH;
}
COMPSC_EXPORT(compsc_host_load);

/**
 * compsc_host_give() - the saved values and counter finals into the area
 * @a: the checked destination area, held
 * @v: a stream compsc_host_load() accepted for @a
 * @logging: this host logs dirty pages now; if not, the source's request
 *	that came along in guest memory is withdrawn
 * @copied: the guest's memory was copied from the source host (a real
 *	migration, not a hand-back in place): COMPSC_F_MEM_COPIED
 *
 * The glue then publishes the hand-over, releases the write side
 * (compsc_writer_release(): the version bump the guest restores on) and
 * kicks the guest.
 */
void compsc_host_give(struct compsc_host_area *a,
		      const struct compsc_stream_view *v, bool logging,
		      bool copied)
{
	const struct compsc_stream_rec *rr = &v->rec[COMPSC_REC_REGS];
	const struct compsc_stream_rec *rc = &v->rec[COMPSC_REC_COUNTERS];
	struct compsc_counter_desc *live = compsc_host_sec(a->va,
							   a->hdr.counter_off);
	__le64 *saved = compsc_host_sec(a->va, a->hdr.saved_off);
	struct compsc_area_ctl *ctl = compsc_host_ctl(a);
	struct compsc_rec_counter c;
	struct compsc_rec_reg r;
	u32 i, flags, off = 0;
	u64 value = 0;

	/* compsc_host_load() matched every entry to the area's list */
	for (i = 0; i < a->lists.nr_regs; i++) {
		off = compsc_rec_reg_get(rr->data, rr->len, off, &r, &value);
		WRITE_ONCE(saved[i], cpu_to_le64(value));
	}
	for (i = 0; i < a->lists.nr_ctrs; i++) {
		memcpy(&c, rc->data + i * sizeof(c), sizeof(c));
		WRITE_ONCE(live[i].hw_final, c.hw_final);
		smp_wmb();	/* hw_final before the flag that makes it valid */
		WRITE_ONCE(live[i].flags, live[i].flags | COMPSC_CTR_F_SAVED);
	}
	WRITE_ONCE(ctl->host_status, 0);
	flags = le32_to_cpu(READ_ONCE(ctl->flags));
	if (!logging)
		flags &= ~COMPSC_F_DIRTY_LOG;
	/* set or cleared every time: an old value travels with guest memory */
	if (copied)
		flags |= COMPSC_F_MEM_COPIED;
	else
		flags &= ~COMPSC_F_MEM_COPIED;
	WRITE_ONCE(ctl->flags, cpu_to_le32(flags));
}
COMPSC_EXPORT(compsc_host_give);

/**
 * compsc_host_give_lost() - the destination cannot hand the state over:
 * the guest gets its device back to reset and configure itself
 * @a: the checked destination area; the source's take travelled in it
 *	(the writer word reads HELD)
 * @status: -COMPSC_ENOSTATE, for the guest's restore and log (host_status)
 *
 * Whatever failed (the PF's import, the BAR, the stream), the guest's
 * vCPUs are about to run on a device the host reset: a hold left in place
 * would keep every reader out for good, and a plain release would shift
 * the rings to saved values that are not this migration's. Counter finals
 * already in the area are a past migration's: none is marked saved.
 * The glue then kicks the guest if it can still reach the device.
 */
void compsc_host_give_lost(struct compsc_host_area *a, int status)
{
	struct compsc_counter_desc *live = compsc_host_sec(a->va,
							   a->hdr.counter_off);
	u32 i;

	for (i = 0; i < a->lists.nr_ctrs; i++)
		WRITE_ONCE(live[i].flags, live[i].flags & ~COMPSC_CTR_F_SAVED);
	compsc_writer_release_lost(compsc_host_ctl(a), status);
}
COMPSC_EXPORT(compsc_host_give_lost);

/* ---- the VF's PF, destination ------------------------------------------- */

/**
 * compsc_host_pf_sections() - the PF sections of a loaded stream, copied
 * out of it (the payload has no alignment guarantee) for the PF
 * @v: a stream compsc_host_load() accepted
 * @pf: filled; what the stream lacks stays zero
 *
 * Return: 0, or -COMPSC_EMALFORMED for a PF_VF_EXT section without the
 * PF_VF section it extends (or sections of the wrong size: a view that
 * did not come from the parser).
 */
int compsc_host_pf_sections(const struct compsc_stream_view *v,
			    struct compsc_host_pf *pf)
{
	const struct compsc_stream_rec *st = &v->rec[COMPSC_REC_PF_VF];
	const struct compsc_stream_rec *x = &v->rec[COMPSC_REC_PF_VF_EXT];

	memset(pf, 0, sizeof(*pf));
	/* the parser held both to their sizes; check again what is copied */
	if ((x->data && !st->data) || (x->data && x->len > sizeof(pf->x)))
		return -COMPSC_EMALFORMED;
	if (st->data) {
		if (compsc_pf_vf_unpack(st->data, st->len, &pf->st))
			return -COMPSC_EMALFORMED;
		pf->has_st = true;
	}
	if (x->data) {
		memcpy(&pf->x, x->data, x->len);
		pf->has_x = true;
	}
	return 0;
}
COMPSC_EXPORT(compsc_host_pf_sections);

/**
 * compsc_host_pf_whole() - once the destination PF imported @pf: does it
 * hold the VF's whole state, so that the host may complete the VF's reset
 * handshake and spare the guest its own reset and replay?
 * @pf: the stream's PF sections
 * @ext_pf: the destination PF holds more than PF_VF (it takes PF_VF_EXT)
 * @lost: out: the source PF's COMPSC_PFVF_LOST_* bits, for the log
 *
 * Not when there is no PF section, when such a PF got no PF_VF_EXT (an
 * older source: the MAC filters, the mailbox API... stayed behind) or
 * when the source PF said it held state that could not travel.
 */
bool compsc_host_pf_whole(const struct compsc_host_pf *pf, bool ext_pf,
			  u32 *lost)
{
	*lost = pf->has_x ? le32_to_cpu(pf->x.ext.lost) : 0;
	return pf->has_st && (pf->has_x || !ext_pf) && !*lost;
}
COMPSC_EXPORT(compsc_host_pf_whole);

/* Six bytes of zero: the PF gives the VF no MAC. */
static bool compsc_host_mac_none(const u8 *mac)
{
	return !(mac[0] | mac[1] | mac[2] | mac[3] | mac[4] | mac[5]);
}

/**
 * compsc_host_mac_in_use() - the destination's rule on the stream's MAC:
 * does another VF of the destination VF's PF use it already?
 * @pf: the stream's PF sections (no PF_VF, or no MAC in it: no clash)
 * @self: the destination VF's index at its PF (skipped in @vfs: the MAC
 *	an administrator gave it ahead of the guest is no clash)
 * @vfs: the PF's VFs as this host sees them (compsc_host_vf_mac)
 * @n: entries in @vfs
 *
 * Two VFs of one PF with one MAC split the guest's frames between them:
 * the state is refused before the switch-over, and the guest runs on at
 * its source. Exempt is a VF whose guest this host is migrating away:
 * its MAC is the guest's own, on its way from one VF of the PF to
 * another.
 *
 * Return: the index into @vfs of the VF that uses the MAC, or -1.
 */
int compsc_host_mac_in_use(const struct compsc_host_pf *pf, u32 self,
			   const struct compsc_host_vf_mac *vfs, u32 n)
{
	u32 i;

	if (!pf->has_st || compsc_host_mac_none(pf->st.mac))
		return -1;
	for (i = 0; i < n; i++)
		if (vfs[i].vf != self && !vfs[i].migrating_out &&
		    !memcmp(vfs[i].mac, pf->st.mac, sizeof(vfs[i].mac)))
			return (int)i;
	return -1;
}
COMPSC_EXPORT(compsc_host_mac_in_use);

/**
 * compsc_host_dirty_round() - @on: start a dirty-logging round (a new
 * generation, then the flag: a driver that sees the flag sees the round);
 * off: stop asking the guest driver to mark pages
 * @ctl: the area's control line (live, or a copy the glue writes back in
 *	field order: dirty_gen before flags)
 */
void compsc_host_dirty_round(struct compsc_area_ctl *ctl, bool on)
{
	u32 flags = le32_to_cpu(READ_ONCE(ctl->flags));

	if (on) {
		WRITE_ONCE(ctl->dirty_gen,
			   cpu_to_le64(le64_to_cpu(ctl->dirty_gen) + 1));
		/* the new generation before the flag that announces it */
		smp_wmb();
		flags |= COMPSC_F_DIRTY_LOG;
	} else {
		flags &= ~COMPSC_F_DIRTY_LOG;
	}
	WRITE_ONCE(ctl->flags, cpu_to_le32(flags));
}
COMPSC_EXPORT(compsc_host_dirty_round);

/**
 * compsc_host_drain() - wait until every reader inside has left, taking
 * nothing: the write side is held only while waiting, then let go with
 * no version bump and no word of the area changed
 * @a: the checked area
 * @env: time, sleep and the reader fence
 * @timeout_ns: bound on the whole wait (a hold to end, then the readers)
 *
 * Whatever a reader read in the area before the call, it acts on it no
 * longer once this returns 0: it was inside and has left, or it entered
 * after the fence and reads the area's words as they were at the call
 * (the fence is the one compsc_writer_acquire() relies on). A device
 * held by another writer (a take, a guest's give-up ending) is waited
 * for like a reader. The readers that find the word HELD meanwhile back
 * out and retry, as during a take that was refused.
 *
 * An area the guest withdrew (COMPSC_WRITER_WITHDRAWN) is refused at once
 * with nothing written, as a take refuses it: its pages may be the guest
 * allocator's again, and no reader counts in them any more.
 *
 * Return: 0, -COMPSC_EBUSY (still held by another writer at the bound),
 * -COMPSC_ETIMEDOUT (a reader still inside at the bound), -COMPSC_ESTATE
 * (withdrawn), -COMPSC_EINVAL.
 */
int compsc_host_drain(const struct compsc_host_area *a,
		      const struct compsc_env *env, u64 timeout_ns)
{
	struct compsc_area_ctl *ctl = compsc_host_ctl(a);
	const struct compsc_slot *slots = compsc_host_sec(a->va,
							   a->hdr.slots_off);
	u32 nr = le16_to_cpu(a->hdr.nr_slots);
	int err;

	if (!nr || nr > COMPSC_MAX_SLOTS || !env || !env->now_ns ||
	    !env->relax || !env->fence_readers)
		return -COMPSC_EINVAL;
	err = __compsc_writer_wait(ctl, slots, nr, env, timeout_ns, true);
	if (!err)
		compsc_writer_abort(ctl);	/* drained: let go as it was */
	return err;
}
COMPSC_EXPORT(compsc_host_drain);

/*
 * Host-emulated counters: the host keeps a 32-bit base per statistics
 * register and adds it to every guest read (wrapping, as the registers
 * do), so the registers a guest reads continue across a migration even
 * when its driver keeps no totals of its own. These three functions are
 * the whole rule: what the source sends, what the destination accepts and
 * the base it derives.
 */

/**
 * compsc_host_stat_index() - which of the model's statistics registers is
 * at @off: its index in dm->stats, or -1
 */
int compsc_host_stat_index(const struct compsc_devmodel *dm, u32 off)
{
	u32 i;

	for (i = 0; i < dm->nr_stats; i++)
		if (dm->stats[i] == off)
			return (int)i;
	return -1;
}
COMPSC_EXPORT(compsc_host_stat_index);

/**
 * compsc_host_guest_rd() - register @off as the guest reads it: with the
 * base this host adds when @off is one of the model's statistics
 * registers and it emulates them (d->stat_base), wrapping as the register
 */
u32 compsc_host_guest_rd(const struct compsc_host_dev *d, u32 off)
{
	u32 v = compsc_rd32(d->bar, off);
	int i = d->stat_base ? compsc_host_stat_index(d->dm, off) : -1;

	return i < 0 ? v : v + d->stat_base[i];
}
COMPSC_EXPORT(compsc_host_guest_rd);

/**
 * compsc_host_read_stats() - the statistics registers as the guest reads
 * them, as COMPSC_REC_HOST_COUNTERS records
 * @d: the device (d->stat_base: the bases this host adds now, or NULL)
 * @out: d->dm->nr_stats records
 */
void compsc_host_read_stats(const struct compsc_host_dev *d,
			    struct compsc_rec_counter *out)
{
	const struct compsc_devmodel *dm = d->dm;
	u32 i;

	for (i = 0; i < dm->nr_stats; i++) {
		memset(&out[i], 0, sizeof(out[i]));
		out[i].offset = cpu_to_le32(dm->stats[i]);
		out[i].width = 4;
		out[i].kind = COMPSC_REG_COUNTER_RO;
		out[i].hw_final = cpu_to_le32(compsc_host_guest_rd(d, dm->stats[i]));
	}
}
COMPSC_EXPORT(compsc_host_read_stats);

/**
 * compsc_host_stats_check() - a COMPSC_REC_HOST_COUNTERS record is exactly
 * the model's statistics list, in order
 *
 * Return: 0 or -COMPSC_EMALFORMED (a stream from a host with another list:
 * refuse it whole, before anything is applied).
 */
int compsc_host_stats_check(const struct compsc_devmodel *dm,
			    const struct compsc_stream_rec *rec)
{
	struct compsc_rec_counter c;
	u32 i;

	if (rec->len != dm->nr_stats * sizeof(c))
		return -COMPSC_EMALFORMED;
	for (i = 0; i < dm->nr_stats; i++) {
		memcpy(&c, rec->data + i * sizeof(c), sizeof(c));
		if (le32_to_cpu(c.offset) != dm->stats[i] || c.bar)
			return -COMPSC_EMALFORMED;
	}
	return 0;
}
COMPSC_EXPORT(compsc_host_stats_check);

/**
 * compsc_host_stats_base() - destination: the base for each statistics
 * register that makes it continue from the source's last value
 * @d: the device; @rec: a record compsc_host_stats_check() accepted
 * @base: d->dm->nr_stats bases out
 */
void compsc_host_stats_base(const struct compsc_host_dev *d,
			    const struct compsc_stream_rec *rec, u32 *base)
{
	const struct compsc_devmodel *dm = d->dm;
	struct compsc_rec_counter c;
	u32 i;

	for (i = 0; i < dm->nr_stats; i++) {
		memcpy(&c, rec->data + i * sizeof(c), sizeof(c));
		base[i] = le32_to_cpu(c.hw_final) -
			  compsc_rd32(d->bar, dm->stats[i]);
	}
}
COMPSC_EXPORT(compsc_host_stats_base);
