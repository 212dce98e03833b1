/* SPDX-License-Identifier: (GPL-2.0 OR BSD-3-Clause) */
/*
 * Userspace replacements for the sync environment, shared by test_sync_*.c:
 * a real clock, sched_yield() to wait, and a process-wide barrier for
 * env->fence_readers(): membarrier(PRIVATE_EXPEDITED) when the kernel has it,
 * otherwise an mprotect() of a dirty page, whose TLB shootdown interrupts
 * every CPU running this process (the same trick as Folly's
 * asymmetricHeavyBarrier fallback). Plus a fake clock for timeout tests.
 */
#ifndef COMPSC_TEST_SYNC_ENV_H
#define COMPSC_TEST_SYNC_ENV_H

#include <compsc/compsc.h>
#include <linux/membarrier.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

static int sync_env_use_membarrier = -1;	/* -1: not probed yet */
static volatile char *sync_env_page;
/* serialises fallback fences: one writer's PROT_READ must not fault another's write */
static pthread_mutex_t sync_env_page_lock = PTHREAD_MUTEX_INITIALIZER;

static inline u64 sync_env_now(void *ctx)
{
	struct timespec ts;

	(void)ctx;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (u64)ts.tv_sec * 1000000000ull + (u64)ts.tv_nsec;
}

static inline void sync_env_relax(void *ctx)
{
	(void)ctx;
	sched_yield();
}

static inline void sync_env_mprotect_fence(void)
{
	long pg = sysconf(_SC_PAGESIZE);

	if (!sync_env_page) {
		sync_env_page = mmap(NULL, (size_t)pg, PROT_READ | PROT_WRITE,
				     MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (sync_env_page == MAP_FAILED) {
			perror("sync_env: mmap");
			abort();
		}
	}
	sync_env_page[0]++;	/* dirty, so the downgrade must shoot down TLBs */
	if (mprotect((void *)sync_env_page, (size_t)pg, PROT_READ) ||
	    mprotect((void *)sync_env_page, (size_t)pg, PROT_READ | PROT_WRITE)) {
		perror("sync_env: mprotect");
		abort();
	}
}

/* Call once before any thread uses the fence; says which one it uses. */
static inline void sync_env_setup(void)
{
	long r = syscall(__NR_membarrier,
			 MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED, 0, 0);

	sync_env_use_membarrier = r == 0 && !getenv("COMPSC_NO_MEMBARRIER");
	printf("fence_readers: %s\n", sync_env_use_membarrier ?
	       "membarrier(PRIVATE_EXPEDITED)" : "mprotect fallback");
}

static inline void sync_env_fence(void *ctx)
{
	(void)ctx;
	if (sync_env_use_membarrier < 0)
		sync_env_setup();
	if (sync_env_use_membarrier) {
		if (syscall(__NR_membarrier, MEMBARRIER_CMD_PRIVATE_EXPEDITED,
			    0, 0) == 0)
			return;
		perror("sync_env: membarrier");
		abort();
	}
	pthread_mutex_lock(&sync_env_page_lock);
	sync_env_mprotect_fence();
	pthread_mutex_unlock(&sync_env_page_lock);
}

static const struct compsc_env sync_env_real = {
	.now_ns = sync_env_now,
	.relax = sync_env_relax,
	.fence_readers = sync_env_fence,
};

/* Fake clock: each relax() advances time by 1 ms; counts calls. */
struct fake_clock {
	u64 now;
	u64 relaxes;
	u64 fences;
};

static inline u64 fake_now(void *ctx)
{
	return ((struct fake_clock *)ctx)->now;
}

static inline void fake_relax(void *ctx)
{
	struct fake_clock *c = ctx;

	c->now += 1000000;
	c->relaxes++;
}

static inline void fake_fence(void *ctx)
{
	((struct fake_clock *)ctx)->fences++;
}

static inline struct compsc_env fake_env(struct fake_clock *c)
{
	struct compsc_env e = {
		.ctx = c, .now_ns = fake_now, .relax = fake_relax,
		.fence_readers = fake_fence,
	};
	return e;
}

/* A fresh area for @nr_cpus CPU slots and @recs replay records (freed by caller). */
static inline struct compsc_area_hdr *test_area(u32 nr_cpus, u32 recs)
{
	struct compsc_layout_req req = {
		.nr_cpus = nr_cpus, .reg_max = 4, .counter_max = 4,
		.replay_recs = recs,
	};
	u32 size = compsc_area_size(&req);
	void *mem = NULL;

	if (!size || posix_memalign(&mem, 4096, size) ||
	    compsc_area_init(mem, size, &req)) {
		fprintf(stderr, "test_area: cannot lay out an area\n");
		abort();
	}
	return mem;
}

/*
 * The starting point of the single-reader sync tests: an area with two CPU
 * slots, its control line and slots, a fake clock with its env, and a
 * reader bound to the area. Free f->a when done.
 */
struct sync_fixture {
	struct compsc_area_hdr *a;
	struct compsc_area_ctl *ctl;
	struct compsc_slot *slots;
	u32 nr;
	struct fake_clock fc;
	struct compsc_env env;
	struct compsc_reader r;
};

static inline void sync_fixture_init(struct sync_fixture *f)
{
	memset(f, 0, sizeof(*f));
	f->a = test_area(2, 0);
	f->ctl = compsc_area_ctl(f->a);
	f->slots = compsc_area_slots(f->a);
	f->nr = le16_to_cpu(f->a->nr_slots);
	f->env = fake_env(&f->fc);
	if (compsc_reader_init(&f->r, f->a)) {
		fprintf(stderr, "sync_fixture: cannot bind a reader\n");
		abort();
	}
}

#endif
