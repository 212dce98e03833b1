// SPDX-License-Identifier: GPL-2.0
/*
 * gshadow core: which netdev becomes an upper's lower, and when.
 *
 * A netdev is a candidate for an upper when it is an Ethernet device on a
 * bus (it has a parent device: virtual devices such as the upper's own
 * VLANs never qualify), in the upper's namespace, not already enslaved,
 * and either sits on a bus device the upper was told to take as its
 * standby (standby_pci), or else carries the upper's MAC (permanent or
 * current) or sits on a bus device named in lower_pci: a primary. The
 * notifier only schedules the upper's work; the work adopts under RTNL. A
 * lower that unregisters is released in the notifier itself: after that
 * the device is gone, and nothing touches it again.
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
 * drops that backlog, and the peer would see the loss. The notice is the
 * PCI bus's BUS_NOTIFY_UNBIND_DRIVER (sysfs unbind, or the guest's
 * hot-plug driver removing the device the host asked for), which comes
 * before the driver's remove: igbvf and e1000e mark themselves down first
 * thing there and drop every transmit from then on, so NETDEV_GOING_DOWN
 * is too late for them; it still serves a plain close (ip link set down).
 */
#include <linux/delay.h>
#include <linux/etherdevice.h>
#include <linux/if_arp.h>
#include <linux/module.h>
#include <linux/pci.h>
#include <linux/rtnetlink.h>
#include <net/sch_generic.h>
#include "gshadow.h"

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

/* Every upper this module made; under RTNL. */
static LIST_HEAD(gshadow_uppers);

bool gshadow_lower_ready(const struct net_device *lower)
{
	return lower && netif_running(lower) && netif_carrier_ok(lower) &&
	       netif_device_present(lower);
}

void gshadow_kick(struct gshadow *gs)
{
	schedule_work(&gs->work);
}

/*
 * The bus devices @dev sits on: its parent, and the one under that
 * (virtio-net sits on a virtio device on a PCI function); NULL if none.
 */
static void gshadow_bus_devs(struct net_device *dev, struct device *out[2])
{
	out[0] = dev->dev.parent;
	out[1] = out[0] ? out[0]->parent : NULL;
}

/* The bus device a netdev sits on matches one in @cands. */
static bool gshadow_cand_named(const struct gshadow_cands *cands,
			       struct net_device *dev)
{
	struct device *bus[2];
	int i, j;

	gshadow_bus_devs(dev, bus);
	for (i = 0; i < GSHADOW_MAX_CANDS && cands->dev[i][0]; i++)
		for (j = 0; j < 2; j++)
			if (bus[j] && !strcmp(dev_name(bus[j]), cands->dev[i]))
				return true;
	return false;
}

/* @dev may become @gs's standby (@standby) or primary lower. */
static bool gshadow_candidate(struct gshadow *gs, struct net_device *dev,
			      bool standby)
{
	ASSERT_RTNL();
	if (dev->type != ARPHRD_ETHER || !dev->dev.parent ||
	    dev->netdev_ops == &gshadow_netdev_ops ||
	    !net_eq(dev_net(dev), dev_net(gs->upper)) ||
	    dev->reg_state != NETREG_REGISTERED ||
	    netdev_master_upper_dev_get(dev))
		return false;
	/* the standby carries the VM's MAC too: its name decides */
	if (gshadow_cand_named(&gs->standby_cands, dev))
		return standby;
	return !standby &&
	       (ether_addr_equal(dev->perm_addr, gs->upper->dev_addr) ||
		ether_addr_equal(dev->dev_addr, gs->upper->dev_addr) ||
		gshadow_cand_named(&gs->cands, dev));
}

int gshadow_set_cands(struct gshadow_cands *cands, const char *list)
{
	char tmp[GSHADOW_MAX_CANDS][GSHADOW_CAND_LEN] = {};
	const char *p = list;
	int n = 0;

	ASSERT_RTNL();
	while (*p) {
		size_t len = strcspn(p, ",\n");

		if (len) {
			if (n == GSHADOW_MAX_CANDS || len >= GSHADOW_CAND_LEN)
				return -EINVAL;
			memcpy(tmp[n++], p, len);
		}
		p += len;
		if (*p)
			p++;
	}
	memcpy(cands->dev, tmp, sizeof(tmp));
	return 0;
}

/* The address lists: the kernel's sync of the upper's own (record.c). */
static void gshadow_sync_addrs(struct gshadow *gs, struct net_device *lower)
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
 * Take @lower under @gs as its standby or its primary: rx handler, master
 * link, join (the upper's state, the recorded knobs), then publish. A
 * primary beside a standby is not live yet and gets no MAC
 * (gshadow_go_live()).
 */
static int gshadow_adopt(struct gshadow *gs, struct net_device *lower,
			 bool standby)
{
	struct net_device *upper = gs->upper;
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
	gshadow_sync_addrs(gs, lower);
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
static void gshadow_release(struct gshadow *gs, struct net_device *lower,
			    bool gone)
{
	struct net_device *upper = gs->upper;
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
static void gshadow_quiesce(struct gshadow *gs, struct net_device *lower)
{
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

/* @lower sits on bus device @dev (gshadow_bus_devs()). */
static bool gshadow_on_device(struct net_device *lower, struct device *dev)
{
	struct device *bus[2];

	gshadow_bus_devs(lower, bus);
	return bus[0] == dev || bus[1] == dev;
}

/* A PCI driver is about to let go of its device: quiesce its lowers. */
static int gshadow_bus_event(struct notifier_block *nb, unsigned long action,
			     void *data)
{
	struct net_device *lower[2];
	struct gshadow *gs;
	int i, n;

	if (action != BUS_NOTIFY_UNBIND_DRIVER)
		return NOTIFY_DONE;
	rtnl_lock();
	list_for_each_entry(gs, &gshadow_uppers, node) {
		n = gshadow_lowers(gs, lower);
		for (i = 0; i < n; i++)
			if (gshadow_on_device(lower[i], data))
				gshadow_quiesce(gs, lower[i]);
	}
	rtnl_unlock();
	return NOTIFY_DONE;
}

static struct notifier_block gshadow_bus_notifier = {
	.notifier_call = gshadow_bus_event,
};

static void gshadow_try_adopt(struct gshadow *gs, bool standby)
{
	struct net_device *dev;

	for_each_netdev(dev_net(gs->upper), dev)
		if (gshadow_candidate(gs, dev, standby) &&
		    !gshadow_adopt(gs, dev, standby))
			return;
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

static void gshadow_work(struct work_struct *w)
{
	struct gshadow *gs = container_of(w, struct gshadow, work);
	struct net_device *primary, *standby, *lower;

	rtnl_lock();
	if (gs->upper->reg_state != NETREG_REGISTERED)
		goto out;
	/* the standby first: a primary adopted beside it waits for its MAC */
	if (!rtnl_dereference(gs->standby) && gs->standby_cands.dev[0][0])
		gshadow_try_adopt(gs, true);
	if (!rtnl_dereference(gs->lower))
		gshadow_try_adopt(gs, false);
	primary = rtnl_dereference(gs->lower);
	standby = rtnl_dereference(gs->standby);
	if (primary && !gs->primary_live &&
	    (gshadow_lower_ready(primary) || !standby))
		gshadow_go_live(gs, primary);
	lower = gshadow_pick(gs, primary, standby);
	if (!lower)
		goto out;
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
out:
	rtnl_unlock();
}

static int gshadow_netdev_event(struct notifier_block *nb,
				unsigned long event, void *ptr)
{
	struct net_device *dev = netdev_notifier_info_to_dev(ptr);
	struct gshadow *gs;

	if (dev->netdev_ops == &gshadow_netdev_ops)
		return NOTIFY_DONE;
	list_for_each_entry(gs, &gshadow_uppers, node) {
		struct net_device *lower = rtnl_dereference(gs->lower);
		struct net_device *standby = rtnl_dereference(gs->standby);
		bool ours = dev == lower || dev == standby;

		switch (event) {
		case NETDEV_REGISTER:
		case NETDEV_CHANGEADDR:
			if ((!lower && gshadow_candidate(gs, dev, false)) ||
			    (!standby && gshadow_candidate(gs, dev, true)))
				gshadow_kick(gs);
			break;
		case NETDEV_UNREGISTER:
			if (ours) {
				gshadow_release(gs, dev, true);
				gshadow_kick(gs);
			}
			break;
		case NETDEV_GOING_DOWN:
			if (ours)
				gshadow_quiesce(gs, dev);
			break;
		case NETDEV_UP:
			if (ours && gs->leaving == dev)
				WRITE_ONCE(gs->leaving, NULL);
			fallthrough;
		case NETDEV_CHANGE:
			if (ours && gshadow_lower_ready(dev))
				gshadow_kick(gs);
			break;
		case NETDEV_NOTIFY_PEERS:
			/*
			 * A lower's host asks for an announcement (virtio-net
			 * after a migration): the lower has no address of its
			 * own, the upper announces.
			 */
			if (ours) {
				gs->notify_pending = true;
				gshadow_kick(gs);
			}
			break;
		}
	}
	return NOTIFY_DONE;
}

static struct notifier_block gshadow_notifier = {
	.notifier_call = gshadow_netdev_event,
};

static void gshadow_destroy(struct gshadow *gs)
{
	struct net_device *lower;

	cancel_work_sync(&gs->work);
	rtnl_lock();
	lower = rtnl_dereference(gs->lower);
	if (lower)
		gshadow_release(gs, lower, false);
	lower = rtnl_dereference(gs->standby);
	if (lower)
		gshadow_release(gs, lower, false);
	list_del(&gs->node);
	unregister_netdevice(gs->upper);
	rtnl_unlock();
}

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
	INIT_WORK(&gs->work, gshadow_work);
	gs->hold_max = hold_qlen;
	gs->quiesce_ms = quiesce_ms;
	rtnl_lock();
	err = gshadow_set_cands(&gs->cands, lower_pci ? lower_pci : "");
	if (!err)
		err = gshadow_set_cands(&gs->standby_cands,
					standby_pci ? standby_pci : "");
	if (!err)
		err = register_netdevice(upper);
	if (!err)
		list_add(&gs->node, &gshadow_uppers);
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
	err = register_netdevice_notifier(&gshadow_notifier);
	if (!err) {
		err = bus_register_notifier(&pci_bus_type, &gshadow_bus_notifier);
		if (err)
			unregister_netdevice_notifier(&gshadow_notifier);
	}
	if (err) {
		struct gshadow *gs, *tmp;

		list_for_each_entry_safe(gs, tmp, &gshadow_uppers, node)
			gshadow_destroy(gs);
	}
	return err;
}

/*
 * Uppers first: unregistering the notifier replays NETDEV_UNREGISTER for
 * every netdev, which would release a lower that stays as if it were
 * gone, leaving the upper's flags, VLANs and MTU in it.
 */
static void __exit gshadow_exit(void)
{
	struct gshadow *gs, *tmp;

	bus_unregister_notifier(&pci_bus_type, &gshadow_bus_notifier);
	list_for_each_entry_safe(gs, tmp, &gshadow_uppers, node)
		gshadow_destroy(gs);
	unregister_netdevice_notifier(&gshadow_notifier);
}

module_init(gshadow_init);
module_exit(gshadow_exit);
MODULE_DESCRIPTION("CompSC guest shadow: a stable upper netdev over unmodified NIC drivers");
MODULE_LICENSE("GPL");
