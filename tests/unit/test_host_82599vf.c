/*
 * The host side on an 82599 VF model, end to end on a BAR in memory, with
 * the list a CompSC ixgbevf registers: take stops all 16 queues, save
 * carries the 16 ring heads as the stopped device holds them, the five
 * counters as the guest reads them and the three host-emulated statistics;
 * an 82576 host refuses those statistics and an 82576 identity the stream;
 * a destination gives the heads and counters to its area; a given-back
 * source has its queues running again.
 */
#include <compsc/dev_82576vf.h>
#include <compsc/dev_82599vf.h>
#include "check.h"

#define NQ	COMPSC_82599VF_NR_QUEUES

/* ixgbevf's counters, in its order (drivers/ixgbevf/0003) */
static const u32 ctrs[] = {
	COMPSC_82599VF_VFGPRC, COMPSC_82599VF_VFGPTC,
	COMPSC_82599VF_VFGORC_LSB, COMPSC_82599VF_VFGOTC_LSB,
	COMPSC_82599VF_VFMPRC,
};

#define NC	(sizeof(ctrs) / sizeof(ctrs[0]))

static const struct compsc_ident id_82599 = {
	COMPSC_82599VF_VENDOR, COMPSC_82599VF_DEVICE, 0x8086, 0,
};

static const struct compsc_ident id_82576 = {
	COMPSC_82576VF_VENDOR, COMPSC_82576VF_DEVICE, 0x8086, 0,
};

struct host {
	u32 bar[COMPSC_82599VF_BAR0_SIZE / 4];
	struct compsc_area_hdr *area;
	struct compsc_host_area a;
	struct compsc_host_dev d;
	struct compsc_env env;
	u64 clock;
};

static struct host src, dst;
static u8 stream[COMPSC_HOST_STREAM_MAX];
static struct compsc_host_save save;
static struct compsc_stream_view view;

static u64 now(void *ctx)
{
	return ((struct host *)ctx)->clock;
}

static void relax(void *ctx)
{
	((struct host *)ctx)->clock += 20000;
}

static void fence(void *ctx)
{
	(void)ctx;
}

static u32 rd(struct host *h, u32 off)
{
	return h->bar[off / 4];
}

static void wr(struct host *h, u32 off, u32 v)
{
	h->bar[off / 4] = v;
}

/* The guest's area with ixgbevf's list, checked against the 82599 policy. */
static void setup(struct host *h)
{
	struct compsc_layout_req req = { .nr_cpus = 2, .reg_max = 2 * NQ,
					 .counter_max = NC, .replay_recs = 2 };
	u32 len = compsc_area_size(&req), bad = 0, q, i;

	memset(h, 0, sizeof(*h));
	h->area = malloc(len);
	if (!h->area || compsc_area_init(h->area, len, &req))
		abort();
	for (q = 0; q < NQ; q++)
		CHECK_EQ(compsc_area_add_reg(h->area, 0, COMPSC_82599VF_RDH(q), 4,
					     COMPSC_REG_PLAIN), 0);
	for (q = 0; q < NQ; q++)
		CHECK_EQ(compsc_area_add_reg(h->area, 0, COMPSC_82599VF_TDH(q), 4,
					     COMPSC_REG_PLAIN), 0);
	for (i = 0; i < NC; i++)
		CHECK_EQ(compsc_area_add_counter(h->area, 0, ctrs[i],
						 COMPSC_REG_COUNTER_RO), (int)i);
	h->env = (struct compsc_env){ .ctx = h, .now_ns = now, .relax = relax,
				      .fence_readers = fence };
	h->d.dm = &compsc_82599vf_model;
	h->d.bar = h->bar;
	h->d.env = &h->env;
	h->a.va = h->area;
	h->a.size = len;
	h->a.gpa = 0x100000;
	CHECK_EQ(compsc_host_area_check(&h->a, &compsc_82599vf_policy, &bad), 0);
}

/*
 * Running: every queue enabled, each head somewhere else, the octet
 * counters' low words about to carry into their high words.
 */
static void running(struct host *h)
{
	u32 q;

	for (q = 0; q < NQ; q++) {
		wr(h, COMPSC_82599VF_RXDCTL(q), COMPSC_82599VF_QDCTL_ENABLE | q);
		wr(h, COMPSC_82599VF_TXDCTL(q), COMPSC_82599VF_QDCTL_ENABLE | 0x80 | q);
		wr(h, COMPSC_82599VF_RDH(q), 10 + q);
		wr(h, COMPSC_82599VF_TDH(q), 500 + q);
	}
	wr(h, COMPSC_82599VF_VFGPRC, 1000);
	wr(h, COMPSC_82599VF_VFGPTC, 2000);
	wr(h, COMPSC_82599VF_VFMPRC, 30);
	wr(h, COMPSC_82599VF_VFGORC_LSB, 0xffffff00u);
	wr(h, COMPSC_82599VF_VFGORC_MSB, 0x3);
	wr(h, COMPSC_82599VF_VFGOTC_LSB, 0xfffffff0u);
	wr(h, COMPSC_82599VF_VFGOTC_MSB, 0xf);
}

/* Taken: all 16 queues stopped, their other bits kept; the heads untouched. */
static void check_taken(void)
{
	u32 q;

	CHECK(src.d.stopped);
	for (q = 0; q < NQ; q++) {
		CHECK_EQ(rd(&src, COMPSC_82599VF_RXDCTL(q)), q);
		CHECK_EQ(rd(&src, COMPSC_82599VF_TXDCTL(q)), 0x80 | q);
		CHECK_EQ(rd(&src, COMPSC_82599VF_RDH(q)), 10 + q);
	}
}

/* The stream: heads in list order, counters as the guest read them. */
static void check_stream(const struct compsc_stream_view *v)
{
	const struct compsc_stream_rec *r = &v->rec[COMPSC_REC_REGS];
	struct compsc_rec_counter c;
	struct compsc_rec_reg g;
	u32 i, off = 0;
	u64 value;

	/* 4-byte heads: 12 bytes an entry, no padding */
	CHECK_EQ(r->len, 2 * NQ * (sizeof(g) + 4));
	for (i = 0; i < 2 * NQ && off < r->len; i++) {
		off = compsc_rec_reg_get(r->data, r->len, off, &g, &value);
		CHECK(off != 0);
		CHECK_EQ(le32_to_cpu(g.offset), i < NQ ? COMPSC_82599VF_RDH(i) :
			 COMPSC_82599VF_TDH(i - NQ));
		CHECK_EQ(value, i < NQ ? 10 + i : 500 + i - NQ);
	}
	CHECK_EQ(i, 2 * NQ);
	r = &v->rec[COMPSC_REC_COUNTERS];
	CHECK_EQ(r->len, NC * sizeof(c));
	memcpy(&c, r->data, sizeof(c));
	CHECK_EQ(le32_to_cpu(c.hw_final), 1000u + 7u);	/* with this host's base */
	memcpy(&c, r->data + 2 * sizeof(c), sizeof(c));
	CHECK_EQ(le32_to_cpu(c.offset), COMPSC_82599VF_VFGORC_LSB);
	CHECK_EQ(le32_to_cpu(c.hw_final), 0xffffff00u);	/* the low word only */
	r = &v->rec[COMPSC_REC_HOST_COUNTERS];
	CHECK_EQ(r->len, COMPSC_82599VF_NR_STATS * sizeof(c));
	CHECK_EQ(compsc_host_stats_check(&compsc_82599vf_model, r), 0);
	/* an 82576 host has nine others: it refuses them whole */
	CHECK_EQ(compsc_host_stats_check(&compsc_82576vf_model, r),
		 -COMPSC_EMALFORMED);
}

/* The destination's area: what the source's device held. */
static void check_given(void)
{
	__le64 *saved = compsc_area_saved(dst.area);
	struct compsc_counter_desc *c = compsc_area_counters(dst.area);
	u32 base[COMPSC_82599VF_NR_STATS], i;

	for (i = 0; i < NQ; i++) {
		CHECK_EQ(le64_to_cpu(saved[i]), 10 + i);
		CHECK_EQ(le64_to_cpu(saved[NQ + i]), 500 + i);
	}
	CHECK_EQ(c[0].hw_final, 1007);
	CHECK_EQ(c[1].hw_final, 2000);
	CHECK_EQ(c[2].hw_final, 0xffffff00u);
	CHECK_EQ(c[3].hw_final, 0xfffffff0u);
	CHECK_EQ(c[4].hw_final, 30);
	/* the destination's fresh VF continues the guest's statistics */
	wr(&dst, COMPSC_82599VF_VFGPRC, 3);
	compsc_host_stats_base(&dst.d, &view.rec[COMPSC_REC_HOST_COUNTERS], base);
	dst.d.stat_base = base;
	CHECK_EQ(compsc_host_guest_rd(&dst.d, COMPSC_82599VF_VFGPRC), 1007);
	CHECK_EQ(compsc_host_guest_rd(&dst.d, COMPSC_82599VF_VFGPTC), 2000);
	CHECK_EQ(compsc_host_guest_rd(&dst.d, COMPSC_82599VF_VFMPRC), 30);
	/* the octet words have no base: a stock ixgbevf reads them raw */
	CHECK_EQ(compsc_host_guest_rd(&dst.d, COMPSC_82599VF_VFGORC_LSB), 0);
}

int main(void)
{
	struct compsc_rec_counter stats[COMPSC_82599VF_NR_STATS];
	static uint64_t replay[2 * 65536 / 8];
	const u32 srcbase[COMPSC_82599VF_NR_STATS] = { 7, 0, 0 };
	int len;
	u32 q;

	setup(&src);
	setup(&dst);
	running(&src);
	src.d.stat_base = srcbase;	/* a second hop: this host emulates them */
	CHECK_EQ(compsc_host_take(&src.a, &src.d, 1000000000ull), 0);
	check_taken();
	compsc_host_read_stats(&src.d, stats);
	save.stats = stats;
	save.nr_stats = COMPSC_82599VF_NR_STATS;
	save.replay = (u8 *)replay;
	len = compsc_host_save(&src.a, &src.d, &id_82599, &save, stream,
			       sizeof(stream));
	CHECK(len > 0);
	if (len <= 0)
		CHECK_DONE();

	/* a destination that is an 82576 VF refuses the stream */
	CHECK_EQ(compsc_host_load(&dst.a, stream, (u32)len, &id_82576, &view),
		 -COMPSC_EWRONG_DEVICE);
	CHECK_EQ(compsc_writer_acquire(compsc_area_ctl(dst.area),
				       compsc_area_slots(dst.area),
				       dst.area->nr_slots, &dst.env, 1000), 0);
	CHECK_EQ(compsc_host_load(&dst.a, stream, (u32)len, &id_82599, &view), 0);
	check_stream(&view);
	compsc_host_give(&dst.a, &view, false, true);
	check_given();

	/* the source keeps its device after all: every queue runs again */
	CHECK_EQ(compsc_host_giveback(&src.a, &src.d, -COMPSC_ETIMEDOUT), 0);
	for (q = 0; q < NQ; q++) {
		CHECK_EQ(rd(&src, COMPSC_82599VF_RXDCTL(q)),
			 COMPSC_82599VF_QDCTL_ENABLE | q);
		CHECK_EQ(rd(&src, COMPSC_82599VF_TXDCTL(q)),
			 COMPSC_82599VF_QDCTL_ENABLE | 0x80 | q);
	}
	free(src.area);
	free(dst.area);
	CHECK_DONE();
}
