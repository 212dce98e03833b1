/* SPDX-License-Identifier: GPL-2.0 */
/* Tiny assertion helpers shared by the vendor unit tests */
#ifndef VENDOR_TEST_UTIL_H
#define VENDOR_TEST_UTIL_H

#include <stdio.h>
#include <stdlib.h>

static int vt_failed;

#define VT_CHECK(cond) do { \
	if (!(cond)) { \
		fprintf(stderr, "%s:%d: FAILED: %s\n", __FILE__, __LINE__, #cond); \
		vt_failed++; \
	} \
} while (0)

#define VT_EQ(a, b) do { \
	unsigned long long va_ = (a), vb_ = (b); \
	if (va_ != vb_) { \
		fprintf(stderr, "%s:%d: FAILED: %s == %s (%#llx != %#llx)\n", \
			__FILE__, __LINE__, #a, #b, va_, vb_); \
		vt_failed++; \
	} \
} while (0)

static inline int vt_done(const char *name)
{
	if (vt_failed) {
		fprintf(stderr, "%s: %d check(s) failed\n", name, vt_failed);
		return 1;
	}
	printf("%s: ok\n", name);
	return 0;
}

#endif /* VENDOR_TEST_UTIL_H */
