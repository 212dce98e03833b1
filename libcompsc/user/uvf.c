// SPDX-License-Identifier: (GPL-2.0 OR BSD-3-Clause)
/*
 * The VF helper for userspace drivers (compsc/uvf.h). Userspace only: it
 * is linked into a poll-mode driver, never into the kernel module.
 */
#include <compsc/uvf.h>
#include <compsc/mbx.h>

/* The layout @d asks for; the slots are capped at what the ABI holds. */
static int __compsc_uvf_req(const struct compsc_uvf_desc *d,
			    struct compsc_layout_req *req)
{
	if (!d || !d->nr_slots)
		return -COMPSC_EINVAL;
	req->nr_cpus = d->nr_slots < COMPSC_MAX_SLOTS - 1 ?
		       d->nr_slots : COMPSC_MAX_SLOTS - 1;
	req->reg_max = d->nr_regs;
	req->counter_max = d->nr_ctrs;
	req->replay_recs = d->replay_recs;
	return 0;
}

u32 compsc_uvf_area_size(const struct compsc_uvf_desc *d)
{
	struct compsc_layout_req req;

	if (__compsc_uvf_req(d, &req))
		return 0;
	return compsc_area_size(&req);
}

/* The area's sections: the register list the host saves, the reader. */
static int __compsc_uvf_layout(struct compsc_uvf *vf, void *mem, u32 len,
			       const struct compsc_uvf_desc *d)
{
	struct compsc_layout_req req;
	u32 i;
	int err;

	err = __compsc_uvf_req(d, &req);
	if (!err)
		err = compsc_area_init(mem, len, &req);
	for (i = 0; !err && i < d->nr_regs; i++)
		err = compsc_area_add_reg(mem, 0, d->regs[i], 4,
					  COMPSC_REG_PLAIN);
	for (i = 0; !err && i < d->nr_ctrs; i++) {
		err = compsc_area_add_counter(mem, 0, d->ctrs[i],
					      COMPSC_REG_COUNTER_RO);
		err = err < 0 ? err : 0;
	}
	if (!err)
		err = compsc_reader_init(&vf->reader, mem);
	/* no opsets yet: the PMD records single messages */
	if (!err)
		err = compsc_replay_init(&vf->log, compsc_area_replay(mem),
				le32_to_cpu(((struct compsc_area_hdr *)mem)->replay_len),
				NULL, 0);
	return err;
}

int compsc_uvf_init(struct compsc_uvf *vf, void *mem, u32 len, u64 iova,
		    const struct compsc_uvf_desc *d,
		    const struct compsc_uvf_ops *ops, void *priv,
		    const struct compsc_env *env, u64 wait_ns)
{
	u32 size = compsc_uvf_area_size(d);
	int err;

	if (!vf || !mem || !ops || !ops->send || !env || !env->now_ns ||
	    !env->relax || !size || (iova & (COMPSC_MBX_PAGE - 1)))
		return -COMPSC_EINVAL;
	memset(vf, 0, sizeof(*vf));
	err = __compsc_uvf_layout(vf, mem, len, d);
	if (err)
		return err;
	vf->area = mem;
	vf->iova = iova;
	vf->size = size;
	vf->ops = ops;
	vf->priv = priv;
	vf->env = *env;
	vf->wait_ns = wait_ns;
	vf->hold_max_ns = (u64)COMPSC_HOLD_MAX_MS * 1000000;
	vf->nr_regs = d->nr_regs;
	vf->nr_ctrs = d->nr_ctrs;
	return 0;
}

/* The one registration message (compsc/mbx.h), for @iova/@size or 0/0. */
static int __compsc_uvf_announce(struct compsc_uvf *vf, u64 iova, u32 size)
{
	u32 msg[COMPSC_MBX_AREA_WORDS];
	int n = compsc_mbx_area_encode(msg, COMPSC_MBX_AREA_WORDS, iova, size);

	if (n < 0)
		return n;
	return vf->ops->send(vf, msg, (u32)n);
}

int compsc_uvf_register(struct compsc_uvf *vf)
{
	int err;

	if (!vf || !vf->area || vf->registered)
		return -COMPSC_ESTATE;
	/* no host knows the area yet: nothing to synchronise with */
	err = __compsc_uvf_announce(vf, vf->iova, vf->size);
	if (!err)
		vf->registered = 1;
	return err;
}

int compsc_uvf_unregister(struct compsc_uvf *vf)
{
	u64 start;
	int err;

	if (!vf || !vf->registered)
		return -COMPSC_ESTATE;
	/* the message is device access: inside, so no take completes */
	err = compsc_uvf_enter(vf);
	if (err)
		return err;
	err = __compsc_uvf_announce(vf, 0, 0);
	compsc_uvf_leave(vf);
	if (err)
		return err;
	vf->registered = 0;
	/*
	 * A host that claimed the writer just before may still hold it; the
	 * memory is the caller's to free once no host can claim it again.
	 */
	start = vf->env.now_ns(vf->env.ctx);
	while (compsc_reader_withdraw(vf->reader.ctl)) {
		if (vf->env.now_ns(vf->env.ctx) - start >= vf->wait_ns)
			return -COMPSC_ETIMEDOUT;
		vf->env.relax(vf->env.ctx);
	}
	return 0;
}

/*
 * A migration happened and this entry claimed the restore: run the
 * driver's, or (no restore op yet) back out so the device stays unused.
 */
static int __compsc_uvf_restore(struct compsc_uvf *vf)
{
	if (vf->ops->restore && !vf->ops->restore(vf)) {
		if (compsc_uvf_state_lost(vf))
			__atomic_fetch_add(&vf->state_lost, 1,
					   __ATOMIC_RELAXED);
		compsc_restore_done(&vf->reader);
		__atomic_fetch_add(&vf->restores, 1, __ATOMIC_RELAXED);
		return 0;
	}
	if (!vf->ops->restore)
		__atomic_fetch_add(&vf->restore_missing, 1, __ATOMIC_RELAXED);
	compsc_restore_cancel(&vf->reader);
	return -COMPSC_EBUSY;
}

/*
 * An entry backed off: is the host still holding the same hold, and for
 * how long? See __compsc_uvf_slow() in compsc/uvf.h.
 */
static void __compsc_uvf_hold_bound(struct compsc_uvf *vf)
{
	if (compsc_reader_hold_bound(&vf->reader, &vf->hold, vf->env.now_ns(vf->env.ctx),
				     vf->hold_max_ns))
		__atomic_fetch_add(&vf->given_up, 1, __ATOMIC_RELAXED);
}

int __compsc_uvf_slow(struct compsc_uvf *vf, u32 slot, int ret)
{
	if (ret == COMPSC_READ_RESTORE) {
		ret = __compsc_uvf_restore(vf);
		if (!ret)
			return 0;
		compsc_read_exit(&vf->reader, slot);
	}
	__atomic_fetch_add(&vf->busy, 1, __ATOMIC_RELAXED);
	__compsc_uvf_hold_bound(vf);
	return ret;
}

int compsc_uvf_enter(struct compsc_uvf *vf)
{
	int ret = compsc_read_enter(&vf->reader, &vf->env, vf->wait_ns);

	if (ret == COMPSC_READ_RESTORE) {
		ret = __compsc_uvf_restore(vf);
		if (ret)
			compsc_read_leave(&vf->reader);
	}
	if (ret) {
		__atomic_fetch_add(&vf->busy, 1, __ATOMIC_RELAXED);
		__compsc_uvf_hold_bound(vf);
	}
	return ret;
}

void compsc_uvf_leave(struct compsc_uvf *vf)
{
	compsc_read_leave(&vf->reader);
}

int compsc_uvf_state_lost(const struct compsc_uvf *vf)
{
	return compsc_read_state_lost(&vf->reader);
}

int compsc_uvf_saved(struct compsc_uvf *vf, u32 i, u32 *val)
{
	if (!vf || !vf->area || i >= vf->nr_regs || !val)
		return -COMPSC_EINVAL;
	/* a past migration's, or nothing: never a ring shift from them */
	if (compsc_uvf_state_lost(vf))
		return -COMPSC_ENOSTATE;
	*val = (u32)le64_to_cpu(READ_ONCE(compsc_area_saved(vf->area)[i]));
	return 0;
}

/* Stable inside the read side: the host writes the flags only while it holds the device. */
static u32 __compsc_uvf_flags(const struct compsc_uvf *vf)
{
	return le32_to_cpu(READ_ONCE(vf->reader.ctl->flags));
}

int compsc_uvf_host_configured(const struct compsc_uvf *vf)
{
	return !!(__compsc_uvf_flags(vf) & COMPSC_F_HOST_CONFIGURED);
}

int compsc_uvf_mem_copied(const struct compsc_uvf *vf)
{
	return !!(__compsc_uvf_flags(vf) & COMPSC_F_MEM_COPIED);
}

int compsc_uvf_ctr_final(struct compsc_uvf *vf, u32 i, u32 *final)
{
	struct compsc_counter_desc *c;

	if (!vf || !vf->area || i >= vf->nr_ctrs || !final)
		return -COMPSC_EINVAL;
	c = &compsc_area_counters(vf->area)[i];
	/* compsc_host_give_lost() clears them; a stale one is never absorbed */
	if (compsc_uvf_state_lost(vf) ||
	    !(READ_ONCE(c->flags) & COMPSC_CTR_F_SAVED))
		return 0;
	*final = le32_to_cpu(READ_ONCE(c->hw_final));
	/* the host writes it only while it holds the device: not now */
	WRITE_ONCE(c->flags, c->flags & ~COMPSC_CTR_F_SAVED);
	return 1;
}

/* ---- the replay log ------------------------------------------------------ */

void compsc_uvf_mbx_sent(struct compsc_uvf *vf, const u32 *msg, u32 nwords)
{
	if (!vf || !vf->ops->msg_key)
		return;
	if (nwords > COMPSC_UVF_MBX_WORDS)
		nwords = COMPSC_UVF_MBX_WORDS;
	memcpy(vf->mbx_msg, msg, nwords * sizeof(u32));
	vf->mbx_len = nwords * (u32)sizeof(u32);
}

static int __compsc_uvf_log(struct compsc_uvf *vf, u32 key, const u32 *msg,
			    u32 len)
{
	int err = compsc_mbx_log(&vf->log, key, msg, len);

	if (err == -COMPSC_ENOSPC)
		__atomic_fetch_add(&vf->replay_lost, 1, __ATOMIC_RELAXED);
	return err;
}

int compsc_uvf_mbx_answered(struct compsc_uvf *vf, const u32 *reply)
{
	u32 len, key;

	if (!vf || !vf->mbx_len)
		return 0;
	len = vf->mbx_len;
	vf->mbx_len = 0;
	if (!compsc_mbx_acked(vf->mbx_msg, reply))
		return 0;
	key = vf->ops->msg_key(vf, vf->mbx_msg, &len);
	return __compsc_uvf_log(vf, key, vf->mbx_msg, len);
}

int compsc_uvf_record(struct compsc_uvf *vf, u32 key, const u32 *msg, u32 len)
{
	if (!vf || !vf->area || !key || (key & COMPSC_MBX_KEY_DEL))
		return -COMPSC_EINVAL;
	return __compsc_uvf_log(vf, key, msg, len);
}

/* Record @i of the log to the PF: 0 acknowledged, 1 refused or failed */
static int __compsc_uvf_replay_one(struct compsc_uvf *vf, u32 i)
{
	const struct compsc_replay_rec *rec = compsc_replay_at(&vf->log, i);
	u32 msg[COMPSC_UVF_MBX_WORDS];
	u32 len = rec ? le16_to_cpu(rec->len) : 0;

	/* the driver's own log: a record it could not have sent is skipped */
	if (!len || len % sizeof(u32) || len > sizeof(msg))
		return 1;
	memcpy(msg, rec->data, len);
	return vf->ops->send(vf, msg, len / (u32)sizeof(u32)) != 0;
}

u32 compsc_uvf_pf_replay(struct compsc_uvf *vf)
{
	u32 i, n = compsc_replay_count(&vf->log);

	/* the new PF has no area yet: it cannot tell the next host of it */
	if (__compsc_uvf_announce(vf, vf->iova, vf->size))
		__atomic_fetch_add(&vf->replay_nacks, 1, __ATOMIC_RELAXED);
	for (i = 0; i < n; i++)
		if (__compsc_uvf_replay_one(vf, i))
			__atomic_fetch_add(&vf->replay_nacks, 1,
					   __ATOMIC_RELAXED);
	return 1 + n;
}
