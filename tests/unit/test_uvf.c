// SPDX-License-Identifier: (GPL-2.0 OR BSD-3-Clause)
/*
 * The userspace VF helper (compsc/uvf.h, what the DPDK PMD links): the
 * area is registered and withdrawn with compsc/mbx.h's message as the PF
 * decodes it, a refusing PF leaves the driver stock, the burst read side
 * backs off while the host's write side (libcompsc's) holds the device,
 * and a migration runs the driver's restore once or, without one, keeps
 * the device unused.
 */
#include <compsc/uvf.h>
#include <compsc/mbx.h>
#include <stdlib.h>
#include "check.h"
#include "sync_env.h"

/* A PF as igb's patch is: decode the message, keep the area, ACK or NACK. */
struct fake_pf {
	int refuse;		/* a stock PF: NACK every unknown message */
	int sends;
	u64 gpa;
	u32 size;
	int decode_err;
};

static int fake_send(struct compsc_uvf *vf, const u32 *msg, u32 nwords)
{
	struct fake_pf *pf = vf->priv;

	pf->sends++;
	if (pf->refuse)
		return -COMPSC_EREFUSED;
	pf->decode_err = compsc_mbx_area_decode(msg, nwords, &pf->gpa,
						&pf->size);
	return pf->decode_err ? -COMPSC_EREFUSED : 0;
}

static int restore_calls;

static int ok_restore(struct compsc_uvf *vf)
{
	(void)vf;
	restore_calls++;
	return 0;
}

static const struct compsc_uvf_ops ops_plain = { .send = fake_send };
static const struct compsc_uvf_ops ops_restore = {
	.send = fake_send, .restore = ok_restore,
};
static const u32 regs[] = { 0x2810, 0x3810 };	/* RDH(0), TDH(0) */
static const struct compsc_uvf_desc desc = {
	.regs = regs, .nr_regs = 2, .replay_recs = 64, .nr_slots = 4,
};
#define IOVA	0x12345000ull
#define WAIT_NS	20000000ull	/* 20 ms */

static void *area_mem(u32 *len)
{
	void *mem = NULL;

	*len = compsc_uvf_area_size(&desc);
	CHECK(*len > 0);
	CHECK_EQ(posix_memalign(&mem, 4096, *len), 0);
	return mem;
}

/* A VF helper over fresh area memory, registered with @pf; returns the memory. */
static void *registered(struct compsc_uvf *vf, struct fake_pf *pf,
			const struct compsc_uvf_ops *ops)
{
	u32 len;
	void *mem = area_mem(&len);

	CHECK_EQ(compsc_uvf_init(vf, mem, len, IOVA, &desc, ops, pf,
				 &sync_env_real, WAIT_NS), 0);
	CHECK_EQ(compsc_uvf_register(vf), 0);
	return mem;
}

static void test_refused(void)
{
	struct fake_pf pf = { .refuse = 1 };
	struct compsc_uvf vf;
	u32 len;
	void *mem = area_mem(&len);

	CHECK_EQ(compsc_uvf_init(&vf, mem, len, IOVA, &desc, &ops_plain, &pf,
				 &sync_env_real, WAIT_NS), 0);
	CHECK_EQ(compsc_uvf_register(&vf), -COMPSC_EREFUSED);
	CHECK_EQ(vf.registered, 0);
	CHECK_EQ(pf.sends, 1);
	/* nothing registered: nothing to withdraw, no message */
	CHECK_EQ(compsc_uvf_unregister(&vf), -COMPSC_ESTATE);
	CHECK_EQ(pf.sends, 1);
	free(mem);
}

static void test_register_withdraw(void)
{
	struct fake_pf pf = { 0 };
	struct compsc_uvf vf;
	u32 len;
	void *mem = area_mem(&len);

	/* an IO address the message cannot carry is refused before sending */
	CHECK_EQ(compsc_uvf_init(&vf, mem, len, IOVA + 8, &desc, &ops_plain,
				 &pf, &sync_env_real, WAIT_NS), -COMPSC_EINVAL);
	CHECK_EQ(compsc_uvf_init(&vf, mem, len, IOVA, &desc, &ops_plain, &pf,
				 &sync_env_real, WAIT_NS), 0);
	CHECK_EQ(compsc_uvf_register(&vf), 0);
	CHECK_EQ(pf.decode_err, 0);
	CHECK_EQ(pf.gpa, IOVA);
	CHECK_EQ(pf.size, len);
	/* what the host checks before it trusts the area */
	CHECK_EQ(compsc_area_check(mem, len), 0);
	CHECK_EQ(le16_to_cpu(vf.area->reg_count), 2);
	CHECK_EQ(compsc_uvf_unregister(&vf), 0);
	CHECK_EQ(pf.sends, 2);
	CHECK_EQ(pf.gpa, 0);
	CHECK_EQ(pf.size, 0);
	/* the memory is the caller's again: no host takes it after this */
	CHECK_EQ(compsc_area_ctl(vf.area)->writer,
		 cpu_to_le32(COMPSC_WRITER_WITHDRAWN));
	CHECK_EQ(compsc_writer_claim(compsc_area_ctl(vf.area)), -COMPSC_ESTATE);
	free(mem);
}

/* The host takes the device: bursts back off, a reader inside blocks it. */
static void test_host_holds(void)
{
	struct fake_pf pf = { 0 };
	struct compsc_uvf vf;
	struct compsc_area_ctl *ctl;
	struct compsc_slot *slots;
	void *mem;
	u32 n;

	sync_env_setup();
	mem = registered(&vf, &pf, &ops_plain);
	ctl = compsc_area_ctl(vf.area);
	slots = compsc_area_slots(vf.area);
	n = le16_to_cpu(vf.area->nr_slots);

	CHECK_EQ(compsc_uvf_burst_enter(&vf, 1), 0);
	CHECK_EQ(compsc_writer_acquire(ctl, slots, n, &sync_env_real,
				       WAIT_NS), -COMPSC_ETIMEDOUT);
	compsc_uvf_burst_exit(&vf, 1);
	CHECK_EQ(compsc_writer_acquire(ctl, slots, n, &sync_env_real,
				       WAIT_NS), 0);
	CHECK_EQ(compsc_uvf_burst_enter(&vf, 1), -COMPSC_EBUSY);
	CHECK_EQ(compsc_uvf_burst_enter(&vf, 200), -COMPSC_EBUSY); /* slot 0 */
	CHECK_EQ(compsc_uvf_enter(&vf), -COMPSC_ETIMEDOUT);
	CHECK_EQ(vf.busy, 3);
	CHECK_EQ(compsc_readers_inside(slots, n), 0);
	/* withdrawal waits for the host and then tells the caller to leak */
	CHECK(compsc_uvf_unregister(&vf) != 0);
	CHECK_EQ(pf.sends, 1);
	compsc_writer_abort(ctl);	/* failed migration: no version bump */
	CHECK_EQ(compsc_uvf_burst_enter(&vf, 1), 0);
	compsc_uvf_burst_exit(&vf, 1);
	CHECK_EQ(vf.restore_missing, 0);
	CHECK_EQ(compsc_uvf_unregister(&vf), 0);
	free(mem);
}

/* Hand-back after a migration: @ops decides restore or stay unused. */
static void migrate_once(const struct compsc_uvf_ops *ops, int want_ok)
{
	struct fake_pf pf = { 0 };
	struct compsc_uvf vf;
	struct compsc_area_ctl *ctl;
	struct compsc_slot *slots;
	void *mem;

	restore_calls = 0;
	mem = registered(&vf, &pf, ops);
	ctl = compsc_area_ctl(vf.area);
	slots = compsc_area_slots(vf.area);
	CHECK_EQ(compsc_writer_acquire(ctl, slots,
				       le16_to_cpu(vf.area->nr_slots),
				       &sync_env_real, WAIT_NS), 0);
	compsc_writer_release(ctl);	/* migrated: version bumped */
	if (want_ok) {
		CHECK_EQ(compsc_uvf_burst_enter(&vf, 2), 0);
		compsc_uvf_burst_exit(&vf, 2);
		CHECK_EQ(compsc_uvf_burst_enter(&vf, 2), 0);
		compsc_uvf_burst_exit(&vf, 2);
		CHECK_EQ(restore_calls, 1);
		CHECK_EQ(vf.restores, 1);
		CHECK_EQ(le64_to_cpu(vf.area->restored_version),
			 le64_to_cpu(ctl->version));
	} else {
		CHECK_EQ(compsc_uvf_burst_enter(&vf, 2), -COMPSC_EBUSY);
		CHECK_EQ(compsc_uvf_enter(&vf), -COMPSC_EBUSY);
		CHECK_EQ(vf.restore_missing, 2);
		CHECK_EQ(vf.restores, 0);
	}
	CHECK_EQ(compsc_readers_inside(slots, le16_to_cpu(vf.area->nr_slots)),
		 0);
	free(mem);
}

int main(void)
{
	test_refused();
	test_register_withdraw();
	test_host_holds();
	migrate_once(&ops_restore, 1);
	migrate_once(&ops_plain, 0);
	CHECK_DONE();
}
