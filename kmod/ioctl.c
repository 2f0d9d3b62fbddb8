// SPDX-License-Identifier: GPL-2.0
/*
 * Command decoding for /dev/ordo, shared by ioctl and io_uring.
 *
 * Argument structs are extensible: the size comes from the ioctl number.  A
 * shorter struct than the first version is -EINVAL; a longer one is accepted
 * if its extra bytes are zero (-E2BIG otherwise), as copy_struct_from_user()
 * defines it.  Unknown commands, or known ones with the wrong direction
 * bits, are -ENOTTY.
 */
#include <linux/fs.h>
#include <linux/uaccess.h>
#include <linux/ordo.h>

#include "ordo.h"
#include "ops.h"
#include "store.h"
#include "trainer.h"

/* The ioctl number with its size bits cleared: what identifies a command. */
#define ORDO_IOC_BASE(cmd)	((cmd) & ~(_IOC_SIZEMASK << _IOC_SIZESHIFT))

union ordo_args {
	struct ordo_info info;
	struct ordo_kv kv;
	struct ordo_scan scan;
	struct ordo_batch batch;
	struct ordo_model_info model;
	struct ordo_retrain retrain;
};

/**
 * struct ordo_cmd_desc - what a command takes
 * @cmd: the ioctl number of the current struct version
 * @op: enum ordo_op for point operations, else 0
 * @size: size of the current struct version (the smallest accepted)
 */
struct ordo_cmd_desc {
	unsigned int cmd;
	u32 op;
	size_t size;
};

#define ORDO_CMD(c, o, t) { .cmd = (c), .op = (o), .size = sizeof(t) }

static const struct ordo_cmd_desc ordo_cmds[] = {
	ORDO_CMD(ORDO_IOC_INFO, 0, struct ordo_info),
	ORDO_CMD(ORDO_IOC_GET, ORDO_OP_GET, struct ordo_kv),
	ORDO_CMD(ORDO_IOC_PUT, ORDO_OP_PUT, struct ordo_kv),
	ORDO_CMD(ORDO_IOC_INSERT, ORDO_OP_INSERT, struct ordo_kv),
	ORDO_CMD(ORDO_IOC_UPDATE, ORDO_OP_UPDATE, struct ordo_kv),
	ORDO_CMD(ORDO_IOC_DELETE, ORDO_OP_DELETE, struct ordo_kv),
	ORDO_CMD(ORDO_IOC_SCAN, 0, struct ordo_scan),
	ORDO_CMD(ORDO_IOC_BATCH, 0, struct ordo_batch),
	ORDO_CMD(ORDO_IOC_MODEL_INFO, 0, struct ordo_model_info),
	ORDO_CMD(ORDO_IOC_RETRAIN, 0, struct ordo_retrain),
};

static const struct ordo_cmd_desc *ordo_cmd_find(unsigned int cmd)
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
 * ordo_cmd_size - validate a command number and its argument size
 * @cmd: ioctl number (or io_uring cmd_op)
 * @usize: bytes the caller passes
 *
 * Return: the descriptor, or an ERR_PTR: -ENOTTY or -EINVAL.
 */
static const struct ordo_cmd_desc *ordo_cmd_size(unsigned int cmd,
						 size_t usize)
{
	const struct ordo_cmd_desc *d;

	if (_IOC_TYPE(cmd) != ORDO_IOC_MAGIC)
		return ERR_PTR(-ENOTTY);
	d = ordo_cmd_find(cmd);
	if (!d)
		return ERR_PTR(-ENOTTY);
	if (usize < d->size)
		return ERR_PTR(-EINVAL);
	return d;
}

long ordo_cmd(struct ordo_dev *od, unsigned int cmd, void *arg, size_t size)
{
	const struct ordo_cmd_desc *d = ordo_cmd_find(cmd);
	long ret;

	if (!d)
		return -ENOTTY;
	if (d->op)
		ret = ordo_op_kv(od, d->op, arg);
	else if (d->cmd == ORDO_IOC_SCAN)
		ret = ordo_op_scan(od, arg);
	else if (d->cmd == ORDO_IOC_BATCH)
		ret = ordo_op_batch(od, arg);
	else if (d->cmd == ORDO_IOC_RETRAIN)
		ret = ordo_op_retrain(od, arg);
	else
		ret = 0;	/* INFO: filled below for every caller */
	if (d->cmd == ORDO_IOC_INFO)
		ordo_store_info(od, arg);
	if (d->cmd == ORDO_IOC_MODEL_INFO)
		ordo_trainer_info(od, arg);
	if (ret < 0)
		ordo_stat_inc(od, ORDO_STAT_ERRORS);
	return ret;
}

long ordo_ioctl(struct file *file, unsigned int cmd, unsigned long arg)
{
	const struct ordo_cmd_desc *d;
	void __user *uarg = (void __user *)arg;
	size_t usize = _IOC_SIZE(cmd);
	union ordo_args args;
	long ret;

	d = ordo_cmd_size(cmd, usize);
	if (IS_ERR(d)) {
		ordo_stat_inc(ordo, ORDO_STAT_ERRORS);
		return PTR_ERR(d);
	}
	memset(&args, 0, sizeof(args));
	if (_IOC_DIR(cmd) & _IOC_WRITE) {
		ret = copy_struct_from_user(&args, d->size, uarg, usize);
		if (ret) {
			ordo_stat_inc(ordo, ORDO_STAT_ERRORS);
			return ret;
		}
	}
	ret = ordo_cmd(ordo, cmd, &args, d->size);
	if (ret < 0 || !(_IOC_DIR(cmd) & _IOC_READ))
		return ret;
	/* A newer caller's extra output bytes are zeroed: nothing there yet. */
	if (usize > d->size && clear_user(uarg + d->size, usize - d->size))
		return -EFAULT;
	if (copy_to_user(uarg, &args, d->size))
		return -EFAULT;
	return ret;
}

/**
 * ordo_cmd_payload - run a command whose argument struct is in kernel memory
 * @od: the device
 * @cmd: ioctl number (io_uring cmd_op)
 * @payload: the argument bytes (an io_uring SQE's command area)
 * @len: bytes available at @payload
 *
 * The struct is copied once before it is looked at, since @payload may be
 * shared with user space.  There is nowhere to write output structs back,
 * so INFO and MODEL_INFO are not available here.
 *
 * Return: pairs returned by SCAN, entries done by BATCH, else 0; or -errno.
 */
long ordo_cmd_payload(struct ordo_dev *od, unsigned int cmd,
		      const void *payload, size_t len)
{
	const struct ordo_cmd_desc *d;
	size_t usize = _IOC_SIZE(cmd);
	u8 raw[sizeof(union ordo_args) + 64];
	union ordo_args args;
	long ret;

	d = ordo_cmd_size(cmd, usize);
	if (IS_ERR(d)) {
		ret = PTR_ERR(d);
		goto err;
	}
	ret = -EOPNOTSUPP;
	if (d->cmd == ORDO_IOC_INFO || d->cmd == ORDO_IOC_MODEL_INFO)
		goto err;
	ret = -EINVAL;
	if (usize > len || usize > sizeof(raw))
		goto err;
	memcpy(raw, payload, usize);
	ret = -E2BIG;
	if (memchr_inv(raw + d->size, 0, usize - d->size))
		goto err;
	memset(&args, 0, sizeof(args));
	memcpy(&args, raw, d->size);
	ret = ordo_cmd(od, cmd, &args, d->size);
	if (ret < 0)
		return ret;
	if (d->cmd == ORDO_IOC_SCAN)
		return args.scan.returned;
	if (d->cmd == ORDO_IOC_BATCH)
		return args.batch.done;
	return ret;
err:
	ordo_stat_inc(od, ORDO_STAT_ERRORS);
	return ret;
}
