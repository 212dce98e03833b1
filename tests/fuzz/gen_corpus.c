// SPDX-License-Identifier: (GPL-2.0 OR BSD-3-Clause)
/*
 * Writes the committed seed corpus (tests/fuzz/corpus/<target>/) with the
 * library's own writer and area layout, so seeds follow the format without
 * this program knowing it. Run by `make fuzz-corpus`; the output is
 * committed so that replay needs neither this program nor clang. The
 * target directories must exist (the make rule creates them).
 */
#include "fuzz_common.h"

static const char *root;

static void put(const char *target, const char *name, const void *d, size_t n)
{
	char path[1024];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s/%s", root, target, name);
	f = fopen(path, "wb");
	if (!f || fwrite(d, 1, n, f) != n || fclose(f)) {
		perror(path);
		exit(1);
	}
}

static const struct compsc_ident id = { 0x8086, 0x10ca, 0x8086, 0xa03c };
static const struct compsc_rec_reg regs[2] = {
	{ .offset = 0x0000, .bar = 0, .width = 4, .kind = COMPSC_REG_PLAIN, .value = 1 },
	{ .offset = 0x0808, .bar = 2, .width = 8, .kind = COMPSC_REG_PLAIN, .value = 2 },
};
static const struct compsc_rec_counter ctrs[1] = {
	{ .offset = 0x1010, .bar = 0, .width = 4, .kind = COMPSC_REG_COUNTER_RO,
	  .hw_final = 0xfffffffe, .total = 0x2fffffffeull },
};
static const struct compsc_pf_vf_state pfvf = {
	.vf_index = 2, .flags = COMPSC_PFVF_F_SPOOFCHK,
	.mac = { 0x52, 0x54, 0, 1, 2, 3 }, .nr_vlans = 1, .vlans = { 100 },
};

/* @mask: which records to add (bit = type), plus unknown ones. */
static int stream(uint8_t *buf, unsigned mask, int unknown_flags)
{
	struct compsc_stream_writer w;

	compsc_stream_begin(&w, buf, FUZZ_RECIPE_CAP, &id);
	if (mask & 2)
		compsc_stream_add(&w, COMPSC_REC_REGS, COMPSC_REC_F_MANDATORY,
				  regs, sizeof(regs));
	if (mask & 4)
		compsc_stream_add(&w, COMPSC_REC_COUNTERS, 0, ctrs, sizeof(ctrs));
	if (unknown_flags >= 0)
		compsc_stream_add(&w, 0x99, (u16)unknown_flags, "later", 5);
	if (mask & 8)
		compsc_stream_add(&w, COMPSC_REC_PF_VF, 0, &pfvf, sizeof(pfvf));
	if (mask & 16)
		compsc_stream_add(&w, COMPSC_REC_DRIVER, 0, "driver-replay", 13);
	return compsc_stream_end(&w);
}

static void stream_seeds(void)
{
	static uint8_t b[FUZZ_RECIPE_CAP];
	const char *t = "fuzz_stream_parse";
	int n;

	n = stream(b, 0x1e, -1);
	put(t, "all_records", b, (size_t)n);
	put(t, "truncated", b, (size_t)n - 8);
	b[40] ^= 4;
	put(t, "corrupt", b, (size_t)n);
	n = stream(b, 0, -1);
	put(t, "empty", b, (size_t)n);
	n = stream(b, 0x12, 0);
	put(t, "unknown_optional", b, (size_t)n);
	n = stream(b, 0x12, COMPSC_REC_F_MANDATORY);
	put(t, "unknown_mandatory", b, (size_t)n);
	n = stream(b, 0x08, -1);
	put(t, "pf_vf_only", b, (size_t)n);
}

/* Recipes for the writer-driven targets (format: see fuzz_common.h). */
static void recipe_seeds(const char *t)
{
	uint8_t r[128];
	size_t n = 0;

	memcpy(r, &id, 8);
	put(t, "ids_only", r, 8);
	n = 8;
	r[n++] = 4;	/* DRIVER */
	r[n++] = 5;
	memcpy(r + n, "hello", 5);
	n += 5;
	put(t, "driver", r, n);
	r[n++] = 0x30;	/* unknown optional 0x43 */
	r[n++] = 3;
	memcpy(r + n, "abc", 3);
	n += 3;
	r[n++] = 1 | 8;	/* REGS, mandatory */
	r[n++] = sizeof(regs);
	memcpy(r + n, regs, sizeof(regs));
	n += sizeof(regs);
	r[n++] = 2;	/* COUNTERS */
	r[n++] = sizeof(ctrs);
	memcpy(r + n, ctrs, sizeof(ctrs));
	n += sizeof(ctrs);
	put(t, "mixed", r, n);
}

static void area_seeds(void)
{
	static uint64_t mem[8192 / 8];
	struct compsc_layout_req req = { .nr_cpus = 2, .reg_max = 8,
					 .counter_max = 4, .replay_recs = 1 };
	struct compsc_area_hdr *a = (void *)mem;
	const char *t = "fuzz_area_validate";
	u32 size = compsc_area_size(&req);

	compsc_area_init(a, size, &req);
	put(t, "empty", a, size);
	compsc_area_add_reg(a, 0, 0x0000, 4, COMPSC_REG_PLAIN);
	compsc_area_add_reg(a, 0, 0x0ff8, 8, COMPSC_REG_PLAIN);
	compsc_area_add_reg(a, 2, 0x0800, 4, COMPSC_REG_PLAIN);
	compsc_area_add_counter(a, 0, 0x1000, COMPSC_REG_COUNTER_RO);
	compsc_area_add_counter(a, 0, 0x1ffc, COMPSC_REG_COUNTER_RC);
	put(t, "good", a, size);
	compsc_area_add_reg(a, 0, 0x1000, 4, COMPSC_REG_PLAIN);
	put(t, "denied", a, size);
	compsc_area_regs(a)[3].offset = 0x0ffc;
	put(t, "overlap", a, size);
	put(t, "header_only", a, 64);
}

int main(int argc, char **argv)
{
	root = argc > 1 ? argv[1] : "tests/fuzz/corpus";
	stream_seeds();
	recipe_seeds("fuzz_stream_truncate");
	recipe_seeds("fuzz_stream_bitflip");
	area_seeds();
	printf("gen_corpus: seeds written under %s\n", root);
	return 0;
}
