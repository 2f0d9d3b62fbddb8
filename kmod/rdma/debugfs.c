// SPDX-License-Identifier: GPL-2.0
/*
 * Test facilities of the RDMA server, in debugfs (root only) under
 * /sys/kernel/debug/ordo/ (Documentation/testing.rst):
 *
 *	fail_registrations	the next N chains of memory registrations
 *				fail as if the device refused their post
 *	qp_inline_limit		QPs created from now on are refused inline
 *				data above N bytes, as by a device with
 *				that limit (0: off)
 *	dma_unsynced		while non-zero, RDMA devices added are taken
 *				as needing DMA syncs, and so not served
 *				(0: off)
 *	fail_full_trainings	while non-zero, every full training of the
 *				model fails after its snapshot and training,
 *				as when its image has no room (0: off)
 *
 * They let the tests reach paths a healthy soft-RoCE device never takes;
 * nothing else reads or needs them.
 */
#include <linux/debugfs.h>
#include <linux/fs.h>
#include <linux/limits.h>

#include "server.h"
#include "trainer.h"

static struct dentry *ordo_debugfs_dir;

static int ordo_fail_reg_get(void *data, u64 *val)
{
	*val = atomic_read(&ordo_reg_fail_posts);
	return 0;
}

static int ordo_fail_reg_set(void *data, u64 val)
{
	if (val > INT_MAX)
		return -EINVAL;
	atomic_set(&ordo_reg_fail_posts, val);
	return 0;
}

DEFINE_DEBUGFS_ATTRIBUTE(ordo_fail_reg_fops, ordo_fail_reg_get,
			 ordo_fail_reg_set, "%llu\n");

void ordo_rdma_debugfs_init(void)
{
	/* Errors are not checked: debugfs is optional (debugfs.h). */
	ordo_debugfs_dir = debugfs_create_dir("ordo", NULL);
	debugfs_create_file_unsafe("fail_registrations", 0600,
				   ordo_debugfs_dir, NULL,
				   &ordo_fail_reg_fops);
	debugfs_create_u32("qp_inline_limit", 0600, ordo_debugfs_dir,
			   &ordo_rdma_inline_limit);
	debugfs_create_u32("dma_unsynced", 0600, ordo_debugfs_dir,
			   &ordo_rdma_dma_unsynced);
	debugfs_create_u32("fail_full_trainings", 0600, ordo_debugfs_dir,
			   &ordo_trainer_fail_fulls);
}

void ordo_rdma_debugfs_exit(void)
{
	debugfs_remove(ordo_debugfs_dir);
	ordo_debugfs_dir = NULL;
	atomic_set(&ordo_reg_fail_posts, 0);
	ordo_rdma_inline_limit = 0;
	ordo_rdma_dma_unsynced = 0;
	ordo_trainer_fail_fulls = 0;
}
