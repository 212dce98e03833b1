// SPDX-License-Identifier: (GPL-2.0 OR BSD-3-Clause)
/*
 * Property: on any bytes offered as a PF_VF_EXT record, the PF's check
 * (compsc_pf_vf_ext_check), the writer and the strict parser agree: the
 * writer writes exactly what the check accepts, the parser hands those
 * bytes back unchanged, and the host copies them out for the PF as they
 * were (zero beyond them); the check never accepts more than the bound.
 */
#include <compsc/host.h>
#include "fuzz_common.h"

static const struct compsc_ident id = { 0x8086, 0x10ed, 0x8086, 0 };
static const struct compsc_pf_vf_state st = { .vf_index = 1 };
static uint8_t buf[FUZZ_STREAM_MAX], st_rec[sizeof(st)];
static struct compsc_host_pf pf;

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct compsc_stream_writer w;
	struct compsc_stream_view v;
	int ok, len;

	if (size > 2 * COMPSC_PF_EXT_MAX_BYTES)
		return 0;
	ok = compsc_pf_vf_ext_check(data, (u32)size);
	FUZZ_ASSERT(ok == 0 || ok == -COMPSC_EMALFORMED ||
		    ok == -COMPSC_EOVERSIZE);
	FUZZ_ASSERT((ok == -COMPSC_EOVERSIZE) ==
		    (size > COMPSC_PF_EXT_MAX_BYTES));
	compsc_stream_begin(&w, buf, sizeof(buf), &id);
	compsc_stream_add(&w, COMPSC_REC_PF_VF, COMPSC_REC_F_MANDATORY, st_rec,
			  (u32)compsc_pf_vf_pack(&st, st_rec));
	FUZZ_ASSERT(!compsc_stream_add(&w, COMPSC_REC_PF_VF_EXT, 0, data,
				       (u32)size) == !ok);
	len = compsc_stream_end(&w);
	if (ok) {
		FUZZ_ASSERT(len == -COMPSC_EINVAL);
		return 0;
	}
	FUZZ_ASSERT(len > 0);
	FUZZ_ASSERT(!compsc_stream_parse(buf, (u32)len, &id, sizeof(buf), &v));
	FUZZ_ASSERT(v.rec[COMPSC_REC_PF_VF_EXT].len == size);
	FUZZ_ASSERT(!memcmp(v.rec[COMPSC_REC_PF_VF_EXT].data, data, size));
	FUZZ_ASSERT(!compsc_host_pf_sections(&v, &pf) && pf.has_x);
	FUZZ_ASSERT(compsc_pf_vf_xlen(&pf.x) == size);
	FUZZ_ASSERT(!memcmp(&pf.x, data, size));
	return 0;
}
