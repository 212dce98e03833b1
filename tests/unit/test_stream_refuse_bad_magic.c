/* Stream refusal: anything without the stream magic (an area, random bytes, one flipped bit) gives EBADMAGIC. */
#include "check.h"
#include "stream_fixture.h"

static unsigned char buf[FX_MAX];

int main(void)
{
	struct compsc_stream_view v;
	int len = fx_build(buf, sizeof(buf));
	uint64_t s = test_seed("test_stream_refuse_bad_magic");
	u32 area_magic = COMPSC_AREA_MAGIC;

	CHECK(len > 0);
	for (int bit = 0; bit < 32; bit++) {
		buf[bit / 8] ^= (unsigned char)(1u << (bit % 8));
		CHECK_EQ(compsc_stream_parse(buf, (u32)len, NULL, FX_MAX, &v),
			 -COMPSC_EBADMAGIC);
		CHECK_EQ(v.err_offset, 0);
		buf[bit / 8] ^= (unsigned char)(1u << (bit % 8));
	}
	memcpy(buf, &area_magic, 4);
	CHECK_EQ(compsc_stream_parse(buf, 4, NULL, FX_MAX, &v), -COMPSC_EBADMAGIC);
	for (int round = 0; round < 1000; round++) {
		for (int i = 0; i < 64; i++)
			buf[i] = (unsigned char)test_rand(&s);
		if (buf[0] == 0x43 && buf[1] == 0x53)
			continue;	/* "CS": could start the real magic */
		CHECK_EQ(compsc_stream_parse(buf, 64, NULL, FX_MAX, &v),
			 -COMPSC_EBADMAGIC);
	}
	CHECK(compsc_strerror(-COMPSC_EBADMAGIC) != compsc_strerror(-COMPSC_ECORRUPT));
	CHECK_DONE();
}
