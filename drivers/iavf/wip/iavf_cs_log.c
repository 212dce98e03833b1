// SPDX-License-Identifier: GPL-2.0
/* CompSC: what the virtchnl messages the PF accepted set, kept bounded.
 *
 * A record is one message, __le32 opcode then payload, keyed opcode << 16.
 * Settings: last write per key. Lists (addresses, VLAN filters): a set per
 * opcode of one-element messages, so the log holds what the PF holds and
 * never what happened. Queue pairs and the vector map: each message
 * replaces the whole set, which goes back to the PF as one message.
 */
#include "iavf_cs.h"

#define IAVF_CS_KEY(op)		((u32)(op) << 16)
#define IAVF_CS_OP		sizeof(__le32)

/* A list message: @hdr bytes, u16 count at @cnt, then @elem-byte elements
 * whose first @id bytes name them; @set: the opcode of the set it changes
 */
struct iavf_cs_list {
	u32 op, set;
	u8 hdr, cnt, elem, id, del, whole;
};

#define IAVF_CS_LIST(op, set, s, n, m, id, del, whole) \
	{ VIRTCHNL_OP_##op, VIRTCHNL_OP_##set, offsetof(struct s, m), \
	  offsetof(struct s, n), sizeof(((struct s *)0)->m[0]), id, del, whole }

static const struct iavf_cs_list iavf_cs_lists[] = {
	IAVF_CS_LIST(ADD_ETH_ADDR, ADD_ETH_ADDR, virtchnl_ether_addr_list,
		     num_elements, list, ETH_ALEN, 0, 0),
	IAVF_CS_LIST(DEL_ETH_ADDR, ADD_ETH_ADDR, virtchnl_ether_addr_list,
		     num_elements, list, ETH_ALEN, 1, 0),
	IAVF_CS_LIST(ADD_VLAN, ADD_VLAN, virtchnl_vlan_filter_list,
		     num_elements, vlan_id, 2, 0, 0),
	IAVF_CS_LIST(DEL_VLAN, ADD_VLAN, virtchnl_vlan_filter_list,
		     num_elements, vlan_id, 2, 1, 0),
	/* a V2 filter is named by its inner and outer tag */
	IAVF_CS_LIST(ADD_VLAN_V2, ADD_VLAN_V2, virtchnl_vlan_filter_list_v2,
		     num_elements, filters, 12, 0, 0),
	IAVF_CS_LIST(DEL_VLAN_V2, ADD_VLAN_V2, virtchnl_vlan_filter_list_v2,
		     num_elements, filters, 12, 1, 0),
	IAVF_CS_LIST(CONFIG_VSI_QUEUES, CONFIG_VSI_QUEUES,
		     virtchnl_vsi_queue_config_info, num_queue_pairs, qpair,
		     0, 0, 1),
	IAVF_CS_LIST(CONFIG_IRQ_MAP, CONFIG_IRQ_MAP, virtchnl_irq_map_info,
		     num_vectors, vecmap, 0, 0, 1),
};

/* Settings, last write wins; opposite opcodes share the key of the first */
static const u32 iavf_cs_settings[][2] = {
	{ VIRTCHNL_OP_CONFIG_PROMISCUOUS_MODE, VIRTCHNL_OP_CONFIG_PROMISCUOUS_MODE },
	{ VIRTCHNL_OP_CONFIG_RSS_KEY, VIRTCHNL_OP_CONFIG_RSS_KEY },
	{ VIRTCHNL_OP_CONFIG_RSS_LUT, VIRTCHNL_OP_CONFIG_RSS_LUT },
	{ VIRTCHNL_OP_SET_RSS_HENA, VIRTCHNL_OP_SET_RSS_HENA },
	{ VIRTCHNL_OP_CONFIG_RSS_HFUNC, VIRTCHNL_OP_CONFIG_RSS_HFUNC },
	{ VIRTCHNL_OP_ENABLE_QUEUES, VIRTCHNL_OP_ENABLE_QUEUES },
	{ VIRTCHNL_OP_ENABLE_VLAN_STRIPPING, VIRTCHNL_OP_ENABLE_VLAN_STRIPPING },
	{ VIRTCHNL_OP_DISABLE_VLAN_STRIPPING, VIRTCHNL_OP_ENABLE_VLAN_STRIPPING },
};

static int iavf_cs_put(struct compsc_replay *log, u32 key, u32 op,
		       const void *msg, u32 len)
{
	u8 rec[COMPSC_REPLAY_DATA_MAX];
	__le32 o = cpu_to_le32(op);

	if (len > sizeof(rec) - IAVF_CS_OP)
		return -COMPSC_ENOSPC;
	memcpy(rec, &o, IAVF_CS_OP);
	memcpy(rec + IAVF_CS_OP, msg, len);
	return compsc_replay_put(log, key, rec, IAVF_CS_OP + len);
}

/* Drop every record whose key has @mask bits equal to @key's */
static void iavf_cs_forget(struct compsc_replay *log, u32 key, u32 mask)
{
	const struct compsc_replay_rec *r;
	u32 i = 0;

	while ((r = compsc_replay_at(log, i)))
		if ((le32_to_cpu(r->key) & mask) == key)
			compsc_replay_del(log, le32_to_cpu(r->key));
		else
			i++;
}

/* One record per element: the header, a count of 1, the element */
static int iavf_cs_list(struct compsc_replay *log,
			const struct iavf_cs_list *t, const u8 *msg, u32 len)
{
	u32 set = IAVF_CS_KEY(t->set), off = IAVF_CS_OP + t->hdr, i;
	u8 rec[COMPSC_REPLAY_DATA_MAX];
	__le32 o = cpu_to_le32(t->set);
	u16 n = 1;
	int err = 0;

	if (len < t->hdr || off + t->elem > sizeof(rec))
		return -COMPSC_EMALFORMED;
	memcpy(rec, &o, IAVF_CS_OP);
	memcpy(rec + IAVF_CS_OP, msg, t->hdr);
	memcpy(rec + IAVF_CS_OP + t->cnt, &n, sizeof(n));
	memcpy(&n, msg + t->cnt, sizeof(n));
	if (len < t->hdr + (u32)n * t->elem)
		return -COMPSC_EMALFORMED;
	if (t->whole)
		iavf_cs_forget(log, set, ~COMPSC_REPLAY_SET_MASK);
	for (i = 0; i < n && !err; i++) {
		memcpy(rec + off, msg + t->hdr + i * t->elem, t->elem);
		if (t->whole)
			err = compsc_replay_put(log, set | i, rec,
						off + t->elem);
		else if (t->del)
			err = compsc_replay_set_del(log, set, rec, off, t->id);
		else
			err = compsc_replay_set_put(log, set, rec,
						    off + t->elem, off, t->id);
	}
	return err;
}

/* GET_VF_RESOURCES starts the VF's life at the PF (probe, every reset):
 * the PF has forgotten everything. Start over, the version first.
 */
static int iavf_cs_restart(struct compsc_replay *log, const void *msg,
			   u32 len)
{
	struct virtchnl_version_info v = {
		VIRTCHNL_VERSION_MAJOR, VIRTCHNL_VERSION_MINOR
	};

	iavf_cs_forget(log, 0, 0);
	return iavf_cs_put(log, IAVF_CS_KEY(VIRTCHNL_OP_VERSION),
			   VIRTCHNL_OP_VERSION, &v, sizeof(v)) ?:
	       iavf_cs_put(log, IAVF_CS_KEY(VIRTCHNL_OP_GET_VF_RESOURCES),
			   VIRTCHNL_OP_GET_VF_RESOURCES, msg, len);
}

int iavf_cs_log(struct compsc_replay *log, u32 op, const void *msg, u32 len)
{
	u32 i;

	for (i = 0; i < ARRAY_SIZE(iavf_cs_lists); i++)
		if (iavf_cs_lists[i].op == op)
			return iavf_cs_list(log, &iavf_cs_lists[i], msg, len);
	for (i = 0; i < ARRAY_SIZE(iavf_cs_settings); i++)
		if (iavf_cs_settings[i][0] == op)
			return iavf_cs_put(log,
					   IAVF_CS_KEY(iavf_cs_settings[i][1]),
					   op, msg, len);
	if (op == VIRTCHNL_OP_GET_VF_RESOURCES)
		return iavf_cs_restart(log, msg, len);
	if (op == VIRTCHNL_OP_DISABLE_QUEUES)
		return compsc_replay_del(log,
					 IAVF_CS_KEY(VIRTCHNL_OP_ENABLE_QUEUES));
	return 0;	/* not state the PF keeps for us, or not replayed */
}

static bool iavf_cs_same_set(const struct compsc_replay *log, u32 i, u32 key)
{
	const struct compsc_replay_rec *r = compsc_replay_at(log, i);

	return r && !((le32_to_cpu(r->key) ^ key) & ~COMPSC_REPLAY_SET_MASK);
}

int iavf_cs_replay_msg(const struct compsc_replay *log, u32 i, u8 *buf,
		       u32 cap)
{
	const struct compsc_replay_rec *r = compsc_replay_at(log, i);
	const struct iavf_cs_list *t = NULL;
	u32 key, len, n, k;
	u16 cnt;

	if (!r || le16_to_cpu(r->len) > cap)
		return -COMPSC_EINVAL;
	key = le32_to_cpu(r->key);
	for (k = 0; k < ARRAY_SIZE(iavf_cs_lists); k++)
		if (iavf_cs_lists[k].whole &&
		    IAVF_CS_KEY(iavf_cs_lists[k].op) == (key & ~0xffffu))
			t = &iavf_cs_lists[k];
	if (t && i && iavf_cs_same_set(log, i - 1, key))
		return 0;
	len = le16_to_cpu(r->len);
	memcpy(buf, r->data, len);
	for (n = 1; t && iavf_cs_same_set(log, i + n, key); n++) {
		if (len + t->elem > cap)
			return -COMPSC_ENOSPC;
		r = compsc_replay_at(log, i + n);
		memcpy(buf + len, r->data + IAVF_CS_OP + t->hdr, t->elem);
		len += t->elem;
	}
	cnt = n;
	if (t)
		memcpy(buf + IAVF_CS_OP + t->cnt, &cnt, sizeof(cnt));
	return len;
}
