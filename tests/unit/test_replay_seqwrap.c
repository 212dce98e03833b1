/* When the 32-bit write sequence would wrap, records are renumbered in order: replay order and re-attach survive any uptime. */
#include "check.h"
#include "replay_util.h"

static _Alignas(64) unsigned char mem[REPLAY_BYTES(4)];

int main(void)
{
	struct compsc_replay l, m;
	u32 i;

	CHECK_EQ(compsc_replay_init(&l, mem, sizeof(mem), NULL, 0), 0);
	CHECK_EQ(put_u32(&l, 1, 1), 0);
	CHECK_EQ(put_u32(&l, 2, 2), 0);
	CHECK_EQ(put_u32(&l, 3, 3), 0);
	/* pretend four billion writes happened, keeping the records in order */
	l.hdr->seq = 0xfffffffdu;
	l.recs[0].seq = 0xfffffffbu;
	l.recs[1].seq = 0xfffffffcu;
	l.recs[2].seq = 0xfffffffdu;
	CHECK_EQ(compsc_replay_attach(&m, mem, sizeof(mem), NULL, 0), 0);

	CHECK_EQ(put_u32(&l, 1, 10), 0);	/* seq 0xfffffffe */
	CHECK_EQ(put_u32(&l, 4, 40), 0);	/* seq 0xffffffff */
	CHECK_EQ(l.hdr->seq, 0xffffffffu);
	CHECK_EQ(put_u32(&l, 2, 20), 0);	/* wraps: renumbered */
	CHECK_EQ(compsc_replay_count(&l), 4);
	CHECK_EQ(key_at(&l, 0), 3);
	CHECK_EQ(key_at(&l, 1), 1);
	CHECK_EQ(key_at(&l, 2), 4);
	CHECK_EQ(key_at(&l, 3), 2);
	for (i = 0; i < 4; i++)
		CHECK_EQ(compsc_replay_at(&l, i)->seq, i + 1);
	CHECK_EQ(l.hdr->seq, 4);
	CHECK_EQ(val_of(&l, 2), 20);
	CHECK_EQ(compsc_replay_attach(&m, mem, sizeof(mem), NULL, 0), 0);
	CHECK_DONE();
}
