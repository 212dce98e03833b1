/* Opsets commit all or nothing: staged writes are invisible until commit, an opset that does not fit is refused with the log unchanged, the last staged write per key wins, abort drops everything. */
#include "check.h"
#include "replay_util.h"

#define CAP 4
static _Alignas(64) unsigned char mem[REPLAY_BYTES(CAP)];
static unsigned char before[sizeof(mem)];
static struct compsc_replay_rec stage[3];

int main(void)
{
	struct compsc_replay l;

	CHECK_EQ(compsc_replay_init(&l, mem, sizeof(mem), stage, 3), 0);
	CHECK_EQ(put_u32(&l, 1, 10), 0);
	CHECK_EQ(put_u32(&l, 2, 20), 0);

	/* staged, invisible, then applied in last-write order */
	CHECK_EQ(compsc_replay_opset_begin(&l), 0);
	CHECK_EQ(compsc_replay_opset_begin(&l), -COMPSC_ESTATE);
	CHECK_EQ(put_u32(&l, 3, 30), 0);
	CHECK_EQ(put_u32(&l, 1, 11), 0);
	CHECK_EQ(put_u32(&l, 3, 31), 0);	/* collapses with the first */
	CHECK_EQ(compsc_replay_count(&l), 2);
	CHECK_EQ(val_of(&l, 1), 10);
	CHECK_EQ(val_of(&l, 3), -1);
	CHECK_EQ(compsc_replay_opset_commit(&l), 0);
	CHECK_EQ(compsc_replay_count(&l), 3);
	CHECK_EQ(key_at(&l, 0), 2);
	CHECK_EQ(key_at(&l, 1), 1);
	CHECK_EQ(key_at(&l, 2), 3);
	CHECK_EQ(val_of(&l, 1), 11);
	CHECK_EQ(val_of(&l, 3), 31);
	CHECK_EQ(compsc_replay_opset_commit(&l), -COMPSC_ESTATE);

	/* two new keys but one free record: nothing is applied */
	memcpy(before, mem, sizeof(mem));
	CHECK_EQ(compsc_replay_opset_begin(&l), 0);
	CHECK_EQ(put_u32(&l, 2, 99), 0);
	CHECK_EQ(put_u32(&l, 4, 40), 0);
	CHECK_EQ(put_u32(&l, 5, 50), 0);
	CHECK_EQ(compsc_replay_opset_commit(&l), -COMPSC_ENOSPC);
	CHECK(!memcmp(before, mem, sizeof(mem)));
	CHECK_EQ(l.in_opset, 0);	/* the opset is over either way */

	/* the stage itself is bounded */
	CHECK_EQ(compsc_replay_opset_begin(&l), 0);
	CHECK_EQ(put_u32(&l, 6, 1), 0);
	CHECK_EQ(put_u32(&l, 7, 1), 0);
	CHECK_EQ(compsc_replay_del(&l, 8), 0);
	CHECK_EQ(put_u32(&l, 9, 1), -COMPSC_ENOSPC);
	CHECK_EQ(put_u32(&l, 7, 2), 0);		/* rewriting a staged key fits */
	compsc_replay_opset_abort(&l);
	CHECK(!memcmp(before, mem, sizeof(mem)));

	/* fill the log, then an opset that frees one and adds one fits */
	CHECK_EQ(put_u32(&l, 4, 40), 0);
	CHECK_EQ(compsc_replay_count(&l), CAP);
	CHECK_EQ(compsc_replay_opset_begin(&l), 0);
	CHECK_EQ(put_u32(&l, 5, 50), 0);	/* staged before the delete */
	CHECK_EQ(compsc_replay_del(&l, 2), 0);
	CHECK_EQ(compsc_replay_opset_commit(&l), 0);
	CHECK_EQ(compsc_replay_count(&l), CAP);
	CHECK_EQ(val_of(&l, 2), -1);
	CHECK_EQ(val_of(&l, 5), 50);
	CHECK_EQ(key_at(&l, CAP - 1), 5);

	/* put then delete of one key inside an opset: the delete wins */
	CHECK_EQ(compsc_replay_opset_begin(&l), 0);
	CHECK_EQ(put_u32(&l, 1, 12), 0);
	CHECK_EQ(compsc_replay_del(&l, 1), 0);
	CHECK_EQ(compsc_replay_opset_commit(&l), 0);
	CHECK_EQ(val_of(&l, 1), -1);
	CHECK_EQ(compsc_replay_count(&l), CAP - 1);

	/* delete then put: the put wins, as the newest record */
	CHECK_EQ(compsc_replay_opset_begin(&l), 0);
	CHECK_EQ(compsc_replay_del(&l, 3), 0);
	CHECK_EQ(put_u32(&l, 3, 33), 0);
	CHECK_EQ(compsc_replay_opset_commit(&l), 0);
	CHECK_EQ(val_of(&l, 3), 33);
	CHECK_EQ(key_at(&l, compsc_replay_count(&l) - 1), 3);

	/* an empty opset commits to nothing; abort outside an opset is harmless */
	memcpy(before, mem, sizeof(mem));
	CHECK_EQ(compsc_replay_opset_begin(&l), 0);
	CHECK_EQ(compsc_replay_opset_commit(&l), 0);
	compsc_replay_opset_abort(&l);
	CHECK(!memcmp(before, mem, sizeof(mem)));
	CHECK_DONE();
}
