// SPDX-License-Identifier: GPL-2.0
/*
 * One migration, step by step, as a hypervisor does it: look up and check
 * the guest's area, take the device (write side), stop the queues, save
 * the listed registers and counters into a migration stream, parse that
 * stream back as the destination would, make the VF a fresh device, write
 * the saved state into the area and release with a version bump. Any
 * failure before the reset, or abort=1, gives the source its device back
 * unchanged (queues restarted, no version bump). The PF section (pf.c) is
 * exported with the registers, checked against the destination PF before
 * the reset and imported after it, before the release.
 */
#include <linux/delay.h>
#include <linux/device.h>
#include <linux/ktime.h>
#include <linux/pci.h>
#include <linux/slab.h>
#include <linux/smp.h>
#include <compsc/dev_82576vf.h>
#include "bench.h"

struct bench_mig {
	struct bench_vf *bv;
	const struct bench_req *req;
	struct bench_result *res;
	struct bench_area area;
	void __iomem *bar;
	struct compsc_area_ctl *ctl;
	struct compsc_stream_view view;
	u64 t_acquired;
	bool reset_started;	/* the source's device state is gone */
	bool has_pf;		/* the PF exported pf_state */
	struct compsc_pf_vf_state pf_state;
	u32 qsaved[COMPSC_82576VF_NR_QCTL];
	u32 nr_regs;
	u32 nr_ctrs;
	struct compsc_reg regs[COMPSC_MAX_REGS];
	struct compsc_counter_desc ctrs[COMPSC_MAX_COUNTERS];
	struct compsc_rec_reg rec_regs[COMPSC_MAX_REGS];
	struct compsc_rec_counter rec_ctrs[COMPSC_MAX_COUNTERS];
};

/* ---- the writer's environment ---------------------------------------- */

static u64 bench_now_ns(void *ctx)
{
	return ktime_get_ns();
}

static void bench_relax(void *ctx)
{
	usleep_range(10, 50);
}

static void bench_fence_ipi(void *info)
{
	smp_mb();	/* orders this CPU's earlier slot stores */
}

/* An IPI to every CPU: each one's earlier reader-slot stores are visible. */
static void bench_fence_readers(void *ctx)
{
	struct bench_mig *m = ctx;
	u64 t = ktime_get_ns();

	on_each_cpu(bench_fence_ipi, NULL, 1);
	m->res->fence_ns += ktime_get_ns() - t;
}

/* ---- area lists ------------------------------------------------------- */

static void *bench_sec(struct bench_mig *m, __le32 off)
{
	return (u8 *)m->area.va + le32_to_cpu(off);
}

/* Copy and check the register and counter lists against the 82576 policy. */
static int bench_lists(struct bench_mig *m)
{
	const struct compsc_policy *p = &compsc_82576vf_policy;
	struct bench_area *a = &m->area;
	u32 bad = 0;
	int n;

	n = compsc_area_snapshot_regs(a->va, a->size, p, m->regs,
				      COMPSC_MAX_REGS, &bad);
	if (n < 0)
		goto refused;
	m->nr_regs = n;
	n = compsc_area_snapshot_counters(a->va, a->size, p, m->ctrs,
					  COMPSC_MAX_COUNTERS, &bad);
	if (n < 0)
		goto refused;
	m->nr_ctrs = n;
	/* the guest may have changed its header since we copied it */
	if (m->nr_regs > le16_to_cpu(a->hdr.reg_max) ||
	    m->nr_ctrs > le16_to_cpu(a->hdr.counter_max)) {
		snprintf(m->res->msg, sizeof(m->res->msg),
			 "area header changed while it was checked");
		return -EINVAL;
	}
	m->res->nr_regs = m->nr_regs;
	m->res->nr_counters = m->nr_ctrs;
	return 0;
refused:
	snprintf(m->res->msg, sizeof(m->res->msg),
		 "register list refused (entry %d): %s",
		 bad == U32_MAX ? -1 : (int)bad, compsc_strerror(n));
	return compsc_errno(n);
}

/* ---- source side ------------------------------------------------------ */

static int bench_take(struct bench_mig *m)
{
	const struct compsc_env env = {
		.ctx = m,
		.now_ns = bench_now_ns,
		.relax = bench_relax,
		.fence_readers = bench_fence_readers,
	};
	struct compsc_area_hdr *h = &m->area.hdr;
	u64 t = ktime_get_ns();
	int err;

	m->ctl = bench_sec(m, h->ctl_off);
	err = compsc_writer_acquire(m->ctl, bench_sec(m, h->slots_off),
				    le16_to_cpu(h->nr_slots), &env,
				    (u64)m->req->timeout_ms * NSEC_PER_MSEC);
	m->t_acquired = ktime_get_ns();
	m->res->wait_ns = m->t_acquired - t;
	if (err) {
		snprintf(m->res->msg, sizeof(m->res->msg),
			 "cannot take the device: %s", compsc_strerror(err));
		return compsc_errno(err);
	}
	return 0;
}

/* Registers (queues stopped first, so heads stay put) and counters. */
static void bench_read_state(struct bench_mig *m)
{
	struct compsc_counter_desc *live = bench_sec(m, m->area.hdr.counter_off);
	u32 i, off;

	bench_queues_stop(m->bar, m->qsaved);
	for (i = 0; i < m->nr_regs; i++) {
		off = le32_to_cpu(m->regs[i].offset);
		memcpy(&m->rec_regs[i], &m->regs[i], sizeof(m->regs[i]));
		m->rec_regs[i].value =
			cpu_to_le64(bench_reg_read(m->bar, m->qsaved, off));
	}
	for (i = 0; i < m->nr_ctrs; i++) {
		off = le32_to_cpu(m->ctrs[i].offset);
		memcpy(&m->rec_ctrs[i], &m->ctrs[i], sizeof(struct compsc_reg));
		m->rec_ctrs[i].rsvd = 0;
		m->rec_ctrs[i].hw_final = cpu_to_le32(readl(m->bar + off));
		m->rec_ctrs[i].total = READ_ONCE(live[i].total);
	}
}

/*
 * The replay log packed for the stream (compsc_replay_pack(): only the
 * bytes in use). The guest may rewrite its log at any moment, so it is
 * copied first and checked on the copy. *@len is 0 when the driver never
 * formatted one (header still all zero). On success the caller kvfree()s
 * *@buf.
 */
static int bench_replay_pack(struct bench_mig *m, u8 **buf, u32 *len)
{
	u32 room = le32_to_cpu(m->area.hdr.replay_len);
	struct compsc_replay log;
	int ret = 0;
	u8 *copy;

	*len = 0;
	/* packed is never bigger than raw: output, then the copy */
	*buf = kvmalloc(2 * (size_t)room, GFP_KERNEL);
	if (!*buf)
		return -ENOMEM;
	copy = *buf + room;
	memcpy(copy, bench_sec(m, m->area.hdr.replay_off), room);
	if (room < sizeof(struct compsc_replay_hdr) ||
	    !memchr_inv(copy, 0, sizeof(struct compsc_replay_hdr)))
		return 0;
	ret = compsc_replay_attach(&log, copy, room, NULL, 0);
	if (!ret)
		ret = compsc_replay_pack(&log, *buf, room);
	if (ret < 0) {
		kvfree(*buf);
		snprintf(m->res->msg, sizeof(m->res->msg),
			 "replay log refused: %s", compsc_strerror(ret));
		return compsc_errno(ret);
	}
	*len = ret;
	return 0;
}

static void bench_ident(struct pci_dev *pdev, struct compsc_ident *id)
{
	id->vendor = pdev->vendor;
	id->device = pdev->device;
	id->subsys_vendor = pdev->subsystem_vendor;
	id->subsys_device = pdev->subsystem_device;
}

static int bench_build_stream(struct bench_mig *m)
{
	const u16 mand = COMPSC_REC_F_MANDATORY;
	struct bench_vf *bv = m->bv;
	struct compsc_stream_writer w;
	struct compsc_ident id;
	u32 rlen;
	u8 *drv;
	int ret;

	ret = bench_replay_pack(m, &drv, &rlen);
	if (ret)
		return ret;
	bench_ident(bv->pdev, &id);
	bv->stream_len = 0;
	compsc_stream_begin(&w, bv->stream, BENCH_STREAM_MAX, &id);
	if (m->nr_regs)
		compsc_stream_add(&w, COMPSC_REC_REGS, mand, m->rec_regs,
				  m->nr_regs * sizeof(m->rec_regs[0]));
	if (m->nr_ctrs)
		compsc_stream_add(&w, COMPSC_REC_COUNTERS, mand, m->rec_ctrs,
				  m->nr_ctrs * sizeof(m->rec_ctrs[0]));
	if (rlen)
		compsc_stream_add(&w, COMPSC_REC_DRIVER, mand, drv, rlen);
	if (m->has_pf)
		compsc_stream_add(&w, COMPSC_REC_PF_VF, mand, &m->pf_state,
				  sizeof(m->pf_state));
	ret = compsc_stream_end(&w);	/* reports the first error */
	kvfree(drv);
	if (ret < 0) {
		snprintf(m->res->msg, sizeof(m->res->msg),
			 "cannot build the stream: %s", compsc_strerror(ret));
		return compsc_errno(ret);
	}
	bv->stream_len = ret;
	m->res->state_bytes = ret;
	m->res->driver_bytes = rlen;
	return 0;
}

/* ---- destination side ------------------------------------------------- */

static bool bench_same_reg(const void *rec, const void *ent)
{
	const struct compsc_reg *a = rec, *b = ent;

	return a->offset == b->offset && a->bar == b->bar &&
	       a->width == b->width && a->kind == b->kind;
}

/* Every stream entry must name the area's entry at the same index. */
static bool bench_stream_matches(struct bench_mig *m)
{
	const struct compsc_stream_rec *rr = &m->view.rec[COMPSC_REC_REGS];
	const struct compsc_stream_rec *rc = &m->view.rec[COMPSC_REC_COUNTERS];
	u32 i;

	if (rr->len != m->nr_regs * sizeof(struct compsc_rec_reg) ||
	    rc->len != m->nr_ctrs * sizeof(struct compsc_rec_counter))
		return false;
	for (i = 0; i < m->nr_regs; i++)
		if (!bench_same_reg(rr->data + i * sizeof(struct compsc_rec_reg),
				    &m->regs[i]))
			return false;
	for (i = 0; i < m->nr_ctrs; i++)
		if (!bench_same_reg(rc->data +
				    i * sizeof(struct compsc_rec_counter),
				    &m->ctrs[i]))
			return false;
	return true;
}

/*
 * Parse the stream strictly, as the destination host would receive it, and
 * match it against the area, all before the source's device is reset.
 */
static int bench_parse_stream(struct bench_mig *m)
{
	struct bench_vf *bv = m->bv;
	struct compsc_ident id;
	int err;

	bench_ident(bv->pdev, &id);
	err = compsc_stream_parse(bv->stream, bv->stream_len, &id,
				  BENCH_STREAM_MAX, &m->view);
	if (err) {
		snprintf(m->res->msg, sizeof(m->res->msg),
			 "destination refused the stream at byte %u: %s",
			 m->view.err_offset, compsc_strerror(err));
		return compsc_errno(err);
	}
	if (!bench_stream_matches(m)) {
		snprintf(m->res->msg, sizeof(m->res->msg),
			 "stream does not match the area's lists");
		return -EINVAL;
	}
	return 0;
}

/*
 * Write the saved values and counter finals into the area (the stream was
 * matched against the lists already). The replay log needs no copy: in the
 * bench the guest's memory, log included, is already where it belongs.
 */
static void bench_apply_stream(struct bench_mig *m)
{
	const struct compsc_stream_rec *rr = &m->view.rec[COMPSC_REC_REGS];
	const struct compsc_stream_rec *rc = &m->view.rec[COMPSC_REC_COUNTERS];
	struct compsc_counter_desc *live = bench_sec(m, m->area.hdr.counter_off);
	__le64 *saved = bench_sec(m, m->area.hdr.saved_off);
	struct compsc_rec_counter c;
	struct compsc_rec_reg r;
	u32 i;

	for (i = 0; i < m->nr_regs; i++) {
		memcpy(&r, rr->data + i * sizeof(r), sizeof(r));
		WRITE_ONCE(saved[i], r.value);
	}
	for (i = 0; i < m->nr_ctrs; i++) {
		memcpy(&c, rc->data + i * sizeof(c), sizeof(c));
		WRITE_ONCE(live[i].hw_final, c.hw_final);
		smp_wmb();	/* hw_final before the flag that makes it valid */
		WRITE_ONCE(live[i].flags, live[i].flags | COMPSC_CTR_F_SAVED);
	}
}

/* ---- the PF section --------------------------------------------------- */

/* Source PF: what it holds for the VF; pf_import=unfit spoils it here. */
static int bench_save_pf(struct bench_mig *m)
{
	int ret = bench_pf_export(m->bv->pdev, &m->pf_state, m->res);

	if (ret < 0)
		return ret;
	m->has_pf = ret;
	if (m->has_pf && m->req->pf_import == BENCH_PF_UNFIT)
		bench_pf_make_unfit(&m->pf_state);
	return 0;
}

/* Destination PF: check (@apply false, before the reset) or import. */
static int bench_load_pf(struct bench_mig *m, bool apply)
{
	const struct compsc_stream_rec *r = &m->view.rec[COMPSC_REC_PF_VF];

	if (!r->data)
		return 0;
	if (m->req->pf_import == BENCH_PF_SKIP) {
		m->res->pf_import = "skipped";
		return 0;
	}
	return bench_pf_apply(m->bv->pdev, r, apply, m->res);
}

/* ---- the whole migration ---------------------------------------------- */

/* Save the device into a stream the destination accepts; device stays put. */
static int bench_save(struct bench_mig *m)
{
	int err;

	/*
	 * Held, so the guest cannot be restoring now. A device it never
	 * restored holds no guest state: saving it would hand the next
	 * destination a reset device as if it were the guest's. Refuse; the
	 * guest keeps the device and restores as usual.
	 */
	if (!compsc_writer_device_restored(m->area.va, m->ctl)) {
		snprintf(m->res->msg, sizeof(m->res->msg),
			 "guest has not restored the last migration yet");
		return -EAGAIN;
	}
	m->bar = bench_bar_map(m->bv->pdev);
	if (!m->bar) {
		snprintf(m->res->msg, sizeof(m->res->msg), "cannot map BAR0");
		return -ENOMEM;
	}
	bench_read_state(m);
	err = bench_save_pf(m);
	if (!err)
		err = bench_build_stream(m);
	if (!err)
		err = bench_parse_stream(m);
	if (!err)
		err = bench_load_pf(m, false);
	return err;
}

/* The device stays taken for at least blackout_ms. */
static void bench_blackout(struct bench_mig *m)
{
	u64 until = m->t_acquired + (u64)m->req->blackout_ms * NSEC_PER_MSEC;
	u64 now = ktime_get_ns();

	if (now < until)
		fsleep(div_u64(until - now, NSEC_PER_USEC));
}

/* Make the VF fresh, hand it the saved state, release with a version bump. */
static int bench_finish(struct bench_mig *m)
{
	u64 t = ktime_get_ns();
	int err;

	m->reset_started = true;
	err = bench_reset(m->bv->pdev, m->req->reset, m->res);
	m->res->reset_ns = ktime_get_ns() - t;
	if (err)
		return err;
	/* after the PF handled the FLR (it drops the VF's filters then) */
	err = bench_load_pf(m, true);
	if (err)
		return err;
	bench_apply_stream(m);
	bench_blackout(m);
	WRITE_ONCE(m->ctl->host_status, 0);
	compsc_writer_release(m->ctl);
	m->res->hold_ns = ktime_get_ns() - m->t_acquired;
	bench_kick_guest(m->bv->pdev);
	return 0;
}

/*
 * Failure after the take, or abort=1: the source keeps its device, queues
 * running again. After a failed reset there is nothing left to restart; the
 * driver sees no new version and finds out on its own.
 */
static void bench_giveback(struct bench_mig *m, int err)
{
	if (m->bar && !m->reset_started)
		bench_queues_restart(m->bar, m->qsaved);
	bench_blackout(m);
	WRITE_ONCE(m->ctl->host_status,
		   cpu_to_le32(err ? (u32)-COMPSC_ESTATE : 0));
	compsc_writer_abort(m->ctl);
	m->res->hold_ns = ktime_get_ns() - m->t_acquired;
	m->res->aborted = true;
	bench_kick_guest(m->bv->pdev);
}

static int bench_run(struct bench_mig *m)
{
	int err;

	err = bench_pf_forget_check(m->bv->pdev, m->req->reset);
	if (err) {
		snprintf(m->res->msg, sizeof(m->res->msg),
			 "PF driver cannot reset the VF's state");
		return err;
	}
	err = bench_area_map(m->bv->pdev, &m->area, m->res);
	if (err)
		return err;
	err = bench_lists(m);
	if (!err)
		err = bench_take(m);
	if (err)
		goto out;
	err = bench_save(m);
	if (err || m->req->abort) {
		bench_giveback(m, err);
		goto out;
	}
	err = bench_finish(m);
	if (err)
		bench_giveback(m, err);
out:
	if (m->ctl)
		m->res->version = le64_to_cpu(READ_ONCE(m->ctl->version));
	bench_bar_unmap(m->bv->pdev, m->bar);
	bench_area_unmap(&m->area);
	return err;
}

/**
 * bench_migrate() - run one migration of @bv as described by @req
 * @bv: the VF
 * @req: blackout, reset kind, abort, reader timeout
 *
 * The device lock keeps the VF's driver bound (and its area allocated) for
 * the whole migration. The result lands in @bv->result, the stream in
 * @bv->stream; the caller holds @bv->lock.
 *
 * Return: 0 (migrated, or aborted on request) or -errno.
 */
int bench_migrate(struct bench_vf *bv, const struct bench_req *req)
{
	struct bench_mig *m;
	int err;

	lockdep_assert_held(&bv->lock);
	memset(&bv->result, 0, sizeof(bv->result));
	bv->result.pf_forget = "no";
	bv->result.pf_vflr = "no";
	bv->result.pf_import = "no";
	m = kzalloc(sizeof(*m), GFP_KERNEL);
	if (!m) {
		bv->result.err = -ENOMEM;
		return -ENOMEM;
	}
	m->bv = bv;
	m->req = req;
	m->res = &bv->result;
	device_lock(&bv->pdev->dev);
	err = bench_run(m);
	device_unlock(&bv->pdev->dev);
	kfree(m);
	bv->result.err = err;
	bv->nr_migrations++;
	return err;
}
