// SPDX-License-Identifier: (GPL-2.0 OR BSD-3-Clause)
/*
 * Pretty-print a stream view that compsc_stream_parse() accepted: the
 * parser checked sizes and contents, so entries are only copied out (the
 * payload has no alignment guarantee) and named.
 */
#include "cli.h"

#include <string.h>

static const char *const pfvf_flag_names[] = {
	"mac_admin", "spoofchk", "trust", "promisc_uc", "promisc_mc",
};
#define NR_PFVF_FLAGS	(sizeof(pfvf_flag_names) / sizeof(pfvf_flag_names[0]))

static const char *const pfext_flag_names[] = { "rss_query", "mc_none" };
static const char *const pfext_lost_names[] = { "ipsec", "macs" };
#define NR_PFEXT_FLAGS	2
#define NR_PFEXT_LOST	2

/* A PF_VF_EXT record the parser accepted, copied out aligned. */
static void pf_ext_get(const struct compsc_stream_rec *r,
		       struct compsc_pf_vf_xstate *x)
{
	memset(x, 0, sizeof(*x));
	memcpy(x, r->data, r->len);
}

static void mac_str(char *out, const u8 *m)
{
	snprintf(out, 18, "%02x:%02x:%02x:%02x:%02x:%02x", m[0], m[1], m[2],
		 m[3], m[4], m[5]);
}

/*
 * Register and replay key names only for the device they belong to: the
 * model compsc_devmodel_find() gives for the stream's PCI ID. For an ID
 * the CLI has no model for, offsets and keys print raw.
 */
static const struct cli_dev *stream_dev(const struct compsc_stream_view *v)
{
	return cli_dev_by_id(v->ident.vendor, v->ident.device);
}

static const char *reg_name(const struct compsc_stream_view *v, u8 bar,
			    u32 offset)
{
	const struct cli_dev *d = stream_dev(v);

	return d ? d->reg_name(bar, offset) : NULL;
}

static cli_key_name_fn key_namer(const struct compsc_stream_view *v)
{
	const struct cli_dev *d = stream_dev(v);

	return d ? d->key_name : NULL;
}

/* Known record types present in @v, in wire order (END excluded). */
static u32 stream_order(const struct compsc_stream_view *v, u16 *types)
{
	u32 n = 0, i;
	u16 t, tmp;

	for (t = COMPSC_REC_END + 1; t < COMPSC_REC_NR_KNOWN; t++)
		if (v->rec[t].data)
			types[n++] = t;
	for (i = 1; i < n; i++)	/* insertion sort by position, n <= 6 */
		for (t = (u16)i; t && v->rec[types[t]].data <
				      v->rec[types[t - 1]].data; t--) {
			tmp = types[t];
			types[t] = types[t - 1];
			types[t - 1] = tmp;
		}
	return n;
}

static u32 rec_offset(const struct compsc_stream_rec *r, const u8 *buf)
{
	return (u32)(r->data - buf) - (u32)sizeof(struct compsc_rec_hdr);
}

static u32 stream_crc(const struct compsc_stream_view *v)
{
	struct compsc_rec_end e;

	memcpy(&e, v->rec[COMPSC_REC_END].data, sizeof(e));
	return le32_to_cpu(e.crc32c);
}

/* ------------------------------------------------------------ text */

/* REGS entries are 12 or 16 bytes: count them by walking. */
static u32 regs_count(const struct compsc_stream_rec *r)
{
	struct compsc_rec_reg e;
	u32 n = 0, off = 0;
	u64 value;

	while (off < r->len &&
	       (off = compsc_rec_reg_get(r->data, r->len, off, &e, &value)))
		n++;
	return n;
}

static void text_regs(const struct compsc_stream_view *v,
		      const struct compsc_stream_rec *r)
{
	struct compsc_rec_reg e;
	const char *name;
	u32 i = 0, off = 0;
	u64 value;

	printf("  %-4s %-4s %-10s %-5s %-11s %-18s %s\n", "#", "bar", "offset",
	       "width", "kind", "value", "name");
	while (off < r->len &&
	       (off = compsc_rec_reg_get(r->data, r->len, off, &e, &value))) {
		name = reg_name(v, e.bar, le32_to_cpu(e.offset));
		printf("  %-4u %-4u 0x%08x %-5u %-11s 0x%0*llx%*s %s\n", i++,
		       e.bar, le32_to_cpu(e.offset), e.width,
		       cli_kind_name(e.kind), e.width * 2,
		       (unsigned long long)value, e.width == 4 ? 8 : 0, "",
		       name ? name : "-");
	}
}

static void text_counters(const struct compsc_stream_view *v,
			  const struct compsc_stream_rec *r)
{
	struct compsc_rec_counter c;
	const char *name;
	u32 i, n = r->len / sizeof(c);

	printf("  %-4s %-4s %-10s %-11s %-10s %s\n", "#", "bar", "offset",
	       "kind", "hw_final", "name");
	for (i = 0; i < n; i++) {
		memcpy(&c, r->data + i * sizeof(c), sizeof(c));
		name = reg_name(v, c.bar, le32_to_cpu(c.offset));
		printf("  %-4u %-4u 0x%08x %-11s 0x%08x %s\n", i, c.bar,
		       le32_to_cpu(c.offset), cli_kind_name(c.kind),
		       le32_to_cpu(c.hw_final), name ? name : "-");
	}
}

static void text_u16_list(const char *label, const __le16 *a, u16 n, int hex)
{
	u16 i;

	printf("  %-12s %u:", label, n);
	for (i = 0; i < n; i++)
		printf(hex ? " 0x%03x" : " %u", le16_to_cpu(a[i]));
	putchar('\n');
}

static void text_pf_vf(const struct compsc_stream_rec *r)
{
	struct compsc_pf_vf_state s;
	u16 flags;
	u32 i;

	compsc_pf_vf_unpack(r->data, r->len, &s);
	flags = le16_to_cpu(s.flags);
	printf("  %-12s %u\n", "vf_index", le16_to_cpu(s.vf_index));
	printf("  %-12s 0x%04x", "flags", flags);
	for (i = 0; i < NR_PFVF_FLAGS; i++)
		if (flags & (1u << i))
			printf(" %s", pfvf_flag_names[i]);
	printf("\n  %-12s %02x:%02x:%02x:%02x:%02x:%02x\n", "mac", s.mac[0],
	       s.mac[1], s.mac[2], s.mac[3], s.mac[4], s.mac[5]);
	printf("  %-12s %u (qos %u)\n", "port_vlan", le16_to_cpu(s.port_vlan),
	       s.port_qos);
	printf("  %-12s %s\n", "link_state", cli_link_state_name(s.link_state));
	printf("  %-12s %u Mbit/s%s\n", "max_tx_rate", le16_to_cpu(s.max_tx_rate),
	       s.max_tx_rate ? "" : " (unlimited)");
	printf("  %-12s %u%s\n", "max_frame", le16_to_cpu(s.max_frame),
	       s.max_frame ? "" : " (default)");
	text_u16_list("vlans", s.vlans, le16_to_cpu(s.nr_vlans), 0);
	text_u16_list("mc_hashes", s.mc_hashes, le16_to_cpu(s.nr_mc), 1);
}

/* @bits named by @names (@n of them); bits past them as "bitN". */
static void text_bits(u32 bits, const char *const *names, u32 n)
{
	u32 i;

	for (i = 0; i < 32; i++)
		if (bits & (1u << i)) {
			if (i < n)
				printf(" %s", names[i]);
			else
				printf(" bit%u", i);
		}
	putchar('\n');
}

static void text_pf_ext(const struct compsc_stream_rec *r)
{
	static struct compsc_pf_vf_xstate x;
	char mac[18];
	u32 i, n;

	pf_ext_get(r, &x);
	n = le16_to_cpu(x.ext.nr_macs);
	printf("  %-12s 0x%04x", "flags", le16_to_cpu(x.ext.flags));
	text_bits(le16_to_cpu(x.ext.flags), pfext_flag_names, NR_PFEXT_FLAGS);
	printf("  %-12s %u\n", "mbx_api", le32_to_cpu(x.ext.mbx_api));
	printf("  %-12s 0x%08x%s", "lost", le32_to_cpu(x.ext.lost),
	       x.ext.lost ? " (the destination leaves the guest to reset):" :
			    " (nothing)\n");
	if (x.ext.lost)
		text_bits(le32_to_cpu(x.ext.lost), pfext_lost_names,
			  NR_PFEXT_LOST);
	printf("  %-12s %u:", "macs", n);
	for (i = 0; i < n; i++) {
		mac_str(mac, x.macs[i].mac);
		printf(" %s", mac);
	}
	putchar('\n');
}

static void text_driver(const struct compsc_stream_view *v,
			const struct compsc_stream_rec *r)
{
	u32 i, n = r->len < 64 ? r->len : 64;
	char why[CLI_WHY_MAX];

	if (!cli_replay_text(r->data, r->len, 1, "  ", key_namer(v), why))
		return;
	printf("  opaque (%s)%s:", why, r->len > n ? ", first 64 bytes" : "");
	for (i = 0; i < n; i++)
		printf("%s%02x", i % 16 ? " " : "\n    ", r->data[i]);
	putchar('\n');
}

static void text_rec(const struct compsc_stream_view *v, u16 t, const u8 *buf)
{
	const struct compsc_stream_rec *r = &v->rec[t];
	static const u32 entry[COMPSC_REC_NR_KNOWN] = {
		[COMPSC_REC_COUNTERS] = sizeof(struct compsc_rec_counter),
		[COMPSC_REC_HOST_COUNTERS] = sizeof(struct compsc_rec_counter),
	};

	printf("\n%s at offset %u: %u bytes%s", cli_rec_name(t),
	       rec_offset(r, buf), r->len,
	       r->flags & COMPSC_REC_F_MANDATORY ? ", mandatory" : "");
	if (entry[t])
		printf(", %u entries", r->len / entry[t]);
	if (t == COMPSC_REC_REGS)
		printf(", %u entries", regs_count(r));
	if (t == COMPSC_REC_PF_VF_EXT)
		printf(", %u entries", (r->len - (u32)sizeof(struct compsc_pf_vf_ext)) /
		       (u32)sizeof(struct compsc_pf_vf_mac));
	putchar('\n');
	if (t == COMPSC_REC_REGS)
		text_regs(v, r);
	else if (t == COMPSC_REC_COUNTERS || t == COMPSC_REC_HOST_COUNTERS)
		text_counters(v, r);
	else if (t == COMPSC_REC_PF_VF)
		text_pf_vf(r);
	else if (t == COMPSC_REC_PF_VF_EXT)
		text_pf_ext(r);
	else
		text_driver(v, r);
}

void stream_text(const struct compsc_stream_view *v, const char *file,
		 const u8 *buf)
{
	const struct compsc_ident *id = &v->ident;
	u16 types[COMPSC_REC_NR_KNOWN];
	u32 i, n = stream_order(v, types);

	printf("%-12s %s\n", "stream", file);
	printf("%-12s %u.%u\n", "format", v->major, v->minor);
	printf("%-12s %04x:%04x (subsystem %04x:%04x)\n", "device", id->vendor,
	       id->device, id->subsys_vendor, id->subsys_device);
	printf("%-12s %u bytes\n", "total_len", v->total_len);
	printf("%-12s %u known + END, %u unknown optional skipped\n", "records",
	       n, v->nr_unknown);
	for (i = 0; i < n; i++)
		text_rec(v, types[i], buf);
	printf("\nEND at offset %u: crc32c 0x%08x ok\n",
	       rec_offset(&v->rec[COMPSC_REC_END], buf), stream_crc(v));
}

/* ------------------------------------------------------------ JSON */

/* The columns every register-like entry starts with (REGS and COUNTERS). */
static void json_reg_head(struct jw *j, u8 bar, __le32 offset, u8 width,
			  u8 kind)
{
	jw_obj(j, NULL);
	jw_u64(j, "bar", bar);
	jw_u64(j, "offset", le32_to_cpu(offset));
	jw_u64(j, "width", width);
	jw_str(j, "kind", cli_kind_name(kind));
}

/* ...and the one it ends with: the register's name, or null. */
static void json_reg_tail(struct jw *j, const struct compsc_stream_view *v,
			  u8 bar, __le32 offset)
{
	const char *name = reg_name(v, bar, le32_to_cpu(offset));

	if (name)
		jw_str(j, "name", name);
	else
		jw_null(j, "name");
	jw_end_obj(j);
}

static void json_regs(struct jw *j, const struct compsc_stream_view *v,
		      const struct compsc_stream_rec *r)
{
	struct compsc_rec_reg e;
	u32 off = 0;
	u64 value;

	jw_arr(j, "regs");
	while (off < r->len &&
	       (off = compsc_rec_reg_get(r->data, r->len, off, &e, &value))) {
		json_reg_head(j, e.bar, e.offset, e.width, e.kind);
		jw_u64(j, "value", value);
		json_reg_tail(j, v, e.bar, e.offset);
	}
	jw_end_arr(j);
}

static void json_counters(struct jw *j, const struct compsc_stream_view *v,
			  const struct compsc_stream_rec *r)
{
	struct compsc_rec_counter c;
	u32 i, n = r->len / sizeof(c);

	jw_arr(j, "counters");
	for (i = 0; i < n; i++) {
		memcpy(&c, r->data + i * sizeof(c), sizeof(c));
		json_reg_head(j, c.bar, c.offset, c.width, c.kind);
		jw_u64(j, "hw_final", le32_to_cpu(c.hw_final));
		json_reg_tail(j, v, c.bar, c.offset);
	}
	jw_end_arr(j);
}

static void json_u16_list(struct jw *j, const char *key, const __le16 *a,
			  u16 n)
{
	u16 i;

	jw_arr(j, key);
	for (i = 0; i < n; i++)
		jw_u64(j, NULL, le16_to_cpu(a[i]));
	jw_end_arr(j);
}

static void json_pf_vf(struct jw *j, const struct compsc_stream_rec *r)
{
	struct compsc_pf_vf_state s;
	char mac[18];
	u32 i;

	compsc_pf_vf_unpack(r->data, r->len, &s);
	snprintf(mac, sizeof(mac), "%02x:%02x:%02x:%02x:%02x:%02x", s.mac[0],
		 s.mac[1], s.mac[2], s.mac[3], s.mac[4], s.mac[5]);
	jw_obj(j, "pf_vf");
	jw_u64(j, "vf_index", le16_to_cpu(s.vf_index));
	jw_u64(j, "flags", le16_to_cpu(s.flags));
	jw_arr(j, "flag_names");
	for (i = 0; i < NR_PFVF_FLAGS; i++)
		if (le16_to_cpu(s.flags) & (1u << i))
			jw_str(j, NULL, pfvf_flag_names[i]);
	jw_end_arr(j);
	jw_str(j, "mac", mac);
	jw_u64(j, "port_vlan", le16_to_cpu(s.port_vlan));
	jw_u64(j, "port_qos", s.port_qos);
	jw_str(j, "link_state", cli_link_state_name(s.link_state));
	jw_u64(j, "max_tx_rate", le16_to_cpu(s.max_tx_rate));
	jw_u64(j, "max_frame", le16_to_cpu(s.max_frame));
	json_u16_list(j, "vlans", s.vlans, le16_to_cpu(s.nr_vlans));
	json_u16_list(j, "mc_hashes", s.mc_hashes, le16_to_cpu(s.nr_mc));
	jw_end_obj(j);
}

static void json_bits(struct jw *j, const char *key, u32 bits,
		      const char *const *names, u32 n)
{
	char other[8];
	u32 i;

	jw_arr(j, key);
	for (i = 0; i < 32; i++)
		if (bits & (1u << i)) {
			snprintf(other, sizeof(other), "bit%u", i);
			jw_str(j, NULL, i < n ? names[i] : other);
		}
	jw_end_arr(j);
}

static void json_pf_ext(struct jw *j, const struct compsc_stream_rec *r)
{
	static struct compsc_pf_vf_xstate x;
	char mac[18];
	u32 i;

	pf_ext_get(r, &x);
	jw_obj(j, "pf_vf_ext");
	jw_u64(j, "flags", le16_to_cpu(x.ext.flags));
	json_bits(j, "flag_names", le16_to_cpu(x.ext.flags), pfext_flag_names,
		  NR_PFEXT_FLAGS);
	jw_u64(j, "mbx_api", le32_to_cpu(x.ext.mbx_api));
	jw_u64(j, "lost", le32_to_cpu(x.ext.lost));
	json_bits(j, "lost_names", le32_to_cpu(x.ext.lost), pfext_lost_names,
		  NR_PFEXT_LOST);
	jw_arr(j, "macs");
	for (i = 0; i < le16_to_cpu(x.ext.nr_macs); i++) {
		mac_str(mac, x.macs[i].mac);
		jw_str(j, NULL, mac);
	}
	jw_end_arr(j);
	jw_end_obj(j);
}

static void json_rec(struct jw *j, const struct compsc_stream_view *v, u16 t,
		     const u8 *buf)
{
	const struct compsc_stream_rec *r = &v->rec[t];

	jw_obj(j, NULL);
	jw_str(j, "type", cli_rec_name(t));
	jw_u64(j, "type_id", t);
	jw_u64(j, "offset", rec_offset(r, buf));
	jw_u64(j, "len", r->len);
	jw_bool(j, "mandatory", r->flags & COMPSC_REC_F_MANDATORY);
	if (t == COMPSC_REC_REGS)
		json_regs(j, v, r);
	else if (t == COMPSC_REC_COUNTERS || t == COMPSC_REC_HOST_COUNTERS)
		json_counters(j, v, r);
	else if (t == COMPSC_REC_PF_VF)
		json_pf_vf(j, r);
	else if (t == COMPSC_REC_PF_VF_EXT)
		json_pf_ext(j, r);
	else {
		cli_replay_json(j, "replay", r->data, r->len, 1, key_namer(v));
		jw_hex(j, "data_hex", r->data, r->len);
	}
	jw_end_obj(j);
}

static void json_ident(struct jw *j, const struct compsc_ident *id)
{
	char s[10];

	snprintf(s, sizeof(s), "%04x:%04x", id->vendor, id->device);
	jw_obj(j, "device");
	jw_str(j, "id", s);
	jw_u64(j, "vendor", id->vendor);
	jw_u64(j, "device", id->device);
	jw_u64(j, "subsys_vendor", id->subsys_vendor);
	jw_u64(j, "subsys_device", id->subsys_device);
	jw_end_obj(j);
}

void stream_json(const struct compsc_stream_view *v, const char *file,
		 const u8 *buf)
{
	u16 types[COMPSC_REC_NR_KNOWN];
	u32 i, n = stream_order(v, types);
	struct jw j;

	jw_init(&j, stdout);
	jw_obj(&j, NULL);
	jw_str(&j, "file", file);
	jw_obj(&j, "format");
	jw_u64(&j, "major", v->major);
	jw_u64(&j, "minor", v->minor);
	jw_end_obj(&j);
	json_ident(&j, &v->ident);
	jw_u64(&j, "total_len", v->total_len);
	jw_u64(&j, "record_count", n + 1 + v->nr_unknown);
	jw_u64(&j, "unknown_optional_skipped", v->nr_unknown);
	jw_arr(&j, "records");
	for (i = 0; i < n; i++)
		json_rec(&j, v, types[i], buf);
	jw_end_arr(&j);
	jw_u64(&j, "crc32c", stream_crc(v));
	jw_bool(&j, "crc_ok", 1);
	jw_end_obj(&j);
	jw_done(&j);
}
