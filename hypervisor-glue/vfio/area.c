// SPDX-License-Identifier: GPL-2.0
/*
 * The guest's shared area. The guest announces the DMA address its VF
 * uses for it, an IOVA in the device's VFIO container (without a vIOMMU
 * QEMU maps guest RAM 1:1, so it is the guest-physical address; behind
 * one, whatever the guest's IOMMU mapped), so the area is pinned
 * through VFIO and mapped into the kernel: an address outside the guest's
 * mapped memory simply fails to pin. Nothing the guest wrote is used before
 * it was copied and checked.
 */
#include <linux/iommu.h>
#include <linux/slab.h>
#include <linux/vmalloc.h>
#include "compsc_vfio.h"

static dma_addr_t cvf_area_iova(const struct cvf_area *a)
{
	return a->h.gpa & PAGE_MASK;
}

static int cvf_area_pin(struct cvf_dev *cvf, struct cvf_area *a)
{
	int n = DIV_ROUND_UP(offset_in_page(a->h.gpa) + a->h.size, PAGE_SIZE);
	int ret;

	ret = vfio_pin_pages(&cvf->core.vdev, cvf_area_iova(a), n,
			     IOMMU_READ | IOMMU_WRITE, a->pages);
	if (ret >= 0 && ret != n) {
		vfio_unpin_pages(&cvf->core.vdev, cvf_area_iova(a), ret);
		ret = -EFAULT;
	}
	if (ret < 0)
		return ret;
	a->npage = n;
	a->map = vmap(a->pages, n, VM_MAP, PAGE_KERNEL);
	if (!a->map) {
		vfio_unpin_pages(&cvf->core.vdev, cvf_area_iova(a), n);
		a->npage = 0;
		return -ENOMEM;
	}
	a->h.va = a->map + offset_in_page(a->h.gpa);
	return 0;
}

/* Header on a copy, then the lists snapshot against the VF model's policy. */
static int cvf_area_validate(struct cvf_dev *cvf, struct cvf_area *a)
{
	u32 bad;
	int err;

	err = compsc_host_area_check(&a->h, cvf->dev.dm->policy, &bad);
	if (err)
		dev_warn(&cvf_pdev(cvf)->dev, "guest area refused (entry %d): %s\n",
			 bad == U32_MAX ? -1 : (int)bad, compsc_strerror(err));
	return compsc_errno(err);
}

/**
 * cvf_area_get() - pin, map and check the guest area at @gpa
 * @cvf: the device (open, with a VFIO container); state_mutex held, so
 *	that cvf_dma_unmap() never misses a pin
 * @gpa: guest-physical (= IOVA) address the guest registered
 * @size: its size
 *
 * Return: the area (release with cvf_area_put()) or ERR_PTR(-errno).
 */
struct cvf_area *cvf_area_get(struct cvf_dev *cvf, u64 gpa, u32 size)
{
	struct cvf_area *a;
	int err;

	lockdep_assert_held(&cvf->state_mutex);
	if (size < sizeof(struct compsc_area_hdr) ||
	    size > COMPSC_AREA_MAX_SIZE || gpa + size < gpa) {
		dev_warn(&cvf_pdev(cvf)->dev, "guest area size %u refused\n",
			 size);
		return ERR_PTR(-EINVAL);
	}
	/* pins and copies reach guest memory through a VFIO container only:
	 * a physical device bound through iommufd has no access object
	 */
	if (vfio_iommufd_device_ictx(&cvf->core.vdev)) {
		dev_warn(&cvf_pdev(cvf)->dev,
			 "migration refused: the device is bound through iommufd, which gives no way to reach the guest's area; open it through a VFIO container (type1)\n");
		return ERR_PTR(-EOPNOTSUPP);
	}
	a = kvzalloc(sizeof(*a), GFP_KERNEL);
	if (!a)
		return ERR_PTR(-ENOMEM);
	a->h.gpa = gpa;
	a->h.size = size;
	err = cvf_area_pin(cvf, a);
	if (err) {
		dev_warn(&cvf_pdev(cvf)->dev,
			 "guest area %#llx+%u not in guest memory: %d\n",
			 gpa, size, err);
		goto out_free;
	}
	err = cvf_area_validate(cvf, a);
	if (err)
		goto out_put;
	return a;
out_put:
	cvf_area_put(cvf, a);
	return ERR_PTR(err);
out_free:
	kvfree(a);
	return ERR_PTR(err);
}

void cvf_area_put(struct cvf_dev *cvf, struct cvf_area *a)
{
	if (!a)
		return;
	if (a->npage) {
		vunmap(a->map);
		vfio_unpin_pages(&cvf->core.vdev, cvf_area_iova(a), a->npage);
	}
	kvfree(a);
}

bool cvf_area_overlaps(struct cvf_area *a, u64 iova, u64 len)
{
	u64 start = cvf_area_iova(a), end = start + (u64)a->npage * PAGE_SIZE;

	return iova < end && iova + len > start;
}
