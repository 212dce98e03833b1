/* The area's replay log is judged on a host copy by the replay log's own rules: blank is none, a hostile header or record is refused with its code and record, and the host's save refuses exactly the same logs. */
#include "check.h"
#include "host_fixture.h"

static struct hx h;
static u8 good[65536];

static struct compsc_replay_hdr *log_hdr(void)
{
	return compsc_area_replay(h.area);
}

static struct compsc_replay_rec *log_rec(u32 i)
{
	return (struct compsc_replay_rec *)(log_hdr() + 1) + i;
}

/* What the host's save says of the area as it is now: 0 saved, or its error. */
static int host_save(void)
{
	static u8 out[COMPSC_HOST_STREAM_MAX];
	struct compsc_host_save s;
	int n = hx_take_save(&h, out, sizeof(out), &s);

	compsc_writer_abort(compsc_area_ctl(h.area));
	return n < 0 ? n : 0;
}

/* The snapshot's verdict, its record and the host's save all agree. */
static void judge(int want, u32 want_bad, int line)
{
	static u64 copy[65536 / 8];
	u32 bad = 0;
	int n = compsc_area_snapshot_replay(h.area, h.len, copy, sizeof(copy),
					    &bad);
	int saved = host_save();

	if (n != want || bad != want_bad || saved != (want < 0 ? want : 0)) {
		fprintf(stderr, "line %d: snapshot %d (%s) record %u, save %d; "
			"want %d record %u\n", line, n, compsc_strerror(n), bad,
			saved, want, want_bad);
		check_failures++;
	}
}

#define JUDGE(want, bad) judge(want, bad, __LINE__)
#define NONE COMPSC_REPLAY_NO_REC

#define HOSTILE(mutation, want, bad) do {				\
		memcpy(h.area, good, h.len);				\
		mutation;						\
		JUDGE(want, bad);					\
	} while (0)

int main(void)
{
	u64 small[4];
	u32 bad;

	CHECK_EQ(hx_setup(&h), 0);
	hx_running(&h);
	memcpy(good, h.area, h.len);
	JUDGE(1, NONE);					/* one record */

	HOSTILE(memset(log_hdr(), 0, sizeof(*log_hdr())), 0, NONE); /* blank */
	HOSTILE(log_hdr()->magic ^= 1, -COMPSC_EREPLAY_MAGIC, NONE);
	HOSTILE(log_hdr()->capacity = 0xffffffff, -COMPSC_EREPLAY_ROOM, NONE);
	/* one more than the area's replay_len holds */
	HOSTILE(log_hdr()->capacity = (h.area->replay_len - 16) / 128 + 1,
		-COMPSC_EREPLAY_ROOM, NONE);
	HOSTILE(log_hdr()->count = 0xffffffff, -COMPSC_EREPLAY_COUNT, NONE);
	HOSTILE(log_rec(0)->len = 0xffff, -COMPSC_EREPLAY_LEN, 0);
	HOSTILE(log_rec(0)->flags = 1, -COMPSC_EREPLAY_FLAGS, 0);
	HOSTILE(log_rec(0)->seq = 0xffffffff, -COMPSC_EREPLAY_SEQ, 0);
	HOSTILE((log_hdr()->count = 2, log_rec(1)->seq = log_hdr()->seq = 9,
		 log_rec(1)->key = log_rec(0)->key),
		-COMPSC_EREPLAY_DUPLICATE, 1);

	/* a bad header is refused as compsc_area_check() refuses it */
	memcpy(h.area, good, h.len);
	CHECK_EQ(compsc_area_snapshot_replay(h.area, h.len - 1, small,
					     sizeof(small), &bad),
		 compsc_area_check(h.area, h.len - 1));
	/* the caller's copy must hold the whole region */
	CHECK_EQ(compsc_area_snapshot_replay(h.area, h.len, small,
					     sizeof(small), &bad),
		 -COMPSC_ENOSPC);
	CHECK_EQ(compsc_area_snapshot_replay(h.area, h.len, NULL, 64, &bad),
		 -COMPSC_EINVAL);
	hx_teardown(&h);
	CHECK_DONE();
}
