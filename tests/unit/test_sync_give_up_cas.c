/* A hold ends by one CAS on the writer word: the guest's give-up and the host's abort, release and lost release each act only on a hold still HELD, so neither ends or writes into a hold the other one ended. */
#include "check.h"
#include "sync_env.h"

int main(void)
{
	struct sync_fixture f;

	sync_fixture_init(&f);
	/* the guest is half-way through taking its device back */
	CHECK_EQ(compsc_writer_acquire(f.ctl, f.slots, f.nr, &f.env, 0), 0);
	f.ctl->writer = COMPSC_WRITER_ENDING;
	/* a late abort, release or lost release of the host's take */
	compsc_writer_abort(f.ctl);
	CHECK_EQ(f.ctl->writer, COMPSC_WRITER_ENDING);
	compsc_writer_release(f.ctl);
	compsc_writer_release_lost(f.ctl, -COMPSC_ENOSTATE);
	CHECK_EQ(f.ctl->writer, COMPSC_WRITER_ENDING);
	CHECK_EQ(f.ctl->version, 0);
	CHECK_EQ(f.ctl->host_status, 0);
	/* nor does a second give-up run on it */
	CHECK_EQ(compsc_reader_give_up(&f.r), 0);
	CHECK_EQ(f.ctl->version, 0);
	CHECK_EQ(compsc_read_tryenter(&f.r, 1), -COMPSC_EBUSY);

	/* a give-up wins: ENDING is never seen again by anyone after it */
	f.ctl->writer = COMPSC_WRITER_HELD;
	CHECK_EQ(compsc_reader_give_up(&f.r), 1);
	CHECK_EQ(f.ctl->writer, COMPSC_WRITER_FREE);
	CHECK_EQ(f.ctl->version, 1);
	compsc_writer_abort(f.ctl);	/* the host's, after: nothing */
	CHECK_EQ(f.ctl->writer, COMPSC_WRITER_FREE);
	CHECK_EQ(compsc_read_tryenter(&f.r, 1), COMPSC_READ_RESTORE);
	CHECK_EQ(compsc_read_state_lost(&f.r), -COMPSC_EABANDONED);
	compsc_restore_done(&f.r);
	compsc_read_exit(&f.r, 1);

	/* the host wins: the give-up finds nothing to end */
	CHECK_EQ(compsc_writer_acquire(f.ctl, f.slots, f.nr, &f.env, 0), 0);
	compsc_writer_abort(f.ctl);
	CHECK_EQ(compsc_reader_give_up(&f.r), 0);
	CHECK_EQ(f.ctl->version, 1);
	CHECK_EQ(compsc_read_tryenter(&f.r, 1), 0);
	compsc_read_exit(&f.r, 1);
	CHECK_DONE();
}
