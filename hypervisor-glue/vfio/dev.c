// SPDX-License-Identifier: GPL-2.0
/*
 * BAR0 of the VF, mapped for the host side (compsc/host.h), which does
 * everything else with it through the VF's device model (cvf->dev.dm).
 * Every access goes between cvf_bar_get() and cvf_bar_put(), under the
 * same rule as the user's own BAR accesses in vfio-pci: its memory_lock
 * held for read (a reset, a power-state change or a memory disable holds
 * it for write) and memory enabled.
 */
#include <linux/io.h>
#include <linux/pci.h>
#include <compsc/host.h>
#include "compsc_vfio.h"

/* BAR0, mapped once per migration; NULL if the VF has no such BAR. */
static void __iomem *cvf_bar_map(struct cvf_dev *cvf)
{
	if (!cvf->dev.bar)
		cvf->dev.bar = compsc_host_bar_map(cvf_pdev(cvf), cvf->dev.dm);
	return cvf->dev.bar;
}

/* vfio-pci's __vfio_pci_memory_enabled(), which it does not export. */
static bool cvf_bar_enabled(struct cvf_dev *cvf)
{
	struct pci_dev *pdev = cvf_pdev(cvf);
	u16 cmd = le16_to_cpu(*(__le16 *)&cvf->core.vconfig[PCI_COMMAND]);

	/* a VF's memory enable is its PF's (SR-IOV MSE), not its own bit */
	return pdev->current_state < PCI_D3hot &&
	       (pdev->no_command_memory || (cmd & PCI_COMMAND_MEMORY));
}

/**
 * cvf_bar_get() - BAR0 may be accessed until cvf_bar_put()
 * @cvf: the device; state_mutex held
 *
 * Return: 0 (mapped, memory_lock held for read, memory enabled), -EIO
 * (memory disabled or the VF in D3: nothing held) or -ENOMEM (no mapping).
 */
int cvf_bar_get(struct cvf_dev *cvf)
{
	int err = -ENOMEM;

	lockdep_assert_held(&cvf->state_mutex);
	down_read(&cvf->core.memory_lock);
	if (!cvf_bar_enabled(cvf))
		err = -EIO;
	else if (cvf_bar_map(cvf))
		return 0;
	up_read(&cvf->core.memory_lock);
	dev_warn_ratelimited(&cvf_pdev(cvf)->dev, "BAR0 not accessible: %d\n",
			     err);
	return err;
}

void cvf_bar_put(struct cvf_dev *cvf)
{
	up_read(&cvf->core.memory_lock);
}

void cvf_bar_unmap(struct cvf_dev *cvf)
{
	if (cvf->dev.bar)
		pci_iounmap(cvf_pdev(cvf), cvf->dev.bar);
	cvf->dev.bar = NULL;
	cvf->dev.stopped = false;
}
