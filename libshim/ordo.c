// SPDX-License-Identifier: GPL-2.0
/*
 * libordo: handles, options, URI dispatch, the slots and the run loop, and
 * the synchronous calls (one request submitted and polled for).
 */
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "shim.h"

static const char *const mode_names[] = {
	[ORDO_MODE_LEARNED] = "learned",
	[ORDO_MODE_MODEL_ONLY] = "model-only",
	[ORDO_MODE_WALK] = "walk",
	[ORDO_MODE_RPC] = "rpc",
};

long long shim_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000LL + ts.tv_nsec / 1000000;
}

int ordo_mode_parse(const char *name, enum ordo_mode *mode)
{
	unsigned int i;

	for (i = ORDO_MODE_LEARNED; i <= ORDO_MODE_RPC; i++)
		if (name && !strcmp(name, mode_names[i])) {
			*mode = i;
			return 0;
		}
	return -EINVAL;
}

const char *ordo_mode_name(enum ordo_mode mode)
{
	return mode >= ORDO_MODE_LEARNED && mode <= ORDO_MODE_RPC ?
	       mode_names[mode] : "unknown";
}

enum ordo_mode ordo_mode(const struct ordo *o)
{
	return o->mode;
}

/* Resolve options: explicit, then the environment, then defaults. */
static int opts_resolve(struct ordo *o, const struct ordo_opts *in)
{
	struct ordo_opts *op = &o->opts;
	const char *env, *tok;

	memset(op, 0, sizeof(*op));
	if (in) {
		if (in->size < offsetof(struct ordo_opts, reserved) ||
		    in->reserved)
			return -EINVAL;
		memcpy(op, in, in->size < sizeof(*op) ? in->size : sizeof(*op));
		op->size = sizeof(*op);
	}
	/* Owned by the handle once copied (below), NULL until then. */
	tok = op->token;
	op->token = NULL;
	if (op->flags & ~(ORDO_OPT_PRIVATE_CACHE | ORDO_OPT_NO_WALK_CACHE |
			  ORDO_OPT_FROZEN_CACHE))
		return -EINVAL;
	o->mode = op->mode;
	if (o->mode == ORDO_MODE_DEFAULT) {
		env = getenv("ORDO_MODE");
		o->mode = ORDO_MODE_LEARNED;
		if (env && *env && ordo_mode_parse(env, &o->mode))
			return -EINVAL;
	}
	if (o->mode > ORDO_MODE_RPC)
		return -EINVAL;
	if (!op->timeout_ms)
		op->timeout_ms = SHIM_TIMEOUT_DEFAULT;
	/* Waits take an int of milliseconds. */
	if (op->timeout_ms > INT_MAX)
		return -EINVAL;
	if (!op->queue_depth)
		op->queue_depth = SHIM_QD_DEFAULT;
	if (op->queue_depth > SHIM_QD_MAX)
		return -EINVAL;
	if (!op->walk_cache_bytes)
		op->walk_cache_bytes = SHIM_WALK_CACHE_DEFAULT;
	if (op->flags & ORDO_OPT_NO_WALK_CACHE)
		op->walk_cache_bytes = 0;
	o->cache_frozen = op->flags & ORDO_OPT_FROZEN_CACHE;
	o->qd = op->queue_depth;
	/* A copy, kept for reconnects: the caller's may be gone by then. */
	if (!tok)
		tok = getenv("ORDO_TOKEN");
	if (tok) {
		op->token = strdup(tok);
		if (!op->token)
			return -ENOMEM;
	}
	return 0;
}

/**
 * shim_slots_init() - give the handle its slots
 * @o: handle (qd set)
 * @mem: qd * @per_slot bytes of read buffers (registered memory for RDMA)
 * @per_slot: bytes each
 *
 * Return: 0 or -ENOMEM.
 */
int shim_slots_init(struct ordo *o, uint8_t *mem, size_t per_slot)
{
	uint32_t i;

	o->ops = calloc(o->qd, sizeof(*o->ops));
	if (!o->ops)
		return -ENOMEM;
	for (i = 0; i < o->qd; i++) {
		o->ops[i].slot = i;
		o->ops[i].buf = mem + i * per_slot;
		o->ops[i].buf_len = per_slot;
	}
	return 0;
}

/* After open: the caches the mode needs. */
static int caches_init(struct ordo *o, const char *where)
{
	if (o->mode == ORDO_MODE_RPC)
		return 0;
	if (o->opts.walk_cache_bytes)
		o->walk = shim_walk_cache_new(o->opts.walk_cache_bytes, &o->geo);
	if (o->mode == ORDO_MODE_WALK)
		return 0;
	return shim_cache_get(o, o->server_id, where);
}

/* Open a handle; @raw (rdma only) asks for a raw one (rdma_raw.c). */
struct ordo *shim_open(const char *uri, const struct ordo_opts *opts,
		       struct ordo_raw_cfg *raw)
{
	struct ordo *o;
	int ret;

	if (!uri)
		uri = "/dev/ordo";
	o = calloc(1, sizeof(*o));
	if (!o)
		return NULL;
	o->fd = -1;
	o->raw_cfg = raw;
	o->uri = strdup(uri);
	ret = o->uri ? opts_resolve(o, opts) : -ENOMEM;
	if (!ret) {
		if (uri[0] == '/' && !raw)
			ret = ordo_local_open(o, uri);
		else if (!strncmp(uri, "rdma://", 7))
			ret = ordo_rdma_open(o, uri);
		else
			ret = -EINVAL;
		if (!ret) {
			ret = caches_init(o, uri);
			if (ret)
				ordo_close(o);
			o = ret ? NULL : o;
			if (!o) {
				errno = -ret;
				return NULL;
			}
		}
	}
	if (ret) {
		free((void *)o->opts.token);
		free((void *)o->uri);
		free(o);
		errno = -ret;
		return NULL;
	}
	o->raw_cfg = NULL;
	return o;
}

struct ordo *ordo_open_opts(const char *uri, const struct ordo_opts *opts)
{
	return shim_open(uri, opts, NULL);
}

struct ordo *ordo_open(const char *uri)
{
	return ordo_open_opts(uri, NULL);
}

static void close_now(struct ordo *o)
{
	shim_cache_put(o);
	shim_walk_cache_free(o->walk);
	shim_xbufs_free(o);
	o->be->close(o);
	free(o->ops);
	free(o->cb_pend);
	free((void *)o->opts.token);
	free((void *)o->uri);
	free(o);
}

/*
 * The calls that may run callbacks hold the handle while they run: a
 * callback that closes it only marks it closing, and the outermost call
 * frees it as it returns.  Calls on a closing handle fail -EBADF.
 */
bool shim_enter(struct ordo *o)
{
	if (o->closing)
		return false;
	o->calls++;
	return true;
}

/* The call returns: @o may be freed, so the caller must not touch it. */
void shim_leave(struct ordo *o)
{
	if (!--o->calls && o->closing)
		close_now(o);
}

void ordo_close(struct ordo *o)
{
	if (!o)
		return;
	if (o->calls) {
		o->closing = true;
		return;
	}
	close_now(o);
}

int ordo_info(struct ordo *o, struct ordo_info *info)
{
	int ret;

	if (!shim_enter(o))
		return -EBADF;
	ret = o->be->info(o, info);
	shim_leave(o);
	return ret;
}

size_t ordo_value_size(const struct ordo *o)
{
	return o->geo.value_size;
}

size_t ordo_value_max(const struct ordo *o)
{
	return shim_value_max(o);
}

int ordo_fd(const struct ordo *o)
{
	return o->fd;
}

int ordo_counters(struct ordo *o, struct ordo_counters *c)
{
	*c = o->cnt;
	c->cache_bytes = shim_cache_bytes(o) + shim_walk_cache_bytes(o->walk);
	return 0;
}

/* ---- the run loop ---- */

static void sync_done(struct ordo_req *r);

/* Keep @r's callback for when the running one returns: false if no room. */
static bool cb_defer(struct ordo *o, struct ordo_req *r)
{
	if (o->cb_n == o->cb_cap) {
		uint32_t cap = o->cb_cap ? 2 * o->cb_cap : 16;
		struct ordo_req **p = realloc(o->cb_pend, cap * sizeof(*p));

		if (!p)
			return false;
		o->cb_pend = p;
		o->cb_cap = cap;
	}
	o->cb_pend[o->cb_n++] = r;
	return true;
}

/*
 * Run @r's callback.  One completed while another callback runs (a
 * request it submitted, completed at once on the local backend) waits for
 * it to return, and the outermost runs them in turn: a chain of requests
 * each submitted from the last one's callback is a loop, not a recursion
 * as deep as the chain.  A synchronous call's own request is ended at once
 * (its caller waits for exactly that).
 */
static void run_cb(struct ordo *o, struct ordo_req *r)
{
	if (o->cb_depth && r->cb != sync_done && cb_defer(o, r))
		return;
	o->cb_depth++;
	r->cb(r);
	while (o->cb_depth == 1 && o->cb_head < o->cb_n) {
		struct ordo_req *next = o->cb_pend[o->cb_head++];

		next->cb(next);
	}
	if (o->cb_depth == 1)
		o->cb_head = o->cb_n = 0;	/* all ran */
	o->cb_depth--;
}

static void complete(struct ordo *o, struct shim_op *op)
{
	struct ordo_req *r = op->req;

	switch (r->op) {
	case ORDO_OP_GET:
		o->cnt.gets++;
		break;
	case ORDO_REQ_SCAN:
		o->cnt.scans++;
		break;
	default:
		o->cnt.writes++;
		break;
	}
	op->busy = false;
	op->req = NULL;
	o->inflight--;
	/* ordo_poll() counts the caller's requests, not the handle's own. */
	if (r->cb != sync_done)
		o->completed++;
	if (r->cb)
		run_cb(o, r);
}

/**
 * shim_run() - step an operation until it waits for I/O or is done
 * @o: handle
 * @op: the operation; its I/O (if any) completed and set io_res
 */
void shim_run(struct ordo *o, struct shim_op *op)
{
	int ret;

	op->running = true;
	do
		ret = op->step(o, op);
	while (ret == SHIM_AGAIN);
	/* Cleared first: the callback may submit into this very slot. */
	op->running = false;
	if (ret == SHIM_DONE)
		complete(o, op);
}

static int req_check(const struct ordo *o, const struct ordo_req *r)
{
	switch (r->op) {
	case ORDO_OP_GET:
		if (r->len < o->geo.value_size)
			return -ENOBUFS;
		return r->val ? 0 : -EFAULT;
	case ORDO_OP_PUT:
	case ORDO_OP_INSERT:
	case ORDO_OP_UPDATE:
		if (r->len > shim_value_max(o))
			return -EMSGSIZE;
		return r->val || !r->len ? 0 : -EFAULT;
	case ORDO_OP_DELETE:
		return 0;
	case ORDO_REQ_SCAN:
		if (!r->count || r->count > ORDO_SCAN_MAX || !r->keys)
			return -EINVAL;
		return 0;
	}
	return -EINVAL;
}

/*
 * Take a free operation slot for @r into *@opp (the backend prepared when
 * the queue was empty): 0, -EBUSY at queue_depth, or prepare's error.
 */
int shim_op_claim(struct ordo *o, struct ordo_req *r, struct shim_op **opp)
{
	struct shim_op *op = NULL;
	uint32_t i;
	int ret;

	if (o->inflight >= o->qd)
		return -EBUSY;
	if (!o->inflight && o->be->prepare) {
		ret = o->be->prepare(o);
		if (ret)
			return ret;
	}
	for (i = 0; i < o->qd && !op; i++)
		if (!o->ops[i].busy)
			op = &o->ops[i];
	if (!op)
		return -EBUSY;
	op->busy = true;
	op->req = r;
	op->t_start = shim_now_ms();
	*opp = op;
	return 0;
}

int ordo_submit(struct ordo *o, struct ordo_req *r)
{
	struct shim_op *op;
	int ret;

	if (!shim_enter(o))
		return -EBADF;
	ret = req_check(o, r);
	if (!ret)
		ret = shim_op_claim(o, r, &op);
	if (!ret) {
		r->result = 0;
		r->more = 0;
		r->next = 0;
		r->val_len = 0;
		o->inflight++;
		shim_op_start(o, op);
		shim_run(o, op);
	}
	shim_leave(o);
	return ret;
}

unsigned int ordo_inflight(const struct ordo *o)
{
	return o->inflight;
}

int ordo_poll(struct ordo *o, unsigned int min, int timeout_ms)
{
	long long end;
	int ret = 0;

	if (!shim_enter(o))
		return -EBADF;
	if (timeout_ms < 0)
		timeout_ms = o->opts.timeout_ms;
	end = shim_now_ms() + timeout_ms;
	/* A callback that closed the handle ends the wait. */
	while (o->completed < min && o->inflight && !o->closing) {
		long long left = end - shim_now_ms();

		ret = o->be->wait(o, left > 0 ? (int)left : 0);
		if (ret < 0)
			break;
		if (!ret && left <= 0) {
			ret = -ETIMEDOUT;
			break;
		}
	}
	/* Queued cache refreshes run between operations. */
	if (!o->inflight && shim_cache_pending(o) && !o->closing)
		shim_cache_refresh_stale(o);
	if (o->completed) {
		ret = (int)o->completed;
		o->completed = 0;
	}
	shim_leave(o);
	return ret;
}

static void sync_done(struct ordo_req *r)
{
	*(bool *)r->user = true;
}

/*
 * One request, waited for.  Its waits step the caller's requests in
 * flight too (their callbacks run) but leave their count to the caller's
 * next ordo_poll().
 */
int shim_sync_req(struct ordo *o, struct ordo_req *r)
{
	bool done = false;
	int ret;

	if (!shim_enter(o))
		return -EBADF;
	/* A synchronous call needs a free slot: let one finish. */
	while (o->inflight >= o->qd) {
		ret = o->be->wait(o, (int)o->opts.timeout_ms);
		if (ret < 0 && o->inflight >= o->qd)
			goto out;
	}
	r->cb = sync_done;
	r->user = &done;
	ret = ordo_submit(o, r);
	if (ret)
		goto out;
	/*
	 * Until it is done, even when a wait fails: @r lives in the caller's
	 * frame, and its slot writes it when it ends.  Every backend ends an
	 * operation within the handle's timeout (or with its connection).
	 */
	while (!done)
		o->be->wait(o, (int)o->opts.timeout_ms);
	/* Queued cache refreshes run between operations, none in flight. */
	if (!o->inflight && shim_cache_pending(o) && !o->closing)
		shim_cache_refresh_stale(o);
	ret = r->result;
out:
	shim_leave(o);
	return ret;
}

static int kv(struct ordo *o, uint32_t op, uint64_t key, const void *val,
	      size_t len)
{
	struct ordo_req r = {
		.op = op,
		.key = key,
		.val = (void *)val,
		.len = len,
	};

	return shim_sync_req(o, &r);
}

int ordo_get_len(struct ordo *o, uint64_t key, void *val, size_t cap,
		 size_t *len)
{
	struct ordo_req r = {
		.op = ORDO_OP_GET,
		.key = key,
		.val = val,
		.len = cap,
	};
	int ret = shim_sync_req(o, &r);

	if (!ret || ret == -ENOBUFS)
		*len = r.val_len;
	return ret;
}

int ordo_get(struct ordo *o, uint64_t key, void *val, size_t len)
{
	size_t vs = o->geo.value_size, got;
	/* The handle may be gone after it (closed by a callback). */
	int ret = ordo_get_len(o, key, val, len, &got);

	if (!ret && got < vs)
		memset((uint8_t *)val + got, 0, vs - got);
	return ret;
}

int ordo_put(struct ordo *o, uint64_t key, const void *val, size_t len)
{
	return kv(o, ORDO_OP_PUT, key, val, len);
}

int ordo_insert(struct ordo *o, uint64_t key, const void *val, size_t len)
{
	return kv(o, ORDO_OP_INSERT, key, val, len);
}

int ordo_update(struct ordo *o, uint64_t key, const void *val, size_t len)
{
	return kv(o, ORDO_OP_UPDATE, key, val, len);
}

int ordo_delete(struct ordo *o, uint64_t key)
{
	return kv(o, ORDO_OP_DELETE, key, NULL, 0);
}

int ordo_scan_len(struct ordo *o, uint64_t start, uint32_t n, uint64_t *keys,
		  void *vals, uint32_t *lens, int *more, uint64_t *next)
{
	struct ordo_req r = {
		.op = ORDO_REQ_SCAN,
		.key = start,
		.count = n,
		.keys = keys,
		.val = vals,
		.lens = lens,
	};
	int ret = shim_sync_req(o, &r);

	if (ret < 0)
		return ret;
	if (more)
		*more = r.more;
	if (next)
		*next = r.next;
	return ret;
}

int ordo_scan(struct ordo *o, uint64_t start, uint32_t n, uint64_t *keys,
	      void *vals, int *more, uint64_t *next)
{
	return ordo_scan_len(o, start, n, keys, vals, NULL, more, next);
}

int ordo_model_info(struct ordo *o, struct ordo_model_info *info)
{
	int ret;

	if (!shim_enter(o))
		return -EBADF;
	ret = o->be->model_info(o, info);
	shim_leave(o);
	return ret;
}

int ordo_retrain(struct ordo *o, uint64_t *version)
{
	int ret;

	if (!shim_enter(o))
		return -EBADF;
	ret = o->be->retrain(o, version);
	shim_leave(o);
	return ret;
}
