/* While a writer holds the device, tryenter is -EBUSY and leaves no trace; the waiting enter times out and gets in once the writer aborts. */
#include "check.h"
#include "sync_env.h"

int main(void)
{
	struct compsc_area_hdr *a = test_area(2, 0);
	struct compsc_area_ctl *ctl = compsc_area_ctl(a);
	struct compsc_slot *slots = compsc_area_slots(a);
	u32 nr = le16_to_cpu(a->nr_slots);
	struct fake_clock fc = { 0 };
	struct compsc_env env = fake_env(&fc);
	struct compsc_reader r;

	CHECK_EQ(compsc_reader_init(&r, a), 0);
	CHECK_EQ(compsc_writer_acquire(ctl, slots, nr, &env, 0), 0);
	CHECK_EQ(fc.fences, 1);
	CHECK_EQ(ctl->writer, COMPSC_WRITER_HELD);

	CHECK_EQ(compsc_read_tryenter(&r, 0), -COMPSC_EBUSY);
	CHECK_EQ(compsc_read_tryenter(&r, 1), -COMPSC_EBUSY);
	CHECK_EQ(compsc_read_tryenter(&r, 99), -COMPSC_EBUSY);
	CHECK_EQ(compsc_readers_inside(slots, nr), 0);
	CHECK_EQ(slots[1].enter, 1);	/* it did enter, then backed out */
	CHECK_EQ(slots[1].exit, 1);

	/* waiting enter: 5 ms bound, the fake clock moves 1 ms per relax */
	CHECK_EQ(compsc_read_enter(&r, &env, 5000000), -COMPSC_ETIMEDOUT);
	CHECK_EQ(fc.relaxes, 5);
	CHECK_EQ(compsc_readers_inside(slots, nr), 0);
	CHECK_EQ(r.restoring, 0);

	/* a second host thread cannot take it as well */
	CHECK_EQ(compsc_writer_acquire(ctl, slots, nr, &env, 0), -COMPSC_EBUSY);
	CHECK_EQ(ctl->writer, COMPSC_WRITER_HELD);

	compsc_writer_abort(ctl);
	CHECK_EQ(ctl->writer, COMPSC_WRITER_FREE);
	CHECK_EQ(compsc_read_enter(&r, &env, 5000000), 0);
	compsc_read_leave(&r);
	CHECK_EQ(compsc_read_tryenter(&r, 1), 0);
	compsc_read_exit(&r, 1);
	CHECK_EQ(compsc_readers_inside(slots, nr), 0);

	/* bad arguments never take the device */
	CHECK_EQ(compsc_writer_acquire(ctl, slots, 0, &env, 0), -COMPSC_EINVAL);
	CHECK_EQ(compsc_writer_acquire(ctl, slots, COMPSC_MAX_SLOTS + 1, &env, 0),
		 -COMPSC_EINVAL);
	CHECK_EQ(compsc_writer_acquire(ctl, slots, nr, NULL, 0), -COMPSC_EINVAL);
	CHECK_EQ(compsc_read_enter(&r, NULL, 0), -COMPSC_EINVAL);
	CHECK_EQ(ctl->writer, COMPSC_WRITER_FREE);
	free(a);
	CHECK_DONE();
}
