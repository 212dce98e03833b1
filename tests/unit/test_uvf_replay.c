// SPDX-License-Identifier: (GPL-2.0 OR BSD-3-Clause)
/*
 * The userspace helper's replay log (compsc/uvf.h, compsc/mbx.h): what an
 * 82576 VF driver asks a PF that acknowledges it is kept by the same keys
 * igbvf uses (MAC, multicast cut to its hashes, max frame, promiscuous
 * modes, each VLAN; a removed VLAN forgotten), a refused message or one
 * without an answer is not, a full log keeps what it had and counts the
 * loss, and the replay registers the area with a new PF and sends the
 * kept messages, oldest first, exactly as they were sent, counting the
 * ones it refuses. Also compsc_mark_dirty()'s page walk.
 */
#include <compsc/uvf.h>
#include <compsc/mbx.h>
#include <compsc/dev_82576vf.h>
#include <stdlib.h>
#include <string.h>
#include "check.h"
#include "sync_env.h"

#define ACK	COMPSC_MBX_ACK
#define NACK	COMPSC_MBX_NACK
#define VLAN_ADD	(1u << COMPSC_82576VF_MSGINFO_SHIFT)

/* A new PF that records what it is sent; refuses @refuse_type (0: none) */
struct fake_pf {
	u32 refuse_type;
	u32 sent[32][COMPSC_UVF_MBX_WORDS];
	u32 words[32];
	int n;
};

static int fake_send(struct compsc_uvf *vf, const u32 *msg, u32 nwords)
{
	struct fake_pf *pf = vf->priv;

	if (pf->n < 32) {
		memcpy(pf->sent[pf->n], msg, nwords * sizeof(u32));
		pf->words[pf->n] = nwords;
	}
	pf->n++;
	return (msg[0] & 0xffff) == pf->refuse_type ? -COMPSC_EREFUSED : 0;
}

static u32 key_82576(struct compsc_uvf *vf, const u32 *msg, u32 *len)
{
	(void)vf;
	return compsc_82576vf_msg_key(msg, len);
}

static const struct compsc_uvf_ops ops = {
	.send = fake_send, .msg_key = key_82576,
};
#define RECS	6
static const struct compsc_uvf_desc desc = {
	.replay_recs = RECS, .nr_slots = 2,
};

static void *setup(struct compsc_uvf *vf, struct fake_pf *pf)
{
	u32 len = compsc_uvf_area_size(&desc);
	void *mem = NULL;

	CHECK(len > 0);
	CHECK_EQ(posix_memalign(&mem, 4096, len), 0);
	CHECK_EQ(compsc_uvf_init(vf, mem, len, 0x10000, &desc, &ops, pf,
				 &sync_env_real, 1000000), 0);
	return mem;
}

/* The driver sends @msg, the PF answers @answer | msg type (0: no answer) */
static int ask(struct compsc_uvf *vf, const u32 *msg, u32 words, u32 answer)
{
	u32 reply[COMPSC_UVF_MBX_WORDS] = { answer | (msg[0] & 0xffff) };

	compsc_uvf_mbx_sent(vf, msg, words);
	return compsc_uvf_mbx_answered(vf, answer ? reply : NULL);
}

static const struct compsc_replay_rec *rec(struct compsc_uvf *vf, u32 key)
{
	return compsc_replay_get(&vf->log, key);
}

static void test_keys(void)
{
	u32 vlan_add[2] = { COMPSC_82576VF_MSG_SET_VLAN | VLAN_ADD, 100 };
	u32 vlan_del[2] = { COMPSC_82576VF_MSG_SET_VLAN, 100 };
	u32 mc[16] = { COMPSC_82576VF_MSG_SET_MULTICAST | 3u << 16 };
	u32 mc_over[16] = { COMPSC_82576VF_MSG_SET_MULTICAST | 0x9eu << 16 };
	u32 reset[1] = { COMPSC_82576VF_MSG_RESET };
	u32 area[5] = { COMPSC_MBX_AREA };
	u32 len;

	len = 8;
	CHECK_EQ(compsc_82576vf_msg_key(vlan_add, &len),
		 COMPSC_82576VF_MSG_SET_VLAN | 100u << 16);
	CHECK_EQ(compsc_82576vf_msg_key(vlan_del, &len),
		 COMPSC_MBX_KEY_DEL | COMPSC_82576VF_MSG_SET_VLAN | 100u << 16);
	len = 64;	/* 3 hashes: the type word and two words of hashes */
	CHECK_EQ(compsc_82576vf_msg_key(mc, &len), COMPSC_82576VF_MSG_SET_MULTICAST);
	CHECK_EQ(len, 12);
	len = 64;	/* overflow: the PF reads 30 hashes, all 16 words */
	CHECK_EQ(compsc_82576vf_msg_key(mc_over, &len),
		 COMPSC_82576VF_MSG_SET_MULTICAST);
	CHECK_EQ(len, 64);
	len = 4;
	CHECK_EQ(compsc_82576vf_msg_key(reset, &len), 0);
	len = 20;
	CHECK_EQ(compsc_82576vf_msg_key(area, &len), 0);
	/* the answer rule: same type, ACK without NACK */
	{
		u32 m[1] = { 0x02 }, ok[1] = { ACK | 0x02 }, no[1] = { NACK | 0x02 };
		u32 both[1] = { ACK | NACK | 0x02 }, other[1] = { ACK | 0x03 };

		CHECK_EQ(compsc_mbx_acked(m, ok), 1);
		CHECK_EQ(compsc_mbx_acked(m, no), 0);
		CHECK_EQ(compsc_mbx_acked(m, both), 0);
		CHECK_EQ(compsc_mbx_acked(m, other), 0);
		CHECK_EQ(compsc_mbx_acked(m, NULL), 0);
	}
}

static void test_log(void)
{
	struct compsc_uvf vf;
	struct fake_pf pf = { 0 };
	void *mem = setup(&vf, &pf);
	u32 mac1[3] = { COMPSC_82576VF_MSG_SET_MAC, 0x00007702, 0x00000100 };
	u32 mac2[3] = { COMPSC_82576VF_MSG_SET_MAC, 0x00007702, 0x00009900 };
	u32 mac3[3] = { COMPSC_82576VF_MSG_SET_MAC, 0x00007702, 0x0000aa00 };
	u32 mc[16] = { COMPSC_82576VF_MSG_SET_MULTICAST | 1u << 16, 0x123 };
	u32 lpe[2] = { COMPSC_82576VF_MSG_SET_LPE, 1522 };
	u32 prom[1] = { COMPSC_82576VF_MSG_SET_PROMISC | 2u << 16 };
	u32 v[2] = { COMPSC_82576VF_MSG_SET_VLAN | VLAN_ADD, 0 };
	u32 reset[1] = { COMPSC_82576VF_MSG_RESET };
	u32 i;

	CHECK_EQ(compsc_uvf_record(&vf, COMPSC_82576VF_MSG_SET_MAC, mac1, 12), 0);
	CHECK_EQ(ask(&vf, mac2, 3, ACK), 0);
	/* refused (an administrator's MAC) or unanswered: never kept */
	CHECK_EQ(ask(&vf, mac3, 3, NACK), 0);
	CHECK_EQ(ask(&vf, mac3, 3, 0), 0);
	CHECK(!memcmp(rec(&vf, COMPSC_82576VF_MSG_SET_MAC)->data, mac2, 12));
	CHECK_EQ(ask(&vf, mc, 16, ACK), 0);
	CHECK_EQ(le16_to_cpu(rec(&vf, COMPSC_82576VF_MSG_SET_MULTICAST)->len), 8);
	CHECK_EQ(ask(&vf, lpe, 2, ACK), 0);
	CHECK_EQ(ask(&vf, prom, 1, ACK), 0);
	CHECK_EQ(ask(&vf, reset, 1, ACK), 0);
	CHECK_EQ(compsc_replay_count(&vf.log), 4);
	/* two VLANs fill the log; a third is lost and counted */
	for (i = 1; i <= 3; i++) {
		v[1] = 100 + i;
		CHECK_EQ(ask(&vf, v, 2, ACK), i < 3 ? 0 : -COMPSC_ENOSPC);
	}
	CHECK_EQ(compsc_replay_count(&vf.log), RECS);
	CHECK_EQ(vf.replay_lost, 1);
	/* what the log had is intact: last write per key, one VLAN removed */
	v[0] = COMPSC_82576VF_MSG_SET_VLAN;
	v[1] = 101;
	CHECK_EQ(ask(&vf, v, 2, ACK), 0);
	CHECK(rec(&vf, COMPSC_82576VF_MSG_SET_VLAN | 101u << 16) == NULL);
	CHECK(rec(&vf, COMPSC_82576VF_MSG_SET_VLAN | 102u << 16) != NULL);
	CHECK_EQ(compsc_replay_count(&vf.log), RECS - 1);
	/* the host takes the log from the area as it is: valid */
	CHECK_EQ(compsc_area_check(mem, vf.size), 0);
	CHECK_EQ(compsc_replay_check(compsc_area_replay(vf.area),
				     le32_to_cpu(vf.area->replay_len), NULL),
		 RECS - 1);

	/* the replay to a new PF: the area, then the log oldest first */
	pf.refuse_type = COMPSC_82576VF_MSG_SET_LPE;
	CHECK_EQ(compsc_uvf_pf_replay(&vf), 1 + RECS - 1);
	CHECK_EQ(pf.n, 1 + RECS - 1);
	CHECK_EQ(pf.sent[0][0], COMPSC_MBX_AREA);
	CHECK_EQ(pf.words[0], COMPSC_MBX_AREA_WORDS);
	CHECK(pf.words[1] == 3 && !memcmp(pf.sent[1], mac2, 12));
	CHECK(pf.words[2] == 2 && !memcmp(pf.sent[2], mc, 8));
	CHECK(pf.words[3] == 2 && !memcmp(pf.sent[3], lpe, 8));
	CHECK(pf.words[4] == 1 && !memcmp(pf.sent[4], prom, 4));
	CHECK(pf.words[5] == 2 && pf.sent[5][1] == 102 &&
	      pf.sent[5][0] == (COMPSC_82576VF_MSG_SET_VLAN | VLAN_ADD));
	CHECK_EQ(vf.replay_nacks, 1);
	/* nothing the replay sent entered the log again */
	CHECK_EQ(compsc_replay_count(&vf.log), RECS - 1);
	free(mem);
}

static void test_mark_dirty(void)
{
	u8 *buf = NULL;

	CHECK_EQ(posix_memalign((void **)&buf, 4096, 3 * 4096), 0);
	memset(buf, 0x5a, 3 * 4096);
	CHECK_EQ(compsc_mark_dirty(buf, 0), 0);
	CHECK_EQ(compsc_mark_dirty(buf + 100, 1500), 1);
	CHECK_EQ(compsc_mark_dirty(buf + 4000, 200), 2);	/* straddles */
	CHECK_EQ(compsc_mark_dirty(buf + 4096, 4096), 1);
	CHECK_EQ(compsc_mark_dirty(buf + 1, 2 * 4096), 3);
	CHECK_EQ(compsc_uvf_mark_dirty(buf + 4095, 2), 2);
	/* written back with its own value: nothing changed */
	for (u32 i = 0; i < 3 * 4096; i++)
		if (buf[i] != 0x5a)
			CHECK(0);
	free(buf);
}

int main(void)
{
	test_keys();
	test_log();
	test_mark_dirty();
	CHECK_DONE();
}
