/* A hand-over without state bumps the version with HOST_CONFIGURED and MEM_COPIED clear and the reason in host_status; a guest gives up only on a held writer. */
#include "check.h"
#include "sync_env.h"

int main(void)
{
	struct sync_fixture f;

	sync_fixture_init(&f);
	/* a plain hand-over says nothing is lost */
	CHECK_EQ(compsc_writer_acquire(f.ctl, f.slots, f.nr, &f.env, 0), 0);
	compsc_writer_release(f.ctl);
	CHECK_EQ(compsc_read_tryenter(&f.r, 1), COMPSC_READ_RESTORE);
	CHECK_EQ(compsc_read_state_lost(&f.r), 0);
	compsc_restore_done(&f.r);
	compsc_read_exit(&f.r, 1);

	/* the source's take travelled HELD; the destination's give failed */
	CHECK_EQ(compsc_writer_acquire(f.ctl, f.slots, f.nr, &f.env, 0), 0);
	f.ctl->flags = COMPSC_F_HOST_CONFIGURED | COMPSC_F_MEM_COPIED |
		       COMPSC_F_DIRTY_LOG;
	compsc_writer_release_lost(f.ctl, -COMPSC_ENOSTATE);
	CHECK_EQ(f.ctl->writer, COMPSC_WRITER_FREE);
	CHECK_EQ(f.ctl->version, 2);
	CHECK_EQ(f.ctl->flags, COMPSC_F_DIRTY_LOG);
	CHECK_EQ(compsc_read_tryenter(&f.r, 1), COMPSC_READ_RESTORE);
	CHECK_EQ(compsc_read_state_lost(&f.r), -COMPSC_ENOSTATE);
	compsc_restore_done(&f.r);
	compsc_read_exit(&f.r, 1);
	CHECK_EQ(compsc_read_tryenter(&f.r, 1), 0);	/* once */
	compsc_read_exit(&f.r, 1);

	/* giving up on a free writer changes nothing */
	CHECK_EQ(compsc_reader_give_up(&f.r), 0);
	CHECK_EQ(f.ctl->version, 2);
	/* on a held one: released as abandoned, restored once */
	CHECK_EQ(compsc_writer_acquire(f.ctl, f.slots, f.nr, &f.env, 0), 0);
	CHECK_EQ(compsc_read_tryenter(&f.r, 1), -COMPSC_EBUSY);
	CHECK_EQ(compsc_reader_give_up(&f.r), 1);
	CHECK_EQ(f.ctl->writer, COMPSC_WRITER_FREE);
	CHECK_EQ(f.ctl->version, 3);
	CHECK_EQ(compsc_read_tryenter(&f.r, 1), COMPSC_READ_RESTORE);
	CHECK_EQ(compsc_read_state_lost(&f.r), -COMPSC_EABANDONED);
	compsc_restore_done(&f.r);
	compsc_read_exit(&f.r, 1);
	/* the next plain hand-over clears it (compsc_host_give() writes 0) */
	CHECK_EQ(compsc_writer_acquire(f.ctl, f.slots, f.nr, &f.env, 0), 0);
	f.ctl->host_status = 0;
	compsc_writer_release(f.ctl);
	CHECK_EQ(compsc_read_tryenter(&f.r, 1), COMPSC_READ_RESTORE);
	CHECK_EQ(compsc_read_state_lost(&f.r), 0);
	compsc_restore_done(&f.r);
	compsc_read_exit(&f.r, 1);
	free(f.a);
	CHECK_DONE();
}
