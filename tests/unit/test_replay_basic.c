/* Replay log basics: last write per key wins, an update moves the key to the end, deletes, order of iteration = order of last write. */
#include "check.h"
#include "replay_util.h"

static _Alignas(64) unsigned char mem[REPLAY_BYTES(8)];

int main(void)
{
	struct compsc_replay l;
	const struct compsc_replay_rec *r;
	unsigned char big[COMPSC_REPLAY_DATA_MAX + 1] = { 0 };

	memset(mem, 0xa5, sizeof(mem));
	CHECK_EQ(compsc_replay_init(&l, mem, sizeof(mem), NULL, 0), 0);
	CHECK_EQ(compsc_replay_count(&l), 0);
	CHECK_EQ(l.hdr->capacity, 8);
	CHECK_EQ(l.hdr->magic, COMPSC_REPLAY_MAGIC);
	CHECK(compsc_replay_at(&l, 0) == NULL);
	CHECK(compsc_replay_get(&l, 1) == NULL);

	CHECK_EQ(put_u32(&l, 10, 100), 0);
	CHECK_EQ(put_u32(&l, 20, 200), 0);
	CHECK_EQ(put_u32(&l, 30, 300), 0);
	CHECK_EQ(compsc_replay_count(&l), 3);
	CHECK_EQ(key_at(&l, 0), 10);
	CHECK_EQ(key_at(&l, 2), 30);

	/* rewrite key 10: one record, new value, now the newest */
	CHECK_EQ(put_u32(&l, 10, 101), 0);
	CHECK_EQ(compsc_replay_count(&l), 3);
	CHECK_EQ(val_of(&l, 10), 101);
	CHECK_EQ(key_at(&l, 0), 20);
	CHECK_EQ(key_at(&l, 1), 30);
	CHECK_EQ(key_at(&l, 2), 10);
	/* sequence numbers increase along the replay order */
	CHECK(compsc_replay_at(&l, 0)->seq < compsc_replay_at(&l, 1)->seq);
	CHECK(compsc_replay_at(&l, 1)->seq < compsc_replay_at(&l, 2)->seq);
	CHECK_EQ(l.hdr->seq, 4);

	/* delete the middle one; absent keys are fine */
	CHECK_EQ(compsc_replay_del(&l, 30), 0);
	CHECK_EQ(compsc_replay_del(&l, 999), 0);
	CHECK_EQ(compsc_replay_count(&l), 2);
	CHECK_EQ(key_at(&l, 0), 20);
	CHECK_EQ(key_at(&l, 1), 10);
	CHECK_EQ(val_of(&l, 30), -1);
	CHECK(compsc_replay_at(&l, 2) == NULL);

	/* empty and maximal payloads; too large is refused */
	CHECK_EQ(compsc_replay_put(&l, 40, NULL, 0), 0);
	r = compsc_replay_get(&l, 40);
	CHECK(r && r->len == 0);
	memset(big, 0x5c, sizeof(big));
	CHECK_EQ(compsc_replay_put(&l, 50, big, COMPSC_REPLAY_DATA_MAX), 0);
	r = compsc_replay_get(&l, 50);
	CHECK(r && r->len == COMPSC_REPLAY_DATA_MAX &&
	      !memcmp(r->data, big, COMPSC_REPLAY_DATA_MAX));
	CHECK_EQ(compsc_replay_put(&l, 60, big, COMPSC_REPLAY_DATA_MAX + 1),
		 -COMPSC_EINVAL);
	CHECK_EQ(compsc_replay_put(&l, 60, NULL, 4), -COMPSC_EINVAL);
	CHECK_EQ(compsc_replay_count(&l), 4);

	/* re-putting a record's own data (pointer into the log) is safe */
	r = compsc_replay_get(&l, 50);
	CHECK_EQ(compsc_replay_put(&l, 50, r->data, r->len), 0);
	r = compsc_replay_get(&l, 50);
	CHECK(r && !memcmp(r->data, big, COMPSC_REPLAY_DATA_MAX));
	CHECK_EQ(key_at(&l, 3), 50);

	/* no opsets without a staging buffer; bad init arguments */
	CHECK_EQ(compsc_replay_opset_begin(&l), -COMPSC_EINVAL);
	CHECK_EQ(compsc_replay_init(&l, mem, 8, NULL, 0), -COMPSC_EINVAL);
	CHECK_EQ(compsc_replay_init(&l, NULL, sizeof(mem), NULL, 0),
		 -COMPSC_EINVAL);
	CHECK_EQ(compsc_replay_init(&l, mem, sizeof(mem), NULL, 4),
		 -COMPSC_EINVAL);
	CHECK_DONE();
}
