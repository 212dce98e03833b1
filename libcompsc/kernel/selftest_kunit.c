// SPDX-License-Identifier: GPL-2.0
/*
 * libcompsc's self-test (src/selftest*.c) as the KUnit suite "compsc",
 * one case per group of checks, each failing with the checks' report.
 * Debian's kernels have no KUnit, so tests/kunit/run.sh (make kunit)
 * builds it into a UML kernel from the pinned kernel source, as KUnit's
 * own runner does; compsc_selftest.ko runs the same checks against
 * compsc.ko in the bench VM.
 */
#include <kunit/test.h>
#include <linux/module.h>
#include "../src/selftest.h"

#define COMPSC_KUNIT_REPORT	4096

static void compsc_kunit_run(struct kunit *test,
			     void (*group)(struct compsc_st *st))
{
	struct compsc_st st = { .len = COMPSC_KUNIT_REPORT };

	st.buf = kunit_kzalloc(test, st.len, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, st.buf);
	group(&st);
	kunit_info(test, "%d checks passed, %d failed\n", st.passed, st.failed);
	KUNIT_EXPECT_EQ_MSG(test, st.failed, 0, "%s", st.buf);
	/* a group that ran no check proves nothing */
	KUNIT_EXPECT_GT(test, st.passed, 0);
}

static void compsc_kunit_core(struct kunit *test)
{
	compsc_kunit_run(test, compsc_selftest_core);
}

static void compsc_kunit_stream(struct kunit *test)
{
	compsc_kunit_run(test, compsc_selftest_stream);
}

static struct kunit_case compsc_kunit_cases[] = {
	KUNIT_CASE(compsc_kunit_core),
	KUNIT_CASE(compsc_kunit_stream),
	{}
};

static struct kunit_suite compsc_kunit_suite = {
	.name = "compsc",
	.test_cases = compsc_kunit_cases,
};
kunit_test_suite(compsc_kunit_suite);

MODULE_DESCRIPTION("KUnit tests of the CompSC protocol library");
MODULE_LICENSE("GPL");
