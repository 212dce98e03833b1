// SPDX-License-Identifier: GPL-2.0
/*
 * compsc.ko's test hook (fault.h): built only with COMPSC_FAULTS=y.
 */
#include <linux/debugfs.h>
#include <linux/delay.h>
#include <linux/pci.h>
#include "fault.h"

/*
 * Test only (debugfs compsc/pf_call_delay_ms): the next PF call waits this
 * long between taking the PF's ops and calling them, once, so that a test
 * can unbind the PF driver inside that window.
 */
static u32 compsc_pf_call_delay_ms;

void compsc_pf_call_delay(struct pci_dev *vfdev)
{
	u32 ms = xchg(&compsc_pf_call_delay_ms, 0);

	if (!ms)
		return;
	pci_warn(vfdev, "pf_call_delay_ms: PF call delayed %u ms\n", ms);
	msleep(ms);
}

void compsc_pf_fault_debugfs(struct dentry *dir)
{
	debugfs_create_u32("pf_call_delay_ms", 0600, dir,
			   &compsc_pf_call_delay_ms);
}
