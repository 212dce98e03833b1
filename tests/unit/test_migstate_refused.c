/* A take of one migration that timed out with no retry due is its answer: no later size query or arc of that migration takes again, and the switch-over fails the data instead. */
#include "migstate_util.h"

#define C_REF	COMPSC_MIG_C_REFUSED
#define C_PRE	COMPSC_MIG_C_PRECOPY

int main(void)
{
	/* no retry after the last one allowed, none past PRE_COPY */
	CHECK_EQ(compsc_mig_take_timed_out(COMPSC_MIG_PRE_COPY,
					   COMPSC_MIG_TAKE_RETRIES + 1), 0);
	CHECK_EQ(compsc_mig_take_timed_out(COMPSC_MIG_PRE_COPY_P2P, 1), 0);

	/* the size queries that follow answer the size and take nothing */
	CHECK_EQ(compsc_mig_size_query(COMPSC_MIG_PRE_COPY, C_AREA | C_REF), 0);
	/* the switch-over does not take with the vCPUs paused either */
	CHECK_EQ(act(COMPSC_MIG_PRE_COPY, COMPSC_MIG_PRE_COPY_P2P,
		     C_PRE | C_AREA | C_REF), 0);
	CHECK_EQ(act(COMPSC_MIG_PRE_COPY_P2P, COMPSC_MIG_STOP_COPY,
		     C_PRE | C_AREA | C_REF),
		 COMPSC_MIG_A_PAUSE | COMPSC_MIG_A_SAVE_FAIL);
	/* nor does a paused VM's STOP_COPY, nor a host without PRE_COPY */
	CHECK_EQ(act(COMPSC_MIG_STOP, COMPSC_MIG_STOP_COPY,
		     C_PRE | C_AREA | COMPSC_MIG_C_PAUSED | C_REF),
		 COMPSC_MIG_A_SAVE_OPEN | COMPSC_MIG_A_SAVE_FAIL);
	CHECK_EQ(act(COMPSC_MIG_RUNNING, COMPSC_MIG_RUNNING_P2P,
		     C_AREA | C_REF), 0);

	/* the way back to the guest is the same: nothing held, nothing to do */
	CHECK_EQ(act(COMPSC_MIG_PRE_COPY, COMPSC_MIG_RUNNING, C_AREA | C_REF),
		 COMPSC_MIG_A_SAVE_END);
	CHECK_EQ(act(COMPSC_MIG_RUNNING_P2P, COMPSC_MIG_RUNNING,
		     C_PRE | C_AREA | C_REF), 0);

	/* without it (the next migration) the take is due as before */
	CHECK_EQ(compsc_mig_size_query(COMPSC_MIG_PRE_COPY, C_AREA),
		 COMPSC_MIG_A_TAKE);
	CHECK_EQ(act(COMPSC_MIG_PRE_COPY, COMPSC_MIG_PRE_COPY_P2P,
		     C_PRE | C_AREA), COMPSC_MIG_A_TAKE);
	CHECK_DONE();
}
