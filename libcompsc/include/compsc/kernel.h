/* SPDX-License-Identifier: GPL-2.0 */
/*
 * compsc/kernel.h - the one small in-kernel interface between the PF driver
 * and whichever host glue owns a VF (the stand-in, the VFIO variant
 * driver). Kernel only; lives in compsc.ko.
 *
 * The PF driver registers itself, publishes the area each VF's guest driver
 * registered over the mailbox, and offers its VF-in-PF state operations. The
 * glue looks all of this up by the VF's pci_dev when it migrates.
 */
#ifndef COMPSC_KERNEL_H
#define COMPSC_KERNEL_H

#include <linux/types.h>
#include <compsc/compsc.h>
#include <compsc/host.h>	/* COMPSC_PF_MAX_VFS */

struct pci_dev;
struct module;

/* VF-in-PF state operations of a CompSC-aware PF driver (issue: PF side). */
struct compsc_pf_ops {
	struct module *owner;	/* calls hold no reference: see compsc_pf_unregister() */
	/* Fill @st with everything the PF holds for @vf. */
	int (*vf_export)(struct pci_dev *pf, int vf,
			 struct compsc_pf_vf_state *st);
	/*
	 * Would @st fit @vf once its state is forgotten (a fresh destination
	 * VF)? 0 or the -errno vf_import() would return; changes nothing.
	 * Lets the glue refuse a migration before the source loses its VF.
	 */
	int (*vf_check)(struct pci_dev *pf, int vf,
			const struct compsc_pf_vf_state *st);
	/* Apply @st to @vf, all or nothing; -errno if it does not fit. */
	int (*vf_import)(struct pci_dev *pf, int vf,
			 const struct compsc_pf_vf_state *st);
	/* Forget @vf's state, as a fresh destination host's PF would. */
	int (*vf_forget)(struct pci_dev *pf, int vf);
	/*
	 * Complete @vf's reset handshake on its behalf, as the VF's RESET
	 * mailbox message would (receive/transmit enabled, clear to send),
	 * keeping the state vf_import() applied. Optional: without it the
	 * guest resets the VF itself after a migration.
	 */
	int (*vf_enable)(struct pci_dev *pf, int vf);
	/*
	 * Optional, for a PF that holds more for a VF than the PF_VF record
	 * does (ixgbe: MAC filters, the mailbox API version, RSS query
	 * permission): vf_export, vf_check and vf_import with the PF_VF_EXT
	 * record @x beside @st, used in their place when set. On export the
	 * PF fills @x (zeroed; nr_macs says how much of it travels) and sets
	 * @x->ext.lost for anything it holds that cannot travel. On check and
	 * import @x is NULL when the stream has no PF_VF_EXT (an older
	 * source): the PF takes @st, and the host leaves the guest to reset
	 * and replay. A PF_VF_EXT record is refused by a PF without them.
	 */
	int (*vf_export_ext)(struct pci_dev *pf, int vf,
			     struct compsc_pf_vf_state *st,
			     struct compsc_pf_vf_xstate *x);
	int (*vf_check_ext)(struct pci_dev *pf, int vf,
			    const struct compsc_pf_vf_state *st,
			    const struct compsc_pf_vf_xstate *x);
	int (*vf_import_ext)(struct pci_dev *pf, int vf,
			     const struct compsc_pf_vf_state *st,
			     const struct compsc_pf_vf_xstate *x);
	/*
	 * Optional: stop all of @vf's DMA (@pause) through what only the PF
	 * writes (the 82576's per-pool receive and transmit enables), or give
	 * back what it had (!@pause), so that a VM paused in any state of its
	 * driver gets its device back exactly as it left it: the host never
	 * touches the VF's own registers, and never waits for the guest. Safe
	 * in atomic context. A reset of the VF ends the pause (its driver sets
	 * it up again, and the handshake enables it); enables the VF's own
	 * handshake asks for meanwhile are given at the pause's end.
	 */
	int (*vf_pause)(struct pci_dev *pf, int vf, bool pause);
};

/** compsc_pf_register() - a PF driver announces itself (@ops may be NULL). */
int compsc_pf_register(struct pci_dev *pf, const struct compsc_pf_ops *ops);
/*
 * compsc_pf_unregister() - the PF goes away; its VFs' areas are dropped.
 * Waits for the calls of its ops in flight: the driver's remove calls it
 * before it frees what they use, and never with RTNL held (they take it).
 */
void compsc_pf_unregister(struct pci_dev *pf);
/*
 * compsc_pf_area_set() - PF side, may be called in atomic context: the guest
 * behind @vf registered its area at @gpa (@size bytes); 0/0 unregisters.
 */
int compsc_pf_area_set(struct pci_dev *pf, int vf, u64 gpa, u32 size);

/** compsc_vf_area_get() - glue side: the area registered for VF @vfdev. */
int compsc_vf_area_get(struct pci_dev *vfdev, u64 *gpa, u32 *size);
/*
 * compsc_vf_area_claim() - glue side: @claim(@arg) with the registry's lock
 * held (atomic context), if VF @vfdev's area is still @gpa (@size bytes):
 * a withdrawal the PF records (compsc_pf_area_set()) comes before or after
 * the whole call. Returns 0 (called) or -ENOENT (not registered there).
 */
int compsc_vf_area_claim(struct pci_dev *vfdev, u64 gpa, u32 size,
			 void (*claim)(void *arg), void *arg);
/*
 * compsc_vf_area_set() - glue side: the guest's area for VF @vfdev is now
 * at @gpa (@size bytes), as if the guest had registered it; 0/0 forgets it
 * (the VF changes owner).
 */
int compsc_vf_area_set(struct pci_dev *vfdev, u64 gpa, u32 size);
/*
 * One call of a VF's PF ops, from compsc_vf_pf_get() to compsc_vf_pf_put():
 * the PF driver's compsc_pf_unregister() waits for it, so the ops may use
 * the driver's private data. Nothing in it may wait for the PF's remove.
 */
struct compsc_pf_call {
	const struct compsc_pf_ops *ops;	/* NULL: the PF offers none */
	struct pci_dev *pf;
	int vf;
	int srcu_idx;
};

/*
 * compsc_vf_pf_get() - glue side: the PF ops for @vfdev, its PF and VF
 * index in @c. Return: 0 (call compsc_vf_pf_put(@c) when done) or -ENODEV
 * (no PF driver registered for @vfdev's PF, or it went away; nothing held).
 */
int compsc_vf_pf_get(struct pci_dev *vfdev, struct compsc_pf_call *c);
/** compsc_vf_pf_put() - the call @c is over. */
void compsc_vf_pf_put(struct compsc_pf_call *c);

/* Module init/exit only: debugfs compsc/areas lists the registered areas. */
void compsc_registry_debugfs_init(void);
void compsc_registry_debugfs_exit(void);

#endif /* COMPSC_KERNEL_H */
