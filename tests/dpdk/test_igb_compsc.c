/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The patched igb VF PMD's CompSC glue (drivers/net/e1000/igb_compsc.c of
 * the patched DPDK), linked with that DPDK and run under a real EAL with
 * no device (--no-huge: IOVA is the virtual address). A fake PF answers
 * the mailbox as the igb PF does, decoding with libcompsc; libcompsc's
 * host write side takes the area found at the address the message gave.
 * Checks: a refusing PF leaves the port stock with nothing allocated; an
 * accepting PF gets a valid area; bursts run inside the read side, return
 * nothing without calling the stock burst while the host holds the device;
 * after a migration the first burst runs the port's restore once with the
 * heads the host saved and the port passes traffic again, with no mailbox
 * message when the host configured the new PF and, when it did not, after
 * the VF reset, the area and the replay log (what the PF acknowledged,
 * oldest first) went to the new PF; when guest memory moved, the PMD's
 * own restore drops, without delivering a byte of them, the frames the
 * old device completed that the port had not delivered (a begun
 * scattered frame included) and delivers what the fresh device receives,
 * while the same migration with memory in place delivers them all
 * (a fake port: the PMD's queue code on a BAR in memory, the test writing
 * back descriptors as the device); received pages are marked dirty only
 * while the host logs; the counters' values the host saved are handed out
 * once; CompSC's xstats count the restores, the refused one, the shifts,
 * the path and its messages and the marked pages exactly; the control
 * path waits its bound; close withdraws the area and frees it.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_cycles.h>
#include <rte_eal.h>
#include <rte_launch.h>
#include <rte_lcore.h>
#include <rte_mbuf.h>
#include <rte_memzone.h>

#include <compsc/compsc.h>
#include <compsc/mbx.h>

#include "igb_compsc.h"
#include "igb_fake_port.h"

static int failures;

#define CHECK(c) do {							\
	if (!(c)) {							\
		fprintf(stderr, "%s:%d: CHECK failed: %s\n",		\
			__FILE__, __LINE__, #c);			\
		failures++;						\
	}								\
} while (0)

/* The PF: ACK or NACK, what the area message said, what it was sent */
struct fake_pf {
	int refuse;
	int sends;
	u64 gpa;
	u32 size;
	uint32_t types[16];	/* message types, in the order sent */
	int resets;		/* VF reset handshakes */
};

static int
fake_send(void *hw, const uint32_t *msg, uint16_t nwords)
{
	struct fake_pf *pf = hw;

	if (pf->sends < 16)
		pf->types[pf->sends] = msg[0] & 0xffff;
	pf->sends++;
	if (pf->refuse)
		return 1;
	if ((msg[0] & 0xffff) != COMPSC_MBX_AREA)
		return 0;
	return compsc_mbx_area_decode(msg, nwords, &pf->gpa, &pf->size) ?
	       1 : 0;
}

/* The VF reset handshake: a new PF with no MAC for the VF NACKs it */
static int
fake_reset(void *hw)
{
	struct fake_pf *pf = hw;

	pf->resets++;
	return -EIO;
}

static int rx_calls, tx_calls;

static uint16_t
fake_rx(void *q, struct rte_mbuf **pkts, uint16_t n)
{
	(void)q; (void)pkts;
	rx_calls++;
	return n;
}

static uint16_t
fake_tx(void *q, struct rte_mbuf **pkts, uint16_t n)
{
	(void)q; (void)pkts;
	tx_calls++;
	return n;
}

/* The port's restore: what it was given, and what it answers */
static int restore_calls, restore_ret, restore_copied, restore_resets;
static uint32_t restore_heads[2 * IGB_COMPSC_QUEUES];

static int
fake_restore(void *dev, const uint32_t *rx_head, const uint32_t *tx_head,
	     int mem_copied)
{
	(void)dev;
	restore_calls++;
	restore_copied = mem_copied;
	if (rx_head == NULL || tx_head == NULL) {	/* queues reset */
		restore_resets++;
		return restore_ret;
	}
	memcpy(restore_heads, rx_head, IGB_COMPSC_QUEUES * sizeof(*rx_head));
	memcpy(restore_heads + IGB_COMPSC_QUEUES, tx_head,
	       IGB_COMPSC_QUEUES * sizeof(*tx_head));
	return restore_ret;
}

static struct igb_compsc *
create(uint16_t port, struct fake_pf *pf)
{
	return igb_compsc_create(port, SOCKET_ID_ANY, pf, fake_send,
				 fake_reset, NULL, fake_restore);
}

static u64
env_now(void *ctx)
{
	struct timespec ts;

	(void)ctx;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (u64)ts.tv_sec * 1000000000ull + (u64)ts.tv_nsec;
}

static void
env_relax(void *ctx)
{
	(void)ctx;
}

/* single-threaded test: a full fence is every reader's store visible */
static void
env_fence(void *ctx)
{
	(void)ctx;
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
}

static const struct compsc_env host_env = {
	.now_ns = env_now, .relax = env_relax, .fence_readers = env_fence,
};

static struct compsc_area_ctl *
host_ctl(struct fake_pf *pf, struct compsc_slot **slots, u32 *n)
{
	struct compsc_area_hdr *a = (void *)(uintptr_t)pf->gpa;

	*slots = compsc_area_slots(a);
	*n = le16_to_cpu(a->nr_slots);
	return compsc_area_ctl(a);
}

static void
test_refused(void)
{
	struct fake_pf pf = { .refuse = 1 };

	CHECK(create(7, &pf) == NULL);
	CHECK(pf.sends == 1);
	CHECK(rte_memzone_lookup("igbvf_compsc_7") == NULL);
}

static void
test_registered(void)
{
	struct fake_pf pf = { 0 };
	struct igb_compsc *cs = create(1, &pf);
	const struct rte_memzone *mz = rte_memzone_lookup("igbvf_compsc_1");
	struct rte_mbuf *pkts[32];
	struct compsc_area_ctl *ctl;
	struct compsc_slot *slots;
	u32 n;

	CHECK(cs != NULL && mz != NULL);
	if (cs == NULL || mz == NULL)
		return;
	CHECK(pf.gpa == mz->iova && pf.gpa == (uintptr_t)mz->addr);
	CHECK(compsc_area_check(mz->addr, pf.size) == 0);
	CHECK(le16_to_cpu(((struct compsc_area_hdr *)mz->addr)->reg_count) == 4);
	CHECK(le16_to_cpu(((struct compsc_area_hdr *)mz->addr)->counter_count) ==
	      IGB_COMPSC_NR_CTRS);
	igb_compsc_set_bursts(cs, fake_rx, fake_tx);
	CHECK(igb_compsc_rx(cs, NULL, pkts, 32) == 32 && rx_calls == 1);
	CHECK(igb_compsc_tx(cs, NULL, pkts, 8) == 8 && tx_calls == 1);

	ctl = host_ctl(&pf, &slots, &n);
	CHECK(compsc_readers_inside(slots, n) == 0);
	CHECK(compsc_writer_acquire(ctl, slots, n, &host_env, 10000000) == 0);
	CHECK(igb_compsc_rx(cs, NULL, pkts, 32) == 0 && rx_calls == 1);
	CHECK(igb_compsc_tx(cs, NULL, pkts, 8) == 0 && tx_calls == 1);
	u64 t0 = env_now(NULL);
	CHECK(igb_compsc_enter(cs) == -EBUSY);
	CHECK(env_now(NULL) - t0 >= 5000000000ull);	/* its 5 s bound */
	compsc_writer_abort(ctl);
	CHECK(igb_compsc_rx(cs, NULL, pkts, 32) == 32 && rx_calls == 2);
	CHECK(igb_compsc_enter(cs) == 0);
	igb_compsc_leave(cs);
	CHECK(compsc_readers_inside(slots, n) == 0);

	igb_compsc_destroy(cs);
	CHECK(pf.sends == 2 && pf.gpa == 0 && pf.size == 0);
	CHECK(rte_memzone_lookup("igbvf_compsc_1") == NULL);
}

/*
 * A host hand-back as the stand-in does it: take, save the ring heads
 * @heads (RDH0, RDH1, TDH0, TDH1), flags @flags, release with a new version.
 */
static void
host_migrate(struct fake_pf *pf, const uint32_t *heads, u32 flags)
{
	struct compsc_area_hdr *a = (void *)(uintptr_t)pf->gpa;
	struct compsc_area_ctl *ctl;
	struct compsc_slot *slots;
	u32 n, i;

	ctl = host_ctl(pf, &slots, &n);
	/* 1 s: an lcore polling on a busy machine may be preempted inside */
	CHECK(compsc_writer_acquire(ctl, slots, n, &host_env, 1000000000) == 0);
	for (i = 0; i < 2 * IGB_COMPSC_QUEUES; i++)
		compsc_area_saved(a)[i] = cpu_to_le64(heads[i]);
	ctl->flags = cpu_to_le32(flags);
	/* the good-packets-in counter, as the host saves it at the take */
	compsc_area_counters(a)[IGB_COMPSC_GPRC].hw_final = cpu_to_le32(heads[0] + 1000);
	compsc_area_counters(a)[IGB_COMPSC_GPRC].flags = COMPSC_CTR_F_SAVED;
	compsc_writer_release(ctl);
}

/* CompSC's xstat @name, or -1 */
static int64_t
xstat(struct igb_compsc *cs, const char *name)
{
	struct rte_eth_xstat_name names[IGB_COMPSC_NB_XSTATS];
	struct rte_eth_xstat xs[IGB_COMPSC_NB_XSTATS];
	unsigned int i;

	igb_compsc_xstats_names(names);
	igb_compsc_xstats(cs, xs, 0);
	for (i = 0; i < IGB_COMPSC_NB_XSTATS; i++)
		if (!strcmp(names[i].name, name))
			return (int64_t)xs[i].value;
	return -1;
}

/* The port asks the PF @msg, which answers @answer (ACK or NACK) */
static void
ask(struct igb_compsc *cs, const uint32_t *msg, uint16_t n, uint32_t answer)
{
	uint32_t reply[2] = { answer | (msg[0] & 0xffff), 0 };

	igb_compsc_mbx_sent(cs, msg, n);
	igb_compsc_mbx_answered(cs, reply);
}

static struct rte_mempool *pool;

/* A stock burst that receives @n one-byte frames into real mbufs */
static uint16_t
mbuf_rx(void *q, struct rte_mbuf **pkts, uint16_t n)
{
	uint16_t i;

	(void)q;
	rx_calls++;
	for (i = 0; i < n; i++) {
		pkts[i] = rte_pktmbuf_alloc(pool);
		if (pkts[i] == NULL)
			return i;
		pkts[i]->data_len = 1;
		pkts[i]->pkt_len = 1;
	}
	return n;
}

static uint16_t
rx_free(struct igb_compsc *cs, uint16_t n)
{
	struct rte_mbuf *pkts[32];
	uint16_t got = igb_compsc_rx(cs, NULL, pkts, n);

	rte_pktmbuf_free_bulk(pkts, got);
	return got;
}

/*
 * A new PF the host did not configure: the first burst resets the VF,
 * registers the area and replays what the PF acknowledged, oldest first,
 * then restores the rings; a host-configured one sends nothing. Received
 * pages are marked only while the host logs.
 */
static void
test_migrated_replayed(void)
{
	static const uint32_t heads[] = { 5, 0, 7, 0 };
	const uint8_t mac[6] = { 0x02, 0x77, 0, 0, 0, 0x99 };
	const uint32_t vlan[2] = { 0x04 | 1u << 16, 100 };
	const uint32_t mac2[3] = { 0x02, 0x11223302, 0x5566 };
	struct fake_pf pf = { 0 };
	struct igb_compsc *cs = create(2, &pf);
	struct compsc_slot *slots;
	struct compsc_area_ctl *ctl;
	u32 n;

	CHECK(cs != NULL && pool != NULL);
	if (cs == NULL || pool == NULL)
		return;
	igb_compsc_set_bursts(cs, mbuf_rx, fake_tx);
	igb_compsc_record_mac(cs, mac);
	ask(cs, vlan, 2, COMPSC_MBX_ACK);
	ask(cs, mac2, 3, COMPSC_MBX_NACK);	/* refused: never replayed */
	rx_calls = 0;
	restore_calls = 0;
	restore_ret = 0;
	CHECK(rx_free(cs, 8) == 8 && xstat(cs, "compsc_dirty_pages") == 0);
	ctl = host_ctl(&pf, &slots, &n);
	ctl->flags = cpu_to_le32(COMPSC_F_DIRTY_LOG);	/* a logging round */
	CHECK(rx_free(cs, 8) == 8 && xstat(cs, "compsc_dirty_pages") == 8);
	ctl->flags = 0;
	CHECK(rx_free(cs, 8) == 8 && xstat(cs, "compsc_dirty_pages") == 8);

	host_migrate(&pf, heads, 0);
	CHECK(rx_free(cs, 32) == 32 && rx_calls == 4);
	CHECK(restore_calls == 1 && pf.resets == 1);
	CHECK(pf.sends == 4 && pf.types[1] == COMPSC_MBX_AREA &&
	      pf.types[2] == 0x02 && pf.types[3] == 0x04);
	CHECK(pf.gpa != 0);
	CHECK(xstat(cs, "compsc_restores") == 1);
	CHECK(xstat(cs, "compsc_host_restores") == 0);
	CHECK(xstat(cs, "compsc_restore_msgs") == 4);	/* reset, area, 2 */
	CHECK(xstat(cs, "compsc_replay_nacks") == 0);
	CHECK(xstat(cs, "compsc_replay_lost") == 0);

	host_migrate(&pf, heads, COMPSC_F_HOST_CONFIGURED);
	CHECK(rx_free(cs, 32) == 32 && restore_calls == 2);
	CHECK(pf.sends == 4 && pf.resets == 1);
	CHECK(xstat(cs, "compsc_host_restores") == 1);
	CHECK(xstat(cs, "compsc_restore_msgs") == 0);
	(void)host_ctl(&pf, &slots, &n);
	CHECK(compsc_readers_inside(slots, n) == 0);
	igb_compsc_destroy(cs);
	CHECK(pf.sends == 5 && pf.gpa == 0);
	CHECK(rte_memzone_lookup("igbvf_compsc_2") == NULL);
}

/*
 * A hand-over without state (the destination's give failed after the
 * source's take, its area holding a past migration's heads): the first
 * burst resets the VF through the new PF and replays, and has the port
 * reset its queues instead of shifting them by those heads; counted in
 * compsc_state_lost.
 */
static void
test_migrated_lost(void)
{
	static const uint32_t stale[] = { 5, 0, 7, 0 };
	const uint8_t mac[6] = { 0x02, 0x77, 0, 0, 0, 0x42 };
	struct fake_pf pf = { 0 };
	struct igb_compsc *cs = create(9, &pf);
	struct compsc_area_hdr *a;
	struct compsc_area_ctl *ctl;
	struct compsc_slot *slots;
	u32 n, i;

	CHECK(cs != NULL && pool != NULL);
	if (cs == NULL || pool == NULL)
		return;
	igb_compsc_set_bursts(cs, mbuf_rx, fake_tx);
	igb_compsc_record_mac(cs, mac);
	restore_calls = 0;
	restore_resets = 0;
	restore_ret = 0;
	a = (void *)(uintptr_t)pf.gpa;
	ctl = host_ctl(&pf, &slots, &n);
	CHECK(compsc_writer_acquire(ctl, slots, n, &host_env, 10000000) == 0);
	for (i = 0; i < 2 * IGB_COMPSC_QUEUES; i++)
		compsc_area_saved(a)[i] = cpu_to_le64(stale[i]);
	ctl->flags = cpu_to_le32(COMPSC_F_HOST_CONFIGURED);	/* travelled */
	compsc_writer_release_lost(ctl, -COMPSC_ENOSTATE);

	CHECK(rx_free(cs, 8) == 8);
	CHECK(restore_calls == 1 && restore_resets == 1);
	CHECK(pf.resets == 1);			/* the VF reset handshake */
	CHECK(pf.sends == 3 && pf.types[1] == COMPSC_MBX_AREA &&
	      pf.types[2] == 0x02);		/* area, then the MAC replayed */
	CHECK(xstat(cs, "compsc_state_lost") == 1);
	CHECK(xstat(cs, "compsc_restores") == 1);
	CHECK(xstat(cs, "compsc_host_restores") == 0);
	CHECK(xstat(cs, "compsc_rx_shift_total") == 0);
	CHECK(rx_free(cs, 8) == 8 && restore_calls == 1);	/* once */
	igb_compsc_destroy(cs);
	CHECK(rte_memzone_lookup("igbvf_compsc_9") == NULL);
}

/* CompSC's xstats: names as the kernel igbvf's, values as counted */
static void
check_xstats(struct igb_compsc *cs, uint64_t restores, uint64_t refused,
	     uint64_t rx_shift, uint64_t tx_shift)
{
	struct rte_eth_xstat_name names[IGB_COMPSC_NB_XSTATS];
	struct rte_eth_xstat xs[IGB_COMPSC_NB_XSTATS];

	igb_compsc_xstats_names(names);
	igb_compsc_xstats(cs, xs, 5);
	CHECK(!strcmp(names[0].name, "compsc_restores") && xs[0].value == restores);
	CHECK(!strcmp(names[1].name, "compsc_restores_refused") &&
	      xs[1].value == refused);
	CHECK(!strcmp(names[2].name, "compsc_rx_shift_total") &&
	      xs[2].value == rx_shift);
	CHECK(!strcmp(names[3].name, "compsc_tx_shift_total") &&
	      xs[3].value == tx_shift);
	CHECK(!strcmp(names[5].name, "compsc_restore_us"));
	CHECK(!strcmp(names[6].name, "compsc_replay_lost"));
	CHECK(!strcmp(names[7].name, "compsc_host_restores"));
	CHECK(!strcmp(names[8].name, "compsc_restore_msgs"));
	CHECK(!strcmp(names[9].name, "compsc_replay_nacks"));
	CHECK(!strcmp(names[10].name, "compsc_dirty_pages"));
	CHECK(!strcmp(names[11].name, "compsc_rx_stale_dropped"));
	CHECK(xs[0].id == 5 && xs[IGB_COMPSC_NB_XSTATS - 1].id ==
	      5 + IGB_COMPSC_NB_XSTATS - 1);
}

/*
 * The host configured the new PF: the first burst runs the port's restore
 * once, with the saved heads, and passes traffic; a second migration
 * restores again. A restore the port refuses keeps it quiet.
 */
static void
test_migrated_restored(void)
{
	static const uint32_t h1[] = { 5, 1, 7, 2 }, h2[] = { 9, 0, 3, 0 };
	struct fake_pf pf = { 0 };
	struct igb_compsc *cs = create(3, &pf);
	struct rte_mbuf *pkts[32];

	CHECK(cs != NULL);
	if (cs == NULL)
		return;
	igb_compsc_set_bursts(cs, fake_rx, fake_tx);
	rx_calls = 0;
	restore_calls = 0;
	restore_ret = 0;
	host_migrate(&pf, h1, COMPSC_F_HOST_CONFIGURED);
	CHECK(igb_compsc_tx(cs, NULL, pkts, 4) == 4);
	CHECK(restore_calls == 1 && !memcmp(restore_heads, h1, sizeof(h1)));
	/* the counter's saved value, once */
	{
		uint32_t v = 0;

		CHECK(igb_compsc_ctr_final(cs, IGB_COMPSC_GPRC, &v) == 1 &&
		      v == h1[0] + 1000);
		CHECK(igb_compsc_ctr_final(cs, IGB_COMPSC_GPRC, &v) == 0);
		CHECK(igb_compsc_ctr_final(cs, IGB_COMPSC_GPTC, &v) == 0);
		CHECK(igb_compsc_ctr_final(cs, IGB_COMPSC_NR_CTRS, &v) < 0);
	}
	CHECK(igb_compsc_rx(cs, NULL, pkts, 32) == 32 && rx_calls == 1);
	CHECK(restore_calls == 1);
	host_migrate(&pf, h2, COMPSC_F_HOST_CONFIGURED);
	CHECK(igb_compsc_rx(cs, NULL, pkts, 32) == 32 && rx_calls == 2);
	CHECK(restore_calls == 2 && !memcmp(restore_heads, h2, sizeof(h2)));
	restore_ret = -EINVAL;
	host_migrate(&pf, h1, COMPSC_F_HOST_CONFIGURED);
	CHECK(igb_compsc_rx(cs, NULL, pkts, 32) == 0 && rx_calls == 2);
	restore_ret = 0;
	CHECK(igb_compsc_rx(cs, NULL, pkts, 32) == 32 && rx_calls == 3);
	CHECK(restore_calls == 4 && restore_copied == 0);
	check_xstats(cs, 3, 1, h1[0] + h1[1] + h2[0] + h2[1] + h1[0] + h1[1],
		     h1[2] + h1[3] + h2[2] + h2[3] + h1[2] + h1[3]);
	CHECK(xstat(cs, "compsc_rx_stale_dropped") == 0);
	/* memory moved: the port's restore is told, and what it dropped counts */
	restore_ret = 3;
	host_migrate(&pf, h2, COMPSC_F_HOST_CONFIGURED | COMPSC_F_MEM_COPIED);
	CHECK(igb_compsc_rx(cs, NULL, pkts, 32) == 32 && rx_calls == 4);
	CHECK(restore_calls == 5 && restore_copied == 1);
	CHECK(xstat(cs, "compsc_restores") == 4);
	CHECK(xstat(cs, "compsc_restores_refused") == 1);
	CHECK(xstat(cs, "compsc_rx_stale_dropped") == 3);
	restore_ret = 0;
	igb_compsc_destroy(cs);
	CHECK(pf.sends == 2 && pf.gpa == 0);
	CHECK(rte_memzone_lookup("igbvf_compsc_3") == NULL);
}

/*
 * Ring tests: a fake port (igb_fake_port.c) of RING descriptors whose
 * CompSC restore is the PMD's own queue restore; the test writes back
 * descriptors as the device would. Frames the old device completed after
 * the port's last burst are filled with POISON.
 */
#define RING	32
#define POISON	0xee

static struct rte_mempool *small_pool;	/* 512-byte buffers: scattered */

struct ring_port {
	struct fake_pf pf;
	struct igb_compsc *cs;
	void *dev;
};

static int
ring_port_open(struct ring_port *rp, uint16_t id, struct rte_mempool *mp)
{
	char name[32];

	memset(rp, 0, sizeof(*rp));
	snprintf(name, sizeof(name), "test_igbvf_%u", id);
	rp->dev = mp == NULL ? NULL : fake_port_create(name, RING, mp);
	if (rp->dev == NULL)
		return -1;
	rp->cs = igb_compsc_create(id, SOCKET_ID_ANY, &rp->pf, fake_send,
				   fake_reset, rp->dev, fake_port_restore);
	if (rp->cs == NULL) {
		fake_port_destroy(rp->dev);
		return -1;
	}
	igb_compsc_set_bursts(rp->cs, fake_port_burst(rp->dev), fake_tx);
	return 0;
}

static void
ring_port_close(struct ring_port *rp)
{
	igb_compsc_destroy(rp->cs);
	fake_port_destroy(rp->dev);
}

/* One burst of the port as the application calls it */
static uint16_t
ring_rx(struct ring_port *rp, struct rte_mbuf **pkts)
{
	return igb_compsc_rx(rp->cs, fake_port_rxq(rp->dev), pkts, 32);
}

/*
 * Each of the @n frames is @len bytes over @segs segments, every byte
 * @fill (so none POISON), and none is one of the @ns mbufs @not; freed.
 */
static int
frames_are(struct rte_mbuf **pkts, uint16_t n, uint32_t len, uint16_t segs,
	   uint8_t fill, struct rte_mbuf *const *not, unsigned int ns)
{
	const struct rte_mbuf *m;
	int ok = 1;
	uint16_t i, k;
	unsigned int j;

	for (i = 0; i < n; i++) {
		ok &= pkts[i]->pkt_len == len && pkts[i]->nb_segs == segs;
		for (m = pkts[i]; m != NULL; m = m->next) {
			for (j = 0; j < ns; j++)
				ok &= m != not[j];
			for (k = 0; k < m->data_len; k++)
				ok &= rte_pktmbuf_mtod(m, const uint8_t *)[k] == fill;
		}
		rte_pktmbuf_free(pkts[i]);
	}
	return ok;
}

/*
 * Frames the old device completed after the port's last burst, then a
 * migration with guest memory moved (@copied) or in place: moved, they
 * are dropped unread, their mbufs stay in the ring and go back to the
 * device, and only what the fresh device receives is delivered; in place,
 * they are delivered first.
 */
static void
test_ring(int copied)
{
	static const uint32_t heads[] = { 8, 0, 0, 0 };
	struct rte_mbuf *pkts[32], *old[3];
	struct ring_port rp;
	unsigned int avail;
	uint16_t i;

	CHECK(ring_port_open(&rp, 4 + copied, pool) == 0);
	if (rp.cs == NULL)
		return;
	for (i = 0; i < 5; i++)
		fake_dev_write(rp.dev, i, 60, 0x11, 1);
	CHECK(frames_are(pkts, ring_rx(&rp, pkts), 60, 1, 0x11, NULL, 0));
	CHECK(fake_port_rdt(rp.dev) == 4);	/* 5 held > 4: given back */
	for (i = 0; i < 3; i++) {
		old[i] = fake_dev_write(rp.dev, 5 + i, 60, POISON, 1);
		CHECK(old[i] != NULL);
	}
	avail = rte_mempool_avail_count(pool);
	host_migrate(&rp.pf, heads, COMPSC_F_HOST_CONFIGURED |
		     (copied ? COMPSC_F_MEM_COPIED : 0));
	i = ring_rx(&rp, pkts);
	CHECK(xstat(rp.cs, "compsc_restores") == 1);
	CHECK(xstat(rp.cs, "compsc_rx_shift_total") == 8);
	CHECK(xstat(rp.cs, "compsc_rx_stale_dropped") == (copied ? 3 : 0));
	/* old head 8 is index 0, where the fresh device starts; RDT follows */
	CHECK(fake_port_rdh(rp.dev) == 0 && fake_port_rdt(rp.dev) == RING - 4);
	if (copied) {
		CHECK(i == 0);
		/* nothing freed or allocated: the mbufs wait behind rx_tail */
		CHECK(rte_mempool_avail_count(pool) == avail);
		for (i = 0; i < 3; i++)
			CHECK(fake_dev_posted(rp.dev, RING - 3 + i) == old[i]);
	} else {
		CHECK(i == 3 && pkts[0] == old[0] && pkts[2] == old[2]);
		CHECK(frames_are(pkts, 3, 60, 1, POISON, NULL, 0));
	}
	fake_dev_write(rp.dev, 0, 60, 0x22, 1);
	fake_dev_write(rp.dev, 1, 60, 0x22, 1);
	i = ring_rx(&rp, pkts);
	CHECK(i == 2 && frames_are(pkts, i, 60, 1, 0x22, old, copied ? 3 : 0));
	/* this burst gave every descriptor before rx_tail back: the dropped too */
	CHECK(fake_port_rdt(rp.dev) == 1);
	ring_port_close(&rp);
}

/*
 * The scattered burst (512-byte buffers) had begun a frame whose end the
 * old device completed after it: moved, the begun frame's mbuf is freed
 * with the rest dropped, and the next frame is not joined to it; in
 * place, the frame is delivered whole.
 */
static void
test_ring_scattered(int copied)
{
	static const uint32_t heads[] = { 5, 0, 0, 0 };
	struct rte_mbuf *pkts[32];
	struct ring_port rp;
	unsigned int avail;
	uint16_t n;

	CHECK(ring_port_open(&rp, 6 + copied, small_pool) == 0);
	if (rp.cs == NULL)
		return;
	fake_dev_write(rp.dev, 0, 512, 0x11, 0);
	fake_dev_write(rp.dev, 1, 100, 0x11, 1);
	CHECK(frames_are(pkts, ring_rx(&rp, pkts), 612, 2, 0x11, NULL, 0));
	fake_dev_write(rp.dev, 2, 512, POISON, 0);
	CHECK(ring_rx(&rp, pkts) == 0);		/* a begun frame, held */
	fake_dev_write(rp.dev, 3, 512, POISON, 0);
	fake_dev_write(rp.dev, 4, 100, POISON, 1);
	avail = rte_mempool_avail_count(small_pool);
	host_migrate(&rp.pf, heads, COMPSC_F_HOST_CONFIGURED |
		     (copied ? COMPSC_F_MEM_COPIED : 0));
	n = ring_rx(&rp, pkts);
	if (copied) {
		CHECK(n == 0);
		CHECK(xstat(rp.cs, "compsc_rx_stale_dropped") == 3);
		CHECK(rte_mempool_avail_count(small_pool) == avail + 1);
	} else {
		CHECK(n == 1 && frames_are(pkts, n, 1124, 3, POISON, NULL, 0));
		CHECK(xstat(rp.cs, "compsc_rx_stale_dropped") == 0);
	}
	fake_dev_write(rp.dev, 0, 200, 0x22, 1);
	n = ring_rx(&rp, pkts);
	CHECK(n == 1 && frames_are(pkts, n, 200, 1, 0x22, NULL, 0));
	ring_port_close(&rp);
}

/*
 * The host holds the device past the read side's bound: the close fails
 * (-EBUSY), ethdev releases the port anyway, and the next interrupt (the
 * hand-back's kick) must find no callback of the released port.
 */
static void
test_close_held(void)
{
	struct compsc_area_ctl *ctl;
	struct compsc_slot *slots;
	struct ring_port rp;
	int reads;
	u32 n;

	CHECK(ring_port_open(&rp, 8, pool) == 0);
	if (rp.cs == NULL)
		return;
	CHECK(fake_port_attach(rp.dev, rp.cs) == 0);
	ctl = host_ctl(&rp.pf, &slots, &n);
	CHECK(compsc_writer_acquire(ctl, slots, n, &host_env, 10000000) == 0);
	CHECK(fake_port_close(rp.dev) == -EBUSY);
	reads = fake_mbx_irq_reads();
	fake_port_destroy(rp.dev);		/* as rte_eth_dev_close() does */
	fake_port_interrupt();
	rte_delay_ms(100);
	CHECK(fake_mbx_irq_reads() == reads);
	fake_port_detach(rp.dev);
	/* the context stays, as the PMD leaves it: the host holds its area */
}

/*
 * The interrupt thread handles PF messages without a break while the
 * control path sets VLAN filters: no mailbox use starts inside another.
 */
static void
test_mbx_serialised(void)
{
	struct ring_port rp;
	int i;

	CHECK(ring_port_open(&rp, 9, pool) == 0);
	if (rp.cs == NULL)
		return;
	CHECK(fake_port_attach(rp.dev, rp.cs) == 0);
	fake_port_interrupt();
	for (i = 0; i < 1000 && fake_mbx_irq_reads() == 0; i++)
		rte_delay_ms(1);
	for (i = 0; i < 1000; i++)
		CHECK(fake_port_vlan(rp.dev, 100, i & 1) == 0);
	fake_port_interrupt_stop();
	CHECK(fake_mbx_irq_reads() > 0);
	if (fake_mbx_overlaps() != 0)
		fprintf(stderr, "mailbox: %d overlapping uses in %d interrupts\n",
			fake_mbx_overlaps(), fake_mbx_irq_reads());
	CHECK(fake_mbx_overlaps() == 0);
	fake_port_detach(rp.dev);
	ring_port_close(&rp);
}

/*
 * The race of a TX-owning lcore's tx_done_cleanup with the restore,
 * which another lcore's receive burst runs. Each round: 64 frames sent,
 * the first 32 done and freed by the cleanup loop, the other 32 still
 * pending when the host saves TDH; after the restore (TX shifted by 32)
 * they must all still be held by the port, however the cleanup ran
 * meanwhile, and each freed once when the fresh device completes them.
 */
#define RACE_ROUNDS	200
#define RACE_RING	256
#define RACE_SENT	64
#define RACE_DONE	32

static volatile int race_stop;

static int
race_cleanup_loop(void *dev)
{
	while (!race_stop)
		fake_port_tx_cleanup(dev);
	return 0;
}

/* What the port and its area say when no restore came */
static void
race_stalled(struct ring_port *rp)
{
	struct compsc_area_hdr *a = (void *)(uintptr_t)rp->pf.gpa;
	struct compsc_area_ctl *ctl;
	struct compsc_slot *slots;
	u32 n, i;

	ctl = host_ctl(&rp->pf, &slots, &n);
	fprintf(stderr, "cleanup race: no restore in 10 s: writer %u version %llu restored %llu inside %llu restores %lld refused %lld busy %lld\n",
		le32_to_cpu(ctl->writer),
		(unsigned long long)le64_to_cpu(ctl->version),
		(unsigned long long)le64_to_cpu(a->restored_version),
		(unsigned long long)compsc_readers_inside(slots, n),
		(long long)xstat(rp->cs, "compsc_restores"),
		(long long)xstat(rp->cs, "compsc_restores_refused"),
		(long long)xstat(rp->cs, "compsc_busy"));
	for (i = 0; i < n; i++)
		if (slots[i].enter != slots[i].exit)
			fprintf(stderr, "cleanup race: slot %u enter %llu exit %llu\n", i,
				(unsigned long long)le64_to_cpu(slots[i].enter),
				(unsigned long long)le64_to_cpu(slots[i].exit));
}

/*
 * A migration to @heads, then receive bursts until the port restored
 * (here or on the other lcore, which may do it before this lcore reads
 * the count again: so the count is read before the hand-back); 0 after
 * 10 s without, so that a restore that never comes fails the test
 * instead of hanging it.
 */
static int
race_migrate(struct ring_port *rp, const uint32_t *heads, struct rte_mbuf **rx)
{
	int64_t want = xstat(rp->cs, "compsc_restores") + 1;
	uint64_t end;

	host_migrate(&rp->pf, heads, COMPSC_F_HOST_CONFIGURED);
	end = rte_get_timer_cycles() + 10 * rte_get_timer_hz();

	while (xstat(rp->cs, "compsc_restores") < want) {
		if (rte_get_timer_cycles() > end) {
			race_stalled(rp);
			return 0;
		}
		ring_rx(rp, rx);
	}
	return 1;
}

/* Cleaned up by the other lcore: wait until the pool holds @avail */
static int
race_wait_avail(struct rte_mempool *mp, unsigned int avail)
{
	uint64_t end = rte_get_timer_cycles() + rte_get_timer_hz();

	while (rte_mempool_avail_count(mp) != avail)
		if (rte_get_timer_cycles() > end)
			return 0;
	return 1;
}

static void
test_cleanup_race(void)
{
	static const uint32_t heads[] = { 0, 0, RACE_DONE, 0 };
	static const uint32_t back[] = { 0, 0, RACE_SENT - RACE_DONE, 0 };
	struct rte_mbuf *pkts[RACE_SENT], *rx[32];
	struct rte_mempool *txp;
	struct ring_port rp;
	unsigned int lcore = rte_get_next_lcore(-1, 1, 0), size, early = 0;
	unsigned int i, r, k, bad = 0;

	txp = rte_pktmbuf_pool_create("test_igb_tx", 511, 0, 0,
				      RTE_MBUF_DEFAULT_BUF_SIZE, SOCKET_ID_ANY);
	CHECK(txp != NULL && lcore < RTE_MAX_LCORE);
	if (txp == NULL || lcore >= RTE_MAX_LCORE)
		return;
	size = rte_mempool_avail_count(txp);
	CHECK(ring_port_open(&rp, 9, pool) == 0);
	if (rp.cs == NULL)
		return;
	CHECK(fake_port_add_txq(rp.dev, RACE_RING) == 0);
	CHECK(fake_port_attach(rp.dev, rp.cs) == 0);
	race_stop = 0;
	rte_eal_remote_launch(race_cleanup_loop, rp.dev, lcore);
	for (r = 0; r < RACE_ROUNDS && !bad; r++) {
		for (i = 0; i < RACE_SENT; i++) {
			pkts[i] = rte_pktmbuf_alloc(txp);
			if (pkts[i] == NULL)
				break;
			rte_pktmbuf_append(pkts[i], 60);
		}
		CHECK(i == RACE_SENT);
		if (i != RACE_SENT)
			break;
		k = fake_port_xmit(rp.dev, pkts, RACE_SENT);
		CHECK(k == RACE_SENT);
		if (k != RACE_SENT)
			break;
		for (i = 0; i < RACE_DONE; i++)
			fake_dev_tx_done(rp.dev, i);
		bad |= !race_wait_avail(txp, size - (RACE_SENT - RACE_DONE));
		/* the restore, while the other lcore cleans up */
		if (!race_migrate(&rp, heads, rx)) {
			bad = 1;
			break;
		}
		/* the pending frames, now at the front: none freed yet */
		if (rte_mempool_avail_count(txp) != size - (RACE_SENT - RACE_DONE))
			early++;
		for (k = 0; k < RACE_SENT - RACE_DONE; k++)
			fake_dev_tx_done(rp.dev, k);
		bad |= !race_wait_avail(txp, size);
		/* a double free puts more than the pool holds */
		bad |= rte_mempool_ops_get_count(txp) > size;
		/* the next round starts at index 0 again */
		bad |= !race_migrate(&rp, back, rx);
	}
	race_stop = 1;
	rte_eal_wait_lcore(lcore);
	if (early != 0 || bad)
		fprintf(stderr, "cleanup race: %u of %u restores let the cleanup free pending mbufs%s\n",
			early, r, bad ? ", mbuf accounting broken" : "");
	CHECK(early == 0 && !bad);
	fake_port_detach(rp.dev);
	ring_port_close(&rp);
	rte_mempool_free(txp);
}

int
main(int argc, char **argv)
{
	char *eal[] = { argv[0], "--no-huge", "--no-pci", "--no-shconf",
			"-m", "64", "--lcores", "0@0,1@1", "--log-level",
			"*:error" };

	(void)argc;
	/* a CHECK's line must reach a log even if the test is killed */
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (rte_eal_init(RTE_DIM(eal), eal) < 0) {
		fprintf(stderr, "test_igb_compsc: EAL init failed\n");
		return 1;
	}
	test_refused();
	test_registered();
	pool = rte_pktmbuf_pool_create("test_igb_compsc", 255, 0, 0,
				       RTE_MBUF_DEFAULT_BUF_SIZE, SOCKET_ID_ANY);
	test_migrated_replayed();
	test_migrated_restored();
	test_migrated_lost();
	small_pool = rte_pktmbuf_pool_create("test_igb_small", 127, 0, 0,
					     RTE_PKTMBUF_HEADROOM + 512,
					     SOCKET_ID_ANY);
	test_ring(0);
	test_ring(1);
	test_ring_scattered(0);
	test_ring_scattered(1);
	test_mbx_serialised();
	test_close_held();
	test_cleanup_race();
	rte_eal_cleanup();
	if (failures)
		fprintf(stderr, "%d check(s) failed\n", failures);
	printf("test_igb_compsc: %s\n", failures ? "FAILED" : "passed");
	return failures ? 1 : 0;
}
