// SPDX-License-Identifier: GPL-2.0
/*
 * ioctl dispatch for /dev/ordo.  Argument structs are extensible: the size
 * comes from the ioctl number, older and newer layouts are accepted the way
 * copy_struct_from_user() defines it.
 */
#include <linux/fs.h>
#include <linux/uaccess.h>
#include <linux/ordo.h>

#include "ordo.h"

/* The ioctl number with its size bits cleared: what identifies a command. */
#define ORDO_IOC_BASE(cmd)	((cmd) & ~(_IOC_SIZEMASK << _IOC_SIZESHIFT))

static long ordo_ioc_info(struct ordo_dev *od, void __user *uarg,
			  size_t usize)
{
	struct ordo_info info;

	if (usize < sizeof(info))
		return -EINVAL;
	memset(&info, 0, sizeof(info));
	info.abi_version = ORDO_ABI_VERSION;
	strscpy(info.version, ORDO_VERSION, sizeof(info.version));
	info.value_size = ordo_value_size;
	info.leaf_slots = ordo_leaf_slots;
	info.node_size = ALIGN(64 + ordo_leaf_slots * (8 + ordo_value_size), 64);
	info.inner_fanout = (info.node_size - 64) / 12;
	info.chunk_size = ordo_chunk_kb * 1024;
	info.max_chunks = div_u64((u64)ordo_max_memory_mb * 1024, ordo_chunk_kb);
	info.height = 1;
	/* A newer caller's extra bytes are zeroed: nothing there yet. */
	if (clear_user(uarg + sizeof(info), usize - sizeof(info)))
		return -EFAULT;
	if (copy_to_user(uarg, &info, sizeof(info)))
		return -EFAULT;
	return 0;
}

long ordo_ioctl(struct file *file, unsigned int cmd, unsigned long arg)
{
	void __user *uarg = (void __user *)arg;
	size_t usize = _IOC_SIZE(cmd);
	long ret;

	if (_IOC_TYPE(cmd) != ORDO_IOC_MAGIC)
		return -ENOTTY;
	switch (ORDO_IOC_BASE(cmd)) {
	case ORDO_IOC_BASE(ORDO_IOC_INFO):
		if (_IOC_DIR(cmd) != _IOC_READ)
			return -ENOTTY;
		ret = ordo_ioc_info(ordo, uarg, usize);
		break;
	default:
		return -ENOTTY;
	}
	if (ret < 0)
		ordo_stat_inc(ordo, ORDO_STAT_ERRORS);
	return ret;
}
