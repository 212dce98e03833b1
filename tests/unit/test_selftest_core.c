/* The in-library self-test of sync, replay, counters and ring (what the kernel module runs) passes in userspace too, and reports its checks. */
#include "check.h"
#include "../../libcompsc/src/selftest.h"
#include <string.h>

int main(void)
{
	char buf[4096] = "";
	struct compsc_st st = { .buf = buf, .len = sizeof(buf) };

	compsc_selftest_core(&st);
	if (st.failed)
		fputs(buf, stderr);
	printf("selftest_core: %d passed, %d failed\n", st.passed, st.failed);
	CHECK_EQ(st.failed, 0);
	CHECK(st.passed >= 50);
	/* runs again from scratch (static buffers are re-initialised) */
	st.passed = 0;
	compsc_selftest_core(&st);
	CHECK_EQ(st.failed, 0);
	CHECK(st.passed >= 50);
	CHECK_DONE();
}
