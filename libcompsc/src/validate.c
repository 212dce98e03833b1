// SPDX-License-Identifier: (GPL-2.0 OR BSD-3-Clause)
/*
 * Host-side validation of a guest's shared area. Everything in the area is
 * written by the guest and may change while the host looks at it, so:
 *
 *  - the header is copied once into host memory and only the copy is
 *    judged and used afterwards (offsets, counts);
 *  - a register or counter list is copied into the caller's host buffer
 *    first, and only the copy is validated: what was checked is exactly
 *    what the host will use (no time-of-check/time-of-use gap);
 *  - every guest byte is read once, by that copy.
 *
 * Layout rules (what area.c produces): size in [64, min(len, 64 KiB)],
 * every section inside the area, on a cache line (64 bytes), no two
 * sections (header included) overlapping, 2..COMPSC_MAX_SLOTS reader slots,
 * count <= max <= COMPSC_MAX_* for both lists, replay room >= its header,
 * reserved header fields zero.
 *
 * Entry rules, in the order they are checked (first failure wins, @bad gets
 * the entry index; errors not about one entry leave @bad at 0xffffffff):
 * reserved bits (EREG_FLAGS), kind (EREG_KIND), width (EREG_WIDTH), BAR
 * exists and the register lies inside it (EREG_BAR), offset aligned to the
 * width (EREG_ALIGN), inside an allow-list window that allows its width and
 * kind (EREG_DENIED); then over the whole list no two entries of one BAR
 * share a byte (EREG_OVERLAP, @bad = the later entry). The allow-list is
 * default-deny: an empty list refuses every entry.
 *
 * The replay log is judged the same way: its region (header-checked
 * bounds) copied once, the copy judged by the replay log's own rules
 * (compsc_replay_check(), what attach and the host's save use too).
 */
#include <compsc/compsc.h>

#define NO_INDEX	0xffffffffu

/*
 * struct compsc_reg is the first 8 bytes of struct compsc_counter_desc, so
 * one set of entry checks serves both lists.
 */
compsc_static_assert(offsetof(struct compsc_counter_desc, offset) ==
		     offsetof(struct compsc_reg, offset) &&
		     offsetof(struct compsc_counter_desc, bar) ==
		     offsetof(struct compsc_reg, bar) &&
		     offsetof(struct compsc_counter_desc, width) ==
		     offsetof(struct compsc_reg, width) &&
		     offsetof(struct compsc_counter_desc, kind) ==
		     offsetof(struct compsc_reg, kind) &&
		     offsetof(struct compsc_counter_desc, flags) ==
		     offsetof(struct compsc_reg, flags), "reg prefix");

struct compsc_sec {
	u32 off;
	u32 size;
};

static int compsc_sections_ok(const struct compsc_area_hdr *h, u32 size)
{
	u32 reg_max = le16_to_cpu(h->reg_max);
	const struct compsc_sec s[] = {
		{ 0, sizeof(*h) },
		{ le32_to_cpu(h->ctl_off), sizeof(struct compsc_area_ctl) },
		{ le32_to_cpu(h->slots_off),
		  le16_to_cpu(h->nr_slots) * (u32)sizeof(struct compsc_slot) },
		{ le32_to_cpu(h->reg_off), reg_max * (u32)sizeof(struct compsc_reg) },
		{ le32_to_cpu(h->saved_off), reg_max * (u32)sizeof(__le64) },
		{ le32_to_cpu(h->counter_off), le16_to_cpu(h->counter_max) *
		  (u32)sizeof(struct compsc_counter_desc) },
		{ le32_to_cpu(h->replay_off), le32_to_cpu(h->replay_len) },
	};
	u32 i, j, n = sizeof(s) / sizeof(s[0]);

	for (i = 0; i < n; i++)
		if (s[i].off % COMPSC_CACHELINE || s[i].off > size ||
		    s[i].size > size - s[i].off)
			return 0;
	/* sizes are bounded by @size above, so the sums cannot overflow */
	for (i = 0; i < n; i++)
		for (j = i + 1; j < n; j++)
			if (s[i].size && s[j].size &&
			    s[i].off < s[j].off + s[j].size &&
			    s[j].off < s[i].off + s[i].size)
				return 0;
	return 1;
}

/* Judge a header already copied into host memory. */
static int compsc_hdr_check(const struct compsc_area_hdr *h, u32 len)
{
	u32 size = le32_to_cpu(h->size);
	u16 nr_slots = le16_to_cpu(h->nr_slots);

	if (le32_to_cpu(h->magic) != COMPSC_AREA_MAGIC)
		return -COMPSC_EAREA_MAGIC;
	if (le16_to_cpu(h->abi_major) != COMPSC_ABI_MAJOR)
		return -COMPSC_EAREA_VERSION;
	if (size < sizeof(*h) || size > len || size > COMPSC_AREA_MAX_SIZE)
		return -COMPSC_EAREA_LAYOUT;
	if (h->rsvd0 || h->rsvd1)
		return -COMPSC_EREG_FLAGS;
	if (nr_slots < 2 || nr_slots > COMPSC_MAX_SLOTS ||
	    le32_to_cpu(h->replay_len) < sizeof(struct compsc_replay_hdr))
		return -COMPSC_EAREA_LAYOUT;
	if (le16_to_cpu(h->reg_max) > COMPSC_MAX_REGS ||
	    le16_to_cpu(h->counter_max) > COMPSC_MAX_COUNTERS ||
	    le16_to_cpu(h->reg_count) > le16_to_cpu(h->reg_max) ||
	    le16_to_cpu(h->counter_count) > le16_to_cpu(h->counter_max))
		return -COMPSC_EREG_COUNT;
	return compsc_sections_ok(h, size) ? 0 : -COMPSC_EAREA_LAYOUT;
}

/* Copy the guest header once into @h and judge the copy. */
static int compsc_hdr_snapshot(const void *area, u32 len,
			       struct compsc_area_hdr *h)
{
	if (!area)
		return -COMPSC_EINVAL;
	if (len < sizeof(*h))
		return -COMPSC_EAREA_LAYOUT;
	memcpy(h, area, sizeof(*h));
	return compsc_hdr_check(h, len);
}

int compsc_area_check(const void *area, u32 len)
{
	struct compsc_area_hdr h;

	return compsc_hdr_snapshot(area, len, &h);
}
COMPSC_EXPORT(compsc_area_check);

static int compsc_allowed(const struct compsc_policy *p,
			  const struct compsc_reg *e)
{
	u32 off = le32_to_cpu(e->offset), width_bit, i;
	const struct compsc_allow *a;

	width_bit = e->width == 8 ? COMPSC_WIDTH_8 : COMPSC_WIDTH_4;
	for (i = 0; i < p->nr_allow; i++) {
		a = &p->allow[i];
		/* off + width cannot overflow: it fits the BAR (checked first) */
		if (a->bar == e->bar && off >= a->start &&
		    off + e->width <= a->end && (a->width_mask & width_bit) &&
		    (a->kind_mask & COMPSC_KIND_BIT(e->kind)))
			return 1;
	}
	return 0;
}

/* Where a (host copy of an) entry may point: BAR, alignment, allow-list. */
static int compsc_entry_check(const struct compsc_policy *p,
			      const struct compsc_reg *e)
{
	u32 off = le32_to_cpu(e->offset);

	if (e->bar >= COMPSC_NR_BARS || !p->bar_size[e->bar] ||
	    (u64)off + e->width > p->bar_size[e->bar])
		return -COMPSC_EREG_BAR;
	if (off % e->width)
		return -COMPSC_EREG_ALIGN;
	if (!compsc_allowed(p, e))
		return -COMPSC_EREG_DENIED;
	return 0;
}

static int compsc_reg_check(const struct compsc_policy *p,
			    const struct compsc_reg *e)
{
	if (e->flags)
		return -COMPSC_EREG_FLAGS;
	if (e->kind < COMPSC_REG_PLAIN || e->kind > COMPSC_REG_COUNTER_RC)
		return -COMPSC_EREG_KIND;
	if (e->width != 4 && e->width != 8)
		return -COMPSC_EREG_WIDTH;
	return compsc_entry_check(p, e);
}

/* Counters are 32-bit hardware counters; the host owns flags' SAVED bit. */
static int compsc_counter_check(const struct compsc_policy *p,
				const struct compsc_counter_desc *c)
{
	struct compsc_reg e;

	memcpy(&e, c, sizeof(e));
	if (c->flags & ~COMPSC_CTR_F_SAVED || c->rsvd || c->rsvd2)
		return -COMPSC_EREG_FLAGS;
	if (c->kind != COMPSC_REG_COUNTER_RO && c->kind != COMPSC_REG_COUNTER_RC)
		return -COMPSC_EREG_KIND;
	if (c->width != 4)
		return -COMPSC_EREG_WIDTH;
	return compsc_entry_check(p, &e);
}

/* Entry @i of a host copy with @stride bytes per entry, as its reg prefix. */
static void compsc_entry_at(const void *base, u32 stride, u32 i,
			    struct compsc_reg *e)
{
	memcpy(e, (const u8 *)base + (size_t)i * stride, sizeof(*e));
}

/* Entries already passed compsc_entry_check(): off + width cannot overflow. */
static int compsc_overlap(const void *base, u32 stride, u32 n, u32 *bad)
{
	struct compsc_reg a, b;
	u32 i, j, ao, bo;

	for (j = 1; j < n; j++) {
		compsc_entry_at(base, stride, j, &b);
		bo = le32_to_cpu(b.offset);
		for (i = 0; i < j; i++) {
			compsc_entry_at(base, stride, i, &a);
			ao = le32_to_cpu(a.offset);
			if (a.bar == b.bar && ao < bo + b.width &&
			    bo < ao + a.width) {
				*bad = j;
				return -COMPSC_EREG_OVERLAP;
			}
		}
	}
	return 0;
}

/*
 * Common part of both snapshots: header, count against every limit, then
 * the one copy of the guest list into @out. Returns the count.
 */
static int compsc_list_copy(const void *area, u32 len,
			    const struct compsc_policy *p, int regs,
			    void *out, u32 cap, u32 *bad)
{
	struct compsc_area_hdr h;
	u32 n, max, off, stride;
	int err;

	if (!p || (!out && cap) || (p->nr_allow && !p->allow))
		return -COMPSC_EINVAL;
	err = compsc_hdr_snapshot(area, len, &h);
	if (err)
		return err;
	n = le16_to_cpu(regs ? h.reg_count : h.counter_count);
	max = regs ? p->max_regs : p->max_counters;
	max = max < cap ? max : cap;
	if (n > max) {
		*bad = max;
		return -COMPSC_EREG_COUNT;
	}
	off = le32_to_cpu(regs ? h.reg_off : h.counter_off);
	stride = regs ? sizeof(struct compsc_reg) :
		 sizeof(struct compsc_counter_desc);
	if (n)
		memcpy(out, (const u8 *)area + off, (size_t)n * stride);
	return (int)n;
}

typedef int (*compsc_judge_fn)(const struct compsc_policy *p,
				  const void *entry);

static int compsc_reg_entry(const struct compsc_policy *p, const void *e)
{
	return compsc_reg_check(p, e);
}

static int compsc_counter_entry(const struct compsc_policy *p, const void *e)
{
	return compsc_counter_check(p, e);
}

/*
 * Judge the @n entries already copied into host memory at @out: each one
 * alone, then all together (no two may overlap). Returns @n or the error,
 * with *bad naming the entry.
 */
static int compsc_list_judge(const struct compsc_policy *p, const void *out,
			     u32 stride, int n, compsc_judge_fn check,
			     u32 *bad)
{
	u32 i;
	int err;

	for (i = 0; n > 0 && i < (u32)n; i++) {
		err = check(p, (const u8 *)out + (size_t)i * stride);
		if (err) {
			*bad = i;
			return err;
		}
	}
	if (n > 0) {
		err = compsc_overlap(out, stride, (u32)n, bad);
		if (err)
			return err;
	}
	return n;
}

int compsc_area_snapshot_regs(const void *area, u32 len,
			      const struct compsc_policy *p,
			      struct compsc_reg *out, u32 cap, u32 *bad)
{
	u32 dummy;
	int n;

	bad = bad ? bad : &dummy;
	*bad = NO_INDEX;
	n = compsc_list_copy(area, len, p, 1, out, cap, bad);
	return compsc_list_judge(p, out, sizeof(*out), n, compsc_reg_entry, bad);
}
COMPSC_EXPORT(compsc_area_snapshot_regs);

int compsc_area_snapshot_counters(const void *area, u32 len,
				  const struct compsc_policy *p,
				  struct compsc_counter_desc *out, u32 cap,
				  u32 *bad)
{
	u32 dummy;
	int n;

	bad = bad ? bad : &dummy;
	*bad = NO_INDEX;
	n = compsc_list_copy(area, len, p, 0, out, cap, bad);
	return compsc_list_judge(p, out, sizeof(*out), n, compsc_counter_entry,
				 bad);
}
COMPSC_EXPORT(compsc_area_snapshot_counters);

int compsc_area_snapshot_replay(const void *area, u32 len, void *out, u32 cap,
				u32 *bad)
{
	struct compsc_area_hdr h;
	u32 dummy, room;
	int err;

	bad = bad ? bad : &dummy;
	*bad = COMPSC_REPLAY_NO_REC;
	if (!out && cap)
		return -COMPSC_EINVAL;
	err = compsc_hdr_snapshot(area, len, &h);
	if (err)
		return err;
	room = le32_to_cpu(h.replay_len);	/* >= a replay header */
	if (room > cap)
		return -COMPSC_ENOSPC;
	memcpy(out, (const u8 *)area + le32_to_cpu(h.replay_off), room);
	if (compsc_replay_blank(out, room))
		return 0;
	return compsc_replay_check(out, room, bad);
}
COMPSC_EXPORT(compsc_area_snapshot_replay);
