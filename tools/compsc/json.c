// SPDX-License-Identifier: (GPL-2.0 OR BSD-3-Clause)
/*
 * A tiny streaming JSON writer: objects, arrays, integers, strings, pretty
 * printed with two-space indents. Enough for the CLI's --json output and
 * nothing more; keys are fixed strings, values are escaped.
 */
#include "cli.h"

void jw_init(struct jw *j, FILE *f)
{
	j->f = f;
	j->depth = 0;
	j->first = 1;
}

static void jw_indent(struct jw *j)
{
	int i;

	fputc('\n', j->f);
	for (i = 0; i < j->depth; i++)
		fputs("  ", j->f);
}

static void jw_string(struct jw *j, const char *s)
{
	const unsigned char *p = (const unsigned char *)s;

	fputc('"', j->f);
	for (; *p; p++) {
		if (*p == '"' || *p == '\\')
			fprintf(j->f, "\\%c", *p);
		else if (*p < 0x20 || *p >= 0x7f)
			fprintf(j->f, "\\u%04x", *p);	/* paths only: keep ASCII */
		else
			fputc(*p, j->f);
	}
	fputc('"', j->f);
}

/* Separator, indent and "key": before every member or element. */
static void jw_member(struct jw *j, const char *key)
{
	if (j->depth) {
		if (!j->first)
			fputc(',', j->f);
		jw_indent(j);
	}
	j->first = 0;
	if (key) {
		jw_string(j, key);
		fputs(": ", j->f);
	}
}

static void jw_open(struct jw *j, const char *key, char c)
{
	jw_member(j, key);
	fputc(c, j->f);
	j->depth++;
	j->first = 1;
}

static void jw_close(struct jw *j, char c)
{
	j->depth--;
	if (!j->first)
		jw_indent(j);
	fputc(c, j->f);
	j->first = 0;
}

void jw_obj(struct jw *j, const char *key)
{
	jw_open(j, key, '{');
}

void jw_arr(struct jw *j, const char *key)
{
	jw_open(j, key, '[');
}

void jw_end_obj(struct jw *j)
{
	jw_close(j, '}');
}

void jw_end_arr(struct jw *j)
{
	jw_close(j, ']');
}

void jw_u64(struct jw *j, const char *key, u64 v)
{
	jw_member(j, key);
	fprintf(j->f, "%llu", (unsigned long long)v);
}

void jw_s64(struct jw *j, const char *key, s64 v)
{
	jw_member(j, key);
	fprintf(j->f, "%lld", (long long)v);
}

void jw_str(struct jw *j, const char *key, const char *s)
{
	jw_member(j, key);
	jw_string(j, s);
}

void jw_bool(struct jw *j, const char *key, int v)
{
	jw_member(j, key);
	fputs(v ? "true" : "false", j->f);
}

void jw_null(struct jw *j, const char *key)
{
	jw_member(j, key);
	fputs("null", j->f);
}

/* @n bytes at @p as a lowercase hex string. */
void jw_hex(struct jw *j, const char *key, const u8 *p, u32 n)
{
	u32 i;

	jw_member(j, key);
	fputc('"', j->f);
	for (i = 0; i < n; i++)
		fprintf(j->f, "%02x", p[i]);
	fputc('"', j->f);
}

void jw_done(struct jw *j)
{
	fputc('\n', j->f);
}
