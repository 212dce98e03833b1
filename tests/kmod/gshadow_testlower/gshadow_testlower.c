// SPDX-License-Identifier: GPL-2.0
/*
 * gshadow_testlower.ko: one Ethernet netdev on a platform device named
 * gshadow_testlower, for gshadow's tests only (name it in the upper's
 * lower_pci and the upper adopts it). Its ethtool ops count the calls the
 * ethtool core makes around a driver's op, and debugfs makes it behave as
 * a real lower may:
 *
 *   /sys/kernel/debug/gshadow_testlower/
 *     begin_err        errno its ethtool begin returns (0: it lets the op in)
 *     present          0: its device is detached (netif_device_detach)
 *     begin, complete  calls of its ethtool begin and complete so far
 *     sets             ring and coalescing sets that reached it
 *
 * Transmit drops everything: the tests drive its ethtool ops only.
 */
#include <linux/debugfs.h>
#include <linux/etherdevice.h>
#include <linux/ethtool.h>
#include <linux/module.h>
#include <linux/netdevice.h>
#include <linux/platform_device.h>
#include <linux/rtnetlink.h>

#define TL_NAME		"gshadow_testlower"
#define TL_RING_MAX	4096

/* The lower's settings: written by its ethtool ops, which run under RTNL. */
struct tl_priv {
	u32 rx_pending;
	u32 tx_pending;
	u32 rx_usecs;
};

static struct platform_device *tl_pdev;
static struct net_device *tl_dev;
static struct dentry *tl_dir;
/* debugfs knobs and counters: ethtool ops write them under RTNL */
static u32 tl_begin_err, tl_begins, tl_completes, tl_sets;

static int tl_open(struct net_device *dev)
{
	netif_carrier_on(dev);
	netif_start_queue(dev);
	return 0;
}

static int tl_stop(struct net_device *dev)
{
	netif_stop_queue(dev);
	netif_carrier_off(dev);
	return 0;
}

static netdev_tx_t tl_xmit(struct sk_buff *skb, struct net_device *dev)
{
	dev_kfree_skb_any(skb);
	return NETDEV_TX_OK;
}

static const struct net_device_ops tl_netdev_ops = {
	.ndo_open		= tl_open,
	.ndo_stop		= tl_stop,
	.ndo_start_xmit		= tl_xmit,
	.ndo_set_mac_address	= eth_mac_addr,
	.ndo_validate_addr	= eth_validate_addr,
};

static int tl_begin(struct net_device *dev)
{
	tl_begins++;
	return -(int)READ_ONCE(tl_begin_err);
}

static void tl_complete(struct net_device *dev)
{
	tl_completes++;
}

static void tl_get_ringparam(struct net_device *dev,
			     struct ethtool_ringparam *ring,
			     struct kernel_ethtool_ringparam *kring,
			     struct netlink_ext_ack *extack)
{
	struct tl_priv *tl = netdev_priv(dev);

	ring->rx_max_pending = TL_RING_MAX;
	ring->tx_max_pending = TL_RING_MAX;
	ring->rx_pending = tl->rx_pending;
	ring->tx_pending = tl->tx_pending;
}

static int tl_set_ringparam(struct net_device *dev,
			    struct ethtool_ringparam *ring,
			    struct kernel_ethtool_ringparam *kring,
			    struct netlink_ext_ack *extack)
{
	struct tl_priv *tl = netdev_priv(dev);

	tl_sets++;
	tl->rx_pending = ring->rx_pending;
	tl->tx_pending = ring->tx_pending;
	return 0;
}

static int tl_get_coalesce(struct net_device *dev, struct ethtool_coalesce *ec,
			   struct kernel_ethtool_coalesce *kec,
			   struct netlink_ext_ack *extack)
{
	struct tl_priv *tl = netdev_priv(dev);

	ec->rx_coalesce_usecs = tl->rx_usecs;
	return 0;
}

static int tl_set_coalesce(struct net_device *dev, struct ethtool_coalesce *ec,
			   struct kernel_ethtool_coalesce *kec,
			   struct netlink_ext_ack *extack)
{
	struct tl_priv *tl = netdev_priv(dev);

	tl_sets++;
	tl->rx_usecs = ec->rx_coalesce_usecs;
	return 0;
}

static const struct ethtool_ops tl_ethtool_ops = {
	.supported_coalesce_params = ETHTOOL_COALESCE_RX_USECS,
	.begin			= tl_begin,
	.complete		= tl_complete,
	.get_link		= ethtool_op_get_link,
	.get_ringparam		= tl_get_ringparam,
	.set_ringparam		= tl_set_ringparam,
	.get_coalesce		= tl_get_coalesce,
	.set_coalesce		= tl_set_coalesce,
};

static int tl_present_get(void *data, u64 *val)
{
	*val = netif_device_present(tl_dev);
	return 0;
}

static int tl_present_set(void *data, u64 val)
{
	rtnl_lock();
	if (val)
		netif_device_attach(tl_dev);
	else
		netif_device_detach(tl_dev);
	rtnl_unlock();
	return 0;
}
DEFINE_DEBUGFS_ATTRIBUTE(tl_present_fops, tl_present_get, tl_present_set,
			 "%llu\n");

static void tl_debugfs(void)
{
	tl_dir = debugfs_create_dir(TL_NAME, NULL);
	debugfs_create_u32("begin_err", 0600, tl_dir, &tl_begin_err);
	debugfs_create_u32("begin", 0400, tl_dir, &tl_begins);
	debugfs_create_u32("complete", 0400, tl_dir, &tl_completes);
	debugfs_create_u32("sets", 0400, tl_dir, &tl_sets);
	debugfs_create_file_unsafe("present", 0600, tl_dir, NULL,
				   &tl_present_fops);
}

static int __init tl_init(void)
{
	struct tl_priv *tl;
	int err;

	tl_pdev = platform_device_register_simple(TL_NAME, PLATFORM_DEVID_NONE,
						  NULL, 0);
	if (IS_ERR(tl_pdev))
		return PTR_ERR(tl_pdev);
	tl_dev = alloc_etherdev(sizeof(*tl));
	if (!tl_dev) {
		err = -ENOMEM;
		goto err_pdev;
	}
	tl = netdev_priv(tl_dev);
	tl->rx_pending = 256;
	tl->tx_pending = 256;
	tl->rx_usecs = 3;
	SET_NETDEV_DEV(tl_dev, &tl_pdev->dev);
	tl_dev->netdev_ops = &tl_netdev_ops;
	tl_dev->ethtool_ops = &tl_ethtool_ops;
	tl_dev->max_mtu = 9216;
	eth_hw_addr_random(tl_dev);
	err = register_netdev(tl_dev);
	if (err)
		goto err_free;
	tl_debugfs();
	return 0;

err_free:
	free_netdev(tl_dev);
err_pdev:
	platform_device_unregister(tl_pdev);
	return err;
}

static void __exit tl_exit(void)
{
	debugfs_remove_recursive(tl_dir);
	unregister_netdev(tl_dev);
	free_netdev(tl_dev);
	platform_device_unregister(tl_pdev);
}

module_init(tl_init);
module_exit(tl_exit);
MODULE_DESCRIPTION("A lower for gshadow's tests: ethtool begin that can refuse, a device that can go absent");
MODULE_LICENSE("GPL");
