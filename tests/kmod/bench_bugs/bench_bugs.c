// SPDX-License-Identifier: GPL-2.0
/*
 * bench_bugs.ko: commits one bug of a kind when its debugfs file is
 * written, so the bench can prove that the debug kernel's detectors
 * report it and that the harness fails the run on the report
 * (tests/soak/test_detectors.py). Nothing else loads this module.
 *
 *   echo 1 > /sys/kernel/debug/bench_bugs/<kind>
 *
 * kasan    reads one byte past a kmalloc'ed buffer (KASAN)
 * kfence   reads a freed object that KFENCE sampled (KFENCE)
 * sleep    allocates with GFP_KERNEL under a spinlock (DEBUG_ATOMIC_SLEEP)
 * lockdep  takes two mutexes in both orders, one after the other (lockdep)
 * odebug   frees an object whose timer is still pending (DEBUG_OBJECTS;
 *          its fixup cancels the timer, so nothing fires on freed memory)
 * leak     drops the only pointer to a buffer (kmemleak, on the next scan)
 */
#include <linux/debugfs.h>
#include <linux/delay.h>
#include <linux/jiffies.h>
#include <linux/kfence.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/timer.h>

#define LEAK_TAG "bench_bugs: deliberate leak"

static struct dentry *bugs_dir;

/* Taken in both orders by bug_lockdep(); protect nothing. */
static DEFINE_MUTEX(bugs_a);
static DEFINE_MUTEX(bugs_b);
/* Held while bug_sleep() allocates; protects nothing. */
static DEFINE_SPINLOCK(bugs_spin);

static int bug_kasan(void)
{
	size_t size = 32;
	char *p = kmalloc(size, GFP_KERNEL);

	if (!p)
		return -ENOMEM;
	/* Hide the size from the compiler: it would refuse a constant overrun. */
	OPTIMIZER_HIDE_VAR(size);
	pr_info("bench_bugs: kasan read %d\n", READ_ONCE(p[size]));
	kfree(p);
	return 0;
}

/* Allocate until KFENCE's sampling hands out one of its guarded objects. */
static int bug_kfence(void)
{
	unsigned long end = jiffies + 30 * HZ;
	char *p;

	while (time_before(jiffies, end)) {
		p = kmalloc(32, GFP_KERNEL);
		if (!p)
			return -ENOMEM;
		if (is_kfence_address(p)) {
			kfree(p);
			pr_info("bench_bugs: kfence read %d\n", READ_ONCE(p[0]));
			return 0;
		}
		kfree(p);
		usleep_range(100, 200);
	}
	return -ETIMEDOUT;
}

static int bug_sleep(void)
{
	void *p;

	spin_lock(&bugs_spin);
	p = kmalloc(64, GFP_KERNEL);
	spin_unlock(&bugs_spin);
	kfree(p);
	return 0;
}

static int bug_lockdep(void)
{
	mutex_lock(&bugs_a);
	mutex_lock(&bugs_b);
	mutex_unlock(&bugs_b);
	mutex_unlock(&bugs_a);

	mutex_lock(&bugs_b);
	mutex_lock(&bugs_a);
	mutex_unlock(&bugs_a);
	mutex_unlock(&bugs_b);
	return 0;
}

struct bugs_timed {
	struct timer_list timer;
};

static void bugs_timer_fn(struct timer_list *t)
{
	pr_info("bench_bugs: timer fired\n");
}

static int bug_odebug(void)
{
	struct bugs_timed *t = kzalloc(sizeof(*t), GFP_KERNEL);

	if (!t)
		return -ENOMEM;
	timer_setup(&t->timer, bugs_timer_fn, 0);
	mod_timer(&t->timer, jiffies + 3600 * HZ);
	kfree(t);
	return 0;
}

static int bug_leak(void)
{
	char *p = kmalloc(64, GFP_KERNEL);

	if (!p)
		return -ENOMEM;
	strscpy(p, LEAK_TAG, 64);
	pr_info("bench_bugs: leaked 64 bytes\n");
	return 0;
}

static ssize_t bugs_write(struct file *f, const char __user *buf, size_t len,
			  loff_t *pos)
{
	int (*bug)(void) = f->f_inode->i_private;
	int ret = bug();

	return ret ? ret : len;
}

static const struct file_operations bugs_fops = {
	.owner = THIS_MODULE,
	.open = simple_open,
	.write = bugs_write,
	.llseek = noop_llseek,
};

static const struct {
	const char *name;
	int (*fn)(void);
} bugs[] = {
	{ "kasan", bug_kasan },
	{ "kfence", bug_kfence },
	{ "sleep", bug_sleep },
	{ "lockdep", bug_lockdep },
	{ "odebug", bug_odebug },
	{ "leak", bug_leak },
};

static int __init bench_bugs_init(void)
{
	size_t i;

	bugs_dir = debugfs_create_dir("bench_bugs", NULL);
	for (i = 0; i < ARRAY_SIZE(bugs); i++)
		debugfs_create_file(bugs[i].name, 0200, bugs_dir, bugs[i].fn, &bugs_fops);
	return 0;
}

static void __exit bench_bugs_exit(void)
{
	debugfs_remove(bugs_dir);
}

module_init(bench_bugs_init);
module_exit(bench_bugs_exit);
MODULE_DESCRIPTION("Commit one bug of each kind to prove the bench's debug kernel");
MODULE_LICENSE("GPL");
