// SPDX-License-Identifier: GPL-2.0
/* gshadow ethtool: driver info and the shadow's counters (ethtool -S). */
#include <linux/ethtool.h>
#include <linux/rtnetlink.h>
#include "gshadow.h"

/* Same order as enum gshadow_stat. */
static const char gshadow_stat_names[GSHADOW_NR_STATS][ETH_GSTRING_LEN] = {
	"tx_held", "tx_held_sent", "tx_hold_dropped", "tx_hold_peak",
	"lower_adopted", "lower_released", "replays", "replay_errors",
	"mtu_clamped", "peer_notify", "log_full", "tx_standby",
	"standby_adopted", "mac_deferred",
	"call_mtu", "call_mac", "call_rx_mode", "call_rx_flags",
	"call_vlan_add", "call_vlan_del",
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

const struct ethtool_ops gshadow_ethtool_ops = {
	.get_drvinfo		= gshadow_get_drvinfo,
	.get_link		= ethtool_op_get_link,
	.get_sset_count		= gshadow_get_sset_count,
	.get_strings		= gshadow_get_strings,
	.get_ethtool_stats	= gshadow_get_stats,
};
