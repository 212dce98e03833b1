// SPDX-License-Identifier: (GPL-2.0 OR BSD-3-Clause)
/*
 * The area-registration mailbox message: encoded by the guest VF driver,
 * decoded (and distrusted) by the PF driver. Its layout rules live here only.
 */
#include <compsc/compsc.h>
#include <compsc/mbx.h>

#define COMPSC_MBX_ABI	(((u32)COMPSC_ABI_MAJOR << 16) | COMPSC_ABI_MINOR)

int compsc_mbx_area_encode(u32 *msg, u32 nwords, u64 gpa, u32 size)
{
	if (!msg || nwords < COMPSC_MBX_AREA_WORDS)
		return -COMPSC_EINVAL;
	if ((gpa || size) && ((gpa & (COMPSC_MBX_PAGE - 1)) ||
			      size < sizeof(struct compsc_area_hdr) ||
			      size > COMPSC_AREA_MAX_SIZE))
		return -COMPSC_EINVAL;
	msg[0] = COMPSC_MBX_AREA;
	msg[1] = (u32)gpa;
	msg[2] = (u32)(gpa >> 32);
	msg[3] = size;
	msg[4] = COMPSC_MBX_ABI;
	return COMPSC_MBX_AREA_WORDS;
}
COMPSC_EXPORT(compsc_mbx_area_encode);

int compsc_mbx_area_decode(const u32 *msg, u32 nwords, u64 *gpa, u32 *size)
{
	u64 addr;
	u32 len;

	if (!msg || nwords < COMPSC_MBX_AREA_WORDS ||
	    (msg[0] & 0xffffu) != COMPSC_MBX_AREA)
		return -COMPSC_EINVAL;
	if ((msg[4] >> 16) != COMPSC_ABI_MAJOR)
		return -COMPSC_EAREA_VERSION;
	addr = ((u64)msg[2] << 32) | msg[1];
	len = msg[3];
	if (!addr && !len)
		goto out;	/* unregister */
	if (!addr || (addr & (COMPSC_MBX_PAGE - 1)) ||
	    len < sizeof(struct compsc_area_hdr) || len > COMPSC_AREA_MAX_SIZE)
		return -COMPSC_EAREA_LAYOUT;
out:
	*gpa = addr;
	*size = len;
	return 0;
}
COMPSC_EXPORT(compsc_mbx_area_decode);
