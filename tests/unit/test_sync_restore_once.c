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
	struct sync_fixture f;
	int i;

	sync_fixture_init(&f);
	migrate(f.a);
	CHECK_EQ(f.ctl->version, 1);
	CHECK_EQ(f.ctl->writer, COMPSC_WRITER_FREE);

	CHECK_EQ(compsc_read_tryenter(&f.r, 1), COMPSC_READ_RESTORE);
	CHECK_EQ(f.r.restore_version, 1);
	CHECK_EQ(compsc_readers_inside(f.slots, f.nr), 1);	/* restorer is inside */
	/* everyone else waits for the restore, on any slot */
	CHECK_EQ(compsc_read_tryenter(&f.r, 0), -COMPSC_EBUSY);
	CHECK_EQ(compsc_read_tryenter(&f.r, 1), -COMPSC_EBUSY);
	CHECK_EQ(compsc_read_tryenter(&f.r, 50), -COMPSC_EBUSY);
	CHECK_EQ(compsc_read_enter(&f.r, &f.env, 2000000), -COMPSC_ETIMEDOUT);
	CHECK_EQ(compsc_readers_inside(f.slots, f.nr), 1);
	compsc_restore_done(&f.r);
	compsc_read_exit(&f.r, 1);
	CHECK_EQ(f.r.seen_version, 1);
	CHECK_EQ(f.r.restoring, 0);

	for (i = 0; i < 3; i++) {
		CHECK_EQ(compsc_read_tryenter(&f.r, (u32)i), 0);
		compsc_read_exit(&f.r, (u32)i);
	}
	CHECK_EQ(compsc_read_enter(&f.r, &f.env, 0), 0);
	compsc_read_leave(&f.r);

	/* two migrations before the guest runs again: one restore to the latest */
	migrate(f.a);
	migrate(f.a);
	CHECK_EQ(compsc_read_enter(&f.r, &f.env, 0), COMPSC_READ_RESTORE);
	CHECK_EQ(f.r.restore_version, 3);
	compsc_restore_done(&f.r);
	compsc_read_leave(&f.r);
	CHECK_EQ(compsc_read_tryenter(&f.r, 0), 0);
	compsc_read_exit(&f.r, 0);

	/*
	 * A context that read the old seen_version but reaches the slow path
	 * after the restore finished must not restore again: simulate by
	 * calling the slow path as the fast path would have.
	 */
	CHECK_EQ(compsc_read_tryenter(&f.r, 0), 0);	/* count us inside */
	CHECK_EQ(__compsc_read_slow(&f.r, 0, COMPSC_WRITER_FREE, 3), 0);
	CHECK_EQ(f.r.restoring, 0);
	compsc_read_exit(&f.r, 0);
	CHECK_EQ(compsc_readers_inside(f.slots, f.nr), 0);
	free(f.a);
	CHECK_DONE();
}
