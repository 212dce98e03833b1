/* SPDX-License-Identifier: (GPL-2.0 OR BSD-3-Clause) */
/*
 * compsc/migstate.h - the migration state machine of a CompSC host, as one
 * pure function: which single-step arcs are legal and what each one does at
 * the protocol level. The VFIO variant driver and the stand-in both
 * ask it; neither keeps its own copy of the rules.
 *
 * States use the VFIO migration uAPI v2 numbering so that a VFIO driver can
 * pass its states through unchanged (it asserts the values match).
 */
#ifndef COMPSC_MIGSTATE_H
#define COMPSC_MIGSTATE_H

#include "compsc.h"

#define COMPSC_MIG_ERROR	0	/* only a reset leaves it */
#define COMPSC_MIG_STOP		1
#define COMPSC_MIG_RUNNING	2
#define COMPSC_MIG_STOP_COPY	3
#define COMPSC_MIG_RESUMING	4
#define COMPSC_MIG_RUNNING_P2P	5
#define COMPSC_MIG_PRE_COPY	6
#define COMPSC_MIG_PRE_COPY_P2P	7
#define COMPSC_MIG_NR_STATES	8

/* What the host holds when the arc starts (compsc_mig_arc() @ctx). */
#define COMPSC_MIG_C_AREA	(1u << 0) /* the guest registered an area */
#define COMPSC_MIG_C_HELD	(1u << 1) /* we hold the write side */
#define COMPSC_MIG_C_LOADED	(1u << 2) /* a stream was loaded and checked */
#define COMPSC_MIG_C_BACKOFF	(1u << 3) /* a hold expired a short while ago */
#define COMPSC_MIG_C_PRECOPY	(1u << 4) /* this host offers PRE_COPY */
#define COMPSC_MIG_C_PAUSED	(1u << 5) /* the VF's PF stopped its DMA */
#define COMPSC_MIG_C_REFUSED	(1u << 6) /* a take timed out, none is due */
#define COMPSC_MIG_C_LOG_WHOLE	(1u << 7) /* the DMA log's last read reported all of memory */

/*
 * How long a device taken in PRE_COPY may stay taken without the
 * switch-over (the host's default; operators may change it). The guest
 * then keeps it at least as long before the next size query may take it
 * again (compsc_mig_backoff_ms()).
 */
#define COMPSC_MIG_HOLD_MS	2000
/* Doublings of that back-off within one migration, at most */
#define COMPSC_MIG_BACKOFF_MAX_SHIFT	3
/* Timed-out takes on the size query that defer the switch-over, per migration */
#define COMPSC_MIG_TAKE_RETRIES		3

/* What the arc does (compsc_mig_arc() *@actions), in this order. */
#define COMPSC_MIG_A_PAUSE	(1u << 11) /* the PF stops the VF's DMA */
#define COMPSC_MIG_A_TAKE	(1u << 0) /* acquire (bounded), stop queues */
#define COMPSC_MIG_A_SAVE_OPEN	(1u << 7) /* open the save fd, empty for now */
#define COMPSC_MIG_A_SAVE_PRE	(1u << 10) /* the configuration into it as pre-copy data */
#define COMPSC_MIG_A_SAVE	(1u << 1) /* build the stream into the save fd */
#define COMPSC_MIG_A_SAVE_FAIL	(1u << 8) /* nothing held: every read fails */
#define COMPSC_MIG_A_SAVE_END	(1u << 2) /* close the save fd */
#define COMPSC_MIG_A_LOAD	(1u << 3) /* forget held state, open the load fd */
#define COMPSC_MIG_A_LOAD_END	(1u << 4) /* strict parse + checks of what came */
#define COMPSC_MIG_A_GIVE	(1u << 5) /* write state, bump, release, kick */
#define COMPSC_MIG_A_ABORT	(1u << 6) /* restart queues, release, no bump */
#define COMPSC_MIG_A_UNPAUSE	(1u << 12) /* the PF gives the VF's DMA back */
#define COMPSC_MIG_A_DEFER	(1u << 9) /* size query: answer COMPSC_MIG_SIZE_DEFER */

/*
 * The stop-copy size that keeps a migration in pre-copy: more than any
 * link moves within a downtime limit (QEMU itself assumes 100 GiB when it
 * cannot learn a VFIO device's size, for the same reason).
 */
#define COMPSC_MIG_SIZE_DEFER	(100ull << 30)

/*
 * compsc_mig_arc() - the rules for one arc @from -> @to given @ctx.
 * Returns 0 with *@actions set, or -COMPSC_EINVAL for an arc that is not a
 * legal single step (a caller bug: warn).
 *
 * Every legal arc succeeds, even STOP_COPY with no device held (the take
 * failed or the area was refused): QEMU resets a device whose STOP_COPY
 * arc fails, which would take the device from the very guest the refusal
 * protects. The failure travels in the data instead (A_SAVE_FAIL), so the
 * migration fails and the guest keeps its device untouched. A device that
 * is neither held nor paused on the way into STOP_COPY, or from
 * PRE_COPY_P2P back to RUNNING_P2P (a STOP may follow), is paused there
 * (A_PAUSE, below): a stopped VM's device does no DMA.
 *
 * A host that offers PRE_COPY (COMPSC_MIG_C_PRECOPY) takes the device on
 * the size query of a migration, which goes through PRE_COPY; RUNNING ->
 * RUNNING_P2P is then a plain pause of the VM (QMP stop, virsh suspend),
 * with its vCPUs already stopped, possibly inside a read side. A take
 * there could only wait for a reader that cannot leave, under the VMM's
 * big lock, and on failure leave the device doing DMA in STOP. So a pause
 * does not take: A_PAUSE has the VF's PF stop all of its DMA through what
 * only the PF writes (no VF register the guest may be half-way through
 * writing is touched, nothing waits for the guest), and the arc back to a
 * running state gives it back (A_UNPAUSE): no version bump, no restore,
 * the rings as they were. Should the paused VM's state be asked for
 * (STOP_COPY: a migration or snapshot of a paused VM), the device is
 * taken then (A_TAKE); A_SAVE with nothing held after that take fails the
 * data as A_SAVE_FAIL does. A host without PRE_COPY (the stand-in)
 * takes at RUNNING -> RUNNING_P2P.
 */
int compsc_mig_arc(u32 from, u32 to, u32 ctx, u32 *actions);

/*
 * compsc_mig_size_query() - what to do when the host is asked, in @state,
 * how much the stop-copy phase will send (VFIO MIG_DATA_SIZE). Returns
 * COMPSC_MIG_A_TAKE, COMPSC_MIG_A_DEFER or 0.
 *
 * In PRE_COPY a migration asks this right before it decides to stop the
 * VM (QEMU's "exact pending" check), while the vCPUs still run. That is
 * the last moment the take can succeed for sure: once the vCPUs are
 * paused, a reader caught inside its section can never leave it. A take
 * that fails here is not an error; PRE_COPY -> PRE_COPY_P2P tries again.
 *
 * While COMPSC_MIG_C_BACKOFF is set the guest keeps its device and the
 * answer is COMPSC_MIG_SIZE_DEFER: a switch-over now would have to take
 * the device with the vCPUs paused, which can fail. QEMU goes on with
 * pre-copy and asks again.
 *
 * So it is while COMPSC_MIG_C_LOG_WHOLE is set: the pass that follows
 * sends all of guest memory again, so no switch-over can come of this
 * query, and a take would only leave the guest without its network until
 * the hold expires.
 */
u32 compsc_mig_size_query(u32 state, u32 ctx);

/*
 * compsc_mig_hold_expired() - what to do when a device taken on the size
 * query has been held COMPSC_MIG_HOLD_MS (or the host's bound) and the
 * migration is still in @state. Returns COMPSC_MIG_A_ABORT or 0.
 *
 * A migration that does not converge (or a destination that stalls) asks
 * the size again and again without switching over; the guest has no
 * network for as long as the device is held. In PRE_COPY the vCPUs run and
 * the device goes back to the guest without a version bump. The caller
 * then sets COMPSC_MIG_C_BACKOFF (compsc_mig_backoff_ms()): the size queries in
 * that time defer the switch-over and leave the guest its device, the
 * first one after it takes the device again. Past PRE_COPY the
 * switch-over is under way: keep the device.
 */
u32 compsc_mig_hold_expired(u32 state, u32 ctx);

/*
 * compsc_mig_backoff_ms() - how long COMPSC_MIG_C_BACKOFF lasts after the
 * @expired-th hold of one migration expired (1 for the first): @hold_ms,
 * doubled for each earlier expiry, at most COMPSC_MIG_BACKOFF_MAX_SHIFT
 * times. A pre-copy that keeps failing to switch over then costs the
 * guest less and less of its network: at most a third of the time from
 * the second expiry on, instead of half.
 */
u32 compsc_mig_backoff_ms(u32 hold_ms, u32 expired);

/*
 * compsc_mig_take_timed_out() - what to do when a take on the size query
 * in @state timed out (the guest's readers did not leave within the
 * host's bound), the @timeouts-th of one migration (1 for the first).
 * Returns COMPSC_MIG_A_DEFER or 0.
 *
 * A reader held up for a moment (a vCPU the host did not run, a slow
 * section) should not fail the migration; and the switch-over would have
 * to take the device with the vCPUs paused, where a reader caught inside
 * its section can never leave. So, in PRE_COPY, the first
 * COMPSC_MIG_TAKE_RETRIES such takes defer the switch-over: the caller
 * sets COMPSC_MIG_C_BACKOFF (compsc_mig_backoff_ms() of its take bound,
 * so that the guest gets at least as long without a waiting host as the
 * host waited) and answers COMPSC_MIG_SIZE_DEFER; the first size query
 * after it takes again. A reader that stays longer fails the migration
 * the designed way (the guest keeps its device). Other refusals (a
 * hostile area, no DMA log) are not retried: waiting does not mend them.
 *
 * A take that timed out with no retry due (0 here: the last one allowed,
 * or past PRE_COPY) is the migration's answer: the caller sets
 * COMPSC_MIG_C_REFUSED until the migration ends, and no arc or size query
 * takes again. Each take keeps the guest's readers out for up to the
 * host's bound; one more at the switch-over that the refusal lets the VMM
 * start would double that wait (past a driver's transmit watchdog) for a
 * take that finds the same reader inside, and with the vCPUs paused can
 * only time out again. STOP_COPY then fails the data (A_SAVE_FAIL).
 */
u32 compsc_mig_take_timed_out(u32 state, u32 timeouts);

/*
 * A pass over guest memory by the reads of the DMA log. QEMU reads the log
 * one memory section at a time, in ascending order, and starts over at the
 * lowest for its next sync, so one read's whole window is one section
 * only. After compsc_log_pass_start(), every read reports its whole window
 * until the reads have started over and come back up to the first one's
 * iova: by then every section was reported whole once. The caller keeps
 * one per device and serialises its reads (they come from one QEMU thread).
 */
struct compsc_log_pass {
	u64 first;	/* the first read's iova since the start, or ~0 */
	u64 last;	/* the last read's iova */
	bool due;	/* reads report their whole window */
	bool wrapped;	/* reads started over below the last one */
};

/** compsc_log_pass_reset() - no pass due, as at a log start. */
void compsc_log_pass_reset(struct compsc_log_pass *p);

/**
 * compsc_log_pass_start() - every read reports its whole window from the
 * next one on, until a pass over memory did (again, if one was due).
 */
void compsc_log_pass_start(struct compsc_log_pass *p);

/**
 * compsc_log_pass_new_sync() - whether the read of @iova begins a sync:
 * the reads started over at or below the last one's window.
 */
bool compsc_log_pass_new_sync(const struct compsc_log_pass *p, u64 iova);

/**
 * compsc_log_pass_read() - the read of the window at @iova: whether it
 * reports the whole window.
 */
bool compsc_log_pass_read(struct compsc_log_pass *p, u64 iova);

/** compsc_mig_state_name() - a short name for a state number. */
const char *compsc_mig_state_name(u32 state);

#endif /* COMPSC_MIGSTATE_H */
