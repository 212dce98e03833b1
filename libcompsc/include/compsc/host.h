/* SPDX-License-Identifier: (GPL-2.0 OR BSD-3-Clause) */
/*
 * compsc/host.h - the host side of a migration, shared by every host glue
 * (the VFIO variant driver, the stand-in) and by the unit tests and
 * fuzz targets, which build it in userspace against a BAR in memory.
 *
 * One migration, whatever moves the stream:
 *
 *   source:      compsc_host_area_check()  (a copy of the header, checked;
 *                                            the lists, checked copies)
 *                compsc_host_take()         (write side, queues stopped)
 *                compsc_host_save()         (registers, counters, replay
 *                                            log, PF and host sections)
 *                compsc_host_giveback()     (failed or cancelled: the guest
 *                                            keeps its device, no bump)
 *                compsc_host_held()         (before each of these: the
 *                                            guest may have taken its
 *                                            device back, and then neither
 *                                            runs)
 *   destination: compsc_host_load()         (strict parse, matched against
 *                                            the destination's area)
 *                compsc_host_give()         (saved values into the area);
 *                the glue then publishes the hand-over and releases the
 *                write side with compsc_writer_release().
 *                compsc_host_give_lost()    (any step above failed: the
 *                                            guest resets and replays)
 *
 * The guest's area is hostile: every function works on a mapping of it
 * (@a->va) whose header and lists were copied and checked
 * (compsc_host_area_check()); nothing else read from it is trusted.
 *
 * Device register knowledge comes from a struct compsc_devmodel, one per
 * VF model (dev_82576vf.c, dev_82599vf.c), which a host finds by the VF's
 * PCI ID (compsc_devmodel_find()); nothing here names a register.
 */
#ifndef COMPSC_HOST_H
#define COMPSC_HOST_H

#include "compsc.h"

/* Most queue-control registers a device model may list (82599 VF: 8 + 8) */
#define COMPSC_HOST_MAX_QCTL	16
/* Most host-emulated statistics registers a device model may list */
#define COMPSC_HOST_MAX_STATS	16
/* Most descriptor rings a device model may list (82599 VF: 8 + 8) */
#define COMPSC_HOST_MAX_RINGS	16
/*
 * VFs of a PF the registry (compsc/kernel.h) holds an area for: at least
 * every model's @pf_max_vfs, or the PF NACKs the area of a VF above it
 * and that VF's driver runs stock. The 82599's 64 pools.
 */
#define COMPSC_PF_MAX_VFS	64

/**
 * struct compsc_devmodel - what a host needs to know about one VF model
 * @name: for messages
 * @vendor: PCI vendor ID of the VF
 * @device: PCI device ID of the VF
 * @bar0_size: bytes of BAR0 the host maps
 * @policy: the registers a guest may ask the host to save
 * @qctl: queue-control registers, in the order the host stops them
 * @nr_qctl: entries in @qctl (at most COMPSC_HOST_MAX_QCTL)
 * @qctl_enable: the enable bit in each @qctl register
 * @qstop_us: the queues stop within this many microseconds
 * @flush: a register whose read flushes posted writes
 * @irq_set: interrupt cause set (write a vector mask to raise them)
 * @irq_unmask: interrupt mask set
 * @irq_all: every vector of the VF
 * @ring_base: the low base register of each descriptor ring
 * @nr_rings: entries in @ring_base
 * @ring_hi: offset of the high base register from the low one
 * @ring_len: offset of the ring length register from the low base one
 * @ring_len_mask: the length bits of that register
 * @stats: the statistics registers (32-bit, read-only, wrapping)
 * @nr_stats: entries in @stats (at most COMPSC_HOST_MAX_STATS)
 * @rx0_base: receive queue 0's low base register (its length register at
 *	@ring_len from it)
 * @rx0_head: receive queue 0's head register
 * @rx0_tail: receive queue 0's tail register
 * @pf_vflre: in the PF's BAR0, its VF reset event registers: VF n's event
 *	is bit n % 32 of register n / 32, set until the PF driver handled it
 * @nr_pf_vflre: entries in @pf_vflre
 * @pf_max_vfs: VFs the PF's driver enables at most
 * @pf_vlans: VLAN filters the PF can hold for its VFs (its VLVF table,
 *	less the entry VLAN 0 keeps)
 */
struct compsc_devmodel {
	const char *name;
	u16 vendor;
	u16 device;
	u32 bar0_size;
	const struct compsc_policy *policy;
	const u32 *qctl;
	u32 nr_qctl;
	u32 qctl_enable;
	u32 qstop_us;
	u32 flush;
	u32 irq_set;
	u32 irq_unmask;
	u32 irq_all;
	const u32 *ring_base;
	u32 nr_rings;
	u32 ring_hi;
	u32 ring_len;
	u32 ring_len_mask;
	const u32 *stats;
	u32 nr_stats;
	u32 rx0_base;
	u32 rx0_head;
	u32 rx0_tail;
	const u32 *pf_vflre;
	u32 nr_pf_vflre;
	u32 pf_max_vfs;
	u32 pf_vlans;
};

const struct compsc_devmodel *compsc_devmodel_find(u16 vendor, u16 device);

/* Checked copies of the area's register and counter lists. */
struct compsc_host_lists {
	u32 nr_regs;
	u32 nr_ctrs;
	struct compsc_reg regs[COMPSC_MAX_REGS];
	struct compsc_counter_desc ctrs[COMPSC_MAX_COUNTERS];
};

/**
 * struct compsc_host_area - the guest's area as the host sees it
 * @va: the mapping (guest memory: hostile, changes at any time)
 * @gpa: where the guest registered it
 * @size: bytes mapped
 * @hdr: checked copy of the header (every offset used comes from here)
 * @lists: checked copies of the lists
 * @held_version: the version the writer word had when this host's take
 *	held it (compsc_host_take()): a hold still this take's reads HELD
 *	with it (compsc_host_held())
 */
struct compsc_host_area {
	void *va;
	u64 gpa;
	u32 size;
	struct compsc_area_hdr hdr;
	struct compsc_host_lists lists;
	u64 held_version;
};

/**
 * struct compsc_host_dev - the VF for one migration
 * @dm: its model
 * @bar: BAR0, mapped
 * @env: time and waiting for the writer and the queue stop
 * @qsaved: queue controls as they were before the stop
 * @stopped: the queues are stopped and @qsaved holds their values; the
 *	glue clears it once the device is reset (nothing left to restart)
 * @stat_base: host-emulated counters: the base this host adds to every
 *	guest read of dm->stats[i] (NULL: none). Every statistics value
 *	saved is the guest's view, base included.
 */
struct compsc_host_dev {
	const struct compsc_devmodel *dm;
	void __iomem *bar;
	const struct compsc_env *env;
	u32 qsaved[COMPSC_HOST_MAX_QCTL];
	bool stopped;
	const u32 *stat_base;
};

/**
 * struct compsc_host_save - the workspace of compsc_host_save()
 * @regs: the listed registers, as the REGS record's entries
 * @regs_len: bytes of @regs in use
 * @ctrs: the listed counters, as records
 * @pf: the VF-in-PF state the source PF exported (NULL: no PF section)
 * @pf_ext: what that PF holds beyond @pf, for a PF that holds more
 *	(NULL: no PF_VF_EXT section; ignored without @pf)
 * @stats: host-emulated statistics (NULL: none), @nr_stats records
 * @nr_stats: records in @stats
 * @replay: compsc_host_replay_bytes() bytes, 8-byte aligned: the packed
 *	log and a scratch copy
 * @driver_bytes: out: the packed replay log's length (0: none)
 * @pre: the pre-copy stream this migration already sent (NULL: none);
 *	its configuration is left out if unchanged (compsc/precopy.h)
 * @pre_len: its length
 * @config_sent: out: the stream carries the configuration records
 */
struct compsc_host_save {
	u8 regs[COMPSC_MAX_REGS * COMPSC_REC_REG_MAX];
	u32 regs_len;
	struct compsc_rec_counter ctrs[COMPSC_MAX_COUNTERS];
	const struct compsc_pf_vf_state *pf;
	const struct compsc_pf_vf_xstate *pf_ext;
	const struct compsc_rec_counter *stats;
	u32 nr_stats;
	u8 *replay;
	u32 driver_bytes;
	const void *pre;
	u32 pre_len;
	u32 config_sent;
};

/* The longest stream compsc_host_save() can build. */
#define COMPSC_HOST_STREAM_MAX	(sizeof(struct compsc_stream_hdr) + \
				 7 * sizeof(struct compsc_rec_hdr) + \
				 COMPSC_MAX_REGS * COMPSC_REC_REG_MAX + \
				 COMPSC_MAX_COUNTERS * sizeof(struct compsc_rec_counter) + \
				 COMPSC_HOST_MAX_STATS * sizeof(struct compsc_rec_counter) + \
				 sizeof(struct compsc_pf_vf_state) + \
				 COMPSC_PF_EXT_MAX_BYTES + \
				 COMPSC_AREA_MAX_SIZE + sizeof(struct compsc_rec_end) + 64)

/* Section @off of the area mapped at @va. */
static inline void *compsc_host_sec(void *va, __le32 off)
{
	return (u8 *)va + le32_to_cpu(off);
}

/* The control line of a checked area. */
static inline struct compsc_area_ctl *
compsc_host_ctl(const struct compsc_host_area *a)
{
	return (struct compsc_area_ctl *)compsc_host_sec(a->va, a->hdr.ctl_off);
}

int compsc_host_area_check(struct compsc_host_area *a,
			   const struct compsc_policy *p, u32 *bad);

int compsc_host_queues_stop(struct compsc_host_dev *d);
void compsc_host_queues_restart(struct compsc_host_dev *d);
void compsc_host_kick(const struct compsc_host_dev *d, bool unmask);
u32 compsc_host_ring_spans(const struct compsc_host_dev *d, u64 *base,
			   u64 *len, u32 max);

/* One range of device addresses (IOVAs) a DMA log tracks, both ends in. */
struct compsc_range {
	u64 first;
	u64 last;
};

int compsc_host_log_covers(const struct compsc_range *r, u32 nr, u64 addr,
			   u64 len);

int compsc_host_take(struct compsc_host_area *a, struct compsc_host_dev *d,
		     u64 timeout_ns);
int compsc_host_take_claimed(struct compsc_host_area *a,
			     struct compsc_host_dev *d, u64 timeout_ns);
int compsc_host_held(const struct compsc_host_area *a);
int compsc_host_giveback(struct compsc_host_area *a,
			 struct compsc_host_dev *d, int status);
int compsc_host_save(const struct compsc_host_area *a,
		     const struct compsc_host_dev *d,
		     const struct compsc_ident *id, struct compsc_host_save *s,
		     void *out, u32 cap);
int compsc_host_save_config(const struct compsc_host_area *a,
			    const struct compsc_ident *id,
			    struct compsc_host_save *s, void *out, u32 cap);
u32 compsc_host_save_bound(const struct compsc_host_area *a, u32 nr_stats);
u32 compsc_host_replay_bytes(const struct compsc_host_area *a);

int compsc_host_load(const struct compsc_host_area *a, const void *buf,
		     u32 len, const struct compsc_ident *id,
		     struct compsc_stream_view *v);
void compsc_host_give(struct compsc_host_area *a,
		      const struct compsc_stream_view *v, bool logging,
		      bool copied);
void compsc_host_give_lost(struct compsc_host_area *a, int status);
void compsc_host_dirty_round(struct compsc_area_ctl *ctl, bool on);
int compsc_host_drain(const struct compsc_host_area *a,
		      const struct compsc_env *env, u64 timeout_ns);

/**
 * struct compsc_host_pf - a loaded stream's PF sections, copied out aligned
 * @st: the PF_VF record
 * @x: the PF_VF_EXT record, zero beyond its bytes
 * @has_st: the stream carries PF_VF
 * @has_x: the stream carries PF_VF_EXT
 */
struct compsc_host_pf {
	struct compsc_pf_vf_state st;
	struct compsc_pf_vf_xstate x;
	bool has_st;
	bool has_x;
};

int compsc_host_pf_sections(const struct compsc_stream_view *v,
			    struct compsc_host_pf *pf);
bool compsc_host_pf_whole(const struct compsc_host_pf *pf, bool ext_pf,
			  u32 *lost);

/**
 * struct compsc_host_vf_mac - a VF of the destination VF's PF, as that
 * host sees it when a migration's state arrives
 * @vf: its index at the PF
 * @mac: the MAC the PF gives it (zero: none)
 * @migrating_out: this host is migrating the VF's guest away (its state
 *	is being saved, or was and has not come back)
 */
struct compsc_host_vf_mac {
	u32 vf;
	u8 mac[6];
	bool migrating_out;
};

int compsc_host_mac_in_use(const struct compsc_host_pf *pf, u32 self,
			   const struct compsc_host_vf_mac *vfs, u32 n);

int compsc_host_stat_index(const struct compsc_devmodel *dm, u32 off);
u32 compsc_host_guest_rd(const struct compsc_host_dev *d, u32 off);
void compsc_host_read_stats(const struct compsc_host_dev *d,
			    struct compsc_rec_counter *out);
int compsc_host_stats_check(const struct compsc_devmodel *dm,
			    const struct compsc_stream_rec *rec);
void compsc_host_stats_base(const struct compsc_host_dev *d,
			    const struct compsc_stream_rec *rec, u32 *base);

#ifdef __KERNEL__
/*
 * Kernel glue shared by every host (libcompsc/kernel/host.c): the writer's
 * environment, the VF's identity and BAR, the VF's PF through its CompSC
 * ops, and the hand-over that spares the guest its own reset.
 */
struct pci_dev;

/**
 * struct compsc_host_kenv - the writer's environment in the kernel
 * @env: what compsc_host_dev.env points to
 * @fence_ns: time spent in the reader fence (IPIs to every CPU)
 */
struct compsc_host_kenv {
	struct compsc_env env;
	u64 fence_ns;
};

void compsc_host_kenv_init(struct compsc_host_kenv *k);
void compsc_host_ident(struct pci_dev *pdev, struct compsc_ident *id);
int compsc_host_take_registered(struct pci_dev *vfdev,
				struct compsc_host_area *a,
				struct compsc_host_dev *d, u64 timeout_ns);
void __iomem *compsc_host_bar_map(struct pci_dev *pdev,
				  const struct compsc_devmodel *dm);
int compsc_host_pf_export(struct pci_dev *vfdev,
			  struct compsc_pf_vf_state *st,
			  struct compsc_pf_vf_xstate *x);
int compsc_host_pf_apply(struct pci_dev *vfdev,
			 const struct compsc_stream_view *v, bool apply);
int compsc_host_pf_forget(struct pci_dev *vfdev, bool probe);
int compsc_host_pf_pause(struct pci_dev *vfdev, bool pause);
bool compsc_host_vf_handover(struct pci_dev *vfdev, bool imported, u64 gpa,
			     u32 size, struct compsc_area_ctl *ctl);
#endif /* __KERNEL__ */

#endif /* COMPSC_HOST_H */
