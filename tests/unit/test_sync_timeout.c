/* A reader that stays inside makes the writer time out; the device stays with the guest: writer free, version unchanged, no restore. */
#include "check.h"
#include "sync_env.h"

int main(void)
{
	struct compsc_area_hdr *a = test_area(2, 0);
	struct compsc_area_ctl *ctl = compsc_area_ctl(a);
	struct compsc_slot *slots = compsc_area_slots(a);
	u32 nr = le16_to_cpu(a->nr_slots);
	struct fake_clock fc = { .now = 123 };
	struct compsc_env env = fake_env(&fc);
	struct compsc_reader r;

	CHECK_EQ(compsc_reader_init(&r, a), 0);
	CHECK_EQ(compsc_read_tryenter(&r, 1), 0);	/* CPU 1 inside */
	CHECK_EQ(compsc_read_enter(&r, &env, 0), 0);	/* and a process */

	CHECK_EQ(compsc_writer_acquire(ctl, slots, nr, &env, 10000000),
		 -COMPSC_ETIMEDOUT);
	CHECK_EQ(fc.relaxes, 10);	/* waited the full bound, no longer */
	CHECK_EQ(ctl->writer, COMPSC_WRITER_FREE);
	CHECK_EQ(ctl->version, 0);
	CHECK_EQ(compsc_readers_inside(slots, nr), 2);

	/* the guest carries on without a restore */
	CHECK_EQ(compsc_read_tryenter(&r, 0), 0);
	compsc_read_exit(&r, 0);
	compsc_read_exit(&r, 1);
	compsc_read_leave(&r);
	CHECK_EQ(compsc_readers_inside(slots, nr), 0);

	/* a zero bound still succeeds when nobody is inside */
	fc.relaxes = 0;
	CHECK_EQ(compsc_writer_acquire(ctl, slots, nr, &env, 0), 0);
	CHECK_EQ(fc.relaxes, 0);
	compsc_writer_release(ctl);

	free(a);
	CHECK_DONE();
}
