// SPDX-License-Identifier: GPL-2.0
/*
 * The guest VF helper's test hooks (fault.h): built into a driver only
 * with COMPSC_FAULTS=y, as the bench builds it, never by the packages'
 * DKMS build. Linked into each driver with vf.c.
 */
#include <linux/debugfs.h>
#include <linux/delay.h>
#include <linux/mutex.h>
#include <linux/rtnetlink.h>
#include <compsc/vf.h>
#include "fault.h"

/* The slots count every reader of this device: a check, not a proof
 * that this context is the one inside.
 */
void compsc_vf_assert_held(struct compsc_vf *vf)
{
	if (!vf || !READ_ONCE(vf->assert_held))
		return;
	/* remove() tears down what it no longer reaches through the host */
	WARN_ONCE(!compsc_readers_inside(vf->reader.slots,
					 vf->reader.nr_cpu_slots + 1) &&
		  !test_bit(COMPSC_VF_STOPPING, &vf->flags),
		  "%s: device access outside the CompSC read side\n",
		  dev_name(vf->dev));
}

/*
 * Debug and test knobs, one directory per device, <driver>/<PCI device>/
 * in debugfs (the helper is linked into each driver, so the directory
 * carries the driver's name; it comes with the first device and goes with
 * the last):
 *
 * compsc_assert_held: compsc_vf_assert_held() warns (off by default)
 * compsc_stall_ms: the next process-context entry (compsc_vf_enter(), e.g.
 *	the driver's watchdog) made while nobody holds RTNL stays inside the
 *	read side this long, as a guest stuck there would, so that a test can
 *	show the host's take timing out while the guest keeps its device;
 *	consumed by that entry
 * compsc_hold_max_ms: the guest's bound on a hold (compsc_vf_give_up()),
 *	COMPSC_HOLD_MAX_MS by default; a test shortens it
 * compsc_rx_stall_ms: every receive poll that reads the dirty-log flag
 *	clear waits this long (at most COMPSC_VF_RX_STALL_MAX_MS) before it
 *	handles a buffer, until a poll reads the flag set, which turns the
 *	hook off: a host that starts its log meanwhile must wait for such a
 *	poll (compsc_host_drain()), or the buffers the VF writes during the
 *	wait go unmarked. compsc_rx_stall_raced counts the stalled polls
 *	that found the flag set after their wait.
 * compsc_rx_stall_hold_ms: such a poll (one that straddled the log start)
 *	then waits this long more (at most COMPSC_VF_RX_HOLD_MAX_MS): the
 *	host's first pass needs seconds to reach every page, and only the
 *	frames the VF writes after the pass sent their page, and before this
 *	poll hands them up, are the ones a host that did not wait for it
 *	would migrate stale.
 */
static DEFINE_MUTEX(compsc_vf_debugfs_lock);	/* protects the two below */
static struct dentry *compsc_vf_debugfs;
static unsigned int compsc_vf_debugfs_users;

void compsc_vf_fault_add(struct compsc_vf *vf)
{
	struct dentry *dir;

	mutex_lock(&compsc_vf_debugfs_lock);
	if (!compsc_vf_debugfs_users++)
		compsc_vf_debugfs = debugfs_create_dir(KBUILD_MODNAME, NULL);
	dir = debugfs_create_dir(dev_name(vf->dev), compsc_vf_debugfs);
	mutex_unlock(&compsc_vf_debugfs_lock);
	debugfs_create_bool("compsc_assert_held", 0600, dir, &vf->assert_held);
	debugfs_create_u32("compsc_stall_ms", 0600, dir, &vf->stall_ms);
	debugfs_create_u32("compsc_hold_max_ms", 0600, dir, &vf->hold_max_ms);
	debugfs_create_u32("compsc_rx_stall_ms", 0600, dir, &vf->rx_stall_ms);
	debugfs_create_u32("compsc_rx_stall_raced", 0400, dir,
			   &vf->rx_stall_raced);
	debugfs_create_u32("compsc_rx_stall_hold_ms", 0600, dir,
			   &vf->rx_stall_hold_ms);
	vf->debugfs = dir;
}

/* Returns once no knob file is being read or written. */
void compsc_vf_fault_del(struct compsc_vf *vf)
{
	debugfs_remove_recursive(vf->debugfs);
	mutex_lock(&compsc_vf_debugfs_lock);
	if (!--compsc_vf_debugfs_users) {
		debugfs_remove_recursive(compsc_vf_debugfs);
		compsc_vf_debugfs = NULL;
	}
	mutex_unlock(&compsc_vf_debugfs_lock);
}

/* A reader that holds RTNL (ethtool) would stall the task's resume as well,
 * and the stack's transmit watchdog would reset the VF behind the test's
 * back: the hook stands for a reader stuck alone, so such an entry leaves
 * it to the next one.
 */
void compsc_vf_fault_stall(struct compsc_vf *vf)
{
	u32 ms;

	if (!READ_ONCE(vf->stall_ms) || rtnl_is_locked())
		return;
	ms = xchg(&vf->stall_ms, 0);
	if (!ms)
		return;
	dev_warn(vf->dev, "CompSC: test hook: inside the read side for %u ms (%s)\n",
		 ms, current->comm);
	msleep(ms);
}

/*
 * Busy: receive polls run in softirq. Both together stay well short of
 * the soft-lockup detector (20 s).
 */
#define COMPSC_VF_RX_STALL_MAX_MS	1000u
#define COMPSC_VF_RX_HOLD_MAX_MS	10000u

/* The compsc_rx_stall_ms test hook, after the receive poll's flag read. */
void compsc_vf_rx_stall(struct compsc_vf *vf, bool logging)
{
	u32 ms = min(READ_ONCE(vf->rx_stall_ms), COMPSC_VF_RX_STALL_MAX_MS);

	if (likely(!ms))
		return;
	if (logging) {
		WRITE_ONCE(vf->rx_stall_ms, 0);
		return;
	}
	mdelay(ms);
	if (!(le32_to_cpu(READ_ONCE(vf->reader.ctl->flags)) &
	      COMPSC_F_DIRTY_LOG))
		return;
	/* no message: a console write here could wait for the host's VMM */
	vf->rx_stall_raced++;
	mdelay(min(READ_ONCE(vf->rx_stall_hold_ms), COMPSC_VF_RX_HOLD_MAX_MS));
}
