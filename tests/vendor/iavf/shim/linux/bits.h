/* SPDX-License-Identifier: GPL-2.0 */
/* Userspace stub for virtchnl.h (see linux/kshim.h) */
#include <linux/kshim.h>
