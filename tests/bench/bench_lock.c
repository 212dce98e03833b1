// SPDX-License-Identifier: (GPL-2.0 OR BSD-3-Clause)
/*
 * bench-lock: cost of one read-side enter/exit pair, CompSC's per-CPU slot
 * lock against a pthread_rwlock rdlock/unlock pair, on 1 thread and on 2
 * threads at once (each with its own CPU slot, no writer). Everything is
 * measured in this one run; the last line gives the two ratios:
 *   ratio_vs_pthread = ours / pthread, 1 thread      (target <= 0.25)
 *   scaling_2t       = ours 2 threads / ours 1 thread (target <= 1.1)
 * A baseline (two private increments per iteration, nothing shared) shows
 * how this machine itself scales from 1 to 2 busy threads: on a VM whose
 * vCPUs share physical cores, even that is above 1.
 * Costs are each thread's CPU time (the machine is shared: wall time would
 * charge other processes' time slices to us), best of REPS interleaved
 * runs; "clean" runs had no preemption and, with 2 threads, real overlap.
 * A benchmark, not a test: it always exits 0 when it could measure.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <compsc/compsc.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#define REPS		9	/* best of: the machine is shared and noisy */
#define ITERS_OURS	20000000ull
#define ITERS_PTHREAD	4000000ull

enum { OURS, PTHREAD, BASELINE, NKINDS };
static const char *const names[NKINDS] = {
	"compsc tryenter+exit", "pthread rdlock+unlock", "baseline (private incs)",
};

/* Per-thread private lines for the baseline: no sharing at all. */
static struct { u64 v[8]; } private_line[2] __attribute__((aligned(64)));

static struct compsc_reader reader;
static pthread_rwlock_t rwlock = PTHREAD_RWLOCK_INITIALIZER;
static pthread_barrier_t start;
static int ncpu;

struct job {
	int kind;
	u32 cpu;
	double ns_per_pair;	/* CPU time per pair */
	u64 wall0, wall1;	/* wall clock interval of the loop */
	u64 cpu_ns;
};

static u64 clock_ns(clockid_t id)
{
	struct timespec ts;

	clock_gettime(id, &ts);
	return (u64)ts.tv_sec * 1000000000ull + (u64)ts.tv_nsec;
}

static void pin(u32 cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET((int)(cpu % (u32)ncpu), &set);
	pthread_setaffinity_np(pthread_self(), sizeof(set), &set);
}

static void *worker(void *arg)
{
	struct job *j = arg;
	u64 i, n = j->kind == PTHREAD ? ITERS_PTHREAD : ITERS_OURS, t0;
	long bad = 0;

	pin(j->cpu);
	pthread_barrier_wait(&start);
	j->wall0 = clock_ns(CLOCK_MONOTONIC);
	t0 = clock_ns(CLOCK_THREAD_CPUTIME_ID);
	if (j->kind == OURS) {
		for (i = 0; i < n; i++) {
			bad += compsc_read_tryenter(&reader, j->cpu);
			compsc_read_exit(&reader, j->cpu);
		}
	} else if (j->kind == PTHREAD) {
		for (i = 0; i < n; i++) {
			bad += pthread_rwlock_rdlock(&rwlock);
			pthread_rwlock_unlock(&rwlock);
		}
	} else {
		for (i = 0; i < n; i++) {
			compsc_local_inc(&private_line[j->cpu].v[0]);
			compsc_local_inc(&private_line[j->cpu].v[1]);
		}
	}
	j->cpu_ns = clock_ns(CLOCK_THREAD_CPUTIME_ID) - t0;
	j->wall1 = clock_ns(CLOCK_MONOTONIC);
	j->ns_per_pair = (double)j->cpu_ns / (double)n;
	if (bad)
		fprintf(stderr, "bench-lock: read side refused (%ld)\n", bad);
	return NULL;
}

/*
 * A run is clean when no thread was preempted (CPU time >= 90% of its wall
 * time) and, with 2 threads, they really ran at the same time (their wall
 * intervals overlap by >= 90%): only clean runs show contention honestly.
 */
static int clean(const struct job *j, int nthreads)
{
	u64 lo = j[0].wall0, hi = j[0].wall1;
	int t;

	for (t = 0; t < nthreads; t++) {
		if (j[t].cpu_ns * 10 < (j[t].wall1 - j[t].wall0) * 9)
			return 0;
		lo = j[t].wall0 > lo ? j[t].wall0 : lo;
		hi = j[t].wall1 < hi ? j[t].wall1 : hi;
	}
	for (t = 0; t < nthreads; t++)
		if (hi < lo || (hi - lo) * 10 < (j[t].wall1 - j[t].wall0) * 9)
			return 0;
	return 1;
}

/* Mean CPU time per pair over @nthreads running at once, one run. */
static double measure(int kind, int nthreads, int *is_clean)
{
	pthread_t th[2];
	struct job jobs[2];
	double sum = 0;
	int t;

	pthread_barrier_init(&start, NULL, (unsigned)nthreads);
	for (t = 0; t < nthreads; t++) {
		jobs[t] = (struct job){ .kind = kind, .cpu = (u32)t };
		pthread_create(&th[t], NULL, worker, &jobs[t]);
	}
	for (t = 0; t < nthreads; t++) {
		pthread_join(th[t], NULL);
		sum += jobs[t].ns_per_pair;
	}
	pthread_barrier_destroy(&start);
	*is_clean = clean(jobs, nthreads);
	return sum / nthreads;
}

struct result {
	double best;		/* best clean run, else best of all */
	int nclean;
};

/* REPS runs of every configuration, interleaved so load hits them alike. */
static void measure_all(struct result res[NKINDS][2])
{
	double best_any[NKINDS][2];
	int rep, kind, nt, ok;

	for (rep = 0; rep < REPS; rep++)
		for (kind = 0; kind < NKINDS; kind++)
			for (nt = 1; nt <= 2; nt++) {
				struct result *r = &res[kind][nt - 1];
				double v = measure(kind, nt, &ok);

				if (rep == 0 || v < best_any[kind][nt - 1])
					best_any[kind][nt - 1] = v;
				if (ok && (!r->nclean++ || v < r->best))
					r->best = v;
			}
	for (kind = 0; kind < NKINDS; kind++)
		for (nt = 0; nt < 2; nt++)
			if (!res[kind][nt].nclean)
				res[kind][nt].best = best_any[kind][nt];
}

static void report(const char *what, const struct result *r, int nt)
{
	printf("bench-lock: %-26s %d thread%s: %7.2f ns/pair (%d/%d clean runs)\n",
	       what, nt, nt > 1 ? "s" : " ", r->best, r->nclean, REPS);
}

int main(void)
{
	struct compsc_layout_req req = { .nr_cpus = 2 };
	static _Alignas(4096) unsigned char area[4096];
	struct result b[NKINDS][2] = { 0 };
	int k, nt;

	ncpu = (int)sysconf(_SC_NPROCESSORS_ONLN);
	if (ncpu < 1)
		ncpu = 1;
	if (compsc_area_init(area, sizeof(area), &req) ||
	    compsc_reader_init(&reader, (struct compsc_area_hdr *)area)) {
		fprintf(stderr, "bench-lock: cannot set up an area\n");
		return 1;
	}
	if (ncpu < 2)
		printf("bench-lock: only %d CPU, 2-thread figures share it\n", ncpu);
	measure_all(b);
	for (k = 0; k < NKINDS; k++)
		for (nt = 1; nt <= 2; nt++)
			report(names[k], &b[k][nt - 1], nt);
	printf("bench-lock: scaling 1->2 threads: pthread %.3f, private work %.3f (the machine itself)\n",
	       b[PTHREAD][1].best / b[PTHREAD][0].best,
	       b[BASELINE][1].best / b[BASELINE][0].best);
	printf("bench-lock: targets ratio_vs_pthread <= 0.25, scaling_2t <= 1.1; best of %d, %d CPUs, CPU time\n",
	       REPS, ncpu);
	printf("bench-lock: ratio_vs_pthread=%.3f scaling_2t=%.3f\n",
	       b[OURS][0].best / b[PTHREAD][0].best,
	       b[OURS][1].best / b[OURS][0].best);
	return 0;
}
