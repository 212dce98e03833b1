/* SPDX-License-Identifier: GPL-2.0 */
/*
 * compsc_vfio: vfio-pci variant driver for VFs whose guest driver speaks
 * CompSC and whose device libcompsc models (compsc/host.h). QEMU drives
 * the VFIO migration uAPI v2; the rules of each arc come from libcompsc
 * (compsc_mig_arc()), this driver carries them out on the guest's shared
 * area (reached through the device's VFIO IOMMU container: the area's
 * guest-physical address is an IOVA there) and on the VF's BAR0.
 */
#ifndef COMPSC_VFIO_H
#define COMPSC_VFIO_H

#include <linux/mutex.h>
#include <linux/spinlock.h>
#include <linux/workqueue.h>
#include <linux/vfio_pci_core.h>
#include <compsc/compsc.h>
#include <compsc/host.h>
#include <compsc/migstate.h>
#include <compsc/precopy.h>
#include "fault.h"

#define CVF_AREA_PAGES	(COMPSC_AREA_MAX_SIZE / PAGE_SIZE + 1)
#define CVF_ENV_MAGIC	0x56435343u	/* "CSCV": this driver's envelope */
#define CVF_ENV_VERSION	1

/*
 * What QEMU carries for the device: one or two chunks, each this envelope
 * (where the area lives in guest memory, which the destination host cannot
 * learn otherwise) and one libcompsc stream: in PRE_COPY the configuration
 * (CVF_ENV_PRE, compsc/precopy.h), then at STOP_COPY the state
 * (CVF_ENV_STATE). The CRC covers the envelope; the stream has its own.
 */
#define CVF_ENV_STATE	0
#define CVF_ENV_PRE	1

struct cvf_env {
	__le32 magic;
	__le16 version;
	__le16 kind;		/* CVF_ENV_* */
	__le64 area_gpa;
	__le32 area_size;
	__le32 stream_len;
	__le32 crc32c;		/* of the bytes before this field */
	__le32 rsvd1;
};

static_assert(sizeof(struct cvf_env) == 32);

#define CVF_DATA_MAX	(sizeof(struct cvf_env) + COMPSC_HOST_STREAM_MAX)
#define CVF_PRE_MAX	(sizeof(struct cvf_env) + COMPSC_PRECOPY_MAX)


/* The guest's area, pinned and mapped for one migration. */
struct cvf_area {
	struct compsc_host_area h;	/* h.va: the area inside the mapping */
	int npage;		/* pinned pages; 0 when not mapped */
	struct page *pages[CVF_AREA_PAGES];
	void *map;		/* vmap of the pages */
};

/* A save or load file handed to QEMU. */
struct cvf_file {
	struct file *filp;
	struct cvf_dev *cvf;
	/* lock protects everything below */
	struct mutex lock;
	u8 *buf;
	size_t len;		/* bytes in buf (saving: all of it so far) */
	bool disabled;		/* the arc that owned it is over */
	bool filled;		/* saving: the state is in buf, nothing follows */
	int error;		/* saving: reads fail with this */
	bool checked;		/* loading: a complete stream passed the checks */
};

/*
 * One migration's times on this host (ktime_get_ns(); 0: not reached) and
 * sizes, for debugfs "timeline": how long the guest kept its device before
 * QEMU stopped its vCPUs, and what moved out of the downtime.
 */
struct cvf_timeline {
	u64 pre_ns;		/* source: pre-copy data ready; dst: applied */
	u64 take_ns;		/* source: device taken */
	u64 stop_ns;		/* source: vCPUs stopped (the P2P arc) */
	u64 save_ns;		/* source: stop-copy state built */
	u64 give_ns;		/* destination: handed to the guest */
	u32 pre_bytes;		/* pre-copy chunk */
	u32 stop_bytes;		/* stop-copy chunk */
	bool config_resent;	/* the stop-copy chunk carried it again */
	bool config_early;	/* destination: the PF had it from pre-copy */
};

struct cvf_dev {
	struct vfio_pci_core_device core;
	/*
	 * state_mutex protects everything up to reset_lock. Never taken in a
	 * reset's path, which may hold memory_lock for write: taken through
	 * cvf_state_mutex_lock()/_unlock(), which act on a reset it marked.
	 */
	struct mutex state_mutex;
	u32 mig_state;		/* COMPSC_MIG_* == VFIO_DEVICE_STATE_* */
	u32 ctx;		/* COMPSC_MIG_C_HELD / _LOADED / _PAUSED */
	unsigned long held_at;		/* jiffies of the size-query take */
	unsigned long backoff_until;	/* jiffies; COMPSC_MIG_C_BACKOFF */
	u32 holds_expired;		/* in this migration */
	u32 takes_timed_out;		/* on the size query, this migration */
	bool take_refused;	/* one timed out, no retry due: COMPSC_MIG_C_REFUSED */
	struct cvf_file *save;
	struct cvf_file *load;
	struct cvf_area *area;	/* source: taken; destination: loaded */
	struct compsc_host_dev dev;	/* the VF as the host side uses it */
	struct compsc_host_kenv kenv;	/* dev.env, set at the take */
	size_t data_len;	/* last saved data, for MIG_DATA_SIZE */
	u8 *loaded;		/* destination: a checked envelope + stream */
	size_t loaded_len;
	u8 *pre;		/* the pre-copy chunk sent, or received */
	size_t pre_len;
	int pre_whole;		/* dst: the PF's import of it said (1: whole) */
	bool pre_applied;	/* dst: the PF holds it, no hand-over yet */
	struct cvf_timeline tl;
	struct compsc_stream_view view;	/* points into loaded */
	bool logging;		/* DMA logging started */
	struct compsc_range *log_ranges;	/* what the log tracks */
	u32 log_nr;		/* entries in log_ranges */
	/* stat_lock protects stat_on and stat_base (taken in the BAR read path) */
	spinlock_t stat_lock;
	bool stat_on;		/* host-emulated counters in effect */
	u32 stat_base[COMPSC_HOST_MAX_STATS];	/* dev.dm->nr_stats used */
	u32 log_reads;		/* log_read_and_clear calls since log_start */
	u64 log_marked;		/* bytes reported dirty since log_start */
	u32 log_late_areas;	/* areas first flagged by a read, not the start */
	bool log_undrained;	/* flag set, readers not yet waited for */
	bool log_drain_late;	/* a read's wait timed out: reads wait no more */
	bool log_whole;		/* the last read was one of log_pass's */
	/* reads report their whole window until a pass over memory did */
	struct compsc_log_pass log_pass;
	u32 log_drain_us;	/* the last wait for them (cvf_log_drain()) */
	/* the VF's last migration on this host, for operators (debugfs) */
	u32 mig_done;		/* device states saved + hand-overs done here */
	int mig_err;		/* the last one: 0 or -errno */
	bool mig_saved;		/* the last is a save, counted until it comes back */
	bool mig_aborted;	/* since then, one went back to the guest unfinished */
	const char *mig_why;	/* why it went back, when mig_aborted */
	bool mig_taken_back;	/* its save failed: the guest had taken the device back */
	bool in_reset;		/* a reset is acted on: leave the VF alone */
	bool closing;		/* the last fd's cleanup runs: the same */
	/* reset_lock protects deferred_reset (taken in reset_done) */
	spinlock_t reset_lock;
	bool deferred_reset;	/* a reset came, not acted on yet */
	/* acts on deferred_reset outside the reset (mig.c); takes state_mutex */
	struct work_struct reset_work;
	/* bounds a take made on the size query (mig.c); takes state_mutex */
	struct delayed_work hold_work;
#ifdef CVF_FAULTS
	u32 fault_give;		/* CVF_FAULT_GIVE_*, fault.c; xchg, no lock */
#endif
	/*
	 * This VF's guest is migrating away (a save fd open, or a save made
	 * and not come back): written as state_mutex is let go, read by the
	 * other VFs' loads without it (peers.c).
	 */
	bool mig_source;
	struct list_head peer;	/* in peers.c's list, under its lock */
};

static inline struct cvf_dev *cvf_from_vdev(struct vfio_device *vdev)
{
	return container_of(vdev, struct cvf_dev, core.vdev);
}

static inline struct pci_dev *cvf_pdev(struct cvf_dev *cvf)
{
	return cvf->core.pdev;
}

/* module parameters (main.c) */
extern unsigned int cvf_take_timeout_ms;
extern unsigned int cvf_hold_ms;
extern bool cvf_host_counters;


/* main.c */
int cvf_init_dev(struct vfio_device *vdev);
void cvf_release_dev(struct vfio_device *vdev);

/* ops.c */
extern const struct vfio_device_ops cvf_ops;

/* mig.c */
extern const struct vfio_migration_ops cvf_mig_ops;
void cvf_state_mutex_lock(struct cvf_dev *cvf);
void cvf_state_mutex_unlock(struct cvf_dev *cvf);
void cvf_reset_done(struct cvf_dev *cvf);
void cvf_reset_work(struct work_struct *work);
bool cvf_reset_seen(struct cvf_dev *cvf);
void cvf_mig_cleanup(struct cvf_dev *cvf);
void cvf_mig_forget(struct cvf_dev *cvf);
void cvf_mig_result(struct cvf_dev *cvf, int err);
void cvf_hold_work(struct work_struct *work);

/* file.c */
struct cvf_file *cvf_file_new(struct cvf_dev *cvf, bool saving);
int cvf_file_fill(struct cvf_file *f, const u8 *buf, size_t len, bool last);
void cvf_file_fail(struct cvf_file *f, int error);
void cvf_file_disable(struct cvf_file *f);

/* state.c */
int cvf_take(struct cvf_dev *cvf);
void cvf_giveback(struct cvf_dev *cvf);
void cvf_pause(struct cvf_dev *cvf);
void cvf_unpause(struct cvf_dev *cvf);
int cvf_save(struct cvf_dev *cvf, u8 **buf, size_t *len);
int cvf_save_pre(struct cvf_dev *cvf, u8 **buf, size_t *len);
int cvf_env_kind(const u8 *buf, size_t len);
int cvf_load_pre(struct cvf_dev *cvf, const u8 *buf, size_t len);
void cvf_pre_forget(struct cvf_dev *cvf);
int cvf_load_check(struct cvf_dev *cvf, const u8 *buf, size_t len);
int cvf_give(struct cvf_dev *cvf);
size_t cvf_data_size(struct cvf_dev *cvf);

/* area.c */
struct cvf_area *cvf_area_get(struct cvf_dev *cvf, u64 gpa, u32 size);
void cvf_area_put(struct cvf_dev *cvf, struct cvf_area *a);
bool cvf_area_overlaps(struct cvf_area *a, u64 iova, u64 len);

/* stats.c */
bool cvf_stats_sent(struct cvf_dev *cvf);
const u32 *cvf_stats_base(struct cvf_dev *cvf, u32 *base);
int cvf_stats_check(struct cvf_dev *cvf, const struct compsc_stream_view *v);
void cvf_stats_load(struct cvf_dev *cvf, const struct compsc_stream_view *v);
void cvf_stats_forget(struct cvf_dev *cvf);
ssize_t cvf_read(struct vfio_device *vdev, char __user *buf, size_t count,
		 loff_t *ppos);
int cvf_mmap(struct vfio_device *vdev, struct vm_area_struct *vma);

/* dev.c */
int cvf_bar_get(struct cvf_dev *cvf);
void cvf_bar_put(struct cvf_dev *cvf);
void cvf_bar_unmap(struct cvf_dev *cvf);

/* peers.c */
void cvf_peer_add(struct cvf_dev *cvf);
void cvf_peer_del(struct cvf_dev *cvf);
int cvf_mac_check(struct cvf_dev *cvf, const struct compsc_stream_view *v);

/* dirty.c */
extern const struct vfio_log_ops cvf_log_ops;
bool cvf_log_get(void);
int cvf_log_covers(struct cvf_dev *cvf, const char *what, u64 addr, u64 len);
int cvf_log_covers_rings(struct cvf_dev *cvf);
void cvf_log_counters_reset(struct cvf_dev *cvf);
void cvf_log_drain_query(struct cvf_dev *cvf);
void cvf_log_put(void);
void cvf_log_debugfs_add(struct cvf_dev *cvf);
void cvf_log_debugfs_del(struct cvf_dev *cvf);

#endif /* COMPSC_VFIO_H */
