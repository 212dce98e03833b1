// SPDX-License-Identifier: GPL-2.0
/*
 * BAR0 of the VF, mapped for the host side (compsc/host.h), which does
 * everything else with it through the 82576 VF model (dev_82576vf.c).
 */
#include <linux/io.h>
#include <linux/pci.h>
#include <compsc/dev_82576vf.h>
#include "compsc_vfio.h"

/* BAR0, mapped once per migration; NULL if the VF has no such BAR. */
void __iomem *cvf_bar_map(struct cvf_dev *cvf)
{
	if (!cvf->dev.bar)
		cvf->dev.bar = compsc_host_bar_map(cvf_pdev(cvf), cvf->dev.dm);
	return cvf->dev.bar;
}

void cvf_bar_unmap(struct cvf_dev *cvf)
{
	if (cvf->dev.bar)
		pci_iounmap(cvf_pdev(cvf), cvf->dev.bar);
	cvf->dev.bar = NULL;
	cvf->dev.stopped = false;
}
