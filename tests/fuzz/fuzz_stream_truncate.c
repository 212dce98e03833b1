// SPDX-License-Identifier: (GPL-2.0 OR BSD-3-Clause)
/*
 * Property (byte at a time): a stream built by the writer from the fuzz
 * recipe is accepted whole, and every strict prefix of it - the stream
 * arriving one byte at a time - is refused as truncated, reading nothing
 * past the bytes that arrived.
 */
#include "fuzz_common.h"

static uint8_t stream[FUZZ_RECIPE_CAP];

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct compsc_stream_view v;
	int len = fuzz_recipe_build(data, size, stream);
	uint8_t *part;

	if (len < 0)
		return 0;
	FUZZ_ASSERT(!compsc_stream_parse(stream, (u32)len, NULL, (u32)len, &v));
	for (int n = 0; n < len; n++) {
		/* exactly n bytes on the heap: ASan sees a read of byte n */
		part = malloc(n ? (size_t)n : 1);
		FUZZ_ASSERT(part);
		memcpy(part, stream, (size_t)n);
		FUZZ_ASSERT(compsc_stream_parse(part, (u32)n, NULL, FUZZ_STREAM_MAX,
						&v) == -COMPSC_ETRUNCATED);
		FUZZ_ASSERT(v.err_offset == (u32)n);
		free(part);
	}
	return 0;
}
