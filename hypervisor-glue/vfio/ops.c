// SPDX-License-Identifier: GPL-2.0
/*
 * The vfio_device operations: vfio-pci-core's, with our open and close
 * (migration state starts and ends with the device being open) and a
 * dma_unmap callback (needed to pin the guest's area: QEMU may unmap guest
 * memory at any time, and the pin must go with it).
 */
#include <linux/vfio.h>
#include <compsc/kernel.h>
#include "compsc_vfio.h"

static int cvf_open_device(struct vfio_device *vdev)
{
	struct cvf_dev *cvf = cvf_from_vdev(vdev);
	int err;

	err = vfio_pci_core_enable(&cvf->core);
	if (err)
		return err;
	cvf_state_mutex_lock(cvf);
	cvf->mig_state = VFIO_DEVICE_STATE_RUNNING;
	cvf->ctx = 0;
	cvf_mig_forget(cvf);
	cvf_state_mutex_unlock(cvf);
	/* a new VM: the last one's area address means nothing in it */
	compsc_vf_area_set(cvf_pdev(cvf), 0, 0);
	cvf_stats_forget(cvf);
	vfio_pci_core_finish_enable(&cvf->core);
	return 0;
}

static void cvf_close_device(struct vfio_device *vdev)
{
	struct cvf_dev *cvf = cvf_from_vdev(vdev);

	cvf_state_mutex_lock(cvf);
	cvf->closing = true;	/* see cvf_giveback() */
	cvf_mig_cleanup(cvf);
	cvf->closing = false;
	/*
	 * The DMA log session ends with the VM that started it. QEMU's source
	 * postpones log_stop after a completed migration until its VM runs
	 * again, which it never does, and the VFIO core does not stop the log
	 * on close: left on, the next VM on this VF would pass
	 * cvf_take_allowed() without ever reading the log.
	 */
	cvf->logging = false;
	cvf_state_mutex_unlock(cvf);
	compsc_vf_area_set(cvf_pdev(cvf), 0, 0);
	vfio_pci_core_close_device(vdev);
}

/*
 * QEMU unmapped guest memory. If that was our pinned area, the migration
 * holding it cannot go on: drop the pin (the VFIO contract) and the state.
 */
static void cvf_dma_unmap(struct vfio_device *vdev, u64 iova, u64 length)
{
	struct cvf_dev *cvf = cvf_from_vdev(vdev);

	cvf_state_mutex_lock(cvf);
	if (cvf->area && cvf_area_overlaps(cvf->area, iova, length)) {
		dev_warn(&vdev->device, "guest area unmapped during migration\n");
		cvf_mig_cleanup(cvf);
	}
	cvf_state_mutex_unlock(cvf);
}

const struct vfio_device_ops cvf_ops = {
	.name = "compsc-vfio",
	.init = cvf_init_dev,
	.release = cvf_release_dev,
	.open_device = cvf_open_device,
	.close_device = cvf_close_device,
	.ioctl = vfio_pci_core_ioctl,
	.device_feature = vfio_pci_core_ioctl_feature,
	.read = cvf_read,
	.write = vfio_pci_core_write,
	.mmap = cvf_mmap,
	.request = vfio_pci_core_request,
	.match = vfio_pci_core_match,
	.dma_unmap = cvf_dma_unmap,
	.bind_iommufd = vfio_iommufd_physical_bind,
	.unbind_iommufd = vfio_iommufd_physical_unbind,
	.attach_ioas = vfio_iommufd_physical_attach_ioas,
	.detach_ioas = vfio_iommufd_physical_detach_ioas,
};
