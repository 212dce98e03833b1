/* The sorted key check names the same first repeated record as the pairwise one (start, middle and end of 65,535 records; random logs, seeded), keeps the log on refusal; compsc_replay_pack_count() judges only the header and what the bytes can hold. */
#include "check.h"
#include "replay_util.h"

#define MAXN	0xffffu
#define HDR	((u32)sizeof(struct compsc_replay_pack_hdr))
#define REC	COMPSC_REPLAY_PACK_REC_HDR

static u8 pack[HDR + MAXN * (REC + 4)];
static u64 keys[MAXN];

/* A packed log of @n records, record i keyed key[i], 4 data bytes each. */
static u32 build(const u32 *key, u32 n)
{
	struct compsc_replay_pack_hdr h = {
		.magic = COMPSC_REPLAY_PACK_MAGIC,
		.version = COMPSC_REPLAY_PACK_V1,
		.count = cpu_to_le16((u16)n),
	};
	u8 *p = pack + HDR;
	u32 i;

	for (i = 0; i < n; i++, p += REC + 4) {
		memcpy(p, &key[i], 4);
		p[4] = 4;
		memcpy(p + REC, &i, 4);
	}
	h.crc32c = cpu_to_le32(compsc_crc32c(0, pack + HDR, (u32)(p - pack) - HDR));
	memcpy(pack, &h, sizeof(h));
	return (u32)(p - pack);
}

/* A log of room @n holding one record, refusals must leave it so. */
static struct compsc_replay *fresh_log(u32 n)
{
	static struct compsc_replay l;
	static u8 *mem;
	static u32 room;

	if (n > room) {
		free(mem);
		mem = malloc(REPLAY_BYTES(n));
		room = n;
	}
	if (!mem || compsc_replay_init(&l, mem, (u32)REPLAY_BYTES(n), NULL, 0) ||
	    put_u32(&l, 0xdead, 1))
		abort();
	return &l;
}

/* Unpack with (sorted) and without (pairwise) scratch: one verdict. */
static void both(u32 len, u32 n, int want, u32 want_bad, int pairwise)
{
	struct compsc_replay *l = fresh_log(n);
	u32 bad = 0;
	int got = compsc_replay_unpack_keys(l, pack, len, keys, n, &bad);

	CHECK_EQ(got, want);
	CHECK_EQ(bad, want_bad);
	CHECK_EQ(compsc_replay_count(l), want ? 1 : n);	/* intact on refusal */
	if (!pairwise)
		return;
	l = fresh_log(n);
	CHECK_EQ(compsc_replay_unpack_keys(l, pack, len, NULL, 0, &bad), want);
	CHECK_EQ(bad, want_bad);
}

static void big(void)
{
	static u32 key[MAXN];
	static const u32 at[][2] = { { 1, 0 }, { 32768, 100 }, { MAXN - 1, MAXN - 2 } };
	u32 i, j, len;

	for (i = 0; i < MAXN; i++)
		key[i] = 0x10000u + i * 7919u;	/* distinct, not in order */
	len = build(key, MAXN);
	both(len, MAXN, 0, COMPSC_REPLAY_NO_REC, 0);
	CHECK_EQ(compsc_replay_pack_count(pack, len), MAXN);
	for (j = 0; j < 3; j++) {
		key[at[j][0]] = key[at[j][1]];
		len = build(key, MAXN);
		/* pairwise for the first only: it stops there, cheap */
		both(len, MAXN, -COMPSC_EREPLAY_DUPLICATE, at[j][0], j == 0);
		key[at[j][0]] = 0x10000u + at[j][0] * 7919u;
	}
}

/* Random logs whose keys often repeat: both checks name the same record. */
static void random_logs(void)
{
	uint64_t s = test_seed("test_replay_unpack_keys");
	static u32 key[600];
	u32 r, i, n, range, len, first, j;

	for (r = 0; r < 2000 && !check_failures; r++) {
		n = 2 + (u32)(test_rand(&s) % 599);
		range = 1 + (u32)(test_rand(&s) % (4 * n));
		for (i = 0; i < n; i++)
			key[i] = (u32)(test_rand(&s) % range) * 0x01000193u;
		for (first = COMPSC_REPLAY_NO_REC, i = 1; i < n && first == COMPSC_REPLAY_NO_REC; i++)
			for (j = 0; j < i; j++)
				if (key[j] == key[i])
					first = i;
		len = build(key, n);
		both(len, n, first == COMPSC_REPLAY_NO_REC ? 0 : -COMPSC_EREPLAY_DUPLICATE,
		     first, 1);
	}
}

static void pack_count(void)
{
	u32 key[3] = { 1, 2, 3 }, len = build(key, 3);

	CHECK_EQ(compsc_replay_pack_count(pack, len), 3);
	CHECK_EQ(compsc_replay_pack_count(pack, HDR + 3 * REC), 3);
	CHECK_EQ(compsc_replay_pack_count(pack, HDR + 3 * REC - 1),
		 -COMPSC_EREPLAY_TRUNCATED);	/* cannot hold 3 records */
	CHECK_EQ(compsc_replay_pack_count(pack, HDR - 1), -COMPSC_EREPLAY_TRUNCATED);
	CHECK_EQ(compsc_replay_pack_count(NULL, len), -COMPSC_EINVAL);
	pack[1] = 2;
	CHECK_EQ(compsc_replay_pack_count(pack, len), -COMPSC_EREPLAY_VERSION);
	pack[0] ^= 1;
	CHECK_EQ(compsc_replay_pack_count(pack, len), -COMPSC_EREPLAY_MAGIC);
	/* a scratch that is short falls back to pairs; none with a size is refused */
	len = build(key, 3);
	both(len, 3, 0, COMPSC_REPLAY_NO_REC, 1);
	CHECK_EQ(compsc_replay_unpack_keys(fresh_log(3), pack, len, keys, 2, NULL), 0);
	CHECK_EQ(compsc_replay_unpack_keys(fresh_log(3), pack, len, NULL, 3, NULL),
		 -COMPSC_EINVAL);
}

int main(void)
{
	big();
	random_logs();
	pack_count();
	CHECK_DONE();
}
