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
 * notifier only schedules the upper's work; the work adopts under RTNL,
 * the standby first. A lower that unregisters is released in the notifier
 * itself: after that the device is gone, and nothing touches it again.
 *
 * Quiesce: a lower that is about to go while its device is still there
 * is quiesced by the upper (it moves transmit off it and lets it drain).
 * The notice is the PCI bus's BUS_NOTIFY_UNBIND_DRIVER (sysfs unbind, or
 * the guest's hot-plug driver removing the device the host asked for),
 * which comes before the driver's remove: igbvf and e1000e mark themselves
 * down first thing there and drop every transmit from then on, so
 * NETDEV_GOING_DOWN is too late for them; it still serves a plain close
 * (ip link set down).
 *
 * The core reaches the upper only through its struct gshadow_core_ops
 * (core.h), and knows nothing else of it.
 */
#include <linux/etherdevice.h>
#include <linux/if_arp.h>
#include <linux/pci.h>
#include <linux/rtnetlink.h>
#include "core.h"

/* Every upper registered with the core; under RTNL. */
static LIST_HEAD(gshadow_uppers);

bool gshadow_lower_ready(const struct net_device *lower)
{
	return lower && netif_running(lower) && netif_carrier_ok(lower) &&
	       netif_device_present(lower);
}

void gshadow_kick(struct gshadow_core *core)
{
	schedule_work(&core->work);
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

/*
 * @dev may become @core's standby (@standby) or primary lower. An upper
 * (any netdev with the upper's ops) never does.
 */
static bool gshadow_candidate(struct gshadow_core *core,
			      struct net_device *dev, bool standby)
{
	struct net_device *upper = core->upper;

	ASSERT_RTNL();
	if (dev->type != ARPHRD_ETHER || !dev->dev.parent ||
	    dev->netdev_ops == upper->netdev_ops ||
	    !net_eq(dev_net(dev), dev_net(upper)) ||
	    dev->reg_state != NETREG_REGISTERED ||
	    netdev_master_upper_dev_get(dev))
		return false;
	/* the standby carries the VM's MAC too: its name decides */
	if (gshadow_cand_named(&core->standby_cands, dev))
		return standby;
	return !standby &&
	       (ether_addr_equal(dev->perm_addr, upper->dev_addr) ||
		ether_addr_equal(dev->dev_addr, upper->dev_addr) ||
		gshadow_cand_named(&core->cands, dev));
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
	struct gshadow_core *core;
	struct net_device *lower[2];
	int i;

	if (action != BUS_NOTIFY_UNBIND_DRIVER)
		return NOTIFY_DONE;
	rtnl_lock();
	list_for_each_entry(core, &gshadow_uppers, node) {
		/* the primary first, then the standby */
		lower[0] = core->ops->lower(core->upper, false);
		lower[1] = core->ops->lower(core->upper, true);
		for (i = 0; i < 2; i++)
			if (lower[i] && gshadow_on_device(lower[i], data))
				core->ops->quiesce(core->upper, lower[i]);
	}
	rtnl_unlock();
	return NOTIFY_DONE;
}

static struct notifier_block gshadow_bus_notifier = {
	.notifier_call = gshadow_bus_event,
};

static void gshadow_try_adopt(struct gshadow_core *core, bool standby)
{
	struct net_device *dev;

	for_each_netdev(dev_net(core->upper), dev)
		if (gshadow_candidate(core, dev, standby) &&
		    !core->ops->adopt(core->upper, dev, standby))
			return;
}

static void gshadow_work(struct work_struct *w)
{
	struct gshadow_core *core = container_of(w, struct gshadow_core, work);
	const struct gshadow_core_ops *ops = core->ops;

	rtnl_lock();
	if (core->upper->reg_state != NETREG_REGISTERED)
		goto out;
	/* the standby first: a primary adopted beside it waits for its MAC */
	if (!ops->lower(core->upper, true) && core->standby_cands.dev[0][0])
		gshadow_try_adopt(core, true);
	if (!ops->lower(core->upper, false))
		gshadow_try_adopt(core, false);
	ops->settle(core->upper);
out:
	rtnl_unlock();
}

static int gshadow_netdev_event(struct notifier_block *nb,
				unsigned long event, void *ptr)
{
	struct net_device *dev = netdev_notifier_info_to_dev(ptr);
	struct gshadow_core *core;

	list_for_each_entry(core, &gshadow_uppers, node) {
		const struct gshadow_core_ops *ops = core->ops;
		struct net_device *upper = core->upper;
		struct net_device *lower, *standby;
		bool ours;

		/* an upper's own events: it is never a lower */
		if (dev->netdev_ops == upper->netdev_ops)
			return NOTIFY_DONE;
		lower = ops->lower(upper, false);
		standby = ops->lower(upper, true);
		ours = dev == lower || dev == standby;

		switch (event) {
		case NETDEV_REGISTER:
		case NETDEV_CHANGEADDR:
			if ((!lower && gshadow_candidate(core, dev, false)) ||
			    (!standby && gshadow_candidate(core, dev, true)))
				gshadow_kick(core);
			break;
		case NETDEV_UNREGISTER:
			if (ours) {
				ops->release(upper, dev, true);
				gshadow_kick(core);
			}
			break;
		case NETDEV_GOING_DOWN:
			if (ours)
				ops->quiesce(upper, dev);
			break;
		case NETDEV_UP:
			if (ours)
				ops->lower_up(upper, dev);
			fallthrough;
		case NETDEV_CHANGE:
			if (ours && gshadow_lower_ready(dev))
				gshadow_kick(core);
			break;
		case NETDEV_NOTIFY_PEERS:
			/*
			 * A lower's host asks for an announcement (virtio-net
			 * after a migration): the lower has no address of its
			 * own, the upper announces.
			 */
			if (ours) {
				ops->notify_peers(upper);
				gshadow_kick(core);
			}
			break;
		}
	}
	return NOTIFY_DONE;
}

static struct notifier_block gshadow_notifier = {
	.notifier_call = gshadow_netdev_event,
};

/* Before the upper registers: the work is ready to be kicked. */
void gshadow_core_setup(struct gshadow_core *core, struct net_device *upper,
			const struct gshadow_core_ops *ops)
{
	core->upper = upper;
	core->ops = ops;
	INIT_WORK(&core->work, gshadow_work);
}

/* The upper is registered (RTNL): its notifier events count from now. */
void gshadow_core_register(struct gshadow_core *core)
{
	ASSERT_RTNL();
	list_add(&core->node, &gshadow_uppers);
}

/* The upper goes (RTNL): no event reaches it after this. */
void gshadow_core_unregister(struct gshadow_core *core)
{
	ASSERT_RTNL();
	list_del(&core->node);
}

/* Waits for the work; it runs again only if something kicks it. */
void gshadow_core_cancel(struct gshadow_core *core)
{
	cancel_work_sync(&core->work);
}

/*
 * After the uppers made at load registered: the netdev notifier replays
 * NETDEV_REGISTER for every netdev there already is. On failure the
 * uppers are destroyed.
 */
int gshadow_core_init(void)
{
	int err;

	err = register_netdevice_notifier(&gshadow_notifier);
	if (!err) {
		err = bus_register_notifier(&pci_bus_type, &gshadow_bus_notifier);
		if (err)
			unregister_netdevice_notifier(&gshadow_notifier);
	}
	if (err) {
		struct gshadow_core *core, *tmp;

		list_for_each_entry_safe(core, tmp, &gshadow_uppers, node)
			core->ops->destroy(core->upper);
	}
	return err;
}

/*
 * Uppers first: unregistering the notifier replays NETDEV_UNREGISTER for
 * every netdev, which would release a lower that stays as if it were
 * gone, leaving the upper's flags, VLANs and MTU in it.
 */
void gshadow_core_exit(void)
{
	struct gshadow_core *core, *tmp;

	bus_unregister_notifier(&pci_bus_type, &gshadow_bus_notifier);
	list_for_each_entry_safe(core, tmp, &gshadow_uppers, node)
		core->ops->destroy(core->upper);
	unregister_netdevice_notifier(&gshadow_notifier);
}
