/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Shim for the patched iavf.h: what iavf_cs_log.c uses of it, the
 * real virtchnl.h and libcompsc. check.sh checks that the patched iavf.h
 * declares the same two prototypes.
 */
#include <linux/kshim.h>
#include <linux/avf/virtchnl.h>
#include <compsc/compsc.h>

#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))

int iavf_cs_log(struct compsc_replay *log, u32 op, const void *msg, u32 len);
int iavf_cs_replay_msg(const struct compsc_replay *log, u32 i, u8 *buf, u32 cap);
