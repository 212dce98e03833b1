/* SPDX-License-Identifier: GPL-2.0 */
/* Userspace stub for virtchnl.h: struct_size() without overflow checks */
#include <linux/kshim.h>
#define struct_size(p, member, count) \
	(sizeof(*(p)) + sizeof(*(p)->member) * (size_t)(count))
