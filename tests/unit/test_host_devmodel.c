/*
 * The per-model register rules: host-emulated statistics (what the source
 * sends, what a destination accepts, the base that continues them, the
 * guest's counters saved as it read them on a second hop), the
 * interrupt kick, the ring spans for dirty tracking, the dirty-logging
 * round; and the 82576 VF model is consistent with its own policy.
 */
#include <compsc/dev_82576vf.h>
#include "check.h"
#include "host_fixture.h"

static struct hx src, dst;

static void stats(void)
{
	struct compsc_rec_counter rec[2];
	struct compsc_stream_rec r = { .data = (const u8 *)rec,
				       .len = sizeof(rec) };
	u32 base[2], srcbase[2] = { 10, 0xfffffff0u };

	hx_setup(&src);
	hx_setup(&dst);
	hx_running(&src);
	src.d.stat_base = srcbase;
	compsc_host_read_stats(&src.d, rec);
	CHECK_EQ(rec[0].offset, HX_GPRC);
	CHECK_EQ(rec[0].hw_final, 1010);
	CHECK_EQ(rec[1].hw_final, 2000u - 16u);	/* wraps as the register */
	CHECK_EQ(compsc_host_stats_check(&hx_model, &r), 0);
	hx_wr(&dst, HX_GPRC, 3);
	hx_wr(&dst, HX_GPTC, 4000);
	compsc_host_stats_base(&dst.d, &r, base);
	CHECK_EQ((u32)(hx_rd(&dst, HX_GPRC) + base[0]), 1010);
	CHECK_EQ((u32)(hx_rd(&dst, HX_GPTC) + base[1]), 2000u - 16u);
	rec[1].offset = HX_GPRC + 8;		/* another host's list */
	CHECK_EQ(compsc_host_stats_check(&hx_model, &r), -COMPSC_EMALFORMED);
	rec[1].offset = HX_GPTC;
	r.len -= 1;
	CHECK_EQ(compsc_host_stats_check(&hx_model, &r), -COMPSC_EMALFORMED);
	hx_teardown(&src);
	hx_teardown(&dst);
}

/*
 * A second hop: this host emulates the statistics (it was a destination),
 * so the guest read GPRC with the base added; the guest's listed counters
 * are saved as the guest read them, or its total jumps by 2^32 - base.
 */
static void second_hop(void)
{
	static u8 stream[COMPSC_HOST_STREAM_MAX];
	static struct compsc_host_save save;
	struct compsc_stream_view v;
	struct compsc_rec_counter c;
	u32 srcbase[2] = { 0xfffff000u, 7 };
	int len;

	hx_setup(&src);
	hx_running(&src);
	src.d.stat_base = srcbase;
	CHECK_EQ(compsc_host_guest_rd(&src.d, HX_GPRC), 1000u + 0xfffff000u);
	CHECK_EQ(compsc_host_guest_rd(&src.d, HX_RDH), 37);	/* no base */
	len = hx_take_save(&src, stream, sizeof(stream), &save);
	CHECK(len > 0);
	CHECK_EQ(compsc_stream_parse(stream, (u32)len, &hx_id, sizeof(stream), &v), 0);
	memcpy(&c, v.rec[COMPSC_REC_COUNTERS].data, sizeof(c));
	CHECK_EQ(c.offset, HX_GPRC);
	CHECK_EQ(c.hw_final, 1000u + 0xfffff000u);
	memcpy(&c, v.rec[COMPSC_REC_COUNTERS].data + sizeof(c), sizeof(c));
	CHECK_EQ(c.hw_final, 2007);
	hx_teardown(&src);
}

static void kick_rings_dirty(void)
{
	struct compsc_area_ctl *ctl;
	u64 base[2], len[2];

	hx_setup(&src);
	compsc_host_kick(&src.d, false);
	CHECK_EQ(hx_rd(&src, HX_EICS), 7);
	CHECK_EQ(hx_rd(&src, HX_EIMS), 0);
	compsc_host_kick(&src.d, true);
	CHECK_EQ(hx_rd(&src, HX_EIMS), 7);
	CHECK_EQ(compsc_host_ring_spans(&src.d, base, len, 2), 0);
	hx_wr(&src, HX_RDBAL, 0x5000);
	hx_wr(&src, HX_RDBAL + 4, 0x1);
	hx_wr(&src, HX_RDBAL + 8, 0x1000 | 0x7f);	/* low bits not length */
	CHECK_EQ(compsc_host_ring_spans(&src.d, base, len, 2), 1);
	CHECK_EQ(base[0], 0x100005000ull);
	CHECK_EQ(len[0], 0x1000);
	CHECK_EQ(compsc_host_ring_spans(&src.d, base, len, 0), 0);
	ctl = compsc_area_ctl(src.area);
	compsc_host_dirty_round(ctl, true);
	CHECK_EQ(ctl->dirty_gen, 1);
	CHECK(ctl->flags & COMPSC_F_DIRTY_LOG);
	compsc_host_dirty_round(ctl, true);
	CHECK_EQ(ctl->dirty_gen, 2);
	compsc_host_dirty_round(ctl, false);
	CHECK_EQ(ctl->dirty_gen, 2);
	CHECK(!(ctl->flags & COMPSC_F_DIRTY_LOG));
	hx_teardown(&src);
}

/* Would the model's policy accept @off as an entry of @kind? */
static int allowed(u32 off, u8 kind)
{
	const struct compsc_policy *p = compsc_82576vf_model.policy;
	u32 i;

	for (i = 0; i < p->nr_allow; i++)
		if (off >= p->allow[i].start && off + 4 <= p->allow[i].end &&
		    (p->allow[i].kind_mask & COMPSC_KIND_BIT(kind)))
			return 1;
	return 0;
}

static void model_82576vf(void)
{
	const struct compsc_devmodel *m = &compsc_82576vf_model;
	u32 i;

	CHECK(m->nr_qctl <= COMPSC_HOST_MAX_QCTL);
	CHECK(m->nr_stats <= COMPSC_HOST_MAX_STATS);
	CHECK_EQ(m->bar0_size, m->policy->bar_size[0]);
	for (i = 0; i < m->nr_qctl; i++)	/* the guest lists them */
		CHECK(allowed(m->qctl[i], COMPSC_REG_PLAIN));
	for (i = 0; i < m->nr_stats; i++)
		CHECK(allowed(m->stats[i], COMPSC_REG_COUNTER_RO));
	for (i = 0; i < m->nr_rings; i++)
		CHECK(m->ring_base[i] + m->ring_len + 4 <= m->bar0_size);
	CHECK(!allowed(COMPSC_82576VF_EICS, COMPSC_REG_PLAIN));
	CHECK(m->irq_unmask < m->bar0_size && m->flush < m->bar0_size);
}

int main(void)
{
	stats();
	second_hop();
	kick_rings_dirty();
	model_82576vf();
	CHECK_DONE();
}
