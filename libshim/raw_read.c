// SPDX-License-Identifier: GPL-2.0
/*
 * libordo: raw leaf reads for ordo-bench (ordo_raw.h).  The same slots,
 * backend read path and counters as a learned GET, minus prediction and
 * validation, so the difference between the two is ordo's own cost.
 */
#include <errno.h>

#include "ordo_raw.h"
#include "shim.h"

int ordo_raw_leaves(struct ordo *o, uint32_t *nodes, uint32_t max)
{
	uint32_t sub = 0, lln = 0, n = 0, last = ORDO_NODE_NONE;
	struct ordo_pred p;
	struct ordo_tt ent;
	int ret;

	/* The first leaf is the smallest key's; then step in key order. */
	ret = shim_cache_lookup(o, 0, &p, &ent, 1, NULL, NULL);
	if (!ret) {
		sub = p.sub;
		lln = p.lln;
	}
	while (!ret && n < max) {
		/* Boundary leaves appear in two sub-models' tables. */
		if (ent.leaf != ORDO_NODE_NONE && ent.leaf != last)
			nodes[n++] = ent.leaf;
		last = ent.leaf;
		ret = shim_cache_next(o, &sub, &lln, &ent);
	}
	return n ? (int)n : -ENODATA;
}

static int raw_done(struct ordo *o, struct shim_op *op)
{
	(void)o;
	op->req->result = op->io_res;
	return SHIM_DONE;
}

static int raw_start(struct ordo *o, struct shim_op *op)
{
	int ret = o->be->read(o, op);

	op->step = raw_done;
	if (ret == 0)
		return SHIM_WAIT;
	if (ret < 0)
		op->io_res = ret;
	return SHIM_AGAIN;
}

int ordo_raw_submit(struct ordo *o, struct ordo_req *r, uint32_t node)
{
	struct shim_op *op;
	int ret;

	/* Its callback may run in here, and close the handle. */
	if (!shim_enter(o))
		return -EBADF;
	ret = shim_op_claim(o, r, &op);
	if (ret) {
		shim_leave(o);
		return ret;
	}
	op->tries = 0;
	op->io_res = 0;
	op->nio = 1;
	op->io[0].kind = SHIM_POOL;
	op->io[0].off = ordo_node_offset(node, o->sup.nodes_per_chunk,
					 o->sup.chunk_size, o->geo.node_size);
	op->io[0].len = o->geo.node_size;
	op->io[0].dst = op->buf;
	op->step = raw_start;
	r->op = ORDO_OP_GET;
	r->result = 0;
	o->inflight++;
	shim_run(o, op);
	shim_leave(o);
	return 0;
}
