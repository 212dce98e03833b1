/* SPDX-License-Identifier: (GPL-2.0 OR BSD-3-Clause) */
/*
 * What replay.c (the log in the area) and replay_pack.c (its packed form in
 * the stream) both need. Private to libcompsc: not installed, not exported.
 */
#ifndef COMPSC_REPLAY_INT_H
#define COMPSC_REPLAY_INT_H

#include <compsc/compsc.h>

static inline u32 __replay_count(const struct compsc_replay *l)
{
	return le32_to_cpu(l->hdr->count);
}

static inline void __replay_fill(struct compsc_replay_rec *rec, u32 key,
				 u32 seq, const void *data, u32 len,
				 u16 flags)
{
	memset(rec, 0, sizeof(*rec));
	rec->key = cpu_to_le32(key);
	rec->seq = cpu_to_le32(seq);
	rec->len = cpu_to_le16((u16)len);
	rec->flags = cpu_to_le16(flags);
	if (len)
		memcpy(rec->data, data, len);
}

#endif /* COMPSC_REPLAY_INT_H */
