// SPDX-License-Identifier: GPL-2.0
/*
 * libordo: the RDMA backend (rdma://HOST[:PORT]).  Requests and replies of
 * the wire protocol (Documentation/wire.rst), the region table that gives
 * READs their keys, reconnection, and the bounded waits.  Every reply is
 * checked against its request before a byte of it is used: a broken or
 * hostile server gets -EPROTO, never an overrun.
 *
 * The region table is found once per connection by REGIONS (kind TABLE)
 * and from then on READ one-sided: when a READ would fall outside the
 * regions the handle knows, when a reply says the server's table covers
 * more of the pool, and before the copy's lease runs out.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ordo_raw.h"
#include "rdma.h"

#define HDR	sizeof(struct ordo_wire_hdr)
/* The longest region table a server may have. */
#define TABLE_MAX	(sizeof(struct ordo_wire_table) + \
			 (uint64_t)ORDO_WIRE_TABLE_ENTRIES_MAX * \
			 sizeof(struct ordo_wire_region))

/* ---- requests ---- */

/* Start a request of @op in @slot's send buffer; returns where its body goes. */
uint8_t *rdma_req_begin(struct ordo *o, uint32_t slot, uint8_t op,
			uint64_t *id)
{
	struct rdma_be *r = rbe(o);
	struct ordo_wire_hdr *h = (void *)rconn_send_buf(r, slot);

	memset(h, 0, HDR);
	*id = (++r->seq << 16) | (slot == o->qd ? SYNC_SLOT : slot);
	h->id = htole64(*id);
	h->version = ORDO_WIRE_VERSION;
	h->op = op;
	return (uint8_t *)(h + 1);
}

static uint8_t wire_op(const struct shim_call *c);

/* Encode a call; returns the message length or a negative errno. */
static int encode_call(struct ordo *o, uint32_t slot, const struct shim_call *c,
		       uint64_t *id)
{
	struct rdma_be *r = rbe(o);
	struct shim_req q = {
		.op = wire_op(c),
		.key = c->key,
		.val = c->val,
		.len = c->len,
		.hint_leaf = c->hint_leaf,
		.count = c->count,
	};
	uint8_t *b;
	uint32_t blen;

	if (c->op == SHIM_CALL_LOOKUP) {
		q.len = 0;
		q.epoch = shim_cache_epoch(o);
		if (!o->cache || o->cache_frozen)
			q.flags = ORDO_WIRE_LOOKUP_NO_MODEL;
	} else if (c->op != SHIM_CALL_SCAN && c->len > rlong_value_max(o)) {
		return -EMSGSIZE;
	} else if (c->len > o->geo.value_size) {
		q.hint_leaf = 0;	/* the server ignores hints of long values */
	}
	b = rdma_req_begin(o, slot, q.op, id);
	blen = shim_enc_req(b, &q);
	if (HDR + blen > r->max_msg)
		return -EMSGSIZE;
	((struct ordo_wire_hdr *)(b - HDR))->length = htole32(HDR + blen);
	return (int)(HDR + blen);
}

/**
 * rdma_send_at() - send a request from send buffer @buf, taking a credit
 * @o: the handle (a credit is free)
 * @buf: a slot's buffer, the sync call's (qd) or a STAGE part's
 * @off: where the request starts in it (a GET wave's are 64 bytes apart)
 * @len: bytes
 * @round_trip: the handle waits for it (not so for a request that goes
 *	out together with others it waits for anyway)
 *
 * Return: 0, or -ECONNRESET (the connection is dead).
 */
int rdma_send_at(struct ordo *o, uint32_t buf, uint32_t off, uint32_t len,
		 bool round_trip)
{
	struct rdma_be *r = rbe(o);

	r->avail--;
	o->cnt.rpcs++;
	if (round_trip)
		o->cnt.round_trips++;
	if (rconn_post_send_at(r, buf, off, len)) {
		r->dead = true;
		return -ECONNRESET;
	}
	return 0;
}

static int send_now(struct ordo *o, uint32_t slot, uint32_t len)
{
	return rdma_send_at(o, slot, 0, len, !rlong_joins_wave(o, slot));
}

/* Send the request in the op's slot (op->call_len bytes), or queue it. */
int rdma_send_op(struct ordo *o, struct shim_op *op)
{
	struct rdma_be *r = rbe(o);

	if (r->dead)
		return -ECONNRESET;
	if (!r->avail) {
		/* No credit: send when a reply returns one, in order. */
		r->pend[r->npend++] = op->slot;
		return 0;
	}
	return send_now(o, op->slot, op->call_len);
}

static int rdma_call(struct ordo *o, struct shim_op *op)
{
	struct rdma_be *r = rbe(o);
	int len;

	if (r->dead)
		return -ECONNRESET;
	memset(&r->lv[op->slot], 0, sizeof(r->lv[op->slot]));
	if (rlong_write_needed(o, &op->call))
		return rlong_write_start(o, op);
	len = encode_call(o, op->slot, &op->call, &op->call_id);
	if (len < 0)
		return len;
	op->call_len = len;
	return rdma_send_op(o, op);
}

/* ---- replies ---- */

/*
 * LOOKUP's reply: found/value, then maybe the key's sub-model.  A value
 * the reply holds only a part of is completed by GETs of parts.
 */
static int decode_lookup(struct ordo *o, struct shim_op *op,
			 const struct ordo_wire_hdr *h, const uint8_t *b,
			 uint32_t blen)
{
	struct shim_call *c = &op->call;
	struct shim_lookup_rep l;
	struct shim_part p = { 0 };

	if (shim_dec_lookup(b, blen, le16toh(h->flags), o->geo.value_size,
			    rlong_value_max(o), &l))
		return -EPROTO;
	if (l.model_len && l.model_len == l.model_total)
		shim_cache_load_sub(o, l.epoch, l.sub, l.model, l.model_len);
	else if (l.model_len)
		shim_cache_mark_stale(o, l.sub);
	c->out_len = 0;
	if (!l.found)
		return -ENOENT;
	p.ref = l.ref;
	p.len = l.total;
	p.returned = l.val_len;
	p.units = l.units;
	p.bytes = l.val;
	return rlong_got(o, op, &p);
}

static int decode_scan(struct ordo *o, struct shim_call *c, const uint8_t *b,
		       uint32_t blen)
{
	struct shim_scan_rep s;
	uint32_t i;

	if (shim_dec_scan(b, blen, o->geo.value_size, rlong_value_max(o),
			  c->key, c->count, c->out_keys, &s))
		return -EPROTO;
	if (c->out_vals)
		memcpy(c->out_vals, s.vals, (size_t)s.n * o->geo.value_size);
	for (i = 0; c->out_lens && i < s.n; i++)
		c->out_lens[i] = le32toh(s.lens[i]);
	c->returned = s.n;
	c->more = s.more;
	c->next = s.next;
	return 0;
}

/*
 * Decode a reply whose header matched op: the call's status, or
 * %RLONG_MORE when the operation sent its next request.
 */
static int decode_reply(struct ordo *o, struct shim_op *op,
			const struct ordo_wire_hdr *h, uint32_t len)
{
	const uint8_t *b = (const uint8_t *)(h + 1);
	struct shim_call *c = &op->call;
	uint32_t blen = len - HDR;
	int st = ordo_wire_errno(le32toh(h->status));
	struct shim_part p;

	if (st)
		return blen ? -EPROTO : st;
	switch (c->op) {
	case ORDO_OP_GET:
		/* The value, or (F_PART) a part of it. */
		if (shim_dec_get(b, blen, le16toh(h->flags), o->geo.value_size,
				 rlong_value_max(o), 0, &p))
			return -EPROTO;
		return rlong_got(o, op, &p);
	case SHIM_CALL_LOOKUP:
		return decode_lookup(o, op, h, b, blen);
	case SHIM_CALL_SCAN:
		return decode_scan(o, c, b, blen);
	}
	return blen ? -EPROTO : 0;
}

static uint8_t wire_op(const struct shim_call *c)
{
	return c->op == SHIM_CALL_SCAN ? ORDO_WIRE_OP_SCAN :
	       c->op == SHIM_CALL_LOOKUP ? ORDO_WIRE_OP_LOOKUP : c->op;
}

/* Send what waited for credits. */
static void send_pending(struct ordo *o)
{
	struct rdma_be *r = rbe(o);

	while (r->npend && r->avail && !r->dead) {
		struct shim_op *op = &o->ops[r->pend[0]];

		memmove(r->pend, r->pend + 1, --r->npend * sizeof(*r->pend));
		send_now(o, op->slot, op->call_len);
	}
}

void rdma_on_reply(struct ordo *o, const uint8_t *msg, uint32_t len)
{
	struct rdma_be *r = rbe(o);
	const struct ordo_wire_hdr *h = (const void *)msg;
	struct shim_op *op;
	uint32_t slot;
	int ret;

	if (shim_dec_reply_hdr(msg, len)) {
		r->dead = true;	/* a server we cannot trust any more */
		return;
	}
	/*
	 * The reply's credit comes back in rdma_on_recv_posted(), once its
	 * receive buffer is posted again: a request sent from here (the next
	 * part of a long value, a callback's new request) could otherwise be
	 * answered before the client has a buffer for the answer, and the
	 * server's NIC would wait out receiver-not-ready retries (seconds).
	 */
	/* The server's table covers more than our copy: READ it again. */
	if (le32toh(h->pool_chunks) > r->pool_chunks)
		r->table_stale = true;
	slot = le64toh(h->id) & 0xffff;
	if (slot == SYNC_SLOT) {
		if (len <= r->max_msg) {
			memcpy(r->sync, msg, len);
			r->sync_len = len;
			r->sync_done = true;
		}
		send_pending(o);
		return;
	}
	op = slot < o->qd ? &o->ops[slot] : NULL;
	/* A part of the slot's wave: a STAGE of its upload, a GET of a part. */
	if (op && op->busy && rlong_part_reply(o, op, h, len)) {
		send_pending(o);
		return;
	}
	/*
	 * Only the reply to the call the slot waits for: a slot waiting for
	 * none has call_id 0, which no request carries (its sequence bits
	 * start at 1), and its op->call is the last call's, long answered.
	 */
	if (!op || !op->busy || !op->call_id ||
	    op->call_id != le64toh(h->id) ||
	    h->op != rlong_expect_op(o, op, wire_op(&op->call))) {
		send_pending(o);
		return;	/* a late reply of a request that timed out */
	}
	op->call_id = 0;
	ret = rlong_reply(o, op, h, len);
	if (ret == RLONG_DECODE)
		ret = decode_reply(o, op, h, len);
	if (ret != RLONG_MORE)
		ret = rlong_write_done(o, op, ret);
	send_pending(o);
	if (ret == RLONG_MORE)
		return;	/* its next request is on its way */
	op->call.status = ret;
	op->io_res = 0;
	shim_run(o, op);
}

/* A reply's receive buffer is posted again: its credit is usable. */
void rdma_on_recv_posted(struct ordo *o)
{
	struct rdma_be *r = rbe(o);

	if (r->avail < r->credits)
		r->avail++;
	send_pending(o);
	/* Then the waves of parts, with every credit of their last one back. */
	rlong_pump(o);
}

void rdma_on_read(struct ordo *o, uint32_t slot, int status)
{
	struct shim_op *op = &o->ops[slot];

	if (!op->busy || !op->reading)
		return;
	op->reading = false;
	op->io_res = status;
	shim_run(o, op);
}

/*
 * Fail every operation in flight (connection lost or timed out; r->dead is
 * set).  This runs inside the synchronous calls too, and a step may make
 * one (rdma_refresh(), shim_super_load()): the operation whose step that
 * is must not be ended under it, which would leave the step going on with
 * a finished request.  It is left alone and ends by itself, since every
 * read or call it starts on a dead connection fails at once.
 */
void rdma_fail_all(struct ordo *o, int err)
{
	uint32_t i;

	rbe(o)->npend = 0;
	rlong_reset(o);
	for (i = 0; i < o->qd; i++) {
		struct shim_op *op = &o->ops[i];

		if (!op->busy || op->running)
			continue;
		op->call_id = 0;
		op->reading = false;
		op->req->result = err;
		op->step = shim_step_fail;
		op->io_res = err;
		shim_run(o, op);
	}
}

/* ---- reads ---- */

static int rdma_table_refresh(struct ordo *o);

/* May the keys of the table copy be used now?  Refresh it when due. */
static bool table_fresh(struct ordo *o)
{
	struct rdma_be *r = rbe(o);
	long long age;

	if (!r->table.len)
		return true;	/* a raw handle with its own REGIONS listings */
	age = shim_now_ms() - r->table_ms;
	/* Half the lease is due; a refresh that cannot run now waits. */
	if ((r->table_stale || age >= r->lease_ms / 2) && !r->in_bulk &&
	    !rdma_table_refresh(o))
		age = shim_now_ms() - r->table_ms;
	return age < r->lease_ms;
}

/*
 * A long value's extent READ (read.c's only read into op->xbuf): the
 * slot's extent buffer is registered on its first use on a connection.
 */
static int xbuf_post(struct ordo *o, struct shim_op *op, uint32_t rkey)
{
	struct rdma_be *r = rbe(o);
	struct ibv_mr *mr = op->xreg;
	struct ibv_sge sge;
	struct ibv_send_wr wr, *bad;

	if (!mr) {
		mr = ibv_reg_mr(r->pd, op->xbuf, op->xbuf_len,
				IBV_ACCESS_LOCAL_WRITE);
		if (!mr)
			return -ENOMEM;
		op->xreg = mr;
	}
	sge = (struct ibv_sge){
		.addr = (uintptr_t)op->io[0].dst,
		.length = op->io[0].len,
		.lkey = mr->lkey,
	};
	wr = (struct ibv_send_wr){
		.wr_id = WR_READ | op->slot,
		.sg_list = &sge,
		.num_sge = 1,
		.opcode = IBV_WR_RDMA_READ,
		.send_flags = IBV_SEND_SIGNALED,
	};
	wr.wr.rdma.remote_addr = op->io[0].off;
	wr.wr.rdma.rkey = rkey;
	o->cnt.reads++;
	o->cnt.bytes_read += op->io[0].len;
	o->cnt.round_trips++;
	return ibv_post_send(r->qp, &wr, &bad) ? -EIO : 0;
}

static void rdma_xbuf_drop(struct ordo *o, struct shim_op *op)
{
	(void)o;
	if (op->xreg)
		ibv_dereg_mr(op->xreg);
	op->xreg = NULL;
}

/* Before the protection domain goes: the extent buffers' registrations. */
static void xbufs_unreg(struct ordo *o)
{
	uint32_t i;

	for (i = 0; o->ops && i < o->qd; i++)
		rdma_xbuf_drop(o, &o->ops[i]);
}

static int rdma_read(struct ordo *o, struct shim_op *op)
{
	struct rdma_be *r = rbe(o);
	uint32_t rkeys[SHIM_BATCH_MAX], i;

	if (r->dead)
		return -ECONNRESET;
	/* Keys past their lease may be gone: out of range, like unknown. */
	if (!table_fresh(o))
		return -ERANGE;
	if (r->dead)
		return -ECONNRESET;
	for (i = 0; i < op->nio; i++) {
		const struct region_ent *e = shim_region_find(
			op->io[i].kind == SHIM_POOL ? &r->pool : &r->model,
			op->io[i].off, op->io[i].len);

		if (!e)
			return -ERANGE;
		rkeys[i] = e->rkey;
	}
	op->reading = true;
	if (op->nio == 1 && op->xbuf && op->io[0].dst == op->xbuf) {
		int ret = xbuf_post(o, op, rkeys[0]);

		if (ret == -ENOMEM) {
			op->reading = false;
			return ret;
		}
		if (!ret)
			return 0;
		op->reading = false;
		r->dead = true;
		return -ECONNRESET;
	}
	if (rconn_post_reads(o, op, rkeys)) {
		op->reading = false;
		r->dead = true;
		return -ECONNRESET;
	}
	return 0;
}

/* ---- synchronous calls ---- */

/* Wait for @done with the handle's bound; other completions run too. */
static int wait_for(struct ordo *o, bool *done)
{
	struct rdma_be *r = rbe(o);
	long long end = shim_now_ms() + o->opts.timeout_ms;
	int ret;

	while (!*done) {
		long long left = end - shim_now_ms();

		if (left <= 0) {
			r->dead = true;
			rdma_fail_all(o, -ETIMEDOUT);
			return -ETIMEDOUT;
		}
		ret = rconn_poll(o, (int)left);
		if (ret < 0) {
			rdma_fail_all(o, ret);
			return ret;
		}
	}
	return 0;
}

/*
 * One synchronous RPC: @body of @blen bytes for @op; the reply lands in
 * r->sync.  Returns the reply status as an errno, -EPROTO for a reply
 * that does not match, or a transport error.
 */
static int sync_call(struct ordo *o, uint8_t op, const void *body,
		     uint32_t blen)
{
	struct rdma_be *r = rbe(o);
	const struct ordo_wire_hdr *h = (const void *)r->sync;
	uint64_t id;
	uint8_t *b;
	int ret;

	if (r->dead)
		return -ECONNRESET;
	if (HDR + blen > r->max_msg)
		return -EMSGSIZE;
	/* The sync call needs a credit like any request. */
	while (!r->avail) {
		ret = rconn_poll(o, (int)o->opts.timeout_ms);
		if (ret <= 0) {
			r->dead = true;
			rdma_fail_all(o, ret ? ret : -ETIMEDOUT);
			return ret ? ret : -ETIMEDOUT;
		}
	}
	b = rdma_req_begin(o, o->qd, op, &id);
	memcpy(b, body, blen);
	((struct ordo_wire_hdr *)(b - HDR))->length = htole32(HDR + blen);
	r->sync_done = false;
	if (send_now(o, o->qd, HDR + blen)) {
		r->dead = true;
		return -ECONNRESET;
	}
	ret = wait_for(o, &r->sync_done);
	if (ret)
		return ret;
	if (le64toh(h->id) != id || h->op != op)
		return -EPROTO;
	ret = ordo_wire_errno(le32toh(h->status));
	if (ret && r->sync_len != HDR)
		return -EPROTO;
	return ret;
}

/* Fetch the region table of @kind. */
int rdma_regions_fetch(struct ordo *o, uint16_t kind, struct region_tab *t)
{
	struct rdma_be *r = rbe(o);
	struct ordo_wire_regions_req req = { .kind = htole16(kind) };
	struct shim_regions acc = { 0 };
	int ret;

	do {
		req.first = htole32(acc.got);
		ret = sync_call(o, ORDO_WIRE_OP_REGIONS, &req, sizeof(req));
		if (!ret)
			ret = shim_dec_regions(&acc, kind, r->sync + HDR,
					       r->sync_len - HDR);
		if (ret)
			goto out;
	} while (acc.got < acc.total);
	ret = shim_dec_regions_end(&acc);
	if (ret)
		goto out;
	free(t->ent);
	t->ent = acc.ent;
	t->n = acc.got;
	t->covered = acc.covered;
	return 0;
out:
	free(acc.ent);
	return ret;
}

/* One synchronous READ of @n bytes (at most RDMA_BULK_BUF) into @dst. */
static int bulk_read(struct ordo *o, uint64_t off, uint32_t n, uint32_t rkey,
		     void *dst)
{
	struct rdma_be *r = rbe(o);
	int ret;

	if (r->dead)
		return -ECONNRESET;
	if (r->in_bulk)
		return -EBUSY;	/* one bulk buffer, one READ at a time */
	if (rconn_post_bulk(o, off, n, rkey)) {
		r->dead = true;
		return -ECONNRESET;
	}
	r->in_bulk = true;
	ret = wait_for(o, &r->bulk_done);
	r->in_bulk = false;
	if (!ret)
		ret = r->bulk_status;
	if (!ret)
		memcpy(dst, rconn_bulk_buf(o), n);
	return ret;
}

/*
 * Where the region table is: REGIONS of kind TABLE, asked again (bounded
 * by the handle's timeout) while the server's first registration on the
 * device is under way.
 */
static int rdma_table_locate(struct ordo *o)
{
	struct rdma_be *r = rbe(o);
	long long end = shim_now_ms() + o->opts.timeout_ms;
	useconds_t pause = 1000;

	for (;;) {
		struct region_tab t = { 0 };
		int ret = rdma_regions_fetch(o, ORDO_WIRE_REGION_TABLE, &t);

		if (ret)
			return ret;
		if (t.n == 1) {
			r->table = t.ent[0];
			free(t.ent);
			/* shim_dec_table() checks the length exactly. */
			return r->table.len <= TABLE_MAX ? 0 : -EPROTO;
		}
		free(t.ent);
		if (t.n)
			return -EPROTO;
		if (shim_now_ms() >= end)
			return -ETIMEDOUT;
		usleep(pause);
		if (pause < 64000)
			pause *= 2;
	}
}

/*
 * READ the region table and take its regions; a copy torn by a
 * publication is read again.  -EAGAIN if every copy was torn.
 */
static int rdma_table_refresh(struct ordo *o)
{
	struct rdma_be *r = rbe(o);
	uint64_t len = r->table.len;
	struct shim_table t;
	uint8_t *buf;
	long long start = 0;
	int ret = -EAGAIN, tries;

	if (!len)
		return -ENODATA;
	buf = malloc(len);
	if (!buf)
		return -ENOMEM;
	for (tries = 0; tries < SHIM_TRIES * 4 && ret == -EAGAIN; tries++) {
		uint64_t at = 0;

		start = shim_now_ms();
		for (ret = 0; !ret && at < len; at += RDMA_BULK_BUF) {
			uint64_t n = len - at < RDMA_BULK_BUF ? len - at :
				     RDMA_BULK_BUF;

			ret = bulk_read(o, r->table.off + at, n, r->table.rkey,
					buf + at);
		}
		if (!ret)
			ret = shim_dec_table(buf, len,
					     le64toh(r->rep.server_id),
					     le64toh(r->rep.chunk_size), &t);
		if (ret == -EAGAIN)
			o->cnt.retries++;
	}
	free(buf);
	if (ret)
		return ret;
	free(r->pool.ent);
	free(r->model.ent);
	r->pool = t.pool;
	r->model = t.model;
	r->pool_chunks = t.pool_chunks;
	r->table_seq = t.seq;
	r->table_ms = start;
	r->lease_ms = t.lease_ms;
	r->table_stale = false;
	return 0;
}

static int rdma_refresh(struct ordo *o)
{
	int ret = rdma_table_refresh(o);

	if (!ret)
		ret = shim_super_load(o);
	return ret;
}

/* Read @len bytes at @off of @kind synchronously (cache loads). */
static int rdma_bulk(struct ordo *o, uint32_t kind, uint64_t off, void *dst,
		     size_t len)
{
	struct rdma_be *r = rbe(o);
	uint8_t *d = dst;
	bool fetched = false;
	int ret;

	while (len) {
		struct region_tab *t = kind == SHIM_POOL ? &r->pool : &r->model;
		const struct region_ent *e;
		uint32_t n = len > RDMA_BULK_BUF ? RDMA_BULK_BUF : (uint32_t)len;

		e = table_fresh(o) ? shim_region_find(t, off, 1) : NULL;
		if (e && n > e->len - (off - e->off))
			n = e->len - (off - e->off);
		if (!e) {
			/* No model entries at all: no model published. */
			if (fetched)
				return kind == SHIM_MODEL && !t->n ? -ENODATA :
				       -ERANGE;
			fetched = true;
			ret = rdma_table_refresh(o);
			if (ret)
				return ret;
			continue;
		}
		ret = bulk_read(o, off, n, e->rkey, d);
		if (ret)
			return ret;
		d += n;
		off += n;
		len -= n;
	}
	return 0;
}

/* ---- the backend ---- */

static int rdma_wait(struct ordo *o, int ms)
{
	struct rdma_be *r = rbe(o);
	long long now;
	uint32_t i;
	int ret = rconn_poll(o, ms);

	if (ret < 0) {
		rdma_fail_all(o, ret);
		/* Let go of the device now (its removal waits for us). */
		xbufs_unreg(o);
		rconn_close(r);
		return ret;
	}
	/*
	 * Operations at the handle's bound fail; so does the connection
	 * (at, not past: ordo_poll() gives up at that very millisecond).
	 */
	now = shim_now_ms();
	for (i = 0; i < o->qd; i++)
		if (o->ops[i].busy &&
		    now - o->ops[i].t_start >= (long long)o->opts.timeout_ms) {
			r->dead = true;
			rdma_fail_all(o, -ETIMEDOUT);
			return -ETIMEDOUT;
		}
	return ret;
}

static int rdma_info(struct ordo *o, struct ordo_info *info)
{
	struct rdma_be *r = rbe(o);
	int ret = sync_call(o, ORDO_WIRE_OP_INFO, NULL, 0);

	if (ret)
		return ret;
	return shim_dec_info(r->sync + HDR, r->sync_len - HDR, info);
}

/* Over RDMA the model's figures are what its image header carries. */
static int rdma_model_info(struct ordo *o, struct ordo_model_info *info)
{
	struct ordo_model_layout lay;
	int ret = shim_model_layout(o, &lay);

	memset(info, 0, sizeof(*info));
	if (ret == -ERANGE || ret == -ENODATA)
		return 0;	/* no model published yet */
	if (ret)
		return ret;
	info->version = lay.epoch;
	info->keys = lay.nkeys;
	info->sub_models = lay.nsub - lay.first;
	info->tt_entries = lay.nleaves;
	info->tt_capacity = lay.tt_cap;
	info->eps = lay.eps;
	info->model_bytes = lay.model_size;
	info->tt_bytes = (uint64_t)lay.nleaves * ORDO_TT_ENTRY_SIZE;
	info->region_bytes = lay.region_size;
	return 0;
}

static int rdma_retrain(struct ordo *o, uint64_t *version)
{
	(void)o;
	(void)version;
	return -EOPNOTSUPP;	/* an administrative act of the server host */
}

/* Value bytes an entry carries in the request (GET and DELETE carry none). */
static uint32_t batch_vlen(const struct ordo_batch_op *op)
{
	return op->op == ORDO_OP_GET || op->op == ORDO_OP_DELETE ? 0 :
	       op->kv.value_len;
}

/*
 * Entries from @ops that one BATCH message carries: at most batch_max, the
 * request within max_msg, and the reply (8 bytes per entry plus a value per
 * GET) within max_msg too.
 */
static uint32_t batch_chunk(struct ordo *o, const struct ordo_batch_op *ops,
			    uint32_t n)
{
	struct rdma_be *r = rbe(o);
	uint32_t room = r->max_msg - HDR, k;
	uint64_t req = sizeof(struct ordo_wire_batch);
	uint64_t rep = sizeof(struct ordo_wire_batch_rep);

	for (k = 0; k < n && k < le32toh(r->rep.batch_max); k++) {
		req += sizeof(struct ordo_wire_kv) +
		       ordo_wire_pad8(batch_vlen(&ops[k]));
		rep += sizeof(struct ordo_wire_batch_res) +
		       (ops[k].op == ORDO_OP_GET ? o->geo.value_size : 0);
		if (req > room || rep > room)
			break;
	}
	return k;
}

/* One BATCH RPC of @n entries that batch_chunk() said fit. */
static int batch_send(struct ordo *o, struct ordo_batch_op *ops, uint32_t n)
{
	struct rdma_be *r = rbe(o);
	uint32_t i, blen = sizeof(struct ordo_wire_batch);
	uint8_t *body, *p;
	int ret;

	for (i = 0; i < n; i++)
		blen += sizeof(struct ordo_wire_kv) +
			ordo_wire_pad8(batch_vlen(&ops[i]));
	body = calloc(1, blen);
	if (!body)
		return -ENOMEM;
	((struct ordo_wire_batch *)body)->count = htole32(n);
	p = body + sizeof(struct ordo_wire_batch);
	for (i = 0; i < n; i++) {
		struct ordo_wire_kv *kv = (void *)p;
		uint32_t vl = batch_vlen(&ops[i]);

		kv->key = htole64(ops[i].kv.key);
		kv->value_len = htole16(vl);
		kv->op = ops[i].op;
		if (vl)
			memcpy(kv + 1, (const void *)(uintptr_t)ops[i].kv.value,
			       vl);
		p += sizeof(*kv) + ordo_wire_pad8(vl);
	}
	ret = sync_call(o, ORDO_WIRE_OP_BATCH, body, blen);
	free(body);
	if (ret)
		return ret;
	if (shim_dec_batch(r->sync + HDR, r->sync_len - HDR, o->geo.value_size,
			   rlong_value_max(o), ops, n))
		return -EPROTO;
	return 0;
}

/* Does one BATCH message carry @b, with its reply? */
static bool rdma_batch_takes(struct ordo *o, const struct ordo_batch_op *b)
{
	return batch_vlen(b) <= rlong_value_max(o) && batch_chunk(o, b, 1);
}

/*
 * Entries ordo_batch() checked and rdma_batch_takes() takes go out as as
 * many BATCH messages as they need, in order.  An entry that never ran
 * (a later message failed) keeps -ECANCELED; a GET of a value longer
 * than value_size gets -ENOBUFS and its length, which ordo_batch() GETs.
 */
static int rdma_batch(struct ordo *o, struct ordo_batch_op *ops, uint32_t n)
{
	uint32_t i, k;
	int ret;

	for (i = 0; i < n; i++)
		ops[i].result = -ECANCELED;
	for (i = 0, ret = 0; i < n && !ret; i += k) {
		k = batch_chunk(o, ops + i, n - i);
		ret = k ? batch_send(o, ops + i, k) : -E2BIG;
	}
	return ret ? ret : (int)n;
}

static void rdma_close(struct ordo *o)
{
	struct rdma_be *r = rbe(o);

	if (!r)
		return;
	xbufs_unreg(o);
	rconn_close(r);
	rdma_raw_free(r);
	rlong_free(r);
	free(r->pool.ent);
	free(r->model.ent);
	free(r->pend);
	free(r->sync);
	free(r);
}

/* Point the slots at the (new) registered buffers. */
static void slots_bind(struct ordo *o)
{
	struct rdma_be *r = rbe(o);
	uint8_t *base = rconn_bulk_buf(o) - (size_t)o->qd * r->per_slot;
	uint32_t i;

	for (i = 0; i < o->qd; i++) {
		o->ops[i].buf = base + (size_t)i * r->per_slot;
		o->ops[i].buf_len = r->per_slot;
	}
}

/* Connect, learn the regions and the root; a new server drops the cache. */
static int rdma_connect_all(struct ordo *o)
{
	struct rdma_be *r = rbe(o);
	uint64_t sid;
	int ret;

	xbufs_unreg(o);
	ret = rconn_connect(o);

	if (ret)
		return ret;
	free(r->sync);
	r->sync = malloc(r->max_msg);
	if (!r->sync)
		return -ENOMEM;
	if (!o->ops) {
		ret = shim_slots_init(o, rconn_bulk_buf(o), r->per_slot);
		if (ret)
			return ret;
	}
	slots_bind(o);
	if (r->raw) {
		ret = rdma_raw_setup(o);
		if (ret || o->raw_cfg->bare)
			return ret;
	}
	rlong_reset(o);
	/* Another connection may have another registration: forget it. */
	memset(&r->table, 0, sizeof(r->table));
	r->pool_chunks = 0;
	ret = rdma_table_locate(o);
	if (!ret)
		ret = rdma_table_refresh(o);
	if (!ret)
		ret = shim_super_load(o);
	if (ret)
		return ret;
	sid = le64toh(r->rep.server_id);
	if (o->server_id && sid != o->server_id && o->cache) {
		/* A restarted store: nothing cached about the old one holds. */
		shim_cache_put(o);
		o->server_id = sid;
		ret = shim_cache_get(o, sid, o->uri);
		if (ret)
			return ret;
	}
	o->server_id = sid;
	return 0;
}

/* Before an operation starts with nothing in flight: reconnect if needed. */
static int rdma_prepare(struct ordo *o)
{
	struct rdma_be *r = rbe(o);
	int ret;

	if (!r->dead)
		return 0;
	xbufs_unreg(o);
	rconn_close(r);
	ret = rdma_connect_all(o);
	if (!ret)
		o->cnt.reconnects++;
	return ret;
}

static const struct shim_backend rdma_backend = {
	.read = rdma_read,
	.xbuf_drop = rdma_xbuf_drop,
	.call = rdma_call,
	.wait = rdma_wait,
	.bulk = rdma_bulk,
	.info = rdma_info,
	.model_info = rdma_model_info,
	.retrain = rdma_retrain,
	.batch = rdma_batch,
	.batch_takes = rdma_batch_takes,
	.refresh = rdma_refresh,
	.prepare = rdma_prepare,
	.close = rdma_close,
};

/* "rdma://HOST[:PORT]" or "rdma://[V6ADDR][:PORT]". */
static int uri_parse(struct rdma_be *r, const char *uri)
{
	const char *h = uri + 7, *end, *colon;
	size_t n;

	if (*h == '[') {
		end = strchr(++h, ']');
		if (!end)
			return -EINVAL;
		colon = end[1] == ':' ? end + 1 : NULL;
		if (end[1] && !colon)
			return -EINVAL;
	} else {
		colon = strchr(h, ':');
		end = colon ? colon : h + strlen(h);
	}
	n = end - h;
	if (!n || n >= sizeof(r->host))
		return -EINVAL;
	memcpy(r->host, h, n);
	r->host[n] = 0;
	if (colon) {
		char *e;
		unsigned long p = strtoul(colon + 1, &e, 10);

		if (*e || !p || p > 65535 || !colon[1])
			return -EINVAL;
		snprintf(r->port, sizeof(r->port), "%lu", p);
	} else {
		snprintf(r->port, sizeof(r->port), "%u", ORDO_WIRE_PORT);
	}
	return 0;
}

int ordo_rdma_open(struct ordo *o, const char *uri)
{
	struct rdma_be *r = calloc(1, sizeof(*r));
	int ret;

	if (!r)
		return -ENOMEM;
	o->priv = r;
	o->be = &rdma_backend;
	ret = uri_parse(r, uri);
	r->pend = ret ? NULL : calloc(o->qd, sizeof(*r->pend));
	if (!ret && !r->pend)
		ret = -ENOMEM;
	if (!ret)
		ret = rlong_init(o);
	if (!ret && o->raw_cfg)
		ret = rdma_raw_init(o);
	if (!ret)
		ret = rdma_connect_all(o);
	if (ret) {
		rdma_close(o);
		o->priv = NULL;
	}
	return ret;
}
