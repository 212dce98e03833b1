/* Migration state machine: only VFIO single steps are legal, ERROR is a dead end, and source (with and without PRE_COPY), destination and cancel paths take exactly the protocol actions they must. */
#include "migstate_util.h"

int main(void)
{
	u32 f, t, a, legal = 0;

	/* exactly the 15 VFIO arcs of a STOP_COPY|P2P|PRE_COPY device */
	for (f = 0; f < COMPSC_MIG_NR_STATES + 2; f++)
		for (t = 0; t < COMPSC_MIG_NR_STATES + 2; t++)
			if (compsc_mig_arc(f, t, C_HELD, &a) != -COMPSC_EINVAL)
				legal++;
	CHECK_EQ(legal, 15);
	for (t = 0; t < COMPSC_MIG_NR_STATES; t++) {
		CHECK_EQ(compsc_mig_arc(COMPSC_MIG_ERROR, t, 0, &a), -COMPSC_EINVAL);
		CHECK_EQ(compsc_mig_arc(t, COMPSC_MIG_ERROR, 0, &a), -COMPSC_EINVAL);
	}
	CHECK_EQ(compsc_mig_arc(COMPSC_MIG_RUNNING, COMPSC_MIG_STOP, 0, &a),
		 -COMPSC_EINVAL);
	CHECK_EQ(compsc_mig_arc(COMPSC_MIG_STOP, COMPSC_MIG_RUNNING_P2P, 0,
				NULL), -COMPSC_EINVAL);

	/* source: take, save, end; a guest without an area is only paused */
	CHECK_EQ(act(COMPSC_MIG_RUNNING, COMPSC_MIG_RUNNING_P2P, C_AREA),
		 COMPSC_MIG_A_TAKE);
	CHECK_EQ(act(COMPSC_MIG_RUNNING, COMPSC_MIG_RUNNING_P2P, 0), 0);
	CHECK_EQ(act(COMPSC_MIG_RUNNING_P2P, COMPSC_MIG_STOP, C_HELD), 0);
	CHECK_EQ(act(COMPSC_MIG_STOP, COMPSC_MIG_STOP_COPY, C_HELD),
		 COMPSC_MIG_A_SAVE_OPEN | COMPSC_MIG_A_SAVE);
	/* nothing held: the arc succeeds, the data fails (no device reset),
	 * and the PF stops the DMA the stopped VM's device would do */
	CHECK_EQ(act(COMPSC_MIG_STOP, COMPSC_MIG_STOP_COPY, C_AREA),
		 COMPSC_MIG_A_PAUSE | COMPSC_MIG_A_SAVE_OPEN |
		 COMPSC_MIG_A_SAVE_FAIL);
	CHECK_EQ(act(COMPSC_MIG_STOP_COPY, COMPSC_MIG_STOP, C_HELD),
		 COMPSC_MIG_A_SAVE_END);

	/*
	 * source with PRE_COPY: the configuration in the save fd while the
	 * guest runs, the
	 * take on the size query (vCPUs running), again at PRE_COPY_P2P if
	 * that failed, then the stream into the same fd
	 */
	CHECK_EQ(act(COMPSC_MIG_RUNNING, COMPSC_MIG_PRE_COPY, C_AREA),
		 COMPSC_MIG_A_SAVE_OPEN | COMPSC_MIG_A_SAVE_PRE);
	/* no area, no guest configuration to send early */
	CHECK_EQ(act(COMPSC_MIG_RUNNING, COMPSC_MIG_PRE_COPY, 0),
		 COMPSC_MIG_A_SAVE_OPEN);
	CHECK_EQ(compsc_mig_size_query(COMPSC_MIG_PRE_COPY, C_AREA),
		 COMPSC_MIG_A_TAKE);
	CHECK_EQ(compsc_mig_size_query(COMPSC_MIG_PRE_COPY, C_AREA | C_HELD), 0);
	CHECK_EQ(compsc_mig_size_query(COMPSC_MIG_PRE_COPY, 0), 0);
	CHECK_EQ(compsc_mig_size_query(COMPSC_MIG_RUNNING, C_AREA), 0);
	CHECK_EQ(compsc_mig_size_query(COMPSC_MIG_STOP_COPY, C_AREA), 0);
	/* a hold that expired in PRE_COPY: back to the guest; for a while
	 * the size query defers the switch-over instead of taking
	 */
	CHECK_EQ(compsc_mig_hold_expired(COMPSC_MIG_PRE_COPY, C_AREA | C_HELD),
		 COMPSC_MIG_A_ABORT);
	CHECK_EQ(compsc_mig_hold_expired(COMPSC_MIG_PRE_COPY, C_AREA), 0);
	CHECK_EQ(compsc_mig_hold_expired(COMPSC_MIG_PRE_COPY_P2P,
					 C_AREA | C_HELD), 0);
	CHECK_EQ(compsc_mig_hold_expired(COMPSC_MIG_STOP_COPY, C_HELD), 0);
	CHECK_EQ(compsc_mig_size_query(COMPSC_MIG_PRE_COPY,
				       C_AREA | COMPSC_MIG_C_BACKOFF),
		 COMPSC_MIG_A_DEFER);
	/* a take on the size query that timed out defers the switch-over,
	 * COMPSC_MIG_TAKE_RETRIES times per migration, in PRE_COPY only
	 */
	CHECK_EQ(compsc_mig_take_timed_out(COMPSC_MIG_PRE_COPY, 1),
		 COMPSC_MIG_A_DEFER);
	CHECK_EQ(compsc_mig_take_timed_out(COMPSC_MIG_PRE_COPY,
					   COMPSC_MIG_TAKE_RETRIES),
		 COMPSC_MIG_A_DEFER);
	CHECK_EQ(compsc_mig_take_timed_out(COMPSC_MIG_PRE_COPY,
					   COMPSC_MIG_TAKE_RETRIES + 1), 0);
	CHECK_EQ(compsc_mig_take_timed_out(COMPSC_MIG_PRE_COPY, 0), 0);
	CHECK_EQ(compsc_mig_take_timed_out(COMPSC_MIG_PRE_COPY_P2P, 1), 0);
	CHECK_EQ(compsc_mig_take_timed_out(COMPSC_MIG_RUNNING, 1), 0);
	/* the back-off doubles with each expiry of one migration, capped */
	CHECK_EQ(compsc_mig_backoff_ms(2000, 0), 2000);
	CHECK_EQ(compsc_mig_backoff_ms(2000, 1), 2000);
	CHECK_EQ(compsc_mig_backoff_ms(2000, 2), 4000);
	CHECK_EQ(compsc_mig_backoff_ms(2000, 4), 2000u << COMPSC_MIG_BACKOFF_MAX_SHIFT);
	CHECK_EQ(compsc_mig_backoff_ms(2000, 1000), 2000u << COMPSC_MIG_BACKOFF_MAX_SHIFT);
	CHECK_EQ(compsc_mig_backoff_ms(0xffffffffu, 3), 0xffffffffu);
	CHECK_EQ(act(COMPSC_MIG_PRE_COPY, COMPSC_MIG_PRE_COPY_P2P,
		     C_AREA | COMPSC_MIG_C_BACKOFF), COMPSC_MIG_A_TAKE);
	CHECK_EQ(act(COMPSC_MIG_PRE_COPY, COMPSC_MIG_PRE_COPY_P2P, C_AREA),
		 COMPSC_MIG_A_TAKE);
	CHECK_EQ(act(COMPSC_MIG_PRE_COPY, COMPSC_MIG_PRE_COPY_P2P,
		     C_AREA | C_HELD), 0);
	CHECK_EQ(act(COMPSC_MIG_PRE_COPY_P2P, COMPSC_MIG_STOP_COPY, C_HELD),
		 COMPSC_MIG_A_SAVE);
	CHECK_EQ(act(COMPSC_MIG_PRE_COPY_P2P, COMPSC_MIG_STOP_COPY, C_AREA),
		 COMPSC_MIG_A_PAUSE | COMPSC_MIG_A_SAVE_FAIL);
	CHECK_EQ(act(COMPSC_MIG_RUNNING_P2P, COMPSC_MIG_PRE_COPY_P2P, C_HELD),
		 COMPSC_MIG_A_SAVE_OPEN);
	CHECK_EQ(act(COMPSC_MIG_RUNNING_P2P, COMPSC_MIG_PRE_COPY_P2P,
		     C_AREA | C_HELD),
		 COMPSC_MIG_A_SAVE_OPEN | COMPSC_MIG_A_SAVE_PRE);
	CHECK_EQ(act(COMPSC_MIG_PRE_COPY_P2P, COMPSC_MIG_PRE_COPY, C_HELD), 0);
	CHECK_EQ(compsc_mig_arc(COMPSC_MIG_PRE_COPY, COMPSC_MIG_STOP_COPY,
				C_HELD, &a), -COMPSC_EINVAL);

	/* cancel in pre-copy: the fd closes, a held device goes back */
	CHECK_EQ(act(COMPSC_MIG_PRE_COPY, COMPSC_MIG_RUNNING, C_AREA | C_HELD),
		 COMPSC_MIG_A_SAVE_END | COMPSC_MIG_A_ABORT);
	CHECK_EQ(act(COMPSC_MIG_PRE_COPY, COMPSC_MIG_RUNNING, C_AREA),
		 COMPSC_MIG_A_SAVE_END);
	CHECK_EQ(act(COMPSC_MIG_PRE_COPY_P2P, COMPSC_MIG_RUNNING_P2P, C_HELD),
		 COMPSC_MIG_A_SAVE_END);

	/* cancel on the source: back to the guest without a version bump */
	CHECK_EQ(act(COMPSC_MIG_STOP, COMPSC_MIG_RUNNING_P2P, C_HELD), 0);
	CHECK_EQ(act(COMPSC_MIG_RUNNING_P2P, COMPSC_MIG_RUNNING, C_HELD),
		 COMPSC_MIG_A_ABORT);
	CHECK_EQ(act(COMPSC_MIG_RUNNING_P2P, COMPSC_MIG_RUNNING, 0), 0);

	/* destination: load, check, hand over with a bump */
	CHECK_EQ(act(COMPSC_MIG_STOP, COMPSC_MIG_RESUMING, 0), COMPSC_MIG_A_LOAD);
	CHECK_EQ(act(COMPSC_MIG_STOP, COMPSC_MIG_RESUMING, C_HELD),
		 COMPSC_MIG_A_ABORT | COMPSC_MIG_A_LOAD);
	CHECK_EQ(act(COMPSC_MIG_RESUMING, COMPSC_MIG_STOP, 0),
		 COMPSC_MIG_A_LOAD_END);
	CHECK_EQ(act(COMPSC_MIG_RUNNING_P2P, COMPSC_MIG_RUNNING, C_LOAD),
		 COMPSC_MIG_A_GIVE);
	CHECK_EQ(act(COMPSC_MIG_RUNNING_P2P, COMPSC_MIG_RUNNING,
		     C_LOAD | C_HELD), COMPSC_MIG_A_GIVE);

	CHECK(compsc_mig_state_name(COMPSC_MIG_STOP_COPY)[0] == 'S');
	CHECK(compsc_mig_state_name(COMPSC_MIG_PRE_COPY_P2P)[0] == 'P');
	CHECK(compsc_mig_state_name(99)[0] == '?');
	CHECK_DONE();
}
