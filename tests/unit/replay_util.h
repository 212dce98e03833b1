/* SPDX-License-Identifier: (GPL-2.0 OR BSD-3-Clause) */
/* Helpers shared by test_replay_*.c: a log in a plain buffer, int payloads. */
#ifndef COMPSC_TEST_REPLAY_UTIL_H
#define COMPSC_TEST_REPLAY_UTIL_H

#include <compsc/compsc.h>
#include <string.h>

/* bytes for a log of @n records */
#define REPLAY_BYTES(n) \
	(sizeof(struct compsc_replay_hdr) + (n) * sizeof(struct compsc_replay_rec))

static inline int put_u32(struct compsc_replay *l, u32 key, u32 v)
{
	return compsc_replay_put(l, key, &v, sizeof(v));
}

/* value stored for @key, or -1 when absent */
static inline long long val_of(const struct compsc_replay *l, u32 key)
{
	const struct compsc_replay_rec *r = compsc_replay_get(l, key);
	u32 v;

	if (!r || r->len != sizeof(v))
		return -1;
	memcpy(&v, r->data, sizeof(v));
	return v;
}

/* key of record @i in replay order, or -1 */
static inline long long key_at(const struct compsc_replay *l, u32 i)
{
	const struct compsc_replay_rec *r = compsc_replay_at(l, i);

	return r ? (long long)r->key : -1;
}

#endif
