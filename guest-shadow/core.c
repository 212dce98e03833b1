// SPDX-License-Identifier: GPL-2.0
/*
 * gshadow core: which netdev becomes an upper's lower, and when.
 *
 * A netdev is a candidate for an upper when it is an Ethernet device on a
 * bus (it has a parent device: virtual devices such as the upper's own
 * VLANs never qualify), in the upper's namespace, not already enslaved,
 * and either carries the upper's MAC (permanent or current) or sits on a
 * bus device the upper was told to take (lower_pci). The notifier only
 * schedules the upper's work; the work adopts under RTNL. A lower that
 * unregisters is released in the notifier itself: after that the device
 * is gone, and nothing touches it again.
 */
#include <linux/etherdevice.h>
#include <linux/if_arp.h>
#include <linux/module.h>
#include <linux/rtnetlink.h>
#include "gshadow.h"

static char *mac;
module_param(mac, charp, 0444);
MODULE_PARM_DESC(mac, "MAC of the upper to create at load (a lower with it is adopted)");
static char *lower_pci;
module_param(lower_pci, charp, 0444);
MODULE_PARM_DESC(lower_pci, "comma-separated bus devices (e.g. 0000:01:10.2) whose netdev is adopted too");
static char *name = "gsh%d";
module_param(name, charp, 0444);
MODULE_PARM_DESC(name, "name of the upper (default gsh%d)");
static uint hold_qlen = 1024;
module_param(hold_qlen, uint, 0444);
MODULE_PARM_DESC(hold_qlen, "transmit hold queue bound in packets (sysfs hold_qlen changes it later)");
static uint log_records = 128;
module_param(log_records, uint, 0444);
MODULE_PARM_DESC(log_records, "replay log capacity in records (MTU, MAC, flags, addresses, VLANs)");

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

/* The bus device a netdev sits on matches one the user named. */
static bool gshadow_cand_named(struct gshadow *gs, struct net_device *dev)
{
	struct device *p = dev->dev.parent;
	int i;

	for (i = 0; i < GSHADOW_MAX_CANDS && gs->cands[i][0]; i++) {
		/* virtio-net sits on a virtio device on a PCI function */
		if (!strcmp(dev_name(p), gs->cands[i]) ||
		    (p->parent && !strcmp(dev_name(p->parent), gs->cands[i])))
			return true;
	}
	return false;
}

static bool gshadow_candidate(struct gshadow *gs, struct net_device *dev)
{
	ASSERT_RTNL();
	if (dev->type != ARPHRD_ETHER || !dev->dev.parent ||
	    dev->netdev_ops == &gshadow_netdev_ops ||
	    !net_eq(dev_net(dev), dev_net(gs->upper)) ||
	    dev->reg_state != NETREG_REGISTERED ||
	    netdev_master_upper_dev_get(dev))
		return false;
	return ether_addr_equal(dev->perm_addr, gs->upper->dev_addr) ||
	       ether_addr_equal(dev->dev_addr, gs->upper->dev_addr) ||
	       gshadow_cand_named(gs, dev);
}

int gshadow_set_cands(struct gshadow *gs, const char *list)
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
	memcpy(gs->cands, tmp, sizeof(tmp));
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

/* Take @lower under @gs: rx handler, master link, replay, then publish. */
static int gshadow_adopt(struct gshadow *gs, struct net_device *lower)
{
	struct net_device *upper = gs->upper;
	int err;

	ASSERT_RTNL();
	err = netdev_rx_handler_register(lower, gshadow_handle_frame, upper);
	if (err)
		goto out;
	err = netdev_master_upper_dev_link(lower, upper, NULL, NULL, NULL);
	if (err)
		goto err_unregister;
	lower->priv_flags |= IFF_NO_ADDRCONF;
	netdev_hold(lower, &gs->lower_tracker, GFP_KERNEL);

	gshadow_replay(gs, lower);
	if (!(lower->flags & IFF_UP)) {
		err = dev_open(lower, NULL);
		if (err)
			netdev_warn(upper, "%s does not open (%d); holding until it does\n",
				    lower->name, err);
	}
	rcu_assign_pointer(gs->lower, lower);
	gshadow_sync_addrs(gs, lower);
	gs->notify_pending = true;
	netif_inherit_tso_max(upper, lower);
	netdev_update_features(upper);
	gshadow_report_masked(gs, lower);
	gshadow_inc(gs, GSHADOW_LOWER_ADOPTED);
	if (!netif_carrier_ok(upper))
		netif_carrier_on(upper);
	netdev_info(upper, "adopted %s (%s)\n", lower->name,
		    dev_name(lower->dev.parent));
	return 0;

err_unregister:
	netdev_rx_handler_unregister(lower);
out:
	netdev_warn(upper, "cannot adopt %s: %d\n", lower->name, err);
	return err;
}

/*
 * Let go of the lower. @gone: it is unregistering, so nothing is undone
 * in it (its driver is leaving and its state goes with it).
 */
static void gshadow_release(struct gshadow *gs, struct net_device *lower,
			    bool gone)
{
	struct net_device *upper = gs->upper;

	ASSERT_RTNL();
	RCU_INIT_POINTER(gs->lower, NULL);
	/* waits for every RCU reader: no transmit or receive uses it after */
	netdev_rx_handler_unregister(lower);
	netdev_upper_dev_unlink(lower, upper);
	lower->priv_flags &= ~IFF_NO_ADDRCONF;
	dev_uc_unsync(lower, upper);
	dev_mc_unsync(lower, upper);
	if (!gone)
		gshadow_unreplay(gs, lower);
	netdev_put(lower, &gs->lower_tracker);
	gshadow_inc(gs, GSHADOW_LOWER_RELEASED);
	netdev_info(upper, "released %s%s\n", lower->name,
		    gone ? " (device gone): holding transmit" : "");
}

static void gshadow_try_adopt(struct gshadow *gs)
{
	struct net_device *dev;

	for_each_netdev(dev_net(gs->upper), dev)
		if (gshadow_candidate(gs, dev) && !gshadow_adopt(gs, dev))
			return;
}

static void gshadow_work(struct work_struct *w)
{
	struct gshadow *gs = container_of(w, struct gshadow, work);
	struct net_device *lower;

	rtnl_lock();
	if (gs->upper->reg_state != NETREG_REGISTERED)
		goto out;
	if (!rtnl_dereference(gs->lower))
		gshadow_try_adopt(gs);
	lower = rtnl_dereference(gs->lower);
	if (!gshadow_lower_ready(lower))
		goto out;
	if (gs->notify_pending)
		/* a guest-clock mark just before the first frame a peer sees */
		netdev_info(gs->upper, "%s ready: sending %u held, announcing\n",
			    lower->name, skb_queue_len(&gs->held));
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

		switch (event) {
		case NETDEV_REGISTER:
		case NETDEV_CHANGEADDR:
			if (!lower && gshadow_candidate(gs, dev))
				gshadow_kick(gs);
			break;
		case NETDEV_UNREGISTER:
			if (lower == dev) {
				gshadow_release(gs, dev, true);
				gshadow_kick(gs);
			}
			break;
		case NETDEV_UP:
		case NETDEV_CHANGE:
			if (lower == dev && gshadow_lower_ready(dev))
				gshadow_kick(gs);
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
	rtnl_lock();
	err = gshadow_set_cands(gs, lower_pci ? lower_pci : "");
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
 * gone, leaving the replayed flags and VLANs in it.
 */
static void __exit gshadow_exit(void)
{
	struct gshadow *gs, *tmp;

	list_for_each_entry_safe(gs, tmp, &gshadow_uppers, node)
		gshadow_destroy(gs);
	unregister_netdevice_notifier(&gshadow_notifier);
}

module_init(gshadow_init);
module_exit(gshadow_exit);
MODULE_DESCRIPTION("CompSC guest shadow: a stable upper netdev over unmodified NIC drivers");
MODULE_LICENSE("GPL");
