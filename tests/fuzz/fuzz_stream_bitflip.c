// SPDX-License-Identifier: (GPL-2.0 OR BSD-3-Clause)
/*
 * Property: no single-bit error in a stream is ever accepted. The stream
 * comes from the writer via the fuzz recipe; bits are flipped one at a time
 * (all bits of the first 64 bytes, one bit per byte after that, chosen by
 * the recipe) and each damaged copy must be refused.
 */
#include "fuzz_common.h"

static uint8_t stream[FUZZ_RECIPE_CAP];

static void flip_refused(int len, int bit)
{
	struct compsc_stream_view v;

	stream[bit / 8] ^= (uint8_t)(1u << (bit % 8));
	FUZZ_ASSERT(compsc_stream_parse(stream, (u32)len, NULL,
					FUZZ_STREAM_MAX, &v) < 0);
	stream[bit / 8] ^= (uint8_t)(1u << (bit % 8));
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct compsc_stream_view v;
	int len = fuzz_recipe_build(data, size, stream);
	int pick = size ? data[size - 1] : 0;

	if (len < 0)
		return 0;
	FUZZ_ASSERT(!compsc_stream_parse(stream, (u32)len, NULL, (u32)len, &v));
	for (int bit = 0; bit < len * 8; bit++)
		if (bit < 64 * 8 || bit % 8 == (bit / 8 + pick) % 8)
			flip_refused(len, bit);
	/* and the original is intact afterwards */
	FUZZ_ASSERT(!compsc_stream_parse(stream, (u32)len, NULL, (u32)len, &v));
	return 0;
}
