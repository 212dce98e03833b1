// SPDX-License-Identifier: (GPL-2.0 OR BSD-3-Clause)
/*
 * The migration stream: the one place that knows its rules.
 *
 * Wire format (all little-endian, see abi.h):
 *
 *	struct compsc_stream_hdr		32 bytes
 *	{ struct compsc_rec_hdr, payload, zero padding to 8 } ...
 *	struct compsc_rec_hdr { END, 0, 8 } + struct compsc_rec_end
 *
 * total_len covers everything; it is a multiple of 8 and the END record is
 * always its last 16 bytes. END's crc32c covers bytes [0, total_len - 8),
 * i.e. the header, every record and END's own record header.
 *
 * The parser trusts nothing and refuses in this order, so that each failure
 * gets the most useful code (e.g. a bit flip in the device identity reports
 * "corrupt", not "wrong device"):
 *
 *  1. magic				-> EBADMAGIC
 *  2. major version			-> EWRONG_VERSION (any minor is accepted)
 *  3. lengths: total_len > max_len	-> EOVERSIZE
 *     total_len < 48 or not 8-aligned	-> EMALFORMED
 *     fewer bytes than total_len	-> ETRUNCATED (also any buffer < header)
 *     more bytes than total_len	-> EMALFORMED (trailing bytes)
 *  4. CRC32C (END sits at a fixed place, so it is checked before any record
 *     is interpreted)			-> ECORRUPT
 *  5. header reserved fields		-> EMALFORMED
 *  6. record walk, per record:
 *     reserved flag bits		-> EMALFORMED
 *     len > max_len			-> EOVERSIZE
 *     record runs into END		-> ETRUNCATED
 *     non-zero padding, END not last	-> EMALFORMED
 *     known type twice			-> EDUPLICATE
 *     known type over its bound (PF_VF_EXT: COMPSC_PF_EXT_MAX_BYTES)
 *					-> EOVERSIZE
 *     bad payload size for its type	-> EMALFORMED (REGS: a multiple of
 *					   4; PF_VF: 24 to 148, even)
 *     unknown type, MANDATORY flag	-> EUNKNOWN_MANDATORY (optional: skipped,
 *					   counted in nr_unknown)
 *     then the END record itself	-> EMALFORMED if not { END, 0, 8 }, rsvd 0
 *  7. identity (@expect)		-> EWRONG_DEVICE
 *  8. record contents (reserved bytes, widths, kinds, counts; REGS
 *     entries that fill the record exactly, PF_VF's length that of its
 *     counts)				-> EMALFORMED
 *
 * No record is required by the parser (EMISSING is not returned here):
 * which records a consumer needs depends on the consumer (the PF exports
 * only PF_VF state), so it checks v->rec[type].data itself and reports
 * -COMPSC_EMISSING.
 *
 * Only the fields needed to find the checksum (magic, version, total_len)
 * are judged before it; a flip in those gives their own code.
 */
#include <compsc/compsc.h>

#define HDR_LEN		((u32)sizeof(struct compsc_stream_hdr))
#define REC_HDR_LEN	((u32)sizeof(struct compsc_rec_hdr))
#define END_LEN		(REC_HDR_LEN + (u32)sizeof(struct compsc_rec_end))
#define MIN_LEN		(HDR_LEN + END_LEN)
/* _end() returns the length as an int: keep every stream below INT_MAX. */
#define WRITER_CAP_MAX	0x7ffffff8u
#define NO_BAD		0xffffffffu

static u32 compsc_pad8(u32 len)
{
	return (COMPSC_STREAM_ALIGN - (len & (COMPSC_STREAM_ALIGN - 1))) &
	       (COMPSC_STREAM_ALIGN - 1);
}

static u32 compsc_get_le32(const u8 *p)
{
	__le32 v;

	memcpy(&v, p, sizeof(v));
	return le32_to_cpu(v);
}

/* ------------------------------------------------------------------ */
/* Record payload rules, shared by the writer and the parser           */
/* ------------------------------------------------------------------ */

/* Payload size rule of a known type (unknown types: any size). */
static int compsc_rec_size_ok(u16 type, u32 len)
{
	switch (type) {
	case COMPSC_REC_END:
		return len == sizeof(struct compsc_rec_end);
	case COMPSC_REC_REGS:	/* entries of 12 or 16 bytes: walked later */
		return len % 4 == 0;
	case COMPSC_REC_COUNTERS:
	case COMPSC_REC_HOST_COUNTERS:
		return len % sizeof(struct compsc_rec_counter) == 0;
	case COMPSC_REC_PF_VF:	/* its counts are checked with its contents */
		return len >= COMPSC_PF_VF_REC_HDR && len % 2 == 0 &&
		       len <= COMPSC_PF_VF_REC_HDR + 2 * (COMPSC_PF_MAX_VLANS +
							  COMPSC_PF_MAX_MC);
	case COMPSC_REC_PRECOPY:
		return len == sizeof(struct compsc_rec_precopy);
	case COMPSC_REC_PF_VF_EXT:
		return len >= sizeof(struct compsc_pf_vf_ext) &&
		       (len - sizeof(struct compsc_pf_vf_ext)) %
		       sizeof(struct compsc_pf_vf_mac) == 0;
	default:
		return 1;
	}
}

/* A known type's payload bound: a PF_VF_EXT record is bounded on its own. */
static int compsc_rec_too_big(u16 type, u32 len)
{
	return type == COMPSC_REC_PF_VF_EXT && len > COMPSC_PF_EXT_MAX_BYTES;
}

static int compsc_rec_reg_ok(const struct compsc_rec_reg *r)
{
	u32 off = le32_to_cpu(r->offset);

	return !r->rsvd && r->bar < COMPSC_NR_BARS &&
	       (r->width == 4 || r->width == 8) && off % r->width == 0 &&
	       r->kind >= COMPSC_REG_PLAIN && r->kind <= COMPSC_REG_COUNTER_RC;
}

u32 compsc_rec_reg_put(void *out, const struct compsc_rec_reg *r, u64 value)
{
	__le64 v64 = cpu_to_le64(value);
	__le32 v32 = cpu_to_le32((u32)value);
	u8 *p = out;

	if (!out || !r || (r->width != 4 && r->width != 8))
		return 0;
	memcpy(p, r, sizeof(*r));
	if (r->width == 4)
		memcpy(p + sizeof(*r), &v32, sizeof(v32));
	else
		memcpy(p + sizeof(*r), &v64, sizeof(v64));
	return (u32)sizeof(*r) + r->width;
}
COMPSC_EXPORT(compsc_rec_reg_put);

/*
 * Only the width is judged here (it sizes the entry); the parser judges
 * the rest of the descriptor with compsc_rec_reg_ok().
 */
u32 compsc_rec_reg_get(const void *rec, u32 len, u32 off,
		       struct compsc_rec_reg *r, u64 *value)
{
	const u8 *p = rec;
	__le64 v64;
	__le32 v32;

	if (!rec || !r || !value || off > len ||
	    len - off < sizeof(*r))
		return 0;
	memcpy(r, p + off, sizeof(*r));
	if ((r->width != 4 && r->width != 8) ||
	    len - off - sizeof(*r) < r->width)
		return 0;
	off += (u32)sizeof(*r);
	if (r->width == 4) {
		memcpy(&v32, p + off, sizeof(v32));
		*value = le32_to_cpu(v32);
	} else {
		memcpy(&v64, p + off, sizeof(v64));
		*value = le64_to_cpu(v64);
	}
	return off + r->width;
}
COMPSC_EXPORT(compsc_rec_reg_get);

/* A REGS record's first bad entry (its payload offset), or NO_BAD. */
static u32 compsc_rec_regs_bad(const u8 *p, u32 len)
{
	struct compsc_rec_reg r;
	u32 off = 0, next;
	u64 value;

	while (off < len) {
		next = compsc_rec_reg_get(p, len, off, &r, &value);
		if (!next || !compsc_rec_reg_ok(&r))
			return off;
		off = next;
	}
	return NO_BAD;
}

static int compsc_rec_counter_ok(const struct compsc_rec_counter *c)
{
	return !c->rsvd && c->bar < COMPSC_NR_BARS &&
	       c->width == 4 && le32_to_cpu(c->offset) % 4 == 0 &&
	       (c->kind == COMPSC_REG_COUNTER_RO ||
		c->kind == COMPSC_REG_COUNTER_RC);
}

/* 802.1Q ids are 12 bits, priorities 3; link state is AUTO/ENABLE/DISABLE. */
static int compsc_pf_vf_ok(const struct compsc_pf_vf_state *s)
{
	u16 nr_vlans = le16_to_cpu(s->nr_vlans);
	u16 i;

	if (le16_to_cpu(s->flags) & ~COMPSC_PFVF_F_KNOWN || s->rsvd0 ||
	    s->rsvd1 || nr_vlans > COMPSC_PF_MAX_VLANS ||
	    le16_to_cpu(s->nr_mc) > COMPSC_PF_MAX_MC ||
	    le16_to_cpu(s->port_vlan) > 4095 || s->port_qos > 7 ||
	    s->link_state > 2)
		return 0;
	for (i = 0; i < nr_vlans; i++)
		if (le16_to_cpu(s->vlans[i]) > 4095)
			return 0;
	return 1;
}

int compsc_pf_vf_check(const struct compsc_pf_vf_state *s)
{
	if (!s)
		return -COMPSC_EINVAL;
	return compsc_pf_vf_ok(s) ? 0 : -COMPSC_EMALFORMED;
}
COMPSC_EXPORT(compsc_pf_vf_check);

compsc_static_assert(offsetof(struct compsc_pf_vf_state, vlans) ==
		     COMPSC_PF_VF_REC_HDR, "pf vf record header");

int compsc_pf_vf_pack(const struct compsc_pf_vf_state *s, void *out)
{
	u32 nv, nm;
	u8 *p = out;

	if (!s)
		return -COMPSC_EINVAL;
	if (!compsc_pf_vf_ok(s))
		return -COMPSC_EMALFORMED;
	nv = le16_to_cpu(s->nr_vlans);
	nm = le16_to_cpu(s->nr_mc);
	if (p) {
		memcpy(p, s, COMPSC_PF_VF_REC_HDR);
		memcpy(p + COMPSC_PF_VF_REC_HDR, s->vlans, 2 * nv);
		memcpy(p + COMPSC_PF_VF_REC_HDR + 2 * nv, s->mc_hashes, 2 * nm);
	}
	return (int)(COMPSC_PF_VF_REC_HDR + 2 * (nv + nm));
}
COMPSC_EXPORT(compsc_pf_vf_pack);

/* The record's counts, as far as they size it: the rest is compsc_pf_vf_ok()'s. */
int compsc_pf_vf_unpack(const void *rec, u32 len, struct compsc_pf_vf_state *s)
{
	const u8 *p = rec;
	u32 nv, nm;

	if (!rec || !s)
		return -COMPSC_EINVAL;
	memset(s, 0, sizeof(*s));
	if (len < COMPSC_PF_VF_REC_HDR)
		return -COMPSC_EMALFORMED;
	memcpy(s, p, COMPSC_PF_VF_REC_HDR);
	nv = le16_to_cpu(s->nr_vlans);
	nm = le16_to_cpu(s->nr_mc);
	if (nv > COMPSC_PF_MAX_VLANS || nm > COMPSC_PF_MAX_MC ||
	    len != COMPSC_PF_VF_REC_HDR + 2 * (nv + nm)) {
		memset(s, 0, sizeof(*s));
		return -COMPSC_EMALFORMED;
	}
	memcpy(s->vlans, p + COMPSC_PF_VF_REC_HDR, 2 * nv);
	memcpy(s->mc_hashes, p + COMPSC_PF_VF_REC_HDR + 2 * nv, 2 * nm);
	return 0;
}
COMPSC_EXPORT(compsc_pf_vf_unpack);

/* A MAC filter is a unicast address other than zero, its padding zero. */
static int compsc_pf_vf_mac_ok(const struct compsc_pf_vf_mac *m)
{
	static const u8 zero[6];

	return !m->rsvd && !(m->mac[0] & 1) && memcmp(m->mac, zero, 6);
}

/*
 * A PF_VF_EXT record of @len bytes, its size rules already met: the
 * payload offset of the first bad field, or NO_BAD.
 */
static u32 compsc_pf_vf_ext_bad(const u8 *p, u32 len)
{
	u32 hlen = (u32)sizeof(struct compsc_pf_vf_ext), off;
	struct compsc_pf_vf_ext x;
	struct compsc_pf_vf_mac m;

	memcpy(&x, p, sizeof(x));
	if (le16_to_cpu(x.flags) & ~COMPSC_PFVF_X_KNOWN)
		return offsetof(struct compsc_pf_vf_ext, flags);
	if (le16_to_cpu(x.nr_macs) != (len - hlen) / sizeof(m))
		return offsetof(struct compsc_pf_vf_ext, nr_macs);
	if (x.rsvd)
		return offsetof(struct compsc_pf_vf_ext, rsvd);
	/* lost: any bit is meaningful, unknown ones included (see abi.h) */
	for (off = hlen; off < len; off += sizeof(m)) {
		memcpy(&m, p + off, sizeof(m));
		if (!compsc_pf_vf_mac_ok(&m))
			return off;
	}
	return NO_BAD;
}

int compsc_pf_vf_ext_check(const void *rec, u32 len)
{
	if (!rec)
		return -COMPSC_EINVAL;
	if (compsc_rec_too_big(COMPSC_REC_PF_VF_EXT, len))
		return -COMPSC_EOVERSIZE;
	if (!compsc_rec_size_ok(COMPSC_REC_PF_VF_EXT, len) ||
	    compsc_pf_vf_ext_bad(rec, len) != NO_BAD)
		return -COMPSC_EMALFORMED;
	return 0;
}
COMPSC_EXPORT(compsc_pf_vf_ext_check);

/*
 * Contents of a known record whose size already passed compsc_rec_size_ok().
 * Returns the payload offset of the first bad entry, or NO_BAD. Entries are
 * copied out first: the payload has no alignment guarantee.
 */
static u32 compsc_rec_content_bad(u16 type, const u8 *p, u32 len)
{
	struct compsc_rec_counter c;
	struct compsc_pf_vf_state s;
	u32 off;

	if (type == COMPSC_REC_REGS)
		return compsc_rec_regs_bad(p, len);
	for (off = 0; (type == COMPSC_REC_COUNTERS ||
			type == COMPSC_REC_HOST_COUNTERS) && off < len;
	     off += sizeof(c)) {
		memcpy(&c, p + off, sizeof(c));
		if (!compsc_rec_counter_ok(&c))
			return off;
	}
	if (type == COMPSC_REC_PF_VF &&
	    (compsc_pf_vf_unpack(p, len, &s) || !compsc_pf_vf_ok(&s)))
		return 0;
	if (type == COMPSC_REC_PF_VF_EXT)
		return compsc_pf_vf_ext_bad(p, len);
	return NO_BAD;
}

/* ------------------------------------------------------------------ */
/* Writer                                                              */
/* ------------------------------------------------------------------ */

/* Record the first error only; every later call reports that one. */
static int compsc_writer_fail(struct compsc_stream_writer *w, int err)
{
	if (!w->err)
		w->err = err;
	return w->err;
}

int compsc_stream_begin(struct compsc_stream_writer *w, void *buf, u32 cap,
			const struct compsc_ident *id)
{
	struct compsc_stream_hdr h;

	if (!w)
		return -COMPSC_EINVAL;
	w->buf = buf;
	w->cap = cap > WRITER_CAP_MAX ? WRITER_CAP_MAX : cap;
	w->len = 0;
	w->err = 0;
	if (!buf || !id)
		return compsc_writer_fail(w, -COMPSC_EINVAL);
	if (w->cap < MIN_LEN)
		return compsc_writer_fail(w, -COMPSC_ENOSPC);
	memset(&h, 0, sizeof(h));
	h.magic = cpu_to_le32(COMPSC_STREAM_MAGIC);
	h.major = cpu_to_le16(COMPSC_STREAM_MAJOR);
	h.minor = cpu_to_le16(COMPSC_STREAM_MINOR);
	/* total_len stays 0 until _end(): it marks the stream as open */
	h.vendor = cpu_to_le16(id->vendor);
	h.device = cpu_to_le16(id->device);
	h.subsys_vendor = cpu_to_le16(id->subsys_vendor);
	h.subsys_device = cpu_to_le16(id->subsys_device);
	memcpy(buf, &h, sizeof(h));
	w->len = HDR_LEN;
	return 0;
}
COMPSC_EXPORT(compsc_stream_begin);

/* begun and not yet ended (the header's total_len is set by _end()) */
static int compsc_writer_open(const struct compsc_stream_writer *w)
{
	return w->buf && w->len >= HDR_LEN && w->len + END_LEN <= w->cap &&
	       compsc_get_le32(w->buf +
			       offsetof(struct compsc_stream_hdr, total_len)) == 0;
}

/* The writer's own records are trusted, but walk them defensively anyway. */
static int compsc_writer_has(const struct compsc_stream_writer *w, u16 type)
{
	struct compsc_rec_hdr r;
	u32 pos = HDR_LEN, rlen;

	while (pos < w->len && w->len - pos >= REC_HDR_LEN) {
		memcpy(&r, w->buf + pos, sizeof(r));
		if (le16_to_cpu(r.type) == type)
			return 1;
		rlen = le32_to_cpu(r.len);
		if (rlen > w->len - pos - REC_HDR_LEN)
			return 0;
		pos += REC_HDR_LEN + rlen + compsc_pad8(rlen);
	}
	return 0;
}

/* Refuse to write what the parser would refuse: a stream we write must parse. */
static int compsc_writer_rec_ok(const struct compsc_stream_writer *w, u16 type,
				u16 flags, const void *payload, u32 len)
{
	if (type == COMPSC_REC_END || flags & ~COMPSC_REC_F_MANDATORY ||
	    (!payload && len))
		return 0;
	if (type >= COMPSC_REC_NR_KNOWN)
		return 1;
	return !compsc_rec_too_big(type, len) &&
	       compsc_rec_size_ok(type, len) &&
	       compsc_rec_content_bad(type, payload, len) == NO_BAD &&
	       !compsc_writer_has(w, type);
}

int compsc_stream_add(struct compsc_stream_writer *w, u16 type, u16 flags,
		      const void *payload, u32 len)
{
	struct compsc_rec_hdr r;
	u32 room, pad = compsc_pad8(len);

	if (!w)
		return -COMPSC_EINVAL;
	if (w->err)
		return w->err;
	if (!compsc_writer_open(w))
		return compsc_writer_fail(w, -COMPSC_ESTATE);
	if (!compsc_writer_rec_ok(w, type, flags, payload, len))
		return compsc_writer_fail(w, -COMPSC_EINVAL);
	/* keep room for END so that _end() cannot run out of space */
	room = w->cap - w->len - END_LEN;
	if (len > room || REC_HDR_LEN + pad > room - len)
		return compsc_writer_fail(w, -COMPSC_ENOSPC);
	r.type = cpu_to_le16(type);
	r.flags = cpu_to_le16(flags);
	r.len = cpu_to_le32(len);
	memcpy(w->buf + w->len, &r, sizeof(r));
	w->len += REC_HDR_LEN;
	if (len)
		memcpy(w->buf + w->len, payload, len);
	memset(w->buf + w->len + len, 0, pad);
	w->len += len + pad;
	return 0;
}
COMPSC_EXPORT(compsc_stream_add);

int compsc_stream_end(struct compsc_stream_writer *w)
{
	struct compsc_rec_hdr r = { .type = cpu_to_le16(COMPSC_REC_END),
		.len = cpu_to_le32(sizeof(struct compsc_rec_end)) };
	struct compsc_rec_end e = { 0 };
	__le32 total;

	if (!w)
		return -COMPSC_EINVAL;
	if (w->err)
		return w->err;
	if (!compsc_writer_open(w))
		return compsc_writer_fail(w, -COMPSC_ESTATE);
	total = cpu_to_le32(w->len + END_LEN);
	memcpy(w->buf + offsetof(struct compsc_stream_hdr, total_len), &total,
	       sizeof(total));
	memcpy(w->buf + w->len, &r, sizeof(r));
	w->len += REC_HDR_LEN;
	e.crc32c = cpu_to_le32(compsc_crc32c(0, w->buf, w->len));
	memcpy(w->buf + w->len, &e, sizeof(e));
	w->len += sizeof(e);
	return (int)w->len;
}
COMPSC_EXPORT(compsc_stream_end);

/* ------------------------------------------------------------------ */
/* Parser                                                              */
/* ------------------------------------------------------------------ */

struct compsc_parse {
	const u8 *buf;
	u32 max_len;
	struct compsc_stream_view *v;
};

static int compsc_refuse(struct compsc_parse *ps, u32 off, int err)
{
	ps->v->err_offset = off;
	return err;
}

/* Steps 1-3: magic, version, lengths. Reads only bytes that exist. */
static int compsc_parse_hdr(struct compsc_parse *ps, u32 len,
			    struct compsc_stream_hdr *h)
{
	u32 total;

	memset(h, 0, sizeof(*h));
	memcpy(h, ps->buf, len < HDR_LEN ? len : HDR_LEN);
	if (len < 4)
		return compsc_refuse(ps, len, -COMPSC_ETRUNCATED);
	if (le32_to_cpu(h->magic) != COMPSC_STREAM_MAGIC)
		return compsc_refuse(ps, 0, -COMPSC_EBADMAGIC);
	if (len < 8)
		return compsc_refuse(ps, len, -COMPSC_ETRUNCATED);
	if (le16_to_cpu(h->major) != COMPSC_STREAM_MAJOR)
		return compsc_refuse(ps, 4, -COMPSC_EWRONG_VERSION);
	if (len < HDR_LEN)
		return compsc_refuse(ps, len, -COMPSC_ETRUNCATED);
	total = le32_to_cpu(h->total_len);
	if (total > ps->max_len)
		return compsc_refuse(ps, 8, -COMPSC_EOVERSIZE);
	if (total < MIN_LEN || total % COMPSC_STREAM_ALIGN)
		return compsc_refuse(ps, 8, -COMPSC_EMALFORMED);
	if (total > len)
		return compsc_refuse(ps, len, -COMPSC_ETRUNCATED);
	if (total < len)
		return compsc_refuse(ps, total, -COMPSC_EMALFORMED);
	return 0;
}

/* Steps 4-5: checksum, then the header's reserved fields. */
static int compsc_parse_crc(struct compsc_parse *ps,
			    const struct compsc_stream_hdr *h)
{
	u32 crc_off = ps->v->total_len - (u32)sizeof(struct compsc_rec_end);

	if (compsc_get_le32(ps->buf + crc_off) !=
	    compsc_crc32c(0, ps->buf, crc_off))
		return compsc_refuse(ps, crc_off, -COMPSC_ECORRUPT);
	if (h->flags)
		return compsc_refuse(ps, offsetof(struct compsc_stream_hdr, flags),
				     -COMPSC_EMALFORMED);
	if (h->rsvd[0] || h->rsvd[1])
		return compsc_refuse(ps, offsetof(struct compsc_stream_hdr, rsvd),
				     -COMPSC_EMALFORMED);
	return 0;
}

/* Padding bytes must be zero so that a stream has one encoding only. */
static int compsc_zero(const u8 *p, u32 n)
{
	while (n--)
		if (*p++)
			return 0;
	return 1;
}

/* Record framing at @pos (< @end, both 8-aligned): lengths and padding. */
static int compsc_parse_frame(struct compsc_parse *ps, u32 pos, u32 end,
			      struct compsc_rec_hdr *r)
{
	u32 room = end - pos - REC_HDR_LEN, rlen, pad;

	memcpy(r, ps->buf + pos, sizeof(*r));
	rlen = le32_to_cpu(r->len);
	pad = compsc_pad8(rlen);
	if (le16_to_cpu(r->flags) & ~COMPSC_REC_F_MANDATORY)
		return compsc_refuse(ps, pos, -COMPSC_EMALFORMED);
	if (rlen > ps->max_len)
		return compsc_refuse(ps, pos, -COMPSC_EOVERSIZE);
	if (rlen > room || pad > room - rlen)
		return compsc_refuse(ps, pos, -COMPSC_ETRUNCATED);
	if (!compsc_zero(ps->buf + pos + REC_HDR_LEN + rlen, pad))
		return compsc_refuse(ps, pos + REC_HDR_LEN + rlen,
				     -COMPSC_EMALFORMED);
	return 0;
}

/* Step 6 for one record; returns the record's wire size or an error. */
static s64 compsc_parse_rec(struct compsc_parse *ps, u32 pos, u32 end)
{
	struct compsc_stream_view *v = ps->v;
	struct compsc_rec_hdr r;
	u16 type, flags;
	u32 rlen;
	int err = compsc_parse_frame(ps, pos, end, &r);

	if (err)
		return err;
	type = le16_to_cpu(r.type);
	flags = le16_to_cpu(r.flags);
	rlen = le32_to_cpu(r.len);
	if (type == COMPSC_REC_END)
		return compsc_refuse(ps, pos, -COMPSC_EMALFORMED);
	if (type >= COMPSC_REC_NR_KNOWN) {
		if (flags & COMPSC_REC_F_MANDATORY)
			return compsc_refuse(ps, pos, -COMPSC_EUNKNOWN_MANDATORY);
		v->nr_unknown++;
	} else if (v->rec[type].data) {
		return compsc_refuse(ps, pos, -COMPSC_EDUPLICATE);
	} else if (compsc_rec_too_big(type, rlen)) {
		return compsc_refuse(ps, pos, -COMPSC_EOVERSIZE);
	} else if (!compsc_rec_size_ok(type, rlen)) {
		return compsc_refuse(ps, pos, -COMPSC_EMALFORMED);
	} else {
		v->rec[type].data = ps->buf + pos + REC_HDR_LEN;
		v->rec[type].len = rlen;
		v->rec[type].flags = flags;
	}
	return (s64)REC_HDR_LEN + rlen + compsc_pad8(rlen);
}

/* Step 6: every record up to END, then END itself. */
static int compsc_parse_walk(struct compsc_parse *ps)
{
	u32 end = ps->v->total_len - END_LEN, pos = HDR_LEN;
	struct compsc_rec_hdr r;
	struct compsc_rec_end e;
	s64 n;

	while (pos < end) {
		n = compsc_parse_rec(ps, pos, end);
		if (n < 0)
			return (int)n;
		pos += (u32)n;
	}
	memcpy(&r, ps->buf + end, sizeof(r));
	memcpy(&e, ps->buf + end + REC_HDR_LEN, sizeof(e));
	if (le16_to_cpu(r.type) != COMPSC_REC_END || r.flags ||
	    !compsc_rec_size_ok(COMPSC_REC_END, le32_to_cpu(r.len)))
		return compsc_refuse(ps, end, -COMPSC_EMALFORMED);
	if (e.rsvd)
		return compsc_refuse(ps, end + REC_HDR_LEN +
				     offsetof(struct compsc_rec_end, rsvd),
				     -COMPSC_EMALFORMED);
	ps->v->rec[COMPSC_REC_END].data = ps->buf + end + REC_HDR_LEN;
	ps->v->rec[COMPSC_REC_END].len = sizeof(e);
	return 0;
}

/* Steps 7-8: identity, then what the known records contain. */
static int compsc_parse_check(struct compsc_parse *ps,
			      const struct compsc_ident *expect)
{
	const struct compsc_ident *id = &ps->v->ident;
	const struct compsc_stream_rec *rec;
	u16 type;
	u32 bad;

	if (expect && (id->vendor != expect->vendor ||
		       id->device != expect->device ||
		       id->subsys_vendor != expect->subsys_vendor ||
		       id->subsys_device != expect->subsys_device))
		return compsc_refuse(ps, offsetof(struct compsc_stream_hdr, vendor),
				     -COMPSC_EWRONG_DEVICE);
	for (type = COMPSC_REC_END + 1; type < COMPSC_REC_NR_KNOWN; type++) {
		rec = &ps->v->rec[type];
		if (!rec->data)
			continue;
		bad = compsc_rec_content_bad(type, rec->data, rec->len);
		if (bad != NO_BAD)
			return compsc_refuse(ps, (u32)(rec->data - ps->buf) + bad,
					     -COMPSC_EMALFORMED);
	}
	return 0;
}

static void compsc_view_hdr(struct compsc_stream_view *v,
			    const struct compsc_stream_hdr *h)
{
	v->major = le16_to_cpu(h->major);
	v->minor = le16_to_cpu(h->minor);
	v->total_len = le32_to_cpu(h->total_len);
	v->ident.vendor = le16_to_cpu(h->vendor);
	v->ident.device = le16_to_cpu(h->device);
	v->ident.subsys_vendor = le16_to_cpu(h->subsys_vendor);
	v->ident.subsys_device = le16_to_cpu(h->subsys_device);
}

/*
 * On failure the view is cleared except err_offset, so that no caller can
 * use records of a stream that was refused.
 */
int compsc_stream_parse(const void *buf, u32 len,
			const struct compsc_ident *expect, u32 max_len,
			struct compsc_stream_view *v)
{
	struct compsc_parse ps = { .buf = buf, .max_len = max_len, .v = v };
	struct compsc_stream_hdr h;
	int err;

	if (!v)
		return -COMPSC_EINVAL;
	memset(v, 0, sizeof(*v));
	if (!buf && len)
		return -COMPSC_EINVAL;
	if (!buf)
		return compsc_refuse(&ps, 0, -COMPSC_ETRUNCATED);
	err = compsc_parse_hdr(&ps, len, &h);
	if (!err) {
		compsc_view_hdr(v, &h);
		err = compsc_parse_crc(&ps, &h);
	}
	if (!err)
		err = compsc_parse_walk(&ps);
	if (!err)
		err = compsc_parse_check(&ps, expect);
	if (err) {
		len = v->err_offset;
		memset(v, 0, sizeof(*v));
		v->err_offset = len;
	}
	return err;
}
COMPSC_EXPORT(compsc_stream_parse);
