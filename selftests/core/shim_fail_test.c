// SPDX-License-Identifier: GPL-2.0
/*
 * libordo's engine natively (ASan, UBSan): a connection that fails inside
 * a synchronous call made from an operation's own step.  Two steps make
 * one: a READ out of the known regions refreshes them (a REGIONS call and
 * a superblock read), and a walk that met a stale node reads the
 * superblock again.  When the connection dies there (timeout, error
 * completion, disconnect), the RDMA backend fails every operation in
 * flight with rdma_fail_all(); the operation whose step is waiting must
 * not be ended under it (the step then went on with a finished request
 * and dereferenced its NULL pointer: lincheck_test died without a TAP
 * line).  It ends by itself with the connection's error, exactly once,
 * while the other operations in flight are failed at once.
 *
 * And the handle's own synchronous calls among the caller's requests: a
 * call whose server went silent returns only once its request ended,
 * ordo_poll() counts the caller's requests alone, and the options a
 * handle keeps (its timeout, a copy of the token) are checked at open.
 *
 * The backend here is a script around the real rdma_fail_all(): reads
 * out of range or of stale nodes, synchronous calls that fail the
 * connection, calls that fail at once as on a dead connection, and
 * waits that see nothing until operations time out.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core_test.h"
#include "ordo_raw.h"
#include "rdma.h"

/* How the scripted backend answers reads. */
enum read_kind {
	R_RANGE,	/* outside the known regions: -ERANGE at once */
	R_STALE,	/* a node of nothing (all zeros): the walk restarts */
	R_POST,		/* posted: completes later (never, here) */
};

static struct {
	enum read_kind first, then;
	unsigned int reads, syncs, calls;
	bool silent;	/* waits see nothing; ops past the timeout fail */
	bool counting;	/* key 2's reads fail at once, others post; waits
			 * fail what is posted */
} sc;

/* A synchronous call whose wait failed: the connection is gone. */
static int be_sync_fails(struct ordo *o)
{
	sc.syncs++;
	rbe(o)->dead = true;
	rdma_fail_all(o, -ECONNRESET);
	return -ECONNRESET;
}

static int be_read_counting(struct ordo *o, struct shim_op *op)
{
	if (op->req->key == 2) {
		op->io_res = -EIO;
		return 1;
	}
	return 0;
}

static int be_read(struct ordo *o, struct shim_op *op)
{
	enum read_kind k = sc.reads++ ? sc.then : sc.first;
	uint32_t i;

	if (sc.counting)
		return be_read_counting(o, op);
	if (rbe(o)->dead)
		return -ECONNRESET;
	if (k == R_RANGE)
		return -ERANGE;
	if (k == R_POST)
		return 0;
	for (i = 0; i < op->nio; i++)
		memset(op->io[i].dst, 0, op->io[i].len);
	op->io_res = 0;
	return 1;
}

/* Calls on a dead connection fail at once (rdma_call()). */
static int be_call(struct ordo *o, struct shim_op *op)
{
	sc.calls++;
	return rbe(o)->dead ? -ECONNRESET : -EIO;
}

/*
 * A server that stops answering: nothing completes, and an operation
 * older than the handle's timeout (past it, not at it) fails.
 */
static int be_wait_silent(struct ordo *o, int ms)
{
	long long now;
	uint32_t i;
	int n = 0;

	usleep((ms < 5 ? ms : 5) * 1000);
	now = shim_now_ms();
	for (i = 0; i < o->qd; i++) {
		struct shim_op *op = &o->ops[i];

		if (!op->busy || op->running ||
		    now - op->t_start <= (long long)o->opts.timeout_ms)
			continue;
		op->step = shim_step_fail;
		op->io_res = -ETIMEDOUT;
		shim_run(o, op);
		n++;
	}
	return n ? n : -ETIMEDOUT;
}

/* Every posted operation fails now (a connection that went). */
static int be_wait_counting(struct ordo *o)
{
	uint32_t i;
	int n = 0;

	for (i = 0; i < o->qd; i++) {
		struct shim_op *op = &o->ops[i];

		if (!op->busy || op->running)
			continue;
		op->step = shim_step_fail;
		op->io_res = -ETIMEDOUT;
		shim_run(o, op);
		n++;
	}
	return n;
}

static int be_wait(struct ordo *o, int ms)
{
	if (sc.silent)
		return be_wait_silent(o, ms);
	if (sc.counting)
		return be_wait_counting(o);
	return -ECONNRESET;
}

static int be_bulk(struct ordo *o, uint32_t kind, uint64_t off, void *dst,
		   size_t len)
{
	return be_sync_fails(o);
}

static void be_close(struct ordo *o)
{
	struct rdma_be *r = rbe(o);

	free(r->pend);
	free(r);
	free(o->ops[0].buf);
}

static const struct shim_backend scripted = {
	.read = be_read,
	.call = be_call,
	.wait = be_wait,
	.bulk = be_bulk,
	.refresh = be_sync_fails,
	.close = be_close,
};

/* A walk-mode handle of @qd slots on the scripted backend. */
static struct ordo *handle(uint32_t qd)
{
	struct ordo *o = calloc(1, sizeof(*o));
	struct rdma_be *r = calloc(1, sizeof(*r));
	size_t per;

	if (!o || !r || ordo_geo_init(&o->geo, 16, 8))
		abort();
	o->fd = -1;
	o->be = &scripted;
	o->priv = r;
	o->mode = ORDO_MODE_WALK;
	o->opts.timeout_ms = 5000;
	o->qd = qd;
	o->sup.geo = o->geo;
	o->sup.chunk_size = 1 << 16;
	o->sup.nodes_per_chunk = (1 << 16) / o->geo.node_size;
	o->sup.max_chunks = o->sup.nr_chunks = 1;
	o->sup.root = o->sup.leftmost_leaf = 1;
	o->sup.height = 2;
	r->pend = calloc(qd, sizeof(*r->pend));
	per = shim_slot_bytes(&o->geo);
	if (!r->pend || shim_slots_init(o, calloc(qd, per), per) ||
	    !o->ops[0].buf)
		abort();
	memset(&sc, 0, sizeof(sc));
	return o;
}

/* A GET whose READ is out of range; the region refresh fails. */
static int get_refresh_fails(void)
{
	struct ordo *o = handle(1);
	uint8_t val[8];

	sc.first = sc.then = R_RANGE;
	CHECK_EQ(ordo_get(o, 42, val, sizeof(val)), -ECONNRESET);
	CHECK_EQ(sc.syncs, 1);
	CHECK_EQ(o->inflight, 0);
	CHECK_EQ(o->cnt.gets, 1);
	CHECK_EQ(o->ops[0].busy, 0);
	ordo_close(o);
	return 0;
}

/* A GET whose walk meets a stale node; the superblock read fails. */
static int get_walk_restart_fails(void)
{
	struct ordo *o = handle(1);
	uint8_t val[8];

	sc.first = sc.then = R_STALE;
	CHECK_EQ(ordo_get(o, 42, val, sizeof(val)), -ECONNRESET);
	CHECK_EQ(sc.syncs, 1);
	CHECK_EQ(o->cnt.retries, 1);
	CHECK_EQ(o->inflight, 0);
	CHECK_EQ(o->cnt.gets, 1);
	ordo_close(o);
	return 0;
}

/* The same two for a SCAN, which falls back to SCAN calls. */
static int scan_fails_in_its_steps(void)
{
	enum read_kind k[2] = { R_RANGE, R_STALE };
	uint64_t keys[4];
	int i, more = 7;

	for (i = 0; i < 2; i++) {
		struct ordo *o = handle(1);

		sc.first = sc.then = k[i];
		CHECK_EQ(ordo_scan(o, 42, 4, keys, NULL, &more, NULL),
			 -ECONNRESET);
		CHECK_EQ(sc.syncs, 1);
		CHECK_EQ(o->inflight, 0);
		CHECK_EQ(o->cnt.scans, 1);
		ordo_close(o);
	}
	return 0;
}

static unsigned int cb_runs;

static void cb(struct ordo_req *r)
{
	cb_runs++;
}

/*
 * Two requests in flight: the first waits for its READ, the second's
 * refresh fails.  The first is failed at once, the second ends by
 * itself; each callback runs once.
 */
static int other_ops_fail_at_once(void)
{
	struct ordo *o = handle(2);
	uint8_t v1[8], v2[8];
	struct ordo_req a = { .op = ORDO_OP_GET, .key = 1, .val = v1,
			      .len = sizeof(v1), .cb = cb };
	struct ordo_req b = { .op = ORDO_OP_GET, .key = 2, .val = v2,
			      .len = sizeof(v2), .cb = cb };

	sc.first = R_POST;
	sc.then = R_RANGE;
	cb_runs = 0;
	CHECK_EQ(ordo_submit(o, &a), 0);
	CHECK_EQ(o->inflight, 1);
	CHECK_EQ(cb_runs, 0);
	CHECK_EQ(ordo_submit(o, &b), 0);
	CHECK_EQ(sc.syncs, 1);
	CHECK_EQ(cb_runs, 2);
	CHECK_EQ(a.result, -ECONNRESET);
	CHECK_EQ(b.result, -ECONNRESET);
	CHECK_EQ(o->inflight, 0);
	CHECK_EQ(ordo_poll(o, 0, 0), 2);
	ordo_close(o);
	return 0;
}

/*
 * A synchronous GET whose READ never completes: ordo_poll() gives up at
 * the handle's timeout, one millisecond before the backend fails the
 * operation.  The call must not return before its request is done (it
 * returned -ETIMEDOUT with the request, in its own frame, still in the
 * slot, and the next call completed it into a dead frame).
 */
static int sync_call_outlives_no_request(void)
{
	struct ordo *o = handle(1);
	uint8_t val[8];

	sc.first = sc.then = R_POST;
	sc.silent = true;
	o->opts.timeout_ms = 50;
	CHECK_EQ(ordo_get(o, 42, val, sizeof(val)), -ETIMEDOUT);
	CHECK_EQ(o->inflight, 0);
	CHECK_EQ(o->ops[0].busy, 0);
	CHECK_EQ(o->ops[0].req, 0);
	/* The next call has the slot to itself. */
	CHECK_EQ(ordo_get(o, 43, val, sizeof(val)), -ETIMEDOUT);
	CHECK_EQ(o->inflight, 0);
	ordo_close(o);
	return 0;
}

/*
 * Options: a timeout past INT_MAX is EINVAL (waits take an int; it went
 * negative and timed out at once).  A failed open frees the handle's copy
 * of the token and never the caller's string (ASan checks both).
 */
static int open_options(void)
{
	struct ordo_opts op = { .size = sizeof(op) };
	char token[16] = "secret";

	op.timeout_ms = (uint32_t)INT_MAX + 1;
	errno = 0;
	CHECK_EQ(ordo_open_opts("/nonexistent/ordo", &op), 0);
	CHECK_EQ(errno, EINVAL);
	op.timeout_ms = UINT32_MAX;
	CHECK_EQ(ordo_open_opts("/nonexistent/ordo", &op), 0);
	CHECK_EQ(errno, EINVAL);
	op.timeout_ms = INT_MAX;
	op.token = token;
	errno = 0;
	CHECK_EQ(ordo_open_opts("/nonexistent/ordo", &op), 0);
	CHECK_EQ(errno, ENOENT);
	op.queue_depth = 100000;	/* refused after the token is seen */
	CHECK_EQ(ordo_open_opts("/nonexistent/ordo", &op), 0);
	CHECK_EQ(errno, EINVAL);
	CHECK_EQ(strcmp(token, "secret"), 0);
	return 0;
}

/*
 * ordo_poll() counts the caller's requests only.  Synchronous calls that
 * end inside their submit were counted (two DELETEs, then ordo_poll()
 * returned 2 with nothing submitted); one whose wait ended an
 * asynchronous request took its count (its callback ran, the caller's
 * ordo_poll() returned 0, and a loop waiting for N completions spun).
 */
static int poll_counts_callers_requests(void)
{
	struct ordo *o = handle(2);
	uint8_t v1[8], v2[8];
	struct ordo_req a = { .op = ORDO_OP_GET, .key = 1, .val = v1,
			      .len = sizeof(v1), .cb = cb };

	sc.counting = true;
	cb_runs = 0;
	CHECK_EQ(ordo_get(o, 2, v2, sizeof(v2)), -EIO);
	CHECK_EQ(ordo_get(o, 2, v2, sizeof(v2)), -EIO);
	CHECK_EQ(ordo_poll(o, 0, 0), 0);
	/* a posts; the next call's wait ends both (the call posts too). */
	CHECK_EQ(ordo_submit(o, &a), 0);
	CHECK_EQ(o->inflight, 1);
	CHECK_EQ(ordo_get(o, 3, v2, sizeof(v2)), -ETIMEDOUT);
	CHECK_EQ(cb_runs, 1);
	CHECK_EQ(a.result, -ETIMEDOUT);
	CHECK_EQ(o->inflight, 0);
	CHECK_EQ(ordo_poll(o, 0, 0), 1);
	CHECK_EQ(ordo_poll(o, 0, 0), 0);
	ordo_close(o);
	return 0;
}

static struct {
	struct ordo *o;
	unsigned int left, runs;
	uintptr_t top, low;
} chain;

/* Submits its request again until the chain is done; notes its depth. */
static void chain_cb(struct ordo_req *r)
{
	char here;

	chain.runs++;
	if ((uintptr_t)&here < chain.low)
		chain.low = (uintptr_t)&here;
	if (!chain.top)
		chain.top = (uintptr_t)&here;
	if (chain.left && !--chain.left)
		return;
	ordo_submit(chain.o, r);
}

/*
 * Requests that complete inside ordo_submit() (as every local one does),
 * each submitted from the previous one's callback: 2,000 in a row run as
 * a loop.  Each callback nested in the last submit's, so the stack grew
 * with the chain (200,000 overflowed 8 MiB).
 */
static int callback_chains_do_not_nest(void)
{
	struct ordo *o = handle(1);
	uint8_t v[8];
	struct ordo_req r = { .op = ORDO_OP_GET, .key = 2, .val = v,
			      .len = sizeof(v), .cb = chain_cb };

	sc.counting = true;
	memset(&chain, 0, sizeof(chain));
	chain.o = o;
	chain.left = 2000;
	chain.low = UINTPTR_MAX;
	CHECK_EQ(ordo_submit(o, &r), 0);
	CHECK_EQ(chain.runs, 2000);
	CHECK_EQ(o->inflight, 0);
	CHECK_EQ(r.result, -EIO);
	printf("# 2000 chained callbacks, %lu bytes of stack below the first\n",
	       (unsigned long)(chain.top - chain.low));
	CHECK(chain.top - chain.low < 4096);
	CHECK_EQ(ordo_poll(o, 0, 0), 2000);
	ordo_close(o);
	return 0;
}

static struct {
	struct ordo *o;
	unsigned int runs;
	int after;	/* what a call on the handle returned once closed */
	struct ordo_req extra;
} closer;

/* The first callback closes the handle, then tries to use it. */
static void close_cb(struct ordo_req *r)
{
	uint8_t v[8];

	if (closer.runs++)
		return;
	ordo_close(closer.o);
	closer.after = ordo_submit(closer.o, &closer.extra);
	if (!closer.after)
		closer.after = ordo_get(closer.o, 9, v, sizeof(v));
}

/*
 * A callback may close its own handle: inside ordo_poll(), inside
 * ordo_submit() (a request that completes at once) and inside a
 * synchronous call's wait.  Calls on it from then on fail EBADF, the
 * other callbacks of that wait still run, and the outermost call frees
 * it as it returns (LeakSanitizer would report it kept; ASan, the old
 * use after free when the call went on with the freed handle).
 */
static int callback_closes_its_handle(void)
{
	uint8_t v1[8], v2[8], v3[8];
	struct ordo_req a = { .op = ORDO_OP_GET, .key = 1, .val = v1,
			      .len = sizeof(v1), .cb = close_cb };
	struct ordo_req b = { .op = ORDO_OP_GET, .key = 3, .val = v2,
			      .len = sizeof(v2), .cb = close_cb };
	int i;

	for (i = 0; i < 3; i++) {
		memset(&closer, 0, sizeof(closer));
		closer.o = handle(3);
		closer.extra = a;
		sc.counting = true;
		if (i == 1) {
			/* Key 2 fails inside the submit that starts it. */
			a.key = 2;
			CHECK_EQ(ordo_submit(closer.o, &a), 0);
			a.key = 1;
			CHECK_EQ(closer.runs, 1);
			CHECK_EQ(closer.after, -EBADF);
			continue;
		}
		CHECK_EQ(ordo_submit(closer.o, &a), 0);
		CHECK_EQ(ordo_submit(closer.o, &b), 0);
		if (i == 0)
			CHECK_EQ(ordo_poll(closer.o, 2, 1000), 2);
		else
			CHECK_EQ(ordo_get(closer.o, 4, v3, sizeof(v3)),
				 -ETIMEDOUT);
		CHECK_EQ(closer.runs, 2);
		CHECK_EQ(closer.after, -EBADF);
		CHECK_EQ(a.result, -ETIMEDOUT);
		CHECK_EQ(b.result, -ETIMEDOUT);
	}
	return 0;
}

/* Key 99 goes alone; the rest in the backend's BATCH. */
static bool be_batch_takes(struct ordo *o, const struct ordo_batch_op *b)
{
	return b->kv.key != 99;
}

/* A BATCH whose wait ends the requests in flight (a callback closes). */
static int be_batch_waits(struct ordo *o, struct ordo_batch_op *ops,
			  uint32_t n)
{
	uint32_t i;

	be_wait_counting(o);
	for (i = 0; i < n; i++)
		ops[i].result = 0;
	return (int)n;
}

/* A BATCH that answered a GET with a long value's length, then failed. */
static int be_batch_lost(struct ordo *o, struct ordo_batch_op *ops,
			 uint32_t n)
{
	uint32_t i;

	for (i = 0; i < n; i++)
		ops[i].result = -ECANCELED;
	ops[0].result = -ENOBUFS;
	ops[0].kv.value_len = 100;
	return -ETIMEDOUT;
}

static struct shim_backend batching;

/*
 * A callback closes the handle inside ordo_batch() (in its BATCH's wait):
 * the batch stops with EBADF and the entry after keeps ECANCELED (it
 * returned success).  A BATCH lost after it answered a GET with the
 * length of a value its buffer holds: the GET gets ECANCELED and its
 * buffer's size back, not ENOBUFS.  ordo_raw_submit() whose read fails
 * at once, its callback closing the handle (a use after free).
 */
static int batch_and_raw_close(void)
{
	uint8_t v1[8], buf[200], w[8] = { 0 };
	struct ordo_req a = { .op = ORDO_OP_GET, .key = 1, .val = v1,
			      .len = sizeof(v1), .cb = close_cb };
	struct ordo_batch_op ops[2] = {
		{ .op = ORDO_OP_PUT, .kv = { .key = 5, .value = (uintptr_t)w,
					     .value_len = 8 } },
		{ .op = ORDO_OP_PUT, .kv = { .key = 99, .value = (uintptr_t)w,
					     .value_len = 8 } },
	};
	struct ordo *o;

	memset(&closer, 0, sizeof(closer));
	closer.o = handle(3);
	batching = scripted;
	batching.batch = be_batch_waits;
	batching.batch_takes = be_batch_takes;
	closer.o->be = &batching;
	closer.extra = a;
	sc.counting = true;
	CHECK_EQ(ordo_submit(closer.o, &a), 0);
	CHECK_EQ(ordo_batch(closer.o, ops, 2), -EBADF);
	CHECK_EQ(ops[0].result, 0);
	CHECK_EQ(ops[1].result, -ECANCELED);
	CHECK_EQ(closer.runs, 1);

	o = handle(3);
	batching.batch = be_batch_lost;
	o->be = &batching;
	ops[0] = (struct ordo_batch_op){ .op = ORDO_OP_GET,
		.kv = { .key = 5, .value = (uintptr_t)buf,
			.value_len = sizeof(buf) } };
	ops[1].kv.key = 6;
	CHECK_EQ(ordo_batch(o, ops, 2), -ETIMEDOUT);
	CHECK_EQ(ops[0].result, -ECANCELED);
	CHECK_EQ(ops[0].kv.value_len, sizeof(buf));
	ordo_close(o);

	memset(&closer, 0, sizeof(closer));
	closer.o = handle(3);
	a.key = 2;	/* its read fails at once */
	closer.extra = a;
	sc.counting = true;
	CHECK_EQ(ordo_raw_submit(closer.o, &a, 1), 0);
	CHECK_EQ(closer.runs, 1);
	CHECK_EQ(closer.after, -EBADF);
	return 0;
}

int main(void)
{
	printf("TAP version 13\n");
	run("a callback closes its own handle: freed when the call returns",
	    callback_closes_its_handle);
	run("batches and raw reads: closed by a callback, or lost",
	    batch_and_raw_close);
	run("GET: the region refresh of its step fails the connection",
	    get_refresh_fails);
	run("GET: the superblock read of its walk's restart fails the connection",
	    get_walk_restart_fails);
	run("SCAN: both, and it ends with the connection's error",
	    scan_fails_in_its_steps);
	run("other requests in flight are failed at once, each once",
	    other_ops_fail_at_once);
	run("a synchronous call returns only once its request is done",
	    sync_call_outlives_no_request);
	run("open: timeout past INT_MAX is EINVAL, the token is copied",
	    open_options);
	run("ordo_poll() counts the caller's requests, not synchronous calls",
	    poll_counts_callers_requests);
	run("requests submitted from callbacks run as a loop, not nested",
	    callback_chains_do_not_nest);
	return tap_done();
}
