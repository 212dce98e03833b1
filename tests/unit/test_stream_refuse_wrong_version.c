/* Stream refusal: another major version (the previous one among them) gives EWRONG_VERSION; a newer minor is accepted. */
#include "check.h"
#include "stream_fixture.h"

static unsigned char buf[FX_MAX];

int main(void)
{
	struct compsc_stream_view v;
	struct compsc_stream_hdr h;
	int len = fx_build(buf, sizeof(buf));
	/* major 1 had other REGS, COUNTERS and PF_VF layouts */
	const u16 majors[] = { 0, COMPSC_STREAM_MAJOR - 1,
			       COMPSC_STREAM_MAJOR + 1, 0xffff };

	CHECK(len > 0);
	for (unsigned i = 0; i < sizeof(majors) / sizeof(majors[0]); i++) {
		h = fx_hdr(buf);
		h.major = majors[i];
		fx_set_hdr(buf, &h);
		fx_reseal(buf, (u32)len);
		CHECK_EQ(compsc_stream_parse(buf, (u32)len, &fx_id, FX_MAX, &v),
			 -COMPSC_EWRONG_VERSION);
		CHECK_EQ(v.err_offset, offsetof(struct compsc_stream_hdr, major));
		/* even a header-only prefix says which version it is */
		CHECK_EQ(compsc_stream_parse(buf, 8, &fx_id, FX_MAX, &v),
			 -COMPSC_EWRONG_VERSION);
	}
	h = fx_hdr(buf);
	h.major = COMPSC_STREAM_MAJOR;
	h.minor = COMPSC_STREAM_MINOR + 7;
	fx_set_hdr(buf, &h);
	fx_reseal(buf, (u32)len);
	CHECK_EQ(compsc_stream_parse(buf, (u32)len, &fx_id, FX_MAX, &v), 0);
	CHECK_EQ(v.minor, COMPSC_STREAM_MINOR + 7);
	CHECK_DONE();
}
