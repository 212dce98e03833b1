// SPDX-License-Identifier: GPL-2.0
/*
 * The kernel half of the host side (see compsc/host.h), shared by the VFIO
 * variant driver and the stand-in: the writer's environment, the
 * VF's identity and BAR, the VF's PF reached through the CompSC ops it
 * registered (each call takes and drops the PF module's reference and
 * the PF device's), and
 * the hand-over that spares the guest its own reset and replay.
 */
#include <linux/delay.h>
#include <linux/io.h>
#include <linux/ktime.h>
#include <linux/module.h>
#include <linux/pci.h>
#include <linux/slab.h>
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

struct compsc_host_claim {
	struct compsc_area_ctl *ctl;
	int err;
};

static void compsc_host_claim(void *arg)
{
	struct compsc_host_claim *c = arg;

	c->err = compsc_writer_claim(c->ctl);
}

/**
 * compsc_host_take_registered() - compsc_host_take() on the area the guest
 * has registered for @vfdev, and only while it has
 * @vfdev: the VF
 * @a: the checked area, as the registry named it before the take
 * @d: the device (bar mapped, env set)
 * @timeout_ns: bound on the readers' drain
 *
 * The guest may withdraw its area at any time before the take holds it,
 * and then free the pages: the take's first write, its claim of the
 * writer word, is made under the registry's lock while the area is still
 * registered, so a withdrawal the PF recorded first leaves the pages
 * untouched, and one recorded after finds the word held and waits (the
 * guest frees only once it set the word WITHDRAWN: compsc_reader_withdraw()).
 * A withdrawal during the readers' drain (from inside the read side) is
 * seen after it: the write side is let go at once, no status written.
 *
 * Return: as compsc_host_take(), or -COMPSC_ESTATE (withdrawn: not held).
 */
int compsc_host_take_registered(struct pci_dev *vfdev,
				struct compsc_host_area *a,
				struct compsc_host_dev *d, u64 timeout_ns)
{
	struct compsc_host_claim c = { .ctl = compsc_host_ctl(a) };
	u32 size;
	u64 gpa;
	int err;

	if (compsc_vf_area_claim(vfdev, a->gpa, a->size, compsc_host_claim,
				 &c) || c.err == -COMPSC_ESTATE) {
		pci_warn(vfdev, "guest withdrew its area before the take: nothing written\n");
		return -COMPSC_ESTATE;
	}
	if (c.err)
		return c.err;
	err = compsc_host_take_claimed(a, d, timeout_ns);
	if (err)
		return err;
	if (!compsc_vf_area_get(vfdev, &gpa, &size) && gpa == a->gpa &&
	    size == a->size)
		return 0;
	compsc_host_queues_restart(d);
	compsc_writer_abort(compsc_host_ctl(a));
	pci_warn(vfdev, "guest withdrew its area during the take: not taken\n");
	return -COMPSC_ESTATE;
}
EXPORT_SYMBOL_GPL(compsc_host_take_registered);

/* ---- the VF's PF ------------------------------------------------------------ */

/*
 * A call of the VF's PF ops (compsc_vf_pf_get()); said once here when the
 * PF has no driver that offers them, e.g. because it was unbound during
 * the migration: the step fails rather than go on without the PF's state.
 */
static int compsc_host_pf_get(struct pci_dev *vfdev, struct compsc_pf_call *c,
			      const char *what)
{
	int err = compsc_vf_pf_get(vfdev, c);

	if (err)
		dev_err_ratelimited(&vfdev->dev,
				    "the VF's PF driver is gone (or is no CompSC PF driver): %s refused\n",
				    what);
	return err;
}

/**
 * compsc_host_pf_export() - read what the VF's PF holds for it
 * @vfdev: the VF
 * @st: filled with the PF_VF state
 * @x: filled with the PF_VF_EXT state, for a PF that holds more
 *
 * Return: the sections exported: 0 (the PF offers no CompSC ops: the
 * stream carries no PF section), 1 (@st), 2 (@st and @x), -ENODEV (no
 * CompSC PF driver, e.g. unbound meanwhile) or the PF driver's -errno.
 */
int compsc_host_pf_export(struct pci_dev *vfdev,
			  struct compsc_pf_vf_state *st,
			  struct compsc_pf_vf_xstate *x)
{
	const struct compsc_pf_ops *ops;
	struct compsc_pf_call c;
	int ret;

	ret = compsc_host_pf_get(vfdev, &c, "export");
	if (ret)
		return ret;
	ops = c.ops;
	if (ops && ops->vf_export_ext) {
		memset(x, 0, sizeof(*x));
		ret = ops->vf_export_ext(c.pf, c.vf, st, x) ?: 2;
	} else if (ops && ops->vf_export) {
		ret = ops->vf_export(c.pf, c.vf, st) ?: 1;
	}
	compsc_vf_pf_put(&c);
	if (ret < 0)
		pci_err(vfdev, "PF cannot export the VF's state: %d\n", ret);
	else if (ret == 2 && x->ext.lost)
		pci_warn(vfdev, "PF holds VF state no stream carries (lost 0x%x): the destination will leave the guest to reset\n",
			 le32_to_cpu(x->ext.lost));
	return ret;
}
EXPORT_SYMBOL_GPL(compsc_host_pf_export);

/* The PF holds more than PF_VF: it takes PF_VF_EXT sections. */
static bool compsc_host_ext_pf(const struct compsc_pf_ops *ops)
{
	return ops && ops->vf_import_ext && ops->vf_check_ext;
}

/* The PF's check or import of @p; -EOPNOTSUPP if it cannot take it. */
static int compsc_host_pf_call(const struct compsc_pf_call *c,
			       const struct compsc_host_pf *p, bool apply)
{
	const struct compsc_pf_vf_xstate *x = p->has_x ? &p->x : NULL;
	const struct compsc_pf_ops *ops = c->ops;

	if (compsc_host_ext_pf(ops))
		return apply ? ops->vf_import_ext(c->pf, c->vf, &p->st, x) :
			       ops->vf_check_ext(c->pf, c->vf, &p->st, x);
	if (!ops || x)	/* PF_VF_EXT's state would be lost here */
		return -EOPNOTSUPP;
	if (apply && ops->vf_import)
		return ops->vf_import(c->pf, c->vf, &p->st);
	if (!apply && ops->vf_check)
		return ops->vf_check(c->pf, c->vf, &p->st);
	return -EOPNOTSUPP;
}

/* Log once, on import, why the guest restores its own configuration. */
static int compsc_host_pf_judge(struct pci_dev *vfdev,
				const struct compsc_host_pf *p, bool ext_pf)
{
	u32 lost;

	if (compsc_host_pf_whole(p, ext_pf, &lost))
		return 1;
	if (lost)
		pci_warn(vfdev, "source PF held VF state no stream carries (lost 0x%x): the guest resets and replays\n",
			 lost);
	else if (p->has_st)
		pci_info(vfdev, "stream has no PF_VF_EXT for this PF: the guest resets and replays\n");
	return 0;
}

/**
 * compsc_host_pf_apply() - the destination PF checks (@apply false: would
 * it fit, changing nothing) or imports the PF sections of @v
 * @vfdev: the destination VF
 * @v: a stream compsc_host_load() accepted; no PF section: nothing to do
 * @apply: import rather than only check
 *
 * A PF section for a PF without CompSC ops is refused: the VF would come
 * up without its MAC and filters; so is a PF_VF_EXT section for a PF that
 * cannot take it.
 *
 * Return: 1 (imported, and the PF holds the VF's whole state: the host
 * may complete the VF's reset handshake), 0 (checked, nothing to import,
 * or imported short of the whole state) or -errno.
 */
int compsc_host_pf_apply(struct pci_dev *vfdev,
			 const struct compsc_stream_view *v, bool apply)
{
	struct compsc_host_pf *p;
	struct compsc_pf_call c;
	int err;

	p = kmalloc(sizeof(*p), GFP_KERNEL);
	if (!p)
		return -ENOMEM;
	err = compsc_host_pf_sections(v, p) ? -EINVAL : 0;
	if (err || !p->has_st)
		goto out;
	err = compsc_host_pf_get(vfdev, &c, apply ? "import" : "check");
	if (err)
		goto out;
	err = compsc_host_pf_call(&c, p, apply);
	if (!err && apply)
		err = compsc_host_pf_judge(vfdev, p, compsc_host_ext_pf(c.ops));
	compsc_vf_pf_put(&c);
out:
	if (err < 0)
		pci_err(vfdev, "PF refused the VF's state (%s): %d\n",
			apply ? "import" : "check", err);
	kfree(p);
	return err;
}
EXPORT_SYMBOL_GPL(compsc_host_pf_apply);

/**
 * compsc_host_pf_forget() - the PF forgets the VF's state, as a fresh
 * destination's PF would (@probe: only ask whether it can)
 *
 * Return: 0, -EOPNOTSUPP (the PF cannot), -ENODEV (no CompSC PF driver)
 * or the PF driver's -errno.
 */
int compsc_host_pf_forget(struct pci_dev *vfdev, bool probe)
{
	struct compsc_pf_call c;
	int err;

	err = compsc_vf_pf_get(vfdev, &c);	/* -ENODEV: nothing to forget */
	if (err)
		return err;
	err = -EOPNOTSUPP;
	if (c.ops && c.ops->vf_forget)
		err = probe ? 0 : c.ops->vf_forget(c.pf, c.vf);
	compsc_vf_pf_put(&c);
	return err;
}
EXPORT_SYMBOL_GPL(compsc_host_pf_forget);

/**
 * compsc_host_pf_pause() - the VF's PF stops all of its DMA (@pause) or
 * gives back what it had, without touching the VF's registers or waiting
 * for the guest (compsc_pf_ops.vf_pause)
 * @vfdev: the VF
 * @pause: stop, or give back
 *
 * Return: 0, -EOPNOTSUPP (the PF cannot), -ENODEV (no CompSC PF driver)
 * or the PF driver's -errno.
 */
int compsc_host_pf_pause(struct pci_dev *vfdev, bool pause)
{
	struct compsc_pf_call c;
	int err;

	err = compsc_vf_pf_get(vfdev, &c);	/* the caller says why */
	if (err)
		return err;
	err = -EOPNOTSUPP;
	if (c.ops && c.ops->vf_pause)
		err = c.ops->vf_pause(c.pf, c.vf, pause);
	compsc_vf_pf_put(&c);
	return err;
}
EXPORT_SYMBOL_GPL(compsc_host_pf_pause);

/* The VF's PF completes its reset handshake; false if it cannot. */
static bool compsc_host_vf_enable(struct pci_dev *vfdev)
{
	struct compsc_pf_call c;
	int err;

	err = compsc_host_pf_get(vfdev, &c, "reset handshake");
	if (err)
		return false;
	err = -EOPNOTSUPP;
	if (c.ops && c.ops->vf_enable)
		err = c.ops->vf_enable(c.pf, c.vf);
	compsc_vf_pf_put(&c);
	return !err;
}

/**
 * compsc_host_vf_handover() - destination, just before the hand-over: make
 * the guest's restore need no mailbox message if this host can
 * @vfdev: the destination VF, its reset handled by its PF
 * @imported: the VF's PF imported the stream's PF sections and holds the
 *	VF's whole state (compsc_host_pf_apply() returned 1)
 * @gpa: the guest's area, as the stream names it
 * @size: its size
 * @ctl: the area's control line (the host holds the device)
 *
 * The area is published for the next migration as if the guest had
 * registered it. Only a PF that holds the VF's whole configuration (the
 * imported PF sections: every filter the VF asked for and every
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
