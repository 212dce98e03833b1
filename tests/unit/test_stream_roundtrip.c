/* Stream round-trip: what the writer wrote parses back byte-exact, and re-writing the view gives the same bytes. */
#include "check.h"
#include "stream_fixture.h"

static unsigned char buf[FX_MAX], again[FX_MAX];

/* Re-serialise a parsed view with the writer, records in stream order. */
static int rewrite(const struct compsc_stream_view *v, unsigned char *out)
{
	struct compsc_stream_writer w;
	const struct compsc_stream_rec *order[COMPSC_REC_NR_KNOWN];
	u16 types[COMPSC_REC_NR_KNOWN];
	int n = 0;

	for (u16 t = 1; t < COMPSC_REC_NR_KNOWN; t++) {
		int i = n++;

		if (!v->rec[t].data) {
			n--;
			continue;
		}
		while (i > 0 && order[i - 1]->data > v->rec[t].data) {
			order[i] = order[i - 1];
			types[i] = types[i - 1];
			i--;
		}
		order[i] = &v->rec[t];
		types[i] = t;
	}
	compsc_stream_begin(&w, out, FX_MAX, &v->ident);
	for (int i = 0; i < n; i++)
		compsc_stream_add(&w, types[i], order[i]->flags, order[i]->data,
				  order[i]->len);
	return compsc_stream_end(&w);
}

static void check_fixture(void)
{
	struct compsc_stream_view v;
	int len = fx_build(buf, sizeof(buf));

	CHECK_EQ(len, 344);
	CHECK_EQ(compsc_stream_parse(buf, (u32)len, &fx_id, FX_MAX, &v), 0);
	CHECK_EQ(v.major, COMPSC_STREAM_MAJOR);
	CHECK_EQ(v.minor, COMPSC_STREAM_MINOR);
	CHECK_EQ(v.total_len, len);
	CHECK_EQ(v.nr_unknown, 0);
	CHECK(!memcmp(&v.ident, &fx_id, sizeof(fx_id)));
	CHECK_EQ(v.rec[COMPSC_REC_REGS].len, sizeof(fx_regs));
	CHECK_EQ(v.rec[COMPSC_REC_REGS].flags, COMPSC_REC_F_MANDATORY);
	CHECK(!memcmp(v.rec[COMPSC_REC_REGS].data, fx_regs, sizeof(fx_regs)));
	CHECK(!memcmp(v.rec[COMPSC_REC_COUNTERS].data, fx_ctrs, sizeof(fx_ctrs)));
	CHECK(!memcmp(v.rec[COMPSC_REC_PF_VF].data, &fx_pfvf, sizeof(fx_pfvf)));
	CHECK_EQ(v.rec[COMPSC_REC_DRIVER].len, sizeof(fx_drv));
	CHECK(!memcmp(v.rec[COMPSC_REC_DRIVER].data, fx_drv, sizeof(fx_drv)));
	CHECK_EQ(v.rec[COMPSC_REC_END].len, 8);
	/* padding after the 13-byte DRIVER payload is zero */
	CHECK(!buf[FX_OFF_DRV + 8 + 13] && !buf[FX_OFF_DRV + 8 + 15]);
	CHECK_EQ(rewrite(&v, again), len);
	CHECK(!memcmp(buf, again, (size_t)len));
}

/* Random record sets, sizes and orders; seed printed for replay. */
static void check_random(void)
{
	uint64_t s = test_seed("test_stream_roundtrip");
	unsigned char drv[600];

	for (int round = 0; round < 500; round++) {
		struct compsc_stream_writer w;
		struct compsc_stream_view v;
		struct compsc_ident id = { (u16)test_rand(&s), (u16)test_rand(&s),
					   (u16)test_rand(&s), (u16)test_rand(&s) };
		u32 dlen = (u32)(test_rand(&s) % sizeof(drv)), nregs = test_rand(&s) % 4;
		int drv_first = (int)(test_rand(&s) & 1), len;

		for (u32 i = 0; i < dlen; i++)
			drv[i] = (unsigned char)test_rand(&s);
		compsc_stream_begin(&w, buf, sizeof(buf), &id);
		if (drv_first)
			compsc_stream_add(&w, COMPSC_REC_DRIVER, 0, drv, dlen);
		compsc_stream_add(&w, COMPSC_REC_REGS, 0, fx_regs,
				  nregs * (u32)sizeof(fx_regs[0]));
		if (!drv_first)
			compsc_stream_add(&w, COMPSC_REC_DRIVER,
					  COMPSC_REC_F_MANDATORY, drv, dlen);
		len = compsc_stream_end(&w);
		CHECK(len > 0 && len % 8 == 0);
		CHECK_EQ(compsc_stream_parse(buf, (u32)len, &id, (u32)len, &v), 0);
		CHECK_EQ(v.rec[COMPSC_REC_DRIVER].len, dlen);
		CHECK(!memcmp(v.rec[COMPSC_REC_DRIVER].data, drv, dlen));
		CHECK_EQ(v.rec[COMPSC_REC_REGS].len, nregs * sizeof(fx_regs[0]));
		CHECK_EQ(rewrite(&v, again), len);
		CHECK(!memcmp(buf, again, (size_t)len));
	}
}

int main(void)
{
	check_fixture();
	check_random();
	CHECK_DONE();
}
