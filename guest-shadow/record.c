// SPDX-License-Identifier: GPL-2.0
/*
 * The interpose tap's record: the ethtool settings made through the upper
 * (ethtool.c), which the upper does not hold itself, kept in libcompsc's
 * bounded replay log (last write per key wins, so it never grows with
 * uptime) and replayed into each new lower in interpose mode. What the
 * upper does hold (MTU, MAC, receive flags, VLAN filters, address lists,
 * receive offloads) a lower gets from the upper itself when it joins
 * (join.c): a copy in the log would go stale whenever the mode was
 * passthrough.
 *
 * Keys: one per ethtool knob (GSHADOW_KEY_KNOB + k, enum gshadow_knob).
 */
#include <linux/vmalloc.h>
#include "gshadow.h"

#define GSHADOW_KEY_KNOB	0x100u

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

void gshadow_record_knob(struct gshadow *gs, enum gshadow_knob k, u64 v)
{
	__le64 le = cpu_to_le64(v);

	gshadow_put(gs, GSHADOW_KEY_KNOB + k, &le, sizeof(le));
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
