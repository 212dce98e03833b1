// SPDX-License-Identifier: GPL-2.0
/*
 * One migration in place, as two hosts would do it: the VF is the source
 * and then, once reset, the destination. Each side walks the VFIO
 * migration arcs a real hypervisor takes, and libcompsc's compsc_mig_arc()
 * says what every arc does, exactly as for the VFIO variant driver; the
 * actions are the shared host side (compsc/host.h).
 *
 *   source:      RUNNING -> RUNNING_P2P (take) -> STOP -> STOP_COPY (save)
 *   destination: STOP -> RESUMING -> STOP (load: strict parse, match, the
 *                destination PF's check), all before the source is reset
 *   source:      STOP_COPY -> STOP; the VF is reset (a fresh destination)
 *   destination: STOP -> RUNNING_P2P -> RUNNING (give: PF import, saved
 *                state into the area, hand-over, release with a bump)
 *
 * A failed take, save or load, or abort=1: the source goes back to
 * RUNNING (A_ABORT, no version bump) and keeps its device. A failed reset
 * or give: the VF holds nothing of the guest's state any more, and it
 * goes back as a fresh device the guest resets (compsc_host_give_lost(),
 * the rule the variant driver follows), not through the source.
 */
#include <linux/delay.h>
#include <linux/device.h>
#include <linux/ktime.h>
#include <linux/pci.h>
#include <linux/slab.h>
#include <compsc/host.h>
#include <compsc/migstate.h>
#include "standin.h"

/* First VLAN of the filters pf_import=unfit asks for (standin_save_pf()) */
#define STANDIN_UNFIT_VLAN0	1000

/* One side of the migration: its state and what it holds. */
struct standin_side {
	u32 state;		/* COMPSC_MIG_* */
	u32 ctx;		/* COMPSC_MIG_C_* */
};

struct standin_mig {
	struct standin_vf *sv;
	const struct standin_req *req;
	struct standin_result *res;
	struct compsc_host_area area;
	struct compsc_host_dev dev;
	struct compsc_host_kenv kenv;
	struct standin_side src, dst;
	int err;		/* first failure; the source then keeps its VF */
	u64 t_acquired;
	struct compsc_stream_view view;
	struct compsc_pf_vf_state pf_state;
	struct compsc_pf_vf_xstate pf_ext;
	bool pf_whole;		/* the destination PF holds the VF's whole state */
	struct compsc_host_save save;
	u32 rx_tail, rx_count;	/* RX queue 0 at the take (bad_rx_head=1) */
};

static __printf(3, 4) int standin_fail(struct standin_mig *m, int err,
				     const char *fmt, ...)
{
	va_list ap;

	if (m->err)
		return m->err;
	va_start(ap, fmt);
	vsnprintf(m->res->msg, sizeof(m->res->msg), fmt, ap);
	va_end(ap);
	m->err = err;
	return err;
}

/* ---- source actions ------------------------------------------------------ */

static void standin_take(struct standin_mig *m)
{
	const struct compsc_devmodel *dm = m->dev.dm;
	u64 t = ktime_get_ns();
	int err;

	err = compsc_host_take_registered(m->sv->pdev, &m->area, &m->dev,
					  (u64)m->req->timeout_ms * NSEC_PER_MSEC);
	m->t_acquired = ktime_get_ns();
	m->res->wait_ns = m->t_acquired - t;
	m->res->fence_ns = m->kenv.fence_ns;
	if (err) {
		standin_fail(m, compsc_errno(err), "cannot take the device: %s",
			     compsc_strerror(err));
		return;
	}
	m->src.ctx |= COMPSC_MIG_C_HELD;
	if (m->req->bad_rx_head) {	/* the driver gave the device up to here */
		m->rx_tail = compsc_rd32(m->dev.bar, dm->rx0_tail);
		/* both models' descriptors are 16 bytes */
		m->rx_count = (compsc_rd32(m->dev.bar, dm->rx0_base + dm->ring_len) &
			       dm->ring_len_mask) / 16;
	}
	/*
	 * stop_late_ms: a host slow to stop the queues once it holds the
	 * device. Frames the VF receives meanwhile are completed where the
	 * driver, backing off, cannot clean them: the state a restore's ring
	 * shift (and, when memory moved, its drop) must get right.
	 */
	if (m->req->stop_late_ms) {
		compsc_host_queues_restart(&m->dev);
		msleep(m->req->stop_late_ms);
		err = compsc_host_queues_stop(&m->dev);
		if (err)	/* A_ABORT gives the device back, queues restarted */
			standin_fail(m, compsc_errno(err), "cannot take the device: %s",
				     compsc_strerror(err));
	}
}

/*
 * The source PF's section; pf_import=unfit spoils it into a state the PF
 * cannot take (COMPSC_PF_MAX_VLANS filters, more than the model's PF
 * holds: standin_unfit_ok()): still a valid record, so the destination's
 * check must be what refuses it.
 */
static int standin_save_pf(struct standin_mig *m)
{
	struct compsc_pf_vf_state *st = &m->pf_state;
	int ret = compsc_host_pf_export(m->sv->pdev, st, &m->pf_ext);
	u16 i;

	if (ret <= 0)
		return ret;
	m->save.pf = st;
	m->res->pf_bytes = sizeof(struct compsc_rec_hdr) +
			   ALIGN(max(compsc_pf_vf_pack(st, NULL), 0), 8);
	if (ret > 1) {
		m->save.pf_ext = &m->pf_ext;
		m->res->pf_bytes += sizeof(struct compsc_rec_hdr) +
				    ALIGN(compsc_pf_vf_xlen(&m->pf_ext), 8);
	}
	if (m->req->pf_import != STANDIN_PF_UNFIT)
		return 0;
	for (i = 0; i < COMPSC_PF_MAX_VLANS; i++)
		st->vlans[i] = cpu_to_le16(STANDIN_UNFIT_VLAN0 + i);
	st->nr_vlans = cpu_to_le16(COMPSC_PF_MAX_VLANS);
	return 0;
}

/* STOP -> STOP_COPY with the device held: the stream, into sv->stream. */
static void standin_save(struct standin_mig *m)
{
	struct standin_vf *sv = m->sv;
	struct compsc_ident id;
	int ret;

	ret = standin_save_pf(m);
	if (ret) {
		standin_fail(m, ret, "PF cannot export the VF's state: %d", ret);
		return;
	}
	m->save.replay = kvmalloc(compsc_host_replay_bytes(&m->area),
				  GFP_KERNEL);
	if (!m->save.replay) {
		standin_fail(m, -ENOMEM, "out of memory");
		return;
	}
	compsc_host_ident(sv->pdev, &id);
	ret = compsc_host_save(&m->area, &m->dev, &id, &m->save, sv->stream,
			       STANDIN_STREAM_MAX);
	kvfree(m->save.replay);
	m->save.replay = NULL;
	if (ret < 0) {
		standin_fail(m, compsc_errno(ret), "cannot save the device: %s",
			     compsc_strerror(ret));
		return;
	}
	sv->stream_len = ret;
	m->res->state_bytes = ret;
	m->res->driver_bytes = m->save.driver_bytes;
	/*
	 * corrupt=1: the stream spoilt on its way, one bit in its middle,
	 * inside a record: the destination's parse must refuse it, and the
	 * source keep its device. last_stream keeps the spoilt bytes.
	 */
	if (m->req->corrupt)
		sv->stream[ret / 2] ^= 0x10;
}

/* The device stays taken for at least blackout_ms. */
static void standin_blackout(struct standin_mig *m)
{
	u64 until = m->t_acquired + (u64)m->req->blackout_ms * NSEC_PER_MSEC;
	u64 now = ktime_get_ns();

	if (now < until)
		fsleep(div_u64(until - now, NSEC_PER_USEC));
}

/* Back to RUNNING without a bump: the source keeps its device. */
static void standin_abort(struct standin_mig *m)
{
	standin_blackout(m);
	compsc_host_giveback(&m->area, &m->dev,
			     m->err ? -COMPSC_ESTATE : 0);
	m->res->hold_ns = ktime_get_ns() - m->t_acquired;
	m->res->aborted = true;
	m->src.ctx &= ~COMPSC_MIG_C_HELD;
	standin_kick_guest(m->sv->pdev);
}

/* ---- destination actions ---------------------------------------------------- */

/*
 * What the destination does with the PF sections (@apply: import them,
 * and learn whether the PF now holds the VF's whole state).
 */
static int standin_load_pf(struct standin_mig *m, bool apply)
{
	int err;

	if (!m->view.rec[COMPSC_REC_PF_VF].data)
		return 0;
	if (m->req->pf_import == STANDIN_PF_SKIP) {
		m->res->pf_import = "skipped";
		return 0;
	}
	err = compsc_host_pf_apply(m->sv->pdev, &m->view, apply);
	m->pf_whole = err > 0;
	err = min(err, 0);
	m->res->pf_import = err ? "refused" : apply ? "done" : "checked";
	if (err)
		standin_fail(m, err, "destination PF refused the VF's state (%s): %d",
			     apply ? "import" : "check", err);
	return err;
}

/*
 * RESUMING -> STOP: the stream as the destination host receives it, parsed
 * strictly and matched against the area, and the destination PF asked
 * whether the PF section fits, all before the source's VF is reset.
 */
static void standin_load_end(struct standin_mig *m)
{
	struct compsc_ident id;
	int err;

	compsc_host_ident(m->sv->pdev, &id);
	err = compsc_host_load(&m->area, m->sv->stream, m->sv->stream_len, &id,
			       &m->view);
	if (err == -COMPSC_EMISMATCH) {
		standin_fail(m, -EINVAL, "stream does not match the area's lists");
		return;
	}
	if (err) {
		standin_fail(m, compsc_errno(err),
			     "destination refused the stream at byte %u: %s",
			   m->view.err_offset, compsc_strerror(err));
		return;
	}
	if (!standin_load_pf(m, false))
		m->dst.ctx |= COMPSC_MIG_C_LOADED;
}

/*
 * hostile_area=1: a guest that turned its area hostile after registering
 * it, as the guest itself could: the register count raised past the
 * list's capacity, a list that would index past the area. The host's
 * check must refuse it before anything is taken; the area stays so until
 * the driver registers a new one.
 */
static void standin_spoil_area(struct standin_vf *sv)
{
	struct compsc_area_hdr *h;
	u64 gpa;
	u32 size;

	h = standin_area_remap(sv->pdev, &gpa, &size, NULL, 0);
	if (IS_ERR(h))
		return;
	if (size >= sizeof(*h))
		WRITE_ONCE(h->reg_count, cpu_to_le16(0xffff));
	memunmap(h);
}

/*
 * bad_rx_head=1: a hostile or broken host that saved RX queue 0's head one
 * past the tail the driver had given the device, where no device gets. The
 * guest must refuse to shift its ring onto descriptors it never posted.
 */
static void standin_spoil_rx_head(struct standin_mig *m)
{
	__le64 *saved = compsc_host_sec(m->area.va, m->area.hdr.saved_off);
	u32 i;

	if (!m->rx_count)	/* queue 0 had no ring: nothing to spoil */
		return;
	for (i = 0; i < m->area.lists.nr_regs; i++) {
		if (le32_to_cpu(m->area.lists.regs[i].offset) !=
		    m->dev.dm->rx0_head)
			continue;
		m->res->bad_rx_head = (m->rx_tail + 1) % m->rx_count;
		WRITE_ONCE(saved[i], cpu_to_le64(m->res->bad_rx_head));
	}
}

/*
 * RUNNING_P2P -> RUNNING with a loaded stream: the PF section imported
 * (after the PF handled the reset: it drops the VF's filters then), the
 * saved state into the area, the hand-over, release with a bump. The
 * replay log needs no copy: in the bench the guest's memory, log
 * included, is already where it belongs.
 */
static void standin_give(struct standin_mig *m)
{
	struct compsc_area_ctl *ctl = compsc_host_ctl(&m->area);
	int err;

	if (standin_load_pf(m, true))
		return;
	compsc_host_give(&m->area, &m->view, true, m->req->copied);
	if (m->req->bad_rx_head)
		standin_spoil_rx_head(m);
	m->res->mem_copied = m->req->copied;
	m->res->host_config = compsc_host_vf_handover(m->sv->pdev,
						      m->pf_whole,
						      m->area.gpa,
						      m->area.size, ctl);
	standin_blackout(m);
	/*
	 * The guest runs through the blackout: one held past its bound took
	 * its device back, and this hand-over would restore it from a state
	 * it has moved on from. Failed instead: the VF was reset under it, so
	 * the walk releases it as lost (standin_give_lost()).
	 */
	err = compsc_host_held(&m->area);
	if (err) {
		standin_fail(m, compsc_errno(err),
			     "the guest took its device back during the blackout: not handed over");
		return;
	}
	compsc_writer_release(ctl);
	m->res->hold_ns = ktime_get_ns() - m->t_acquired;
	/* the source's hold ended with the destination's release */
	m->src.ctx &= ~COMPSC_MIG_C_HELD;
	m->dst.ctx &= ~COMPSC_MIG_C_LOADED;
	standin_kick_guest(m->sv->pdev);
}

/*
 * The VF was reset for the destination and then the reset or the give
 * failed: released with a bump and no state, the guest resets and
 * replays. The source's hold ends here; its walk back gives nothing back.
 */
static void standin_give_lost(struct standin_mig *m)
{
	compsc_host_give_lost(&m->area, -COMPSC_ENOSTATE);
	m->res->hold_ns = ktime_get_ns() - m->t_acquired;
	m->src.ctx &= ~COMPSC_MIG_C_HELD;
	m->dst.ctx &= ~COMPSC_MIG_C_LOADED;
	standin_kick_guest(m->sv->pdev);
}

/* ---- the arcs ------------------------------------------------------------------ */

/* Carry out @actions (COMPSC_MIG_A_*) in their documented order. */
static void standin_do(struct standin_mig *m, u32 actions)
{
	if (actions & COMPSC_MIG_A_TAKE)
		standin_take(m);
	if (actions & COMPSC_MIG_A_SAVE)
		standin_save(m);
	/* SAVE_FAIL: nothing held; the take already said why */
	if (actions & COMPSC_MIG_A_ABORT)
		standin_abort(m);
	if (actions & COMPSC_MIG_A_LOAD_END)
		standin_load_end(m);
	if (actions & COMPSC_MIG_A_GIVE)
		standin_give(m);
}

/* One arc of side @s; a failed load or give leaves it in ERROR. */
static void standin_arc(struct standin_mig *m, struct standin_side *s, u32 to)
{
	int err_before = m->err;
	u32 actions = 0;

	if (WARN_ON(compsc_mig_arc(s->state, to, s->ctx, &actions)))
		return;
	standin_do(m, actions);
	if (m->err && !err_before &&
	    (actions & (COMPSC_MIG_A_LOAD_END | COMPSC_MIG_A_GIVE)))
		to = COMPSC_MIG_ERROR;
	s->state = to;
}

/* Walk side @s through @path (a list of states ending in -1). */
static void standin_walk(struct standin_mig *m, struct standin_side *s,
			 const int *path)
{
	for (; *path >= 0 && s->state != COMPSC_MIG_ERROR; path++)
		if (s->state != (u32)*path)
			standin_arc(m, s, *path);
}

static const int standin_src_save[] = {
	COMPSC_MIG_RUNNING_P2P, COMPSC_MIG_STOP, COMPSC_MIG_STOP_COPY, -1
};
static const int standin_src_done[] = { COMPSC_MIG_STOP, -1 };
static const int standin_src_resume[] = {
	COMPSC_MIG_STOP, COMPSC_MIG_RUNNING_P2P, COMPSC_MIG_RUNNING, -1
};
static const int standin_dst_load[] = {
	COMPSC_MIG_RESUMING, COMPSC_MIG_STOP, -1
};
static const int standin_dst_run[] = {
	COMPSC_MIG_RUNNING_P2P, COMPSC_MIG_RUNNING, -1
};

/* The source's VF becomes the destination's fresh device. */
static void standin_reset_vf(struct standin_mig *m)
{
	u64 t = ktime_get_ns();
	int err;

	m->dev.stopped = false;	/* nothing left to restart after this */
	err = standin_reset(m->sv, m->req->reset, m->res);
	m->res->reset_ns = ktime_get_ns() - t;
	if (err && !m->err)
		m->err = err;
}

static void standin_arcs(struct standin_mig *m)
{
	m->src.state = COMPSC_MIG_RUNNING;
	m->src.ctx = COMPSC_MIG_C_AREA;
	m->dst.state = COMPSC_MIG_STOP;
	m->dst.ctx = COMPSC_MIG_C_AREA;
	standin_walk(m, &m->src, standin_src_save);
	if (!m->err && !m->req->abort)
		standin_walk(m, &m->dst, standin_dst_load);
	if (!m->err && !m->req->abort) {
		standin_walk(m, &m->src, standin_src_done);
		standin_reset_vf(m);
		if (!m->err)
			standin_walk(m, &m->dst, standin_dst_run);
		if (m->err)	/* reset: nothing of the guest's state is left */
			standin_give_lost(m);
	}
	if (m->err || m->req->abort)	/* the source keeps its device */
		standin_walk(m, &m->src, standin_src_resume);
}

/*
 * pf_import=unfit overflows the destination PF's VLAN table, which only
 * a PF holding fewer filters than a PF section carries lets it do.
 */
static bool standin_unfit_ok(const struct compsc_devmodel *dm)
{
	return dm->pf_vlans < COMPSC_PF_MAX_VLANS;
}

/* ---- the whole migration --------------------------------------------------------- */

static int standin_run(struct standin_mig *m)
{
	struct pci_dev *pdev = m->sv->pdev;
	int err;

	if (m->req->reset == STANDIN_RESET_PF && compsc_host_pf_forget(pdev, true)) {
		snprintf(m->res->msg, sizeof(m->res->msg),
			 "PF driver cannot reset the VF's state");
		return -EOPNOTSUPP;
	}
	if (m->req->pf_import == STANDIN_PF_UNFIT && !standin_unfit_ok(m->sv->dm)) {
		snprintf(m->res->msg, sizeof(m->res->msg),
			 "pf_import=unfit: the %s's PF holds %u VLAN filters, a PF section at most %u",
			 m->sv->dm->name, m->sv->dm->pf_vlans, COMPSC_PF_MAX_VLANS);
		return -EOPNOTSUPP;
	}
	if (m->req->hostile_area)
		standin_spoil_area(m->sv);
	err = standin_area_map(m->sv, &m->area, m->res);
	if (err)
		return err;
	m->res->nr_regs = m->area.lists.nr_regs;
	m->res->nr_counters = m->area.lists.nr_ctrs;
	compsc_host_kenv_init(&m->kenv);
	m->dev.dm = m->sv->dm;
	m->dev.env = &m->kenv.env;
	m->dev.bar = compsc_host_bar_map(pdev, m->dev.dm);
	if (!m->dev.bar) {
		snprintf(m->res->msg, sizeof(m->res->msg), "cannot map BAR0");
		err = -ENOMEM;
		goto out;
	}
	standin_arcs(m);
	err = m->err;
	m->res->version = le64_to_cpu(READ_ONCE(compsc_host_ctl(&m->area)->version));
	pci_iounmap(pdev, m->dev.bar);
out:
	standin_area_unmap(&m->area);
	return err;
}

/**
 * standin_migrate() - run one migration of @sv as described by @req
 * @sv: the VF
 * @req: blackout, reset kind, abort, reader timeout
 *
 * The device lock keeps the VF's driver bound (and its area allocated) for
 * the whole migration. The result lands in @sv->result, the stream in
 * @sv->stream; the caller holds @sv->lock.
 *
 * Return: 0 (migrated, or aborted on request) or -errno.
 */
int standin_migrate(struct standin_vf *sv, const struct standin_req *req)
{
	struct standin_mig *m;
	int err;

	lockdep_assert_held(&sv->lock);
	memset(&sv->result, 0, sizeof(sv->result));
	sv->result.pf_forget = "no";
	sv->result.pf_vflr = "no";
	sv->result.pf_import = "no";
	sv->result.bad_rx_head = -1;
	sv->stream_len = 0;
	m = kvzalloc(sizeof(*m), GFP_KERNEL);
	if (!m) {
		sv->result.err = -ENOMEM;
		return -ENOMEM;
	}
	m->sv = sv;
	m->req = req;
	m->res = &sv->result;
	device_lock(&sv->pdev->dev);
	err = standin_run(m);
	device_unlock(&sv->pdev->dev);
	kvfree(m);
	sv->result.err = err;
	sv->nr_migrations++;
	return err;
}
