/* Stress: reader threads (own CPU slots, shared slot, waiting process-context enter) use two drivers' devices while writer threads migrate them; no reader is ever inside while a writer owns a device and every completed migration gets exactly one restore per driver. */
#include <pthread.h>
#include <stdatomic.h>
#include "check.h"
#include "sync_env.h"

#define NDRV		2	/* drivers, each with its own area and reader */
#define NCPU		3	/* atomic-context reader threads, one slot each */
#define NPROC		2	/* process-context reader threads (slot 0) */
#define NWRITER		2
#define RUN_NS		2000000000ull
#define DRAIN_NS	5000000000ull
#define ACQUIRE_NS	20000000ull

/* The device of one driver as the test sees it. */
struct drv {
	struct compsc_area_hdr *a;
	struct compsc_reader r;
	atomic_int inside;	/* readers in a section right now */
	atomic_int owner;	/* 1 while a writer owns the device */
	atomic_int fresh;	/* 1: migrated, not restored yet */
	atomic_ullong reg;	/* a "register" both sides touch */
	atomic_ullong restores, migrations, aborts, skipped, timeouts;
};

static struct drv drvs[NDRV];
static atomic_int stop_writers, stop_readers;
static atomic_ullong violations, busy, enters, proc_timeouts;
static uint64_t seed;

static void violation(const char *what)
{
	if (atomic_fetch_add(&violations, 1) < 10)
		fprintf(stderr, "VIOLATION: %s\n", what);
}

/* The read-side section: what a driver does with the device. */
static void section(struct drv *d, int ret)
{
	atomic_fetch_add(&d->inside, 1);
	if (atomic_load(&d->owner))
		violation("reader inside while a writer owns the device");
	if (ret == COMPSC_READ_RESTORE) {
		if (!atomic_exchange(&d->fresh, 0))
			violation("restore without a migration (double restore)");
		atomic_fetch_add(&d->restores, 1);
		compsc_restore_done(&d->r);
	} else if (atomic_load(&d->fresh)) {
		violation("device used before its restore");
	}
	atomic_fetch_add(&d->reg, 1);
	atomic_fetch_add(&enters, 1);
	atomic_fetch_sub(&d->inside, 1);
}

static void *cpu_reader(void *arg)
{
	u32 cpu = (u32)(uintptr_t)arg;	/* == NCPU: beyond the slots, slot 0 */
	uint64_t rnd = seed + cpu + 1;

	while (!atomic_load(&stop_readers)) {
		struct drv *d = &drvs[test_rand(&rnd) % NDRV];
		int ret = compsc_read_tryenter(&d->r, cpu);

		if (ret < 0) {
			if (ret != -COMPSC_EBUSY)
				violation("tryenter: unexpected error");
			atomic_fetch_add(&busy, 1);
			sched_yield();
			continue;
		}
		section(d, ret);
		compsc_read_exit(&d->r, cpu);
	}
	return NULL;
}

static void *proc_reader(void *arg)
{
	uint64_t rnd = seed + 100 + (uintptr_t)arg;

	while (!atomic_load(&stop_readers)) {
		struct drv *d = &drvs[test_rand(&rnd) % NDRV];
		int ret = compsc_read_enter(&d->r, &sync_env_real, 200000000);

		if (ret < 0) {
			if (ret != -COMPSC_ETIMEDOUT)
				violation("read_enter: unexpected error");
			atomic_fetch_add(&proc_timeouts, 1);
			continue;
		}
		section(d, ret);
		sched_yield();	/* process context: may be preempted inside */
		compsc_read_leave(&d->r);
	}
	return NULL;
}

/* Own the device for up to ~20 us, checking nobody is inside all along. */
static void own(struct drv *d, uint64_t *rnd)
{
	u64 t0 = sync_env_now(NULL), hold = test_rand(rnd) % 20000;

	atomic_store(&d->owner, 1);
	do {
		if (atomic_load(&d->inside))
			violation("writer owns the device with a reader inside");
		atomic_fetch_add(&d->reg, 1);
	} while (sync_env_now(NULL) - t0 < hold);
	/* a migration whose previous restore is pending is not counted */
	if (atomic_load(&d->fresh)) {
		atomic_store(&d->owner, 0);
		compsc_writer_abort(compsc_area_ctl(d->a));
		atomic_fetch_add(&d->skipped, 1);
	} else if (test_rand(rnd) % 4 == 0) {
		atomic_store(&d->owner, 0);
		compsc_writer_abort(compsc_area_ctl(d->a));
		atomic_fetch_add(&d->aborts, 1);
	} else {
		atomic_store(&d->fresh, 1);	/* destination device is blank */
		atomic_fetch_add(&d->migrations, 1);
		atomic_store(&d->owner, 0);
		compsc_writer_release(compsc_area_ctl(d->a));
	}
}

static void *writer(void *arg)
{
	uint64_t rnd = seed + 200 + (uintptr_t)arg;

	while (!atomic_load(&stop_writers)) {
		struct drv *d = &drvs[test_rand(&rnd) % NDRV];
		int ret;

		if (atomic_load(&d->fresh)) {
			sched_yield();
			continue;
		}
		ret = compsc_writer_acquire(compsc_area_ctl(d->a),
					    compsc_area_slots(d->a),
					    le16_to_cpu(d->a->nr_slots),
					    &sync_env_real, ACQUIRE_NS);
		if (ret == 0)
			own(d, &rnd);
		else if (ret == -COMPSC_ETIMEDOUT)
			atomic_fetch_add(&d->timeouts, 1);
		else if (ret != -COMPSC_EBUSY)
			violation("writer_acquire: unexpected error");
		sched_yield();
	}
	return NULL;
}

static int all_restored(void)
{
	int i;

	for (i = 0; i < NDRV; i++)
		if (atomic_load(&drvs[i].fresh))
			return 0;
	return 1;
}

int main(void)
{
	pthread_t cpu_t[NCPU + 1], proc_t[NPROC], wr_t[NWRITER];
	u64 t0;
	int i;

	seed = test_seed("test_sync_stress");
	sync_env_setup();
	for (i = 0; i < NDRV; i++) {
		drvs[i].a = test_area(NCPU, 0);
		CHECK_EQ(compsc_reader_init(&drvs[i].r, drvs[i].a), 0);
	}
	for (i = 0; i <= NCPU; i++)
		pthread_create(&cpu_t[i], NULL, cpu_reader, (void *)(uintptr_t)i);
	for (i = 0; i < NPROC; i++)
		pthread_create(&proc_t[i], NULL, proc_reader, (void *)(uintptr_t)i);
	for (i = 0; i < NWRITER; i++)
		pthread_create(&wr_t[i], NULL, writer, (void *)(uintptr_t)i);

	t0 = sync_env_now(NULL);
	while (sync_env_now(NULL) - t0 < RUN_NS)
		usleep(10000);
	atomic_store(&stop_writers, 1);
	for (i = 0; i < NWRITER; i++)
		pthread_join(wr_t[i], NULL);
	/* readers keep running until every pending restore has happened */
	t0 = sync_env_now(NULL);
	while (!all_restored() && sync_env_now(NULL) - t0 < DRAIN_NS)
		usleep(1000);
	atomic_store(&stop_readers, 1);
	for (i = 0; i <= NCPU; i++)
		pthread_join(cpu_t[i], NULL);
	for (i = 0; i < NPROC; i++)
		pthread_join(proc_t[i], NULL);

	printf("sections=%llu busy=%llu proc_timeouts=%llu\n",
	       (unsigned long long)enters, (unsigned long long)busy,
	       (unsigned long long)proc_timeouts);
	for (i = 0; i < NDRV; i++) {
		struct drv *d = &drvs[i];
		struct compsc_slot *s = compsc_area_slots(d->a);

		printf("drv%d: migrations=%llu restores=%llu aborts=%llu "
		       "skipped=%llu timeouts=%llu\n", i,
		       (unsigned long long)d->migrations,
		       (unsigned long long)d->restores,
		       (unsigned long long)d->aborts,
		       (unsigned long long)d->skipped,
		       (unsigned long long)d->timeouts);
		CHECK(d->migrations > 0);
		CHECK_EQ(d->restores, d->migrations);
		CHECK_EQ(compsc_area_ctl(d->a)->version, d->migrations);
		CHECK_EQ(d->fresh, 0);
		CHECK_EQ(compsc_readers_inside(s, le16_to_cpu(d->a->nr_slots)), 0);
		CHECK_EQ(compsc_area_ctl(d->a)->writer, COMPSC_WRITER_FREE);
		CHECK_EQ(d->r.restoring, 0);
		free(d->a);
	}
	CHECK_EQ(violations, 0);
	CHECK(enters > 0);
	CHECK_DONE();
}
