/* Stream: a HOST_COUNTERS record round-trips with the counter entry rules (4-byte, counter kind, reserved zero); a malformed entry is refused at its offset; it is distinct from the guest's COUNTERS record. */
#include "check.h"
#include "stream_fixture.h"
#include <compsc/dev_82576vf.h>

static unsigned char buf[FX_MAX];

static void fill(struct compsc_rec_counter *c)
{
	unsigned int i;

	memset(c, 0, COMPSC_82576VF_NR_STATS * sizeof(*c));
	for (i = 0; i < COMPSC_82576VF_NR_STATS; i++) {
		c[i].offset = cpu_to_le32(compsc_82576vf_stats[i]);
		c[i].width = 4;
		c[i].kind = COMPSC_REG_COUNTER_RO;
		c[i].hw_final = cpu_to_le32(0xfffffff0u + i);
	}
}

static int build(const struct compsc_rec_counter *c, u32 len)
{
	struct compsc_stream_writer w;

	CHECK_EQ(compsc_stream_begin(&w, buf, sizeof(buf), &fx_id), 0);
	compsc_stream_add(&w, COMPSC_REC_COUNTERS, COMPSC_REC_F_MANDATORY, c,
			  sizeof(*c));
	compsc_stream_add(&w, COMPSC_REC_HOST_COUNTERS, COMPSC_REC_F_MANDATORY,
			  c, len);
	return compsc_stream_end(&w);
}

int main(void)
{
	struct compsc_rec_counter c[COMPSC_82576VF_NR_STATS], got;
	struct compsc_stream_view v;
	int len;
	u32 at;

	fill(c);
	len = build(c, sizeof(c));
	CHECK(len > 0);
	CHECK_EQ(compsc_stream_parse(buf, len, &fx_id, len, &v), 0);
	CHECK_EQ(v.rec[COMPSC_REC_HOST_COUNTERS].len, sizeof(c));
	CHECK_EQ(v.rec[COMPSC_REC_COUNTERS].len, sizeof(c[0]));
	memcpy(&got, v.rec[COMPSC_REC_HOST_COUNTERS].data + 8 * sizeof(got),
	       sizeof(got));
	CHECK_EQ(le32_to_cpu(got.offset), 0x0f50);	/* VFGOTLBC, last */
	CHECK_EQ(le32_to_cpu(got.hw_final), 0xfffffff8u);

	/* the writer refuses what the parser would refuse */
	c[3].width = 8;
	CHECK_EQ(build(c, sizeof(c)), -COMPSC_EINVAL);
	fill(c);
	CHECK_EQ(build(c, sizeof(c) - 1), -COMPSC_EINVAL);

	/* a bad entry under a valid CRC: refused at that entry */
	fill(c);
	len = build(c, sizeof(c));
	CHECK_EQ(compsc_stream_parse(buf, len, &fx_id, len, &v), 0);
	at = (u32)(v.rec[COMPSC_REC_HOST_COUNTERS].data - buf) + 2 * sizeof(got);
	buf[at + offsetof(struct compsc_rec_counter, rsvd)] = 1;
	fx_reseal(buf, len);
	CHECK_EQ(compsc_stream_parse(buf, len, &fx_id, len, &v),
		 -COMPSC_EMALFORMED);
	CHECK_EQ(v.err_offset, at);
	CHECK_DONE();
}
