/* SPDX-License-Identifier: GPL-2.0 */
/*
 * libordo - the ordo client library.
 *
 * One handle talks to one ordo store: the local device ("/dev/ordo") or a
 * remote server ("rdma://HOST[:PORT]").  Every call returns 0 (or a count)
 * on success and a negative errno on failure; the errnos are the same ones
 * the kernel module returns, on both backends.
 *
 * GET and SCAN read the store's memory directly -- the read-only mmap of
 * /dev/ordo, or one-sided RDMA READs of a remote pool -- guided by a cached
 * learned model; writes are ioctls or RPCs.  Documentation/client.rst is
 * the guide.
 *
 * Threads: a handle is used by one thread at a time (open one handle per
 * thread).  Handles of one process that talk to the same server share one
 * learned cache, which is thread-safe.  Nothing else is global.
 */
#ifndef LIBORDO_ORDO_H
#define LIBORDO_ORDO_H

#include <stddef.h>
#include <stdint.h>
#include <linux/ordo.h>

#ifdef __cplusplus
extern "C" {
#endif

struct ordo;

/**
 * enum ordo_mode - how a handle serves GET and SCAN
 * @ORDO_MODE_DEFAULT: from $ORDO_MODE, else %ORDO_MODE_LEARNED.
 * @ORDO_MODE_LEARNED: learned model and translation table (TT) cached:
 *	a GET is one read of the leaf the model names.
 * @ORDO_MODE_MODEL_ONLY: only the model is cached; each GET reads its TT
 *	entry first (two reads, far less client memory).
 * @ORDO_MODE_WALK: no model: a B-link walk from the root, inner nodes
 *	cached up to &ordo_opts.walk_cache_bytes.
 * @ORDO_MODE_RPC: every operation is an RPC (or ioctl) served by the
 *	server's CPU.
 */
enum ordo_mode {
	ORDO_MODE_DEFAULT = 0,
	ORDO_MODE_LEARNED = 1,
	ORDO_MODE_MODEL_ONLY = 2,
	ORDO_MODE_WALK = 3,
	ORDO_MODE_RPC = 4,
};

/**
 * struct ordo_opts - options of ordo_open_opts(); zero means the default
 * @size: sizeof(struct ordo_opts), so the struct can grow.
 * @mode: enum ordo_mode.
 * @token: access token of a remote server (NULL: $ORDO_TOKEN, else none);
 *	the handle keeps a copy.
 * @timeout_ms: bound on every wait for the network (default 5000, at
 *	most INT_MAX).  A server that does not answer in time gives
 *	-ETIMEDOUT; a synchronous call returns only once its request ended.
 * @queue_depth: operations in flight per handle (default 32, at most 256;
 *	a server may grant fewer RPC credits).
 * @walk_cache_bytes: bytes of inner nodes the walk caches (default 4 MiB;
 *	0 with %ORDO_OPT_NO_WALK_CACHE).
 * @flags: ORDO_OPT_* bits.
 */
struct ordo_opts {
	uint32_t size;
	uint32_t mode;
	const char *token;
	uint32_t timeout_ms;
	uint32_t queue_depth;
	uint64_t walk_cache_bytes;
	uint32_t flags;
	uint32_t reserved;
};

/* ordo_opts.flags */
#define ORDO_OPT_PRIVATE_CACHE	0x1	/* do not share the learned cache */
#define ORDO_OPT_NO_WALK_CACHE	0x2	/* walk without caching inner nodes */
/*
 * Tests: never refresh the learned cache's model and TT after open, so
 * every GET meets whatever staleness the server's changes cause (reads
 * stay validated; leaves found past the model's end are still remembered).
 */
#define ORDO_OPT_FROZEN_CACHE	0x4

/* Open a store; NULL for "/dev/ordo".  NULL + errno on error. */
struct ordo *ordo_open(const char *uri);
/* Open with options (NULL: as ordo_open()).  NULL + errno on error. */
struct ordo *ordo_open_opts(const char *uri, const struct ordo_opts *opts);
/*
 * Free the handle; requests still in flight are dropped (no callback).
 * From a callback: the handle is freed when the call that ran it returns.
 */
void ordo_close(struct ordo *o);

/* The mode a handle uses (never %ORDO_MODE_DEFAULT). */
enum ordo_mode ordo_mode(const struct ordo *o);
/* Parse "learned", "model-only", "walk" or "rpc"; -EINVAL otherwise. */
int ordo_mode_parse(const char *name, enum ordo_mode *mode);
const char *ordo_mode_name(enum ordo_mode mode);

/* Module version and geometry. */
int ordo_info(struct ordo *o, struct ordo_info *info);
/*
 * The store's inline threshold: values of 0..value_size bytes sit in their
 * leaf; longer ones, up to ordo_value_max(), are out of line (extents).
 */
size_t ordo_value_size(const struct ordo *o);
/* The longest value this store holds: min(1 MiB, chunk_size - 24). */
size_t ordo_value_max(const struct ordo *o);

/*
 * GET copies the value to @val, then zeros up to value_size; @len must be
 * >= value_size.  A value longer than @len: -ENOBUFS, nothing copied
 * (ordo_get_len() tells the length).  0 or a negative errno.
 */
int ordo_get(struct ordo *o, uint64_t key, void *val, size_t len);
/*
 * GET that tells the value's length: copies exactly its bytes to @val
 * (@cap >= value_size) and stores the length in *@len.  A value longer
 * than @cap: -ENOBUFS, nothing copied, *@len the length needed.
 */
int ordo_get_len(struct ordo *o, uint64_t key, void *val, size_t cap,
		 size_t *len);
/*
 * Writes take 0..ordo_value_max() bytes (@val may be NULL for 0; longer:
 * -EMSGSIZE); the value is stored with its length.
 */
int ordo_put(struct ordo *o, uint64_t key, const void *val, size_t len);
int ordo_insert(struct ordo *o, uint64_t key, const void *val, size_t len);
int ordo_update(struct ordo *o, uint64_t key, const void *val, size_t len);
int ordo_delete(struct ordo *o, uint64_t key);

/*
 * SCAN: up to @n (1..ORDO_SCAN_MAX) pairs with key >= @start, in order, into
 * @keys and (unless NULL) @vals (n * value_size bytes; a value longer than
 * value_size comes back as value_size zero bytes: GET fetches it).
 * Returns the number of pairs written.  *@more (if not NULL) is set to 1 when keys past the last
 * one returned may exist; *@next (if not NULL) then holds the key at which
 * the following call should start.
 */
int ordo_scan(struct ordo *o, uint64_t start, uint32_t n, uint64_t *keys,
	      void *vals, int *more, uint64_t *next);
/*
 * ordo_scan() that also stores each value's length in @lens (n entries):
 * more than value_size for a long value, whose bytes SCAN does not return.
 */
int ordo_scan_len(struct ordo *o, uint64_t start, uint32_t n, uint64_t *keys,
		  void *vals, uint32_t *lens, int *more, uint64_t *next);

/* The learned model's figures (struct ordo_model_info). */
int ordo_model_info(struct ordo *o, struct ordo_model_info *info);
/* Full retraining of the model, waited for; *@version: its epoch. */
int ordo_retrain(struct ordo *o, uint64_t *version);

/**
 * ordo_batch() - several point operations in one call
 * @o: the handle.
 * @ops: 1..ORDO_BATCH_MAX entries (struct ordo_batch_op); each entry's
 *	result gets its own errno.
 * @n: entries.
 *
 * Every entry is checked before any runs, so a malformed batch changes
 * nothing.  Entries then run in order.  A value may be as long as
 * ordo_put() and ordo_get_len() take: an entry the backend's BATCH does
 * not carry (a write longer than value_size locally, or than one message
 * over RDMA) runs as an operation of its own in its place, and a GET
 * that finds a longer value than a BATCH returns gets it by a GET of its
 * own, before any later entry writes its key.  Over RDMA a batch travels
 * as as many BATCH messages as the server's message size needs.  A
 * failure that is no entry's own (the connection) stops the batch: the
 * entries that never ran keep -ECANCELED.
 *
 * Return: @n, or a negative errno.
 */
int ordo_batch(struct ordo *o, struct ordo_batch_op *ops, uint32_t n);

/* The file descriptor of a local store (for mmap and io_uring), or -1. */
int ordo_fd(const struct ordo *o);

/**
 * struct ordo_counters - what a handle did since it was opened
 * @gets: GETs completed.
 * @scans: SCANs completed.
 * @writes: PUT, INSERT, UPDATE and DELETE completed.
 * @round_trips: times the handle waited on the network: one doorbell
 *	batch of READs is one, one RPC is one, a wave of a long write's
 *	STAGE parts (with the write, if it goes along) is one.  Local reads
 *	count none.
 * @reads: one-sided READs (or, locally, node and model copies); a GET
 *	of a long value makes one more, of its whole extent.
 * @bytes_read: bytes those reads moved.
 * @rpcs: RPCs sent (or, locally, ioctls).
 * @fallbacks: GETs and SCANs that one-sided reads could not finish.
 * @speculative_reads: right-sibling reads after a leaf split.
 * @retries: reads repeated because a copy was torn or stale.
 * @cache_bytes: bytes of this handle's learned or walk cache.
 * @model_loads: whole models loaded (open, new epoch).
 * @sub_refreshes: sub-models refreshed after a stale TT entry.
 * @reconnects: connections re-established after a failure.
 * @top_refreshes: top levels read again within an epoch (sub-models
 *	added at either end, the first pivot moved), keeping the slices of
 *	the sub-models that did not change.
 */
struct ordo_counters {
	uint64_t gets;
	uint64_t scans;
	uint64_t writes;
	uint64_t round_trips;
	uint64_t reads;
	uint64_t bytes_read;
	uint64_t rpcs;
	uint64_t fallbacks;
	uint64_t speculative_reads;
	uint64_t retries;
	uint64_t cache_bytes;
	uint64_t model_loads;
	uint64_t sub_refreshes;
	uint64_t reconnects;
	uint64_t top_refreshes;
};

int ordo_counters(struct ordo *o, struct ordo_counters *c);

/*
 * Asynchronous operations: submit up to queue_depth requests, then reap
 * completions with ordo_poll().  A request's memory (and its buffers) must
 * stay valid until its callback ran.
 */
struct ordo_req;
typedef void (*ordo_cb_t)(struct ordo_req *req);

/**
 * struct ordo_req - one asynchronous operation
 * @op: enum ordo_op (GET..DELETE) or %ORDO_REQ_SCAN.
 * @key: the key; SCAN: the first key of interest.
 * @val: GET: buffer of @len >= value_size bytes, of which the value's
 *	@val_len are written (a longer value: -ENOBUFS, nothing written);
 *	writes: the value (0..ordo_value_max() bytes, NULL for 0); SCAN:
 *	@count * value_size bytes or NULL, each value zero past its length
 *	(all zero for a value longer than value_size).
 * @len: bytes at @val.
 * @keys: SCAN: room for @count keys.
 * @lens: SCAN: room for @count value lengths, or NULL.
 * @count: SCAN: pairs wanted, 1..ORDO_SCAN_MAX.
 * @cb: called when the request completed (may be NULL): from ordo_poll(),
 *	from ordo_submit() on the local backend, or from a synchronous call;
 *	it may submit and call again, and ordo_close() its handle (calls on
 *	it then fail -EBADF; it is freed as the call that ran the callback
 *	returns).
 * @user: for the caller.
 * @result: out: 0, a SCAN's pair count, or a negative errno.
 * @more: out: SCAN: keys past the last one may exist.
 * @next: out: SCAN with @more: where to continue.
 * @val_len: out: GET: the value's length (also with -ENOBUFS).
 */
struct ordo_req {
	uint32_t op;
	uint32_t count;
	uint64_t key;
	void *val;
	size_t len;
	uint64_t *keys;
	ordo_cb_t cb;
	void *user;
	int result;
	int more;
	uint64_t next;
	uint32_t *lens;
	size_t val_len;
};

#define ORDO_REQ_SCAN	16

/* Queue @r; 0, -EBUSY when queue_depth requests are in flight, -EINVAL. */
int ordo_submit(struct ordo *o, struct ordo_req *r);
/*
 * Progress the handle's requests; wait up to @timeout_ms (-1: the handle's
 * timeout) until at least @min requests completed.  Returns the number
 * completed (callbacks already ran), or a negative errno.
 */
int ordo_poll(struct ordo *o, unsigned int min, int timeout_ms);
/* Requests submitted and not completed. */
unsigned int ordo_inflight(const struct ordo *o);

#ifdef __cplusplus
}
#endif

#endif /* LIBORDO_ORDO_H */
