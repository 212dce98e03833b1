// SPDX-License-Identifier: GPL-2.0
/*
 * PF <-> host glue registry (see compsc/kernel.h). A handful of PFs at most,
 * so a fixed table under one spinlock: the PF publishes areas from its
 * mailbox handler, which runs in atomic context.
 */
#include <linux/module.h>
#include <linux/pci.h>
#include <linux/spinlock.h>
#include <compsc/kernel.h>

#define COMPSC_MAX_PFS	4

struct compsc_vf_area {
	u64 gpa;
	u32 size;
};

struct compsc_pf_entry {
	struct pci_dev *pf;
	const struct compsc_pf_ops *ops;
	struct compsc_vf_area area[COMPSC_PF_MAX_VFS];
};

/* compsc_reg_lock protects every field of compsc_pfs[]. */
static DEFINE_SPINLOCK(compsc_reg_lock);
static struct compsc_pf_entry compsc_pfs[COMPSC_MAX_PFS];

static struct compsc_pf_entry *compsc_pf_find_locked(struct pci_dev *pf)
{
	int i;

	lockdep_assert_held(&compsc_reg_lock);
	for (i = 0; i < COMPSC_MAX_PFS; i++)
		if (compsc_pfs[i].pf == pf)
			return &compsc_pfs[i];
	return NULL;
}

int compsc_pf_register(struct pci_dev *pf, const struct compsc_pf_ops *ops)
{
	struct compsc_pf_entry *e;
	unsigned long flags;
	int ret = 0;

	spin_lock_irqsave(&compsc_reg_lock, flags);
	e = compsc_pf_find_locked(pf);
	if (!e)
		e = compsc_pf_find_locked(NULL);
	if (e) {
		memset(e, 0, sizeof(*e));
		e->pf = pf;
		e->ops = ops;
	} else {
		ret = -ENOSPC;
	}
	spin_unlock_irqrestore(&compsc_reg_lock, flags);
	return ret;
}
EXPORT_SYMBOL_GPL(compsc_pf_register);

void compsc_pf_unregister(struct pci_dev *pf)
{
	struct compsc_pf_entry *e;
	unsigned long flags;

	spin_lock_irqsave(&compsc_reg_lock, flags);
	e = compsc_pf_find_locked(pf);
	if (e)
		memset(e, 0, sizeof(*e));
	spin_unlock_irqrestore(&compsc_reg_lock, flags);
}
EXPORT_SYMBOL_GPL(compsc_pf_unregister);

int compsc_pf_area_set(struct pci_dev *pf, int vf, u64 gpa, u32 size)
{
	struct compsc_pf_entry *e;
	unsigned long flags;
	int ret = -ENODEV;

	if (vf < 0 || vf >= COMPSC_PF_MAX_VFS)
		return -EINVAL;
	spin_lock_irqsave(&compsc_reg_lock, flags);
	e = compsc_pf_find_locked(pf);
	if (e) {
		e->area[vf].gpa = gpa;
		e->area[vf].size = size;
		ret = 0;
	}
	spin_unlock_irqrestore(&compsc_reg_lock, flags);
	return ret;
}
EXPORT_SYMBOL_GPL(compsc_pf_area_set);

/* The PF entry and VF index of a VF's pci_dev; caller holds the lock. */
static struct compsc_pf_entry *compsc_vf_find_locked(struct pci_dev *vfdev,
						     int *vf)
{
	if (!vfdev->is_virtfn)
		return NULL;
	*vf = pci_iov_vf_id(vfdev);
	if (*vf < 0 || *vf >= COMPSC_PF_MAX_VFS)
		return NULL;
	return compsc_pf_find_locked(pci_physfn(vfdev));
}

int compsc_vf_area_get(struct pci_dev *vfdev, u64 *gpa, u32 *size)
{
	struct compsc_pf_entry *e;
	unsigned long flags;
	int vf, ret = -ENODEV;

	spin_lock_irqsave(&compsc_reg_lock, flags);
	e = compsc_vf_find_locked(vfdev, &vf);
	if (e && e->area[vf].size) {
		*gpa = e->area[vf].gpa;
		*size = e->area[vf].size;
		ret = 0;
	}
	spin_unlock_irqrestore(&compsc_reg_lock, flags);
	return ret;
}
EXPORT_SYMBOL_GPL(compsc_vf_area_get);

const struct compsc_pf_ops *compsc_vf_pf_ops_get(struct pci_dev *vfdev,
						 struct pci_dev **pf, int *vf)
{
	const struct compsc_pf_ops *ops = NULL;
	struct compsc_pf_entry *e;
	unsigned long flags;

	spin_lock_irqsave(&compsc_reg_lock, flags);
	e = compsc_vf_find_locked(vfdev, vf);
	if (e && e->ops && try_module_get(e->ops->owner)) {
		ops = e->ops;
		*pf = e->pf;
	}
	spin_unlock_irqrestore(&compsc_reg_lock, flags);
	return ops;
}
EXPORT_SYMBOL_GPL(compsc_vf_pf_ops_get);

void compsc_vf_pf_ops_put(const struct compsc_pf_ops *ops)
{
	if (ops)
		module_put(ops->owner);
}
EXPORT_SYMBOL_GPL(compsc_vf_pf_ops_put);
