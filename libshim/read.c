// SPDX-License-Identifier: GPL-2.0
/*
 * libordo: the operations' state machines.
 *
 * GET (learned): the cache names one leaf, or a few adjacent ones when the
 * key's fence code ties with theirs; one batch of READs; each copy is
 * validated (checksum, node number, level, fences) and the one whose
 * fences hold the key answers.  A leaf that split since the TT was trained
 * still answers if its fences hold the key; if the key moved right in the
 * split, the right sibling is read once (speculation).
 * Anything else falls back to one LOOKUP call, which also refreshes the
 * key's sub-model.  model-only reads the TT window first; walk descends
 * from the root (Cell), inner nodes cached.  SCAN finds its first leaf the
 * same way and reads the following ones several per batch, each of which
 * must cover the previous one's high fence; on failure it continues with
 * SCAN calls from the last good key.  Writes are calls.
 *
 * Nothing read from the store is trusted: every index is clamped, every
 * node is checked before use.
 */
#include <errno.h>
#include <string.h>

#include "shim.h"

static uint64_t node_off(struct ordo *o, uint32_t n)
{
	return ordo_node_offset(n, o->sup.nodes_per_chunk, o->sup.chunk_size,
				o->geo.node_size);
}

/* Leaves one READ batch of a slot holds. */
static uint32_t slot_nodes(const struct ordo_geo *geo)
{
	uint32_t n = SHIM_SLOT_READ_MAX / geo->node_size;

	return n < 2 ? 2 : n > SHIM_BATCH_MAX ? SHIM_BATCH_MAX : n;
}

static uint8_t *slot_node(struct ordo *o, struct shim_op *op, uint32_t i)
{
	return op->buf + (size_t)i * o->geo.node_size;
}

/* Leaves a GET steps right past the model's last leaf before an RPC. */
#define PAST_HOPS	8

/* Bytes of TT window a model-only GET reads, after the slot's nodes. */
#define TT_WINDOW_MAX	256

/*
 * Bytes of a slot's node buffers: a batch of leaves, or one inner node
 * (up to 4 KiB, which may be more than a batch of small leaves).
 */
static size_t slot_node_area(const struct ordo_geo *geo)
{
	size_t leaves = (size_t)slot_nodes(geo) * geo->node_size;
	size_t inner = ordo_inner_size(geo->inner_fanout);

	return leaves > inner ? leaves : inner;
}

size_t shim_slot_bytes(const struct ordo_geo *geo)
{
	return slot_node_area(geo) + TT_WINDOW_MAX * ORDO_TT_ENTRY_SIZE;
}

/* Queue a read of @len bytes of node @n into node buffer @i of the batch. */
static void io_node_len(struct ordo *o, struct shim_op *op, uint32_t i,
			uint32_t n, uint32_t len)
{
	struct shim_io *io = &op->io[op->nio++];

	io->kind = SHIM_POOL;
	io->off = node_off(o, n);
	io->len = len;
	io->dst = slot_node(o, op, i);
}

/* Queue a read of the whole node @n into node buffer @i of the batch. */
static void io_node(struct ordo *o, struct shim_op *op, uint32_t i, uint32_t n)
{
	io_node_len(o, op, i, n, o->geo.node_size);
}

/* Queue reads of the candidate leaves st.pend_nodes[0..st.ncand). */
static void io_cands(struct ordo *o, struct shim_op *op)
{
	uint32_t i;

	op->nio = 0;
	for (i = 0; i < op->st.ncand; i++)
		io_node_len(o, op, i, op->st.pend_nodes[i], op->st.leaf_len);
}

/*
 * Take up to a batch of the cache's candidates for the key as the reads,
 * and @left, the leaf before them, for a key sent one leaf too far.
 */
static void take_cands(struct ordo *o, struct shim_op *op,
		       const struct ordo_tt *ents, uint32_t n,
		       const struct ordo_tt *left)
{
	uint32_t i;

	op->st.left = left ? left->leaf : ORDO_NODE_NONE;
	if (n > slot_nodes(&o->geo))
		n = slot_nodes(&o->geo);
	for (i = 0; i < n; i++)
		op->st.pend_nodes[i] = ents[i].leaf;
	op->st.ncand = n;
}

/* One leaf to read next (a right sibling), without a TT entry. */
static void take_node(struct shim_op *op, uint32_t node)
{
	op->st.pend_nodes[0] = node;
	op->st.ncand = 1;
	op->st.left = ORDO_NODE_NONE;
	op->st.has_pred = false;
}

enum pick { P_FOUND, P_RIGHT, P_LEFT, P_TORN, P_STALE };

/*
 * Which leaf of the batch holds @key (@at), or why none: a torn copy
 * (read again), the key lies right of the last one (P_RIGHT, @at names
 * it) or left of the first with a leaf known before it (P_LEFT), or the
 * candidates are stale.
 */
static enum pick batch_pick(struct ordo *o, struct shim_op *op, uint64_t key,
			    uint32_t *at)
{
	enum vres v = V_STALE, first = V_STALE;
	bool torn = false;
	uint32_t i;

	for (i = 0; i < op->st.ncand; i++) {
		v = shim_node_check(&o->geo, slot_node(o, op, i),
				    op->st.leaf_len, op->st.pend_nodes[i], 0, key);
		if (v == V_OK) {
			*at = i;
			return P_FOUND;
		}
		if (!i)
			first = v;
		torn |= v == V_TORN;
	}
	if (torn)
		return P_TORN;
	*at = op->st.ncand - 1;
	if (first == V_LEFT && op->st.left != ORDO_NODE_NONE)
		return P_LEFT;
	return v == V_RIGHT ? P_RIGHT : P_STALE;
}

/* Start the batch; SHIM_WAIT, or SHIM_AGAIN with op->io_res set. */
static int io_start(struct ordo *o, struct shim_op *op, shim_step_t next)
{
	int ret = o->be->read(o, op);

	op->step = next;
	if (ret == 0)
		return SHIM_WAIT;
	/* 1: done already, and the backend set io_res (maybe an error). */
	if (ret < 0)
		op->io_res = ret;
	return SHIM_AGAIN;
}

static int call_start(struct ordo *o, struct shim_op *op, shim_step_t next)
{
	int ret = o->be->call(o, op);

	op->step = next;
	if (ret == 0)
		return SHIM_WAIT;
	if (ret < 0) {
		op->call.status = ret;
		op->io_res = ret;
	}
	return SHIM_AGAIN;
}

static int finish(struct shim_op *op, int result)
{
	op->req->result = result;
	return SHIM_DONE;
}

/*
 * A read fell outside the regions the handle knows (the pool grew): learn
 * them again, a bounded number of times, and the caller reads again.
 */
static bool io_regions_refreshed(struct ordo *o, struct shim_op *op)
{
	return op->io_res == -ERANGE && op->tries++ < SHIM_TRIES &&
	       !o->be->refresh(o);
}

/* A read failed for good: out of range goes to @fallback, else an error. */
static int io_failed(struct ordo *o, struct shim_op *op,
		     int (*fallback)(struct ordo *o, struct shim_op *op))
{
	return op->io_res == -ERANGE ? fallback(o, op) :
	       finish(op, op->io_res);
}

/* The step of an operation whose connection failed: io_res says why. */
int shim_step_fail(struct ordo *o, struct shim_op *op)
{
	(void)o;
	return finish(op, op->io_res);
}

/* Check a whole node copy. */
static enum vres node_check(struct ordo *o, const void *buf, uint32_t node,
			    uint32_t level, uint64_t key)
{
	return shim_node_check(&o->geo, buf, o->geo.node_size, node, level,
			       key);
}

/* ---- GET ---- */

static int get_fallback(struct ordo *o, struct shim_op *op);
static int walk_start(struct ordo *o, struct shim_op *op,
		      int (*leaf_done)(struct ordo *o, struct shim_op *op,
				       const void *leaf),
		      int (*fail)(struct ordo *o, struct shim_op *op));
static int get_leaf_read(struct ordo *o, struct shim_op *op);
static int get_start(struct ordo *o, struct shim_op *op);
static int get_again(struct ordo *o, struct shim_op *op);

/*
 * The value arrived in its place in the leaf copy: it answers if it is
 * the one the key block's publication holds; otherwise the GET starts
 * again (a writer changed the slot between the two READs).
 */
static int get_value_read(struct ordo *o, struct shim_op *op)
{
	const uint8_t *leaf = op->buf + op->st.leaf_at;

	if (io_regions_refreshed(o, op))
		return io_start(o, op, get_value_read);
	if (op->io_res)
		return io_failed(o, op, get_fallback);
	if (shim_value_matches(&o->geo, leaf, op->st.vslot, op->io[0].dst)) {
		if (op->req->val)
			memcpy(op->req->val, op->io[0].dst, op->io[0].len);
		op->req->val_len = op->io[0].len;
		return finish(op, 0);
	}
	return get_again(o, op);
}

/* Validation failed: the GET starts again, a bounded number of times. */
static int get_again(struct ordo *o, struct shim_op *op)
{
	o->cnt.retries++;
	if (op->tries++ >= SHIM_TRIES)
		return get_fallback(o, op);
	memset(&op->st, 0, sizeof(op->st));
	return get_start(o, op);
}

/*
 * A long value's extent arrived: it answers if it is the extent the key
 * block named, whole (ordo_extent_validate()); a torn or stale copy (the
 * value was rewritten and its extent freed and reused since) starts the
 * GET again.  A caller's buffer too small for the value gets -ENOBUFS and
 * the length needed.
 */
static int get_extent_read(struct ordo *o, struct shim_op *op)
{
	struct ordo_req *r = op->req;
	uint32_t len;

	if (io_regions_refreshed(o, op))
		return io_start(o, op, get_extent_read);
	if (op->io_res)
		return io_failed(o, op, get_fallback);
	if (ordo_extent_validate(op->xbuf, op->io[0].len, r->key, op->st.xref,
				 op->st.xunits, o->geo.value_size,
				 o->sup.chunk_size, &len))
		return get_again(o, op);
	r->val_len = len;
	if (len > r->len)
		return finish(op, -ENOBUFS);
	memcpy(r->val, op->xbuf + ORDO_EXTENT_HDR_SIZE, len);
	return finish(op, 0);
}

/*
 * Slot @slot of the validated leaf holds a long value: read its extent,
 * whole, with one READ into the slot's extent buffer.  A reference that
 * cannot name an extent of this store starts the GET again (then falls
 * back): the key block passed its checksum, so the server published it.
 */
static int get_extent(struct ordo *o, struct shim_op *op, const void *leaf,
		      uint32_t slot)
{
	struct shim_io *io = &op->io[0];
	uint16_t lens = le16toh(ordo_leaf_clens(leaf, &o->geo)[slot]);
	uint64_t ref = le64toh(ordo_leaf_cchecks(leaf, &o->geo)[slot]);
	uint32_t bytes;
	uint64_t off;
	int ret;

	if (shim_extent_locate(&o->geo, o->sup.chunk_size, o->sup.max_chunks,
			       lens, ref, &off, &bytes))
		return get_again(o, op);
	ret = shim_xbuf_get(o, op, bytes);
	if (ret)
		return finish(op, ret);
	op->st.xref = ref;
	op->st.xunits = lens & ORDO_LEN_UNITS_MASK;
	op->nio = 1;
	io->kind = SHIM_POOL;
	io->off = off;
	io->len = bytes;
	io->dst = op->xbuf;
	return io_start(o, op, get_extent_read);
}

/*
 * The key's leaf, validated: answer from the whole copy, read the key's
 * value by itself into its place after the key block, or read its extent.
 */
static int get_done(struct ordo *o, struct shim_op *op, const void *leaf)
{
	const struct ordo_node_hdr *h = leaf;
	struct shim_io *io = &op->io[0];
	uint32_t slot, off, len;
	int ret;

	ret = shim_leaf_find(&o->geo, leaf, op->req->key, &slot);
	if (!ret && (le16toh(ordo_leaf_clens(leaf, &o->geo)[slot]) &
		     ORDO_LEN_EXTENT))
		return get_extent(o, op, leaf, slot);
	if (op->st.leaf_len >= o->geo.node_size) {
		ret = shim_leaf_get(&o->geo, leaf, op->req->key, op->req->val,
				    &len);
		op->req->val_len = ret ? 0 : len;
		return finish(op, ret);
	}
	if (ret)
		return finish(op, ret);
	/* Only the value's own bytes: the key block gave its length. */
	len = ordo_leaf_value_len(leaf, &o->geo, slot);
	if (!len) {
		op->req->val_len = 0;
		return finish(op, 0);
	}
	op->st.leaf_at = (const uint8_t *)leaf - op->buf;
	op->st.vslot = slot;
	off = ordo_leaf_value_off(o->geo.leaf_slots, o->geo.value_size, slot);
	op->nio = 1;
	io->kind = SHIM_POOL;
	io->off = node_off(o, le32toh(h->node_no)) + off;
	io->len = len;
	io->dst = (uint8_t *)leaf + off;
	return io_start(o, op, get_value_read);
}

/*
 * A leaf at an edge of the model (past its end, or split off its first
 * leaf), read and valid: remember it for later GETs.
 */
static void past_note(struct ordo *o, struct shim_op *op, uint32_t at)
{
	const struct ordo_node_hdr *h = (const void *)slot_node(o, op, at);

	if (op->st.edge)
		shim_cache_past_add(o, le64toh(h->low_key),
				    op->st.pend_nodes[at],
				    op->st.edge == SHIM_EDGE_HEAD);
}

/*
 * Candidate @at answered.  A leaf split since the TT was trained still
 * answers for the keys it kept; the keys that moved right send their GETs
 * one leaf further, which queues the refresh (the cache's entries carry no
 * incarnation to notice the split earlier).
 */
static int get_cand_done(struct ordo *o, struct shim_op *op, uint32_t at)
{
	past_note(o, op, at);
	return get_done(o, op, (const void *)slot_node(o, op, at));
}

/* -ENOBUFS too tells the length: the one the value needs. */
static int get_fallback_done(struct ordo *o, struct shim_op *op)
{
	int st = op->call.status;

	op->req->val_len = !st || st == -ENOBUFS ? op->call.out_len : 0;
	return finish(op, st);
}

/* The caller's buffer, as a call's destination. */
static void call_out(struct shim_op *op)
{
	op->call.out_val = op->req->val;
	op->call.out_cap = op->req->len > UINT32_MAX ? UINT32_MAX :
			   (uint32_t)op->req->len;
}

static int get_fallback(struct ordo *o, struct shim_op *op)
{
	o->cnt.fallbacks++;
	memset(&op->call, 0, sizeof(op->call));
	op->call.op = SHIM_CALL_LOOKUP;
	op->call.key = op->req->key;
	call_out(op);
	return call_start(o, op, get_fallback_done);
}

/* The leaf copies arrived: answer, move right once, read again or fall back. */
static int get_leaf_read(struct ordo *o, struct shim_op *op)
{
	const struct ordo_node_hdr *h;
	uint32_t at;

	if (io_regions_refreshed(o, op))
		goto again;
	if (op->io_res)
		return io_failed(o, op, get_fallback);
	switch (batch_pick(o, op, op->req->key, &at)) {
	case P_FOUND:
		return get_cand_done(o, op, at);
	case P_RIGHT:
		/*
		 * The key moved right in a split: one more READ.  Past the
		 * model's last leaf (appends) or right of its first
		 * (descending inserts) up to PAST_HOPS, each leaf
		 * remembered, so the next GET there starts from it.
		 */
		if (op->st.edge && op->st.rights < PAST_HOPS) {
			past_note(o, op, at);
			op->st.rights++;
		} else if (op->st.right_done) {
			break;
		}
		h = (const void *)slot_node(o, op, at);
		op->st.right_done = true;
		take_node(op, le32toh(h->right));
		if (o->cache && op->st.sub != UINT32_MAX && !op->st.edge &&
		    !o->cache_frozen)
			shim_cache_mark_stale(o, op->st.sub);
		o->cnt.speculative_reads++;
		goto again;
	case P_LEFT:
		if (op->st.right_done)
			break;
		/* A key absent at training, past a tie settled right. */
		op->st.right_done = true;
		op->st.pend_nodes[0] = op->st.left;
		op->st.ncand = 1;
		op->st.left = ORDO_NODE_NONE;
		o->cnt.speculative_reads++;
		goto again;
	case P_TORN:
		o->cnt.retries++;
		if (op->tries++ < SHIM_TRIES)
			goto again;
		break;
	case P_STALE:
		if (op->st.edge)	/* maybe a leaf remembered there */
			shim_cache_past_drop(o, op->st.pend_nodes[at]);
		if (op->st.has_pred && !o->cache_frozen)
			shim_cache_mark_stale(o, op->st.sub);
		break;
	}
	return get_fallback(o, op);
again:
	io_cands(o, op);
	return io_start(o, op, get_leaf_read);
}

/* model-only: the TT window arrived; the fence codes pick the leaves. */
static int get_tt_read(struct ordo *o, struct shim_op *op)
{
	const struct shim_window *w = &op->st.win;
	struct ordo_tt *t = op->io[0].dst;
	uint32_t n = w->hi - w->lo + 1, i, first;

	if (io_regions_refreshed(o, op))
		return io_start(o, op, get_tt_read);
	if (op->io_res)
		return io_failed(o, op, get_fallback);
	/* Entries are not checksummed alone; the leaves' checks decide. */
	for (i = 0; i < n; i++) {
		const struct ordo_tt_entry *e = (const void *)&t[i];
		struct ordo_tt d = {
			.leaf = le32toh(e->leaf),
			.code_inca = le32toh(e->code_inca),
		};

		t[i] = d;
	}
	ordo_sub_pick(&w->s, w->pos, t, w->lo, w->hi, &first, &n);
	if (t[first - w->lo].leaf == ORDO_NODE_NONE)
		return get_fallback(o, op);
	take_cands(o, op, t + (first - w->lo), n,
		   first > w->lo ? t + (first - w->lo - 1) : NULL);
	op->st.has_pred = true;
	io_cands(o, op);
	return io_start(o, op, get_leaf_read);
}

static int get_start(struct ordo *o, struct shim_op *op)
{
	struct ordo_tt ents[SHIM_BATCH_MAX], left;
	struct ordo_pred p;
	uint64_t off, len;

	op->st.sub = UINT32_MAX;
	op->st.leaf_len = shim_leaf_read_len(&o->geo);
	if (o->mode == ORDO_MODE_LEARNED &&
	    !shim_cache_lookup(o, op->req->key, &p, ents, slot_nodes(&o->geo),
			       &left, &op->st.edge)) {
		op->st.sub = p.sub;
		op->st.has_pred = true;
		take_cands(o, op, ents, p.ncand, &left);
		io_cands(o, op);
		return io_start(o, op, get_leaf_read);
	}
	if (o->mode == ORDO_MODE_MODEL_ONLY &&
	    !shim_cache_tt_window(o, op->req->key, &op->st.win, &off, &len,
				  TT_WINDOW_MAX)) {
		op->st.sub = op->st.win.sub;
		op->nio = 1;
		op->io[0].kind = SHIM_MODEL;
		op->io[0].off = off;
		op->io[0].len = len;
		op->io[0].dst = op->buf + slot_node_area(&o->geo);
		return io_start(o, op, get_tt_read);
	}
	return walk_start(o, op, get_done, get_fallback);
}

/* ---- the walk (Cell): root to leaf by READs, inner nodes cached ---- */

static int walk_step(struct ordo *o, struct shim_op *op, const void *node);
static int walk_read(struct ordo *o, struct shim_op *op);

static int walk_restart(struct ordo *o, struct shim_op *op)
{
	if (op->tries++ >= SHIM_TRIES)
		return -1;
	o->cnt.retries++;
	/* Cached inner nodes led astray: walk by fresh reads this time. */
	op->st.nocache = true;
	if (shim_super_load(o))
		return -1;
	op->st.node = o->sup.root;
	op->st.level = o->sup.height - 1;
	op->st.rights = 0;
	return 0;
}

/* The walk's next READ: node st.node, of an inner node its entries. */
static void io_walk_node(struct ordo *o, struct shim_op *op)
{
	io_node_len(o, op, 0, op->st.node,
		    op->st.level ? shim_node_read_len(&o->geo, op->st.level,
						      true) :
				   op->st.leaf_len);
}

/* Go to node st.node at st.level: from the cache, or by one READ. */
static int walk_visit(struct ordo *o, struct shim_op *op)
{
	for (;;) {
		const struct ordo_node_hdr *c = NULL;
		int ret;

		if (op->st.level && o->walk && !op->st.nocache)
			c = shim_walk_cache_find(o->walk, op->st.node);
		if (!c) {
			op->nio = 0;
			io_walk_node(o, op);
			return io_start(o, op, walk_read);
		}
		ret = walk_step(o, op, c);
		/* Anything but "go on to the next node" is the caller's. */
		if (ret != SHIM_AGAIN || op->step != walk_read || op->nio ||
		    op->io_res)
			return ret;
	}
}

/*
 * One validated (or cached) node of the walk.  Inner: descend or move
 * right.  Leaf: answer the operation.  Sets op->step = walk_read and
 * returns SHIM_AGAIN with io_res 0 to go on to the next node.
 */
static int walk_step(struct ordo *o, struct shim_op *op, const void *node)
{
	struct shim_walk w = {
		.key = op->req->op == ORDO_REQ_SCAN ? op->st.fence :
		       op->req->key,
		.node = op->st.node,
		.level = op->st.level,
		.rights = op->st.rights,
		.leaf_len = op->st.leaf_len,
	};
	enum shim_walk_res r = shim_walk_step(&o->geo, &w, node);

	switch (r) {
	case SHIM_WALK_TORN:
		o->cnt.retries++;
		if (op->tries++ >= SHIM_TRIES)
			goto fail;
		op->nio = 0;
		io_walk_node(o, op);
		return io_start(o, op, walk_read);
	case SHIM_WALK_STALE:
		if (o->walk)
			shim_walk_cache_drop(o->walk, op->st.node);
		if (walk_restart(o, op))
			goto fail;
		goto next;
	case SHIM_WALK_LEAF:
		return op->st.leaf_done(o, op, node);
	case SHIM_WALK_DOWN:
		if (o->walk && node == slot_node(o, op, 0))
			shim_walk_cache_add(o->walk, node);
		break;
	case SHIM_WALK_RIGHT:
		break;
	}
	op->st.node = w.node;
	op->st.level = w.level;
	op->st.rights = w.rights;
next:
	op->step = walk_read;
	op->io_res = 0;
	op->nio = 0;
	return SHIM_AGAIN;
fail:
	return op->st.fail(o, op);
}

/* The walk's READ completed (nio 1), or it moves on (nio 0). */
static int walk_read(struct ordo *o, struct shim_op *op)
{
	if (io_regions_refreshed(o, op)) {
		op->io_res = 0;
		op->nio = 0;
	}
	if (op->io_res)
		return io_failed(o, op, op->st.fail);
	if (!op->nio)
		return walk_visit(o, op);
	return walk_step(o, op, slot_node(o, op, 0));
}

/*
 * Walk from the root to the leaf of the key (GET) or of st.fence (SCAN);
 * the leaf goes to @leaf_done, a walk that keeps failing to @fail.
 */
static int walk_start(struct ordo *o, struct shim_op *op,
		      int (*leaf_done)(struct ordo *o, struct shim_op *op,
				       const void *leaf),
		      int (*fail)(struct ordo *o, struct shim_op *op))
{
	op->st.has_pred = false;
	op->st.leaf_done = leaf_done;
	op->st.fail = fail;
	op->st.node = o->sup.root;
	op->st.level = o->sup.height - 1;
	op->st.rights = 0;
	return walk_visit(o, op);
}

/* ---- SCAN ---- */

static int scan_rpc(struct ordo *o, struct shim_op *op);

/*
 * Pairs of a validated leaf the scan may take from the fence before the
 * first long value (of at most @want), or UINT32_MAX if none comes.  The
 * leaf holds a long value's size in units, not its length, so a scan
 * that returns lengths or values takes the pairs before it and leaves
 * the rest to SCAN calls (the server reports the length).
 */
static uint32_t scan_inline_run(struct ordo *o, const void *leaf,
				uint64_t fence, uint32_t want)
{
	const struct ordo_node_hdr *h = leaf;
	const __le16 *lens = ordo_leaf_clens(h, &o->geo);
	uint32_t cnt = le16toh(h->count), i, n;

	if (cnt > o->geo.leaf_slots)
		cnt = o->geo.leaf_slots;
	i = ordo_leaf_lower_bound(h, &o->geo, cnt, fence);
	for (n = 0; i < cnt && n < want; i++, n++)
		if (le16toh(lens[ordo_leaf_slot(h, &o->geo, i)]) &
		    ORDO_LEN_EXTENT)
			return n;
	return UINT32_MAX;
}

/*
 * Take the keys of a validated leaf from the fence on.  Returns 1 when
 * the scan is complete (count reached or rightmost leaf), 0 to go on to
 * the right sibling, -EIO for a leaf whose keys are out of order or
 * outside its fences, or that holds a long value to return (continue by
 * SCAN calls from the fence).
 */
static int scan_take(struct ordo *o, struct shim_op *op, const void *leaf)
{
	struct ordo_req *r = op->req;
	struct shim_scan s = {
		.keys = r->keys,
		.vals = r->val,
		.lens = r->lens,
		.count = r->count,
		.have = op->st.have,
		.fence = op->st.fence,
		.right = op->st.right,
		.more = r->more,
		.next = r->next,
	};
	uint32_t run = UINT32_MAX;
	int done;

	if (r->val || r->lens)
		run = scan_inline_run(o, leaf, s.fence, s.count - s.have);
	if (!run)
		return -EIO;
	if (run != UINT32_MAX)
		s.count = s.have + run;
	done = shim_scan_take(&o->geo, &s, leaf);
	op->st.have = s.have;
	op->st.fence = s.fence;
	op->st.right = s.right;
	r->more = s.more;
	r->next = s.next;
	if (run != UINT32_MAX && done > 0) {
		/* The pairs before the long value: the calls go on after. */
		op->st.fence = s.next;
		return -EIO;
	}
	return done;
}

static int scan_finish(struct shim_op *op)
{
	return finish(op, (int)op->st.have);
}

static int scan_next_batch(struct ordo *o, struct shim_op *op);

/* A batch of following leaves arrived: take each that connects. */
static int scan_batch_read(struct ordo *o, struct shim_op *op)
{
	uint32_t i;
	int ret;

	if (io_regions_refreshed(o, op))
		return scan_next_batch(o, op);
	if (op->io_res)
		return io_failed(o, op, scan_rpc);
	for (i = 0; i < op->nio; i++) {
		const struct ordo_node_hdr *h = op->io[i].dst;
		uint32_t want = op->st.pend_nodes[i];
		enum vres v = node_check(o, h, want, 0, op->st.fence);

		/* Only a leaf holding the fence continues the scan. */
		if (v != V_OK) {
			if (v == V_TORN)
				o->cnt.retries++;
			else if (op->st.has_pred && !o->cache_frozen)
				shim_cache_mark_stale(o, op->st.sub);
			op->st.has_pred = false;	/* follow right links */
			if (op->tries++ >= SHIM_TRIES)
				return scan_rpc(o, op);
			return scan_next_batch(o, op);
		}
		ret = scan_take(o, op, h);
		if (ret > 0)
			return scan_finish(op);
		if (ret < 0)
			return scan_rpc(o, op);
	}
	return scan_next_batch(o, op);
}

/* Read the leaves after the fence: several from the TT, or the right link. */
static int scan_next_batch(struct ordo *o, struct shim_op *op)
{
	uint32_t want = op->req->count - op->st.have;
	uint32_t n = want / (o->geo.leaf_slots / 2 ? o->geo.leaf_slots / 2 : 1) + 1;
	uint32_t max = slot_nodes(&o->geo), i;
	struct ordo_tt ent;

	if (n > max)
		n = max;
	/* The TT's next leaf must be the right sibling to read ahead. */
	if (op->st.has_pred &&
	    (shim_cache_next(o, &op->st.sub, &op->st.lln, &ent) ||
	     ent.leaf != op->st.right))
		op->st.has_pred = false;
	op->nio = 0;
	op->st.pend_nodes[0] = op->st.right;
	io_node(o, op, 0, op->st.right);
	if (op->st.has_pred) {
		for (i = 1; i < n; i++) {
			if (shim_cache_next(o, &op->st.sub, &op->st.lln, &ent))
				break;
			op->st.pend_nodes[i] = ent.leaf;
			io_node(o, op, i, ent.leaf);
		}
	}
	return io_start(o, op, scan_batch_read);
}

static int scan_first_leaf(struct ordo *o, struct shim_op *op, const void *leaf)
{
	int ret = scan_take(o, op, leaf);

	if (ret > 0)
		return scan_finish(op);
	if (ret < 0)
		return scan_rpc(o, op);
	return scan_next_batch(o, op);
}

static int scan_rpc_done(struct ordo *o, struct shim_op *op)
{
	struct ordo_req *r = op->req;

	if (op->call.status)
		return finish(op, op->call.status);
	op->st.have += op->call.returned;
	r->more = op->call.more;
	r->next = op->call.next;
	if (op->st.have < r->count && op->call.more) {
		op->st.fence = op->call.next;
		return scan_rpc(o, op);
	}
	return scan_finish(op);
}

/* Continue by SCAN calls from the fence (the last good key + 1). */
static int scan_rpc(struct ordo *o, struct shim_op *op)
{
	struct ordo_req *r = op->req;

	if (op->st.step_rpc++ == 0 && o->mode != ORDO_MODE_RPC)
		o->cnt.fallbacks++;
	memset(&op->call, 0, sizeof(op->call));
	op->call.op = SHIM_CALL_SCAN;
	op->call.key = op->st.fence;
	op->call.count = r->count - op->st.have;
	op->call.out_keys = r->keys + op->st.have;
	op->call.out_vals = r->val ? (uint8_t *)r->val +
			    (size_t)op->st.have * o->geo.value_size : NULL;
	op->call.out_lens = r->lens ? r->lens + op->st.have : NULL;
	return call_start(o, op, scan_rpc_done);
}

static int scan_leaf_read(struct ordo *o, struct shim_op *op)
{
	const struct ordo_node_hdr *h;
	uint32_t at;

	if (io_regions_refreshed(o, op))
		goto again;
	if (op->io_res)
		return io_failed(o, op, scan_rpc);
	switch (batch_pick(o, op, op->st.fence, &at)) {
	case P_FOUND:
		/* Read-ahead follows the TT from the leaf that answered. */
		op->st.lln += at;
		return scan_first_leaf(o, op, slot_node(o, op, at));
	case P_RIGHT:
		h = (const void *)slot_node(o, op, at);
		take_node(op, le32toh(h->right));
		o->cnt.speculative_reads++;
		break;
	case P_TORN:
		o->cnt.retries++;
		break;
	case P_LEFT:
	case P_STALE:
		if (!o->cache_frozen)
			shim_cache_mark_stale(o, op->st.sub);
		return walk_start(o, op, scan_first_leaf, scan_rpc);
	}
	if (op->tries++ >= SHIM_TRIES)
		return scan_rpc(o, op);
again:
	io_cands(o, op);
	return io_start(o, op, scan_leaf_read);
}

static int scan_start(struct ordo *o, struct shim_op *op)
{
	struct ordo_tt ents[SHIM_BATCH_MAX];
	struct ordo_pred p;

	op->st.fence = op->req->key;
	op->st.have = 0;
	op->st.leaf_len = o->geo.node_size;
	op->req->more = 0;
	op->req->next = 0;
	if (o->mode == ORDO_MODE_RPC)
		return scan_rpc(o, op);
	if (o->mode == ORDO_MODE_LEARNED &&
	    !shim_cache_lookup(o, op->req->key, &p, ents, slot_nodes(&o->geo),
			       NULL, NULL)) {
		op->st.sub = p.sub;
		op->st.lln = p.lln;
		op->st.has_pred = true;
		take_cands(o, op, ents, p.ncand, NULL);
		io_cands(o, op);
		return io_start(o, op, scan_leaf_read);
	}
	return walk_start(o, op, scan_first_leaf, scan_rpc);
}

/* ---- writes ---- */

static int write_done(struct ordo *o, struct shim_op *op)
{
	return finish(op, op->call.status);
}

static int write_start(struct ordo *o, struct shim_op *op)
{
	struct ordo_req *r = op->req;
	struct ordo_pred p;
	struct ordo_tt ent;

	memset(&op->call, 0, sizeof(op->call));
	op->call.op = r->op;
	op->call.key = r->key;
	op->call.val = r->val;
	op->call.len = r->op == ORDO_OP_DELETE ? 0 : r->len;
	/* The cache's position hint spares the server its descent. */
	if (r->op == ORDO_OP_UPDATE && o->mode == ORDO_MODE_LEARNED &&
	    !shim_cache_lookup(o, r->key, &p, &ent, 1, NULL, NULL) &&
	    p.ncand == 1) {
		op->call.hint_leaf = ent.leaf;
	}
	return call_start(o, op, write_done);
}

static int get_rpc_start(struct ordo *o, struct shim_op *op)
{
	memset(&op->call, 0, sizeof(op->call));
	op->call.op = ORDO_OP_GET;
	op->call.key = op->req->key;
	call_out(op);
	return call_start(o, op, get_fallback_done);
}

/**
 * shim_op_start() - pick the state machine of a request
 * @o: handle
 * @op: slot holding the request
 */
void shim_op_start(struct ordo *o, struct shim_op *op)
{
	memset(&op->st, 0, sizeof(op->st));
	op->tries = 0;
	op->nio = 0;
	op->call_id = 0;
	switch (op->req->op) {
	case ORDO_OP_GET:
		op->step = o->mode == ORDO_MODE_RPC ? get_rpc_start : get_start;
		break;
	case ORDO_REQ_SCAN:
		op->step = scan_start;
		break;
	default:
		op->step = write_start;
		break;
	}
}

/**
 * shim_super_load() - read node 0 and take the root, height and pool size
 * @o: handle
 *
 * Return: 0, -EPROTO for a superblock of another geometry, -EAGAIN when
 * every copy was torn, or the read's error.
 */
int shim_super_load(struct ordo *o)
{
	struct ordo_super_info si;
	uint8_t *buf = malloc(o->geo.node_size);
	int ret = -ENOMEM, tries;

	for (tries = 0; buf && tries < SHIM_TRIES * 4; tries++) {
		ret = o->be->bulk(o, SHIM_POOL, 0, buf, o->geo.node_size);
		if (!ret)
			ret = ordo_super_parse(buf, o->geo.node_size, &si);
		if (ret != -EAGAIN)
			break;
		o->cnt.retries++;
	}
	free(buf);
	if (ret)
		return ret;
	if (memcmp(&si.geo, &o->geo, sizeof(si.geo)) || !si.height ||
	    si.height > ORDO_MAX_HEIGHT || !si.nr_chunks)
		return -EPROTO;
	o->sup = si;
	return 0;
}
