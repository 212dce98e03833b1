/* SPDX-License-Identifier: (GPL-2.0 OR BSD-3-Clause) */
/*
 * compsc/precopy.h - the VF's configuration as pre-copy data: what a
 * pre-copy stream carries, what the stop-copy stream carries after one,
 * and how a destination puts the two together. Both host sides call these;
 * no glue decides any of it.
 *
 *   source, guest running:  compsc_host_save_config() -> the pre-copy
 *                           stream: the configuration records only (PF_VF,
 *                           PF_VF_EXT, DRIVER), built from the PF's export
 *                           and a checked copy of the live replay log
 *   source, device held:    compsc_host_save() with s->pre set -> the
 *                           stop-copy stream: registers and counters, then
 *                           either one PRECOPY record (the configuration,
 *                           read again now, is byte for byte the one the
 *                           pre-copy stream carried) or the configuration
 *                           records in full (it changed since)
 *   destination, RESUMING:  compsc_precopy_load() on the pre-copy stream
 *                           (applied to the VF before the switch-over);
 *                           compsc_precopy_merge() on the stop-copy
 *                           stream's view once it came
 *
 * The rule that keeps a changed configuration from going stale: the
 * source compares the configuration it reads with the device held against
 * the bytes it sent, never a flag or a guess; the destination takes the
 * pre-copy configuration only for a stop-copy stream that names that very
 * stream (length and CRC32C of every byte), and refuses one that names
 * another (-COMPSC_EPRECOPY).
 */
#ifndef COMPSC_PRECOPY_H
#define COMPSC_PRECOPY_H

#include "host.h"

/* The longest pre-copy stream compsc_host_save_config() builds. */
#define COMPSC_PRECOPY_MAX	COMPSC_HOST_STREAM_MAX

/* compsc_precopy_is_config() - does record @type belong to the configuration? */
int compsc_precopy_is_config(u16 type);

/*
 * compsc_precopy_add() - the configuration of @s into the stop-copy stream
 * being written to @w: a PRECOPY record if it equals the one s->pre carried
 * (a pre-copy stream for @id), else the records themselves.
 * Returns 1 (records written), 0 (PRECOPY record) or -COMPSC_E*.
 */
int compsc_precopy_add(struct compsc_stream_writer *w,
		       const struct compsc_host_save *s,
		       const struct compsc_ident *id);

/*
 * compsc_precopy_build() - the pre-copy stream for @id: the configuration
 * records of @s (s->pf, s->pf_ext, the packed log) into @out (@cap bytes).
 * Returns its length or -COMPSC_E*.
 */
int compsc_precopy_build(const struct compsc_host_save *s,
			 const struct compsc_ident *id, void *out, u32 cap);

/*
 * compsc_precopy_load() - a destination received a pre-copy stream: parse
 * it strictly for device @id; it may carry configuration records only.
 * Returns 0 (@v points into @buf) or -COMPSC_E* (-COMPSC_EMALFORMED for
 * any other record).
 */
int compsc_precopy_load(const void *buf, u32 len, const struct compsc_ident *id,
			struct compsc_stream_view *v);

/*
 * compsc_precopy_merge() - complete the stop-copy view @v with the
 * configuration of the pre-copy stream @pre (@pre_len bytes, parsed into
 * @pv by compsc_precopy_load(); NULL if none came) when @v names it.
 * Returns 1 (the configuration is @pre's, already applied at pre-copy),
 * 0 (@v carries its own, or none) or -COMPSC_EPRECOPY (@v names a
 * pre-copy stream that is not @pre) / -COMPSC_EMALFORMED (@v names one
 * and carries configuration records too).
 */
int compsc_precopy_merge(struct compsc_stream_view *v, const void *pre,
			 u32 pre_len, const struct compsc_stream_view *pv);

#endif /* COMPSC_PRECOPY_H */
