/* The writer waits for readers inside to leave (exits on any slot), then owns the device; it does not return while one is still inside. */
#include "check.h"
#include "sync_env.h"

/* A relax() that lets the "readers" leave one at a time, like other CPUs would. */
struct drain_ctx {
	struct fake_clock fc;
	struct compsc_reader *r;
	int left_on_cpu1, left_shared;
	u64 inside_when_done;
};

static void drain_relax(void *p)
{
	struct drain_ctx *d = p;

	fake_relax(&d->fc);
	if (d->fc.relaxes == 3) {
		compsc_read_exit(d->r, 1);
		d->left_on_cpu1 = 1;
	} else if (d->fc.relaxes == 6) {
		compsc_read_leave(d->r);
		d->left_shared = 1;
	}
}

static u64 drain_now(void *p)
{
	return ((struct drain_ctx *)p)->fc.now;
}

static void drain_fence(void *p)
{
	((struct drain_ctx *)p)->fc.fences++;
}

int main(void)
{
	struct compsc_area_hdr *a = test_area(3, 0);
	struct compsc_area_ctl *ctl = compsc_area_ctl(a);
	struct compsc_slot *slots = compsc_area_slots(a);
	u32 nr = le16_to_cpu(a->nr_slots);
	struct compsc_reader r;
	struct drain_ctx d = { .r = &r };
	struct compsc_env env = {
		.ctx = &d, .now_ns = drain_now, .relax = drain_relax,
		.fence_readers = drain_fence,
	};
	struct fake_clock fc = { 0 };
	struct compsc_env fenv = fake_env(&fc);

	CHECK_EQ(compsc_reader_init(&r, a), 0);
	CHECK_EQ(compsc_read_tryenter(&r, 1), 0);
	CHECK_EQ(compsc_read_enter(&r, &fenv, 0), 0);

	CHECK_EQ(compsc_writer_acquire(ctl, slots, nr, &env, 1000000000ull), 0);
	CHECK(d.left_on_cpu1);
	CHECK(d.left_shared);
	CHECK_EQ(d.fc.relaxes, 6);	/* returned as soon as the last one left */
	CHECK_EQ(d.fc.fences, 1);
	CHECK_EQ(ctl->writer, COMPSC_WRITER_HELD);
	CHECK_EQ(compsc_readers_inside(slots, nr), 0);
	compsc_writer_abort(ctl);
	free(a);
	CHECK_DONE();
}
