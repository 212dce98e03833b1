/* Ring index mapping: identity at init, offsets compose modulo the size, bad sizes and heads are refused, and hw<->sw stays exact at the largest allowed size. */
#include "check.h"
#include <compsc/compsc.h>

int main(void)
{
	struct compsc_ring r;
	u32 big = 0x80000000u, i;

	CHECK_EQ(compsc_ring_init(&r, 0), -COMPSC_EINVAL);
	CHECK_EQ(compsc_ring_init(&r, big + 1), -COMPSC_EINVAL);
	CHECK_EQ(compsc_ring_init(NULL, 8), -COMPSC_EINVAL);

	CHECK_EQ(compsc_ring_init(&r, 10), 0);
	for (i = 0; i < 25; i++) {
		CHECK_EQ(compsc_ring_hw(&r, i), i % 10);
		CHECK_EQ(compsc_ring_sw(&r, i % 10), i % 10);
	}
	CHECK_EQ(compsc_ring_shift(&r, 10), -COMPSC_EINVAL);
	CHECK_EQ(r.offset, 0);
	CHECK_EQ(compsc_ring_shift(&r, 7), 0);
	CHECK_EQ(r.offset, 7);
	CHECK_EQ(compsc_ring_hw(&r, 7), 0);	/* the old head is slot 0 */
	CHECK_EQ(compsc_ring_hw(&r, 6), 9);
	CHECK_EQ(compsc_ring_hw(&r, 16), 9);
	CHECK_EQ(compsc_ring_sw(&r, 0), 7);
	CHECK_EQ(compsc_ring_sw(&r, 3), 0);
	CHECK_EQ(compsc_ring_shift(&r, 5), 0);	/* 7 + 5 = 12 = 2 mod 10 */
	CHECK_EQ(r.offset, 2);
	CHECK_EQ(compsc_ring_shift(&r, 0), 0);
	CHECK_EQ(r.offset, 2);
	CHECK_EQ(compsc_ring_shift(&r, 8), 0);
	CHECK_EQ(r.offset, 0);

	CHECK_EQ(compsc_ring_init(&r, 1), 0);
	CHECK_EQ(compsc_ring_shift(&r, 0), 0);
	CHECK_EQ(compsc_ring_hw(&r, 12345), 0);

	/* 2^31 entries: sums must not overflow 32 bits */
	CHECK_EQ(compsc_ring_init(&r, big), 0);
	CHECK_EQ(compsc_ring_shift(&r, big - 1), 0);
	CHECK_EQ(compsc_ring_shift(&r, big - 2), 0);
	CHECK_EQ(r.offset, big - 3);
	CHECK_EQ(compsc_ring_hw(&r, big - 3), 0);
	CHECK_EQ(compsc_ring_hw(&r, 0), 3);
	CHECK_EQ(compsc_ring_sw(&r, big - 1), big - 4);
	CHECK_EQ(compsc_ring_sw(&r, 3), 0);
	for (i = 0; i < 1000; i++) {
		u32 h = big - 1 - i * 7919;

		CHECK_EQ(compsc_ring_hw(&r, compsc_ring_sw(&r, h)), h);
	}
	CHECK_DONE();
}
