// SPDX-License-Identifier: (GPL-2.0 OR BSD-3-Clause)
/*
 * compsc - inspect CompSC migration streams, shared-area dumps and the
 * SR-IOV devices of this machine.
 *
 * Every judgement is libcompsc's (compsc_stream_parse, compsc_area_check,
 * compsc_area_snapshot_*, compsc_replay_check/_unpack); the CLI reads files,
 * names fields and prints. Errors are one line on stderr.
 */
#include "cli.h"

#include <string.h>

static const char main_usage[] =
"usage: compsc stream decode FILE [--json] [--expect V:D] [--max-len N]\n"
"       compsc stream validate FILE [--expect V:D] [--max-len N]\n"
"       compsc area show FILE [--json]\n"
"       compsc area validate FILE\n"
"       compsc devices [--json]\n"
"       compsc integrity send|recv ... (see compsc integrity --help)\n"
"       compsc --version | --help | <command> --help\n"
"\n"
"Inspect CompSC migration streams (what travels between hosts) and dumps of\n"
"the guest/hypervisor shared area. The stand-in hypervisor exposes both under\n"
"/sys/kernel/debug/compsc_standin/<BDF>/ (last_stream, area). `devices` lists\n"
"the SR-IOV PFs and VFs here with their CompSC state (run as root).\n"
"`integrity` checks every byte of a patterned UDP stream across migrations.\n"
"\n"
"Exit: 0 ok, 1 invalid input (one line on stderr says why and where),\n"
"2 usage error or unreadable file. JSON keys: tools/README.md.\n";

static void print_version(void)
{
	printf("compsc %s (stream format %u.%u, area ABI %u.%u)\n", CLI_VERSION,
	       COMPSC_STREAM_MAJOR, COMPSC_STREAM_MINOR, COMPSC_ABI_MAJOR,
	       COMPSC_ABI_MINOR);
}

int main(int argc, char **argv)
{
	const char *cmd = argc > 1 ? argv[1] : NULL;

	if (!cmd)
		return cli_err(EXIT_USAGE, "missing command (see compsc --help)");
	if (!strcmp(cmd, "--help") || !strcmp(cmd, "-h") || !strcmp(cmd, "help")) {
		fputs(main_usage, stdout);
		return 0;
	}
	if (!strcmp(cmd, "--version") || !strcmp(cmd, "-V")) {
		print_version();
		return 0;
	}
	if (!strcmp(cmd, "stream"))
		return cmd_stream(argc - 2, argv + 2);
	if (!strcmp(cmd, "area"))
		return cmd_area(argc - 2, argv + 2);
	if (!strcmp(cmd, "devices"))
		return cmd_devices(argc - 2, argv + 2);
	if (!strcmp(cmd, "integrity"))
		return cmd_integrity(argc - 2, argv + 2);
	return cli_err(EXIT_USAGE, "unknown command '%s' (see compsc --help)", cmd);
}
