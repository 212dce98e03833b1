/* Stream refusal: a stream or record larger than max_len gives EOVERSIZE, even when the buffer is short. */
#include "check.h"
#include "stream_fixture.h"

static unsigned char buf[FX_MAX];

int main(void)
{
	struct compsc_stream_view v;
	struct compsc_stream_hdr h;
	struct compsc_rec_hdr r;
	int len = fx_build(buf, sizeof(buf));

	CHECK(len > 0);
	CHECK_EQ(compsc_stream_parse(buf, (u32)len, NULL, (u32)len, &v), 0);
	CHECK_EQ(compsc_stream_parse(buf, (u32)len, NULL, (u32)len - 8, &v),
		 -COMPSC_EOVERSIZE);
	CHECK_EQ(v.err_offset, offsetof(struct compsc_stream_hdr, total_len));
	CHECK_EQ(compsc_stream_parse(buf, (u32)len, NULL, 0, &v),
		 -COMPSC_EOVERSIZE);

	/* a header claiming 4 GiB: oversize, not merely truncated */
	h = fx_hdr(buf);
	h.total_len = 0xfffffff8u;
	fx_set_hdr(buf, &h);
	CHECK_EQ(compsc_stream_parse(buf, 32, NULL, 1u << 20, &v),
		 -COMPSC_EOVERSIZE);
	CHECK_EQ(compsc_stream_parse(buf, (u32)len, NULL, 1u << 20, &v),
		 -COMPSC_EOVERSIZE);
	h.total_len = (u32)len;
	fx_set_hdr(buf, &h);

	/* hostile: a record length larger than anything allowed */
	r = fx_rec(buf, FX_OFF_CTRS);
	r.len = 0xffffff00u;
	fx_set_rec(buf, FX_OFF_CTRS, &r);
	fx_reseal(buf, (u32)len);
	CHECK_EQ(compsc_stream_parse(buf, (u32)len, NULL, FX_MAX, &v),
		 -COMPSC_EOVERSIZE);
	CHECK_EQ(v.err_offset, FX_OFF_CTRS);
	CHECK_DONE();
}
