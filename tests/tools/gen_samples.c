// SPDX-License-Identifier: (GPL-2.0 OR BSD-3-Clause)
/*
 * Write the CLI test samples with the library's own writer and area
 * helpers, so the samples are what libcompsc produces today:
 *
 *   good.stream     every known record (DRIVER = the area's replay log,
 *                   packed) and one unknown optional record
 *   opaque.stream   PF_VF only, DRIVER data that is not a replay log
 *   truncated.stream, corrupt.stream   good.stream cut short / one bit flipped
 *   ixgbe.stream    an 82599 VF's PF sections: PF_VF and PF_VF_EXT (MAC
 *                   filters, mailbox API, RSS query, IPsec SAs left behind)
 *   ixgbe-bad-mac.stream  ixgbe.stream with a multicast MAC filter (checksum
 *                   made right again: the parser must judge the record)
 *   good.area       an area mid-migration (writer held, one reader inside)
 *   bad-layout.area, bad-reg.area, truncated.area   hostile areas
 *   denied.area     well formed, but lists CTRL, which the 82576 VF policy
 *                   refuses
 *   replay-capacity.area, replay-count.area, replay-len.area
 *                   good.area with a hostile replay log: capacity or count
 *                   0xffffffff, record 1 of length 0xffff
 *   ixgbevf.area    an 82599 VF's area: ring heads and statistics the
 *                   82599 VF policy allows, the replay log ixgbevf keeps
 *   ixgbevf.stream  the same as a stream (REGS, COUNTERS, DRIVER)
 *   unknown-dev.stream  ixgbevf.stream made for 8086:1515, a VF libcompsc
 *                   has no model for
 *   garbage.bin, empty.bin
 *
 * Not written here: v1-ixgbevf.stream, ixgbevf.stream as stream format 1
 * wrote it (16-byte REGS entries, counters with the guest's total), kept
 * to show that a stream of an older format is refused.
 *
 * With --large, inputs too big to commit, for the CLI's resource tests
 * (a replay log's packed form is written here by hand: the library's own
 * packer never writes a duplicate key, and 65,535 puts would be slow):
 *
 *   huge-driver.stream  16 MiB, the most --max-len allows by default,
 *                       nearly all of it a DRIVER record that starts like
 *                       a packed replay log of 65,535 records (its
 *                       checksum is wrong)
 *   many-keys.stream    a DRIVER replay log of 65,535 records (the most a
 *                       packed log counts), 112 data bytes each
 *   dup-first.stream, dup-middle.stream, dup-last.stream
 *                       65,535 empty records, one key repeated: record 1,
 *                       32768 or 65534 repeats an earlier record's key
 *
 * usage: gen_samples [--large] DIR
 */
#include <compsc/compsc.h>
#include <compsc/dev_82576vf.h>
#include <compsc/dev_82599vf.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CAP	16384u

static const struct compsc_ident id_82576vf = {
	.vendor = 0x8086, .device = 0x10ca,
	.subsys_vendor = 0x8086, .subsys_device = 0xa03c,
};

/* A listed register and the value the host saved. */
struct sample_reg {
	struct compsc_rec_reg r;
	u64 value;
};

/* A listed counter: what a stream carries, and the guest's total in the area. */
struct sample_ctr {
	struct compsc_rec_counter c;
	u64 total;
};

/* 82576 VF registers the allow-list admits, with the values they hold. */
static const struct sample_reg regs[] = {
	{ { .offset = 0x1524, .width = 4, .kind = COMPSC_REG_PLAIN }, 0x00000007 },
	{ { .offset = 0x1680, .width = 4, .kind = COMPSC_REG_PLAIN }, 0x000001f4 },
	{ { .offset = 0x2800, .width = 4, .kind = COMPSC_REG_PLAIN }, 0xdeadb000 },
	{ { .offset = 0x2804, .width = 4, .kind = COMPSC_REG_PLAIN }, 0x00000001 },
	{ { .offset = 0x2808, .width = 4, .kind = COMPSC_REG_PLAIN }, 0x00004000 },
	{ { .offset = 0x3828, .width = 4, .kind = COMPSC_REG_PLAIN }, 0x02000000 },
	/* bar 3 is structurally fine but no BAR the 82576 VF policy knows */
	{ { .offset = 0x0000, .bar = 3, .width = 8, .kind = COMPSC_REG_PLAIN },
	  0x0123456789abcdefull },
};
#define NR_AREA_REGS	6	/* the area lists those the policy allows */

static const struct sample_ctr ctrs[] = {
	{ { .offset = 0x0f10, .width = 4, .kind = COMPSC_REG_COUNTER_RO,
	    .hw_final = 0xfffffff0u }, 0x1fffffff0ull },	/* VFGPRC */
	{ { .offset = 0x0f14, .width = 4, .kind = COMPSC_REG_COUNTER_RO,
	    .hw_final = 1234 }, 5678 },			/* VFGPTC */
};

static const struct compsc_pf_vf_state pfvf = {
	.vf_index = 1, .flags = COMPSC_PFVF_F_SPOOFCHK | COMPSC_PFVF_F_TRUST,
	.mac = { 0x52, 0x54, 0x00, 0x12, 0x34, 0x56 },
	.link_state = 0, .max_frame = 1522,
	.nr_vlans = 2, .vlans = { 10, 4094 }, .nr_mc = 1, .mc_hashes = { 0x1f3 },
};

static const struct compsc_ident id_82599vf = {
	.vendor = 0x8086, .device = 0x10ed,
	.subsys_vendor = 0x8086, .subsys_device = 0x7a11,
};

static const struct compsc_pf_vf_state pfvf_82599 = {
	.vf_index = 3, .flags = COMPSC_PFVF_F_SPOOFCHK | COMPSC_PFVF_F_TRUST |
				COMPSC_PFVF_F_PROMISC_MC,
	.mac = { 0x52, 0x54, 0x00, 0x65, 0x43, 0x21 },
	.max_frame = 9018, .nr_vlans = 1, .vlans = { 100 },
};

static const struct compsc_pf_vf_xstate pfext_82599 = {
	.ext = { .flags = COMPSC_PFVF_X_RSS_QUERY, .nr_macs = 2,
		 .mbx_api = 5, .lost = COMPSC_PFVF_LOST_IPSEC },
	.macs = { { .mac = { 0x02, 0x00, 0x00, 0x00, 0x00, 0x01 } },
		  { .mac = { 0x52, 0x54, 0x00, 0xaa, 0xbb, 0xcc } } },
};

/* 82599 VF registers its allow-list admits: ring heads, statistics. */
static const struct sample_reg regs_82599[] = {
	{ { .offset = COMPSC_82599VF_RDH(0), .width = 4, .kind = COMPSC_REG_PLAIN }, 0x0000007f },
	{ { .offset = COMPSC_82599VF_TDH(0), .width = 4, .kind = COMPSC_REG_PLAIN }, 0x00000020 },
	{ { .offset = COMPSC_82599VF_RDH(7), .width = 4, .kind = COMPSC_REG_PLAIN }, 0x00000001 },
	{ { .offset = COMPSC_82599VF_TDH(7), .width = 4, .kind = COMPSC_REG_PLAIN }, 0x000001ff },
};

static const struct sample_ctr ctrs_82599[] = {
	{ { .offset = COMPSC_82599VF_VFGPRC, .width = 4, .kind = COMPSC_REG_COUNTER_RO,
	    .hw_final = 0x00010000u }, 0x100010000ull },
	{ { .offset = COMPSC_82599VF_VFGORC_LSB, .width = 4, .kind = COMPSC_REG_COUNTER_RO,
	    .hw_final = 0xfffffff0u }, 0x3fffffff0ull },
	{ { .offset = COMPSC_82599VF_VFGPTC, .width = 4, .kind = COMPSC_REG_COUNTER_RO,
	    .hw_final = 4321 }, 8765 },
};

/* @n registers as a REGS record's entries in @out; returns its length. */
static u32 regs_rec(const struct sample_reg *r, size_t n, u8 *out)
{
	u32 len = 0;
	size_t i;

	for (i = 0; i < n; i++)
		len += compsc_rec_reg_put(out + len, &r[i].r, r[i].value);
	return len;
}

/* @n counters as a COUNTERS record's entries in @out; returns its length. */
static u32 ctrs_rec(const struct sample_ctr *c, size_t n,
		    struct compsc_rec_counter *out)
{
	size_t i;

	for (i = 0; i < n; i++)
		out[i] = c[i].c;
	return (u32)(n * sizeof(*out));
}

/* A PF_VF record of @st in @out; returns its length. */
static u32 pf_rec(const struct compsc_pf_vf_state *st, u8 *out)
{
	int n = compsc_pf_vf_pack(st, out);

	return n < 0 ? 0 : (u32)n;
}

static const struct compsc_ident id_unknown = {
	.vendor = 0x8086, .device = 0x1515,	/* X540 VF: no model */
	.subsys_vendor = 0x8086, .subsys_device = 0x0001,
};

static unsigned char area[8192] __attribute__((aligned(64)));
static unsigned char area_82599[8192] __attribute__((aligned(64)));
static u32 area_len;

static void die(const char *what, int err)
{
	fprintf(stderr, "gen_samples: %s: %s\n", what, compsc_strerror(err));
	exit(1);
}

static void put(const char *dir, const char *name, const void *p, size_t n)
{
	char path[4096];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "wb");
	if (!f || fwrite(p, 1, n, f) != n || fclose(f)) {
		perror(path);
		exit(1);
	}
}

/* One message of a replay log, under its key. */
struct sample_rec {
	u32 key;
	const u32 *msg;
	u32 len;
};

/* @n records into @a's replay log, in order; @what names the log. */
static void fill_log(struct compsc_area_hdr *a, const struct sample_rec *recs,
		     size_t n, const char *what)
{
	struct compsc_replay l;
	size_t i;
	int err;

	err = compsc_replay_init(&l, compsc_area_replay(a),
				 le32_to_cpu(a->replay_len), NULL, 0);
	for (i = 0; !err && i < n; i++)
		err = compsc_replay_put(&l, recs[i].key, recs[i].msg, recs[i].len);
	if (err)
		die(what, err);
}

/*
 * The log igbvf keeps (drivers/igbvf/0002-*): the mailbox messages the PF
 * keeps as VF state, keyed by message type, a VLAN's by type and id.
 */
static void fill_replay(struct compsc_area_hdr *a)
{
	static const u32 mac[3] = { COMPSC_82576VF_MSG_SET_MAC, 0x12005452, 0x5634 };
	static const u32 lpe[2] = { COMPSC_82576VF_MSG_SET_LPE, 1522 };
	static const u32 vlan[2] = { COMPSC_82576VF_MSG_SET_VLAN |
				     1u << COMPSC_82576VF_MSGINFO_SHIFT, 10 };
	const struct sample_rec recs[] = {
		{ mac[0], mac, sizeof(mac) },
		{ lpe[0], lpe, sizeof(lpe) },
		{ COMPSC_82576VF_MSG_SET_VLAN | vlan[1] << 16, vlan, sizeof(vlan) },
	};

	fill_log(a, recs, sizeof(recs) / sizeof(recs[0]), "replay");
}

/*
 * The area's register and counter lists from stream records, with the
 * values the host saved: the same entries a stream of them carries.
 */
static int fill_lists(struct compsc_area_hdr *a,
		      const struct sample_reg *r, size_t nr_regs,
		      const struct sample_ctr *ctr, size_t nr_ctrs)
{
	struct compsc_counter_desc *c;
	size_t i;
	int err = 0;

	for (i = 0; !err && i < nr_regs; i++) {
		err = compsc_area_add_reg(a, r[i].r.bar, r[i].r.offset,
					  r[i].r.width, r[i].r.kind);
		compsc_area_saved(a)[i] = cpu_to_le64(r[i].value);
	}
	for (i = 0; !err && i < nr_ctrs; i++) {
		err = compsc_area_add_counter(a, 0, ctr[i].c.offset,
					      ctr[i].c.kind);
		err = err < 0 ? err : 0;
		c = &compsc_area_counters(a)[i];
		c->hw_final = cpu_to_le32(ctr[i].c.hw_final);
		c->total = cpu_to_le64(ctr[i].total);
		c->flags = COMPSC_CTR_F_SAVED;
	}
	return err;
}

/* An area at the moment the host holds the device, one reader still inside. */
static void build_area(void)
{
	const struct compsc_layout_req req = { .nr_cpus = 2, .reg_max = 8,
		.counter_max = 4, .replay_recs = 4 };
	struct compsc_area_hdr *a = (struct compsc_area_hdr *)area;
	struct compsc_area_ctl *ctl;
	int err = compsc_area_init(area, sizeof(area), &req);

	if (!err)
		err = fill_lists(a, regs, NR_AREA_REGS, ctrs,
				 sizeof(ctrs) / sizeof(ctrs[0]));
	if (err)
		die("area", err);
	ctl = compsc_area_ctl(a);
	ctl->writer = cpu_to_le32(COMPSC_WRITER_HELD);
	ctl->flags = cpu_to_le32(COMPSC_F_DIRTY_LOG);
	ctl->version = cpu_to_le64(3);
	ctl->dirty_gen = cpu_to_le64(4);
	compsc_area_slots(a)[1].enter = cpu_to_le64(100);
	compsc_area_slots(a)[1].exit = cpu_to_le64(99);
	fill_replay(a);
	area_len = le32_to_cpu(a->size);
}

/* The area's replay log as a stream's DRIVER record carries it. */
static int pack_replay(struct compsc_area_hdr *a, u8 *buf, u32 cap)
{
	struct compsc_replay l;
	int n = compsc_replay_attach(&l, compsc_area_replay(a),
				     le32_to_cpu(a->replay_len), NULL, 0);

	if (!n)
		n = compsc_replay_pack(&l, buf, cap);
	if (n < 0)
		die("replay pack", n);
	return n;
}

static int build_stream(u8 *buf, int full)
{
	struct compsc_area_hdr *a = (struct compsc_area_hdr *)area;
	static const char opaque[] = "not a replay log";
	struct compsc_rec_counter c[2];
	struct compsc_stream_writer w;
	u8 packed[256], r[7 * COMPSC_REC_REG_MAX], pf[sizeof(pfvf)];

	compsc_stream_begin(&w, buf, CAP, &id_82576vf);
	if (full) {
		compsc_stream_add(&w, COMPSC_REC_REGS, COMPSC_REC_F_MANDATORY, r,
				  regs_rec(regs, sizeof(regs) / sizeof(regs[0]), r));
		compsc_stream_add(&w, COMPSC_REC_COUNTERS, 0, c,
				  ctrs_rec(ctrs, 2, c));
		compsc_stream_add(&w, 0x100, 0, "future", 6);
	}
	compsc_stream_add(&w, COMPSC_REC_PF_VF, 0, pf, pf_rec(&pfvf, pf));
	if (full)
		compsc_stream_add(&w, COMPSC_REC_DRIVER, 0, packed,
				  (u32)pack_replay(a, packed, sizeof(packed)));
	else
		compsc_stream_add(&w, COMPSC_REC_DRIVER, 0, opaque, sizeof(opaque));
	return compsc_stream_end(&w);
}

static void write_streams(const char *dir)
{
	static u8 buf[CAP];
	int n = build_stream(buf, 0);

	if (n < 0)
		die("opaque stream", n);
	put(dir, "opaque.stream", buf, (size_t)n);
	n = build_stream(buf, 1);
	if (n < 0)
		die("stream", n);
	put(dir, "good.stream", buf, (size_t)n);
	put(dir, "truncated.stream", buf, (size_t)n - 16);
	buf[32 + 8 + 12 + 8] ^= 0x01;	/* a bit of register 1's value */
	put(dir, "corrupt.stream", buf, (size_t)n);
}

/*
 * The PF sections an ixgbe PF exports, and the same with one MAC filter
 * made multicast and the END checksum (the stream's last 8 bytes minus
 * its reserved word) made right again.
 */
static void write_ixgbe(const char *dir)
{
	static u8 buf[CAP];
	struct compsc_stream_writer w;
	u8 pf[sizeof(pfvf_82599)];
	u32 mac1, crc, pf_len = pf_rec(&pfvf_82599, pf);
	int n;

	compsc_stream_begin(&w, buf, CAP, &id_82599vf);
	compsc_stream_add(&w, COMPSC_REC_PF_VF, COMPSC_REC_F_MANDATORY, pf,
			  pf_len);
	compsc_stream_add(&w, COMPSC_REC_PF_VF_EXT, COMPSC_REC_F_MANDATORY,
			  &pfext_82599, compsc_pf_vf_xlen(&pfext_82599));
	n = compsc_stream_end(&w);
	if (n < 0)
		die("ixgbe stream", n);
	put(dir, "ixgbe.stream", buf, (size_t)n);
	/* header, PF_VF, PF_VF_EXT's header and its own 16, filter 1 */
	mac1 = 32 + 8 + ((pf_len + 7) & ~7u) + 8 + 16 + 8;
	buf[mac1] |= 0x01;
	crc = cpu_to_le32(compsc_crc32c(0, buf, (u32)n - 8));
	memcpy(buf + n - 8, &crc, sizeof(crc));
	put(dir, "ixgbe-bad-mac.stream", buf, (size_t)n);
}

/*
 * The log the CompSC ixgbevf keeps (drivers/ixgbevf/0002-*), keyed as
 * ixgbevf_cs_key() keys it: the message type, a VLAN's id or a MAC
 * filter's index in bits 16 and up.
 */
static void fill_replay_82599(struct compsc_area_hdr *a)
{
	static const u32 mac[3] = { COMPSC_82599VF_MSG_SET_MAC, 0x21005452, 0x4365 };
	static const u32 vlan[2] = { COMPSC_82599VF_MSG_SET_VLAN |
				     1u << COMPSC_82599VF_MSGINFO_SHIFT, 100 };
	static const u32 macvlan[3] = { COMPSC_82599VF_MSG_SET_MACVLAN |
					1u << COMPSC_82599VF_MSGINFO_SHIFT,
					0xaa005452, 0xccbb };
	static const u32 xcast[2] = { COMPSC_82599VF_MSG_UPDATE_XCAST, 2 };
	const struct sample_rec recs[] = {
		{ mac[0], mac, sizeof(mac) },
		{ COMPSC_82599VF_MSG_SET_VLAN | vlan[1] << COMPSC_82599VF_MSGINFO_SHIFT,
		  vlan, sizeof(vlan) },
		{ macvlan[0], macvlan, sizeof(macvlan) },
		{ xcast[0], xcast, sizeof(xcast) },
	};

	fill_log(a, recs, sizeof(recs) / sizeof(recs[0]), "82599 replay");
}

/* An 82599 VF's area and stream, and the stream for a VF with no model. */
static void write_82599(const char *dir)
{
	const struct compsc_layout_req req = { .nr_cpus = 2, .reg_max = 16,
		.counter_max = 5, .replay_recs = 4 };
	struct compsc_area_hdr *a = (struct compsc_area_hdr *)area_82599;
	struct compsc_rec_counter c[3];
	struct compsc_stream_writer w;
	static u8 buf[CAP];
	u8 packed[256], r[4 * COMPSC_REC_REG_MAX];
	int err = compsc_area_init(area_82599, sizeof(area_82599), &req), n, k;

	if (!err)
		err = fill_lists(a, regs_82599,
				 sizeof(regs_82599) / sizeof(regs_82599[0]), ctrs_82599,
				 sizeof(ctrs_82599) / sizeof(ctrs_82599[0]));
	if (err)
		die("82599 area", err);
	fill_replay_82599(a);
	put(dir, "ixgbevf.area", area_82599, le32_to_cpu(a->size));
	n = pack_replay(a, packed, sizeof(packed));
	for (k = 0; k < 2; k++) {
		compsc_stream_begin(&w, buf, CAP, k ? &id_unknown : &id_82599vf);
		compsc_stream_add(&w, COMPSC_REC_REGS, COMPSC_REC_F_MANDATORY, r,
				  regs_rec(regs_82599, 4, r));
		compsc_stream_add(&w, COMPSC_REC_COUNTERS, 0, c,
				  ctrs_rec(ctrs_82599, 3, c));
		compsc_stream_add(&w, COMPSC_REC_DRIVER, 0, packed, (u32)n);
		err = compsc_stream_end(&w);
		if (err < 0)
			die("82599 stream", err);
		put(dir, k ? "unknown-dev.stream" : "ixgbevf.stream", buf,
		    (size_t)err);
	}
}

/* good.area, its replay log's header or record 1 made hostile. */
static void write_bad_replays(const char *dir, unsigned char *bad)
{
	struct compsc_area_hdr *h = (struct compsc_area_hdr *)bad;
	struct compsc_replay_hdr *r = compsc_area_replay(h);
	struct compsc_replay_rec *rec = (struct compsc_replay_rec *)(r + 1);

	memcpy(bad, area, area_len);
	r->capacity = cpu_to_le32(0xffffffffu);
	put(dir, "replay-capacity.area", bad, area_len);
	memcpy(bad, area, area_len);
	r->count = cpu_to_le32(0xffffffffu);
	put(dir, "replay-count.area", bad, area_len);
	memcpy(bad, area, area_len);
	rec[1].len = cpu_to_le16(0xffff);
	put(dir, "replay-len.area", bad, area_len);
}

static void write_areas(const char *dir)
{
	static unsigned char bad[sizeof(area)];
	struct compsc_area_hdr *h = (struct compsc_area_hdr *)bad;

	put(dir, "good.area", area, area_len);
	put(dir, "truncated.area", area, 100);
	memcpy(bad, area, area_len);
	h->reg_off = cpu_to_le32(le32_to_cpu(h->reg_off) + 8);	/* misaligned */
	put(dir, "bad-layout.area", bad, area_len);
	memcpy(bad, area, area_len);
	compsc_area_regs(h)[1].width = 3;
	put(dir, "bad-reg.area", bad, area_len);
	memcpy(bad, area, area_len);
	compsc_area_add_reg(h, 0, 0x0000, 4, COMPSC_REG_PLAIN);	/* CTRL */
	put(dir, "denied.area", bad, area_len);
	write_bad_replays(dir, bad);
}

static void write_junk(const char *dir)
{
	unsigned char g[300];
	u32 x = 12345, i;

	for (i = 0; i < sizeof(g); i++) {
		x = x * 1103515245u + 12345u;
		g[i] = (unsigned char)(x >> 16);
	}
	put(dir, "garbage.bin", g, sizeof(g));
	put(dir, "empty.bin", g, 0);
}

/* ------------------------------------------------------------ --large */

#define BIG_STREAM	(16u << 20)
#define BIG_RECS	0xffffu
#define BIG_KEY(i)	(0x10000u + (i))

/*
 * A packed log of BIG_RECS records of @dlen bytes, record @dup_at keyed
 * like record @dup_of (dup_at BIG_RECS: no duplicate). Returns its bytes.
 */
static u32 pack_big(u8 *buf, u32 dlen, u32 dup_at, u32 dup_of)
{
	struct compsc_replay_pack_hdr h = {
		.magic = COMPSC_REPLAY_PACK_MAGIC,
		.version = COMPSC_REPLAY_PACK_V1,
		.count = cpu_to_le16(BIG_RECS),
	};
	u8 *p = buf + sizeof(h);
	__le32 key;
	u32 i;

	for (i = 0; i < BIG_RECS; i++) {
		key = cpu_to_le32(BIG_KEY(i == dup_at ? dup_of : i));
		memcpy(p, &key, sizeof(key));
		p[4] = (u8)dlen;
		memset(p + COMPSC_REPLAY_PACK_REC_HDR, (u8)i, dlen);
		p += COMPSC_REPLAY_PACK_REC_HDR + dlen;
	}
	h.crc32c = cpu_to_le32(compsc_crc32c(0, buf + sizeof(h),
					     (u32)(p - buf) - sizeof(h)));
	memcpy(buf, &h, sizeof(h));
	return (u32)(p - buf);
}

/* A stream of one DRIVER record holding @len bytes of @payload. */
static void put_driver_stream(const char *dir, const char *name,
			      const u8 *payload, u32 len, u8 *out)
{
	struct compsc_stream_writer w;
	int n;

	compsc_stream_begin(&w, out, BIG_STREAM, &id_82576vf);
	compsc_stream_add(&w, COMPSC_REC_DRIVER, 0, payload, len);
	n = compsc_stream_end(&w);
	if (n < 0)
		die(name, n);
	put(dir, name, out, (size_t)n);
}

static void write_large(const char *dir)
{
	/* what a DRIVER payload may be for the stream to be exactly 16 MiB */
	const u32 fill = BIG_STREAM - sizeof(struct compsc_stream_hdr) -
			 2 * sizeof(struct compsc_rec_hdr) -
			 sizeof(struct compsc_rec_end);
	static const struct { const char *name; u32 at, of; } dups[] = {
		{ "dup-first.stream", 1, 0 },
		{ "dup-middle.stream", 32768, 100 },
		{ "dup-last.stream", BIG_RECS - 1, BIG_RECS - 2 },
	};
	u8 *payload = calloc(1, BIG_STREAM), *out = malloc(BIG_STREAM);
	size_t i;

	if (!payload || !out)
		die("--large", -COMPSC_ENOSPC);
	memset(payload, 'x', fill);
	pack_big(payload, 0, BIG_RECS, 0);	/* a real header, then no log */
	put_driver_stream(dir, "huge-driver.stream", payload, fill, out);
	put_driver_stream(dir, "many-keys.stream", payload,
			  pack_big(payload, COMPSC_REPLAY_DATA_MAX, BIG_RECS, 0),
			  out);
	for (i = 0; i < sizeof(dups) / sizeof(dups[0]); i++)
		put_driver_stream(dir, dups[i].name, payload,
				  pack_big(payload, 0, dups[i].at, dups[i].of),
				  out);
	free(payload);
	free(out);
}

int main(int argc, char **argv)
{
	if (argc == 3 && !strcmp(argv[1], "--large")) {
		write_large(argv[2]);
		return 0;
	}
	if (argc != 2) {
		fprintf(stderr, "usage: gen_samples [--large] DIR\n");
		return 2;
	}
	build_area();
	write_streams(argv[1]);
	write_ixgbe(argv[1]);
	write_82599(argv[1]);
	write_areas(argv[1]);
	write_junk(argv[1]);
	return 0;
}
