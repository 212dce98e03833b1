/* SPDX-License-Identifier: (GPL-2.0 OR BSD-3-Clause) */
/*
 * Internal: the self-test harness shared by selftest_*.c. Checks run the
 * same in the kernel module and in userspace, so no libc here: the report
 * is built with the tiny appenders below.
 */
#ifndef COMPSC_SELFTEST_H
#define COMPSC_SELFTEST_H

#include <compsc/compsc.h>

struct compsc_st {
	char *buf;
	unsigned long len;
	unsigned long pos;
	int passed;
	int failed;
};

void compsc_st_puts(struct compsc_st *st, const char *s);
void compsc_st_putu(struct compsc_st *st, u64 v);
void compsc_st_check(struct compsc_st *st, int ok, const char *what,
		     const char *file, int line);

#define ST_CHECK(st, cond) \
	compsc_st_check(st, !!(cond), #cond, __FILE__, __LINE__)

/* Groups of checks, one per concern; each lives in its own file. */
void compsc_selftest_core(struct compsc_st *st);	/* sync, replay, counters, ring */
void compsc_selftest_stream(struct compsc_st *st);	/* crc, stream, validation */

#endif
