/*
 * The host side end to end on a BAR in memory: take stops the queues,
 * save carries the queue controls as they were before the stop, the ring
 * head, the counters and the replay log; a destination with the same
 * lists loads the stream and gives the values to its area; the release
 * bumps the version.
 */
#include "check.h"
#include "host_fixture.h"

static u8 stream[COMPSC_HOST_STREAM_MAX];
static struct compsc_host_save save;
static struct compsc_stream_view view;
static struct hx src, dst;

static void check_take(void)
{
	CHECK_EQ(hx_rd(&src, HX_RXDCTL) & HX_ENABLE, 0);
	CHECK_EQ(hx_rd(&src, HX_TXDCTL) & HX_ENABLE, 0);
	CHECK_EQ(hx_rd(&src, HX_RXDCTL), 0x10);	/* other bits kept */
	CHECK(src.d.stopped);
	CHECK_EQ(compsc_area_ctl(src.area)->writer, COMPSC_WRITER_HELD);
}

static void check_replay(const struct compsc_stream_view *v)
{
	const struct compsc_stream_rec *r = &v->rec[COMPSC_REC_DRIVER];
	const struct compsc_replay_rec *rec;
	static u8 mem[4096];
	struct compsc_replay log;

	CHECK(r->data != NULL);
	CHECK_EQ(r->len, save.driver_bytes);
	CHECK_EQ(compsc_replay_init(&log, mem, sizeof(mem), NULL, 0), 0);
	CHECK_EQ(compsc_replay_unpack(&log, r->data, r->len), 0);
	CHECK_EQ(compsc_replay_count(&log), 1);
	rec = compsc_replay_get(&log, HX_REPLAY_KEY);
	CHECK(rec && rec->len == 8 && !memcmp(rec->data, "\x44\x33\x22\x11", 4));
}

static void check_given(void)
{
	__le64 *saved = compsc_area_saved(dst.area);
	struct compsc_counter_desc *c = compsc_area_counters(dst.area);

	CHECK_EQ(saved[0], HX_ENABLE | 0x10);	/* as before the stop */
	CHECK_EQ(saved[1], HX_ENABLE | 0x20);
	CHECK_EQ(saved[2], 37);
	CHECK_EQ(c[0].hw_final, 1000);
	CHECK_EQ(c[1].hw_final, 2000);
	CHECK(c[0].flags & COMPSC_CTR_F_SAVED);
	CHECK(c[1].flags & COMPSC_CTR_F_SAVED);
	CHECK_EQ(compsc_area_ctl(dst.area)->host_status, 0);
	/* memory came from another host: the restore drops what it may lack */
	CHECK(compsc_area_ctl(dst.area)->flags & COMPSC_F_MEM_COPIED);
}

int main(void)
{
	int len;

	CHECK_EQ(hx_setup(&src), 0);
	CHECK_EQ(hx_setup(&dst), 0);
	hx_running(&src);
	len = hx_take_save(&src, stream, sizeof(stream), &save);
	CHECK(len > 0);
	check_take();
	CHECK(save.driver_bytes > 0);
	CHECK((u32)len <= compsc_host_save_bound(&src.a, 0));
	CHECK(compsc_host_save_bound(NULL, 0) < compsc_host_save_bound(&src.a, 0));

	CHECK_EQ(compsc_writer_acquire(compsc_area_ctl(dst.area),
				       compsc_area_slots(dst.area),
				       dst.area->nr_slots, &dst.env, 1000), 0);
	CHECK_EQ(compsc_host_load(&dst.a, stream, (u32)len, &hx_id, &view), 0);
	check_replay(&view);
	compsc_host_give(&dst.a, &view, false, true);
	check_given();
	/* a hand-over in place (the stand-in) clears what travelled */
	compsc_host_give(&dst.a, &view, false, false);
	CHECK(!(compsc_area_ctl(dst.area)->flags & COMPSC_F_MEM_COPIED));
	compsc_writer_release(compsc_area_ctl(dst.area));
	CHECK_EQ(compsc_area_ctl(dst.area)->version, 1);
	CHECK_EQ(compsc_area_ctl(dst.area)->writer, COMPSC_WRITER_FREE);
	/* the source's area is untouched by the destination */
	CHECK_EQ(compsc_area_ctl(src.area)->version, 0);
	hx_teardown(&src);
	hx_teardown(&dst);
	CHECK_DONE();
}
