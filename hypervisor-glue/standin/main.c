// SPDX-License-Identifier: GPL-2.0
/*
 * compsc_bench module: finds the 82576 VFs of this machine (now and as
 * SR-IOV creates or removes them) and gives each a debugfs directory with
 * its migration controls. See README.md for the interface.
 */
#include <linux/module.h>
#include <linux/notifier.h>
#include <linux/pci.h>
#include <linux/slab.h>
#include <compsc/dev_82576vf.h>
#include "standin.h"

static LIST_HEAD(bench_vfs);
/* bench_vfs_lock protects bench_vfs: bus notifier adds/removes, module exit */
static DEFINE_MUTEX(bench_vfs_lock);

static bool bench_is_82576vf(struct pci_dev *pdev)
{
	return pdev->is_virtfn && pdev->vendor == COMPSC_82576VF_VENDOR &&
	       pdev->device == COMPSC_82576VF_DEVICE;
}

static struct bench_vf *bench_vf_find_locked(struct pci_dev *pdev)
{
	struct bench_vf *bv;

	lockdep_assert_held(&bench_vfs_lock);
	list_for_each_entry(bv, &bench_vfs, node)
		if (bv->pdev == pdev)
			return bv;
	return NULL;
}

static void bench_vf_add(struct pci_dev *pdev)
{
	struct bench_vf *bv;

	mutex_lock(&bench_vfs_lock);
	if (bench_vf_find_locked(pdev))
		goto out;
	bv = kzalloc(sizeof(*bv), GFP_KERNEL);
	if (!bv)
		goto out;
	bv->stream = kvzalloc(BENCH_STREAM_MAX, GFP_KERNEL);
	if (!bv->stream) {
		kfree(bv);
		goto out;
	}
	mutex_init(&bv->lock);
	bv->pdev = pci_dev_get(pdev);
	list_add_tail(&bv->node, &bench_vfs);
	bench_vf_debugfs_add(bv);
out:
	mutex_unlock(&bench_vfs_lock);
}

/* Removing the directory waits for a migration running through it. */
static void bench_vf_free(struct bench_vf *bv)
{
	bench_vf_debugfs_del(bv);
	pci_dev_put(bv->pdev);
	mutex_destroy(&bv->lock);
	kvfree(bv->stream);
	kfree(bv);
}

static void bench_vf_del(struct pci_dev *pdev)
{
	struct bench_vf *bv;

	mutex_lock(&bench_vfs_lock);
	bv = bench_vf_find_locked(pdev);
	if (bv) {
		list_del(&bv->node);
		bench_vf_free(bv);
	}
	mutex_unlock(&bench_vfs_lock);
}

static int bench_pci_notify(struct notifier_block *nb, unsigned long action,
			    void *data)
{
	struct pci_dev *pdev = to_pci_dev(data);

	if (!bench_is_82576vf(pdev))
		return NOTIFY_DONE;
	if (action == BUS_NOTIFY_ADD_DEVICE)
		bench_vf_add(pdev);
	else if (action == BUS_NOTIFY_DEL_DEVICE)
		bench_vf_del(pdev);
	return NOTIFY_OK;
}

static struct notifier_block bench_pci_nb = {
	.notifier_call = bench_pci_notify,
};

static void bench_vfs_free_all(void)
{
	struct bench_vf *bv, *tmp;

	mutex_lock(&bench_vfs_lock);
	list_for_each_entry_safe(bv, tmp, &bench_vfs, node) {
		list_del(&bv->node);
		bench_vf_free(bv);
	}
	mutex_unlock(&bench_vfs_lock);
}

static int __init bench_init(void)
{
	struct pci_dev *pdev = NULL;
	int err;

	err = bench_debugfs_init();
	if (err)
		return err;
	err = bus_register_notifier(&pci_bus_type, &bench_pci_nb);
	if (err)
		goto err_debugfs;
	/* a VF created meanwhile is found twice; bench_vf_add() skips it */
	for_each_pci_dev(pdev)
		if (bench_is_82576vf(pdev))
			bench_vf_add(pdev);
	return 0;

err_debugfs:
	bench_debugfs_exit();
	return err;
}

static void __exit bench_exit(void)
{
	bus_unregister_notifier(&pci_bus_type, &bench_pci_nb);
	bench_vfs_free_all();
	bench_debugfs_exit();
}

module_init(bench_init);
module_exit(bench_exit);
MODULE_DESCRIPTION("CompSC bench stand-in hypervisor (82576 VF migration)");
MODULE_LICENSE("GPL");
