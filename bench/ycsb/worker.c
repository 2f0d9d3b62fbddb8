// SPDX-License-Identifier: GPL-2.0
/*
 * ordo-bench: one thread keeps --depth operations in flight through its
 * driver.  At each phase change (warm-up -> timed -> stop) it drains and
 * snapshots its client's counters, so the window's counts belong exactly
 * to the operations it timed; then it waits at a gate until every thread
 * did, and the main thread samples the server in between.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "ycsb.h"

uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

/* Called by the drivers when an operation (or an RMW half) completed. */
void worker_done(struct worker *w, struct bop *op)
{
	op->next_done = w->done;
	w->done = op;
}

static void fail(struct worker *w, int err)
{
	if (!w->first_error)
		w->first_error = err;
	w->errors++;
}

/* Fill in the next operation of the workload. */
static bool op_prepare(struct worker *w, struct bop *op)
{
	struct run *r = w->run;

	op->second = false;
	op->result = 0;
	if (r->mode == BM_RAW) {
		/* No key-value logic: a leaf, uniformly. */
		op->kind = OP_READ;
		op->raw_node = r->leaves[gen_rand(&w->gen) % r->nleaves];
		return true;
	}
	op->kind = gen_kind(&w->gen);
	if (op->kind == OP_INSERT) {
		if (gen_insert_key(&w->gen, &op->key, &op->item))
			return true;
		op->kind = OP_READ;	/* out of fresh keys: counted */
	}
	op->key = gen_key(&w->gen);
	if (op->kind == OP_SCAN)
		op->count = gen_scan_len(&w->gen);
	return true;
}

static int op_start(struct worker *w, struct bop *op)
{
	int ret = w->run->drv->start(w, op);

	if (ret && ret != -EBUSY)
		fail(w, ret);
	return ret;
}

/* A completed operation: the RMW's second half, or account and free it. */
static void op_finish(struct worker *w, struct bop *op, bool more)
{
	struct run *r = w->run;
	bool timed = w->phase_seen == PH_TIMED;

	if (op->kind == OP_INSERT)
		items_ack(r->it, op->item);
	if (op->kind == OP_RMW && !op->second && more &&
	    (op->result == 0 || op->result == -ENOENT)) {
		op->second = true;
		if (!op_start(w, op))
			return;
	}
	if (timed) {
		hist_add(&w->hist, now_ns() - op->t0);
		/* The main thread reads it to honour --min-ops. */
		__atomic_store_n(&w->ops_done, w->ops_done + 1,
				 __ATOMIC_RELAXED);
		if (op->kind == OP_READ || op->kind == OP_RMW)
			w->reads++;
		if (op->kind == OP_SCAN && op->result > 0)
			w->scan_pairs += op->result;
		if (op->result == -ENOENT && op->kind != OP_UPDATE)
			w->not_found++;
		else if (op->result < 0)
			fail(w, op->result);
	}
	w->free[w->nfree++] = op;
}

static void handle_done(struct worker *w, bool more)
{
	while (w->done) {
		struct bop *op = w->done;

		w->done = op->next_done;
		op_finish(w, op, more);
	}
}

static int drain(struct worker *w)
{
	int ret = w->run->drv->drain(w);

	handle_done(w, false);
	return ret;
}

/* Attribute the slice's fallbacks; slices split the timed window. */
static void slice_tick(struct worker *w, bool last)
{
	struct run *r = w->run;
	struct ordo_counters c;
	int s = last ? SLICES : (int)((now_ns() - r->t_timed) / r->slice_ns);

	if (s > SLICES)
		s = SLICES;
	if (s == w->slice)
		return;
	r->drv->counters(w, &c);
	if (w->slice < SLICES) {
		w->slice_fallbacks[w->slice] += c.fallbacks - w->cs.fallbacks;
		w->slice_lookups[w->slice] += c.gets + c.scans -
					      w->cs.gets - w->cs.scans;
	}
	w->cs = c;
	w->slice = s;
}

/* Drain, snapshot, and wait at the gate for the main thread. */
static void transition(struct worker *w, int ph)
{
	struct run *r = w->run;

	if (drain(w))
		w->fatal = 1;
	if (w->fatal) {
		/* Leave the run; the main thread stops waiting for us. */
		if (w->phase_seen == PH_TIMED)
			slice_tick(w, true);
		r->drv->counters(w, &w->c1);
		if (w->phase_seen != PH_TIMED)
			w->c0 = w->c1;
		pthread_mutex_lock(&r->lock);
		r->exited++;
		pthread_cond_broadcast(&r->cond);
		pthread_mutex_unlock(&r->lock);
		w->phase_seen = PH_STOP;
		return;
	}
	if (ph == PH_TIMED) {
		r->drv->counters(w, &w->c0);
	} else {
		if (w->phase_seen == PH_TIMED)
			slice_tick(w, true);
		r->drv->counters(w, &w->c1);
	}
	pthread_mutex_lock(&r->lock);
	r->arrived++;
	pthread_cond_broadcast(&r->cond);
	while (r->arrived && ph != PH_STOP)
		pthread_cond_wait(&r->cond, &r->lock);
	pthread_mutex_unlock(&r->lock);
	w->phase_seen = ph;
	if (ph == PH_TIMED) {
		w->cs = w->c0;
		w->slice = 0;
	}
}

void *worker_main(void *arg)
{
	struct worker *w = arg;
	struct run *r = w->run;

	w->phase_seen = PH_WARMUP;
	for (;;) {
		int ph = __atomic_load_n(&r->phase, __ATOMIC_ACQUIRE);
		int ret;

		if (ph != w->phase_seen || w->fatal) {
			transition(w, ph);
			if (w->phase_seen == PH_STOP)
				break;
		}
		while (w->nfree) {
			struct bop *op = w->free[w->nfree - 1];

			op_prepare(w, op);
			op->t0 = now_ns();
			ret = op_start(w, op);
			if (ret == -EBUSY)
				break;
			w->nfree--;
			if (ret) {
				w->fatal = 1;
				break;
			}
		}
		ret = r->drv->poll(w);
		handle_done(w, true);
		if (ret < 0) {
			fail(w, ret);
			w->fatal = 1;
		}
		if (w->phase_seen == PH_TIMED)
			slice_tick(w, false);
	}
	return NULL;
}
