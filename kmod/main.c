// SPDX-License-Identifier: GPL-2.0
/*
 * ordo.ko: module parameters, load and unload.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/slab.h>

#include "ordo.h"
#include "store.h"
#include "trainer.h"

struct ordo_dev *ordo;

unsigned int ordo_value_size = 8;
module_param_named(value_size, ordo_value_size, uint, 0444);
MODULE_PARM_DESC(value_size, "Longest value kept inline in a leaf, bytes: 8..1024 (default 8); longer ones go out of line");

unsigned int ordo_leaf_slots = 16;
module_param_named(leaf_slots, ordo_leaf_slots, uint, 0444);
MODULE_PARM_DESC(leaf_slots, "Key/value slots per leaf: 4..255 (default 16)");

unsigned int ordo_max_memory_mb = 1024;
module_param_named(max_memory_mb, ordo_max_memory_mb, uint, 0444);
MODULE_PARM_DESC(max_memory_mb, "Upper bound of the node pool in MiB (default 1024)");

unsigned int ordo_chunk_kb = 2048;
module_param_named(chunk_kb, ordo_chunk_kb, uint, 0444);
MODULE_PARM_DESC(chunk_kb, "Node pool chunk size in KiB: a power of two, 64..4096 (default 2048)");

static int ordo_check_params(void)
{
	if (ordo_value_size < 8 || ordo_value_size > 1024) {
		pr_err("value_size=%u: must be 8..1024\n", ordo_value_size);
		return -EINVAL;
	}
	if (ordo_leaf_slots < 4 || ordo_leaf_slots > 255) {
		pr_err("leaf_slots=%u: must be 4..255\n", ordo_leaf_slots);
		return -EINVAL;
	}
	if (ordo_chunk_kb < 64 || ordo_chunk_kb > 4096 ||
	    !is_power_of_2(ordo_chunk_kb)) {
		pr_err("chunk_kb=%u: must be a power of two in 64..4096\n",
		       ordo_chunk_kb);
		return -EINVAL;
	}
	if (!ordo_max_memory_mb ||
	    (u64)ordo_max_memory_mb * 1024 < ordo_chunk_kb) {
		pr_err("max_memory_mb=%u: must hold at least one chunk\n",
		       ordo_max_memory_mb);
		return -EINVAL;
	}
	return 0;
}

static int __init ordo_init(void)
{
	struct ordo_dev *od;
	int ret;

	ret = ordo_check_params();
	if (ret)
		return ret;

	od = kzalloc(sizeof(*od), GFP_KERNEL);
	if (!od)
		return -ENOMEM;
	od->stats = alloc_percpu(struct ordo_stats);
	if (!od->stats) {
		ret = -ENOMEM;
		goto err_free;
	}
	ret = ordo_store_init(od);
	if (ret)
		goto err_stats;
	ordo = od;
	ret = ordo_trainer_start(od);
	if (ret)
		goto err_store;

	ret = ordo_chardev_register(od);
	if (ret)
		goto err_trainer;
	ret = ordo_rdma_init(od);
	if (ret)
		goto err_chardev;

	pr_info("version %s loaded: value_size=%u leaf_slots=%u max_memory_mb=%u\n",
		ORDO_VERSION, ordo_value_size, ordo_leaf_slots,
		ordo_max_memory_mb);
	return 0;

err_chardev:
	ordo_chardev_unregister(od);
err_trainer:
	ordo_trainer_stop(od);
err_store:
	ordo_store_destroy(od);
err_stats:
	free_percpu(od->stats);
err_free:
	ordo = NULL;
	kfree(od);
	return ret;
}

static void __exit ordo_exit(void)
{
	struct ordo_dev *od = ordo;

	ordo_rdma_exit(od);
	ordo_chardev_unregister(od);
	ordo_trainer_stop(od);
	ordo_store_destroy(od);
	free_percpu(od->stats);
	ordo = NULL;
	kfree(od);
	pr_info("unloaded\n");
}

module_init(ordo_init);
module_exit(ordo_exit);

MODULE_LICENSE("GPL");
MODULE_AUTHOR("The ordo authors");
MODULE_DESCRIPTION("ordo: ordered key-value store for RDMA networks");
MODULE_VERSION(ORDO_VERSION);
