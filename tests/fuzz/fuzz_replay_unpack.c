// SPDX-License-Identifier: (GPL-2.0 OR BSD-3-Clause)
/*
 * Property: a destination unpacking a replay log from a stream (the
 * DRIVER record: any bytes a source sent) never crashes or overruns its
 * log; what it accepts packs again, and that packed form is a fixed point
 * (unpack, pack: the same bytes). Attaching to the unpacked log's memory,
 * as the guest's driver does after a migration, always succeeds. The
 * sorted key check (compsc_replay_unpack_keys) gives the pairwise one's
 * verdict.
 */
#include "fuzz_common.h"

#define LOG_BYTES	8192u

static uint64_t mem0[LOG_BYTES / 8], mem1[LOG_BYTES / 8], mem2[LOG_BYTES / 8];
static u8 pack1[LOG_BYTES], pack2[LOG_BYTES];
static u64 keys[0xffff];

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct compsc_replay l0, l1, l2, att;
	int n1, n2, err;
	u32 bad;

	if (size > 65536)
		return 0;
	FUZZ_ASSERT(!compsc_replay_init(&l0, mem0, LOG_BYTES, NULL, 0));
	FUZZ_ASSERT(!compsc_replay_init(&l1, mem1, LOG_BYTES, NULL, 0));
	err = compsc_replay_unpack_keys(&l0, data, (u32)size, keys, 0xffff, &bad);
	FUZZ_ASSERT(err == compsc_replay_unpack(&l1, data, (u32)size));
	if (err)
		return 0;
	n1 = compsc_replay_pack(&l1, pack1, sizeof(pack1));
	FUZZ_ASSERT(n1 > 0);
	FUZZ_ASSERT(!compsc_replay_init(&l2, mem2, LOG_BYTES, NULL, 0));
	FUZZ_ASSERT(!compsc_replay_unpack(&l2, pack1, (u32)n1));
	n2 = compsc_replay_pack(&l2, pack2, sizeof(pack2));
	FUZZ_ASSERT(n1 == n2 && !memcmp(pack1, pack2, (size_t)n1));
	FUZZ_ASSERT(compsc_replay_count(&l1) == compsc_replay_count(&l2));
	FUZZ_ASSERT(!compsc_replay_attach(&att, mem1, LOG_BYTES, NULL, 0));
	return 0;
}
