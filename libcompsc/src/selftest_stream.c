// SPDX-License-Identifier: (GPL-2.0 OR BSD-3-Clause)
#include "selftest.h"

void compsc_selftest_stream(struct compsc_st *st)
{
	ST_CHECK(st, 1);
}
