/* Area validation: unknown kinds, a plain "counter", and reserved flag bits are refused with EREG_KIND / EREG_FLAGS. */
#include "check.h"
#include "area_fixture.h"

int main(void)
{
	static const u8 kinds[] = { 0, 4, 0x80, 255 };
	u32 len, bad;
	struct compsc_area_hdr *a = fx_area(&len);
	struct compsc_counter_desc *c;

	for (unsigned i = 0; i < sizeof(kinds); i++) {
		fx_set_reg(a, 0, 0, 0x0, 4, kinds[i], 0);
		CHECK_EQ(fx_snap_regs(a, len, &bad), -COMPSC_EREG_KIND);
		CHECK_EQ(bad, 0);
	}
	fx_set_reg(a, 0, 0, 0x0, 4, COMPSC_REG_PLAIN, 0x01);
	CHECK_EQ(fx_snap_regs(a, len, &bad), -COMPSC_EREG_FLAGS);
	fx_set_reg(a, 0, 0, 0x0, 4, COMPSC_REG_PLAIN, 0);
	CHECK_EQ(fx_snap_regs(a, len, &bad), 1);

	fx_set_ctr(a, 0, 0, 0x1000, 4, COMPSC_REG_PLAIN);
	CHECK_EQ(fx_snap_ctrs(a, len, &bad), -COMPSC_EREG_KIND);
	fx_set_ctr(a, 0, 0, 0x1000, 4, 7);
	CHECK_EQ(fx_snap_ctrs(a, len, &bad), -COMPSC_EREG_KIND);
	fx_set_ctr(a, 0, 0, 0x1000, 4, COMPSC_REG_COUNTER_RO);
	c = &compsc_area_counters(a)[0];
	c->flags = 0x02;			/* only SAVED is defined */
	CHECK_EQ(fx_snap_ctrs(a, len, &bad), -COMPSC_EREG_FLAGS);
	c->flags = 0;
	c->rsvd = 1;
	CHECK_EQ(fx_snap_ctrs(a, len, &bad), -COMPSC_EREG_FLAGS);
	c->rsvd = 0;
	CHECK_EQ(fx_snap_ctrs(a, len, &bad), 1);
	/* a counter kind where the window allows plain registers only */
	fx_set_reg(a, 0, 0, 0x10, 4, COMPSC_REG_COUNTER_RO, 0);
	CHECK_EQ(fx_snap_regs(a, len, &bad), -COMPSC_EREG_DENIED);
	free(a);
	CHECK_DONE();
}
