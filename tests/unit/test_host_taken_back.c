/*
 * A device the guest took back during a hold (compsc_reader_give_up())
 * is never saved or given back by the take it ended: the stop-copy save
 * refuses (the state would be stale, the guest changed the device since),
 * the give-back writes neither the device nor the area, a guest stopped
 * half-way through its give-up (ENDING) is not held either, and a writer
 * word that reads HELD again with another version is not this take's.
 */
#include "check.h"
#include "host_fixture.h"

static struct hx h;
static struct compsc_host_save s;
static u8 out[COMPSC_HOST_STREAM_MAX];

/* The host took the device; the guest's driver binds its reader. */
static void taken(struct compsc_reader *r)
{
	hx_setup(&h);
	hx_running(&h);
	CHECK_EQ(compsc_reader_init(r, h.area), 0);
	CHECK(hx_take_save(&h, out, sizeof(out), &s) > 0);	/* held, saves */
	CHECK(h.d.stopped);
}

/* The host's save at stop-copy, with the workspace hx_take_save() set. */
static int save(void)
{
	return compsc_host_save(&h.a, &h.d, &hx_id, &s, out, sizeof(out));
}

static void gave_up(void)
{
	struct compsc_reader r;

	taken(&r);
	CHECK_EQ(compsc_reader_give_up(&r), 1);
	/* the guest resets and uses its device: a queue off, a head moved */
	CHECK_EQ(compsc_read_tryenter(&r, 0), COMPSC_READ_RESTORE);
	hx_wr(&h, HX_RXDCTL, 0x11);
	hx_wr(&h, HX_RDH, 5);
	compsc_restore_done(&r);
	compsc_read_exit(&r, 0);
	/* stop-copy: nothing of this take to save */
	CHECK_EQ(save(), -COMPSC_EABANDONED);
	/* the migration fails; its give-back leaves the guest's device be */
	compsc_host_giveback(&h.a, &h.d, 0);
	CHECK_EQ(hx_rd(&h, HX_RXDCTL), 0x11);
	CHECK_EQ(compsc_area_ctl(h.area)->writer, COMPSC_WRITER_FREE);
	CHECK_EQ(compsc_area_ctl(h.area)->version, 1);
	CHECK_EQ((int)compsc_area_ctl(h.area)->host_status, -COMPSC_EABANDONED);
	hx_teardown(&h);
}

static void stopped_half_way(void)
{
	struct compsc_reader r;

	taken(&r);
	/* the vCPU stopped right after the give-up's CAS */
	compsc_area_ctl(h.area)->writer = COMPSC_WRITER_ENDING;
	CHECK_EQ(save(), -COMPSC_EABANDONED);
	compsc_host_giveback(&h.a, &h.d, 0);
	CHECK_EQ(compsc_area_ctl(h.area)->writer, COMPSC_WRITER_ENDING);
	CHECK_EQ(hx_rd(&h, HX_RXDCTL), 0x10);
	hx_teardown(&h);
}

static void held_again(void)
{
	struct compsc_reader r;

	taken(&r);
	CHECK_EQ(compsc_reader_give_up(&r), 1);
	/* a stale write puts HELD back: the version says it is not ours */
	compsc_area_ctl(h.area)->writer = COMPSC_WRITER_HELD;
	CHECK_EQ(save(), -COMPSC_EABANDONED);
	hx_teardown(&h);
}

static void host_first(void)
{
	struct compsc_reader r;

	taken(&r);
	CHECK(save() > 0);
	compsc_host_giveback(&h.a, &h.d, 0);	/* the migration failed */
	CHECK_EQ(hx_rd(&h, HX_RXDCTL), HX_ENABLE | 0x10);
	CHECK_EQ(compsc_reader_give_up(&r), 0);	/* too late: nothing held */
	CHECK_EQ(compsc_area_ctl(h.area)->version, 0);
	CHECK_EQ(compsc_area_ctl(h.area)->writer, COMPSC_WRITER_FREE);
	hx_teardown(&h);
}

int main(void)
{
	gave_up();
	stopped_half_way();
	held_again();
	host_first();
	CHECK_DONE();
}
