/* Stream refusal: a stream for another device (any of the four PCI ids differs) gives EWRONG_DEVICE. */
#include "check.h"
#include "stream_fixture.h"

static unsigned char buf[FX_MAX];

int main(void)
{
	struct compsc_stream_view v;
	int len = fx_build(buf, sizeof(buf));

	CHECK(len > 0);
	CHECK_EQ(compsc_stream_parse(buf, (u32)len, &fx_id, FX_MAX, &v), 0);
	CHECK_EQ(compsc_stream_parse(buf, (u32)len, NULL, FX_MAX, &v), 0);
	for (int field = 0; field < 4; field++) {
		struct compsc_ident other = fx_id;
		u16 *f[4] = { &other.vendor, &other.device,
			      &other.subsys_vendor, &other.subsys_device };

		*f[field] ^= 0x0100;
		CHECK_EQ(compsc_stream_parse(buf, (u32)len, &other, FX_MAX, &v),
			 -COMPSC_EWRONG_DEVICE);
		CHECK_EQ(v.err_offset, offsetof(struct compsc_stream_hdr, vendor));
		CHECK(!v.rec[COMPSC_REC_REGS].data);
	}
	CHECK_DONE();
}
