/* A full replay log refuses a new key with -ENOSPC and stays byte-for-byte unchanged; updates and deletes of existing keys still work. */
#include "check.h"
#include "replay_util.h"

#define CAP 5
static _Alignas(64) unsigned char mem[REPLAY_BYTES(CAP)];
static unsigned char before[sizeof(mem)];

int main(void)
{
	struct compsc_replay l;
	u32 k;

	/* a buffer with a partial record's worth of slack: capacity rounds down */
	CHECK_EQ(compsc_replay_init(&l, mem, sizeof(mem) - 1, NULL, 0), 0);
	CHECK_EQ(l.hdr->capacity, CAP - 1);
	CHECK_EQ(compsc_replay_init(&l, mem, sizeof(mem), NULL, 0), 0);
	CHECK_EQ(l.hdr->capacity, CAP);
	for (k = 0; k < CAP; k++)
		CHECK_EQ(put_u32(&l, k, k * 7), 0);
	CHECK_EQ(compsc_replay_count(&l), CAP);

	memcpy(before, mem, sizeof(mem));
	CHECK_EQ(put_u32(&l, 1000, 1), -COMPSC_ENOSPC);
	CHECK_EQ(put_u32(&l, 1001, 1), -COMPSC_ENOSPC);
	CHECK(!memcmp(before, mem, sizeof(mem)));
	CHECK_EQ(val_of(&l, 1000), -1);

	/* existing keys: update in place of a full log */
	CHECK_EQ(put_u32(&l, 2, 22), 0);
	CHECK_EQ(val_of(&l, 2), 22);
	CHECK_EQ(key_at(&l, CAP - 1), 2);
	CHECK_EQ(compsc_replay_count(&l), CAP);

	/* room again after a delete */
	CHECK_EQ(compsc_replay_del(&l, 0), 0);
	CHECK_EQ(put_u32(&l, 1000, 1), 0);
	CHECK_EQ(compsc_replay_count(&l), CAP);
	CHECK_EQ(key_at(&l, CAP - 1), 1000);

	/* a zero-capacity log is legal and always full */
	CHECK_EQ(compsc_replay_init(&l, mem, REPLAY_BYTES(0), NULL, 0), 0);
	CHECK_EQ(put_u32(&l, 1, 1), -COMPSC_ENOSPC);
	CHECK_EQ(compsc_replay_count(&l), 0);
	CHECK_DONE();
}
