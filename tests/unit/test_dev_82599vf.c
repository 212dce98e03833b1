/* 82599-VF policy: exactly what a CompSC ixgbevf lists; refuses VFCTRL, mailbox, causes, _MSB words, whatever the 82576's allows (and it ixgbevf's); 16 queue controls. */
#include <compsc/dev_82576vf.h>
#include <compsc/dev_82599vf.h>
#include "check.h"

static _Alignas(64) unsigned char mem[COMPSC_AREA_MAX_SIZE];

/*
 * What the CompSC ixgbevf lists, copied from the series (a kernel driver's
 * table, out of a unit test's reach), with ixgbevf's regs.h offsets:
 * drivers/ixgbevf/0001 fills ixgbevf_cs_regs with IXGBE_VFRDH(i) for i < 8,
 * then IXGBE_VFTDH(i); drivers/ixgbevf/0003's ixgbevf_cs_ctrs are VFGPRC,
 * VFGPTC, VFGORC_LSB, VFGOTC_LSB, VFMPRC. libcompsc/kernel/vf.c's
 * compsc_vf_layout() adds the first as 4-byte PLAIN, the second as
 * COUNTER_RO, in that order.
 */
#define IXGBEVF_NR_REGS	16
#define IXGBEVF_NR_CTRS	5

static u32 ixgbevf_reg(u32 i)
{
	return (i < 8 ? 0x1010 : 0x2010) + 0x40 * (i % 8);
}

static const u32 ixgbevf_ctrs[IXGBEVF_NR_CTRS] = {
	0x101c, 0x201c, 0x1020, 0x2020, 0x1034,
};

static struct compsc_area_hdr *fresh(void)
{
	struct compsc_layout_req req = { .nr_cpus = 2, .reg_max = 64,
					 .counter_max = 16, .replay_recs = 8 };

	CHECK_EQ(compsc_area_init(mem, sizeof(mem), &req), 0);
	return (struct compsc_area_hdr *)mem;
}

/* The list, less its last @short_regs registers and @short_ctrs counters */
static void add_ixgbevf_list(struct compsc_area_hdr *a, u32 short_regs,
			     u32 short_ctrs)
{
	u32 i;

	for (i = 0; i < IXGBEVF_NR_REGS - short_regs; i++)
		CHECK_EQ(compsc_area_add_reg(a, 0, ixgbevf_reg(i), 4,
					     COMPSC_REG_PLAIN), 0);
	for (i = 0; i < IXGBEVF_NR_CTRS - short_ctrs; i++)
		CHECK_EQ(compsc_area_add_counter(a, 0, ixgbevf_ctrs[i],
						 COMPSC_REG_COUNTER_RO), (int)i);
}

/*
 * One register in place of the list's last (the policy takes no more
 * entries than ixgbevf lists): refused with @want at its index.
 */
static void refuse_reg(u8 bar, u32 off, u8 width, u8 kind, int want)
{
	struct compsc_area_hdr *a = fresh();
	struct compsc_reg out[64];
	u32 bad = 0;

	add_ixgbevf_list(a, 1, 0);
	CHECK_EQ(compsc_area_add_reg(a, bar, off, width, kind), 0);
	CHECK_EQ(compsc_area_snapshot_regs(a, sizeof(mem), &compsc_82599vf_policy,
					   out, 64, &bad), -want);
	CHECK_EQ(bad, le16_to_cpu(a->reg_count) - 1);
}

static void refuse_counter(u32 off, int want)
{
	struct compsc_area_hdr *a = fresh();
	struct compsc_counter_desc out[16];
	u32 bad = 0;

	add_ixgbevf_list(a, 0, 1);
	CHECK(compsc_area_add_counter(a, 0, off, COMPSC_REG_COUNTER_RO) >= 0);
	CHECK_EQ(compsc_area_snapshot_counters(a, sizeof(mem),
					       &compsc_82599vf_policy, out, 16,
					       &bad), -want);
	CHECK_EQ(bad, le16_to_cpu(a->counter_count) - 1);
}

/* Is @off, as an entry of @kind, on the ixgbevf list? */
static int listed(u32 off, u8 kind)
{
	u32 i;

	for (i = 0; kind == COMPSC_REG_PLAIN && i < IXGBEVF_NR_REGS; i++)
		if (off == ixgbevf_reg(i))
			return 1;
	for (i = 0; kind == COMPSC_REG_COUNTER_RO && i < IXGBEVF_NR_CTRS; i++)
		if (off == ixgbevf_ctrs[i])
			return 1;
	return 0;
}

/*
 * Exactly the list: every 4-byte entry of BAR0, of every kind, in either
 * list, is accepted if and only if ixgbevf lists it; no 8-byte one is.
 */
static void accepts_exactly_the_list(void)
{
	static _Alignas(64) unsigned char one[8192];
	struct compsc_layout_req req = { .nr_cpus = 1, .reg_max = 1,
					 .counter_max = 1, .replay_recs = 1 };
	struct compsc_area_hdr *a = (struct compsc_area_hdr *)one;
	struct compsc_counter_desc c;
	struct compsc_reg r;
	u32 off, bad, ok = 0, wrong = 0;
	int want, got;
	u8 kind;

	CHECK(compsc_area_size(&req) <= sizeof(one));
	for (off = 0; off < COMPSC_82599VF_BAR0_SIZE; off += 4) {
		for (kind = COMPSC_REG_PLAIN; kind <= COMPSC_REG_COUNTER_RC; kind++) {
			want = listed(off, kind) ? 1 : -COMPSC_EREG_DENIED;
			compsc_area_init(one, sizeof(one), &req);
			compsc_area_add_reg(a, 0, off, 4, kind);
			got = compsc_area_snapshot_regs(one, sizeof(one),
							&compsc_82599vf_policy,
							&r, 1, &bad);
			wrong += got != want;
			ok += got == 1;
			if (kind == COMPSC_REG_PLAIN)
				continue;
			compsc_area_init(one, sizeof(one), &req);
			compsc_area_add_counter(a, 0, off, kind);
			got = compsc_area_snapshot_counters(one, sizeof(one),
							    &compsc_82599vf_policy,
							    &c, 1, &bad);
			wrong += got != want;
			ok += got == 1;
		}
		if (off % 8)
			continue;
		compsc_area_init(one, sizeof(one), &req);
		compsc_area_add_reg(a, 0, off, 8, COMPSC_REG_PLAIN);
		got = compsc_area_snapshot_regs(one, sizeof(one),
						&compsc_82599vf_policy, &r, 1,
						&bad);
		wrong += got != (off + 8 > COMPSC_82599VF_BAR0_SIZE ?
				 -COMPSC_EREG_BAR : -COMPSC_EREG_DENIED);
	}
	CHECK_EQ(wrong, 0);
	/* each head once (reg list), each counter twice (either list) */
	CHECK_EQ(ok, IXGBEVF_NR_REGS + 2 * IXGBEVF_NR_CTRS);
}

/*
 * @off as a one-entry list of @kind (in the register list, and in the
 * counter list for a counter kind), checked against @p: 1 if every list
 * takes it, else the refusal.
 */
static int one_entry(const struct compsc_policy *p, u32 off, u8 kind)
{
	static _Alignas(64) unsigned char one[8192];
	struct compsc_layout_req req = { .nr_cpus = 1, .reg_max = 1,
					 .counter_max = 1, .replay_recs = 1 };
	struct compsc_area_hdr *a = (struct compsc_area_hdr *)one;
	struct compsc_counter_desc c;
	struct compsc_reg r;
	u32 bad;
	int got;

	compsc_area_init(one, sizeof(one), &req);
	compsc_area_add_reg(a, 0, off, 4, kind);
	got = compsc_area_snapshot_regs(one, sizeof(one), p, &r, 1, &bad);
	if (got != 1 || kind == COMPSC_REG_PLAIN)
		return got;
	compsc_area_init(one, sizeof(one), &req);
	compsc_area_add_counter(a, 0, off, kind);
	return compsc_area_snapshot_counters(one, sizeof(one), p, &c, 1, &bad);
}

/*
 * Every 4-byte entry the policy @from allows, of each kind it allows
 * there: @from takes it, @to refuses it. The two VFs share no register a
 * guest may list, so an area written for one model never passes the
 * other's check.
 */
static void refuses_the_other(const struct compsc_policy *from,
			      const struct compsc_policy *to)
{
	u32 i, off, tried = 0, wrong = 0;
	u8 kind;

	for (i = 0; i < from->nr_allow; i++) {
		for (off = from->allow[i].start; off < from->allow[i].end;
		     off += 4) {
			for (kind = COMPSC_REG_PLAIN; kind <= COMPSC_REG_COUNTER_RC;
			     kind++) {
				if (!(from->allow[i].kind_mask &
				      COMPSC_KIND_BIT(kind)))
					continue;
				tried++;
				wrong += one_entry(from, off, kind) != 1;
				wrong += one_entry(to, off, kind) !=
					 -COMPSC_EREG_DENIED;
			}
		}
	}
	CHECK(tried > 0);
	CHECK_EQ(wrong, 0);
}

/* The header's macros name the registers ixgbevf's regs.h has there. */
static void offsets(void)
{
	u32 n;

	for (n = 0; n < COMPSC_82599VF_NR_QUEUES; n++) {
		CHECK_EQ(COMPSC_82599VF_RDH(n), ixgbevf_reg(n));
		CHECK_EQ(COMPSC_82599VF_TDH(n), ixgbevf_reg(8 + n));
		CHECK_EQ(COMPSC_82599VF_RDBAL(n) - COMPSC_82599VF_RDBAL(0),
			 0x40 * n);
		CHECK_EQ(COMPSC_82599VF_RXDCTL(n) - COMPSC_82599VF_RDBAL(n), 0x28);
		CHECK_EQ(COMPSC_82599VF_TXDCTL(n) - COMPSC_82599VF_TDBAL(n), 0x28);
		CHECK_EQ(COMPSC_82599VF_RDT(n) - COMPSC_82599VF_RDH(n), 8);
		CHECK_EQ(COMPSC_82599VF_TDT(n) - COMPSC_82599VF_TDH(n), 8);
	}
	CHECK_EQ(COMPSC_82599VF_VFGPRC, ixgbevf_ctrs[0]);
	CHECK_EQ(COMPSC_82599VF_VFGPTC, ixgbevf_ctrs[1]);
	CHECK_EQ(COMPSC_82599VF_VFGORC_LSB, ixgbevf_ctrs[2]);
	CHECK_EQ(COMPSC_82599VF_VFGOTC_LSB, ixgbevf_ctrs[3]);
	CHECK_EQ(COMPSC_82599VF_VFMPRC, ixgbevf_ctrs[4]);
	/* each 36-bit octet counter: the high word right after the low */
	CHECK_EQ(COMPSC_82599VF_VFGORC_MSB, COMPSC_82599VF_VFGORC_LSB + 4);
	CHECK_EQ(COMPSC_82599VF_VFGOTC_MSB, COMPSC_82599VF_VFGOTC_LSB + 4);
}

/* A BAR in memory: the queue stop clears all 16 enables, the restart sets them. */
static u64 clock_ns;
static u64 now(void *ctx) { (void)ctx; return clock_ns; }
static void relax(void *ctx) { (void)ctx; clock_ns += 10000; }

static void queue_stop(void)
{
	static u32 bar[COMPSC_82599VF_BAR0_SIZE / 4];
	const struct compsc_env env = { .now_ns = now, .relax = relax };
	struct compsc_host_dev d = { .dm = &compsc_82599vf_model,
				     .bar = bar, .env = &env };
	u32 i, q;

	for (i = 0; i < COMPSC_82599VF_NR_QCTL; i++)
		bar[compsc_82599vf_qctl[i] / 4] = COMPSC_82599VF_QDCTL_ENABLE | i;
	CHECK_EQ(compsc_host_queues_stop(&d), 0);
	for (i = 0; i < COMPSC_82599VF_NR_QCTL; i++) {
		q = compsc_82599vf_qctl[i];
		CHECK_EQ(bar[q / 4], i);
		CHECK_EQ(compsc_host_guest_rd(&d, q), i);
	}
	compsc_host_queues_restart(&d);
	for (i = 0; i < COMPSC_82599VF_NR_QCTL; i++)
		CHECK_EQ(bar[compsc_82599vf_qctl[i] / 4],
			 COMPSC_82599VF_QDCTL_ENABLE | i);
	compsc_host_kick(&d, true);
	CHECK_EQ(bar[COMPSC_82599VF_EIMS / 4], 7);
	CHECK_EQ(bar[COMPSC_82599VF_EICS / 4], 7);
}

static void model(void)
{
	const struct compsc_devmodel *m = &compsc_82599vf_model;
	u32 i;

	CHECK_EQ(m->vendor, 0x8086);
	CHECK_EQ(m->device, 0x10ed);
	CHECK(m->nr_qctl <= COMPSC_HOST_MAX_QCTL);
	CHECK(m->nr_stats <= COMPSC_HOST_MAX_STATS);
	CHECK_EQ(m->bar0_size, m->policy->bar_size[0]);
	for (i = 1; i < COMPSC_NR_BARS; i++)
		CHECK_EQ(m->policy->bar_size[i], 0);
	/* RX queues, then TX, in queue order, 0x40 apart */
	CHECK_EQ(m->nr_qctl, 16);
	for (i = 0; i < m->nr_qctl; i++)
		CHECK_EQ(m->qctl[i], (i < 8 ? 0x1028u : 0x2028u) + 0x40 * (i % 8));
	CHECK_EQ(m->nr_rings, 16);
	for (i = 0; i < m->nr_rings; i++) {
		CHECK_EQ(m->ring_base[i], (i % 2 ? 0x2000u : 0x1000u) +
					  0x40 * (i / 2));
		CHECK(m->ring_base[i] + m->ring_len + 4 <= m->bar0_size);
	}
	/* ixgbevf's largest ring, 4096 descriptors of 16 bytes, fits the mask */
	CHECK_EQ((4096u * 16u) & m->ring_len_mask, 4096u * 16u);
	/* host-emulated: the whole 32-bit counters, never an octet word */
	CHECK_EQ(m->nr_stats, 3);
	for (i = 0; i < m->nr_stats; i++) {
		CHECK(listed(m->stats[i], COMPSC_REG_COUNTER_RO));
		CHECK(m->stats[i] != COMPSC_82599VF_VFGORC_LSB &&
		      m->stats[i] != COMPSC_82599VF_VFGOTC_LSB);
	}
	CHECK(!listed(m->irq_set, COMPSC_REG_PLAIN));
	CHECK(!listed(m->irq_unmask, COMPSC_REG_PLAIN));
	CHECK(m->irq_unmask < m->bar0_size && m->flush < m->bar0_size);
	CHECK_EQ(m->flush, 0x0008);
	CHECK_EQ(m->irq_all, 7);
}

int main(void)
{
	struct compsc_area_hdr *a = fresh();
	struct compsc_counter_desc ctrs[16];
	struct compsc_reg regs[64];
	u32 bad = 0;

	add_ixgbevf_list(a, 0, 0);
	CHECK_EQ(compsc_area_check(a, sizeof(mem)), 0);
	CHECK_EQ(compsc_area_snapshot_regs(a, sizeof(mem), &compsc_82599vf_policy,
					   regs, 64, &bad), IXGBEVF_NR_REGS);
	CHECK_EQ(compsc_area_snapshot_counters(a, sizeof(mem),
					       &compsc_82599vf_policy, ctrs, 16,
					       &bad), IXGBEVF_NR_CTRS);
	/* one more than ixgbevf lists, even a good one twice */
	CHECK_EQ(compsc_area_add_reg(a, 0, ixgbevf_reg(0), 4, COMPSC_REG_PLAIN), 0);
	CHECK_EQ(compsc_area_snapshot_regs(a, sizeof(mem), &compsc_82599vf_policy,
					   regs, 64, &bad), -COMPSC_EREG_COUNT);
	CHECK_EQ(compsc_area_add_counter(a, 0, ixgbevf_ctrs[0],
					 COMPSC_REG_COUNTER_RO), IXGBEVF_NR_CTRS);
	CHECK_EQ(compsc_area_snapshot_counters(a, sizeof(mem),
					       &compsc_82599vf_policy, ctrs, 16,
					       &bad), -COMPSC_EREG_COUNT);
	accepts_exactly_the_list();
	offsets();
	refuses_the_other(&compsc_82576vf_policy, &compsc_82599vf_policy);
	refuses_the_other(&compsc_82599vf_policy, &compsc_82576vf_policy);

	refuse_reg(0, COMPSC_82599VF_CTRL, 4, COMPSC_REG_PLAIN, COMPSC_EREG_DENIED);
	refuse_reg(0, COMPSC_82599VF_VFMAILBOX, 4, COMPSC_REG_PLAIN,
		   COMPSC_EREG_DENIED);
	refuse_reg(0, COMPSC_82599VF_VFMBMEM, 4, COMPSC_REG_PLAIN,
		   COMPSC_EREG_DENIED);
	refuse_reg(0, COMPSC_82599VF_VFMBMEM + 60, 4, COMPSC_REG_PLAIN,
		   COMPSC_EREG_DENIED);
	refuse_reg(0, COMPSC_82599VF_EICR, 4, COMPSC_REG_PLAIN, COMPSC_EREG_DENIED);
	refuse_reg(0, COMPSC_82599VF_EICS, 4, COMPSC_REG_PLAIN, COMPSC_EREG_DENIED);
	refuse_reg(0, COMPSC_82599VF_EIMC, 4, COMPSC_REG_PLAIN, COMPSC_EREG_DENIED);
	refuse_reg(0, COMPSC_82599VF_EIMS, 4, COMPSC_REG_PLAIN, COMPSC_EREG_DENIED);
	/* routing and moderation: ixgbevf programs them again itself */
	refuse_reg(0, COMPSC_82599VF_EITR(0), 4, COMPSC_REG_PLAIN,
		   COMPSC_EREG_DENIED);
	refuse_reg(0, COMPSC_82599VF_IVAR(0), 4, COMPSC_REG_PLAIN,
		   COMPSC_EREG_DENIED);
	refuse_reg(0, COMPSC_82599VF_IVAR_MISC, 4, COMPSC_REG_PLAIN,
		   COMPSC_EREG_DENIED);
	/* a queue's other registers: the stride puts them next to the head */
	refuse_reg(0, COMPSC_82599VF_RDBAL(1), 4, COMPSC_REG_PLAIN,
		   COMPSC_EREG_DENIED);
	refuse_reg(0, COMPSC_82599VF_RXDCTL(0), 4, COMPSC_REG_PLAIN,
		   COMPSC_EREG_DENIED);
	refuse_reg(0, COMPSC_82599VF_RDT(7), 4, COMPSC_REG_PLAIN,
		   COMPSC_EREG_DENIED);
	refuse_reg(0, COMPSC_82599VF_RDH(8), 4, COMPSC_REG_PLAIN,
		   COMPSC_EREG_DENIED);	/* no queue 8 */
	refuse_reg(0, COMPSC_82599VF_BAR0_SIZE, 4, COMPSC_REG_PLAIN,
		   COMPSC_EREG_BAR);
	refuse_reg(0, COMPSC_82599VF_BAR0_SIZE - 4, 8, COMPSC_REG_PLAIN,
		   COMPSC_EREG_BAR);
	refuse_reg(3, 0x0, 4, COMPSC_REG_PLAIN, COMPSC_EREG_BAR); /* MSI-X BAR */
	refuse_reg(0, COMPSC_82599VF_RDH(0), 8, COMPSC_REG_PLAIN,
		   COMPSC_EREG_DENIED);
	refuse_reg(0, COMPSC_82599VF_RDH(0) + 2, 4, COMPSC_REG_PLAIN,
		   COMPSC_EREG_ALIGN);
	/* a counter listed as a plain register, a plain one as a counter */
	refuse_reg(0, COMPSC_82599VF_VFGPRC, 4, COMPSC_REG_PLAIN,
		   COMPSC_EREG_DENIED);
	refuse_reg(0, COMPSC_82599VF_TDH(3), 4, COMPSC_REG_COUNTER_RC,
		   COMPSC_EREG_DENIED);
	refuse_counter(COMPSC_82599VF_TDH(3), COMPSC_EREG_DENIED);
	refuse_counter(COMPSC_82599VF_EICR, COMPSC_EREG_DENIED);
	refuse_counter(COMPSC_82599VF_VFGPRC, COMPSC_EREG_OVERLAP);
	/* the octet counters: the low words count, the high words never do */
	refuse_counter(COMPSC_82599VF_VFGORC_MSB, COMPSC_EREG_DENIED);
	refuse_counter(COMPSC_82599VF_VFGOTC_MSB, COMPSC_EREG_DENIED);
	refuse_reg(0, COMPSC_82599VF_VFGORC_MSB, 4, COMPSC_REG_PLAIN,
		   COMPSC_EREG_DENIED);
	refuse_reg(0, COMPSC_82599VF_VFGOTC_MSB, 4, COMPSC_REG_COUNTER_RO,
		   COMPSC_EREG_DENIED);
	refuse_reg(0, COMPSC_82599VF_VFGORC_LSB, 8, COMPSC_REG_COUNTER_RO,
		   COMPSC_EREG_DENIED);	/* the pair as one 8-byte entry */
	refuse_reg(0, COMPSC_82599VF_VFGOTC_LSB, 8, COMPSC_REG_PLAIN,
		   COMPSC_EREG_DENIED);

	model();
	queue_stop();
	CHECK_DONE();
}
