/* SPDX-License-Identifier: GPL-2.0 */
/* stub: see kshim.h */
#include "kshim.h"
