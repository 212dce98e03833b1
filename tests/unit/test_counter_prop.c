/* Property: random traffic with 32-bit wraps, driver samples and any number of migrations (RO and RC kinds) keeps the 64-bit total equal to a reference count. */
#include "check.h"
#include <compsc/compsc.h>

#define ROUNDS 200000

/* A hardware counter register and the true number of events. */
struct hw {
	u8 kind;
	u32 reg;
	u32 since_read;	/* events since the driver last saw the register */
	u64 truth;	/* events since compsc_counter_init() */
};

/* Events between two samples stay below 2^32, as the driver guarantees. */
static u32 burst(uint64_t *rnd)
{
	switch (test_rand(rnd) % 4) {
	case 0:
		return (u32)(test_rand(rnd) % 0xc0000000u);	/* a wrap or nearly */
	case 1:
		return 0;
	default:
		return (u32)(test_rand(rnd) % 1000);
	}
}

/* The driver reads the register; an RC register clears on read. */
static u32 hw_read(struct hw *h)
{
	u32 v = h->reg;

	h->since_read = 0;
	if (h->kind == COMPSC_REG_COUNTER_RC)
		h->reg = 0;
	return v;
}

static void run(u8 kind, uint64_t *rnd, u64 *wraps, u64 *migrations)
{
	struct hw h = { .kind = kind, .reg = (u32)test_rand(rnd) };
	struct compsc_counter c;
	int i;

	CHECK_EQ(compsc_counter_init(&c, kind, hw_read(&h)), 0);
	for (i = 0; i < ROUNDS && !check_failures; i++) {
		u32 n = burst(rnd), room = 0xffffffffu - h.since_read;
		u32 final;

		n = n > room ? room : n;
		*wraps += (u32)(h.reg + n) < h.reg;
		h.reg += n;
		h.since_read += n;
		h.truth += n;
		if (test_rand(rnd) % 8) {
			CHECK_EQ(compsc_counter_update(&c, hw_read(&h)), h.truth);
			continue;
		}
		/* migrate: the host reads the source, the destination has junk */
		final = hw_read(&h);
		h.reg = (u32)test_rand(rnd);
		CHECK_EQ(compsc_counter_rebase(&c, final, hw_read(&h)), h.truth);
		(*migrations)++;
	}
}

int main(void)
{
	uint64_t rnd = test_seed("test_counter_prop");
	u64 wraps = 0, migrations = 0;

	run(COMPSC_REG_COUNTER_RO, &rnd, &wraps, &migrations);
	run(COMPSC_REG_COUNTER_RC, &rnd, &wraps, &migrations);
	printf("wraps=%llu migrations=%llu\n", (unsigned long long)wraps,
	       (unsigned long long)migrations);
	CHECK(wraps > 1000);
	CHECK(migrations > 1000);
	CHECK_DONE();
}
