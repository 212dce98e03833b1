/* SPDX-License-Identifier: GPL-2.0 */
/*
 * compsc_standin: the stand-in hypervisor of the CompSC test bench. It runs in
 * the same kernel as the guest VF driver and migrates a VF "in place": it
 * takes the device through the driver's shared area exactly as a host would,
 * saves the listed registers into a real migration stream, turns the VF into
 * a fresh destination device (FLR, PF-side reset) and hands it back with the
 * saved state, as a destination host would after the guest's memory moved.
 */
#ifndef COMPSC_STANDIN_H
#define COMPSC_STANDIN_H

#include <linux/list.h>
#include <linux/mutex.h>
#include <linux/types.h>
#include <compsc/compsc.h>
#include <compsc/host.h>

struct pci_dev;
struct dentry;

/* Biggest stream a migration can produce (compsc/host.h) */
#define STANDIN_STREAM_MAX	COMPSC_HOST_STREAM_MAX
#define STANDIN_ERR_LEN		160

enum standin_reset {
	STANDIN_RESET_NONE,
	STANDIN_RESET_FLR,	/* function-level reset of the VF */
	STANDIN_RESET_PF,	/* the PF forgets the VF (PF ops vf_forget) */
	STANDIN_RESET_BOTH,
};

/* What the destination does with the stream's PF section. */
enum standin_pf_import {
	STANDIN_PF_NORMAL,	/* check before the reset, import after it */
	STANDIN_PF_SKIP,	/* ignore it: the VF keeps what the PF has */
	STANDIN_PF_UNFIT,	/* carry a state the destination must refuse */
};

/* One migration request, parsed from a write to <bdf>/migrate. */
struct standin_req {
	u32 blackout_ms;	/* least time the device stays taken */
	u32 timeout_ms;		/* bound on the wait for readers to drain */
	enum standin_reset reset;
	enum standin_pf_import pf_import;
	bool abort;		/* take and save, then give the device back */
	bool copied;		/* hand over as if guest memory had moved */
	u32 stop_late_ms;	/* queues kept running this long after the take */
	bool bad_rx_head;	/* save RX queue 0's head one past its tail */
	bool corrupt;		/* flip a bit of the stream on its way */
	bool hostile_area;	/* spoil the area's header before the check */
};

/* What the last migration did; shown by <bdf>/result. */
struct standin_result {
	int err;		/* 0 or -errno */
	bool aborted;		/* released without a version bump */
	char msg[STANDIN_ERR_LEN];	/* empty, or why it failed */
	u32 state_bytes;	/* migration stream length */
	u32 nr_regs;
	u32 nr_counters;
	u32 driver_bytes;	/* replay log bytes carried */
	u64 wait_ns;		/* acquire: fence + readers draining */
	u64 fence_ns;		/* the fence_readers() IPIs alone */
	u64 hold_ns;		/* device taken: acquire done -> release */
	u64 reset_ns;		/* FLR + PF forget */
	u64 version;		/* area version after the migration */
	const char *pf_forget;	/* "done", "skipped" or "no" */
	const char *pf_vflr;	/* PF saw the FLR: "handled", "pending", "no" */
	u32 pf_bytes;		/* PF section in the stream, header included */
	const char *pf_import;	/* "no", "checked", "done", "skipped", "refused" */
	bool host_config;	/* the guest was told: no reset, no replay */
	bool mem_copied;	/* ... and that its memory moved (copied=1) */
	int bad_rx_head;	/* the head bad_rx_head=1 handed over, or -1 */
};

/* One VF the stand-in can migrate. */
struct standin_vf {
	struct list_head node;	/* in standin_vfs, under standin_vfs_lock */
	struct pci_dev *pdev;	/* reference held while listed */
	const struct compsc_devmodel *dm;	/* its model, by PCI ID */
	struct dentry *dir;
	/* lock serialises migrations and protects result and stream */
	struct mutex lock;
	struct standin_result result;
	u8 *stream;		/* last migration stream, STANDIN_STREAM_MAX */
	u32 stream_len;
	u32 nr_migrations;
};

/* debugfs.c */
int standin_debugfs_init(void);
void standin_debugfs_exit(void);
void standin_vf_debugfs_add(struct standin_vf *sv);
void standin_vf_debugfs_del(struct standin_vf *sv);

/* migrate.c */
int standin_migrate(struct standin_vf *sv, const struct standin_req *req);

/* dev.c */
void *standin_area_remap(struct pci_dev *pdev, u64 *gpa, u32 *size, char *why,
			 size_t len);
int standin_area_map(struct standin_vf *sv, struct compsc_host_area *a,
		     struct standin_result *res);
void standin_area_unmap(struct compsc_host_area *a);
int standin_reset(struct standin_vf *sv, enum standin_reset how,
		  struct standin_result *res);
void standin_kick_guest(struct pci_dev *pdev);

#endif /* COMPSC_STANDIN_H */
