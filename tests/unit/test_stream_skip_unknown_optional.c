/* Stream: unknown records without MANDATORY are skipped and counted; known records around them are intact. */
#include "check.h"
#include "stream_fixture.h"

static unsigned char buf[FX_MAX];

int main(void)
{
	struct compsc_stream_writer w;
	struct compsc_stream_view v;
	int len;

	compsc_stream_begin(&w, buf, sizeof(buf), &fx_id);
	CHECK_EQ(compsc_stream_add(&w, 0x7777, 0, "newer writer", 12), 0);
	CHECK_EQ(compsc_stream_add(&w, COMPSC_REC_DRIVER, 0, fx_drv,
				   sizeof(fx_drv)), 0);
	/* unknown types are not duplicate-checked: the parser cannot know them */
	CHECK_EQ(compsc_stream_add(&w, 0x7777, 0, NULL, 0), 0);
	CHECK_EQ(compsc_stream_add(&w, 0xffff, 0, fx_regs, 5), 0);
	len = compsc_stream_end(&w);
	CHECK(len > 0);
	CHECK_EQ(compsc_stream_parse(buf, (u32)len, &fx_id, FX_MAX, &v), 0);
	CHECK_EQ(v.nr_unknown, 3);
	CHECK_EQ(v.rec[COMPSC_REC_DRIVER].len, sizeof(fx_drv));
	CHECK(!memcmp(v.rec[COMPSC_REC_DRIVER].data, fx_drv, sizeof(fx_drv)));
	CHECK(!v.rec[COMPSC_REC_REGS].data && !v.rec[COMPSC_REC_PF_VF].data);
	CHECK_DONE();
}
