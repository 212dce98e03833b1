// SPDX-License-Identifier: (GPL-2.0 OR BSD-3-Clause)
/*
 * The area-registration mailbox message: encoded by the guest VF driver,
 * decoded (and distrusted) by the PF driver. Its layout rules live here
 * only, as do the rules by which a VF driver logs what it asks the PF.
 */
#include <compsc/compsc.h>
#include <compsc/dev_82576vf.h>
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

int compsc_mbx_acked(const u32 *msg, const u32 *reply)
{
	if (!msg || !reply)
		return 0;
	return (reply[0] & COMPSC_MBX_TYPE_MASK) ==
	       (msg[0] & COMPSC_MBX_TYPE_MASK) &&
	       (reply[0] & (COMPSC_MBX_ACK | COMPSC_MBX_NACK)) == COMPSC_MBX_ACK;
}
COMPSC_EXPORT(compsc_mbx_acked);

int compsc_mbx_log(struct compsc_replay *l, u32 key, const u32 *msg, u32 len)
{
	if (!key)
		return 0;
	if (key & COMPSC_MBX_KEY_DEL)
		return compsc_replay_del(l, key & ~COMPSC_MBX_KEY_DEL);
	return compsc_replay_put(l, key, msg, len);
}
COMPSC_EXPORT(compsc_mbx_log);

u32 compsc_82576vf_msg_key(const u32 *msg, u32 *len)
{
	u32 n = (msg[0] >> COMPSC_82576VF_MSGINFO_SHIFT) & 0xff;
	u32 type = msg[0] & COMPSC_MBX_TYPE_MASK;

	switch (type) {
	case COMPSC_82576VF_MSG_SET_VLAN:	/* a removed VLAN must not come back */
		if (*len < 2 * sizeof(u32))
			return 0;
		return (n ? 0 : COMPSC_MBX_KEY_DEL) | type |
		       (msg[1] & 0xfffu) << 16;
	case COMPSC_82576VF_MSG_SET_MULTICAST:
		/* the PF reads the hashes it counts, 30 at most (overflow) */
		n = n < 30 ? n : 30;
		if (*len > (1 + (n + 1) / 2) * sizeof(u32))
			*len = (1 + (n + 1) / 2) * sizeof(u32);
		return type;
	case COMPSC_82576VF_MSG_SET_MAC:
	case COMPSC_82576VF_MSG_SET_LPE:
	case COMPSC_82576VF_MSG_SET_PROMISC:
		return type;
	}
	return 0;
}
COMPSC_EXPORT(compsc_82576vf_msg_key);
