/* While a writer holds the device, tryenter is -EBUSY and leaves no trace; the waiting enter times out and gets in once the writer aborts. */
#include "check.h"
#include "sync_env.h"

int main(void)
{
	struct sync_fixture f;

	sync_fixture_init(&f);
	CHECK_EQ(compsc_writer_acquire(f.ctl, f.slots, f.nr, &f.env, 0), 0);
	CHECK_EQ(f.fc.fences, 1);
	CHECK_EQ(f.ctl->writer, COMPSC_WRITER_HELD);

	CHECK_EQ(compsc_read_tryenter(&f.r, 0), -COMPSC_EBUSY);
	CHECK_EQ(compsc_read_tryenter(&f.r, 1), -COMPSC_EBUSY);
	CHECK_EQ(compsc_read_tryenter(&f.r, 99), -COMPSC_EBUSY);
	CHECK_EQ(compsc_readers_inside(f.slots, f.nr), 0);
	CHECK_EQ(f.slots[1].enter, 1);	/* it did enter, then backed out */
	CHECK_EQ(f.slots[1].exit, 1);

	/* waiting enter: 5 ms bound, the fake clock moves 1 ms per relax */
	CHECK_EQ(compsc_read_enter(&f.r, &f.env, 5000000), -COMPSC_ETIMEDOUT);
	CHECK_EQ(f.fc.relaxes, 5);
	CHECK_EQ(compsc_readers_inside(f.slots, f.nr), 0);
	CHECK_EQ(f.r.restoring, 0);

	/* a second host thread cannot take it as well */
	CHECK_EQ(compsc_writer_acquire(f.ctl, f.slots, f.nr, &f.env, 0), -COMPSC_EBUSY);
	CHECK_EQ(f.ctl->writer, COMPSC_WRITER_HELD);

	compsc_writer_abort(f.ctl);
	CHECK_EQ(f.ctl->writer, COMPSC_WRITER_FREE);
	CHECK_EQ(compsc_read_enter(&f.r, &f.env, 5000000), 0);
	compsc_read_leave(&f.r);
	CHECK_EQ(compsc_read_tryenter(&f.r, 1), 0);
	compsc_read_exit(&f.r, 1);
	CHECK_EQ(compsc_readers_inside(f.slots, f.nr), 0);

	/* bad arguments never take the device */
	CHECK_EQ(compsc_writer_acquire(f.ctl, f.slots, 0, &f.env, 0), -COMPSC_EINVAL);
	CHECK_EQ(compsc_writer_acquire(f.ctl, f.slots, COMPSC_MAX_SLOTS + 1, &f.env, 0),
		 -COMPSC_EINVAL);
	CHECK_EQ(compsc_writer_acquire(f.ctl, f.slots, f.nr, NULL, 0), -COMPSC_EINVAL);
	CHECK_EQ(compsc_read_enter(&f.r, NULL, 0), -COMPSC_EINVAL);
	CHECK_EQ(f.ctl->writer, COMPSC_WRITER_FREE);
	free(f.a);
	CHECK_DONE();
}
