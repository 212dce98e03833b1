/* After a migration exactly one context gets COMPSC_READ_RESTORE; others are -EBUSY until compsc_restore_done(), then enter normally. */
#include "check.h"
#include "sync_env.h"

static void migrate(struct compsc_area_hdr *a)
{
	struct fake_clock fc = { 0 };
	struct compsc_env env = fake_env(&fc);
	struct compsc_area_ctl *ctl = compsc_area_ctl(a);

	CHECK_EQ(compsc_writer_acquire(ctl, compsc_area_slots(a),
				       le16_to_cpu(a->nr_slots), &env, 0), 0);
	compsc_writer_release(ctl);
}

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
	migrate(a);
	CHECK_EQ(ctl->version, 1);
	CHECK_EQ(ctl->writer, COMPSC_WRITER_FREE);

	CHECK_EQ(compsc_read_tryenter(&r, 1), COMPSC_READ_RESTORE);
	CHECK_EQ(r.restore_version, 1);
	CHECK_EQ(compsc_readers_inside(slots, nr), 1);	/* restorer is inside */
	/* everyone else waits for the restore, on any slot */
	CHECK_EQ(compsc_read_tryenter(&r, 0), -COMPSC_EBUSY);
	CHECK_EQ(compsc_read_tryenter(&r, 1), -COMPSC_EBUSY);
	CHECK_EQ(compsc_read_tryenter(&r, 50), -COMPSC_EBUSY);
	CHECK_EQ(compsc_read_enter(&r, &env, 2000000), -COMPSC_ETIMEDOUT);
	CHECK_EQ(compsc_readers_inside(slots, nr), 1);
	compsc_restore_done(&r);
	compsc_read_exit(&r, 1);
	CHECK_EQ(r.seen_version, 1);
	CHECK_EQ(r.restoring, 0);

	for (i = 0; i < 3; i++) {
		CHECK_EQ(compsc_read_tryenter(&r, (u32)i), 0);
		compsc_read_exit(&r, (u32)i);
	}
	CHECK_EQ(compsc_read_enter(&r, &env, 0), 0);
	compsc_read_leave(&r);

	/* two migrations before the guest runs again: one restore to the latest */
	migrate(a);
	migrate(a);
	CHECK_EQ(compsc_read_enter(&r, &env, 0), COMPSC_READ_RESTORE);
	CHECK_EQ(r.restore_version, 3);
	compsc_restore_done(&r);
	compsc_read_leave(&r);
	CHECK_EQ(compsc_read_tryenter(&r, 0), 0);
	compsc_read_exit(&r, 0);

	/*
	 * A context that read the old seen_version but reaches the slow path
	 * after the restore finished must not restore again: simulate by
	 * calling the slow path as the fast path would have.
	 */
	CHECK_EQ(compsc_read_tryenter(&r, 0), 0);	/* count us inside */
	CHECK_EQ(__compsc_read_slow(&r, 0, COMPSC_WRITER_FREE, 3), 0);
	CHECK_EQ(r.restoring, 0);
	compsc_read_exit(&r, 0);
	CHECK_EQ(compsc_readers_inside(slots, nr), 0);
	free(a);
	CHECK_DONE();
}
