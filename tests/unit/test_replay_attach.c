/* Attaching to an existing log keeps its contents and order, and refuses logs that are inconsistent (magic, capacity, count, lengths, order, duplicate keys), each with its own code and record. */
#include "check.h"
#include "replay_util.h"

#define CAP 6
static _Alignas(64) unsigned char mem[REPLAY_BYTES(CAP)];
static unsigned char good[sizeof(mem)];

static int reattach(void)
{
	struct compsc_replay l;

	memset(&l, 0x77, sizeof(l));
	return compsc_replay_attach(&l, mem, sizeof(mem), NULL, 0);
}

int main(void)
{
	struct compsc_replay l, m;
	struct compsc_replay_hdr *h = (struct compsc_replay_hdr *)mem;
	struct compsc_replay_rec *rec = (struct compsc_replay_rec *)(h + 1);

	CHECK_EQ(compsc_replay_init(&l, mem, sizeof(mem), NULL, 0), 0);
	CHECK_EQ(put_u32(&l, 7, 70), 0);
	CHECK_EQ(put_u32(&l, 8, 80), 0);
	CHECK_EQ(put_u32(&l, 9, 90), 0);
	CHECK_EQ(put_u32(&l, 7, 71), 0);
	memcpy(good, mem, sizeof(mem));

	CHECK_EQ(compsc_replay_attach(&m, mem, sizeof(mem), NULL, 0), 0);
	CHECK_EQ(compsc_replay_count(&m), 3);
	CHECK_EQ(key_at(&m, 0), 8);
	CHECK_EQ(key_at(&m, 2), 7);
	CHECK_EQ(val_of(&m, 7), 71);
	CHECK_EQ(put_u32(&m, 10, 100), 0);	/* and it keeps working */
	CHECK_EQ(key_at(&m, 3), 10);
	memcpy(mem, good, sizeof(mem));

#define BAD(mutation, code, rec) do {					\
		u32 bad = 0;						\
		memcpy(mem, good, sizeof(mem));				\
		mutation;						\
		CHECK_EQ(reattach(), code);				\
		CHECK_EQ(compsc_replay_check(mem, sizeof(mem), &bad), code); \
		CHECK_EQ(bad, rec);					\
	} while (0)
	BAD(h->magic ^= 1, -COMPSC_EREPLAY_MAGIC, COMPSC_REPLAY_NO_REC);
	/* more than the bytes hold */
	BAD(h->capacity = CAP + 1, -COMPSC_EREPLAY_ROOM, COMPSC_REPLAY_NO_REC);
	BAD(h->capacity = 0xffffffff, -COMPSC_EREPLAY_ROOM, COMPSC_REPLAY_NO_REC);
	BAD(h->count = CAP + 1, -COMPSC_EREPLAY_COUNT, COMPSC_REPLAY_NO_REC);
	BAD(h->count = 0xffffffff, -COMPSC_EREPLAY_COUNT, COMPSC_REPLAY_NO_REC);
	/* fine by capacity, but rec 3 is blank (seq 0 after seq 4) */
	BAD(h->count = 4, -COMPSC_EREPLAY_SEQ, 3);
	BAD(rec[1].len = COMPSC_REPLAY_DATA_MAX + 1, -COMPSC_EREPLAY_LEN, 1);
	BAD(rec[1].len = 0xffff, -COMPSC_EREPLAY_LEN, 1);
	BAD(rec[0].flags = 1, -COMPSC_EREPLAY_FLAGS, 0);
	BAD(rec[2].rsvd = 1, -COMPSC_EREPLAY_FLAGS, 2);
	BAD(rec[2].key = rec[0].key, -COMPSC_EREPLAY_DUPLICATE, 2);
	BAD(rec[1].seq = rec[0].seq, -COMPSC_EREPLAY_SEQ, 1);	/* out of order */
	BAD(rec[2].seq = h->seq + 1, -COMPSC_EREPLAY_SEQ, 2);	/* newer than the log */
#undef BAD
	memcpy(mem, good, sizeof(mem));
	CHECK_EQ(compsc_replay_check(mem, sizeof(mem), NULL), 3);
	CHECK_EQ(compsc_replay_attach(&m, mem, sizeof(mem) - 1, NULL, 0),
		 -COMPSC_EREPLAY_ROOM);		/* capacity no longer fits */
	CHECK_EQ(compsc_replay_attach(&m, mem, 4, NULL, 0), -COMPSC_EINVAL);
	CHECK_EQ(compsc_replay_check(mem, 4, NULL), -COMPSC_EINVAL);
	CHECK_EQ(compsc_replay_check(NULL, sizeof(mem), NULL), -COMPSC_EINVAL);
	CHECK_EQ(reattach(), 0);
	CHECK_DONE();
}
