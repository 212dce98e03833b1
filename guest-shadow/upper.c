// SPDX-License-Identifier: GPL-2.0
/*
 * gshadow upper: the netdev applications use. Transmit goes to the primary
 * lower when it is live, else to a usable standby, and into the bounded
 * hold queue when neither can carry it, so the stack never sees an error;
 * every configuration call is forwarded to both lowers (the passthrough
 * tap counts it); a new lower gets the upper's state when it joins
 * (join.c), and in interpose mode the ethtool settings recorded for it
 * (record.c).
 */
#include <linux/etherdevice.h>
#include <linux/if_vlan.h>
#include <linux/rtnetlink.h>
#include "gshadow.h"

/* What the upper may offer; each lower's own features mask it. */
#define GSHADOW_OFFLOADS	(NETIF_F_SG | NETIF_F_HW_CSUM | NETIF_F_HIGHDMA | \
				 NETIF_F_TSO | NETIF_F_TSO6 | NETIF_F_TSO_ECN)
/* Tags ride in skb metadata; a lower without them inserts in software. */
#define GSHADOW_VLAN_FEATURES	(NETIF_F_HW_VLAN_CTAG_TX | NETIF_F_HW_VLAN_CTAG_RX | \
				 NETIF_F_HW_VLAN_CTAG_FILTER)

rx_handler_result_t gshadow_handle_frame(struct sk_buff **pskb)
{
	struct sk_buff *skb = *pskb;
	struct net_device *upper = rcu_dereference(skb->dev->rx_handler_data);

	skb->dev = upper;
	dev_sw_netstats_rx_add(upper, skb->len);
	return RX_HANDLER_ANOTHER;
}

/* Queue @skb for the next usable lower, or drop it when the queue is full. */
static netdev_tx_t gshadow_hold(struct gshadow *gs, struct sk_buff *skb)
{
	u32 qlen;

	spin_lock(&gs->held.lock);
	qlen = skb_queue_len(&gs->held);
	if (qlen >= READ_ONCE(gs->hold_max)) {
		spin_unlock(&gs->held.lock);
		gshadow_tap(gs, GSHADOW_TX_HOLD_DROPPED,
			    "xmit dropped: hold queue full (%u)", qlen);
		dev_core_stats_tx_dropped_inc(gs->upper);
		dev_kfree_skb_any(skb);
		return NETDEV_TX_OK;
	}
	__skb_queue_tail(&gs->held, skb);
	spin_unlock(&gs->held.lock);
	gshadow_tap(gs, GSHADOW_TX_HELD, "xmit held (%u queued)", qlen + 1);
	if (qlen + 1 > atomic64_read(&gs->stats[GSHADOW_TX_HOLD_PEAK]))
		atomic64_set(&gs->stats[GSHADOW_TX_HOLD_PEAK], qlen + 1);
	return NETDEV_TX_OK;
}

static void gshadow_xmit_lower(struct net_device *upper,
			       struct net_device *lower, struct sk_buff *skb)
{
	unsigned int len = skb->len;

	skb->dev = lower;
	if (dev_xmit_complete(dev_queue_xmit(skb)))
		dev_sw_netstats_tx_add(upper, 1, len);
	else
		dev_core_stats_tx_dropped_inc(upper);
}

/* @lower can carry transmit: ready, and not draining before it goes down. */
static bool gshadow_usable(struct gshadow *gs, struct net_device *lower)
{
	return gshadow_lower_ready(lower) && lower != READ_ONCE(gs->leaving);
}

/* The lower transmit uses: the primary once live, else a usable standby. */
struct net_device *gshadow_pick(struct gshadow *gs, struct net_device *primary,
				struct net_device *standby)
{
	if (READ_ONCE(gs->primary_live) && gshadow_usable(gs, primary))
		return primary;
	return gshadow_usable(gs, standby) ? standby : NULL;
}

static netdev_tx_t gshadow_start_xmit(struct sk_buff *skb,
				      struct net_device *dev)
{
	struct gshadow *gs = netdev_priv(dev);
	struct net_device *standby = rcu_dereference_bh(gs->standby);
	struct net_device *lower;

	lower = gshadow_pick(gs, rcu_dereference_bh(gs->lower), standby);
	/* behind held packets too, or they would be overtaken */
	if (unlikely(!lower || !skb_queue_empty_lockless(&gs->held))) {
		netdev_tx_t rc = gshadow_hold(gs, skb);

		if (lower)
			gshadow_kick(gs);
		return rc;
	}
	if (lower == standby)
		gshadow_inc(gs, GSHADOW_TX_STANDBY);
	gshadow_xmit_lower(dev, lower, skb);
	return NETDEV_TX_OK;
}

/* Send what was held, in order (work context, RTNL held, @lower usable). */
void gshadow_flush(struct gshadow *gs, struct net_device *lower)
{
	struct sk_buff *skb;
	u32 n = 0;

	while ((skb = skb_dequeue(&gs->held))) {
		gshadow_xmit_lower(gs->upper, lower, skb);
		gshadow_inc(gs, GSHADOW_TX_HELD_SENT);
		n++;
	}
	gshadow_trace(gs, "flush: %u held sent to %s", n, lower->name);
}

/*
 * The lowers a configuration call goes to (RTNL): the primary first, then
 * the standby; returns how many there are.
 */
int gshadow_lowers(struct gshadow *gs, struct net_device *out[2])
{
	int n = 0;

	out[n] = rtnl_dereference(gs->lower);
	if (out[n])
		n++;
	out[n] = rtnl_dereference(gs->standby);
	if (out[n])
		n++;
	return n;
}

static int gshadow_open(struct net_device *dev)
{
	return 0;
}

static int gshadow_stop(struct net_device *dev)
{
	return 0;
}

static int gshadow_change_mtu(struct net_device *dev, int mtu)
{
	struct gshadow *gs = netdev_priv(dev);
	struct net_device *lower[2];
	int i, n, err;

	gshadow_tap(gs, GSHADOW_CALL_MTU, "ndo_change_mtu %d", mtu);
	n = gshadow_lowers(gs, lower);
	for (i = 0; i < n; i++) {
		err = dev_set_mtu(lower[i], mtu);
		if (err) {
			/* both lowers carry the upper's frames: both or neither */
			while (i--)
				dev_set_mtu(lower[i], dev->mtu);
			return err;
		}
	}
	WRITE_ONCE(dev->mtu, mtu);
	/* the user's, not a lower's clamp the upper follows (join.c) */
	if (!gs->replaying)
		gs->mtu_wish = mtu;
	return 0;
}

/* A primary that is not live yet gets the MAC when it goes live (core.c). */
static int gshadow_set_mac(struct net_device *dev, void *p)
{
	struct gshadow *gs = netdev_priv(dev);
	struct net_device *lower[2];
	struct sockaddr *sa = p;
	int i, n, err;

	gshadow_tap(gs, GSHADOW_CALL_MAC, "ndo_set_mac_address %pM",
		    sa->sa_data);
	if (!is_valid_ether_addr(sa->sa_data))
		return -EADDRNOTAVAIL;
	n = gshadow_lowers(gs, lower);
	for (i = 0; i < n; i++) {
		if (lower[i] == rtnl_dereference(gs->lower) && !gs->primary_live)
			continue;
		err = dev_set_mac_address(lower[i], sa, NULL);
		if (err)
			return err;
	}
	eth_hw_addr_set(dev, sa->sa_data);
	return 0;
}

static void gshadow_sync_addrs(struct net_device *lower,
			       struct net_device *dev)
{
	if (!lower)
		return;
	dev_uc_sync_multiple(lower, dev);
	dev_mc_sync_multiple(lower, dev);
}

/* Atomic: under the upper's address lock, not always RTNL: the lowers under RCU */
static void gshadow_set_rx_mode(struct net_device *dev)
{
	struct gshadow *gs = netdev_priv(dev);

	gshadow_tap(gs, GSHADOW_CALL_RX_MODE, "ndo_set_rx_mode uc %d mc %d",
		    netdev_uc_count(dev), netdev_mc_count(dev));
	rcu_read_lock();
	gshadow_sync_addrs(rcu_dereference(gs->lower), dev);
	gshadow_sync_addrs(rcu_dereference(gs->standby), dev);
	rcu_read_unlock();
}

/*
 * RTNL, dev->flags already changed: one count up or down in each lower,
 * which got one at join for each flag the upper had then (join.c).
 */
static void gshadow_change_rx_flags(struct net_device *dev, int change)
{
	struct gshadow *gs = netdev_priv(dev);
	struct net_device *lower[2];
	int i, n;

	gshadow_tap(gs, GSHADOW_CALL_RX_FLAGS,
		    "ndo_change_rx_flags change 0x%x flags 0x%x", change,
		    dev->flags);
	n = gshadow_lowers(gs, lower);
	for (i = 0; i < n; i++) {
		if (change & IFF_PROMISC)
			dev_set_promiscuity(lower[i], dev->flags & IFF_PROMISC ? 1 : -1);
		if (change & IFF_ALLMULTI)
			dev_set_allmulti(lower[i], dev->flags & IFF_ALLMULTI ? 1 : -1);
	}
}

static int gshadow_vlan_add(struct net_device *dev, __be16 proto, u16 vid)
{
	struct gshadow *gs = netdev_priv(dev);
	struct net_device *lower[2];
	int i, n, err;

	gshadow_tap(gs, GSHADOW_CALL_VLAN_ADD, "ndo_vlan_rx_add_vid %04x/%u",
		    ntohs(proto), vid);
	n = gshadow_lowers(gs, lower);
	for (i = 0; i < n; i++) {
		err = vlan_vid_add(lower[i], proto, vid);
		if (err) {
			while (i--)
				vlan_vid_del(lower[i], proto, vid);
			return err;
		}
	}
	return 0;
}

static int gshadow_vlan_del(struct net_device *dev, __be16 proto, u16 vid)
{
	struct gshadow *gs = netdev_priv(dev);
	struct net_device *lower[2];
	int i, n;

	gshadow_tap(gs, GSHADOW_CALL_VLAN_DEL, "ndo_vlan_rx_kill_vid %04x/%u",
		    ntohs(proto), vid);
	n = gshadow_lowers(gs, lower);
	for (i = 0; i < n; i++)
		vlan_vid_del(lower[i], proto, vid);
	return 0;
}

/* Turn @lower's receive offloads on or off as @wanted says, where it can. */
void gshadow_lower_rx_features(struct net_device *lower,
			       netdev_features_t wanted)
{
	netdev_features_t bits = GSHADOW_RX_FEATURES & lower->hw_features;
	netdev_features_t want = (lower->wanted_features & ~bits) |
				 (wanted & bits);

	if (want == lower->wanted_features)
		return;
	lower->wanted_features = want;
	netdev_update_features(lower);
}

/*
 * Transmit offloads act in the upper alone (the stack hands it only what
 * it offers); receive offloads are the lowers' to do, so they follow the
 * upper's wanted set (gshadow_fix_features() notes the user's first
 * change, from which on each joining lower follows it too).
 */
static int gshadow_set_features(struct net_device *dev,
				netdev_features_t features)
{
	struct gshadow *gs = netdev_priv(dev);
	struct net_device *lower[2];
	int i, n;

	gshadow_tap(gs, GSHADOW_CALL_FEATURES,
		    "ndo_set_features %pNF wanted %pNF", &features,
		    &dev->wanted_features);
	n = gshadow_lowers(gs, lower);
	for (i = 0; i < n; i++)
		gshadow_lower_rx_features(lower[i], dev->wanted_features);
	return 0;
}

static netdev_features_t gshadow_fix_features(struct net_device *dev,
					      netdev_features_t features)
{
	struct gshadow *gs = netdev_priv(dev);
	struct net_device *lower = rtnl_dereference(gs->lower);

	/*
	 * Until the user turns a receive offload off, each lower keeps its
	 * own defaults; from then on a joining lower follows the upper's
	 * wanted set. Here, not in set_features: a change to an offload the
	 * lower lacks changes the upper's features not.
	 */
	if (GSHADOW_RX_FEATURES & ~dev->wanted_features)
		gs->rx_user = true;
	/* the primary's, or the standby's while it alone carries traffic */
	if (!lower)
		lower = rtnl_dereference(gs->standby);
	if (lower) {
		/* a receive offload the user turned off in it is not lacking */
		gs->masked = dev->wanted_features &
			     ((GSHADOW_OFFLOADS & ~lower->features) |
			      (GSHADOW_RX_FEATURES & ~lower->features &
			       ~lower->hw_features));
		features &= ~gs->masked;
	}
	return features;
}

const struct net_device_ops gshadow_netdev_ops = {
	.ndo_open		= gshadow_open,
	.ndo_stop		= gshadow_stop,
	.ndo_start_xmit		= gshadow_start_xmit,
	.ndo_get_stats64	= dev_get_tstats64,
	.ndo_change_mtu		= gshadow_change_mtu,
	.ndo_set_mac_address	= gshadow_set_mac,
	.ndo_set_rx_mode	= gshadow_set_rx_mode,
	.ndo_change_rx_flags	= gshadow_change_rx_flags,
	.ndo_vlan_rx_add_vid	= gshadow_vlan_add,
	.ndo_vlan_rx_kill_vid	= gshadow_vlan_del,
	.ndo_fix_features	= gshadow_fix_features,
	.ndo_set_features	= gshadow_set_features,
	.ndo_validate_addr	= eth_validate_addr,
};

/* Runs after unregister, without RTNL: nothing can kick the work again. */
static void gshadow_destructor(struct net_device *dev)
{
	struct gshadow *gs = netdev_priv(dev);

	cancel_work_sync(&gs->work);
	skb_queue_purge(&gs->held);
	gshadow_log_free(gs);
}

struct net_device *gshadow_create(const char *name, const u8 *mac,
				  u32 log_records)
{
	struct net_device *dev;
	struct gshadow *gs;
	int err;

	dev = alloc_netdev(sizeof(*gs), name, NET_NAME_USER, ether_setup);
	if (!dev)
		return ERR_PTR(-ENOMEM);
	gs = netdev_priv(dev);
	gs->upper = dev;
	gs->mode = GSHADOW_INTERPOSE;
	skb_queue_head_init(&gs->held);
	spin_lock_init(&gs->log_lock);
	err = gshadow_log_init(gs, log_records);
	if (err) {
		free_netdev(dev);
		return ERR_PTR(err);
	}
	dev->netdev_ops = &gshadow_netdev_ops;
	dev->ethtool_ops = &gshadow_ethtool_ops;
	dev->sysfs_groups[0] = &gshadow_attr_group;
	dev->needs_free_netdev = true;
	dev->priv_destructor = gshadow_destructor;
	dev->pcpu_stat_type = NETDEV_PCPU_STAT_TSTATS;
	/* the hold queue is the qdisc while no lower exists; the lower has its own */
	dev->priv_flags |= IFF_UNICAST_FLT | IFF_NO_QUEUE | IFF_LIVE_ADDR_CHANGE;
	dev->lltx = true;
	dev->hw_features = GSHADOW_OFFLOADS | GSHADOW_VLAN_FEATURES |
			   GSHADOW_RX_FEATURES;
	dev->features = dev->hw_features;
	dev->vlan_features = GSHADOW_OFFLOADS;
	dev->min_mtu = ETH_MIN_MTU;
	dev->max_mtu = ETH_MAX_MTU;
	eth_hw_addr_set(dev, mac);
	gs->mtu_wish = dev->mtu;
	/* no carrier until the first lower: then it stays on across swaps */
	netif_carrier_off(dev);
	return dev;
}
