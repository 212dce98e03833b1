// SPDX-License-Identifier: GPL-2.0
/*
 * Access to the VF itself: BAR0, the queue stop that keeps the ring heads
 * still while they are saved, the interrupt that wakes the guest after a
 * hand-over, and the descriptor rings the device writes (for dirty
 * tracking). All register knowledge comes from compsc/dev_82576vf.h.
 */
#include <linux/delay.h>
#include <linux/io.h>
#include <linux/pci.h>
#include <compsc/dev_82576vf.h>
#include "compsc_vfio.h"

#define CVF_QSTOP_POLL_US	1000	/* queues stop within 1 ms */
#define CVF_EICS		0x1520	/* interrupt cause set */
#define CVF_EIMS		0x1524	/* interrupt mask set */
#define CVF_ALL_VECTORS		0x7	/* RX, TX, mailbox */
#define CVF_RDBAL(n)		(0x2800u + 0x100u * (n))
#define CVF_TDBAL(n)		(0x3800u + 0x100u * (n))
#define CVF_BAH			0x4	/* high half, after the low one */
#define CVF_LEN			0x8	/* ring length in bytes */

static_assert(ARRAY_SIZE(((struct cvf_dev *)0)->qsaved) ==
	      COMPSC_82576VF_NR_QCTL);

/* BAR0, mapped once per migration; NULL if the VF has no such BAR. */
void __iomem *cvf_bar_map(struct cvf_dev *cvf)
{
	struct pci_dev *pdev = cvf_pdev(cvf);

	if (cvf->bar)
		return cvf->bar;
	if (!(pci_resource_flags(pdev, 0) & IORESOURCE_MEM) ||
	    pci_resource_len(pdev, 0) < COMPSC_82576VF_BAR0_SIZE)
		return NULL;
	cvf->bar = pci_iomap(pdev, 0, COMPSC_82576VF_BAR0_SIZE);
	return cvf->bar;
}

void cvf_bar_unmap(struct cvf_dev *cvf)
{
	if (cvf->bar)
		pci_iounmap(cvf_pdev(cvf), cvf->bar);
	cvf->bar = NULL;
}

/* Clear the queue enables, remember them, wait until the queues stopped. */
void cvf_queues_stop(void __iomem *bar, u32 *saved)
{
	u32 i, us;

	for (i = 0; i < COMPSC_82576VF_NR_QCTL; i++) {
		saved[i] = readl(bar + compsc_82576vf_qctl[i]);
		writel(saved[i] & ~COMPSC_82576VF_QDCTL_ENABLE,
		       bar + compsc_82576vf_qctl[i]);
	}
	readl(bar + COMPSC_82576VF_STATUS);
	for (i = 0; i < COMPSC_82576VF_NR_QCTL; i++)
		for (us = 0; us < CVF_QSTOP_POLL_US; us += 20) {
			if (!(readl(bar + compsc_82576vf_qctl[i]) &
			      COMPSC_82576VF_QDCTL_ENABLE))
				break;
			usleep_range(20, 40);
		}
}

void cvf_queues_restart(void __iomem *bar, const u32 *saved)
{
	u32 i;

	for (i = 0; i < COMPSC_82576VF_NR_QCTL; i++)
		writel(saved[i], bar + compsc_82576vf_qctl[i]);
	readl(bar + COMPSC_82576VF_STATUS);
}

/*
 * Make the VF raise its interrupts, so the guest driver enters its read
 * side (and restores) now rather than at its next timer. The device does
 * it itself, through the MSI-X vectors QEMU programmed for the guest. A
 * fresh destination VF has every vector masked: @unmask opens them (the
 * guest's restore writes its own mask back). A spurious interrupt is
 * harmless: every handler enters the read side first.
 */
void cvf_kick(void __iomem *bar, bool unmask)
{
	if (!bar)
		return;
	if (unmask)
		writel(CVF_ALL_VECTORS, bar + CVF_EIMS);
	writel(CVF_ALL_VECTORS, bar + CVF_EICS);
	readl(bar + COMPSC_82576VF_STATUS);
}

/**
 * cvf_ring_spans() - the descriptor rings the VF writes back into
 * @bar: BAR0
 * @base: gets up to @max ring base addresses (IOVAs)
 * @len: gets their lengths in bytes
 * @max: room in @base and @len
 *
 * Return: rings found (enabled length, non-zero base).
 */
u32 cvf_ring_spans(void __iomem *bar, u64 *base, u64 *len, u32 max)
{
	u32 regs[2 * COMPSC_82576VF_NR_QUEUES], i, n = 0;
	u64 b, l;

	for (i = 0; i < COMPSC_82576VF_NR_QUEUES; i++) {
		regs[2 * i] = CVF_RDBAL(i);
		regs[2 * i + 1] = CVF_TDBAL(i);
	}
	for (i = 0; i < ARRAY_SIZE(regs) && n < max; i++) {
		b = readl(bar + regs[i]) |
		    (u64)readl(bar + regs[i] + CVF_BAH) << 32;
		l = readl(bar + regs[i] + CVF_LEN) & 0xfff80;
		if (!b || !l)
			continue;
		base[n] = b;
		len[n++] = l;
	}
	return n;
}
