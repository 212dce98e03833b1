/* Publish/consume: a reader that sees a new version sees the saved state the host wrote before it, a reader that sees the restored version sees the restore's state, and the host that sees restored_version sees it too; two reader threads and a host thread over many migrations. */
#include <pthread.h>
#include <stdatomic.h>
#include "check.h"
#include "sync_env.h"

#define NREADER		2	/* atomic-context readers, one CPU slot each */
#define RUN_NS		3000000000ull
#define DRAIN_NS	5000000000ull
#define ACQUIRE_NS	20000000ull
#define NDATA		4	/* saved values; the area has reg_max 4 */

static struct compsc_area_hdr *area;
static struct compsc_reader rd;
/* the "device and rings" the restore rebuilds: written by the restorer */
static u64 dev_state[NDATA];
static atomic_int stop;
static atomic_ullong violations, restores, consumed, migrations, busy,
		     not_taken;

/* What the host saves for, and the restore rebuilds at, version @v. */
static u64 pattern(u64 v, u32 i)
{
	return v * 0x9e3779b97f4a7c15ull + i;
}

/*
 * The data words are accessed relaxed: atomic enough for C11, ordered by
 * nothing but the protocol under test.
 */
static u64 ld(const u64 *p)
{
	return __atomic_load_n(p, __ATOMIC_RELAXED);
}

static void st(u64 *p, u64 v)
{
	__atomic_store_n(p, v, __ATOMIC_RELAXED);
}

static void violation(const char *what, u64 v)
{
	if (atomic_fetch_add(&violations, 1) < 10)
		fprintf(stderr, "VIOLATION at version %llu: %s\n",
			(unsigned long long)v, what);
}

/* The restore: consume the saved state, rebuild the device from it. */
static void restore(void)
{
	__le64 *saved = compsc_area_saved(area);
	u64 v = rd.restore_version;
	u32 i;

	for (i = 0; i < NDATA; i++)
		if (ld((u64 *)&saved[i]) != pattern(v, i))
			violation("new version seen without the host's saved state", v);
	for (i = 0; i < NDATA; i++)
		st(&dev_state[i], pattern(v, i));
	compsc_restore_done(&rd);
	atomic_fetch_add(&restores, 1);
}

/* A section on the fast path: the device matches the version in force. */
static void use(void)
{
	/* stable while we are inside: the host waits for us to bump it */
	u64 v = le64_to_cpu(smp_load_acquire(&compsc_area_ctl(area)->version));
	u32 i;

	for (i = 0; i < NDATA; i++)
		if (ld(&dev_state[i]) != pattern(v, i))
			violation("restored version seen without the restored state", v);
	atomic_fetch_add(&consumed, 1);
}

static void *reader(void *arg)
{
	u32 cpu = (u32)(uintptr_t)arg;

	while (!atomic_load(&stop)) {
		int ret = compsc_read_tryenter(&rd, cpu);

		if (ret < 0) {
			atomic_fetch_add(&busy, 1);
			sched_yield();	/* the host holds it: let it run */
			continue;
		}
		if (ret == COMPSC_READ_RESTORE)
			restore();
		else
			use();
		compsc_read_exit(&rd, cpu);
	}
	return NULL;
}

/* One migration: take, check the guest's state, save for v + 1, hand over. */
static void migrate(void)
{
	struct compsc_area_ctl *ctl = compsc_area_ctl(area);
	__le64 *saved = compsc_area_saved(area);
	u64 v;
	u32 i;

	/* a take before the restore would only be refused: let it happen */
	if (!compsc_writer_device_restored(area, ctl)) {
		sched_yield();
		return;
	}
	if (compsc_writer_acquire(ctl, compsc_area_slots(area),
				  le16_to_cpu(area->nr_slots), &sync_env_real,
				  ACQUIRE_NS)) {
		atomic_fetch_add(&not_taken, 1);
		return;
	}
	if (!compsc_writer_device_restored(area, ctl)) {
		compsc_writer_abort(ctl);
		return;
	}
	v = le64_to_cpu(READ_ONCE(ctl->version));
	for (i = 0; i < NDATA; i++)
		if (ld(&dev_state[i]) != pattern(v, i))
			violation("host saw restored_version without the restored state", v);
	for (i = 0; i < NDATA; i++)
		st((u64 *)&saved[i], pattern(v + 1, i));
	compsc_writer_release(ctl);
	atomic_fetch_add(&migrations, 1);
}

int main(void)
{
	pthread_t t[NREADER];
	u64 t0;
	u32 i;

	sync_env_setup();
	area = test_area(NREADER, 0);
	CHECK_EQ(compsc_reader_init(&rd, area), 0);
	for (i = 0; i < NDATA; i++)
		dev_state[i] = pattern(0, i);
	for (i = 0; i < NREADER; i++)
		pthread_create(&t[i], NULL, reader, (void *)(uintptr_t)i);
	t0 = sync_env_now(NULL);
	while (sync_env_now(NULL) - t0 < RUN_NS)
		migrate();
	/* the last hand-over is restored before the readers stop */
	t0 = sync_env_now(NULL);
	while (!compsc_writer_device_restored(area, compsc_area_ctl(area)) &&
	       sync_env_now(NULL) - t0 < DRAIN_NS)
		sched_yield();
	atomic_store(&stop, 1);
	for (i = 0; i < NREADER; i++)
		pthread_join(t[i], NULL);

	printf("migrations=%llu not_taken=%llu restores=%llu consumed=%llu busy=%llu violations=%llu\n",
	       (unsigned long long)migrations, (unsigned long long)not_taken,
	       (unsigned long long)restores, (unsigned long long)consumed,
	       (unsigned long long)busy, (unsigned long long)violations);
	CHECK(migrations > 0);
	CHECK_EQ(restores, migrations);
	CHECK(consumed > 0);
	CHECK_EQ(violations, 0);
	free(area);
	CHECK_DONE();
}
