/* A writer abort (failed migration) hands the device back without a version bump, so no reader is asked to restore. */
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
	int i;

	CHECK_EQ(compsc_reader_init(&r, a), 0);
	for (i = 0; i < 5; i++) {
		CHECK_EQ(compsc_writer_acquire(ctl, slots, nr, &env, 0), 0);
		CHECK_EQ(compsc_read_tryenter(&r, 0), -COMPSC_EBUSY);
		compsc_writer_abort(ctl);
		CHECK_EQ(ctl->writer, COMPSC_WRITER_FREE);
		CHECK_EQ(ctl->version, 0);
		CHECK_EQ(compsc_read_tryenter(&r, 0), 0);	/* not RESTORE */
		compsc_read_exit(&r, 0);
		CHECK_EQ(compsc_read_enter(&r, &env, 0), 0);
		compsc_read_leave(&r);
	}
	/* and a completed migration after aborts restores exactly once */
	CHECK_EQ(compsc_writer_acquire(ctl, slots, nr, &env, 0), 0);
	compsc_writer_release(ctl);
	CHECK_EQ(ctl->version, 1);
	CHECK_EQ(compsc_read_tryenter(&r, 1), COMPSC_READ_RESTORE);
	compsc_restore_done(&r);
	compsc_read_exit(&r, 1);
	CHECK_EQ(compsc_read_tryenter(&r, 1), 0);
	compsc_read_exit(&r, 1);
	CHECK_EQ(r.restoring, 0);
	free(a);
	CHECK_DONE();
}
