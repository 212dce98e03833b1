/* SPDX-License-Identifier: (GPL-2.0 OR BSD-3-Clause) */
/*
 * `compsc devices`: the SR-IOV PFs and VFs of this machine and the CompSC
 * state of each VF. Plain C types only: devices_pci.c includes libpci's
 * <pci/pci.h>, whose u8..u64 typedefs clash with libcompsc's, so neither
 * header may see the other.
 */
#ifndef COMPSC_DEVICES_H
#define COMPSC_DEVICES_H

#include <stddef.h>
#include <stdint.h>

#define DEV_BDF_LEN	16	/* "dddd:bb:dd.f" */
#define DEV_NAME_LEN	64	/* driver and interface names */

/* The SR-IOV extended capability of a PF (PCIe r6.0, 9.3.3). */
struct dev_sriov {
	uint32_t cap;		/* SR-IOV Capabilities register */
	uint16_t ctrl;		/* SR-IOV Control (VF Enable, ...) */
	uint16_t initial_vfs, total_vfs, num_vfs;
	uint16_t vf_offset, vf_stride, vf_device;
	uint32_t page_sizes, page_size;	/* supported, system (bit n: 4K << n) */
};
#define DEV_SRIOV_VFE	0x0001	/* SR-IOV Control: VF Enable */

/* A VF's mode as its driver reports it (ethtool -S compsc_mode). */
enum dev_mode {
	DEV_MODE_UNKNOWN,	/* no network interface to ask */
	DEV_MODE_STOCK,		/* an interface without CompSC counters */
	DEV_MODE_COMPSC,	/* compsc_mode = 1: a registered shared area */
};

struct dev_vf {
	int index;
	char bdf[DEV_BDF_LEN];
	int present;			/* seen on the bus */
	char driver[DEV_NAME_LEN];	/* "" when unbound */
	/* CompSC state, devices_state.c; -1 where not known */
	char netdev[DEV_NAME_LEN];
	int area;			/* 1/0: in compsc/areas or not */
	enum dev_mode mode;
	long long restores;		/* ethtool -S compsc_restores */
	long long migrations;		/* the host side's count */
	char mig_status[16];		/* "" when no source reports one */
	const char *mig_source;		/* "compsc_standin" or "compsc_vfio" */
	int mig_errno;
	char mig_reason[128];		/* why it was aborted; "" when not said */
};

struct dev_pf {
	char bdf[DEV_BDF_LEN];
	uint16_t vendor, device;
	char driver[DEV_NAME_LEN];
	struct dev_sriov sr;
	int nr_vfs;
	struct dev_vf *vfs;
};

struct dev_list {
	struct dev_pf *pf;
	int nr_pf;
	int nr_devices;		/* functions on the bus, SR-IOV or not */
	/* where the CompSC state came from, "" if it could not be read */
	char areas_err[128];	/* why compsc/areas is missing */
};

/* devices_pci.c: 0, or -1 and the reason in @why (@n bytes). */
int dev_scan(struct dev_list *l, char *why, size_t n);
void dev_list_free(struct dev_list *l);

/* devices_state.c: fill the CompSC fields of every VF in @l. */
void dev_state(struct dev_list *l);

#endif /* COMPSC_DEVICES_H */
