// SPDX-License-Identifier: (GPL-2.0 OR BSD-3-Clause)
/*
 * Self-test of the protocol core (sync, replay log, counters, ring shift),
 * single-threaded so it runs the same in the kernel module and userspace.
 * Buffers are static (the kernel stack is small), so the test is not
 * reentrant: compsc_selftest() runs one at a time.
 */
#include "selftest.h"

/* Area for 2 CPUs and a 4-record replay log (896 bytes), cache aligned. */
static u64 st_area[128] __attribute__((aligned(COMPSC_CACHELINE)));
static struct compsc_replay_rec st_stage[2];

/* Fake clock for the writer: each relax() advances it by 1 ms. */
struct st_clock {
	u64 now;
	u32 fences;
};

static u64 st_now(void *ctx)
{
	return ((struct st_clock *)ctx)->now;
}

static void st_relax(void *ctx)
{
	((struct st_clock *)ctx)->now += 1000000;
}

static void st_fence(void *ctx)
{
	((struct st_clock *)ctx)->fences++;
}

static struct compsc_area_hdr *st_area_init(void)
{
	struct compsc_layout_req req = { .nr_cpus = 2, .replay_recs = 4 };

	if (compsc_area_size(&req) > sizeof(st_area) ||
	    compsc_area_init(st_area, sizeof(st_area), &req))
		return NULL;
	return (struct compsc_area_hdr *)st_area;
}

static void st_sync(struct compsc_st *st, struct compsc_area_hdr *a)
{
	struct st_clock clk = { 0 };
	struct compsc_env env = {
		.ctx = &clk, .now_ns = st_now, .relax = st_relax,
		.fence_readers = st_fence,
	};
	struct compsc_area_ctl *ctl = compsc_area_ctl(a);
	struct compsc_slot *slots = compsc_area_slots(a);
	struct compsc_reader r;

	ST_CHECK(st, compsc_reader_init(&r, a) == 0);
	ST_CHECK(st, compsc_read_tryenter(&r, 1) == 0);
	ST_CHECK(st, compsc_readers_inside(slots, 3) == 1);
	/* a reader inside: the writer times out, the guest keeps the device */
	ST_CHECK(st, compsc_writer_acquire(ctl, slots, 3, &env, 3000000) ==
		 -COMPSC_ETIMEDOUT);
	ST_CHECK(st, clk.fences == 1 && clk.now == 3000000);
	ST_CHECK(st, le32_to_cpu(ctl->writer) == COMPSC_WRITER_FREE);
	compsc_read_exit(&r, 1);
	ST_CHECK(st, compsc_writer_acquire(ctl, slots, 3, &env, 0) == 0);
	ST_CHECK(st, compsc_read_tryenter(&r, 0) == -COMPSC_EBUSY);
	ST_CHECK(st, compsc_read_enter(&r, &env, 2000000) == -COMPSC_ETIMEDOUT);
	compsc_writer_abort(ctl);
	ST_CHECK(st, compsc_read_tryenter(&r, 0) == 0);	/* abort: no restore */
	compsc_read_exit(&r, 0);
	/* a migration: exactly one context restores */
	ST_CHECK(st, compsc_writer_acquire(ctl, slots, 3, &env, 0) == 0);
	compsc_writer_release(ctl);
	ST_CHECK(st, le64_to_cpu(ctl->version) == 1);
	ST_CHECK(st, compsc_read_enter(&r, &env, 0) == COMPSC_READ_RESTORE);
	ST_CHECK(st, compsc_read_tryenter(&r, 5) == -COMPSC_EBUSY);
	compsc_restore_done(&r);
	compsc_read_leave(&r);
	ST_CHECK(st, compsc_read_tryenter(&r, 5) == 0);
	compsc_read_exit(&r, 5);
	ST_CHECK(st, compsc_readers_inside(slots, 3) == 0);
}

static u32 st_val(const struct compsc_replay *l, u32 i)
{
	const struct compsc_replay_rec *rec = compsc_replay_at(l, i);

	return rec && le16_to_cpu(rec->len) == 1 ?
	       le32_to_cpu(rec->key) * 1000 + rec->data[0] : 0;
}

static void st_replay(struct compsc_st *st, struct compsc_area_hdr *a)
{
	struct compsc_replay l, m;
	void *mem = compsc_area_replay(a);
	u32 len = le32_to_cpu(a->replay_len);
	u8 v[4] = { 1, 2, 3, 4 };

	ST_CHECK(st, compsc_replay_init(&l, mem, len, st_stage, 2) == 0);
	ST_CHECK(st, compsc_replay_put(&l, 1, &v[0], 1) == 0);
	ST_CHECK(st, compsc_replay_put(&l, 2, &v[1], 1) == 0);
	ST_CHECK(st, compsc_replay_put(&l, 1, &v[2], 1) == 0);
	ST_CHECK(st, compsc_replay_count(&l) == 2);
	ST_CHECK(st, st_val(&l, 0) == 2002 && st_val(&l, 1) == 1003);
	ST_CHECK(st, compsc_replay_put(&l, 3, &v[0], 1) == 0);
	ST_CHECK(st, compsc_replay_put(&l, 4, &v[0], 1) == 0);
	ST_CHECK(st, compsc_replay_put(&l, 5, &v[0], 1) == -COMPSC_ENOSPC);
	/* an opset that would need two more records: all or nothing */
	ST_CHECK(st, compsc_replay_del(&l, 4) == 0);
	ST_CHECK(st, compsc_replay_opset_begin(&l) == 0);
	ST_CHECK(st, compsc_replay_put(&l, 5, &v[3], 1) == 0);
	ST_CHECK(st, compsc_replay_put(&l, 6, &v[3], 1) == 0);
	ST_CHECK(st, compsc_replay_opset_commit(&l) == -COMPSC_ENOSPC);
	ST_CHECK(st, compsc_replay_count(&l) == 3 && !compsc_replay_get(&l, 5));
	ST_CHECK(st, compsc_replay_opset_begin(&l) == 0);
	ST_CHECK(st, compsc_replay_del(&l, 2) == 0);
	ST_CHECK(st, compsc_replay_put(&l, 5, &v[3], 1) == 0);
	ST_CHECK(st, compsc_replay_opset_commit(&l) == 0);
	ST_CHECK(st, compsc_replay_attach(&m, mem, len, NULL, 0) == 0);
	ST_CHECK(st, compsc_replay_count(&m) == 3);
	ST_CHECK(st, st_val(&m, 0) == 1003 && st_val(&m, 2) == 5004);
	((struct compsc_replay_hdr *)mem)->count = cpu_to_le32(5);
	ST_CHECK(st, compsc_replay_attach(&m, mem, len, NULL, 0) ==
		 -COMPSC_EREPLAY_COUNT);
}

static void st_counter(struct compsc_st *st)
{
	struct compsc_counter c;

	ST_CHECK(st, compsc_counter_init(&c, COMPSC_REG_COUNTER_RO,
					 0xfffffff0u) == 0);
	ST_CHECK(st, compsc_counter_update(&c, 0x10) == 0x20);
	ST_CHECK(st, compsc_counter_rebase(&c, 0x30, 0xfffffffeu) == 0x40);
	ST_CHECK(st, compsc_counter_update(&c, 2) == 0x44);
	ST_CHECK(st, compsc_counter_init(&c, COMPSC_REG_COUNTER_RC, 99) == 0);
	ST_CHECK(st, compsc_counter_update(&c, 0xffffffffu) == 0xffffffffull);
	ST_CHECK(st, compsc_counter_rebase(&c, 3, 42) == 0x100000002ull);
	ST_CHECK(st, compsc_counter_init(&c, COMPSC_REG_PLAIN, 0) ==
		 -COMPSC_EINVAL);
}

static void st_ring(struct compsc_st *st)
{
	u8 ring[7 * 3];		/* 7 descriptors of 3 bytes: nothing is 2^n */
	struct compsc_ring r;
	u32 i, ok = 1;

	for (i = 0; i < sizeof(ring); i++)
		ring[i] = (u8)(i / 3);
	ST_CHECK(st, compsc_ring_init(&r, 7) == 0);
	ST_CHECK(st, compsc_ring_rotate(ring, 3, 7, 5) == 0);
	ST_CHECK(st, compsc_ring_shift(&r, 5) == 0);
	ST_CHECK(st, compsc_ring_rotate(ring, 3, 7, 4) == 0);
	ST_CHECK(st, compsc_ring_shift(&r, 4) == 0);
	ST_CHECK(st, r.offset == 2);
	for (i = 0; i < 7; i++)
		ok &= ring[compsc_ring_hw(&r, i) * 3 + 2] == i &&
		      compsc_ring_sw(&r, compsc_ring_hw(&r, i)) == i;
	ST_CHECK(st, ok);
	ST_CHECK(st, compsc_ring_shift(&r, 7) == -COMPSC_EINVAL);
}

void compsc_selftest_core(struct compsc_st *st)
{
	struct compsc_area_hdr *a = st_area_init();

	ST_CHECK(st, a != NULL);
	if (a) {
		st_sync(st, a);
		st_replay(st, a);
	}
	st_counter(st);
	st_ring(st);
}
