/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ordo.ko internals shared between its files.
 */
#ifndef ORDO_KMOD_H
#define ORDO_KMOD_H

#include <linux/io_uring.h>
#include <linux/miscdevice.h>
#include <linux/mm_types.h>
#include <linux/percpu.h>
#include <linux/types.h>

#include "chunks.h"
#include "tree.h"

#define ORDO_VERSION	"0.4.0"

struct ordo_rdma;
struct ordo_trainer;

/* Per-CPU operation counters; summed when sysfs reads them. */
enum ordo_stat {
	ORDO_STAT_GETS,
	ORDO_STAT_PUTS,
	ORDO_STAT_INSERTS,
	ORDO_STAT_UPDATES,
	ORDO_STAT_DELETES,
	ORDO_STAT_SCANS,
	ORDO_STAT_ERRORS,
	ORDO_STAT_NR,
};

struct ordo_stats {
	u64 count[ORDO_STAT_NR];
};

/**
 * struct ordo_dev - the one ordo instance of this host
 * @misc: /dev/ordo
 * @stats: per-CPU operation counters
 * @pool_mem: the chunks behind the node pool
 * @tree: the B-link tree (and its node pool)
 * @rdma: the RDMA server (kmod/rdma/), NULL when not running
 * @trainer: the learned-model trainer (kmod/model/)
 * @deletes_unretired: deletes since the trainer last retired empty leaves
 */
struct ordo_dev {
	struct miscdevice misc;
	struct ordo_stats __percpu *stats;
	struct ordo_chunks pool_mem;
	struct ordo_tree tree;
	struct ordo_rdma *rdma;
	struct ordo_trainer *trainer;
	atomic64_t deletes_unretired;
};

extern struct ordo_dev *ordo;

/* Module parameters, validated at load (main.c). */
extern unsigned int ordo_value_size;
extern unsigned int ordo_leaf_slots;
extern unsigned int ordo_max_memory_mb;
extern unsigned int ordo_chunk_kb;

static inline void ordo_stat_inc(struct ordo_dev *od, enum ordo_stat s)
{
	this_cpu_inc(od->stats->count[s]);
}

u64 ordo_stat_sum(struct ordo_dev *od, enum ordo_stat s);

int ordo_chardev_register(struct ordo_dev *od);
void ordo_chardev_unregister(struct ordo_dev *od);
long ordo_ioctl(struct file *file, unsigned int cmd, unsigned long arg);
int ordo_mmap(struct file *file, struct vm_area_struct *vma);
int ordo_uring_cmd(struct io_uring_cmd *ioucmd, unsigned int issue_flags);

extern const struct attribute_group *ordo_sysfs_groups[];

/* The RDMA server (kmod/rdma/): after the misc device, before the store goes. */
int ordo_rdma_init(struct ordo_dev *od);
void ordo_rdma_exit(struct ordo_dev *od);

#endif /* ORDO_KMOD_H */
