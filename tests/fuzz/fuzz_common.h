/* SPDX-License-Identifier: (GPL-2.0 OR BSD-3-Clause) */
/*
 * Shared by the fuzz targets and the corpus generator: the tests' host
 * policy (../common/policy_fixture.h), the stream size bound, and the "recipe"
 * that turns fuzz bytes into a stream through the library's writer (the
 * targets never encode the format themselves).
 */
#ifndef COMPSC_FUZZ_COMMON_H
#define COMPSC_FUZZ_COMMON_H

#include <compsc/compsc.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "../common/policy_fixture.h"

#define FUZZ_STREAM_MAX	(64u * 1024u)	/* max_len handed to the parser */
#define FUZZ_RECIPE_CAP	1024u		/* streams built from a recipe */

/* A property failed: say which and crash, so both drivers report it. */
#define FUZZ_ASSERT(cond) do {						\
	if (!(cond)) {							\
		fprintf(stderr, "%s:%d: property failed: %s\n",		\
			__FILE__, __LINE__, #cond);			\
		abort();						\
	}								\
} while (0)

/*
 * Recipe: bytes 0-7 are the device ids; then records of
 *	[op] [len] [len bytes of payload]
 * op & 7 picks the type (0, or 7 past the known ones, = an unknown type
 * 0x40 | op >> 4), op & 8 asks for MANDATORY on known types. Records the
 * writer refuses are skipped (on a copy of the writer, so its sticky error
 * does not end the stream).
 * Returns the stream length, or -1 when the recipe is too short.
 */
static inline int fuzz_recipe_build(const uint8_t *d, size_t n, uint8_t *out)
{
	struct compsc_stream_writer w, trial;
	struct compsc_ident id;
	size_t pos = 8;

	if (n < 8)
		return -1;
	memcpy(&id, d, sizeof(id));
	if (compsc_stream_begin(&w, out, FUZZ_RECIPE_CAP, &id))
		return -1;
	while (pos + 2 <= n) {
		uint8_t op = d[pos], len = d[pos + 1];
		u16 type = (u16)(op & 7), flags = 0;

		pos += 2;
		if (len > n - pos)
			len = (uint8_t)(n - pos);
		if (type == 0 || type >= COMPSC_REC_NR_KNOWN)
			type = (u16)(0x40 | (op >> 4));
		else if (op & 8)
			flags = COMPSC_REC_F_MANDATORY;
		trial = w;
		if (!compsc_stream_add(&trial, type, flags, d + pos, len))
			w = trial;
		pos += len;
	}
	return compsc_stream_end(&w);
}

#endif
