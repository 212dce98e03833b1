/* compsc_replay_pack()/unpack() round-trip: same records in the same order, only used bytes, deterministic, fresh sequence numbers. */
#include "check.h"
#include "replay_util.h"

#define N 8

/* records of @a and @b: same keys, lengths and data, in the same order */
static int same_log(const struct compsc_replay *a, const struct compsc_replay *b)
{
	const struct compsc_replay_rec *x, *y;
	u32 i;

	if (compsc_replay_count(a) != compsc_replay_count(b))
		return 0;
	for (i = 0; (x = compsc_replay_at(a, i)); i++) {
		y = compsc_replay_at(b, i);
		if (x->key != y->key || x->len != y->len ||
		    memcmp(x->data, y->data, le16_to_cpu(x->len)))
			return 0;
	}
	return 1;
}

int main(void)
{
	static u8 mem_a[REPLAY_BYTES(N)], mem_b[REPLAY_BYTES(N)];
	struct compsc_replay_rec stage[N];
	struct compsc_replay a, b;
	u8 buf[1024], buf2[1024], big[COMPSC_REPLAY_DATA_MAX];
	struct compsc_replay_pack_hdr h;
	int n, i;

	CHECK_EQ(compsc_replay_init(&a, mem_a, sizeof(mem_a), stage, N), 0);
	CHECK_EQ(compsc_replay_init(&b, mem_b, sizeof(mem_b), NULL, 0), 0);

	/* empty log: just the header */
	n = compsc_replay_pack(&a, buf, sizeof(buf));
	CHECK_EQ(n, sizeof(struct compsc_replay_pack_hdr));
	memcpy(&h, buf, sizeof(h));
	CHECK_EQ(h.magic, COMPSC_REPLAY_PACK_MAGIC);
	CHECK_EQ(h.version, COMPSC_REPLAY_PACK_V1);
	CHECK_EQ(h.count, 0);
	CHECK_EQ(compsc_replay_unpack(&b, buf, (u32)n), 0);
	CHECK_EQ(compsc_replay_count(&b), 0);

	/* a mix: u32 payloads, an empty one, a full one; then reorder */
	for (i = 0; i < (int)sizeof(big); i++)
		big[i] = (u8)(i * 7 + 1);
	CHECK_EQ(put_u32(&a, 10, 100), 0);
	CHECK_EQ(compsc_replay_put(&a, 0xffffffffu, NULL, 0), 0);
	CHECK_EQ(compsc_replay_put(&a, 3, big, sizeof(big)), 0);
	CHECK_EQ(put_u32(&a, 7, 70), 0);
	CHECK_EQ(put_u32(&a, 10, 101), 0);	/* moves to the end */
	n = compsc_replay_pack(&a, buf, sizeof(buf));
	CHECK_EQ(n, 8 + 4 * COMPSC_REPLAY_PACK_REC_HDR + 4 + 0 + 112 + 4);
	/* little-endian key of the first record (0xffffffff) right after the header */
	CHECK_EQ(buf[8], 0xff);
	CHECK_EQ(buf[12], 0);		/* its length */
	CHECK_EQ(buf[13], 3);		/* next key, low byte first */

	/* stale contents in the destination are replaced entirely */
	CHECK_EQ(put_u32(&b, 99, 9), 0);
	CHECK_EQ(put_u32(&b, 98, 8), 0);
	CHECK_EQ(put_u32(&b, 97, 7), 0);
	CHECK_EQ(put_u32(&b, 96, 6), 0);
	CHECK_EQ(put_u32(&b, 95, 5), 0);
	CHECK_EQ(compsc_replay_unpack(&b, buf, (u32)n), 0);
	CHECK(same_log(&a, &b));
	CHECK_EQ(key_at(&b, 0), 0xffffffffu);
	CHECK_EQ(key_at(&b, 3), 10);
	CHECK_EQ(val_of(&b, 10), 101);
	CHECK_EQ(compsc_replay_get(&b, 99), NULL);
	/* sequence numbers restart at 1 in order; the log attaches cleanly */
	for (i = 0; i < 4; i++)
		CHECK_EQ(compsc_replay_at(&b, (u32)i)->seq, i + 1);
	CHECK_EQ(le32_to_cpu(b.hdr->seq), 4);
	CHECK_EQ(b.recs[4].key, 0);	/* the old tail was cleared */
	CHECK_EQ(compsc_replay_attach(&b, mem_b, sizeof(mem_b), NULL, 0), 0);

	/* deterministic: repacking the copy gives the same bytes */
	CHECK_EQ(compsc_replay_pack(&b, buf2, sizeof(buf2)), n);
	CHECK(!memcmp(buf, buf2, (size_t)n));
	/* the log keeps working after an unpack */
	CHECK_EQ(put_u32(&b, 7, 71), 0);
	CHECK_EQ(key_at(&b, 3), 7);
	CHECK_EQ(compsc_replay_at(&b, 3)->seq, 5);

	/* too small: -ENOSPC and nothing written; exactly enough works */
	memset(buf2, 0xaa, sizeof(buf2));
	CHECK_EQ(compsc_replay_pack(&a, buf2, (u32)n - 1), -COMPSC_ENOSPC);
	CHECK_EQ(buf2[0], 0xaa);
	CHECK_EQ(compsc_replay_pack(&a, NULL, 0), -COMPSC_ENOSPC);
	CHECK_EQ(compsc_replay_pack(&a, buf2, (u32)n), n);

	/* staged opset writes are not part of the log, nor of its packed form */
	CHECK_EQ(compsc_replay_opset_begin(&a), 0);
	CHECK_EQ(put_u32(&a, 55, 5), 0);
	CHECK_EQ(compsc_replay_pack(&a, buf2, sizeof(buf2)), n);
	CHECK(!memcmp(buf, buf2, (size_t)n));
	compsc_replay_opset_abort(&a);

	/* arguments */
	CHECK_EQ(compsc_replay_pack(NULL, buf, sizeof(buf)), -COMPSC_EINVAL);
	CHECK_EQ(compsc_replay_pack(&a, NULL, 8), -COMPSC_EINVAL);
	CHECK_EQ(compsc_replay_unpack(NULL, buf, (u32)n), -COMPSC_EINVAL);
	CHECK_EQ(compsc_replay_unpack(&b, NULL, (u32)n), -COMPSC_EINVAL);
	CHECK_DONE();
}
