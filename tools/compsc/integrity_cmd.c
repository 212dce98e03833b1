// SPDX-License-Identifier: (GPL-2.0 OR BSD-3-Clause)
/*
 * compsc integrity - does every received byte survive a migration?
 *
 * A sender paces numbered UDP datagrams whose every 8-byte word is a
 * function of (sequence, word index); a receiver checks each datagram word
 * by word. A migration that loses packets is a nuisance; one that hands
 * the application bytes of an older packet (a receive buffer that moved as
 * a stale copy) or a packet twice (a descriptor reaped twice after a ring
 * shift) is what this catches. Each word carries its datagram's sequence
 * in its upper half, so a word from another datagram is told apart from
 * random damage: "stale" against "corrupt".
 *
 * Datagram, little-endian: magic u32, size u32 (whole datagram), seq u64,
 * then (size - 16) / 8 words: (u32)seq << 32 | integrity_mix(seq, i).
 */
#include "cli.h"

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#define INTEG_MAGIC	0x4e495343u	/* "CSIN" */
#define INTEG_HDR	16u
#define INTEG_MIN	(INTEG_HDR + 8u)
#define INTEG_MAX	8192u
#define INTEG_SEQ_MAX	(1u << 26)	/* bounds the receiver's seen-bitmap */
#define INTEG_RCVBUF_MAX	(1u << 30)	/* the kernel doubles it into an int */

static const char integrity_usage[] =
"usage: compsc integrity send ADDR PORT [--rate N] [--seconds S] [--size B]\n"
"                                [--inject dup|stale|corrupt:EVERY]\n"
"       compsc integrity recv PORT [--seconds S] [--idle S] [--progress S]\n"
"                                [--hold FILE] [--rcvbuf B] [--json]\n"
"\n"
"send: numbered, patterned UDP datagrams to ADDR:PORT, N per second (default\n"
"1000) for S seconds (default 10), B bytes each (default 512, a multiple of\n"
"8, 24-8192); prints sent=N. --inject spoils one datagram in EVERY on purpose\n"
"(to prove the receiver notices). recv: checks every word of every datagram\n"
"on PORT until S seconds passed (default 60) or nothing came for --idle\n"
"seconds after the first (default 5), then prints\n"
"  integrity: blocks=B corrupt=C stale=S dup=D missing=M last_seq=L\n"
"blocks: intact datagrams; stale: words of another datagram; missing: lost\n"
"(not an integrity failure). --progress prints that line every S seconds as\n"
"well (counts so far), for a receiver whose end the caller never sees (a\n"
"guest that migrates). --hold: bind the port, then read nothing until FILE\n"
"exists (the datagrams wait in the socket, holding their receive buffers,\n"
"e.g. across a migration); --seconds and --idle count from then. --rcvbuf:\n"
"the socket's receive buffer, B bytes as SO_RCVBUF takes them (the kernel\n"
"doubles them; root may pass net.core.rmem_max), an error if not granted;\n"
"without it 4 MiB is asked for, rmem_max permitting.\n"
"Exit 1 if corrupt, stale or dup is non-zero.\n";

struct integ_stats {
	u64 blocks, corrupt, stale, dup, bytes;
	u64 last_seq;	/* highest sequence seen intact, +1 (0: none) */
	u8 *seen;	/* bitmap over sequences */
	u64 seen_bits;
};

/* The word at @i of datagram @seq: splitmix64's finaliser, lower half. */
static u32 integrity_mix(u64 seq, u32 i)
{
	u64 z = seq * 0x9e3779b97f4a7c15ull + i + 1;

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return (u32)(z ^ (z >> 31));
}

static u64 integrity_word(u64 seq, u32 i)
{
	return (u64)(u32)seq << 32 | integrity_mix((u32)seq, i);
}

static void put_le32(u8 *p, u32 v)
{
	for (int k = 0; k < 4; k++)
		p[k] = (u8)(v >> (8 * k));
}

static void put_le64(u8 *p, u64 v)
{
	for (int k = 0; k < 8; k++)
		p[k] = (u8)(v >> (8 * k));
}

static u64 get_le(const u8 *p, int n)
{
	u64 v = 0;

	for (int k = n - 1; k >= 0; k--)
		v = v << 8 | p[k];
	return v;
}

static void integrity_fill(u8 *buf, u32 size, u64 seq)
{
	put_le32(buf, INTEG_MAGIC);
	put_le32(buf + 4, size);
	put_le64(buf + 8, seq);
	for (u32 i = 0; INTEG_HDR + 8 * i < size; i++)
		put_le64(buf + INTEG_HDR + 8 * i, integrity_word(seq, i));
}

/* ------------------------------------------------------------ receive */

enum integ_verdict { INTEG_OK, INTEG_STALE, INTEG_CORRUPT };

static enum integ_verdict integrity_judge(const u8 *buf, u32 len, u64 *seq)
{
	enum integ_verdict v = INTEG_OK;
	u64 w;

	if (len < INTEG_MIN || len % 8 || get_le(buf, 4) != INTEG_MAGIC ||
	    get_le(buf + 4, 4) != len)
		return INTEG_CORRUPT;
	*seq = get_le(buf + 8, 8);
	if (*seq >= INTEG_SEQ_MAX)
		return INTEG_CORRUPT;
	for (u32 i = 0; INTEG_HDR + 8 * i < len; i++) {
		w = get_le(buf + INTEG_HDR + 8 * i, 8);
		if (w == integrity_word(*seq, i))
			continue;
		/* another datagram's word at the same place: an old buffer */
		if ((u32)w == integrity_mix(w >> 32, i))
			v = INTEG_STALE;
		else
			return INTEG_CORRUPT;
	}
	return v;
}

/* A sequence seen intact before? Marks it seen. */
static int integrity_seen(struct integ_stats *s, u64 seq)
{
	u64 bits = s->seen_bits;
	u8 *m;

	if (seq >= bits) {
		while (bits <= seq)
			bits = bits ? bits * 2 : 1 << 16;
		m = realloc(s->seen, bits / 8);
		if (!m)
			return -1;
		memset(m + s->seen_bits / 8, 0, (bits - s->seen_bits) / 8);
		s->seen = m;
		s->seen_bits = bits;
	}
	if (s->seen[seq / 8] & (1u << (seq % 8)))
		return 1;
	s->seen[seq / 8] |= (u8)(1u << (seq % 8));
	return 0;
}

static int integrity_count(struct integ_stats *s, const u8 *buf, u32 len)
{
	u64 seq = 0;
	int seen;

	switch (integrity_judge(buf, len, &seq)) {
	case INTEG_CORRUPT:
		s->corrupt++;
		return 0;
	case INTEG_STALE:
		s->stale++;
		return 0;
	case INTEG_OK:
		break;
	}
	seen = integrity_seen(s, seq);
	if (seen < 0)
		return -1;
	if (seen) {
		s->dup++;
		return 0;
	}
	s->blocks++;
	s->bytes += len;
	if (seq + 1 > s->last_seq)
		s->last_seq = seq + 1;
	return 0;
}

static double now_s(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + t.tv_nsec / 1e9;
}

/*
 * The socket's receive buffer: @want bytes as SO_RCVBUF takes them, past
 * net.core.rmem_max for root (SO_RCVBUFFORCE). Returns what the kernel
 * granted, in the same unit (it doubles the value for its bookkeeping).
 */
static int integrity_rcvbuf(int fd, int want)
{
	socklen_t len = sizeof(int);
	int got = 0;

	if (setsockopt(fd, SOL_SOCKET, SO_RCVBUFFORCE, &want, sizeof(want)))
		setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &want, sizeof(want));
	getsockopt(fd, SOL_SOCKET, SO_RCVBUF, &got, &len);
	return got / 2;
}

/*
 * The receiver's socket, bound to @port; @rcvbuf: --rcvbuf's bytes, which
 * must be granted (else -1, *@granted what was), 0: 4 MiB if permitted.
 */
static int integrity_socket(u16 port, double wait_s, u32 rcvbuf, int *granted)
{
	struct sockaddr_in a = { .sin_family = AF_INET,
				 .sin_port = htons(port),
				 .sin_addr.s_addr = htonl(INADDR_ANY) };
	struct timeval tv = { .tv_sec = (time_t)wait_s,
			      .tv_usec = (long)((wait_s - (time_t)wait_s) * 1e6) };
	int fd = socket(AF_INET, SOCK_DGRAM, 0);

	*granted = -1;
	if (fd < 0)
		return -1;
	/* a receiver slower than the wire loses datagrams, not bytes */
	*granted = integrity_rcvbuf(fd, rcvbuf ? (int)rcvbuf : 4 << 20);
	if (rcvbuf && *granted < (int)rcvbuf) {
		close(fd);
		return -1;
	}
	*granted = -1;
	if (setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv)) ||
	    bind(fd, (struct sockaddr *)&a, sizeof(a))) {
		close(fd);
		return -1;
	}
	return fd;
}

/* --hold: until @path exists, checked every 0.1 s; -1 on another error. */
static int integrity_hold(const char *path)
{
	const struct timespec nap = { .tv_nsec = 100 * 1000 * 1000 };

	while (access(path, F_OK)) {
		if (errno != ENOENT)
			return -1;
		nanosleep(&nap, NULL);
	}
	return 0;
}

static void integrity_report(const struct integ_stats *s, int json)
{
	u64 missing = s->last_seq - s->blocks;	/* intact ones are unique */

	if (json) {
		printf("{\"blocks\": %llu, \"corrupt\": %llu, \"stale\": %llu, "
		       "\"dup\": %llu, \"missing\": %llu, \"last_seq\": %llu, "
		       "\"bytes\": %llu}\n",
		       (unsigned long long)s->blocks,
		       (unsigned long long)s->corrupt,
		       (unsigned long long)s->stale, (unsigned long long)s->dup,
		       (unsigned long long)missing,
		       (unsigned long long)s->last_seq,
		       (unsigned long long)s->bytes);
		return;
	}
	printf("integrity: blocks=%llu corrupt=%llu stale=%llu dup=%llu "
	       "missing=%llu last_seq=%llu\n", (unsigned long long)s->blocks,
	       (unsigned long long)s->corrupt, (unsigned long long)s->stale,
	       (unsigned long long)s->dup, (unsigned long long)missing,
	       (unsigned long long)s->last_seq);
}

struct integ_recv_opts {
	double seconds, idle, progress;
	const char *hold;	/* --hold FILE, or NULL */
	u32 rcvbuf;		/* --rcvbuf, 0: the default */
	int json;
};

static int integrity_recv(u16 port, const struct integ_recv_opts *o)
{
	double seconds = o->seconds, idle = o->idle, progress = o->progress;
	struct integ_stats s = { 0 };
	double start, last = 0, shown;
	u8 buf[INTEG_MAX + 1];
	int json = o->json, granted;
	ssize_t n;
	int fd = integrity_socket(port, 0.2, o->rcvbuf, &granted);

	if (fd < 0 && granted >= 0)
		return cli_err(EXIT_USAGE,
			       "integrity: --rcvbuf %u: the kernel granted %d bytes (net.core.rmem_max; root may pass it)",
			       o->rcvbuf, granted);
	if (fd < 0)
		return cli_err(EXIT_USAGE, "integrity: UDP port %u: %s", port,
			       strerror(errno));
	if (o->hold && integrity_hold(o->hold)) {
		close(fd);
		return cli_err(EXIT_USAGE, "integrity: --hold %s: %s", o->hold,
			       strerror(errno));
	}
	start = now_s();
	shown = start;
	while (now_s() - start < seconds && (!last || now_s() - last < idle)) {
		n = recv(fd, buf, sizeof(buf), 0);
		if (n < 0 && errno != EAGAIN && errno != EINTR) {
			close(fd);
			free(s.seen);
			return cli_err(EXIT_USAGE, "integrity: recv: %s",
				       strerror(errno));
		}
		if (progress && now_s() - shown >= progress) {
			integrity_report(&s, json);
			fflush(stdout);
			shown = now_s();
		}
		if (n < 0)
			continue;
		last = now_s();
		if (integrity_count(&s, buf, (u32)n)) {
			close(fd);
			free(s.seen);
			return cli_err(EXIT_USAGE, "integrity: out of memory");
		}
	}
	close(fd);
	integrity_report(&s, json);
	free(s.seen);
	return s.corrupt || s.stale || s.dup ? EXIT_INVALID : 0;
}

/* ------------------------------------------------------------ send */

struct integ_inject {
	int kind;	/* 0 none, 'd' dup, 's' stale, 'c' corrupt */
	u32 every;
};

/* Spoil datagram @seq on purpose: the receiver must count exactly these. */
static void integrity_spoil(u8 *buf, u32 size, u64 seq,
			    const struct integ_inject *inj)
{
	if (!inj->kind || seq % inj->every != inj->every - 1)
		return;
	if (inj->kind == 's')	/* the last word from datagram seq - 1 */
		put_le64(buf + size - 8, integrity_word(seq - 1,
						(size - INTEG_HDR) / 8 - 1));
	else if (inj->kind == 'c')
		buf[size - 3] ^= 0x40;
}

static void sleep_until(double t)
{
	struct timespec ts = { .tv_sec = (time_t)t,
			       .tv_nsec = (long)((t - (time_t)t) * 1e9) };

	while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) ==
	       EINTR)
		;
}

static int integrity_send(const char *addr, u16 port, u32 rate,
			  double seconds, u32 size,
			  const struct integ_inject *inj)
{
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons(port) };
	u8 buf[INTEG_MAX];
	double start, at;
	u64 seq = 0, sent = 0;
	int fd;

	if (inet_pton(AF_INET, addr, &a.sin_addr) != 1)
		return cli_err(EXIT_USAGE, "integrity: '%s' is not an IPv4 address",
			       addr);
	fd = socket(AF_INET, SOCK_DGRAM, 0);
	if (fd < 0)
		return cli_err(EXIT_USAGE, "integrity: socket: %s", strerror(errno));
	start = now_s();
	for (at = start; at - start < seconds; at = start + (double)seq / rate) {
		sleep_until(at);
		integrity_fill(buf, size, seq);
		integrity_spoil(buf, size, seq, inj);
		/* an unreachable moment (no neighbour yet) is loss, not an error */
		if (sendto(fd, buf, size, 0, (struct sockaddr *)&a, sizeof(a)) ==
		    (ssize_t)size)
			sent++;
		if (inj->kind == 'd' && seq % inj->every == inj->every - 1 &&
		    sendto(fd, buf, size, 0, (struct sockaddr *)&a, sizeof(a)) ==
		    (ssize_t)size)
			sent++;
		seq++;
	}
	close(fd);
	printf("sent=%llu datagrams=%llu\n", (unsigned long long)sent,
	       (unsigned long long)seq);
	return 0;
}

/* ------------------------------------------------------------ options */

static int parse_secs(const char *v, double *out)
{
	char *end;
	double d;

	if (!v)
		return -1;
	d = strtod(v, &end);
	if (*end || !(d > 0) || d > 86400)
		return -1;
	*out = d;
	return 0;
}

static int parse_inject(const char *v, struct integ_inject *inj)
{
	const char *colon = v ? strchr(v, ':') : NULL;

	if (!colon || cli_parse_u32(colon + 1, &inj->every) || inj->every < 2)
		return -1;
	if (!strncmp(v, "dup:", 4) || !strncmp(v, "stale:", 6) ||
	    !strncmp(v, "corrupt:", 8)) {
		inj->kind = v[0];
		return 0;
	}
	return -1;
}

static int parse_port(const char *v, u16 *port)
{
	u32 p;

	if (!v || cli_parse_u32(v, &p) || !p || p > 65535)
		return -1;
	*port = (u16)p;
	return 0;
}

static int cmd_send(int argc, char **argv)
{
	struct integ_inject inj = { 0 };
	u32 rate = 1000, size = 512;
	double seconds = 10;
	const char *v;
	u16 port;
	int i;

	if (argc < 2 || parse_port(argv[1], &port))
		return cli_err(EXIT_USAGE, "integrity send: ADDR PORT (see --help)");
	for (i = 2; i < argc; i++) {
		if ((v = cli_opt_value(argc, argv, &i, "--rate"))) {
			if (cli_parse_u32(v, &rate) || !rate || rate > 1000000)
				return cli_err(EXIT_USAGE, "integrity: bad --rate '%s'", v);
		} else if ((v = cli_opt_value(argc, argv, &i, "--seconds"))) {
			if (parse_secs(v, &seconds))
				return cli_err(EXIT_USAGE, "integrity: bad --seconds '%s'", v);
		} else if ((v = cli_opt_value(argc, argv, &i, "--size"))) {
			if (cli_parse_u32(v, &size) || size < INTEG_MIN ||
			    size > INTEG_MAX || size % 8)
				return cli_err(EXIT_USAGE, "integrity: bad --size '%s'", v);
		} else if ((v = cli_opt_value(argc, argv, &i, "--inject"))) {
			if (parse_inject(v, &inj))
				return cli_err(EXIT_USAGE, "integrity: bad --inject '%s'", v);
		} else {
			return cli_err(EXIT_USAGE, "integrity send: unknown option '%s'",
				       argv[i]);
		}
	}
	return integrity_send(argv[0], port, rate, seconds, size, &inj);
}

static int cmd_recv(int argc, char **argv)
{
	struct integ_recv_opts o = { .seconds = 60, .idle = 5 };
	const char *v;
	u16 port;
	int i;

	if (argc < 1 || parse_port(argv[0], &port))
		return cli_err(EXIT_USAGE, "integrity recv: PORT (see --help)");
	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--json")) {
			o.json = 1;
		} else if ((v = cli_opt_value(argc, argv, &i, "--seconds"))) {
			if (parse_secs(v, &o.seconds))
				return cli_err(EXIT_USAGE, "integrity: bad --seconds '%s'", v);
		} else if ((v = cli_opt_value(argc, argv, &i, "--idle"))) {
			if (parse_secs(v, &o.idle))
				return cli_err(EXIT_USAGE, "integrity: bad --idle '%s'", v);
		} else if ((v = cli_opt_value(argc, argv, &i, "--progress"))) {
			if (parse_secs(v, &o.progress))
				return cli_err(EXIT_USAGE, "integrity: bad --progress '%s'", v);
		} else if ((v = cli_opt_value(argc, argv, &i, "--hold"))) {
			if (!*v)
				return cli_err(EXIT_USAGE, "integrity: bad --hold ''");
			o.hold = v;
		} else if ((v = cli_opt_value(argc, argv, &i, "--rcvbuf"))) {
			if (cli_parse_u32(v, &o.rcvbuf) || o.rcvbuf < 4096 ||
			    o.rcvbuf > INTEG_RCVBUF_MAX)
				return cli_err(EXIT_USAGE, "integrity: bad --rcvbuf '%s'", v);
		} else {
			return cli_err(EXIT_USAGE, "integrity recv: unknown option '%s'",
				       argv[i]);
		}
	}
	return integrity_recv(port, &o);
}

int cmd_integrity(int argc, char **argv)
{
	if (argc < 1 || !strcmp(argv[0], "--help") || !strcmp(argv[0], "-h")) {
		fputs(integrity_usage, argc < 1 ? stderr : stdout);
		return argc < 1 ? EXIT_USAGE : 0;
	}
	if (!strcmp(argv[0], "send"))
		return cmd_send(argc - 1, argv + 1);
	if (!strcmp(argv[0], "recv"))
		return cmd_recv(argc - 1, argv + 1);
	return cli_err(EXIT_USAGE, "integrity: unknown subcommand '%s'", argv[0]);
}
