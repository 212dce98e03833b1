// SPDX-License-Identifier: GPL-2.0
/*
 * The device state, as the protocol moves it: take the device from the
 * guest (write side, queues stopped), save it into envelope + stream, check
 * what a destination received, hand it over (saved values into the area,
 * version bump, release, interrupt), or give it back without a bump.
 */
#include <linux/delay.h>
#include <linux/ktime.h>
#include <linux/pci.h>
#include <linux/slab.h>
#include <linux/smp.h>
#include <compsc/dev_82576vf.h>
#include <compsc/kernel.h>
#include <compsc/migstate.h>
#include "compsc_vfio.h"

/* ---- the writer's environment ------------------------------------------ */

static u64 cvf_now_ns(void *ctx)
{
	return ktime_get_ns();
}

static void cvf_relax(void *ctx)
{
	usleep_range(20, 100);
}

static void cvf_fence_ipi(void *info)
{
	smp_mb();	/* this CPU's earlier stores, a guest vCPU's included */
}

/*
 * The guest's readers are vCPU threads of QEMU on this host's CPUs: an IPI
 * to every CPU is a full barrier on each, so every reader's slot store is
 * visible or the reader will see HELD.
 */
static void cvf_fence_readers(void *ctx)
{
	on_each_cpu(cvf_fence_ipi, NULL, 1);
}

static const struct compsc_env cvf_env_ops = {
	.now_ns = cvf_now_ns,
	.relax = cvf_relax,
	.fence_readers = cvf_fence_readers,
};

static void cvf_ident(struct pci_dev *pdev, struct compsc_ident *id)
{
	id->vendor = pdev->vendor;
	id->device = pdev->device;
	id->subsys_vendor = pdev->subsystem_vendor;
	id->subsys_device = pdev->subsystem_device;
}

/* ---- source: take and give back ---------------------------------------- */

/* Acquire the write side (bounded) on the checked area @a, then stop queues. */
static int __cvf_take(struct cvf_dev *cvf, struct cvf_area *a)
{
	struct compsc_area_ctl *ctl = cvf_area_sec(a, a->hdr.ctl_off);
	int err;

	err = compsc_writer_acquire(ctl, cvf_area_sec(a, a->hdr.slots_off),
				    le16_to_cpu(a->hdr.nr_slots), &cvf_env_ops,
				    (u64)cvf_take_timeout_ms * NSEC_PER_MSEC);
	if (err) {
		dev_warn(&cvf_pdev(cvf)->dev, "cannot take the device: %s\n",
			 compsc_strerror(err));
		return compsc_errno(err);
	}
	/* never saved as the guest's: a device it did not restore yet */
	if (!compsc_writer_device_restored(a->va, ctl)) {
		compsc_writer_abort(ctl);
		dev_warn(&cvf_pdev(cvf)->dev,
			 "guest has not restored the last migration yet\n");
		return -EAGAIN;
	}
	cvf_queues_stop(cvf->bar, cvf->qsaved);
	return 0;
}

/**
 * cvf_take() - RUNNING -> RUNNING_P2P: take the device from the guest
 * @cvf: the device; state_mutex held
 *
 * The area is validated (header, register and counter lists against the
 * 82576 policy) before anything is written to it: a hostile area is
 * refused and the device stays the guest's.
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
	a = cvf_area_get(cvf, gpa, size);
	if (IS_ERR(a))
		return PTR_ERR(a);
	err = -ENOMEM;
	if (!cvf_bar_map(cvf))
		goto out_put;
	err = __cvf_take(cvf, a);
	if (err)
		goto out_put;
	cvf->area = a;
	cvf->ctx |= COMPSC_MIG_C_HELD;
	return 0;
out_put:
	cvf_area_put(cvf, a);
	return err;
}

/**
 * cvf_giveback() - the source keeps its device: queues restarted, write
 * side released without a version bump, an interrupt so the guest goes on
 * at once
 * @cvf: the device; state_mutex held, device held
 */
void cvf_giveback(struct cvf_dev *cvf)
{
	struct cvf_area *a = cvf->area;
	struct compsc_area_ctl *ctl = cvf_area_sec(a, a->hdr.ctl_off);

	cvf_queues_restart(cvf->bar, cvf->qsaved);
	WRITE_ONCE(ctl->host_status, 0);
	compsc_writer_abort(ctl);
	cvf_kick(cvf->bar, false);
	cvf->ctx &= ~COMPSC_MIG_C_HELD;
	cvf_area_put(cvf, a);
	cvf->area = NULL;
	cvf->data_len = 0;
}

/* ---- source: save -------------------------------------------------------- */

struct cvf_save {
	struct compsc_rec_reg regs[COMPSC_MAX_REGS];
	struct compsc_rec_counter ctrs[COMPSC_MAX_COUNTERS];
	struct compsc_rec_counter stats[COMPSC_82576VF_NR_STATS];
	struct compsc_pf_vf_state pf;
	bool has_pf;
	u8 *drv;		/* packed replay log, drv_len bytes */
	u32 drv_len;
};

/* Listed registers (queue controls as before the stop) and counters. */
static void cvf_read_state(struct cvf_dev *cvf, struct cvf_save *s)
{
	const struct compsc_host_override qctl = {
		.offset = compsc_82576vf_qctl,
		.value = cvf->qsaved,
		.nr = COMPSC_82576VF_NR_QCTL,
	};
	struct cvf_area *a = cvf->area;

	compsc_host_read_state(a->va, &a->hdr, &a->lists, cvf->bar, &qctl,
			       s->regs, s->ctrs);
}

/* The replay log, checked on a copy and packed (0 bytes: none formatted). */
static int cvf_pack_replay(struct cvf_area *a, struct cvf_save *s)
{
	u32 room = le32_to_cpu(a->hdr.replay_len);
	int ret;

	s->drv = kvmalloc(2 * (size_t)room + 1, GFP_KERNEL);
	if (!s->drv)
		return -ENOMEM;
	ret = compsc_host_pack_replay(a->va, &a->hdr, s->drv, s->drv + room);
	if (ret < 0)
		return compsc_errno(ret);
	s->drv_len = ret;
	return 0;
}

static int cvf_build(struct cvf_dev *cvf, struct cvf_save *s, u8 *out)
{
	const u16 mand = COMPSC_REC_F_MANDATORY;
	struct cvf_area *a = cvf->area;
	struct cvf_env *env = (void *)out;
	struct compsc_stream_writer w;
	struct compsc_ident id;
	int len;

	cvf_ident(cvf_pdev(cvf), &id);
	compsc_stream_begin(&w, out + sizeof(*env), CVF_STREAM_MAX, &id);
	if (a->lists.nr_regs)
		compsc_stream_add(&w, COMPSC_REC_REGS, mand, s->regs,
				  a->lists.nr_regs * sizeof(s->regs[0]));
	if (a->lists.nr_ctrs)
		compsc_stream_add(&w, COMPSC_REC_COUNTERS, mand, s->ctrs,
				  a->lists.nr_ctrs * sizeof(s->ctrs[0]));
	if (s->drv_len)
		compsc_stream_add(&w, COMPSC_REC_DRIVER, mand, s->drv,
				  s->drv_len);
	if (s->has_pf)
		compsc_stream_add(&w, COMPSC_REC_PF_VF, mand, &s->pf,
				  sizeof(s->pf));
	if (cvf_stats_sent(cvf)) {
		cvf_stats_save(cvf, s->stats);
		compsc_stream_add(&w, COMPSC_REC_HOST_COUNTERS, mand, s->stats,
				  sizeof(s->stats));
	}
	len = compsc_stream_end(&w);
	if (len < 0)
		return compsc_errno(len);
	memset(env, 0, sizeof(*env));
	env->magic = cpu_to_le32(CVF_ENV_MAGIC);
	env->version = cpu_to_le16(CVF_ENV_VERSION);
	env->area_gpa = cpu_to_le64(a->gpa);
	env->area_size = cpu_to_le32(a->size);
	env->stream_len = cpu_to_le32(len);
	env->crc32c = cpu_to_le32(compsc_crc32c(0, env,
						offsetof(struct cvf_env, crc32c)));
	return sizeof(*env) + len;
}

/**
 * cvf_save() - STOP -> STOP_COPY: the device state as QEMU will carry it
 * @cvf: the device; state_mutex held, device held
 * @buf: gets the data (kvmalloc'ed, the caller owns it)
 * @len: gets its length
 *
 * Return: 0 or -errno.
 */
int cvf_save(struct cvf_dev *cvf, u8 **buf, size_t *len)
{
	struct cvf_save *s;
	int ret;

	s = kvzalloc(sizeof(*s), GFP_KERNEL);
	*buf = kvzalloc(CVF_DATA_MAX, GFP_KERNEL);
	ret = -ENOMEM;
	if (!s || !*buf)
		goto out;
	cvf_read_state(cvf, s);
	ret = cvf_pf_export(cvf_pdev(cvf), &s->pf);
	if (ret < 0)
		goto out;
	s->has_pf = ret;
	ret = cvf_pack_replay(cvf->area, s);
	if (!ret)
		ret = cvf_build(cvf, s, *buf);
	if (ret > 0) {
		*len = ret;
		if (cvf_fault_corrupt && *len > sizeof(struct cvf_env) + 40) {
			cvf_fault_corrupt = false;
			(*buf)[sizeof(struct cvf_env) + 40] ^= 0x5a;
			dev_warn(&cvf_pdev(cvf)->dev, "fault_corrupt: stream spoilt\n");
		}
		ret = 0;
	}
out:
	if (s)
		kvfree(s->drv);
	kvfree(s);
	if (ret) {
		kvfree(*buf);
		*buf = NULL;
		dev_err(&cvf_pdev(cvf)->dev, "cannot save the device: %d\n", ret);
	}
	return ret;
}

/* What QEMU should expect: exact once saved, else a bound from the area. */
size_t cvf_data_size(struct cvf_dev *cvf)
{
	struct cvf_area *a = cvf->area;

	if (cvf->data_len)
		return cvf->data_len;
	if (!a)
		return sizeof(struct cvf_env) + sizeof(struct compsc_stream_hdr) +
		       sizeof(struct compsc_rec_hdr) + sizeof(struct compsc_rec_end);
	return sizeof(struct cvf_env) + sizeof(struct compsc_stream_hdr) +
	       5 * sizeof(struct compsc_rec_hdr) +
	       a->lists.nr_regs * sizeof(struct compsc_rec_reg) +
	       a->lists.nr_ctrs * sizeof(struct compsc_rec_counter) +
	       sizeof(struct compsc_pf_vf_state) +
	       le32_to_cpu(a->hdr.replay_len) + sizeof(struct compsc_rec_end) +
	       (cvf_stats_sent(cvf) ? sizeof(struct compsc_rec_hdr) +
		COMPSC_82576VF_NR_STATS * sizeof(struct compsc_rec_counter) : 0);
}

/* ---- destination: check and hand over ---------------------------------- */

/* Envelope and stream, strictly. @v points into @buf afterwards. */
static int cvf_parse(struct cvf_dev *cvf, const u8 *buf, size_t len,
		     struct compsc_stream_view *v, u64 *gpa, u32 *size)
{
	const struct cvf_env *env = (const void *)buf;
	struct compsc_ident id;
	int err;

	if (len < sizeof(*env) || le32_to_cpu(env->magic) != CVF_ENV_MAGIC ||
	    le16_to_cpu(env->version) != CVF_ENV_VERSION ||
	    compsc_crc32c(0, env, offsetof(struct cvf_env, crc32c)) !=
	    le32_to_cpu(env->crc32c) || env->rsvd0 || env->rsvd1 ||
	    len != sizeof(*env) + le32_to_cpu(env->stream_len)) {
		dev_err(&cvf_pdev(cvf)->dev, "foreign or corrupt device state\n");
		return -EINVAL;
	}
	cvf_ident(cvf_pdev(cvf), &id);
	err = compsc_stream_parse(buf + sizeof(*env), len - sizeof(*env), &id,
				  CVF_STREAM_MAX, v);
	if (err) {
		dev_err(&cvf_pdev(cvf)->dev, "stream refused at byte %u: %s\n",
			v->err_offset, compsc_strerror(err));
		return compsc_errno(err);
	}
	*gpa = le64_to_cpu(env->area_gpa);
	*size = le32_to_cpu(env->area_size);
	return 0;
}

/* Parse, map the area the stream names and match; the caller puts it. */
static struct cvf_area *cvf_load_area(struct cvf_dev *cvf, const u8 *buf,
				      size_t len, struct compsc_stream_view *v)
{
	struct cvf_area *a;
	u32 size;
	u64 gpa;
	int err;

	err = cvf_parse(cvf, buf, len, v, &gpa, &size);
	if (err)
		return ERR_PTR(err);
	a = cvf_area_get(cvf, gpa, size);
	if (IS_ERR(a))
		return a;
	if (!compsc_host_matches(&a->lists, v)) {
		dev_err(&cvf_pdev(cvf)->dev,
			"stream does not match the guest's area\n");
		cvf_area_put(cvf, a);
		return ERR_PTR(-EINVAL);
	}
	return a;
}

/**
 * cvf_load_check() - a destination received @len bytes: may it resume?
 * @cvf: the device (only read; called from the data fd's write)
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
	int err;

	v = kzalloc(sizeof(*v), GFP_KERNEL);
	if (!v)
		return -ENOMEM;
	a = cvf_load_area(cvf, buf, len, v);
	err = PTR_ERR_OR_ZERO(a);
	if (!err) {
		cvf_area_put(cvf, a);
		err = cvf_stats_check(v);
	}
	if (!err)
		err = cvf_pf_apply(cvf_pdev(cvf), &v->rec[COMPSC_REC_PF_VF],
				   false);
	kfree(v);
	return err;
}

/**
 * cvf_give() - RUNNING_P2P -> RUNNING on the destination: the loaded state
 * goes into the area, the PF takes the VF-in-PF state, the version is
 * bumped, the write side released and the VF's interrupts raised.
 * @cvf: the device; state_mutex held, a checked stream loaded
 *
 * Return: 0 or -errno (the device then goes to ERROR).
 */
int cvf_give(struct cvf_dev *cvf)
{
	const struct compsc_stream_rec *pf_rec = &cvf->view.rec[COMPSC_REC_PF_VF];
	struct compsc_area_ctl *ctl;
	bool host_cfg;
	struct cvf_area *a;
	int err;

	a = cvf_load_area(cvf, cvf->loaded, cvf->loaded_len, &cvf->view);
	if (IS_ERR(a))
		return PTR_ERR(a);
	err = cvf_pf_apply(cvf_pdev(cvf), pf_rec, true);
	if (err)
		goto out;
	err = -ENOMEM;
	if (!cvf_bar_map(cvf))
		goto out;
	compsc_host_apply(a->va, &a->hdr, &a->lists, &cvf->view);
	cvf_stats_load(cvf, &cvf->view);
	ctl = cvf_area_sec(a, a->hdr.ctl_off);
	WRITE_ONCE(ctl->host_status, 0);
	/*
	 * The source's "mark DMA pages dirty" request came along in guest
	 * memory; this host is not logging (until QEMU starts a session).
	 */
	if (!cvf->logging)
		WRITE_ONCE(ctl->flags,
			   ctl->flags & ~cpu_to_le32(COMPSC_F_DIRTY_LOG));
	host_cfg = compsc_host_vf_handover(cvf_pdev(cvf), !!pf_rec->data,
					   a->gpa, a->size, ctl);
	compsc_writer_release(ctl);
	cvf_kick(cvf->bar, true);
	dev_info(&cvf_pdev(cvf)->dev, "device handed to the guest (%s)\n",
		 host_cfg ? "configured by the host" : "guest restores its configuration");
	cvf->ctx &= ~COMPSC_MIG_C_LOADED;
	err = 0;
out:
	cvf_area_put(cvf, a);
	return err;
}
