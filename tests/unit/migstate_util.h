/* SPDX-License-Identifier: (GPL-2.0 OR BSD-3-Clause) */
/* Helpers shared by test_migstate_*.c: short names for the context bits
 * and the one legal arc's action. */
#ifndef COMPSC_TEST_MIGSTATE_UTIL_H
#define COMPSC_TEST_MIGSTATE_UTIL_H

#include "check.h"
#include <compsc/migstate.h>

#define C_AREA	COMPSC_MIG_C_AREA
#define C_HELD	COMPSC_MIG_C_HELD
#define C_LOAD	COMPSC_MIG_C_LOADED

/* the action of the arc @from -> @to in context @ctx, which must be legal */
static inline u32 act(u32 from, u32 to, u32 ctx)
{
	u32 a = 0xdead;

	CHECK_EQ(compsc_mig_arc(from, to, ctx, &a), 0);
	return a;
}

#endif
