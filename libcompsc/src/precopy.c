// SPDX-License-Identifier: (GPL-2.0 OR BSD-3-Clause)
/*
 * The VF's configuration as pre-copy data (see compsc/precopy.h): the one
 * place that says which records are configuration, what a pre-copy stream
 * may hold, when a stop-copy stream may leave the configuration out and
 * how a destination checks that it holds what the source relied on.
 */
#include <compsc/compsc.h>
#include <compsc/precopy.h>

#define COMPSC_PRECOPY_NR_TYPES	3

/* The configuration records, in the order they are written. */
static const u16 compsc_precopy_types[COMPSC_PRECOPY_NR_TYPES] = {
	COMPSC_REC_DRIVER, COMPSC_REC_PF_VF, COMPSC_REC_PF_VF_EXT,
};

int compsc_precopy_is_config(u16 type)
{
	u32 i;

	for (i = 0; i < COMPSC_PRECOPY_NR_TYPES; i++)
		if (compsc_precopy_types[i] == type)
			return 1;
	return 0;
}
COMPSC_EXPORT(compsc_precopy_is_config);

/*
 * Record @type of the configuration in @s: its bytes (NULL: absent). A
 * PF_VF record is packed into @pf; a state that cannot be packed gives
 * length 0, which the writer refuses.
 */
static const void *compsc_precopy_rec(const struct compsc_host_save *s,
				      u16 type, u8 *pf, u32 *len)
{
	int ret;

	*len = 0;
	if (type == COMPSC_REC_DRIVER && s->driver_bytes) {
		*len = s->driver_bytes;
		return s->replay;
	}
	if (type == COMPSC_REC_PF_VF && s->pf) {
		ret = compsc_pf_vf_pack(s->pf, pf);
		*len = ret < 0 ? 0 : (u32)ret;
		return pf;
	}
	if (type == COMPSC_REC_PF_VF_EXT && s->pf && s->pf_ext) {
		*len = compsc_pf_vf_xlen(s->pf_ext);
		return s->pf_ext;
	}
	return NULL;
}

/* The configuration records of @s into @w (errors stay in @w). */
static void compsc_precopy_write(struct compsc_stream_writer *w,
				 const struct compsc_host_save *s)
{
	u8 pf[sizeof(struct compsc_pf_vf_state)];
	const void *data;
	u32 i, len;

	for (i = 0; i < COMPSC_PRECOPY_NR_TYPES; i++) {
		data = compsc_precopy_rec(s, compsc_precopy_types[i], pf, &len);
		if (data)
			compsc_stream_add(w, compsc_precopy_types[i],
					  COMPSC_REC_F_MANDATORY, data, len);
	}
}

/* Is the configuration of @s, byte for byte, the one @pv carries? */
static int compsc_precopy_same(const struct compsc_stream_view *pv,
			       const struct compsc_host_save *s)
{
	u8 pf[sizeof(struct compsc_pf_vf_state)];
	const struct compsc_stream_rec *r;
	const void *data;
	u32 i, len;

	for (i = 0; i < COMPSC_PRECOPY_NR_TYPES; i++) {
		r = &pv->rec[compsc_precopy_types[i]];
		data = compsc_precopy_rec(s, compsc_precopy_types[i], pf, &len);
		if (!data != !r->data)
			return 0;
		if (data && (r->len != len || memcmp(r->data, data, len)))
			return 0;
	}
	return 1;
}

int compsc_precopy_add(struct compsc_stream_writer *w,
		       const struct compsc_host_save *s,
		       const struct compsc_ident *id)
{
	struct compsc_stream_view pv;
	struct compsc_rec_precopy ref;

	if (!s->pre || compsc_precopy_load(s->pre, s->pre_len, id, &pv) ||
	    !compsc_precopy_same(&pv, s)) {
		compsc_precopy_write(w, s);
		return 1;
	}
	ref.len = cpu_to_le32(s->pre_len);
	ref.crc32c = cpu_to_le32(compsc_crc32c(0, s->pre, s->pre_len));
	return compsc_stream_add(w, COMPSC_REC_PRECOPY, COMPSC_REC_F_MANDATORY,
				 &ref, sizeof(ref));
}
COMPSC_EXPORT(compsc_precopy_add);

int compsc_precopy_build(const struct compsc_host_save *s,
			 const struct compsc_ident *id, void *out, u32 cap)
{
	struct compsc_stream_writer w;
	int err;

	err = compsc_stream_begin(&w, out, cap, id);
	if (err)
		return err;
	compsc_precopy_write(&w, s);
	return compsc_stream_end(&w);
}
COMPSC_EXPORT(compsc_precopy_build);

int compsc_precopy_load(const void *buf, u32 len, const struct compsc_ident *id,
			struct compsc_stream_view *v)
{
	u16 type;
	int err;

	err = compsc_stream_parse(buf, len, id, COMPSC_PRECOPY_MAX, v);
	if (err)
		return err;
	for (type = COMPSC_REC_END + 1; type < COMPSC_REC_NR_KNOWN; type++) {
		if (v->rec[type].data && !compsc_precopy_is_config(type)) {
			v->err_offset = (u32)(v->rec[type].data - (const u8 *)buf);
			return -COMPSC_EMALFORMED;
		}
	}
	return 0;
}
COMPSC_EXPORT(compsc_precopy_load);

int compsc_precopy_merge(struct compsc_stream_view *v, const void *pre,
			 u32 pre_len, const struct compsc_stream_view *pv)
{
	const struct compsc_stream_rec *r = &v->rec[COMPSC_REC_PRECOPY];
	struct compsc_rec_precopy ref;
	u32 i;

	if (!r->data)
		return 0;
	for (i = 0; i < COMPSC_PRECOPY_NR_TYPES; i++)
		if (v->rec[compsc_precopy_types[i]].data)
			return -COMPSC_EMALFORMED;
	memcpy(&ref, r->data, sizeof(ref));
	if (!pre || !pv || le32_to_cpu(ref.len) != pre_len ||
	    le32_to_cpu(ref.crc32c) != compsc_crc32c(0, pre, pre_len))
		return -COMPSC_EPRECOPY;
	for (i = 0; i < COMPSC_PRECOPY_NR_TYPES; i++)
		v->rec[compsc_precopy_types[i]] = pv->rec[compsc_precopy_types[i]];
	return 1;
}
COMPSC_EXPORT(compsc_precopy_merge);
