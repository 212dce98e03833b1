// SPDX-License-Identifier: GPL-2.0
/*
 * PF <-> host glue registry (see compsc/kernel.h). A handful of PFs at most,
 * so a fixed table under one spinlock: the PF publishes areas from its
 * mailbox handler, which runs in atomic context.
 */
#include <linux/debugfs.h>
#include <linux/module.h>
#include <linux/pci.h>
#include <linux/seq_file.h>
#include <linux/spinlock.h>
#include <linux/srcu.h>
#include <compsc/kernel.h>
#include "fault.h"

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

/*
 * Every call of a PF's ops runs inside a read section of compsc_pf_srcu,
 * from compsc_vf_pf_get() to compsc_vf_pf_put(). The ops use the PF
 * driver's private data (igb: netdev_priv(pci_get_drvdata(pf))), which a
 * reference on the pci_dev or the module does not keep: the driver's
 * remove frees it. compsc_pf_unregister() waits for the calls in flight
 * once no new one can find the entry, so a remove that unregisters first
 * frees nothing a call still uses. Sleepable: the ops take RTNL.
 */
DEFINE_STATIC_SRCU(compsc_pf_srcu);

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

	might_sleep();
	spin_lock_irqsave(&compsc_reg_lock, flags);
	e = compsc_pf_find_locked(pf);
	if (e)
		memset(e, 0, sizeof(*e));
	spin_unlock_irqrestore(&compsc_reg_lock, flags);
	if (e)	/* calls that found it before finish before the PF goes */
		synchronize_srcu(&compsc_pf_srcu);
}
EXPORT_SYMBOL_GPL(compsc_pf_unregister);

/* Record VF @vf's area in @e (NULL: no such PF); caller holds the lock. */
static int compsc_area_store_locked(struct compsc_pf_entry *e, int vf,
				    u64 gpa, u32 size)
{
	if (!e)
		return -ENODEV;
	e->area[vf].gpa = gpa;
	e->area[vf].size = size;
	return 0;
}

int compsc_pf_area_set(struct pci_dev *pf, int vf, u64 gpa, u32 size)
{
	unsigned long flags;
	int ret;

	if (vf < 0 || vf >= COMPSC_PF_MAX_VFS)
		return -EINVAL;
	spin_lock_irqsave(&compsc_reg_lock, flags);
	ret = compsc_area_store_locked(compsc_pf_find_locked(pf), vf, gpa, size);
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

int compsc_vf_area_claim(struct pci_dev *vfdev, u64 gpa, u32 size,
			 void (*claim)(void *arg), void *arg)
{
	struct compsc_pf_entry *e;
	unsigned long flags;
	int vf, ret = -ENOENT;

	spin_lock_irqsave(&compsc_reg_lock, flags);
	e = compsc_vf_find_locked(vfdev, &vf);
	if (e && e->area[vf].size && e->area[vf].gpa == gpa &&
	    e->area[vf].size == size) {
		claim(arg);
		ret = 0;
	}
	spin_unlock_irqrestore(&compsc_reg_lock, flags);
	return ret;
}
EXPORT_SYMBOL_GPL(compsc_vf_area_claim);

int compsc_vf_area_set(struct pci_dev *vfdev, u64 gpa, u32 size)
{
	struct compsc_pf_entry *e;
	unsigned long flags;
	int vf = -1, ret;	/* not set when @vfdev is no VF of ours */

	spin_lock_irqsave(&compsc_reg_lock, flags);
	e = compsc_vf_find_locked(vfdev, &vf);
	ret = compsc_area_store_locked(e, vf, gpa, size);
	spin_unlock_irqrestore(&compsc_reg_lock, flags);
	return ret;
}
EXPORT_SYMBOL_GPL(compsc_vf_area_set);

int compsc_vf_pf_get(struct pci_dev *vfdev, struct compsc_pf_call *c)
{
	struct compsc_pf_entry *e;
	unsigned long flags;

	memset(c, 0, sizeof(*c));
	c->srcu_idx = srcu_read_lock(&compsc_pf_srcu);
	spin_lock_irqsave(&compsc_reg_lock, flags);
	e = compsc_vf_find_locked(vfdev, &c->vf);
	if (e) {
		c->pf = e->pf;
		c->ops = e->ops;
	}
	spin_unlock_irqrestore(&compsc_reg_lock, flags);
	if (!e) {
		srcu_read_unlock(&compsc_pf_srcu, c->srcu_idx);
		return -ENODEV;
	}
	compsc_pf_call_delay(vfdev);
	return 0;
}
EXPORT_SYMBOL_GPL(compsc_vf_pf_get);

void compsc_vf_pf_put(struct compsc_pf_call *c)
{
	srcu_read_unlock(&compsc_pf_srcu, c->srcu_idx);
}
EXPORT_SYMBOL_GPL(compsc_vf_pf_put);

/*
 * debugfs compsc/areas: one line per registered guest area, "PF VF GPA
 * SIZE", so an operator can see which VFs run a CompSC driver. Each line
 * is copied under the lock and printed after it (seq_printf may sleep),
 * one VF at a time: a whole PF's table would take 1 KiB of stack.
 */
static bool compsc_area_copy(int i, int vf, char *name, size_t n,
			     struct compsc_vf_area *area)
{
	unsigned long flags;
	bool found = false;

	spin_lock_irqsave(&compsc_reg_lock, flags);
	if (compsc_pfs[i].pf && compsc_pfs[i].area[vf].size) {
		strscpy(name, pci_name(compsc_pfs[i].pf), n);
		*area = compsc_pfs[i].area[vf];
		found = true;
	}
	spin_unlock_irqrestore(&compsc_reg_lock, flags);
	return found;
}

static int compsc_areas_show(struct seq_file *m, void *unused)
{
	struct compsc_vf_area area;
	char name[16];
	int i, vf;

	for (i = 0; i < COMPSC_MAX_PFS; i++)
		for (vf = 0; vf < COMPSC_PF_MAX_VFS; vf++)
			if (compsc_area_copy(i, vf, name, sizeof(name), &area))
				seq_printf(m, "%s %d 0x%llx %u\n", name, vf,
					   area.gpa, area.size);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(compsc_areas);

static struct dentry *compsc_debugfs;

void compsc_registry_debugfs_init(void)
{
	compsc_debugfs = debugfs_create_dir("compsc", NULL);
	debugfs_create_file("areas", 0400, compsc_debugfs, NULL,
			    &compsc_areas_fops);
	compsc_pf_fault_debugfs(compsc_debugfs);
}

void compsc_registry_debugfs_exit(void)
{
	debugfs_remove_recursive(compsc_debugfs);
}
