/* Area validation accepts a good area: the host copy equals what the guest listed, empty lists give 0. */
#include "check.h"
#include "area_fixture.h"

int main(void)
{
	struct compsc_policy p = fx_policy();
	struct compsc_reg regs[FX_REG_MAX];
	struct compsc_counter_desc ctrs[FX_CTR_MAX];
	u32 len, bad = 0;
	struct compsc_area_hdr *a = fx_area(&len);

	CHECK_EQ(compsc_area_check(a, len), 0);
	CHECK_EQ(compsc_area_check(a, len + 4096), 0); /* mapping may be larger */
	CHECK_EQ(fx_snap_regs(a, len, &bad), 0);
	CHECK_EQ(fx_snap_ctrs(a, len, &bad), 0);
	CHECK_EQ(compsc_area_add_reg(a, 0, 0x0000, 4, COMPSC_REG_PLAIN), 0);
	CHECK_EQ(compsc_area_add_reg(a, 0, 0x0ff8, 8, COMPSC_REG_PLAIN), 0);
	CHECK_EQ(compsc_area_add_reg(a, 0, 0x0004, 4, COMPSC_REG_PLAIN), 0);
	CHECK_EQ(compsc_area_add_reg(a, 3, 0x0000, 4, COMPSC_REG_PLAIN), 0);
	CHECK_EQ(compsc_area_add_reg(a, 0, 0x1ffc, 4, COMPSC_REG_COUNTER_RC), 0);
	CHECK_EQ(compsc_area_add_counter(a, 0, 0x1000, COMPSC_REG_COUNTER_RO), 0);
	CHECK_EQ(compsc_area_add_counter(a, 0, 0x1004, COMPSC_REG_COUNTER_RC), 1);
	/* the host may have set SAVED on an earlier migration */
	compsc_area_counters(a)[1].flags = COMPSC_CTR_F_SAVED;
	CHECK_EQ(compsc_area_snapshot_regs(a, len, &p, regs, FX_REG_MAX, &bad), 5);
	CHECK_EQ(bad, 0xffffffffu);
	CHECK(!memcmp(regs, compsc_area_regs(a), 5 * sizeof(regs[0])));
	CHECK_EQ(compsc_area_snapshot_counters(a, len, &p, ctrs, FX_CTR_MAX,
					       &bad), 2);
	CHECK(!memcmp(ctrs, compsc_area_counters(a), 2 * sizeof(ctrs[0])));
	/* @bad is optional */
	CHECK_EQ(compsc_area_snapshot_regs(a, len, &p, regs, FX_REG_MAX, NULL), 5);
	free(a);
	CHECK_DONE();
}
