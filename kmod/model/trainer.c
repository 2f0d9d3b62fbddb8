// SPDX-License-Identifier: GPL-2.0
/*
 * The trainer thread.  Writers never wait for it: a leaf split only queues
 * its separator key (the split hook runs in the writer's process context,
 * with no node lock held) and wakes the thread.  The thread
 *
 *  - trains the full model when there is none yet and the store has keys
 *    and has been quiet for a second (after a bulk load), or on RETRAIN;
 *  - otherwise retrains only the sub-models whose domains hold queued keys
 *    and patches them into the region (slice first, then descriptor);
 *  - trains a complete new model with more (or fewer) sub-models when the
 *    model's health says so (expansion/shrink thresholds);
 *  - falls back to a full training when the queue overflowed or a patch
 *    cannot be applied in place;
 *  - after deletes, retires empty leaves (their nodes are reused by later
 *    splits; stale TT entries see the changed incarnations) and retrains
 *    the sub-models that named them, merged with a neighbour when the
 *    heir's range reaches across their pivot.
 *
 * Publication never blocks readers: a full training writes its image beside
 * the live one and moves the region's anchor to it, so the live image
 * stays whole for the training's length; each sub-model's descriptor
 * carries a checksum over its slice and the model epoch, so a client that
 * reads a sub-model while it is being patched, or a sub-model of an image
 * already replaced and being overwritten, detects it and reads again.  TT
 * entries of older models keep naming real leaves; a stale client detects
 * changed leaves by incarnation and fences.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/kthread.h>
#include <linux/random.h>
#include <linux/sort.h>
#include <linux/timekeeping.h>

#include "ordo.h"
#include "trainer.h"

static unsigned int ordo_model_max_mb;
module_param_named(model_max_mb, ordo_model_max_mb, uint, 0444);
MODULE_PARM_DESC(model_max_mb, "Upper bound of the model region in MiB (default 0: half of max_memory_mb, at least 64)");

static unsigned int ordo_model_leaves_per_sub = 512;
module_param_named(model_leaves_per_sub, ordo_model_leaves_per_sub, uint, 0444);
MODULE_PARM_DESC(model_leaves_per_sub, "Target leaves per sub-model of a full training (default 512)");

static unsigned int ordo_model_expand_err_x = 4;
module_param_named(model_expand_err_x, ordo_model_expand_err_x, uint, 0444);
MODULE_PARM_DESC(model_expand_err_x, "Expand the model when a sub-model's error window grows this many times past the trained bound (default 4)");

/*
 * The region holds two images while a new one is published (about a
 * tenth of the pool's bytes each), so by default it may grow to half the
 * pool's limit: the store, not the model, runs out of room first.  The
 * memory is allocated only as images need it.
 */
static u64 ordo_model_max_bytes(void)
{
	u64 mb = ordo_model_max_mb ?: max(64U, ordo_max_memory_mb / 2);

	return mb << 20;
}

/* A full training that is due waits for a quiet store at most this long. */
#define ORDO_FULL_EVERY	(5 * HZ)

/*
 * After a failed full training (no room for the image, no memory for the
 * snapshot), the trainer tries again by itself after 1 s, doubling up to
 * 64 s: each try snapshots and trains the whole tree first.
 */
#define ORDO_FULL_BACKOFF_MIN	HZ
#define ORDO_FULL_BACKOFF_MAX	(64 * HZ)

/* Test facility (debugfs fail_full_trainings): fail every full training. */
u32 ordo_trainer_fail_fulls;

/*
 * Sub-models retrained for an overflowed queue, at most; a wider range of
 * dropped keys (a bulk load at random) is served by a full training.
 */
#define ORDO_OVERFLOW_SUBS	64

/*
 * Sub-models one retraining joins, at most, when retired leaves reach
 * across their pivots; more (a range delete) is a full training's work.
 */
#define ORDO_MERGE_SUBS	16

/* Empty leaves retired per trainer round, at most. */
#define ORDO_RETIRE_ROUND	4096

/* Stored keys evaluated per full training, at most: bounds its cost. */
#define ORDO_EVAL_KEYS	BIT(20)

static void ordo_queue_key(struct ordo_trainer *tr, u64 key)
{
	spin_lock(&tr->lock);
	if (tr->nqueue < ORDO_TRAIN_QUEUE) {
		tr->queue[tr->nqueue++] = key;
	} else if (!tr->overflow) {
		tr->overflow = true;
		tr->ov_lo = key;
		tr->ov_hi = key;
	} else {
		tr->ov_lo = min(tr->ov_lo, key);
		tr->ov_hi = max(tr->ov_hi, key);
	}
	spin_unlock(&tr->lock);
	wake_up(&tr->wq);
}

static void ordo_leaf_split(void *ctx, u32 left, u32 right, u64 sep)
{
	ordo_queue_key(ctx, sep);
}

/*
 * The heir's TT entry may sit in the sub-model before the retired leaf's
 * (a left merge), so queue both sides of the old fence.
 */
static void ordo_leaf_retired(void *ctx, u32 heir, u32 retired, u64 low_key)
{
	ordo_queue_key(ctx, low_key);
	if (low_key)
		ordo_queue_key(ctx, low_key - 1);
}

/*
 * Retire empty leaves after deletes, a bounded number per round; their
 * nodes go back to the pool for later splits.
 */
static void ordo_retire_if_due(struct ordo_trainer *tr)
{
	struct ordo_dev *od = tr->od;
	u32 retired = 0;

	if (!atomic64_xchg(&od->deletes_unretired, 0))
		return;
	if (ordo_tree_retire_empty(&od->tree, ORDO_RETIRE_ROUND, &retired))
		return;
	/* A full round may have left more: look again next time. */
	if (retired == ORDO_RETIRE_ROUND)
		atomic64_inc(&od->deletes_unretired);
}

/*
 * Retire every empty leaf that can go, before a full training: the model's
 * size then follows the keys stored, not how far background retirement
 * had got after earlier deletes.
 */
static void ordo_retire_all(struct ordo_trainer *tr)
{
	struct ordo_dev *od = tr->od;
	u32 retired;

	if (!atomic64_xchg(&od->deletes_unretired, 0))
		return;
	do {
		retired = 0;
		if (ordo_tree_retire_empty(&od->tree, ORDO_RETIRE_ROUND,
					   &retired))
			return;
		cond_resched();
	} while (retired == ORDO_RETIRE_ROUND);
}

/*
 * Sizes of the model as published (after a training or a patch); the
 * region is mapped from its anchor to the end of the live image.
 */
static void ordo_info_sizes(struct ordo_model_info *info,
			    const struct ordo_model *m, u64 live)
{
	info->sub_models = ordo_model_count(m);
	info->tt_entries = m->nleaves;
	info->tt_capacity = m->tt_cap;
	info->model_bytes = ordo_model_bytes(m->nsub);
	info->tt_bytes = (u64)ORDO_TT_ENTRY_SIZE * m->nleaves;
	info->region_bytes = live + ordo_region_bytes(m);
}

/* Figures of a freshly trained model, from ordo_model_eval(). */
static void ordo_info_eval(struct ordo_model_info *info,
			   const struct ordo_model *m, u64 live,
			   const struct ordo_model_stats *st)
{
	u64 n = st->nkeys ?: 1;

	info->version = m->epoch;
	info->keys = m->nkeys;
	info->eps = m->eps;
	ordo_info_sizes(info, m, live);
	info->err_pos_avg_milli = div64_u64(st->err_pos_sum * 1000,
					    n << ORDO_MODEL_ERR_SHIFT);
	info->err_pos_max = DIV_ROUND_UP_ULL(st->err_pos_max,
					     1U << ORDO_MODEL_ERR_SHIFT);
	info->err_leaf_avg_milli = div64_u64(st->err_leaf_sum * 1000, n);
	info->err_leaf_max = st->err_leaf_max;
	info->window_avg_milli = div64_u64(st->win_sum * 1000, n);
	info->window_max = st->win_max;
	info->one_leaf_ppm = div64_u64(st->win_one * 1000000, n);
	info->cand_avg_milli = div64_u64(st->cand_sum * 1000, n);
	info->cand_max = min_t(u64, st->cand_max, U32_MAX);
	info->cand_one_ppm = div64_u64(st->cand_one * 1000000, n);
	info->wrong = st->wrong;
}

/* Evaluate every key of small stores, ORDO_EVAL_KEYS of large ones. */
static u32 ordo_eval_stride(const struct ordo_leaf_set *set)
{
	u64 keys = 0;
	u32 i;

	for (i = 0; i < set->nleaves; i++)
		keys += set->leaves[i].count;
	return max_t(u64, 1, DIV_ROUND_UP_ULL(keys, ORDO_EVAL_KEYS));
}

/* Train a complete model over the whole leaf level and publish it. */
static int ordo_full_train(struct ordo_trainer *tr, u32 target_subs)
{
	struct ordo_tree *t = &tr->od->tree;
	struct ordo_model_params p = tr->params;
	struct ordo_model_stats st;
	struct ordo_model *m = NULL, *old = tr->model;
	struct ordo_tree_stats ts;
	struct ordo_leaf_set set;
	u64 nkeys = READ_ONCE(tr->info.keys);
	/* 1/16 more for inserts during the snapshot: growing copies it all. */
	u32 key_cap = min_t(u64, U32_MAX, nkeys + nkeys / 16 + 1024);
	u64 start = ktime_get_ns();
	u64 epoch = old ? old->epoch + 1 : tr->first_epoch;
	u32 old_nsub = old ? ordo_model_count(old) : 0;
	int ret;

	p.target_subs = target_subs;
	ordo_retire_all(tr);
	/* No room even for the smallest image: skip the snapshot and all. */
	ordo_tree_get_stats(t, &ts);
	if (!ordo_model_mem_room(&tr->mem,
				 ordo_model_image_floor(min_t(u64, ts.leaves,
							      U32_MAX), &p)))
		return -ENOSPC;
	ret = ordo_snapshot_leaves(t, 0, 0, true, &set, &key_cap);
	if (ret)
		return ret;
	ret = ordo_model_train(&m, &set, &p, epoch);
	/* As if its image had no room: after the snapshot and the training. */
	if (!ret && READ_ONCE(ordo_trainer_fail_fulls))
		ret = -ENOSPC;
	if (!ret)
		ret = ordo_model_mem_publish(&tr->mem, m);
	if (ret) {
		ordo_model_free(m);
		ordo_snapshot_free(&set);
		return ret;
	}
	tr->model = m;
	ordo_model_free(old);
	ordo_model_eval(m, &set, ordo_eval_stride(&set), &st);
	ordo_snapshot_free(&set);

	spin_lock(&tr->lock);
	ordo_info_eval(&tr->info, m, tr->mem.live, &st);
	tr->info.full_trains++;
	/* old is freed by now: compare against the size saved above. */
	if (old && ordo_model_count(m) > old_nsub && target_subs)
		tr->info.expansions++;
	if (old && ordo_model_count(m) < old_nsub && target_subs)
		tr->info.shrinks++;
	tr->info.last_full_train_us = div_u64(ktime_get_ns() - start, 1000);
	tr->info.last_full_train_ns = ktime_get_boottime_ns();
	spin_unlock(&tr->lock);
	return 0;
}

/* May the trainer start a full training by itself now? */
static bool ordo_full_may_try(struct ordo_trainer *tr)
{
	return !tr->full_backoff || !time_before(jiffies, tr->full_retry_at);
}

/* Note a full training's result for the backoff (-ENODATA: no try). */
static void ordo_full_result(struct ordo_trainer *tr, int ret)
{
	if (!ret || ret == -ENODATA) {
		tr->full_backoff = 0;
		return;
	}
	atomic64_inc(&tr->full_failures);
	tr->full_backoff = clamp(2 * tr->full_backoff,
				 (unsigned long)ORDO_FULL_BACKOFF_MIN,
				 (unsigned long)ORDO_FULL_BACKOFF_MAX);
	tr->full_retry_at = jiffies + tr->full_backoff;
}

/*
 * Grow the TT area in place by @extra entries (0: as much as a growth
 * for room gives) and publish it.  Return: 0, or an error; after a
 * failed publication the model is ahead of its image (train afresh).
 */
static int ordo_grow_tt(struct ordo_trainer *tr, u32 extra)
{
	struct ordo_model_health h;
	int ret;

	if (!extra) {
		ordo_model_health(tr->model, &h);
		extra = ordo_model_tt_extra(&h, &tr->params);
	}
	ret = ordo_model_tt_grow(tr->model, extra);
	/* A renumbered model's new image, due this round, has it all. */
	if (!ret && !tr->renumbered)
		ret = ordo_model_mem_grow(&tr->mem, tr->model);
	if (!ret) {
		spin_lock(&tr->lock);
		ordo_info_sizes(&tr->info, tr->model, tr->mem.live);
		spin_unlock(&tr->lock);
	}
	return ret;
}

static int cmp_u64(const void *a, const void *b)
{
	u64 x = *(const u64 *)a, y = *(const u64 *)b;

	return x < y ? -1 : x > y;
}

/*
 * Snapshot the leaves of sub-models @a to @b together.  Retirement may
 * have left a leaf across a pivot at either end (the neighbour of a
 * retired first or last leaf takes its range): then widen the range by
 * the sub-model on that side and look again, up to ORDO_MERGE_SUBS
 * sub-models.  *@end, *@bounded: where the range ends, as
 * ordo_model_sub_domain() tells.  Return: 0, -ERANGE past the bound, or
 * the snapshot's error.
 */
static int ordo_snapshot_subs(struct ordo_trainer *tr, u32 *a, u32 *b,
			      struct ordo_leaf_set *set, u64 *end,
			      bool *bounded)
{
	const struct ordo_model *m = tr->model;
	u32 key_cap = 1024;
	u64 lo, x;
	int ret;

	for (;;) {
		const struct ordo_leaf_info *l;

		ordo_model_sub_domain(m, *a, &lo, &x);
		*end = 0;
		*bounded = ordo_model_sub_domain(m, *b, &x, end);
		ret = ordo_snapshot_leaves(&tr->od->tree, lo, *end, !*bounded,
					   set, &key_cap);
		if (ret || !set->nleaves)
			return ret;
		l = &set->leaves[set->nleaves - 1];
		if (set->leaves[0].low < lo && *a > m->first)
			--*a;
		else if (*bounded && ((l->flags & ORDO_LEAF_LAST) ||
				      l->high > *end))
			++*b;
		else
			return 0;
		ordo_snapshot_free(set);
		if (*b - *a >= ORDO_MERGE_SUBS)
			return -ERANGE;
	}
}

/* Retrain sub-models @a to @b (usually one) over their snapshot @set. */
static int ordo_retrain_set(struct ordo_model *m, u32 a, u32 b,
			    const struct ordo_leaf_set *set,
			    const struct ordo_model_params *p)
{
	if (a == b)
		return ordo_model_retrain_sub(m, a, set, p);
	return ordo_model_merge_subs(m, a, b, set, p);
}

/*
 * Retrain the sub-model that holds @key from a fresh snapshot of its
 * domain and publish it; with its neighbours when a retired leaf's
 * range reaches across a pivot (ordo_model_merge_subs()).  *@end: where
 * the domain ended (keys from @key up to it are covered, whatever
 * indices a cut gave the pieces); *@bounded: false if it was the last
 * sub-model's, which ends at U64_MAX.
 */
static int ordo_retrain_one(struct ordo_trainer *tr, u64 key, u64 *end,
			    bool *bounded)
{
	struct ordo_model *m = tr->model;
	u32 a = ordo_model_sub_of(m, key), b = a, renum = m->renum_gen;
	struct ordo_leaf_set set;
	int ret;

	ret = ordo_snapshot_subs(tr, &a, &b, &set, end, bounded);
	if (ret)
		return ret;
	ret = ordo_retrain_set(m, a, b, &set, &tr->params);
	/*
	 * No TT room left mid-round (the health check after the round had
	 * not seen it coming): grow the area in place and try once more.
	 */
	if (ret == -ENOSPC && !ordo_grow_tt(tr, 0))
		ret = ordo_retrain_set(m, a, b, &set, &tr->params);
	ordo_snapshot_free(&set);
	if (ret)
		return ret;
	/*
	 * Sub-models moved to other indices: no patch fits the live image
	 * any more.  Write the model anew once, when the round is done
	 * (ordo_publish_round()), not after every cut or merge of it.
	 */
	if (m->renum_gen != renum)
		tr->renumbered = true;
	return tr->renumbered ? 0 : ordo_model_mem_patch(&tr->mem, m, a);
}

/*
 * End of a round of retrainings (@ret its result): write the new image a
 * renumbering left due.  Return: @ret, or the publication's error (the
 * model is then ahead of its image: train afresh).
 */
static int ordo_publish_round(struct ordo_trainer *tr, int ret)
{
	int err;

	if (!tr->renumbered)
		return ret;
	tr->renumbered = false;
	err = ordo_model_mem_publish(&tr->mem, tr->model);
	return ret ?: err;
}

/*
 * Retrain the sub-models that hold the queued keys, in key order (a
 * middle cut renumbers sub-models: keys, not indices, name them).
 * Return: 0, or an error meaning "train a full model instead".
 */
static int ordo_retrain_queued(struct ordo_trainer *tr, u64 *keys, u32 n)
{
	u32 i, nsubs = 0;
	bool bounded = true;
	u64 end = 0;
	int ret = 0;

	sort(keys, n, sizeof(*keys), cmp_u64, NULL);
	for (i = 0; i < n && !ret && bounded; i++) {
		if (i && keys[i] < end)
			continue;	/* that sub-model was retrained */
		ret = ordo_retrain_one(tr, keys[i], &end, &bounded);
		nsubs++;
	}
	ret = ordo_publish_round(tr, ret);
	spin_lock(&tr->lock);
	tr->info.retrains += nsubs - (ret ? 1 : 0);
	ordo_info_sizes(&tr->info, tr->model, tr->mem.live);
	spin_unlock(&tr->lock);
	return ret;
}

/*
 * The queue overflowed with keys in [@lo, @hi]: appends, say, all in the
 * tail.  Retrain every sub-model of that range when they are few.
 * Return: 0, or an error meaning "train a full model instead".
 */
static int ordo_retrain_range(struct ordo_trainer *tr, u64 lo, u64 hi)
{
	u32 a = ordo_model_sub_of(tr->model, lo);
	u32 b = ordo_model_sub_of(tr->model, hi), nsubs = 0;
	bool bounded = true;
	u64 key = lo;
	int ret = 0;

	if (b - a >= ORDO_OVERFLOW_SUBS)
		return -E2BIG;
	/* Retraining the last one may append more: they are fresh. */
	while (!ret && bounded) {
		ret = ordo_retrain_one(tr, key, &key, &bounded);
		nsubs++;
		if (key > hi)
			break;
	}
	ret = ordo_publish_round(tr, ret);
	spin_lock(&tr->lock);
	tr->info.retrains += nsubs - (ret ? 1 : 0);
	ordo_info_sizes(&tr->info, tr->model, tr->mem.live);
	spin_unlock(&tr->lock);
	return ret;
}

/* Keys stored now; the quiet-period check compares two readings. */
static u64 ordo_keys_now(struct ordo_trainer *tr)
{
	struct ordo_tree_stats st;

	ordo_tree_get_stats(&tr->od->tree, &st);
	return st.keys;
}

static bool ordo_trainer_has_work(struct ordo_trainer *tr)
{
	bool work;

	spin_lock(&tr->lock);
	work = tr->nqueue || tr->overflow ||
	       tr->full_requests != tr->full_done;
	spin_unlock(&tr->lock);
	return work || kthread_should_stop();
}

/*
 * Train a model of a new size when splits or retirements call for it; a
 * TT area that only ran short grows in place instead, while the region
 * has room.
 */
static void ordo_resize_if_due(struct ordo_trainer *tr)
{
	const struct ordo_model_params *p = &tr->params;
	struct ordo_model_health h;
	u32 extra;
	int ret;

	ordo_model_health(tr->model, &h);
	extra = ordo_model_tt_room_due(&h, p);
	if (extra && !ordo_grow_tt(tr, extra))
		return;
	/* A failed growth leaves the model ahead of its image: retrain. */
	if ((extra || ordo_model_needs_expand(&h, p) ||
	     ordo_model_needs_shrink(&h, p) ||
	     ordo_model_needs_rebuild(&h, p)) && ordo_full_may_try(tr)) {
		ret = ordo_full_train(tr, ordo_model_resize_target(&h, p));
		ordo_full_result(tr, ret);
	}
}

static int ordo_trainer_main(void *data)
{
	struct ordo_trainer *tr = data;
	u64 *keys = tr->drained, last_keys = 0;
	unsigned long last_change = jiffies;

	while (!kthread_should_stop()) {
		u64 requests, now_keys, ov_lo, ov_hi;
		bool full, overflow, quiet;
		u32 n;
		int ret = 0;

		wait_event_idle_timeout(tr->wq, ordo_trainer_has_work(tr), HZ);
		if (kthread_should_stop())
			break;
		spin_lock(&tr->lock);
		n = tr->nqueue;
		memcpy(keys, tr->queue, n * sizeof(*keys));
		tr->nqueue = 0;
		overflow = tr->overflow;
		ov_lo = tr->ov_lo;
		ov_hi = tr->ov_hi;
		tr->overflow = false;
		requests = tr->full_requests;
		spin_unlock(&tr->lock);

		/* Quiet: the key count has not moved for a second. */
		now_keys = ordo_keys_now(tr);
		if (now_keys != last_keys)
			last_change = jiffies;
		last_keys = now_keys;
		quiet = time_after(jiffies, last_change + HZ);
		/*
		 * Too many splits to retrain one by one: retrain the range
		 * they fell in when it is narrow (appends); else (a bulk load)
		 * train afresh once the store is quiet, or every few seconds.
		 */
		if (overflow && (!tr->model || tr->full_due ||
				 ordo_retrain_range(tr, ov_lo, ov_hi)))
			tr->full_due = true;
		full = requests != tr->full_done;
		if (tr->full_due &&
		    (quiet || time_after(jiffies, tr->last_full + ORDO_FULL_EVERY)))
			full = true;
		/* First model: once a load has settled (keys stopped moving). */
		if (!tr->model && now_keys && quiet)
			full = true;

		/* Work taken on counts as pending until it is published. */
		WRITE_ONCE(tr->inflight, n + full + tr->full_due);
		if (!full && !tr->full_due && tr->model && n &&
		    ordo_retrain_queued(tr, keys, n))
			full = true;
		/* One the trainer starts by itself waits out a backoff. */
		if (full && requests == tr->full_done &&
		    !ordo_full_may_try(tr)) {
			full = false;
			tr->full_due = true;
		}
		if (full) {
			ret = now_keys ? ordo_full_train(tr, 0) : -ENODATA;
			ordo_full_result(tr, ret);
			if (ret != -ENODATA) {
				tr->full_due = ret != 0;
				tr->last_full = jiffies;
			}
			if (ret && ret != -ENODATA)
				pr_warn_ratelimited("full training failed: %d\n",
						    ret);
		} else if (tr->model) {
			ordo_resize_if_due(tr);
		}
		ordo_retire_if_due(tr);
		WRITE_ONCE(tr->inflight, tr->full_due);
		if (requests != tr->full_done) {
			spin_lock(&tr->lock);
			tr->full_done = requests;
			tr->last_result = ret;
			spin_unlock(&tr->lock);
			wake_up_all(&tr->done_wq);
		}
		cond_resched();
	}
	return 0;
}

/**
 * ordo_trainer_retrain - force a full training and wait for it
 * @od: the device
 * @version: set to the epoch of the published model
 *
 * Return: 0, -ENODATA (empty store), -EINTR, or the training's error.
 */
int ordo_trainer_retrain(struct ordo_dev *od, u64 *version)
{
	struct ordo_trainer *tr = od->trainer;
	u64 ticket;
	int ret;

	spin_lock(&tr->lock);
	ticket = ++tr->full_requests;
	spin_unlock(&tr->lock);
	wake_up(&tr->wq);
	ret = wait_event_interruptible(tr->done_wq,
				       READ_ONCE(tr->full_done) >= ticket);
	if (ret)
		return -EINTR;
	spin_lock(&tr->lock);
	ret = tr->last_result;
	*version = tr->info.version;
	spin_unlock(&tr->lock);
	return ret;
}

/**
 * ordo_trainer_failures - full trainings that failed since load
 * @od: the device
 *
 * Return: the count.
 */
u64 ordo_trainer_failures(struct ordo_dev *od)
{
	return atomic64_read(&od->trainer->full_failures);
}

void ordo_trainer_info(struct ordo_dev *od, struct ordo_model_info *info)
{
	struct ordo_trainer *tr = od->trainer;

	spin_lock(&tr->lock);
	*info = tr->info;
	info->pending = tr->nqueue + tr->overflow + READ_ONCE(tr->inflight);
	spin_unlock(&tr->lock);
}

int ordo_trainer_start(struct ordo_dev *od)
{
	struct ordo_trainer *tr;
	int ret;

	tr = kvzalloc(sizeof(*tr), GFP_KERNEL);
	if (!tr)
		return -ENOMEM;
	tr->od = od;
	init_waitqueue_head(&tr->wq);
	init_waitqueue_head(&tr->done_wq);
	spin_lock_init(&tr->lock);
	ordo_model_params_default(&tr->params);
	tr->params.leaf_slots = od->tree.geo.leaf_slots;
	tr->params.leaves_per_sub = max(1U, ordo_model_leaves_per_sub);
	tr->params.expand_err_x = max(2U, ordo_model_expand_err_x);
	/*
	 * A client that outlives a module reload must not meet its cached
	 * epoch again with other contents: start from a random one (below
	 * 2^63, so that parsers of signed 64-bit numbers read it too).
	 */
	tr->first_epoch = (get_random_u64() >> 1) ?: 1;
	ret = ordo_model_mem_init(&tr->mem, od->tree.pool.chunk_size,
				  ordo_model_max_bytes());
	if (ret)
		goto err_free;
	od->trainer = tr;
	tr->task = kthread_run(ordo_trainer_main, tr, "ordo-trainer");
	if (IS_ERR(tr->task)) {
		ret = PTR_ERR(tr->task);
		goto err_mem;
	}
	tr->hooks.leaf_split = ordo_leaf_split;
	tr->hooks.leaf_retired = ordo_leaf_retired;
	tr->hooks.ctx = tr;
	ordo_tree_set_hooks(&od->tree, &tr->hooks);
	return 0;

err_mem:
	od->trainer = NULL;
	ordo_model_mem_destroy(&tr->mem);
err_free:
	kvfree(tr);
	return ret;
}

/* Called once no writer can run any more (the device is gone). */
void ordo_trainer_stop(struct ordo_dev *od)
{
	struct ordo_trainer *tr = od->trainer;

	ordo_tree_set_hooks(&od->tree, NULL);
	kthread_stop(tr->task);
	ordo_model_free(tr->model);
	ordo_model_mem_destroy(&tr->mem);
	od->trainer = NULL;
	kvfree(tr);
}
