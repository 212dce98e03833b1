// SPDX-License-Identifier: GPL-2.0
/*
 * ixgbe's CompSC helpers (the patched ixgbe_compsc.h): the area request
 * as ixgbevf sends it, decoded with the PF's rules; the VF xcast modes
 * (ixgbe.h's enum, extracted by check.sh) as PF_VF record flags and back.
 * Built against the real ixgbe_mbx.h / ixgbe_type.h of Debian's source.
 */
#include "ixgbe_xcast.h"	/* generated: enum ixgbevf_xcast_modes */
#include "ixgbe_compsc.h"
#include "test_util.h"

/* The request ixgbevf's patch 1 sends: compsc/mbx.h's words, its type */
static void vf_msg(u32 *msg, u64 gpa, u32 size)
{
	memset(msg, 0, IXGBE_VFMAILBOX_SIZE * sizeof(u32));
	VT_EQ(compsc_mbx_area_encode(msg, IXGBE_VFMAILBOX_SIZE, gpa, size),
	      COMPSC_MBX_AREA_WORDS);
	msg[0] = IXGBE_VF_COMPSC_AREA;
}

static void test_area(void)
{
	u32 msg[IXGBE_VFMAILBOX_SIZE], size = 0;
	u64 gpa = 0;

	/* the VF and PF headers agree on the request type */
	VT_EQ(IXGBE_VF_COMPSC_AREA, VF_COMPSC_AREA);
	VT_CHECK(IXGBE_VF_COMPSC_AREA != IXGBE_VF_GET_LINK_STATE);
	vf_msg(msg, 0x12345000ull, 3 * 4096);
	VT_EQ(ixgbe_compsc_area(msg, &gpa, &size), 0);
	VT_EQ(gpa, 0x12345000ull);
	VT_EQ(size, 3 * 4096);
	vf_msg(msg, 0, 0);	/* unregister */
	VT_EQ(ixgbe_compsc_area(msg, &gpa, &size), 0);
	VT_EQ(gpa, 0);
	VT_EQ(size, 0);
	vf_msg(msg, 0x12345000ull, 4096);
	msg[1] |= 0x800;	/* not page aligned: an untrusted guest */
	VT_CHECK(ixgbe_compsc_area(msg, &gpa, &size) != 0);
	vf_msg(msg, 0x12345000ull, 4096);
	msg[4] += 1u << 16;	/* another ABI major */
	VT_CHECK(ixgbe_compsc_area(msg, &gpa, &size) != 0);
	/* the PF reads the mailbox's 16 words; the area uses the first 5 */
	VT_CHECK(COMPSC_MBX_AREA_WORDS <= IXGBE_VFMAILBOX_SIZE);
}

static void test_xcast(void)
{
	static const int modes[] = {
		IXGBEVF_XCAST_MODE_MULTI, IXGBEVF_XCAST_MODE_ALLMULTI,
		IXGBEVF_XCAST_MODE_PROMISC,
	};
	struct compsc_pf_vf_state st;
	u16 f;
	unsigned int i;

	for (i = 0; i < sizeof(modes) / sizeof(modes[0]); i++) {
		f = ixgbe_compsc_xcast_flags(modes[i]);
		VT_EQ(f & ~COMPSC_PFVF_F_KNOWN, 0);
		VT_EQ(ixgbe_compsc_xcast(f), modes[i]);
		/* a record with these flags passes the stream's check */
		memset(&st, 0, sizeof(st));
		st.flags = cpu_to_le16(f | COMPSC_PFVF_F_SPOOFCHK);
		VT_EQ(compsc_pf_vf_check(&st), 0);
	}
	VT_EQ(ixgbe_compsc_xcast_flags(IXGBEVF_XCAST_MODE_MULTI), 0);
	VT_EQ(ixgbe_compsc_xcast_flags(IXGBEVF_XCAST_MODE_ALLMULTI),
	      COMPSC_PFVF_F_PROMISC_MC);
	VT_EQ(ixgbe_compsc_xcast_flags(IXGBEVF_XCAST_MODE_PROMISC),
	      COMPSC_PFVF_F_PROMISC_UC | COMPSC_PFVF_F_PROMISC_MC);
	/* NONE is not representable: it travels as MULTI (documented) */
	VT_EQ(ixgbe_compsc_xcast(ixgbe_compsc_xcast_flags(IXGBEVF_XCAST_MODE_NONE)),
	      IXGBEVF_XCAST_MODE_MULTI);
	/* unicast promiscuous alone (another PF's record) is PROMISC */
	VT_EQ(ixgbe_compsc_xcast(COMPSC_PFVF_F_PROMISC_UC),
	      IXGBEVF_XCAST_MODE_PROMISC);
}

int main(void)
{
	test_area();
	test_xcast();
	return vt_done("ixgbe test_pf_state");
}
