/* Counters: RO counters extend across 32-bit wraps, RC counters add each read, a rebase absorbs the source's final value and continues from the destination's. */
#include "check.h"
#include <compsc/compsc.h>

int main(void)
{
	struct compsc_counter c;

	CHECK_EQ(compsc_counter_init(&c, COMPSC_REG_PLAIN, 0), -COMPSC_EINVAL);
	CHECK_EQ(compsc_counter_init(&c, 0, 0), -COMPSC_EINVAL);
	CHECK_EQ(compsc_counter_init(NULL, COMPSC_REG_COUNTER_RO, 0),
		 -COMPSC_EINVAL);

	/* RO: starts from the value it finds, wraps */
	CHECK_EQ(compsc_counter_init(&c, COMPSC_REG_COUNTER_RO, 0xfffffff0u), 0);
	CHECK_EQ(c.total, 0);
	CHECK_EQ(compsc_counter_update(&c, 0xfffffff0u), 0);
	CHECK_EQ(compsc_counter_update(&c, 0x10), 0x20);
	CHECK_EQ(compsc_counter_update(&c, 0xfffffff0u), 0x100000000ull);
	CHECK_EQ(compsc_counter_update(&c, 0xffffffefu), 0x1ffffffffull);
	CHECK_EQ(c.last, 0xffffffefu);

	/* RO rebase: +50 at the source, destination counter shows 7 */
	CHECK_EQ(compsc_counter_init(&c, COMPSC_REG_COUNTER_RO, 100), 0);
	CHECK_EQ(compsc_counter_rebase(&c, 150, 7), 50);
	CHECK_EQ(c.last, 7);
	CHECK_EQ(compsc_counter_update(&c, 10), 53);
	/* destination value above the source's, and a wrapped final value */
	CHECK_EQ(compsc_counter_rebase(&c, 5, 0xffffff00u), 53 + 0xfffffffbull);
	CHECK_EQ(compsc_counter_update(&c, 0x100), 53 + 0xfffffffbull + 0x200);

	/* RC: the value read at init is not ours, every later read adds */
	CHECK_EQ(compsc_counter_init(&c, COMPSC_REG_COUNTER_RC, 12345), 0);
	CHECK_EQ(c.total, 0);
	CHECK_EQ(compsc_counter_update(&c, 0xffffffffu), 0xffffffffull);
	CHECK_EQ(compsc_counter_update(&c, 2), 0x100000001ull);
	CHECK_EQ(compsc_counter_update(&c, 0), 0x100000001ull);
	/* RC rebase: add the source's final read; the destination's read is stale */
	CHECK_EQ(compsc_counter_rebase(&c, 9, 777), 0x10000000aull);
	CHECK_EQ(compsc_counter_update(&c, 1), 0x10000000bull);
	CHECK_DONE();
}
