/* Stream refusal: an unknown record type flagged MANDATORY gives EUNKNOWN_MANDATORY at that record. */
#include "check.h"
#include "stream_fixture.h"

static unsigned char buf[FX_MAX];

int main(void)
{
	struct compsc_stream_writer w;
	struct compsc_stream_view v;
	int len;

	compsc_stream_begin(&w, buf, sizeof(buf), &fx_id);
	compsc_stream_add(&w, COMPSC_REC_REGS, 0, fx_regs, sizeof(fx_regs));
	CHECK_EQ(compsc_stream_add(&w, 0x1234, COMPSC_REC_F_MANDATORY,
				   "future", 6), 0);
	len = compsc_stream_end(&w);
	CHECK(len > 0);
	CHECK_EQ(compsc_stream_parse(buf, (u32)len, &fx_id, FX_MAX, &v),
		 -COMPSC_EUNKNOWN_MANDATORY);
	CHECK_EQ(v.err_offset, 32 + 8 + sizeof(fx_regs));
	CHECK(compsc_errno(-COMPSC_EUNKNOWN_MANDATORY) < 0);
	/* the first type past the known ones is unknown too */
	compsc_stream_begin(&w, buf, sizeof(buf), &fx_id);
	compsc_stream_add(&w, COMPSC_REC_NR_KNOWN, COMPSC_REC_F_MANDATORY, NULL, 0);
	len = compsc_stream_end(&w);
	CHECK_EQ(compsc_stream_parse(buf, (u32)len, &fx_id, FX_MAX, &v),
		 -COMPSC_EUNKNOWN_MANDATORY);
	CHECK_DONE();
}
