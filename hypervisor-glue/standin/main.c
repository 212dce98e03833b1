// SPDX-License-Identifier: GPL-2.0
/*
 * compsc_standin module: finds the VFs of this machine that libcompsc has
 * a device model for (now and as SR-IOV creates or removes them) and gives
 * each a debugfs directory with its migration controls. See README.md for
 * the interface.
 */
#include <linux/module.h>
#include <linux/notifier.h>
#include <linux/pci.h>
#include <linux/slab.h>
#include <compsc/host.h>
#include "standin.h"

static LIST_HEAD(standin_vfs);
/* standin_vfs_lock protects standin_vfs: bus notifier adds/removes, module exit */
static DEFINE_MUTEX(standin_vfs_lock);

/* The model of a VF the stand-in can migrate, or NULL. */
static const struct compsc_devmodel *standin_model(struct pci_dev *pdev)
{
	if (!pdev->is_virtfn)
		return NULL;
	return compsc_devmodel_find(pdev->vendor, pdev->device);
}

static struct standin_vf *standin_vf_find_locked(struct pci_dev *pdev)
{
	struct standin_vf *sv;

	lockdep_assert_held(&standin_vfs_lock);
	list_for_each_entry(sv, &standin_vfs, node)
		if (sv->pdev == pdev)
			return sv;
	return NULL;
}

static void standin_vf_add(struct pci_dev *pdev,
			   const struct compsc_devmodel *dm)
{
	struct standin_vf *sv;

	mutex_lock(&standin_vfs_lock);
	if (standin_vf_find_locked(pdev))
		goto out;
	sv = kzalloc(sizeof(*sv), GFP_KERNEL);
	if (!sv)
		goto out;
	sv->stream = kvzalloc(STANDIN_STREAM_MAX, GFP_KERNEL);
	if (!sv->stream) {
		kfree(sv);
		goto out;
	}
	mutex_init(&sv->lock);
	sv->pdev = pci_dev_get(pdev);
	sv->dm = dm;
	list_add_tail(&sv->node, &standin_vfs);
	standin_vf_debugfs_add(sv);
out:
	mutex_unlock(&standin_vfs_lock);
}

/* Removing the directory waits for a migration running through it. */
static void standin_vf_free(struct standin_vf *sv)
{
	standin_vf_debugfs_del(sv);
	pci_dev_put(sv->pdev);
	mutex_destroy(&sv->lock);
	kvfree(sv->stream);
	kfree(sv);
}

static void standin_vf_del(struct pci_dev *pdev)
{
	struct standin_vf *sv;

	mutex_lock(&standin_vfs_lock);
	sv = standin_vf_find_locked(pdev);
	if (sv) {
		list_del(&sv->node);
		standin_vf_free(sv);
	}
	mutex_unlock(&standin_vfs_lock);
}

static int standin_pci_notify(struct notifier_block *nb, unsigned long action,
			      void *data)
{
	struct pci_dev *pdev = to_pci_dev(data);
	const struct compsc_devmodel *dm = standin_model(pdev);

	if (!dm)
		return NOTIFY_DONE;
	if (action == BUS_NOTIFY_ADD_DEVICE)
		standin_vf_add(pdev, dm);
	else if (action == BUS_NOTIFY_DEL_DEVICE)
		standin_vf_del(pdev);
	return NOTIFY_OK;
}

static struct notifier_block standin_pci_nb = {
	.notifier_call = standin_pci_notify,
};

static void standin_vfs_free_all(void)
{
	struct standin_vf *sv, *tmp;

	mutex_lock(&standin_vfs_lock);
	list_for_each_entry_safe(sv, tmp, &standin_vfs, node) {
		list_del(&sv->node);
		standin_vf_free(sv);
	}
	mutex_unlock(&standin_vfs_lock);
}

static int __init standin_init(void)
{
	const struct compsc_devmodel *dm;
	struct pci_dev *pdev = NULL;
	int err;

	err = standin_debugfs_init();
	if (err)
		return err;
	err = bus_register_notifier(&pci_bus_type, &standin_pci_nb);
	if (err)
		goto err_debugfs;
	/* a VF created meanwhile is found twice; standin_vf_add() skips it */
	for_each_pci_dev(pdev) {
		dm = standin_model(pdev);
		if (dm)
			standin_vf_add(pdev, dm);
	}
	return 0;

err_debugfs:
	standin_debugfs_exit();
	return err;
}

static void __exit standin_exit(void)
{
	bus_unregister_notifier(&pci_bus_type, &standin_pci_nb);
	standin_vfs_free_all();
	standin_debugfs_exit();
}

module_init(standin_init);
module_exit(standin_exit);
MODULE_DESCRIPTION("CompSC stand-in hypervisor (VF migration in place)");
MODULE_LICENSE("GPL");
