/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Host side of a migration, shared by every host glue (the VFIO variant
 * driver and the bench stand-in): the checked copies of the area's lists,
 * reading the listed registers and counters, packing the replay log,
 * matching a parsed stream against an area and applying it. Kernel only.
 * Every function works on a mapping of the guest's area (@va) whose header
 * the caller copied and checked (@hdr); nothing else is trusted.
 */
#ifndef COMPSC_HOST_H
#define COMPSC_HOST_H

#include <linux/types.h>
#include <compsc/compsc.h>

struct pci_dev;

/* Checked copies of the area's register and counter lists. */
struct compsc_host_lists {
	u32 nr_regs;
	u32 nr_ctrs;
	struct compsc_reg regs[COMPSC_MAX_REGS];
	struct compsc_counter_desc ctrs[COMPSC_MAX_COUNTERS];
};

/*
 * Registers whose live value is not the one to save: the queue controls,
 * which the host cleared to stop the queues, with their earlier values.
 */
struct compsc_host_override {
	const u32 *offset;
	const u32 *value;
	u32 nr;
};

/* Section @off of the area mapped at @va. */
static inline void *compsc_host_sec(void *va, __le32 off)
{
	return (u8 *)va + le32_to_cpu(off);
}

int compsc_host_lists_get(const void *va, u32 size,
			  const struct compsc_area_hdr *hdr,
			  const struct compsc_policy *p,
			  struct compsc_host_lists *l, u32 *bad);
void compsc_host_read_state(void *va, const struct compsc_area_hdr *hdr,
			    const struct compsc_host_lists *l,
			    void __iomem *bar,
			    const struct compsc_host_override *ovr,
			    struct compsc_rec_reg *regs,
			    struct compsc_rec_counter *ctrs);
int compsc_host_pack_replay(void *va, const struct compsc_area_hdr *hdr,
			    u8 *out, u8 *scratch);
bool compsc_host_matches(const struct compsc_host_lists *l,
			 const struct compsc_stream_view *v);
void compsc_host_apply(void *va, const struct compsc_area_hdr *hdr,
		       const struct compsc_host_lists *l,
		       const struct compsc_stream_view *v);
bool compsc_host_vf_handover(struct pci_dev *vfdev, bool imported, u64 gpa,
			     u32 size, struct compsc_area_ctl *ctl);
void compsc_host_read_stats(void __iomem *bar, const u32 *regs, u32 nr,
			    const u32 *base, struct compsc_rec_counter *out);
int compsc_host_stats_check(const u32 *regs, u32 nr,
			    const struct compsc_stream_rec *rec);
void compsc_host_stats_base(void __iomem *bar, const u32 *regs, u32 nr,
			    const struct compsc_stream_rec *rec, u32 *base);

#endif /* COMPSC_HOST_H */
