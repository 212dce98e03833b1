// SPDX-License-Identifier: (GPL-2.0 OR BSD-3-Clause)
/*
 * Guest read side and host write side of the CompSC device lock.
 *
 * Words and what protects them:
 *  - ctl->writer: the device owner. Taken by the host with a CAS
 *    (FREE -> HELD), so two host threads never both own the device. A
 *    hold ends by a CAS too (HELD -> FREE, or HELD -> ENDING -> FREE when
 *    the hand-back writes more): the host's abort and releases, and the
 *    guest's give-up, the only write the guest makes to it. So a guest
 *    that took its device back is never handed it back, or held again,
 *    by a late write of the host's take, and the other way round.
 *  - ctl->version: written only by the host that holds ctl->writer, read by
 *    the guest to notice a migration. Published with release after the
 *    saved state, read with acquire (weakly ordered CPUs).
 *  - hdr->restored_version, reader->seen_version: published with release
 *    by the restorer after the restored state, read with acquire.
 *  - slot[i].enter / .exit: monotonic counts of readers entering/leaving.
 *    Slot 1 + c is written only by CPU c (no locked instruction); slot 0 is
 *    shared and always updated atomically. The host only reads slots.
 *  - reader->restoring: guest-private flag taken by CAS; its owner alone may
 *    write restore_version and seen_version.
 *
 * The fast path (compsc_read_tryenter/exit) is inline in compsc.h; this
 * file has its slow path and everything that may wait.
 */
#include <compsc/compsc.h>
#include "sync_int.h"

/* CPU number that always maps to the shared slot 0 (process context). */
#define COMPSC_CPU_SHARED	0xffffffffu

int compsc_reader_init(struct compsc_reader *r, struct compsc_area_hdr *area)
{
	u16 nr_slots;

	if (!r || !area || le32_to_cpu(area->magic) != COMPSC_AREA_MAGIC)
		return -COMPSC_EINVAL;
	nr_slots = le16_to_cpu(area->nr_slots);
	if (nr_slots < 1 || nr_slots > COMPSC_MAX_SLOTS)
		return -COMPSC_EINVAL;
	memset(r, 0, sizeof(*r));
	r->hdr = area;
	r->ctl = compsc_area_ctl(area);
	r->slots = compsc_area_slots(area);
	r->nr_cpu_slots = nr_slots - 1u;
	r->seen_version = le64_to_cpu(READ_ONCE(r->ctl->version));
	WRITE_ONCE(area->restored_version, cpu_to_le64(r->seen_version));
	return 0;
}
COMPSC_EXPORT(compsc_reader_init);

/*
 * Out of line: the writer holds the device, or the version moved on since
 * the device was last restored. We are counted as inside on entry.
 *
 * The version read by the fast path cannot change while we stay inside: a
 * writer that starts after our enter was counted waits for us to leave, so
 * restore_version is exactly the version the device will be restored to.
 */
int __compsc_read_slow(struct compsc_reader *r, u32 cpu, u32 writer,
		       u64 version)
{
	if (writer != COMPSC_WRITER_FREE)
		goto busy;
	if (!compsc_cas32(&r->restoring, 0, 1))
		goto busy;	/* another context runs the restore */
	/*
	 * We own the flag. A restore may have completed between our read of
	 * seen_version and the CAS (the CAS orders the re-read after it): then
	 * there is nothing to do and we must not restore a second time.
	 */
	if (smp_load_acquire(&r->seen_version) == version) {
		smp_mb();
		WRITE_ONCE(r->restoring, 0);
		return 0;
	}
	r->restore_version = version;
	return COMPSC_READ_RESTORE;
busy:
	compsc_read_exit(r, cpu);
	return -COMPSC_EBUSY;
}
COMPSC_EXPORT(__compsc_read_slow);

/*
 * Publication order: the restored state first, then the versions that
 * say it is there. A context on another CPU that finds seen_version equal
 * to the version (tryenter's acquire) uses the device and the rings at
 * once, so every register write and ring rotation of the restore must be
 * visible before it: mb() for the device (MMIO), release for the words.
 * The host reads restored_version before it saves the device again.
 */
void compsc_restore_done(struct compsc_reader *r)
{
	mb();	/* the restore's device accesses before the publication */
	smp_store_release(&r->seen_version, r->restore_version);
	/* tells the next migration the device holds guest state again */
	smp_store_release(&r->hdr->restored_version,
			  cpu_to_le64(r->restore_version));
	/* seen_version before the flag: a CAS winner re-reads it (slow path) */
	smp_mb();
	WRITE_ONCE(r->restoring, 0);
}
COMPSC_EXPORT(compsc_restore_done);

/*
 * The claimer backs out (e.g. it found the claim in atomic context and the
 * restore sleeps). seen_version is left alone on purpose: the version still
 * differs, so the next entry claims the restore again.
 */
void compsc_restore_cancel(struct compsc_reader *r)
{
	/* like compsc_restore_done(): the restorer's accesses before the flag */
	smp_mb();
	WRITE_ONCE(r->restoring, 0);
}
COMPSC_EXPORT(compsc_restore_cancel);

/*
 * Process context: the caller may sleep and migrate between CPUs while
 * inside, so it always counts in the shared slot. Busy (writer held or a
 * restore running elsewhere) is waited out; when @timeout_ns passes the
 * result is -COMPSC_ETIMEDOUT, never -COMPSC_EBUSY. One attempt is always
 * made, so a zero timeout is a plain try.
 */
int compsc_read_enter(struct compsc_reader *r, const struct compsc_env *env,
		      u64 timeout_ns)
{
	u64 start;
	int ret;

	if (!env || !env->now_ns || !env->relax)
		return -COMPSC_EINVAL;
	start = env->now_ns(env->ctx);
	for (;;) {
		ret = compsc_read_tryenter(r, COMPSC_CPU_SHARED);
		if (ret != -COMPSC_EBUSY)
			return ret;
		if (env->now_ns(env->ctx) - start >= timeout_ns)
			return -COMPSC_ETIMEDOUT;
		env->relax(env->ctx);
	}
}
COMPSC_EXPORT(compsc_read_enter);

void compsc_read_leave(struct compsc_reader *r)
{
	compsc_read_exit(r, COMPSC_CPU_SHARED);
}
COMPSC_EXPORT(compsc_read_leave);

/*
 * Exits are summed FIRST, then (after a full barrier) enters. The counts
 * are monotonic and every exit follows its own enter, so each exit we
 * counted belongs to an enter that happened before we started reading
 * enters: it is counted too. A reader inside at the barrier has its enter
 * counted and its exit not. So the result never undercounts; it may
 * overcount a reader that came and went in between, which only makes the
 * writer poll once more. The other order could count a late reader's exit
 * (e.g. one backing out after seeing HELD) without its enter and hide a
 * reader that is really inside. Slot 0 readers may change CPU while inside;
 * only the sums matter, never a single slot's difference.
 *
 * The slots are guest memory: @nr_slots is clamped so a hostile value can
 * never make the host read past COMPSC_MAX_SLOTS slots. The caller still
 * owes a count that fits the mapping (compsc_area_check() on the header).
 */
u64 compsc_readers_inside(const struct compsc_slot *slots, u32 nr_slots)
{
	u64 enters = 0, exits = 0;
	u32 i;

	if (nr_slots > COMPSC_MAX_SLOTS)
		nr_slots = COMPSC_MAX_SLOTS;
	for (i = 0; i < nr_slots; i++)
		exits += le64_to_cpu(READ_ONCE(slots[i].exit));
	smp_mb();
	for (i = 0; i < nr_slots; i++)
		enters += le64_to_cpu(READ_ONCE(slots[i].enter));
	return enters - exits;
}
COMPSC_EXPORT(compsc_readers_inside);

/*
 * Block new readers, then wait for those inside. After fence_readers()
 * every reader either is visible in its slot or will see HELD and back out.
 * Whatever garbage a guest writes into its slots, the wait stays bounded by
 * @timeout_ns (measured by env->now_ns, not by the guest).
 */
int compsc_writer_acquire(struct compsc_area_ctl *ctl,
			  const struct compsc_slot *slots, u32 nr_slots,
			  const struct compsc_env *env, u64 timeout_ns)
{
	int err;

	if (!ctl || !slots || !nr_slots || nr_slots > COMPSC_MAX_SLOTS ||
	    !env || !env->now_ns || !env->relax || !env->fence_readers)
		return -COMPSC_EINVAL;
	err = compsc_writer_claim(ctl);
	if (err)
		return err;
	return compsc_writer_drain(ctl, slots, nr_slots, env, timeout_ns);
}
COMPSC_EXPORT(compsc_writer_acquire);

/*
 * The take's first write into the area, and its only one until it holds
 * the word: everything a host writes later happens while the guest cannot
 * withdraw (compsc_reader_withdraw() needs FREE). A word the guest set
 * WITHDRAWN says the pages may already be the allocator's again.
 */
int compsc_writer_claim(struct compsc_area_ctl *ctl)
{
	if (compsc_cas32((__u32 *)&ctl->writer,
			 cpu_to_le32(COMPSC_WRITER_FREE),
			 cpu_to_le32(COMPSC_WRITER_HELD)))
		return 0;
	if (le32_to_cpu(READ_ONCE(ctl->writer)) == COMPSC_WRITER_WITHDRAWN)
		return -COMPSC_ESTATE;
	return -COMPSC_EBUSY;
}
COMPSC_EXPORT(compsc_writer_claim);

/*
 * Another writer's hold (a take, a guest's give-up ending) is waited for
 * until the bound; a withdrawn area ends the wait at once. The claim's
 * CAS is a full barrier: the caller's writes to the area (the host's
 * dirty-log flag) come before the fence and the wait.
 */
static int __compsc_writer_claim_wait(struct compsc_area_ctl *ctl,
				      const struct compsc_env *env, u64 start,
				      u64 timeout_ns)
{
	int err;

	while ((err = compsc_writer_claim(ctl)) == -COMPSC_EBUSY) {
		if (env->now_ns(env->ctx) - start >= timeout_ns)
			break;
		env->relax(env->ctx);
	}
	return err;
}

/*
 * The write side's wait, shared by the take (compsc_writer_drain()) and
 * the host's drain (compsc_host_drain()): with @claim the word is claimed
 * first, else the caller holds it. Then new readers are fenced off and
 * those inside waited for. @timeout_ns bounds the whole call, measured
 * by env->now_ns, whatever the guest writes into its slots; at the bound
 * our hold is let go with no bump, the device stays with the guest as it
 * was. The caller checked @slots, @nr_slots and @env.
 *
 * Return: 0 (held, no reader inside), -COMPSC_ETIMEDOUT, and with @claim
 * -COMPSC_ESTATE (withdrawn) or -COMPSC_EBUSY (another's hold at the bound).
 */
int __compsc_writer_wait(struct compsc_area_ctl *ctl,
			 const struct compsc_slot *slots, u32 nr_slots,
			 const struct compsc_env *env, u64 timeout_ns,
			 bool claim)
{
	u64 start = env->now_ns(env->ctx);
	int err = claim ? __compsc_writer_claim_wait(ctl, env, start,
						     timeout_ns) : 0;

	if (err)
		return err;
	env->fence_readers(env->ctx);
	while (compsc_readers_inside(slots, nr_slots)) {
		if (env->now_ns(env->ctx) - start >= timeout_ns) {
			compsc_writer_abort(ctl);
			return -COMPSC_ETIMEDOUT;
		}
		env->relax(env->ctx);
	}
	return 0;
}

/* The rest of the acquire, once compsc_writer_claim() held the word. */
int compsc_writer_drain(struct compsc_area_ctl *ctl,
			const struct compsc_slot *slots, u32 nr_slots,
			const struct compsc_env *env, u64 timeout_ns)
{
	int err;

	if (!slots || !nr_slots || nr_slots > COMPSC_MAX_SLOTS || !env ||
	    !env->now_ns || !env->relax || !env->fence_readers) {
		compsc_writer_abort(ctl);	/* claimed: let it go */
		return -COMPSC_EINVAL;
	}
	err = __compsc_writer_wait(ctl, slots, nr_slots, env, timeout_ns,
				   false);
	if (err)
		return err;
	mb();	/* our device accesses (MMIO) follow the readers' exits */
	/*
	 * The last hand-back's "host configured the VF" travels with guest
	 * memory: a destination that does not renew it (an older host) must
	 * not find it set. No reader is inside to be reading it now.
	 */
	WRITE_ONCE(ctl->flags,
		   ctl->flags & ~cpu_to_le32(COMPSC_F_HOST_CONFIGURED));
	return 0;
}
COMPSC_EXPORT(compsc_writer_drain);

/*
 * The guest's last word on its area before it frees the pages: FREE ->
 * WITHDRAWN by compare-and-swap, so of a host's take and the withdrawal
 * exactly one happens. Once it succeeded no host claims the word again
 * (compsc_writer_claim()); while a host holds it (HELD, ENDING) it fails
 * and the pages must stay.
 */
int compsc_reader_withdraw(struct compsc_area_ctl *ctl)
{
	if (compsc_cas32((__u32 *)&ctl->writer,
			 cpu_to_le32(COMPSC_WRITER_FREE),
			 cpu_to_le32(COMPSC_WRITER_WITHDRAWN)) ||
	    le32_to_cpu(READ_ONCE(ctl->writer)) == COMPSC_WRITER_WITHDRAWN)
		return 0;
	return -COMPSC_EBUSY;
}
COMPSC_EXPORT(compsc_reader_withdraw);

/*
 * The end of a hold is claimed with a CAS: 1 if the caller now ends it
 * (ENDING), 0 if it was not held. With @free_ok a word already FREE counts
 * as claimed (a host releasing a word nobody held: the unit tests, the
 * stand-in's own area): the outcome is the same bump. Never one that
 * reads ENDING: the guest is ending that hold itself.
 */
static int __compsc_writer_end(struct compsc_area_ctl *ctl, int free_ok)
{
	if (compsc_cas32((__u32 *)&ctl->writer, cpu_to_le32(COMPSC_WRITER_HELD),
			 cpu_to_le32(COMPSC_WRITER_ENDING)))
		return 1;
	return free_ok && le32_to_cpu(READ_ONCE(ctl->writer)) ==
			  COMPSC_WRITER_FREE;
}

/*
 * Release order, paired with the acquires of compsc_read_tryenter(): the
 * device accesses (mb(): MMIO) and the saved state written into the area,
 * then the version, then FREE. A reader that sees the new version sees
 * the saved state; one that sees FREE sees the version.
 */
static void __compsc_writer_bump(struct compsc_area_ctl *ctl)
{
	u64 v = le64_to_cpu(READ_ONCE(ctl->version));

	mb();	/* the device accesses before the hand-back */
	smp_store_release(&ctl->version, cpu_to_le64(v + 1));
	/* a reader that sees FREE sees the new version */
	smp_store_release(&ctl->writer, cpu_to_le32(COMPSC_WRITER_FREE));
}

/*
 * A hold the guest took back (ENDING: its give-up) stays its own: its
 * bump follows, and its restore resets, using no saved value.
 */
void compsc_writer_release(struct compsc_area_ctl *ctl)
{
	if (__compsc_writer_end(ctl, 1))
		__compsc_writer_bump(ctl);
}
COMPSC_EXPORT(compsc_writer_release);

/*
 * Only from HELD: a guest that took its device back keeps it, and a late
 * abort of the host's take must not cut the guest's own hand-back short.
 */
void compsc_writer_abort(struct compsc_area_ctl *ctl)
{
	mb();	/* the host's device accesses before the hand-back */
	/* a full barrier: pairs with compsc_read_tryenter()'s acquire */
	compsc_cas32((__u32 *)&ctl->writer, cpu_to_le32(COMPSC_WRITER_HELD),
		     cpu_to_le32(COMPSC_WRITER_FREE));
}
COMPSC_EXPORT(compsc_writer_abort);

/* The hand-back without state, its end claimed. */
static void __compsc_writer_lost(struct compsc_area_ctl *ctl, int status)
{
	u32 flags = le32_to_cpu(READ_ONCE(ctl->flags));

	/* no PF holds the configuration, no stale receive frame to drop */
	flags &= ~(COMPSC_F_HOST_CONFIGURED | COMPSC_F_MEM_COPIED);
	WRITE_ONCE(ctl->flags, cpu_to_le32(flags));
	WRITE_ONCE(ctl->host_status, cpu_to_le32((u32)status));
	/* its release orders both before the bump the restorer acquires */
	__compsc_writer_bump(ctl);
}

void compsc_writer_release_lost(struct compsc_area_ctl *ctl, int status)
{
	if (__compsc_writer_end(ctl, 1))
		__compsc_writer_lost(ctl, status);
}
COMPSC_EXPORT(compsc_writer_release_lost);

/*
 * Read inside the restore, after the acquire of the new version: what the
 * releaser wrote before its bump. A plain hand-over writes 0 there
 * (compsc_host_give()).
 */
int compsc_read_state_lost(const struct compsc_reader *r)
{
	return (int)le32_to_cpu(READ_ONCE(r->ctl->host_status));
}
COMPSC_EXPORT(compsc_read_state_lost);

/*
 * One CAS decides between the guest and a host ending the hold at the
 * same moment; the loser writes nothing. A guest that wins has ended the
 * host's take for good: that host finds the word off HELD, or a version
 * it did not take, and neither saves the device nor hands it back
 * (compsc_host_held()). The guest's vCPU may stop between the CAS and
 * FREE: the host's check then finds ENDING, which is not its hold either.
 */
int compsc_reader_give_up(struct compsc_reader *r)
{
	if (!__compsc_writer_end(r->ctl, 0))
		return 0;
	__compsc_writer_lost(r->ctl, -COMPSC_EABANDONED);
	return 1;
}
COMPSC_EXPORT(compsc_reader_give_up);

int compsc_reader_hold_bound(struct compsc_reader *r, struct compsc_hold_watch *w,
			     u64 now_ns, u64 max_ns)
{
	u64 version = le64_to_cpu(READ_ONCE(r->ctl->version));
	u64 since = READ_ONCE(w->since_ns);

	if (le32_to_cpu(READ_ONCE(r->ctl->writer)) != COMPSC_WRITER_HELD) {
		WRITE_ONCE(w->since_ns, 0);
		return 0;
	}
	if (!since || READ_ONCE(w->version) != version) {
		WRITE_ONCE(w->version, version);
		WRITE_ONCE(w->since_ns, now_ns | 1);	/* 0: none */
		return 0;
	}
	if (now_ns - since < max_ns)
		return 0;
	WRITE_ONCE(w->since_ns, 0);
	return compsc_reader_give_up(r);
}
COMPSC_EXPORT(compsc_reader_hold_bound);

int compsc_writer_device_restored(const struct compsc_area_hdr *hdr,
				  const struct compsc_area_ctl *ctl)
{
	/* pairs with compsc_restore_done(): the device was restored first */
	return le64_to_cpu(smp_load_acquire(&hdr->restored_version)) ==
	       le64_to_cpu(READ_ONCE(ctl->version));
}
COMPSC_EXPORT(compsc_writer_device_restored);
