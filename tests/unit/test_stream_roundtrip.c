/* Stream round-trip: what the writer wrote parses back byte-exact, re-writing the view gives the same bytes, and REGS and PF_VF entries encode and decode as abi.h lays them out. */
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

/* fx_regs' bytes, entry by entry, are what the encoder writes and the decoder reads. */
static void check_reg_entries(void)
{
	unsigned char out[3 * COMPSC_REC_REG_MAX];
	struct compsc_rec_reg r;
	u32 n = 0, off = 0, i;
	u64 value;

	for (i = 0; i < 3; i++)
		n += compsc_rec_reg_put(out + n, &fx_reg_desc[i], fx_reg_val[i]);
	CHECK_EQ(n, sizeof(fx_regs));
	CHECK(!memcmp(out, fx_regs, sizeof(fx_regs)));
	for (i = 0; i < 3; i++) {
		off = compsc_rec_reg_get(fx_regs, sizeof(fx_regs), off, &r, &value);
		CHECK(!memcmp(&r, &fx_reg_desc[i], sizeof(r)));
		CHECK_EQ(value, fx_reg_val[i]);
	}
	CHECK_EQ(off, sizeof(fx_regs));
	CHECK_EQ(compsc_rec_reg_get(fx_regs, sizeof(fx_regs), off, &r, &value), 0);
	r.width = 2;
	CHECK_EQ(compsc_rec_reg_put(out, &r, 1), 0);
}

static void check_fixture(void)
{
	struct compsc_pf_vf_state pf;
	struct compsc_stream_view v;
	int len = fx_build(buf, sizeof(buf));

	/* header 32, REGS 8 + 40, COUNTERS 8 + 24, PF_VF 8 + 32, DRIVER 8 + 16, END 16 */
	CHECK_EQ(len, 192);
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
	CHECK_EQ(v.rec[COMPSC_REC_PF_VF].len, FX_PFVF_LEN);
	CHECK_EQ(compsc_pf_vf_unpack(v.rec[COMPSC_REC_PF_VF].data,
				     v.rec[COMPSC_REC_PF_VF].len, &pf), 0);
	CHECK(!memcmp(&pf, &fx_pfvf, sizeof(pf)));
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
	static const u32 reg_prefix[4] = { 0, FX_REG1, FX_REG2, sizeof(fx_regs) };
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
				  reg_prefix[nregs]);
		if (!drv_first)
			compsc_stream_add(&w, COMPSC_REC_DRIVER,
					  COMPSC_REC_F_MANDATORY, drv, dlen);
		len = compsc_stream_end(&w);
		CHECK(len > 0 && len % 8 == 0);
		CHECK_EQ(compsc_stream_parse(buf, (u32)len, &id, (u32)len, &v), 0);
		CHECK_EQ(v.rec[COMPSC_REC_DRIVER].len, dlen);
		CHECK(!memcmp(v.rec[COMPSC_REC_DRIVER].data, drv, dlen));
		CHECK_EQ(v.rec[COMPSC_REC_REGS].len, reg_prefix[nregs]);
		CHECK_EQ(rewrite(&v, again), len);
		CHECK(!memcmp(buf, again, (size_t)len));
	}
}

int main(void)
{
	check_reg_entries();
	check_fixture();
	check_random();
	CHECK_DONE();
}
