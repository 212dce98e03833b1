// SPDX-License-Identifier: GPL-2.0
/*
 * The kernel half of the host side (see compsc/host.h), shared by the VFIO
 * variant driver and the bench stand-in: the writer's environment, the
 * VF's identity and BAR, the VF's PF reached through the CompSC ops it
 * registered (each call takes and drops the PF module's reference), and
 * the hand-over that spares the guest its own reset and replay.
 */
#include <linux/delay.h>
#include <linux/io.h>
#include <linux/ktime.h>
#include <linux/module.h>
#include <linux/pci.h>
#include <linux/smp.h>
#include <compsc/host.h>
#include <compsc/kernel.h>

/* ---- the writer's environment -------------------------------------------- */

static u64 compsc_host_now_ns(void *ctx)
{
	return ktime_get_ns();
}

static void compsc_host_relax(void *ctx)
{
	usleep_range(10, 50);
}

static void compsc_host_fence_ipi(void *info)
{
	smp_mb();	/* this CPU's earlier stores, a guest vCPU's included */
}

/*
 * The guest's readers run on this host's CPUs (vCPU threads, or the bench's
 * own driver): an IPI to every CPU is a full barrier on each, so every
 * reader's slot store is visible or the reader will see HELD.
 */
static void compsc_host_fence_readers(void *ctx)
{
	struct compsc_host_kenv *k = ctx;
	u64 t = ktime_get_ns();

	on_each_cpu(compsc_host_fence_ipi, NULL, 1);
	k->fence_ns += ktime_get_ns() - t;
}

/** compsc_host_kenv_init() - the kernel's time, sleep and reader fence. */
void compsc_host_kenv_init(struct compsc_host_kenv *k)
{
	k->env.ctx = k;
	k->env.now_ns = compsc_host_now_ns;
	k->env.relax = compsc_host_relax;
	k->env.fence_readers = compsc_host_fence_readers;
	k->fence_ns = 0;
}
EXPORT_SYMBOL_GPL(compsc_host_kenv_init);

/* ---- the VF ---------------------------------------------------------------- */

/** compsc_host_ident() - the identity a stream names: @pdev's PCI IDs. */
void compsc_host_ident(struct pci_dev *pdev, struct compsc_ident *id)
{
	id->vendor = pdev->vendor;
	id->device = pdev->device;
	id->subsys_vendor = pdev->subsystem_vendor;
	id->subsys_device = pdev->subsystem_device;
}
EXPORT_SYMBOL_GPL(compsc_host_ident);

/**
 * compsc_host_bar_map() - map the model's part of @pdev's BAR0
 *
 * Return: the mapping (pci_iounmap() it) or NULL: no such BAR, or smaller
 * than the model says (not the device the model describes).
 */
void __iomem *compsc_host_bar_map(struct pci_dev *pdev,
				  const struct compsc_devmodel *dm)
{
	if (!(pci_resource_flags(pdev, 0) & IORESOURCE_MEM) ||
	    pci_resource_len(pdev, 0) < dm->bar0_size)
		return NULL;
	return pci_iomap(pdev, 0, dm->bar0_size);
}
EXPORT_SYMBOL_GPL(compsc_host_bar_map);

/* ---- the VF's PF ------------------------------------------------------------ */

/**
 * compsc_host_pf_export() - read what the VF's PF holds for it
 * @vfdev: the VF
 * @st: filled with the state
 *
 * Return: 1 (exported), 0 (the PF offers no CompSC ops: the stream carries
 * no PF section) or the PF driver's -errno.
 */
int compsc_host_pf_export(struct pci_dev *vfdev,
			  struct compsc_pf_vf_state *st)
{
	const struct compsc_pf_ops *ops;
	struct pci_dev *pf = NULL;
	int vf = -1, err = 0;

	ops = compsc_vf_pf_ops_get(vfdev, &pf, &vf);
	if (ops && ops->vf_export) {
		err = ops->vf_export(pf, vf, st);
		if (!err)
			err = 1;
	}
	compsc_vf_pf_ops_put(ops);
	if (err < 0)
		pci_err(vfdev, "PF cannot export the VF's state: %d\n", err);
	return err;
}
EXPORT_SYMBOL_GPL(compsc_host_pf_export);

/**
 * compsc_host_pf_apply() - the destination PF checks (@apply false: would
 * it fit, changing nothing) or imports the PF section @rec
 * @vfdev: the destination VF
 * @rec: the parsed PF_VF record (unaligned, inside the stream); absent:
 *	nothing to do
 * @apply: import rather than only check
 *
 * A PF section for a PF without CompSC ops is refused: the VF would come
 * up without its MAC and filters.
 *
 * Return: 0 or -errno.
 */
int compsc_host_pf_apply(struct pci_dev *vfdev,
			 const struct compsc_stream_rec *rec, bool apply)
{
	const struct compsc_pf_ops *ops;
	struct compsc_pf_vf_state st;
	struct pci_dev *pf = NULL;
	int vf = -1, err = -EOPNOTSUPP;

	if (!rec->data)
		return 0;
	if (rec->len != sizeof(st))
		return -EINVAL;	/* the parser checked the size already */
	memcpy(&st, rec->data, sizeof(st));
	ops = compsc_vf_pf_ops_get(vfdev, &pf, &vf);
	if (ops && apply && ops->vf_import)
		err = ops->vf_import(pf, vf, &st);
	else if (ops && !apply && ops->vf_check)
		err = ops->vf_check(pf, vf, &st);
	compsc_vf_pf_ops_put(ops);
	if (err)
		pci_err(vfdev, "PF refused the VF's state (%s): %d\n",
			apply ? "import" : "check", err);
	return err;
}
EXPORT_SYMBOL_GPL(compsc_host_pf_apply);

/**
 * compsc_host_pf_forget() - the PF forgets the VF's state, as a fresh
 * destination's PF would (@probe: only ask whether it can)
 *
 * Return: 0, -EOPNOTSUPP (the PF cannot) or the PF driver's -errno.
 */
int compsc_host_pf_forget(struct pci_dev *vfdev, bool probe)
{
	const struct compsc_pf_ops *ops;
	struct pci_dev *pf = NULL;
	int vf = -1, err = -EOPNOTSUPP;

	ops = compsc_vf_pf_ops_get(vfdev, &pf, &vf);
	if (ops && ops->vf_forget)
		err = probe ? 0 : ops->vf_forget(pf, vf);
	compsc_vf_pf_ops_put(ops);
	return err;
}
EXPORT_SYMBOL_GPL(compsc_host_pf_forget);

/* The VF's PF completes its reset handshake; false if it cannot. */
static bool compsc_host_vf_enable(struct pci_dev *vfdev)
{
	const struct compsc_pf_ops *ops;
	struct pci_dev *pf = NULL;
	int vf = -1, err = -EOPNOTSUPP;

	ops = compsc_vf_pf_ops_get(vfdev, &pf, &vf);
	if (ops && ops->vf_enable)
		err = ops->vf_enable(pf, vf);
	compsc_vf_pf_ops_put(ops);
	return !err;
}

/**
 * compsc_host_vf_handover() - destination, just before the hand-over: make
 * the guest's restore need no mailbox message if this host can
 * @vfdev: the destination VF, its reset handled by its PF
 * @imported: the stream's PF_VF record was imported into the VF's PF
 * @gpa: the guest's area, as the stream names it
 * @size: its size
 * @ctl: the area's control line (the host holds the device)
 *
 * The area is published for the next migration as if the guest had
 * registered it. Only a PF that holds the VF's whole configuration (the
 * imported PF_VF record: every filter the VF asked for and every
 * administrator setting) and completes the VF's reset handshake lets the
 * guest skip its own reset and replay; anything less leaves
 * COMPSC_F_HOST_CONFIGURED clear and the guest restores the old way.
 *
 * Return: whether the flag was set.
 */
bool compsc_host_vf_handover(struct pci_dev *vfdev, bool imported, u64 gpa,
			     u32 size, struct compsc_area_ctl *ctl)
{
	bool done = imported && !compsc_vf_area_set(vfdev, gpa, size) &&
		    compsc_host_vf_enable(vfdev);
	u32 flags = le32_to_cpu(READ_ONCE(ctl->flags));

	if (done)
		flags |= COMPSC_F_HOST_CONFIGURED;
	else
		flags &= ~COMPSC_F_HOST_CONFIGURED;
	WRITE_ONCE(ctl->flags, cpu_to_le32(flags));
	return done;
}
EXPORT_SYMBOL_GPL(compsc_host_vf_handover);
