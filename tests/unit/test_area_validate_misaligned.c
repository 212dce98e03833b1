/* Area validation: an offset not aligned to the register width gives EREG_ALIGN with the entry's index. */
#include "check.h"
#include "area_fixture.h"

int main(void)
{
	static const struct { u32 off; u8 width; } cases[] = {
		{ 0x102, 4 }, { 0x101, 4 }, { 0x104, 8 }, { 0x10c, 8 }, { 0x1, 8 },
	};
	u32 len, bad;
	struct compsc_area_hdr *a = fx_area(&len);

	fx_set_reg(a, 0, 0, 0x0, 4, COMPSC_REG_PLAIN, 0);
	fx_set_reg(a, 1, 0, 0x8, 8, COMPSC_REG_PLAIN, 0);
	CHECK_EQ(fx_snap_regs(a, len, &bad), 2);
	for (unsigned i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		fx_set_reg(a, 2, 0, cases[i].off, cases[i].width,
			   COMPSC_REG_PLAIN, 0);
		bad = 0;
		CHECK_EQ(fx_snap_regs(a, len, &bad), -COMPSC_EREG_ALIGN);
		CHECK_EQ(bad, 2);
	}
	fx_set_ctr(a, 0, 0, 0x1002, 4, COMPSC_REG_COUNTER_RO);
	CHECK_EQ(fx_snap_ctrs(a, len, &bad), -COMPSC_EREG_ALIGN);
	free(a);
	CHECK_DONE();
}
