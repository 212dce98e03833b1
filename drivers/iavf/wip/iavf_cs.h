/* SPDX-License-Identifier: GPL-2.0 */
/* CompSC: virtchnl messages as replay log records (iavf_cs_log.c) */
#ifndef _IAVF_CS_H_
#define _IAVF_CS_H_

#include <linux/avf/virtchnl.h>
#include <compsc/compsc.h>

/* Keep what a message the PF accepted set; 0 or a negative COMPSC_E* */
int iavf_cs_log(struct compsc_replay *log, u32 op, const void *msg, u32 len);
/* Log record @i as the message to send (__le32 opcode, payload): bytes,
 * 0 when it went out with the record before it, or a negative COMPSC_E*
 */
int iavf_cs_replay_msg(const struct compsc_replay *log, u32 i, u8 *buf,
		       u32 cap);

#endif /* _IAVF_CS_H_ */
