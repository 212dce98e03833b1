/* A host with PRE_COPY pauses a paused VM's device through its PF instead of taking it, gives it back on the way to running, and takes it only if the paused VM's state is asked for; a migration whose switch-over holds nothing pauses it too, until the VM runs again. */
#include "migstate_util.h"

#define C_PRE	COMPSC_MIG_C_PRECOPY
#define C_PAUSE	COMPSC_MIG_C_PAUSED
#define A_PAUSE	COMPSC_MIG_A_PAUSE
#define A_UNPAUSE	COMPSC_MIG_A_UNPAUSE

int main(void)
{
	/* QMP stop: the vCPUs are stopped, no take, the PF stops the DMA */
	CHECK_EQ(act(COMPSC_MIG_RUNNING, COMPSC_MIG_RUNNING_P2P, C_PRE | C_AREA),
		 A_PAUSE);
	/* a guest without an area (a stock driver) is paused all the same */
	CHECK_EQ(act(COMPSC_MIG_RUNNING, COMPSC_MIG_RUNNING_P2P, C_PRE), A_PAUSE);
	CHECK_EQ(act(COMPSC_MIG_RUNNING_P2P, COMPSC_MIG_STOP,
		     C_PRE | C_AREA | C_PAUSE), 0);
	CHECK_EQ(act(COMPSC_MIG_STOP, COMPSC_MIG_RUNNING_P2P,
		     C_PRE | C_AREA | C_PAUSE), 0);
	/* QMP cont: given back as it was, no hand-over, no version bump */
	CHECK_EQ(act(COMPSC_MIG_RUNNING_P2P, COMPSC_MIG_RUNNING,
		     C_PRE | C_AREA | C_PAUSE), A_UNPAUSE);
	CHECK_EQ(act(COMPSC_MIG_RUNNING_P2P, COMPSC_MIG_RUNNING, C_PRE | C_AREA),
		 0);

	/* a host without PRE_COPY (the stand-in) still takes there */
	CHECK_EQ(act(COMPSC_MIG_RUNNING, COMPSC_MIG_RUNNING_P2P, C_AREA),
		 COMPSC_MIG_A_TAKE);

	/* the paused VM migrated or snapshotted: taken when its state is asked */
	CHECK_EQ(act(COMPSC_MIG_STOP, COMPSC_MIG_STOP_COPY,
		     C_PRE | C_AREA | C_PAUSE),
		 COMPSC_MIG_A_TAKE | COMPSC_MIG_A_SAVE_OPEN | COMPSC_MIG_A_SAVE);
	CHECK_EQ(act(COMPSC_MIG_STOP, COMPSC_MIG_STOP_COPY,
		     C_PRE | C_AREA | C_PAUSE | C_HELD),
		 COMPSC_MIG_A_SAVE_OPEN | COMPSC_MIG_A_SAVE);
	/* no area: nothing to take, the data fails as before */
	CHECK_EQ(act(COMPSC_MIG_STOP, COMPSC_MIG_STOP_COPY, C_PRE | C_PAUSE),
		 COMPSC_MIG_A_SAVE_OPEN | COMPSC_MIG_A_SAVE_FAIL);
	/* that migration failed: the take and the pause both end */
	CHECK_EQ(act(COMPSC_MIG_RUNNING_P2P, COMPSC_MIG_RUNNING,
		     C_PRE | C_AREA | C_PAUSE | C_HELD),
		 COMPSC_MIG_A_ABORT | A_UNPAUSE);

	/* a migration (through PRE_COPY) never pauses: it takes as before */
	CHECK_EQ(act(COMPSC_MIG_RUNNING, COMPSC_MIG_PRE_COPY, C_PRE | C_AREA),
		 COMPSC_MIG_A_SAVE_OPEN | COMPSC_MIG_A_SAVE_PRE);
	CHECK_EQ(act(COMPSC_MIG_PRE_COPY, COMPSC_MIG_PRE_COPY_P2P,
		     C_PRE | C_AREA), COMPSC_MIG_A_TAKE);
	CHECK_EQ(act(COMPSC_MIG_PRE_COPY_P2P, COMPSC_MIG_PRE_COPY,
		     C_PRE | C_AREA | C_HELD), 0);
	/* pre-copy begun while paused, then running again: the pause ends */
	CHECK_EQ(act(COMPSC_MIG_PRE_COPY_P2P, COMPSC_MIG_PRE_COPY,
		     C_PRE | C_AREA | C_PAUSE), A_UNPAUSE);
	/* the switch-over's take failed (or no area): nothing held, so the PF
	 * stops the DMA for STOP_COPY and STOP, and gives it back to a
	 * running VM; a pause is never made twice */
	CHECK_EQ(act(COMPSC_MIG_PRE_COPY_P2P, COMPSC_MIG_STOP_COPY,
		     C_PRE | C_AREA), A_PAUSE | COMPSC_MIG_A_SAVE_FAIL);
	CHECK_EQ(act(COMPSC_MIG_PRE_COPY_P2P, COMPSC_MIG_STOP_COPY, C_PRE),
		 A_PAUSE | COMPSC_MIG_A_SAVE_FAIL);
	CHECK_EQ(act(COMPSC_MIG_PRE_COPY_P2P, COMPSC_MIG_STOP_COPY,
		     C_PRE | C_PAUSE), COMPSC_MIG_A_SAVE_FAIL);
	CHECK_EQ(act(COMPSC_MIG_STOP_COPY, COMPSC_MIG_STOP,
		     C_PRE | C_AREA | C_PAUSE), COMPSC_MIG_A_SAVE_END);
	CHECK_EQ(act(COMPSC_MIG_RUNNING_P2P, COMPSC_MIG_RUNNING,
		     C_PRE | C_AREA | C_PAUSE), A_UNPAUSE);
	/* failed before STOP_COPY: the way to STOP is paused as well */
	CHECK_EQ(act(COMPSC_MIG_PRE_COPY_P2P, COMPSC_MIG_RUNNING_P2P,
		     C_PRE | C_AREA), COMPSC_MIG_A_SAVE_END | A_PAUSE);
	CHECK_EQ(act(COMPSC_MIG_PRE_COPY_P2P, COMPSC_MIG_RUNNING_P2P,
		     C_PRE | C_AREA | C_HELD), COMPSC_MIG_A_SAVE_END);

	/* the destination hands over as before */
	CHECK_EQ(act(COMPSC_MIG_RUNNING_P2P, COMPSC_MIG_RUNNING,
		     C_PRE | C_AREA | C_LOAD), COMPSC_MIG_A_GIVE);
	CHECK_DONE();
}
