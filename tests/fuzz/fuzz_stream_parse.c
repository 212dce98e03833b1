// SPDX-License-Identifier: (GPL-2.0 OR BSD-3-Clause)
/*
 * Property: the parser never crashes on any bytes, refuses with a known
 * code inside the input, and whatever it accepts re-serialises through the
 * writer to the identical stream. (With unknown optional records or a newer
 * minor the writer cannot reproduce those, so the rewrite must instead parse
 * back to the same records.)
 */
#include "fuzz_common.h"

static uint8_t again[FUZZ_STREAM_MAX];

/* Known records in stream order, written again with the library's writer. */
static int rewrite(const struct compsc_stream_view *v)
{
	struct compsc_stream_writer w;
	const uint8_t *last = NULL;

	compsc_stream_begin(&w, again, sizeof(again), &v->ident);
	for (;;) {
		const struct compsc_stream_rec *next = NULL;
		u16 type = 0;

		for (u16 t = 1; t < COMPSC_REC_NR_KNOWN; t++)
			if (v->rec[t].data && (!last || v->rec[t].data > last) &&
			    (!next || v->rec[t].data < next->data)) {
				next = &v->rec[t];
				type = t;
			}
		if (!next)
			break;
		FUZZ_ASSERT(!compsc_stream_add(&w, type, next->flags,
					       next->data, next->len));
		last = next->data;
	}
	return compsc_stream_end(&w);
}

static void same_records(const struct compsc_stream_view *a,
			 const struct compsc_stream_view *b)
{
	FUZZ_ASSERT(!memcmp(&a->ident, &b->ident, sizeof(a->ident)));
	for (u16 t = 1; t < COMPSC_REC_NR_KNOWN; t++) {
		FUZZ_ASSERT(!a->rec[t].data == !b->rec[t].data);
		FUZZ_ASSERT(a->rec[t].len == b->rec[t].len &&
			    a->rec[t].flags == b->rec[t].flags);
		FUZZ_ASSERT(!a->rec[t].len ||
			    !memcmp(a->rec[t].data, b->rec[t].data, a->rec[t].len));
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct compsc_stream_view v, v2;
	int err, len;

	if (size > FUZZ_STREAM_MAX)
		return 0;
	err = compsc_stream_parse(data, (u32)size, NULL, FUZZ_STREAM_MAX, &v);
	if (err) {
		FUZZ_ASSERT(err < 0 && -err < COMPSC_E_MAX);
		FUZZ_ASSERT(v.err_offset <= size && !v.rec[COMPSC_REC_REGS].data);
		return 0;
	}
	FUZZ_ASSERT(v.total_len == size);
	/* the identity it carries is the one it matches */
	FUZZ_ASSERT(!compsc_stream_parse(data, (u32)size, &v.ident,
					 (u32)size, &v2));
	len = rewrite(&v);
	FUZZ_ASSERT(len > 0);
	if (!v.nr_unknown && v.minor == COMPSC_STREAM_MINOR) {
		FUZZ_ASSERT((size_t)len == size && !memcmp(again, data, size));
		return 0;
	}
	FUZZ_ASSERT(!compsc_stream_parse(again, (u32)len, &v.ident,
					 FUZZ_STREAM_MAX, &v2));
	same_records(&v, &v2);
	return 0;
}
