/* Every error code has its own message and errno, replay-log codes say so; any int, even INT_MIN, is safe. */
#include <limits.h>
#include <string.h>
#include <compsc/compsc.h>
#include "check.h"

int main(void)
{
	int i, j;

	for (i = 1; i < COMPSC_E_MAX; i++) {
		CHECK(strcmp(compsc_strerror(-i), "unknown error") != 0);
		CHECK(compsc_errno(-i) < 0);
		for (j = 1; j < i; j++)
			CHECK(strcmp(compsc_strerror(-i), compsc_strerror(-j)) != 0);
	}
	for (i = COMPSC_EREPLAY_MAGIC; i <= COMPSC_EREPLAY_CORRUPT; i++)
		CHECK(strncmp(compsc_strerror(-i), "replay log: ", 12) == 0);
	CHECK_EQ(compsc_errno(0), 0);
	CHECK(strcmp(compsc_strerror(INT_MIN), "unknown error") == 0);
	CHECK(strcmp(compsc_strerror(INT_MAX), "unknown error") == 0);
	CHECK(strcmp(compsc_strerror(-COMPSC_E_MAX), "unknown error") == 0);
	CHECK(compsc_errno(INT_MIN) < 0);
	CHECK_DONE();
}
