/* A take on an area whose writer word reads withdrawn (3) fails as such and writes nothing. */
#include "check.h"
#include "sync_env.h"

int main(void)
{
	struct sync_fixture f;

	sync_fixture_init(&f);
	f.ctl->writer = cpu_to_le32(3);	/* the ABI value of WITHDRAWN */
	f.ctl->flags = cpu_to_le32(COMPSC_F_HOST_CONFIGURED);
	CHECK_EQ(compsc_writer_acquire(f.ctl, f.slots, f.nr, &f.env, 0),
		 -COMPSC_ESTATE);
	CHECK_EQ(f.ctl->writer, cpu_to_le32(3));
	CHECK_EQ(f.ctl->flags, cpu_to_le32(COMPSC_F_HOST_CONFIGURED));
	CHECK_EQ(f.fc.fences, 0);
	free(f.a);
	CHECK_DONE();
}
