// SPDX-License-Identifier: (GPL-2.0 OR BSD-3-Clause)
/*
 * `compsc stream decode|validate`: judge a migration stream with
 * compsc_stream_parse() and print what the parser's view holds. Records are
 * read through the ABI structs only after the parser accepted them.
 */
#include "cli.h"

#include <stdlib.h>
#include <string.h>

struct stream_opts {
	const char *file;
	int json;
	int expect_n;		/* 0 none, 2 V:D, 4 V:D:SV:SD */
	struct compsc_ident expect;
	u32 max_len;
};

static const char stream_usage[] =
"usage: compsc stream decode FILE [--json] [--expect V:D[:SV:SD]] [--max-len N]\n"
"       compsc stream validate FILE [--expect V:D[:SV:SD]] [--max-len N]\n"
"\n"
"FILE is a CompSC migration stream, e.g. the stand-in hypervisor's\n"
"/sys/kernel/debug/compsc_standin/<BDF>/last_stream; \"-\" reads stdin.\n"
"The stream is parsed strictly by libcompsc (compsc_stream_parse).\n"
"\n"
"  decode     print header, every known record and the checksum\n"
"  validate   print \"ok: N bytes, K records\" (K counts every record on\n"
"             the wire, END and skipped unknown ones included)\n"
"\n"
"  --expect V:D[:SV:SD]  refuse a stream for another device (hex PCI ids;\n"
"                        with V:D only, the subsystem ids are not compared)\n"
"  --max-len N           refuse streams longer than N bytes (default 16 MiB)\n"
"  --json                decode as JSON (keys: tools/README.md)\n"
"\n"
"On refusal one line goes to stderr:\n"
"  compsc: FILE: <reason> at offset X\n"
"Exit: 0 valid, 1 refused, 2 usage error or unreadable file.\n";

static int stream_usage_err(const char *what)
{
	cli_err(EXIT_USAGE, "stream: %s (see compsc stream --help)", what);
	return EXIT_USAGE;
}

static int stream_opt(struct stream_opts *o, int argc, char **argv, int *i,
		      int decode)
{
	const char *a = argv[*i], *val;

	if (decode && !strcmp(a, "--json")) {
		o->json = 1;
	} else if (!strncmp(a, "--expect", 8)) {
		val = cli_opt_value(argc, argv, i, "--expect");
		o->expect_n = val ? cli_parse_ident(val, &o->expect) : -1;
		if (o->expect_n < 0)
			return stream_usage_err("--expect wants VENDOR:DEVICE in hex");
	} else if (!strncmp(a, "--max-len", 9)) {
		val = cli_opt_value(argc, argv, i, "--max-len");
		if (!val || cli_parse_u32(val, &o->max_len) ||
		    o->max_len > CLI_STREAM_MAX_HARD)
			return stream_usage_err("--max-len wants a byte count");
	} else if (a[0] == '-' && a[1]) {
		cli_err(EXIT_USAGE, "stream: unknown option '%s' (see compsc stream --help)", a);
		return EXIT_USAGE;
	} else if (o->file) {
		return stream_usage_err("one FILE only");
	} else {
		o->file = a;
	}
	return 0;
}

static int stream_parse_opts(struct stream_opts *o, int argc, char **argv,
			     int decode)
{
	int i, ret;

	memset(o, 0, sizeof(*o));
	o->max_len = CLI_STREAM_MAX_DEFAULT;
	for (i = 0; i < argc; i++) {
		ret = stream_opt(o, argc, argv, &i, decode);
		if (ret)
			return ret;
	}
	return o->file ? 0 : stream_usage_err("missing FILE");
}

/*
 * With --expect V:D the subsystem ids are taken from the stream's own
 * header so that the library's comparison only judges vendor and device.
 */
static void stream_fill_expect(struct stream_opts *o, const struct cli_file *f)
{
	struct compsc_stream_hdr h;

	if (o->expect_n != 2 || f->len < sizeof(h))
		return;
	memcpy(&h, f->data, sizeof(h));
	o->expect.subsys_vendor = le16_to_cpu(h.subsys_vendor);
	o->expect.subsys_device = le16_to_cpu(h.subsys_device);
}

/* The major version a refused stream's header names (the parser read it). */
static unsigned int stream_major(const struct cli_file *f)
{
	struct compsc_stream_hdr h;

	memset(&h, 0, sizeof(h));
	memcpy(&h, f->data, f->len < sizeof(h) ? f->len : sizeof(h));
	return le16_to_cpu(h.major);
}

/* Read and parse; on refusal print the one line and return the exit code. */
static int stream_load(struct stream_opts *o, struct cli_file *f,
		       struct compsc_stream_view *v)
{
	int err = cli_read(f, o->file, o->max_len);

	if (err)
		return err;
	stream_fill_expect(o, f);
	err = compsc_stream_parse(f->data, f->len, o->expect_n ? &o->expect : NULL,
				  o->max_len, v);
	if (!err)
		return 0;
	if (err == -COMPSC_EWRONG_VERSION)	/* which one, for the operator */
		cli_err(EXIT_INVALID, "%s: %s at offset %u (format %u, this build reads %u)",
			o->file, compsc_strerror(err), v->err_offset,
			stream_major(f), COMPSC_STREAM_MAJOR);
	else
		cli_err(EXIT_INVALID, "%s: %s at offset %u", o->file,
			compsc_strerror(err), v->err_offset);
	cli_file_free(f);
	return EXIT_INVALID;
}

/* Records on the wire: every known one present (END too) plus skipped ones. */
static u32 stream_nr_records(const struct compsc_stream_view *v)
{
	u32 n = v->nr_unknown, t;

	for (t = 0; t < COMPSC_REC_NR_KNOWN; t++)
		n += v->rec[t].data != NULL;
	return n;
}

static int cmd_stream_validate(int argc, char **argv)
{
	struct compsc_stream_view v;
	struct stream_opts o;
	struct cli_file f;
	int ret = stream_parse_opts(&o, argc, argv, 0);

	if (!ret)
		ret = stream_load(&o, &f, &v);
	if (ret)
		return ret;
	printf("ok: %u bytes, %u records\n", v.total_len, stream_nr_records(&v));
	cli_file_free(&f);
	return 0;
}

static int cmd_stream_decode(int argc, char **argv)
{
	struct compsc_stream_view v;
	struct stream_opts o;
	struct cli_file f;
	int ret = stream_parse_opts(&o, argc, argv, 1);

	if (!ret)
		ret = stream_load(&o, &f, &v);
	if (ret)
		return ret;
	if (o.json)
		stream_json(&v, o.file, f.data);
	else
		stream_text(&v, o.file, f.data);
	cli_file_free(&f);
	return 0;
}

int cmd_stream(int argc, char **argv)
{
	int i;

	for (i = 0; i < argc; i++)
		if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
			fputs(stream_usage, stdout);
			return 0;
		}
	if (argc < 1)
		return stream_usage_err("missing subcommand decode|validate");
	if (!strcmp(argv[0], "decode"))
		return cmd_stream_decode(argc - 1, argv + 1);
	if (!strcmp(argv[0], "validate"))
		return cmd_stream_validate(argc - 1, argv + 1);
	cli_err(EXIT_USAGE, "stream: unknown subcommand '%s' (decode|validate)", argv[0]);
	return EXIT_USAGE;
}
