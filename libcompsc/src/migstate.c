// SPDX-License-Identifier: (GPL-2.0 OR BSD-3-Clause)
/*
 * The host's migration state machine as one pure function (see
 * compsc/migstate.h). The arcs are the VFIO v2 single steps for a device
 * that offers STOP_COPY and P2P; the actions say what each arc means for
 * the CompSC protocol. Callers own every side effect.
 */
#include "compsc/migstate.h"

/* The legal single steps: bit @to of legal[@from]. */
#define ARC(s)	(1u << (s))
static const u32 compsc_mig_legal[COMPSC_MIG_NR_STATES] = {
	[COMPSC_MIG_ERROR]	 = 0,
	[COMPSC_MIG_STOP]	 = ARC(COMPSC_MIG_RUNNING_P2P) |
				   ARC(COMPSC_MIG_STOP_COPY) |
				   ARC(COMPSC_MIG_RESUMING),
	[COMPSC_MIG_RUNNING]	 = ARC(COMPSC_MIG_RUNNING_P2P),
	[COMPSC_MIG_STOP_COPY]	 = ARC(COMPSC_MIG_STOP),
	[COMPSC_MIG_RESUMING]	 = ARC(COMPSC_MIG_STOP),
	[COMPSC_MIG_RUNNING_P2P] = ARC(COMPSC_MIG_RUNNING) |
				   ARC(COMPSC_MIG_STOP),
};

/* Leaving the guest's hands: take the device if the guest has an area. */
static int compsc_mig_from_running(u32 ctx, u32 *actions)
{
	if ((ctx & COMPSC_MIG_C_AREA) && !(ctx & COMPSC_MIG_C_HELD))
		*actions = COMPSC_MIG_A_TAKE;
	return 0;
}

/*
 * Back to the guest: a loaded state is handed over with a version bump (the
 * destination); a device we only took goes back without one (the source
 * after a cancelled or failed migration).
 */
static int compsc_mig_to_running(u32 ctx, u32 *actions)
{
	if (ctx & COMPSC_MIG_C_LOADED)
		*actions = COMPSC_MIG_A_GIVE;
	else if (ctx & COMPSC_MIG_C_HELD)
		*actions = COMPSC_MIG_A_ABORT;
	return 0;
}

int compsc_mig_arc(u32 from, u32 to, u32 ctx, u32 *actions)
{
	if (!actions || from >= COMPSC_MIG_NR_STATES ||
	    to >= COMPSC_MIG_NR_STATES || !(compsc_mig_legal[from] & ARC(to)))
		return -COMPSC_EINVAL;
	*actions = 0;
	if (from == COMPSC_MIG_RUNNING)
		return compsc_mig_from_running(ctx, actions);
	if (to == COMPSC_MIG_RUNNING)
		return compsc_mig_to_running(ctx, actions);
	if (to == COMPSC_MIG_STOP_COPY) {
		/* nothing held: no guest state to save */
		if (!(ctx & COMPSC_MIG_C_HELD))
			return -COMPSC_ESTATE;
		*actions = COMPSC_MIG_A_SAVE;
		return 0;
	}
	if (from == COMPSC_MIG_STOP_COPY) {
		*actions = COMPSC_MIG_A_SAVE_END;
		return 0;
	}
	if (to == COMPSC_MIG_RESUMING) {
		/* the device is about to be overwritten: let go of it first */
		if (ctx & COMPSC_MIG_C_HELD)
			*actions = COMPSC_MIG_A_ABORT;
		*actions |= COMPSC_MIG_A_LOAD;
		return 0;
	}
	if (from == COMPSC_MIG_RESUMING)
		*actions = COMPSC_MIG_A_LOAD_END;
	/* STOP <-> RUNNING_P2P: the device is quiet either way */
	return 0;
}
COMPSC_EXPORT(compsc_mig_arc);

const char *compsc_mig_state_name(u32 state)
{
	static const char *const names[COMPSC_MIG_NR_STATES] = {
		"ERROR", "STOP", "RUNNING", "STOP_COPY", "RESUMING",
		"RUNNING_P2P",
	};

	return state < COMPSC_MIG_NR_STATES ? names[state] : "?";
}
COMPSC_EXPORT(compsc_mig_state_name);
