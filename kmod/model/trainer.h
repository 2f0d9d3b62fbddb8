/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The learned-model trainer of ordo.ko: a kernel thread that trains the
 * model over the tree's leaf level, keeps it fresh as leaves split or are
 * retired, and publishes it in the model region (chunks mapped read-only to
 * user space and, later, registered for remote reads).
 */
#ifndef ORDO_MODEL_TRAINER_H
#define ORDO_MODEL_TRAINER_H

#include <linux/mutex.h>
#include <linux/seqlock.h>
#include <linux/spinlock.h>
#include <linux/wait.h>
#include <linux/ordo.h>

#include "chunks.h"
#include "model.h"
#include "tree.h"

struct ordo_dev;
struct task_struct;

/* Split keys queued for sub-model retraining; more means a full training. */
#define ORDO_TRAIN_QUEUE	1024

/**
 * struct ordo_model_mem - the model region's memory
 * @chunks: physically contiguous chunks, mapped at ORDO_MMAP_MODEL
 * @vaddr: kernel address of each allocated chunk, for ordo_region
 * @nr: chunks allocated (a prefix of @chunks)
 * @chunk_shift: log2 of the chunk size
 * @live: region offset of the published image, 0 before the first
 * @live_bytes: its size
 * @seq: odd while the trainer changes the live image or the anchor, so
 *	that RPCs copy consistent bytes (one-sided readers check sums)
 */
struct ordo_model_mem {
	struct ordo_chunks chunks;
	void **vaddr;
	u32 nr;
	u32 chunk_shift;
	u64 live;
	u64 live_bytes;
	seqcount_t seq;
};

/**
 * struct ordo_trainer - trainer state, one per device
 * @od: the device
 * @task: the kernel thread
 * @wq: where the thread waits for work
 * @done_wq: where RETRAIN callers wait for a full training
 * @model: the trainer's model; only the thread touches it
 * @params: training parameters (module parameters applied)
 * @mem: the model region
 * @hooks: tree callbacks (leaf split, leaf retired)
 * @first_epoch: epoch of the first model of this load, random, < 2^63
 * @full_due: a full training is needed (queue overflow, failed patch)
 * @renumbered: a retraining of this round renumbered sub-models (a middle
 *	cut, a merge): the live image cannot take patches, and @model is
 *	written as a new image once, at the round's end
 * @last_full: jiffies of the last full training
 * @full_retry_at: no full training the trainer starts by itself before
 *	this (jiffies), after one failed
 * @full_backoff: the wait before the next try, doubled by each failure
 * @full_failures: full trainings that failed since load (sysfs)
 * @inflight: work the thread has taken on but not published yet
 * @drained: the thread's copy of @queue
 * @lock: protects the fields below it
 * @queue: keys of splits and retirements not yet retrained
 * @nqueue: entries in @queue
 * @overflow: @queue overflowed: retrain [@ov_lo, @ov_hi] or train anew
 * @ov_lo: smallest key that did not fit in @queue
 * @ov_hi: largest key that did not fit in @queue
 * @full_requests: RETRAIN requests so far
 * @full_done: RETRAIN requests served (with @last_result)
 * @last_result: result of the latest requested full training
 * @info: what ORDO_IOC_MODEL_INFO and sysfs report
 */
struct ordo_trainer {
	struct ordo_dev *od;
	struct task_struct *task;
	wait_queue_head_t wq;
	wait_queue_head_t done_wq;
	struct ordo_model *model;
	struct ordo_model_params params;
	struct ordo_model_mem mem;
	struct ordo_tree_hooks hooks;
	u64 first_epoch;
	bool full_due;
	bool renumbered;
	unsigned long last_full;
	unsigned long full_retry_at;
	unsigned long full_backoff;
	atomic64_t full_failures;
	u32 inflight;
	u64 drained[ORDO_TRAIN_QUEUE];

	spinlock_t lock;	/* the queue, requests and info */
	u64 queue[ORDO_TRAIN_QUEUE];
	u32 nqueue;
	bool overflow;
	u64 ov_lo;
	u64 ov_hi;
	u64 full_requests;
	u64 full_done;
	int last_result;
	struct ordo_model_info info;
};

int ordo_trainer_start(struct ordo_dev *od);
void ordo_trainer_stop(struct ordo_dev *od);
int ordo_trainer_retrain(struct ordo_dev *od, u64 *version);
void ordo_trainer_info(struct ordo_dev *od, struct ordo_model_info *info);
u64 ordo_trainer_failures(struct ordo_dev *od);
/* Test facility (debugfs): while non-zero, every full training fails. */
extern u32 ordo_trainer_fail_fulls;

/* region.c */
int ordo_model_mem_init(struct ordo_model_mem *mm, u64 chunk_size,
			u64 max_bytes);
void ordo_model_mem_destroy(struct ordo_model_mem *mm);
int ordo_model_mem_fit(struct ordo_model_mem *mm, u64 base, u64 bytes,
		       struct ordo_region *rg);
bool ordo_model_mem_room(const struct ordo_model_mem *mm, u64 bytes);
int ordo_model_mem_publish(struct ordo_model_mem *mm,
			   const struct ordo_model *m);
int ordo_model_mem_patch(struct ordo_model_mem *mm,
			 const struct ordo_model *m, u32 sub);
int ordo_model_mem_grow(struct ordo_model_mem *mm, const struct ordo_model *m);

/* snapshot.c */
int ordo_snapshot_leaves(struct ordo_tree *t, u64 lo, u64 hi, bool last,
			 struct ordo_leaf_set *set, u32 *key_cap);
void ordo_snapshot_free(struct ordo_leaf_set *set);

extern const struct attribute_group ordo_model_group;

#endif /* ORDO_MODEL_TRAINER_H */
