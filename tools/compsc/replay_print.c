// SPDX-License-Identifier: (GPL-2.0 OR BSD-3-Clause)
/*
 * Print a replay log: an area's (raw, after compsc_replay_check() accepted
 * a private copy of it) or a stream DRIVER record's (packed, after
 * compsc_replay_unpack_keys() accepted it into a private log). A refusal is
 * named by the library's code and, where it is about one record, the
 * record.
 */
#include "cli.h"

#include <stdlib.h>
#include <string.h>

/* The refusal's details that a raw log's own fields give. */
static void replay_why_raw(char *why, size_t n, int err, u32 bad,
			   const void *mem, u32 len)
{
	const struct compsc_replay_hdr *h = mem;
	const struct compsc_replay_rec *r = (const void *)(h + 1);
	u32 room = (len - (u32)sizeof(*h)) / (u32)sizeof(*r);

	if (err == -COMPSC_EREPLAY_ROOM)
		snprintf(why, n, " (capacity %u, room for %u in %u bytes)",
			 le32_to_cpu(h->capacity), room, len);
	else if (err == -COMPSC_EREPLAY_COUNT)
		snprintf(why, n, " (count %u, capacity %u)",
			 le32_to_cpu(h->count), le32_to_cpu(h->capacity));
	else if (bad == COMPSC_REPLAY_NO_REC)	/* bad < count <= room below */
		*why = 0;
	else if (err == -COMPSC_EREPLAY_LEN)
		snprintf(why, n, " (record %u: length %u, at most %u)", bad,
			 le16_to_cpu(r[bad].len), COMPSC_REPLAY_DATA_MAX);
	else if (err == -COMPSC_EREPLAY_DUPLICATE)
		snprintf(why, n, " (record %u: key 0x%08x)", bad,
			 le32_to_cpu(r[bad].key));
	else if (err == -COMPSC_EREPLAY_SEQ)
		snprintf(why, n, " (record %u: seq %u, log seq %u)", bad,
			 le32_to_cpu(r[bad].seq), le32_to_cpu(h->seq));
	else
		snprintf(why, n, " (record %u)", bad);
}

/* "<library's message> (<details>)" into @why (CLI_WHY_MAX bytes). */
void cli_replay_why(char *why, int err, u32 bad, const void *mem, u32 len,
		    int packed)
{
	int k = snprintf(why, CLI_WHY_MAX, "%s", compsc_strerror(err));

	if (k < 0 || k >= CLI_WHY_MAX)
		return;
	if (!packed)
		replay_why_raw(why + k, CLI_WHY_MAX - (size_t)k, err, bad, mem,
			       len);
	else if (bad != COMPSC_REPLAY_NO_REC)
		snprintf(why + k, CLI_WHY_MAX - (size_t)k, " (record %u)", bad);
}

/* Attach to a private, aligned copy; NULL (and the refusal) if not a log. */
static void *replay_copy_attach(struct compsc_replay *l, const void *mem,
				u32 len, char *why)
{
	void *copy = malloc(len ? len : 1);
	u32 bad = COMPSC_REPLAY_NO_REC;
	int err = -COMPSC_EINVAL;

	if (!copy) {
		snprintf(why, CLI_WHY_MAX, "replay log: not judged, out of memory");
		return NULL;
	}
	memcpy(copy, mem, len);
	if (len >= sizeof(struct compsc_replay_hdr))
		err = compsc_replay_check(copy, len, &bad);
	if (err >= 0)
		err = compsc_replay_attach(l, copy, len, NULL, 0);
	if (!err)
		return copy;
	cli_replay_why(why, err, bad, copy, len, 0);
	free(copy);
	return NULL;
}

/*
 * Unpack into a private log of the records the header claims: judged
 * before anything is allocated, and claims the bytes cannot back are
 * refused, so what is allocated follows what @mem holds. The key scratch
 * makes the duplicate check n log n. NULL (and the refusal) if not a log.
 */
static void *replay_copy_unpack(struct compsc_replay *l, const void *mem,
				u32 len, char *why)
{
	int n = compsc_replay_pack_count(mem, len), err = n;
	u32 bad = COMPSC_REPLAY_NO_REC, size;
	void *log = NULL;
	u64 *keys = NULL;

	if (n >= 0) {
		size = (u32)sizeof(struct compsc_replay_hdr) +
		       (u32)n * (u32)sizeof(struct compsc_replay_rec);
		log = malloc(size);
		keys = malloc(n ? (size_t)n * sizeof(*keys) : 1);
		err = log && keys ? compsc_replay_init(l, log, size, NULL, 0) :
				    1;
	}
	if (!err)
		err = compsc_replay_unpack_keys(l, mem, len, keys, (u32)n, &bad);
	free(keys);
	if (!err)
		return log;
	if (err > 0)
		snprintf(why, CLI_WHY_MAX, "replay log: not judged, out of memory");
	else
		cli_replay_why(why, err, bad, mem, len, 1);
	free(log);
	return NULL;
}

static void *replay_load(struct compsc_replay *l, const void *mem, u32 len,
			 int packed, char *why)
{
	*why = 0;
	return packed ? replay_copy_unpack(l, mem, len, why) :
			replay_copy_attach(l, mem, len, why);
}

static void replay_hex(const u8 *p, u32 n)
{
	u32 i;

	for (i = 0; i < n; i++)
		printf("%s%02x", i && !(i % 4) ? " " : "", p[i]);
}

/* "SET_MAC (0x00000002)", or the raw key alone when it has no name. */
static const char *replay_key_text(u32 key, cli_key_name_fn name, char *buf,
				   size_t n)
{
	char nbuf[32];
	const char *nm = name ? name(key, nbuf, sizeof(nbuf)) : NULL;

	if (nm)
		snprintf(buf, n, "%s (0x%08x)", nm, key);
	else
		snprintf(buf, n, "0x%08x", key);
	return buf;
}

int cli_replay_text(const void *mem, u32 len, int packed, const char *indent,
		    cli_key_name_fn name, char *why)
{
	char key[64];
	const struct compsc_replay_rec *r;
	struct compsc_replay l;
	void *copy = replay_load(&l, mem, len, packed, why);
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
		printf("%s  %-4s %-27s %-10s %-4s %s\n", indent, "#", "key",
		       "seq", "len", "data");
	for (i = 0; i < n; i++) {
		r = compsc_replay_at(&l, i);
		printf("%s  %-4u %-27s %-10u %-4u ", indent, i,
		       replay_key_text(le32_to_cpu(r->key), name, key,
				       sizeof(key)),
		       le32_to_cpu(r->seq), le16_to_cpu(r->len));
		replay_hex(r->data, le16_to_cpu(r->len));
		putchar('\n');
	}
	free(copy);
	return 0;
}

/* The record's key, and beside it its name or null. */
static void json_key(struct jw *j, u32 key, cli_key_name_fn name)
{
	char nbuf[32];
	const char *nm = name ? name(key, nbuf, sizeof(nbuf)) : NULL;

	jw_u64(j, "key", key);
	if (nm)
		jw_str(j, "name", nm);
	else
		jw_null(j, "name");
}

void cli_replay_json(struct jw *j, const char *key, const void *mem, u32 len,
		     int packed, cli_key_name_fn name)
{
	const struct compsc_replay_rec *r;
	struct compsc_replay l;
	char why[CLI_WHY_MAX], err_key[64];
	void *copy = replay_load(&l, mem, len, packed, why);
	u32 i, n;

	snprintf(err_key, sizeof(err_key), "%s_error", key);
	if (!copy) {
		jw_null(j, key);
		jw_str(j, err_key, why);
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
		json_key(j, le32_to_cpu(r->key), name);
		jw_u64(j, "seq", le32_to_cpu(r->seq));
		jw_u64(j, "len", le16_to_cpu(r->len));
		jw_hex(j, "data_hex", r->data, le16_to_cpu(r->len));
		jw_end_obj(j);
	}
	jw_end_arr(j);
	jw_end_obj(j);
	jw_null(j, err_key);
	free(copy);
}
