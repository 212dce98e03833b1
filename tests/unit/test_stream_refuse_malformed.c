/* Stream refusal: bad framing, reserved bits, padding, END placement, payload sizes and contents give EMALFORMED. */
#include "check.h"
#include "stream_fixture.h"

static unsigned char good[FX_MAX], buf[FX_MAX + 64];
static u32 good_len;

/* Parse @buf as edited (resealed if asked); expect EMALFORMED at @off. */
static void expect_malformed(u32 len, int reseal, u32 off, int line)
{
	struct compsc_stream_view v;
	int err;

	if (reseal)
		fx_reseal(buf, len);
	err = compsc_stream_parse(buf, len, &fx_id, FX_MAX + 64, &v);
	if (err != -COMPSC_EMALFORMED || v.err_offset != off)
		fprintf(stderr, "case at line %d: err %d offset %u\n", line,
			err, v.err_offset);
	CHECK_EQ(err, -COMPSC_EMALFORMED);
	CHECK_EQ(v.err_offset, off);
	memcpy(buf, good, sizeof(good));
}

/* Edit a record header of the fixture copy in @buf. */
static void set_rec(u32 off, int type, int flags, u32 len)
{
	struct compsc_rec_hdr r = fx_rec(buf, off);

	if (type >= 0)
		r.type = (u16)type;
	if (flags >= 0)
		r.flags = (u16)flags;
	if (len)
		r.len = len;
	fx_set_rec(buf, off, &r);
}

static void header_cases(void)
{
	struct compsc_stream_hdr h = fx_hdr(buf);

	h.flags = 1;
	fx_set_hdr(buf, &h);
	expect_malformed(good_len, 1, 12, __LINE__);
	h = fx_hdr(buf);
	h.rsvd[1] = 0x80000000u;
	fx_set_hdr(buf, &h);
	expect_malformed(good_len, 1, 24, __LINE__);
	h = fx_hdr(buf);
	h.total_len = good_len + 4;	/* not a multiple of 8 */
	fx_set_hdr(buf, &h);
	expect_malformed(good_len + 4, 0, 8, __LINE__);
	h = fx_hdr(buf);
	h.total_len = 40;		/* shorter than header + END */
	fx_set_hdr(buf, &h);
	expect_malformed(40, 0, 8, __LINE__);
	expect_malformed(good_len + 8, 0, good_len, __LINE__); /* trailing */
}

static void framing_cases(void)
{
	u32 end = good_len - 16;

	buf[FX_OFF_DRV + 8 + 13] = 1;	/* padding after the DRIVER payload */
	expect_malformed(good_len, 1, FX_OFF_DRV + 8 + 13, __LINE__);
	set_rec(FX_OFF_CTRS, -1, 0x8000, 0);	/* reserved record flag */
	expect_malformed(good_len, 1, FX_OFF_CTRS, __LINE__);
	set_rec(FX_OFF_DRV, COMPSC_REC_END, -1, 16); /* END before the end */
	expect_malformed(good_len, 1, FX_OFF_DRV, __LINE__);
	set_rec(end, 9, -1, 0);			/* last record is not END */
	expect_malformed(good_len, 1, end, __LINE__);
	set_rec(end, -1, COMPSC_REC_F_MANDATORY, 0); /* END with flags */
	expect_malformed(good_len, 1, end, __LINE__);
	buf[good_len - 1] = 0x10;		/* END's reserved word */
	expect_malformed(good_len, 0, good_len - 4, __LINE__);
	/*
	 * payload size rules: REGS a multiple of 4 (the last value's high
	 * bytes, zero, become padding), PF_VF 24 to 148 bytes, even
	 */
	set_rec(FX_OFF_REGS, -1, -1, sizeof(fx_regs) - 2);
	expect_malformed(good_len, 1, FX_OFF_REGS, __LINE__);
	set_rec(FX_OFF_DRV, COMPSC_REC_PF_VF, -1, 0);
	set_rec(FX_OFF_PFVF, COMPSC_REC_DRIVER, -1, 0);
	expect_malformed(good_len, 1, FX_OFF_DRV, __LINE__);
}

static void content_cases(void)
{
	u32 reg1 = FX_OFF_REGS + 8 + FX_REG1, ctr0 = FX_OFF_CTRS + 8;
	u32 reg2 = FX_OFF_REGS + 8 + FX_REG2;
	u32 pf = FX_OFF_PFVF + 8;

	buf[reg1 + offsetof(struct compsc_rec_reg, width)] = 2;
	expect_malformed(good_len, 1, reg1, __LINE__);
	buf[reg1 + offsetof(struct compsc_rec_reg, kind)] = 9;
	expect_malformed(good_len, 1, reg1, __LINE__);
	buf[reg1 + offsetof(struct compsc_rec_reg, bar)] = 6;
	expect_malformed(good_len, 1, reg1, __LINE__);
	buf[reg1 + offsetof(struct compsc_rec_reg, offset)] = 4; /* 8-wide */
	expect_malformed(good_len, 1, reg1, __LINE__);
	/* the last entry made 8-wide runs past the record */
	buf[reg2 + offsetof(struct compsc_rec_reg, width)] = 8;
	expect_malformed(good_len, 1, reg2, __LINE__);
	/* a record that ends inside an entry (its length still a multiple of 4) */
	set_rec(FX_OFF_REGS, -1, -1, sizeof(fx_regs) - 4);
	buf[FX_OFF_REGS + 8 + sizeof(fx_regs) - 4] = 0;	/* now padding */
	expect_malformed(good_len, 1, reg2, __LINE__);
	buf[ctr0 + offsetof(struct compsc_rec_counter, rsvd)] = 1;
	expect_malformed(good_len, 1, ctr0, __LINE__);
	buf[ctr0 + offsetof(struct compsc_rec_counter, kind)] = COMPSC_REG_PLAIN;
	expect_malformed(good_len, 1, ctr0, __LINE__);
	buf[pf + offsetof(struct compsc_pf_vf_state, nr_vlans)] = 33;
	expect_malformed(good_len, 1, pf, __LINE__);
	buf[pf + offsetof(struct compsc_pf_vf_state, link_state)] = 3;
	expect_malformed(good_len, 1, pf, __LINE__);
	buf[pf + offsetof(struct compsc_pf_vf_state, flags) + 1] = 0x80;
	expect_malformed(good_len, 1, pf, __LINE__);
	/* counts that do not size the record: one hash fewer than it carries */
	buf[pf + offsetof(struct compsc_pf_vf_state, nr_mc)] = 0;
	expect_malformed(good_len, 1, pf, __LINE__);
}

int main(void)
{
	struct compsc_stream_writer w;
	unsigned char bad[12];
	int len = fx_build(good, sizeof(good));

	CHECK(len > 0);
	good_len = (u32)len;
	memcpy(buf, good, sizeof(good));
	header_cases();
	framing_cases();
	content_cases();
	/* the writer refuses the same contents instead of writing them */
	memcpy(bad, fx_regs, sizeof(bad));
	bad[offsetof(struct compsc_rec_reg, width)] = 2;
	compsc_stream_begin(&w, buf, FX_MAX, &fx_id);
	CHECK_EQ(compsc_stream_add(&w, COMPSC_REC_REGS, 0, bad, sizeof(bad)),
		 -COMPSC_EINVAL);
	compsc_stream_begin(&w, buf, FX_MAX, &fx_id);
	CHECK_EQ(compsc_stream_add(&w, COMPSC_REC_REGS, 0, fx_regs, 17),
		 -COMPSC_EINVAL);
	compsc_stream_begin(&w, buf, FX_MAX, &fx_id);
	CHECK_EQ(compsc_stream_add(&w, COMPSC_REC_REGS, 0, fx_regs,
				   sizeof(fx_regs) - 4), -COMPSC_EINVAL);
	CHECK_DONE();
}
