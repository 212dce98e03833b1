/* Size query after a DMA log read that reported all of memory: it defers the switch-over instead of taking, and takes again once a read reports only what changed. */
#include "migstate_util.h"

#define C_WHOLE	COMPSC_MIG_C_LOG_WHOLE

int main(void)
{
	/* the pass that follows resends all memory: no take, no switch-over */
	CHECK_EQ(compsc_mig_size_query(COMPSC_MIG_PRE_COPY, C_AREA | C_WHOLE),
		 COMPSC_MIG_A_DEFER);
	/* the next read reported only what changed: the take is due */
	CHECK_EQ(compsc_mig_size_query(COMPSC_MIG_PRE_COPY, C_AREA),
		 COMPSC_MIG_A_TAKE);
	/* a device already held answers its size, deferring nothing */
	CHECK_EQ(compsc_mig_size_query(COMPSC_MIG_PRE_COPY,
				       C_AREA | C_HELD | C_WHOLE), 0);
	/* no area or no take due: nothing to defer for, QEMU decides alone */
	CHECK_EQ(compsc_mig_size_query(COMPSC_MIG_PRE_COPY, C_WHOLE), 0);
	CHECK_EQ(compsc_mig_size_query(COMPSC_MIG_PRE_COPY,
				       C_AREA | COMPSC_MIG_C_REFUSED | C_WHOLE),
		 0);
	/* outside PRE_COPY the log changes nothing */
	CHECK_EQ(compsc_mig_size_query(COMPSC_MIG_RUNNING, C_AREA | C_WHOLE), 0);
	CHECK_EQ(compsc_mig_size_query(COMPSC_MIG_PRE_COPY_P2P,
				       C_AREA | C_WHOLE), 0);
	return 0;
}
