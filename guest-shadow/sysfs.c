// SPDX-License-Identifier: GPL-2.0
/*
 * gshadow sysfs, /sys/class/net/<upper>/gshadow/:
 *   lower            the primary lower netdev now, or "none"
 *   standby          the standby lower netdev now, or "none"
 *   lower_pci        bus devices whose netdev is adopted besides a MAC match
 *   hold_qlen        the transmit hold queue bound (packets)
 *   quiesce_ms       how long a lower going down may drain (0: no drain)
 *   mode             passthrough | interpose
 *   features_masked  the upper's offloads the lower lacks
 *   trace            1: log every call tapped or intercepted (gshadow_trace)
 * Stores take RTNL with rtnl_trylock(): unregister removes these files
 * under RTNL, and waiting for it here could deadlock with that.
 */
#include <linux/netdevice.h>
#include <linux/rtnetlink.h>
#include "gshadow.h"

#define to_gs(d)	((struct gshadow *)netdev_priv(to_net_dev(d)))

static const struct {
	netdev_features_t bit;
	const char *name;
} gshadow_feature_names[] = {
	{ NETIF_F_SG, "scatter-gather" },
	{ NETIF_F_HW_CSUM, "tx-checksum-hw" },
	{ NETIF_F_HIGHDMA, "highdma" },
	{ NETIF_F_TSO, "tso" },
	{ NETIF_F_TSO6, "tso6" },
	{ NETIF_F_TSO_ECN, "tso-ecn" },
	{ NETIF_F_RXCSUM, "rx-checksum" },
	{ NETIF_F_RXHASH, "rx-hash" },
};

int gshadow_masked_names(netdev_features_t f, char *buf, size_t len)
{
	int i, n = 0;

	buf[0] = '\0';
	for (i = 0; i < ARRAY_SIZE(gshadow_feature_names); i++)
		if (f & gshadow_feature_names[i].bit)
			n += scnprintf(buf + n, len - n, "%s%s", n ? " " : "",
				       gshadow_feature_names[i].name);
	return n;
}

static ssize_t gshadow_show_dev(struct net_device __rcu **p, char *buf)
{
	struct net_device *lower;
	ssize_t n;

	rcu_read_lock();
	lower = rcu_dereference(*p);
	n = sysfs_emit(buf, "%s\n", lower ? lower->name : "none");
	rcu_read_unlock();
	return n;
}

static ssize_t lower_show(struct device *d, struct device_attribute *a,
			  char *buf)
{
	return gshadow_show_dev(&to_gs(d)->lower, buf);
}
static DEVICE_ATTR_RO(lower);

static ssize_t standby_show(struct device *d, struct device_attribute *a,
			    char *buf)
{
	return gshadow_show_dev(&to_gs(d)->standby, buf);
}
static DEVICE_ATTR_RO(standby);

static ssize_t lower_pci_show(struct device *d, struct device_attribute *a,
			      char *buf)
{
	struct gshadow *gs = to_gs(d);
	ssize_t n = 0;
	int i;

	if (!rtnl_trylock())
		return restart_syscall();
	for (i = 0; i < GSHADOW_MAX_CANDS && gs->core.cands.dev[i][0]; i++)
		n += sysfs_emit_at(buf, n, "%s%s", i ? "," : "",
				   gs->core.cands.dev[i]);
	rtnl_unlock();
	return n + sysfs_emit_at(buf, n, "\n");
}

static ssize_t lower_pci_store(struct device *d, struct device_attribute *a,
			       const char *buf, size_t len)
{
	struct gshadow *gs = to_gs(d);
	int err;

	if (!rtnl_trylock())
		return restart_syscall();
	err = gshadow_set_cands(&gs->core.cands, buf);
	rtnl_unlock();
	if (err)
		return err;
	gshadow_kick(&gs->core);
	return len;
}
static DEVICE_ATTR_RW(lower_pci);

static ssize_t hold_qlen_show(struct device *d, struct device_attribute *a,
			      char *buf)
{
	return sysfs_emit(buf, "%u\n", READ_ONCE(to_gs(d)->hold_max));
}

/* A u32 setting read locklessly where it is used (READ_ONCE). */
static ssize_t gshadow_store_u32(const char *buf, size_t len, u32 max,
				 u32 *dst)
{
	u32 v;
	int err;

	err = kstrtou32(buf, 0, &v);
	if (err)
		return err;
	if (v > max)
		return -ERANGE;
	WRITE_ONCE(*dst, v);
	return len;
}

static ssize_t hold_qlen_store(struct device *d, struct device_attribute *a,
			       const char *buf, size_t len)
{
	return gshadow_store_u32(buf, len, 65536, &to_gs(d)->hold_max);
}
static DEVICE_ATTR_RW(hold_qlen);

static ssize_t quiesce_ms_show(struct device *d, struct device_attribute *a,
			       char *buf)
{
	return sysfs_emit(buf, "%u\n", READ_ONCE(to_gs(d)->quiesce_ms));
}

/* at most 10 s: the drain holds RTNL */
static ssize_t quiesce_ms_store(struct device *d, struct device_attribute *a,
				const char *buf, size_t len)
{
	return gshadow_store_u32(buf, len, 10000, &to_gs(d)->quiesce_ms);
}
static DEVICE_ATTR_RW(quiesce_ms);

static const char * const gshadow_modes[] = {
	[GSHADOW_PASSTHROUGH] = "passthrough",
	[GSHADOW_INTERPOSE] = "interpose",
};

static ssize_t mode_show(struct device *d, struct device_attribute *a,
			 char *buf)
{
	return sysfs_emit(buf, "%s\n", gshadow_modes[READ_ONCE(to_gs(d)->mode)]);
}

static ssize_t mode_store(struct device *d, struct device_attribute *a,
			  const char *buf, size_t len)
{
	int m = sysfs_match_string(gshadow_modes, buf);

	if (m < 0)
		return m;
	if (!rtnl_trylock())
		return restart_syscall();
	WRITE_ONCE(to_gs(d)->mode, m);
	rtnl_unlock();
	return len;
}
static DEVICE_ATTR_RW(mode);

static ssize_t features_masked_show(struct device *d,
				    struct device_attribute *a, char *buf)
{
	char names[128];

	if (!rtnl_trylock())
		return restart_syscall();
	gshadow_masked_names(to_gs(d)->masked, names, sizeof(names));
	rtnl_unlock();
	return sysfs_emit(buf, "%s\n", names[0] ? names : "none");
}
static DEVICE_ATTR_RO(features_masked);

static ssize_t trace_show(struct device *d, struct device_attribute *a,
			  char *buf)
{
	return sysfs_emit(buf, "%d\n", READ_ONCE(to_gs(d)->trace));
}

static ssize_t trace_store(struct device *d, struct device_attribute *a,
			   const char *buf, size_t len)
{
	bool on;
	int err;

	err = kstrtobool(buf, &on);
	if (err)
		return err;
	WRITE_ONCE(to_gs(d)->trace, on);
	return len;
}
static DEVICE_ATTR_RW(trace);

static struct attribute *gshadow_attrs[] = {
	&dev_attr_lower.attr,
	&dev_attr_standby.attr,
	&dev_attr_lower_pci.attr,
	&dev_attr_hold_qlen.attr,
	&dev_attr_quiesce_ms.attr,
	&dev_attr_mode.attr,
	&dev_attr_features_masked.attr,
	&dev_attr_trace.attr,
	NULL,
};

const struct attribute_group gshadow_attr_group = {
	.name = "gshadow",
	.attrs = gshadow_attrs,
};
