/* compsc_ring_rotate() rotates in place exactly like a naive copy, for element sizes 1..100 bytes, any count (power of two or not) and any amount. */
#include "check.h"
#include <compsc/compsc.h>
#include <string.h>

#define MAXN	37
#define MAXE	100

static unsigned char buf[MAXN * MAXE], want[MAXN * MAXE];

static void fill(u32 elem, u32 count)
{
	u32 i;

	for (i = 0; i < elem * count; i++)
		buf[i] = (unsigned char)(i * 131 + i / elem);
}

int main(void)
{
	static const u32 elems[] = { 1, 2, 3, 4, 8, 16, 31, 32, 33, 64, 100 };
	u32 e, count, by, cases = 0;

	for (e = 0; e < sizeof(elems) / sizeof(elems[0]); e++) {
		u32 elem = elems[e];

		for (count = 1; count <= MAXN; count++) {
			for (by = 0; by <= count + 1; by++) {
				u32 k = by % count;

				fill(elem, count);
				memcpy(want, buf + (size_t)k * elem,
				       (size_t)(count - k) * elem);
				memcpy(want + (size_t)(count - k) * elem, buf,
				       (size_t)k * elem);
				CHECK_EQ(compsc_ring_rotate(buf, elem, count, by), 0);
				CHECK(!memcmp(buf, want, (size_t)count * elem));
				cases++;
			}
		}
	}
	/* degenerate arguments */
	CHECK_EQ(compsc_ring_rotate(buf, 4, 0, 3), 0);
	CHECK_EQ(compsc_ring_rotate(NULL, 4, 0, 0), 0);
	CHECK_EQ(compsc_ring_rotate(NULL, 4, 5, 1), -COMPSC_EINVAL);
	CHECK_EQ(compsc_ring_rotate(buf, 0, 5, 1), -COMPSC_EINVAL);
	printf("cases=%u\n", cases);
	CHECK_DONE();
}
