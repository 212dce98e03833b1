/* Area validation vs a racing guest: whatever the guest flips meanwhile, an accepted snapshot holds only valid entries and no header re-read escapes. */
#include <pthread.h>
#include "check.h"
#include "area_fixture.h"

static struct compsc_area_hdr *a;
static u32 len;
static int stop;

/* The guest flips list contents, the count and a section offset. */
static void *guest(void *arg)
{
	struct compsc_reg *r = compsc_area_regs(a);
	u32 good_off = a->reg_off;
	unsigned i = 0;

	(void)arg;
	while (!__atomic_load_n(&stop, __ATOMIC_RELAXED)) {
		int bad = (int)(i++ & 1);

		__atomic_store_n(&r[1].offset, bad ? 0x3000u : 0x10u,
				 __ATOMIC_RELAXED);
		__atomic_store_n(&r[1].width, (u8)(bad ? 8 : 4), __ATOMIC_RELAXED);
		__atomic_store_n(&a->reg_count, (u16)(bad ? FX_REG_MAX : 2),
				 __ATOMIC_RELAXED);
		__atomic_store_n(&a->reg_off, bad ? 0xffffffc0u : good_off,
				 __ATOMIC_RELAXED);
	}
	return NULL;
}

/* The rules as the host needs them, written independently of validate.c. */
static int entry_ok(const struct compsc_reg *e)
{
	return e->bar == 0 && e->flags == 0 && e->kind == COMPSC_REG_PLAIN &&
	       (e->width == 4 || e->width == 8) && e->offset % e->width == 0 &&
	       e->offset + e->width <= 0x1000;
}

int main(void)
{
	struct compsc_policy p = fx_policy();
	struct compsc_reg out[FX_REG_MAX];
	pthread_t t;
	long accepted = 0, refused = 0;
	u32 bad;

	a = fx_area(&len);
	fx_set_reg(a, 0, 0, 0x0, 4, COMPSC_REG_PLAIN, 0);
	fx_set_reg(a, 1, 0, 0x10, 4, COMPSC_REG_PLAIN, 0);
	for (u32 i = 2; i < FX_REG_MAX; i++)	/* hostile tail, shown by count */
		fx_set_reg(a, i, 0, 0x3000, 4, COMPSC_REG_PLAIN, 0);
	a->reg_count = 2;
	/* sequential: the copy is what was checked, later guest writes miss it */
	CHECK_EQ(compsc_area_snapshot_regs(a, len, &p, out, FX_REG_MAX, &bad), 2);
	compsc_area_regs(a)[1].offset = 0x3000;
	CHECK_EQ(out[1].offset, 0x10);
	compsc_area_regs(a)[1].offset = 0x10;

	pthread_create(&t, NULL, guest, NULL);
	for (int i = 0; i < 200000; i++) {
		int n = compsc_area_snapshot_regs(a, len, &p, out, FX_REG_MAX,
						  &bad);
		if (n < 0) {
			refused++;
			continue;
		}
		accepted++;
		CHECK(n <= 2);
		for (int k = 0; k < n; k++)
			CHECK(entry_ok(&out[k]));
	}
	__atomic_store_n(&stop, 1, __ATOMIC_RELAXED);
	pthread_join(t, NULL);
	printf("toctou: %ld accepted, %ld refused\n", accepted, refused);
	free(a);
	CHECK_DONE();
}
