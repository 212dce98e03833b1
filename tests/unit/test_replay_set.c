/* Replay log sets: a member added then deleted leaves nothing, N distinct members leave N records, re-adding one leaves one, other keys are untouched. */
#include "check.h"
#include "replay_util.h"

static _Alignas(64) unsigned char mem[REPLAY_BYTES(8)];

#define SET_A	0x0a0000u
#define SET_B	0x0b0000u

/* a member: 2 bytes of payload that do not name it, 6 that do */
struct member {
	u8 note[2];
	u8 addr[6];
};

static int add(struct compsc_replay *l, u32 set, u8 last, u8 note)
{
	struct member m = { { note, 0 }, { 2, 0, 0, 0, 0, last } };

	return compsc_replay_set_put(l, set, &m, sizeof(m), 2, 6);
}

static int del(struct compsc_replay *l, u32 set, u8 last)
{
	struct member m = { { 0xee, 0xee }, { 2, 0, 0, 0, 0, last } };

	return compsc_replay_set_del(l, set, &m, 2, 6);
}

/* last address byte of record @i, or -1 */
static int last_at(const struct compsc_replay *l, u32 i)
{
	const struct compsc_replay_rec *r = compsc_replay_at(l, i);

	return r ? r->data[7] : -1;
}

int main(void)
{
	struct compsc_replay l;
	struct compsc_replay_rec stage[2];
	u32 i;

	CHECK_EQ(compsc_replay_init(&l, mem, sizeof(mem), stage, 2), 0);
	CHECK_EQ(put_u32(&l, 0x77, 7), 0);

	/* added then deleted: nothing left, the other key stays */
	CHECK_EQ(add(&l, SET_A, 1, 0), 0);
	CHECK_EQ(compsc_replay_count(&l), 2);
	CHECK_EQ(del(&l, SET_A, 1), 0);
	CHECK_EQ(compsc_replay_count(&l), 1);
	CHECK_EQ(key_at(&l, 0), 0x77);

	/* N distinct members: N records, numbered from 0 in the set */
	for (i = 1; i <= 4; i++)
		CHECK_EQ(add(&l, SET_A, i, 0), 0);
	CHECK_EQ(compsc_replay_count(&l), 5);
	for (i = 1; i <= 4; i++) {
		CHECK_EQ(key_at(&l, i), SET_A | (i - 1));
		CHECK_EQ(last_at(&l, i), i);
	}

	/* the same member again: one record, its new data, moved last */
	CHECK_EQ(add(&l, SET_A, 2, 0x55), 0);
	CHECK_EQ(compsc_replay_count(&l), 5);
	CHECK_EQ(key_at(&l, 4), SET_A | 1);
	CHECK_EQ(compsc_replay_at(&l, 4)->data[0], 0x55);
	CHECK_EQ(last_at(&l, 3), 4);

	/* the same identity in another set is another member */
	CHECK_EQ(add(&l, SET_B, 2, 0), 0);
	CHECK_EQ(compsc_replay_count(&l), 6);
	CHECK_EQ(del(&l, SET_B, 2), 0);
	CHECK(compsc_replay_get(&l, SET_A | 1) != NULL);

	/* a freed number is reused; deleting an absent member is fine */
	CHECK_EQ(del(&l, SET_A, 1), 0);
	CHECK_EQ(del(&l, SET_A, 9), 0);
	CHECK_EQ(compsc_replay_count(&l), 4);
	CHECK_EQ(add(&l, SET_A, 9, 0), 0);
	CHECK_EQ(key_at(&l, 4), SET_A | 0);

	/* churn never grows the log */
	for (i = 0; i < 1000; i++) {
		CHECK_EQ(add(&l, SET_A, 100 + i % 3, 0), 0);
		if (i % 2)
			CHECK_EQ(del(&l, SET_A, 100 + i % 3), 0);
	}
	CHECK(compsc_replay_count(&l) <= 8);

	/* full: refused, the log unchanged */
	while (compsc_replay_count(&l) < 8)
		CHECK_EQ(put_u32(&l, 0x100 + compsc_replay_count(&l), 0), 0);
	CHECK_EQ(add(&l, SET_A, 200, 0), -COMPSC_ENOSPC);
	CHECK_EQ(compsc_replay_count(&l), 8);

	/* bad arguments, and no sets inside an opset */
	CHECK_EQ(add(&l, SET_A | 1, 3, 0), -COMPSC_EINVAL);
	CHECK_EQ(compsc_replay_set_put(&l, SET_A, stage, 4, 2, 6),
		 -COMPSC_EINVAL);
	CHECK_EQ(compsc_replay_opset_begin(&l), 0);
	CHECK_EQ(add(&l, SET_A, 3, 0), -COMPSC_ESTATE);
	CHECK_EQ(del(&l, SET_A, 3), -COMPSC_ESTATE);
	compsc_replay_opset_abort(&l);
	CHECK_DONE();
}
