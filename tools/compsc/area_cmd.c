// SPDX-License-Identifier: (GPL-2.0 OR BSD-3-Clause)
#include "cli.h"

int cmd_area(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	return cli_err(EXIT_USAGE, "area: not yet");
}
