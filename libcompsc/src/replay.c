// SPDX-License-Identifier: (GPL-2.0 OR BSD-3-Clause)
/*
 * Replay log: the driver's configuration as keyed records in the shared
 * area, so that a restore after migration replays "what is set" rather than
 * "what happened". Last write per key wins and records stay in last-write
 * order, so the log never grows with uptime and replay order is the order
 * in which the settings were last made.
 *
 * Concurrency: the log has no lock of its own. The driver changes it only
 * inside a read-side section (or with the device otherwise quiesced), and
 * the host reads it only while it holds the writer side, so the two never
 * overlap; concurrent guest writers must be serialised by the driver.
 *
 * Opsets stage writes in a caller-owned private buffer. In that buffer
 * (never in the area) rec.flags marks a staged delete.
 */
#include <compsc/compsc.h>
#include "replay_int.h"

#define COMPSC_STAGE_DEL	1u	/* staged record deletes its key */

/* Index of @key in @recs[0..n), or n when absent. */
static u32 __replay_find(const struct compsc_replay_rec *recs, u32 n, u32 key)
{
	u32 i;

	for (i = 0; i < n; i++)
		if (le32_to_cpu(recs[i].key) == key)
			break;
	return i;
}

/* Remove record @i from @recs[0..n), keeping the order of the others. */
static void __replay_remove(struct compsc_replay_rec *recs, u32 n, u32 i)
{
	memmove(&recs[i], &recs[i + 1], (size_t)(n - i - 1) * sizeof(*recs));
	memset(&recs[n - 1], 0, sizeof(*recs));
}

/*
 * Next sequence number. Records are in seq order, so when the 32-bit
 * counter would wrap they are renumbered 1..count, keeping the order and
 * the "strictly increasing" invariant attach checks.
 */
static u32 __replay_next_seq(struct compsc_replay *l)
{
	u32 seq = le32_to_cpu(l->hdr->seq), n = __replay_count(l), i;

	if (seq == 0xffffffffu) {
		for (i = 0; i < n; i++)
			l->recs[i].seq = cpu_to_le32(i + 1);
		seq = n;
	}
	l->hdr->seq = cpu_to_le32(seq + 1);
	return seq + 1;
}

/* Write @key to the log proper; the caller checked room for a new key. */
static void __replay_apply_put(struct compsc_replay *l, u32 key,
			       const void *data, u32 len)
{
	u32 n = __replay_count(l);
	u32 i = __replay_find(l->recs, n, key);

	u32 seq;

	if (i < n) {				/* moves to the end */
		__replay_remove(l->recs, n, i);
		l->hdr->count = cpu_to_le32(--n);
	}
	seq = __replay_next_seq(l);		/* may renumber recs[0..n) */
	__replay_fill(&l->recs[n], key, seq, data, len, 0);
	l->hdr->count = cpu_to_le32(n + 1);
}

static void __replay_apply_del(struct compsc_replay *l, u32 key)
{
	u32 n = __replay_count(l);
	u32 i = __replay_find(l->recs, n, key);

	if (i == n)
		return;
	__replay_remove(l->recs, n, i);
	l->hdr->count = cpu_to_le32(n - 1);
}

static int __replay_bind(struct compsc_replay *l, void *mem, u32 len,
			 struct compsc_replay_rec *stage, u32 stage_cap)
{
	if (!l || !mem || len < sizeof(struct compsc_replay_hdr) ||
	    (!stage && stage_cap))
		return -COMPSC_EINVAL;
	l->hdr = mem;
	l->recs = (struct compsc_replay_rec *)(l->hdr + 1);
	l->stage = stage;
	l->stage_cap = stage ? stage_cap : 0;
	l->stage_count = 0;
	l->in_opset = 0;
	return 0;
}

static u32 __replay_room(u32 len)
{
	return (len - (u32)sizeof(struct compsc_replay_hdr)) /
	       (u32)sizeof(struct compsc_replay_rec);
}

int compsc_replay_init(struct compsc_replay *l, void *mem, u32 len,
		       struct compsc_replay_rec *stage, u32 stage_cap)
{
	u32 cap;
	int ret = __replay_bind(l, mem, len, stage, stage_cap);

	if (ret)
		return ret;
	cap = __replay_room(len);
	memset(mem, 0, sizeof(struct compsc_replay_hdr) +
	       (size_t)cap * sizeof(struct compsc_replay_rec));
	l->hdr->magic = cpu_to_le32(COMPSC_REPLAY_MAGIC);
	l->hdr->capacity = cpu_to_le32(cap);
	return 0;
}
COMPSC_EXPORT(compsc_replay_init);

/* One record of an existing log: sane length, no reserved bits, in order. */
static int __replay_rec_check(const struct compsc_replay_rec *recs, u32 i,
			      u32 hdr_seq)
{
	const struct compsc_replay_rec *rec = &recs[i];
	u32 seq = le32_to_cpu(rec->seq);

	if (le16_to_cpu(rec->len) > COMPSC_REPLAY_DATA_MAX)
		return -COMPSC_EREPLAY_LEN;
	if (rec->flags || rec->rsvd)
		return -COMPSC_EREPLAY_FLAGS;
	if (seq > hdr_seq || (i && seq <= le32_to_cpu(recs[i - 1].seq)))
		return -COMPSC_EREPLAY_SEQ;
	/* strictly increasing seq is checked; keys must be unique too */
	if (__replay_find(recs, i, le32_to_cpu(rec->key)) != i)
		return -COMPSC_EREPLAY_DUPLICATE;
	return 0;
}

/*
 * Everything the other functions rely on, for the log at @mem (@len
 * bytes, at least a header): the records in use or the first refusal.
 */
static int __replay_judge(const void *mem, u32 len, u32 *bad)
{
	const struct compsc_replay_hdr *h = mem;
	const struct compsc_replay_rec *recs = (const void *)(h + 1);
	u32 cap = le32_to_cpu(h->capacity), count = le32_to_cpu(h->count), i;
	int err;

	if (le32_to_cpu(h->magic) != COMPSC_REPLAY_MAGIC)
		return -COMPSC_EREPLAY_MAGIC;
	if (cap > __replay_room(len))
		return -COMPSC_EREPLAY_ROOM;
	if (count > cap)
		return -COMPSC_EREPLAY_COUNT;
	for (i = 0; i < count; i++) {
		err = __replay_rec_check(recs, i, le32_to_cpu(h->seq));
		if (err) {
			*bad = i;
			return err;
		}
	}
	return (int)count;	/* count <= len / 128: fits */
}

int compsc_replay_check(const void *mem, u32 len, u32 *bad)
{
	u32 dummy;

	bad = bad ? bad : &dummy;
	*bad = COMPSC_REPLAY_NO_REC;
	if (!mem || len < sizeof(struct compsc_replay_hdr))
		return -COMPSC_EINVAL;
	return __replay_judge(mem, len, bad);
}
COMPSC_EXPORT(compsc_replay_check);

/*
 * An area starts zeroed and its driver formats the log in it, so a zero
 * header (or no room for one) is a log never formatted: no log, not a bad
 * one. Whatever else is there is judged by compsc_replay_check().
 */
int compsc_replay_blank(const void *mem, u32 len)
{
	static const struct compsc_replay_hdr zero;

	return !mem || len < sizeof(zero) || !memcmp(mem, &zero, sizeof(zero));
}
COMPSC_EXPORT(compsc_replay_blank);

/*
 * The log may come from another host after migration: check everything the
 * other functions rely on before using it, and leave @l unbound on error.
 */
int compsc_replay_attach(struct compsc_replay *l, void *mem, u32 len,
			 struct compsc_replay_rec *stage, u32 stage_cap)
{
	struct compsc_replay tmp;
	int ret = __replay_bind(&tmp, mem, len, stage, stage_cap);

	if (ret || !l)
		return ret ? ret : -COMPSC_EINVAL;
	ret = compsc_replay_check(mem, len, NULL);
	if (ret < 0)
		return ret;
	*l = tmp;
	return 0;
}
COMPSC_EXPORT(compsc_replay_attach);

/* Stage @key (delete when @flags says so); last staged write per key wins. */
static int __replay_stage(struct compsc_replay *l, u32 key, const void *data,
			  u32 len, u16 flags)
{
	u32 n = l->stage_count;
	u32 i = __replay_find(l->stage, n, key);

	if (i < n)
		__replay_remove(l->stage, n--, i);
	else if (n >= l->stage_cap)
		return -COMPSC_ENOSPC;
	__replay_fill(&l->stage[n], key, 0, data, len, flags);
	l->stage_count = n + 1;
	return 0;
}

/*
 * @data is copied first: it may point into the log or the stage itself
 * (e.g. re-putting what compsc_replay_get() returned), which the move of the
 * old record to the end would otherwise overwrite.
 */
int compsc_replay_put(struct compsc_replay *l, u32 key, const void *data,
		      u32 len)
{
	u8 copy[COMPSC_REPLAY_DATA_MAX];
	u32 n;

	if (!l || !l->hdr || len > COMPSC_REPLAY_DATA_MAX || (len && !data))
		return -COMPSC_EINVAL;
	if (len)
		memcpy(copy, data, len);
	data = copy;
	if (l->in_opset)
		return __replay_stage(l, key, data, len, 0);
	n = __replay_count(l);
	if (__replay_find(l->recs, n, key) == n &&
	    n >= le32_to_cpu(l->hdr->capacity))
		return -COMPSC_ENOSPC;	/* the log is left untouched */
	__replay_apply_put(l, key, data, len);
	return 0;
}
COMPSC_EXPORT(compsc_replay_put);

int compsc_replay_del(struct compsc_replay *l, u32 key)
{
	if (!l || !l->hdr)
		return -COMPSC_EINVAL;
	if (l->in_opset)
		return __replay_stage(l, key, NULL, 0, COMPSC_STAGE_DEL);
	__replay_apply_del(l, key);
	return 0;
}
COMPSC_EXPORT(compsc_replay_del);

int compsc_replay_opset_begin(struct compsc_replay *l)
{
	if (!l || !l->hdr || !l->stage)
		return -COMPSC_EINVAL;
	if (l->in_opset)
		return -COMPSC_ESTATE;
	l->in_opset = 1;
	l->stage_count = 0;
	return 0;
}
COMPSC_EXPORT(compsc_replay_opset_begin);

/* Records the log holds after applying the stage (each key staged once). */
static u32 __replay_count_after(const struct compsc_replay *l)
{
	u32 n = __replay_count(l), after = n, i;

	for (i = 0; i < l->stage_count; i++) {
		const struct compsc_replay_rec *s = &l->stage[i];
		int present = __replay_find(l->recs, n, le32_to_cpu(s->key)) < n;

		if (le16_to_cpu(s->flags) & COMPSC_STAGE_DEL)
			after -= present;
		else
			after += !present;
	}
	return after;
}

/*
 * All or nothing: the room check covers the whole stage before anything is
 * applied. Deletes go first so a set that frees records and adds others fits
 * whenever its end state fits; keys are unique in the stage, so this does
 * not change the result. The opset ends either way.
 */
int compsc_replay_opset_commit(struct compsc_replay *l)
{
	u32 i;
	int ret = 0;

	if (!l || !l->hdr)
		return -COMPSC_EINVAL;
	if (!l->in_opset)
		return -COMPSC_ESTATE;
	if (__replay_count_after(l) > le32_to_cpu(l->hdr->capacity)) {
		ret = -COMPSC_ENOSPC;
		goto out;
	}
	for (i = 0; i < l->stage_count; i++)
		if (le16_to_cpu(l->stage[i].flags) & COMPSC_STAGE_DEL)
			__replay_apply_del(l, le32_to_cpu(l->stage[i].key));
	for (i = 0; i < l->stage_count; i++) {
		const struct compsc_replay_rec *s = &l->stage[i];

		if (!(le16_to_cpu(s->flags) & COMPSC_STAGE_DEL))
			__replay_apply_put(l, le32_to_cpu(s->key), s->data,
					   le16_to_cpu(s->len));
	}
out:
	l->in_opset = 0;
	l->stage_count = 0;
	return ret;
}
COMPSC_EXPORT(compsc_replay_opset_commit);

void compsc_replay_opset_abort(struct compsc_replay *l)
{
	if (!l)
		return;
	l->in_opset = 0;
	l->stage_count = 0;
}
COMPSC_EXPORT(compsc_replay_opset_abort);

u32 compsc_replay_count(const struct compsc_replay *l)
{
	return l && l->hdr ? __replay_count(l) : 0;
}
COMPSC_EXPORT(compsc_replay_count);

const struct compsc_replay_rec *compsc_replay_at(const struct compsc_replay *l,
						 u32 i)
{
	return i < compsc_replay_count(l) ? &l->recs[i] : NULL;
}
COMPSC_EXPORT(compsc_replay_at);

const struct compsc_replay_rec *compsc_replay_get(const struct compsc_replay *l,
						  u32 key)
{
	u32 n = compsc_replay_count(l);
	u32 i;

	if (!n)
		return NULL;
	i = __replay_find(l->recs, n, key);
	return i < n ? &l->recs[i] : NULL;
}
COMPSC_EXPORT(compsc_replay_get);

/* ---- sets ---------------------------------------------------------------- */

/*
 * Index in the log of the member of @set whose identity bytes equal
 * @id, or the count when absent. A linear scan: logs hold a few hundred
 * records at most and sets change on configuration paths only.
 */
static u32 __set_find(const struct compsc_replay *l, u32 set, const u8 *id,
		      u32 id_off, u32 id_len)
{
	u32 n = __replay_count(l), i;
	const struct compsc_replay_rec *r;

	for (i = 0; i < n; i++) {
		r = &l->recs[i];
		if ((le32_to_cpu(r->key) & ~COMPSC_REPLAY_SET_MASK) == set &&
		    le16_to_cpu(r->len) >= id_off + id_len &&
		    !memcmp(r->data + id_off, id, id_len))
			break;
	}
	return i;
}

static int __set_args_ok(const struct compsc_replay *l, u32 set, u32 len,
			 u32 id_off, u32 id_len)
{
	if (!l || !l->hdr || (set & COMPSC_REPLAY_SET_MASK) || !id_len ||
	    id_off + id_len > len || len > COMPSC_REPLAY_DATA_MAX)
		return -COMPSC_EINVAL;
	return l->in_opset ? -COMPSC_ESTATE : 0;
}

int compsc_replay_set_put(struct compsc_replay *l, u32 set, const void *data,
			  u32 len, u32 id_off, u32 id_len)
{
	const u8 *id = (const u8 *)data + id_off;
	u32 n, i, m;
	int ret = __set_args_ok(l, set, len, id_off, id_len);

	if (ret || !data)
		return ret ? ret : -COMPSC_EINVAL;
	n = __replay_count(l);
	i = __set_find(l, set, id, id_off, id_len);
	if (i < n)
		return compsc_replay_put(l, le32_to_cpu(l->recs[i].key), data,
					 len);
	/* a new member takes the lowest free number of the set */
	for (m = 0; m <= COMPSC_REPLAY_SET_MASK; m++)
		if (__replay_find(l->recs, n, set | m) == n)
			return compsc_replay_put(l, set | m, data, len);
	return -COMPSC_ENOSPC;
}
COMPSC_EXPORT(compsc_replay_set_put);

int compsc_replay_set_del(struct compsc_replay *l, u32 set, const void *data,
			  u32 id_off, u32 id_len)
{
	u32 i;
	int ret = __set_args_ok(l, set, id_off + id_len, id_off, id_len);

	if (ret || !data)
		return ret ? ret : -COMPSC_EINVAL;
	i = __set_find(l, set, (const u8 *)data + id_off, id_off, id_len);
	if (i < __replay_count(l))
		__replay_apply_del(l, le32_to_cpu(l->recs[i].key));
	return 0;
}
COMPSC_EXPORT(compsc_replay_set_del);

/* Remove the records whose key bits under @mask are @key's */
static int __replay_del_masked(struct compsc_replay *l, u32 key, u32 mask)
{
	u32 i = 0;

	if (!l || !l->hdr)
		return -COMPSC_EINVAL;
	if (l->in_opset)
		return -COMPSC_ESTATE;
	while (i < __replay_count(l))
		if ((le32_to_cpu(l->recs[i].key) & mask) == key)
			__replay_apply_del(l, le32_to_cpu(l->recs[i].key));
		else
			i++;
	return 0;
}

int compsc_replay_set_clear(struct compsc_replay *l, u32 set)
{
	return __replay_del_masked(l, set, ~COMPSC_REPLAY_SET_MASK);
}
COMPSC_EXPORT(compsc_replay_set_clear);

int compsc_replay_clear(struct compsc_replay *l)
{
	return __replay_del_masked(l, 0, 0);
}
COMPSC_EXPORT(compsc_replay_clear);

/* ---- list messages ------------------------------------------------------ */

static int __list_ok(const struct compsc_replay_list *t)
{
	return t && !(t->set & COMPSC_REPLAY_SET_MASK) && t->elem &&
	       t->cnt + 2u <= t->hdr && t->id <= t->elem &&
	       (u32)t->pre + t->hdr + t->elem + (t->id ? t->pad : 0) <=
	       COMPSC_REPLAY_DATA_MAX;
}

static u16 __list_count(const struct compsc_replay_list *t, const u8 *msg)
{
	u16 n;

	memcpy(&n, msg + t->cnt, sizeof(n));
	return n;
}

int compsc_replay_list_put(struct compsc_replay *l,
			   const struct compsc_replay_list *t, const void *pre,
			   const void *msg, u32 len, int del)
{
	u8 rec[COMPSC_REPLAY_DATA_MAX];
	u32 off, i, n;
	u16 one = 1;
	int ret = 0;

	if (!l || !l->hdr || !__list_ok(t) || !msg || (t->pre && !pre))
		return -COMPSC_EINVAL;
	if (len < t->hdr)
		return -COMPSC_EMALFORMED;
	n = __list_count(t, msg);
	if (len != t->hdr + n * t->elem + t->pad)
		return -COMPSC_EMALFORMED;
	if (!t->id && del)
		return -COMPSC_EINVAL;
	off = t->pre + t->hdr;
	memset(rec, 0, sizeof(rec));	/* the padding of a named member */
	memcpy(rec, pre, t->pre);
	memcpy(rec + t->pre, msg, t->hdr);
	memcpy(rec + t->pre + t->cnt, &one, sizeof(one));
	if (!t->id)
		ret = compsc_replay_set_clear(l, t->set);
	for (i = 0; i < n && !ret; i++) {
		memcpy(rec + off, (const u8 *)msg + t->hdr + i * t->elem,
		       t->elem);
		if (!t->id)
			ret = compsc_replay_put(l, t->set | i, rec,
						off + t->elem);
		else if (del)
			ret = compsc_replay_set_del(l, t->set, rec, off, t->id);
		else
			ret = compsc_replay_set_put(l, t->set, rec,
						    off + t->elem + t->pad, off,
						    t->id);
	}
	return ret;
}
COMPSC_EXPORT(compsc_replay_list_put);

static int __list_member(const struct compsc_replay *l, u32 i, u32 set)
{
	const struct compsc_replay_rec *r = compsc_replay_at(l, i);

	return r && (le32_to_cpu(r->key) & ~COMPSC_REPLAY_SET_MASK) == set;
}

int compsc_replay_list_gather(const struct compsc_replay *l,
			      const struct compsc_replay_list *t, u32 i,
			      void *buf, u32 cap)
{
	const struct compsc_replay_rec *r = compsc_replay_at(l, i);
	u32 head = t ? (u32)t->pre + t->hdr : 0, len, n;
	u16 cnt;

	if (!r || !__list_ok(t) || !buf || !__list_member(l, i, t->set) ||
	    le16_to_cpu(r->len) != head + t->elem)
		return -COMPSC_EINVAL;
	if (i && __list_member(l, i - 1, t->set))
		return 0;
	for (n = 0, len = head; __list_member(l, i + n, t->set); n++) {
		r = compsc_replay_at(l, i + n);
		if (le16_to_cpu(r->len) != head + t->elem)
			return -COMPSC_EINVAL;
		if (len + t->elem > cap || n == 0xffff)
			return -COMPSC_ENOSPC;
		if (!n)
			memcpy(buf, r->data, head);
		memcpy((u8 *)buf + len, r->data + head, t->elem);
		len += t->elem;
	}
	if (len + t->pad > cap)
		return -COMPSC_ENOSPC;
	memset((u8 *)buf + len, 0, t->pad);
	cnt = (u16)n;
	memcpy((u8 *)buf + t->pre + t->cnt, &cnt, sizeof(cnt));
	return (int)(len + t->pad);
}
COMPSC_EXPORT(compsc_replay_list_gather);
