// SPDX-License-Identifier: (GPL-2.0 OR BSD-3-Clause)
/*
 * Property: the host side never crashes, reads or writes outside the area
 * or loops unbounded, whatever the guest wrote into its area. An area the
 * check accepts is taken (or refused with a take error, the device
 * untouched), saved, loaded back against itself (the checked copies always
 * match their own stream), given and given back, all on a BAR in memory.
 */
#include <compsc/host.h>
#include "fuzz_common.h"

/* BAR0 only: the host side maps no other BAR. */
static const struct compsc_policy host_policy = {
	.bar_size = { [0] = FX_BAR_SIZE },
	.allow = fx_allow, .nr_allow = FX_NR_ALLOW_BAR0,
	.max_regs = FX_REG_MAX, .max_counters = FX_CTR_MAX,
};
static const u32 qctl[] = { 0x028, 0x038 };
static const struct compsc_devmodel model = {
	.name = "fuzz VF", .bar0_size = FX_BAR_SIZE, .policy = &host_policy,
	.qctl = qctl, .nr_qctl = 2, .qctl_enable = 1u << 25, .qstop_us = 100,
	.flush = 0x008, .irq_set = 0x100, .irq_unmask = 0x104, .irq_all = 7,
};
static const struct compsc_ident id = { 0x8086, 0x10ca, 0, 0 };

static u32 bar[FX_BAR_SIZE / 4];
static u8 stream[COMPSC_HOST_STREAM_MAX];
static struct compsc_host_save save;
static struct compsc_stream_view view;
static struct compsc_host_area area;
static u64 clock_ns;

static u64 fz_now(void *ctx)
{
	(void)ctx;
	return clock_ns;
}

static void fz_relax(void *ctx)
{
	(void)ctx;
	clock_ns += 10000;
}

static void fz_fence(void *ctx)
{
	(void)ctx;
}

static const struct compsc_env env = {
	.now_ns = fz_now, .relax = fz_relax, .fence_readers = fz_fence,
};

/* Held: save, load the stream back against the same area, give. */
static void held(struct compsc_host_dev *d)
{
	int len;

	save.replay = malloc(compsc_host_replay_bytes(&area) + 1);
	FUZZ_ASSERT(save.replay);
	len = compsc_host_save(&area, d, &id, &save, stream, sizeof(stream));
	free(save.replay);
	save.replay = NULL;
	if (len < 0) {
		FUZZ_ASSERT(-len < COMPSC_E_MAX);
		return;
	}
	FUZZ_ASSERT((u32)len <= compsc_host_save_bound(&area, 0));
	FUZZ_ASSERT(compsc_host_load(&area, stream, (u32)len, &id, &view) == 0);
	compsc_host_give(&area, &view, false, true);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct compsc_host_dev d = { .dm = &model, .bar = bar, .env = &env };
	u32 bad;
	int err;

	if (size < sizeof(struct compsc_area_hdr) || size > 65536)
		return 0;
	area.va = malloc(size);
	FUZZ_ASSERT(area.va);
	memcpy(area.va, data, size);
	area.size = (u32)size;
	err = compsc_host_area_check(&area, &host_policy, &bad);
	FUZZ_ASSERT(err <= 0 && -err < COMPSC_E_MAX);
	if (!err) {
		FUZZ_ASSERT(area.lists.nr_regs <= host_policy.max_regs);
		FUZZ_ASSERT(area.lists.nr_ctrs <= host_policy.max_counters);
		err = compsc_host_take(&area, &d, 1000000);
		/* -COMPSC_ESTATE: the area reads withdrawn, nothing written */
		FUZZ_ASSERT(!err || err == -COMPSC_ETIMEDOUT ||
			    err == -COMPSC_EBUSY || err == -COMPSC_ENOTRESTORED ||
			    err == -COMPSC_ESTATE);
		FUZZ_ASSERT(!err == d.stopped);
		if (!err) {
			held(&d);
			compsc_host_giveback(&area, &d, 0);
		}
	}
	free(area.va);
	return 0;
}
