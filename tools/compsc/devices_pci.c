// SPDX-License-Identifier: (GPL-2.0 OR BSD-3-Clause)
/*
 * PCI side of `compsc devices`, through libpci (pciutils): every function
 * with an SR-IOV extended capability is a PF; its VFs are the routing IDs
 * First VF Offset + n * VF Stride from it (n < NumVFs), as the spec
 * places them. Drivers come from libpci's PCI_FILL_DRIVER (sysfs).
 *
 * Config space beyond 64 bytes is readable with CAP_SYS_ADMIN only: an
 * unprivileged scan would see no extended capability at all, i.e. "no
 * SR-IOV" on a machine full of it, so it is refused instead.
 */
#include "devices.h"

#include <errno.h>
#include <pci/pci.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define DEV_FILL	(PCI_FILL_IDENT | PCI_FILL_DRIVER | PCI_FILL_EXT_CAPS)

/* libpci's error callback must not return. */
static void __attribute__((noreturn)) dev_pci_error(char *msg, ...)
{
	va_list ap;

	fputs("compsc: devices: libpci: ", stderr);
	va_start(ap, msg);
	vfprintf(stderr, msg, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(2);
}

static void dev_pci_quiet(char *msg, ...)
{
	(void)msg;
}

static void dev_bdf(char *out, int domain, int bus, int dev, int func)
{
	snprintf(out, DEV_BDF_LEN, "%04x:%02x:%02x.%d", domain & 0xffff,
		 bus & 0xff, dev & 0x1f, func & 7);
}

static void dev_driver(struct pci_dev *d, char *out)
{
	const char *drv = pci_get_string_property(d, PCI_FILL_DRIVER);

	snprintf(out, DEV_NAME_LEN, "%s", drv ? drv : "");
}

static void dev_sriov_read(struct pci_dev *d, int pos, struct dev_sriov *s)
{
	s->cap = pci_read_long(d, pos + PCI_IOV_CAP);
	s->ctrl = pci_read_word(d, pos + PCI_IOV_CTRL);
	s->initial_vfs = pci_read_word(d, pos + PCI_IOV_INITIALVF);
	s->total_vfs = pci_read_word(d, pos + PCI_IOV_TOTALVF);
	s->num_vfs = pci_read_word(d, pos + PCI_IOV_NUMVF);
	s->vf_offset = pci_read_word(d, pos + PCI_IOV_OFFSET);
	s->vf_stride = pci_read_word(d, pos + PCI_IOV_STRIDE);
	s->vf_device = pci_read_word(d, pos + PCI_IOV_DID);
	s->page_sizes = pci_read_long(d, pos + PCI_IOV_SUPPS);
	s->page_size = pci_read_long(d, pos + PCI_IOV_SYSPS);
}

static struct pci_dev *dev_find(struct pci_access *a, int domain, int rid)
{
	struct pci_dev *d;

	for (d = a->devices; d; d = d->next)
		if (d->domain == domain && d->bus == (rid >> 8) &&
		    ((d->dev << 3) | d->func) == (rid & 0xff))
			return d;
	return NULL;
}

/* The VFs NumVFs says exist; the routing ID arithmetic is the spec's. */
static int dev_vfs(struct pci_access *a, struct pci_dev *pd, struct dev_pf *pf)
{
	int rid = (pd->bus << 8) | (pd->dev << 3) | pd->func, i, vrid;
	struct pci_dev *vd;
	struct dev_vf *vf;

	pf->vfs = calloc(pf->sr.num_vfs ? pf->sr.num_vfs : 1, sizeof(*pf->vfs));
	if (!pf->vfs)
		return -ENOMEM;
	for (i = 0; i < pf->sr.num_vfs; i++) {
		vrid = rid + pf->sr.vf_offset + i * pf->sr.vf_stride;
		vf = &pf->vfs[pf->nr_vfs++];
		vf->index = i;
		dev_bdf(vf->bdf, pd->domain, (vrid >> 8) & 0xff,
			(vrid >> 3) & 0x1f, vrid & 7);
		vd = dev_find(a, pd->domain, vrid & 0xffff);
		vf->present = vd != NULL;
		if (vd) {
			pci_fill_info(vd, PCI_FILL_DRIVER);
			dev_driver(vd, vf->driver);
		}
	}
	return 0;
}

static int dev_add_pf(struct pci_access *a, struct pci_dev *d, int pos,
		      struct dev_list *l)
{
	struct dev_pf *pf, *grown;

	grown = realloc(l->pf, (l->nr_pf + 1) * sizeof(*l->pf));
	if (!grown)
		return -ENOMEM;
	l->pf = grown;
	pf = memset(&l->pf[l->nr_pf++], 0, sizeof(*pf));
	dev_bdf(pf->bdf, d->domain, d->bus, d->dev, d->func);
	pf->vendor = d->vendor_id;
	pf->device = d->device_id;
	dev_driver(d, pf->driver);
	dev_sriov_read(d, pos, &pf->sr);
	return dev_vfs(a, d, pf);
}

static int dev_pf_cmp(const void *x, const void *y)
{
	return strcmp(((const struct dev_pf *)x)->bdf,
		      ((const struct dev_pf *)y)->bdf);
}

/*
 * Whether config space past the 64-byte header reads back (the kernel cuts
 * an unprivileged read of sysfs' config there); every function has 256.
 */
static int dev_privileged(struct pci_access *a)
{
	u8 b[4];

	return !a->devices || pci_read_block(a->devices, 64, b, sizeof(b));
}

static int dev_walk(struct pci_access *a, struct dev_list *l)
{
	struct pci_cap *cap;
	struct pci_dev *d;
	int err;

	for (d = a->devices; d; d = d->next) {
		l->nr_devices++;
		pci_fill_info(d, DEV_FILL);
		cap = pci_find_cap(d, PCI_EXT_CAP_ID_SRIOV, PCI_CAP_EXTENDED);
		if (!cap)
			continue;
		err = dev_add_pf(a, d, cap->addr, l);
		if (err)
			return err;
	}
	if (l->nr_pf)
		qsort(l->pf, l->nr_pf, sizeof(*l->pf), dev_pf_cmp);
	return 0;
}

int dev_scan(struct dev_list *l, char *why, size_t n)
{
	struct pci_access *a = pci_alloc();
	int err;

	memset(l, 0, sizeof(*l));
	a->error = dev_pci_error;
	a->warning = dev_pci_quiet;	/* what matters is checked below */
	a->debug = dev_pci_quiet;
	pci_init(a);
	pci_scan_bus(a);
	if (!dev_privileged(a)) {
		snprintf(why, n, "PCI config space beyond 64 bytes is readable by root only (CAP_SYS_ADMIN): SR-IOV capabilities cannot be read; run as root");
		pci_cleanup(a);
		return -EACCES;
	}
	err = dev_walk(a, l);
	pci_cleanup(a);
	if (err) {
		snprintf(why, n, "%s", strerror(-err));
		dev_list_free(l);
	}
	return err;
}

void dev_list_free(struct dev_list *l)
{
	int i;

	for (i = 0; i < l->nr_pf; i++)
		free(l->pf[i].vfs);
	free(l->pf);
	l->pf = NULL;
	l->nr_pf = 0;
}
