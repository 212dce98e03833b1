/* Area validation: two entries sharing a byte of one BAR give EREG_OVERLAP (index of the later one); neighbours and other BARs are fine. */
#include "check.h"
#include "area_fixture.h"

int main(void)
{
	u32 len, bad;
	struct compsc_area_hdr *a = fx_area(&len);

	fx_set_reg(a, 0, 0, 0x100, 8, COMPSC_REG_PLAIN, 0);
	fx_set_reg(a, 1, 0, 0x108, 4, COMPSC_REG_PLAIN, 0);	/* adjacent */
	fx_set_reg(a, 2, 3, 0x000, 4, COMPSC_REG_PLAIN, 0);
	fx_set_reg(a, 3, 0, 0x000, 4, COMPSC_REG_PLAIN, 0);	/* other BAR */
	CHECK_EQ(fx_snap_regs(a, len, &bad), 4);
	fx_set_reg(a, 4, 0, 0x104, 4, COMPSC_REG_PLAIN, 0);	/* inside #0 */
	CHECK_EQ(fx_snap_regs(a, len, &bad), -COMPSC_EREG_OVERLAP);
	CHECK_EQ(bad, 4);
	fx_set_reg(a, 4, 0, 0x108, 4, COMPSC_REG_PLAIN, 0);	/* same as #1 */
	CHECK_EQ(fx_snap_regs(a, len, &bad), -COMPSC_EREG_OVERLAP);
	CHECK_EQ(bad, 4);
	fx_set_reg(a, 4, 0, 0x0f8, 8, COMPSC_REG_PLAIN, 0);	/* ends at #0 */
	CHECK_EQ(fx_snap_regs(a, len, &bad), 5);
	fx_set_ctr(a, 0, 0, 0x1000, 4, COMPSC_REG_COUNTER_RO);
	fx_set_ctr(a, 1, 0, 0x1000, 4, COMPSC_REG_COUNTER_RC);
	CHECK_EQ(fx_snap_ctrs(a, len, &bad), -COMPSC_EREG_OVERLAP);
	CHECK_EQ(bad, 1);
	free(a);
	CHECK_DONE();
}
