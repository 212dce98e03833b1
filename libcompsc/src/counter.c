// SPDX-License-Identifier: (GPL-2.0 OR BSD-3-Clause)
/* placeholder: being written */
#include <compsc/compsc.h>
