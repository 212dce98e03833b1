// SPDX-License-Identifier: GPL-2.0
/*
 * ixgbe's CompSC helpers (the patched ixgbe_compsc.h): the area request
 * as ixgbevf sends it, decoded with the PF's rules; the VF xcast modes
 * (ixgbe.h's enum, extracted by check.sh) as PF_VF and PF_VF_EXT flags
 * and back; the MAC filters as the SET_MACVLAN requests the import hands
 * the PF's own handler; the mailbox APIs the import accepts; and a whole
 * PF_VF_EXT record as vf_export() builds it, through the stream and the
 * host side to what vf_import() reads. Built against the real
 * ixgbe_mbx.h / ixgbe_type.h of Debian's source.
 */
#include "ixgbe_xcast.h"	/* generated: enum ixgbevf_xcast_modes */
#include "ixgbe_apis.h"		/* generated: ixgbe_negotiate_vf_api()'s */
#include "ixgbe_compsc.h"
#include <compsc/host.h>
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
		VT_EQ(ixgbe_compsc_xflags(false, modes[i]), 0);
		VT_EQ(ixgbe_compsc_xcast(f, 0), modes[i]);
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
	/* NONE travels as PF_VF_EXT's MC_NONE; without that record, MULTI */
	f = ixgbe_compsc_xcast_flags(IXGBEVF_XCAST_MODE_NONE);
	VT_EQ(f, 0);
	VT_EQ(ixgbe_compsc_xflags(false, IXGBEVF_XCAST_MODE_NONE),
	      COMPSC_PFVF_X_MC_NONE);
	VT_EQ(ixgbe_compsc_xcast(f, COMPSC_PFVF_X_MC_NONE),
	      IXGBEVF_XCAST_MODE_NONE);
	VT_EQ(ixgbe_compsc_xcast(f, 0), IXGBEVF_XCAST_MODE_MULTI);
	/* the promiscuous flags win over MC_NONE (another PF's record) */
	VT_EQ(ixgbe_compsc_xcast(COMPSC_PFVF_F_PROMISC_MC, COMPSC_PFVF_X_MC_NONE),
	      IXGBEVF_XCAST_MODE_ALLMULTI);
	/* unicast promiscuous alone (another PF's record) is PROMISC */
	VT_EQ(ixgbe_compsc_xcast(COMPSC_PFVF_F_PROMISC_UC, 0),
	      IXGBEVF_XCAST_MODE_PROMISC);
	/* the RSS query permission is its own bit */
	VT_EQ(ixgbe_compsc_xflags(true, IXGBEVF_XCAST_MODE_MULTI),
	      COMPSC_PFVF_X_RSS_QUERY);
	VT_EQ(ixgbe_compsc_xflags(true, IXGBEVF_XCAST_MODE_NONE) &
	      ~COMPSC_PFVF_X_KNOWN, 0);
}

/*
 * Filter i of the record as the PF's receive path dispatches it (the type
 * in the low 16 bits) and ixgbe_set_vf_macvlan_msg() reads it (the index
 * in MSGINFO, from 1; the first clears the VF's old filters; the address
 * at word 1), as ixgbevf's set_uc_addr sends it.
 */
static void test_macvlan(void)
{
	const struct compsc_pf_vf_mac m[2] = {
		{ .mac = { 0x02, 0x11, 0x22, 0x33, 0x44, 0x55 } },
		{ .mac = { 0x52, 0x54, 0x00, 0xaa, 0xbb, 0xcc } },
	};
	u32 msg[IXGBE_VFMAILBOX_SIZE];
	u16 i;

	for (i = 0; i < 2; i++) {
		memset(msg, 0xa5, sizeof(msg));
		ixgbe_compsc_macvlan(msg, i, &m[i]);
		VT_EQ(msg[0] & 0xffff, IXGBE_VF_SET_MACVLAN);
		VT_EQ((msg[0] & IXGBE_VT_MSGINFO_MASK) >> IXGBE_VT_MSGINFO_SHIFT,
		      i + 1u);
		VT_EQ(msg[0] & ~(IXGBE_VT_MSGINFO_MASK | 0xffffu), 0);
		VT_CHECK(!memcmp(&msg[1], m[i].mac, ETH_ALEN));
	}
	/* the most filters a record holds still fit MSGINFO's 8 bits */
	ixgbe_compsc_macvlan(msg, COMPSC_PF_EXT_MAX_MACS - 1, &m[0]);
	VT_EQ((msg[0] & IXGBE_VT_MSGINFO_MASK) >> IXGBE_VT_MSGINFO_SHIFT,
	      COMPSC_PF_EXT_MAX_MACS);
}

/* vf_check takes APIs up to ixgbe_mbox_api_14: the newest negotiated. */
static void test_api(void)
{
	static const u32 apis[] = { NEGOTIATED_APIS };
	unsigned int i, newest = 0;

	for (i = 0; i < sizeof(apis) / sizeof(apis[0]); i++) {
		VT_CHECK(apis[i] <= ixgbe_mbox_api_14);
		if (apis[i] == ixgbe_mbox_api_14)
			newest = 1;
	}
	VT_CHECK(newest);
	VT_CHECK(ixgbe_mbox_api_14 < ixgbe_mbox_api_unknown);
}

/* A record as vf_export() fills it, as vf_import() reads it back. */
static void test_ext_record(void)
{
	static struct compsc_pf_vf_xstate x;
	static struct compsc_host_pf pf;
	static u8 buf[4096];
	const struct compsc_ident id = { 0x8086, 0x10ed, 0x8086, 0 };
	struct compsc_pf_vf_state st = { .vf_index = 1 };
	u8 rec[sizeof(st)];
	struct compsc_stream_writer w;
	struct compsc_stream_view v;
	u32 msg[IXGBE_VFMAILBOX_SIZE], lost;
	u16 i;
	int len;

	x.ext.flags = cpu_to_le16(ixgbe_compsc_xflags(true,
						      IXGBEVF_XCAST_MODE_NONE));
	x.ext.mbx_api = cpu_to_le32(ixgbe_mbox_api_13);
	for (i = 0; i < 3; i++) {
		x.macs[i].mac[0] = 0x02;
		x.macs[i].mac[5] = (u8)(0x10 + i);
	}
	x.ext.nr_macs = cpu_to_le16(3);
	VT_EQ(compsc_pf_vf_ext_check(&x, compsc_pf_vf_xlen(&x)), 0);
	compsc_stream_begin(&w, buf, sizeof(buf), &id);
	compsc_stream_add(&w, COMPSC_REC_PF_VF, COMPSC_REC_F_MANDATORY, rec,
			  (u32)compsc_pf_vf_pack(&st, rec));
	compsc_stream_add(&w, COMPSC_REC_PF_VF_EXT, COMPSC_REC_F_MANDATORY, &x,
			  compsc_pf_vf_xlen(&x));
	len = compsc_stream_end(&w);
	VT_CHECK(len > 0);
	VT_EQ(compsc_stream_parse(buf, (u32)len, &id, sizeof(buf), &v), 0);
	VT_EQ(compsc_host_pf_sections(&v, &pf), 0);
	VT_CHECK(pf.has_st && pf.has_x);
	VT_CHECK(compsc_host_pf_whole(&pf, true, &lost));
	VT_EQ(ixgbe_compsc_xcast(le16_to_cpu(pf.st.flags),
				 le16_to_cpu(pf.x.ext.flags)),
	      IXGBEVF_XCAST_MODE_NONE);
	VT_EQ(le32_to_cpu(pf.x.ext.mbx_api), ixgbe_mbox_api_13);
	VT_EQ(le16_to_cpu(pf.x.ext.nr_macs), 3);
	ixgbe_compsc_macvlan(msg, 2, &pf.x.macs[2]);
	VT_EQ(((u8 *)&msg[1])[5], 0x12);
	/* a VF that may hold IPsec SAs: the host leaves the guest to reset */
	pf.x.ext.lost = cpu_to_le32(COMPSC_PFVF_LOST_IPSEC);
	VT_CHECK(!compsc_host_pf_whole(&pf, true, &lost));
	VT_EQ(lost, COMPSC_PFVF_LOST_IPSEC);
}

int main(void)
{
	test_area();
	test_xcast();
	test_macvlan();
	test_api();
	test_ext_record();
	return vt_done("ixgbe test_pf_state");
}
