/* A hand-over without state reaches the userspace VF helper's restore as lost: no saved register or counter final is offered (stale values would shift the rings), and the restore that resets counts once in state_lost. */
#include <compsc/uvf.h>
#include <stdlib.h>
#include "check.h"
#include "sync_env.h"

static int send_ok(struct compsc_uvf *vf, const u32 *msg, u32 nwords)
{
	(void)vf; (void)msg; (void)nwords;
	return 0;
}

/* What the PMD's restore op sees, for the checks below. */
static int seen_lost, seen_saved_err, seen_final, calls;
static u32 seen_saved;

static int restore(struct compsc_uvf *vf)
{
	u32 final = 0;

	calls++;
	seen_lost = compsc_uvf_state_lost(vf);
	seen_saved_err = compsc_uvf_saved(vf, 0, &seen_saved);
	seen_final = compsc_uvf_ctr_final(vf, 0, &final);
	return 0;
}

static const struct compsc_uvf_ops ops = { .send = send_ok, .restore = restore };
static const u32 regs[] = { 0x2810, 0x3810 };	/* RDH(0), TDH(0) */
static const u32 ctrs[] = { 0xf10 };		/* VFGPRC */
static const struct compsc_uvf_desc desc = {
	.regs = regs, .nr_regs = 2, .ctrs = ctrs, .nr_ctrs = 1,
	.replay_recs = 16, .nr_slots = 2,
};

/* The host takes, leaves saved values of a past migration, and hands back. */
static void hand_over(struct compsc_uvf *vf, int lost)
{
	struct compsc_area_ctl *ctl = compsc_area_ctl(vf->area);

	CHECK_EQ(compsc_writer_acquire(ctl, compsc_area_slots(vf->area),
				       le16_to_cpu(vf->area->nr_slots),
				       &sync_env_real, 20000000), 0);
	compsc_area_saved(vf->area)[0] = cpu_to_le64(77);
	compsc_area_counters(vf->area)[0].hw_final = cpu_to_le32(5000);
	compsc_area_counters(vf->area)[0].flags |= COMPSC_CTR_F_SAVED;
	if (lost) {
		/* the destination's give failed after the values were there */
		compsc_writer_release_lost(ctl, -COMPSC_ENOSTATE);
	} else {
		ctl->host_status = 0;
		compsc_writer_release(ctl);
	}
	CHECK_EQ(compsc_uvf_burst_enter(vf, 1), 0);
	compsc_uvf_burst_exit(vf, 1);
}

int main(void)
{
	struct compsc_uvf vf;
	u32 len = compsc_uvf_area_size(&desc);
	void *mem = NULL;

	CHECK_EQ(posix_memalign(&mem, 4096, len), 0);
	CHECK_EQ(compsc_uvf_init(&vf, mem, len, 0x10000, &desc, &ops, NULL,
				 &sync_env_real, 20000000), 0);

	hand_over(&vf, 0);
	CHECK_EQ(calls, 1);
	CHECK_EQ(seen_lost, 0);
	CHECK_EQ(seen_saved_err, 0);
	CHECK_EQ(seen_saved, 77);
	CHECK_EQ(seen_final, 1);
	CHECK_EQ(vf.state_lost, 0);

	seen_saved = 0;
	hand_over(&vf, 1);
	CHECK_EQ(calls, 2);
	CHECK_EQ(seen_lost, -COMPSC_ENOSTATE);
	CHECK_EQ(seen_saved_err, -COMPSC_ENOSTATE);
	CHECK_EQ(seen_saved, 0);
	CHECK_EQ(seen_final, 0);
	CHECK_EQ(vf.state_lost, 1);
	CHECK_EQ(vf.restores, 2);
	/* restored once */
	CHECK_EQ(compsc_uvf_burst_enter(&vf, 1), 0);
	compsc_uvf_burst_exit(&vf, 1);
	CHECK_EQ(calls, 2);
	free(mem);
	CHECK_DONE();
}
