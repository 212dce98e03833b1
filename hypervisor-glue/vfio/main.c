// SPDX-License-Identifier: GPL-2.0
/*
 * compsc_vfio: module, PCI driver and probe. Binds to the VFs libcompsc
 * has a device model for (compsc_devmodel_find()) only through
 * driver_override (the id table carries override_only), so the host's VF
 * driver keeps every VF nobody asked for.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>
#include <linux/pci.h>
#include <compsc/dev_82576vf.h>
#include <compsc/dev_82599vf.h>
#include <compsc/migstate.h>
#include "compsc_vfio.h"

unsigned int cvf_take_timeout_ms = 1000;
module_param_named(take_timeout_ms, cvf_take_timeout_ms, uint, 0644);
MODULE_PARM_DESC(take_timeout_ms,
		 "bound on the wait for the guest driver's readers (ms)");

unsigned int cvf_hold_ms = COMPSC_MIG_HOLD_MS;
module_param_named(hold_ms, cvf_hold_ms, uint, 0644);
MODULE_PARM_DESC(hold_ms,
		 "a device taken in pre-copy goes back to the guest if the switch-over does not follow within this (ms; 0: never)");

bool cvf_host_counters;
module_param_named(host_counters, cvf_host_counters, bool, 0444);
MODULE_PARM_DESC(host_counters,
		 "emulate the VF statistics registers so they continue across migrations (set on both hosts)");

static bool cvf_dma_logging = true;
module_param_named(dma_logging, cvf_dma_logging, bool, 0444);
MODULE_PARM_DESC(dma_logging,
		 "offer VFIO DMA logging (device dirty tracking) if the VFIO core can report it");

/* Decided once at load: whether devices get log_ops. */
static bool cvf_log_on;

/*
 * The VF's model: the id table's, or for a VF bound through
 * driver_override alone (the PCI core then passes an id without driver
 * data) libcompsc's for its PCI ID. A VF without one is refused: every
 * register the driver touches comes from the model.
 */
static const struct compsc_devmodel *cvf_model(struct pci_dev *pdev,
					       const struct pci_device_id *id)
{
	const struct compsc_devmodel *dm = (const void *)id->driver_data;

	if (!dm)
		dm = compsc_devmodel_find(pdev->vendor, pdev->device);
	if (!dm)
		pci_err(pdev, "no CompSC device model for %04x:%04x\n",
			pdev->vendor, pdev->device);
	return dm;
}

static int cvf_probe(struct pci_dev *pdev, const struct pci_device_id *id)
{
	const struct compsc_devmodel *dm = cvf_model(pdev, id);
	struct cvf_dev *cvf;
	int err;

	if (!dm)
		return -ENODEV;
	cvf = vfio_alloc_device(cvf_dev, core.vdev, &pdev->dev, &cvf_ops);
	if (IS_ERR(cvf))
		return PTR_ERR(cvf);
	cvf->dev.dm = dm;
	dev_set_drvdata(&pdev->dev, &cvf->core);
	err = vfio_pci_core_register_device(&cvf->core);
	if (err)
		goto out_put;
	cvf_log_debugfs_add(cvf);
	return 0;
out_put:
	vfio_put_device(&cvf->core.vdev);
	return err;
}

static void cvf_remove(struct pci_dev *pdev)
{
	struct vfio_pci_core_device *core = dev_get_drvdata(&pdev->dev);

	cvf_log_debugfs_del(container_of(core, struct cvf_dev, core));
	vfio_pci_core_unregister_device(core);
	vfio_put_device(&core->vdev);
}

/* init_dev of the vfio_device: the core's, plus our migration state. */
int cvf_init_dev(struct vfio_device *vdev)
{
	struct cvf_dev *cvf = cvf_from_vdev(vdev);
	int err;

	mutex_init(&cvf->state_mutex);
	spin_lock_init(&cvf->reset_lock);
	spin_lock_init(&cvf->stat_lock);
	INIT_DELAYED_WORK(&cvf->hold_work, cvf_hold_work);
	INIT_WORK(&cvf->reset_work, cvf_reset_work);
	cvf->mig_state = VFIO_DEVICE_STATE_RUNNING;
	vdev->migration_flags = VFIO_MIGRATION_STOP_COPY | VFIO_MIGRATION_P2P |
				VFIO_MIGRATION_PRE_COPY;
	vdev->mig_ops = &cvf_mig_ops;
	/* without log_ops QEMU asks the IOMMU backend instead (see cvf_init) */
	if (cvf_log_on)
		vdev->log_ops = &cvf_log_ops;
	err = vfio_pci_core_init_dev(vdev);
	if (!err)
		cvf_peer_add(cvf);
	return err;
}

void cvf_release_dev(struct vfio_device *vdev)
{
	struct cvf_dev *cvf = cvf_from_vdev(vdev);

	cvf_peer_del(cvf);
	cancel_delayed_work_sync(&cvf->hold_work);
	cancel_work_sync(&cvf->reset_work);
	kfree(cvf->log_ranges);
	mutex_destroy(&cvf->state_mutex);
	vfio_pci_core_release_dev(vdev);
}

/*
 * A reset of the VF (VFIO_DEVICE_RESET, a hot reset, a reset through
 * sysfs): all migration state is gone. Often under memory_lock: marked
 * here, acted on later (cvf_reset_done()).
 */
static void cvf_err_reset_done(struct pci_dev *pdev)
{
	struct vfio_pci_core_device *core = dev_get_drvdata(&pdev->dev);

	cvf_reset_done(container_of(core, struct cvf_dev, core));
}

static const struct pci_error_handlers cvf_err_handlers = {
	.reset_done = cvf_err_reset_done,
	.error_detected = vfio_pci_core_aer_err_detected,
};

/* driver_data: the VF's device model (compsc/host.h) */
static const struct pci_device_id cvf_ids[] = {
	{ PCI_DRIVER_OVERRIDE_DEVICE_VFIO(COMPSC_82576VF_VENDOR,
					  COMPSC_82576VF_DEVICE),
	  .driver_data = (kernel_ulong_t)&compsc_82576vf_model },
	{ PCI_DRIVER_OVERRIDE_DEVICE_VFIO(COMPSC_82599VF_VENDOR,
					  COMPSC_82599VF_DEVICE),
	  .driver_data = (kernel_ulong_t)&compsc_82599vf_model },
	{}
};
MODULE_DEVICE_TABLE(pci, cvf_ids);

static struct pci_driver cvf_driver = {
	.name = KBUILD_MODNAME,
	.id_table = cvf_ids,
	.probe = cvf_probe,
	.remove = cvf_remove,
	.err_handler = &cvf_err_handlers,
	.driver_managed_dma = true,
};

/*
 * DMA logging needs a VFIO core that can report it (see dirty.c); a stock
 * Debian core cannot, and offering log_ops there would make QEMU abort
 * every migration. Say which way it went: it decides whether pre-copy
 * can converge.
 */
static int __init cvf_init(void)
{
	int err;

	cvf_log_on = cvf_dma_logging && cvf_log_get();
	if (cvf_log_on)
		pr_info("DMA logging offered: the VFIO core reports it through iova_bitmap\n");
	else if (cvf_dma_logging)
		pr_info("no DMA logging: the VFIO core cannot report it (built without CONFIG_IOMMUFD_DRIVER)\n");
	else
		pr_info("DMA logging off (dma_logging=0)\n");
	err = pci_register_driver(&cvf_driver);
	if (err)
		cvf_log_put();
	return err;
}
module_init(cvf_init);

static void __exit cvf_exit(void)
{
	pci_unregister_driver(&cvf_driver);
	cvf_log_put();
}
module_exit(cvf_exit);

MODULE_DESCRIPTION("vfio-pci variant driver for CompSC live migration of Intel VFs");
MODULE_LICENSE("GPL");
MODULE_IMPORT_NS(IOMMUFD);
