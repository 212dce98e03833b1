// SPDX-License-Identifier: GPL-2.0
/*
 * Device access of the stand-in: the guest's area (found through the PF's
 * registry, mapped like a host maps guest memory), the resets that make
 * the VF a fresh destination device, and the guest's wake-up after them.
 *
 * The guest VF driver has BAR0 mapped too; the stand-in only touches it
 * while it holds the write side of the area.
 */
#include <linux/delay.h>
#include <linux/interrupt.h>
#include <linux/irq.h>
#include <linux/irq_work.h>
#include <linux/irqdesc.h>
#include <linux/io.h>
#include <linux/ioport.h>
#include <linux/pci.h>
#include <compsc/host.h>
#include <compsc/kernel.h>
#include "standin.h"

#define STANDIN_VFLR_POLL_MS	1000	/* PF driver handling the VF's reset */

/**
 * standin_area_remap() - map the area the VF's driver registered, raw
 * @pdev: the VF
 * @gpa: gets its address
 * @size: gets its size
 * @why: gets a one-line reason on failure (@len bytes; NULL: none)
 * @len: room in @why
 *
 * In the bench, guest-physical is physical: the area is ordinary RAM of this
 * kernel. Anything else (a hostile address) is refused before mapping.
 *
 * Return: the mapping (memunmap() it) or ERR_PTR(-errno).
 */
void *standin_area_remap(struct pci_dev *pdev, u64 *gpa, u32 *size, char *why,
			 size_t len)
{
	void *va;

	if (compsc_vf_area_get(pdev, gpa, size)) {
		if (why)
			snprintf(why, len, "no area registered");
		return ERR_PTR(-ENOENT);
	}
	if (region_intersects(*gpa, *size, IORESOURCE_SYSTEM_RAM,
			      IORES_DESC_NONE) != REGION_INTERSECTS) {
		if (why)
			snprintf(why, len, "area %#llx+%u is not RAM", *gpa, *size);
		return ERR_PTR(-EFAULT);
	}
	va = memremap(*gpa, *size, MEMREMAP_WB);
	if (!va) {
		if (why)
			snprintf(why, len, "cannot map area");
		return ERR_PTR(-ENOMEM);
	}
	return va;
}

/**
 * standin_area_map() - map and check the area the VF's driver registered
 * @sv: the VF
 * @a: filled with the mapping, a checked copy of the area header and
 *	checked copies of its lists (compsc_host_area_check())
 * @res: gets a one-line reason on failure
 *
 * Return: 0 or -errno.
 */
int standin_area_map(struct standin_vf *sv, struct compsc_host_area *a,
		     struct standin_result *res)
{
	u32 bad;
	int err;

	memset(a, 0, sizeof(*a));
	a->va = standin_area_remap(sv->pdev, &a->gpa, &a->size, res->msg,
				   sizeof(res->msg));
	if (IS_ERR(a->va)) {
		err = PTR_ERR(a->va);
		a->va = NULL;
		return err;
	}
	err = compsc_host_area_check(a, sv->dm->policy, &bad);
	if (err) {
		snprintf(res->msg, sizeof(res->msg), "area refused (entry %d): %s",
			 bad == U32_MAX ? -1 : (int)bad, compsc_strerror(err));
		standin_area_unmap(a);
		return compsc_errno(err);
	}
	return 0;
}

void standin_area_unmap(struct compsc_host_area *a)
{
	if (a->va)
		memunmap(a->va);
	a->va = NULL;
}

/*
 * Function-level reset with the config space saved and restored around it,
 * as QEMU/VFIO restore a VF's config space (MSI-X, BARs, command register)
 * for the guest. The device's own registers come back at reset values.
 */
static int standin_flr(struct pci_dev *pdev)
{
	int err;

	err = pcie_reset_flr(pdev, PCI_RESET_PROBE);
	if (err)
		return err;
	pci_cfg_access_lock(pdev);
	pci_save_state(pdev);
	err = pcie_flr(pdev);
	pci_restore_state(pdev);
	pci_cfg_access_unlock(pdev);
	return err;
}

/*
 * Wait until the PF driver has handled the VF reset event the FLR raised
 * (it clears the VF's bit in the model's PF register when done).
 * Otherwise its reset of the VF's PF-side state could land after the
 * guest's restore already talked to it.
 */
static const char *standin_wait_pf_vflr(struct standin_vf *sv)
{
	struct pci_dev *pf = pci_physfn(sv->pdev);
	int vf = pci_iov_vf_id(sv->pdev), ms;
	void __iomem *reg;
	u32 bit, off;

	if (vf < 0 || vf / 32 >= sv->dm->nr_pf_vflre)
		return "no";
	off = sv->dm->pf_vflre[vf / 32];
	reg = pci_iomap_range(pf, 0, off & PAGE_MASK, PAGE_SIZE);
	if (!reg)
		return "no";
	bit = BIT(vf % 32);
	reg += off & ~PAGE_MASK;
	for (ms = 0; ms < STANDIN_VFLR_POLL_MS && (readl(reg) & bit); ms++)
		usleep_range(1000, 1100);
	bit &= readl(reg);
	pci_iounmap(pf, reg - (off & ~PAGE_MASK));
	return bit ? "pending" : "handled";
}

/**
 * standin_reset() - make the VF a fresh destination device
 * @sv: the VF
 * @how: FLR, PF forget, both or none
 * @res: pf_forget and, on failure, msg are set
 *
 * Return: 0 or -errno.
 */
int standin_reset(struct standin_vf *sv, enum standin_reset how,
		  struct standin_result *res)
{
	struct pci_dev *pdev = sv->pdev;
	int err;

	res->pf_forget = "no";
	res->pf_vflr = "no";
	if (how == STANDIN_RESET_FLR || how == STANDIN_RESET_BOTH) {
		err = standin_flr(pdev);
		if (err) {
			snprintf(res->msg, sizeof(res->msg),
				 "function-level reset failed: %d", err);
			return err;
		}
		res->pf_vflr = standin_wait_pf_vflr(sv);
	}
	if (how == STANDIN_RESET_PF || how == STANDIN_RESET_BOTH) {
		err = compsc_host_pf_forget(pdev, false);
		if (err == -EOPNOTSUPP && how == STANDIN_RESET_BOTH) {
			res->pf_forget = "skipped";
			return 0;
		}
		if (err) {
			snprintf(res->msg, sizeof(res->msg),
				 "PF reset of the VF failed: %d", err);
			return err;
		}
		res->pf_forget = "done";
	}
	return 0;
}

/* More than any VF here has (igbvf, ixgbevf: 3 MSI-X vectors). */
#define STANDIN_KICK_MAX_IRQS 8

struct standin_kick {
	struct irq_work work;
	int irqs[STANDIN_KICK_MAX_IRQS];
	int n;
};

/* Runs in hard interrupt context (self-IPI), as a device interrupt would. */
static void standin_kick_fn(struct irq_work *work)
{
	struct standin_kick *k = container_of(work, struct standin_kick, work);
	int i;

	for (i = 0; i < k->n; i++)
		generic_handle_irq(k->irqs[i]);
}

/*
 * standin_kick_guest() - tell the guest driver its device is back.
 *
 * A freshly reset VF raises no interrupt, so without a kick the driver
 * would notice the new version only at its next timer or transmit, and
 * every millisecond until then is packet loss. A real host injects the
 * VF's interrupts after the hand-back (VFIO: signal the MSI-X triggers);
 * the stand-in raises the VF's handlers from hard interrupt context the
 * same way. A spurious interrupt is harmless: each handler enters the
 * read side first and so starts the restore.
 */
void standin_kick_guest(struct pci_dev *pdev)
{
	struct standin_kick k = { .n = 0 };
	int irq;

	/*
	 * Looked up here, not in standin_kick_fn(): pci_irq_vector() takes the
	 * MSI descriptors' mutex, which interrupt context must not (the
	 * debug kernel's atomic-sleep check reported it on every kick).
	 */
	while (k.n < STANDIN_KICK_MAX_IRQS) {
		irq = pci_irq_vector(pdev, k.n);
		if (irq < 0)
			break;
		k.irqs[k.n++] = irq;
	}
	init_irq_work(&k.work, standin_kick_fn);
	if (irq_work_queue(&k.work))
		irq_work_sync(&k.work);
}
