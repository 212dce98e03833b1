/* Property: random puts, deletes and opsets (commits and aborts) against a reference model: same records, same values, same deterministic replay order, ENOSPC exactly when the model overflows, and the log re-attaches. */
#include "check.h"
#include "replay_util.h"

#define CAP	16
#define KEYS	24
#define STAGE	6
#define ROUNDS	20000

static _Alignas(64) unsigned char mem[REPLAY_BYTES(CAP)];
static struct compsc_replay_rec stage[STAGE];

/* Model: keys in last-write order with their values. */
struct model { u32 n; u32 key[KEYS]; u32 val[KEYS]; };

static int m_find(const struct model *m, u32 key)
{
	u32 i;

	for (i = 0; i < m->n; i++)
		if (m->key[i] == key)
			return (int)i;
	return -1;
}

static void m_del(struct model *m, u32 key)
{
	int i = m_find(m, key);

	if (i < 0)
		return;
	memmove(&m->key[i], &m->key[i + 1], (m->n - (u32)i - 1) * sizeof(u32));
	memmove(&m->val[i], &m->val[i + 1], (m->n - (u32)i - 1) * sizeof(u32));
	m->n--;
}

/* returns 0 or -1 when the key is new and the model is at capacity */
static int m_put(struct model *m, u32 key, u32 val, u32 cap)
{
	if (m_find(m, key) < 0 && m->n >= cap)
		return -1;
	m_del(m, key);
	m->key[m->n] = key;
	m->val[m->n++] = val;
	return 0;
}

static int same(const struct compsc_replay *l, const struct model *m)
{
	u32 i;

	if (compsc_replay_count(l) != m->n)
		return 0;
	for (i = 0; i < m->n; i++)
		if (key_at(l, i) != m->key[i] || val_of(l, m->key[i]) != m->val[i])
			return 0;
	return 1;
}

/* One opset: applied to a scratch model without a capacity bound, kept if it fits. */
static void opset(struct compsc_replay *l, struct model *m, uint64_t *rnd)
{
	struct model t = *m;
	u32 ops = (u32)(test_rand(rnd) % (STAGE + 3)), staged = 0, i;
	u32 skeys[STAGE + 3];
	int stage_full = 0, ret;

	CHECK_EQ(compsc_replay_opset_begin(l), 0);
	for (i = 0; i < ops; i++) {
		u32 key = (u32)(test_rand(rnd) % KEYS), v = (u32)test_rand(rnd);
		u32 j, known = 0;

		for (j = 0; j < staged; j++)
			known |= skeys[j] == key;
		if (!known && staged == STAGE) {
			CHECK_EQ(put_u32(l, key, v), -COMPSC_ENOSPC);
			stage_full = 1;
			continue;
		}
		if (!known)
			skeys[staged++] = key;
		if (test_rand(rnd) % 3 == 0) {
			CHECK_EQ(compsc_replay_del(l, key), 0);
			m_del(&t, key);
		} else {
			CHECK_EQ(put_u32(l, key, v), 0);
			m_put(&t, key, v, KEYS);
		}
	}
	CHECK(same(l, m));	/* nothing visible before the commit */
	if (stage_full || test_rand(rnd) % 5 == 0) {
		compsc_replay_opset_abort(l);
		return;
	}
	ret = compsc_replay_opset_commit(l);
	CHECK_EQ(ret, t.n > CAP ? -COMPSC_ENOSPC : 0);
	if (!ret)
		*m = t;
}

int main(void)
{
	uint64_t rnd = test_seed("test_replay_prop");
	struct compsc_replay l, a;
	struct model m = { 0 };
	int round, full = 0;

	CHECK_EQ(compsc_replay_init(&l, mem, sizeof(mem), stage, STAGE), 0);
	for (round = 0; round < ROUNDS && !check_failures; round++) {
		u32 op = (u32)(test_rand(&rnd) % 10);
		u32 key = (u32)(test_rand(&rnd) % KEYS), v = (u32)test_rand(&rnd);

		if (op < 5) {
			int want = m_put(&m, key, v, CAP);

			full += want < 0;
			CHECK_EQ(put_u32(&l, key, v), want ? -COMPSC_ENOSPC : 0);
		} else if (op < 8) {
			m_del(&m, key);
			CHECK_EQ(compsc_replay_del(&l, key), 0);
		} else {
			opset(&l, &m, &rnd);
		}
		CHECK(same(&l, &m));
		if (round % 1000 == 0)
			CHECK_EQ(compsc_replay_attach(&a, mem, sizeof(mem), NULL, 0), 0);
	}
	printf("rounds=%d full_refusals=%d final_count=%u\n", round, full, m.n);
	CHECK(full > 0);	/* the run did reach a full log */
	CHECK_DONE();
}
