// SPDX-License-Identifier: GPL-2.0
/*
 * Command decoding for /dev/ordo, shared by ioctl and io_uring (cmd.h).
 *
 * Argument structs are extensible: the size comes from the ioctl number.  A
 * shorter struct than the first version is -EINVAL; an older (shorter)
 * one reads as zero past its end and gets only its own bytes back; a
 * longer one is accepted if its extra bytes are zero (-E2BIG otherwise),
 * as copy_struct_from_user() defines it.  Unknown commands, or known ones
 * with the wrong direction bits, are -ENOTTY.
 */
#include "cmd.h"

#define ORDO_CMD_GREW(c, o, t, first)					\
	{ .cmd = (c), .op = (o), .size = sizeof(t), .min_size = (first) }
#define ORDO_CMD(c, o, t)	ORDO_CMD_GREW(c, o, t, sizeof(t))

static const struct ordo_cmd_desc ordo_cmds[] = {
	ORDO_CMD(ORDO_IOC_INFO, 0, struct ordo_info),
	ORDO_CMD(ORDO_IOC_GET, ORDO_OP_GET, struct ordo_kv),
	ORDO_CMD(ORDO_IOC_PUT, ORDO_OP_PUT, struct ordo_kv),
	ORDO_CMD(ORDO_IOC_INSERT, ORDO_OP_INSERT, struct ordo_kv),
	ORDO_CMD(ORDO_IOC_UPDATE, ORDO_OP_UPDATE, struct ordo_kv),
	ORDO_CMD(ORDO_IOC_DELETE, ORDO_OP_DELETE, struct ordo_kv),
	ORDO_CMD_GREW(ORDO_IOC_SCAN, 0, struct ordo_scan,
		      ORDO_SCAN_SIZE_VER0),
	ORDO_CMD(ORDO_IOC_BATCH, 0, struct ordo_batch),
	ORDO_CMD_GREW(ORDO_IOC_MODEL_INFO, 0, struct ordo_model_info,
		      ORDO_MODEL_INFO_SIZE_VER0),
	ORDO_CMD(ORDO_IOC_RETRAIN, 0, struct ordo_retrain),
};

/**
 * ordo_cmd_find() - the command an ioctl number names, whatever its size
 * @cmd: ioctl number (or io_uring cmd_op)
 *
 * Return: the descriptor, or NULL.
 */
const struct ordo_cmd_desc *ordo_cmd_find(unsigned int cmd)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(ordo_cmds); i++) {
		unsigned int c = ordo_cmds[i].cmd;

		if (ORDO_IOC_BASE(cmd) == ORDO_IOC_BASE(c) &&
		    _IOC_DIR(cmd) == _IOC_DIR(c))
			return &ordo_cmds[i];
	}
	return NULL;
}

/**
 * ordo_cmd_size() - validate a command number and its argument size
 * @cmd: ioctl number (or io_uring cmd_op)
 * @usize: bytes the caller passes
 * @dp: out: the descriptor; @usize is at least its min_size
 *
 * Return: 0, -ENOTTY or -EINVAL.
 */
int ordo_cmd_size(unsigned int cmd, size_t usize,
		  const struct ordo_cmd_desc **dp)
{
	const struct ordo_cmd_desc *d;

	if (_IOC_TYPE(cmd) != ORDO_IOC_MAGIC)
		return -ENOTTY;
	d = ordo_cmd_find(cmd);
	if (!d)
		return -ENOTTY;
	if (usize < d->min_size)
		return -EINVAL;
	*dp = d;
	return 0;
}

/**
 * ordo_cmd_decode() - decode a command whose argument bytes are in memory
 * @cmd: ioctl number (io_uring cmd_op)
 * @payload: the argument bytes (an io_uring SQE's command area)
 * @len: bytes available at @payload
 * @args: out: the argument struct of the current version
 * @dp: out: the descriptor
 *
 * The bytes are copied once before they are looked at, since @payload may
 * be shared with user space.  There is nowhere to write output structs
 * back, so INFO and MODEL_INFO are not available this way.
 *
 * Return: 0; -ENOTTY, -EINVAL (size), -EOPNOTSUPP (INFO, MODEL_INFO) or
 * -E2BIG (non-zero bytes past the current struct).
 */
int ordo_cmd_decode(unsigned int cmd, const void *payload, size_t len,
		    union ordo_args *args, const struct ordo_cmd_desc **dp)
{
	const struct ordo_cmd_desc *d;
	size_t usize = _IOC_SIZE(cmd);
	u8 raw[ORDO_CMD_PAYLOAD_MAX];
	int ret;

	ret = ordo_cmd_size(cmd, usize, &d);
	if (ret)
		return ret;
	if (d->cmd == ORDO_IOC_INFO || d->cmd == ORDO_IOC_MODEL_INFO)
		return -EOPNOTSUPP;
	if (usize > len || usize > sizeof(raw))
		return -EINVAL;
	memcpy(raw, payload, usize);
	if (usize > d->size && memchr_inv(raw + d->size, 0, usize - d->size))
		return -E2BIG;
	memset(args, 0, sizeof(*args));
	memcpy(args, raw, min(usize, d->size));
	*dp = d;
	return 0;
}

/**
 * ordo_kv_check() - validate a point operation before anything executes
 * @op: enum ordo_op
 * @kv: the arguments, already copied into the kernel
 * @value_size: the store's value size: the smallest GET buffer
 * @value_max: the longest value a write may carry here
 *
 * Return: 0, or -EINVAL (unknown op, flags set), -EMSGSIZE (value larger
 * than @value_max), -ENOBUFS (GET buffer smaller than @value_size),
 * -EFAULT (NULL value pointer; an empty write may pass any pointer).
 */
int ordo_kv_check(u32 op, const struct ordo_kv *kv, u32 value_size,
		  u32 value_max)
{
	if (op < ORDO_OP_GET || op > ORDO_OP_DELETE || kv->flags)
		return -EINVAL;
	if (op == ORDO_OP_DELETE)
		return 0;
	if (op == ORDO_OP_GET)
		return !kv->value ? -EFAULT :
		       kv->value_len < value_size ? -ENOBUFS : 0;
	if (kv->value_len > value_max)
		return -EMSGSIZE;
	return kv->value || !kv->value_len ? 0 : -EFAULT;
}

/**
 * ordo_scan_check() - validate SCAN arguments
 * @sc: the arguments
 *
 * Return: 0, -EINVAL (flags, count 0), -E2BIG (count over
 * %ORDO_SCAN_MAX) or -EFAULT (no key buffer).
 */
int ordo_scan_check(const struct ordo_scan *sc)
{
	if (sc->flags || !sc->count)
		return -EINVAL;
	if (sc->count > ORDO_SCAN_MAX)
		return -E2BIG;
	return sc->keys ? 0 : -EFAULT;
}

/**
 * ordo_batch_check() - validate BATCH arguments (the entries are checked
 *	one by one with ordo_kv_check())
 * @b: the arguments
 *
 * Return: 0, -EINVAL (flags, reserved, count 0) or -E2BIG (count over
 * %ORDO_BATCH_MAX).
 */
int ordo_batch_check(const struct ordo_batch *b)
{
	if (b->flags || b->reserved || !b->count)
		return -EINVAL;
	return b->count > ORDO_BATCH_MAX ? -E2BIG : 0;
}

/**
 * ordo_retrain_check() - validate RETRAIN arguments
 * @r: the arguments
 *
 * Return: 0 or -EINVAL (flags, reserved).
 */
int ordo_retrain_check(const struct ordo_retrain *r)
{
	return r->flags || r->reserved ? -EINVAL : 0;
}
