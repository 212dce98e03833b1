// SPDX-License-Identifier: GPL-2.0
/*
 * The device state, as the protocol moves it: take the device from the
 * guest (write side, queues stopped), save it into envelope + stream, check
 * what a destination received, hand it over (saved values into the area,
 * version bump, release, interrupt), or give it back without a bump.
 */
#include <linux/ktime.h>
#include <linux/pci.h>
#include <linux/slab.h>
#include <compsc/kernel.h>
#include <compsc/migstate.h>
#include <compsc/precopy.h>
#include "compsc_vfio.h"

/* ---- source: take and give back ---------------------------------------- */

/*
 * The write side (bounded) on the checked area @a, then the queues stopped;
 * not held if the guest withdrew @a meanwhile.
 */
static int __cvf_take(struct cvf_dev *cvf, struct cvf_area *a)
{
	int err;

	compsc_host_kenv_init(&cvf->kenv);
	cvf->dev.env = &cvf->kenv.env;
	err = compsc_host_take_registered(cvf_pdev(cvf), &a->h, &cvf->dev,
					  (u64)cvf_take_timeout_ms * NSEC_PER_MSEC);
	if (err) {
		dev_warn(&cvf_pdev(cvf)->dev, "cannot take the device: %s\n",
			 compsc_strerror(err));
		return compsc_errno(err);
	}
	return 0;
}

/*
 * Only a migration whose dirty pages come from this device's DMA log can be
 * made correct. Pinning the area (the take below) puts vfio_iommu_type1
 * into reporting pinned pages only, for good: QEMU reading the IOMMU's
 * bitmap instead of our log (x-device-dirty-page-tracking=off, a core
 * without log_ops, dma_logging=0) would then never see the receive DMA
 * since its last sync, and the destination would get stale pages.
 */
static int cvf_take_allowed(struct cvf_dev *cvf)
{
	if (cvf->logging)
		return 0;
	dev_err_ratelimited(&cvf_pdev(cvf)->dev,
			    "migration refused: QEMU is not reading this device's DMA log, and without it DMA into guest memory since the last sync would be lost (use a VFIO core with DMA logging, and leave x-device-dirty-page-tracking on)\n");
	return -EOPNOTSUPP;
}

/**
 * cvf_take() - RUNNING -> RUNNING_P2P: take the device from the guest
 * @cvf: the device; state_mutex held
 *
 * The area is validated (header, register and counter lists against the
 * device model's policy) before anything is written to it: a hostile area is
 * refused and the device stays the guest's. So is a migration without
 * this device's DMA log (cvf_take_allowed()), and one whose log does not
 * track the area or a ring (cvf_log_covers(); the rings once held, when
 * they can no longer move).
 *
 * Return: 0 (held) or -errno (not held, nothing changed).
 */
int cvf_take(struct cvf_dev *cvf)
{
	struct cvf_area *a;
	u32 size;
	u64 gpa;
	int err;

	if (compsc_vf_area_get(cvf_pdev(cvf), &gpa, &size))
		return -ENOENT;
	err = cvf_take_allowed(cvf);
	if (!err)
		err = cvf_log_covers(cvf, "the guest's area", gpa, size);
	if (err)
		return err;
	a = cvf_area_get(cvf, gpa, size);
	if (IS_ERR(a))
		return PTR_ERR(a);
	cvf_fault_take_delay(cvf);
	/*
	 * Held across the readers' bounded drain too: a reset or a memory
	 * disable waits for the take (take_timeout_ms at most), never the
	 * other way round.
	 */
	err = cvf_bar_get(cvf);
	if (err)
		goto out_put;
	err = __cvf_take(cvf, a);
	cvf_bar_put(cvf);
	if (err)
		goto out_put;
	cvf->area = a;
	cvf->ctx |= COMPSC_MIG_C_HELD;
	err = cvf_log_covers_rings(cvf);
	if (err)
		cvf_giveback(cvf);
	return err;
out_put:
	cvf_area_put(cvf, a);
	return err;
}

/**
 * cvf_giveback() - the source keeps its device: queues restarted, write
 * side released without a version bump, an interrupt so the guest goes on
 * at once
 * @cvf: the device; state_mutex held, device held
 *
 * After a reset of the VF (cvf_reset_seen()) only the write side is
 * released: the reset cleared the queue enables, and writing back the
 * ones the take saved would start a function-level-reset VF's queues on
 * rings it no longer knows; the guest driver finds the reset on its own.
 * So too when BAR0 cannot be accessed (memory disabled, D3), and when the
 * last fd closes (cvf_close_device()): there is no guest to go on, often
 * one that migrated away, and restarted queues would DMA into its memory,
 * which in no-IOMMU mode may already be freed, until the core's reset.
 * A guest that took its device back during the hold (COMPSC_HOLD_MAX_MS)
 * keeps it as it is: nothing is written and no interrupt raised.
 */
void cvf_giveback(struct cvf_dev *cvf)
{
	/* never after a reset: the VF's queues are the reset's (below) */
	bool bar = !cvf->in_reset && !cvf->closing && !cvf_bar_get(cvf);
	bool taken_back;

	/* checked under memory_lock: a reset since then comes after us */
	if (bar && cvf_reset_seen(cvf)) {
		cvf_bar_put(cvf);
		bar = false;
	}
	if (!bar)
		cvf->dev.stopped = false;	/* nothing we may restart */
	if (cvf->closing)
		dev_info(&cvf_pdev(cvf)->dev,
			 "closed while held (its VM migrated away or quit): queues left stopped\n");
	taken_back = compsc_host_giveback(&cvf->area->h, &cvf->dev, 0);
	if (taken_back)
		dev_warn(&cvf_pdev(cvf)->dev,
			 "the guest had taken its device back: left as it is\n");
	if (bar) {
		if (!taken_back)
			compsc_host_kick(&cvf->dev, false);
		cvf_bar_put(cvf);
	}
	cvf->ctx &= ~COMPSC_MIG_C_HELD;
	cvf_area_put(cvf, cvf->area);
	cvf->area = NULL;
	cvf->data_len = 0;
}

/* ---- a paused VM ---------------------------------------------------------- */

/**
 * cvf_pause() - RUNNING -> RUNNING_P2P without a migration (QMP stop): the
 * VF's PF stops all of its DMA
 * @cvf: the device; state_mutex held
 *
 * The vCPUs are already stopped, maybe inside the guest driver's read side
 * and half-way through a register sequence, so nothing here waits for the
 * guest or writes the VF's registers: the PF turns the VF's pool off
 * (compsc_pf_ops.vf_pause). A PF that cannot leaves the VF running: said
 * once per pause, the VM's stop goes on.
 */
void cvf_pause(struct cvf_dev *cvf)
{
	int err = compsc_host_pf_pause(cvf_pdev(cvf), true);

	if (err) {
		dev_warn(&cvf_pdev(cvf)->dev,
			 "the PF cannot pause this VF (%d): its DMA goes on while the VM is stopped\n",
			 err);
		return;
	}
	cvf->ctx |= COMPSC_MIG_C_PAUSED;
}

/**
 * cvf_unpause() - the VM runs again: the PF gives the VF its DMA back as it
 * was; the guest finds its rings, registers and version untouched
 * @cvf: the device; state_mutex held
 *
 * Not when a reset of the VF is acted on or the last fd closes: the reset
 * (vfio-pci resets the VF at close too) ends the pause in the PF, and
 * enables given back before it would let a dead VM's queues DMA.
 */
void cvf_unpause(struct cvf_dev *cvf)
{
	int err = 0;

	if (!(cvf->ctx & COMPSC_MIG_C_PAUSED))
		return;
	if (!cvf->in_reset && !cvf->closing)
		err = compsc_host_pf_pause(cvf_pdev(cvf), false);
	if (err)
		dev_err(&cvf_pdev(cvf)->dev,
			"the PF did not give the VF its DMA back: %d\n", err);
	cvf->ctx &= ~COMPSC_MIG_C_PAUSED;
}

/* ---- source: save -------------------------------------------------------- */

/* What a save needs besides the stream buffer. */
struct cvf_save {
	struct compsc_host_save host;
	struct compsc_rec_counter stats[COMPSC_HOST_MAX_STATS];
	u32 base[COMPSC_HOST_MAX_STATS];
	struct compsc_pf_vf_state pf;
	struct compsc_pf_vf_xstate pf_ext;
};

/* This driver's envelope of a @kind chunk whose stream is @len bytes. */
static int cvf_env_fill(u8 *out, u16 kind, const struct cvf_area *a, int len)
{
	struct cvf_env *env = (void *)out;

	if (len < 0)
		return compsc_errno(len);
	memset(env, 0, sizeof(*env));
	env->magic = cpu_to_le32(CVF_ENV_MAGIC);
	env->version = cpu_to_le16(CVF_ENV_VERSION);
	env->kind = cpu_to_le16(kind);
	env->area_gpa = cpu_to_le64(a->h.gpa);
	env->area_size = cpu_to_le32(a->h.size);
	env->stream_len = cpu_to_le32(len);
	env->crc32c = cpu_to_le32(compsc_crc32c(0, env,
						offsetof(struct cvf_env, crc32c)));
	return sizeof(*env) + len;
}

/*
 * The stream (the shared host side builds it) after this driver's
 * envelope: where the area lives in guest memory, which the destination
 * host cannot learn otherwise. After a pre-copy chunk the configuration
 * goes again only if it changed (compsc/precopy.h).
 */
static int cvf_build(struct cvf_dev *cvf, struct cvf_save *s, u8 *out)
{
	struct cvf_area *a = cvf->area;
	struct compsc_ident id;
	int len;

	if (cvf->pre) {
		s->host.pre = cvf->pre + sizeof(struct cvf_env);
		s->host.pre_len = cvf->pre_len - sizeof(struct cvf_env);
	}
	compsc_host_ident(cvf_pdev(cvf), &id);
	len = compsc_host_save(&a->h, &cvf->dev, &id, &s->host,
			       out + sizeof(struct cvf_env),
			       COMPSC_HOST_STREAM_MAX);
	cvf->tl.config_resent = s->host.config_sent;
	return cvf_env_fill(out, CVF_ENV_STATE, a, len);
}

/*
 * The PF's sections, if it exports: outside memory_lock, as the PF's ops
 * take RTNL. -ENODEV: its driver went away meanwhile, and the save fails
 * rather than carry a state without them.
 */
static int cvf_save_pf(struct cvf_dev *cvf, struct cvf_save *s)
{
	int ret = compsc_host_pf_export(cvf_pdev(cvf), &s->pf, &s->pf_ext);

	if (ret < 0)
		return ret;
	s->host.pf = ret ? &s->pf : NULL;
	s->host.pf_ext = ret > 1 ? &s->pf_ext : NULL;
	return 0;
}

/* The optional sections read from BAR0: host counters (if on). */
static int cvf_save_sections(struct cvf_dev *cvf, struct cvf_save *s)
{
	cvf->dev.stat_base = cvf_stats_base(cvf, s->base);
	if (cvf_stats_sent(cvf)) {
		compsc_host_read_stats(&cvf->dev, s->stats);
		s->host.stats = s->stats;
		s->host.nr_stats = cvf->dev.dm->nr_stats;
	}
	s->host.replay = kvmalloc(compsc_host_replay_bytes(&cvf->area->h),
				  GFP_KERNEL);
	return s->host.replay ? 0 : -ENOMEM;
}

/**
 * cvf_save() - STOP -> STOP_COPY: the device state as QEMU will carry it
 * @cvf: the device; state_mutex held, device held
 * @buf: gets the data (kvmalloc'ed, the caller owns it)
 * @len: gets its length
 *
 * The vCPUs are stopped: a guest that has not taken its device back by
 * now cannot until the migration is over. One that has (a hold past
 * COMPSC_HOLD_MAX_MS of its running time, e.g. hold_ms=0 and a long
 * pre-copy) has used and changed the device since the take: what this
 * host would save is stale, and restored at the destination it would
 * corrupt the guest's state without a word. The save fails instead.
 *
 * Return: 0 or -errno (-ETIMEDOUT: the guest took its device back).
 */
int cvf_save(struct cvf_dev *cvf, u8 **buf, size_t *len)
{
	struct cvf_save *s;
	int ret;

	ret = compsc_host_held(&cvf->area->h);
	if (ret) {
		dev_err(&cvf_pdev(cvf)->dev,
			"the guest took its device back during the hold (over %u s with its vCPUs running): its state here is stale, not saved; the migration fails, the guest keeps its device\n",
			COMPSC_HOLD_MAX_MS / 1000);
		return compsc_errno(ret);
	}
	s = kvzalloc(sizeof(*s), GFP_KERNEL);
	*buf = kvzalloc(CVF_DATA_MAX, GFP_KERNEL);
	ret = -ENOMEM;
	if (!s || !*buf)
		goto out;
	ret = cvf_save_pf(cvf, s);
	if (ret)
		goto out;
	/* the registers and statistics are read from BAR0 */
	ret = cvf_bar_get(cvf);
	if (ret)
		goto out;
	ret = cvf_save_sections(cvf, s);
	if (!ret)
		ret = cvf_build(cvf, s, *buf);
	cvf_bar_put(cvf);
	cvf->dev.stat_base = NULL;	/* s->base goes away */
	if (ret > 0) {
		*len = ret;
		cvf_fault_corrupt(cvf, CVF_FAULT_STATE, *buf, *len);
		ret = 0;
	}
out:
	if (s)
		kvfree(s->host.replay);
	kvfree(s);
	if (ret) {
		kvfree(*buf);
		*buf = NULL;
		dev_err(&cvf_pdev(cvf)->dev, "cannot save the device: %d\n", ret);
	}
	return ret;
}

/*
 * The configuration as pre-copy data, read with the guest running: the
 * PF's export (under the PF's own locks) and the replay log from a
 * checked copy of the live area (compsc_host_save_config()).
 */
static int cvf_build_pre(struct cvf_dev *cvf, struct cvf_area *a,
			 struct cvf_save *s, u8 *out)
{
	struct compsc_ident id;
	int ret;

	ret = compsc_host_pf_export(cvf_pdev(cvf), &s->pf, &s->pf_ext);
	if (ret < 0)
		return ret;
	s->host.pf = ret ? &s->pf : NULL;
	s->host.pf_ext = ret > 1 ? &s->pf_ext : NULL;
	s->host.replay = kvmalloc(compsc_host_replay_bytes(&a->h), GFP_KERNEL);
	if (!s->host.replay)
		return -ENOMEM;
	compsc_host_ident(cvf_pdev(cvf), &id);
	ret = compsc_host_save_config(&a->h, &id, &s->host,
				      out + sizeof(struct cvf_env),
				      COMPSC_PRECOPY_MAX);
	return cvf_env_fill(out, CVF_ENV_PRE, a, ret);
}

/**
 * cvf_save_pre() - RUNNING -> PRE_COPY: the VF's configuration as the
 * pre-copy chunk, the guest running and its device not taken
 * @cvf: the device; state_mutex held (the area is pinned meanwhile)
 * @buf: gets the chunk (kvmalloc'ed, the caller owns it)
 * @len: gets its length
 *
 * Return: 0 or -errno (no pre-copy data: the stop-copy chunk then carries
 * the configuration, as without pre-copy).
 */
int cvf_save_pre(struct cvf_dev *cvf, u8 **buf, size_t *len)
{
	struct cvf_save *s;
	struct cvf_area *a;
	u32 size;
	u64 gpa;
	int ret;

	if (compsc_vf_area_get(cvf_pdev(cvf), &gpa, &size))
		return -ENOENT;
	/*
	 * The area is pinned only as the take would pin it: for a migration
	 * that reads this device's DMA log, which tracks the area (see
	 * cvf_take_allowed(); the take says why it refuses the others)
	 */
	if (!cvf->logging || compsc_host_log_covers(cvf->log_ranges,
						    cvf->log_nr, gpa, size))
		return -EOPNOTSUPP;
	a = cvf_area_get(cvf, gpa, size);
	if (IS_ERR(a))
		return PTR_ERR(a);
	s = kvzalloc(sizeof(*s), GFP_KERNEL);
	*buf = kvzalloc(CVF_PRE_MAX, GFP_KERNEL);
	ret = -ENOMEM;
	if (s && *buf)
		ret = cvf_build_pre(cvf, a, s, *buf);
	if (s)
		kvfree(s->host.replay);
	kvfree(s);
	cvf_area_put(cvf, a);
	if (ret < 0) {
		kvfree(*buf);
		*buf = NULL;
		return ret;
	}
	*len = ret;
	cvf_fault_corrupt(cvf, CVF_FAULT_PRE, *buf, *len);
	return 0;
}

/* What QEMU should expect: exact once saved, else a bound from the area. */
size_t cvf_data_size(struct cvf_dev *cvf)
{
	if (cvf->data_len)
		return cvf->data_len;
	return sizeof(struct cvf_env) +
	       compsc_host_save_bound(cvf->area ? &cvf->area->h : NULL,
				      cvf_stats_sent(cvf) ?
				      cvf->dev.dm->nr_stats : 0);
}

/* ---- destination: check and hand over ---------------------------------- */

/* The envelope, strictly: where the stream says the guest's area is. */
static int cvf_env_parse(struct cvf_dev *cvf, const u8 *buf, size_t len,
			 u16 kind, u64 *gpa, u32 *size)
{
	const struct cvf_env *env = (const void *)buf;

	if (len < sizeof(*env) || le32_to_cpu(env->magic) != CVF_ENV_MAGIC ||
	    le16_to_cpu(env->version) != CVF_ENV_VERSION ||
	    compsc_crc32c(0, env, offsetof(struct cvf_env, crc32c)) !=
	    le32_to_cpu(env->crc32c) || le16_to_cpu(env->kind) != kind ||
	    env->rsvd1 ||
	    len != sizeof(*env) + le32_to_cpu(env->stream_len)) {
		dev_err(&cvf_pdev(cvf)->dev, "foreign or corrupt device state\n");
		return -EINVAL;
	}
	*gpa = le64_to_cpu(env->area_gpa);
	*size = le32_to_cpu(env->area_size);
	return 0;
}

/* The kind of the chunk at @buf (its envelope checked later), or -EINVAL. */
int cvf_env_kind(const u8 *buf, size_t len)
{
	const struct cvf_env *env = (const void *)buf;

	return len < sizeof(*env) ? -EINVAL : le16_to_cpu(env->kind);
}

/* The pre-copy chunk @buf, parsed strictly into @v (pointing into it). */
static int cvf_pre_parse(struct cvf_dev *cvf, const u8 *buf, size_t len,
			 struct compsc_stream_view *v)
{
	struct compsc_ident id;
	u32 size;
	u64 gpa;
	int err;

	err = cvf_env_parse(cvf, buf, len, CVF_ENV_PRE, &gpa, &size);
	if (err)
		return err;
	compsc_host_ident(cvf_pdev(cvf), &id);
	err = compsc_precopy_load(buf + sizeof(struct cvf_env),
				  len - sizeof(struct cvf_env), &id, v);
	if (err)
		dev_err(&cvf_pdev(cvf)->dev,
			"pre-copy configuration refused at byte %u: %s\n",
			v->err_offset, compsc_strerror(err));
	return compsc_errno(err);
}

/**
 * cvf_load_pre() - RESUMING: a complete pre-copy chunk came; the PF
 * configures the VF with it now, while the VM still runs on the source
 * @cvf: the device; state_mutex held
 * @buf: envelope + stream
 * @len: bytes
 *
 * Return: 0 or -errno (refused: the load fails, the source keeps its VM).
 */
int cvf_load_pre(struct cvf_dev *cvf, const u8 *buf, size_t len)
{
	struct compsc_stream_view *v;
	int err = -EINVAL;

	lockdep_assert_held(&cvf->state_mutex);
	if (cvf->pre) {
		dev_err(&cvf_pdev(cvf)->dev, "a second pre-copy chunk refused\n");
		return -EINVAL;
	}
	v = kzalloc(sizeof(*v), GFP_KERNEL);
	cvf->pre = kvmemdup(buf, len, GFP_KERNEL);
	if (v && cvf->pre)
		err = cvf_pre_parse(cvf, cvf->pre, len, v);
	else
		err = -ENOMEM;
	if (!err)
		err = cvf_mac_check(cvf, v);
	if (!err)
		err = compsc_host_pf_apply(cvf_pdev(cvf), v, true);
	kfree(v);
	if (err < 0) {
		cvf_pre_forget(cvf);
		return err;
	}
	cvf->pre_len = len;
	cvf->pre_whole = err;
	cvf->pre_applied = true;
	cvf->tl.pre_ns = ktime_get_ns();
	cvf->tl.pre_bytes = len;
	dev_info(&cvf_pdev(cvf)->dev,
		 "pre-copy configuration applied (%zu bytes)\n", len);
	return 0;
}

/**
 * cvf_pre_forget() - this migration's pre-copy chunk goes; a destination
 * VF that was configured from it and never handed over goes back to what
 * a fresh PF holds for it (not while a reset is acted on: as for the
 * give-back, the VF is then the reset's)
 * @cvf: the device; state_mutex held
 */
void cvf_pre_forget(struct cvf_dev *cvf)
{
	if (cvf->pre_applied && !cvf->in_reset &&
	    !compsc_host_pf_forget(cvf_pdev(cvf), false))
		dev_info(&cvf_pdev(cvf)->dev,
			 "no hand-over: the pre-copy configuration withdrawn\n");
	cvf->pre_applied = false;
	kvfree(cvf->pre);
	cvf->pre = NULL;
	cvf->pre_len = 0;
}

/*
 * The stop-copy stream @v completed with the pre-copy configuration it
 * names. Return: 1 (taken from pre-copy), 0 (its own) or -COMPSC_E*.
 */
static int cvf_pre_merge(struct cvf_dev *cvf, struct compsc_stream_view *v)
{
	const u8 *pre = cvf->pre ? cvf->pre + sizeof(struct cvf_env) : NULL;
	u32 len = cvf->pre ? cvf->pre_len - sizeof(struct cvf_env) : 0;
	struct compsc_stream_view *pv;
	struct compsc_ident id;
	int err;

	pv = kzalloc(sizeof(*pv), GFP_KERNEL);
	if (!pv)
		return -COMPSC_ENOSPC;
	compsc_host_ident(cvf_pdev(cvf), &id);
	if (pre && compsc_precopy_load(pre, len, &id, pv))
		pre = NULL;	/* cannot happen: it was checked on arrival */
	err = compsc_precopy_merge(v, pre, len, pre ? pv : NULL);
	kfree(pv);
	return err;
}

/* Say once why a stop-copy stream was refused. */
static void cvf_load_refused(struct cvf_dev *cvf,
			     const struct compsc_stream_view *v, int err)
{
	if (err == -COMPSC_EMISMATCH)
		dev_err(&cvf_pdev(cvf)->dev,
			"stream does not match the guest's area\n");
	else if (err == -COMPSC_EPRECOPY)
		dev_err(&cvf_pdev(cvf)->dev, "stream refused: %s\n",
			compsc_strerror(err));
	else
		dev_err(&cvf_pdev(cvf)->dev, "stream refused at byte %u: %s\n",
			v->err_offset, compsc_strerror(err));
}

/*
 * Envelope, the area it names (mapped and checked in this VM's memory),
 * then the stream parsed strictly, matched against that area and
 * completed with the pre-copy configuration it names (*@early: 1 if so).
 * @v points into @buf (and the pre-copy chunk) afterwards; the caller puts
 * the area.
 */
static struct cvf_area *cvf_load_area(struct cvf_dev *cvf, const u8 *buf,
				      size_t len, struct compsc_stream_view *v,
				      int *early)
{
	struct compsc_ident id;
	struct cvf_area *a;
	u32 size;
	u64 gpa;
	int err;

	err = cvf_env_parse(cvf, buf, len, CVF_ENV_STATE, &gpa, &size);
	if (err)
		return ERR_PTR(err);
	a = cvf_area_get(cvf, gpa, size);
	if (IS_ERR(a))
		return a;
	compsc_host_ident(cvf_pdev(cvf), &id);
	err = compsc_host_load(&a->h, buf + sizeof(struct cvf_env),
			       len - sizeof(struct cvf_env), &id, v);
	*early = err ? 0 : cvf_pre_merge(cvf, v);
	if (*early < 0)
		err = *early;
	if (err) {
		cvf_load_refused(cvf, v, err);
		cvf_area_put(cvf, a);
		return ERR_PTR(compsc_errno(err));
	}
	return a;
}

/**
 * cvf_load_check() - a destination received @len bytes: may it resume?
 * @cvf: the device (only read; called from the data fd's write);
 *	state_mutex held: the area is pinned while it is checked
 * @buf: envelope + stream
 * @len: bytes
 *
 * Strict parse, the area the stream names checked in this VM's memory and
 * matched, the PF asked whether the VF's PF state fits.
 *
 * Return: 0 or -errno.
 */
int cvf_load_check(struct cvf_dev *cvf, const u8 *buf, size_t len)
{
	struct compsc_stream_view *v;
	struct cvf_area *a;
	int err, early;

	lockdep_assert_held(&cvf->state_mutex);
	v = kzalloc(sizeof(*v), GFP_KERNEL);
	if (!v)
		return -ENOMEM;
	a = cvf_load_area(cvf, buf, len, v, &early);
	err = PTR_ERR_OR_ZERO(a);
	if (!err) {
		cvf_area_put(cvf, a);
		err = cvf_stats_check(cvf, v);
	}
	if (!err)
		err = cvf_mac_check(cvf, v);
	if (!err)
		err = compsc_host_pf_apply(cvf_pdev(cvf), v, false);
	kfree(v);
	return err;
}

/*
 * The hand-over failed, after the source's take travelled HELD in the
 * guest's area: the guest must still get its device back, as a fresh one
 * it resets and configures (compsc_host_give_lost()). With the area not
 * mapped (the mapping was what failed) it is mapped once more from the
 * envelope alone; should that fail too, only the guest's own bound on a
 * hold (COMPSC_HOLD_MAX_MS) gives it back.
 */
static void cvf_give_lost(struct cvf_dev *cvf, struct cvf_area *a, int err,
			  u32 fault)
{
	struct cvf_area *again = NULL;
	u32 size;
	u64 gpa;

	if (!a && fault != CVF_FAULT_GIVE_NOMAP &&
	    !cvf_env_parse(cvf, cvf->loaded, cvf->loaded_len, CVF_ENV_STATE,
			   &gpa, &size)) {
		again = cvf_area_get(cvf, gpa, size);
		a = IS_ERR(again) ? NULL : again;
	}
	if (!a) {
		dev_err(&cvf_pdev(cvf)->dev,
			"hand-over failed (%d) and the guest's area is out of reach: the guest takes its device back after %u s\n",
			err, COMPSC_HOLD_MAX_MS / 1000);
		return;
	}
	compsc_host_give_lost(&a->h, -COMPSC_ENOSTATE);
	dev_err(&cvf_pdev(cvf)->dev,
		"hand-over failed (%d): the guest gets its device back to reset and configure\n",
		err);
	if (!IS_ERR_OR_NULL(again))
		cvf_area_put(cvf, again);
}

/* @fault: the step of this hand-over that fails (fault.h; 0 but in tests) */
static int cvf_give_pf(struct cvf_dev *cvf, int early, u32 fault)
{
	if (fault == CVF_FAULT_GIVE_PF) {
		dev_warn(&cvf_pdev(cvf)->dev, "fault_give: PF import refused\n");
		return -ENOSPC;
	}
	return early && cvf->pre_applied ? cvf->pre_whole :
	       compsc_host_pf_apply(cvf_pdev(cvf), &cvf->view, true);
}

static struct cvf_area *cvf_give_area(struct cvf_dev *cvf, int *early,
				      u32 fault)
{
	if (fault == CVF_FAULT_GIVE_MAP || fault == CVF_FAULT_GIVE_NOMAP) {
		dev_warn(&cvf_pdev(cvf)->dev, "fault_give: area not mapped\n");
		return ERR_PTR(-ENOMEM);
	}
	return cvf_load_area(cvf, cvf->loaded, cvf->loaded_len, &cvf->view,
			     early);
}

/**
 * cvf_give() - RUNNING_P2P -> RUNNING on the destination: the loaded state
 * goes into the area, the PF takes the VF-in-PF state, the version is
 * bumped, the write side released and the VF's interrupts raised.
 * @cvf: the device; state_mutex held, a checked stream loaded
 *
 * Whatever fails, the guest gets its device back to reset
 * (cvf_give_lost()): QEMU resets the VF and starts the vCPUs anyway.
 *
 * Return: 0 or -errno (the device then goes to ERROR).
 */
int cvf_give(struct cvf_dev *cvf)
{
	u32 fault = cvf_fault_give(cvf);
	struct compsc_area_ctl *ctl;
	bool host_cfg, whole;
	struct cvf_area *a;
	int err, early;

	a = cvf_give_area(cvf, &early, fault);
	if (IS_ERR(a)) {
		cvf_give_lost(cvf, NULL, PTR_ERR(a), fault);
		return PTR_ERR(a);
	}
	/* 1: the PF holds the VF's whole state, the host may configure it */
	err = cvf_give_pf(cvf, early, fault);
	if (err < 0)
		goto lost;
	whole = err > 0;
	cvf->tl.config_early = early && cvf->pre_applied;
	/*
	 * The PF's reset handshake before memory_lock: the PF's ops take
	 * RTNL, which is never taken under memory_lock. Should the BAR then
	 * fail, the lost hand-over clears the flag it set.
	 */
	ctl = compsc_host_ctl(&a->h);
	host_cfg = compsc_host_vf_handover(cvf_pdev(cvf), whole, a->h.gpa,
					   a->h.size, ctl);
	/* the kick below raises the VF's interrupts */
	err = fault == CVF_FAULT_GIVE_BAR ? -EIO : cvf_bar_get(cvf);
	if (err)
		goto lost;
	compsc_host_give(&a->h, &cvf->view, cvf->logging, true);
	cvf_stats_load(cvf, &cvf->view);
	compsc_writer_release(ctl);
	compsc_host_kick(&cvf->dev, true);
	cvf_bar_put(cvf);
	cvf->tl.give_ns = ktime_get_ns();
	dev_info(&cvf_pdev(cvf)->dev, "device handed to the guest (%s%s)\n",
		 host_cfg ? "configured by the host" : "guest restores its configuration",
		 cvf->tl.config_early ? ", from pre-copy" : "");
	cvf->ctx &= ~COMPSC_MIG_C_LOADED;
	cvf->pre_applied = false;	/* the guest's now: keep it */
	err = 0;
	goto out;
lost:
	cvf_give_lost(cvf, a, err, fault);
out:
	cvf_area_put(cvf, a);
	return err;
}
