// SPDX-License-Identifier: GPL-2.0
/*
 * debugfs control of the stand-in: /sys/kernel/debug/compsc_standin/<VF BDF>/
 *   migrate      (write) "blackout_ms=N reset=flr|pf|both|none abort=0|1
 *                timeout_ms=N pf_import=normal|skip|unfit copied=0|1
 *                stop_late_ms=N bad_rx_head=0|1 corrupt=0|1
 *                hostile_area=0|1", any subset, any order; runs one
 *                migration (copied=1: tell the guest its memory moved, as
 *                a destination host does; stop_late_ms: stop the queues
 *                that long after the take; bad_rx_head=1: a hostile host's
 *                saved RX head, one past the tail the driver gave;
 *                corrupt=1: a bit of the stream flipped between source and
 *                destination; hostile_area=1: the area's register count
 *                raised past its capacity, as a hostile guest could)
 *   result       (read) the last migration, one key=value per line
 *   last_stream  (read) the binary migration stream of the last migration
 *   area         (read) the raw bytes of the area the VF's driver registered
 */
#include <linux/debugfs.h>
#include <linux/fs.h>
#include <linux/io.h>
#include <linux/pci.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/uaccess.h>
#include <compsc/kernel.h>
#include <compsc/host.h>
#include "standin.h"

#define STANDIN_CMD_MAX		256
#define STANDIN_MS_MAX		60000

static struct dentry *standin_root;

static const char * const standin_reset_names[] = {
	[STANDIN_RESET_NONE] = "none",
	[STANDIN_RESET_FLR] = "flr",
	[STANDIN_RESET_PF] = "pf",
	[STANDIN_RESET_BOTH] = "both",
};

static const char * const standin_pf_import_names[] = {
	[STANDIN_PF_NORMAL] = "normal",
	[STANDIN_PF_SKIP] = "skip",
	[STANDIN_PF_UNFIT] = "unfit",
};

static int standin_parse_ms(const char *val, u32 min, u32 *out)
{
	u32 v;

	if (kstrtou32(val, 10, &v) || v < min || v > STANDIN_MS_MAX)
		return -EINVAL;
	*out = v;
	return 0;
}

static int standin_parse_opt(char *tok, struct standin_req *req)
{
	char *val = strchr(tok, '=');
	int i;

	if (!val)
		return -EINVAL;
	*val++ = '\0';
	if (!strcmp(tok, "blackout_ms"))
		return standin_parse_ms(val, 0, &req->blackout_ms);
	if (!strcmp(tok, "timeout_ms"))
		return standin_parse_ms(val, 1, &req->timeout_ms);
	if (!strcmp(tok, "abort"))
		return kstrtobool(val, &req->abort);
	if (!strcmp(tok, "copied"))
		return kstrtobool(val, &req->copied);
	if (!strcmp(tok, "stop_late_ms"))
		return standin_parse_ms(val, 0, &req->stop_late_ms);
	if (!strcmp(tok, "bad_rx_head"))
		return kstrtobool(val, &req->bad_rx_head);
	if (!strcmp(tok, "corrupt"))
		return kstrtobool(val, &req->corrupt);
	if (!strcmp(tok, "hostile_area"))
		return kstrtobool(val, &req->hostile_area);
	if (!strcmp(tok, "pf_import")) {
		i = match_string(standin_pf_import_names,
				 ARRAY_SIZE(standin_pf_import_names), val);
		if (i < 0)
			return -EINVAL;
		req->pf_import = i;
		return 0;
	}
	if (strcmp(tok, "reset"))
		return -EINVAL;
	i = match_string(standin_reset_names, ARRAY_SIZE(standin_reset_names), val);
	if (i < 0)
		return -EINVAL;
	req->reset = i;
	return 0;
}

/*
 * Defaults: blackout_ms=0 reset=both abort=0 timeout_ms=1000 pf_import=normal
 * copied=0 stop_late_ms=0 bad_rx_head=0 corrupt=0 hostile_area=0.
 */
static int standin_parse_req(char *cmd, struct standin_req *req)
{
	char *tok;
	int err;

	*req = (struct standin_req){ .timeout_ms = 1000,
				   .reset = STANDIN_RESET_BOTH };
	while ((tok = strsep(&cmd, " \t\n"))) {
		if (!*tok)
			continue;
		err = standin_parse_opt(tok, req);
		if (err)
			return err;
	}
	return 0;
}

static ssize_t standin_migrate_write(struct file *file, const char __user *ubuf,
				     size_t count, loff_t *ppos)
{
	struct standin_vf *sv = file->private_data;
	struct standin_req req;
	char *cmd;
	int err;

	if (count >= STANDIN_CMD_MAX)
		return -E2BIG;
	cmd = memdup_user_nul(ubuf, count);
	if (IS_ERR(cmd))
		return PTR_ERR(cmd);
	err = standin_parse_req(cmd, &req);
	kfree(cmd);
	if (err)
		return err;
	err = mutex_lock_interruptible(&sv->lock);
	if (err)
		return err;
	err = standin_migrate(sv, &req);
	mutex_unlock(&sv->lock);
	return err ? err : count;
}

static const struct file_operations standin_migrate_fops = {
	.owner = THIS_MODULE,
	.open = simple_open,
	.write = standin_migrate_write,
	.llseek = noop_llseek,
};

static const char *standin_status(const struct standin_vf *sv)
{
	if (!sv->nr_migrations)
		return "none";
	if (sv->result.err)
		return "error";
	return sv->result.aborted ? "aborted" : "ok";
}

static int standin_result_show(struct seq_file *s, void *unused)
{
	struct standin_vf *sv = s->private;
	const struct standin_result *r = &sv->result;
	int err;

	err = mutex_lock_interruptible(&sv->lock);
	if (err)
		return err;
	seq_printf(s, "migrations=%u\nstatus=%s\nerrno=%d\nerror=%s\n",
		   sv->nr_migrations, standin_status(sv), r->err, r->msg);
	seq_printf(s, "aborted=%d\nstate_bytes=%u\nregs=%u\ncounters=%u\n",
		   r->aborted, r->state_bytes, r->nr_regs, r->nr_counters);
	seq_printf(s, "driver_bytes=%u\nwait_ns=%llu\nfence_ns=%llu\n",
		   r->driver_bytes, r->wait_ns, r->fence_ns);
	seq_printf(s, "hold_ns=%llu\nreset_ns=%llu\npf_forget=%s\npf_vflr=%s\n",
		   r->hold_ns, r->reset_ns, r->pf_forget ?: "no",
		   r->pf_vflr ?: "no");
	seq_printf(s, "pf_bytes=%u\npf_import=%s\nhost_config=%s\n", r->pf_bytes,
		   r->pf_import ?: "no", r->host_config ? "yes" : "no");
	seq_printf(s, "mem_copied=%s\nversion=%llu\nbad_rx_head=%d\n",
		   r->mem_copied ? "yes" : "no", r->version, r->bad_rx_head);
	mutex_unlock(&sv->lock);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(standin_result);

static ssize_t standin_stream_read(struct file *file, char __user *ubuf,
				   size_t count, loff_t *ppos)
{
	struct standin_vf *sv = file->private_data;
	ssize_t ret;

	ret = mutex_lock_interruptible(&sv->lock);
	if (ret)
		return ret;
	ret = simple_read_from_buffer(ubuf, count, ppos, sv->stream,
				      sv->stream_len);
	mutex_unlock(&sv->lock);
	return ret;
}

static const struct file_operations standin_stream_fops = {
	.owner = THIS_MODULE,
	.open = simple_open,
	.read = standin_stream_read,
	.llseek = default_llseek,
};

/* Raw area bytes, valid or not (for the CLI to inspect); RAM only. */
static ssize_t standin_area_read(struct file *file, char __user *ubuf,
				 size_t count, loff_t *ppos)
{
	struct standin_vf *sv = file->private_data;
	ssize_t ret;
	void *va;
	u32 size;
	u64 gpa;

	device_lock(&sv->pdev->dev);	/* the driver keeps its area */
	va = standin_area_remap(sv->pdev, &gpa, &size, NULL, 0);
	if (IS_ERR(va)) {
		ret = PTR_ERR(va);
	} else {
		ret = simple_read_from_buffer(ubuf, count, ppos, va, size);
		memunmap(va);
	}
	device_unlock(&sv->pdev->dev);
	return ret;
}

static const struct file_operations standin_area_fops = {
	.owner = THIS_MODULE,
	.open = simple_open,
	.read = standin_area_read,
	.llseek = default_llseek,
};

/*
 * Read: the area's dirty-log flag; write: start a dirty-logging round or
 * stop (compsc_host_dirty_round()). sv->lock: no migration runs; the
 * device lock: the driver keeps its area.
 */
static ssize_t standin_dirty_rw(struct standin_vf *sv, int set, char *out)
{
	struct standin_result res = {};
	struct compsc_host_area *a;
	struct compsc_area_ctl *ctl;
	int err;

	a = kzalloc(sizeof(*a), GFP_KERNEL);
	if (!a)
		return -ENOMEM;
	err = mutex_lock_interruptible(&sv->lock);
	if (err)
		goto out_free;
	device_lock(&sv->pdev->dev);
	err = standin_area_map(sv, a, &res);
	if (!err) {
		ctl = compsc_host_ctl(a);
		if (set >= 0)
			compsc_host_dirty_round(ctl, set);
		else
			snprintf(out, 4, "%d\n", !!(le32_to_cpu(READ_ONCE(
				 ctl->flags)) & COMPSC_F_DIRTY_LOG));
		standin_area_unmap(a);
	}
	device_unlock(&sv->pdev->dev);
	mutex_unlock(&sv->lock);
out_free:
	kfree(a);
	return err;
}

static ssize_t standin_dirty_write(struct file *file, const char __user *ubuf,
				   size_t count, loff_t *ppos)
{
	bool on;
	int err = kstrtobool_from_user(ubuf, count, &on);

	if (!err)
		err = standin_dirty_rw(file->private_data, on, NULL);
	return err ? err : count;
}

static ssize_t standin_dirty_read(struct file *file, char __user *ubuf,
				  size_t count, loff_t *ppos)
{
	char buf[4];
	int err = standin_dirty_rw(file->private_data, -1, buf);

	if (err)
		return err;
	return simple_read_from_buffer(ubuf, count, ppos, buf, strlen(buf));
}

static const struct file_operations standin_dirty_fops = {
	.owner = THIS_MODULE,
	.open = simple_open,
	.read = standin_dirty_read,
	.write = standin_dirty_write,
	.llseek = default_llseek,
};

void standin_vf_debugfs_add(struct standin_vf *sv)
{
	sv->dir = debugfs_create_dir(pci_name(sv->pdev), standin_root);
	debugfs_create_file("migrate", 0200, sv->dir, sv, &standin_migrate_fops);
	debugfs_create_file("result", 0444, sv->dir, sv, &standin_result_fops);
	debugfs_create_file("last_stream", 0444, sv->dir, sv,
			    &standin_stream_fops);
	debugfs_create_file("area", 0444, sv->dir, sv, &standin_area_fops);
	debugfs_create_file("dirty_log", 0644, sv->dir, sv, &standin_dirty_fops);
}

void standin_vf_debugfs_del(struct standin_vf *sv)
{
	debugfs_remove(sv->dir);
	sv->dir = NULL;
}

int standin_debugfs_init(void)
{
	standin_root = debugfs_create_dir("compsc_standin", NULL);
	return IS_ERR(standin_root) ? PTR_ERR(standin_root) : 0;
}

void standin_debugfs_exit(void)
{
	debugfs_remove(standin_root);
}
