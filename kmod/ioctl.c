// SPDX-License-Identifier: GPL-2.0
/*
 * The ioctl and io_uring entry points of /dev/ordo.  Commands and their
 * argument structs are decoded by core/cmd.c (extensible structs, sizes
 * from the ioctl number, -ENOTTY for unknown commands).
 */
#include <linux/fs.h>
#include <linux/uaccess.h>
#include <linux/ordo.h>

#include "cmd.h"
#include "ordo.h"
#include "ops.h"
#include "store.h"
#include "trainer.h"

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

	ret = ordo_cmd_size(cmd, usize, &d);
	if (ret) {
		ordo_stat_inc(ordo, ORDO_STAT_ERRORS);
		return ret;
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
	if (!(_IOC_DIR(cmd) & _IOC_READ))
		return ret;
	/* A GET's -ENOBUFS says how long the value is. */
	if (ret == -ENOBUFS && d->op == ORDO_OP_GET) {
		if (put_user(args.kv.value_len,
			     &((struct ordo_kv __user *)uarg)->value_len))
			return -EFAULT;
		return ret;
	}
	if (ret < 0)
		return ret;
	/*
	 * The struct first (an older caller's shorter one: its bytes only):
	 * a buffer whose head cannot be written fails before any byte is
	 * written.  Then a newer caller's extra output bytes are zeroed
	 * (nothing there yet).
	 */
	if (copy_to_user(uarg, &args, min(usize, d->size)))
		return -EFAULT;
	if (usize > d->size && clear_user(uarg + d->size, usize - d->size))
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
 * Return: pairs returned by SCAN, entries done by BATCH, the value's
 * length for GET, else 0; or -errno.
 */
long ordo_cmd_payload(struct ordo_dev *od, unsigned int cmd,
		      const void *payload, size_t len)
{
	const struct ordo_cmd_desc *d;
	union ordo_args args;
	long ret;

	ret = ordo_cmd_decode(cmd, payload, len, &args, &d);
	if (ret) {
		ordo_stat_inc(od, ORDO_STAT_ERRORS);
		return ret;
	}
	ret = ordo_cmd(od, cmd, &args, d->size);
	if (ret < 0)
		return ret;
	if (d->cmd == ORDO_IOC_SCAN)
		return args.scan.returned;
	if (d->cmd == ORDO_IOC_BATCH)
		return args.batch.done;
	if (d->op == ORDO_OP_GET)
		return args.kv.value_len;
	return ret;
}
