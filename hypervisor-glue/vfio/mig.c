// SPDX-License-Identifier: GPL-2.0
/*
 * The VFIO migration state machine. The VFIO core splits every request
 * into single arcs; libcompsc's compsc_mig_arc() says what each arc means
 * (the same rules the stand-in follows) and this file carries the
 * actions out, one block per action.
 *
 * A take that fails (readers did not drain, hostile area, the guest never
 * restored the last hand-back) fails no arc: QEMU resets a device whose
 * arc fails, which would destroy exactly the state the failure protects.
 * The device simply stays the guest's, and the save fd of STOP_COPY fails
 * every read (COMPSC_MIG_A_SAVE_FAIL), which fails the migration; QEMU
 * then resumes the guest on the untouched device.
 *
 * A take on the size query is bounded (hold_ms, compsc_mig_hold_expired()):
 * a pre-copy that does not switch over gives the guest its device back.
 * One that timed out there defers the switch-over and is tried again
 * (compsc_mig_take_timed_out()), a few times per migration; after the
 * last, nothing of that migration takes again (COMPSC_MIG_C_REFUSED).
 *
 * A hand-over that fails at the destination does fail its arc (QEMU then
 * resets the VF and starts the vCPUs), but never leaves the guest's area
 * held: cvf_give() hands the device back as one the guest resets.
 */
#include <linux/file.h>
#include <linux/jiffies.h>
#include <linux/ktime.h>
#include <linux/vfio.h>
#include <compsc/kernel.h>
#include <compsc/migstate.h>
#include "compsc_vfio.h"

static_assert(COMPSC_MIG_ERROR == VFIO_DEVICE_STATE_ERROR);
static_assert(COMPSC_MIG_STOP == VFIO_DEVICE_STATE_STOP);
static_assert(COMPSC_MIG_RUNNING == VFIO_DEVICE_STATE_RUNNING);
static_assert(COMPSC_MIG_STOP_COPY == VFIO_DEVICE_STATE_STOP_COPY);
static_assert(COMPSC_MIG_RESUMING == VFIO_DEVICE_STATE_RESUMING);
static_assert(COMPSC_MIG_RUNNING_P2P == VFIO_DEVICE_STATE_RUNNING_P2P);
static_assert(COMPSC_MIG_PRE_COPY == VFIO_DEVICE_STATE_PRE_COPY);
static_assert(COMPSC_MIG_PRE_COPY_P2P == VFIO_DEVICE_STATE_PRE_COPY_P2P);

static void cvf_put_file(struct cvf_file **fp)
{
	if (!*fp)
		return;
	cvf_file_disable(*fp);
	fput((*fp)->filp);
	*fp = NULL;
}

/* A migration is over: the next one starts with no back-off or refusal. */
static void cvf_backoff_end(struct cvf_dev *cvf)
{
	cvf->backoff_until = 0;
	cvf->holds_expired = 0;
	cvf->takes_timed_out = 0;
	cvf->take_refused = false;
}

/**
 * cvf_mig_cleanup() - forget every migration in flight
 * @cvf: the device; state_mutex held
 *
 * Files are cut off, a held device goes back to the guest without a version
 * bump, pins and mappings are dropped.
 */
void cvf_mig_cleanup(struct cvf_dev *cvf)
{
	lockdep_assert_held(&cvf->state_mutex);
	cvf_put_file(&cvf->save);
	cvf_put_file(&cvf->load);
	if (cvf->ctx & COMPSC_MIG_C_HELD)
		cvf_giveback(cvf);
	cvf_unpause(cvf);
	cvf_area_put(cvf, cvf->area);
	cvf->area = NULL;
	cvf_pre_forget(cvf);
	cvf_bar_unmap(cvf);
	kvfree(cvf->loaded);
	cvf->loaded = NULL;
	cvf->loaded_len = 0;
	cvf->ctx = 0;
	cvf_backoff_end(cvf);
	/* closed (its VM migrated away or quit): a save stays counted */
	cvf->mig_saved = false;
}

/* A save fd for QEMU, empty until cvf_do_save(). */
static struct file *cvf_do_save_open(struct cvf_dev *cvf)
{
	struct cvf_file *f;

	f = cvf_file_new(cvf, true);
	if (IS_ERR(f))
		return ERR_CAST(f);
	cvf->save = f;
	cvf->data_len = 0;
	get_file(f->filp);
	return f->filp;
}

/*
 * The configuration, read now with the guest running, into the open save
 * fd as its pre-copy data; kept to see at STOP_COPY whether it changed.
 * Without it (the area cannot be read now) the stop-copy chunk carries
 * the configuration, as it would without pre-copy.
 */
static void cvf_do_save_pre(struct cvf_dev *cvf)
{
	u8 *buf = NULL;
	size_t len;
	int err;

	err = cvf_save_pre(cvf, &buf, &len);
	if (!err)
		err = cvf_file_fill(cvf->save, buf, len, false);
	if (err) {
		dev_warn(&cvf_pdev(cvf)->dev,
			 "no pre-copy configuration (%d): it goes at stop-copy\n",
			 err);
		kvfree(buf);
		return;
	}
	kvfree(cvf->pre);	/* none: SAVE_END dropped the last one */
	cvf->pre = buf;
	cvf->pre_len = len;
	cvf->tl.pre_ns = ktime_get_ns();
	cvf->tl.pre_bytes = len;
}

/* The device state, built now, into the open save fd after the rest. */
static int cvf_do_save(struct cvf_dev *cvf)
{
	size_t len;
	u8 *buf;
	int err;

	err = cvf_save(cvf, &buf, &len);
	if (err)
		return err;
	err = cvf_file_fill(cvf->save, buf, len, true);
	kvfree(buf);
	if (err)
		return err;
	cvf->data_len = len;
	cvf->tl.save_ns = ktime_get_ns();
	cvf->tl.stop_bytes = len;
	dev_info(&cvf_pdev(cvf)->dev,
		 "stop-copy state %zu bytes (configuration %s)\n", len,
		 cvf->tl.config_resent ? "included" : "sent in pre-copy");
	return 0;
}

static struct file *cvf_do_load(struct cvf_dev *cvf)
{
	struct cvf_file *f;

	f = cvf_file_new(cvf, false);
	if (IS_ERR(f))
		return ERR_CAST(f);
	cvf->load = f;
	get_file(f->filp);
	return f->filp;
}

/* RESUMING -> STOP: only a complete stream that passed every check counts. */
static int cvf_do_load_end(struct cvf_dev *cvf)
{
	struct cvf_file *f = cvf->load;
	int err = -EINVAL;

	mutex_lock(&f->lock);
	if (f->checked) {
		cvf->loaded = f->buf;
		cvf->loaded_len = f->len;
		f->buf = NULL;
		cvf->ctx |= COMPSC_MIG_C_LOADED;
		err = 0;
	}
	mutex_unlock(&f->lock);
	cvf_put_file(&cvf->load);
	if (err)
		dev_err(&cvf_pdev(cvf)->dev,
			"incomplete or refused device state, not resuming\n");
	return err;
}

/*
 * The outcome `compsc devices` shows: a save built, a load (or a chunk
 * of one the destination refused: file.c), a hand-over.
 */
void cvf_mig_result(struct cvf_dev *cvf, int err)
{
	if (!err)
		cvf->mig_done++;
	cvf->mig_err = err;
	cvf->mig_saved = false;
	cvf->mig_aborted = false;
	cvf->mig_why = NULL;
	cvf->mig_taken_back = false;
}

/*
 * A new VM has the VF: the record, timeline and DMA log counters are of
 * the migrations of the VM that has or last had it, not of whoever had
 * it before.
 */
void cvf_mig_forget(struct cvf_dev *cvf)
{
	cvf_mig_result(cvf, 0);
	cvf->mig_done = 0;
	memset(&cvf->tl, 0, sizeof(cvf->tl));
	cvf_log_counters_reset(cvf);
}

/*
 * The migration went back to the guest unfinished, for @why. The source
 * never hears that its saved state was taken over: a save counts as a
 * migration until the device comes back here held (QEMU failed or
 * cancelled the migration after STOP_COPY) or is reset, which say it was
 * not. The status a failed save, load or take gave the record stays.
 */
static void cvf_mig_aborted(struct cvf_dev *cvf, const char *why)
{
	if (cvf->mig_saved)
		cvf->mig_done--;
	cvf->mig_saved = false;
	cvf->mig_aborted = true;
	cvf->mig_why = why;
}

/* Why a device held here went back to its guest at @actions' ABORT. */
static const char *cvf_abort_why(struct cvf_dev *cvf, u32 actions)
{
	if (actions & COMPSC_MIG_A_LOAD)
		return "a migration into the device started while it was held";
	if (cvf->mig_saved)
		return "back to RUNNING after STOP_COPY: the destination did not take over";
	return "back to RUNNING before STOP_COPY: the migration was cancelled or failed";
}

/*
 * A take that fails leaves the device with the guest and is not an error
 * here: with nothing held, the STOP_COPY save fd fails every read, which
 * fails the migration cleanly (see the top of this file). One that timed
 * out kept the guest's readers waiting for take_timeout_ms: unless the
 * size query defers a retry (cvf_size_query_take()), no arc or size query
 * of this migration takes again (COMPSC_MIG_C_REFUSED).
 */
static int cvf_try_take(struct cvf_dev *cvf, const char *when)
{
	int err = cvf_take(cvf);

	if (err) {
		dev_warn(&cvf_pdev(cvf)->dev,
			 "device stays with the guest (take %s): %d\n",
			 when, err);
		cvf_mig_result(cvf, err);	/* why a save may fail */
		cvf->take_refused = err == -ETIMEDOUT;
	} else {
		cvf->tl.take_ns = ktime_get_ns();
		dev_info(&cvf_pdev(cvf)->dev, "device taken %s (%s)\n", when,
			 compsc_mig_state_name(cvf->mig_state));
	}
	return err;
}

/* Carry out @actions (COMPSC_MIG_A_*) in their documented order. */
static struct file *cvf_do_actions(struct cvf_dev *cvf, u32 actions)
{
	struct file *res = NULL;
	int err = 0;

	if (actions & COMPSC_MIG_A_PAUSE)
		cvf_pause(cvf);
	if (actions & COMPSC_MIG_A_TAKE)
		cvf_try_take(cvf, "at the arc");
	if (actions & COMPSC_MIG_A_SAVE_OPEN) {
		res = cvf_do_save_open(cvf);
		if (IS_ERR(res))
			return res;
	}
	if ((actions & COMPSC_MIG_A_SAVE_PRE) && cvf->save)
		cvf_do_save_pre(cvf);
	/* a paused VM's take (this arc's) failed: nothing to save */
	if ((actions & COMPSC_MIG_A_SAVE) && !(cvf->ctx & COMPSC_MIG_C_HELD))
		actions ^= COMPSC_MIG_A_SAVE | COMPSC_MIG_A_SAVE_FAIL;
	/* a save that cannot be made fails the data, not the arc (see top) */
	if ((actions & COMPSC_MIG_A_SAVE) && cvf->save) {
		err = cvf_do_save(cvf);
		if (err)
			cvf_file_fail(cvf->save, err);
		cvf_mig_result(cvf, err);
		cvf->mig_saved = !err;
		/* why, for `compsc devices`: the save says it once */
		cvf->mig_taken_back = err && cvf->area &&
				      compsc_host_held(&cvf->area->h);
		err = 0;
	}
	if ((actions & COMPSC_MIG_A_SAVE_FAIL) && cvf->save) {
		dev_err(&cvf_pdev(cvf)->dev,
			"nothing held to migrate: the save fails, the guest keeps its device\n");
		cvf_file_fail(cvf->save, -EIO);
		cvf_mig_result(cvf, cvf->mig_err ?: -EIO);	/* the take's */
	}
	if (actions & COMPSC_MIG_A_SAVE_END) {
		cvf_put_file(&cvf->save);
		cvf_pre_forget(cvf);
		cvf_backoff_end(cvf);
	}
	/*
	 * The migration ended on the source without a hand-over (cancelled,
	 * or failed after the save): its save alone is not an "ok".
	 */
	if (actions & COMPSC_MIG_A_ABORT) {
		cvf_giveback(cvf);
		cvf_mig_aborted(cvf, cvf_abort_why(cvf, actions));
	}
	if (actions & COMPSC_MIG_A_LOAD) {
		cvf_mig_cleanup(cvf);
		res = cvf_do_load(cvf);
	}
	if (actions & COMPSC_MIG_A_LOAD_END) {
		err = cvf_do_load_end(cvf);
		if (err)
			cvf_mig_result(cvf, err);
	}
	if (actions & COMPSC_MIG_A_GIVE) {
		err = cvf_give(cvf);
		cvf_mig_result(cvf, err);
	}
	if (actions & COMPSC_MIG_A_UNPAUSE)
		cvf_unpause(cvf);
	return err ? ERR_PTR(err) : res;
}

static u32 cvf_ctx(struct cvf_dev *cvf)
{
	/* QEMU migrates through PRE_COPY, which this driver offers (main.c) */
	u32 ctx = cvf->ctx | COMPSC_MIG_C_PRECOPY, size;
	u64 gpa;

	if (!compsc_vf_area_get(cvf_pdev(cvf), &gpa, &size))
		ctx |= COMPSC_MIG_C_AREA;
	if (cvf->backoff_until && time_before(jiffies, cvf->backoff_until))
		ctx |= COMPSC_MIG_C_BACKOFF;
	if (cvf->take_refused)
		ctx |= COMPSC_MIG_C_REFUSED;
	/*
	 * Only a catch-up pass after the receive paths left: it ends. While
	 * one is still inside, the take (bounded by take_timeout_ms) decides,
	 * so a guest stuck there is refused rather than deferred for ever.
	 */
	if (cvf->logging && cvf->log_whole && !cvf->log_undrained)
		ctx |= COMPSC_MIG_C_LOG_WHOLE;
	return ctx;
}

/*
 * The timeline (debugfs): a migration starts as the device enters PRE_COPY
 * (source) or RESUMING (destination); the vCPUs stop at the arc to
 * PRE_COPY_P2P. A pause of the VM (RUNNING -> RUNNING_P2P) is no
 * migration and leaves the last one's timeline alone.
 */
static void cvf_timeline_arc(struct cvf_dev *cvf, u32 from, u32 next)
{
	if ((from == VFIO_DEVICE_STATE_RUNNING &&
	     next == VFIO_DEVICE_STATE_PRE_COPY) ||
	    next == VFIO_DEVICE_STATE_RESUMING)
		memset(&cvf->tl, 0, sizeof(cvf->tl));
	if (from == VFIO_DEVICE_STATE_PRE_COPY &&
	    next == VFIO_DEVICE_STATE_PRE_COPY_P2P)
		cvf->tl.stop_ns = ktime_get_ns();
}

/* One arc. A failed load or hand-over leaves the device in ERROR. */
static struct file *cvf_arc(struct cvf_dev *cvf, u32 next)
{
	u32 from = cvf->mig_state, actions = 0;
	struct file *res;
	int err;

	err = compsc_mig_arc(from, next, cvf_ctx(cvf), &actions);
	if (err) {
		WARN(1, "compsc_vfio: impossible arc %u -> %u\n", from, next);
		return ERR_PTR(-EINVAL);
	}
	cvf_timeline_arc(cvf, from, next);
	res = cvf_do_actions(cvf, actions);
	if (IS_ERR(res) && (actions & (COMPSC_MIG_A_LOAD_END |
				       COMPSC_MIG_A_GIVE))) {
		cvf_mig_cleanup(cvf);
		cvf->mig_state = VFIO_DEVICE_STATE_ERROR;
		return res;
	}
	if (!IS_ERR(res))
		cvf->mig_state = next;
	return res;
}

static struct file *cvf_set_state(struct vfio_device *vdev,
				  enum vfio_device_mig_state new)
{
	struct cvf_dev *cvf = cvf_from_vdev(vdev);
	enum vfio_device_mig_state next;
	struct file *res = NULL;
	int err;

	cvf_state_mutex_lock(cvf);
	while (cvf->mig_state != new) {
		err = vfio_mig_get_next_state(vdev, cvf->mig_state, new, &next);
		if (err) {
			res = ERR_PTR(err);
			break;
		}
		res = cvf_arc(cvf, next);
		if (IS_ERR(res))
			break;
		/* a data fd may only come from the last arc */
		if (WARN_ON(res && cvf->mig_state != new)) {
			fput(res);
			res = ERR_PTR(-EINVAL);
			break;
		}
	}
	cvf_state_mutex_unlock(cvf);
	return res;
}

static int cvf_get_state(struct vfio_device *vdev,
			 enum vfio_device_mig_state *state)
{
	struct cvf_dev *cvf = cvf_from_vdev(vdev);

	cvf_state_mutex_lock(cvf);
	*state = cvf->mig_state;
	cvf_state_mutex_unlock(cvf);
	return 0;
}

/*
 * The bound on a take made on the size query: runs hold_ms after it (and
 * after any later one: mod_delayed_work), gives the device back if the
 * migration is still in PRE_COPY, and leaves the guest its device for at
 * least as long again (compsc_mig_backoff_ms()) before the next size query
 * may take it.
 */
void cvf_hold_work(struct work_struct *work)
{
	struct cvf_dev *cvf = container_of(to_delayed_work(work),
					   struct cvf_dev, hold_work);
	unsigned long hold = msecs_to_jiffies(cvf_hold_ms);

	cvf_state_mutex_lock(cvf);
	if (cvf_hold_ms && time_after_eq(jiffies, cvf->held_at + hold) &&
	    (compsc_mig_hold_expired(cvf->mig_state, cvf_ctx(cvf)) &
	     COMPSC_MIG_A_ABORT)) {
		u32 back = compsc_mig_backoff_ms(cvf_hold_ms,
						 ++cvf->holds_expired);

		cvf_giveback(cvf);
		cvf->backoff_until = jiffies + msecs_to_jiffies(back);
		dev_warn(&cvf_pdev(cvf)->dev,
			 "no switch-over %u ms after the take: device given back to the guest for %u ms\n",
			 cvf_hold_ms, back);
	}
	cvf_state_mutex_unlock(cvf);
}

/*
 * The take on the size query: held, it is bounded (cvf_hold_work()); timed
 * out, it may defer the switch-over (compsc_mig_take_timed_out()).
 * Returns COMPSC_MIG_A_DEFER or 0.
 */
static u32 cvf_size_query_take(struct cvf_dev *cvf)
{
	int err = cvf_try_take(cvf, "on the size query");
	u32 back;

	if (!err) {
		cvf->held_at = jiffies;
		if (cvf_hold_ms)
			mod_delayed_work(system_wq, &cvf->hold_work,
					 msecs_to_jiffies(cvf_hold_ms));
		return 0;
	}
	if (err != -ETIMEDOUT)
		return 0;
	if (!(compsc_mig_take_timed_out(cvf->mig_state,
					++cvf->takes_timed_out) &
	      COMPSC_MIG_A_DEFER)) {
		dev_warn(&cvf_pdev(cvf)->dev,
			 "no further take in this migration: it fails at the switch-over, the guest keeps its device\n");
		return 0;
	}
	cvf->take_refused = false;	/* a retry is due after the back-off */
	back = compsc_mig_backoff_ms(cvf_take_timeout_ms,
				     cvf->takes_timed_out);
	cvf->backoff_until = jiffies + msecs_to_jiffies(back);
	dev_warn(&cvf_pdev(cvf)->dev,
		 "pre-copy goes on with the guest on its device; the take is tried again in %u ms (%u of %u)\n",
		 back, cvf->takes_timed_out, COMPSC_MIG_TAKE_RETRIES);
	return COMPSC_MIG_A_DEFER;
}

/*
 * MIG_DATA_SIZE. In PRE_COPY QEMU asks this just before it decides to stop
 * the VM, with the vCPUs running: libcompsc says take the device now, and
 * the answer is then the size of the state actually held (or, for a while
 * after a hold expired, or after a log read that reported all of memory, a
 * size that keeps QEMU in pre-copy). QEMU asks without its big lock, which
 * the reads of the DMA log hold: the receive paths they could not wait for
 * are waited for here first (cvf_log_drain_query()).
 */
static int cvf_get_data_size(struct vfio_device *vdev, unsigned long *len)
{
	struct cvf_dev *cvf = cvf_from_vdev(vdev);
	u32 actions;

	cvf_state_mutex_lock(cvf);
	cvf_log_drain_query(cvf);
	actions = compsc_mig_size_query(cvf->mig_state, cvf_ctx(cvf));
	if (actions & COMPSC_MIG_A_TAKE)
		actions |= cvf_size_query_take(cvf);
	*len = cvf_data_size(cvf) + cvf_fault_size();
	if (actions & COMPSC_MIG_A_DEFER)
		*len = COMPSC_MIG_SIZE_DEFER;
	cvf_state_mutex_unlock(cvf);
	return 0;
}

const struct vfio_migration_ops cvf_mig_ops = {
	.migration_set_state = cvf_set_state,
	.migration_get_state = cvf_get_state,
	.migration_get_data_size = cvf_get_data_size,
};

/*
 * A reset of the VF voids whatever migration was in flight. The reset
 * path only marks it (cvf_reset_done()): VFIO_DEVICE_RESET and hot resets
 * call reset_done with the device's memory_lock held for write, and the
 * cleanup takes locks that are taken outside memory_lock elsewhere:
 * vfio_unpin_pages() takes type1's iommu->lock, whose map path takes
 * mmap_lock and then, faulting a BAR in, memory_lock; a data fd's lock is
 * held across copy_to_user(), which may fault a BAR in too. The mark is
 * acted on with state_mutex held and no reset's lock: by whoever takes
 * state_mutex next, as it takes it (nothing runs on a state the reset
 * voided) or as it lets go of it (a reset that came meanwhile), and by
 * reset_work, which the reset queues so that a device held from the guest
 * goes back at once, not at QEMU's next call.
 */

/* A migration of this VF is under way here: data fd, state or device held. */
static bool cvf_mig_in_flight(struct cvf_dev *cvf)
{
	return cvf->save || cvf->load || cvf->loaded ||
	       (cvf->ctx & COMPSC_MIG_C_HELD);
}

/*
 * The reset ended the migration session: the device is RUNNING (VFIO
 * uAPI), and the data fd QEMU holds fails every read, so QEMU fails the
 * migration instead of sending a state the reset voided; said once here
 * and in the record `compsc devices` shows.
 */
static void cvf_reset_void(struct cvf_dev *cvf)
{
	bool in_flight = cvf_mig_in_flight(cvf);

	if (in_flight)
		dev_warn(&cvf_pdev(cvf)->dev,
			 "VF reset in %s: the migration is void, its data fd fails\n",
			 compsc_mig_state_name(cvf->mig_state));
	if (in_flight)
		cvf_mig_aborted(cvf, "the VF was reset during the migration");
	cvf->mig_state = VFIO_DEVICE_STATE_RUNNING;
	cvf->in_reset = true;
	cvf_mig_cleanup(cvf);
	cvf->in_reset = false;
}

/* Act on every reset marked so far. */
static void cvf_reset_settle_locked(struct cvf_dev *cvf)
{
	bool marked;

	lockdep_assert_held(&cvf->state_mutex);
	for (;;) {
		spin_lock(&cvf->reset_lock);
		marked = cvf->deferred_reset;
		cvf->deferred_reset = false;
		spin_unlock(&cvf->reset_lock);
		if (!marked)
			return;
		cvf_reset_void(cvf);
	}
}

/* Lock state_mutex, then act on a reset not acted on yet. */
void cvf_state_mutex_lock(struct cvf_dev *cvf)
{
	mutex_lock(&cvf->state_mutex);
	cvf_reset_settle_locked(cvf);
}

/*
 * Act on a reset that came while state_mutex was held, then unlock it. A
 * reset after the check is acted on by its reset_work.
 */
void cvf_state_mutex_unlock(struct cvf_dev *cvf)
{
	cvf_reset_settle_locked(cvf);
	/* every change of save and mig_saved is made under the mutex */
	WRITE_ONCE(cvf->mig_source, cvf->save || cvf->mig_saved);
	mutex_unlock(&cvf->state_mutex);
}

/* Queued by a reset: act on it now, outside the reset. */
void cvf_reset_work(struct work_struct *work)
{
	struct cvf_dev *cvf = container_of(work, struct cvf_dev, reset_work);

	cvf_state_mutex_lock(cvf);
	cvf_state_mutex_unlock(cvf);
}

/*
 * Whether the VF was reset since the take: by a reset being acted on
 * (in_reset) or one marked and not acted on yet. Its queue enables and
 * interrupt state are then the reset's, not the ones the take saved.
 */
bool cvf_reset_seen(struct cvf_dev *cvf)
{
	bool seen;

	lockdep_assert_held(&cvf->state_mutex);
	spin_lock(&cvf->reset_lock);
	seen = cvf->in_reset || cvf->deferred_reset;
	spin_unlock(&cvf->reset_lock);
	return seen;
}

/**
 * cvf_reset_done() - the VF was reset: whatever migration was in flight
 * is void
 * @cvf: the device
 *
 * Called from the PCI core's reset_done, often with memory_lock held for
 * write: only marks the reset and queues its cleanup (see above).
 */
void cvf_reset_done(struct cvf_dev *cvf)
{
	spin_lock(&cvf->reset_lock);
	cvf->deferred_reset = true;
	spin_unlock(&cvf->reset_lock);
	queue_work(system_wq, &cvf->reset_work);
}
