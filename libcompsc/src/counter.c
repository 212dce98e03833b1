// SPDX-License-Identifier: (GPL-2.0 OR BSD-3-Clause)
/*
 * Self-emulated statistics: 32-bit hardware counters extended to 64 bits,
 * igbvf's last/base pattern carried across migrations.
 *
 * Read-only (RO) counters free-run and wrap at 2^32: the u32 difference to
 * the last raw value is the exact increment as long as the driver samples
 * more often than one wrap. Read-clear (RC) counters restart at 0 on every
 * read, so each raw value is itself the increment.
 *
 * No lock: a counter is updated by one context at a time (the driver's
 * stats path), like igbvf_update_stats().
 */
#include <compsc/compsc.h>

int compsc_counter_init(struct compsc_counter *c, u8 kind, u32 hw_now)
{
	if (!c || (kind != COMPSC_REG_COUNTER_RO &&
		   kind != COMPSC_REG_COUNTER_RC))
		return -COMPSC_EINVAL;
	memset(c, 0, sizeof(*c));
	c->kind = kind;
	/* RC: reading @hw_now cleared the register; what it held predates us */
	c->last = kind == COMPSC_REG_COUNTER_RO ? hw_now : 0;
	return 0;
}
COMPSC_EXPORT(compsc_counter_init);

u64 compsc_counter_update(struct compsc_counter *c, u32 hw)
{
	if (c->kind == COMPSC_REG_COUNTER_RC) {
		c->total += hw;
	} else {
		c->total += (u32)(hw - c->last);
		c->last = hw;
	}
	return c->total;
}
COMPSC_EXPORT(compsc_counter_update);

/*
 * @hw_final is what the source register held when the host took the device
 * (its last value for us): absorbed like a normal update. On the
 * destination an RO counter continues from whatever @hw_now it shows (a VF
 * reset does not clear it); an RC counter was cleared by the read of
 * @hw_now, so that value, like at init, is not ours.
 */
u64 compsc_counter_rebase(struct compsc_counter *c, u32 hw_final, u32 hw_now)
{
	compsc_counter_update(c, hw_final);
	if (c->kind != COMPSC_REG_COUNTER_RC)
		c->last = hw_now;
	return c->total;
}
COMPSC_EXPORT(compsc_counter_rebase);
