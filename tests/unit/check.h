/* SPDX-License-Identifier: (GPL-2.0 OR BSD-3-Clause) */
/*
 * Minimal check macros for the unit programs: a failed check prints where
 * and what, the program keeps going and exits non-zero at the end.
 */
#ifndef COMPSC_TEST_CHECK_H
#define COMPSC_TEST_CHECK_H

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static int check_failures;

#define CHECK(cond) do {						\
	if (!(cond)) {							\
		fprintf(stderr, "%s:%d: CHECK failed: %s\n",		\
			__FILE__, __LINE__, #cond);			\
		check_failures++;					\
	}								\
} while (0)

#define CHECK_EQ(a, b) do {						\
	long long _a = (long long)(a), _b = (long long)(b);		\
	if (_a != _b) {							\
		fprintf(stderr, "%s:%d: CHECK_EQ failed: %s == %s "	\
			"(%lld != %lld)\n", __FILE__, __LINE__, #a, #b,	\
			_a, _b);					\
		check_failures++;					\
	}								\
} while (0)

#define CHECK_DONE() do {						\
	if (check_failures)						\
		fprintf(stderr, "%d check(s) failed\n", check_failures);\
	return check_failures ? 1 : 0;					\
} while (0)

/*
 * Seed for a random test: COMPSC_SEED from the environment replays a run,
 * otherwise a fresh one. Always printed so a failure can be replayed.
 */
static inline uint64_t test_seed(const char *name)
{
	const char *env = getenv("COMPSC_SEED");
	uint64_t s = env ? strtoull(env, NULL, 0) :
		(uint64_t)time(NULL) ^ ((uint64_t)clock() << 20);

	printf("%s: seed=%" PRIu64 " (replay: COMPSC_SEED=%" PRIu64 ")\n",
	       name, s, s);
	return s ? s : 1;
}

/* xorshift64*: small, deterministic for a given seed. */
static inline uint64_t test_rand(uint64_t *s)
{
	*s ^= *s >> 12;
	*s ^= *s << 25;
	*s ^= *s >> 27;
	return *s * 2685821657736338717ull;
}

#endif
