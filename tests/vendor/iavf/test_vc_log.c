// SPDX-License-Identifier: GPL-2.0
/*
 * iavf's virtchnl replay encoding (iavf_cs_log.c of the applied series)
 * against the kernel's own virtchnl.h: which messages are kept under which
 * key, sets (an address added then deleted leaves nothing, N distinct
 * ones leave N, one added twice leaves one), last write per setting, the
 * log bounded under churn, and replay: what goes back to the PF, in which
 * order, each message accepted by virtchnl's own validator
 * (virtchnl_vc_validate_vf_msg(), what ice and i40e run on every message).
 */
#include "iavf.h"
#include <stdio.h>
#include <string.h>
#include "test_util.h"

#define RECS	128
#define KEY(op)	((u32)(op) << 16)
#define VSI	3
#define ETH_P_8021Q	0x8100
#define ETH_P_8021AD	0x88A8

static _Alignas(64) u8 mem[sizeof(struct compsc_replay_hdr) +
			   RECS * sizeof(struct compsc_replay_rec)];
static struct compsc_replay lg;
static struct virtchnl_version_info ver = {
	VIRTCHNL_VERSION_MAJOR, VIRTCHNL_VERSION_MINOR
};
static u8 buf[4096];

/* a message iavf sent (the PF's validator agrees) and the PF accepted */
static int acked(u32 op, const void *msg, u32 len)
{
	VT_EQ(virtchnl_vc_validate_vf_msg(&ver, op, (u8 *)msg, len), 0);
	return iavf_cs_log(&lg, op, msg, len);
}

/* --- messages built as iavf builds them (virtchnl_struct_size) ---------- */

static u32 macs(u32 op, const u8 *last, int n)
{
	struct virtchnl_ether_addr_list *v = (void *)buf;
	u32 len = virtchnl_struct_size(v, list, n);
	int i;

	memset(buf, 0, len);
	v->vsi_id = VSI;
	v->num_elements = n;
	for (i = 0; i < n; i++) {
		u8 a[ETH_ALEN] = { 2, 0, 0, 0, 0, last[i] };

		memcpy(v->list[i].addr, a, ETH_ALEN);
		v->list[i].type = VIRTCHNL_ETHER_ADDR_EXTRA;
	}
	return acked(op, buf, len);
}

static int mac(u32 op, u8 last)
{
	return macs(op, &last, 1);
}

static int vlan2(u32 op, u16 vid, u16 tpid)
{
	struct virtchnl_vlan_filter_list_v2 *v = (void *)buf;
	u32 len = virtchnl_struct_size(v, filters, 1);

	memset(buf, 0, len);
	v->vport_id = VSI;
	v->num_elements = 1;
	v->filters[0].outer.tci = vid;
	v->filters[0].outer.tci_mask = 0xfff;
	v->filters[0].outer.tpid = tpid;
	return acked(op, buf, len);
}

static int vlan1(u32 op, u16 vid)
{
	struct virtchnl_vlan_filter_list *v = (void *)buf;
	u32 len = virtchnl_struct_size(v, vlan_id, 1);

	memset(buf, 0, len);
	v->vsi_id = VSI;
	v->num_elements = 1;
	v->vlan_id[0] = vid;
	return acked(op, buf, len);
}

/* the message, kept to compare the replay with */
static u8 qmsg[4096], imsg[4096];
static u32 qlen, ilen;

static int queues(int n, u64 base)
{
	struct virtchnl_vsi_queue_config_info *v = (void *)qmsg;
	int i;

	qlen = virtchnl_struct_size(v, qpair, n);
	memset(qmsg, 0, qlen);
	v->vsi_id = VSI;
	v->num_queue_pairs = n;
	for (i = 0; i < n; i++) {
		v->qpair[i].txq.vsi_id = VSI;
		v->qpair[i].txq.queue_id = i;
		v->qpair[i].txq.ring_len = 512;
		v->qpair[i].txq.dma_ring_addr = base + 0x10000 * i;
		v->qpair[i].rxq.vsi_id = VSI;
		v->qpair[i].rxq.queue_id = i;
		v->qpair[i].rxq.ring_len = 512;
		v->qpair[i].rxq.dma_ring_addr = base + 0x10000 * i + 0x8000;
		v->qpair[i].rxq.databuffer_size = 2048;
		v->qpair[i].rxq.max_pkt_size = 1522;
	}
	return acked(VIRTCHNL_OP_CONFIG_VSI_QUEUES, qmsg, qlen);
}

static int vectors(int n)
{
	struct virtchnl_irq_map_info *v = (void *)imsg;
	int i;

	ilen = virtchnl_struct_size(v, vecmap, n);
	memset(imsg, 0, ilen);
	v->num_vectors = n;
	for (i = 0; i < n; i++) {
		v->vecmap[i].vsi_id = VSI;
		v->vecmap[i].vector_id = (i + 1) % n;
		v->vecmap[i].rxq_map = i + 1 < n ? 1u << i : 0;
		v->vecmap[i].txq_map = v->vecmap[i].rxq_map;
	}
	return acked(VIRTCHNL_OP_CONFIG_IRQ_MAP, imsg, ilen);
}

static int select_queues(u32 op, u32 mask)
{
	struct virtchnl_queue_select q = { VSI, 0, mask, mask };

	return acked(op, &q, sizeof(q));
}

static int promisc(u16 flags)
{
	struct virtchnl_promisc_info p = { VSI, flags };

	return acked(VIRTCHNL_OP_CONFIG_PROMISCUOUS_MODE, &p, sizeof(p));
}

static int rss(u32 op, u16 n, u8 fill)
{
	struct virtchnl_rss_key *k = (void *)buf;
	u32 len = virtchnl_struct_size(k, key, n);	/* same layout as lut */

	memset(buf, fill, len);
	k->vsi_id = VSI;
	k->key_len = n;
	return acked(op, buf, len);
}

/* --- the log and its replay ---------------------------------------------- */

static u32 count(void)
{
	return compsc_replay_count(&lg);
}

/* members of the set keyed by @op */
static u32 members(u32 op)
{
	u32 i, n = 0;

	for (i = 0; i < count(); i++)
		n += (compsc_replay_at(&lg, i)->key & ~COMPSC_REPLAY_SET_MASK) ==
		     KEY(op);
	return n;
}

/* is there a kept address ending in @last? */
static int has_mac(u8 last)
{
	const struct virtchnl_ether_addr_list *v;
	const struct compsc_replay_rec *r;
	u32 i;

	for (i = 0; i < count(); i++) {
		r = compsc_replay_at(&lg, i);
		v = (const void *)(r->data + 4);
		if ((r->key >> 16) == VIRTCHNL_OP_ADD_ETH_ADDR &&
		    v->list[0].addr[5] == last)
			return 1;
	}
	return 0;
}

struct sent {
	u32 op, len;
	u8 msg[4096];
};
static struct sent out[RECS];

/* What a restore sends, in order; each message passes the validator */
static int replay(void)
{
	u32 i, n = 0;
	int len;

	for (i = 0; i < count(); i++) {
		len = iavf_cs_replay_msg(&lg, i, buf, sizeof(buf));
		VT_CHECK(len == 0 || len >= 4);
		if (len < 4)
			continue;
		memcpy(&out[n].op, buf, 4);
		out[n].len = len - 4;
		memcpy(out[n].msg, buf + 4, len - 4);
		VT_EQ(virtchnl_vc_validate_vf_msg(&ver, out[n].op, out[n].msg,
						  out[n].len), 0);
		n++;
	}
	return n;
}

static const struct sent *sent_op(int n, u32 op)
{
	int i;

	for (i = 0; i < n; i++)
		if (out[i].op == op)
			return &out[i];
	return NULL;
}

static int sent_count(int n, u32 op)
{
	int i, c = 0;

	for (i = 0; i < n; i++)
		c += out[i].op == op;
	return c;
}

static void test_start_over(void)
{
	u32 caps = VIRTCHNL_VF_OFFLOAD_L2 | VIRTCHNL_VF_OFFLOAD_VLAN_V2;
	const struct virtchnl_version_info *v;

	VT_EQ(mac(VIRTCHNL_OP_ADD_ETH_ADDR, 0x77), 0);
	VT_EQ(count(), 1);
	/* the PF forgot us: the log starts over, version first */
	VT_EQ(acked(VIRTCHNL_OP_GET_VF_RESOURCES, &caps, sizeof(caps)), 0);
	VT_EQ(count(), 2);
	VT_EQ(compsc_replay_at(&lg, 0)->key, KEY(VIRTCHNL_OP_VERSION));
	VT_EQ(compsc_replay_at(&lg, 1)->key, KEY(VIRTCHNL_OP_GET_VF_RESOURCES));
	VT_EQ(replay(), 2);
	VT_EQ(out[0].op, VIRTCHNL_OP_VERSION);
	v = (const void *)out[0].msg;
	VT_CHECK(out[0].len == sizeof(*v) && v->major == 1 && v->minor == 1);
	VT_EQ(out[1].op, VIRTCHNL_OP_GET_VF_RESOURCES);
	VT_CHECK(out[1].len == 4 && !memcmp(out[1].msg, &caps, 4));
}

static void test_mac_set(void)
{
	const u8 three[] = { 1, 2, 3 }, two[] = { 1, 3 };
	u8 many[20];
	u32 base = count(), i;
	int n;

	VT_EQ(macs(VIRTCHNL_OP_ADD_ETH_ADDR, three, 3), 0);
	VT_EQ(members(VIRTCHNL_OP_ADD_ETH_ADDR), 3);
	VT_EQ(mac(VIRTCHNL_OP_ADD_ETH_ADDR, 2), 0);	/* again: still one */
	VT_EQ(members(VIRTCHNL_OP_ADD_ETH_ADDR), 3);
	VT_EQ(mac(VIRTCHNL_OP_DEL_ETH_ADDR, 2), 0);
	VT_EQ(members(VIRTCHNL_OP_ADD_ETH_ADDR), 2);
	VT_CHECK(!has_mac(2) && has_mac(1) && has_mac(3));
	/* added then deleted: nothing */
	VT_EQ(mac(VIRTCHNL_OP_ADD_ETH_ADDR, 9), 0);
	VT_EQ(mac(VIRTCHNL_OP_DEL_ETH_ADDR, 9), 0);
	VT_CHECK(!has_mac(9));
	VT_EQ(count(), base + 2);
	/* N distinct addresses in one message: N records */
	for (i = 0; i < 20; i++)
		many[i] = 100 + i;
	VT_EQ(macs(VIRTCHNL_OP_ADD_ETH_ADDR, many, 20), 0);
	VT_EQ(members(VIRTCHNL_OP_ADD_ETH_ADDR), 22);
	VT_EQ(macs(VIRTCHNL_OP_DEL_ETH_ADDR, many, 20), 0);
	VT_EQ(macs(VIRTCHNL_OP_DEL_ETH_ADDR, two, 2), 0);
	VT_EQ(members(VIRTCHNL_OP_ADD_ETH_ADDR), 0);
	/* each kept address replays as a one-address message */
	VT_EQ(mac(VIRTCHNL_OP_ADD_ETH_ADDR, 5), 0);
	n = replay();
	VT_CHECK(sent_op(n, VIRTCHNL_OP_ADD_ETH_ADDR) &&
		 ((const struct virtchnl_ether_addr_list *)
		  sent_op(n, VIRTCHNL_OP_ADD_ETH_ADDR)->msg)->num_elements == 1);
	VT_EQ(mac(VIRTCHNL_OP_DEL_ETH_ADDR, 5), 0);
}

static void test_vlan_sets(void)
{
	VT_EQ(vlan2(VIRTCHNL_OP_ADD_VLAN_V2, 100, ETH_P_8021Q), 0);
	VT_EQ(vlan2(VIRTCHNL_OP_ADD_VLAN_V2, 100, ETH_P_8021AD), 0);
	VT_EQ(members(VIRTCHNL_OP_ADD_VLAN_V2), 2);	/* two tags */
	VT_EQ(vlan2(VIRTCHNL_OP_ADD_VLAN_V2, 100, ETH_P_8021Q), 0);
	VT_EQ(members(VIRTCHNL_OP_ADD_VLAN_V2), 2);
	VT_EQ(vlan2(VIRTCHNL_OP_DEL_VLAN_V2, 100, ETH_P_8021AD), 0);
	VT_EQ(members(VIRTCHNL_OP_ADD_VLAN_V2), 1);
	VT_EQ(vlan1(VIRTCHNL_OP_ADD_VLAN, 7), 0);
	VT_EQ(vlan1(VIRTCHNL_OP_ADD_VLAN, 8), 0);
	VT_EQ(vlan1(VIRTCHNL_OP_DEL_VLAN, 7), 0);
	VT_EQ(members(VIRTCHNL_OP_ADD_VLAN), 1);
	VT_EQ(vlan1(VIRTCHNL_OP_DEL_VLAN, 8), 0);
	VT_EQ(vlan2(VIRTCHNL_OP_DEL_VLAN_V2, 100, ETH_P_8021Q), 0);
	VT_EQ(members(VIRTCHNL_OP_ADD_VLAN) + members(VIRTCHNL_OP_ADD_VLAN_V2),
	      0);
}

/* queue pairs and vectors: replaced whole, sent back byte for byte */
static void test_queues(void)
{
	const struct sent *s;
	int n;

	VT_EQ(queues(4, 0x100000), 0);
	VT_EQ(members(VIRTCHNL_OP_CONFIG_VSI_QUEUES), 4);
	VT_EQ(vectors(5), 0);
	VT_EQ(members(VIRTCHNL_OP_CONFIG_IRQ_MAP), 5);
	n = replay();
	s = sent_op(n, VIRTCHNL_OP_CONFIG_VSI_QUEUES);
	VT_CHECK(s && s->len == qlen && !memcmp(s->msg, qmsg, qlen));
	VT_EQ(sent_count(n, VIRTCHNL_OP_CONFIG_VSI_QUEUES), 1);
	s = sent_op(n, VIRTCHNL_OP_CONFIG_IRQ_MAP);
	VT_CHECK(s && s->len == ilen && !memcmp(s->msg, imsg, ilen));
	/* fewer queues: the new message replaces the whole set */
	VT_EQ(queues(2, 0x200000), 0);
	VT_EQ(members(VIRTCHNL_OP_CONFIG_VSI_QUEUES), 2);
	n = replay();
	s = sent_op(n, VIRTCHNL_OP_CONFIG_VSI_QUEUES);
	VT_CHECK(s && s->len == qlen && !memcmp(s->msg, qmsg, qlen));
	/* enabled, disabled (nothing to replay), enabled again */
	VT_EQ(select_queues(VIRTCHNL_OP_ENABLE_QUEUES, 3), 0);
	VT_CHECK(compsc_replay_get(&lg, KEY(VIRTCHNL_OP_ENABLE_QUEUES)));
	VT_EQ(select_queues(VIRTCHNL_OP_DISABLE_QUEUES, 3), 0);
	VT_CHECK(!compsc_replay_get(&lg, KEY(VIRTCHNL_OP_ENABLE_QUEUES)));
	VT_CHECK(!compsc_replay_get(&lg, KEY(VIRTCHNL_OP_DISABLE_QUEUES)));
}

static void test_settings(void)
{
	const struct compsc_replay_rec *r;
	u32 before;

	VT_EQ(promisc(FLAG_VF_UNICAST_PROMISC), 0);
	VT_EQ(rss(VIRTCHNL_OP_CONFIG_RSS_KEY, 52, 0x11), 0);
	before = count();
	VT_EQ(promisc(FLAG_VF_MULTICAST_PROMISC), 0);	/* last write wins */
	VT_EQ(count(), before);
	r = compsc_replay_at(&lg, count() - 1);
	VT_EQ(r->key, KEY(VIRTCHNL_OP_CONFIG_PROMISCUOUS_MODE));
	VT_EQ(((const struct virtchnl_promisc_info *)(r->data + 4))->flags,
	      FLAG_VF_MULTICAST_PROMISC);
	VT_EQ(rss(VIRTCHNL_OP_CONFIG_RSS_LUT, 64, 0x01), 0);
	/* a LUT longer than a record is refused, the log unchanged */
	before = count();
	VT_EQ(rss(VIRTCHNL_OP_CONFIG_RSS_LUT, 128, 0x02), -COMPSC_ENOSPC);
	VT_EQ(count(), before);
	VT_EQ(compsc_replay_get(&lg, KEY(VIRTCHNL_OP_CONFIG_RSS_LUT))->data[8],
	      0x01);
	/* not state we replay, and a list whose count lies */
	VT_EQ(iavf_cs_log(&lg, VIRTCHNL_OP_GET_STATS, buf, 4), 0);
	VT_EQ(iavf_cs_log(&lg, VIRTCHNL_OP_ADD_FDIR_FILTER, buf, 64), 0);
	VT_EQ(count(), before);
	((struct virtchnl_ether_addr_list *)buf)->num_elements = 3;
	VT_EQ(iavf_cs_log(&lg, VIRTCHNL_OP_ADD_ETH_ADDR, buf,
			  virtchnl_struct_size((struct virtchnl_ether_addr_list *)buf,
					       list, 2)), -COMPSC_EMALFORMED);
	VT_EQ(count(), before);
}

/* iavf's bring-up, replayed in the order the PF saw it */
static void test_order(void)
{
	static const u32 want[] = {
		VIRTCHNL_OP_VERSION, VIRTCHNL_OP_GET_VF_RESOURCES,
		VIRTCHNL_OP_ADD_ETH_ADDR, VIRTCHNL_OP_ADD_VLAN_V2,
		VIRTCHNL_OP_CONFIG_RSS_KEY, VIRTCHNL_OP_CONFIG_RSS_LUT,
		VIRTCHNL_OP_CONFIG_VSI_QUEUES, VIRTCHNL_OP_CONFIG_IRQ_MAP,
		VIRTCHNL_OP_ENABLE_QUEUES, VIRTCHNL_OP_CONFIG_PROMISCUOUS_MODE,
	};
	u32 caps = VIRTCHNL_VF_OFFLOAD_L2;
	int n, i;

	VT_EQ(acked(VIRTCHNL_OP_GET_VF_RESOURCES, &caps, sizeof(caps)), 0);
	VT_EQ(mac(VIRTCHNL_OP_ADD_ETH_ADDR, 1), 0);
	VT_EQ(vlan2(VIRTCHNL_OP_ADD_VLAN_V2, 0, ETH_P_8021Q), 0);
	VT_EQ(rss(VIRTCHNL_OP_CONFIG_RSS_KEY, 52, 0x22), 0);
	VT_EQ(rss(VIRTCHNL_OP_CONFIG_RSS_LUT, 64, 0x00), 0);
	VT_EQ(queues(4, 0x300000), 0);
	VT_EQ(vectors(5), 0);
	VT_EQ(select_queues(VIRTCHNL_OP_ENABLE_QUEUES, 0xf), 0);
	VT_EQ(promisc(0), 0);
	n = replay();
	VT_EQ(n, sizeof(want) / sizeof(want[0]));
	for (i = 0; i < n && i < (int)(sizeof(want) / sizeof(want[0])); i++)
		VT_EQ(out[i].op, want[i]);
}

/* churn never grows the log: its size follows what the PF holds */
static void test_bounded(void)
{
	u32 seed = 12345, i, before = count(), most = 0;
	u8 last;

	for (i = 0; i < 100000; i++) {
		seed = seed * 1103515245 + 12345;
		last = 200 + (seed >> 16) % 4;
		VT_EQ(mac(seed & 0x100 ? VIRTCHNL_OP_ADD_ETH_ADDR :
			  VIRTCHNL_OP_DEL_ETH_ADDR, last), 0);
		if (i % 1000 == 0)
			VT_EQ(promisc(i & 1), 0);
		if (i % 5000 == 0)
			VT_EQ(queues(1 + i % 4, 0x400000), 0);
		most = count() > most ? count() : most;
	}
	VT_CHECK(most <= before + 4);
	printf("bounded: %u records at most over 100000 messages\n", most);
}

int main(void)
{
	VT_EQ(compsc_replay_init(&lg, mem, sizeof(mem), NULL, 0), 0);
	VT_EQ(lg.hdr->capacity, RECS);
	test_start_over();
	test_mac_set();
	test_vlan_sets();
	test_queues();
	test_settings();
	test_order();
	test_bounded();
	return vt_done("iavf virtchnl replay log");
}
