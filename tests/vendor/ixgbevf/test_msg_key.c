// SPDX-License-Identifier: GPL-2.0
/*
 * ixgbevf's CompSC replay keys (ixgbevf_cs_key() in the patched mbx.h),
 * checked against the real message IDs and layouts of ixgbevf's mailbox
 * header, and the replay log they feed (libcompsc's, userspace build).
 */
#include "mbx.h"
#include "test_util.h"

/* A message as ixgbevf's vf.c builds it: type | info << 16, then words */
static u32 msg[IXGBE_VFMAILBOX_SIZE];

static u32 key_of(u32 type, u32 info, u32 w1, u32 words, u32 *len)
{
	memset(msg, 0, sizeof(msg));
	msg[0] = type | info << IXGBE_VT_MSGINFO_SHIFT;
	msg[1] = w1;
	*len = words * sizeof(u32);
	return ixgbevf_cs_key(msg, len);
}

/* The area request is a new type: a duplicate case would not compile. */
static int is_request(u32 type)
{
	switch (type) {
	case IXGBE_VF_RESET: case IXGBE_VF_SET_MAC_ADDR:
	case IXGBE_VF_SET_MULTICAST: case IXGBE_VF_SET_VLAN:
	case IXGBE_VF_SET_LPE: case IXGBE_VF_SET_MACVLAN:
	case IXGBE_VF_API_NEGOTIATE: case IXGBE_VF_GET_QUEUE:
	case IXGBE_VF_GET_RETA: case IXGBE_VF_GET_RSS_KEY:
	case IXGBE_VF_UPDATE_XCAST_MODE: case IXGBE_VF_IPSEC_ADD:
	case IXGBE_VF_IPSEC_DEL: case IXGBE_VF_GET_LINK_STATE:
	case IXGBE_VF_GET_PF_LINK_STATE: case IXGBE_VF_FEATURES_NEGOTIATE:
		return 1;
	case IXGBE_VF_COMPSC_AREA:
		return 2;
	}
	return 0;
}

static void test_area_type(void)
{
	/* why ixgbevf cannot use the helper's default message type */
	VT_EQ(COMPSC_MBX_AREA, IXGBE_VF_GET_LINK_STATE);
	VT_EQ(is_request(IXGBE_VF_COMPSC_AREA), 2);
	VT_CHECK(IXGBE_VF_COMPSC_AREA < IXGBE_PF_CONTROL_MSG);
	VT_EQ(IXGBE_VF_COMPSC_AREA & (IXGBE_VT_MSGINFO_MASK |
				      IXGBE_VT_MSGTYPE_SUCCESS |
				      IXGBE_VT_MSGTYPE_FAILURE |
				      IXGBE_VT_MSGTYPE_CTS), 0);
}

static void test_kept_messages(void)
{
	u32 len, key;

	key = key_of(IXGBE_VF_SET_MAC_ADDR, 0, 0x33221100, 3, &len);
	VT_EQ(key, IXGBE_VF_SET_MAC_ADDR);
	VT_EQ(len, 12);
	key = key_of(IXGBE_VF_SET_LPE, 0, 9018, 2, &len);
	VT_EQ(key, IXGBE_VF_SET_LPE);
	VT_EQ(len, 8);
	key = key_of(IXGBE_VF_UPDATE_XCAST_MODE, 0, 2, 2, &len);
	VT_EQ(key, IXGBE_VF_UPDATE_XCAST_MODE);
	VT_EQ(len, 8);
}

/* The multicast message is sent as 16 words; the PF reads 1 + n/2. */
static void test_multicast_len(void)
{
	static const u32 n[] = { 0, 1, 2, 3, 29, 30 };
	static const u32 words[] = { 1, 2, 2, 3, 16, 16 };
	u32 i, len;

	for (i = 0; i < sizeof(n) / sizeof(n[0]); i++) {
		VT_EQ(key_of(IXGBE_VF_SET_MULTICAST, n[i], 0, IXGBE_VFMAILBOX_SIZE,
			     &len), IXGBE_VF_SET_MULTICAST);
		VT_EQ(len, words[i] * sizeof(u32));
	}
}

static void test_vlan_keys(void)
{
	u32 len, add10, del10, add20;

	add10 = key_of(IXGBE_VF_SET_VLAN, 1, 10, 2, &len);
	del10 = key_of(IXGBE_VF_SET_VLAN, 0, 10, 2, &len);
	add20 = key_of(IXGBE_VF_SET_VLAN, 1, 20, 2, &len);
	VT_EQ(add10, IXGBE_VF_SET_VLAN | 10 << 16);
	VT_EQ(del10, add10 | COMPSC_VF_KEY_DEL);
	VT_CHECK(add10 != add20);
	VT_EQ(len, 8);
	/* only the 12-bit id names the VLAN, as in the PF's handler */
	VT_EQ(key_of(IXGBE_VF_SET_VLAN, 1, 0xf000 | 4095, 2, &len),
	      IXGBE_VF_SET_VLAN | 4095 << 16);
}

static void test_macvlan_keys(void)
{
	u32 len;

	VT_EQ(key_of(IXGBE_VF_SET_MACVLAN, 0, 0, 3, &len),
	      COMPSC_VF_KEY_DEL | IXGBE_VF_SET_MACVLAN | 1 << 16);
	VT_EQ(key_of(IXGBE_VF_SET_MACVLAN, 1, 0x00aabb02, 3, &len),
	      IXGBE_VF_SET_MACVLAN | 1 << 16);
	VT_EQ(key_of(IXGBE_VF_SET_MACVLAN, 7, 0x00aabb02, 3, &len),
	      IXGBE_VF_SET_MACVLAN | 7 << 16);
	VT_EQ(len, 12);
	/* a MACVLAN index never aliases a VLAN id */
	VT_CHECK(key_of(IXGBE_VF_SET_MACVLAN, 1, 0, 3, &len) !=
		 key_of(IXGBE_VF_SET_VLAN, 1, 1, 2, &len));
}

/* Queries, reset and negotiation leave the PF nothing to replay. */
static void test_not_kept(void)
{
	static const u32 types[] = {
		IXGBE_VF_RESET, IXGBE_VF_API_NEGOTIATE, IXGBE_VF_GET_QUEUE,
		IXGBE_VF_GET_RETA, IXGBE_VF_GET_RSS_KEY, IXGBE_VF_GET_LINK_STATE,
		IXGBE_VF_IPSEC_ADD, IXGBE_VF_IPSEC_DEL,
		IXGBE_VF_GET_PF_LINK_STATE, IXGBE_VF_FEATURES_NEGOTIATE,
		IXGBE_VF_COMPSC_AREA,
	};
	u32 i, len;

	for (i = 0; i < sizeof(types) / sizeof(types[0]); i++)
		VT_EQ(key_of(types[i], 1, 0, 4, &len), 0);
}

/* What a replay after VLAN, MAC and multicast changes would send */
static void test_replay_log(void)
{
	static u8 mem[16384];
	struct compsc_replay log;
	const struct compsc_replay_rec *rec;
	u32 i, key, len, n = 0, vlans = 0;

	VT_EQ(compsc_replay_init(&log, mem, sizeof(mem), NULL, 0), 0);
	for (i = 0; i < 6; i++) {
		/* add VLANs 1..3, then remove 2; set the MAC twice; MC of 3 */
		static const u32 t[] = { IXGBE_VF_SET_VLAN, IXGBE_VF_SET_VLAN,
			IXGBE_VF_SET_VLAN, IXGBE_VF_SET_VLAN,
			IXGBE_VF_SET_MAC_ADDR, IXGBE_VF_SET_MAC_ADDR };
		static const u32 info[] = { 1, 1, 1, 0, 0, 0 };
		static const u32 w1[] = { 1, 2, 3, 2, 0x11, 0x22 };

		key = key_of(t[i], info[i], w1[i], 3, &len);
		if (key & COMPSC_VF_KEY_DEL)
			compsc_replay_del(&log, key & ~COMPSC_VF_KEY_DEL);
		else
			VT_EQ(compsc_replay_put(&log, key, msg, len), 0);
	}
	key = key_of(IXGBE_VF_SET_MULTICAST, 3, 0x00020001, 16, &len);
	VT_EQ(compsc_replay_put(&log, key, msg, len), 0);
	for (i = 0; (rec = compsc_replay_at(&log, i)); i++, n++) {
		u32 w0, w1;

		memcpy(&w0, rec->data, 4);
		memcpy(&w1, rec->data + 4, 4);
		if ((w0 & 0xffff) == IXGBE_VF_SET_VLAN) {
			VT_CHECK(w1 == 1 || w1 == 3);
			vlans++;
		}
		if (w0 == IXGBE_VF_SET_MAC_ADDR)
			VT_EQ(w1, 0x22);	/* the last write wins */
		if ((w0 & 0xffff) == IXGBE_VF_SET_MULTICAST)
			VT_EQ(rec->len, 12);
	}
	VT_EQ(vlans, 2);
	VT_EQ(n, 4);
}

int main(void)
{
	test_area_type();
	test_kept_messages();
	test_multicast_len();
	test_vlan_keys();
	test_macvlan_keys();
	test_not_kept();
	test_replay_log();
	return vt_done("ixgbevf test_msg_key");
}
