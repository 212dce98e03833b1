/* Area validation: counts beyond the policy, the caller's buffer or the area's own capacity give EREG_COUNT. */
#include "check.h"
#include "area_fixture.h"

int main(void)
{
	struct compsc_policy p = fx_policy();
	struct compsc_reg out[FX_REG_MAX];
	u32 len, bad;
	struct compsc_area_hdr *a = fx_area(&len);

	for (u32 i = 0; i < 6; i++)
		fx_set_reg(a, i, 0, i * 4, 4, COMPSC_REG_PLAIN, 0);
	CHECK_EQ(compsc_area_snapshot_regs(a, len, &p, out, 6, &bad), 6);
	CHECK_EQ(compsc_area_snapshot_regs(a, len, &p, out, 5, &bad),
		 -COMPSC_EREG_COUNT);
	CHECK_EQ(bad, 5);
	p.max_regs = 4;
	CHECK_EQ(compsc_area_snapshot_regs(a, len, &p, out, 6, &bad),
		 -COMPSC_EREG_COUNT);
	CHECK_EQ(bad, 4);
	/* count beyond what the area holds: header check, no entry index */
	a->reg_count = FX_REG_MAX + 1;
	CHECK_EQ(compsc_area_check(a, len), -COMPSC_EREG_COUNT);
	CHECK_EQ(fx_snap_regs(a, len, &bad), -COMPSC_EREG_COUNT);
	CHECK_EQ(bad, 0xffffffffu);
	a->reg_count = 6;
	a->counter_count = FX_CTR_MAX + 1;
	CHECK_EQ(fx_snap_ctrs(a, len, &bad), -COMPSC_EREG_COUNT);
	a->counter_count = 0;
	/* capacities beyond the ABI limits */
	a->reg_max = COMPSC_MAX_REGS + 1;
	CHECK_EQ(compsc_area_check(a, len), -COMPSC_EREG_COUNT);
	a->reg_max = FX_REG_MAX;
	a->counter_max = COMPSC_MAX_COUNTERS + 1;
	CHECK_EQ(compsc_area_check(a, len), -COMPSC_EREG_COUNT);
	a->counter_max = FX_CTR_MAX;
	CHECK_EQ(compsc_area_check(a, len), 0);
	/* no output buffer with a non-zero capacity is a caller bug */
	CHECK_EQ(compsc_area_snapshot_regs(a, len, &p, NULL, 4, &bad),
		 -COMPSC_EINVAL);
	free(a);
	CHECK_DONE();
}
