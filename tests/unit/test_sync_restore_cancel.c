/* compsc_restore_cancel() gives a claimed restore back: nothing marked seen, the next enter (any context) claims it again. */
#include "check.h"
#include "sync_env.h"

int main(void)
{
	struct sync_fixture f;

	sync_fixture_init(&f);
	CHECK_EQ(compsc_writer_acquire(f.ctl, f.slots, f.nr, &f.env, 0), 0);
	compsc_writer_release(f.ctl);

	/* atomic context claims the restore, then backs out */
	CHECK_EQ(compsc_read_tryenter(&f.r, 1), COMPSC_READ_RESTORE);
	compsc_read_exit(&f.r, 1);
	compsc_restore_cancel(&f.r);
	CHECK_EQ(f.r.restoring, 0);
	CHECK_EQ(f.r.seen_version, 0);
	CHECK_EQ(compsc_readers_inside(f.slots, f.nr), 0);

	/* the claim is free again: another context (process) takes it */
	CHECK_EQ(compsc_read_enter(&f.r, &f.env, 0), COMPSC_READ_RESTORE);
	CHECK_EQ(f.r.restore_version, 1);
	/* cancel while still inside works too, and claims again on re-entry */
	compsc_restore_cancel(&f.r);
	compsc_read_leave(&f.r);
	CHECK_EQ(compsc_read_tryenter(&f.r, 0), COMPSC_READ_RESTORE);
	compsc_restore_done(&f.r);
	compsc_read_exit(&f.r, 0);
	CHECK_EQ(f.r.seen_version, 1);

	/* done for real: plain entries from now on */
	CHECK_EQ(compsc_read_tryenter(&f.r, 1), 0);
	compsc_read_exit(&f.r, 1);
	CHECK_EQ(compsc_readers_inside(f.slots, f.nr), 0);
	free(f.a);
	CHECK_DONE();
}
