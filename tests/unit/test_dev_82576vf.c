/* 82576-VF policy: accepts the list a CompSC igbvf registers; refuses CTRL, the mailbox, EICR, other BARs, out-of-BAR, wrong kind or width. */
#include <compsc/dev_82576vf.h>
#include "check.h"

static _Alignas(64) unsigned char mem[COMPSC_AREA_MAX_SIZE];

static struct compsc_area_hdr *fresh(void)
{
	struct compsc_layout_req req = { .nr_cpus = 2, .reg_max = 64,
					 .counter_max = 16, .replay_recs = 8 };
	struct compsc_area_hdr *a = (struct compsc_area_hdr *)mem;

	CHECK_EQ(compsc_area_init(mem, sizeof(mem), &req), 0);
	return a;
}

/* Everything a CompSC igbvf lists for two queue pairs. */
static void add_igbvf_list(struct compsc_area_hdr *a)
{
	static const u32 plain[] = { 0x1524, 0x152c, 0x1530, 0x1680, 0x1684,
				     0x1688, 0x1700, 0x1740 };
	static const u32 ring[] = { 0x2800, 0x2804, 0x2808, 0x280c, 0x2810,
				    0x2818, 0x2828, 0x3800, 0x3804, 0x3808,
				    0x3810, 0x3818, 0x3828 };
	static const u32 ctr[] = { 0xf10, 0xf14, 0xf18, 0xf34, 0xf3c, 0xf40,
				   0xf44, 0xf48, 0xf50 };
	u32 i, q;

	for (i = 0; i < sizeof(plain) / sizeof(plain[0]); i++)
		CHECK_EQ(compsc_area_add_reg(a, 0, plain[i], 4, COMPSC_REG_PLAIN), 0);
	for (q = 0; q < 2; q++)
		for (i = 0; i < sizeof(ring) / sizeof(ring[0]); i++)
			CHECK_EQ(compsc_area_add_reg(a, 0, ring[i] + 0x100 * q, 4,
						     COMPSC_REG_PLAIN), 0);
	for (i = 0; i < sizeof(ctr) / sizeof(ctr[0]); i++)
		CHECK_EQ(compsc_area_add_counter(a, 0, ctr[i],
						 COMPSC_REG_COUNTER_RO), (int)i);
}

/* One extra register after the good list: refused with @want at its index. */
static void refuse_reg(u8 bar, u32 off, u8 width, u8 kind, int want)
{
	struct compsc_area_hdr *a = fresh();
	struct compsc_reg out[64];
	u32 bad = 0;

	add_igbvf_list(a);
	CHECK_EQ(compsc_area_add_reg(a, bar, off, width, kind), 0);
	CHECK_EQ(compsc_area_snapshot_regs(a, sizeof(mem), &compsc_82576vf_policy,
					   out, 64, &bad), -want);
	CHECK_EQ(bad, le16_to_cpu(a->reg_count) - 1);
}

static void refuse_counter(u32 off, int want)
{
	struct compsc_area_hdr *a = fresh();
	struct compsc_counter_desc out[16];
	u32 bad = 0;

	add_igbvf_list(a);
	CHECK(compsc_area_add_counter(a, 0, off, COMPSC_REG_COUNTER_RO) >= 0);
	CHECK_EQ(compsc_area_snapshot_counters(a, sizeof(mem),
					       &compsc_82576vf_policy, out, 16,
					       &bad), -want);
	CHECK_EQ(bad, le16_to_cpu(a->counter_count) - 1);
}

int main(void)
{
	struct compsc_area_hdr *a = fresh();
	struct compsc_counter_desc ctrs[16];
	struct compsc_reg regs[64];
	u32 bad = 0;

	add_igbvf_list(a);
	CHECK_EQ(compsc_area_check(a, sizeof(mem)), 0);
	CHECK_EQ(compsc_area_snapshot_regs(a, sizeof(mem), &compsc_82576vf_policy,
					   regs, 64, &bad), 34);
	CHECK_EQ(compsc_area_snapshot_counters(a, sizeof(mem),
					       &compsc_82576vf_policy, ctrs, 16,
					       &bad), 9);

	refuse_reg(0, COMPSC_82576VF_CTRL, 4, COMPSC_REG_PLAIN, COMPSC_EREG_DENIED);
	refuse_reg(0, COMPSC_82576VF_V2PMAILBOX, 4, COMPSC_REG_PLAIN,
		   COMPSC_EREG_DENIED);
	refuse_reg(0, COMPSC_82576VF_VMBMEM + 8, 4, COMPSC_REG_PLAIN,
		   COMPSC_EREG_DENIED);
	refuse_reg(0, COMPSC_82576VF_EICR, 4, COMPSC_REG_PLAIN, COMPSC_EREG_DENIED);
	refuse_reg(0, 0x1528, 4, COMPSC_REG_PLAIN, COMPSC_EREG_DENIED); /* EIMC */
	refuse_reg(0, 0x2814, 4, COMPSC_REG_PLAIN, COMPSC_EREG_DENIED); /* DCA */
	refuse_reg(0, 0x2a00, 4, COMPSC_REG_PLAIN, COMPSC_EREG_DENIED); /* queue 2 */
	refuse_reg(0, COMPSC_82576VF_BAR0_SIZE, 4, COMPSC_REG_PLAIN,
		   COMPSC_EREG_BAR);
	refuse_reg(0, COMPSC_82576VF_BAR0_SIZE - 4, 8, COMPSC_REG_PLAIN,
		   COMPSC_EREG_BAR);
	refuse_reg(3, 0x0, 4, COMPSC_REG_PLAIN, COMPSC_EREG_BAR); /* MSI-X BAR */
	refuse_reg(0, 0x2900, 8, COMPSC_REG_PLAIN, COMPSC_EREG_DENIED);
	refuse_reg(0, 0x2902, 4, COMPSC_REG_PLAIN, COMPSC_EREG_ALIGN);
	/* a counter listed as a plain register, a plain one as a counter */
	refuse_reg(0, 0x0f54 - 4, 4, COMPSC_REG_PLAIN, COMPSC_EREG_DENIED);
	refuse_reg(0, 0x1700, 4, COMPSC_REG_COUNTER_RC, COMPSC_EREG_DENIED);
	refuse_counter(0x1700, COMPSC_EREG_DENIED);
	refuse_counter(COMPSC_82576VF_EICR, COMPSC_EREG_DENIED);
	refuse_counter(0xf10, COMPSC_EREG_OVERLAP);

	/* the queue-stop registers are exactly RXDCTL/TXDCTL 0 and 1 */
	CHECK_EQ(compsc_82576vf_qctl[0], 0x2828);
	CHECK_EQ(compsc_82576vf_qctl[3], 0x3928);
	CHECK_DONE();
}
