// SPDX-License-Identifier: GPL-2.0
/*
 * /dev/ordo: the misc character device and its file operations.
 */
#include <linux/fs.h>
#include <linux/miscdevice.h>
#include <linux/module.h>

#include "ordo.h"

static const struct file_operations ordo_fops = {
	.owner		= THIS_MODULE,
	.open		= nonseekable_open,
	.llseek		= no_llseek,
	.unlocked_ioctl	= ordo_ioctl,
	.compat_ioctl	= compat_ptr_ioctl,
	.mmap		= ordo_mmap,
	.uring_cmd	= ordo_uring_cmd,
};

int ordo_chardev_register(struct ordo_dev *od)
{
	od->misc.minor = MISC_DYNAMIC_MINOR;
	od->misc.name = "ordo";
	od->misc.fops = &ordo_fops;
	od->misc.groups = ordo_sysfs_groups;
	od->misc.mode = 0600;
	return misc_register(&od->misc);
}

void ordo_chardev_unregister(struct ordo_dev *od)
{
	misc_deregister(&od->misc);
}
