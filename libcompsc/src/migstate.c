// SPDX-License-Identifier: (GPL-2.0 OR BSD-3-Clause)
/*
 * The host's migration state machine as one pure function (see
 * compsc/migstate.h). The arcs are the VFIO v2 single steps for a device
 * that offers STOP_COPY, P2P and PRE_COPY; the actions say what each arc
 * means for the CompSC protocol. Callers own every side effect.
 *
 * PRE_COPY carries the VF's configuration (compsc/precopy.h: the PF's
 * state for the VF and the guest's replay log), which exists while the
 * guest runs, so that the destination configures its VF before the
 * switch-over; the rest of the state only exists once the device is
 * taken. PRE_COPY also lets the host hear from the migration while the
 * guest's vCPUs still run, and take the device then
 * (compsc_mig_size_query()); a host that offers it therefore tells a
 * plain pause of the VM (RUNNING -> RUNNING_P2P) from a migration and
 * pauses the device there instead of taking it.
 */
#include "compsc/migstate.h"

/* The legal single steps: bit @to of legal[@from]. */
#define ARC(s)	(1u << (s))
static const u32 compsc_mig_legal[COMPSC_MIG_NR_STATES] = {
	[COMPSC_MIG_ERROR]	 = 0,
	[COMPSC_MIG_STOP]	 = ARC(COMPSC_MIG_RUNNING_P2P) |
				   ARC(COMPSC_MIG_STOP_COPY) |
				   ARC(COMPSC_MIG_RESUMING),
	[COMPSC_MIG_RUNNING]	 = ARC(COMPSC_MIG_RUNNING_P2P) |
				   ARC(COMPSC_MIG_PRE_COPY),
	[COMPSC_MIG_STOP_COPY]	 = ARC(COMPSC_MIG_STOP),
	[COMPSC_MIG_RESUMING]	 = ARC(COMPSC_MIG_STOP),
	[COMPSC_MIG_RUNNING_P2P] = ARC(COMPSC_MIG_RUNNING) |
				   ARC(COMPSC_MIG_STOP) |
				   ARC(COMPSC_MIG_PRE_COPY_P2P),
	[COMPSC_MIG_PRE_COPY]	 = ARC(COMPSC_MIG_RUNNING) |
				   ARC(COMPSC_MIG_PRE_COPY_P2P),
	[COMPSC_MIG_PRE_COPY_P2P] = ARC(COMPSC_MIG_PRE_COPY) |
				   ARC(COMPSC_MIG_RUNNING_P2P) |
				   ARC(COMPSC_MIG_STOP_COPY),
};

static int compsc_mig_is_precopy(u32 state)
{
	return state == COMPSC_MIG_PRE_COPY || state == COMPSC_MIG_PRE_COPY_P2P;
}

/*
 * The guest is about to lose its device: take it if it has an area, and
 * unless a take of this migration timed out for good (the guest's readers
 * waited once for it: see compsc_mig_take_timed_out()).
 */
static u32 compsc_mig_take(u32 ctx)
{
	if ((ctx & COMPSC_MIG_C_AREA) &&
	    !(ctx & (COMPSC_MIG_C_HELD | COMPSC_MIG_C_REFUSED)))
		return COMPSC_MIG_A_TAKE;
	return 0;
}

/*
 * The vCPUs stop (RUNNING -> RUNNING_P2P). On a host with PRE_COPY every
 * migration went through it and took the device there: this is a pause,
 * and a take now, vCPUs stopped, could only wait for a reader caught
 * inside. The PF stops the VF's DMA instead (see compsc/migstate.h).
 */
static u32 compsc_mig_stop_vcpus(u32 ctx)
{
	if (!(ctx & COMPSC_MIG_C_PRECOPY))
		return compsc_mig_take(ctx);
	return ctx & COMPSC_MIG_C_PAUSED ? 0 : COMPSC_MIG_A_PAUSE;
}

/*
 * Back to the guest: a loaded state is handed over with a version bump (the
 * destination); a device we only took goes back without one (the source
 * after a cancelled or failed migration); a pause ends.
 */
static u32 compsc_mig_to_running(u32 ctx)
{
	u32 unpause = ctx & COMPSC_MIG_C_PAUSED ? COMPSC_MIG_A_UNPAUSE : 0;

	if (ctx & COMPSC_MIG_C_LOADED)
		return COMPSC_MIG_A_GIVE | unpause;
	if (ctx & COMPSC_MIG_C_HELD)
		return COMPSC_MIG_A_ABORT | unpause;
	return unpause;
}

/*
 * Into a state where the VM may stop with the device neither taken nor
 * paused (the take at the switch-over failed, or there is no area): the
 * VF would go on with its DMA in STOP_COPY and STOP, which the VFIO uAPI
 * forbids. The PF stops it; the arc back to a running state gives it back.
 */
static u32 compsc_mig_quiesce(u32 ctx)
{
	if (ctx & (COMPSC_MIG_C_HELD | COMPSC_MIG_C_PAUSED))
		return 0;
	return COMPSC_MIG_A_PAUSE;
}

/* Arcs in and out of the two PRE_COPY states. */
static u32 compsc_mig_precopy_arc(u32 from, u32 to, u32 ctx)
{
	if (!compsc_mig_is_precopy(from))	/* RUNNING{,_P2P} -> PRE_COPY* */
		return COMPSC_MIG_A_SAVE_OPEN |
		       (ctx & COMPSC_MIG_C_AREA ? COMPSC_MIG_A_SAVE_PRE : 0);
	if (to == COMPSC_MIG_RUNNING)		/* cancelled while running */
		return COMPSC_MIG_A_SAVE_END | compsc_mig_to_running(ctx);
	if (to == COMPSC_MIG_RUNNING_P2P)	/* a STOP may follow */
		return COMPSC_MIG_A_SAVE_END | compsc_mig_quiesce(ctx);
	if (to == COMPSC_MIG_PRE_COPY_P2P)	/* last chance, vCPUs may be paused */
		return compsc_mig_take(ctx);
	/* PRE_COPY_P2P -> PRE_COPY: running again */
	return ctx & COMPSC_MIG_C_PAUSED ? COMPSC_MIG_A_UNPAUSE : 0;
}

static u32 compsc_mig_stop_copy(u32 from, u32 ctx)
{
	/* nothing held, no guest state to save: fail the data, not the arc */
	u32 actions = ctx & COMPSC_MIG_C_HELD ? COMPSC_MIG_A_SAVE :
						 COMPSC_MIG_A_SAVE_FAIL;

	/* a paused VM's state asked for: take now, save what that holds */
	if ((ctx & COMPSC_MIG_C_PAUSED) && compsc_mig_take(ctx))
		actions = COMPSC_MIG_A_TAKE | COMPSC_MIG_A_SAVE;
	actions |= compsc_mig_quiesce(ctx);

	/* from PRE_COPY_P2P the save fd is already open and stays the same */
	if (from == COMPSC_MIG_STOP)
		actions |= COMPSC_MIG_A_SAVE_OPEN;
	return actions;
}

int compsc_mig_arc(u32 from, u32 to, u32 ctx, u32 *actions)
{
	if (!actions || from >= COMPSC_MIG_NR_STATES ||
	    to >= COMPSC_MIG_NR_STATES || !(compsc_mig_legal[from] & ARC(to)))
		return -COMPSC_EINVAL;
	*actions = 0;
	if (to == COMPSC_MIG_STOP_COPY)
		*actions = compsc_mig_stop_copy(from, ctx);
	else if (compsc_mig_is_precopy(from) || compsc_mig_is_precopy(to))
		*actions = compsc_mig_precopy_arc(from, to, ctx);
	else if (from == COMPSC_MIG_RUNNING)
		*actions = compsc_mig_stop_vcpus(ctx);
	else if (to == COMPSC_MIG_RUNNING)
		*actions = compsc_mig_to_running(ctx);
	else if (from == COMPSC_MIG_STOP_COPY)
		*actions = COMPSC_MIG_A_SAVE_END;
	else if (to == COMPSC_MIG_RESUMING)
		/* the device is about to be overwritten: let go of it first */
		*actions = (ctx & COMPSC_MIG_C_HELD ? COMPSC_MIG_A_ABORT : 0) |
			   COMPSC_MIG_A_LOAD;
	else if (from == COMPSC_MIG_RESUMING)
		*actions = COMPSC_MIG_A_LOAD_END;
	/* STOP <-> RUNNING_P2P: the arc from RUNNING paused or took it */
	return 0;
}
COMPSC_EXPORT(compsc_mig_arc);

u32 compsc_mig_size_query(u32 state, u32 ctx)
{
	if (state != COMPSC_MIG_PRE_COPY)
		return 0;
	if (ctx & COMPSC_MIG_C_BACKOFF)
		return COMPSC_MIG_A_DEFER;
	if ((ctx & COMPSC_MIG_C_LOG_WHOLE) && compsc_mig_take(ctx))
		return COMPSC_MIG_A_DEFER;
	return compsc_mig_take(ctx);
}
COMPSC_EXPORT(compsc_mig_size_query);

u32 compsc_mig_hold_expired(u32 state, u32 ctx)
{
	if (state == COMPSC_MIG_PRE_COPY && (ctx & COMPSC_MIG_C_HELD))
		return COMPSC_MIG_A_ABORT;
	return 0;
}
COMPSC_EXPORT(compsc_mig_hold_expired);

u32 compsc_mig_take_timed_out(u32 state, u32 timeouts)
{
	if (state == COMPSC_MIG_PRE_COPY && timeouts &&
	    timeouts <= COMPSC_MIG_TAKE_RETRIES)
		return COMPSC_MIG_A_DEFER;
	return 0;
}
COMPSC_EXPORT(compsc_mig_take_timed_out);

u32 compsc_mig_backoff_ms(u32 hold_ms, u32 expired)
{
	u32 shift = expired > 1 ? expired - 1 : 0;
	u64 ms;

	if (shift > COMPSC_MIG_BACKOFF_MAX_SHIFT)
		shift = COMPSC_MIG_BACKOFF_MAX_SHIFT;
	ms = (u64)hold_ms << shift;
	return ms > 0xffffffffu ? 0xffffffffu : (u32)ms;
}
COMPSC_EXPORT(compsc_mig_backoff_ms);

void compsc_log_pass_reset(struct compsc_log_pass *p)
{
	p->first = ~0ull;
	p->last = 0;
	p->due = false;
	p->wrapped = false;
}
COMPSC_EXPORT(compsc_log_pass_reset);

void compsc_log_pass_start(struct compsc_log_pass *p)
{
	p->due = true;
	p->wrapped = false;
	p->first = ~0ull;
}
COMPSC_EXPORT(compsc_log_pass_start);

bool compsc_log_pass_new_sync(const struct compsc_log_pass *p, u64 iova)
{
	return iova <= p->last;
}
COMPSC_EXPORT(compsc_log_pass_new_sync);

bool compsc_log_pass_read(struct compsc_log_pass *p, u64 iova)
{
	bool whole = p->due;

	if (whole && p->first == ~0ull) {
		p->first = iova;
	} else if (whole) {
		if (iova <= p->last)
			p->wrapped = true;
		/* this section was reported whole in the sync before */
		if (p->wrapped && iova >= p->first) {
			p->due = false;
			whole = false;
		}
	}
	p->last = iova;
	return whole;
}
COMPSC_EXPORT(compsc_log_pass_read);

const char *compsc_mig_state_name(u32 state)
{
	static const char *const names[COMPSC_MIG_NR_STATES] = {
		"ERROR", "STOP", "RUNNING", "STOP_COPY", "RESUMING",
		"RUNNING_P2P", "PRE_COPY", "PRE_COPY_P2P",
	};

	return state < COMPSC_MIG_NR_STATES ? names[state] : "?";
}
COMPSC_EXPORT(compsc_mig_state_name);
