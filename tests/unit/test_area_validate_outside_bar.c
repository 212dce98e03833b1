/* Area validation: registers past the BAR end, straddling it, wrapping u32, or in a missing BAR give EREG_BAR. */
#include "check.h"
#include "area_fixture.h"

static void expect(struct compsc_area_hdr *a, u32 len, u8 bar, u32 off, u8 w)
{
	u32 bad = 0;

	fx_set_reg(a, 1, bar, off, w, COMPSC_REG_PLAIN, 0);
	CHECK_EQ(fx_snap_regs(a, len, &bad), -COMPSC_EREG_BAR);
	CHECK_EQ(bad, 1);
}

int main(void)
{
	u32 len, bad;
	struct compsc_area_hdr *a = fx_area(&len);

	fx_set_reg(a, 0, 0, 0x10, 4, COMPSC_REG_PLAIN, 0);
	expect(a, len, 0, FX_BAR_SIZE, 4);		/* just past the end */
	expect(a, len, 0, FX_BAR_SIZE - 4, 8);	/* straddles the end */
	expect(a, len, 0, 0xfffffff8u, 8);	/* offset + width wraps u32 */
	expect(a, len, 0, 0xfffffffcu, 4);
	expect(a, len, 1, 0x0, 4);		/* BAR1 does not exist */
	expect(a, len, 6, 0x0, 4);		/* no BAR 6 */
	expect(a, len, 255, 0x0, 4);
	/* the last register of the BAR is fine (then denied by policy) */
	fx_set_reg(a, 1, 0, FX_BAR_SIZE - 8, 8, COMPSC_REG_PLAIN, 0);
	CHECK_EQ(fx_snap_regs(a, len, &bad), -COMPSC_EREG_DENIED);
	/* same rule for counters */
	fx_set_ctr(a, 0, 0, FX_BAR_SIZE, 4, COMPSC_REG_COUNTER_RO);
	CHECK_EQ(fx_snap_ctrs(a, len, &bad), -COMPSC_EREG_BAR);
	CHECK_EQ(bad, 0);
	free(a);
	CHECK_DONE();
}
