// SPDX-License-Identifier: GPL-2.0
/*
 * The data fds of the migration uAPI. Saving: the whole device state is
 * built at STOP_COPY (a few KiB), so reads only copy it out. Loading:
 * writes append; as soon as the envelope says the data is complete it is
 * checked (cvf_load_check()), so a refused stream fails QEMU's load itself
 * and the source keeps running, instead of surfacing only when the
 * destination VM starts.
 */
#include <linux/anon_inodes.h>
#include <linux/file.h>
#include <linux/fs.h>
#include <linux/slab.h>
#include <linux/uaccess.h>
#include "compsc_vfio.h"

static int cvf_file_release(struct inode *inode, struct file *filp)
{
	struct cvf_file *f = filp->private_data;

	mutex_destroy(&f->lock);
	kvfree(f->buf);
	kfree(f);
	return 0;
}

static ssize_t cvf_file_read(struct file *filp, char __user *ubuf,
			     size_t len, loff_t *pos)
{
	struct cvf_file *f = filp->private_data;
	ssize_t ret;

	if (pos)
		return -ESPIPE;
	pos = &filp->f_pos;
	mutex_lock(&f->lock);
	if (f->disabled) {
		ret = -ENODEV;
		goto out;
	}
	ret = 0;
	if (*pos >= f->len)
		goto out;
	len = min_t(size_t, len, f->len - *pos);
	if (copy_to_user(ubuf, f->buf + *pos, len)) {
		ret = -EFAULT;
		goto out;
	}
	*pos += len;
	ret = len;
out:
	mutex_unlock(&f->lock);
	return ret;
}

/* Bytes the data will have in all, once the envelope is in; 0 before. */
static size_t cvf_file_expect(struct cvf_file *f)
{
	const struct cvf_env *env = (const void *)f->buf;

	if (f->len < sizeof(*env))
		return 0;
	return sizeof(*env) + le32_to_cpu(env->stream_len);
}

static ssize_t cvf_file_write(struct file *filp, const char __user *ubuf,
			      size_t len, loff_t *pos)
{
	struct cvf_file *f = filp->private_data;
	size_t want;
	ssize_t ret;

	if (pos)
		return -ESPIPE;
	mutex_lock(&f->lock);
	ret = -ENODEV;
	if (f->disabled)
		goto out;
	ret = -EFBIG;
	if (f->checked || len > CVF_DATA_MAX - f->len)
		goto out;
	ret = -EFAULT;
	if (copy_from_user(f->buf + f->len, ubuf, len))
		goto out;
	f->len += len;
	ret = len;
	want = cvf_file_expect(f);
	if (!want || f->len < want)
		goto out;
	ret = -EINVAL;
	if (f->len == want &&
	    !cvf_load_check(f->cvf, f->buf, f->len))
		ret = len;
	if (ret < 0)
		f->disabled = true;	/* refused: no second chance */
	else
		f->checked = true;
out:
	mutex_unlock(&f->lock);
	return ret;
}

static const struct file_operations cvf_file_fops = {
	.owner = THIS_MODULE,
	.read = cvf_file_read,
	.write = cvf_file_write,
	.release = cvf_file_release,
};

/**
 * cvf_file_new() - a data fd for QEMU
 * @cvf: the device
 * @buf: saving: the data (the file takes it over); loading: NULL
 * @len: bytes in @buf
 * @saving: read-only save fd, else write-only load fd
 *
 * Return: the file (one reference, the caller's) or ERR_PTR.
 */
struct cvf_file *cvf_file_new(struct cvf_dev *cvf, u8 *buf, size_t len,
			      bool saving)
{
	struct cvf_file *f;
	int err = -ENOMEM;

	f = kzalloc(sizeof(*f), GFP_KERNEL);
	if (!f)
		return ERR_PTR(-ENOMEM);
	if (!saving) {
		buf = kvzalloc(CVF_DATA_MAX, GFP_KERNEL);
		if (!buf)
			goto out_free;
	}
	f->cvf = cvf;
	f->buf = buf;
	f->len = len;
	mutex_init(&f->lock);
	f->filp = anon_inode_getfile("compsc_vfio_mig", &cvf_file_fops, f,
				     saving ? O_RDONLY : O_WRONLY);
	if (IS_ERR(f->filp)) {
		err = PTR_ERR(f->filp);
		goto out_buf;
	}
	stream_open(f->filp->f_inode, f->filp);
	return f;
out_buf:
	mutex_destroy(&f->lock);
	if (!saving)
		kvfree(buf);
out_free:
	kfree(f);
	return ERR_PTR(err);
}

/* The arc that owned @f is over: further reads and writes fail. */
void cvf_file_disable(struct cvf_file *f)
{
	mutex_lock(&f->lock);
	f->disabled = true;
	mutex_unlock(&f->lock);
}
