/* SPDX-License-Identifier: GPL-2.0 */
/* stub: see kshim.h */
#include "kshim.h"

#ifndef VENDOR_SHIM_IF_VLAN_H
#define VENDOR_SHIM_IF_VLAN_H
#define VLAN_N_VID	4096
#define VLAN_VID_MASK	0x0fff
#ifndef DECLARE_BITMAP
#define DECLARE_BITMAP(name, bits) \
	unsigned long name[((bits) + 8 * sizeof(long) - 1) / (8 * sizeof(long))]
#endif
#endif
