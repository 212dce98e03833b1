/* A writer abort (failed migration) hands the device back without a version bump, so no reader is asked to restore. */
#include "check.h"
#include "sync_env.h"

int main(void)
{
	struct sync_fixture f;
	int i;

	sync_fixture_init(&f);
	for (i = 0; i < 5; i++) {
		CHECK_EQ(compsc_writer_acquire(f.ctl, f.slots, f.nr, &f.env, 0), 0);
		CHECK_EQ(compsc_read_tryenter(&f.r, 0), -COMPSC_EBUSY);
		compsc_writer_abort(f.ctl);
		CHECK_EQ(f.ctl->writer, COMPSC_WRITER_FREE);
		CHECK_EQ(f.ctl->version, 0);
		CHECK_EQ(compsc_read_tryenter(&f.r, 0), 0);	/* not RESTORE */
		compsc_read_exit(&f.r, 0);
		CHECK_EQ(compsc_read_enter(&f.r, &f.env, 0), 0);
		compsc_read_leave(&f.r);
	}
	/* and a completed migration after aborts restores exactly once */
	CHECK_EQ(compsc_writer_acquire(f.ctl, f.slots, f.nr, &f.env, 0), 0);
	compsc_writer_release(f.ctl);
	CHECK_EQ(f.ctl->version, 1);
	CHECK_EQ(compsc_read_tryenter(&f.r, 1), COMPSC_READ_RESTORE);
	compsc_restore_done(&f.r);
	compsc_read_exit(&f.r, 1);
	CHECK_EQ(compsc_read_tryenter(&f.r, 1), 0);
	compsc_read_exit(&f.r, 1);
	CHECK_EQ(f.r.restoring, 0);
	free(f.a);
	CHECK_DONE();
}
