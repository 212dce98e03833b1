/* SPDX-License-Identifier: (GPL-2.0 OR BSD-3-Clause) */
/*
 * Shared by the pre-copy tests: a source (host fixture) whose PF holds a
 * VF state, its pre-copy stream built while the guest runs, and a save
 * with the device held that may rely on it.
 */
#ifndef COMPSC_TEST_PRECOPY_FIXTURE_H
#define COMPSC_TEST_PRECOPY_FIXTURE_H

#include <compsc/precopy.h>
#include "host_fixture.h"

static struct compsc_pf_vf_state px_pf = {
	.vf_index = 0, .flags = COMPSC_PFVF_F_SPOOFCHK,
	.mac = { 0x52, 0x54, 0x00, 0x12, 0x34, 0x56 },
	.nr_vlans = 1, .vlans = { 10 },
};

static uint64_t px_replay[2 * 65536 / 8];	/* 8-byte aligned workspace */

/* Does the PF_VF record @r carry px_pf? */
static inline int px_pf_is(const struct compsc_stream_rec *r)
{
	struct compsc_pf_vf_state st;

	return r->data && !compsc_pf_vf_unpack(r->data, r->len, &st) &&
	       !memcmp(&st, &px_pf, sizeof(st));
}

/* The pre-copy stream of @src (guest running) into @out. */
static inline int px_precopy(struct hx *src, u8 *out, u32 cap)
{
	struct compsc_host_save s;

	memset(&s, 0, sizeof(s));
	s.pf = &px_pf;
	s.replay = (u8 *)px_replay;
	return compsc_host_save_config(&src->a, &hx_id, &s, out, cap);
}

/* Take and save @src after the pre-copy stream @pre (NULL: none). */
static inline int px_stopcopy(struct hx *src, const u8 *pre, u32 pre_len,
			      u8 *out, u32 cap, struct compsc_host_save *s)
{
	int err = compsc_host_take(&src->a, &src->d, 1000000000ull);

	if (err)
		return err;
	memset(s, 0, sizeof(*s));
	s->pf = &px_pf;
	s->replay = (u8 *)px_replay;
	s->pre = pre;
	s->pre_len = pre_len;
	err = compsc_host_save(&src->a, &src->d, &hx_id, s, out, cap);
	compsc_host_giveback(&src->a, &src->d, 0);
	return err;
}

#endif
