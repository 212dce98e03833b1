// SPDX-License-Identifier: (GPL-2.0 OR BSD-3-Clause)
/*
 * The VF models libcompsc knows, found by PCI ID: the one place a host
 * learns which model drives a VF, so that no host names a device itself.
 */
#include <compsc/compsc.h>
#include <compsc/dev_82576vf.h>
#include <compsc/dev_82599vf.h>
#include <compsc/host.h>

static const struct compsc_devmodel *const compsc_devmodels[] = {
	&compsc_82576vf_model,
	&compsc_82599vf_model,
	NULL
};

/**
 * compsc_devmodel_find() - the model of a VF
 * @vendor: its PCI vendor ID
 * @device: its PCI device ID
 *
 * Return: the model, or NULL if libcompsc has none for this VF.
 */
const struct compsc_devmodel *compsc_devmodel_find(u16 vendor, u16 device)
{
	const struct compsc_devmodel *const *dm;

	for (dm = compsc_devmodels; *dm; dm++)
		if ((*dm)->vendor == vendor && (*dm)->device == device)
			return *dm;
	return NULL;
}

COMPSC_EXPORT(compsc_devmodel_find);
