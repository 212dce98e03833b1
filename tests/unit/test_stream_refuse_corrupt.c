/* Stream refusal: any single bit flip under the checksum gives ECORRUPT (identity flips too, never "wrong device"). */
#include "check.h"
#include "stream_fixture.h"

static unsigned char buf[FX_MAX];

int main(void)
{
	struct compsc_stream_view v;
	int len = fx_build(buf, sizeof(buf));
	/* magic, version and total_len locate the checksum: judged before it */
	u32 first = offsetof(struct compsc_stream_hdr, flags);

	CHECK(len > 0);
	for (u32 bit = first * 8; bit < (u32)(len - 4) * 8; bit++) {
		buf[bit / 8] ^= (unsigned char)(1u << (bit % 8));
		CHECK_EQ(compsc_stream_parse(buf, (u32)len, &fx_id, FX_MAX, &v),
			 -COMPSC_ECORRUPT);
		CHECK_EQ(v.err_offset, (u32)len - 8);
		buf[bit / 8] ^= (unsigned char)(1u << (bit % 8));
	}
	/* the fixture is intact again */
	CHECK_EQ(compsc_stream_parse(buf, (u32)len, &fx_id, FX_MAX, &v), 0);
	/* a whole-byte change in the device id: corrupt, not wrong device */
	buf[offsetof(struct compsc_stream_hdr, device)] = 0x42;
	CHECK_EQ(compsc_stream_parse(buf, (u32)len, &fx_id, FX_MAX, &v),
		 -COMPSC_ECORRUPT);
	CHECK_DONE();
}
