/* Host side against a hostile guest: slot counts are bounded by COMPSC_MAX_SLOTS and garbage counters only lead to a bounded timeout. */
#include "check.h"
#include "sync_env.h"

int main(void)
{
	/* exactly COMPSC_MAX_SLOTS slots: ASan flags any read past them */
	struct compsc_slot *slots = calloc(COMPSC_MAX_SLOTS, sizeof(*slots));
	struct compsc_area_ctl ctl = { 0 };
	struct fake_clock fc = { 0 };
	struct compsc_env env = fake_env(&fc);
	u32 i;

	CHECK(slots);
	for (i = 0; i < COMPSC_MAX_SLOTS; i++) {
		slots[i].enter = i * 3;
		slots[i].exit = i * 3;
	}
	CHECK_EQ(compsc_readers_inside(slots, 0xffffffffu), 0);
	CHECK_EQ(compsc_readers_inside(slots, 65535), 0);
	slots[COMPSC_MAX_SLOTS - 1].enter += 2;
	CHECK_EQ(compsc_readers_inside(slots, 0xffffffffu), 2);

	/* exits "ahead" of enters (guest garbage): never counts as drained */
	slots[0].exit = 1000;
	CHECK(compsc_readers_inside(slots, COMPSC_MAX_SLOTS) != 0);
	CHECK_EQ(compsc_writer_acquire(&ctl, slots, COMPSC_MAX_SLOTS, &env,
				       3000000), -COMPSC_ETIMEDOUT);
	CHECK_EQ(fc.relaxes, 3);
	CHECK_EQ(ctl.writer, COMPSC_WRITER_FREE);
	CHECK_EQ(ctl.version, 0);

	/* a huge timeout still ends when the clock says so */
	fc.relaxes = 0;
	fc.now = 0xffffffffffff0000ull;
	CHECK_EQ(compsc_writer_acquire(&ctl, slots, COMPSC_MAX_SLOTS, &env,
				       2000000), -COMPSC_ETIMEDOUT);
	CHECK_EQ(fc.relaxes, 2);
	free(slots);
	CHECK_DONE();
}
