// SPDX-License-Identifier: GPL-2.0
/*
 * Host-emulated statistics (module parameter host_counters): the VF's
 * statistics registers (its model's dm->stats: 32-bit wrapping counters;
 * not the 82599's 36-bit octet counters) start afresh on every VF, so a
 * guest driver that keeps its totals from register deltas (stock igbvf,
 * ixgbevf) sees them jump after a migration. The source sends what
 * the guest last could read (COMPSC_REC_HOST_COUNTERS); the destination
 * keeps a base per register and adds it to every guest read, so the
 * registers simply continue. The rules (what is sent, how the base is
 * derived) are libcompsc's compsc_host_read_stats()/_stats_base(); this
 * file traps the reads. A guest that keeps its own totals (the CompSC
 * igbvf) is unaffected: a constant base cancels out of its deltas.
 *
 * Reads are only trapped when they reach this driver, i.e. BAR0 is not
 * mmapped: with host_counters set, BAR0 is never offered for mmap.
 */
#include <linux/uaccess.h>
#include <linux/vfio_pci_core.h>
#include "compsc_vfio.h"

/*
 * Whether a save carries the registers: the option is set, or this device
 * already continues a source's (a guest migrated here keeps them going).
 */
bool cvf_stats_sent(struct cvf_dev *cvf)
{
	return cvf_host_counters || READ_ONCE(cvf->stat_on);
}

/*
 * Source, device held, before the save: the bases in effect now (@base,
 * COMPSC_HOST_MAX_STATS of them), so that every statistics value saved
 * (the HOST_COUNTERS record, the guest's listed counters) is what the
 * guest read, base included; NULL when this device adds none.
 */
const u32 *cvf_stats_base(struct cvf_dev *cvf, u32 *base)
{
	bool on;

	spin_lock(&cvf->stat_lock);
	on = cvf->stat_on;
	memcpy(base, cvf->stat_base, sizeof(cvf->stat_base));
	spin_unlock(&cvf->stat_lock);
	return on ? base : NULL;
}

/*
 * Destination, before anything is applied: a record we cannot honour
 * fails. Without host_counters BAR0 is mmapped to the guest, its reads
 * never reach this driver and no base could be added: refused, loudly.
 */
int cvf_stats_check(struct cvf_dev *cvf, const struct compsc_stream_view *v)
{
	const struct compsc_stream_rec *rec = &v->rec[COMPSC_REC_HOST_COUNTERS];

	if (!rec->data)
		return 0;
	if (!cvf_host_counters) {
		dev_err(&cvf_pdev(cvf)->dev,
			"the source emulates the VF's statistics; this host cannot (BAR0 is mmapped: load compsc_vfio with host_counters=1)\n");
		return -EOPNOTSUPP;
	}
	if (compsc_host_stats_check(cvf->dev.dm, rec))
		return -EINVAL;
	return 0;
}

/* Destination hand-over: continue the source's registers, if it sent them. */
void cvf_stats_load(struct cvf_dev *cvf, const struct compsc_stream_view *v)
{
	const struct compsc_stream_rec *rec = &v->rec[COMPSC_REC_HOST_COUNTERS];
	u32 base[COMPSC_HOST_MAX_STATS] = {};

	if (!rec->data)
		return;
	compsc_host_stats_base(&cvf->dev, rec, base);
	spin_lock(&cvf->stat_lock);
	memcpy(cvf->stat_base, base, sizeof(base));
	cvf->stat_on = true;
	spin_unlock(&cvf->stat_lock);
}

/* A fresh open: no base carried from an earlier guest. */
void cvf_stats_forget(struct cvf_dev *cvf)
{
	spin_lock(&cvf->stat_lock);
	cvf->stat_on = false;
	memset(cvf->stat_base, 0, sizeof(cvf->stat_base));
	spin_unlock(&cvf->stat_lock);
}

/* The base for a 4-byte BAR0 read at @off, or 0. */
static u32 cvf_stats_base_at(struct cvf_dev *cvf, u64 off)
{
	int i;
	u32 base = 0;

	if (!READ_ONCE(cvf->stat_on))	/* every BAR0 read comes here */
		return 0;
	i = off > U32_MAX ? -1 : compsc_host_stat_index(cvf->dev.dm, off);
	if (i < 0)
		return 0;
	spin_lock(&cvf->stat_lock);
	if (cvf->stat_on)
		base = cvf->stat_base[i];
	spin_unlock(&cvf->stat_lock);
	return base;
}

ssize_t cvf_read(struct vfio_device *vdev, char __user *buf, size_t count,
		 loff_t *ppos)
{
	struct cvf_dev *cvf = cvf_from_vdev(vdev);
	u64 off = *ppos & VFIO_PCI_OFFSET_MASK;
	bool bar0 = VFIO_PCI_OFFSET_TO_INDEX(*ppos) ==
		    VFIO_PCI_BAR0_REGION_INDEX;
	ssize_t ret;
	__le32 val;
	u32 base;

	ret = vfio_pci_core_read(vdev, buf, count, ppos);
	if (ret != 4 || count != 4 || !bar0)
		return ret;
	base = cvf_stats_base_at(cvf, off);
	if (!base)
		return ret;
	if (copy_from_user(&val, buf, 4))
		return -EFAULT;
	val = cpu_to_le32(le32_to_cpu(val) + base);	/* wraps as the register */
	if (copy_to_user(buf, &val, 4))
		return -EFAULT;
	return ret;
}

int cvf_mmap(struct vfio_device *vdev, struct vm_area_struct *vma)
{
	unsigned int index = vma->vm_pgoff >>
			     (VFIO_PCI_OFFSET_SHIFT - PAGE_SHIFT);

	if (cvf_host_counters && index == VFIO_PCI_BAR0_REGION_INDEX)
		return -EINVAL;	/* statistics reads must reach cvf_read() */
	return vfio_pci_core_mmap(vdev, vma);
}
