// SPDX-License-Identifier: (GPL-2.0 OR BSD-3-Clause)
/*
 * File input and error reporting. Files are read by streaming, never by
 * trusting stat(): debugfs files (the stand-in's last_stream and area) report
 * size 0.
 */
#include "cli.h"

#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

int cli_err(int code, const char *fmt, ...)
{
	va_list ap;

	fputs("compsc: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	return code;
}

/* Append up to @want bytes from @in to @f, growing the buffer. */
static int cli_read_chunk(struct cli_file *f, FILE *in, size_t *cap,
			  size_t want)
{
	unsigned char *p;
	size_t n;

	if (f->len + want > *cap) {
		/* malloc's alignment (16) covers every ABI struct (max 8) */
		p = realloc(f->data, f->len + want);
		if (!p)
			return -ENOMEM;
		f->data = p;
		*cap = f->len + want;
	}
	n = fread(f->data + f->len, 1, want, in);
	f->len += (u32)n;
	if (n < want && ferror(in))
		return -errno;
	return n < want ? 1 : 0;	/* 1: end of file */
}

static int cli_read_stream(struct cli_file *f, FILE *in, u32 max)
{
	size_t cap = 0, want;
	u64 limit = (u64)max + 1;	/* one more byte shows "too long" */
	int ret = 0;

	while (!ret && f->len < limit) {
		want = f->len < 65536 ? 65536 : f->len;
		if (want > limit - f->len)
			want = (size_t)(limit - f->len);
		ret = cli_read_chunk(f, in, &cap, want);
	}
	if (!f->data)	/* empty file: still give callers a valid pointer */
		f->data = malloc(8);
	if (!f->data)
		return -ENOMEM;
	return ret < 0 ? ret : 0;
}

/**
 * cli_read() - read @path ("-" is stdin) into @f, at most @max + 1 bytes.
 * Prints the error and returns EXIT_USAGE if the file cannot be read.
 */
int cli_read(struct cli_file *f, const char *path, u32 max)
{
	FILE *in = strcmp(path, "-") ? fopen(path, "rb") : stdin;
	int ret;

	f->path = path;
	f->data = NULL;
	f->len = 0;
	if (!in)
		return cli_err(EXIT_USAGE, "%s: %s", path, strerror(errno));
	ret = cli_read_stream(f, in, max);
	if (in != stdin)
		fclose(in);
	if (ret) {
		cli_file_free(f);
		return cli_err(EXIT_USAGE, "%s: %s", path, strerror(-ret));
	}
	return 0;
}

void cli_file_free(struct cli_file *f)
{
	free(f->data);
	f->data = NULL;
	f->len = 0;
}

static int cli_hex16(const char *s, size_t n, u16 *out)
{
	char buf[8], *end;
	unsigned long v;

	if (!n || n > 4)
		return -1;
	memcpy(buf, s, n);
	buf[n] = 0;
	errno = 0;
	v = strtoul(buf, &end, 16);
	if (errno || *end || v > 0xffff)
		return -1;
	*out = (u16)v;
	return 0;
}

/**
 * cli_parse_ident() - "VVVV:DDDD" or "VVVV:DDDD:SSSS:ssss" (hex) into @id.
 * A short form leaves the subsystem ids at 0xffff meaning "take them from
 * the stream" (the caller fills them in).
 */
int cli_parse_ident(const char *s, struct compsc_ident *id)
{
	u16 v[4] = { 0xffff, 0xffff, 0xffff, 0xffff };
	const char *colon;
	int i = 0;

	for (;;) {
		colon = strchr(s, ':');
		if (i == 4 || cli_hex16(s, colon ? (size_t)(colon - s) : strlen(s),
					&v[i]))
			return -1;
		i++;
		if (!colon)
			break;
		s = colon + 1;
	}
	if (i != 2 && i != 4)
		return -1;
	id->vendor = v[0];
	id->device = v[1];
	id->subsys_vendor = v[2];
	id->subsys_device = v[3];
	return i;
}

int cli_parse_u32(const char *s, u32 *out)
{
	unsigned long long v;
	char *end;

	if (!*s || *s == '-')
		return -1;
	errno = 0;
	v = strtoull(s, &end, 0);
	if (errno || *end || v > 0xffffffffull)
		return -1;
	*out = (u32)v;
	return 0;
}

/* Option value: "--opt VALUE" or "--opt=VALUE"; NULL if missing. */
const char *cli_opt_value(int argc, char **argv, int *i, const char *opt)
{
	size_t n = strlen(opt);

	if (strncmp(argv[*i], opt, n))
		return NULL;
	if (argv[*i][n] == '=')
		return argv[*i] + n + 1;
	if (argv[*i][n] || *i + 1 >= argc)
		return NULL;
	return argv[++*i];
}
