// SPDX-License-Identifier: (GPL-2.0 OR BSD-3-Clause)
/*
 * Shared area layout, guest side. The guest lays the area out once; every
 * section offset is recorded in the header so the host never assumes a
 * layout (it validates the header instead, see validate.c).
 */
#include <compsc/compsc.h>

/* Sections in area order; each starts on its own cache line. */
static u32 compsc_align64(u32 v)
{
	return (v + COMPSC_CACHELINE - 1) & ~(u32)(COMPSC_CACHELINE - 1);
}

static int compsc_layout_ok(const struct compsc_layout_req *req)
{
	return req && req->nr_cpus >= 1 && req->nr_cpus < COMPSC_MAX_SLOTS &&
	       req->reg_max <= COMPSC_MAX_REGS &&
	       req->counter_max <= COMPSC_MAX_COUNTERS &&
	       req->replay_recs <= 1024;
}

/* Fill @h with offsets for @req; returns total size. */
static u32 compsc_layout(const struct compsc_layout_req *req,
			 struct compsc_area_hdr *h)
{
	u32 off = 2 * COMPSC_CACHELINE;	/* header line, control line */
	u32 nr_slots = req->nr_cpus + 1;

	h->ctl_off = cpu_to_le32(COMPSC_CACHELINE);
	h->slots_off = cpu_to_le32(off);
	off += nr_slots * (u32)sizeof(struct compsc_slot);
	h->reg_off = cpu_to_le32(off);
	off = compsc_align64(off + req->reg_max * (u32)sizeof(struct compsc_reg));
	h->saved_off = cpu_to_le32(off);
	off = compsc_align64(off + req->reg_max * 8u);
	h->counter_off = cpu_to_le32(off);
	off = compsc_align64(off + req->counter_max *
			     (u32)sizeof(struct compsc_counter_desc));
	h->replay_off = cpu_to_le32(off);
	h->replay_len = cpu_to_le32((u32)sizeof(struct compsc_replay_hdr) +
			req->replay_recs * (u32)sizeof(struct compsc_replay_rec));
	off = compsc_align64(off + le32_to_cpu(h->replay_len));
	h->nr_slots = cpu_to_le16((u16)nr_slots);
	h->reg_max = cpu_to_le16((u16)req->reg_max);
	h->counter_max = cpu_to_le16((u16)req->counter_max);
	return off;
}

u32 compsc_area_size(const struct compsc_layout_req *req)
{
	struct compsc_area_hdr h;

	if (!compsc_layout_ok(req))
		return 0;
	return compsc_layout(req, &h);
}
COMPSC_EXPORT(compsc_area_size);

int compsc_area_init(void *mem, u32 len, const struct compsc_layout_req *req)
{
	struct compsc_area_hdr *h = mem;
	u32 size;

	if (!mem || !compsc_layout_ok(req))
		return -COMPSC_EINVAL;
	size = compsc_area_size(req);
	if (len < size || size > COMPSC_AREA_MAX_SIZE)
		return -COMPSC_ENOSPC;
	memset(mem, 0, size);
	compsc_layout(req, h);
	h->magic = cpu_to_le32(COMPSC_AREA_MAGIC);
	h->abi_major = cpu_to_le16(COMPSC_ABI_MAJOR);
	h->abi_minor = cpu_to_le16(COMPSC_ABI_MINOR);
	h->size = cpu_to_le32(size);
	return 0;
}
COMPSC_EXPORT(compsc_area_init);

#define COMPSC_SECTION(name, type, field)				\
type *compsc_area_##name(struct compsc_area_hdr *a)			\
{									\
	return (type *)((u8 *)a + le32_to_cpu(a->field));		\
}									\
COMPSC_EXPORT(compsc_area_##name)

COMPSC_SECTION(ctl, struct compsc_area_ctl, ctl_off);
COMPSC_SECTION(slots, struct compsc_slot, slots_off);
COMPSC_SECTION(regs, struct compsc_reg, reg_off);
COMPSC_SECTION(saved, __le64, saved_off);
COMPSC_SECTION(counters, struct compsc_counter_desc, counter_off);
COMPSC_SECTION(replay, struct compsc_replay_hdr, replay_off);

int compsc_area_add_reg(struct compsc_area_hdr *a, u8 bar, u32 offset,
			u8 width, u8 kind)
{
	u16 n = le16_to_cpu(a->reg_count);
	struct compsc_reg *r;

	if (n >= le16_to_cpu(a->reg_max))
		return -COMPSC_ENOSPC;
	if ((width != 4 && width != 8) || kind < COMPSC_REG_PLAIN ||
	    kind > COMPSC_REG_COUNTER_RC || bar >= COMPSC_NR_BARS)
		return -COMPSC_EINVAL;
	r = &compsc_area_regs(a)[n];
	r->offset = cpu_to_le32(offset);
	r->bar = bar;
	r->width = width;
	r->kind = kind;
	r->flags = 0;
	a->reg_count = cpu_to_le16(n + 1);
	return 0;
}
COMPSC_EXPORT(compsc_area_add_reg);

int compsc_area_add_counter(struct compsc_area_hdr *a, u8 bar, u32 offset,
			    u8 kind)
{
	u16 n = le16_to_cpu(a->counter_count);
	struct compsc_counter_desc *c;

	if (n >= le16_to_cpu(a->counter_max))
		return -COMPSC_ENOSPC;
	if ((kind != COMPSC_REG_COUNTER_RO && kind != COMPSC_REG_COUNTER_RC) ||
	    bar >= COMPSC_NR_BARS)
		return -COMPSC_EINVAL;
	c = &compsc_area_counters(a)[n];
	memset(c, 0, sizeof(*c));
	c->offset = cpu_to_le32(offset);
	c->bar = bar;
	c->width = 4;
	c->kind = kind;
	a->counter_count = cpu_to_le16(n + 1);
	return n;
}
COMPSC_EXPORT(compsc_area_add_counter);
