/* The userspace VF helper's bound on a hold: bursts that back off for longer than hold_max_ns of the guest's clock, the same hold at every look, take the device back as lost, and the next burst restores by a reset; a look at a free device or at a new hold starts the count again. */
#include <compsc/uvf.h>
#include <stdlib.h>
#include "check.h"
#include "sync_env.h"

#define MAX_NS	5000000000ull	/* the bound the test sets: 5 s */

static int send_ok(struct compsc_uvf *vf, const u32 *msg, u32 nwords)
{
	(void)vf; (void)msg; (void)nwords;
	return 0;
}

static int restores, seen_lost;

static int restore(struct compsc_uvf *vf)
{
	restores++;
	seen_lost = compsc_uvf_state_lost(vf);
	return 0;
}

static const struct compsc_uvf_ops ops = { .send = send_ok, .restore = restore };
static const u32 regs[] = { 0x2810, 0x3810 };	/* RDH(0), TDH(0) */
static const struct compsc_uvf_desc desc = {
	.regs = regs, .nr_regs = 2, .replay_recs = 16, .nr_slots = 2,
};

static struct fake_clock clk;

static struct compsc_area_ctl *ctl_of(struct compsc_uvf *vf)
{
	return compsc_area_ctl(vf->area);
}

static void host_take(struct compsc_uvf *vf)
{
	CHECK_EQ(compsc_writer_acquire(ctl_of(vf), compsc_area_slots(vf->area),
				       le16_to_cpu(vf->area->nr_slots),
				       &sync_env_real, 20000000), 0);
}

/* one burst at guest time @t: 1 if it got in (and left) */
static int burst_at(struct compsc_uvf *vf, u64 t)
{
	clk.now = t;
	if (compsc_uvf_burst_enter(vf, 1))
		return 0;
	compsc_uvf_burst_exit(vf, 1);
	return 1;
}

int main(void)
{
	struct compsc_env env = fake_env(&clk);
	struct compsc_uvf vf;
	u32 len = compsc_uvf_area_size(&desc);
	void *mem = NULL;

	CHECK_EQ(posix_memalign(&mem, 4096, len), 0);
	CHECK_EQ(compsc_uvf_init(&vf, mem, len, 0x10000, &desc, &ops, NULL,
				 &env, 20000000), 0);
	CHECK_EQ(vf.hold_max_ns, (u64)COMPSC_HOLD_MAX_MS * 1000000);
	vf.hold_max_ns = MAX_NS;

	/* a hold within the bound is waited out, however many looks */
	host_take(&vf);
	CHECK_EQ(burst_at(&vf, 1000), 0);
	CHECK_EQ(burst_at(&vf, 1000 + MAX_NS - 1), 0);
	CHECK_EQ(le32_to_cpu(ctl_of(&vf)->writer), COMPSC_WRITER_HELD);
	compsc_writer_release(ctl_of(&vf));
	CHECK_EQ(burst_at(&vf, 2 * MAX_NS), 1);
	CHECK_EQ(restores, 1);
	CHECK_EQ(seen_lost, 0);

	/* a new hold counts from its own first look, not the last one's */
	host_take(&vf);
	CHECK_EQ(burst_at(&vf, 3 * MAX_NS), 0);
	CHECK_EQ(burst_at(&vf, 4 * MAX_NS - 1), 0);
	CHECK_EQ(vf.given_up, 0);

	/* ... and past the bound the device is taken back as lost */
	CHECK_EQ(burst_at(&vf, 4 * MAX_NS + 1), 0);
	CHECK_EQ(vf.given_up, 1);
	CHECK_EQ(burst_at(&vf, 4 * MAX_NS + 2), 1);
	CHECK_EQ(restores, 2);
	CHECK_EQ(seen_lost, -COMPSC_EABANDONED);
	CHECK_EQ(vf.state_lost, 1);
	/* the host that comes back late finds nothing it holds */
	CHECK_EQ(le32_to_cpu(ctl_of(&vf)->writer), COMPSC_WRITER_FREE);

	/* a version that moved between two looks is a new hold */
	host_take(&vf);
	CHECK_EQ(burst_at(&vf, 10 * MAX_NS), 0);
	compsc_writer_release(ctl_of(&vf));
	host_take(&vf);
	CHECK_EQ(burst_at(&vf, 11 * MAX_NS + 1), 0);
	CHECK_EQ(vf.given_up, 1);
	compsc_writer_release(ctl_of(&vf));
	CHECK_EQ(burst_at(&vf, 11 * MAX_NS + 2), 1);

	/* the control path's wait counts as a look too */
	host_take(&vf);
	clk.now = 20 * MAX_NS;
	CHECK(compsc_uvf_enter(&vf) != 0);
	clk.now = 21 * MAX_NS + 1000;
	CHECK(compsc_uvf_enter(&vf) != 0);
	CHECK_EQ(vf.given_up, 2);
	CHECK_EQ(compsc_uvf_enter(&vf), 0);
	compsc_uvf_leave(&vf);
	free(mem);
	CHECK_DONE();
}
