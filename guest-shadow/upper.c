// SPDX-License-Identifier: GPL-2.0
/*
 * gshadow upper: the netdev applications use, and the module that makes
 * it. Transmit goes to the primary lower when it is live, else to a
 * usable standby, and into the bounded hold queue when neither can carry
 * it, so the stack never sees an error; every configuration call is
 * forwarded to both lowers (the passthrough tap counts it); a new lower
 * gets the upper's state when it joins (join.c), and in interpose mode
 * the ethtool settings recorded for it (record.c).
 *
 * The core (core.c) decides which netdev is a lower and when; it calls
 * back only through gshadow_core_ops, whose operations are here, as
 * net_failover's are beside net/core/failover.c: adopt and release a
 * lower, quiesce one about to go, and the upper's work after adoption.
 *
 * With a standby, a new primary is replayed and opened without the VM's
 * MAC and carries nothing until it is ready; then it gets the MAC, which
 * is what moves the VM's frames to it at the host's switch (the host
 * gave the standby's path the frames meanwhile), and transmit follows.
 *
 * Quiesce: a lower that is about to go while its device is still there
 * first gets no more transmit (it goes to the standby or the hold queue),
 * then up to quiesce_ms to send what is already queued in its qdiscs and,
 * for a driver with byte queue limits, on its ring: closing a device
 * drops that backlog, and the peer would see the loss. The core says when
 * (core.c).
 */
#include <linux/delay.h>
#include <linux/etherdevice.h>
#include <linux/if_vlan.h>
#include <linux/module.h>
#include <linux/rtnetlink.h>
#include <net/sch_generic.h>
#include "gshadow.h"

/* What the upper may offer; each lower's own features mask it. */
#define GSHADOW_OFFLOADS	(NETIF_F_SG | NETIF_F_HW_CSUM | NETIF_F_HIGHDMA | \
				 NETIF_F_TSO | NETIF_F_TSO6 | NETIF_F_TSO_ECN)
/* Tags ride in skb metadata; a lower without them inserts in software. */
#define GSHADOW_VLAN_FEATURES	(NETIF_F_HW_VLAN_CTAG_TX | NETIF_F_HW_VLAN_CTAG_RX | \
				 NETIF_F_HW_VLAN_CTAG_FILTER)

static rx_handler_result_t gshadow_handle_frame(struct sk_buff **pskb)
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
static struct net_device *gshadow_pick(struct gshadow *gs,
				       struct net_device *primary,
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
			gshadow_kick(&gs->core);
		return rc;
	}
	if (lower == standby)
		gshadow_inc(gs, GSHADOW_TX_STANDBY);
	gshadow_xmit_lower(dev, lower, skb);
	return NETDEV_TX_OK;
}

/* Send what was held, in order (work context, RTNL held, @lower usable). */
static void gshadow_flush(struct gshadow *gs, struct net_device *lower)
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

/* A primary not live yet gets the MAC when it goes live (gshadow_go_live()). */
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

static const struct net_device_ops gshadow_netdev_ops = {
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

/* The address lists at adopt: the kernel's sync of the upper's own. */
static void gshadow_adopt_addrs(struct gshadow *gs, struct net_device *lower)
{
	netif_addr_lock_bh(gs->upper);
	dev_uc_sync_multiple(lower, gs->upper);
	dev_mc_sync_multiple(lower, gs->upper);
	netif_addr_unlock_bh(gs->upper);
}

static void gshadow_report_masked(struct gshadow *gs, struct net_device *lower)
{
	char names[128];

	if (!gs->masked)
		return;
	gshadow_masked_names(gs->masked, names, sizeof(names));
	netdev_info(gs->upper, "%s lacks %s: masked in the upper\n",
		    lower->name, names);
}

/*
 * Take @lower under @upper as its standby or its primary: rx handler, master
 * link, join (the upper's state, the recorded knobs), then publish. A
 * primary beside a standby is not live yet and gets no MAC
 * (gshadow_go_live()).
 */
static int gshadow_adopt(struct net_device *upper, struct net_device *lower,
			 bool standby)
{
	struct gshadow *gs = netdev_priv(upper);
	bool beside = !standby && rtnl_dereference(gs->standby);
	int err;

	ASSERT_RTNL();
	err = netdev_rx_handler_register(lower, gshadow_handle_frame, upper);
	if (err)
		goto out;
	err = netdev_master_upper_dev_link(lower, upper, NULL, NULL, NULL);
	if (err)
		goto err_unregister;
	lower->priv_flags |= IFF_NO_ADDRCONF;
	netdev_hold(lower, standby ? &gs->standby_tracker : &gs->lower_tracker,
		    GFP_KERNEL);

	gshadow_join(gs, lower, standby ? &gs->standby_orig : &gs->lower_orig,
		     !beside);
	if (!(lower->flags & IFF_UP)) {
		err = dev_open(lower, NULL);
		if (err)
			netdev_warn(upper, "%s does not open (%d); holding until it does\n",
				    lower->name, err);
	}
	if (standby) {
		rcu_assign_pointer(gs->standby, lower);
	} else {
		gs->primary_refused = false;
		WRITE_ONCE(gs->primary_live, !beside);
		rcu_assign_pointer(gs->lower, lower);
	}
	gshadow_adopt_addrs(gs, lower);
	gs->notify_pending = true;
	if (!standby)
		netif_inherit_tso_max(upper, lower);
	netdev_update_features(upper);
	gshadow_report_masked(gs, lower);
	gshadow_inc(gs, standby ? GSHADOW_STANDBY_ADOPTED : GSHADOW_LOWER_ADOPTED);
	if (!netif_carrier_ok(upper))
		netif_carrier_on(upper);
	netdev_info(upper, "adopted %s (%s)%s\n", lower->name,
		    dev_name(lower->dev.parent), standby ? " as standby" :
		    beside ? ": live once ready" : "");
	return 0;

err_unregister:
	netdev_rx_handler_unregister(lower);
out:
	netdev_warn(upper, "cannot adopt %s: %d\n", lower->name, err);
	return err;
}

/*
 * Let go of the lower. @gone: it is unregistering, so nothing is undone
 * in it (its driver is leaving and its state goes with it); otherwise it
 * leaves (gshadow_leave()) with what the upper gave it taken back.
 */
static void gshadow_release(struct net_device *upper, struct net_device *lower,
			    bool gone)
{
	struct gshadow *gs = netdev_priv(upper);
	bool standby = lower == rtnl_dereference(gs->standby);
	struct net_device *other;

	ASSERT_RTNL();
	if (standby) {
		RCU_INIT_POINTER(gs->standby, NULL);
	} else {
		RCU_INIT_POINTER(gs->lower, NULL);
		WRITE_ONCE(gs->primary_live, false);
	}
	if (gs->leaving == lower)
		WRITE_ONCE(gs->leaving, NULL);
	other = rtnl_dereference(standby ? gs->lower : gs->standby);
	/* waits for every RCU reader: no transmit or receive uses it after */
	netdev_rx_handler_unregister(lower);
	netdev_upper_dev_unlink(lower, upper);
	lower->priv_flags &= ~IFF_NO_ADDRCONF;
	dev_uc_unsync(lower, upper);
	dev_mc_unsync(lower, upper);
	if (!gone)
		gshadow_leave(gs, lower, standby ? &gs->standby_orig :
			      &gs->lower_orig);
	netdev_put(lower, standby ? &gs->standby_tracker : &gs->lower_tracker);
	if (!standby)
		gshadow_inc(gs, GSHADOW_LOWER_RELEASED);
	/* the network learns the VM's new path through the one left */
	if (other)
		gs->notify_pending = true;
	netdev_info(upper, "released %s%s%s\n", lower->name,
		    standby ? " (standby)" : "",
		    !gone ? "" : other ? " (device gone)" :
		    " (device gone): holding transmit");
}

/*
 * Packets @lower's device still has to send: in its qdiscs, and whether
 * its driver has bytes in flight on a ring (byte queue limits, where the
 * driver keeps them).
 */
static unsigned int gshadow_backlog(struct net_device *lower, bool *inflight)
{
	struct Qdisc *q, *last = NULL;
	unsigned int i, n = 0;

	*inflight = false;
	rcu_read_lock_bh();
	for (i = 0; i < lower->real_num_tx_queues; i++) {
		struct netdev_queue *txq = netdev_get_tx_queue(lower, i);

		/* a root qdisc that is not mq serves every queue: count once */
		q = rcu_dereference_bh(txq->qdisc);
		if (q && q != last)
			n += qdisc_qlen_sum(q);
		last = q;
#ifdef CONFIG_BQL
		if (READ_ONCE(txq->dql.num_queued) !=
		    READ_ONCE(txq->dql.num_completed))
			*inflight = true;
#endif
	}
	rcu_read_unlock_bh();
	return n;
}

/*
 * @lower is about to go (its PCI driver unbinding, or NETDEV_GOING_DOWN;
 * RTNL): move transmit off it, then let it send its backlog for up to
 * quiesce_ms. The one wait under RTNL besides the lowers' own calls,
 * bounded, and skipped for a device that is gone already or has no link
 * (nothing would drain), or that is draining already.
 */
static void gshadow_quiesce(struct net_device *upper, struct net_device *lower)
{
	struct gshadow *gs = netdev_priv(upper);
	u32 ms = READ_ONCE(gs->quiesce_ms);
	unsigned long end = jiffies + msecs_to_jiffies(ms);
	unsigned int first, left;
	bool busy;

	ASSERT_RTNL();
	if (!ms || gs->leaving == lower || !netif_device_present(lower) ||
	    !netif_carrier_ok(lower))
		return;
	WRITE_ONCE(gs->leaving, lower);
	/* every transmit that picked @lower before has enqueued by now */
	synchronize_net();
	first = gshadow_backlog(lower, &busy);
	left = first;
	while ((left || busy) && time_before(jiffies, end)) {
		usleep_range(500, 1000);
		left = gshadow_backlog(lower, &busy);
	}
	gshadow_inc(gs, GSHADOW_QUIESCED);
	atomic64_add(first - min(first, left), &gs->stats[GSHADOW_TX_DRAINED]);
	gshadow_trace(gs, "quiesce %s: %u queued, %u left%s", lower->name,
		      first, left, busy ? ", ring busy" : "");
	if (left || busy) {
		gshadow_inc(gs, GSHADOW_QUIESCE_TIMEOUTS);
		netdev_warn(gs->upper, "%s still has %u queued after %u ms: its close drops them\n",
			    lower->name, left, ms);
	}
}

/*
 * A primary beside a standby is ready (or the standby left): give it the
 * VM's MAC, so the host switches the VM's frames to it, and move transmit
 * over. A MAC its host refuses keeps traffic on the standby, loudly.
 */
static void gshadow_go_live(struct gshadow *gs, struct net_device *primary)
{
	if (gs->primary_refused)
		return;
	if (gshadow_replay_mac(gs, primary)) {
		gs->primary_refused = true;
		netdev_warn(gs->upper, "%s stays unused: traffic stays on the standby\n",
			    primary->name);
		return;
	}
	WRITE_ONCE(gs->primary_live, true);
	gs->notify_pending = true;
	gshadow_inc(gs, GSHADOW_MAC_DEFERRED);
	netdev_info(gs->upper, "%s live: MAC in place, transmit moves to it\n",
		    primary->name);
}

/*
 * The upper's work once the core has adopted what it could (RTNL): a
 * ready primary made live, what was held sent, the move announced.
 */
static void gshadow_settle(struct net_device *upper)
{
	struct gshadow *gs = netdev_priv(upper);
	struct net_device *primary, *standby, *lower;

	primary = rtnl_dereference(gs->lower);
	standby = rtnl_dereference(gs->standby);
	if (primary && !gs->primary_live &&
	    (gshadow_lower_ready(primary) || !standby))
		gshadow_go_live(gs, primary);
	lower = gshadow_pick(gs, primary, standby);
	if (!lower)
		return;
	if (gs->notify_pending)
		/* a guest-clock mark just before the first frame a peer sees */
		netdev_info(gs->upper, "%s ready: sending %u held, announcing%s\n",
			    lower->name, skb_queue_len(&gs->held),
			    lower == standby ? " (standby)" : "");
	gshadow_flush(gs, lower);
	if (gs->notify_pending) {
		/* gratuitous ARP and unsolicited NA through the new lower */
		__netdev_notify_peers(gs->upper);
		gs->notify_pending = false;
		gshadow_inc(gs, GSHADOW_PEER_NOTIFY);
	}
}

/* The primary (@standby false) or the standby, for the core (RTNL). */
static struct net_device *gshadow_lower(struct net_device *upper, bool standby)
{
	struct gshadow *gs = netdev_priv(upper);

	return rtnl_dereference(standby ? gs->standby : gs->lower);
}

/* @lower is up again (RTNL): if it was draining, it carries transmit again. */
static void gshadow_lower_up(struct net_device *upper, struct net_device *lower)
{
	struct gshadow *gs = netdev_priv(upper);

	if (gs->leaving == lower)
		WRITE_ONCE(gs->leaving, NULL);
}

/* The next run of the work announces (RTNL). */
static void gshadow_notify_peers(struct net_device *upper)
{
	struct gshadow *gs = netdev_priv(upper);

	gs->notify_pending = true;
}

/* Runs after unregister, without RTNL: nothing can kick the work again. */
static void gshadow_destructor(struct net_device *dev)
{
	struct gshadow *gs = netdev_priv(dev);

	gshadow_core_cancel(&gs->core);
	skb_queue_purge(&gs->held);
	gshadow_log_free(gs);
}

static struct net_device *gshadow_create(const char *name, const u8 *mac,
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

/* The lowers leave (they stay), then the upper goes. */
static void gshadow_destroy(struct net_device *upper)
{
	struct gshadow *gs = netdev_priv(upper);
	struct net_device *lower;

	gshadow_core_cancel(&gs->core);
	rtnl_lock();
	lower = rtnl_dereference(gs->lower);
	if (lower)
		gshadow_release(upper, lower, false);
	lower = rtnl_dereference(gs->standby);
	if (lower)
		gshadow_release(upper, lower, false);
	gshadow_core_unregister(&gs->core);
	unregister_netdevice(gs->upper);
	rtnl_unlock();
}

/* What the core calls back into: nothing else of the upper. */
static const struct gshadow_core_ops gshadow_core_ops = {
	.lower		= gshadow_lower,
	.adopt		= gshadow_adopt,
	.release	= gshadow_release,
	.quiesce	= gshadow_quiesce,
	.lower_up	= gshadow_lower_up,
	.notify_peers	= gshadow_notify_peers,
	.settle		= gshadow_settle,
	.destroy	= gshadow_destroy,
};

static char *mac;
module_param(mac, charp, 0444);
MODULE_PARM_DESC(mac, "MAC of the upper to create at load (a lower with it is adopted)");
static char *lower_pci;
module_param(lower_pci, charp, 0444);
MODULE_PARM_DESC(lower_pci, "comma-separated bus devices (e.g. 0000:01:10.2) whose netdev is adopted too");
static char *standby_pci;
module_param(standby_pci, charp, 0444);
MODULE_PARM_DESC(standby_pci, "comma-separated bus devices whose netdev is the standby lower (e.g. a virtio-net with the VM's MAC)");
static char *name = "gsh%d";
module_param(name, charp, 0444);
MODULE_PARM_DESC(name, "name of the upper (default gsh%d)");
static uint hold_qlen = 1024;
module_param(hold_qlen, uint, 0444);
MODULE_PARM_DESC(hold_qlen, "transmit hold queue bound in packets (sysfs hold_qlen changes it later)");
static uint log_records = 128;
module_param(log_records, uint, 0444);
MODULE_PARM_DESC(log_records, "replay log capacity in records (MTU, MAC, flags, addresses, VLANs)");
static uint quiesce_ms = 500;
module_param(quiesce_ms, uint, 0444);
MODULE_PARM_DESC(quiesce_ms, "bound on draining a lower's transmit queues before it goes down, 0: no drain (sysfs quiesce_ms changes it later)");

static int gshadow_make_upper(void)
{
	struct net_device *upper;
	struct gshadow *gs;
	u8 addr[ETH_ALEN];
	int err;

	if (!mac_pton(mac, addr) || !is_valid_ether_addr(addr)) {
		pr_err(GSHADOW_DRV ": mac=%s is not a unicast MAC\n", mac);
		return -EINVAL;
	}
	upper = gshadow_create(name, addr, log_records);
	if (IS_ERR(upper))
		return PTR_ERR(upper);
	gs = netdev_priv(upper);
	gshadow_core_setup(&gs->core, upper, &gshadow_core_ops);
	gs->hold_max = hold_qlen;
	gs->quiesce_ms = quiesce_ms;
	rtnl_lock();
	err = gshadow_set_cands(&gs->core.cands, lower_pci ? lower_pci : "");
	if (!err)
		err = gshadow_set_cands(&gs->core.standby_cands,
					standby_pci ? standby_pci : "");
	if (!err)
		err = register_netdevice(upper);
	if (!err)
		gshadow_core_register(&gs->core);
	rtnl_unlock();
	if (err) {
		pr_err(GSHADOW_DRV ": cannot make the upper: %d\n", err);
		gshadow_log_free(gs);
		free_netdev(upper);
	}
	return err;
}

static int __init gshadow_init(void)
{
	int err;

	if (mac) {
		err = gshadow_make_upper();
		if (err)
			return err;
	}
	/* replays NETDEV_REGISTER for every netdev there already is */
	return gshadow_core_init();
}

/* The core destroys the uppers before its netdev notifier goes. */
static void __exit gshadow_exit(void)
{
	gshadow_core_exit();
}

module_init(gshadow_init);
module_exit(gshadow_exit);
MODULE_DESCRIPTION("CompSC guest shadow: a stable upper netdev over unmodified NIC drivers");
MODULE_LICENSE("GPL");
