// SPDX-License-Identifier: GPL-2.0
/*
 * The data fds of the migration uAPI. Saving: one byte stream, read in
 * order. Opened in PRE_COPY it starts with the VF's configuration (the
 * pre-copy chunk, VFIO_MIG_GET_PRECOPY_INFO's initial_bytes); at STOP_COPY
 * the device state is appended (cvf_file_fill()), so reads only copy out.
 * A read at the end of what is there finds the pre-copy "no data for now"
 * (ENOMSG) until the state is in, then the end of the stream. Loading:
 * writes append; each chunk is acted on as soon as its envelope says it is
 * complete: a pre-copy chunk is applied to the VF at once, while the VM
 * still runs on the source (cvf_load_pre()), the state is checked
 * (cvf_load_check()), so a refused chunk fails QEMU's load itself and the
 * source keeps running, instead of surfacing only when the destination VM
 * starts.
 *
 * A data fd may outlive the device (QEMU keeps it, the VF is unbound):
 * each file holds a reference on the vfio_device, so its cvf_dev stays
 * allocated until the file goes, and every path checks that the file was
 * not disabled before it touches the device's state. Lock order:
 * state_mutex, then the file's lock (cvf_file_disable() runs under
 * state_mutex).
 */
#include <linux/anon_inodes.h>
#include <linux/file.h>
#include <linux/fs.h>
#include <linux/slab.h>
#include <linux/uaccess.h>
#include <linux/vfio.h>
#include "compsc_vfio.h"

static int cvf_file_release(struct inode *inode, struct file *filp)
{
	struct cvf_file *f = filp->private_data;
	struct cvf_dev *cvf = f->cvf;

	mutex_destroy(&f->lock);
	kvfree(f->buf);
	kfree(f);
	put_device(&cvf->core.vdev.device);	/* cvf_file_new()'s; may free cvf */
	return 0;
}

/* The arc that owned @f is over: the device may be closed or gone. */
static bool cvf_file_disabled(struct cvf_file *f)
{
	bool off;

	mutex_lock(&f->lock);
	off = f->disabled;
	mutex_unlock(&f->lock);
	return off;
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
	ret = f->error;
	if (ret)
		goto out;
	/* at the end: for now (pre-copy), or for good */
	ret = f->filled ? 0 : -ENOMSG;
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

/*
 * Loading: act on each complete chunk at the start of the buffer. A
 * pre-copy chunk is applied and dropped from the buffer; the state chunk
 * must be the last bytes, and is checked.
 */
static int cvf_file_chunks(struct cvf_file *f)
{
	size_t want;
	int err;

	for (;;) {
		want = cvf_file_expect(f);
		if (!want || f->len < want)
			return 0;
		if (cvf_env_kind(f->buf, want) != CVF_ENV_PRE)
			break;
		err = cvf_load_pre(f->cvf, f->buf, want);
		if (err) {
			cvf_mig_result(f->cvf, err);
			return err;
		}
		f->len -= want;
		memmove(f->buf, f->buf + want, f->len);
	}
	err = f->len != want ? -EINVAL : cvf_load_check(f->cvf, f->buf, f->len);
	if (err) {
		cvf_mig_result(f->cvf, err);
		return -EINVAL;
	}
	f->checked = true;
	return 0;
}

/*
 * The check of a complete stream pins the guest's area (cvf_load_check()):
 * it runs under state_mutex, like every other pin, so that a dma_unmap of
 * that memory (cvf_dma_unmap(), which takes state_mutex) waits for the
 * check to drop its pin instead of missing it.
 */
static ssize_t cvf_file_write(struct file *filp, const char __user *ubuf,
			      size_t len, loff_t *pos)
{
	struct cvf_file *f = filp->private_data;
	struct cvf_dev *cvf = f->cvf;
	ssize_t ret;

	if (pos)
		return -ESPIPE;
	if (cvf_file_disabled(f))
		return -ENODEV;
	cvf_state_mutex_lock(cvf);
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
	ret = cvf_file_chunks(f) ?: len;
	if (ret < 0)
		f->disabled = true;	/* refused: no second chance */
out:
	mutex_unlock(&f->lock);
	cvf_state_mutex_unlock(cvf);
	return ret;
}

/*
 * VFIO_MIG_GET_PRECOPY_INFO: the configuration is the initial data (what
 * of it is not read yet); it is sent once and never dirtied: a change
 * after it goes with the state at STOP_COPY (compsc/precopy.h).
 */
static long cvf_file_ioctl(struct file *filp, unsigned int cmd,
			   unsigned long arg)
{
	struct cvf_file *f = filp->private_data;
	struct vfio_precopy_info info;
	unsigned long minsz = offsetofend(struct vfio_precopy_info, dirty_bytes);
	u32 state;

	if (cmd != VFIO_MIG_GET_PRECOPY_INFO)
		return -ENOTTY;
	if (copy_from_user(&info, (void __user *)arg, minsz))
		return -EFAULT;
	if (info.argsz < minsz)
		return -EINVAL;
	/* a disabled file's device may be closed: leave its state alone */
	if (cvf_file_disabled(f))
		return -ENODEV;
	cvf_state_mutex_lock(f->cvf);
	state = f->cvf->mig_state;
	cvf_state_mutex_unlock(f->cvf);
	if (state != VFIO_DEVICE_STATE_PRE_COPY &&
	    state != VFIO_DEVICE_STATE_PRE_COPY_P2P)
		return -EINVAL;
	mutex_lock(&f->lock);
	if (f->disabled) {
		mutex_unlock(&f->lock);
		return -ENODEV;
	}
	info.initial_bytes = 0;
	if (!f->filled && filp->f_pos < f->len)
		info.initial_bytes = f->len - filp->f_pos;
	mutex_unlock(&f->lock);
	info.dirty_bytes = 0;
	return copy_to_user((void __user *)arg, &info, minsz) ? -EFAULT : 0;
}

static const struct file_operations cvf_file_fops = {
	.owner = THIS_MODULE,
	.read = cvf_file_read,
	.write = cvf_file_write,
	.unlocked_ioctl = cvf_file_ioctl,
	.compat_ioctl = compat_ptr_ioctl,
	.release = cvf_file_release,
};

/**
 * cvf_file_new() - a data fd for QEMU
 * @cvf: the device
 * @saving: read-only save fd (empty until cvf_file_fill()), else
 *	write-only load fd
 *
 * Return: the file (one reference, the caller's) or ERR_PTR.
 */
struct cvf_file *cvf_file_new(struct cvf_dev *cvf, bool saving)
{
	struct cvf_file *f;
	u8 *buf = NULL;
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
	mutex_init(&f->lock);
	f->filp = anon_inode_getfile("compsc_vfio_mig", &cvf_file_fops, f,
				     saving ? O_RDONLY : O_WRONLY);
	if (IS_ERR(f->filp)) {
		err = PTR_ERR(f->filp);
		goto out_buf;
	}
	stream_open(f->filp->f_inode, f->filp);
	/* dropped by cvf_file_release(): the fd may outlive the device */
	get_device(&cvf->core.vdev.device);
	return f;
out_buf:
	mutex_destroy(&f->lock);
	if (!saving)
		kvfree(buf);
out_free:
	kfree(f);
	return ERR_PTR(err);
}

/**
 * cvf_file_fill() - saving: @len bytes at @buf (copied) follow what the
 * file holds; @last: nothing follows them (the stream ends there)
 *
 * Return: 0 or -ENOMEM.
 */
int cvf_file_fill(struct cvf_file *f, const u8 *buf, size_t len, bool last)
{
	u8 *all = kvmalloc(f->len + len, GFP_KERNEL);

	if (!all)
		return -ENOMEM;
	mutex_lock(&f->lock);
	memcpy(all, f->buf, f->len);
	memcpy(all + f->len, buf, len);
	kvfree(f->buf);
	f->buf = all;
	f->len += len;
	f->filled = last;
	mutex_unlock(&f->lock);
	return 0;
}

/* Saving: there is no state to give; every read fails with @error. */
void cvf_file_fail(struct cvf_file *f, int error)
{
	mutex_lock(&f->lock);
	f->error = error;
	mutex_unlock(&f->lock);
}

/* The arc that owned @f is over: further reads and writes fail. */
void cvf_file_disable(struct cvf_file *f)
{
	mutex_lock(&f->lock);
	f->disabled = true;
	mutex_unlock(&f->lock);
}
