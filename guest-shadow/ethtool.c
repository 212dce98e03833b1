// SPDX-License-Identifier: GPL-2.0
/*
 * gshadow ethtool: driver info, the shadow's counters (ethtool -S), and
 * the ring sizes and interrupt coalescing the user sets through the upper
 * (ethtool -G / -C): forwarded to each lower, recorded per field changed,
 * replayed into the next lower (ring sizes clamped to what it takes). With
 * no lower, a set is only recorded (intercepted): the next lower gets it.
 *
 * A lower's ethtool ops are called the way the ethtool core calls them
 * (its ethnl_ops_begin()/complete() are not exported, so the same steps
 * here): its parent device resumed from runtime suspend, a device not
 * present refused, and the driver's own begin and complete around the
 * calls, whose begin may refuse (a driver whose device its host holds).
 */
#include <linux/ethtool.h>
#include <linux/pm_runtime.h>
#include <linux/rtnetlink.h>
#include "gshadow.h"

/* What the upper reports as ring maxima while it has no lower. */
#define GSHADOW_RING_MAX	4096

/* Same order as enum gshadow_stat. */
static const char gshadow_stat_names[GSHADOW_NR_STATS][ETH_GSTRING_LEN] = {
	"tx_held", "tx_held_sent", "tx_hold_dropped", "tx_hold_peak",
	"lower_adopted", "lower_released", "replays", "replay_errors",
	"mtu_clamped", "peer_notify", "log_full", "tx_standby",
	"standby_adopted", "mac_deferred",
	"call_mtu", "call_mac", "call_rx_mode", "call_rx_flags",
	"call_vlan_add", "call_vlan_del",
	"call_ring", "call_coalesce", "call_features", "ring_clamped",
	"quiesced", "quiesce_timeouts", "tx_drained",
};

/* Gauges after the counters: what the shadow holds right now. */
static const char gshadow_gauge_names[][ETH_GSTRING_LEN] = {
	"tx_hold_qlen", "tx_hold_max", "log_records", "features_masked",
	"has_lower", "has_standby",
};

#define GSHADOW_NR_GAUGES	ARRAY_SIZE(gshadow_gauge_names)

static void gshadow_get_drvinfo(struct net_device *dev,
				struct ethtool_drvinfo *info)
{
	struct gshadow *gs = netdev_priv(dev);
	struct net_device *lower;

	strscpy(info->driver, GSHADOW_DRV, sizeof(info->driver));
	rcu_read_lock();
	lower = rcu_dereference(gs->lower);
	strscpy(info->bus_info, lower ? lower->name : "none",
		sizeof(info->bus_info));
	rcu_read_unlock();
}

static int gshadow_get_sset_count(struct net_device *dev, int sset)
{
	if (sset != ETH_SS_STATS)
		return -EOPNOTSUPP;
	return GSHADOW_NR_STATS + GSHADOW_NR_GAUGES;
}

static void gshadow_get_strings(struct net_device *dev, u32 sset, u8 *buf)
{
	if (sset != ETH_SS_STATS)
		return;
	memcpy(buf, gshadow_stat_names, sizeof(gshadow_stat_names));
	memcpy(buf + sizeof(gshadow_stat_names), gshadow_gauge_names,
	       sizeof(gshadow_gauge_names));
}

static void gshadow_get_stats(struct net_device *dev,
			      struct ethtool_stats *st, u64 *data)
{
	struct gshadow *gs = netdev_priv(dev);
	int i;

	for (i = 0; i < GSHADOW_NR_STATS; i++)
		*data++ = atomic64_read(&gs->stats[i]);
	*data++ = skb_queue_len_lockless(&gs->held);
	*data++ = READ_ONCE(gs->hold_max);
	*data++ = gshadow_log_count(gs);
	*data++ = gs->masked;
	*data++ = !!rcu_access_pointer(gs->lower);
	*data++ = !!rcu_access_pointer(gs->standby);
}

/* One op's settings with the kernel-only part its get/set pass along. */
struct gshadow_ring {
	struct ethtool_ringparam r;
	struct kernel_ethtool_ringparam k;
};

struct gshadow_coal {
	struct ethtool_coalesce c;
	struct kernel_ethtool_coalesce k;
};

union gshadow_knob_buf {
	struct gshadow_ring ring;
	struct gshadow_coal coal;
};

/* A u32 setting in one of those, and the knob that records it. */
struct gshadow_field {
	enum gshadow_knob knob;
	size_t off;
	size_t max_off;		/* rings: its maximum in the same struct */
	u32 coal_bit;		/* coalescing: supported_coalesce_params bit */
};

#define RING(f, max)	.off = offsetof(struct gshadow_ring, r.f), \
			.max_off = offsetof(struct gshadow_ring, r.max)
#define COAL(f, bit)	.off = offsetof(struct gshadow_coal, c.f), .coal_bit = bit

/* An ethtool op pair the upper forwards: get and set on one lower. */
struct gshadow_knobs {
	const char *what;
	const struct gshadow_field *fields;
	int nr;
	bool (*has)(const struct ethtool_ops *ops);
	void (*get)(struct net_device *lower, union gshadow_knob_buf *b);
	int (*set)(struct net_device *lower, union gshadow_knob_buf *b,
		   struct netlink_ext_ack *extack);
};

/* Before a lower's ethtool ops (RTNL); 0: call them, then gshadow_lower_complete(). */
static int gshadow_lower_begin(struct net_device *lower)
{
	const struct ethtool_ops *ops = lower->ethtool_ops;
	int err = 0;

	ASSERT_RTNL();
	if (lower->dev.parent)
		pm_runtime_get_sync(lower->dev.parent);
	if (!netif_device_present(lower) ||
	    lower->reg_state >= NETREG_UNREGISTERING)
		err = -ENODEV;
	else if (ops->begin)
		err = ops->begin(lower);
	if (err && lower->dev.parent)
		pm_runtime_put(lower->dev.parent);
	return err;
}

static void gshadow_lower_complete(struct net_device *lower)
{
	if (lower->ethtool_ops->complete)
		lower->ethtool_ops->complete(lower);
	if (lower->dev.parent)
		pm_runtime_put(lower->dev.parent);
}

static u32 *gshadow_fld(union gshadow_knob_buf *b, size_t off)
{
	return (u32 *)((u8 *)b + off);
}

static bool gshadow_has_ring(const struct ethtool_ops *ops)
{
	return ops && ops->get_ringparam && ops->set_ringparam;
}

static void gshadow_ring_get(struct net_device *lower,
			     union gshadow_knob_buf *b)
{
	lower->ethtool_ops->get_ringparam(lower, &b->ring.r, &b->ring.k, NULL);
}

static int gshadow_ring_set(struct net_device *lower,
			    union gshadow_knob_buf *b,
			    struct netlink_ext_ack *extack)
{
	return lower->ethtool_ops->set_ringparam(lower, &b->ring.r, &b->ring.k,
						 extack);
}

static const struct gshadow_field gshadow_ring_fields[] = {
	{ GSHADOW_KNOB_RX_RING, RING(rx_pending, rx_max_pending) },
	{ GSHADOW_KNOB_TX_RING, RING(tx_pending, tx_max_pending) },
};

static const struct gshadow_knobs gshadow_ring_knobs = {
	.what = "ring sizes", .fields = gshadow_ring_fields,
	.nr = ARRAY_SIZE(gshadow_ring_fields), .has = gshadow_has_ring,
	.get = gshadow_ring_get, .set = gshadow_ring_set,
};

static bool gshadow_has_coal(const struct ethtool_ops *ops)
{
	return ops && ops->get_coalesce && ops->set_coalesce;
}

static void gshadow_coal_get(struct net_device *lower,
			     union gshadow_knob_buf *b)
{
	if (lower->ethtool_ops->get_coalesce(lower, &b->coal.c, &b->coal.k, NULL))
		memset(b, 0, sizeof(*b));
}

static int gshadow_coal_set(struct net_device *lower,
			    union gshadow_knob_buf *b,
			    struct netlink_ext_ack *extack)
{
	return lower->ethtool_ops->set_coalesce(lower, &b->coal.c, &b->coal.k,
						extack);
}

static const struct gshadow_field gshadow_coal_fields[] = {
	{ GSHADOW_KNOB_RX_USECS, COAL(rx_coalesce_usecs, ETHTOOL_COALESCE_RX_USECS) },
	{ GSHADOW_KNOB_TX_USECS, COAL(tx_coalesce_usecs, ETHTOOL_COALESCE_TX_USECS) },
	{ GSHADOW_KNOB_RX_FRAMES,
	  COAL(rx_max_coalesced_frames, ETHTOOL_COALESCE_RX_MAX_FRAMES) },
	{ GSHADOW_KNOB_TX_FRAMES,
	  COAL(tx_max_coalesced_frames, ETHTOOL_COALESCE_TX_MAX_FRAMES) },
};

static const struct gshadow_knobs gshadow_coal_knobs = {
	.what = "coalescing", .fields = gshadow_coal_fields,
	.nr = ARRAY_SIZE(gshadow_coal_fields), .has = gshadow_has_coal,
	.get = gshadow_coal_get, .set = gshadow_coal_set,
};

#define GSHADOW_MAX_FIELDS	4

/* Values to give a lower; set[i] false: leave field i as the lower has it. */
struct gshadow_want {
	u32 v[GSHADOW_MAX_FIELDS];
	bool set[GSHADOW_MAX_FIELDS];
};

/*
 * Give @lower the wanted fields, keeping its own for the rest; a ring size
 * above its maximum is clamped (*clamped set). -EOPNOTSUPP when it has no
 * such op or cannot take a changed coalescing field. Between
 * gshadow_lower_begin() and gshadow_lower_complete().
 */
static int __gshadow_knobs_apply(struct net_device *lower,
				 const struct gshadow_knobs *g,
				 const struct gshadow_want *w, bool *clamped,
				 struct netlink_ext_ack *extack)
{
	const struct ethtool_ops *ops = lower->ethtool_ops;
	union gshadow_knob_buf b = {};
	bool change = false;
	int i;

	g->get(lower, &b);
	for (i = 0; i < g->nr; i++) {
		const struct gshadow_field *f = &g->fields[i];
		u32 *cur = gshadow_fld(&b, f->off), v = w->v[i];

		if (!w->set[i])
			continue;
		if (f->max_off && v > *gshadow_fld(&b, f->max_off)) {
			v = *gshadow_fld(&b, f->max_off);
			*clamped = true;
		}
		if (*cur == v)
			continue;
		if (f->coal_bit && !(ops->supported_coalesce_params & f->coal_bit))
			return -EOPNOTSUPP;
		*cur = v;
		change = true;
	}
	return change ? g->set(lower, &b, extack) : 0;
}

/* __gshadow_knobs_apply() inside the steps the ethtool core takes. */
static int gshadow_knobs_apply(struct net_device *lower,
			       const struct gshadow_knobs *g,
			       const struct gshadow_want *w, bool *clamped,
			       struct netlink_ext_ack *extack)
{
	int err;

	if (!g->has(lower->ethtool_ops))
		return -EOPNOTSUPP;
	err = gshadow_lower_begin(lower);
	if (err)
		return err;
	err = __gshadow_knobs_apply(lower, g, w, clamped, extack);
	gshadow_lower_complete(lower);
	return err;
}

/* The upper's view: the primary's (or the standby's), else the record. */
static void gshadow_knobs_get(struct gshadow *gs, const struct gshadow_knobs *g,
			      union gshadow_knob_buf *b)
{
	struct net_device *lower[2];
	u64 v;
	int i;

	memset(b, 0, sizeof(*b));
	if (gshadow_lowers(gs, lower) && g->has(lower[0]->ethtool_ops) &&
	    !gshadow_lower_begin(lower[0])) {
		g->get(lower[0], b);
		gshadow_lower_complete(lower[0]);
		return;
	}
	for (i = 0; i < g->nr; i++) {
		const struct gshadow_field *f = &g->fields[i];

		if (gshadow_knob(gs, f->knob, &v))
			*gshadow_fld(b, f->off) = v;
		if (f->max_off)
			*gshadow_fld(b, f->max_off) = GSHADOW_RING_MAX;
	}
}

/*
 * A set through the upper: every field the user changed (or set before)
 * goes to each lower; the first lower's refusal fails the call and
 * records nothing, a standby's is counted. No lower: recorded only.
 */
static int gshadow_knobs_set(struct gshadow *gs, const struct gshadow_knobs *g,
			     union gshadow_knob_buf *req,
			     struct netlink_ext_ack *extack)
{
	struct gshadow_want w = {};
	union gshadow_knob_buf cur;
	struct net_device *lower[2];
	bool clamped = false;
	int i, n, err;
	u64 v;

	ASSERT_RTNL();
	n = gshadow_lowers(gs, lower);
	if (!n && !gshadow_recording(gs))
		return -ENODEV;
	gshadow_knobs_get(gs, g, &cur);
	for (i = 0; i < g->nr; i++) {
		size_t off = g->fields[i].off;

		w.v[i] = *gshadow_fld(req, off);
		w.set[i] = w.v[i] != *gshadow_fld(&cur, off) ||
			   gshadow_knob(gs, g->fields[i].knob, &v);
	}
	for (i = 0; i < n; i++) {
		err = gshadow_knobs_apply(lower[i], g, &w, &clamped, extack);
		if (err && !i)
			return err;
		if (err) {
			gshadow_inc(gs, GSHADOW_REPLAY_ERRORS);
			netdev_warn(gs->upper, "standby %s refuses the %s (%d)\n",
				    lower[i]->name, g->what, err);
		}
	}
	for (i = 0; i < g->nr; i++)
		if (w.set[i])
			gshadow_record_knob(gs, g->fields[i].knob, w.v[i]);
	return 0;
}

/* Drive a new lower into the recorded knobs of @g (RTNL, from replay). */
static void gshadow_knobs_replay(struct gshadow *gs, struct net_device *lower,
				 const struct gshadow_knobs *g)
{
	struct gshadow_want w = {};
	bool clamped = false, any = false;
	int i, err;

	for (i = 0; i < g->nr; i++) {
		u64 v = 0;

		w.set[i] = gshadow_knob(gs, g->fields[i].knob, &v);
		w.v[i] = v;
		any |= w.set[i];
	}
	if (!any)
		return;
	err = gshadow_knobs_apply(lower, g, &w, &clamped, NULL);
	if (err) {
		gshadow_inc(gs, GSHADOW_REPLAY_ERRORS);
		netdev_warn(gs->upper, "%s refuses the recorded %s (%d)\n",
			    lower->name, g->what, err);
	}
	if (clamped) {
		gshadow_inc(gs, GSHADOW_KNOB_CLAMPED);
		netdev_warn(gs->upper, "%s takes smaller rings: clamped to its maximum\n",
			    lower->name);
	}
}

void gshadow_replay_knobs(struct gshadow *gs, struct net_device *lower)
{
	gshadow_knobs_replay(gs, lower, &gshadow_ring_knobs);
	gshadow_knobs_replay(gs, lower, &gshadow_coal_knobs);
}

static void gshadow_get_ringparam(struct net_device *dev,
				  struct ethtool_ringparam *ring,
				  struct kernel_ethtool_ringparam *kring,
				  struct netlink_ext_ack *extack)
{
	union gshadow_knob_buf b;

	gshadow_knobs_get(netdev_priv(dev), &gshadow_ring_knobs, &b);
	*ring = b.ring.r;
	*kring = b.ring.k;
}

static int gshadow_set_ringparam(struct net_device *dev,
				 struct ethtool_ringparam *ring,
				 struct kernel_ethtool_ringparam *kring,
				 struct netlink_ext_ack *extack)
{
	union gshadow_knob_buf b = { .ring = { .r = *ring, .k = *kring } };
	struct gshadow *gs = netdev_priv(dev);

	gshadow_tap(gs, GSHADOW_CALL_RING, "set_ringparam rx %u tx %u",
		    ring->rx_pending, ring->tx_pending);
	return gshadow_knobs_set(gs, &gshadow_ring_knobs, &b, extack);
}

static int gshadow_get_coalesce(struct net_device *dev,
				struct ethtool_coalesce *ec,
				struct kernel_ethtool_coalesce *kec,
				struct netlink_ext_ack *extack)
{
	union gshadow_knob_buf b;

	gshadow_knobs_get(netdev_priv(dev), &gshadow_coal_knobs, &b);
	*ec = b.coal.c;
	*kec = b.coal.k;
	return 0;
}

static int gshadow_set_coalesce(struct net_device *dev,
				struct ethtool_coalesce *ec,
				struct kernel_ethtool_coalesce *kec,
				struct netlink_ext_ack *extack)
{
	union gshadow_knob_buf b = { .coal = { .c = *ec, .k = *kec } };
	struct gshadow *gs = netdev_priv(dev);

	gshadow_tap(gs, GSHADOW_CALL_COALESCE,
		    "set_coalesce rx-usecs %u tx-usecs %u rx-frames %u tx-frames %u",
		    ec->rx_coalesce_usecs, ec->tx_coalesce_usecs,
		    ec->rx_max_coalesced_frames, ec->tx_max_coalesced_frames);
	return gshadow_knobs_set(gs, &gshadow_coal_knobs, &b, extack);
}

const struct ethtool_ops gshadow_ethtool_ops = {
	.supported_coalesce_params = ETHTOOL_COALESCE_USECS |
				     ETHTOOL_COALESCE_MAX_FRAMES,
	.get_drvinfo		= gshadow_get_drvinfo,
	.get_link		= ethtool_op_get_link,
	.get_sset_count		= gshadow_get_sset_count,
	.get_strings		= gshadow_get_strings,
	.get_ethtool_stats	= gshadow_get_stats,
	.get_ringparam		= gshadow_get_ringparam,
	.set_ringparam		= gshadow_set_ringparam,
	.get_coalesce		= gshadow_get_coalesce,
	.set_coalesce		= gshadow_set_coalesce,
};
