/* A withdrawn area is never taken again, a held one cannot be withdrawn, and a take writes nothing before its compare-and-swap. */
#include "check.h"
#include "sync_env.h"

int main(void)
{
	struct sync_fixture f;
	__le32 flags;

	/* held: the guest must keep its pages */
	sync_fixture_init(&f);
	CHECK_EQ(compsc_writer_acquire(f.ctl, f.slots, f.nr, &f.env, 0), 0);
	CHECK_EQ(compsc_reader_withdraw(f.ctl), -COMPSC_EBUSY);
	CHECK_EQ(f.ctl->writer, COMPSC_WRITER_HELD);
	compsc_writer_abort(f.ctl);
	CHECK_EQ(f.ctl->writer, COMPSC_WRITER_FREE);

	/* free: withdrawn, for good, and twice is still withdrawn */
	CHECK_EQ(compsc_reader_withdraw(f.ctl), 0);
	CHECK_EQ(f.ctl->writer, COMPSC_WRITER_WITHDRAWN);
	CHECK_EQ(compsc_reader_withdraw(f.ctl), 0);

	/* a host that looked the area up before: refused, nothing written */
	f.ctl->flags |= cpu_to_le32(COMPSC_F_HOST_CONFIGURED);
	flags = f.ctl->flags;
	CHECK_EQ(compsc_writer_acquire(f.ctl, f.slots, f.nr, &f.env, 0),
		 -COMPSC_ESTATE);
	CHECK_EQ(compsc_writer_claim(f.ctl), -COMPSC_ESTATE);
	CHECK_EQ(f.ctl->writer, COMPSC_WRITER_WITHDRAWN);
	CHECK_EQ(f.ctl->flags, flags);
	CHECK_EQ(f.fc.fences, 1);	/* the first take's only */

	/* nor does an end of a hold that is not there revive it */
	compsc_writer_release_lost(f.ctl, -COMPSC_ENOSTATE);
	CHECK_EQ(f.ctl->writer, COMPSC_WRITER_WITHDRAWN);
	CHECK_EQ(compsc_read_tryenter(&f.r, 0), -COMPSC_EBUSY);

	/* held by another host thread: claim says busy, not withdrawn */
	free(f.a);
	sync_fixture_init(&f);
	CHECK_EQ(compsc_writer_claim(f.ctl), 0);
	CHECK_EQ(compsc_writer_claim(f.ctl), -COMPSC_EBUSY);
	CHECK_EQ(compsc_writer_drain(f.ctl, f.slots, 0, &f.env, 0),
		 -COMPSC_EINVAL);
	CHECK_EQ(f.ctl->writer, COMPSC_WRITER_FREE);	/* let go */
	CHECK_EQ(compsc_writer_claim(f.ctl), 0);
	CHECK_EQ(compsc_writer_drain(f.ctl, f.slots, f.nr, &f.env, 0), 0);
	compsc_writer_abort(f.ctl);
	CHECK_EQ(compsc_reader_withdraw(f.ctl), 0);
	free(f.a);
	CHECK_DONE();
}
