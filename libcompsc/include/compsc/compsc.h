/* SPDX-License-Identifier: (GPL-2.0 OR BSD-3-Clause) */
/*
 * compsc/compsc.h - the libcompsc API.
 *
 * Every function returns 0 (or a documented non-negative value) on success
 * and a negative -COMPSC_E* code on failure; nothing aborts and nothing
 * allocates: callers pass every buffer. compsc_strerror() names each code,
 * compsc_errno() maps it to a kernel-style -errno.
 */
#ifndef COMPSC_COMPSC_H
#define COMPSC_COMPSC_H

#include "abi.h"

/* ------------------------------------------------------------------ */
/* Errors                                                              */
/* ------------------------------------------------------------------ */

enum {
	COMPSC_OK = 0,
	COMPSC_EINVAL,		/* bad argument */
	COMPSC_EBUSY,		/* read side not available right now */
	COMPSC_ETIMEDOUT,	/* readers did not drain within the bound */
	COMPSC_ENOSPC,		/* replay log / output buffer full */
	COMPSC_ESTATE,		/* call not allowed in this state */
	/* migration stream */
	COMPSC_EBADMAGIC,	/* not a CompSC stream */
	COMPSC_EWRONG_VERSION,	/* stream format major version unsupported */
	COMPSC_ETRUNCATED,	/* stream shorter than it claims */
	COMPSC_EOVERSIZE,	/* stream or record larger than allowed */
	COMPSC_ECORRUPT,	/* checksum mismatch */
	COMPSC_EMALFORMED,	/* bad record framing, padding or payload size */
	COMPSC_EDUPLICATE,	/* a record type appears twice */
	COMPSC_EUNKNOWN_MANDATORY, /* mandatory record type not understood */
	COMPSC_EWRONG_DEVICE,	/* stream is for another device */
	COMPSC_EMISSING,	/* a required record is absent */
	/* shared area validation */
	COMPSC_EAREA_MAGIC,	/* area magic wrong */
	COMPSC_EAREA_VERSION,	/* area ABI major unsupported */
	COMPSC_EAREA_LAYOUT,	/* sections outside the area, misaligned or overlapping */
	COMPSC_EREG_COUNT,	/* more entries than allowed or than fit */
	COMPSC_EREG_BAR,	/* register outside the BAR, or no such BAR */
	COMPSC_EREG_ALIGN,	/* register offset not aligned to its width */
	COMPSC_EREG_WIDTH,	/* width not 4 or 8, or not allowed there */
	COMPSC_EREG_KIND,	/* unknown kind, or kind not allowed there */
	COMPSC_EREG_OVERLAP,	/* two entries cover the same bytes */
	COMPSC_EREG_DENIED,	/* register not in the host's allow-list */
	COMPSC_EREG_FLAGS,	/* reserved bits set */
	/* host side (appended: host_status values never change meaning) */
	COMPSC_ENOTRESTORED,	/* the guest has not restored the last hand-back */
	COMPSC_EMISMATCH,	/* stream does not match the destination's area */
	/* replay log: in an area (attach) or packed (unpack) */
	COMPSC_EREPLAY_MAGIC,	/* not a (formatted or packed) replay log */
	COMPSC_EREPLAY_VERSION,	/* packed format version unsupported */
	COMPSC_EREPLAY_ROOM,	/* capacity more than its bytes hold */
	COMPSC_EREPLAY_COUNT,	/* more records in use than its capacity */
	COMPSC_EREPLAY_LEN,	/* a record longer than COMPSC_REPLAY_DATA_MAX */
	COMPSC_EREPLAY_FLAGS,	/* reserved bits set in a record */
	COMPSC_EREPLAY_SEQ,	/* records not in strictly increasing sequence */
	COMPSC_EREPLAY_DUPLICATE, /* a key in two records */
	COMPSC_EREPLAY_TRUNCATED, /* packed: shorter than its records */
	COMPSC_EREPLAY_TRAILING, /* packed: bytes after the last record */
	COMPSC_EREPLAY_CORRUPT,	/* packed: checksum mismatch */
	/* host side, continued */
	COMPSC_EQSTOP,		/* a VF queue did not stop within the model's bound */
	COMPSC_EUNLOGGED,	/* the VF writes where the DMA log does not track */
	/* guest side */
	COMPSC_EREFUSED,	/* the PF refused the area (a stock PF): run stock */
	/* host side, continued */
	COMPSC_EPRECOPY,	/* stream relies on a pre-copy stream not held here */
	/* hand-over without state: the guest resets and replays */
	COMPSC_ENOSTATE,	/* the destination could not hand the state over */
	COMPSC_EABANDONED,	/* the guest took back a device no host gave back */
	COMPSC_E_MAX
};

/** compsc_strerror() - one-line English description of a (negative) code. */
const char *compsc_strerror(int err);
/** compsc_errno() - kernel-style -errno for a (negative) code; 0 for 0. */
int compsc_errno(int err);

/* ------------------------------------------------------------------ */
/* Shared area layout                                                  */
/* ------------------------------------------------------------------ */

struct compsc_layout_req {
	u32 nr_cpus;		/* CPU slots wanted (slot 0 is added) */
	u32 reg_max;
	u32 counter_max;
	u32 replay_recs;	/* replay log capacity in records */
};

/** compsc_area_size() - bytes an area for @req needs (0 if @req is out of range). */
u32 compsc_area_size(const struct compsc_layout_req *req);
/** compsc_area_init() - lay out and zero a fresh area in @mem of @len bytes. */
int compsc_area_init(void *mem, u32 len, const struct compsc_layout_req *req);
/** Section accessors for an area the caller laid out itself (trusted). */
struct compsc_area_ctl *compsc_area_ctl(struct compsc_area_hdr *a);
struct compsc_slot *compsc_area_slots(struct compsc_area_hdr *a);
struct compsc_reg *compsc_area_regs(struct compsc_area_hdr *a);
__le64 *compsc_area_saved(struct compsc_area_hdr *a);
struct compsc_counter_desc *compsc_area_counters(struct compsc_area_hdr *a);
struct compsc_replay_hdr *compsc_area_replay(struct compsc_area_hdr *a);
/** compsc_area_add_reg() - guest: append one register to the save list. */
int compsc_area_add_reg(struct compsc_area_hdr *a, u8 bar, u32 offset,
			u8 width, u8 kind);
/** compsc_area_add_counter() - guest: append one self-emulated counter; returns its index. */
int compsc_area_add_counter(struct compsc_area_hdr *a, u8 bar, u32 offset,
			    u8 kind);

/* ------------------------------------------------------------------ */
/* Synchronisation: guest read side                                    */
/* ------------------------------------------------------------------ */

/*
 * Driver-private reader state (not in the shared area). One per device.
 * The fast path only reads the control line and increments this CPU's slot.
 */
struct compsc_reader {
	struct compsc_area_hdr *hdr;	/* restored_version is published here */
	struct compsc_area_ctl *ctl;
	struct compsc_slot *slots;
	u32 nr_cpu_slots;	/* slots 1..nr_cpu_slots; others use slot 0 */
	u32 restoring;		/* 1 while one context runs the restore (CAS) */
	u64 seen_version;	/* migration version the device state matches */
	u64 restore_version;	/* version the current restore brings us to */
};

/**
 * compsc_read_state_lost() - for the restorer: the hand-over it restores
 * carries no state (compsc_writer_release_lost()): 0, or the -COMPSC_E*
 * the releaser wrote; the device must then be reset, not restored.
 */
int compsc_read_state_lost(const struct compsc_reader *r);
/**
 * compsc_reader_give_up() - the guest's bound on a host that never hands
 * its device back: release it as lost (-COMPSC_EABANDONED)
 * @r: the reader; the caller saw the writer held, without a break, for
 *	longer than any host may hold a running guest's device
 *	(COMPSC_HOLD_MAX_MS)
 *
 * Return: 1 if it was still held and is now released (every entry then
 * restores, by a reset), 0 if it was free by then.
 */
int compsc_reader_give_up(struct compsc_reader *r);

/*
 * The longest a host may hold the device of a guest whose vCPUs run: past
 * it the guest takes its device back (compsc_reader_give_up()). Holds with
 * the vCPUs stopped do not count: the guest's clock does not see them.
 */
#define COMPSC_HOLD_MAX_MS	120000u

/*
 * What the guest's waiting paths saw of a hold at their last look
 * (compsc_reader_hold_bound()). Any of them reads and writes it without a
 * lock: a lost update only moves the bound by one look.
 */
struct compsc_hold_watch {
	u64 since_ns;	/* the env clock (| 1) when this hold was first seen; 0: none */
	u64 version;	/* the area's version then: a new hold starts the count again */
};

/**
 * compsc_reader_hold_bound() - an entry found the device held: the
 * guest's bound on that hold
 * @r: the reader
 * @w: this device's watch (zeroed at init)
 * @now_ns: the guest's clock (its env)
 * @max_ns: the bound, COMPSC_HOLD_MAX_MS unless a test shortened it
 *
 * Call it from the paths that back off, at least once a second while they
 * wait. Once the writer word shows the same hold (one version) at every
 * look for @max_ns, the device is taken back as lost
 * (compsc_reader_give_up()): the next entry restores by a reset. A look
 * at a free device or at a new version starts the count again.
 *
 * Return: 1 if this call took the device back, 0 otherwise.
 */
int compsc_reader_hold_bound(struct compsc_reader *r, struct compsc_hold_watch *w,
			     u64 now_ns, u64 max_ns);

/* compsc_read_*enter() returns this (> 0) when the caller must restore. */
#define COMPSC_READ_RESTORE	1

/** compsc_reader_init() - bind @r to a laid-out area; current version counts as seen. */
int compsc_reader_init(struct compsc_reader *r, struct compsc_area_hdr *area);

/*
 * compsc_read_tryenter() - enter the read side from atomic context (xmit,
 * NAPI, IRQ). @cpu is the current CPU; the caller must not migrate until
 * the matching compsc_read_exit(). Returns 0 (inside), COMPSC_READ_RESTORE
 * (inside; run the restore, then compsc_restore_done()), or -COMPSC_EBUSY
 * (not inside: the host owns the device or another context is restoring).
 */
static inline int compsc_read_tryenter(struct compsc_reader *r, u32 cpu);
/** compsc_read_exit() - leave the read side entered on @cpu (same CPU). */
static inline void compsc_read_exit(struct compsc_reader *r, u32 cpu);

/* Environment for waiting paths: time and a way to wait without spinning. */
struct compsc_env {
	void *ctx;
	u64 (*now_ns)(void *ctx);
	void (*relax)(void *ctx);	/* sleep/yield a little */
	/* writer only: make every reader's earlier slot stores visible
	 * (membarrier, IPI to all CPUs, or a bounded delay on a real host) */
	void (*fence_readers)(void *ctx);
};

/*
 * compsc_read_enter() - enter from process context (may sleep via env->relax,
 * may migrate CPUs while inside; uses the shared slot). Waits at most
 * @timeout_ns. Same returns as tryenter, or -COMPSC_ETIMEDOUT.
 */
int compsc_read_enter(struct compsc_reader *r, const struct compsc_env *env,
		      u64 timeout_ns);
/** compsc_read_leave() - leave a read side taken with compsc_read_enter(). */
void compsc_read_leave(struct compsc_reader *r);
/*
 * compsc_restore_done() - the restore finished; other readers may enter.
 * While a restore runs every other enter (nested ones from the restore code
 * itself included) gets -COMPSC_EBUSY: the restore uses raw register access.
 */
void compsc_restore_done(struct compsc_reader *r);
/*
 * compsc_restore_cancel() - give up a claimed restore without marking it
 * done: the version stays unseen, so the next enter (any context) gets
 * COMPSC_READ_RESTORE again. The caller is still inside the read side and
 * leaves it as usual (before or after; the order does not matter).
 */
void compsc_restore_cancel(struct compsc_reader *r);

/*
 * The read fast path is inline: it runs for every packet, and a call would
 * cost as much as the rest of it. Slots are counted in place as __le64,
 * which assumes a little-endian CPU (x86-64 is all we build for).
 */
/** __compsc_read_slow() - internal: tryenter found the writer held or a new version. */
int __compsc_read_slow(struct compsc_reader *r, u32 cpu, u32 writer,
		       u64 version);

/* @cpu's own slot, or the shared slot 0 for CPUs beyond nr_cpu_slots. */
static inline struct compsc_slot *__compsc_read_slot(struct compsc_reader *r,
						     u32 cpu)
{
	return likely(cpu < r->nr_cpu_slots) ? &r->slots[cpu + 1] : &r->slots[0];
}

static inline int compsc_read_tryenter(struct compsc_reader *r, u32 cpu)
{
	struct compsc_slot *s = __compsc_read_slot(r, cpu);
	u32 writer;
	u64 version;

	if (likely(s != r->slots))
		compsc_local_inc((__u64 *)&s->enter);	/* only this CPU writes it */
	else
		compsc_atomic_inc64((__u64 *)&s->enter);
	/*
	 * Asymmetric fence: only a compiler barrier here; the writer's
	 * env->fence_readers() makes it a full barrier whenever it matters, so
	 * either the writer sees our enter or we see its COMPSC_WRITER_HELD.
	 */
	barrier();
	/*
	 * Acquire, pairing with the releases of compsc_writer_release(): a
	 * FREE writer comes with its version, a new version with the saved
	 * state the host wrote before it (the restore reads it), and our
	 * device accesses come after the host's. seen_version likewise pairs
	 * with compsc_restore_done(): whoever sees the restored version sees
	 * the restored device and the driver's rotated rings. Plain loads on
	 * x86; one load-acquire each on arm64.
	 */
	writer = le32_to_cpu(smp_load_acquire(&r->ctl->writer));
	/* acquire: the saved state the host wrote before the version */
	version = le64_to_cpu(smp_load_acquire(&r->ctl->version));
	/* acquire: the restored state, published before seen_version */
	if (unlikely(writer != COMPSC_WRITER_FREE ||
		     version != smp_load_acquire(&r->seen_version)))
		return __compsc_read_slow(r, cpu, writer, version);
	return 0;
}

static inline void compsc_read_exit(struct compsc_reader *r, u32 cpu)
{
	struct compsc_slot *s = __compsc_read_slot(r, cpu);

	/*
	 * Release: the device accesses of the section (MMIO, which smp_*()
	 * barriers do not order) happen before the writer can count us out
	 * and touch the device itself. Free on x86 (compsc_io_release()).
	 */
	compsc_io_release();
	if (likely(s != r->slots))
		compsc_local_inc((__u64 *)&s->exit);
	else
		compsc_atomic_inc64((__u64 *)&s->exit);
}

/* ------------------------------------------------------------------ */
/* Synchronisation: host write side                                    */
/* ------------------------------------------------------------------ */

/*
 * The writer word lives in guest memory: a hostile guest can set it HELD
 * (the host's acquire then fails cleanly) or flip it FREE while the host
 * holds the device. The host keeps its own ownership state and never
 * trusts the word for its own decisions; it only publishes it.
 *
 * compsc_writer_acquire() - take the device: block new readers, fence, wait
 * up to @timeout_ns for readers inside to leave. On timeout the area is left
 * as it was (device stays with the guest) and -COMPSC_ETIMEDOUT returned;
 * -COMPSC_EBUSY if a writer already holds it.
 */
int compsc_writer_acquire(struct compsc_area_ctl *ctl,
			  const struct compsc_slot *slots, u32 nr_slots,
			  const struct compsc_env *env, u64 timeout_ns);
/**
 * compsc_writer_claim() - the first step of compsc_writer_acquire(): the
 * writer word FREE -> HELD by compare-and-swap, nothing else written
 *
 * Return: 0 (held: compsc_writer_drain() next), -COMPSC_ESTATE (the guest
 * withdrew the area: write nothing into it), -COMPSC_EBUSY (held already).
 */
int compsc_writer_claim(struct compsc_area_ctl *ctl);
/** compsc_writer_drain() - the rest of compsc_writer_acquire(), once claimed. */
int compsc_writer_drain(struct compsc_area_ctl *ctl,
			const struct compsc_slot *slots, u32 nr_slots,
			const struct compsc_env *env, u64 timeout_ns);
/**
 * compsc_reader_withdraw() - the guest is about to free its area: FREE ->
 * WITHDRAWN by compare-and-swap, after which no host takes it
 *
 * Return: 0 (withdrawn, also when it already was), -COMPSC_EBUSY (a host
 * holds the word: keep the pages, try again once it let go).
 */
int compsc_reader_withdraw(struct compsc_area_ctl *ctl);
/** compsc_writer_release() - bump the version (migration done) and release. */
void compsc_writer_release(struct compsc_area_ctl *ctl);
/** compsc_writer_abort() - release without a version bump (migration failed). */
void compsc_writer_abort(struct compsc_area_ctl *ctl);
/**
 * compsc_writer_release_lost() - release with a version bump but no state:
 * the guest must reset its device and replay its log
 * @ctl: the control line, held
 * @status: -COMPSC_ENOSTATE (a destination whose hand-over failed) or
 *	-COMPSC_EABANDONED (compsc_reader_give_up()), into host_status
 *
 * The bump makes every reader restore; COMPSC_F_HOST_CONFIGURED clear
 * makes the restore reset the VF through its PF and replay; @status tells
 * it that the saved values are not this migration's
 * (compsc_read_state_lost()). Never a release without a bump: a guest
 * whose device was reset meanwhile would never learn it.
 */
void compsc_writer_release_lost(struct compsc_area_ctl *ctl, int status);
/*
 * compsc_writer_device_restored() - with the device held: did the guest
 * restore the last hand-back? If not, the device holds no guest state (it
 * is as the last destination reset left it) and must not be saved as if it
 * did; the caller refuses or carries the previous state forward. @hdr may
 * be a host copy of the header (the field is guest-written, untrusted: a
 * lie only hurts the guest's own device).
 */
int compsc_writer_device_restored(const struct compsc_area_hdr *hdr,
				  const struct compsc_area_ctl *ctl);
/** compsc_readers_inside() - sum(enter) - sum(exit): readers currently inside. */
u64 compsc_readers_inside(const struct compsc_slot *slots, u32 nr_slots);

/* ------------------------------------------------------------------ */
/* Replay log                                                          */
/* ------------------------------------------------------------------ */

/*
 * Keyed log, last write per key wins, records kept in last-write order
 * (iteration replays in that order). An opset stages writes in a private
 * buffer and commits all or nothing.
 */
struct compsc_replay {
	struct compsc_replay_hdr *hdr;	/* in the shared area */
	struct compsc_replay_rec *recs;
	struct compsc_replay_rec *stage; /* caller's private staging buffer */
	u32 stage_cap;
	u32 stage_count;
	u32 in_opset;
};

/** compsc_replay_init() - format @len bytes at @mem as an empty log; stage may be NULL (no opsets). */
int compsc_replay_init(struct compsc_replay *l, void *mem, u32 len,
		       struct compsc_replay_rec *stage, u32 stage_cap);
/*
 * compsc_replay_check() - judge the log in @len bytes at @mem (a host's
 * copy, or the driver's own) by every rule the other functions rely on:
 * magic (-COMPSC_EREPLAY_MAGIC), a capacity its bytes hold
 * (-COMPSC_EREPLAY_ROOM), a count within it (-COMPSC_EREPLAY_COUNT), and
 * for each record in use a length of at most COMPSC_REPLAY_DATA_MAX
 * (-COMPSC_EREPLAY_LEN), no reserved bits (-COMPSC_EREPLAY_FLAGS), a
 * sequence above the one before and not above the header's
 * (-COMPSC_EREPLAY_SEQ) and a key no earlier record has
 * (-COMPSC_EREPLAY_DUPLICATE). Returns the records in use; @bad (may be
 * NULL) gets the refused record, or COMPSC_REPLAY_NO_REC. Writes nothing.
 */
#define COMPSC_REPLAY_NO_REC	0xffffffffu
int compsc_replay_check(const void *mem, u32 len, u32 *bad);
/*
 * compsc_replay_blank() - @len bytes at @mem hold no log: too few for a
 * header, or a zero header (the driver never formatted one). What a host
 * taking the log from an area treats as "no log"; anything else there is
 * judged by compsc_replay_check().
 */
int compsc_replay_blank(const void *mem, u32 len);
/** compsc_replay_attach() - use an existing log at @mem (compsc_replay_check() judges it). */
int compsc_replay_attach(struct compsc_replay *l, void *mem, u32 len,
			 struct compsc_replay_rec *stage, u32 stage_cap);
/** compsc_replay_put() - record @key = @data (in an opset: staged). -COMPSC_ENOSPC if full. */
int compsc_replay_put(struct compsc_replay *l, u32 key, const void *data,
		      u32 len);
/** compsc_replay_del() - forget @key (e.g. a VLAN removed); absent key is fine. */
int compsc_replay_del(struct compsc_replay *l, u32 key);
/** compsc_replay_opset_begin() - start staging; nested opsets are not allowed. */
int compsc_replay_opset_begin(struct compsc_replay *l);
/** compsc_replay_opset_commit() - apply all staged writes, or none (-COMPSC_ENOSPC). */
int compsc_replay_opset_commit(struct compsc_replay *l);
/** compsc_replay_opset_abort() - drop staged writes. */
void compsc_replay_opset_abort(struct compsc_replay *l);
/** compsc_replay_count() - records in the log. */
u32 compsc_replay_count(const struct compsc_replay *l);
/** compsc_replay_at() - record @i in replay order (0 = oldest), NULL past the end. */
const struct compsc_replay_rec *compsc_replay_at(const struct compsc_replay *l,
						 u32 i);
/** compsc_replay_get() - the record for @key, or NULL. */
const struct compsc_replay_rec *compsc_replay_get(const struct compsc_replay *l,
						  u32 key);
/*
 * Sets (addresses, VLAN filters): a set is a key with its low 16 bits
 * clear, each member a record keyed set | n whose data holds the member's
 * identity at [@id_off, @id_off + @id_len). Adding a member again replaces
 * its record, deleting it removes the record: the log holds each member
 * once, however often it came and went. Not in an opset (-COMPSC_ESTATE).
 */
#define COMPSC_REPLAY_SET_MASK	0xffffu
/** compsc_replay_set_put() - add or rewrite the member of @set that @data names. */
int compsc_replay_set_put(struct compsc_replay *l, u32 set, const void *data,
			  u32 len, u32 id_off, u32 id_len);
/** compsc_replay_set_del() - remove the member of @set that @data names (absent is fine). */
int compsc_replay_set_del(struct compsc_replay *l, u32 set, const void *data,
			  u32 id_off, u32 id_len);
/** compsc_replay_set_clear() - remove every member of @set. */
int compsc_replay_set_clear(struct compsc_replay *l, u32 set);
/** compsc_replay_clear() - remove every record (the PF forgot the VF: a reset). */
int compsc_replay_clear(struct compsc_replay *l);

/*
 * List messages (virtchnl's address, VLAN, queue and vector lists): a
 * header of @hdr bytes whose u16 (CPU order) at @cnt counts the elements
 * that follow, @elem bytes each, then @pad zero bytes (virtchnl's sizes
 * from before flexible arrays: one element more). Each element becomes a
 * member of @set: a record of @pre caller bytes (an opcode), the header
 * counting 1 and the element. With @id, an element's first @id bytes name
 * it (see the sets above) and the record, padded, is a message of its
 * own; with @id 0 each message replaces the whole set, members numbered
 * in order, and compsc_replay_list_gather() makes them one message again.
 */
struct compsc_replay_list {
	u32 set;
	u16 pre, hdr, cnt, elem, id, pad;
};
/** compsc_replay_list_put() - add (or with @del remove) the elements of @msg; -COMPSC_EMALFORMED on a bad length. */
int compsc_replay_list_put(struct compsc_replay *l,
			   const struct compsc_replay_list *t, const void *pre,
			   const void *msg, u32 len, int del);
/*
 * compsc_replay_list_gather() - record @i and the members of its set that
 * follow it as one message in @buf (@pre bytes, header with the count,
 * elements): returns its bytes, 0 when record @i follows a member of the
 * same set (it went out with that one), -COMPSC_ENOSPC if @cap is short.
 */
int compsc_replay_list_gather(const struct compsc_replay *l,
			      const struct compsc_replay_list *t, u32 i,
			      void *buf, u32 cap);
/*
 * compsc_replay_pack() - the log in its packed form (struct
 * compsc_replay_pack_hdr), for a migration stream: records in replay order,
 * only the data bytes in use, little-endian, deterministic (the same log
 * always packs to the same bytes). Staged opset writes are not included.
 * Returns the bytes written, -COMPSC_ENOSPC (nothing written) when @cap is
 * too small, -COMPSC_EINVAL for an unbound or inconsistent log.
 */
int compsc_replay_pack(const struct compsc_replay *l, void *buf, u32 cap);
/*
 * compsc_replay_unpack() - replace the contents of the bound log @l with
 * the packed log in @buf. Trusts nothing: refuses a bad magic
 * (-COMPSC_EREPLAY_MAGIC), another version (-COMPSC_EREPLAY_VERSION), a
 * buffer shorter than its header or records (-COMPSC_EREPLAY_TRUNCATED), a
 * checksum mismatch (-COMPSC_EREPLAY_CORRUPT), a record longer than
 * COMPSC_REPLAY_DATA_MAX (-COMPSC_EREPLAY_LEN), bytes after the last
 * record (-COMPSC_EREPLAY_TRAILING), a key twice
 * (-COMPSC_EREPLAY_DUPLICATE), more records than @l holds
 * (-COMPSC_ENOSPC) or an open opset (-COMPSC_ESTATE). All or nothing: on
 * any error @l is unchanged. Sequence numbers restart at 1 in replay order.
 */
int compsc_replay_unpack(struct compsc_replay *l, const void *buf, u32 len);
/*
 * compsc_replay_pack_count() - the records the packed log in @buf says it
 * holds, once its magic and version are judged and its bytes could hold
 * that many (-COMPSC_EREPLAY_TRUNCATED otherwise): what to size a log and
 * a key scratch by before unpacking. Nothing else is judged.
 */
int compsc_replay_pack_count(const void *buf, u32 len);
/*
 * compsc_replay_unpack_keys() - compsc_replay_unpack() with the caller's
 * scratch for the key check: with @nkeys at least the count, @keys is
 * sorted and the check is n log n; else it compares every pair, n^2,
 * which the capacity of an area's log (at most 511 records) keeps cheap.
 * @bad (may be NULL) gets the refused record, or COMPSC_REPLAY_NO_REC.
 */
int compsc_replay_unpack_keys(struct compsc_replay *l, const void *buf,
			      u32 len, u64 *keys, u32 nkeys, u32 *bad);

/* ------------------------------------------------------------------ */
/* Counters (self-emulation)                                           */
/* ------------------------------------------------------------------ */

/* igbvf's last/base pattern, extended across migrations. */
struct compsc_counter {
	u64 total;	/* 64-bit count since init, exact across migrations */
	u32 last;	/* last raw hardware value seen (RO kind) */
	u8 kind;	/* COMPSC_REG_COUNTER_RO or _RC */
	u8 rsvd[3];
};

/** compsc_counter_init() - start counting from raw value @hw_now. */
int compsc_counter_init(struct compsc_counter *c, u8 kind, u32 hw_now);
/** compsc_counter_update() - fold raw value @hw in (wraps at 2^32); returns total. */
u64 compsc_counter_update(struct compsc_counter *c, u32 hw);
/*
 * compsc_counter_rebase() - after a migration: absorb the source's final raw
 * value @hw_final, then continue from the destination's raw value @hw_now.
 */
u64 compsc_counter_rebase(struct compsc_counter *c, u32 hw_final, u32 hw_now);

/* ------------------------------------------------------------------ */
/* DMA-dirtied pages                                                   */
/* ------------------------------------------------------------------ */

/* The dirty log's granule: 4 KiB, the smallest page any host tracks. */
#define COMPSC_DIRTY_PAGE	4096ul

/*
 * compsc_mark_dirty() - make a hypervisor's dirty log see the @len bytes
 * at @addr a device wrote: DMA bypasses the CPU's page tables, so the
 * host's log misses them. Writing one byte back with its own value
 * changes nothing but dirties the page; a buffer may straddle pages, so
 * every page of the range gets its byte. Returns the pages marked. The
 * caller owns the buffer (the device is done with it).
 */
static inline u32 compsc_mark_dirty(void *addr, u32 len)
{
	u8 *b = (u8 *)addr, *end = b + len;
	u32 pages = 0;

	for (; b < end; pages++) {
		WRITE_ONCE(*b, READ_ONCE(*b));
		b = (u8 *)(((unsigned long)b + COMPSC_DIRTY_PAGE) &
			   ~(COMPSC_DIRTY_PAGE - 1));
	}
	return pages;
}

/* ------------------------------------------------------------------ */
/* Ring shifting                                                       */
/* ------------------------------------------------------------------ */

/*
 * The driver keeps its own (software) ring indices; after a migration the
 * hardware head restarts at 0, so the ring is rotated and the offset between
 * the two index spaces remembered: hw = (sw - offset) mod size.
 */
struct compsc_ring {
	u32 size;	/* descriptors, any size the hardware allows */
	u32 offset;	/* total rotation so far, < size */
};

/** compsc_ring_init() - identity mapping for a ring of @size entries. */
int compsc_ring_init(struct compsc_ring *r, u32 size);

/** compsc_ring_hw() - hardware index for software index @sw. */
static inline u32 compsc_ring_hw(const struct compsc_ring *r, u32 sw)
{
	u32 i = sw % r->size;

	return i >= r->offset ? i - r->offset : i + r->size - r->offset;
}

/** compsc_ring_sw() - software index for hardware index @hw. */
static inline u32 compsc_ring_sw(const struct compsc_ring *r, u32 hw)
{
	u32 i = (hw % r->size) + r->offset;

	return i >= r->size ? i - r->size : i;
}

/** compsc_ring_shift() - hardware slot @hw_head becomes slot 0; compose the offset. */
int compsc_ring_shift(struct compsc_ring *r, u32 hw_head);
/** compsc_ring_rotate() - rotate @count elements of @elem bytes left by @by, in place. */
int compsc_ring_rotate(void *base, u32 elem, u32 count, u32 by);
/*
 * compsc_ring_stale() - receive descriptors a restore must drop, unread,
 * when guest memory moved (COMPSC_F_MEM_COPIED): those from @ntc, the next
 * the driver would clean, up to the old device's saved @head. @limit is
 * the furthest the device may have got (what the driver posted); a @head
 * past it, or any index not below @count: -COMPSC_EINVAL.
 */
int compsc_ring_stale(u32 ntc, u32 head, u32 limit, u32 count);

/* ------------------------------------------------------------------ */
/* Migration stream                                                    */
/* ------------------------------------------------------------------ */

struct compsc_ident {
	u16 vendor;
	u16 device;
	u16 subsys_vendor;
	u16 subsys_device;
};

struct compsc_stream_writer {
	u8 *buf;
	u32 cap;
	u32 len;
	int err;	/* sticky: first error, reported by _end() */
};

/** compsc_stream_begin() - start a stream for device @id in @buf. */
int compsc_stream_begin(struct compsc_stream_writer *w, void *buf, u32 cap,
			const struct compsc_ident *id);
/** compsc_stream_add() - append one record (COMPSC_REC_F_* @flags). */
int compsc_stream_add(struct compsc_stream_writer *w, u16 type, u16 flags,
		      const void *payload, u32 len);
/** compsc_stream_end() - append the END record; returns total length or error. */
int compsc_stream_end(struct compsc_stream_writer *w);

struct compsc_stream_rec {
	const u8 *data;	/* NULL when the record is absent */
	u32 len;
	u16 flags;
};

/* What a parse found. Pointers point into the caller's buffer. */
struct compsc_stream_view {
	struct compsc_ident ident;
	u16 major;
	u16 minor;
	u32 total_len;
	struct compsc_stream_rec rec[COMPSC_REC_NR_KNOWN];
	u32 nr_unknown;		/* optional unknown records skipped */
	u32 err_offset;		/* byte offset where parsing failed */
};

/*
 * compsc_stream_parse() - strictly parse @len bytes. @expect (may be NULL)
 * is the destination device; @max_len bounds the whole stream. Trusts
 * nothing: every refusal has its own code; v->err_offset says where.
 */
int compsc_stream_parse(const void *buf, u32 len,
			const struct compsc_ident *expect, u32 max_len,
			struct compsc_stream_view *v);
/*
 * compsc_pf_vf_check() - the parser's rules for one PF_VF record (flags,
 * counts, VLAN ids, QoS, link state), for a PF driver handed a state by
 * glue: 0 or -COMPSC_EMALFORMED.
 */
int compsc_pf_vf_check(const struct compsc_pf_vf_state *s);
/*
 * compsc_pf_vf_pack() - @s as a PF_VF record at @out (NULL: only its
 * length; else room for sizeof(*s) suffices): its length, or
 * -COMPSC_EMALFORMED for a state compsc_pf_vf_check() refuses.
 */
int compsc_pf_vf_pack(const struct compsc_pf_vf_state *s, void *out);
/*
 * compsc_pf_vf_unpack() - the PF_VF record of @len bytes at @rec into @s
 * (the arrays zero beyond their counts): 0, or -COMPSC_EMALFORMED when the
 * counts are over their bounds or do not size the record (@s then zero).
 */
int compsc_pf_vf_unpack(const void *rec, u32 len,
			struct compsc_pf_vf_state *s);
/*
 * compsc_rec_reg_put() - one REGS entry at @out (COMPSC_REC_REG_MAX bytes
 * of room): descriptor @r, then @value in r->width bytes. Returns the
 * entry's length, 12 or 16 (0: a width other than 4 or 8).
 */
u32 compsc_rec_reg_put(void *out, const struct compsc_rec_reg *r, u64 value);
/*
 * compsc_rec_reg_get() - the REGS entry at byte @off of the @len-byte
 * record @rec: its descriptor into @r, its value into @value. Returns the
 * offset of the next entry (@len after the last), or 0 when no whole entry
 * of width 4 or 8 starts at @off.
 */
u32 compsc_rec_reg_get(const void *rec, u32 len, u32 off,
		       struct compsc_rec_reg *r, u64 *value);

/*
 * A PF_VF_EXT record at its largest, aligned: what a PF driver fills on
 * export and reads on import (the record's bytes, zero beyond them).
 */
struct compsc_pf_vf_xstate {
	struct compsc_pf_vf_ext ext;
	struct compsc_pf_vf_mac macs[COMPSC_PF_EXT_MAX_MACS];
};

/** compsc_pf_vf_xlen() - the bytes of @x's record (its header and nr_macs entries). */
static inline u32 compsc_pf_vf_xlen(const struct compsc_pf_vf_xstate *x)
{
	return (u32)sizeof(x->ext) +
	       le16_to_cpu(x->ext.nr_macs) * (u32)sizeof(x->macs[0]);
}

/*
 * compsc_pf_vf_ext_check() - the parser's rules for one PF_VF_EXT record
 * of @len bytes: 0, -COMPSC_EOVERSIZE (more than COMPSC_PF_EXT_MAX_BYTES)
 * or -COMPSC_EMALFORMED (a size that is not 16 + 8 * nr_macs, unknown
 * flags, reserved bytes, a MAC filter that is not a unicast address).
 */
int compsc_pf_vf_ext_check(const void *rec, u32 len);
/** compsc_crc32c() - CRC32C (Castagnoli) of @len bytes, chained via @crc (start with 0). */
u32 compsc_crc32c(u32 crc, const void *buf, u32 len);

/* ------------------------------------------------------------------ */
/* Host-side validation of a guest area                                */
/* ------------------------------------------------------------------ */

#define COMPSC_WIDTH_4		(1u << 0)
#define COMPSC_WIDTH_8		(1u << 1)
#define COMPSC_KIND_BIT(k)	(1u << (k))

/* One window of registers the host allows the guest to list. */
struct compsc_allow {
	u32 start;	/* byte offset inside the BAR */
	u32 end;	/* exclusive */
	u8 bar;
	u8 width_mask;	/* COMPSC_WIDTH_* */
	u8 kind_mask;	/* COMPSC_KIND_BIT(COMPSC_REG_*) */
	u8 rsvd;
};

struct compsc_policy {
	u32 bar_size[COMPSC_NR_BARS];	/* 0 = no such BAR */
	const struct compsc_allow *allow;
	u32 nr_allow;
	u32 max_regs;
	u32 max_counters;
};

/** compsc_area_check() - validate an area's header and layout (@len = bytes mapped). */
int compsc_area_check(const void *area, u32 len);
/*
 * compsc_area_snapshot_regs() - copy the guest's register list into @out
 * (host memory) and validate the copy against @p, so the guest cannot change
 * it after the check. Returns the entry count; on error @bad gets the index.
 */
int compsc_area_snapshot_regs(const void *area, u32 len,
			      const struct compsc_policy *p,
			      struct compsc_reg *out, u32 cap, u32 *bad);
/** compsc_area_snapshot_counters() - the same for the counter list. */
int compsc_area_snapshot_counters(const void *area, u32 len,
				  const struct compsc_policy *p,
				  struct compsc_counter_desc *out, u32 cap,
				  u32 *bad);
/*
 * compsc_area_snapshot_replay() - copy the area's replay log (replay_len
 * bytes at replay_off, bounds judged with the header) into @out (host
 * memory, @cap bytes, 4-byte aligned) and judge the copy as a host takes
 * it: 0 for a blank log (compsc_replay_blank()), else
 * compsc_replay_check(). Returns the records in use or -COMPSC_E*
 * (-COMPSC_ENOSPC: @cap is short of replay_len); @bad gets the refused
 * record, or COMPSC_REPLAY_NO_REC.
 */
int compsc_area_snapshot_replay(const void *area, u32 len, void *out, u32 cap,
				u32 *bad);

/* ------------------------------------------------------------------ */
/* Self-test (runs in the kernel module and in the unit tests)         */
/* ------------------------------------------------------------------ */

/** compsc_selftest() - run the library's checks; report into @buf; returns failures. */
int compsc_selftest(char *buf, unsigned long len);

#endif /* COMPSC_COMPSC_H */
