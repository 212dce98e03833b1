// SPDX-License-Identifier: GPL-2.0
/*
 * The interpose tap's record: the configuration applied through the upper,
 * kept in libcompsc's bounded replay log (last write per key wins, so it
 * never grows with uptime), and its replay into a new lower.
 *
 * Keys: three single settings, one per ethtool knob (GSHADOW_KEY_KNOB + k,
 * enum gshadow_knob), and three sets whose members are keyed set | n
 * (compsc_replay_set_put()).
 *
 * Replay order is fixed by kind, not by log order: the MTU first (a lower
 * refuses frames before it takes a larger one), then the MAC, the receive
 * flags, the VLAN filters and the ethtool knobs (ethtool.c), and last the
 * address lists, which the
 * kernel's sync of the upper's own lists applies (dev_uc/mc_sync_multiple:
 * their bookkeeping is what keeps later deletions right, so replaying them
 * from the log beside it would leak entries in the lower).
 */
#include <linux/etherdevice.h>
#include <linux/if_vlan.h>
#include <linux/rtnetlink.h>
#include <linux/slab.h>
#include <linux/vmalloc.h>
#include "gshadow.h"

#define GSHADOW_KEY_MTU		0x1u
#define GSHADOW_KEY_MAC		0x2u
#define GSHADOW_KEY_FLAGS	0x3u
#define GSHADOW_KEY_KNOB	0x100u
#define GSHADOW_SET_UC		0x10000u
#define GSHADOW_SET_MC		0x20000u
#define GSHADOW_SET_VLAN	0x30000u

struct gshadow_vlan_rec {
	__be16 proto;
	__le16 vid;
};

int gshadow_log_init(struct gshadow *gs, u32 records)
{
	u32 len;
	int err;

	if (records < 8 || records > 4096)
		return -EINVAL;
	len = sizeof(struct compsc_replay_hdr) +
	      records * sizeof(struct compsc_replay_rec);
	gs->log_mem = vzalloc(len);
	if (!gs->log_mem)
		return -ENOMEM;
	err = compsc_replay_init(&gs->log, gs->log_mem, len, NULL, 0);
	if (err) {
		vfree(gs->log_mem);
		gs->log_mem = NULL;
		return -EINVAL;
	}
	return 0;
}

void gshadow_log_free(struct gshadow *gs)
{
	vfree(gs->log_mem);
	gs->log_mem = NULL;
}

bool gshadow_recording(struct gshadow *gs)
{
	return READ_ONCE(gs->mode) == GSHADOW_INTERPOSE;
}

/* Count a write the log had no room for; the live call still went through. */
static void gshadow_log_err(struct gshadow *gs, int err)
{
	if (err == -COMPSC_ENOSPC)
		gshadow_inc(gs, GSHADOW_LOG_FULL);
}

static void gshadow_put(struct gshadow *gs, u32 key, const void *data, u32 len)
{
	int err;

	if (!gshadow_recording(gs))
		return;
	spin_lock_bh(&gs->log_lock);
	err = compsc_replay_put(&gs->log, key, data, len);
	spin_unlock_bh(&gs->log_lock);
	gshadow_log_err(gs, err);
}

void gshadow_record_mtu(struct gshadow *gs, u32 mtu)
{
	__le32 v = cpu_to_le32(mtu);

	gshadow_put(gs, GSHADOW_KEY_MTU, &v, sizeof(v));
}

void gshadow_record_mac(struct gshadow *gs, const u8 *mac)
{
	gshadow_put(gs, GSHADOW_KEY_MAC, mac, ETH_ALEN);
}

void gshadow_record_flags(struct gshadow *gs, u32 flags)
{
	__le32 v = cpu_to_le32(flags & (IFF_PROMISC | IFF_ALLMULTI));

	gshadow_put(gs, GSHADOW_KEY_FLAGS, &v, sizeof(v));
}

void gshadow_record_knob(struct gshadow *gs, enum gshadow_knob k, u64 v)
{
	__le64 le = cpu_to_le64(v);

	gshadow_put(gs, GSHADOW_KEY_KNOB + k, &le, sizeof(le));
}

void gshadow_record_vlan(struct gshadow *gs, __be16 proto, u16 vid, bool add)
{
	struct gshadow_vlan_rec r = { .proto = proto, .vid = cpu_to_le16(vid) };
	int err;

	if (!gshadow_recording(gs))
		return;
	spin_lock_bh(&gs->log_lock);
	if (add)
		err = compsc_replay_set_put(&gs->log, GSHADOW_SET_VLAN, &r,
					    sizeof(r), 0, sizeof(r));
	else
		err = compsc_replay_set_del(&gs->log, GSHADOW_SET_VLAN, &r,
					    0, sizeof(r));
	spin_unlock_bh(&gs->log_lock);
	gshadow_log_err(gs, err);
}

/* Rewrite one address set from the upper's list (address lock held). */
static int __gshadow_record_list(struct gshadow *gs, u32 set,
				 struct netdev_hw_addr_list *list)
{
	struct netdev_hw_addr *ha;
	int err;

	err = compsc_replay_set_clear(&gs->log, set);
	netdev_hw_addr_list_for_each(ha, list) {
		if (err)
			break;
		err = compsc_replay_set_put(&gs->log, set, ha->addr, ETH_ALEN,
					    0, ETH_ALEN);
	}
	return err;
}

/* From ndo_set_rx_mode: the upper's address lock is held, BHs are off. */
void gshadow_record_addrs(struct gshadow *gs)
{
	int err;

	if (!gshadow_recording(gs))
		return;
	spin_lock(&gs->log_lock);
	err = __gshadow_record_list(gs, GSHADOW_SET_UC, &gs->upper->uc);
	if (!err)
		err = __gshadow_record_list(gs, GSHADOW_SET_MC, &gs->upper->mc);
	spin_unlock(&gs->log_lock);
	gshadow_log_err(gs, err);
}

u32 gshadow_log_count(struct gshadow *gs)
{
	u32 n;

	spin_lock_bh(&gs->log_lock);
	n = compsc_replay_count(&gs->log);
	spin_unlock_bh(&gs->log_lock);
	return n;
}

/* Copy the record for @key out of the log; false when there is none. */
static bool gshadow_get(struct gshadow *gs, u32 key, void *out, u32 len)
{
	const struct compsc_replay_rec *r;
	bool found;

	spin_lock_bh(&gs->log_lock);
	r = compsc_replay_get(&gs->log, key);
	found = r && le16_to_cpu(r->len) == len;
	if (found)
		memcpy(out, r->data, len);
	spin_unlock_bh(&gs->log_lock);
	return found;
}

/* The recorded value of knob @k; false when the user never set it. */
bool gshadow_knob(struct gshadow *gs, enum gshadow_knob k, u64 *v)
{
	__le64 le;

	if (!gshadow_get(gs, GSHADOW_KEY_KNOB + k, &le, sizeof(le)))
		return false;
	*v = le64_to_cpu(le);
	return true;
}

/* The VLAN filters in the log, copied out (kfree() it); *n gets the count. */
static struct gshadow_vlan_rec *gshadow_vlans(struct gshadow *gs, u32 *n)
{
	u32 cap = gs->log.hdr ? le32_to_cpu(gs->log.hdr->capacity) : 0;
	const struct compsc_replay_rec *r;
	struct gshadow_vlan_rec *v;
	u32 i;

	*n = 0;
	v = kcalloc(cap, sizeof(*v), GFP_KERNEL);
	if (!v)
		return NULL;
	spin_lock_bh(&gs->log_lock);
	for (i = 0; (r = compsc_replay_at(&gs->log, i)); i++)
		if ((le32_to_cpu(r->key) & ~COMPSC_REPLAY_SET_MASK) == GSHADOW_SET_VLAN &&
		    (le32_to_cpu(r->key) & COMPSC_REPLAY_SET_MASK) &&
		    le16_to_cpu(r->len) == sizeof(*v) && *n < cap)
			memcpy(&v[(*n)++], r->data, sizeof(*v));
	spin_unlock_bh(&gs->log_lock);
	return v;
}

/* The MTU the upper asked for, or the nearest the lower takes. */
static void gshadow_replay_mtu(struct gshadow *gs, struct net_device *lower)
{
	struct net_device *upper = gs->upper;
	__le32 v;
	int want, mtu;

	if (!gshadow_get(gs, GSHADOW_KEY_MTU, &v, sizeof(v)))
		return;
	want = le32_to_cpu(v);
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
	/* the log keeps @want for the next lower; this is not recorded */
	dev_set_mtu(upper, mtu);
}

/* Give @lower the recorded MAC; 0 also when it has it or none is recorded. */
int gshadow_replay_mac(struct gshadow *gs, struct net_device *lower)
{
	struct sockaddr sa = { .sa_family = lower->type };
	int err;

	if (!gshadow_recording(gs) ||
	    !gshadow_get(gs, GSHADOW_KEY_MAC, sa.sa_data, ETH_ALEN) ||
	    ether_addr_equal(lower->dev_addr, sa.sa_data))
		return 0;
	err = dev_set_mac_address(lower, &sa, NULL);
	if (err) {
		gshadow_inc(gs, GSHADOW_REPLAY_ERRORS);
		netdev_warn(gs->upper, "%s refuses MAC %pM (%d): its host must allow it\n",
			    lower->name, sa.sa_data, err);
	}
	return err;
}

static void gshadow_replay_flags(struct gshadow *gs, struct net_device *lower,
				 int inc)
{
	__le32 v;
	u32 f;

	if (!gshadow_get(gs, GSHADOW_KEY_FLAGS, &v, sizeof(v)))
		return;
	f = le32_to_cpu(v);
	if ((f & IFF_PROMISC) && dev_set_promiscuity(lower, inc))
		gshadow_inc(gs, GSHADOW_REPLAY_ERRORS);
	if ((f & IFF_ALLMULTI) && dev_set_allmulti(lower, inc))
		gshadow_inc(gs, GSHADOW_REPLAY_ERRORS);
}

static void gshadow_replay_vlans(struct gshadow *gs, struct net_device *lower,
				 bool add)
{
	struct gshadow_vlan_rec *v;
	u32 i, n;

	v = gshadow_vlans(gs, &n);
	if (!v) {
		gshadow_inc(gs, GSHADOW_REPLAY_ERRORS);
		return;
	}
	for (i = 0; i < n; i++) {
		if (!add)
			vlan_vid_del(lower, v[i].proto, le16_to_cpu(v[i].vid));
		else if (vlan_vid_add(lower, v[i].proto, le16_to_cpu(v[i].vid)))
			gshadow_inc(gs, GSHADOW_REPLAY_ERRORS);
	}
	kfree(v);
}

/*
 * Drive a newly adopted @lower into the recorded configuration (RTNL).
 * @mac false: the MAC comes later (a primary beside a standby: core.c).
 */
void gshadow_replay(struct gshadow *gs, struct net_device *lower, bool mac)
{
	ASSERT_RTNL();
	if (!gshadow_recording(gs))
		return;
	gs->replaying = true;
	gshadow_replay_mtu(gs, lower);
	if (mac)
		gshadow_replay_mac(gs, lower);
	gshadow_replay_flags(gs, lower, 1);
	gshadow_replay_vlans(gs, lower, true);
	gshadow_replay_knobs(gs, lower);
	gs->replaying = false;
	gshadow_inc(gs, GSHADOW_REPLAYS);
	netdev_info(gs->upper, "replayed %u recorded settings into %s\n",
		    gshadow_log_count(gs), lower->name);
}

/* Undo the replay in a lower that stays (module unload): RTNL. */
void gshadow_unreplay(struct gshadow *gs, struct net_device *lower)
{
	ASSERT_RTNL();
	if (!gshadow_recording(gs))
		return;
	gshadow_replay_flags(gs, lower, -1);
	gshadow_replay_vlans(gs, lower, false);
}
