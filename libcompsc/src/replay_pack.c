// SPDX-License-Identifier: (GPL-2.0 OR BSD-3-Clause)
/*
 * The replay log's packed form: the stream's DRIVER record. Only hosts and
 * tools pack and unpack; a guest VF driver keeps its log in the area and
 * never links this file (nor the CRC32C it needs).
 */
#include <compsc/compsc.h>
#include "replay_int.h"

/* ---- packed form (the stream's DRIVER record) --------------------------- */

#define PACK_HDR	((u32)sizeof(struct compsc_replay_pack_hdr))

/* Bytes the packed form of @l needs, or 0 when the log is inconsistent. */
static u32 __replay_pack_size(const struct compsc_replay *l)
{
	u32 n = __replay_count(l), size = PACK_HDR, i, len;

	if (n > le32_to_cpu(l->hdr->capacity) || n > 0xffffu)
		return 0;
	for (i = 0; i < n; i++) {
		len = le16_to_cpu(l->recs[i].len);
		if (len > COMPSC_REPLAY_DATA_MAX)
			return 0;
		size += COMPSC_REPLAY_PACK_REC_HDR + len;
	}
	return size;
}

/* Records are byte-packed: fields are copied, never accessed in place. */
static u8 *__pack_rec(u8 *p, const struct compsc_replay_rec *rec)
{
	u8 len = (u8)le16_to_cpu(rec->len);

	memcpy(p, &rec->key, sizeof(rec->key));	/* already little-endian */
	p[4] = len;
	memcpy(p + COMPSC_REPLAY_PACK_REC_HDR, rec->data, len);
	return p + COMPSC_REPLAY_PACK_REC_HDR + len;
}

int compsc_replay_pack(const struct compsc_replay *l, void *buf, u32 cap)
{
	struct compsc_replay_pack_hdr h = { 0 };
	u32 size, n, i;
	u8 *p;

	if (!l || !l->hdr || (!buf && cap))
		return -COMPSC_EINVAL;
	size = __replay_pack_size(l);
	if (!size)
		return -COMPSC_EINVAL;
	if (size > cap)
		return -COMPSC_ENOSPC;
	n = __replay_count(l);
	p = (u8 *)buf + PACK_HDR;
	for (i = 0; i < n; i++)
		p = __pack_rec(p, &l->recs[i]);
	h.magic = COMPSC_REPLAY_PACK_MAGIC;
	h.version = COMPSC_REPLAY_PACK_V1;
	h.count = cpu_to_le16((u16)n);
	h.crc32c = cpu_to_le32(compsc_crc32c(0, (u8 *)buf + PACK_HDR,
					     size - PACK_HDR));
	memcpy(buf, &h, sizeof(h));
	return (int)size;
}
COMPSC_EXPORT(compsc_replay_pack);

/* Key and data length of the packed record at @p, unchecked. */
static void __unpack_peek(const u8 *p, u32 *key, u32 *len)
{
	__le32 k;

	memcpy(&k, p, sizeof(k));
	*key = le32_to_cpu(k);
	*len = p[4];
}

/* The same, checked against the @avail bytes left. */
static int __unpack_rec(const u8 *p, u32 avail, u32 *key, u32 *len)
{
	if (avail < COMPSC_REPLAY_PACK_REC_HDR)
		return -COMPSC_EREPLAY_TRUNCATED;
	__unpack_peek(p, key, len);
	if (*len > COMPSC_REPLAY_DATA_MAX)
		return -COMPSC_EREPLAY_LEN;
	if (avail - COMPSC_REPLAY_PACK_REC_HDR < *len)
		return -COMPSC_EREPLAY_TRUNCATED;
	return 0;
}

/* Is @key among the first @n packed records at @p? (framing already checked) */
static int __unpack_has_key(const u8 *p, u32 n, u32 key)
{
	u32 i, k, len;

	for (i = 0; i < n; i++) {
		__unpack_peek(p, &k, &len);
		if (k == key)
			return 1;
		p += COMPSC_REPLAY_PACK_REC_HDR + len;
	}
	return 0;
}

/* The first of the @n records at @p whose key an earlier one has, or @n: pairwise. */
static u32 __unpack_dup_pairwise(const u8 *p, u32 n)
{
	const u8 *q = p;
	u32 i, key, len;

	for (i = 0; i < n; i++) {
		__unpack_peek(q, &key, &len);
		if (__unpack_has_key(p, i, key))
			break;
		q += COMPSC_REPLAY_PACK_REC_HDR + len;
	}
	return i;
}

static void __sift_down(u64 *a, u32 root, u32 n)
{
	u32 child;
	u64 t;

	while ((child = 2 * root + 1) < n) {	/* n <= 0xffff: no overflow */
		if (child + 1 < n && a[child + 1] > a[child])
			child++;
		if (a[root] >= a[child])
			return;
		t = a[root];
		a[root] = a[child];
		a[child] = t;
		root = child;
	}
}

/* In place, no heap and bounded stack: usable in the kernel as it is. */
static void __heapsort_u64(u64 *a, u32 n)
{
	u32 i;
	u64 t;

	for (i = n / 2; i-- > 0;)
		__sift_down(a, i, n);
	for (i = n; i-- > 1;) {
		t = a[0];
		a[0] = a[i];
		a[i] = t;
		__sift_down(a, 0, i);
	}
}

/*
 * The same answer as __unpack_dup_pairwise(), in n log n: (key, index)
 * pairs sorted, every later index of an equal key repeats an earlier
 * record, and the least of those is the first repeat in record order.
 */
static u32 __unpack_dup_sorted(const u8 *p, u32 n, u64 *keys)
{
	u32 i, key, len, first = n;

	for (i = 0; i < n; i++) {
		__unpack_peek(p, &key, &len);
		keys[i] = (u64)key << 32 | i;
		p += COMPSC_REPLAY_PACK_REC_HDR + len;
	}
	__heapsort_u64(keys, n);
	for (i = 1; i < n; i++)
		if (keys[i] >> 32 == keys[i - 1] >> 32 && (u32)keys[i] < first)
			first = (u32)keys[i];
	return first;
}

/* How many of the @n records at @p[0..size) are framed whole; *@err why not all. */
static u32 __unpack_frame(const u8 *p, u32 size, u32 n, u32 *off, int *err)
{
	u32 i, key, len;

	*off = 0;
	*err = 0;
	for (i = 0; i < n; i++) {
		*err = __unpack_rec(p + *off, size - *off, &key, &len);
		if (*err)
			break;
		*off += COMPSC_REPLAY_PACK_REC_HDR + len;
	}
	return i;
}

/*
 * Framing of the @n records in @p[0..size): exact fit, unique keys. The
 * first record refused wins; *@bad names it. @keys (room for @n, or NULL
 * for the pairwise check) is the sort's scratch.
 */
static int __unpack_check_recs(const u8 *p, u32 size, u32 n, u64 *keys,
			       u32 *bad)
{
	u32 off, whole, dup;
	int err;

	whole = __unpack_frame(p, size, n, &off, &err);
	dup = keys ? __unpack_dup_sorted(p, whole, keys) :
		     __unpack_dup_pairwise(p, whole);
	if (dup < whole) {
		*bad = dup;
		return -COMPSC_EREPLAY_DUPLICATE;
	}
	if (err) {
		*bad = whole;
		return err;
	}
	return off == size ? 0 : -COMPSC_EREPLAY_TRAILING;
}

/* The packed header of @buf, magic and version judged, into @h. */
static int __unpack_hdr(const void *buf, u32 len,
			struct compsc_replay_pack_hdr *h)
{
	if (len < PACK_HDR)
		return -COMPSC_EREPLAY_TRUNCATED;
	memcpy(h, buf, sizeof(*h));
	if (h->magic != COMPSC_REPLAY_PACK_MAGIC)
		return -COMPSC_EREPLAY_MAGIC;
	if (h->version != COMPSC_REPLAY_PACK_V1)
		return -COMPSC_EREPLAY_VERSION;
	return 0;
}

int compsc_replay_pack_count(const void *buf, u32 len)
{
	struct compsc_replay_pack_hdr h;
	int err = buf ? __unpack_hdr(buf, len, &h) : -COMPSC_EINVAL;
	u32 count;

	if (err)
		return err;
	count = le16_to_cpu(h.count);
	/* every record takes at least its key and length */
	if ((u64)count * COMPSC_REPLAY_PACK_REC_HDR > len - PACK_HDR)
		return -COMPSC_EREPLAY_TRUNCATED;
	return (int)count;
}
COMPSC_EXPORT(compsc_replay_pack_count);

/* All of @buf, for a log of @cap records; *@count = records in it. */
static int __unpack_check(const void *buf, u32 len, u32 cap, u32 *count,
			  u64 *keys, u32 nkeys, u32 *bad)
{
	const u8 *recs = (const u8 *)buf + PACK_HDR;
	struct compsc_replay_pack_hdr h;
	int err = __unpack_hdr(buf, len, &h);

	if (err)
		return err;
	*count = le16_to_cpu(h.count);
	if (compsc_crc32c(0, recs, len - PACK_HDR) != le32_to_cpu(h.crc32c))
		return -COMPSC_EREPLAY_CORRUPT;
	/* before the key check, which without @keys is quadratic */
	if (*count > cap)
		return -COMPSC_ENOSPC;
	return __unpack_check_recs(recs, len - PACK_HDR, *count,
				   nkeys >= *count ? keys : NULL, bad);
}

/* The @count records of the checked @buf into @l, sequence 1..count. */
static void __unpack_fill(struct compsc_replay *l, const void *buf, u32 count)
{
	const u8 *p = (const u8 *)buf + PACK_HDR;
	u32 old = __replay_count(l), i, key, dlen;

	for (i = 0; i < count; i++) {
		__unpack_peek(p, &key, &dlen);
		__replay_fill(&l->recs[i], key, i + 1,
			      p + COMPSC_REPLAY_PACK_REC_HDR, dlen, 0);
		p += COMPSC_REPLAY_PACK_REC_HDR + dlen;
	}
	for (; i < old; i++)	/* unused records stay zero, as after init */
		memset(&l->recs[i], 0, sizeof(l->recs[i]));
	l->hdr->count = cpu_to_le32(count);
	l->hdr->seq = cpu_to_le32(count);
}

/*
 * Checked in full before the log is touched, so a refusal leaves it as it
 * was. The records get fresh sequence numbers 1..count in packed order.
 */
int compsc_replay_unpack_keys(struct compsc_replay *l, const void *buf,
			      u32 len, u64 *keys, u32 nkeys, u32 *bad)
{
	u32 count, dummy;
	int ret;

	bad = bad ? bad : &dummy;
	*bad = COMPSC_REPLAY_NO_REC;
	if (!l || !l->hdr || !buf || (!keys && nkeys))
		return -COMPSC_EINVAL;
	if (l->in_opset)
		return -COMPSC_ESTATE;
	ret = __unpack_check(buf, len, le32_to_cpu(l->hdr->capacity), &count,
			     keys, nkeys, bad);
	if (ret)
		return ret;
	__unpack_fill(l, buf, count);
	return 0;
}
COMPSC_EXPORT(compsc_replay_unpack_keys);

int compsc_replay_unpack(struct compsc_replay *l, const void *buf, u32 len)
{
	return compsc_replay_unpack_keys(l, buf, len, NULL, 0, NULL);
}
COMPSC_EXPORT(compsc_replay_unpack);
