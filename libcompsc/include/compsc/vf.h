/* SPDX-License-Identifier: GPL-2.0 */
/*
 * compsc/vf.h - the guest VF driver helper (kernel only).
 *
 * Everything a VF driver needs for CompSC that does not depend on the NIC:
 * the shared area's life cycle, the read side with its retry task, opsets
 * and the replay log, the restore skeleton (PF side by the host or by a
 * replay, ring shifting, self-emulated counters), dirty marking and the
 * ethtool view. The driver fills a struct compsc_vf_ops with what only it
 * knows (its mailbox, its queue and interrupt registers) and a struct
 * compsc_vf_desc with what the host must save for it.
 *
 * The helper is linked into the driver module (libcompsc/sources.mk,
 * COMPSC_VF_SRCS): a patched driver needs no other module, and with no
 * CompSC host (compsc_vf_probe() failed, the driver keeps a NULL pointer)
 * every call below is a no-op and the driver runs exactly as stock.
 *
 * Contexts: compsc_vf_tryenter()/_exit() from any context (they pin the
 * CPU in between); compsc_vf_enter()/_leave() from process context only.
 * Calls that take no vf pointer check for NULL themselves.
 *
 * RTNL: nothing waits for the host while holding it (the guest's own
 * task needs it to resume after a restore, a host's PF may need it while
 * it holds the device). The task waits without it and then only tries
 * it; ethtool entries do not wait; MTU, MAC and VLAN filter changes, open
 * and close are deferred to the task (compsc_vf_enter_cfg(),
 * compsc_vf_enter_open(), compsc_vf_enter_close()). A deferred open leaves
 * the driver down and a deferred close leaves it up while the stack says
 * otherwise, so until the task catches up every path that goes by
 * netif_running() must not act: RTNL configuration defers too, ethtool
 * gets -EBUSY, and paths without RTNL (suspend, PCI error, remove) call
 * compsc_vf_settle() first. Only a close while the netdev is unregistered
 * (and after compsc_vf_settle(vf, true)) still waits.
 */
#ifndef COMPSC_VF_H
#define COMPSC_VF_H

#include <linux/align.h>
#include <linux/atomic.h>
#include <linux/if_vlan.h>
#include <linux/netdevice.h>
#include <linux/spinlock.h>
#include <linux/workqueue.h>
#include <compsc/compsc.h>
#include <compsc/mbx.h>

struct compsc_vf;

/* Longest mailbox message recorded (Intel VF mailboxes: 16 words) */
#define COMPSC_VF_MBX_WORDS	16
/* Longest opcode-and-buffer message recorded (virtchnl: one AQ buffer) */
#define COMPSC_VF_MSG_MAX	4096
/* compsc_vf_ops.msg_key(): the message removes what its key recorded */
#define COMPSC_VF_KEY_DEL	COMPSC_MBX_KEY_DEL

/* How long process-context paths wait for the host to hand the device back */
#define COMPSC_VF_WAIT_MS	5000

/**
 * struct compsc_vf_ring - one descriptor ring, as the restore rotates it
 * @desc: descriptor array
 * @desc_size: bytes per descriptor
 * @bufs: the driver's per-descriptor buffer array (rotated with @desc)
 * @buf_size: bytes per @bufs element
 * @count: descriptors in the ring
 * @next_to_use: the driver's producer index
 * @next_to_clean: the driver's consumer index
 * @watch_off: offset in each @bufs element of a pointer into @desc that
 *	must follow the rotation (TX next_to_watch), or -1
 * @head: index, in compsc_vf_desc.regs, of the ring's head register
 */
struct compsc_vf_ring {
	void *desc;
	u32 desc_size;
	void *bufs;
	u32 buf_size;
	u32 count;
	u16 *next_to_use;
	u16 *next_to_clean;
	int watch_off;
	u32 head;
};

/* Most rings a driver hands the restore */
#define COMPSC_VF_MAX_RINGS	16

/*
 * COMPSC_VF_RING() - describe a driver ring whose members are called
 * count, next_to_use and next_to_clean (igbvf, ixgbevf, iavf all are);
 * @d and @b name its descriptor and buffer arrays.
 */
#define COMPSC_VF_RING(ring, d, dsize, b, watch, h) \
	((struct compsc_vf_ring){ \
		.desc = (ring)->d, .desc_size = (dsize), .bufs = (ring)->b, \
		.buf_size = sizeof(*(ring)->b), .count = (ring)->count, \
		.next_to_use = &(ring)->next_to_use, \
		.next_to_clean = &(ring)->next_to_clean, \
		.watch_off = (watch), .head = (h) })

/**
 * struct compsc_vf_ctr - a statistics register the driver self-emulates
 * @reg: register offset in BAR0
 * @report: byte offset of the driver's u64 total in the report struct
 */
struct compsc_vf_ctr {
	u32 reg;
	u32 report;
};

/**
 * struct compsc_vf_desc - what the host saves and carries for the driver
 * @regs: registers the host saves at the take (ring heads: read-only, and
 *	restarting at 0 on a fresh VF); the restore finds entry i at index i
 * @nr_regs: entries in @regs
 * @ctrs: read-only counters carried across migrations
 * @nr_ctrs: entries in @ctrs
 * @replay_recs: most records the replay log holds, bounded by what the PF
 *	keeps for a VF (its size never grows with uptime)
 * @restore_atomic: the ops' @restore_queues and @rearm_irqs never sleep,
 *	so a restore the host left no message for runs at once in whatever
 *	context finds it (interrupt, NAPI, transmit) instead of in the task
 * @rx_rings: the first @rx_rings rings that @get_rings fills receive
 *	(the ones whose buffers the device writes); needed with @rx_drop
 * @rx_tail_behind: a receive ring's tail register trails next_to_use by
 *	this many (igbvf: 1, it writes the last posted index), so the old
 *	device's saved head can be checked against what it was given
 */
struct compsc_vf_desc {
	const u32 *regs;
	u32 nr_regs;
	const struct compsc_vf_ctr *ctrs;
	u32 nr_ctrs;
	u32 replay_recs;
	bool restore_atomic;
	u32 rx_rings;
	u32 rx_tail_behind;
};

/**
 * struct compsc_vf_ops - what only the driver knows
 * @send: send one mailbox message (@len bytes) and read the PF's answer,
 *	not recording it; 0 when acknowledged, -EOPNOTSUPP when refused,
 *	-EIO when the mailbox failed
 * @announce: optional, tell the PF where the area is (0, 0 withdraws it);
 *	without it the helper sends compsc/mbx.h's COMPSC_MBX_AREA message
 * @reset_pf: after a migration the host did not configure: the stock VF
 *	reset handshake with the new PF
 * @msg_key: replay log key of a mailbox message the PF keeps as VF state
 *	(0: not kept; | COMPSC_VF_KEY_DEL: it undoes the key); may shorten
 *	@len to the bytes the PF reads (see compsc_vf_mbx_sent())
 * @msg_log: optional, for opcode-and-buffer channels (virtchnl): apply a
 *	message the PF accepted to the log (sets, last write per key), under
 *	the log lock; returns 0 or a negative COMPSC_E* code
 * @replay: optional, with @msg_log: build in @buf the message log record
 *	@i stands for (virtchnl: the members of a set that goes out as one
 *	message), which the helper sends through @send; returns its bytes,
 *	0 when there is nothing to send, or a negative COMPSC_E* code.
 *	Without it each record's data goes through @send as it is
 * @get_rings: fill up to COMPSC_VF_MAX_RINGS rings; 0 when the queues are
 *	not configured (interface down), no ring is then touched. A device
 *	with no head register in its BAR (virtchnl: the heads live in the PF)
 *	lists no registers: its rings cannot be shifted, and the restore
 *	resets it the driver's own way
 * @restore_queues: program the queues from driver memory with every head
 *	at 0 and every tail at the rotated producer index
 * @rearm_irqs: unmask and raise every interrupt so the handlers catch up;
 *	@route also reprograms interrupt routing (a fresh device)
 * @rx_drop: rewrite receive descriptor @desc, which the old device owned
 *	(whatever it wrote there, or did not), into a completed frame of its
 *	own that the clean path drops and whose buffer it reposts. Called
 *	when guest memory moved (COMPSC_F_MEM_COPIED) for each descriptor
 *	between the driver's next_to_clean and the old device's head: their
 *	buffers may hold a stale copy. Without it such a restore resets the
 *	device the driver's own way (which also drops them)
 *
 * When the saved state cannot be used the helper resets the device the
 * driver's own way, through ndo_tx_timeout.
 */
struct compsc_vf_ops {
	int (*send)(struct compsc_vf *vf, const void *msg, u32 len);
	int (*announce)(struct compsc_vf *vf, u64 addr, u32 size);
	int (*reset_pf)(struct compsc_vf *vf);
	u32 (*msg_key)(struct compsc_vf *vf, const u32 *msg, u32 *len);
	int (*msg_log)(struct compsc_replay *log, u32 op, const void *msg,
		       u32 len);
	int (*replay)(const struct compsc_replay *log, u32 i, u8 *buf,
		      u32 cap);
	u32 (*get_rings)(struct compsc_vf *vf, struct compsc_vf_ring *rings);
	void (*restore_queues)(struct compsc_vf *vf);
	void (*rearm_irqs)(struct compsc_vf *vf, bool route);
	void (*rx_drop)(struct compsc_vf *vf, void *desc);
};

/* compsc_vf.flags */
enum {
	COMPSC_VF_RX_MODE_PENDING,	/* ndo_set_rx_mode found the host busy */
	COMPSC_VF_STOPPING,		/* remove: the task must not rearm */
	COMPSC_VF_MSG_PENDING,		/* @msg awaits the PF's answer */
	COMPSC_VF_TL_RESUME,		/* restored: time the restart of TX, NAPI */
	COMPSC_VF_TL_XMIT,		/* restored: time the first transmit */
	COMPSC_VF_TL_RX,		/* restored: time the first receive poll with work */
	COMPSC_VF_NO_DEFER,		/* removing: open and close wait again */
	COMPSC_VF_ANNOUNCE,		/* restored: the task announces the netdev */
};

/* compsc_vf_enter_cfg(): what an RTNL path changes; compsc_vf.cfg bits */
enum {
	COMPSC_VF_CFG_MTU,		/* @arg: the new MTU (int) */
	COMPSC_VF_CFG_MAC,		/* @arg: the new address (ETH_ALEN bytes) */
	COMPSC_VF_CFG_VLAN_ADD,		/* @arg: the VLAN id (u16), 802.1Q */
	COMPSC_VF_CFG_VLAN_KILL,	/* (compsc_vf.cfg: any VLAN is ADD) */
	COMPSC_VF_CFG_OPEN,		/* compsc_vf.cfg only: the driver is down */
	COMPSC_VF_CFG_CLOSE,		/* compsc_vf.cfg only: the driver is up */
};

/**
 * struct compsc_vf - CompSC state of one VF (only once the PF acknowledged)
 * @priv: the driver's private pointer (its adapter)
 * @netdev: the interface the retry task restarts
 * @dev: for messages
 * @bar: the VF's register BAR (counters are read from it)
 * @desc: what the host saves for us
 * @ops: what only the driver knows
 * @area: the shared area, guest pages the host reads and writes
 * @area_dma: its DMA address, what the host is told (the IOVA it reaches)
 * @order: page order of @area
 * @size: bytes of @area announced to the host
 * @reader: the read side; every device access happens inside it
 * @env: how process-context entries wait
 * @task: retries after a path found the host holding the device, then
 *	runs the restore and restarts transmit, NAPI and interrupts
 * @log_lock: protects @log and @msg (recorded from the mailbox paths, any
 *	context)
 * @log: the PF configuration to replay, last write per key wins
 * @stage: staging buffer of @log's opsets
 * @report: the driver's statistics struct the counter totals go to
 * @flags: COMPSC_VF_* bits, atomic bitops
 * @busy: entries that found the host holding the device
 * @dirty_pages: pages marked dirty (RX path, one NAPI context at a time)
 * @restores: migrations the device was restored after
 * @host_restores: restores whose PF side the host had configured
 * @replay_nacks: replayed messages the new PF refused
 * @resets: the driver's own resets (a migration must not cause one)
 * @state_lost: hand-overs without state (a destination whose give failed,
 *	or a hold the guest gave up on): each one resets the driver
 * @announces: restores after which the netdev was announced to the wire
 *	(__netdev_notify_peers(), by the task)
 * @hold: what the waiting paths saw of the host's hold at their last look
 *	(compsc_reader_hold_bound(), bounded by @hold_max_ms)
 * @hold_max_ms: that bound, COMPSC_HOLD_MAX_MS unless a test shortened it
 *	(debugfs)
 * The test hooks, only with COMPSC_FAULTS (kernel/fault.h):
 * @stall_ms: test hook (debugfs): the next process-context entry without
 *	RTNL held stays inside the read side this long; xchg, no lock
 * @rx_stall_ms: test hook (debugfs): a receive poll that reads the
 *	dirty-log flag clear stays this long between that read and its
 *	buffers, until one reads it set (compsc_vf_rx_stall())
 * @rx_stall_raced: such polls that found the flag set after their stall
 * @rx_stall_hold_ms: test hook (debugfs): such a poll stays this long
 *	more before its buffers (compsc_vf_rx_stall())
 * @assert_held: compsc_vf_assert_held() warns (debugfs)
 * @debugfs: this device's debugfs directory
 * @rx_dropped: receive descriptors dropped by restores because guest
 *	memory moved after the old device wrote them (see @rx_drop)
 * @cfg: COMPSC_VF_CFG_* changes the task applies (RTNL)
 * @mac_applied: the address before a deferred change, restored if the PF
 *	refuses the new one
 * @vlan_want: VLAN filters as 8021q last asked for them (RTNL)
 * @vlan_pending: VLAN filters the task sets to @vlan_want (RTNL)
 * @cfg_deferred: MTU, address and VLAN changes that found the host
 *	holding the device and were applied by the task (RTNL paths never wait)
 * @rx_shifted: descriptors ring 0 was rotated by, over all restores
 * @tx_shifted: the same for ring 1
 * @restore_msgs: mailbox messages the last restore sent
 * @restored_at: ktime (ns) the last restore ended
 * @restore_us: how long the last restore took (guest clock)
 * @resume_us: from its end until transmit and NAPI were restarted (by
 *	the context that restored in place, or by the task; 0 if neither ran)
 * @first_xmit_us: from its end until a packet first entered transmit
 * @first_rx_us: from its end until a NAPI poll first found work
 * @mbx_msg: the message sent last, until the PF's answer (mailbox lock)
 * @mbx_len: its length in bytes, 0 when answered
 * @msg: opcode-and-buffer channels: the message sent last (ops->msg_log)
 * @msg_op: its opcode
 * @msg_len: its length in bytes
 * @ctr: the counters, extended to 64 bits, exact across migrations;
 *	one context at a time (the driver's stats path)
 */
struct compsc_vf {
	void *priv;
	struct net_device *netdev;
	struct device *dev;
	u8 __iomem *bar;
	const struct compsc_vf_desc *desc;
	const struct compsc_vf_ops *ops;
	struct compsc_area_hdr *area;
	dma_addr_t area_dma;
	unsigned int order;
	u32 size;
	struct compsc_reader reader;
	struct compsc_env env;
	struct delayed_work task;
	spinlock_t log_lock;	/* protects log */
	struct compsc_replay log;
	struct compsc_replay_rec *stage;
	void *report;
	unsigned long flags;
	atomic64_t busy;
	u64 dirty_pages;
	u64 restores;
	u64 host_restores;
	u64 replay_nacks;
	u64 resets;
	u64 state_lost;
	u64 announces;
	struct compsc_hold_watch hold;
	u32 hold_max_ms;
#ifdef COMPSC_FAULTS
	u32 stall_ms;
	u32 rx_stall_ms;
	u32 rx_stall_raced;
	u32 rx_stall_hold_ms;
	bool assert_held;
	struct dentry *debugfs;
#endif
	u64 rx_dropped;
	unsigned long cfg;
	u8 mac_applied[ETH_ALEN];
	DECLARE_BITMAP(vlan_want, VLAN_N_VID);
	DECLARE_BITMAP(vlan_pending, VLAN_N_VID);
	u64 cfg_deferred;
	u64 rx_shifted;
	u64 tx_shifted;
	u32 restore_msgs;
	u64 restored_at;
	u32 restore_us;
	u32 resume_us;
	u32 first_xmit_us;
	u32 first_rx_us;
	u32 mbx_msg[COMPSC_VF_MBX_WORDS];
	u32 mbx_len;
	void *msg;
	u32 msg_op;
	u32 msg_len;
	struct compsc_counter ctr[];
};

/**
 * compsc_vf_probe() - lay out an area, offer it to the PF, keep it if acked
 * @netdev: the VF's interface (not yet registered)
 * @priv: the driver's private pointer, compsc_vf_priv() returns it
 * @bar: the VF's mapped register BAR
 * @desc: registers and counters the host saves, replay log size
 * @ops: the driver's operations
 * @report: where counter totals are written (struct of u64 at ctr->report)
 *
 * Must run after the VF reset handshake. Returns the state or ERR_PTR;
 * on error the driver keeps NULL and runs stock (the reason is logged).
 */
struct compsc_vf *compsc_vf_probe(struct net_device *netdev, void *priv,
				  void __iomem *bar,
				  const struct compsc_vf_desc *desc,
				  const struct compsc_vf_ops *ops, void *report);
/** compsc_vf_remove() - withdraw the area and free it (leaked if the PF did not confirm). */
void compsc_vf_remove(struct compsc_vf *vf);

static inline void *compsc_vf_priv(struct compsc_vf *vf)
{
	return vf->priv;
}

/*
 * compsc_vf_of() - the CompSC state of an interface, NULL when stock. The
 * helper is a mid-layer of the driver and keeps it in netdev->ml_priv,
 * which no Intel VF driver uses.
 */
static inline struct compsc_vf *compsc_vf_of(struct net_device *netdev)
{
	return netdev->ml_priv;
}

/* ---------------------------------------------------------------- read side */

#ifdef COMPSC_FAULTS
/**
 * compsc_vf_assert_held() - with debugfs compsc_assert_held set, warn on
 * device access while no reader of the device is inside the read side.
 * A test hook: empty without COMPSC_FAULTS (kernel/fault.h).
 */
void compsc_vf_assert_held(struct compsc_vf *vf);
#else
static inline void compsc_vf_assert_held(struct compsc_vf *vf __always_unused) {}
#endif

bool __compsc_vf_tryenter_slow(struct compsc_vf *vf, int ret);

/**
 * compsc_vf_tryenter() - enter the read side without waiting (any context)
 * @vf: CompSC state, NULL in stock mode
 *
 * True when the caller may touch the device, until compsc_vf_exit(); the
 * CPU is pinned in between. False when the host holds it or a restore is
 * pending: the retry task has been kicked to restart the driver's work.
 */
static inline bool compsc_vf_tryenter(struct compsc_vf *vf)
{
	int ret;

	if (likely(!vf))
		return true;
	preempt_disable();
	ret = compsc_read_tryenter(&vf->reader, smp_processor_id());
	if (unlikely(ret))
		return __compsc_vf_tryenter_slow(vf, ret);
	return true;
}

static inline void compsc_vf_exit(struct compsc_vf *vf)
{
	if (likely(!vf))
		return;
	compsc_read_exit(&vf->reader, smp_processor_id());
	preempt_enable();
}

/**
 * compsc_vf_enter() - enter from process context, waiting for the host
 * @vf: CompSC state, NULL in stock mode
 * @timeout_ms: how long to wait (0: do not wait)
 *
 * Runs the restore if this is the first entry after a migration. Returns
 * 0 inside (always in stock mode) or -EBUSY (and kicks the retry task).
 */
int compsc_vf_enter(struct compsc_vf *vf, unsigned int timeout_ms);
void compsc_vf_leave(struct compsc_vf *vf);
/** compsc_vf_enter_wait() - enter for a path that cannot fail (close, suspend). */
void compsc_vf_enter_wait(struct compsc_vf *vf);
/** compsc_vf_enter_reset() - compsc_vf_enter_wait() for the driver's own reset (counted). */
void compsc_vf_enter_reset(struct compsc_vf *vf);
/**
 * compsc_vf_enter_cfg() - compsc_vf_enter() for a configuration ndo (RTNL)
 * @vf: CompSC state, NULL in stock mode
 * @what: COMPSC_VF_CFG_MTU (ndo_change_mtu), _MAC (ndo_set_mac_address),
 *	_VLAN_ADD or _VLAN_KILL (ndo_vlan_rx_add_vid/kill_vid)
 * @arg: the new value, as the enum says
 *
 * Never waits for the host: RTNL is held. Returns 0 inside the read side
 * (apply it, then compsc_vf_leave()), or 1 when the host holds the
 * device: the ndo returns 0. The stack's view has changed (the helper set
 * the MTU or address; 8021q keeps its VLAN list), and the retry task calls
 * the ndo again under RTNL, with the stack's latest value, once the device
 * is back. An address the PF then refuses is put back through the stack.
 */
int compsc_vf_enter_cfg(struct compsc_vf *vf, int what, const void *arg);
/**
 * compsc_vf_enter_open() - compsc_vf_enter() for ndo_open (RTNL held)
 * @vf: CompSC state, NULL in stock mode
 *
 * Returns 0 inside the read side (open, then compsc_vf_leave()), 1 when
 * the open is left to the task (the host holds the device) or was never
 * undone (a deferred close left the driver up): ndo_open returns 0; or
 * -EBUSY (open returns it) if the host held the device COMPSC_VF_WAIT_MS
 * after compsc_vf_settle(vf, true).
 */
int compsc_vf_enter_open(struct compsc_vf *vf);
/**
 * compsc_vf_enter_close() - compsc_vf_enter() for ndo_stop (RTNL held)
 * @vf: CompSC state, NULL in stock mode
 *
 * Returns 0 inside the read side (close, then compsc_vf_leave()), or 1:
 * ndo_stop returns 0 at once, the driver staying as it is (up while the
 * host holds the device: the task calls ndo_stop again once it is back;
 * down if the open was deferred and never ran). Waits while the netdev
 * is unregistered or after compsc_vf_settle(vf, true).
 */
int compsc_vf_enter_close(struct compsc_vf *vf);
/**
 * compsc_vf_settle() - run a deferred open or close now (takes RTNL)
 * @vf: CompSC state, NULL in stock mode
 * @for_good: from remove: open and close wait for the host from now on
 *
 * For paths without RTNL that go by netif_running(): suspend, PCI error
 * recovery, remove (before unregister_netdev()). Waits for the host.
 */
void compsc_vf_settle(struct compsc_vf *vf, bool for_good);
/** compsc_vf_kick() - run the retry task (restore while down, restart). */
void compsc_vf_kick(struct compsc_vf *vf);
/**
 * compsc_vf_run() - run a work function inside the read side
 * @vf: CompSC state, NULL in stock mode
 * @timeout_ms: how long to wait for the host (0: do not wait)
 * @fn: the driver's work function, called with @work
 * @work: its work item
 *
 * For drivers whose device work happens in work items with many exits
 * (virtchnl's watchdog, admin queue and reset tasks). Returns 0 when @fn
 * ran, -EBUSY when the host held the device (the driver requeues).
 */
int compsc_vf_run(struct compsc_vf *vf, unsigned int timeout_ms,
		  void (*fn)(struct work_struct *work), struct work_struct *work);
/**
 * compsc_vf_napi_poll() - run a NAPI poll function inside the read side
 * @napi: the NAPI context (its device's CompSC state is used)
 * @budget: as for any poll
 * @poll: the driver's poll function
 *
 * While the host holds the device NAPI completes with no work done, and
 * the retry task schedules it again once the device is back.
 */
int compsc_vf_napi_poll(struct napi_struct *napi, int budget,
			int (*poll)(struct napi_struct *napi, int budget));

/**
 * compsc_vf_tryenter_rx_mode() - compsc_vf_tryenter() for ndo_set_rx_mode
 *
 * On false the address lists are applied by the retry task once the
 * device is back.
 */
bool compsc_vf_tryenter_rx_mode(struct compsc_vf *vf);
/**
 * compsc_vf_tryenter_xmit() - compsc_vf_tryenter() for ndo_start_xmit
 *
 * On false the queue is stopped (return NETDEV_TX_BUSY: the stack keeps
 * the packet) and woken once the device is back.
 */
bool compsc_vf_tryenter_xmit(struct compsc_vf *vf);

/**
 * compsc_vf_ethtool_begin() - ethtool_ops.begin: every ethtool op inside
 * the read side; -EBUSY at once while the host holds the device or an
 * open or close is left to the task.
 */
int compsc_vf_ethtool_begin(struct net_device *netdev);
void compsc_vf_ethtool_complete(struct net_device *netdev);

/* ---------------------------------------------------------------- replay log */

/** compsc_vf_record() - keep a message the PF accepted (last write per @key wins). */
void compsc_vf_record(struct compsc_vf *vf, u32 key, const void *msg, u32 len);
/** compsc_vf_forget() - drop @key: what was undone must not come back. */
void compsc_vf_forget(struct compsc_vf *vf, u32 key);
/*
 * Recording from an Intel VF mailbox (igbvf, ixgbevf): the driver wraps
 * its posted write and read, under its mailbox lock. The message type is
 * in bits 15:0 and the PF answers with that type | ACK (bit 31) or NACK
 * (bit 30). Only what the PF acknowledged is its state, so only that is
 * kept: a MAC refused under an administrator's MAC is never replayed.
 */
void compsc_vf_mbx_sent(struct compsc_vf *vf, const u32 *msg, u16 words);
/** compsc_vf_mbx_answered() - the PF's answer (NULL: none); records the message if acked. */
void compsc_vf_mbx_answered(struct compsc_vf *vf, const u32 *reply);

/*
 * Recording from an opcode-and-buffer channel (virtchnl, iavf): the PF
 * answers each message later, with its opcode and a status. The driver
 * reports what it sent and the answer; a message the PF accepted goes to
 * ops->msg_log, which keeps what it set. One message awaits an answer at
 * a time (virtchnl's rule); a new one replaces an unanswered one.
 */
void compsc_vf_msg_sent(struct compsc_vf *vf, u32 op, const void *msg,
			u32 len);
/** compsc_vf_msg_answered() - the PF answered @op; @ok: it accepted it. */
void compsc_vf_msg_answered(struct compsc_vf *vf, u32 op, bool ok);

/** compsc_vf_opset_begin() - records until _commit() enter the log together. */
void compsc_vf_opset_begin(struct compsc_vf *vf);
void compsc_vf_opset_commit(struct compsc_vf *vf);

/* ---------------------------------------------------------------- counters */

/**
 * compsc_vf_stats_update() - fold the counters into their 64-bit totals
 * @vf: CompSC state, NULL in stock mode
 *
 * Writes each total to the report struct (the same value the stock
 * driver's extension of the register would hold, continued across
 * migrations) and publishes it in the area. False in stock mode: the
 * driver then updates its statistics its own way.
 */
bool compsc_vf_stats_update(struct compsc_vf *vf);

/* ---------------------------------------------------------------- dirty pages */

/* A test hook (debugfs compsc_rx_stall_ms), empty without COMPSC_FAULTS */
#ifdef COMPSC_FAULTS
void compsc_vf_rx_stall(struct compsc_vf *vf, bool logging);
#else
static inline void compsc_vf_rx_stall(struct compsc_vf *vf __always_unused,
				      bool logging __always_unused) {}
#endif

/*
 * Is the host logging dirty pages? Then DMA-written pages must be marked.
 * Read once per receive poll, inside the read side: the host's log start
 * waits for the polls that read it before (compsc_host_drain()).
 */
static inline bool compsc_vf_dirty_logging(struct compsc_vf *vf)
{
	bool on;

	if (likely(!vf))
		return false;
	on = le32_to_cpu(READ_ONCE(vf->reader.ctl->flags)) & COMPSC_F_DIRTY_LOG;
	compsc_vf_rx_stall(vf, on);
	return on;
}

/**
 * compsc_vf_mark_dirty() - make the host's dirty log see what the device wrote
 * @vf: CompSC state
 * @addr: first byte the device wrote, owned by the CPU (unmapped or synced)
 * @len: bytes it wrote
 *
 * compsc_mark_dirty() (compsc.h, shared with the userspace helper), counted.
 */
static inline void compsc_vf_mark_dirty(struct compsc_vf *vf, void *addr,
					unsigned int len)
{
	vf->dirty_pages += compsc_mark_dirty(addr, len);
}

/* ---------------------------------------------------------------- ethtool -S */

#define COMPSC_VF_STATS_LEN	18
/** compsc_vf_stats_len() - entries appended to ethtool -S (0 in stock mode). */
static inline int compsc_vf_stats_len(struct compsc_vf *vf)
{
	return vf ? COMPSC_VF_STATS_LEN : 0;
}

void compsc_vf_get_strings(struct compsc_vf *vf, u8 *data);
void compsc_vf_get_stats(struct compsc_vf *vf, u64 *data);

#endif /* COMPSC_VF_H */
