/* The host's drain waits for the readers inside, keeps new ones out meanwhile, takes nothing (no bump, no word changed) and is bounded: a reader that stays, or another writer's hold, ends it with an error and the device left as it was; an area the guest withdrew ends it at once, nothing written. */
#include "check.h"
#include "host_fixture.h"

static struct hx h;

/* Readers as other CPUs would run them while the host waits. */
struct drain_ctx {
	struct compsc_reader r;
	u64 relaxes, fences;
	int leave_at;		/* the readers inside leave at this wait; 0: never */
	int late;		/* a reader that came during the wait */
};

static u64 d_now(void *ctx)
{
	return ((struct drain_ctx *)ctx)->relaxes * 1000000;	/* 1 ms per wait */
}

static void d_relax(void *ctx)
{
	struct drain_ctx *d = ctx;

	d->relaxes++;
	if (d->relaxes == 1 && d->fences)
		d->late = compsc_read_tryenter(&d->r, 2);
	if (d->leave_at && (int)d->relaxes == d->leave_at) {
		compsc_read_exit(&d->r, 1);
		compsc_read_leave(&d->r);
	}
}

static void d_fence(void *ctx)
{
	((struct drain_ctx *)ctx)->fences++;
}

static struct compsc_env d_env(struct drain_ctx *d)
{
	return (struct compsc_env){ .ctx = d, .now_ns = d_now,
				    .relax = d_relax, .fence_readers = d_fence };
}

static void readers_in(struct drain_ctx *d)
{
	struct drain_ctx once = { 0 };
	struct compsc_env fenv = d_env(&once);

	CHECK_EQ(compsc_reader_init(&d->r, h.area), 0);
	CHECK_EQ(compsc_read_tryenter(&d->r, 1), 0);
	CHECK_EQ(compsc_read_enter(&d->r, &fenv, 0), 0);
}

/* The words a reader acts on, as the caller left them before the drain. */
static void check_words(u32 flags)
{
	struct compsc_area_ctl *ctl = compsc_area_ctl(h.area);

	CHECK_EQ(ctl->writer, COMPSC_WRITER_FREE);
	CHECK_EQ(ctl->version, 0);
	CHECK_EQ(le32_to_cpu(ctl->flags), flags);
}

static void drained(void)
{
	struct drain_ctx d = { .leave_at = 5 };
	struct compsc_env env = d_env(&d);
	u32 flags = COMPSC_F_DIRTY_LOG | COMPSC_F_HOST_CONFIGURED;

	hx_setup(&h);
	readers_in(&d);
	compsc_area_ctl(h.area)->flags = cpu_to_le32(flags);
	CHECK_EQ(compsc_host_drain(&h.a, &env, 1000000000ull), 0);
	CHECK_EQ(d.fences, 1);
	CHECK_EQ(d.relaxes, 5);		/* returned once the last one left */
	CHECK_EQ(d.late, -COMPSC_EBUSY);	/* kept out while waiting */
	check_words(flags);
	CHECK_EQ(compsc_readers_inside(compsc_area_slots(h.area),
				       le16_to_cpu(h.area->nr_slots)), 0);
	CHECK_EQ(compsc_read_tryenter(&d.r, 1), 0);	/* readers go on */
	compsc_read_exit(&d.r, 1);
	hx_teardown(&h);
}

static void reader_stays(void)
{
	struct drain_ctx d = { 0 };
	struct compsc_env env = d_env(&d);

	hx_setup(&h);
	readers_in(&d);
	compsc_area_ctl(h.area)->flags = cpu_to_le32(COMPSC_F_DIRTY_LOG);
	CHECK_EQ(compsc_host_drain(&h.a, &env, 50000000ull),
		 -COMPSC_ETIMEDOUT);
	CHECK_EQ(d.relaxes, 50);	/* the bound, not the guest, ended it */
	check_words(COMPSC_F_DIRTY_LOG);
	compsc_read_exit(&d.r, 1);
	compsc_read_leave(&d.r);
	hx_teardown(&h);
}

static void held_elsewhere(void)
{
	struct drain_ctx d = { 0 };
	struct compsc_env env = d_env(&d);
	struct compsc_area_ctl *ctl;

	hx_setup(&h);
	ctl = compsc_area_ctl(h.area);
	ctl->writer = cpu_to_le32(COMPSC_WRITER_HELD);
	CHECK_EQ(compsc_host_drain(&h.a, &env, 10000000ull), -COMPSC_EBUSY);
	CHECK_EQ(d.fences, 0);
	CHECK_EQ(ctl->writer, COMPSC_WRITER_HELD);	/* still the other's */
	CHECK_EQ(ctl->version, 0);
	hx_teardown(&h);
}

/* The guest may have freed the pages: no wait, no fence, no write. */
static void withdrawn(void)
{
	struct drain_ctx d = { 0 };
	struct compsc_env env = d_env(&d);
	struct compsc_area_ctl *ctl;

	hx_setup(&h);
	ctl = compsc_area_ctl(h.area);
	ctl->writer = cpu_to_le32(COMPSC_WRITER_WITHDRAWN);
	ctl->flags = cpu_to_le32(COMPSC_F_DIRTY_LOG);
	CHECK_EQ(compsc_host_drain(&h.a, &env, 10000000ull), -COMPSC_ESTATE);
	CHECK_EQ(d.relaxes, 0);
	CHECK_EQ(d.fences, 0);
	CHECK_EQ(ctl->writer, COMPSC_WRITER_WITHDRAWN);
	CHECK_EQ(ctl->version, 0);
	CHECK_EQ(le32_to_cpu(ctl->flags), COMPSC_F_DIRTY_LOG);
	hx_teardown(&h);
}

int main(void)
{
	drained();
	reader_stays();
	held_elsewhere();
	withdrawn();
	CHECK_DONE();
}
