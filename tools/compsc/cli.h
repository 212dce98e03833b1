/* SPDX-License-Identifier: (GPL-2.0 OR BSD-3-Clause) */
/*
 * compsc CLI internals: file input, error reporting, a small JSON writer and
 * the printable names of library constants. The CLI only calls libcompsc to
 * judge streams and areas; nothing here knows a wire rule.
 */
#ifndef COMPSC_CLI_H
#define COMPSC_CLI_H

#include <compsc/compsc.h>
#include <stdio.h>

#define CLI_VERSION	"0.1"

/* Exit codes: 0 ok, 1 the input is invalid, 2 usage error or unreadable file. */
#define EXIT_INVALID	1
#define EXIT_USAGE	2

/* Default and hard bound for --max-len (stream bytes). */
#define CLI_STREAM_MAX_DEFAULT	(16u << 20)
#define CLI_STREAM_MAX_HARD	0xfffffff0u
/* Area dumps may be page-padded; the area itself is at most 64 KiB. */
#define CLI_AREA_FILE_MAX	(1u << 20)

/* A whole file in memory, 64-byte aligned so ABI structs can be read in place. */
struct cli_file {
	const char *path;
	unsigned char *data;
	u32 len;
};

/* ------------------------------------------------------------ io.c */
/* Read at most @max bytes of @path (more is reported as @max + 1 bytes). */
int cli_read(struct cli_file *f, const char *path, u32 max);
void cli_file_free(struct cli_file *f);
/* "compsc: <fmt>\n" on stderr; returns @code so callers can `return cli_err(...)`. */
int cli_err(int code, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
int cli_parse_ident(const char *s, struct compsc_ident *id);
int cli_parse_u32(const char *s, u32 *out);
const char *cli_opt_value(int argc, char **argv, int *i, const char *opt);

/* ------------------------------------------------------------ json.c */
struct jw {
	FILE *f;
	int depth;
	int first;	/* no member written yet at this depth */
};

void jw_init(struct jw *j, FILE *f);
void jw_obj(struct jw *j, const char *key);	/* key NULL inside arrays */
void jw_arr(struct jw *j, const char *key);
void jw_end_obj(struct jw *j);
void jw_end_arr(struct jw *j);
void jw_u64(struct jw *j, const char *key, u64 v);
void jw_s64(struct jw *j, const char *key, s64 v);
void jw_str(struct jw *j, const char *key, const char *s);
void jw_bool(struct jw *j, const char *key, int v);
void jw_null(struct jw *j, const char *key);
void jw_hex(struct jw *j, const char *key, const u8 *p, u32 n);
void jw_done(struct jw *j);

/* ------------------------------------------------------------ names.c */
const char *cli_kind_name(u8 kind);
const char *cli_rec_name(u16 type);
/* Name of an 82576 VF register (bar, offset), or NULL. */
const char *cli_82576vf_reg_name(u8 bar, u32 offset);
/*
 * Names a replay log key (NULL: no name); @buf (@n bytes) for names with
 * a number in them. One per driver whose keys the CLI knows.
 */
typedef const char *(*cli_key_name_fn)(u32 key, char *buf, size_t n);
const char *cli_82576vf_replay_name(u32 key, char *buf, size_t n);
/* The same for an 82599 VF (ixgbevf's regs.h names, ixgbevf's keys). */
const char *cli_82599vf_reg_name(u8 bar, u32 offset);
const char *cli_82599vf_replay_name(u32 key, char *buf, size_t n);
/* A VF model the CLI has names for, and its --policy name. */
struct compsc_devmodel;
struct cli_dev {
	const char *policy_name;
	const struct compsc_devmodel *model;
	const char *(*reg_name)(u8 bar, u32 offset);
	cli_key_name_fn key_name;
};
/* By PCI ID (compsc_devmodel_find()), or NULL: no names, raw offsets. */
const struct cli_dev *cli_dev_by_id(u16 vendor, u16 device);
/* By policy name ("82576vf", "82599vf"), or NULL. */
const struct cli_dev *cli_dev_by_policy(const char *name);
/* Register policy by name ("82576vf", "82599vf", "structure"), NULL if unknown. */
const struct compsc_policy *cli_policy(const char *name);
#define CLI_POLICY_DEFAULT	"82576vf"
const char *cli_link_state_name(u8 s);

/* ------------------------------------------------------------ commands */
int cmd_stream(int argc, char **argv);
int cmd_area(int argc, char **argv);
int cmd_devices(int argc, char **argv);	/* devices_cmd.c */
int cmd_integrity(int argc, char **argv);	/* integrity_cmd.c */
/* Room for a refusal's text: the library's message and its details. */
#define CLI_WHY_MAX	192
/*
 * area_print.c: an area compsc_area_check() accepted, the policy verdict
 * and the replay log's (compsc_area_snapshot_replay()).
 */
struct area_ctx {
	struct cli_file f;
	struct compsc_area_hdr *h;	/* f.data, valid after the check */
	const char *policy_name;
	const struct compsc_policy *policy;
	char refusal[CLI_WHY_MAX];	/* policy verdict, "" when accepted */
	void *replay;			/* the judged copy of the replay log */
	int replay_n;			/* records in it, or -COMPSC_E* */
	char replay_refusal[CLI_WHY_MAX]; /* "" when replay_n >= 0 */
};
void area_text(struct area_ctx *a);
void area_json(struct area_ctx *a);
/* host_status as text; guarded: any s32 may be in a dump. */
const char *cli_status_text(__s32 st);

/* stream_print.c: a parsed stream (@buf is what the view points into). */
void stream_text(const struct compsc_stream_view *v, const char *file,
		 const u8 *buf);
void stream_json(const struct compsc_stream_view *v, const char *file,
		 const u8 *buf);
/*
 * replay_print.c: a replay log from an area (raw, judged by
 * compsc_replay_check()) or a stream DRIVER record (@packed, judged by
 * compsc_replay_unpack()). Text: 0 if it is one, else -1 and the refusal
 * in @why (CLI_WHY_MAX bytes). JSON: @key is the log or null, and
 * "<key>_error" the refusal or null. @name (may be NULL) names record keys.
 */
int cli_replay_text(const void *mem, u32 len, int packed, const char *indent,
		    cli_key_name_fn name, char *why);
void cli_replay_json(struct jw *j, const char *key, const void *mem, u32 len,
		     int packed, cli_key_name_fn name);
/* The refusal @err (record @bad) of the log at @mem as text, into @why. */
void cli_replay_why(char *why, int err, u32 bad, const void *mem, u32 len,
		    int packed);

#endif /* COMPSC_CLI_H */
