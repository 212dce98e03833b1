// SPDX-License-Identifier: (GPL-2.0 OR BSD-3-Clause)
/*
 * Property: the PF's decoder of the area-registration mailbox message
 * (words a guest wrote) never crashes, and what it accepts is a valid
 * registration: encoding it again gives a message that decodes to the
 * same area, or an unregistration (0, 0).
 */
#include <compsc/mbx.h>
#include "fuzz_common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	u32 msg[16], again[COMPSC_MBX_AREA_WORDS], n = (u32)(size / 4), sz, sz2;
	u64 gpa, gpa2;
	int err;

	if (n > 16)
		n = 16;
	memcpy(msg, data, n * 4);
	err = compsc_mbx_area_decode(msg, n, &gpa, &sz);
	FUZZ_ASSERT(err <= 0 && -err < COMPSC_E_MAX);
	if (err)
		return 0;
	FUZZ_ASSERT(n >= COMPSC_MBX_AREA_WORDS);
	FUZZ_ASSERT((!gpa && !sz) || (gpa && !(gpa % COMPSC_MBX_PAGE) &&
		    sz >= sizeof(struct compsc_area_hdr) &&
		    sz <= COMPSC_AREA_MAX_SIZE));
	FUZZ_ASSERT(compsc_mbx_area_encode(again, COMPSC_MBX_AREA_WORDS, gpa,
					   sz) == COMPSC_MBX_AREA_WORDS);
	FUZZ_ASSERT(!compsc_mbx_area_decode(again, COMPSC_MBX_AREA_WORDS, &gpa2,
					    &sz2));
	FUZZ_ASSERT(gpa2 == gpa && sz2 == sz);
	return 0;
}
