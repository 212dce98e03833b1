/* SPDX-License-Identifier: GPL-2.0 */
/* stub: see kshim.h; ixgbe_type.h embeds one in struct ixgbe_phy_info */
#include "kshim.h"
struct mdio_if_info { int prtad; };
