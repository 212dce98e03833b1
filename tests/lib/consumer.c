// SPDX-License-Identifier: (GPL-2.0 OR BSD-3-Clause)
/*
 * A program outside the tree: only <compsc/compsc.h> from the install and
 * the flags `pkg-config --cflags --libs libcompsc` gives. Calls functions
 * that need no device (and one inline), and checks their answers.
 */
#include <stdio.h>
#include <string.h>
#include <compsc/compsc.h>

int main(void)
{
	static const char vec[] = "123456789";
	struct compsc_ring r;
	u32 crc = compsc_crc32c(0, vec, sizeof(vec) - 1);
	const char *msg = compsc_strerror(-COMPSC_ECORRUPT);

	if (crc != 0xe3069283u) {
		fprintf(stderr, "consumer: crc32c(\"123456789\") = %#x\n", crc);
		return 1;
	}
	if (strcmp(msg, "stream: checksum mismatch (corrupt)") != 0) {
		fprintf(stderr, "consumer: compsc_strerror: %s\n", msg);
		return 1;
	}
	if (compsc_ring_init(&r, 8) || compsc_ring_shift(&r, 3) ||
	    compsc_ring_hw(&r, 3) != 0) {
		fprintf(stderr, "consumer: ring mapping\n");
		return 1;
	}
	printf("consumer: libcompsc answers: %s\n", msg);
	return 0;
}
