/* Stream: a PF_VF_EXT record (header + MAC filters) goes through the writer and parser byte for byte; a stream without one (the old form) still parses. */
#include "check.h"
#include "stream_fixture.h"

static unsigned char buf[FX_MAX];

/* The largest record: every MAC filter slot in use, any lost bits. */
static void check_largest(void)
{
	static struct compsc_pf_vf_xstate x;
	struct compsc_stream_view v;
	u32 i;
	int len;

	x.ext.nr_macs = COMPSC_PF_EXT_MAX_MACS;
	x.ext.lost = 0xffffffffu;	/* unknown bits too: all mean "lost" */
	x.ext.flags = COMPSC_PFVF_X_KNOWN;
	for (i = 0; i < COMPSC_PF_EXT_MAX_MACS; i++) {
		x.macs[i].mac[0] = 0x02;
		x.macs[i].mac[5] = (u8)(i + 1);
	}
	CHECK_EQ(compsc_pf_vf_xlen(&x), COMPSC_PF_EXT_MAX_BYTES);
	CHECK_EQ(compsc_pf_vf_ext_check(&x, compsc_pf_vf_xlen(&x)), 0);
	len = fx_build_pf(buf, sizeof(buf), &x);
	CHECK(len > 0);
	CHECK_EQ(compsc_stream_parse(buf, (u32)len, &fx_id, FX_MAX, &v), 0);
	CHECK_EQ(v.rec[COMPSC_REC_PF_VF_EXT].len, COMPSC_PF_EXT_MAX_BYTES);
	CHECK(!memcmp(v.rec[COMPSC_REC_PF_VF_EXT].data, &x,
		      COMPSC_PF_EXT_MAX_BYTES));
}

int main(void)
{
	struct compsc_stream_view v;
	int len = fx_build_pf(buf, sizeof(buf), &fx_pfext);

	CHECK_EQ(compsc_pf_vf_xlen(&fx_pfext), FX_PF_EXT_LEN);
	CHECK_EQ(len, 32 + 8 + 32 + 8 + FX_PF_EXT_LEN + 16);
	CHECK_EQ(compsc_stream_parse(buf, (u32)len, &fx_id, FX_MAX, &v), 0);
	CHECK(v.rec[COMPSC_REC_PF_VF_EXT].data == buf + FX_OFF_PF_EXT + 8);
	CHECK_EQ(v.rec[COMPSC_REC_PF_VF_EXT].len, FX_PF_EXT_LEN);
	CHECK_EQ(v.rec[COMPSC_REC_PF_VF_EXT].flags, COMPSC_REC_F_MANDATORY);
	CHECK(!memcmp(v.rec[COMPSC_REC_PF_VF_EXT].data, &fx_pfext,
		      FX_PF_EXT_LEN));
	CHECK_EQ(v.nr_unknown, 0);

	/* the old form: PF_VF alone, and a stream with every other record */
	len = fx_build_pf(buf, sizeof(buf), NULL);
	CHECK_EQ(compsc_stream_parse(buf, (u32)len, &fx_id, FX_MAX, &v), 0);
	CHECK(v.rec[COMPSC_REC_PF_VF].data && !v.rec[COMPSC_REC_PF_VF_EXT].data);
	len = fx_build(buf, sizeof(buf));
	CHECK_EQ(compsc_stream_parse(buf, (u32)len, &fx_id, FX_MAX, &v), 0);
	CHECK(!v.rec[COMPSC_REC_PF_VF_EXT].data);

	check_largest();
	CHECK_DONE();
}
