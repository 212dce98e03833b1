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
#include <compsc/host.h>
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
	struct compsc_host_lists lists;	/* checked copies */
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

	n = compsc_host_lists_get(a->va, a->size, &a->hdr, p, &m->lists, &bad);
	if (n)
		goto refused;
	m->res->nr_regs = m->lists.nr_regs;
	m->res->nr_counters = m->lists.nr_ctrs;
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
	const struct compsc_host_override qctl = {
		.offset = compsc_82576vf_qctl,
		.value = m->qsaved,
		.nr = COMPSC_82576VF_NR_QCTL,
	};

	bench_queues_stop(m->bar, m->qsaved);
	compsc_host_read_state(m->area.va, &m->area.hdr, &m->lists, m->bar,
			       &qctl, m->rec_regs, m->rec_ctrs);
}

/*
 * The replay log packed for the stream: *@len is 0 when the driver never
 * formatted one. On success the caller kvfree()s *@buf.
 */
static int bench_replay_pack(struct bench_mig *m, u8 **buf, u32 *len)
{
	u32 room = le32_to_cpu(m->area.hdr.replay_len);
	int ret;

	*len = 0;
	*buf = kvmalloc(2 * (size_t)room + 1, GFP_KERNEL);
	if (!*buf)
		return -ENOMEM;
	ret = compsc_host_pack_replay(m->area.va, &m->area.hdr, *buf,
				      *buf + room);
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
	if (m->lists.nr_regs)
		compsc_stream_add(&w, COMPSC_REC_REGS, mand, m->rec_regs,
				  m->lists.nr_regs * sizeof(m->rec_regs[0]));
	if (m->lists.nr_ctrs)
		compsc_stream_add(&w, COMPSC_REC_COUNTERS, mand, m->rec_ctrs,
				  m->lists.nr_ctrs * sizeof(m->rec_ctrs[0]));
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
	if (!compsc_host_matches(&m->lists, &m->view)) {
		snprintf(m->res->msg, sizeof(m->res->msg),
			 "stream does not match the area's lists");
		return -EINVAL;
	}
	return 0;
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

/* The destination PF now holds the VF's whole PF-side state. */
static bool bench_pf_imported(struct bench_mig *m)
{
	return m->view.rec[COMPSC_REC_PF_VF].data &&
	       m->req->pf_import != BENCH_PF_SKIP;
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
	/*
	 * The replay log needs no copy: in the bench the guest's memory, log
	 * included, is already where it belongs.
	 */
	compsc_host_apply(m->area.va, &m->area.hdr, &m->lists, &m->view);
	m->res->host_config = compsc_host_vf_handover(m->bv->pdev,
						      bench_pf_imported(m),
						      m->area.gpa,
						      m->area.size, m->ctl);
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
