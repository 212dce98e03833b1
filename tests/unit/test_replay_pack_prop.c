/* Random logs round-trip through pack/unpack; random damage to a packed log is refused with the log intact, or accepted only if it repacks to the same bytes. */
#include "check.h"
#include "replay_util.h"

#define N 16
#define ROUNDS 3000
#define BUF (8 + N * (COMPSC_REPLAY_PACK_REC_HDR + COMPSC_REPLAY_DATA_MAX) + 64)

static void random_log(struct compsc_replay *l, uint64_t *s)
{
	u8 data[COMPSC_REPLAY_DATA_MAX];
	u32 ops = (u32)(test_rand(s) % 64), i, j, len, key;

	for (i = 0; i < ops; i++) {
		key = (u32)(test_rand(s) % 24);
		if (test_rand(s) % 8 == 0)
			key |= 0xabcd0000u;	/* keys use all 32 bits */
		if (test_rand(s) % 5 == 0) {
			compsc_replay_del(l, key);
			continue;
		}
		len = (u32)(test_rand(s) % (COMPSC_REPLAY_DATA_MAX + 1));
		for (j = 0; j < len; j++)
			data[j] = (u8)test_rand(s);
		compsc_replay_put(l, key, data, len);	/* may be full */
	}
}

/* damage @b: flip, cut, extend or splice, sometimes with a fixed CRC */
static u32 damage(u8 *b, u32 n, uint64_t *s)
{
	u32 k = (u32)(test_rand(s) % 4), at = (u32)(test_rand(s) % n);
	__le32 crc;

	if (k == 0)
		b[at] ^= (u8)(1u << (test_rand(s) % 8));
	else if (k == 1)
		n = at;
	else if (k == 2)
		b[n++] = (u8)test_rand(s);
	else
		b[at] = (u8)test_rand(s);
	if (n >= 8 && test_rand(s) % 2) {
		crc = cpu_to_le32(compsc_crc32c(0, b + 8, n - 8));
		memcpy(b + 4, &crc, sizeof(crc));
	}
	return n;
}

int main(void)
{
	static u8 mem_a[REPLAY_BYTES(N)], mem_b[REPLAY_BYTES(N)], keep[REPLAY_BYTES(N)];
	uint64_t s = test_seed("test_replay_pack_prop");
	u8 buf[BUF + 1], buf2[BUF + 1];
	struct compsc_replay a, b;
	int r, n, m, ret;

	for (r = 0; r < ROUNDS && !check_failures; r++) {
		CHECK_EQ(compsc_replay_init(&a, mem_a, sizeof(mem_a), NULL, 0), 0);
		CHECK_EQ(compsc_replay_init(&b, mem_b, sizeof(mem_b), NULL, 0), 0);
		random_log(&a, &s);
		random_log(&b, &s);	/* stale destination contents */
		n = compsc_replay_pack(&a, buf, BUF);
		CHECK(n >= 8);
		CHECK_EQ(compsc_replay_unpack(&b, buf, (u32)n), 0);
		CHECK_EQ(compsc_replay_pack(&b, buf2, BUF), n);
		CHECK(!memcmp(buf, buf2, (size_t)n));
		CHECK_EQ(compsc_replay_count(&a), compsc_replay_count(&b));
		CHECK_EQ(compsc_replay_attach(&b, mem_b, sizeof(mem_b), NULL, 0), 0);

		memcpy(keep, mem_b, sizeof(mem_b));
		m = (int)damage(buf, (u32)n, &s);
		ret = compsc_replay_unpack(&b, buf, (u32)m);
		if (ret) {
			CHECK(!memcmp(keep, mem_b, sizeof(mem_b)));
			continue;
		}
		/* accepted: then it is a canonical packed log */
		CHECK_EQ(compsc_replay_pack(&b, buf2, BUF), m);
		CHECK(!memcmp(buf, buf2, (size_t)m));
	}
	if (check_failures)
		fprintf(stderr, "failed in round %d\n", r - 1);
	CHECK_DONE();
}
