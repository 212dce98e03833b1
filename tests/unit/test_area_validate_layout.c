/* Area validation: bad magic/ABI, sizes, reserved fields, misaligned, out-of-area or overlapping sections are refused. */
#include "check.h"
#include "area_fixture.h"

static struct compsc_area_hdr *a;
static struct compsc_area_hdr good;
static u32 len;

/* Apply an edit to the header, expect @err from check and snapshot, undo. */
#define EXPECT(edit, err) do {						\
	u32 _bad;							\
	edit;								\
	CHECK_EQ(compsc_area_check(a, len), err);			\
	CHECK_EQ(fx_snap_regs(a, len, &_bad), err);			\
	CHECK_EQ(fx_snap_ctrs(a, len, &_bad), err);			\
	memcpy(a, &good, sizeof(good));					\
} while (0)

int main(void)
{
	a = fx_area(&len);
	memcpy(&good, a, sizeof(good));

	CHECK_EQ(compsc_area_check(NULL, len), -COMPSC_EINVAL);
	CHECK_EQ(compsc_area_check(a, 63), -COMPSC_EAREA_LAYOUT);
	CHECK_EQ(compsc_area_check(a, len - 1), -COMPSC_EAREA_LAYOUT);
	EXPECT(a->magic ^= 0x100, -COMPSC_EAREA_MAGIC);
	EXPECT(a->abi_major = COMPSC_ABI_MAJOR + 1, -COMPSC_EAREA_VERSION);
	EXPECT(a->abi_minor = COMPSC_ABI_MINOR + 3, 0);	/* compatible */
	EXPECT(a->size = len + 64, -COMPSC_EAREA_LAYOUT);
	EXPECT(a->size = 32, -COMPSC_EAREA_LAYOUT);
	EXPECT(a->rsvd0 = 1, -COMPSC_EREG_FLAGS);
	EXPECT(a->rsvd1 = 1, -COMPSC_EREG_FLAGS);
	EXPECT(a->nr_slots = 1, -COMPSC_EAREA_LAYOUT);
	EXPECT(a->nr_slots = COMPSC_MAX_SLOTS + 1, -COMPSC_EAREA_LAYOUT);
	EXPECT(a->nr_slots = 0xffff, -COMPSC_EAREA_LAYOUT);
	EXPECT(a->replay_len = 8, -COMPSC_EAREA_LAYOUT);
	/* misaligned sections */
	EXPECT(a->reg_off += 8, -COMPSC_EAREA_LAYOUT);
	EXPECT(a->ctl_off += 4, -COMPSC_EAREA_LAYOUT);
	/* sections past the end, including offsets that would wrap u32 */
	EXPECT(a->replay_len = len, -COMPSC_EAREA_LAYOUT);
	EXPECT(a->replay_off = len, -COMPSC_EAREA_LAYOUT);
	EXPECT(a->counter_off = 0xffffffc0u, -COMPSC_EAREA_LAYOUT);
	EXPECT(a->replay_len = 0xffffffffu, -COMPSC_EAREA_LAYOUT);
	/* overlapping sections, the header included */
	EXPECT(a->saved_off = a->reg_off, -COMPSC_EAREA_LAYOUT);
	EXPECT(a->ctl_off = 0, -COMPSC_EAREA_LAYOUT);
	EXPECT(a->counter_off = a->slots_off + 64, -COMPSC_EAREA_LAYOUT);
	EXPECT(a->nr_slots = a->nr_slots + 1, -COMPSC_EAREA_LAYOUT);
	/* the unedited area is fine */
	CHECK_EQ(compsc_area_check(a, len), 0);
	/* a header claiming more than the ABI maximum, with a big mapping */
	{
		u32 big = COMPSC_AREA_MAX_SIZE + 4096;
		struct compsc_area_hdr *b = calloc(1, big);

		memcpy(b, &good, sizeof(good));
		b->size = COMPSC_AREA_MAX_SIZE + 64;
		CHECK_EQ(compsc_area_check(b, big), -COMPSC_EAREA_LAYOUT);
		free(b);
	}
	free(a);
	CHECK_DONE();
}
