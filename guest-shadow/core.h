/* SPDX-License-Identifier: GPL-2.0 */
/*
 * gshadow core: which netdev becomes an upper's lower, and when (core.c).
 *
 * The core knows an upper only as a netdev with a struct gshadow_core and
 * a struct gshadow_core_ops, as net/core/failover.c knows net_failover
 * through struct failover_ops: it watches the netdev and PCI bus
 * notifiers, picks candidates, schedules the upper's work, and asks the
 * upper through the ops to adopt, release and quiesce a lower. It calls
 * nothing else of the upper, so the arrows run one way: the upper calls
 * the core, the core calls the ops.
 *
 * RTNL rules (the core's part of gshadow.h's): the list of uppers, each
 * upper's candidate lists and every op run under RTNL; the notifier never
 * adopts inline: it schedules the upper's work, which takes RTNL itself,
 * so a driver's probe finishes first.
 */
#ifndef GSHADOW_CORE_H
#define GSHADOW_CORE_H

#include <linux/list.h>
#include <linux/netdevice.h>
#include <linux/workqueue.h>

#define GSHADOW_MAX_CANDS	4	/* explicit lower choices per upper */
#define GSHADOW_CAND_LEN	32	/* a bus device name, e.g. 0000:01:10.2 */

/* Bus devices named by the user, e.g. 0000:01:10.2; "" ends the list. */
struct gshadow_cands {
	char dev[GSHADOW_MAX_CANDS][GSHADOW_CAND_LEN];
};

/*
 * What the core asks of an upper (upper.c implements them), all under
 * RTNL. @upper is the netdev given to gshadow_core_setup().
 */
struct gshadow_core_ops {
	/* the primary lower (@standby false) or the standby, or NULL */
	struct net_device *(*lower)(struct net_device *upper, bool standby);
	/* take @lower as the standby or the primary: 0 or an errno */
	int (*adopt)(struct net_device *upper, struct net_device *lower,
		     bool standby);
	/* let go of @lower; @gone: it is unregistering */
	void (*release)(struct net_device *upper, struct net_device *lower,
			bool gone);
	/* @lower is about to go down: move transmit off it, let it drain */
	void (*quiesce)(struct net_device *upper, struct net_device *lower);
	/* @lower is up again: it may carry transmit again */
	void (*lower_up)(struct net_device *upper, struct net_device *lower);
	/* a lower's host asks for an announcement (NETDEV_NOTIFY_PEERS) */
	void (*notify_peers)(struct net_device *upper);
	/* the work, after adoption: a primary live, held transmit, announce */
	void (*settle)(struct net_device *upper);
	/* failed load or module unload: the lowers released, the upper gone */
	void (*destroy)(struct net_device *upper);
};

/* The core's part of an upper, embedded in its private area. */
struct gshadow_core {
	struct net_device *upper;	/* set once, before registering */
	const struct gshadow_core_ops *ops;
	struct list_head node;		/* in the core's uppers, under RTNL */
	struct work_struct work;	/* adopt, then ops->settle: takes RTNL */
	struct gshadow_cands cands;	/* RTNL: lower_pci */
	struct gshadow_cands standby_cands; /* RTNL: standby_pci */
};

void gshadow_core_setup(struct gshadow_core *core, struct net_device *upper,
			const struct gshadow_core_ops *ops);
void gshadow_core_register(struct gshadow_core *core);
void gshadow_core_unregister(struct gshadow_core *core);
void gshadow_core_cancel(struct gshadow_core *core);
int gshadow_core_init(void);
void gshadow_core_exit(void);

bool gshadow_lower_ready(const struct net_device *lower);
void gshadow_kick(struct gshadow_core *core);
int gshadow_set_cands(struct gshadow_cands *cands, const char *list);

#endif /* GSHADOW_CORE_H */
