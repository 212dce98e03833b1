// SPDX-License-Identifier: GPL-2.0
/*
 * compsc_selftest.ko: run libcompsc's self-test in kernel context against
 * compsc.ko and report the result where a test can read it. The checks
 * (libcompsc/src/selftest*.c) are compiled into this module (Kbuild), so
 * compsc.ko carries no test code.
 *
 * At load it calls compsc_selftest() once, prints the report to the kernel
 * log followed by one summary line
 *     compsc_selftest: result: <N> failed
 * and keeps both in debugfs:
 *     /sys/kernel/debug/compsc_selftest/report   the library's report
 *     /sys/kernel/debug/compsc_selftest/failed   N
 *     /sys/kernel/debug/compsc_selftest/rerun    write 1: run again, refresh
 * Loading succeeds even when checks fail: the result is data, not an error.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/debugfs.h>
#include <linux/fs.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/vmalloc.h>

#include <compsc/compsc.h>

#define REPORT_LEN (64 * 1024)

static DEFINE_MUTEX(st_lock);	/* protects report, report_len, failed */
static char *report;
static size_t report_len;
static u32 failed;
static struct dentry *dir;

/* Runs the library checks and logs the report line by line. */
static void st_run_locked(void)
{
	char *line, *p;
	int ret;

	lockdep_assert_held(&st_lock);
	report[0] = '\0';
	ret = compsc_selftest(report, REPORT_LEN);
	report_len = strnlen(report, REPORT_LEN);
	failed = ret < 0 ? U32_MAX : ret;

	/* printk has a line limit; strsep() on a copy keeps the report intact. */
	p = kstrndup(report, REPORT_LEN, GFP_KERNEL);
	for (line = p; p && line; ) {
		char *l = strsep(&line, "\n");

		if (*l)
			pr_info("%s\n", l);
	}
	kfree(p);
	pr_info("result: %d failed\n", ret);
}

static ssize_t report_read(struct file *f, char __user *ubuf, size_t n,
			   loff_t *pos)
{
	ssize_t ret;

	mutex_lock(&st_lock);
	ret = simple_read_from_buffer(ubuf, n, pos, report, report_len);
	mutex_unlock(&st_lock);
	return ret;
}

static const struct file_operations report_fops = {
	.owner = THIS_MODULE,
	.read = report_read,
	.llseek = default_llseek,
};

static ssize_t rerun_write(struct file *f, const char __user *ubuf, size_t n,
			   loff_t *pos)
{
	mutex_lock(&st_lock);
	st_run_locked();
	mutex_unlock(&st_lock);
	return n;
}

static const struct file_operations rerun_fops = {
	.owner = THIS_MODULE,
	.write = rerun_write,
	.llseek = noop_llseek,
};

static int __init st_init(void)
{
	report = vzalloc(REPORT_LEN);
	if (!report)
		return -ENOMEM;

	mutex_lock(&st_lock);
	st_run_locked();
	mutex_unlock(&st_lock);

	/* debugfs is optional: the kernel log already has the result. */
	dir = debugfs_create_dir(KBUILD_MODNAME, NULL);
	debugfs_create_file("report", 0444, dir, NULL, &report_fops);
	debugfs_create_u32("failed", 0444, dir, &failed);
	debugfs_create_file("rerun", 0200, dir, NULL, &rerun_fops);
	return 0;
}

static void __exit st_exit(void)
{
	debugfs_remove(dir);
	vfree(report);
}

module_init(st_init);
module_exit(st_exit);
MODULE_DESCRIPTION("Run libcompsc's self-test in kernel context");
MODULE_LICENSE("GPL");
