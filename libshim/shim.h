/* SPDX-License-Identifier: GPL-2.0 */
/*
 * libordo internals.
 *
 * A handle runs every operation as a small state machine (struct shim_op)
 * in one of queue_depth slots.  A step either finishes the operation or
 * asks the backend for I/O: a batch of reads of the pool or model region
 * (one doorbell), or a server call (RPC or ioctl).  The local backend does
 * I/O at once; the RDMA backend posts it and steps the operation again
 * from its completion.  read.c holds the state machines, cache.c the
 * shared learned cache, walk_cache.c the inner-node cache of the walk.
 */
#ifndef LIBORDO_SHIM_H
#define LIBORDO_SHIM_H

#include <stdbool.h>
#include <stdint.h>
#include <time.h>

#include "compat.h"
#include "decode.h"
#include "model.h"
#include "node.h"
#include "ordo.h"

#define SHIM_QD_DEFAULT		32
#define SHIM_QD_MAX		256
#define SHIM_TIMEOUT_DEFAULT	5000
#define SHIM_WALK_CACHE_DEFAULT	(4u << 20)
/* Reads in one doorbell batch (SCAN's read-ahead). */
#define SHIM_BATCH_MAX		8
/* Bytes of read buffer per slot when nodes are large. */
#define SHIM_SLOT_READ_MAX	(256u << 10)
/* Validation failures of one operation before it falls back to a call. */
#define SHIM_TRIES		4

/* Address spaces a read targets (enum ordo_wire_region_kind). */
#define SHIM_POOL		1
#define SHIM_MODEL		2

/**
 * struct shim_io - one read of a batch
 * @kind: %SHIM_POOL or %SHIM_MODEL.
 * @len: bytes.
 * @off: zero-based offset in the address space.
 * @dst: where the bytes go (inside the slot's read buffer).
 */
struct shim_io {
	uint32_t kind;
	uint32_t len;
	uint64_t off;
	void *dst;
};

/* Server calls (struct shim_call.op) beyond enum ordo_op. */
#define SHIM_CALL_SCAN		16
#define SHIM_CALL_LOOKUP	17	/* GET that also refreshes a sub-model */

/**
 * struct shim_call - a server call and its decoded result
 * @op: enum ordo_op, %SHIM_CALL_SCAN or %SHIM_CALL_LOOKUP.
 * @key: key, or SCAN's start.
 * @val: writes: the value; @len bytes.
 * @len: bytes at @val.
 * @hint_leaf: UPDATE: the leaf the cache names (0: no hint).
 * @count: SCAN: pairs wanted.
 * @out_val: GET/LOOKUP: @out_cap bytes of destination, or NULL.
 * @out_cap: GET/LOOKUP: bytes at @out_val (at least value_size).
 * @out_len: GET/LOOKUP: the value's length (-ENOBUFS: the length
 *	needed, nothing copied).
 * @out_keys: SCAN: room for @count keys.
 * @out_vals: SCAN: room for @count values, or NULL.
 * @out_lens: SCAN: room for @count value lengths, or NULL.
 * @status: result: 0 or a negative errno (-ENOENT: absent).
 * @returned: SCAN: pairs written.
 * @more: SCAN: more keys may follow.
 * @next: SCAN: where to continue.
 */
struct shim_call {
	uint32_t op;
	uint32_t count;
	uint64_t key;
	const void *val;
	size_t len;
	uint32_t hint_leaf;
	void *out_val;
	uint32_t out_cap;
	uint32_t out_len;
	uint64_t *out_keys;
	void *out_vals;
	uint32_t *out_lens;
	int status;
	uint32_t returned;
	int more;
	uint64_t next;
};

struct shim_op;
/* A step: SHIM_DONE, SHIM_WAIT (I/O posted) or SHIM_AGAIN (step again). */
typedef int (*shim_step_t)(struct ordo *o, struct shim_op *op);
#define SHIM_DONE	0
#define SHIM_WAIT	1
#define SHIM_AGAIN	2

/**
 * struct shim_op - an operation in flight (one slot)
 * @req: the caller's request (or the handle's own for sync calls).
 * @step: next step to run.
 * @slot: slot number.
 * @busy: the slot is in use.
 * @io_res: result of the last I/O: 0 or a negative errno.
 * @io: the reads of the current batch.
 * @nio: reads in @io.
 * @call: the current server call.
 * @buf: the slot's read buffer (registered memory for RDMA).
 * @buf_len: its bytes.
 * @xbuf: the slot's extent buffer (a long value's GET reads its extent
 *	there), grown on demand, or NULL; @xbuf_len its bytes; @xreg the
 *	backend's registration of it (RDMA: its MR), or NULL.
 * @tries: validation failures so far.
 * @t_start: when the operation was submitted (ms), for its time bound.
 * @call_id: RDMA: id of the request in flight (0: none).
 * @call_len: RDMA: bytes of that request (sent when a credit frees).
 * @reading: RDMA: a batch of READs is in flight.
 * @running: shim_run() is stepping it.  A step may make a synchronous
 *	backend call (a region refresh, a superblock read); a backend that
 *	fails there must not end this operation under the step, which goes
 *	on using it: it ends by itself, as every I/O it starts then fails.
 * @state: the state machine's own fields, see read.c.
 */
/**
 * struct shim_window - model-only: a key's TT window, read per GET
 * @sub: sub-model index.
 * @lo: first logical leaf of the window.
 * @hi: last logical leaf of the window.
 * @pos: the key's predicted position.
 * @s: the sub-model's descriptor, as cached.
 */
struct shim_window {
	uint32_t sub, lo, hi;
	uint64_t pos;
	struct ordo_sub s;
};

struct shim_op {
	struct ordo_req *req;
	shim_step_t step;
	uint32_t slot;
	bool busy;
	int io_res;
	struct shim_io io[SHIM_BATCH_MAX];
	uint32_t nio;
	struct shim_call call;
	uint8_t *buf;
	size_t buf_len;
	uint8_t *xbuf;
	size_t xbuf_len;
	void *xreg;
	uint32_t tries;
	long long t_start;
	uint64_t call_id;
	uint32_t call_len;
	bool reading;
	bool running;
	struct shim_state {
		uint32_t sub, lln, level;
		uint32_t node, right, have;
		uint32_t step_rpc, rights;
		uint64_t fence;
		bool has_pred, right_done, nocache;
		uint8_t edge;	/* SHIM_EDGE_* of the learned lookup */
		uint32_t ncand, left;
		/* Bytes of a leaf a GET reads: all, or the key block (large). */
		uint32_t leaf_len;
		uint32_t leaf_at, vslot;	/* a value read by itself */
		uint64_t xref;		/* a long value: its extent ref */
		uint32_t xunits;	/* and its size in units */
		uint32_t pend_nodes[SHIM_BATCH_MAX];
		struct shim_window win;
		int (*leaf_done)(struct ordo *o, struct shim_op *op,
				 const void *leaf);
		int (*fail)(struct ordo *o, struct shim_op *op);
	} st;
};

/**
 * struct shim_backend - what a transport does for the engine
 * @read: start the reads op->io[0..nio) as one batch.  Returns 1 when
 *	they completed already (op->io_res set), 0 when posted (the backend
 *	steps the op on completion), or a negative errno.
 * @call: start op->call; same returns.
 * @wait: wait up to @ms for completions and step their ops; returns the
 *	number of completions handled or a negative errno.  An operation
 *	the handle's timeout_ms old is failed by then (synchronous calls
 *	wait for their operation's end, whatever a wait returns).
 * @bulk: synchronous read of any length (cache loads); 0 or -errno.
 * @info, @model_info, @retrain, @batch: synchronous calls; @batch gets
 *	only entries that passed ordo_batch()'s checks and @batch_takes.
 * @batch_takes: whether @batch carries the entry (a value within its
 *	bound, a reply within a message); ordo_batch() runs the others as
 *	operations of their own.
 * @xbuf_drop: before the engine frees or grows a slot's extent buffer
 *	(op->xbuf): forget what the backend keeps of it (a registration);
 *	may be NULL.
 * @prepare: before an operation starts with none in flight (reconnect a
 *	lost connection); may be NULL.
 * @refresh: make sure the super/region view is current (e.g. after a
 *	read outside the known pool); 0 or a negative errno.
 * @close: free the backend.
 */
struct shim_backend {
	int (*read)(struct ordo *o, struct shim_op *op);
	int (*call)(struct ordo *o, struct shim_op *op);
	int (*wait)(struct ordo *o, int ms);
	int (*bulk)(struct ordo *o, uint32_t kind, uint64_t off, void *dst,
		    size_t len);
	int (*info)(struct ordo *o, struct ordo_info *info);
	int (*model_info)(struct ordo *o, struct ordo_model_info *info);
	int (*retrain)(struct ordo *o, uint64_t *version);
	int (*batch)(struct ordo *o, struct ordo_batch_op *ops, uint32_t n);
	bool (*batch_takes)(struct ordo *o, const struct ordo_batch_op *b);
	int (*refresh)(struct ordo *o);
	int (*prepare)(struct ordo *o);
	void (*xbuf_drop)(struct ordo *o, struct shim_op *op);
	void (*close)(struct ordo *o);
};

struct shim_cache;
struct shim_walk_cache;

/**
 * struct ordo - a handle
 * @be: its backend; @priv the backend's state.
 * @uri: the store's URI (owned).
 * @fd: local device, or -1.
 * @mode: enum ordo_mode in use.
 * @opts: options as resolved at open.
 * @geo: node geometry of the store.
 * @sup: the pool's bootstrap data (root, height, chunks).
 * @server_id: identity of the store (local: 0).
 * @cache: the learned cache (learned, model-only), or NULL.
 * @walk: the walk's inner-node cache, or NULL.
 * @ops: queue_depth slots.
 * @qd: slots.
 * @inflight: slots in use.
 * @completed: requests completed by the last steps and not yet counted.
 * @cb_depth: callbacks running (nested: one called from another's call).
 * @cb_pend: completed requests whose callbacks wait for the running one
 *	to return (@cb_head..@cb_n of them, @cb_cap room), so that chains of
 *	requests submitted from callbacks do not nest without bound.
 * @calls: public calls running on the handle (shim_enter()).
 * @closing: ordo_close() was called while @calls ran (from a callback):
 *	the outermost call frees the handle as it returns.
 * @cache_frozen: %ORDO_OPT_FROZEN_CACHE: never refresh the cache.
 * @cnt: counters.
 * @sync_req: request of the synchronous calls.
 */
struct ordo_raw_cfg;

struct ordo {
	const struct shim_backend *be;
	void *priv;
	const char *uri;
	int fd;
	enum ordo_mode mode;
	struct ordo_opts opts;
	struct ordo_geo geo;
	struct ordo_super_info sup;
	uint64_t server_id;
	struct shim_cache *cache;
	struct shim_walk_cache *walk;
	struct shim_op *ops;
	uint32_t qd;
	uint32_t inflight;
	uint32_t completed;
	uint32_t cb_depth;
	struct ordo_req **cb_pend;
	uint32_t cb_head, cb_n, cb_cap;
	uint32_t calls;
	bool closing;
	bool cache_frozen;
	struct ordo_counters cnt;
	struct ordo_req sync_req;
	struct ordo_raw_cfg *raw_cfg;
};

/* ordo.c */
struct ordo *shim_open(const char *uri, const struct ordo_opts *opts,
		       struct ordo_raw_cfg *raw);
long long shim_now_ms(void);
int shim_slots_init(struct ordo *o, uint8_t *mem, size_t per_slot);
int shim_sync_req(struct ordo *o, struct ordo_req *r);
bool shim_enter(struct ordo *o);
void shim_leave(struct ordo *o);
size_t shim_slot_bytes(const struct ordo_geo *geo);
void shim_run(struct ordo *o, struct shim_op *op);

/* extent.c: long values' extents */
uint32_t shim_value_max(const struct ordo *o);
int shim_extent_locate(const struct ordo_geo *geo, uint64_t chunk_size,
		       uint32_t max_chunks, uint16_t lens, uint64_t ref,
		       uint64_t *off, uint32_t *bytes);
int shim_xbuf_get(struct ordo *o, struct shim_op *op, size_t len);
void shim_xbufs_free(struct ordo *o);

/* read.c: the state machines */
int shim_op_claim(struct ordo *o, struct ordo_req *r, struct shim_op **opp);
void shim_op_start(struct ordo *o, struct shim_op *op);
int shim_super_load(struct ordo *o);
int shim_step_fail(struct ordo *o, struct shim_op *op);

/* local.c, rdma.c */
int ordo_local_open(struct ordo *o, const char *path);
int ordo_rdma_open(struct ordo *o, const char *uri);

/* cache.c: the learned cache shared by a process's handles */
int shim_cache_get(struct ordo *o, uint64_t server_id, const char *where);
void shim_cache_put(struct ordo *o);
int shim_cache_load(struct ordo *o);
int shim_model_layout(struct ordo *o, struct ordo_model_layout *lay);
/* Where a learned lookup's candidates lie: at an edge of the model. */
#define SHIM_EDGE_TAIL	0x1	/* at its last leaf: appends lie right */
#define SHIM_EDGE_HEAD	0x2	/* at its first leaf: descending inserts */
int shim_cache_lookup(struct ordo *o, uint64_t key, struct ordo_pred *p,
		      struct ordo_tt *ents, uint32_t max, struct ordo_tt *left,
		      uint8_t *edge);
void shim_cache_past_add(struct ordo *o, uint64_t low, uint32_t leaf,
			 bool head);
void shim_cache_past_drop(struct ordo *o, uint32_t leaf);
int shim_cache_next(struct ordo *o, uint32_t *sub, uint32_t *lln,
		    struct ordo_tt *ent);
int shim_cache_load_sub(struct ordo *o, uint64_t epoch, uint32_t sub,
			const void *bytes, size_t len);
bool shim_cache_ready(struct ordo *o);
uint64_t shim_cache_epoch(struct ordo *o);
uint64_t shim_cache_bytes(struct ordo *o);
int shim_cache_tt_window(struct ordo *o, uint64_t key, struct shim_window *w,
			 uint64_t *off, uint64_t *len, uint32_t max);
void shim_cache_mark_stale(struct ordo *o, uint32_t sub);
void shim_cache_refresh_stale(struct ordo *o);
bool shim_cache_pending(struct ordo *o);

/* walk_cache.c */
struct shim_walk_cache *shim_walk_cache_new(uint64_t budget,
					    const struct ordo_geo *geo);
void shim_walk_cache_free(struct shim_walk_cache *wc);
const struct ordo_node_hdr *shim_walk_cache_find(struct shim_walk_cache *wc,
						 uint32_t node);
void shim_walk_cache_add(struct shim_walk_cache *wc, const void *node);
void shim_walk_cache_drop(struct shim_walk_cache *wc, uint32_t node);
uint64_t shim_walk_cache_bytes(const struct shim_walk_cache *wc);

#endif /* LIBORDO_SHIM_H */
