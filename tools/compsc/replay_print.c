// SPDX-License-Identifier: (GPL-2.0 OR BSD-3-Clause)
/*
 * Print a replay log: an area's (raw, after compsc_replay_attach() accepted
 * a private copy of it) or a stream DRIVER record's (packed, after
 * compsc_replay_unpack() accepted it into a private log).
 */
#include "cli.h"

#include <stdlib.h>
#include <string.h>

/* Attach to a private, aligned copy; NULL (and *l untouched) if not a log. */
static void *replay_copy_attach(struct compsc_replay *l, const void *mem,
				u32 len)
{
	void *copy = malloc(len ? len : 1);

	if (!copy)
		return NULL;
	memcpy(copy, mem, len);
	if (compsc_replay_attach(l, copy, len, NULL, 0)) {
		free(copy);
		return NULL;
	}
	return copy;
}

/* Unpack into a private log big enough for any @len; NULL if not one. */
static void *replay_copy_unpack(struct compsc_replay *l, const void *mem,
				u32 len)
{
	u32 cap = len / COMPSC_REPLAY_PACK_REC_HDR + 1;
	u32 size = (u32)sizeof(struct compsc_replay_hdr) +
		   cap * (u32)sizeof(struct compsc_replay_rec);
	void *log = malloc(size);

	if (!log)
		return NULL;
	if (compsc_replay_init(l, log, size, NULL, 0) ||
	    compsc_replay_unpack(l, mem, len)) {
		free(log);
		return NULL;
	}
	return log;
}

static void *replay_load(struct compsc_replay *l, const void *mem, u32 len,
			 int packed)
{
	return packed ? replay_copy_unpack(l, mem, len) :
			replay_copy_attach(l, mem, len);
}

static void replay_hex(const u8 *p, u32 n)
{
	u32 i;

	for (i = 0; i < n; i++)
		printf("%s%02x", i && !(i % 4) ? " " : "", p[i]);
}

int cli_replay_text(const void *mem, u32 len, int packed, const char *indent)
{
	const struct compsc_replay_rec *r;
	struct compsc_replay l;
	void *copy = replay_load(&l, mem, len, packed);
	u32 i, n;

	if (!copy)
		return -1;
	n = compsc_replay_count(&l);
	if (packed)
		printf("%sreplay log (packed): %u record%s\n", indent, n,
		       n == 1 ? "" : "s");
	else
		printf("%sreplay log: capacity %u, %u record%s, last seq %u\n",
		       indent, le32_to_cpu(l.hdr->capacity), n,
		       n == 1 ? "" : "s", le32_to_cpu(l.hdr->seq));
	if (n)
		printf("%s  %-4s %-10s %-10s %-4s %s\n", indent, "#", "key",
		       "seq", "len", "data");
	for (i = 0; i < n; i++) {
		r = compsc_replay_at(&l, i);
		printf("%s  %-4u 0x%08x %-10u %-4u ", indent, i,
		       le32_to_cpu(r->key), le32_to_cpu(r->seq),
		       le16_to_cpu(r->len));
		replay_hex(r->data, le16_to_cpu(r->len));
		putchar('\n');
	}
	free(copy);
	return 0;
}

void cli_replay_json(struct jw *j, const char *key, const void *mem, u32 len,
		     int packed)
{
	const struct compsc_replay_rec *r;
	struct compsc_replay l;
	void *copy = replay_load(&l, mem, len, packed);
	u32 i, n;

	if (!copy) {
		jw_null(j, key);
		return;
	}
	n = compsc_replay_count(&l);
	jw_obj(j, key);
	if (packed)	/* the capacity is the destination's business */
		jw_bool(j, "packed", 1);
	else
		jw_u64(j, "capacity", le32_to_cpu(l.hdr->capacity));
	jw_u64(j, "count", n);
	jw_u64(j, "seq", le32_to_cpu(l.hdr->seq));
	jw_arr(j, "records");
	for (i = 0; i < n; i++) {
		r = compsc_replay_at(&l, i);
		jw_obj(j, NULL);
		jw_u64(j, "key", le32_to_cpu(r->key));
		jw_u64(j, "seq", le32_to_cpu(r->seq));
		jw_u64(j, "len", le16_to_cpu(r->len));
		jw_hex(j, "data_hex", r->data, le16_to_cpu(r->len));
		jw_end_obj(j);
	}
	jw_end_arr(j);
	jw_end_obj(j);
	free(copy);
}
