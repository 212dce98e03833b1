/* SPDX-License-Identifier: (GPL-2.0 OR BSD-3-Clause) */
/*
 * Shared by the stream tests: a typical stream built with the library's
 * writer, and the one helper that knows a format rule on purpose
 * (fx_reseal: where the END checksum sits) so that refusal tests can build
 * hostile bytes that still carry a valid checksum.
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

static const struct compsc_rec_reg fx_regs[3] = {
	{ .offset = 0x0000, .bar = 0, .width = 4, .kind = COMPSC_REG_PLAIN,
	  .value = 0x1c000000 },
	{ .offset = 0x2800, .bar = 0, .width = 8, .kind = COMPSC_REG_PLAIN,
	  .value = 0x00000001deadbeefull },
	{ .offset = 0x0f04, .bar = 3, .width = 4, .kind = COMPSC_REG_PLAIN,
	  .value = 7 },
};

static const struct compsc_rec_counter fx_ctrs[2] = {
	{ .offset = 0x010, .bar = 0, .width = 4, .kind = COMPSC_REG_COUNTER_RO,
	  .hw_final = 0xfffffff0u, .total = 0x1fffffff0ull },
	{ .offset = 0x034, .bar = 0, .width = 4, .kind = COMPSC_REG_COUNTER_RC,
	  .hw_final = 3, .total = 99 },
};

static const struct compsc_pf_vf_state fx_pfvf = {
	.vf_index = 1, .flags = COMPSC_PFVF_F_SPOOFCHK | COMPSC_PFVF_F_TRUST,
	.mac = { 0x52, 0x54, 0x00, 0x12, 0x34, 0x56 },
	.port_vlan = 0, .link_state = 0, .max_frame = 1522,
	.nr_vlans = 2, .vlans = { 10, 4094 }, .nr_mc = 1, .mc_hashes = { 0x1f3 },
};

static const unsigned char fx_drv[13] = "replay-bytes";

/* Positions of the records fx_build() writes (header is 32 bytes). */
#define FX_OFF_REGS	32u
#define FX_OFF_CTRS	(FX_OFF_REGS + 8 + sizeof(fx_regs))
#define FX_OFF_PFVF	(FX_OFF_CTRS + 8 + sizeof(fx_ctrs))
#define FX_OFF_DRV	(FX_OFF_PFVF + 8 + sizeof(fx_pfvf))

/* A stream with every known record; returns its length (or an error). */
static inline int fx_build(void *buf, unsigned cap)
{
	struct compsc_stream_writer w;

	compsc_stream_begin(&w, buf, cap, &fx_id);
	compsc_stream_add(&w, COMPSC_REC_REGS, COMPSC_REC_F_MANDATORY,
			  fx_regs, sizeof(fx_regs));
	compsc_stream_add(&w, COMPSC_REC_COUNTERS, 0, fx_ctrs, sizeof(fx_ctrs));
	compsc_stream_add(&w, COMPSC_REC_PF_VF, 0, &fx_pfvf, sizeof(fx_pfvf));
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
#define FX_OFF_PF_EXT	(FX_OFF_PF_ONLY + 8 + sizeof(fx_pfvf))
#define FX_PF_EXT_LEN	(16u + 3 * 8u)

/* The PF sections alone, PF_VF_EXT (@x, NULL: none) after PF_VF. */
static inline int fx_build_pf(void *buf, unsigned cap,
			      const struct compsc_pf_vf_xstate *x)
{
	struct compsc_stream_writer w;

	compsc_stream_begin(&w, buf, cap, &fx_id);
	compsc_stream_add(&w, COMPSC_REC_PF_VF, COMPSC_REC_F_MANDATORY,
			  &fx_pfvf, sizeof(fx_pfvf));
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
