/* SPDX-License-Identifier: GPL-2.0 */
/*
 * gshadow - guest shadow for unmodified NIC drivers.
 *
 * One upper netdev (struct gshadow, its private area) carries the guest's
 * network identity: name, MAC, addresses, routes, sockets. Beneath it sit
 * at most two lower netdevs, each driven by whatever unmodified driver its
 * device has: the primary (the VF, which comes and goes with hot-plug)
 * and, optionally, a standby (a virtio-net with the VM's MAC named in
 * standby_pci) that carries traffic while the primary is away or not yet
 * live.
 *
 * The files, top to bottom, as net_failover.c sits on net/core/failover.c:
 * - upper.c: the upper netdev and the module that makes it; forwards
 *   transmit to a lower or holds it while there is none, and implements
 *   the core's ops (adopt, release, quiesce, the work after adoption).
 *   ethtool.c and sysfs.c are its ethtool and sysfs sides.
 * - join.c: a lower joining the upper gets its current state, and gives
 *   it back when it leaves.
 * - core.c (core.h): which netdev is a lower and when; it sees no struct
 *   gshadow and reaches the upper only through struct gshadow_core_ops.
 * - record.c: the ethtool settings made through the upper, which the
 *   upper does not hold, in libcompsc's replay log for the next lower.
 *
 * What calls what; nothing calls back up except through the core's ops:
 *   upper.c   -> join.c, ethtool.c, sysfs.c, core.c, record.c
 *   join.c    -> ethtool.c (the recorded knobs), record.c
 *   ethtool.c -> record.c
 *   sysfs.c   -> core.c (lower_pci)
 *   core.c    -> struct gshadow_core_ops only
 *
 * RTNL rules (core.h has the core's):
 * - adopt, release, join and leave, the lower pointer's writes, the
 *   uppers list, the candidate lists and the mode run under RTNL, as do
 *   the upper's calls that forward to the lowers: a lower joined and
 *   published under one hold of RTNL sees every later change, so what it
 *   got from the upper is what the upper holds; nothing under RTNL waits
 *   for anything but the lower's own ndo and ethtool calls.
 * - the lower pointers are read under RCU (transmit, rx_mode); a lower is
 *   released only after synchronize_net() (netdev_rx_handler_unregister).
 * - a primary adopted beside a standby gets the VM's MAC only once it is
 *   ready (primary_live): until then the host switches the VM's frames to
 *   the standby, and a MAC set earlier would steer them into a device
 *   still opening.
 * - the notifier never adopts inline: it schedules the upper's work,
 *   which takes RTNL itself, so a driver's probe finishes first.
 */
#ifndef GSHADOW_H
#define GSHADOW_H

#include <linux/netdevice.h>
#include <linux/rtnetlink.h>
#include <linux/skbuff.h>
#include <compsc/compsc.h>
#include "core.h"

#define GSHADOW_DRV		"gshadow"

enum gshadow_mode {
	GSHADOW_PASSTHROUGH,	/* forward and count calls, record nothing */
	GSHADOW_INTERPOSE,	/* also record the knobs and give a new lower
				 * them and the upper's MAC
				 */
};

/* Counters reported by ethtool -S (names in ethtool.c, same order). */
enum gshadow_stat {
	GSHADOW_TX_HELD,	/* skbs queued while no lower was usable */
	GSHADOW_TX_HELD_SENT,	/* held skbs handed to a lower later */
	GSHADOW_TX_HOLD_DROPPED, /* skbs dropped: hold queue full */
	GSHADOW_TX_HOLD_PEAK,	/* deepest the hold queue got (gauge) */
	GSHADOW_LOWER_ADOPTED,
	GSHADOW_LOWER_RELEASED,
	GSHADOW_REPLAYS,	/* new lowers the log was replayed into */
	GSHADOW_REPLAY_ERRORS,	/* replayed settings a lower refused */
	GSHADOW_MTU_CLAMPED,	/* lowers that could not take the MTU */
	GSHADOW_PEER_NOTIFY,	/* gratuitous ARP / unsolicited NA rounds */
	GSHADOW_LOG_FULL,	/* settings the replay log had no room for */
	GSHADOW_TX_STANDBY,	/* skbs sent through the standby */
	GSHADOW_STANDBY_ADOPTED,
	GSHADOW_MAC_DEFERRED,	/* primaries given the MAC once ready */
	GSHADOW_CALL_MTU,	/* tap: calls through the upper, any mode */
	GSHADOW_CALL_MAC,
	GSHADOW_CALL_RX_MODE,
	GSHADOW_CALL_RX_FLAGS,
	GSHADOW_CALL_VLAN_ADD,
	GSHADOW_CALL_VLAN_DEL,
	GSHADOW_CALL_RING,	/* ethtool -G through the upper */
	GSHADOW_CALL_COALESCE,	/* ethtool -C */
	GSHADOW_CALL_FEATURES,	/* ndo_set_features (ethtool -K) */
	GSHADOW_KNOB_CLAMPED,	/* ring sizes a lower took only clamped */
	GSHADOW_QUIESCED,	/* lowers drained before they went down */
	GSHADOW_QUIESCE_TIMEOUTS, /* drains that ran out of quiesce_ms */
	GSHADOW_TX_DRAINED,	/* packets sent from a lower's queues meanwhile */
	GSHADOW_NR_STATS,
};

/*
 * ethtool settings made through the upper (ethtool.c), one replay-log
 * record each (record.c), written only once the user set them: a lower's
 * defaults the user never touched stay its own.
 */
enum gshadow_knob {
	GSHADOW_KNOB_RX_RING,
	GSHADOW_KNOB_TX_RING,
	GSHADOW_KNOB_RX_USECS,
	GSHADOW_KNOB_TX_USECS,
	GSHADOW_KNOB_RX_FRAMES,
	GSHADOW_KNOB_TX_FRAMES,
	GSHADOW_NR_KNOBS,
};

/* Receive offloads the upper forwards to its lowers (ethtool -K). */
#define GSHADOW_RX_FEATURES	(NETIF_F_RXCSUM | NETIF_F_RXHASH)

/* What a lower had before it joined, given back when it leaves (join.c). */
struct gshadow_orig {
	unsigned int mtu;
	u8 mac[ETH_ALEN];
};

struct gshadow {
	struct gshadow_core core;	/* the core's part: see core.h */
	struct net_device *upper;
	struct net_device __rcu *lower;	/* the primary: RTNL writes, RCU reads */
	netdevice_tracker lower_tracker;
	struct net_device __rcu *standby; /* RTNL writes, RCU reads */
	netdevice_tracker standby_tracker;
	struct gshadow_orig lower_orig;	/* RTNL: the primary's own MTU, MAC */
	struct gshadow_orig standby_orig; /* RTNL: the standby's */
	bool primary_live;		/* RTNL writes, READ_ONCE in transmit */
	bool primary_refused;		/* RTNL: its host refused the MAC */
	/* a lower draining before it goes down: RTNL writes, READ_ONCE in transmit */
	struct net_device *leaving;
	u32 quiesce_ms;			/* drain bound, READ_ONCE/WRITE_ONCE */
	struct sk_buff_head held;	/* hold queue; its own lock */
	u32 hold_max;			/* queue bound, READ_ONCE/WRITE_ONCE */
	enum gshadow_mode mode;		/* RTNL */
	bool trace;			/* READ_ONCE/WRITE_ONCE: sysfs trace */
	bool notify_pending;		/* RTNL: announce once the lower is up */
	bool replaying;			/* RTNL: our own upper calls, not the user's */
	u32 mtu_wish;			/* RTNL: the MTU the user set last */
	bool rx_user;			/* RTNL: the user turned a receive offload off */
	netdev_features_t masked;	/* RTNL: offloads the lower lacks */
	spinlock_t log_lock;		/* protects log (read by ethtool -S) */
	struct compsc_replay log;
	void *log_mem;
	atomic64_t stats[GSHADOW_NR_STATS];
};

static inline void gshadow_inc(struct gshadow *gs, enum gshadow_stat s)
{
	atomic64_inc(&gs->stats[s]);
}

/*
 * Trace mode (sysfs trace = 1): every call the shadow taps or intercepts
 * is logged, to debug a driver it has never seen. Not rate-limited, so
 * that a trace is complete: leave it off in production.
 */
#define gshadow_trace(gs, fmt, ...)					\
	do {								\
		struct gshadow *__gs = (gs);				\
									\
		if (READ_ONCE(__gs->trace))				\
			netdev_info(__gs->upper, "trace: " fmt "\n",	\
				    ##__VA_ARGS__);			\
	} while (0)

/* A call through the upper: counted (the passthrough tap), traced. */
#define gshadow_tap(gs, stat, fmt, ...)					\
	do {								\
		struct gshadow *__gt = (gs);				\
									\
		gshadow_inc(__gt, stat);				\
		gshadow_trace(__gt, fmt, ##__VA_ARGS__);		\
	} while (0)

/*
 * The lowers a configuration call goes to (RTNL): the primary first, then
 * the standby; returns how many there are.
 */
static inline int gshadow_lowers(struct gshadow *gs, struct net_device *out[2])
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

/* record.c: the interpose tap's log of what the upper does not hold */
int gshadow_log_init(struct gshadow *gs, u32 records);
void gshadow_log_free(struct gshadow *gs);
bool gshadow_recording(struct gshadow *gs);
void gshadow_record_knob(struct gshadow *gs, enum gshadow_knob k, u64 v);
bool gshadow_knob(struct gshadow *gs, enum gshadow_knob k, u64 *v);
u32 gshadow_log_count(struct gshadow *gs);

/* join.c: a lower joining the upper and leaving it */
void gshadow_join(struct gshadow *gs, struct net_device *lower,
		  struct gshadow_orig *orig, bool mac);
void gshadow_leave(struct gshadow *gs, struct net_device *lower,
		   const struct gshadow_orig *orig);
int gshadow_replay_mac(struct gshadow *gs, struct net_device *lower);
void gshadow_lower_rx_features(struct net_device *lower,
			       netdev_features_t wanted);

/* ethtool.c, sysfs.c */
extern const struct ethtool_ops gshadow_ethtool_ops;
void gshadow_replay_knobs(struct gshadow *gs, struct net_device *lower);
extern const struct attribute_group gshadow_attr_group;
int gshadow_masked_names(netdev_features_t f, char *buf, size_t len);

#endif /* GSHADOW_H */
