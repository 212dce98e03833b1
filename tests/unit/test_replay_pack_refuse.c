/* compsc_replay_unpack() refuses every malformed input with its own code and leaves the log exactly as it was. */
#include "check.h"
#include "replay_util.h"

#define N 4
#define HDR ((u32)sizeof(struct compsc_replay_pack_hdr))

static u8 mem[REPLAY_BYTES(N)], before[REPLAY_BYTES(N)];
static struct compsc_replay l;

/* refresh the header CRC after editing records, so later checks are reached */
static void fix_crc(u8 *buf, u32 len)
{
	__le32 crc = cpu_to_le32(compsc_crc32c(0, buf + HDR, len - HDR));

	memcpy(buf + 4, &crc, sizeof(crc));
}

static void set_count(u8 *buf, u16 count)
{
	buf[2] = (u8)count;
	buf[3] = (u8)(count >> 8);
}

/* unpack must fail with @want and not touch the log */
static void refuse(const u8 *buf, u32 len, int want, int line)
{
	int got = compsc_replay_unpack(&l, buf, len);

	if (got != want || memcmp(mem, before, sizeof(mem))) {
		fprintf(stderr, "line %d: got %d (%s), want %d; log %s\n", line,
			got, compsc_strerror(got), want,
			memcmp(mem, before, sizeof(mem)) ? "CHANGED" : "intact");
		check_failures++;
	}
}

#define REFUSE(b, n, w) refuse(b, n, w, __LINE__)

int main(void)
{
	static u8 src_mem[REPLAY_BYTES(8)];
	struct compsc_replay_rec stage[1];
	struct compsc_replay src;
	u8 good[256], b[256];
	u32 n;
	int i;

	CHECK_EQ(compsc_replay_init(&src, src_mem, sizeof(src_mem), NULL, 0), 0);
	CHECK_EQ(put_u32(&src, 1, 11), 0);
	CHECK_EQ(put_u32(&src, 2, 22), 0);
	CHECK_EQ(put_u32(&src, 3, 33), 0);
	n = (u32)compsc_replay_pack(&src, good, sizeof(good));
	CHECK_EQ(n, HDR + 3 * (COMPSC_REPLAY_PACK_REC_HDR + 4));

	/* the destination holds something: refusals must keep it */
	CHECK_EQ(compsc_replay_init(&l, mem, sizeof(mem), NULL, 0), 0);
	CHECK_EQ(put_u32(&l, 9, 99), 0);
	memcpy(before, mem, sizeof(mem));

	/* shorter than the header, at every length */
	for (i = 0; i < (int)HDR; i++)
		REFUSE(good, (u32)i, -COMPSC_EREPLAY_TRUNCATED);
	memcpy(b, good, n); b[0] ^= 1;
	REFUSE(b, n, -COMPSC_EREPLAY_MAGIC);
	memcpy(b, good, n); b[1] = 2;
	REFUSE(b, n, -COMPSC_EREPLAY_VERSION);
	memcpy(b, good, n); b[1] = 0;
	REFUSE(b, n, -COMPSC_EREPLAY_VERSION);
	/* any flipped record byte, or a wrong checksum */
	for (i = (int)HDR; i < (int)n; i++) {
		memcpy(b, good, n); b[i] ^= 0x40;
		REFUSE(b, n, -COMPSC_EREPLAY_CORRUPT);
	}
	memcpy(b, good, n); b[5] ^= 1;
	REFUSE(b, n, -COMPSC_EREPLAY_CORRUPT);
	/* cut inside a record, CRC made to match: truncated */
	for (i = (int)HDR + 1; i < (int)n; i++) {
		if ((i - (int)HDR) % (COMPSC_REPLAY_PACK_REC_HDR + 4) == 0)
			continue;	/* a record boundary: count says more */
		memcpy(b, good, n); fix_crc(b, (u32)i);
		REFUSE(b, (u32)i, -COMPSC_EREPLAY_TRUNCATED);
	}
	/* cut at a record boundary: the count promises a record that is not there */
	memcpy(b, good, n); fix_crc(b, n - 9);
	REFUSE(b, n - 9, -COMPSC_EREPLAY_TRUNCATED);
	/* trailing bytes after the last record */
	memcpy(b, good, n); b[n] = 0; fix_crc(b, n + 1);
	REFUSE(b, n + 1, -COMPSC_EREPLAY_TRAILING);
	/* a smaller count leaves the rest as trailing bytes */
	memcpy(b, good, n); set_count(b, 2); fix_crc(b, n);
	REFUSE(b, n, -COMPSC_EREPLAY_TRAILING);
	/* a record longer than COMPSC_REPLAY_DATA_MAX */
	memcpy(b, good, HDR);
	set_count(b, 1);
	memset(b + HDR, 0, 4);
	b[HDR + 4] = COMPSC_REPLAY_DATA_MAX + 1;
	memset(b + HDR + 5, 0, COMPSC_REPLAY_DATA_MAX + 1);
	fix_crc(b, HDR + 5 + COMPSC_REPLAY_DATA_MAX + 1);
	REFUSE(b, HDR + 5 + COMPSC_REPLAY_DATA_MAX + 1, -COMPSC_EREPLAY_LEN);
	/* the same key twice */
	memcpy(b, good, n); b[HDR + 9] = 1;	/* second key := 1 */
	fix_crc(b, n);
	REFUSE(b, n, -COMPSC_EREPLAY_DUPLICATE);
	/* more records than the destination log holds (N = 4) */
	CHECK_EQ(put_u32(&src, 4, 44), 0);
	CHECK_EQ(put_u32(&src, 5, 55), 0);
	n = (u32)compsc_replay_pack(&src, b, sizeof(b));
	REFUSE(b, n, -COMPSC_ENOSPC);
	/* a hostile count is refused before any quadratic work */
	memcpy(b, good, HDR); set_count(b, 0xffff); fix_crc(b, HDR);
	REFUSE(b, HDR, -COMPSC_ENOSPC);
	/* an open opset: the log is the driver's, not to be replaced */
	CHECK_EQ(compsc_replay_init(&l, mem, sizeof(mem), stage, 1), 0);
	CHECK_EQ(put_u32(&l, 9, 99), 0);
	memcpy(before, mem, sizeof(mem));
	CHECK_EQ(compsc_replay_opset_begin(&l), 0);
	REFUSE(good, HDR + 3 * 9, -COMPSC_ESTATE);
	compsc_replay_opset_abort(&l);

	/* and the original is still accepted */
	CHECK_EQ(compsc_replay_unpack(&l, good, HDR + 3 * 9), 0);
	CHECK_EQ(compsc_replay_count(&l), 3);
	CHECK_DONE();
}
