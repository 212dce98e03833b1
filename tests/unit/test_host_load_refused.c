/*
 * What the host reads from a hostile guest or a bad stream is refused
 * before anything is written: a destination whose lists differ
 * (EMISMATCH), a flipped byte, a stream for another device, a truncated
 * one; a replay log the guest scribbled on fails the save; a register
 * list the guest rewrites after the check is not what gets saved (the
 * checked copies are).
 */
#include "check.h"
#include "host_fixture.h"

static u8 stream[COMPSC_HOST_STREAM_MAX];
static struct compsc_host_save save;
static struct compsc_stream_view view;
static struct hx src, dst;

static int fresh_stream(void)
{
	hx_setup(&src);
	hx_running(&src);
	return hx_take_save(&src, stream, sizeof(stream), &save);
}

static void bad_streams(void)
{
	struct compsc_ident other = hx_id;
	int len = fresh_stream();

	CHECK(len > 0);
	hx_setup(&dst);
	other.device = 0x1520;
	CHECK_EQ(compsc_host_load(&dst.a, stream, (u32)len, &other, &view),
		 -COMPSC_EWRONG_DEVICE);
	CHECK_EQ(compsc_host_load(&dst.a, stream, (u32)len - 1, &hx_id, &view),
		 -COMPSC_ETRUNCATED);
	stream[len / 2] ^= 0x40;
	CHECK(compsc_host_load(&dst.a, stream, (u32)len, &hx_id, &view) < 0);
	stream[len / 2] ^= 0x40;
	CHECK_EQ(compsc_host_load(&dst.a, stream, (u32)len, &hx_id, &view), 0);
	/* a destination whose driver lists one register more */
	compsc_area_add_reg(dst.area, 0, 0x018, 4, COMPSC_REG_PLAIN);
	CHECK_EQ(dst.a.lists.nr_regs, 3);
	{
		u32 bad;

		CHECK_EQ(compsc_host_area_check(&dst.a, &hx_pol, &bad), 0);
	}
	CHECK_EQ(compsc_host_load(&dst.a, stream, (u32)len, &hx_id, &view),
		 -COMPSC_EMISMATCH);
	CHECK_EQ(compsc_area_saved(dst.area)[0], 0);	/* nothing applied */
	hx_teardown(&src);
	hx_teardown(&dst);
}

static void scribbled_replay(void)
{
	struct compsc_replay_hdr *rh;

	hx_setup(&src);
	hx_running(&src);
	rh = compsc_area_replay(src.area);
	rh->count = 0xffff;	/* more records than the log holds */
	CHECK(hx_take_save(&src, stream, sizeof(stream), &save) < 0);
	hx_teardown(&src);
}

static void rewritten_list(void)
{
	const struct compsc_stream_rec *rr = &view.rec[COMPSC_REC_REGS];
	struct compsc_rec_reg r;
	u32 off = 0, i;
	u64 value = 0;
	int len;

	hx_setup(&src);
	hx_running(&src);
	/* after the check: RDH becomes a register the policy never allowed */
	compsc_area_regs(src.area)[2].offset = 0x3000;
	len = hx_take_save(&src, stream, sizeof(stream), &save);
	CHECK(len > 0);
	CHECK_EQ(compsc_stream_parse(stream, (u32)len, &hx_id, sizeof(stream),
				     &view), 0);
	for (i = 0; i < 3; i++)
		off = compsc_rec_reg_get(rr->data, rr->len, off, &r, &value);
	CHECK(off != 0);
	CHECK_EQ(r.offset, HX_RDH);
	CHECK_EQ(value, 37);
	hx_teardown(&src);
}

int main(void)
{
	bad_streams();
	scribbled_replay();
	rewritten_list();
	CHECK_DONE();
}
