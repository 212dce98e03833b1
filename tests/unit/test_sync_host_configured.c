/* COMPSC_F_HOST_CONFIGURED belongs to one hand-back: a successful take clears it (so an older destination host that never writes it cannot pass on the last host's promise), a refused take leaves the area as it was, and the other flags survive. */
#include "check.h"
#include "sync_env.h"

int main(void)
{
	struct sync_fixture f;
	u32 set = COMPSC_F_HOST_CONFIGURED | COMPSC_F_DIRTY_LOG;

	sync_fixture_init(&f);
	f.ctl->flags = cpu_to_le32(set);

	/* a reader inside: the take times out and changes nothing */
	CHECK_EQ(compsc_read_tryenter(&f.r, 0), 0);
	CHECK_EQ(compsc_writer_acquire(f.ctl, f.slots, f.nr, &f.env, 0), -COMPSC_ETIMEDOUT);
	CHECK_EQ(le32_to_cpu(f.ctl->flags), set);
	compsc_read_exit(&f.r, 0);

	CHECK_EQ(compsc_writer_acquire(f.ctl, f.slots, f.nr, &f.env, 0), 0);
	CHECK_EQ(le32_to_cpu(f.ctl->flags), COMPSC_F_DIRTY_LOG);
	compsc_writer_release(f.ctl);
	CHECK_EQ(le32_to_cpu(f.ctl->flags), COMPSC_F_DIRTY_LOG);
	free(f.a);
	CHECK_DONE();
}
