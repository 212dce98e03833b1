/* compsc_restore_cancel() gives a claimed restore back: nothing marked seen, the next enter (any context) claims it again. */
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
	compsc_writer_release(ctl);

	/* atomic context claims the restore, then backs out */
	CHECK_EQ(compsc_read_tryenter(&r, 1), COMPSC_READ_RESTORE);
	compsc_read_exit(&r, 1);
	compsc_restore_cancel(&r);
	CHECK_EQ(r.restoring, 0);
	CHECK_EQ(r.seen_version, 0);
	CHECK_EQ(compsc_readers_inside(slots, nr), 0);

	/* the claim is free again: another context (process) takes it */
	CHECK_EQ(compsc_read_enter(&r, &env, 0), COMPSC_READ_RESTORE);
	CHECK_EQ(r.restore_version, 1);
	/* cancel while still inside works too, and claims again on re-entry */
	compsc_restore_cancel(&r);
	compsc_read_leave(&r);
	CHECK_EQ(compsc_read_tryenter(&r, 0), COMPSC_READ_RESTORE);
	compsc_restore_done(&r);
	compsc_read_exit(&r, 0);
	CHECK_EQ(r.seen_version, 1);

	/* done for real: plain entries from now on */
	CHECK_EQ(compsc_read_tryenter(&r, 1), 0);
	compsc_read_exit(&r, 1);
	CHECK_EQ(compsc_readers_inside(slots, nr), 0);
	free(a);
	CHECK_DONE();
}
