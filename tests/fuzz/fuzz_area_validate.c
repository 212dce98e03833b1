// SPDX-License-Identifier: (GPL-2.0 OR BSD-3-Clause)
/*
 * Property: area validation never crashes or reads outside the area on any
 * bytes, and every list it accepts satisfies the host's invariants, checked
 * here independently of validate.c: inside an existing BAR, aligned, width
 * 4/8 (counters 4), known kind, no reserved bits, inside an allow-list
 * window that permits it, no two entries overlapping, counts within the
 * policy, and the copy equal to what the area holds. The replay log's
 * verdict is a count within the capacity its region holds, on a copy
 * equal to that region.
 */
#include "fuzz_common.h"

static struct compsc_policy fuzz_policy;	/* fx_policy(), set per input */

static int in_window(const struct compsc_reg *e)
{
	u32 wbit = e->width == 8 ? COMPSC_WIDTH_8 : COMPSC_WIDTH_4;

	for (u32 i = 0; i < fuzz_policy.nr_allow; i++) {
		const struct compsc_allow *a = &fx_allow[i];

		if (a->bar == e->bar && e->offset >= a->start &&
		    (uint64_t)e->offset + e->width <= a->end &&
		    (a->width_mask & wbit) &&
		    (a->kind_mask & COMPSC_KIND_BIT(e->kind)))
			return 1;
	}
	return 0;
}

static void entry_ok(const struct compsc_reg *e)
{
	FUZZ_ASSERT(e->bar < COMPSC_NR_BARS && fuzz_policy.bar_size[e->bar]);
	FUZZ_ASSERT((uint64_t)e->offset + e->width <= fuzz_policy.bar_size[e->bar]);
	FUZZ_ASSERT((e->width == 4 || e->width == 8) && e->offset % e->width == 0);
	FUZZ_ASSERT(e->kind >= COMPSC_REG_PLAIN && e->kind <= COMPSC_REG_COUNTER_RC);
	FUZZ_ASSERT(in_window(e));
}

static void no_overlap(const struct compsc_reg *e, int n)
{
	for (int i = 0; i < n; i++)
		for (int j = i + 1; j < n; j++)
			FUZZ_ASSERT(e[i].bar != e[j].bar ||
				    e[i].offset + e[i].width <= e[j].offset ||
				    e[j].offset + e[j].width <= e[i].offset);
}

/* @check_err: what compsc_area_check() said; a bad header fails both. */
static void check_regs(const uint8_t *area, u32 len, int check_err)
{
	struct compsc_reg out[COMPSC_MAX_REGS];
	struct compsc_area_hdr h;
	u32 bad;
	int n = compsc_area_snapshot_regs(area, len, &fuzz_policy, out,
					  COMPSC_MAX_REGS, &bad);

	FUZZ_ASSERT(!check_err || n == check_err);
	if (n < 0) {
		FUZZ_ASSERT(-n < COMPSC_E_MAX);
		return;
	}
	memcpy(&h, area, sizeof(h));
	FUZZ_ASSERT((u32)n == h.reg_count && (u32)n <= fuzz_policy.max_regs);
	FUZZ_ASSERT(!memcmp(out, area + h.reg_off, (size_t)n * sizeof(out[0])));
	for (int i = 0; i < n; i++) {
		FUZZ_ASSERT(!out[i].flags);
		entry_ok(&out[i]);
	}
	no_overlap(out, n);
}

static void check_counters(const uint8_t *area, u32 len)
{
	struct compsc_counter_desc out[COMPSC_MAX_COUNTERS];
	struct compsc_reg e[COMPSC_MAX_COUNTERS];
	struct compsc_area_hdr h;
	u32 bad;
	int n = compsc_area_snapshot_counters(area, len, &fuzz_policy, out,
					      COMPSC_MAX_COUNTERS, &bad);

	if (n < 0)
		return;
	memcpy(&h, area, sizeof(h));
	FUZZ_ASSERT((u32)n == h.counter_count && (u32)n <= fuzz_policy.max_counters);
	FUZZ_ASSERT(!memcmp(out, area + h.counter_off, (size_t)n * sizeof(out[0])));
	for (int i = 0; i < n; i++) {
		FUZZ_ASSERT(out[i].width == 4 && out[i].kind != COMPSC_REG_PLAIN);
		FUZZ_ASSERT(!(out[i].flags & ~COMPSC_CTR_F_SAVED) && !out[i].rsvd &&
			    !out[i].rsvd2);
		e[i] = (struct compsc_reg){ .offset = out[i].offset,
			.bar = out[i].bar, .width = out[i].width,
			.kind = out[i].kind };
		entry_ok(&e[i]);
	}
	no_overlap(e, n);
}

/* @check_err: what compsc_area_check() said; a bad header fails both. */
static void check_replay(const uint8_t *area, u32 len, int check_err)
{
	static uint64_t out[COMPSC_AREA_MAX_SIZE / 8];
	struct compsc_replay_hdr r;
	struct compsc_area_hdr h;
	u32 bad;
	int n = compsc_area_snapshot_replay(area, len, out, sizeof(out), &bad);

	FUZZ_ASSERT(!check_err || n == check_err);
	if (n < 0) {
		FUZZ_ASSERT(-n < COMPSC_E_MAX);
		return;
	}
	memcpy(&h, area, sizeof(h));
	memcpy(&r, out, sizeof(r));
	FUZZ_ASSERT(!memcmp(out, area + h.replay_off, h.replay_len));
	FUZZ_ASSERT(bad == COMPSC_REPLAY_NO_REC);
	FUZZ_ASSERT((n == 0 && !r.magic) || ((u32)n == r.count &&
		    r.count <= r.capacity &&
		    r.capacity <= (h.replay_len - sizeof(r)) /
				  sizeof(struct compsc_replay_rec)));
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint8_t *area;
	int err;

	if (size > COMPSC_AREA_MAX_SIZE)
		return 0;
	fuzz_policy = fx_policy();
	/* exactly size bytes, 8-aligned like a real mapping */
	area = malloc(size ? size : 1);
	FUZZ_ASSERT(area);
	memcpy(area, data, size);
	err = compsc_area_check(area, (u32)size);
	FUZZ_ASSERT(err <= 0 && -err < COMPSC_E_MAX);
	check_regs(area, (u32)size, err);
	check_counters(area, (u32)size);
	check_replay(area, (u32)size, err);
	free(area);
	return 0;
}
