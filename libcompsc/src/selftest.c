// SPDX-License-Identifier: (GPL-2.0 OR BSD-3-Clause)
/*
 * compsc_selftest(): the library checks that run in kernel context inside
 * the bench VM (and again in userspace), so the kernel build is proven to
 * behave like the one the unit tests exercise.
 */
#include "selftest.h"

void compsc_st_puts(struct compsc_st *st, const char *s)
{
	while (*s && st->len && st->pos + 1 < st->len)
		st->buf[st->pos++] = *s++;
	if (st->len)
		st->buf[st->pos] = '\0';
}

void compsc_st_putu(struct compsc_st *st, u64 v)
{
	char tmp[21];
	int i = 20;

	tmp[i] = '\0';
	do {
		tmp[--i] = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	compsc_st_puts(st, &tmp[i]);
}

void compsc_st_check(struct compsc_st *st, int ok, const char *what,
		     const char *file, int line)
{
	if (ok) {
		st->passed++;
		return;
	}
	st->failed++;
	compsc_st_puts(st, "FAIL ");
	compsc_st_puts(st, file);
	compsc_st_puts(st, ":");
	compsc_st_putu(st, (u64)line);
	compsc_st_puts(st, ": ");
	compsc_st_puts(st, what);
	compsc_st_puts(st, "\n");
}

int compsc_selftest(char *buf, unsigned long len)
{
	struct compsc_st st = { .buf = buf, .len = buf ? len : 0 };

	compsc_selftest_core(&st);
	compsc_selftest_stream(&st);
	compsc_st_puts(&st, "compsc_selftest: ");
	compsc_st_putu(&st, (u64)st.passed);
	compsc_st_puts(&st, " checks passed, ");
	compsc_st_putu(&st, (u64)st.failed);
	compsc_st_puts(&st, " failed\n");
	return st.failed;
}
COMPSC_EXPORT(compsc_selftest);
