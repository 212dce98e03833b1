// SPDX-License-Identifier: (GPL-2.0 OR BSD-3-Clause)
/*
 * Print an area that compsc_area_check() accepted: every section lies
 * inside the dump and the used counts are within capacity, so entries can
 * be read in place. The replay log is printed from the copy
 * compsc_area_snapshot_replay() judged. Entry contents are the guest's and are shown as they
 * are (an unknown kind prints as "unknown"); the policy verdict says
 * whether the host would accept them.
 */
#include "cli.h"

#include <string.h>

static const char *const ctl_flag_names[] = { "dirty_log", "host_counters",
						"host_configured", "mem_copied" };
#define NR_CTL_FLAGS	(sizeof(ctl_flag_names) / sizeof(ctl_flag_names[0]))

const char *cli_status_text(__s32 st)
{
	if (st > 0 || st <= -COMPSC_E_MAX)
		return "unknown status";
	return compsc_strerror(st);
}

static const char *writer_name(u32 w)
{
	return w == COMPSC_WRITER_FREE ? "free" :
	       w == COMPSC_WRITER_HELD ? "held" :
	       w == COMPSC_WRITER_ENDING ? "ending" :
	       w == COMPSC_WRITER_WITHDRAWN ? "withdrawn" : "unknown";
}

/* Registers are named for the VF the policy is for ("structure": none). */
static const char *area_reg_name(const struct area_ctx *a, u8 bar, u32 off)
{
	const struct cli_dev *d = cli_dev_by_policy(a->policy_name);

	return d ? d->reg_name(bar, off) : NULL;
}

/* Replay keys are named for the driver the policy is for, as registers are. */
static cli_key_name_fn area_key_namer(const struct area_ctx *a)
{
	const struct cli_dev *d = cli_dev_by_policy(a->policy_name);

	return d ? d->key_name : NULL;
}

static u64 area_readers(struct area_ctx *a)
{
	return compsc_readers_inside(compsc_area_slots(a->h),
				     le16_to_cpu(a->h->nr_slots));
}

/* ------------------------------------------------------------ text */

static void text_sec(const char *name, u32 off, u32 len, const char *extra)
{
	printf("%-12s %-9s %-7u %u%s\n", "", name, off, len, extra);
}

static void text_layout(const struct compsc_area_hdr *h)
{
	u32 rmax = le16_to_cpu(h->reg_max), cmax = le16_to_cpu(h->counter_max);
	char slots[32], regs[32], ctrs[32];

	snprintf(slots, sizeof(slots), " (%u slots)", le16_to_cpu(h->nr_slots));
	snprintf(regs, sizeof(regs), " (%u of %u used)",
		 le16_to_cpu(h->reg_count), rmax);
	snprintf(ctrs, sizeof(ctrs), " (%u of %u used)",
		 le16_to_cpu(h->counter_count), cmax);
	printf("%-12s %-9s %-7s %s\n", "layout", "section", "offset", "bytes");
	text_sec("header", 0, (u32)sizeof(*h), "");
	text_sec("control", le32_to_cpu(h->ctl_off),
		 (u32)sizeof(struct compsc_area_ctl), "");
	text_sec("slots", le32_to_cpu(h->slots_off),
		 le16_to_cpu(h->nr_slots) * (u32)sizeof(struct compsc_slot), slots);
	text_sec("regs", le32_to_cpu(h->reg_off),
		 rmax * (u32)sizeof(struct compsc_reg), regs);
	text_sec("saved", le32_to_cpu(h->saved_off), rmax * 8u, "");
	text_sec("counters", le32_to_cpu(h->counter_off),
		 cmax * (u32)sizeof(struct compsc_counter_desc), ctrs);
	text_sec("replay", le32_to_cpu(h->replay_off),
		 le32_to_cpu(h->replay_len), "");
}

static void text_ctl(struct area_ctx *a)
{
	const struct compsc_area_ctl *c = compsc_area_ctl(a->h);
	u32 flags = le32_to_cpu(c->flags), i;
	__s32 st = (__s32)le32_to_cpu(c->host_status);

	printf("%-12s writer %s (%u), version %llu, dirty_gen %llu\n", "control",
	       writer_name(le32_to_cpu(c->writer)), le32_to_cpu(c->writer),
	       (unsigned long long)le64_to_cpu(c->version),
	       (unsigned long long)le64_to_cpu(c->dirty_gen));
	printf("%-12s flags 0x%08x", "", flags);
	for (i = 0; i < NR_CTL_FLAGS; i++)
		if (flags & (1u << i))
			printf(" %s", ctl_flag_names[i]);
	if (flags & ~COMPSC_F_KNOWN)
		printf(" +unknown bits");
	printf("\n%-12s host_status %d (%s)\n", "", st, cli_status_text(st));
	printf("%-12s %llu inside\n", "readers",
	       (unsigned long long)area_readers(a));
}

static void text_regs(struct area_ctx *a)
{
	const struct compsc_reg *r = compsc_area_regs(a->h);
	const __le64 *saved = compsc_area_saved(a->h);
	u32 i, n = le16_to_cpu(a->h->reg_count);
	const char *name;

	printf("\nregisters    %u\n", n);
	if (n)
		printf("  %-4s %-4s %-10s %-5s %-11s %-18s %s\n", "#", "bar",
		       "offset", "width", "kind", "saved", "name");
	for (i = 0; i < n; i++) {
		name = area_reg_name(a, r[i].bar, le32_to_cpu(r[i].offset));
		printf("  %-4u %-4u 0x%08x %-5u %-11s 0x%016llx %s\n", i, r[i].bar,
		       le32_to_cpu(r[i].offset), r[i].width,
		       cli_kind_name(r[i].kind),
		       (unsigned long long)le64_to_cpu(saved[i]),
		       name ? name : "-");
	}
}

static void text_counters(struct area_ctx *a)
{
	const struct compsc_counter_desc *c = compsc_area_counters(a->h);
	u32 i, n = le16_to_cpu(a->h->counter_count);
	const char *name;

	printf("\ncounters     %u\n", n);
	if (n)
		printf("  %-4s %-4s %-10s %-11s %-5s %-10s %-20s %s\n", "#", "bar",
		       "offset", "kind", "saved", "hw_final", "total", "name");
	for (i = 0; i < n; i++) {
		name = area_reg_name(a, c[i].bar, le32_to_cpu(c[i].offset));
		printf("  %-4u %-4u 0x%08x %-11s %-5s 0x%08x %-20llu %s\n", i,
		       c[i].bar, le32_to_cpu(c[i].offset), cli_kind_name(c[i].kind),
		       c[i].flags & COMPSC_CTR_F_SAVED ? "yes" : "no",
		       le32_to_cpu(c[i].hw_final),
		       (unsigned long long)le64_to_cpu(c[i].total),
		       name ? name : "-");
	}
}

/* The replay log as compsc_area_snapshot_replay() judged it. */
static void text_replay(struct area_ctx *a)
{
	u32 room = le32_to_cpu(a->h->replay_len);
	char why[CLI_WHY_MAX];

	if (a->replay_n < 0)
		printf("invalid %s\n", a->replay_refusal); /* "replay log: ..." */
	else if (compsc_replay_blank(a->replay, room))
		printf("replay log: none (never formatted)\n");
	else if (cli_replay_text(a->replay, room, 0, "", area_key_namer(a),
				 why))
		printf("invalid %s\n", why);	/* judged twice: cannot differ */
}

void area_text(struct area_ctx *a)
{
	const struct compsc_area_hdr *h = a->h;

	printf("%-12s %s (%u bytes read)\n", "area", a->f.path, a->f.len);
	printf("%-12s %u.%u\n", "abi", le16_to_cpu(h->abi_major),
	       le16_to_cpu(h->abi_minor));
	printf("%-12s %u bytes\n", "size", le32_to_cpu(h->size));
	text_layout(h);
	text_ctl(a);
	printf("%-12s %s: %s\n", "policy", a->policy_name,
	       a->refusal[0] ? a->refusal : "ok");
	text_regs(a);
	text_counters(a);
	putchar('\n');
	text_replay(a);
}

/* ------------------------------------------------------------ JSON */

static void json_layout(struct jw *j, const struct compsc_area_hdr *h)
{
	jw_obj(j, "layout");
	jw_u64(j, "nr_slots", le16_to_cpu(h->nr_slots));
	jw_u64(j, "reg_max", le16_to_cpu(h->reg_max));
	jw_u64(j, "reg_count", le16_to_cpu(h->reg_count));
	jw_u64(j, "counter_max", le16_to_cpu(h->counter_max));
	jw_u64(j, "counter_count", le16_to_cpu(h->counter_count));
	jw_u64(j, "ctl_off", le32_to_cpu(h->ctl_off));
	jw_u64(j, "slots_off", le32_to_cpu(h->slots_off));
	jw_u64(j, "reg_off", le32_to_cpu(h->reg_off));
	jw_u64(j, "saved_off", le32_to_cpu(h->saved_off));
	jw_u64(j, "counter_off", le32_to_cpu(h->counter_off));
	jw_u64(j, "replay_off", le32_to_cpu(h->replay_off));
	jw_u64(j, "replay_len", le32_to_cpu(h->replay_len));
	jw_end_obj(j);
}

static void json_ctl(struct jw *j, struct area_ctx *a)
{
	const struct compsc_area_ctl *c = compsc_area_ctl(a->h);
	u32 flags = le32_to_cpu(c->flags), i;
	__s32 st = (__s32)le32_to_cpu(c->host_status);

	jw_obj(j, "control");
	jw_str(j, "writer", writer_name(le32_to_cpu(c->writer)));
	jw_u64(j, "writer_raw", le32_to_cpu(c->writer));
	jw_u64(j, "version", le64_to_cpu(c->version));
	jw_u64(j, "dirty_gen", le64_to_cpu(c->dirty_gen));
	jw_u64(j, "flags", flags);
	jw_arr(j, "flag_names");
	for (i = 0; i < NR_CTL_FLAGS; i++)
		if (flags & (1u << i))
			jw_str(j, NULL, ctl_flag_names[i]);
	jw_end_arr(j);
	jw_s64(j, "host_status", st);
	jw_str(j, "host_status_text", cli_status_text(st));
	jw_end_obj(j);
}

static void json_name(struct jw *j, const char *name)
{
	if (name)
		jw_str(j, "name", name);
	else
		jw_null(j, "name");
}

static void json_regs(struct jw *j, struct area_ctx *a)
{
	const struct compsc_reg *r = compsc_area_regs(a->h);
	const __le64 *saved = compsc_area_saved(a->h);
	u32 i, n = le16_to_cpu(a->h->reg_count);

	jw_arr(j, "regs");
	for (i = 0; i < n; i++) {
		jw_obj(j, NULL);
		jw_u64(j, "bar", r[i].bar);
		jw_u64(j, "offset", le32_to_cpu(r[i].offset));
		jw_u64(j, "width", r[i].width);
		jw_str(j, "kind", cli_kind_name(r[i].kind));
		jw_u64(j, "kind_id", r[i].kind);
		jw_u64(j, "flags", r[i].flags);
		jw_u64(j, "saved", le64_to_cpu(saved[i]));
		json_name(j, area_reg_name(a, r[i].bar, le32_to_cpu(r[i].offset)));
		jw_end_obj(j);
	}
	jw_end_arr(j);
}

static void json_counters(struct jw *j, struct area_ctx *a)
{
	const struct compsc_counter_desc *c = compsc_area_counters(a->h);
	u32 i, n = le16_to_cpu(a->h->counter_count);

	jw_arr(j, "counters");
	for (i = 0; i < n; i++) {
		jw_obj(j, NULL);
		jw_u64(j, "bar", c[i].bar);
		jw_u64(j, "offset", le32_to_cpu(c[i].offset));
		jw_u64(j, "width", c[i].width);
		jw_str(j, "kind", cli_kind_name(c[i].kind));
		jw_u64(j, "kind_id", c[i].kind);
		jw_u64(j, "flags", c[i].flags);
		jw_bool(j, "saved", c[i].flags & COMPSC_CTR_F_SAVED);
		jw_u64(j, "hw_final", le32_to_cpu(c[i].hw_final));
		jw_u64(j, "total", le64_to_cpu(c[i].total));
		json_name(j, area_reg_name(a, c[i].bar, le32_to_cpu(c[i].offset)));
		jw_end_obj(j);
	}
	jw_end_arr(j);
}

static void json_policy(struct jw *j, const struct area_ctx *a)
{
	jw_obj(j, "policy");
	jw_str(j, "name", a->policy_name);
	jw_bool(j, "ok", !a->refusal[0]);
	if (a->refusal[0])
		jw_str(j, "error", a->refusal);
	else
		jw_null(j, "error");
	jw_end_obj(j);
}

static void json_replay(struct jw *j, struct area_ctx *a)
{
	u32 room = le32_to_cpu(a->h->replay_len);

	if (a->replay_n < 0) {
		jw_null(j, "replay");
		jw_str(j, "replay_error", a->replay_refusal);
	} else if (compsc_replay_blank(a->replay, room)) {
		jw_null(j, "replay");	/* none: nothing wrong with it */
		jw_null(j, "replay_error");
	} else {
		cli_replay_json(j, "replay", a->replay, room, 0,
				area_key_namer(a));
	}
}

void area_json(struct area_ctx *a)
{
	const struct compsc_area_hdr *h = a->h;
	struct jw j;

	jw_init(&j, stdout);
	jw_obj(&j, NULL);
	jw_str(&j, "file", a->f.path);
	jw_u64(&j, "file_len", a->f.len);
	jw_obj(&j, "abi");
	jw_u64(&j, "major", le16_to_cpu(h->abi_major));
	jw_u64(&j, "minor", le16_to_cpu(h->abi_minor));
	jw_end_obj(&j);
	jw_u64(&j, "size", le32_to_cpu(h->size));
	json_layout(&j, h);
	json_ctl(&j, a);
	jw_u64(&j, "readers_inside", area_readers(a));
	json_policy(&j, a);
	json_regs(&j, a);
	json_counters(&j, a);
	json_replay(&j, a);
	jw_end_obj(&j);
	jw_done(&j);
}
