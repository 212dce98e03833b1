// SPDX-License-Identifier: GPL-2.0
/*
 * The guest VF driver helper: everything of CompSC a VF driver does that
 * does not depend on the NIC (see compsc/vf.h). Linked into each driver
 * that uses it, never exported.
 */
#include <linux/delay.h>
#include <linux/dma-mapping.h>
#include <linux/err.h>
#include <linux/etherdevice.h>
#include <linux/ethtool.h>
#include <linux/gfp.h>
#include <linux/if_vlan.h>
#include <linux/io.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/rtnetlink.h>
#include <linux/slab.h>
#include <linux/timekeeping.h>
#include <compsc/vf.h>
#include "fault.h"

/* How often the task looks for a hand-back while the interface is down */
#define COMPSC_VF_DOWN_POLL	HZ

void compsc_vf_kick(struct compsc_vf *vf)
{
	if (vf)
		mod_delayed_work(system_wq, &vf->task, 0);
}

/* ---------------------------------------------------------------- counters */

static u32 compsc_vf_ctr_read(struct compsc_vf *vf, u32 i)
{
	return readl(vf->bar + vf->desc->ctrs[i].reg);
}

/* Report the totals, and publish them in the area for the host. */
static void compsc_vf_stats_publish(struct compsc_vf *vf)
{
	struct compsc_counter_desc *desc = compsc_area_counters(vf->area);
	u32 i;

	for (i = 0; i < vf->desc->nr_ctrs; i++) {
		*(u64 *)((u8 *)vf->report + vf->desc->ctrs[i].report) =
			vf->ctr[i].total;
		WRITE_ONCE(desc[i].total, cpu_to_le64(vf->ctr[i].total));
	}
}

/* Count like the stock driver: the register's own value, extended to 64
 * bits, so the driver's bases and reports mean what they always meant.
 */
static void compsc_vf_stats_init(struct compsc_vf *vf)
{
	u32 i, now;

	for (i = 0; i < vf->desc->nr_ctrs; i++) {
		now = compsc_vf_ctr_read(vf, i);
		compsc_counter_init(&vf->ctr[i], COMPSC_REG_COUNTER_RO, now);
		vf->ctr[i].total = now;
	}
}

bool compsc_vf_stats_update(struct compsc_vf *vf)
{
	u32 i;

	if (!vf)
		return false;
	for (i = 0; i < vf->desc->nr_ctrs; i++)
		compsc_counter_update(&vf->ctr[i], compsc_vf_ctr_read(vf, i));
	compsc_vf_stats_publish(vf);
	return true;
}

/* After a migration: absorb what the source device counted since our last
 * update (the host saved its final values), continue from the fresh one.
 */
static void compsc_vf_stats_rebase(struct compsc_vf *vf)
{
	struct compsc_counter_desc *desc = compsc_area_counters(vf->area);
	u32 i, now;

	for (i = 0; i < vf->desc->nr_ctrs; i++) {
		now = compsc_vf_ctr_read(vf, i);
		if (READ_ONCE(desc[i].flags) & COMPSC_CTR_F_SAVED) {
			compsc_counter_rebase(&vf->ctr[i],
					      le32_to_cpu(desc[i].hw_final), now);
			/* consumed: never absorb the same final value twice */
			WRITE_ONCE(desc[i].flags,
				   desc[i].flags & ~COMPSC_CTR_F_SAVED);
		} else {
			/* the host did not save it: the delta is lost */
			vf->ctr[i].last = now;
		}
	}
	compsc_vf_stats_publish(vf);
}

/* ---------------------------------------------------------------- replay log */

void compsc_vf_record(struct compsc_vf *vf, u32 key, const void *msg, u32 len)
{
	int err;

	if (!vf)
		return;
	spin_lock_bh(&vf->log_lock);
	err = compsc_replay_put(&vf->log, key, msg, len);
	spin_unlock_bh(&vf->log_lock);
	if (err)
		dev_warn_ratelimited(vf->dev, "CompSC: message %#x not kept: %s\n",
				     key, compsc_strerror(err));
}

void compsc_vf_forget(struct compsc_vf *vf, u32 key)
{
	if (!vf)
		return;
	spin_lock_bh(&vf->log_lock);
	compsc_replay_del(&vf->log, key);
	spin_unlock_bh(&vf->log_lock);
}

void compsc_vf_opset_begin(struct compsc_vf *vf)
{
	if (!vf)
		return;
	spin_lock_bh(&vf->log_lock);
	compsc_replay_opset_begin(&vf->log);
	spin_unlock_bh(&vf->log_lock);
}

void compsc_vf_opset_commit(struct compsc_vf *vf)
{
	int err;

	if (!vf)
		return;
	spin_lock_bh(&vf->log_lock);
	err = compsc_replay_opset_commit(&vf->log);
	spin_unlock_bh(&vf->log_lock);
	if (err)
		dev_warn(vf->dev, "CompSC: opset not kept: %s\n",
			 compsc_strerror(err));
}

void compsc_vf_mbx_sent(struct compsc_vf *vf, const u32 *msg, u16 words)
{
	if (!vf)
		return;
	vf->mbx_len = min_t(u32, words, COMPSC_VF_MBX_WORDS) * sizeof(u32);
	memcpy(vf->mbx_msg, msg, vf->mbx_len);
}

/* What is kept, and how, is compsc/mbx.h's rule, shared with compsc/uvf.h */
void compsc_vf_mbx_answered(struct compsc_vf *vf, const u32 *reply)
{
	u32 key, len;
	int err;

	if (!vf || !vf->mbx_len)
		return;
	len = vf->mbx_len;
	vf->mbx_len = 0;
	if (!compsc_mbx_acked(vf->mbx_msg, reply))
		return;
	key = vf->ops->msg_key(vf, vf->mbx_msg, &len);
	spin_lock_bh(&vf->log_lock);
	err = compsc_mbx_log(&vf->log, key, vf->mbx_msg, len);
	spin_unlock_bh(&vf->log_lock);
	if (err)
		dev_warn_ratelimited(vf->dev, "CompSC: message %#x not kept: %s\n",
				     key, compsc_strerror(err));
}

void compsc_vf_msg_sent(struct compsc_vf *vf, u32 op, const void *msg,
			u32 len)
{
	if (!vf || !vf->msg)
		return;
	spin_lock_bh(&vf->log_lock);
	clear_bit(COMPSC_VF_MSG_PENDING, &vf->flags);
	if (len <= COMPSC_VF_MSG_MAX) {
		memcpy(vf->msg, msg, len);
		vf->msg_op = op;
		vf->msg_len = len;
		set_bit(COMPSC_VF_MSG_PENDING, &vf->flags);
	}
	spin_unlock_bh(&vf->log_lock);
	if (len > COMPSC_VF_MSG_MAX)
		dev_warn_ratelimited(vf->dev, "CompSC: message %u not kept: %u bytes\n",
				     op, len);
}

void compsc_vf_msg_answered(struct compsc_vf *vf, u32 op, bool ok)
{
	int err = 0;

	if (!vf || !vf->msg)
		return;
	spin_lock_bh(&vf->log_lock);
	/* an event or a late answer to an older message: keep waiting */
	if (op == vf->msg_op &&
	    test_and_clear_bit(COMPSC_VF_MSG_PENDING, &vf->flags) && ok)
		err = vf->ops->msg_log(&vf->log, op, vf->msg, vf->msg_len);
	spin_unlock_bh(&vf->log_lock);
	if (err)
		dev_warn_ratelimited(vf->dev, "CompSC: message %u not kept: %s\n",
				     op, compsc_strerror(err));
}

/* Send what record @i stands for: 0 sent, 1 nothing to send, -errno.
 * The driver builds it in @msg: an answer to the message sent last will
 * not come anyway, the device is a fresh one.
 */
static int compsc_vf_replay_one(struct compsc_vf *vf, u32 i)
{
	const struct compsc_replay_rec *rec = compsc_replay_at(&vf->log, i);
	int n;

	if (!vf->ops->replay || !vf->msg)
		return vf->ops->send(vf, rec->data, le16_to_cpu(rec->len));
	clear_bit(COMPSC_VF_MSG_PENDING, &vf->flags);
	n = vf->ops->replay(&vf->log, i, vf->msg, COMPSC_VF_MSG_MAX);
	if (n <= 0)
		return n ? -EINVAL : 1;
	return vf->ops->send(vf, vf->msg, n);
}

/* Ask the new PF for everything the old one had been told, in order. No
 * other context writes the log meanwhile: they all back off while we
 * restore. Returns the messages sent.
 */
static u32 compsc_vf_replay(struct compsc_vf *vf)
{
	u32 i, n = compsc_replay_count(&vf->log), sent = 0;
	int err;

	for (i = 0; i < n; i++) {
		err = compsc_vf_replay_one(vf, i);
		if (err < 0)
			vf->replay_nacks++;
		sent += err != 1;
	}
	return sent;
}

/* Tell the PF where the area is, with the driver's message or ours */
static int compsc_vf_announce(struct compsc_vf *vf, u64 addr, u32 size)
{
	u32 msg[COMPSC_MBX_AREA_WORDS];
	int n;

	if (vf->ops->announce)
		return vf->ops->announce(vf, addr, size);
	n = compsc_mbx_area_encode(msg, ARRAY_SIZE(msg), addr, size);
	if (n < 0)
		return compsc_errno(n);
	return vf->ops->send(vf, msg, n * sizeof(u32));
}

/* ---------------------------------------------------------------- restore */

/* (@i - @by) modulo @count, for indices below @count */
static u16 compsc_vf_sub(u32 i, u32 by, u32 count)
{
	return i >= by ? i - by : i + count - by;
}

/* Saved value of register list entry @idx, as the host wrote it. */
static u32 compsc_vf_saved(struct compsc_vf *vf, u32 idx)
{
	return (u32)le64_to_cpu(READ_ONCE(compsc_area_saved(vf->area)[idx]));
}

/* Pointers into the descriptors (TX next_to_watch) follow the rotation */
static void compsc_vf_fix_watch(struct compsc_vf_ring *r, u32 head)
{
	u8 *bufs = r->bufs, *desc = r->desc;
	void **watch;
	u32 i, idx;

	for (i = 0; r->watch_off >= 0 && i < r->count; i++) {
		watch = (void **)(bufs + i * r->buf_size + r->watch_off);
		if (!*watch)
			continue;
		idx = ((u8 *)*watch - desc) / r->desc_size;
		*watch = desc + compsc_vf_sub(idx, head, r->count) * r->desc_size;
	}
}

/* Rotate a ring's descriptors and buffers left by @head, so that the
 * descriptor the old device would have used next sits at index 0, where
 * the fresh device starts. Nothing is freed, reallocated or unmapped.
 */
static void compsc_vf_rotate(struct compsc_vf_ring *r, u32 head)
{
	compsc_ring_rotate(r->desc, r->desc_size, r->count, head);
	compsc_ring_rotate(r->bufs, r->buf_size, r->count, head);
	compsc_vf_fix_watch(r, head);
	*r->next_to_use = compsc_vf_sub(*r->next_to_use, head, r->count);
	*r->next_to_clean = compsc_vf_sub(*r->next_to_clean, head, r->count);
}

/* Guest memory came from another host (the host said so at hand-over) */
static bool compsc_vf_mem_copied(struct compsc_vf *vf)
{
	return le32_to_cpu(READ_ONCE(vf->reader.ctl->flags)) &
	       COMPSC_F_MEM_COPIED;
}

/* The furthest the old device may have got on ring @i: what the driver
 * gave it, the tail register. A receive tail may trail next_to_use
 * (igbvf writes the last posted index); transmit tails never do.
 */
static u32 compsc_vf_ring_limit(struct compsc_vf *vf, struct compsc_vf_ring *r,
				u32 i)
{
	u32 behind = i < vf->desc->rx_rings ? vf->desc->rx_tail_behind : 0;

	return compsc_vf_sub(*r->next_to_use, behind, r->count);
}

/* Receive descriptors from the driver's next_to_clean up to the old
 * head were the old device's: it wrote their buffers after the driver
 * last marked pages dirty, so a copied memory may hold stale data there
 * while the descriptor says good (compsc_ring_stale(), the rule the
 * userspace helper shares). They become dropped frames; counted. The
 * head was checked against the ring by compsc_vf_shift_rings().
 */
static void compsc_vf_drop_stale(struct compsc_vf *vf,
				 struct compsc_vf_ring *r, u32 n)
{
	u32 i = *r->next_to_clean;

	for (; n > 0; n--, i = (i + 1) % r->count) {
		vf->ops->rx_drop(vf, (u8 *)r->desc + i * r->desc_size);
		vf->rx_dropped++;
	}
}

/* Shift every ring so its old head becomes index 0 of the fresh device;
 * returns the rings shifted. A hostile or confused host must not make us
 * index out of a ring, nor hand the device descriptors the driver did not
 * post (their buffers may be freed): a head outside next_to_clean .. the
 * ring's limit rotates nothing (-EINVAL). Each saved head is read once,
 * so the value checked is the value used. When memory moved and the
 * driver cannot drop receive descriptors: -EOPNOTSUPP (it resets).
 */
static int compsc_vf_shift_rings(struct compsc_vf *vf)
{
	struct compsc_vf_ring rings[COMPSC_VF_MAX_RINGS];
	u32 head[COMPSC_VF_MAX_RINGS];
	int done[COMPSC_VF_MAX_RINGS];	/* completed: next_to_clean .. head */
	u32 i, n, rx;
	bool copied;

	n = vf->ops->get_rings(vf, rings);
	if (n && !vf->desc->nr_regs)
		return -ENOENT;		/* no head registers: nothing saved */
	for (i = 0; i < n; i++) {
		if (rings[i].head >= vf->desc->nr_regs ||
		    *rings[i].next_to_clean >= rings[i].count)
			return -EINVAL;
		head[i] = compsc_vf_saved(vf, rings[i].head);
		done[i] = compsc_ring_stale(*rings[i].next_to_clean, head[i],
					    compsc_vf_ring_limit(vf, &rings[i], i),
					    rings[i].count);
		if (done[i] < 0)
			return -EINVAL;
	}
	copied = compsc_vf_mem_copied(vf);
	if (copied && n && !vf->ops->rx_drop)
		return -EOPNOTSUPP;
	rx = copied ? min(n, vf->desc->rx_rings) : 0;
	/* a ring without next_to_watch past the declared receive ones is a
	 * receive ring rx_drop never sees: its stale frames would pass up
	 */
	for (i = rx; copied && i < n; i++)
		if (rings[i].watch_off < 0)
			return -EOPNOTSUPP;
	for (i = 0; i < rx; i++)
		compsc_vf_drop_stale(vf, &rings[i], done[i]);
	for (i = 0; i < n; i++)
		compsc_vf_rotate(&rings[i], head[i]);
	vf->rx_shifted += n > 0 ? head[0] : 0;
	vf->tx_shifted += n > 1 ? head[1] : 0;
	return n;
}

/* The host already gave the new PF our whole configuration, registered
 * the area and did its half of the reset handshake. Stable while we are
 * inside the read side: the host writes the flag only while it holds us.
 */
static bool compsc_vf_host_configured(struct compsc_vf *vf)
{
	return le32_to_cpu(READ_ONCE(vf->reader.ctl->flags)) &
	       COMPSC_F_HOST_CONFIGURED;
}

/* The PF side of the VF: nothing to send when the host configured it.
 * Otherwise reset the VF the stock way, announce the area and replay
 * everything the old PF was told. Returns the mailbox messages sent.
 */
static u32 compsc_vf_restore_pf(struct compsc_vf *vf)
{
	if (compsc_vf_host_configured(vf)) {
		vf->host_restores++;
		return 0;
	}
	if (vf->ops->reset_pf(vf))
		dev_warn(vf->dev, "CompSC: PF did not answer the reset\n");
	if (compsc_vf_announce(vf, vf->area_dma, vf->size))
		dev_warn(vf->dev, "CompSC: new PF refused the area\n");
	return 2 + compsc_vf_replay(vf);
}

/* The guest's side of a migration's timeline (ethtool -S): the restore,
 * then how long until transmit and NAPI were restarted and until a packet
 * was sent. Guest clock; the host and the peer have their own.
 */
static u32 compsc_vf_us_since(u64 t)
{
	return min_t(u64, (ktime_get_ns() - t) / NSEC_PER_USEC, U32_MAX);
}

static void compsc_vf_tl_restored(struct compsc_vf *vf, u64 t0)
{
	vf->restore_us = compsc_vf_us_since(t0);
	vf->restored_at = ktime_get_ns();
	vf->resume_us = 0;
	vf->first_xmit_us = 0;
	vf->first_rx_us = 0;
	set_bit(COMPSC_VF_TL_RESUME, &vf->flags);
	set_bit(COMPSC_VF_TL_XMIT, &vf->flags);
	set_bit(COMPSC_VF_TL_RX, &vf->flags);
}

/* Why a restore resets the device instead of shifting rings (@n < 0) */
static const char *compsc_vf_reset_why(int n, int lost)
{
	if (lost)
		return compsc_strerror(lost);
	return n == -ENOENT ? "ring heads not saved" :
	       n == -EOPNOTSUPP ? "memory moved and receive frames cannot be dropped" :
	       "bad saved ring state";
}

/* Once per migration, inside the read side, every other context backing
 * off. The device is fresh: bring the PF side back, then shift the rings
 * and restore queue and interrupt registers. No buffer is freed and no
 * packet replayed; the driver's own reset path does not run. A hand-over
 * without state (compsc_read_state_lost(): the destination's give failed,
 * or the guest took back a device no host gave back) has no saved value
 * to restore from: the PF side is reset and replayed, then the driver
 * resets. Returns the rings restored (0: interface down; negative: the
 * driver resets).
 */
static int compsc_vf_restore(struct compsc_vf *vf)
{
	int lost = compsc_read_state_lost(&vf->reader);
	u64 t0 = ktime_get_ns();
	int n;

	vf->restores++;
	vf->restore_msgs = compsc_vf_restore_pf(vf);
	compsc_vf_stats_rebase(vf);
	n = lost ? -ENODATA : compsc_vf_shift_rings(vf);
	if (n < 0) {
		vf->state_lost += !!lost;
		dev_warn(vf->dev, "CompSC: %s, resetting\n",
			 compsc_vf_reset_why(n, lost));
		vf->netdev->netdev_ops->ndo_tx_timeout(vf->netdev, 0);
	} else if (n > 0) {
		vf->ops->restore_queues(vf);
		vf->ops->rearm_irqs(vf, true);
	}
	compsc_vf_tl_restored(vf, t0);
	/* the task tells the wire where we are now, with RTNL; not while the
	 * driver's own reset runs (its restart would race the reset's)
	 */
	if (n >= 0) {
		set_bit(COMPSC_VF_ANNOUNCE, &vf->flags);
		compsc_vf_kick(vf);
	}
	return n;
}

/* ---------------------------------------------------------------- read side */

static u64 compsc_vf_now_ns(void *ctx)
{
	return ktime_get_ns();
}

/* Process-context waits for the host: sleep, never spin */
static void compsc_vf_relax(void *ctx)
{
	usleep_range(500, 1000);
}

static int __compsc_vf_enter(struct compsc_vf *vf, unsigned int timeout_ms)
{
	int ret;

	ret = compsc_read_enter(&vf->reader, &vf->env,
				(u64)timeout_ms * NSEC_PER_MSEC);
	if (ret < 0)
		return -EBUSY;
	if (ret == COMPSC_READ_RESTORE) {
		compsc_vf_restore(vf);
		compsc_restore_done(&vf->reader);
	}
	return 0;
}

int compsc_vf_enter(struct compsc_vf *vf, unsigned int timeout_ms)
{
	if (!vf)
		return 0;
	if (!__compsc_vf_enter(vf, timeout_ms)) {
		compsc_vf_fault_stall(vf);
		return 0;
	}
	atomic64_inc(&vf->busy);
	compsc_vf_kick(vf);
	return -EBUSY;
}

void compsc_vf_leave(struct compsc_vf *vf)
{
	if (!vf)
		return;
	compsc_read_leave(&vf->reader);
}

/* The guest's bound on a hold: COMPSC_HOLD_MAX_MS (a test may shorten
 * it, debugfs compsc_hold_max_ms) of its own running time with the same
 * hold at every look (compsc_reader_hold_bound(); the paths that wait
 * look at least once a second). No host holds a running guest's device
 * that long: the one that took it is gone (a destination that could not
 * even reach the area to release it). The device is taken back as lost,
 * and the next entry restores by a reset and a replay. Returns whether it
 * was taken back.
 */
static bool compsc_vf_give_up(struct compsc_vf *vf)
{
	u32 max_ms = READ_ONCE(vf->hold_max_ms);

	if (!compsc_reader_hold_bound(&vf->reader, &vf->hold, ktime_get_ns(),
				      (u64)max_ms * NSEC_PER_MSEC))
		return false;
	dev_warn(vf->dev, "CompSC: the host held the device for %u s: taken back\n",
		 max_ms / 1000);
	return true;
}

/* The host holds the device for a bounded blackout: keep waiting, but say
 * so if it takes unreasonably long, and no longer than the bound on a hold.
 */
void compsc_vf_enter_wait(struct compsc_vf *vf)
{
	while (compsc_vf_enter(vf, COMPSC_VF_WAIT_MS))
		if (!compsc_vf_give_up(vf))
			dev_warn(vf->dev, "CompSC: host holds the device, still waiting\n");
}

void compsc_vf_enter_reset(struct compsc_vf *vf)
{
	compsc_vf_enter_wait(vf);
	if (vf)
		vf->resets++;
}

/* Transmit and NAPI, which backed off while the host held the device.
 * Neither needs RTNL: a NAPI instance being disabled refuses the schedule,
 * and a queue woken on a device going down is stopped by its close.
 */
static void compsc_vf_restart(struct compsc_vf *vf)
{
	struct net_device *netdev = vf->netdev;
	struct napi_struct *napi;

	if (netif_carrier_ok(netdev))
		netif_tx_wake_all_queues(netdev);
	rcu_read_lock();	/* as netpoll: netif_napi_del() waits for us */
	list_for_each_entry_rcu(napi, &netdev->napi_list, dev_list)
		napi_schedule(napi);
	rcu_read_unlock();
	if (test_and_clear_bit(COMPSC_VF_TL_RESUME, &vf->flags))
		vf->resume_us = compsc_vf_us_since(vf->restored_at);
}

/* A restore with nothing to send and nothing that sleeps runs in the
 * atomic context that found it: handing it to the task costs a scheduling
 * round, a second and more on a loaded host. Transmit and receive restart
 * here too, without waiting for the interrupts the restore raised (their
 * way to the guest may not be set up yet on the new host); the task still
 * runs the rest of the resume.
 */
static bool compsc_vf_restore_here(struct compsc_vf *vf)
{
	if (!vf->desc->restore_atomic || !compsc_vf_host_configured(vf))
		return false;
	if (compsc_vf_restore(vf) > 0)
		compsc_vf_restart(vf);
	compsc_restore_done(&vf->reader);
	compsc_vf_kick(vf);
	return true;
}

/* An atomic entry did not get in: the host holds the device, or this is
 * the first entry after a migration. A restore that may sleep (mailbox)
 * is given back for the task to take.
 */
bool __compsc_vf_tryenter_slow(struct compsc_vf *vf, int ret)
{
	if (ret == COMPSC_READ_RESTORE) {
		if (compsc_vf_restore_here(vf))
			return true;
		compsc_read_exit(&vf->reader, smp_processor_id());
		compsc_restore_cancel(&vf->reader);
	}
	preempt_enable();
	atomic64_inc(&vf->busy);
	compsc_vf_kick(vf);
	return false;
}

bool compsc_vf_tryenter_rx_mode(struct compsc_vf *vf)
{
	if (compsc_vf_tryenter(vf))
		return true;
	set_bit(COMPSC_VF_RX_MODE_PENDING, &vf->flags);
	compsc_vf_kick(vf);
	return false;
}

bool compsc_vf_tryenter_xmit(struct compsc_vf *vf)
{
	if (compsc_vf_tryenter(vf)) {
		/* (no vf: stock mode) */
		if (vf && unlikely(test_bit(COMPSC_VF_TL_XMIT, &vf->flags)) &&
		    test_and_clear_bit(COMPSC_VF_TL_XMIT, &vf->flags))
			vf->first_xmit_us = compsc_vf_us_since(vf->restored_at);
		return true;
	}
	/* kicked again after the stop, so that the wake cannot come first */
	netif_stop_queue(vf->netdev);
	compsc_vf_kick(vf);
	return false;
}

int compsc_vf_run(struct compsc_vf *vf, unsigned int timeout_ms,
		  void (*fn)(struct work_struct *work), struct work_struct *work)
{
	if (compsc_vf_enter(vf, timeout_ms))
		return -EBUSY;
	fn(work);
	compsc_vf_leave(vf);
	return 0;
}

int compsc_vf_napi_poll(struct napi_struct *napi, int budget,
			int (*poll)(struct napi_struct *napi, int budget))
{
	struct compsc_vf *vf = compsc_vf_of(napi->dev);
	int done;

	if (!compsc_vf_tryenter(vf)) {
		napi_complete_done(napi, 0);
		return 0;
	}
	done = poll(napi, budget);
	if (vf && unlikely(test_bit(COMPSC_VF_TL_RX, &vf->flags)) && done &&
	    test_and_clear_bit(COMPSC_VF_TL_RX, &vf->flags))
		vf->first_rx_us = compsc_vf_us_since(vf->restored_at);
	compsc_vf_exit(vf);
	return done;
}

/* ---------------------------------------------------------------- pending config */

/* A configuration change found the host holding the device: the stack's
 * view takes it at once (the MTU, the address; 8021q keeps its own VLAN
 * list), the device once the task is back. Under RTNL, like the task's
 * apply, so the two never race; an entry that gets in applies the newest
 * value itself, which is then no longer pending.
 */
static void compsc_vf_cfg_note(struct compsc_vf *vf, int what, const void *arg)
{
	u16 vid;

	switch (what) {
	case COMPSC_VF_CFG_MTU:
		WRITE_ONCE(vf->netdev->mtu, *(const int *)arg);
		break;
	case COMPSC_VF_CFG_MAC:	/* what to go back to if the PF refuses */
		if (!test_bit(COMPSC_VF_CFG_MAC, &vf->cfg))
			ether_addr_copy(vf->mac_applied, vf->netdev->dev_addr);
		eth_hw_addr_set(vf->netdev, arg);
		break;
	default:	/* one bit for all VLANs, the filters in vlan_pending */
		vid = *(const u16 *)arg & VLAN_VID_MASK;
		assign_bit(vid, vf->vlan_want, what == COMPSC_VF_CFG_VLAN_ADD);
		set_bit(vid, vf->vlan_pending);
		what = COMPSC_VF_CFG_VLAN_ADD;
		break;
	}
	set_bit(what, &vf->cfg);
}

/* RTNL paths (MTU, address, VLAN filters) never wait for the host: the
 * task needs RTNL for the resume after a restore, and a host's PF may
 * need it while it holds the device (the bench: one kernel). A change
 * that found the device held succeeds, and the task applies it later.
 */
static bool compsc_vf_updown_pending(struct compsc_vf *vf)
{
	return READ_ONCE(vf->cfg) & (BIT(COMPSC_VF_CFG_OPEN) |
				     BIT(COMPSC_VF_CFG_CLOSE));
}

int compsc_vf_enter_cfg(struct compsc_vf *vf, int what, const void *arg)
{
	if (!vf)
		return 0;
	ASSERT_RTNL();
	/* the driver's up/down state is not netif_running()'s: later too */
	if (!compsc_vf_updown_pending(vf) && !compsc_vf_enter(vf, 0)) {
		if (what >= COMPSC_VF_CFG_VLAN_ADD)
			clear_bit(*(const u16 *)arg & VLAN_VID_MASK,
				  vf->vlan_pending);
		else
			clear_bit(what, &vf->cfg);
		return 0;
	}
	compsc_vf_cfg_note(vf, what, arg);
	vf->cfg_deferred++;	/* RTNL serialises */
	compsc_vf_kick(vf);
	return 1;
}

/* Open and close never wait for the host either: while it holds the
 * device the driver stays as it is, down for an open, up for a close, and
 * the task calls ndo_open or ndo_stop again once the device is back. A
 * close then an open (or the reverse) meanwhile leave nothing to do. Only
 * while the netdev is unregistered (remove) do they still wait: the
 * driver must be down before remove frees its interrupts.
 */
static int compsc_vf_defer_updown(struct compsc_vf *vf, int what)
{
	int undo = what == COMPSC_VF_CFG_OPEN ?
		   COMPSC_VF_CFG_CLOSE : COMPSC_VF_CFG_OPEN;

	if (test_and_clear_bit(undo, &vf->cfg))
		return 1;
	if (test_bit(COMPSC_VF_NO_DEFER, &vf->flags) || vf->netdev->dismantle) {
		clear_bit(what, &vf->cfg);	/* the caller waits */
		return -EAGAIN;
	}
	if (!compsc_vf_enter(vf, 0)) {
		clear_bit(what, &vf->cfg);
		return 0;
	}
	set_bit(what, &vf->cfg);
	vf->cfg_deferred++;	/* RTNL serialises */
	compsc_vf_kick(vf);
	return 1;
}

int compsc_vf_enter_open(struct compsc_vf *vf)
{
	int ret;

	if (!vf)
		return 0;
	ASSERT_RTNL();
	ret = compsc_vf_defer_updown(vf, COMPSC_VF_CFG_OPEN);
	if (ret != -EAGAIN)
		return ret;
	return compsc_vf_enter(vf, COMPSC_VF_WAIT_MS);
}

int compsc_vf_enter_close(struct compsc_vf *vf)
{
	int ret;

	if (!vf)
		return 0;
	ASSERT_RTNL();
	ret = compsc_vf_defer_updown(vf, COMPSC_VF_CFG_CLOSE);
	if (ret != -EAGAIN)
		return ret;
	compsc_vf_enter_wait(vf);
	return 0;
}

/* Under RTNL, outside the read side. An open that fails now is undone
 * in the stack too (its close finds the open pending and returns).
 */
static void compsc_vf_apply_updown(struct compsc_vf *vf)
{
	struct net_device *netdev = vf->netdev;
	int err;

	if (test_bit(COMPSC_VF_CFG_CLOSE, &vf->cfg)) {
		netdev->netdev_ops->ndo_stop(netdev);
		return;
	}
	if (!test_bit(COMPSC_VF_CFG_OPEN, &vf->cfg))
		return;
	err = netdev->netdev_ops->ndo_open(netdev);
	if (!err)
		return;
	dev_warn(vf->dev, "CompSC: open failed after a migration (%d), closing\n",
		 err);
	set_bit(COMPSC_VF_CFG_OPEN, &vf->cfg);
	dev_close(netdev);
}

void compsc_vf_settle(struct compsc_vf *vf, bool for_good)
{
	if (!vf)
		return;
	rtnl_lock();
	if (for_good)
		set_bit(COMPSC_VF_NO_DEFER, &vf->flags);
	while (compsc_vf_updown_pending(vf)) {
		rtnl_unlock();
		compsc_vf_enter_wait(vf);	/* the host gives it back */
		compsc_vf_leave(vf);
		rtnl_lock();
		compsc_vf_apply_updown(vf);
	}
	rtnl_unlock();
}

/* The address the stack took. The driver's entry clears the bit, or
 * keeps it (and @mac_applied) when the host holds the device again. A
 * refusal by the PF puts the old address back, through the stack, so that
 * its view and the device's agree again.
 */
static void compsc_vf_apply_mac(struct compsc_vf *vf)
{
	struct net_device *netdev = vf->netdev;
	struct sockaddr sa = { .sa_family = netdev->type };
	int err;

	if (!test_bit(COMPSC_VF_CFG_MAC, &vf->cfg))
		return;
	memcpy(sa.sa_data, netdev->dev_addr, ETH_ALEN);
	err = netdev->netdev_ops->ndo_set_mac_address(netdev, &sa);
	if (!err)
		return;
	clear_bit(COMPSC_VF_CFG_MAC, &vf->cfg);
	dev_warn(vf->dev, "CompSC: address %pM refused after a migration (%d), back to %pM\n",
		 sa.sa_data, err, vf->mac_applied);
	memcpy(sa.sa_data, vf->mac_applied, ETH_ALEN);
	dev_set_mac_address(netdev, &sa, NULL);
}

static void compsc_vf_apply_mtu(struct compsc_vf *vf)
{
	struct net_device *netdev = vf->netdev;
	int err;

	if (!test_bit(COMPSC_VF_CFG_MTU, &vf->cfg))
		return;
	/* as for the address: the driver's entry clears the bit */
	err = netdev->netdev_ops->ndo_change_mtu(netdev, READ_ONCE(netdev->mtu));
	if (!err)
		return;
	clear_bit(COMPSC_VF_CFG_MTU, &vf->cfg);
	dev_warn(vf->dev, "CompSC: MTU %u not applied after a migration: %d\n",
		 READ_ONCE(netdev->mtu), err);
}

/* Each VLAN filter touched meanwhile, to what 8021q last asked for */
static void compsc_vf_apply_vlans(struct compsc_vf *vf)
{
	const struct net_device_ops *ops = vf->netdev->netdev_ops;
	__be16 proto = htons(ETH_P_8021Q);
	bool add;
	u16 vid;
	int err;

	if (!test_and_clear_bit(COMPSC_VF_CFG_VLAN_ADD, &vf->cfg))
		return;
	for_each_set_bit(vid, vf->vlan_pending, VLAN_N_VID) {
		clear_bit(vid, vf->vlan_pending);
		add = test_bit(vid, vf->vlan_want);
		err = add ? ops->ndo_vlan_rx_add_vid(vf->netdev, proto, vid) :
			    ops->ndo_vlan_rx_kill_vid(vf->netdev, proto, vid);
		if (err)
			dev_warn(vf->dev, "CompSC: VLAN %u not %s after a migration: %d\n",
				 vid, add ? "added" : "removed", err);
	}
}

/* Under RTNL, outside the read side: what the driver left to us goes to
 * its ndo's again, the stack's latest view of each. The PF keeps MAC,
 * frame size and VLAN filters apart, so one order serves. Should the host
 * hold the device once more, the driver finds it held and leaves the
 * change to the next round.
 */
static void compsc_vf_apply_cfg(struct compsc_vf *vf)
{
	if (!READ_ONCE(vf->cfg) ||
	    vf->netdev->reg_state != NETREG_REGISTERED)	/* being removed */
		return;
	compsc_vf_apply_updown(vf);
	compsc_vf_apply_mac(vf);
	compsc_vf_apply_mtu(vf);
	compsc_vf_apply_vlans(vf);
}

/* ethtool runs under RTNL, which the task needs for its part of the
 * resume after a restore. Waiting here for the host would keep RTNL
 * through the whole blackout and that resume: ethtool gets -EBUSY while
 * the host holds the device.
 */
int compsc_vf_ethtool_begin(struct net_device *netdev)
{
	struct compsc_vf *vf = compsc_vf_of(netdev);

	if (vf && compsc_vf_updown_pending(vf))
		return -EBUSY;	/* (ring sizes, tests: by netif_running()) */
	return compsc_vf_enter(vf, 0);
}

void compsc_vf_ethtool_complete(struct net_device *netdev)
{
	compsc_vf_leave(compsc_vf_of(netdev));
}

/* Restart what backed off while the host held the device. */
static void compsc_vf_resume(struct compsc_vf *vf)
{
	struct net_device *netdev = vf->netdev;

	if (test_and_clear_bit(COMPSC_VF_RX_MODE_PENDING, &vf->flags)) {
		netif_addr_lock_bh(netdev);
		netdev->netdev_ops->ndo_set_rx_mode(netdev);
		netif_addr_unlock_bh(netdev);
	}
	local_bh_disable();	/* the softirq runs NAPI as we enable BHs */
	compsc_vf_restart(vf);
	local_bh_enable();
}

/* After a restore the guest may sit behind another host's port: until it
 * sends, the switches keep its MAC where it was and its frames go to the
 * host it left. Announce it as a VM whose virtio-net NIC moved does
 * (gratuitous ARP, unsolicited neighbour advertisements, IGMP reports),
 * on every restore: the guest cannot tell whether it changed host.
 * Called with RTNL held.
 */
static void compsc_vf_announce_moved(struct compsc_vf *vf)
{
	if (test_and_clear_bit(COMPSC_VF_ANNOUNCE, &vf->flags)) {
		__netdev_notify_peers(vf->netdev);
		vf->announces++;
	}
}

/* The host holds the device (a pre-copy take may last seconds): a queue
 * stopped for it is not a hung one, and the stack's transmit watchdog must
 * not reset the VF over it. Refreshed at least once a second by the task,
 * which loops for as long as the hold lasts once a context found it.
 */
static void compsc_vf_hold_txq(struct compsc_vf *vf)
{
	struct net_device *netdev = vf->netdev;
	unsigned int i;

	for (i = 0; i < netdev->num_tx_queues; i++)
		txq_trans_cond_update(netdev_get_tx_queue(netdev, i));
}

/* Runs whenever a path found the host holding the device, and while the
 * interface is down. The wait for the host happens without locks; the
 * configuration left to it and the restart hold RTNL so that they do not
 * race with close or an MTU change taking the interface down.
 */
static void compsc_vf_task(struct work_struct *work)
{
	struct compsc_vf *vf = container_of(to_delayed_work(work),
					    struct compsc_vf, task);
	struct compsc_vf_ring rings[COMPSC_VF_MAX_RINGS];
	unsigned long retry = msecs_to_jiffies(10);

	if (test_bit(COMPSC_VF_STOPPING, &vf->flags))
		return;
	if (__compsc_vf_enter(vf, 1000)) {
		compsc_vf_hold_txq(vf);
		compsc_vf_give_up(vf);
		goto requeue;
	}
	WRITE_ONCE(vf->hold.since_ns, 0);
	compsc_vf_leave(vf);

	retry = 1;
	if (!rtnl_trylock())
		goto requeue;
	compsc_vf_apply_cfg(vf);
	if (!netif_running(vf->netdev) || compsc_vf_updown_pending(vf) ||
	    !vf->ops->get_rings(vf, rings)) {
		rtnl_unlock();
		/* Down, nothing else enters the read side: a hand-back would
		 * never be restored and the host would refuse to migrate the
		 * VF again. Look once a second.
		 */
		retry = COMPSC_VF_DOWN_POLL;
		goto requeue;
	}
	if (__compsc_vf_enter(vf, 0)) {
		rtnl_unlock();
		goto requeue;
	}
	/* what fired while the host held the device was masked, not handled */
	vf->ops->rearm_irqs(vf, false);
	compsc_vf_leave(vf);
	compsc_vf_resume(vf);
	compsc_vf_announce_moved(vf);
	rtnl_unlock();
	return;

requeue:
	schedule_delayed_work(&vf->task, retry);
}

/* ---------------------------------------------------------------- life cycle */

/* Lay the area out and list what the host must save for us. */
static int compsc_vf_layout(struct compsc_vf *vf)
{
	const struct compsc_vf_desc *d = vf->desc;
	struct compsc_layout_req req = {
		.nr_cpus = min_t(u32, nr_cpu_ids, COMPSC_MAX_SLOTS - 1),
		.reg_max = d->nr_regs,
		.counter_max = d->nr_ctrs,
		.replay_recs = d->replay_recs,
	};
	void *mem;
	u32 i;
	int err;

	vf->size = compsc_area_size(&req);
	if (!vf->size)
		return -EINVAL;
	vf->order = get_order(vf->size);
	/* The host reaches it the way the VF reaches guest memory, by a DMA
	 * address (behind a vIOMMU that is not the guest-physical one):
	 * contiguous, zeroed, never moved.
	 */
	vf->area = dma_alloc_coherent(vf->dev, PAGE_SIZE << vf->order,
				      &vf->area_dma, GFP_KERNEL);
	if (!vf->area)
		return -ENOMEM;
	err = compsc_area_init(vf->area, PAGE_SIZE << vf->order, &req);
	for (i = 0; !err && i < d->nr_regs; i++)
		err = compsc_area_add_reg(vf->area, 0, d->regs[i], 4,
					  COMPSC_REG_PLAIN);
	for (i = 0; !err && i < d->nr_ctrs; i++) {
		err = compsc_area_add_counter(vf->area, 0, d->ctrs[i].reg,
					      COMPSC_REG_COUNTER_RO);
		if (err > 0)
			err = 0;
	}
	if (!err)
		err = compsc_reader_init(&vf->reader, vf->area);
	mem = compsc_area_replay(vf->area);
	if (!err)
		err = compsc_replay_init(&vf->log, mem,
					 le32_to_cpu(vf->area->replay_len),
					 vf->stage, d->replay_recs);
	return compsc_errno(err);
}

static void compsc_vf_free(struct compsc_vf *vf)
{
	if (vf->area)
		dma_free_coherent(vf->dev, PAGE_SIZE << vf->order, vf->area,
				  vf->area_dma);
	kfree(vf->msg);
	kfree(vf->stage);
	kfree(vf);
}

static struct compsc_vf *compsc_vf_alloc(const struct compsc_vf_desc *desc,
					 const struct compsc_vf_ops *ops)
{
	struct compsc_vf *vf;

	if (desc->nr_regs > COMPSC_MAX_REGS || desc->nr_ctrs > COMPSC_MAX_REGS)
		return NULL;
	vf = kzalloc(struct_size(vf, ctr, desc->nr_ctrs), GFP_KERNEL);
	if (!vf)
		return NULL;
	vf->stage = kcalloc(desc->replay_recs, sizeof(*vf->stage), GFP_KERNEL);
	if (ops->msg_log)
		vf->msg = kmalloc(COMPSC_VF_MSG_MAX, GFP_KERNEL);
	if (!vf->stage || (ops->msg_log && !vf->msg)) {
		kfree(vf->msg);
		kfree(vf->stage);
		kfree(vf);
		return NULL;
	}
	return vf;
}

struct compsc_vf *compsc_vf_probe(struct net_device *netdev, void *priv,
				  void __iomem *bar,
				  const struct compsc_vf_desc *desc,
				  const struct compsc_vf_ops *ops, void *report)
{
	struct compsc_vf *vf = compsc_vf_alloc(desc, ops);
	int err;

	if (!vf)
		return ERR_PTR(-ENOMEM);
	vf->priv = priv;
	vf->netdev = netdev;
	vf->dev = netdev->dev.parent;
	vf->bar = bar;
	vf->desc = desc;
	vf->ops = ops;
	vf->report = report;
	vf->hold_max_ms = COMPSC_HOLD_MAX_MS;
	spin_lock_init(&vf->log_lock);
	vf->env.now_ns = compsc_vf_now_ns;
	vf->env.relax = compsc_vf_relax;
	INIT_DELAYED_WORK(&vf->task, compsc_vf_task);
	err = compsc_vf_layout(vf);
	if (!err)
		err = compsc_vf_announce(vf, vf->area_dma, vf->size);
	if (err) {
		dev_info(vf->dev, "CompSC: not available (%d), running stock\n",
			 err);
		compsc_vf_free(vf);
		return ERR_PTR(err);
	}
	compsc_vf_stats_init(vf);
	compsc_vf_fault_add(vf);
	netdev->ml_priv = vf;
	compsc_vf_kick(vf);	/* the interface starts down */
	dev_info(vf->dev, "CompSC: shared area of %u bytes registered\n",
		 vf->size);
	return vf;
}

/*
 * After the PF forgot the area: a host that claimed it just before may be
 * draining readers now; it lets go as soon as it finds the registration
 * gone (compsc_host_take_registered()). The pages go back to the allocator
 * only once the writer word reads WITHDRAWN (compsc_reader_withdraw()),
 * which no host claims again: false if a host kept it longer than we wait.
 */
static bool compsc_vf_withdraw(struct compsc_vf *vf)
{
	unsigned long end = jiffies + msecs_to_jiffies(COMPSC_VF_WAIT_MS);

	while (compsc_reader_withdraw(vf->reader.ctl)) {
		if (time_after(jiffies, end))
			return false;
		usleep_range(500, 1000);
	}
	return true;
}

void compsc_vf_remove(struct compsc_vf *vf)
{
	int err;

	if (!vf)
		return;
	set_bit(COMPSC_VF_STOPPING, &vf->flags);
	compsc_vf_fault_del(vf);
	cancel_delayed_work_sync(&vf->task);
	vf->netdev->ml_priv = NULL;
	/* The withdrawal is a mailbox message, so device access: inside the
	 * read side, where no take completes, waiting a bounded time for a
	 * host that holds the device (no kick: the task is gone). Once the
	 * PF forgot the area no host starts a take on it. If the host kept
	 * the device or the PF did not confirm, the host may still write into
	 * the pages: leaking them is the only safe choice.
	 */
	if (__compsc_vf_enter(vf, COMPSC_VF_WAIT_MS)) {
		dev_warn(vf->dev, "CompSC: host still holds the device, leaking the area\n");
		vf->area = NULL;
	} else {
		err = compsc_vf_announce(vf, 0, 0);
		compsc_vf_leave(vf);
		if (!err && !compsc_vf_withdraw(vf))
			err = -EBUSY;
		if (err) {
			dev_warn(vf->dev, "CompSC: area not unregistered, leaking it\n");
			vf->area = NULL;
		}
	}
	compsc_vf_free(vf);
}

/* ---------------------------------------------------------------- ethtool -S */

static const char compsc_vf_stat_names[COMPSC_VF_STATS_LEN][ETH_GSTRING_LEN] = {
	"compsc_mode",
	"compsc_restores",
	"compsc_rx_shift_total",
	"compsc_tx_shift_total",
	"compsc_busy",
	"compsc_dirty_pages",
	"compsc_resets",
	"compsc_replay_nacks",
	"compsc_host_restores",
	"compsc_restore_msgs",
	"compsc_restore_us",
	"compsc_resume_us",
	"compsc_first_xmit_us",
	"compsc_rx_stale_dropped",
	"compsc_cfg_deferred",
	"compsc_first_rx_us",
	"compsc_state_lost",
	"compsc_announces",
};

void compsc_vf_get_strings(struct compsc_vf *vf, u8 *data)
{
	if (vf)
		memcpy(data, compsc_vf_stat_names, sizeof(compsc_vf_stat_names));
}

/* Read without the read side: a torn value only ever shows in a report. */
void compsc_vf_get_stats(struct compsc_vf *vf, u64 *data)
{
	if (!vf)
		return;
	data[0] = 1;
	data[1] = vf->restores;
	data[2] = vf->rx_shifted;
	data[3] = vf->tx_shifted;
	data[4] = atomic64_read(&vf->busy);
	data[5] = vf->dirty_pages;
	data[6] = vf->resets;
	data[7] = vf->replay_nacks;
	data[8] = vf->host_restores;
	data[9] = vf->restore_msgs;
	data[10] = vf->restore_us;
	data[11] = vf->resume_us;
	data[12] = vf->first_xmit_us;
	data[13] = vf->rx_dropped;
	data[14] = vf->cfg_deferred;
	data[15] = vf->first_rx_us;
	data[16] = vf->state_lost;
	data[17] = vf->announces;
}
