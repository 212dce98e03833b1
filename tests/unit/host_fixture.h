/* SPDX-License-Identifier: (GPL-2.0 OR BSD-3-Clause) */
/*
 * Shared by the host-side tests: a VF model whose registers live in a BAR
 * in memory (compsc_rd32/compsc_wr32 in userspace), a guest area laid out
 * by the library with a register list (two queue controls, a ring head),
 * two counters and a replay log, and a clock the waiting code advances.
 */
#ifndef COMPSC_TEST_HOST_FIXTURE_H
#define COMPSC_TEST_HOST_FIXTURE_H

#include <compsc/compsc.h>
#include <compsc/host.h>
#include <stdlib.h>
#include <string.h>
#include "area_fixture.h"

#define HX_RXDCTL	0x028u
#define HX_TXDCTL	0x038u
#define HX_RDH		0x010u
#define HX_STATUS	0x008u
#define HX_EICS		0x100u
#define HX_EIMS		0x104u
#define HX_RDBAL	0x200u
#define HX_GPRC		0x1000u
#define HX_GPTC		0x1004u
#define HX_ENABLE	0x02000000u
#define HX_REPLAY_KEY	7u

static const u32 hx_qctl[] = { HX_RXDCTL, HX_TXDCTL };
static const u32 hx_rings[] = { HX_RDBAL };
static const u32 hx_stats[] = { HX_GPRC, HX_GPTC };
static struct compsc_policy hx_pol;

static const struct compsc_devmodel hx_model = {
	.name = "test VF", .vendor = 0x8086, .device = 0x10ca,
	.bar0_size = FX_BAR_SIZE, .policy = &hx_pol,
	.qctl = hx_qctl, .nr_qctl = 2, .qctl_enable = HX_ENABLE,
	.qstop_us = 1000, .flush = HX_STATUS,
	.irq_set = HX_EICS, .irq_unmask = HX_EIMS, .irq_all = 7,
	.ring_base = hx_rings, .nr_rings = 1, .ring_hi = 4, .ring_len = 8,
	.ring_len_mask = 0xfff80u,
	.stats = hx_stats, .nr_stats = 2,
};

static const struct compsc_ident hx_id = { 0x8086, 0x10ca, 0x8086, 0 };

/* One host's view: its VF (BAR in memory) and the guest's area. */
struct hx {
	u32 bar[FX_BAR_SIZE / 4];
	struct compsc_area_hdr *area;
	u32 len;
	struct compsc_host_area a;
	struct compsc_host_dev d;
	struct compsc_env env;
	u64 clock;
	u32 relaxes;
	int stuck;		/* the RX queue never stops */
};

/* A stuck queue: the device sets its enable bit again whenever it is looked at. */
static u64 hx_now(void *ctx)
{
	struct hx *h = ctx;

	if (h->stuck)
		h->bar[HX_RXDCTL / 4] |= HX_ENABLE;
	return h->clock;
}

static void hx_relax(void *ctx)
{
	struct hx *h = ctx;

	h->clock += 20000;	/* 20 us per wait */
	h->relaxes++;
}

static void hx_fence(void *ctx)
{
	(void)ctx;
}

static inline u32 hx_rd(struct hx *h, u32 off)
{
	return h->bar[off / 4];
}

static inline void hx_wr(struct hx *h, u32 off, u32 v)
{
	h->bar[off / 4] = v;
}

/*
 * A guest area as the VF driver sets it up: RXDCTL, TXDCTL and RDH listed,
 * GPRC and GPTC as counters, a replay log with one record; the host's
 * checked copy in h->a. Returns what compsc_host_area_check() said.
 */
static inline int hx_setup(struct hx *h)
{
	struct compsc_replay log;
	struct compsc_replay_hdr *rh;
	u32 bad, mac[2] = { 0x11223344, 0x5566 };

	memset(h, 0, sizeof(*h));
	hx_pol = fx_policy();
	h->area = fx_area(&h->len);
	compsc_area_add_reg(h->area, 0, HX_RXDCTL, 4, COMPSC_REG_PLAIN);
	compsc_area_add_reg(h->area, 0, HX_TXDCTL, 4, COMPSC_REG_PLAIN);
	compsc_area_add_reg(h->area, 0, HX_RDH, 4, COMPSC_REG_PLAIN);
	compsc_area_add_counter(h->area, 0, HX_GPRC, COMPSC_REG_COUNTER_RO);
	compsc_area_add_counter(h->area, 0, HX_GPTC, COMPSC_REG_COUNTER_RO);
	rh = compsc_area_replay(h->area);
	if (compsc_replay_init(&log, rh, h->area->replay_len, NULL, 0) ||
	    compsc_replay_put(&log, HX_REPLAY_KEY, mac, sizeof(mac)))
		abort();
	h->env = (struct compsc_env){ .ctx = h, .now_ns = hx_now,
				      .relax = hx_relax,
				      .fence_readers = hx_fence };
	h->d.dm = &hx_model;
	h->d.bar = h->bar;
	h->d.env = &h->env;
	h->a.va = h->area;
	h->a.size = h->len;
	h->a.gpa = 0x100000;
	return compsc_host_area_check(&h->a, &hx_pol, &bad);
}

static inline void hx_teardown(struct hx *h)
{
	free(h->area);
}

/* The VF as a running guest left it. */
static inline void hx_running(struct hx *h)
{
	hx_wr(h, HX_RXDCTL, HX_ENABLE | 0x10);
	hx_wr(h, HX_TXDCTL, HX_ENABLE | 0x20);
	hx_wr(h, HX_RDH, 37);
	hx_wr(h, HX_GPRC, 1000);
	hx_wr(h, HX_GPTC, 2000);
	compsc_area_counters(h->area)[0].total = 5000;
	compsc_area_counters(h->area)[1].total = 6000;
}

/* Take and save @src into @out; returns the stream length or an error. */
static inline int hx_take_save(struct hx *src, u8 *out, u32 cap,
			       struct compsc_host_save *s)
{
	static uint64_t replay[2 * 65536 / 8];	/* 8-byte aligned */
	int err = compsc_host_take(&src->a, &src->d, 1000000000ull);

	if (err)
		return err;
	memset(s, 0, sizeof(*s));
	s->replay = (u8 *)replay;
	return compsc_host_save(&src->a, &src->d, &hx_id, s, out, cap);
}

#endif
