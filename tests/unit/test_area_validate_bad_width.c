/* Area validation: widths other than 4/8 (counters: 4) give EREG_WIDTH; a width the window does not allow is denied. */
#include "check.h"
#include "area_fixture.h"

int main(void)
{
	static const u8 widths[] = { 0, 1, 2, 3, 5, 16, 255 };
	u32 len, bad;
	struct compsc_area_hdr *a = fx_area(&len);

	for (unsigned i = 0; i < sizeof(widths); i++) {
		fx_set_reg(a, 0, 0, 0x0, widths[i], COMPSC_REG_PLAIN, 0);
		bad = 7;
		CHECK_EQ(fx_snap_regs(a, len, &bad), -COMPSC_EREG_WIDTH);
		CHECK_EQ(bad, 0);
	}
	fx_set_ctr(a, 0, 0, 0x1000, 8, COMPSC_REG_COUNTER_RO);
	CHECK_EQ(fx_snap_ctrs(a, len, &bad), -COMPSC_EREG_WIDTH);
	/* BAR3 window allows only 32-bit accesses */
	fx_set_reg(a, 0, 3, 0x8, 8, COMPSC_REG_PLAIN, 0);
	CHECK_EQ(fx_snap_regs(a, len, &bad), -COMPSC_EREG_DENIED);
	fx_set_reg(a, 0, 3, 0x8, 4, COMPSC_REG_PLAIN, 0);
	CHECK_EQ(fx_snap_regs(a, len, &bad), 1);
	free(a);
	CHECK_DONE();
}
