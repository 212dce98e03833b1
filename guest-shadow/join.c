// SPDX-License-Identifier: GPL-2.0
/*
 * A lower joining the upper and leaving it, the way bonding enslaves and
 * releases a slave: on joining, the lower gets the upper's *current*
 * state (MTU, receive flags, VLAN filters, receive offloads; upper.c
 * syncs the address lists once it is published), in every mode; on
 * leaving, exactly that is taken back. The upper's calls forward each
 * later change to the lowers it has (upper.c), so what a lower holds from
 * the upper is always what the upper holds now: a promiscuity count taken
 * back is one that was given. Called by upper.c only; calls record.c and
 * ethtool.c (the recorded knobs).
 *
 * The replay log (record.c) is only for what the upper does not hold: the
 * ethtool knobs (ethtool.c), replayed in interpose mode. The MTU the user
 * asked for is kept apart from the upper's MTU (gs->mtu_wish): the upper
 * follows a lower that takes less, and goes back when one takes the wish.
 */
#include <linux/etherdevice.h>
#include <linux/if_vlan.h>
#include <linux/rtnetlink.h>
#include "gshadow.h"

/* The MTU the user asked for, or the nearest the lower takes. */
static void gshadow_join_mtu(struct gshadow *gs, struct net_device *lower)
{
	struct net_device *upper = gs->upper;
	int want = gs->mtu_wish, mtu;

	if (!dev_set_mtu(lower, want)) {
		if (upper->mtu != want)
			dev_set_mtu(upper, want);
		return;
	}
	mtu = clamp_t(int, want, lower->min_mtu, lower->max_mtu);
	gshadow_inc(gs, GSHADOW_MTU_CLAMPED);
	if (dev_set_mtu(lower, mtu)) {
		gshadow_inc(gs, GSHADOW_REPLAY_ERRORS);
		mtu = lower->mtu;
	}
	netdev_warn(upper, "%s takes no MTU %d: upper MTU %d until a lower does\n",
		    lower->name, want, mtu);
	/* gs->replaying: the wish stays @want for the next lower */
	dev_set_mtu(upper, mtu);
}

/*
 * Give @lower the upper's MAC (interpose mode: in passthrough the host or
 * the user gives it); 0 also when it has it already.
 */
int gshadow_replay_mac(struct gshadow *gs, struct net_device *lower)
{
	struct sockaddr sa = { .sa_family = lower->type };
	int err;

	if (!gshadow_recording(gs) ||
	    ether_addr_equal(lower->dev_addr, gs->upper->dev_addr))
		return 0;
	memcpy(sa.sa_data, gs->upper->dev_addr, ETH_ALEN);
	err = dev_set_mac_address(lower, &sa, NULL);
	if (err) {
		gshadow_inc(gs, GSHADOW_REPLAY_ERRORS);
		netdev_warn(gs->upper, "%s refuses MAC %pM (%d): its host must allow it\n",
			    lower->name, sa.sa_data, err);
	}
	return err;
}

/* The upper's promiscuity and allmulti, one count each, as it holds them. */
static void gshadow_join_flags(struct gshadow *gs, struct net_device *lower,
			       unsigned int flags, int inc)
{
	if ((flags & IFF_PROMISC) && dev_set_promiscuity(lower, inc))
		gshadow_inc(gs, GSHADOW_REPLAY_ERRORS);
	if ((flags & IFF_ALLMULTI) && dev_set_allmulti(lower, inc))
		gshadow_inc(gs, GSHADOW_REPLAY_ERRORS);
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
 * @lower joins the upper (RTNL, before it is published): the upper's
 * current state, then in interpose mode what the log holds. @orig keeps
 * what the lower had, for gshadow_leave(). @mac false: the MAC comes
 * later (a primary beside a standby: gshadow_go_live() in upper.c).
 */
void gshadow_join(struct gshadow *gs, struct net_device *lower,
		  struct gshadow_orig *orig, bool mac)
{
	struct net_device *upper = gs->upper;

	ASSERT_RTNL();
	orig->mtu = lower->mtu;
	ether_addr_copy(orig->mac, lower->dev_addr);
	gs->replaying = true;
	gshadow_join_mtu(gs, lower);
	if (mac)
		gshadow_replay_mac(gs, lower);
	gshadow_join_flags(gs, lower, upper->flags, 1);
	if (vlan_vids_add_by_dev(lower, upper))
		gshadow_inc(gs, GSHADOW_REPLAY_ERRORS);
	if (gs->rx_user)
		gshadow_lower_rx_features(lower, upper->wanted_features);
	if (gshadow_recording(gs)) {
		gshadow_replay_knobs(gs, lower);
		gshadow_inc(gs, GSHADOW_REPLAYS);
		netdev_info(upper, "replayed %u recorded settings into %s\n",
			    gshadow_log_count(gs), lower->name);
	}
	gs->replaying = false;
}

/*
 * @lower, unpublished, leaves and stays (module unload; RTNL): what the
 * upper holds now is what it gave, so that is taken back; its own MTU
 * and MAC are given back. The knobs stay: they are the lower's settings.
 */
void gshadow_leave(struct gshadow *gs, struct net_device *lower,
		   const struct gshadow_orig *orig)
{
	struct sockaddr sa = { .sa_family = lower->type };

	ASSERT_RTNL();
	vlan_vids_del_by_dev(lower, gs->upper);
	gshadow_join_flags(gs, lower, gs->upper->flags, -1);
	if (lower->mtu != orig->mtu)
		dev_set_mtu(lower, orig->mtu);
	if (!ether_addr_equal(lower->dev_addr, orig->mac)) {
		memcpy(sa.sa_data, orig->mac, ETH_ALEN);
		if (dev_set_mac_address(lower, &sa, NULL))
			netdev_warn(gs->upper, "%s keeps MAC %pM: its own is refused\n",
				    lower->name, lower->dev_addr);
	}
}
