// SPDX-License-Identifier: (GPL-2.0 OR BSD-3-Clause)
/*
 * `compsc area show|validate`: judge a raw dump of a shared area with
 * compsc_area_check(), the host's register policy
 * (compsc_area_snapshot_regs/_counters) and the replay log's rules
 * (compsc_area_snapshot_replay), then print it. Nothing of the dump is
 * read before compsc_area_check() accepted its header and layout.
 */
#include "cli.h"

#include <stdlib.h>
#include <string.h>

struct area_opts {
	const char *file;
	const char *policy;
	int json;
};

static const char area_usage[] =
"usage: compsc area show FILE [--json] [--policy NAME]\n"
"       compsc area validate FILE [--policy NAME]\n"
"\n"
"FILE is a raw dump of a CompSC shared area, e.g. the stand-in hypervisor's\n"
"/sys/kernel/debug/compsc_standin/<BDF>/area; \"-\" reads stdin.\n"
"The header and layout are judged by compsc_area_check(), the register and\n"
"counter lists by the host's policy (compsc_area_snapshot_regs/_counters),\n"
"the replay log by its own rules (compsc_area_snapshot_replay).\n"
"\n"
"  show       header and layout, control line (writer, version, flags),\n"
"             readers inside, registers with saved values, counters, replay log\n"
"  validate   print \"ok: N bytes, R registers, C counters, L replay records\n"
"             (policy NAME)\"\n"
"\n"
"  --policy NAME  82576vf (default): the allow-list the host enforces for an\n"
"                 Intel 82576 VF; 82599vf: the same for an Intel 82599 VF;\n"
"                 structure: flags, kinds, widths, alignment and overlaps only\n"
"  --json         show as JSON (keys: tools/README.md)\n"
"\n"
"An invalid area gives one line on stderr, \"compsc: FILE: <reason>\"\n"
"(show still prints an area whose register list or replay log is refused).\n"
"Exit: 0 valid, 1 invalid, 2 usage error or unreadable file.\n";

static int area_usage_err(const char *what)
{
	return cli_err(EXIT_USAGE, "area: %s (see compsc area --help)", what);
}

static int area_opt(struct area_opts *o, int argc, char **argv, int *i,
		    int show)
{
	const char *a = argv[*i];

	if (show && !strcmp(a, "--json")) {
		o->json = 1;
	} else if (!strncmp(a, "--policy", 8)) {
		o->policy = cli_opt_value(argc, argv, i, "--policy");
		if (!o->policy || !cli_policy(o->policy))
			return area_usage_err("--policy wants 82576vf, 82599vf or structure");
	} else if (a[0] == '-' && a[1]) {
		return cli_err(EXIT_USAGE, "area: unknown option '%s' (see compsc area --help)", a);
	} else if (o->file) {
		return area_usage_err("one FILE only");
	} else {
		o->file = a;
	}
	return 0;
}

static int area_parse_opts(struct area_opts *o, int argc, char **argv, int show)
{
	int i, ret;

	memset(o, 0, sizeof(*o));
	o->policy = CLI_POLICY_DEFAULT;
	for (i = 0; i < argc; i++) {
		ret = area_opt(o, argc, argv, &i, show);
		if (ret)
			return ret;
	}
	return o->file ? 0 : area_usage_err("missing FILE");
}

/* The replay log's verdict, on the CLI's own copy of it (a->replay). */
static void area_replay_check(struct area_ctx *a)
{
	u32 room = le32_to_cpu(a->h->replay_len), bad;

	a->replay = calloc(1, room);	/* room >= a replay header */
	if (!a->replay) {
		a->replay_n = -COMPSC_ENOSPC;
		snprintf(a->replay_refusal, sizeof(a->replay_refusal),
			 "replay log: not judged, out of memory");
		return;
	}
	a->replay_n = compsc_area_snapshot_replay(a->h, a->f.len, a->replay,
						  room, &bad);
	if (a->replay_n < 0)
		cli_replay_why(a->replay_refusal, a->replay_n, bad, a->replay,
			       room, 0);
}

static void area_free(struct area_ctx *a)
{
	free(a->replay);
	cli_file_free(&a->f);
}

/* Read the dump and judge header and layout; prints the refusal. */
static int area_load(const struct area_opts *o, struct area_ctx *a)
{
	int err;

	memset(a, 0, sizeof(*a));
	err = cli_read(&a->f, o->file, CLI_AREA_FILE_MAX);
	if (err)
		return err;
	if (a->f.len > CLI_AREA_FILE_MAX)
		err = cli_err(EXIT_INVALID, "%s: larger than %u bytes, not an area dump",
			      o->file, CLI_AREA_FILE_MAX);
	else if ((err = compsc_area_check(a->f.data, a->f.len)))
		err = cli_err(EXIT_INVALID, "%s: %s (%u bytes read)", o->file,
			      compsc_strerror(err), a->f.len);
	if (err) {
		cli_file_free(&a->f);
		return err;
	}
	a->h = (struct compsc_area_hdr *)a->f.data;
	a->policy_name = o->policy;
	a->policy = cli_policy(o->policy);
	area_replay_check(a);
	return 0;
}

/* Which entry a refusal is about: "register 3 (bar 0 offset 0x2800)". */
static void area_refusal(struct area_ctx *a, const char *what, int err,
			 u32 bad, const struct compsc_reg *e, u32 n, u32 max)
{
	int n0 = snprintf(a->refusal, sizeof(a->refusal), "%s", compsc_strerror(err));
	size_t k = n0 < 0 ? sizeof(a->refusal) : (size_t)n0;

	if (k >= sizeof(a->refusal))
		return;
	if (err == -COMPSC_EREG_COUNT)
		snprintf(a->refusal + k, sizeof(a->refusal) - k,
			 " (%u %ss, policy %s allows %u)", n, what,
			 a->policy_name, max);
	else if (e)
		snprintf(a->refusal + k, sizeof(a->refusal) - k,
			 " (%s %u: bar %u offset 0x%x width %u kind %s)", what,
			 bad, e->bar, le32_to_cpu(e->offset), e->width,
			 cli_kind_name(e->kind));
}

/* The policy verdict on both lists; 0 or the first refusal (text in a->refusal). */
static int area_policy_check(struct area_ctx *a)
{
	struct compsc_reg regs[COMPSC_MAX_REGS];
	struct compsc_counter_desc ctrs[COMPSC_MAX_COUNTERS];
	struct compsc_reg e;
	u32 bad;
	int n;

	n = compsc_area_snapshot_regs(a->h, a->f.len, a->policy, regs,
				      COMPSC_MAX_REGS, &bad);
	if (n < 0) {
		area_refusal(a, "register", n, bad, n != -COMPSC_EREG_COUNT &&
			     bad < COMPSC_MAX_REGS ? &regs[bad] : NULL, le16_to_cpu(a->h->reg_count),
			     a->policy->max_regs);
		return n;
	}
	n = compsc_area_snapshot_counters(a->h, a->f.len, a->policy, ctrs,
					  COMPSC_MAX_COUNTERS, &bad);
	if (n < 0) {
		/* a counter entry starts with the fields of a register entry */
		if (n != -COMPSC_EREG_COUNT && bad < COMPSC_MAX_COUNTERS)
			memcpy(&e, &ctrs[bad], sizeof(e));
		area_refusal(a, "counter", n, bad, n != -COMPSC_EREG_COUNT &&
			     bad < COMPSC_MAX_COUNTERS ? &e : NULL, le16_to_cpu(a->h->counter_count),
			     a->policy->max_counters);
		return n;
	}
	return 0;
}

static int cmd_area_validate(int argc, char **argv)
{
	struct area_opts o;
	struct area_ctx a;
	int ret = area_parse_opts(&o, argc, argv, 0);

	if (!ret)
		ret = area_load(&o, &a);
	if (ret)
		return ret;
	if (area_policy_check(&a))
		ret = cli_err(EXIT_INVALID, "%s: %s", o.file, a.refusal);
	else if (a.replay_n < 0)
		ret = cli_err(EXIT_INVALID, "%s: %s", o.file, a.replay_refusal);
	else
		printf("ok: %u bytes, %u registers, %u counters, %d replay record%s (policy %s)\n",
		       le32_to_cpu(a.h->size), le16_to_cpu(a.h->reg_count),
		       le16_to_cpu(a.h->counter_count), a.replay_n,
		       a.replay_n == 1 ? "" : "s", a.policy_name);
	area_free(&a);
	return ret;
}

static int cmd_area_show(int argc, char **argv)
{
	struct area_opts o;
	struct area_ctx a;
	int ret = area_parse_opts(&o, argc, argv, 1);

	if (!ret)
		ret = area_load(&o, &a);
	if (ret)
		return ret;
	area_policy_check(&a);
	if (o.json)
		area_json(&a);
	else
		area_text(&a);
	fflush(stdout);
	/* printed in full; the exit says whether the host would take it */
	if (a.refusal[0])
		ret = cli_err(EXIT_INVALID, "%s: %s", o.file, a.refusal);
	else if (a.replay_n < 0)
		ret = cli_err(EXIT_INVALID, "%s: %s", o.file, a.replay_refusal);
	area_free(&a);
	return ret;
}

int cmd_area(int argc, char **argv)
{
	int i;

	for (i = 0; i < argc; i++)
		if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
			fputs(area_usage, stdout);
			return 0;
		}
	if (argc < 1)
		return area_usage_err("missing subcommand show|validate");
	if (!strcmp(argv[0], "show"))
		return cmd_area_show(argc - 1, argv + 1);
	if (!strcmp(argv[0], "validate"))
		return cmd_area_validate(argc - 1, argv + 1);
	return cli_err(EXIT_USAGE, "area: unknown subcommand '%s' (show|validate)", argv[0]);
}
