// SPDX-License-Identifier: (GPL-2.0 OR BSD-3-Clause)
/*
 * Error codes: one message and one errno per code, in one table so that the
 * CLI, the kernel log and the tests all say the same thing.
 */
#include <compsc/compsc.h>

#ifdef __KERNEL__
#include <linux/errno.h>
#else
#include <errno.h>
#endif

struct compsc_err_desc {
	const char *msg;
	int err_no;
};

static const struct compsc_err_desc compsc_errs[COMPSC_E_MAX] = {
	[COMPSC_OK]		= { "success", 0 },
	[COMPSC_EINVAL]		= { "invalid argument", EINVAL },
	[COMPSC_EBUSY]		= { "device is held by the host or being restored", EBUSY },
	[COMPSC_ETIMEDOUT]	= { "readers did not leave in time; device stays with the guest", ETIMEDOUT },
	[COMPSC_ENOSPC]		= { "no room: log or buffer full", ENOSPC },
	[COMPSC_ESTATE]		= { "operation not allowed in this state", EPROTO },
	[COMPSC_EBADMAGIC]	= { "stream: bad magic, not a CompSC migration stream", EBADMSG },
	[COMPSC_EWRONG_VERSION]	= { "stream: unsupported format version", EPROTONOSUPPORT },
	[COMPSC_ETRUNCATED]	= { "stream: truncated", ENODATA },
	[COMPSC_EOVERSIZE]	= { "stream: larger than allowed", EFBIG },
	[COMPSC_ECORRUPT]	= { "stream: checksum mismatch (corrupt)", EBADMSG },
	[COMPSC_EMALFORMED]	= { "stream: malformed record", EINVAL },
	[COMPSC_EDUPLICATE]	= { "stream: duplicated record", EINVAL },
	[COMPSC_EUNKNOWN_MANDATORY] = { "stream: unknown mandatory record", EOPNOTSUPP },
	[COMPSC_EWRONG_DEVICE]	= { "stream: made for a different device", ENODEV },
	[COMPSC_EMISSING]	= { "stream: required record missing", ENOMSG },
	[COMPSC_EAREA_MAGIC]	= { "area: bad magic", EINVAL },
	[COMPSC_EAREA_VERSION]	= { "area: unsupported ABI version", EPROTONOSUPPORT },
	[COMPSC_EAREA_LAYOUT]	= { "area: sections outside the area, misaligned or overlapping", EINVAL },
	[COMPSC_EREG_COUNT]	= { "area: too many entries", E2BIG },
	[COMPSC_EREG_BAR]	= { "area: register outside its BAR", EFAULT },
	[COMPSC_EREG_ALIGN]	= { "area: misaligned register", EINVAL },
	[COMPSC_EREG_WIDTH]	= { "area: bad register width", EINVAL },
	[COMPSC_EREG_KIND]	= { "area: bad register kind", EINVAL },
	[COMPSC_EREG_OVERLAP]	= { "area: overlapping registers", EINVAL },
	[COMPSC_EREG_DENIED]	= { "area: register not allowed", EPERM },
	[COMPSC_EREG_FLAGS]	= { "area: reserved bits set", EINVAL },
	[COMPSC_ENOTRESTORED]	= { "guest has not restored the last migration yet", EAGAIN },
	[COMPSC_EMISMATCH]	= { "stream does not match the area's lists", EINVAL },
	[COMPSC_EREPLAY_MAGIC]	= { "replay log: bad magic, not a replay log", EBADMSG },
	[COMPSC_EREPLAY_VERSION] = { "replay log: unsupported packed format version", EPROTONOSUPPORT },
	[COMPSC_EREPLAY_ROOM]	= { "replay log: capacity exceeds the log's room", EINVAL },
	[COMPSC_EREPLAY_COUNT]	= { "replay log: more records than its capacity", EINVAL },
	[COMPSC_EREPLAY_LEN]	= { "replay log: record length exceeds a record's room", EINVAL },
	[COMPSC_EREPLAY_FLAGS]	= { "replay log: reserved bits set in a record", EINVAL },
	[COMPSC_EREPLAY_SEQ]	= { "replay log: records out of sequence", EINVAL },
	[COMPSC_EREPLAY_DUPLICATE] = { "replay log: key recorded twice", EINVAL },
	[COMPSC_EREPLAY_TRUNCATED] = { "replay log: truncated", ENODATA },
	[COMPSC_EREPLAY_TRAILING] = { "replay log: bytes after the last record", EINVAL },
	[COMPSC_EREPLAY_CORRUPT] = { "replay log: checksum mismatch (corrupt)", EBADMSG },
	[COMPSC_EQSTOP]		= { "device queues did not stop in time; device stays with the guest", ETIME },
	[COMPSC_EUNLOGGED]	= { "DMA log: the device writes outside its ranges", EOPNOTSUPP },
	[COMPSC_EPRECOPY]	= { "stream: relies on a pre-copy configuration this host does not hold", EINVAL },
	[COMPSC_EREFUSED]	= { "the PF refused the shared area (no CompSC host): running stock", EOPNOTSUPP },
	[COMPSC_ENOSTATE]	= { "hand-over without state (the give failed)", EIO },
	[COMPSC_EABANDONED]	= { "hand-over without state (held too long)", ETIMEDOUT },
};

static const struct compsc_err_desc *compsc_err_lookup(int err)
{
	/* unsigned: any int, INT_MIN included, from a hostile dump is fine */
	u32 code = err < 0 ? 0u - (u32)err : (u32)err;

	if (code >= COMPSC_E_MAX || !compsc_errs[code].msg)
		return NULL;
	return &compsc_errs[code];
}

const char *compsc_strerror(int err)
{
	const struct compsc_err_desc *d = compsc_err_lookup(err);

	return d ? d->msg : "unknown error";
}
COMPSC_EXPORT(compsc_strerror);

int compsc_errno(int err)
{
	const struct compsc_err_desc *d = compsc_err_lookup(err);

	return d ? -d->err_no : -EINVAL;
}
COMPSC_EXPORT(compsc_errno);
