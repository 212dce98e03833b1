/* Replay log list messages: elements become set members (added, deleted, renamed), a whole-replaced set gathers back into the one message it came from. */
#include "check.h"
#include "replay_util.h"

static _Alignas(64) unsigned char mem[REPLAY_BYTES(16)];

/* a list message: u16 tag, u16 count, then 4-byte elements (id: 2 bytes) */
struct msg {
	u16 tag, n;
	u8 e[9][4];
};

/* messages carry 4 zero bytes after their elements */
static const struct compsc_replay_list named = {
	.set = 0x10000, .pre = 1, .hdr = 4, .cnt = 2, .elem = 4, .id = 2,
	.pad = 4,
};
static const struct compsc_replay_list whole = {
	.set = 0x20000, .pre = 1, .hdr = 4, .cnt = 2, .elem = 4, .id = 0,
	.pad = 4,
};

static u32 msg_len(const struct msg *m)
{
	return 4 + m->n * 4u + 4;
}

static int put(struct compsc_replay *l, const struct compsc_replay_list *t,
	       struct msg *m, int del)
{
	u8 pre = 0x99;

	return compsc_replay_list_put(l, t, &pre, m, msg_len(m), del);
}

int main(void)
{
	struct compsc_replay l;
	struct msg m = { 7, 3, { { 1, 0, 0xa }, { 2, 0, 0xb }, { 3, 0, 0xc } } };
	struct msg q = { 5, 4, { { 1 }, { 2 }, { 3 }, { 4 } } };
	const struct compsc_replay_rec *r;
	u8 buf[64], pre = 0x99;

	CHECK_EQ(compsc_replay_init(&l, mem, sizeof(mem), NULL, 0), 0);

	/* three elements, three one-element records: prefix, header with
	 * a count of 1, the element
	 */
	CHECK_EQ(put(&l, &named, &m, 0), 0);
	CHECK_EQ(compsc_replay_count(&l), 3);
	r = compsc_replay_at(&l, 1);
	CHECK(r && r->key == (0x10000 | 1) && r->len == 9 + 4);
	CHECK(r && r->data[0] == 0x99 && r->data[1] == 7 && r->data[3] == 1 &&
	      r->data[4] == 0 && r->data[5] == 2 && r->data[7] == 0xb);

	/* the same elements again (new payload): still three */
	m.e[0][2] = 0xee;
	CHECK_EQ(put(&l, &named, &m, 0), 0);
	CHECK_EQ(compsc_replay_count(&l), 3);
	CHECK_EQ(compsc_replay_get(&l, 0x10000)->data[7], 0xee);

	/* delete two (payload does not matter, the id does) */
	m.n = 2;
	memset(m.e[2], 0, 4);
	m.e[1][3] = 0x55;
	CHECK_EQ(put(&l, &named, &m, 1), 0);
	CHECK_EQ(compsc_replay_count(&l), 1);
	CHECK_EQ(compsc_replay_at(&l, 0)->data[5], 3);

	/* a whole-replaced set: members 0..3, then a smaller message
	 * replaces all of them
	 */
	CHECK_EQ(put(&l, &whole, &q, 0), 0);
	CHECK_EQ(compsc_replay_count(&l), 5);
	q.n = 2;
	q.e[0][1] = 0x42;
	memset(q.e[2], 0, 8);
	CHECK_EQ(put(&l, &whole, &q, 0), 0);
	CHECK_EQ(compsc_replay_count(&l), 3);
	CHECK(compsc_replay_get(&l, 0x20000 | 2) == NULL);
	CHECK_EQ(put(&l, &whole, &q, 1), -COMPSC_EINVAL);

	/* gathered back: byte for byte the message last sent */
	memset(buf, 0xff, sizeof(buf));
	CHECK_EQ(compsc_replay_list_gather(&l, &whole, 1, buf, sizeof(buf)),
		 1 + 4 + 8 + 4);
	CHECK_EQ(buf[0], 0x99);
	CHECK(!memcmp(buf + 1, &q, 4 + 8 + 4));
	CHECK_EQ(compsc_replay_list_gather(&l, &whole, 2, buf, sizeof(buf)), 0);
	CHECK_EQ(compsc_replay_list_gather(&l, &whole, 1, buf, 16),
		 -COMPSC_ENOSPC);
	CHECK_EQ(compsc_replay_list_gather(&l, &whole, 0, buf, sizeof(buf)),
		 -COMPSC_EINVAL);

	/* bad lengths are refused and change nothing */
	CHECK_EQ(compsc_replay_list_put(&l, &named, &pre, &m, msg_len(&m) - 1,
					0), -COMPSC_EMALFORMED);
	CHECK_EQ(compsc_replay_list_put(&l, &named, &pre, &m, 3, 0),
		 -COMPSC_EMALFORMED);
	CHECK_EQ(compsc_replay_count(&l), 3);

	/* clearing a set leaves the others; clearing all leaves nothing */
	CHECK_EQ(compsc_replay_set_clear(&l, 0x20000), 0);
	CHECK_EQ(compsc_replay_count(&l), 1);
	CHECK_EQ(compsc_replay_clear(&l), 0);
	CHECK_EQ(compsc_replay_count(&l), 0);
	CHECK_DONE();
}
