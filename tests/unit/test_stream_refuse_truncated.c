/* Stream refusal: every strict prefix of a valid stream, and a record running into END, give ETRUNCATED. */
#include "check.h"
#include "stream_fixture.h"

static unsigned char buf[FX_MAX], cut[FX_MAX];

int main(void)
{
	struct compsc_stream_view v;
	struct compsc_rec_hdr r;
	int len = fx_build(buf, sizeof(buf));

	CHECK(len > 0);
	CHECK_EQ(compsc_stream_parse(buf, (u32)len, NULL, FX_MAX, &v), 0);
	/* a copy of exactly n bytes, so ASan catches any read past them */
	for (int n = 0; n < len; n++) {
		unsigned char *p = malloc(n ? (size_t)n : 1);

		memcpy(p, buf, (size_t)n);
		CHECK_EQ(compsc_stream_parse(p, (u32)n, NULL, FX_MAX, &v),
			 -COMPSC_ETRUNCATED);
		CHECK_EQ(v.err_offset, (u32)n);
		CHECK(!v.rec[COMPSC_REC_REGS].data);
		free(p);
	}
	CHECK_EQ(compsc_stream_parse(NULL, 0, NULL, FX_MAX, &v),
		 -COMPSC_ETRUNCATED);

	/* hostile: checksum valid, but the DRIVER record claims 16 more bytes */
	memcpy(cut, buf, (size_t)len);
	r = fx_rec(cut, FX_OFF_DRV);
	r.len += 16;
	fx_set_rec(cut, FX_OFF_DRV, &r);
	fx_reseal(cut, (u32)len);
	CHECK_EQ(compsc_stream_parse(cut, (u32)len, NULL, FX_MAX, &v),
		 -COMPSC_ETRUNCATED);
	CHECK_EQ(v.err_offset, FX_OFF_DRV);
	CHECK_DONE();
}
