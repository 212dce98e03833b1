// SPDX-License-Identifier: GPL-2.0
/*
 * The PF section of a migration: the VF-in-PF state (admin MAC, port VLAN
 * and QoS, spoof check, trust, rate, the VF's filters) through the PF
 * driver's CompSC operations (compsc/kernel.h).
 *
 * Source side: vf_export() into the stream's PF_VF record. Destination
 * side, after the strict parse: vf_check() before the VF is reset, then
 * vf_import() once the reset was handled. On the bench the source and the
 * destination are the same VF, so a destination that refuses the state
 * must refuse before the source's VF is reset: that is what vf_check() is
 * for, and why a refusal leaves the source running as it was. A real
 * destination host checks its own PF at the same point of the protocol
 * (before it reports the device loaded); its refusal never touches the
 * source.
 */
#include <linux/pci.h>
#include <compsc/kernel.h>
#include "bench.h"

/* VLANs for pf_import=unfit: one more than a 82576 VLVF table holds. */
#define BENCH_UNFIT_VLAN0	1000

/**
 * bench_pf_export() - read the VF's PF-side state, if the PF offers it
 * @pdev: the VF
 * @st: filled with the state
 * @res: pf_bytes is set, msg on failure
 *
 * Return: 1 (exported), 0 (the PF driver has no CompSC ops: the stream
 * carries no PF section) or -errno.
 */
int bench_pf_export(struct pci_dev *pdev, struct compsc_pf_vf_state *st,
		    struct bench_result *res)
{
	const struct compsc_pf_ops *ops;
	struct pci_dev *pf = NULL;
	int vf = -1, err;

	ops = compsc_vf_pf_ops_get(pdev, &pf, &vf);
	if (!ops || !ops->vf_export) {
		compsc_vf_pf_ops_put(ops);
		return 0;
	}
	err = ops->vf_export(pf, vf, st);
	compsc_vf_pf_ops_put(ops);
	if (err) {
		snprintf(res->msg, sizeof(res->msg),
			 "PF cannot export the VF's state: %d", err);
		return err;
	}
	res->pf_bytes = sizeof(struct compsc_rec_hdr) + sizeof(*st);
	return 1;
}

/**
 * bench_pf_make_unfit() - turn @st into a state no 82576 PF can take
 * @st: an exported state
 *
 * Still a valid record (the parser accepts it): 32 VLAN filters, but the
 * VLVF table has 31 entries besides VLAN 0's, so the destination's check
 * must refuse it.
 */
void bench_pf_make_unfit(struct compsc_pf_vf_state *st)
{
	u16 i;

	for (i = 0; i < COMPSC_PF_MAX_VLANS; i++)
		st->vlans[i] = cpu_to_le16(BENCH_UNFIT_VLAN0 + i);
	st->nr_vlans = cpu_to_le16(COMPSC_PF_MAX_VLANS);
}

/* vf_check (@apply false) or vf_import (@apply true) on the VF's PF. */
static int bench_pf_call(struct pci_dev *pdev,
			 const struct compsc_pf_vf_state *st, bool apply)
{
	const struct compsc_pf_ops *ops;
	struct pci_dev *pf = NULL;
	int vf = -1, err = -EOPNOTSUPP;

	ops = compsc_vf_pf_ops_get(pdev, &pf, &vf);
	if (ops && apply && ops->vf_import)
		err = ops->vf_import(pf, vf, st);
	else if (ops && !apply && ops->vf_check)
		err = ops->vf_check(pf, vf, st);
	compsc_vf_pf_ops_put(ops);
	return err;
}

/**
 * bench_pf_apply() - the destination takes the PF section
 * @pdev: the (destination) VF
 * @rec: the parsed PF_VF record (unaligned, inside the stream)
 * @apply: false: only check that it fits; true: import it
 * @res: pf_import is set, msg on refusal
 *
 * Return: 0 or the PF driver's -errno.
 */
int bench_pf_apply(struct pci_dev *pdev, const struct compsc_stream_rec *rec,
		   bool apply, struct bench_result *res)
{
	struct compsc_pf_vf_state st;
	int err;

	if (rec->len != sizeof(st))
		return -EINVAL;	/* the parser checked the size already */
	memcpy(&st, rec->data, sizeof(st));
	err = bench_pf_call(pdev, &st, apply);
	if (err) {
		res->pf_import = "refused";
		snprintf(res->msg, sizeof(res->msg),
			 "destination PF refused the VF's state (%s): %d",
			 apply ? "import" : "check", err);
		return err;
	}
	res->pf_import = apply ? "done" : "checked";
	return 0;
}
