// SPDX-License-Identifier: GPL-2.0
/*
 * VFIO DMA logging (device dirty tracking). The VF writes into guest memory
 * in three places: its descriptor rings (write-back), the receive buffers,
 * and (through this host) the shared area. Rings and area are reported on
 * every read, from the ring registers and the registered area; the
 * receive buffers are marked by the guest driver itself with CPU writes,
 * which QEMU already tracks, once the area's COMPSC_F_DIRTY_LOG says so.
 * So QEMU's pre-copy converges without counting all guest memory dirty.
 */
#include <linux/debugfs.h>
#include <linux/interval_tree.h>
#include <linux/iova_bitmap.h>
#include <linux/ktime.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/module.h>
#include <linux/vfio.h>
#include <compsc/kernel.h>
#include <compsc/migstate.h>
#include "compsc_vfio.h"

/*
 * The VFIO core reports the log through iova_bitmap, which only exists
 * when the core was built with CONFIG_IOMMUFD_DRIVER. Debian's 6.12 core
 * is not (every DMA_LOGGING_REPORT then fails with -EOPNOTSUPP and QEMU
 * aborts the migration); hypervisor-glue/vfio-core rebuilds it. Looked up
 * at load time so that one build of this module runs on both cores; NULL
 * means the core cannot report, and no log_ops are offered.
 */
static void (*cvf_bitmap_set)(struct iova_bitmap *bitmap, unsigned long iova,
			      size_t length);
/* compsc_vfio/<BDF>/ per device: this logging session's counters */
static struct dentry *cvf_debugfs;

/**
 * cvf_log_get() - resolve what DMA logging needs from the VFIO core
 *
 * Return: true if the core can report the log (log_ops may be offered);
 * then cvf_log_put() must follow.
 */
bool cvf_log_get(void)
{
	cvf_bitmap_set = symbol_get(iova_bitmap_set);
	if (!cvf_bitmap_set)
		return false;
	cvf_debugfs = debugfs_create_dir(KBUILD_MODNAME, NULL);
	if (IS_ERR(cvf_debugfs)) {
		cvf_debugfs = NULL;	/* no counters, logging still works */
		return true;
	}
	/* the test build's faults (fault.h): no migration runs without it */
	cvf_fault_debugfs(cvf_debugfs);
	return true;
}

/**
 * cvf_log_put() - drop what cvf_log_get() took; no device may log after it
 */
void cvf_log_put(void)
{
	if (!cvf_bitmap_set)
		return;
	debugfs_remove_recursive(cvf_debugfs);
	cvf_debugfs = NULL;
	symbol_put(iova_bitmap_set);
	cvf_bitmap_set = NULL;
}

/*
 * The VF's last migration here, in the stand-in's result format,
 * and why it went back to the guest unfinished when it did.
 */
static int cvf_result_show(struct seq_file *s, void *unused)
{
	struct cvf_dev *cvf = s->private;
	int err = mutex_lock_interruptible(&cvf->state_mutex);

	if (err)
		return err;
	seq_printf(s, "migrations=%u\nstatus=%s\nerrno=%d\n", cvf->mig_done,
		   cvf->mig_taken_back ? "taken_back" :
		   cvf->mig_err ? "error" : cvf->mig_aborted ? "aborted" :
		   cvf->mig_done ? "ok" : "none", cvf->mig_err);
	if (!cvf->mig_taken_back && !cvf->mig_err && cvf->mig_aborted &&
	    cvf->mig_why)
		seq_printf(s, "reason=%s\n", cvf->mig_why);
	cvf_state_mutex_unlock(cvf);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(cvf_result);

/*
 * The VF's last migration here as times (ktime ns, 0: not reached) and
 * sizes: when the device was taken against the vCPUs' stop, what the
 * pre-copy chunk moved out of the stop-copy one.
 */
static int cvf_timeline_show(struct seq_file *s, void *unused)
{
	struct cvf_dev *cvf = s->private;
	int err = mutex_lock_interruptible(&cvf->state_mutex);
	struct cvf_timeline t;

	if (err)
		return err;
	t = cvf->tl;
	cvf_state_mutex_unlock(cvf);
	seq_printf(s, "pre_ns=%llu\ntake_ns=%llu\nstop_ns=%llu\nsave_ns=%llu\ngive_ns=%llu\n",
		   t.pre_ns, t.take_ns, t.stop_ns, t.save_ns, t.give_ns);
	seq_printf(s, "pre_bytes=%u\nstop_bytes=%u\nconfig_resent=%d\nconfig_early=%d\n",
		   t.pre_bytes, t.stop_bytes, t.config_resent, t.config_early);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(cvf_timeline);

/*
 * What the VF's PF holds for it now, as it would export it: for operators
 * and tests, e.g. that a destination VF carries the guest's configuration
 * during pre-copy already. The PF takes its own locks.
 */
static int cvf_pf_show(struct seq_file *s, void *unused)
{
	struct cvf_dev *cvf = s->private;
	struct compsc_pf_vf_xstate *x;
	struct compsc_pf_vf_state *st;
	int ret = -ENOMEM;

	st = kzalloc(sizeof(*st), GFP_KERNEL);
	x = kzalloc(sizeof(*x), GFP_KERNEL);
	if (st && x)
		ret = compsc_host_pf_export(cvf_pdev(cvf), st, x);
	if (ret > 0)
		seq_printf(s, "mac=%pM\nflags=%#x\nport_vlan=%u\nmax_frame=%u\nnr_vlans=%u\nnr_mc=%u\n",
			   st->mac, le16_to_cpu(st->flags),
			   le16_to_cpu(st->port_vlan), le16_to_cpu(st->max_frame),
			   le16_to_cpu(st->nr_vlans), le16_to_cpu(st->nr_mc));
	kfree(st);
	kfree(x);
	return ret < 0 ? ret : 0;
}
DEFINE_SHOW_ATTRIBUTE(cvf_pf);

/*
 * For tests and operators: did QEMU really read the log, and how did the
 * last migration end (`compsc devices` reads "result")?
 */
void cvf_log_debugfs_add(struct cvf_dev *cvf)
{
	struct dentry *dir;

	if (!cvf_debugfs)
		return;
	dir = debugfs_create_dir(pci_name(cvf_pdev(cvf)), cvf_debugfs);
	debugfs_create_u32("log_reads", 0444, dir, &cvf->log_reads);
	debugfs_create_u64("log_marked_bytes", 0444, dir, &cvf->log_marked);
	debugfs_create_u32("log_late_areas", 0444, dir, &cvf->log_late_areas);
	debugfs_create_u32("log_drain_us", 0444, dir, &cvf->log_drain_us);
	debugfs_create_file("result", 0444, dir, cvf, &cvf_result_fops);
	debugfs_create_file("timeline", 0444, dir, cvf, &cvf_timeline_fops);
	debugfs_create_file("pf", 0444, dir, cvf, &cvf_pf_fops);
	cvf_fault_dev_debugfs(cvf, dir);
}

void cvf_log_debugfs_del(struct cvf_dev *cvf)
{
	if (cvf_debugfs)
		debugfs_lookup_and_remove(pci_name(cvf_pdev(cvf)), cvf_debugfs);
}

/* The registered area's header, checked; the area is read through VFIO. */
static int cvf_area_hdr(struct cvf_dev *cvf, struct compsc_area_hdr *hdr,
			u64 *gpa, u32 *size)
{
	int err;

	if (compsc_vf_area_get(cvf_pdev(cvf), gpa, size))
		return -ENOENT;
	err = vfio_dma_rw(&cvf->core.vdev, *gpa, hdr, sizeof(*hdr), false);
	if (!err && compsc_area_check(hdr, *size))
		err = -EINVAL;
	return err;
}

/*
 * The flag is read once per receive poll (igbvf's clean_rx_irq, the
 * PMD's burst), and each poll runs wholly inside the read side
 * (compsc_vf_napi_poll(); the PMD's wrapped rx burst). A poll that read
 * the flag clear just before it was set would go on to hand up buffers
 * the VF wrote after QEMU's first pass had sent their pages, and mark
 * none of them: the destination would get the stale copies. So once the
 * flag is set the host waits for every reader inside to leave
 * (compsc_host_drain()): a poll that read the old flag was inside and
 * has ended, and every later poll entered after the fence and reads the
 * new one. Both drivers count their readers in the same slots, so this
 * covers igbvf and the PMD alike, with no change on the guest's side.
 *
 * The wait is in the first log read after the flag was set, not in the
 * start: QEMU syncs the log once right after starting it and before its
 * first pass sends a page (ram_init_bitmaps()), and while it starts the
 * log it holds its big lock and may keep every vCPU out of the guest
 * (KVM's memslot update for its own log), so a vCPU stopped inside the
 * read side could not leave before the start returned. It holds that
 * lock during the reads too, and a vCPU inside the read side may need it
 * to go on (on the nested bench under a receive load: the reader stayed
 * inside through every read of that sync, and of every later sync,
 * while takes on the size queries between them, outside that lock,
 * drained it at once), so the wait is short (CVF_LOG_DRAIN_MS), is made
 * by one read per sync only (cvf->log_drain_late) and is tried again on
 * the size query after it (cvf_log_drain_query()), and never fails the
 * read: while a reader that may have missed the flag is inside, every
 * read reports the whole window, as QEMU would without a log, and so do
 * the reads of one pass over memory after it left (it may have handed up
 * buffers since the last read; compsc_log_pass_read()). The cost is one or
 * two more passes over guest memory in that case. A device this host
 * holds has no reader inside. An area the guest withdrew (its driver
 * unbound) counts no reader any more: whether one that missed the flag
 * handed up buffers cannot be known, so the reads report the whole window
 * too, without a wait, until the area's registration is gone.
 *
 * Return: 0 (drained), 1 (a reader still inside, or the area withdrawn),
 * or -errno.
 */
#define CVF_LOG_DRAIN_MS	50u

static int cvf_log_drain(struct cvf_dev *cvf)
{
	struct compsc_host_kenv k;
	struct cvf_area *a;
	u64 t0, gpa;
	u32 size;
	int err;

	if ((cvf->ctx & COMPSC_MIG_C_HELD) ||
	    compsc_vf_area_get(cvf_pdev(cvf), &gpa, &size))
		return 0;
	a = cvf_area_get(cvf, gpa, size);
	if (IS_ERR(a))
		return PTR_ERR(a);
	compsc_host_kenv_init(&k);
	t0 = ktime_get_ns();
	err = compsc_host_drain(&a->h, &k.env,
				(u64)CVF_LOG_DRAIN_MS * NSEC_PER_MSEC);
	cvf->log_drain_us = div_u64(ktime_get_ns() - t0, NSEC_PER_USEC);
	cvf_area_put(cvf, a);
	if (err == -COMPSC_ESTATE) {
		dev_info_ratelimited(&cvf_pdev(cvf)->dev,
				     "DMA log: the guest withdrew its area, its receive paths can no longer be counted: the log reports whole windows\n");
		return 1;
	}
	if (err == -COMPSC_ETIMEDOUT || err == -COMPSC_EBUSY) {
		cvf->log_drain_late = true;
		dev_info_ratelimited(&cvf_pdev(cvf)->dev,
				     "DMA log: a receive path that may have missed the flag is still running after %u ms (%s): the log reports whole windows\n",
				     CVF_LOG_DRAIN_MS, compsc_strerror(err));
		return 1;
	}
	if (err)
		return compsc_errno(err);
	cvf->log_drain_late = false;
	dev_info(&cvf_pdev(cvf)->dev,
		 "DMA log: receive paths that read the flag before it was set have left (waited %u us)\n",
		 cvf->log_drain_us);
	return 0;
}

/**
 * cvf_log_drain_query() - wait for the receive paths the reads could not
 * wait for, on QEMU's size query (MIG_DATA_SIZE), which it makes without
 * its big lock right after a sync's reads
 * @cvf: the device; state_mutex held
 *
 * They may have handed up buffers since the last read: the reads of the
 * next pass over memory report their whole window (compsc_log_pass_start()),
 * as the read that found them gone would have.
 */
void cvf_log_drain_query(struct cvf_dev *cvf)
{
	if (!cvf->logging || !cvf->log_undrained || cvf_log_drain(cvf))
		return;
	cvf->log_undrained = false;
	compsc_log_pass_start(&cvf->log_pass);
}

/*
 * Ask the guest driver to mark the pages the VF writes (or to stop).
 * @only_new: only if the area does not say so yet (one registered, or
 * registered again, after logging started). Returns whether it asked.
 */
static bool cvf_area_dirty_flag(struct cvf_dev *cvf, bool on, bool only_new)
{
	struct compsc_area_hdr hdr;
	struct compsc_area_ctl ctl;
	u64 gpa, at;
	u32 size;

	if (cvf_area_hdr(cvf, &hdr, &gpa, &size))
		return false;
	at = gpa + le32_to_cpu(hdr.ctl_off);
	if (vfio_dma_rw(&cvf->core.vdev, at, &ctl, sizeof(ctl), false))
		return false;
	if (only_new && (le32_to_cpu(ctl.flags) & COMPSC_F_DIRTY_LOG))
		return false;
	compsc_host_dirty_round(&ctl, on);
	/* field by field, in the rule's order: dirty_gen before flags */
	if (on)
		vfio_dma_rw(&cvf->core.vdev,
			    at + offsetof(struct compsc_area_ctl, dirty_gen),
			    &ctl.dirty_gen, sizeof(ctl.dirty_gen), true);
	vfio_dma_rw(&cvf->core.vdev, at + offsetof(struct compsc_area_ctl, flags),
		    &ctl.flags, sizeof(ctl.flags), true);
	return true;
}

/**
 * cvf_log_covers() - refuse a span the VF writes that the log cannot report
 * @cvf: the device; state_mutex held, logging on
 * @what: what the span is, for the message
 * @addr: its device address (an IOVA in the device's container)
 * @len: its length
 *
 * Return: 0, or -EOPNOTSUPP (compsc_host_log_covers() said no).
 */
int cvf_log_covers(struct cvf_dev *cvf, const char *what, u64 addr, u64 len)
{
	int err = compsc_host_log_covers(cvf->log_ranges, cvf->log_nr, addr,
					 len);

	if (err)
		dev_err_ratelimited(&cvf_pdev(cvf)->dev,
				    "migration refused: %s at device address %#llx+%llu is outside every range QEMU's DMA log tracks (%s): its writes would reach the destination unreported\n",
				    what, addr, len, compsc_strerror(err));
	return compsc_errno(err);
}

/**
 * cvf_log_covers_rings() - cvf_log_covers() for every descriptor ring
 * @cvf: the device; state_mutex held, held from the guest, BAR mapped
 *
 * Return: 0 or -EOPNOTSUPP.
 */
int cvf_log_covers_rings(struct cvf_dev *cvf)
{
	u64 base[COMPSC_HOST_MAX_RINGS], len[COMPSC_HOST_MAX_RINGS];
	u32 i, n;
	int err = 0;

	n = compsc_host_ring_spans(&cvf->dev, base, len, COMPSC_HOST_MAX_RINGS);
	for (i = 0; i < n && !err; i++)
		err = cvf_log_covers(cvf, "a descriptor ring", base[i], len[i]);
	return err;
}

/* A new log session, or a new VM (cvf_mig_forget()): its counters from 0. */
void cvf_log_counters_reset(struct cvf_dev *cvf)
{
	cvf->log_reads = 0;
	cvf->log_marked = 0;
	cvf->log_late_areas = 0;
	cvf->log_drain_us = 0;
	cvf->log_drain_late = false;
	cvf->log_whole = false;
	compsc_log_pass_reset(&cvf->log_pass);
}

/*
 * A session may still be on: QEMU postpones log_stop while its VM is
 * stopped (cvf_close_device() ends a session whose VM never ran again).
 * The log keeps no state beyond the flag and the ranges, so a new start
 * simply restarts it instead of failing. The ranges are kept (the core
 * frees its tree after this call): a take refuses a device that writes
 * outside them (cvf_log_covers()).
 */
static int cvf_log_start(struct vfio_device *vdev,
			 struct rb_root_cached *ranges, u32 nnodes,
			 u64 *page_size)
{
	struct cvf_dev *cvf = cvf_from_vdev(vdev);
	struct interval_tree_node *node;
	struct compsc_range *r;
	u32 n = 0;

	r = kcalloc(max(nnodes, 1U), sizeof(*r), GFP_KERNEL);
	if (!r)
		return -ENOMEM;
	for (node = interval_tree_iter_first(ranges, 0, ULONG_MAX);
	     node && n < nnodes;
	     node = interval_tree_iter_next(node, 0, ULONG_MAX)) {
		r[n].first = node->start;
		r[n++].last = node->last;
	}
	cvf_state_mutex_lock(cvf);
	kfree(cvf->log_ranges);
	cvf->log_ranges = r;
	cvf->log_nr = n;
	cvf->logging = true;
	cvf_log_counters_reset(cvf);
	cvf->log_undrained = cvf_area_dirty_flag(cvf, true, false);
	dev_info(&vdev->device,
		 "DMA logging started: %u ranges, first %#llx-%#llx, last %#llx-%#llx\n",
		 n, n ? r[0].first : 0, n ? r[0].last : 0,
		 n ? r[n - 1].first : 0, n ? r[n - 1].last : 0);
	cvf_state_mutex_unlock(cvf);
	return 0;
}

static int cvf_log_stop(struct vfio_device *vdev)
{
	struct cvf_dev *cvf = cvf_from_vdev(vdev);

	cvf_state_mutex_lock(cvf);
	if (cvf->logging) {
		cvf_area_dirty_flag(cvf, false, false);
		dev_info(&vdev->device,
			 "DMA logging stopped: %u log reads, %llu bytes marked\n",
			 cvf->log_reads, cvf->log_marked);
	}
	cvf->logging = false;
	kfree(cvf->log_ranges);
	cvf->log_ranges = NULL;
	cvf->log_nr = 0;
	cvf_state_mutex_unlock(cvf);
	return 0;
}

/* Mark [@b, @b + @l) inside the window [@iova, @iova + @len). */
static void cvf_mark(struct cvf_dev *cvf, struct iova_bitmap *dirty,
		     u64 iova, u64 len, u64 b, u64 l)
{
	u64 s = max(iova, b), e = min(iova + len, b + l);

	if (s >= e)
		return;
	cvf_bitmap_set(dirty, s, e - s);
	cvf->log_marked += e - s;
}

static int cvf_log_read_and_clear(struct vfio_device *vdev,
				  unsigned long iova, unsigned long length,
				  struct iova_bitmap *dirty)
{
	struct cvf_dev *cvf = cvf_from_vdev(vdev);
	u64 base[COMPSC_HOST_MAX_RINGS], len[COMPSC_HOST_MAX_RINGS], gpa;
	struct compsc_area_hdr hdr;
	u32 i, n, size;
	int err = 0;

	cvf_state_mutex_lock(cvf);
	if (!cvf->logging) {
		err = -EINVAL;
		goto out;
	}
	cvf->log_reads++;
	/*
	 * An area that does not carry the flag yet was registered after the
	 * log started (a driver loaded or reloaded meanwhile): what the VF
	 * wrote before its driver heard of the round is unknown, so the reads
	 * report the whole window, as QEMU would without a log.
	 */
	if (cvf_area_dirty_flag(cvf, true, true)) {
		cvf->log_late_areas++;
		cvf->log_undrained = true;
		compsc_log_pass_start(&cvf->log_pass);
	}
	/* a new sync: its first read may wait again (see above) */
	if (compsc_log_pass_new_sync(&cvf->log_pass, iova))
		cvf->log_drain_late = false;
	if (cvf->log_undrained) {
		err = cvf->log_drain_late ? 1 : cvf_log_drain(cvf);
		if (err < 0)
			goto out;
		/* still inside, or gone since an earlier read reported all */
		if (err || cvf->log_pass.due)
			compsc_log_pass_start(&cvf->log_pass);
		cvf->log_undrained = err;
		err = 0;
	}
	cvf->log_whole = compsc_log_pass_read(&cvf->log_pass, iova);
	if (cvf->log_whole)
		cvf_mark(cvf, dirty, iova, length, iova, length);
	if (!cvf_area_hdr(cvf, &hdr, &gpa, &size))
		cvf_mark(cvf, dirty, iova, length, gpa, size);
	/*
	 * Rings we cannot read (BAR0 disabled, VF in D3) may still hold
	 * write-backs since the last read: report the window, as for a late
	 * area, rather than nothing.
	 */
	if (cvf_bar_get(cvf)) {
		cvf_mark(cvf, dirty, iova, length, iova, length);
		goto out;
	}
	n = compsc_host_ring_spans(&cvf->dev, base, len, COMPSC_HOST_MAX_RINGS);
	cvf_bar_put(cvf);
	for (i = 0; i < n; i++)
		cvf_mark(cvf, dirty, iova, length, base[i], len[i]);
out:
	cvf_state_mutex_unlock(cvf);
	return err;
}

const struct vfio_log_ops cvf_log_ops = {
	.log_start = cvf_log_start,
	.log_stop = cvf_log_stop,
	.log_read_and_clear = cvf_log_read_and_clear,
};
