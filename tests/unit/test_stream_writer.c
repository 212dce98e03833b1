/* Stream writer: capacity is exact, errors are sticky, END is reserved, nothing is written after _end(). */
#include "check.h"
#include "stream_fixture.h"

static unsigned char buf[FX_MAX];

int main(void)
{
	struct compsc_stream_writer w;
	struct compsc_stream_view v;
	int len;

	/* header + 8-byte record + END = 32 + 16 + 16 */
	CHECK_EQ(compsc_stream_begin(&w, buf, 64, &fx_id), 0);
	CHECK_EQ(compsc_stream_add(&w, COMPSC_REC_DRIVER, 0, "12345678", 8), 0);
	CHECK_EQ(compsc_stream_end(&w), 64);
	CHECK_EQ(compsc_stream_parse(buf, 64, &fx_id, 64, &v), 0);
	/* one byte less: the record does not fit, END room is kept */
	CHECK_EQ(compsc_stream_begin(&w, buf, 63, &fx_id), 0);
	CHECK_EQ(compsc_stream_add(&w, COMPSC_REC_DRIVER, 0, "12345678", 8),
		 -COMPSC_ENOSPC);
	CHECK_EQ(compsc_stream_add(&w, COMPSC_REC_REGS, 0, NULL, 0),
		 -COMPSC_ENOSPC);	/* sticky: the first error stays */
	CHECK_EQ(compsc_stream_end(&w), -COMPSC_ENOSPC);
	CHECK_EQ(w.err, -COMPSC_ENOSPC);
	/* huge lengths must not wrap the room computation */
	CHECK_EQ(compsc_stream_begin(&w, buf, sizeof(buf), &fx_id), 0);
	CHECK_EQ(compsc_stream_add(&w, 0x100, 0, buf, 0xfffffffcu),
		 -COMPSC_ENOSPC);
	/* too small for header + END, bad arguments */
	CHECK_EQ(compsc_stream_begin(&w, buf, 47, &fx_id), -COMPSC_ENOSPC);
	CHECK_EQ(compsc_stream_end(&w), -COMPSC_ENOSPC);
	CHECK_EQ(compsc_stream_begin(&w, NULL, 64, &fx_id), -COMPSC_EINVAL);
	CHECK_EQ(compsc_stream_begin(&w, buf, 64, NULL), -COMPSC_EINVAL);
	CHECK_EQ(compsc_stream_begin(NULL, buf, 64, &fx_id), -COMPSC_EINVAL);
	CHECK_EQ(compsc_stream_begin(&w, buf, sizeof(buf), &fx_id), 0);
	CHECK_EQ(compsc_stream_add(&w, COMPSC_REC_END, 0, "12345678", 8),
		 -COMPSC_EINVAL);
	CHECK_EQ(compsc_stream_begin(&w, buf, sizeof(buf), &fx_id), 0);
	CHECK_EQ(compsc_stream_add(&w, COMPSC_REC_DRIVER, 2, "x", 1),
		 -COMPSC_EINVAL);	/* reserved flag bit */
	CHECK_EQ(compsc_stream_begin(&w, buf, sizeof(buf), &fx_id), 0);
	CHECK_EQ(compsc_stream_add(&w, COMPSC_REC_DRIVER, 0, NULL, 1),
		 -COMPSC_EINVAL);
	/* a closed stream takes no more records */
	CHECK_EQ(compsc_stream_begin(&w, buf, sizeof(buf), &fx_id), 0);
	len = compsc_stream_end(&w);
	CHECK_EQ(len, 48);
	CHECK_EQ(compsc_stream_add(&w, COMPSC_REC_DRIVER, 0, "x", 1),
		 -COMPSC_ESTATE);
	CHECK_EQ(compsc_stream_end(&w), -COMPSC_ESTATE);
	CHECK_EQ(compsc_stream_parse(buf, 48, &fx_id, 48, &v), 0);
	CHECK_DONE();
}
