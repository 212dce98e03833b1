// SPDX-License-Identifier: (GPL-2.0 OR BSD-3-Clause)
/*
 * Self-test of the stream and host-side validation code, run in the kernel
 * module and in userspace. Static buffers keep the kernel stack small; the
 * self-test is not reentrant (it runs once, from module init or a test).
 */
#include "selftest.h"

static union {
	u8 b[512];
	u64 align;
} compsc_st_stream;

static union {
	u8 b[2048];
	u64 align;
} compsc_st_area;

static const struct compsc_ident compsc_st_id = {
	.vendor = 0x8086, .device = 0x10ca,
	.subsys_vendor = 0x8086, .subsys_device = 0xa03c,
};

static void compsc_st_crc(struct compsc_st *st)
{
	static const char v[] = "123456789";

	ST_CHECK(st, compsc_crc32c(0, v, 9) == 0xE3069283u);
	ST_CHECK(st, compsc_crc32c(compsc_crc32c(0, v, 4), v + 4, 5) ==
		 0xE3069283u);
	ST_CHECK(st, compsc_crc32c(0, v, 0) == 0);
}

/* Writes a small stream into compsc_st_stream; returns its length. */
static int compsc_st_write(void)
{
	struct compsc_stream_writer w;
	const struct compsc_rec_reg r4 = { .offset = cpu_to_le32(0x10),
		.width = 4, .kind = COMPSC_REG_PLAIN };
	const struct compsc_rec_reg r8 = { .offset = cpu_to_le32(0x2000),
		.width = 8, .kind = COMPSC_REG_PLAIN };
	static const u8 drv[5] = { 1, 2, 3, 4, 5 };
	u8 regs[2 * COMPSC_REC_REG_MAX];
	u32 n = compsc_rec_reg_put(regs, &r4, 0x1234);

	n += compsc_rec_reg_put(regs + n, &r8, ~0ull);
	compsc_stream_begin(&w, compsc_st_stream.b, sizeof(compsc_st_stream.b),
			    &compsc_st_id);
	compsc_stream_add(&w, COMPSC_REC_REGS, COMPSC_REC_F_MANDATORY, regs, n);
	compsc_stream_add(&w, COMPSC_REC_DRIVER, 0, drv, sizeof(drv));
	return compsc_stream_end(&w);
}

/* The REGS record compsc_st_write() wrote reads back entry by entry. */
static int compsc_st_regs_ok(const struct compsc_stream_rec *r)
{
	struct compsc_rec_reg e;
	u64 value;
	u32 off;

	off = compsc_rec_reg_get(r->data, r->len, 0, &e, &value);
	if (off != 12 || le32_to_cpu(e.offset) != 0x10 || value != 0x1234)
		return 0;
	off = compsc_rec_reg_get(r->data, r->len, off, &e, &value);
	return off == r->len && e.width == 8 && value == ~0ull;
}

static void compsc_st_stream_checks(struct compsc_st *st)
{
	struct compsc_stream_view v;
	struct compsc_ident other = compsc_st_id;
	u8 *b = compsc_st_stream.b;
	int n = compsc_st_write();
	u32 len = n > 0 ? (u32)n : 0;

	ST_CHECK(st, n == 32 + 8 + 32 + 8 + 8 + 16);
	ST_CHECK(st, compsc_stream_parse(b, len, &compsc_st_id, len, &v) == 0);
	ST_CHECK(st, compsc_st_regs_ok(&v.rec[COMPSC_REC_REGS]));
	ST_CHECK(st, v.rec[COMPSC_REC_REGS].len == 12 + 16 &&
		 v.rec[COMPSC_REC_DRIVER].len == 5 &&
		 v.rec[COMPSC_REC_DRIVER].data[4] == 5 &&
		 !v.rec[COMPSC_REC_COUNTERS].data && v.nr_unknown == 0);
	ST_CHECK(st, compsc_stream_parse(b, len - 8, NULL, len, &v) ==
		 -COMPSC_ETRUNCATED);
	ST_CHECK(st, compsc_stream_parse(b, len, NULL, len - 8, &v) ==
		 -COMPSC_EOVERSIZE);
	other.device ^= 1;
	ST_CHECK(st, compsc_stream_parse(b, len, &other, len, &v) ==
		 -COMPSC_EWRONG_DEVICE);
	b[len - 20] ^= 0x40;	/* inside the DRIVER record's payload */
	ST_CHECK(st, compsc_stream_parse(b, len, NULL, len, &v) ==
		 -COMPSC_ECORRUPT && v.err_offset == len - 8);
	b[len - 20] ^= 0x40;
	b[0] ^= 1;
	ST_CHECK(st, compsc_stream_parse(b, len, NULL, len, &v) ==
		 -COMPSC_EBADMAGIC);
	b[0] ^= 1;
	ST_CHECK(st, compsc_stream_parse(b, len, NULL, len, &v) == 0);
}

static void compsc_st_area_checks(struct compsc_st *st)
{
	static const struct compsc_allow allow[] = {
		{ .start = 0, .end = 0x4000, .bar = 0,
		  .width_mask = COMPSC_WIDTH_4 | COMPSC_WIDTH_8,
		  .kind_mask = COMPSC_KIND_BIT(COMPSC_REG_PLAIN) },
	};
	static struct compsc_reg out[4];
	const struct compsc_layout_req req = { .nr_cpus = 2, .reg_max = 4,
					       .counter_max = 2, .replay_recs = 1 };
	struct compsc_policy p = { .bar_size = { 0x4000 }, .allow = allow,
				   .nr_allow = 1, .max_regs = 4 };
	struct compsc_area_hdr *a = (void *)compsc_st_area.b;
	u32 len = sizeof(compsc_st_area.b), bad = 0;

	ST_CHECK(st, compsc_area_init(a, len, &req) == 0);
	ST_CHECK(st, compsc_area_check(a, len) == 0);
	ST_CHECK(st, compsc_area_add_reg(a, 0, 0x100, 4, COMPSC_REG_PLAIN) == 0);
	ST_CHECK(st, compsc_area_add_reg(a, 0, 0x108, 8, COMPSC_REG_PLAIN) == 0);
	ST_CHECK(st, compsc_area_snapshot_regs(a, len, &p, out, 4, &bad) == 2 &&
		 le32_to_cpu(out[1].offset) == 0x108);
	ST_CHECK(st, compsc_area_add_reg(a, 0, 0x4000, 4, COMPSC_REG_PLAIN) == 0);
	ST_CHECK(st, compsc_area_snapshot_regs(a, len, &p, out, 4, &bad) ==
		 -COMPSC_EREG_BAR && bad == 2);
	compsc_area_regs(a)[2].offset = cpu_to_le32(0x10c);
	ST_CHECK(st, compsc_area_snapshot_regs(a, len, &p, out, 4, &bad) ==
		 -COMPSC_EREG_OVERLAP && bad == 2);
	ST_CHECK(st, compsc_area_check(a, 64) == -COMPSC_EAREA_LAYOUT);
	a->magic ^= 1;
	ST_CHECK(st, compsc_area_check(a, len) == -COMPSC_EAREA_MAGIC);
}

void compsc_selftest_stream(struct compsc_st *st)
{
	compsc_st_crc(st);
	compsc_st_stream_checks(st);
	compsc_st_area_checks(st);
}
