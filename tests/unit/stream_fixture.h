/* SPDX-License-Identifier: (GPL-2.0 OR BSD-3-Clause) */
/*
 * Shared by the stream tests: a typical stream built with the library's
 * writer, and the two places that know a format rule on purpose: fx_reseal
 * (where the END checksum sits), so that refusal tests can build hostile
 * bytes that still carry a valid checksum, and fx_regs, the REGS entries
 * written out byte by byte as abi.h lays them out (12 bytes for a 4-byte
 * register, 16 for an 8-byte one), which test_stream_roundtrip holds
 * compsc_rec_reg_put() and compsc_rec_reg_get() to.
 */
#ifndef COMPSC_TEST_STREAM_FIXTURE_H
#define COMPSC_TEST_STREAM_FIXTURE_H

#include <compsc/compsc.h>
#include <stddef.h>
#include <string.h>

#define FX_MAX	4096u

static const struct compsc_ident fx_id = {
	.vendor = 0x8086, .device = 0x10ca,
	.subsys_vendor = 0x8086, .subsys_device = 0xa03c,
};

#define FX_LE32(x)	((x) & 0xff), (((x) >> 8) & 0xff), \
			(((x) >> 16) & 0xff), (((x) >> 24) & 0xff)
#define FX_LE64(x)	FX_LE32((x) & 0xffffffffu), FX_LE32((x) >> 32)

/* The REGS entries' descriptors and values, as fx_regs carries them. */
static const struct compsc_rec_reg fx_reg_desc[3] = {
	{ .offset = 0x0000, .bar = 0, .width = 4, .kind = COMPSC_REG_PLAIN },
	{ .offset = 0x2800, .bar = 0, .width = 8, .kind = COMPSC_REG_PLAIN },
	{ .offset = 0x0f04, .bar = 3, .width = 4, .kind = COMPSC_REG_PLAIN },
};
static const u64 fx_reg_val[3] = { 0x1c000000, 0x00000001deadbeefull, 7 };

static const unsigned char fx_regs[40] = {
	FX_LE32(0x0000), 0, 4, COMPSC_REG_PLAIN, 0, FX_LE32(0x1c000000),
	FX_LE32(0x2800), 0, 8, COMPSC_REG_PLAIN, 0,
	FX_LE64(0x00000001deadbeefull),
	FX_LE32(0x0f04), 3, 4, COMPSC_REG_PLAIN, 0, FX_LE32(7),
};
/* Where fx_regs' entries start */
#define FX_REG1		12u
#define FX_REG2		28u

static const struct compsc_rec_counter fx_ctrs[2] = {
	{ .offset = 0x010, .bar = 0, .width = 4, .kind = COMPSC_REG_COUNTER_RO,
	  .hw_final = 0xfffffff0u },
	{ .offset = 0x034, .bar = 0, .width = 4, .kind = COMPSC_REG_COUNTER_RC,
	  .hw_final = 3 },
};

static const struct compsc_pf_vf_state fx_pfvf = {
	.vf_index = 1, .flags = COMPSC_PFVF_F_SPOOFCHK | COMPSC_PFVF_F_TRUST,
	.mac = { 0x52, 0x54, 0x00, 0x12, 0x34, 0x56 },
	.port_vlan = 0, .link_state = 0, .max_frame = 1522,
	.nr_vlans = 2, .vlans = { 10, 4094 }, .nr_mc = 1, .mc_hashes = { 0x1f3 },
};

static const unsigned char fx_drv[13] = "replay-bytes";

/* fx_pfvf's PF_VF record: 24 bytes, 2 VLANs and a hash; padded to 32 */
#define FX_PFVF_LEN	30u

/* fx_pfvf as its PF_VF record, in @rec (sizeof(fx_pfvf) bytes of room). */
static inline u32 fx_pfvf_rec(void *rec)
{
	int len = compsc_pf_vf_pack(&fx_pfvf, rec);

	return len < 0 ? 0 : (u32)len;
}

/* Positions of the records fx_build() writes (header is 32 bytes). */
#define FX_OFF_REGS	32u
#define FX_OFF_CTRS	(FX_OFF_REGS + 8 + sizeof(fx_regs))
#define FX_OFF_PFVF	(FX_OFF_CTRS + 8 + sizeof(fx_ctrs))
#define FX_OFF_DRV	(FX_OFF_PFVF + 8 + 32u)

/* A stream with every known record; returns its length (or an error). */
static inline int fx_build(void *buf, unsigned cap)
{
	unsigned char pf[sizeof(fx_pfvf)];
	struct compsc_stream_writer w;

	compsc_stream_begin(&w, buf, cap, &fx_id);
	compsc_stream_add(&w, COMPSC_REC_REGS, COMPSC_REC_F_MANDATORY,
			  fx_regs, sizeof(fx_regs));
	compsc_stream_add(&w, COMPSC_REC_COUNTERS, 0, fx_ctrs, sizeof(fx_ctrs));
	compsc_stream_add(&w, COMPSC_REC_PF_VF, 0, pf, fx_pfvf_rec(pf));
	compsc_stream_add(&w, COMPSC_REC_DRIVER, 0, fx_drv, sizeof(fx_drv));
	return compsc_stream_end(&w);
}

/* PF_VF_EXT: what an ixgbe-like PF holds beyond PF_VF (3 MAC filters). */
static const struct compsc_pf_vf_xstate fx_pfext = {
	.ext = { .flags = COMPSC_PFVF_X_RSS_QUERY, .nr_macs = 3, .mbx_api = 5 },
	.macs = { { .mac = { 0x02, 0, 0, 0, 0, 1 } },
		  { .mac = { 0x02, 0, 0, 0, 0, 2 } },
		  { .mac = { 0x52, 0x54, 0, 0xaa, 0xbb, 0xcc } } },
};

/* Positions of the records fx_build_pf() writes. */
#define FX_OFF_PF_ONLY	32u
#define FX_OFF_PF_EXT	(FX_OFF_PF_ONLY + 8 + 32u)
#define FX_PF_EXT_LEN	(16u + 3 * 8u)

/* The PF sections alone, PF_VF_EXT (@x, NULL: none) after PF_VF. */
static inline int fx_build_pf(void *buf, unsigned cap,
			      const struct compsc_pf_vf_xstate *x)
{
	unsigned char pf[sizeof(fx_pfvf)];
	struct compsc_stream_writer w;

	compsc_stream_begin(&w, buf, cap, &fx_id);
	compsc_stream_add(&w, COMPSC_REC_PF_VF, COMPSC_REC_F_MANDATORY,
			  pf, fx_pfvf_rec(pf));
	if (x)
		compsc_stream_add(&w, COMPSC_REC_PF_VF_EXT,
				  COMPSC_REC_F_MANDATORY, x,
				  compsc_pf_vf_xlen(x));
	return compsc_stream_end(&w);
}

/* Hostile-bytes helper: recompute the END checksum after editing @len bytes. */
static inline void fx_reseal(unsigned char *buf, unsigned len)
{
	u32 crc = compsc_crc32c(0, buf, len - 8);

	memcpy(buf + len - 8, &crc, sizeof(crc));
}

static inline struct compsc_stream_hdr fx_hdr(const unsigned char *buf)
{
	struct compsc_stream_hdr h;

	memcpy(&h, buf, sizeof(h));
	return h;
}

static inline void fx_set_hdr(unsigned char *buf,
			      const struct compsc_stream_hdr *h)
{
	memcpy(buf, h, sizeof(*h));
}

static inline struct compsc_rec_hdr fx_rec(const unsigned char *buf,
					   unsigned off)
{
	struct compsc_rec_hdr r;

	memcpy(&r, buf + off, sizeof(r));
	return r;
}

static inline void fx_set_rec(unsigned char *buf, unsigned off,
			      const struct compsc_rec_hdr *r)
{
	memcpy(buf + off, r, sizeof(*r));
}

#endif
