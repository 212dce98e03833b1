/* compsc_ring_stale() counts the receive descriptors from next-to-clean up to the saved head, across the wrap, and refuses a head past the device's limit or any index outside the ring, against a naive walk for every case of small rings. */
#include "check.h"
#include <compsc/compsc.h>

/* The naive walk: steps from @from to @to, -1 if it meets @limit first */
static int walk(u32 from, u32 to, u32 limit, u32 count)
{
	u32 i = from;
	int n = 0;

	while (i != to) {
		if (i == limit)
			return -1;
		i = (i + 1) % count;
		n++;
	}
	return n;
}

int main(void)
{
	u32 count, ntc, head, limit, cases = 0;

	for (count = 1; count <= 17; count++)
		for (ntc = 0; ntc < count; ntc++)
			for (head = 0; head < count; head++)
				for (limit = 0; limit < count; limit++) {
					int want = walk(ntc, head, limit, count);
					int got = compsc_ring_stale(ntc, head, limit,
								    count);

					CHECK_EQ(got, want < 0 ? -COMPSC_EINVAL : want);
					cases++;
				}
	/* the usual case: a ring of 256, two frames behind head 12 */
	CHECK_EQ(compsc_ring_stale(10, 12, 200, 256), 2);
	CHECK_EQ(compsc_ring_stale(250, 2, 200, 256), 8);	/* wraps */
	CHECK_EQ(compsc_ring_stale(7, 7, 7, 256), 0);		/* nothing */
	CHECK_EQ(compsc_ring_stale(10, 201, 200, 256), -COMPSC_EINVAL);
	CHECK_EQ(compsc_ring_stale(0, 0, 0, 0), -COMPSC_EINVAL);
	CHECK_EQ(compsc_ring_stale(256, 0, 0, 256), -COMPSC_EINVAL);
	CHECK_EQ(compsc_ring_stale(0, 256, 0, 256), -COMPSC_EINVAL);
	CHECK_EQ(compsc_ring_stale(0, 0, 256, 256), -COMPSC_EINVAL);
	printf("cases=%u\n", cases);
	CHECK_DONE();
}
