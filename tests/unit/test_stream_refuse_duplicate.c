/* Stream refusal: a known record type present twice gives EDUPLICATE (parser), and the writer will not write one. */
#include "check.h"
#include "stream_fixture.h"

static unsigned char buf[FX_MAX];

/* REGS, then a 16-byte DRIVER record later renamed to a second REGS. */
static int build(void)
{
	struct compsc_stream_writer w;

	compsc_stream_begin(&w, buf, sizeof(buf), &fx_id);
	compsc_stream_add(&w, COMPSC_REC_REGS, 0, fx_regs, sizeof(fx_regs));
	compsc_stream_add(&w, COMPSC_REC_DRIVER, 0, &fx_regs[0],
			  sizeof(fx_regs[0]));
	return compsc_stream_end(&w);
}

int main(void)
{
	struct compsc_stream_writer w;
	struct compsc_stream_view v;
	struct compsc_rec_hdr r;
	int len = build();
	u32 second = 32 + 8 + sizeof(fx_regs);

	CHECK(len > 0);
	CHECK_EQ(compsc_stream_parse(buf, (u32)len, NULL, FX_MAX, &v), 0);
	r = fx_rec(buf, second);
	r.type = COMPSC_REC_REGS;
	fx_set_rec(buf, second, &r);
	fx_reseal(buf, (u32)len);
	CHECK_EQ(compsc_stream_parse(buf, (u32)len, NULL, FX_MAX, &v),
		 -COMPSC_EDUPLICATE);
	CHECK_EQ(v.err_offset, second);
	CHECK(!v.rec[COMPSC_REC_REGS].data);

	/* the writer refuses the duplicate and keeps the error (sticky) */
	compsc_stream_begin(&w, buf, sizeof(buf), &fx_id);
	CHECK_EQ(compsc_stream_add(&w, COMPSC_REC_DRIVER, 0, "a", 1), 0);
	CHECK_EQ(compsc_stream_add(&w, COMPSC_REC_DRIVER, 0, "b", 1),
		 -COMPSC_EINVAL);
	CHECK_EQ(compsc_stream_end(&w), -COMPSC_EINVAL);
	CHECK_DONE();
}
