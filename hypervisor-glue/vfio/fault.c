// SPDX-License-Identifier: GPL-2.0
/*
 * compsc_vfio's fault injection (fault.h): built for the nested tests
 * only. The module's knobs sit in debugfs compsc_vfio/, each VF's in
 * compsc_vfio/<BDF>/; all are read without a lock (READ_ONCE, or xchg for
 * a one-shot fault).
 *
 * fault_corrupt spoils one byte of the next saved state (CVF_FAULT_STATE)
 * or pre-copy chunk (CVF_FAULT_PRE); fault_size is added to the stop-copy
 * size QEMU is told, so that pre-copy does not converge;
 * fault_take_delay_ms sleeps between the take's look-up of the guest's
 * area and its claim of it, the window in which the guest may withdraw and
 * free the area. Per VF: fault_give fails one step of its next hand-over
 * (CVF_FAULT_GIVE_*); fault_assigned marks it assigned.
 */
#include <linux/debugfs.h>
#include <linux/delay.h>
#include <linux/pci.h>
#include "compsc_vfio.h"

static u32 fault_corrupt;
static unsigned long fault_size;
static u32 fault_take_delay_ms;

void cvf_fault_debugfs(struct dentry *dir)
{
	debugfs_create_u32("fault_corrupt", 0600, dir, &fault_corrupt);
	debugfs_create_ulong("fault_size", 0600, dir, &fault_size);
	debugfs_create_u32("fault_take_delay_ms", 0600, dir,
			   &fault_take_delay_ms);
}

/*
 * fault_assigned: mark the VF assigned, as Xen's pciback does. vfio-pci
 * does not, so a PF driver's remove normally waits in pci_disable_sriov()
 * for QEMU to release the VF; a PF with an assigned VF keeps SR-IOV
 * enabled and goes away under a VF that lives on.
 */
static int cvf_assigned_get(void *data, u64 *val)
{
	*val = pci_is_dev_assigned(data);
	return 0;
}

static int cvf_assigned_set(void *data, u64 val)
{
	if (val)
		pci_set_dev_assigned(data);
	else
		pci_clear_dev_assigned(data);
	return 0;
}
DEFINE_DEBUGFS_ATTRIBUTE(cvf_assigned_fops, cvf_assigned_get, cvf_assigned_set,
			 "%llu\n");

void cvf_fault_dev_debugfs(struct cvf_dev *cvf, struct dentry *dir)
{
	debugfs_create_u32("fault_give", 0600, dir, &cvf->fault_give);
	debugfs_create_file_unsafe("fault_assigned", 0600, dir, cvf_pdev(cvf),
				   &cvf_assigned_fops);
}

unsigned long cvf_fault_size(void)
{
	return READ_ONCE(fault_size);
}

void cvf_fault_take_delay(struct cvf_dev *cvf)
{
	u32 ms = READ_ONCE(fault_take_delay_ms);

	if (!ms)
		return;
	dev_warn(&cvf_pdev(cvf)->dev, "fault_take_delay_ms: %u ms between the area's look-up and the take\n",
		 ms);
	msleep(ms);
}

/* Spoil one byte of a @which chunk, once. */
void cvf_fault_corrupt(struct cvf_dev *cvf, unsigned int which, u8 *buf,
		       size_t len)
{
	if (READ_ONCE(fault_corrupt) != which ||
	    len <= sizeof(struct cvf_env) + 40)
		return;
	WRITE_ONCE(fault_corrupt, 0);
	buf[sizeof(struct cvf_env) + 40] ^= 0x5a;
	dev_warn(&cvf_pdev(cvf)->dev, "fault_corrupt: %s spoilt\n",
		 which == CVF_FAULT_PRE ? "pre-copy chunk" : "stream");
}

/* The step of this hand-over that fails; the next one is left alone. */
u32 cvf_fault_give(struct cvf_dev *cvf)
{
	return xchg(&cvf->fault_give, 0);
}
