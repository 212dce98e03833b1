// SPDX-License-Identifier: GPL-2.0
/*
 * The PF section: the VF-in-PF state (MAC, VLANs, modes, rate) through the
 * CompSC operations the patched PF driver registered (compsc/kernel.h).
 */
#include <linux/pci.h>
#include <compsc/kernel.h>
#include "compsc_vfio.h"

/**
 * cvf_pf_export() - read what the PF holds for the VF
 * @pdev: the VF
 * @st: filled with the state
 *
 * Return: 1 (exported), 0 (the PF offers no CompSC ops: no PF section) or
 * -errno.
 */
int cvf_pf_export(struct pci_dev *pdev, struct compsc_pf_vf_state *st)
{
	const struct compsc_pf_ops *ops;
	struct pci_dev *pf = NULL;
	int vf = -1, err = 0;

	ops = compsc_vf_pf_ops_get(pdev, &pf, &vf);
	if (ops && ops->vf_export) {
		err = ops->vf_export(pf, vf, st);
		if (!err)
			err = 1;
	}
	compsc_vf_pf_ops_put(ops);
	if (err < 0)
		pci_err(pdev, "PF cannot export the VF's state: %d\n", err);
	return err;
}

/**
 * cvf_pf_apply() - the destination PF checks (@apply false) or imports the
 * PF section @rec (absent: nothing to do)
 * @pdev: the destination VF
 * @rec: the parsed PF_VF record (unaligned, inside the stream)
 * @apply: import rather than only check
 *
 * A stream with a PF section for a PF without CompSC ops is refused: the
 * VF would come up without its MAC and filters.
 *
 * Return: 0 or -errno.
 */
int cvf_pf_apply(struct pci_dev *pdev, const struct compsc_stream_rec *rec,
		 bool apply)
{
	const struct compsc_pf_ops *ops;
	struct compsc_pf_vf_state st;
	struct pci_dev *pf = NULL;
	int vf = -1, err = -EOPNOTSUPP;

	if (!rec->data)
		return 0;
	if (rec->len != sizeof(st))
		return -EINVAL;
	memcpy(&st, rec->data, sizeof(st));
	ops = compsc_vf_pf_ops_get(pdev, &pf, &vf);
	if (ops && apply && ops->vf_import)
		err = ops->vf_import(pf, vf, &st);
	else if (ops && !apply && ops->vf_check)
		err = ops->vf_check(pf, vf, &st);
	compsc_vf_pf_ops_put(ops);
	if (err)
		pci_err(pdev, "PF refused the VF's state (%s): %d\n",
			apply ? "import" : "check", err);
	return err;
}
