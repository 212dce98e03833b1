/* Read side bookkeeping: each CPU counts in its own slot, others in slot 0; init validates and takes the current version as seen. */
#include "check.h"
#include "sync_env.h"

int main(void)
{
	struct compsc_area_hdr *a = test_area(4, 0);
	struct compsc_slot *slots = compsc_area_slots(a);
	struct compsc_reader r;
	u32 nr = le16_to_cpu(a->nr_slots), i;

	CHECK_EQ(nr, 5);
	CHECK_EQ(compsc_reader_init(&r, a), 0);
	CHECK_EQ(r.nr_cpu_slots, 4);
	CHECK_EQ(compsc_readers_inside(slots, nr), 0);

	/* CPU 2 uses slot 3 and only slot 3 */
	CHECK_EQ(compsc_read_tryenter(&r, 2), 0);
	CHECK_EQ(slots[3].enter, 1);
	CHECK_EQ(compsc_readers_inside(slots, nr), 1);
	/* an interrupt on the same CPU nests */
	CHECK_EQ(compsc_read_tryenter(&r, 2), 0);
	CHECK_EQ(compsc_readers_inside(slots, nr), 2);
	compsc_read_exit(&r, 2);
	compsc_read_exit(&r, 2);
	CHECK_EQ(slots[3].enter, 2);
	CHECK_EQ(slots[3].exit, 2);
	for (i = 0; i < nr; i++)
		if (i != 3)
			CHECK_EQ(slots[i].enter + slots[i].exit, 0);

	/* CPUs beyond the slots share slot 0 */
	CHECK_EQ(compsc_read_tryenter(&r, 4), 0);
	CHECK_EQ(compsc_read_tryenter(&r, 1000), 0);
	CHECK_EQ(slots[0].enter, 2);
	compsc_read_exit(&r, 4);
	compsc_read_exit(&r, 1000);
	CHECK_EQ(slots[0].exit, 2);
	CHECK_EQ(compsc_readers_inside(slots, nr), 0);

	/* process context: slot 0 as well */
	{
		struct fake_clock fc = { 0 };
		struct compsc_env env = fake_env(&fc);

		CHECK_EQ(compsc_read_enter(&r, &env, 0), 0);
		CHECK_EQ(slots[0].enter, 3);
		CHECK_EQ(compsc_readers_inside(slots, nr), 1);
		compsc_read_leave(&r);
		CHECK_EQ(compsc_readers_inside(slots, nr), 0);
		CHECK_EQ(fc.relaxes, 0);
	}

	/* a reader bound after migrations counts their version as seen */
	compsc_area_ctl(a)->version = cpu_to_le64(7);
	CHECK_EQ(compsc_reader_init(&r, a), 0);
	CHECK_EQ(r.seen_version, 7);
	CHECK_EQ(compsc_read_tryenter(&r, 0), 0);
	compsc_read_exit(&r, 0);

	/* init refuses what is not an area */
	CHECK_EQ(compsc_reader_init(&r, NULL), -COMPSC_EINVAL);
	a->magic = 0;
	CHECK_EQ(compsc_reader_init(&r, a), -COMPSC_EINVAL);
	a->magic = cpu_to_le32(COMPSC_AREA_MAGIC);
	a->nr_slots = cpu_to_le16(COMPSC_MAX_SLOTS + 1);
	CHECK_EQ(compsc_reader_init(&r, a), -COMPSC_EINVAL);
	a->nr_slots = 0;
	CHECK_EQ(compsc_reader_init(&r, a), -COMPSC_EINVAL);
	free(a);
	CHECK_DONE();
}
