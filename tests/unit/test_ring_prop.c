/* Property: random ring sizes (incl. non-powers of two) and element sizes, random head positions over many migrations: after rotate+shift every descriptor is at the hardware index the mapping gives for its software index, the old head is at 0, and hw<->sw round-trips. */
#include "check.h"
#include <compsc/compsc.h>
#include <string.h>

#define MAX_SIZE	4096
#define MAX_ELEM	40

static unsigned char ring[MAX_SIZE * MAX_ELEM];

/* Descriptor contents for software slot @sw: its number plus a pattern. */
static void desc_make(unsigned char *d, u32 elem, u32 sw)
{
	u32 i;

	for (i = 0; i < elem; i++)
		d[i] = (unsigned char)(sw * 7 + i * 13 + (sw >> 8));
}

static int desc_is(const unsigned char *d, u32 elem, u32 sw)
{
	unsigned char want[MAX_ELEM];

	desc_make(want, elem, sw);
	return !memcmp(d, want, elem);
}

static int ring_ok(const struct compsc_ring *r, u32 elem, uint64_t *rnd)
{
	u32 sw, h;

	for (sw = 0; sw < r->size; sw++) {
		h = compsc_ring_hw(r, sw);
		if (h >= r->size || !desc_is(ring + (size_t)h * elem, elem, sw) ||
		    compsc_ring_sw(r, h) != sw)
			return 0;
	}
	/* later laps of the software index land on the same slots */
	sw = (u32)test_rand(rnd);
	return compsc_ring_hw(r, sw) == compsc_ring_hw(r, sw % r->size);
}

int main(void)
{
	uint64_t rnd = test_seed("test_ring_prop");
	int round, m, shifts = 0, npot = 0;

	for (round = 0; round < 300 && !check_failures; round++) {
		u32 size = 1 + (u32)(test_rand(&rnd) % MAX_SIZE);
		u32 elem = 1 + (u32)(test_rand(&rnd) % MAX_ELEM), sw;
		struct compsc_ring r;

		if (round % 3 == 0)	/* common hardware sizes too */
			size = 8u << (test_rand(&rnd) % 10);
		npot += (size & (size - 1)) != 0;
		CHECK_EQ(compsc_ring_init(&r, size), 0);
		for (sw = 0; sw < size; sw++)
			desc_make(ring + (size_t)sw * elem, elem, sw);
		for (m = 0; m < 8; m++) {
			u32 head = (u32)(test_rand(&rnd) % size);
			u32 head_sw = compsc_ring_sw(&r, head);

			CHECK_EQ(compsc_ring_rotate(ring, elem, size, head), 0);
			CHECK_EQ(compsc_ring_shift(&r, head), 0);
			CHECK(r.offset < size);
			CHECK(desc_is(ring, elem, head_sw));
			CHECK_EQ(compsc_ring_hw(&r, head_sw), 0);
			CHECK(ring_ok(&r, elem, &rnd));
			shifts++;
		}
	}
	printf("rounds=%d shifts=%d non_pow2_sizes=%d\n", round, shifts, npot);
	CHECK(npot > 0);
	CHECK_DONE();
}
