/* SPDX-License-Identifier: (GPL-2.0 OR BSD-3-Clause) */
/*
 * What sync.c (the lock protocol) lends to the rest of libcompsc: the
 * write side's wait, for the take and for the host's drain (host.c).
 * Private to libcompsc: not installed, not exported.
 */
#ifndef COMPSC_SYNC_INT_H
#define COMPSC_SYNC_INT_H

#include <compsc/compsc.h>

int __compsc_writer_wait(struct compsc_area_ctl *ctl,
			 const struct compsc_slot *slots, u32 nr_slots,
			 const struct compsc_env *env, u64 timeout_ns,
			 bool claim);

#endif /* COMPSC_SYNC_INT_H */
