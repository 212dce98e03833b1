/* Area validation: registers inside the BAR but outside every allow-list window (or straddling one) give EREG_DENIED. */
#include "check.h"
#include "area_fixture.h"

int main(void)
{
	struct compsc_policy p = fx_policy();
	struct compsc_reg out[FX_REG_MAX];
	u32 len, bad;
	struct compsc_area_hdr *a = fx_area(&len);

	fx_set_reg(a, 0, 0, 0x0, 4, COMPSC_REG_PLAIN, 0);
	fx_set_reg(a, 1, 0, 0x3000, 4, COMPSC_REG_PLAIN, 0);	/* no window */
	CHECK_EQ(fx_snap_regs(a, len, &bad), -COMPSC_EREG_DENIED);
	CHECK_EQ(bad, 1);
	fx_set_reg(a, 1, 3, 0x100, 4, COMPSC_REG_PLAIN, 0);	/* at window end */
	CHECK_EQ(fx_snap_regs(a, len, &bad), -COMPSC_EREG_DENIED);
	fx_set_reg(a, 1, 3, 0xfc, 4, COMPSC_REG_PLAIN, 0);	/* last allowed */
	CHECK_EQ(fx_snap_regs(a, len, &bad), 2);
	/* the last 8 bytes of a window are inside it ... */
	fx_set_reg(a, 1, 0, 0xff8, 8, COMPSC_REG_PLAIN, 0);
	CHECK_EQ(fx_snap_regs(a, len, &bad), 2);
	/* ... but split the window there: across two windows is in neither */
	p.allow = (const struct compsc_allow[]){
		{ .start = 0, .end = 0xffc, .bar = 0,
		  .width_mask = COMPSC_WIDTH_4 | COMPSC_WIDTH_8,
		  .kind_mask = COMPSC_KIND_BIT(COMPSC_REG_PLAIN) },
		{ .start = 0xffc, .end = 0x1000, .bar = 0,
		  .width_mask = COMPSC_WIDTH_4 | COMPSC_WIDTH_8,
		  .kind_mask = COMPSC_KIND_BIT(COMPSC_REG_PLAIN) } };
	p.nr_allow = 2;
	CHECK_EQ(compsc_area_snapshot_regs(a, len, &p, out, FX_REG_MAX, &bad),
		 -COMPSC_EREG_DENIED);
	CHECK_EQ(bad, 1);
	/* default deny: an empty allow-list refuses everything */
	p.nr_allow = 0;
	CHECK_EQ(compsc_area_snapshot_regs(a, len, &p, out, FX_REG_MAX, &bad),
		 -COMPSC_EREG_DENIED);
	CHECK_EQ(bad, 0);
	free(a);
	CHECK_DONE();
}
