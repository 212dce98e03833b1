// SPDX-License-Identifier: (GPL-2.0 OR BSD-3-Clause)
/*
 * Writes the committed seed corpus (tests/fuzz/corpus/<target>/) with the
 * library's own writer and area layout, so seeds follow the format without
 * this program knowing it. Run by `make fuzz-corpus`; the output is
 * committed so that replay needs neither this program nor clang. The
 * target directories must exist (the make rule creates them).
 */
#include <compsc/mbx.h>
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
static const struct compsc_rec_reg regs_desc[2] = {
	{ .offset = 0x0000, .bar = 0, .width = 4, .kind = COMPSC_REG_PLAIN },
	{ .offset = 0x0808, .bar = 2, .width = 8, .kind = COMPSC_REG_PLAIN },
};
static uint8_t regs[2 * COMPSC_REC_REG_MAX];	/* encoded by main() */
static u32 regs_len;
static const struct compsc_rec_counter ctrs[1] = {
	{ .offset = 0x1010, .bar = 0, .width = 4, .kind = COMPSC_REG_COUNTER_RO,
	  .hw_final = 0xfffffffe },
};
static const struct compsc_pf_vf_state pfvf = {
	.vf_index = 2, .flags = COMPSC_PFVF_F_SPOOFCHK,
	.mac = { 0x52, 0x54, 0, 1, 2, 3 }, .nr_vlans = 1, .vlans = { 100 },
};
static const struct compsc_pf_vf_xstate pfext = {
	.ext = { .flags = COMPSC_PFVF_X_RSS_QUERY, .nr_macs = 2, .mbx_api = 5 },
	.macs = { { .mac = { 0x02, 0, 0, 0, 0, 1 } },
		  { .mac = { 0x52, 0x54, 0, 9, 8, 7 } } },
};
static uint8_t pf[sizeof(pfvf)];	/* pfvf's PF_VF record, by main() */
static u32 pf_len;

/* @mask: which records to add (bit = type), plus unknown ones. */
static int stream(uint8_t *buf, unsigned mask, int unknown_flags)
{
	struct compsc_stream_writer w;

	compsc_stream_begin(&w, buf, FUZZ_RECIPE_CAP, &id);
	if (mask & 2)
		compsc_stream_add(&w, COMPSC_REC_REGS, COMPSC_REC_F_MANDATORY,
				  regs, regs_len);
	if (mask & 4)
		compsc_stream_add(&w, COMPSC_REC_COUNTERS, 0, ctrs, sizeof(ctrs));
	if (unknown_flags >= 0)
		compsc_stream_add(&w, 0x99, (u16)unknown_flags, "later", 5);
	if (mask & 8)
		compsc_stream_add(&w, COMPSC_REC_PF_VF, 0, pf, pf_len);
	if (mask & 64)
		compsc_stream_add(&w, COMPSC_REC_PF_VF_EXT, COMPSC_REC_F_MANDATORY,
				  &pfext, compsc_pf_vf_xlen(&pfext));
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
	n = stream(b, 0x48, -1);
	put(t, "pf_vf_ext", b, (size_t)n);
}

/* PF_VF_EXT payloads: accepted ones and each kind the parser refuses. */
static void pf_ext_seeds(void)
{
	static struct compsc_pf_vf_xstate x;
	const char *t = "fuzz_pf_ext";
	u32 i;

	put(t, "two_macs", &pfext, compsc_pf_vf_xlen(&pfext));
	x = pfext;
	x.ext.lost = cpu_to_le32(COMPSC_PFVF_LOST_IPSEC);
	put(t, "lost_ipsec", &x, compsc_pf_vf_xlen(&x));
	x.macs[1].mac[0] |= 1;	/* a multicast filter */
	put(t, "multicast_mac", &x, compsc_pf_vf_xlen(&x));
	put(t, "short", &pfext, 12);
	memset(&x, 0, sizeof(x));
	x.ext.nr_macs = cpu_to_le16(COMPSC_PF_EXT_MAX_MACS);
	for (i = 0; i < COMPSC_PF_EXT_MAX_MACS; i++) {
		x.macs[i].mac[0] = 0x02;
		x.macs[i].mac[5] = (u8)(i + 1);
	}
	put(t, "max_macs", &x, sizeof(x));
}

/* A recipe with PF_VF then PF_VF_EXT, for the writer-driven targets. */
static void recipe_pf_ext_seed(const char *t)
{
	uint8_t r[8 + 2 + sizeof(pf) + 2 + 32];
	size_t n = 8;

	memcpy(r, &id, 8);
	r[n++] = 3 | 8;	/* PF_VF, mandatory */
	r[n++] = (uint8_t)pf_len;
	memcpy(r + n, pf, pf_len);
	n += pf_len;
	r[n++] = 6 | 8;	/* PF_VF_EXT, mandatory */
	r[n++] = (uint8_t)compsc_pf_vf_xlen(&pfext);
	memcpy(r + n, &pfext, compsc_pf_vf_xlen(&pfext));
	n += compsc_pf_vf_xlen(&pfext);
	put(t, "pf_ext", r, n);
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
	r[n++] = (uint8_t)regs_len;
	memcpy(r + n, regs, regs_len);
	n += regs_len;
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
	compsc_area_add_reg(a, 3, 0x0000, 4, COMPSC_REG_PLAIN);
	compsc_area_add_counter(a, 0, 0x1000, COMPSC_REG_COUNTER_RO);
	compsc_area_add_counter(a, 0, 0x1ffc, COMPSC_REG_COUNTER_RC);
	put(t, "good", a, size);
	compsc_area_add_reg(a, 0, 0x1000, 4, COMPSC_REG_PLAIN);
	put(t, "denied", a, size);
	compsc_area_regs(a)[3].offset = 0x0ffc;
	put(t, "overlap", a, size);
	put(t, "header_only", a, 64);
}

/* Areas as the host side sees them: BAR0 lists only. */
static void host_area_seeds(void)
{
	static uint64_t mem[8192 / 8];
	struct compsc_layout_req req = { .nr_cpus = 2, .reg_max = 8,
					 .counter_max = 4, .replay_recs = 2 };
	struct compsc_area_hdr *a = (void *)mem;
	const char *t = "fuzz_host_area";
	u32 size = compsc_area_size(&req), mac[2] = { 0x11223344, 0x5566 };
	struct compsc_replay log;

	compsc_area_init(a, size, &req);
	put(t, "empty", a, size);
	compsc_area_add_reg(a, 0, 0x028, 4, COMPSC_REG_PLAIN);
	compsc_area_add_reg(a, 0, 0x038, 4, COMPSC_REG_PLAIN);
	compsc_area_add_reg(a, 0, 0x010, 4, COMPSC_REG_PLAIN);
	compsc_area_add_counter(a, 0, 0x1000, COMPSC_REG_COUNTER_RO);
	compsc_replay_init(&log, compsc_area_replay(a), a->replay_len, NULL, 0);
	compsc_replay_put(&log, 7, mac, sizeof(mac));
	put(t, "good", a, size);
	/* a replay room that is no multiple of 8: the scratch copy stays aligned */
	a->replay_len -= 6;
	put(t, "odd_replay_len", a, size);
	a->replay_len += 6;
	compsc_area_ctl(a)->version = 1;	/* handed over, not restored */
	put(t, "not_restored", a, size);
	compsc_area_ctl(a)->version = 0;
	/* the guest freed it: no take may write into it */
	compsc_area_ctl(a)->writer = cpu_to_le32(COMPSC_WRITER_WITHDRAWN);
	put(t, "withdrawn", a, size);
}

/* Packed logs: empty, one record, several with a delete. */
static void replay_seeds(void)
{
	static uint64_t mem[4096 / 8];
	static u8 out[4096];
	const char *t = "fuzz_replay_unpack";
	u32 v = 1500, mac[2] = { 0x11223344, 0x5566 };
	struct compsc_replay log;

	compsc_replay_init(&log, mem, sizeof(mem), NULL, 0);
	put(t, "empty", out, (size_t)compsc_replay_pack(&log, out, sizeof(out)));
	compsc_replay_put(&log, 1, mac, sizeof(mac));
	put(t, "one", out, (size_t)compsc_replay_pack(&log, out, sizeof(out)));
	compsc_replay_put(&log, 2, &v, sizeof(v));
	compsc_replay_put(&log, 3, &v, sizeof(v));
	compsc_replay_del(&log, 2);
	put(t, "several", out, (size_t)compsc_replay_pack(&log, out, sizeof(out)));
}

/* Registration messages: register, unregister, misaligned, old ABI. */
static void mbx_seeds(void)
{
	const char *t = "fuzz_mbx_decode";
	u32 msg[COMPSC_MBX_AREA_WORDS];

	compsc_mbx_area_encode(msg, COMPSC_MBX_AREA_WORDS, 0x12345000, 8192);
	put(t, "register", msg, sizeof(msg));
	msg[1] |= 0x10;
	put(t, "misaligned", msg, sizeof(msg));
	msg[1] &= ~0x10u;
	msg[4] ^= 0x10000;
	put(t, "other_abi", msg, sizeof(msg));
	compsc_mbx_area_encode(msg, COMPSC_MBX_AREA_WORDS, 0, 0);
	put(t, "unregister", msg, sizeof(msg));
}

int main(int argc, char **argv)
{
	root = argc > 1 ? argv[1] : "tests/fuzz/corpus";
	regs_len = compsc_rec_reg_put(regs, &regs_desc[0], 1);
	regs_len += compsc_rec_reg_put(regs + regs_len, &regs_desc[1], 2);
	pf_len = (u32)compsc_pf_vf_pack(&pfvf, pf);
	stream_seeds();
	recipe_seeds("fuzz_stream_truncate");
	recipe_seeds("fuzz_stream_bitflip");
	recipe_pf_ext_seed("fuzz_stream_truncate");
	recipe_pf_ext_seed("fuzz_stream_bitflip");
	pf_ext_seeds();
	area_seeds();
	host_area_seeds();
	replay_seeds();
	mbx_seeds();
	printf("gen_corpus: seeds written under %s\n", root);
	return 0;
}
