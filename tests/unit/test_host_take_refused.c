/*
 * A take that cannot hold the device changes nothing: readers that do not
 * leave (timeout), a device the guest never restored (a destination's
 * reset device is not guest state), a queue that does not stop within the
 * model's bound (its head would move after the save: given back, queues
 * restarted); a give-back restarts the queues, publishes the result and
 * does not bump the version.
 */
#include "check.h"
#include "host_fixture.h"

static struct hx h;

static void check_untouched(void)
{
	CHECK_EQ(hx_rd(&h, HX_RXDCTL), HX_ENABLE | 0x10);
	CHECK_EQ(hx_rd(&h, HX_TXDCTL), HX_ENABLE | 0x20);
	CHECK(!h.d.stopped);
	CHECK_EQ(compsc_area_ctl(h.area)->writer, COMPSC_WRITER_FREE);
	CHECK_EQ(compsc_area_ctl(h.area)->version, 0);
}

static void not_restored(void)
{
	hx_setup(&h);
	hx_running(&h);
	compsc_area_ctl(h.area)->version = 1;	/* handed over, not restored */
	CHECK_EQ(compsc_host_take(&h.a, &h.d, 1000000), -COMPSC_ENOTRESTORED);
	CHECK_EQ(hx_rd(&h, HX_RXDCTL), HX_ENABLE | 0x10);
	CHECK_EQ(compsc_area_ctl(h.area)->writer, COMPSC_WRITER_FREE);
	CHECK_EQ(compsc_area_ctl(h.area)->version, 1);
	hx_teardown(&h);
}

static void reader_inside(void)
{
	hx_setup(&h);
	hx_running(&h);
	compsc_area_slots(h.area)[1].enter = 1;	/* never exits */
	CHECK_EQ(compsc_host_take(&h.a, &h.d, 1000000), -COMPSC_ETIMEDOUT);
	check_untouched();
	hx_teardown(&h);
}

static void stuck_queue(void)
{
	hx_setup(&h);
	hx_running(&h);
	h.stuck = 1;
	CHECK_EQ(compsc_host_take(&h.a, &h.d, 1000000), -COMPSC_EQSTOP);
	/* 1000 us at 20 us a wait, plus the writer's own waits */
	CHECK(h.relaxes >= 1000 / 20 && h.relaxes <= 1000 / 20 + 8);
	check_untouched();
	CHECK_EQ((int)compsc_area_ctl(h.area)->host_status, -COMPSC_EQSTOP);
	hx_teardown(&h);
}

static void giveback(void)
{
	hx_setup(&h);
	hx_running(&h);
	CHECK_EQ(compsc_host_take(&h.a, &h.d, 1000000), 0);
	compsc_host_giveback(&h.a, &h.d, -COMPSC_ESTATE);
	check_untouched();
	CHECK_EQ((int)compsc_area_ctl(h.area)->host_status, -COMPSC_ESTATE);
	/* a second give-back (the glue's cleanup) restarts nothing twice */
	hx_wr(&h, HX_RXDCTL, 0);
	compsc_host_queues_restart(&h.d);
	CHECK_EQ(hx_rd(&h, HX_RXDCTL), 0);
	hx_teardown(&h);
}

int main(void)
{
	not_restored();
	reader_inside();
	stuck_queue();
	giveback();
	CHECK_DONE();
}
