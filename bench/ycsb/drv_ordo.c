// SPDX-License-Identifier: GPL-2.0
/*
 * ordo-bench: operations through libordo's async interface, one handle per
 * thread (they share the learned cache), in the mode under test; raw-read
 * goes through the same handle's slots with ordo_raw_submit().
 */
#include <errno.h>
#include <stdlib.h>

#include "ordo_raw.h"
#include "ycsb.h"

static struct ordo *handle(struct worker *w)
{
	return w->drv;
}

static void on_complete(struct ordo_req *req)
{
	struct bop *op = req->user;

	op->result = req->result;
	worker_done(op->w, op);
}

static int ordo_drv_open(struct worker *w)
{
	static const enum ordo_mode modes[] = {
		[BM_LEARNED] = ORDO_MODE_LEARNED,
		[BM_MODEL_ONLY] = ORDO_MODE_MODEL_ONLY,
		[BM_WALK] = ORDO_MODE_WALK,
		[BM_RPC] = ORDO_MODE_RPC,
		[BM_RAW] = ORDO_MODE_LEARNED,	/* its cache names the leaves */
	};
	struct ordo_opts opts = {
		.size = sizeof(opts),
		.mode = modes[w->run->mode],
		.queue_depth = w->run->cfg->depth,
		/* Busy shared cores: a slow window is not a failure. */
		.timeout_ms = 30000,
		.walk_cache_bytes = w->run->walk_cache ? w->run->walk_cache :
				    w->run->cfg->walk_cache,
	};
	struct ordo *o = ordo_open_opts(w->run->cfg->uri, &opts);

	if (!o)
		return -errno;
	w->drv = o;
	return 0;
}

/* A GET's buffer: a slot, or the value when it is longer (out of line). */
static size_t get_room(const struct bench_cfg *cfg)
{
	return cfg->value_size > cfg->store_vsize ? cfg->value_size :
	       cfg->store_vsize;
}

static int ordo_drv_start(struct worker *w, struct bop *op)
{
	struct ordo_req *q = &op->req;
	uint32_t vs = w->run->cfg->value_size;

	q->cb = on_complete;
	q->user = op;
	op->w = w;
	if (w->run->mode == BM_RAW)
		return ordo_raw_submit(handle(w), q, op->raw_node);
	q->key = op->key;
	q->val = op->val;
	q->len = vs;
	q->keys = NULL;
	q->count = 0;
	switch (op->kind) {
	case OP_READ:
		q->op = ORDO_OP_GET;
		q->len = get_room(w->run->cfg);
		break;
	case OP_RMW:
		q->op = op->second ? ORDO_OP_UPDATE : ORDO_OP_GET;
		if (!op->second)
			q->len = get_room(w->run->cfg);
		else
			fill_value(op->val, vs, op->key ^ now_ns());
		break;
	case OP_UPDATE:
		q->op = ORDO_OP_UPDATE;
		fill_value(op->val, vs, op->key ^ now_ns());
		break;
	case OP_INSERT:
		q->op = ORDO_OP_INSERT;
		fill_value(op->val, vs, op->key);
		break;
	case OP_SCAN:
		q->op = ORDO_REQ_SCAN;
		q->keys = op->keys;
		q->count = op->count;
		q->len = (size_t)op->count * w->run->cfg->store_vsize;
		break;
	}
	return ordo_submit(handle(w), q);
}

static int ordo_drv_poll(struct worker *w)
{
	return ordo_poll(handle(w), 1, -1);
}

static int ordo_drv_drain(struct worker *w)
{
	struct ordo *o = handle(w);
	int ret = 0;

	while (ordo_inflight(o) && ret >= 0)
		ret = ordo_poll(o, ordo_inflight(o), -1);
	return ret < 0 ? ret : 0;
}

static void ordo_drv_counters(struct worker *w, struct ordo_counters *c)
{
	ordo_counters(handle(w), c);
}

static void ordo_drv_close(struct worker *w)
{
	ordo_close(handle(w));
	w->drv = NULL;
}

const struct driver drv_ordo = {
	.open = ordo_drv_open,
	.start = ordo_drv_start,
	.poll = ordo_drv_poll,
	.drain = ordo_drv_drain,
	.counters = ordo_drv_counters,
	.close = ordo_drv_close,
};
