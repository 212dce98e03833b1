/* SPDX-License-Identifier: GPL-2.0 */
/*
 * compsc_vfio's fault injection, for the nested tests alone: fault.c is
 * built only when Kbuild is given COMPSC_FAULTS=y (mk/nested.mk), never
 * by the packages' DKMS build. Each fault is a debugfs knob; without
 * fault.c the calls below are constants and the paths they steer drop out.
 */
#ifndef CVF_FAULT_H
#define CVF_FAULT_H

#include <linux/types.h>

struct cvf_dev;
struct dentry;

/* fault_corrupt: which chunk gets one byte spoilt */
#define CVF_FAULT_STATE	1
#define CVF_FAULT_PRE	2

/* fault_give: which step of the next hand-over fails */
#define CVF_FAULT_GIVE_PF	1	/* the PF's import (-ENOSPC) */
#define CVF_FAULT_GIVE_MAP	2	/* the area's mapping; a second one works */
#define CVF_FAULT_GIVE_NOMAP	3	/* every mapping of the area */
#define CVF_FAULT_GIVE_BAR	4	/* the VF's BAR (-EIO) */

#ifdef CVF_FAULTS
void cvf_fault_debugfs(struct dentry *dir);
void cvf_fault_dev_debugfs(struct cvf_dev *cvf, struct dentry *dir);
unsigned long cvf_fault_size(void);
void cvf_fault_take_delay(struct cvf_dev *cvf);
void cvf_fault_corrupt(struct cvf_dev *cvf, unsigned int which, u8 *buf,
		       size_t len);
u32 cvf_fault_give(struct cvf_dev *cvf);
#else
static inline void cvf_fault_debugfs(struct dentry *dir) {}
static inline void cvf_fault_dev_debugfs(struct cvf_dev *cvf,
					 struct dentry *dir) {}
static inline unsigned long cvf_fault_size(void) { return 0; }
static inline void cvf_fault_take_delay(struct cvf_dev *cvf) {}
static inline void cvf_fault_corrupt(struct cvf_dev *cvf, unsigned int which,
				     u8 *buf, size_t len) {}
static inline u32 cvf_fault_give(struct cvf_dev *cvf) { return 0; }
#endif

#endif /* CVF_FAULT_H */
