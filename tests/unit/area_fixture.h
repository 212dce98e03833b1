/* SPDX-License-Identifier: (GPL-2.0 OR BSD-3-Clause) */
/*
 * Shared by the area validation tests: a guest area laid out by the library
 * in a heap block of exactly its size (so ASan sees any read past it), the
 * tests' host policy (../common/policy_fixture.h), and raw setters that
 * write what a hostile guest could.
 */
#ifndef COMPSC_TEST_AREA_FIXTURE_H
#define COMPSC_TEST_AREA_FIXTURE_H

#include <compsc/compsc.h>
#include <stdlib.h>
#include <string.h>
#include "../common/policy_fixture.h"

/* A fresh area in a malloc'd block of exactly *len bytes. */
static inline struct compsc_area_hdr *fx_area(u32 *len)
{
	struct compsc_layout_req req = { .nr_cpus = 4, .reg_max = FX_REG_MAX,
					 .counter_max = FX_CTR_MAX,
					 .replay_recs = 2 };
	struct compsc_area_hdr *a;

	*len = compsc_area_size(&req);
	a = malloc(*len);
	if (!a || compsc_area_init(a, *len, &req))
		abort();
	return a;
}

/* Raw register entry @i as a hostile guest could write it. */
static inline void fx_set_reg(struct compsc_area_hdr *a, u32 i, u8 bar,
			      u32 off, u8 width, u8 kind, u8 flags)
{
	struct compsc_reg *r = &compsc_area_regs(a)[i];

	r->offset = off;
	r->bar = bar;
	r->width = width;
	r->kind = kind;
	r->flags = flags;
	if (a->reg_count < i + 1)
		a->reg_count = (u16)(i + 1);
}

static inline void fx_set_ctr(struct compsc_area_hdr *a, u32 i, u8 bar,
			      u32 off, u8 width, u8 kind)
{
	struct compsc_counter_desc *c = &compsc_area_counters(a)[i];

	memset(c, 0, sizeof(*c));
	c->offset = off;
	c->bar = bar;
	c->width = width;
	c->kind = kind;
	if (a->counter_count < i + 1)
		a->counter_count = (u16)(i + 1);
}

static inline int fx_snap_regs(const struct compsc_area_hdr *a, u32 len,
			       u32 *bad)
{
	struct compsc_policy p = fx_policy();
	struct compsc_reg out[FX_REG_MAX];

	return compsc_area_snapshot_regs(a, len, &p, out, FX_REG_MAX, bad);
}

static inline int fx_snap_ctrs(const struct compsc_area_hdr *a, u32 len,
			       u32 *bad)
{
	struct compsc_policy p = fx_policy();
	struct compsc_counter_desc out[FX_CTR_MAX];

	return compsc_area_snapshot_counters(a, len, &p, out, FX_CTR_MAX, bad);
}

#endif
