/* The in-library self-test of CRC32C, the stream and area validation (what the kernel module runs) passes in userspace, twice in a row. */
#include "check.h"
#include "../../libcompsc/src/selftest.h"
#include <string.h>

int main(void)
{
	char buf[4096] = "";
	struct compsc_st st = { .buf = buf, .len = sizeof(buf) };

	for (int run = 0; run < 2; run++) {
		st.passed = st.failed = 0;
		compsc_selftest_stream(&st);
		if (st.failed)
			fputs(buf, stderr);
		printf("selftest_stream: %d passed, %d failed\n", st.passed,
		       st.failed);
		CHECK_EQ(st.failed, 0);
		CHECK(st.passed >= 20);
	}
	CHECK_DONE();
}
