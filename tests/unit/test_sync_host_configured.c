/* COMPSC_F_HOST_CONFIGURED belongs to one hand-back: a successful take clears it (so an older destination host that never writes it cannot pass on the last host's promise), a refused take leaves the area as it was, and the other flags survive. */
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
	u32 set = COMPSC_F_HOST_CONFIGURED | COMPSC_F_DIRTY_LOG;

	CHECK_EQ(compsc_reader_init(&r, a), 0);
	ctl->flags = cpu_to_le32(set);

	/* a reader inside: the take times out and changes nothing */
	CHECK_EQ(compsc_read_tryenter(&r, 0), 0);
	CHECK_EQ(compsc_writer_acquire(ctl, slots, nr, &env, 0), -COMPSC_ETIMEDOUT);
	CHECK_EQ(le32_to_cpu(ctl->flags), set);
	compsc_read_exit(&r, 0);

	CHECK_EQ(compsc_writer_acquire(ctl, slots, nr, &env, 0), 0);
	CHECK_EQ(le32_to_cpu(ctl->flags), COMPSC_F_DIRTY_LOG);
	compsc_writer_release(ctl);
	CHECK_EQ(le32_to_cpu(ctl->flags), COMPSC_F_DIRTY_LOG);
	free(a);
	CHECK_DONE();
}
