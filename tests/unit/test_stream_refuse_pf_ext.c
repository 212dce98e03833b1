/* Stream refusal: a PF_VF_EXT record over its bound gives EOVERSIZE; a bad size, count, flag, reserved byte or MAC filter gives EMALFORMED where it is; the writer refuses to write either. */
#include "check.h"
#include "stream_fixture.h"

#define PAY	(FX_OFF_PF_EXT + 8)	/* the record's payload */

static unsigned char good[FX_MAX], buf[FX_MAX];
static u32 good_len;

/* Parse @buf as edited (resealed); expect @err at @off, then restore. */
static void expect(int want, u32 off, int line)
{
	struct compsc_stream_view v;
	int err;

	fx_reseal(buf, good_len);
	err = compsc_stream_parse(buf, good_len, &fx_id, FX_MAX, &v);
	if (err != want || v.err_offset != off)
		fprintf(stderr, "case at line %d: err %d offset %u\n", line,
			err, v.err_offset);
	CHECK_EQ(err, want);
	CHECK_EQ(v.err_offset, off);
	CHECK(!want || !v.rec[COMPSC_REC_PF_VF].data); /* nothing refused */
	memcpy(buf, good, sizeof(good));
}

static void content_cases(void)
{
	const u32 macs = PAY + 16;

	buf[PAY + offsetof(struct compsc_pf_vf_ext, nr_macs)] = 2;
	expect(-COMPSC_EMALFORMED, PAY + 2, __LINE__);
	buf[PAY + offsetof(struct compsc_pf_vf_ext, flags)] = 0x04;
	expect(-COMPSC_EMALFORMED, PAY, __LINE__);
	buf[PAY + offsetof(struct compsc_pf_vf_ext, rsvd) + 3] = 1;
	expect(-COMPSC_EMALFORMED, PAY + 12, __LINE__);
	buf[macs] |= 0x01;			/* a multicast address */
	expect(-COMPSC_EMALFORMED, macs, __LINE__);
	memset(buf + macs + 8, 0, 6);		/* the zero address */
	expect(-COMPSC_EMALFORMED, macs + 8, __LINE__);
	buf[macs + 16 + 7] = 1;			/* a filter's padding */
	expect(-COMPSC_EMALFORMED, macs + 16, __LINE__);
	/* lost bits, known or not, are no error: they say what stayed */
	buf[PAY + offsetof(struct compsc_pf_vf_ext, lost) + 3] = 0x80;
	expect(0, 0, __LINE__);
}

/* 36 bytes is no header plus whole filters: a size error at the record. */
static void size_case(void)
{
	struct compsc_rec_hdr r = fx_rec(buf, FX_OFF_PF_EXT);

	memset(buf + PAY + 36, 0, 4);	/* becomes padding: keep it zero */
	r.len = 36;
	fx_set_rec(buf, FX_OFF_PF_EXT, &r);
	expect(-COMPSC_EMALFORMED, FX_OFF_PF_EXT, __LINE__);
}

/* One filter more than the bound, well formed otherwise: EOVERSIZE. */
static void oversize_case(void)
{
	static u8 big[COMPSC_PF_EXT_MAX_BYTES + 8], s[FX_MAX];
	struct compsc_stream_writer w;
	struct compsc_stream_view v;
	struct compsc_rec_hdr r;
	u32 i, n = COMPSC_PF_EXT_MAX_MACS + 1;
	int len;

	big[2] = (u8)n;
	big[3] = (u8)(n >> 8);
	for (i = 0; i < n; i++) {
		big[16 + 8 * i] = 0x02;
		big[16 + 8 * i + 5] = (u8)(i + 1);
	}
	CHECK_EQ(compsc_pf_vf_ext_check(big, sizeof(big)), -COMPSC_EOVERSIZE);
	CHECK_EQ(compsc_pf_vf_ext_check(big, sizeof(big) - 8), -COMPSC_EMALFORMED);
	CHECK_EQ(compsc_pf_vf_ext_check(NULL, 16), -COMPSC_EINVAL);
	/* the writer refuses it; an optional unknown type carries it anyway */
	compsc_stream_begin(&w, s, sizeof(s), &fx_id);
	CHECK_EQ(compsc_stream_add(&w, COMPSC_REC_PF_VF_EXT, 0, big, sizeof(big)),
		 -COMPSC_EINVAL);
	compsc_stream_begin(&w, s, sizeof(s), &fx_id);
	compsc_stream_add(&w, 0x100, 0, big, sizeof(big));
	len = compsc_stream_end(&w);
	CHECK(len > 0);
	r = fx_rec(s, 32);
	r.type = COMPSC_REC_PF_VF_EXT;
	fx_set_rec(s, 32, &r);
	fx_reseal(s, (u32)len);
	CHECK_EQ(compsc_stream_parse(s, (u32)len, &fx_id, FX_MAX, &v),
		 -COMPSC_EOVERSIZE);
	CHECK_EQ(v.err_offset, 32);
}

/* What the parser refuses, the writer does not write. */
static void writer_cases(void)
{
	struct compsc_pf_vf_xstate x = fx_pfext;
	struct compsc_stream_writer w;
	static u8 s[FX_MAX];

	x.macs[1].mac[0] = 0x01;
	CHECK_EQ(compsc_pf_vf_ext_check(&x, compsc_pf_vf_xlen(&x)),
		 -COMPSC_EMALFORMED);
	compsc_stream_begin(&w, s, sizeof(s), &fx_id);
	CHECK_EQ(compsc_stream_add(&w, COMPSC_REC_PF_VF_EXT, 0, &x,
				   compsc_pf_vf_xlen(&x)), -COMPSC_EINVAL);
	x = fx_pfext;
	compsc_stream_begin(&w, s, sizeof(s), &fx_id);
	CHECK_EQ(compsc_stream_add(&w, COMPSC_REC_PF_VF_EXT, 0, &x,
				   compsc_pf_vf_xlen(&x) - 8), -COMPSC_EINVAL);
	CHECK_EQ(compsc_pf_vf_ext_check(&x, compsc_pf_vf_xlen(&x)), 0);
}

int main(void)
{
	int len = fx_build_pf(good, sizeof(good), &fx_pfext);

	CHECK(len > 0);
	good_len = (u32)len;
	memcpy(buf, good, sizeof(good));
	content_cases();
	size_case();
	oversize_case();
	writer_cases();
	CHECK_DONE();
}
