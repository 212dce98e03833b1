/* Attaching to an existing log keeps its contents and order, and refuses logs that are inconsistent (magic, capacity, count, lengths, order, duplicate keys). */
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

#define BAD(mutation) do {						\
		memcpy(mem, good, sizeof(mem));				\
		mutation;						\
		CHECK_EQ(reattach(), -COMPSC_EINVAL);			\
	} while (0)
	BAD(h->magic ^= 1);
	BAD(h->capacity = CAP + 1);		/* more than the bytes hold */
	BAD(h->count = CAP + 1);
	BAD(h->count = 4);			/* fine by capacity, but rec 3 is blank */
	BAD(rec[1].len = COMPSC_REPLAY_DATA_MAX + 1);
	BAD(rec[0].flags = 1);
	BAD(rec[2].rsvd = 1);
	BAD(rec[2].key = rec[0].key);		/* duplicate key */
	BAD(rec[1].seq = rec[0].seq);		/* out of order */
	BAD(rec[2].seq = h->seq + 1);		/* newer than the log */
#undef BAD
	memcpy(mem, good, sizeof(mem));
	CHECK_EQ(compsc_replay_attach(&m, mem, sizeof(mem) - 1, NULL, 0),
		 -COMPSC_EINVAL);		/* capacity no longer fits */
	CHECK_EQ(compsc_replay_attach(&m, mem, 4, NULL, 0), -COMPSC_EINVAL);
	CHECK_EQ(reattach(), 0);
	CHECK_DONE();
}
