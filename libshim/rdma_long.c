// SPDX-License-Identifier: GPL-2.0
/*
 * libordo, RDMA backend: values longer than one message
 * (Documentation/wire.rst, "Long values").
 *
 * A write whose value does not fit in one request is uploaded as STAGE
 * parts into the connection's staged value, then stored by the write with
 * ORDO_WIRE_KV_STAGED.  The parts go out in waves: as many as credits
 * and part buffers allow (RLONG_WAVE), the next wave when the last one is
 * answered, the write right after the last part, without waiting for the
 * parts' replies (a failed part fails the write on the server too; the
 * first failed part's status is the operation's).  A wave is one round
 * trip.  The server keeps one staged value per connection, so one
 * operation of the handle stages at a time; others wait in order for its
 * parts to be answered.
 *
 * A GET or LOOKUP reply that carries part of a value (ORDO_WIRE_F_PART)
 * is completed by GETs with ORDO_WIRE_KV_PART from where it stopped, in
 * waves of its own (the requests sit in the operation's own send buffer).
 * A part of another stored value (its ref or length changed) starts the
 * value again, at most RLONG_RESTARTS times.
 *
 * A part's reply is matched by its id (rlong_part_reply()); the write and
 * the GETs of parts are requests in the operation's own slot.  Each step
 * is sent from the completion of the one before: nothing here waits.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "rdma.h"

#define HDR	sizeof(struct ordo_wire_hdr)
/* Times a GET starts a value again because it changed between parts. */
#define RLONG_RESTARTS	16

static struct rlong *lv_of(struct ordo *o, struct shim_op *op)
{
	return &rbe(o)->lv[op->slot];
}

uint32_t rlong_value_max(struct ordo *o)
{
	uint32_t vmax = le32toh(rbe(o)->rep.value_max);

	return vmax > o->geo.value_size ? vmax : o->geo.value_size;
}

/* Is @c a write whose value does not fit in one request? */
bool rlong_write_needed(struct ordo *o, const struct shim_call *c)
{
	if (c->op != ORDO_OP_PUT && c->op != ORDO_OP_INSERT &&
	    c->op != ORDO_OP_UPDATE)
		return false;
	return c->len > o->geo.value_size && c->len <= rlong_value_max(o) &&
	       HDR + sizeof(struct ordo_wire_kv) + ordo_wire_pad8(c->len) >
	       rbe(o)->max_msg;
}

/* The op's reply to expect: its own call's, or that of its current step. */
uint8_t rlong_expect_op(struct ordo *o, struct shim_op *op, uint8_t call_op)
{
	return lv_of(o, op)->phase == RL_GET ? ORDO_WIRE_OP_GET : call_op;
}

/* Send the message just encoded in the op's slot: @b body, @blen bytes. */
static int send_body(struct ordo *o, struct shim_op *op, uint8_t *b,
		     uint32_t blen, uint64_t id)
{
	((struct ordo_wire_hdr *)(b - HDR))->length = htole32(HDR + blen);
	op->call_id = id;
	op->call_len = HDR + blen;
	return rdma_send_op(o, op);
}

/* The write that stores the staged value: after the upload's last part. */
static int send_commit(struct ordo *o, struct shim_op *op)
{
	const struct shim_call *c = &op->call;
	struct shim_req q = {
		.op = c->op,
		.key = c->key,
		.kv_flags = ORDO_WIRE_KV_STAGED,
		.arg = c->len,
	};
	uint64_t id;
	uint8_t *b = rdma_req_begin(o, op->slot, q.op, &id);

	lv_of(o, op)->phase = RL_COMMIT;
	return send_body(o, op, b, shim_enc_req(b, &q), id);
}

/* Start the upload wave's next request, of @wop, in its buffer: its body. */
static uint8_t *wave_req(struct ordo *o, struct shim_op *op, uint8_t wop)
{
	struct rdma_be *r = rbe(o);
	struct rlong_wave *w = &r->wave;
	struct ordo_wire_hdr *h = (void *)rconn_send_buf(r, o->qd + 1 + w->n);

	memset(h, 0, HDR);
	w->ids[w->n] = (++r->seq << 16) | op->slot;
	h->id = htole64(w->ids[w->n]);
	h->version = ORDO_WIRE_VERSION;
	h->op = wop;
	return (uint8_t *)(h + 1);
}

/* Send the request wave_req() began, @blen bytes of body at @b. */
static int wave_send(struct ordo *o, uint8_t *b, uint32_t blen)
{
	struct rlong_wave *w = &rbe(o)->wave;

	((struct ordo_wire_hdr *)(b - HDR))->length = htole32(HDR + blen);
	w->left++;
	w->n++;
	/* The first request of a wave is a round trip; the rest go along. */
	return rdma_send_at(o, o->qd + w->n, 0, HDR + blen, w->n == 1);
}

/* A GET of the part from @off in the op's own slot (one at a time). */
static int send_get_part(struct ordo *o, struct shim_op *op, uint32_t off)
{
	struct shim_req q = {
		.op = ORDO_WIRE_OP_GET,
		.key = op->call.key,
		.kv_flags = ORDO_WIRE_KV_PART,
		.arg = off,
	};
	uint64_t id;
	uint8_t *b = rdma_req_begin(o, op->slot, q.op, &id);

	lv_of(o, op)->phase = RL_GET;
	lv_of(o, op)->want = off;
	return send_body(o, op, b, shim_enc_req(b, &q), id);
}

/* Bytes of a value one GET reply of a part carries at most. */
static uint32_t part_bytes(struct rdma_be *r)
{
	return r->max_msg - HDR - sizeof(struct ordo_wire_part);
}

/*
 * A GET's wave: its requests (48 bytes each) sit GETW_REQ apart in the
 * operation's own send buffer, idle while its wave is out, so every GET
 * has a wave of its own.
 */
#define GETW_REQ	64

static uint32_t getw_max(struct rdma_be *r)
{
	return r->max_msg / GETW_REQ < RLONG_WAVE ? r->max_msg / GETW_REQ :
	       RLONG_WAVE;
}

/*
 * The next wave of GETs of parts, from lv->at: as many as credits allow
 * (calls waiting for credits go first); the first is a round trip.
 */
static int send_get_wave(struct ordo *o, struct shim_op *op)
{
	struct rdma_be *r = rbe(o);
	struct rlong *lv = lv_of(o, op);
	uint32_t max = part_bytes(r), n = 0;
	int ret = 0;

	lv->waiting = r->npend || !r->avail;
	if (r->dead)
		return -ECONNRESET;
	while (!lv->waiting && n < getw_max(r) && r->avail &&
	       lv->at < lv->len && !ret) {
		struct ordo_wire_hdr *h = (void *)(rconn_send_buf(r, op->slot) +
						   n * GETW_REQ);
		struct shim_req q = {
			.op = ORDO_WIRE_OP_GET,
			.key = op->call.key,
			.kv_flags = ORDO_WIRE_KV_PART,
			.arg = lv->at,
		};
		uint32_t blen;

		memset(h, 0, HDR);
		lv->ids[n] = (++r->seq << 16) | op->slot;
		h->id = htole64(lv->ids[n]);
		h->version = ORDO_WIRE_VERSION;
		h->op = ORDO_WIRE_OP_GET;
		blen = shim_enc_req((uint8_t *)(h + 1), &q);
		h->length = htole32(HDR + blen);
		lv->offs[n] = lv->at;
		lv->at += lv->len - lv->at < max ? lv->len - lv->at : max;
		lv->wleft++;
		ret = rdma_send_at(o, op->slot, n * GETW_REQ, HDR + blen, !n);
		n++;
	}
	lv->wn = n;
	return ret;
}

/*
 * Send the upload's next wave: as many parts as there are credits free
 * and part buffers (calls waiting for credits go first), and the write
 * after the last part, without waiting for the parts' replies (a failed
 * part fails the write too, Documentation/wire.rst).
 */
static int send_wave(struct ordo *o, struct shim_op *op)
{
	struct rdma_be *r = rbe(o);
	struct rlong_wave *w = &r->wave;
	struct rlong *lv = lv_of(o, op);
	const struct shim_call *c = &op->call;
	uint32_t max = shim_stage_part_max(r->max_msg);
	int ret;

	w->n = 0;
	w->waiting = r->npend || !r->avail;
	if (r->dead)
		return -ECONNRESET;
	while (!w->waiting && w->n < rlong_wave_bufs(r) && r->avail &&
	       lv->at < c->len) {
		uint32_t n = c->len - lv->at;
		uint8_t *b = wave_req(o, op, ORDO_WIRE_OP_STAGE);

		if (n > max)
			n = max;
		ret = wave_send(o, b, shim_enc_stage(b, c->len, lv->at,
						     (const uint8_t *)c->val +
						     lv->at, n));
		lv->at += n;
		if (ret)
			return ret;
	}
	if (lv->at < c->len)
		return 0;
	/* The write goes along with the wave, unless it waits for a credit. */
	w->commit_joins = true;
	ret = send_commit(o, op);
	w->commit_joins = false;
	return ret;
}

/*
 * @op takes the staged value.  Its first wave goes @now, or (from a
 * reply, whose credit is not back yet) when credits come back.
 */
static int stage_begin(struct ordo *o, struct shim_op *op, bool now)
{
	struct rdma_be *r = rbe(o);
	struct rlong *lv = lv_of(o, op);

	r->stager = op->slot;
	r->wave.err = 0;
	r->wave.left = 0;
	lv->phase = RL_STAGE;
	lv->at = 0;
	lv->err = 0;
	lv->commit_back = false;
	op->call_id = 0;
	r->wave.waiting = true;
	return now ? send_wave(o, op) : 0;
}

/* End an operation from a completion: its call's status is @st. */
static void op_end(struct ordo *o, struct shim_op *op, int st)
{
	lv_of(o, op)->phase = RL_NONE;
	op->call_id = 0;
	op->call.status = st;
	op->io_res = 0;
	shim_run(o, op);
}

/*
 * The stager's parts are all answered and it needs the staged value no
 * more (its write is sent, or it failed): the next waiting write goes.
 */
static void stage_next(struct ordo *o)
{
	struct rdma_be *r = rbe(o);

	r->stager = RLONG_NONE;
	r->wave.waiting = false;
	if (r->nstage_q) {
		struct shim_op *op = &o->ops[r->stage_q[0]];

		memmove(r->stage_q, r->stage_q + 1,
			--r->nstage_q * sizeof(*r->stage_q));
		stage_begin(o, op, false);
	}
}

/**
 * rlong_write_start() - start a write rlong_write_needed() said is long
 * @o: the handle
 * @op: the operation; its call is the write
 *
 * Return: 0 (under way: the completion of its last request ends it), or
 * a negative errno (nothing sent).
 */
int rlong_write_start(struct ordo *o, struct shim_op *op)
{
	struct rdma_be *r = rbe(o);
	int ret;

	if (r->stager != RLONG_NONE) {
		lv_of(o, op)->phase = RL_WAIT;
		r->stage_q[r->nstage_q++] = op->slot;
		return 0;
	}
	ret = stage_begin(o, op, true);
	if (ret)
		r->stager = RLONG_NONE;
	return ret;
}

static void getw_end(struct ordo *o, struct shim_op *op, int st);

/*
 * A credit came back: the stager's next wave, if it waits for one, then
 * those of GETs reading parts.
 */
void rlong_pump(struct ordo *o)
{
	struct rdma_be *r = rbe(o);
	struct shim_op *op;
	uint32_t i;
	int ret;

	if (r->stager != RLONG_NONE && r->wave.waiting && !r->dead &&
	    !r->npend && r->avail) {
		op = &o->ops[r->stager];
		ret = send_wave(o, op);
		if (ret && !r->wave.left && lv_of(o, op)->phase != RL_COMMIT) {
			stage_next(o);
			op_end(o, op, ret);
		}
	}
	for (i = 0; r->ngetw && i < o->qd && r->avail && !r->npend &&
	     !r->dead; i++) {
		struct rlong *lv = &r->lv[i];

		if (lv->phase != RL_GETW || !lv->waiting)
			continue;
		op = &o->ops[i];
		ret = send_get_wave(o, op);
		if (ret && !lv->wleft)
			getw_end(o, op, ret);
	}
}

/*
 * Does the request of @slot go out with the STAGE parts of a wave, whose
 * round trip it shares?  Only the write sent with its last wave: one that
 * waited for a credit goes after the wave's first reply, and is answered
 * a round trip later.
 */
bool rlong_joins_wave(struct ordo *o, uint32_t slot)
{
	struct rdma_be *r = rbe(o);

	return slot == r->stager && r->wave.commit_joins;
}

/*
 * A GET of part @i of the op's wave: its bytes go to the call's
 * destination.  A part of another value (another ref or length, or none:
 * deleted) makes the GET start again once its wave is answered; bytes no
 * correct server sends (a part shorter than the wire says) are -EPROTO.
 */
static int get_part_reply(struct ordo *o, struct shim_op *op,
			  const struct ordo_wire_hdr *h, uint32_t len,
			  uint32_t i)
{
	struct rdma_be *r = rbe(o);
	struct rlong *lv = lv_of(o, op);
	uint32_t off = lv->offs[i], want = lv->len - off;
	int st = ordo_wire_errno(le32toh(h->status));
	struct shim_part p;

	if (h->op != ORDO_WIRE_OP_GET)
		return -EPROTO;
	if (st) {
		lv->changed = true;
		return len == HDR ? 0 : -EPROTO;
	}
	if (shim_dec_get((const uint8_t *)(h + 1), len - HDR,
			 le16toh(h->flags), o->geo.value_size,
			 rlong_value_max(o), off, &p))
		return -EPROTO;
	if (p.ref != lv->ref || p.len != lv->len) {
		lv->changed = true;
		return 0;
	}
	if (want > part_bytes(r))
		want = part_bytes(r);
	if (p.returned != want)
		return -EPROTO;
	memcpy((uint8_t *)op->call.out_val + off, p.bytes, p.returned);
	return 0;
}

/* The GET's waves are over: with @st, or read the value again. */
static void getw_end(struct ordo *o, struct shim_op *op, int st)
{
	struct rlong *lv = lv_of(o, op);

	rbe(o)->ngetw--;
	if (!st && lv->changed) {
		/* Another value was stored meanwhile: start again. */
		o->cnt.retries++;
		if (++lv->restarts > RLONG_RESTARTS)
			st = -EAGAIN;
		else
			st = send_get_part(o, op, 0);
		if (!st)
			return;
	}
	op_end(o, op, st);
}

/* A reply to one of the GETs of @op's wave. */
static bool getw_reply(struct ordo *o, struct shim_op *op,
		       const struct ordo_wire_hdr *h, uint32_t len)
{
	struct rlong *lv = lv_of(o, op);
	uint64_t id = le64toh(h->id);
	uint32_t i;
	int st;

	for (i = 0; i < lv->wn && (!id || lv->ids[i] != id); i++)
		;
	if (i == lv->wn)
		return false;
	lv->ids[i] = 0;
	lv->wleft--;
	st = get_part_reply(o, op, h, len, i);
	if (st && !lv->err)
		lv->err = st;
	if (lv->wleft)
		return true;
	if (!lv->err && !lv->changed && lv->at < lv->len)
		lv->waiting = true;	/* when this reply's credit is back */
	else
		getw_end(o, op, lv->err);
	return true;
}

/**
 * rlong_part_reply() - a reply that may answer a part of @op's wave
 * @o: the handle
 * @op: the operation its id's slot names
 * @h: the reply, @len bytes, its header checked
 * @len: bytes
 *
 * When the wave's last part is answered, the next wave goes, or the
 * operation ends.  An upload ends on its first failed part, or (its
 * write sent) by letting the next long write stage, and the write's own
 * reply ends it (rlong_write_done()).
 *
 * Return: whether the reply answered one of @op's parts in flight.
 */
bool rlong_part_reply(struct ordo *o, struct shim_op *op,
		      const struct ordo_wire_hdr *h, uint32_t len)
{
	struct rdma_be *r = rbe(o);
	struct rlong_wave *w = &r->wave;
	struct rlong *lv = lv_of(o, op);
	uint64_t id = le64toh(h->id);
	uint32_t i;
	int st;

	if (lv->phase == RL_GETW)
		return getw_reply(o, op, h, len);
	if (r->stager != op->slot || !id)
		return false;
	for (i = 0; i < w->n && w->ids[i] != id; i++)
		;
	if (i == w->n)
		return false;
	w->ids[i] = 0;
	w->left--;
	st = h->op != ORDO_WIRE_OP_STAGE || len != HDR ? -EPROTO :
	     ordo_wire_errno(le32toh(h->status));
	if (st && (!w->err || i < w->err_idx)) {
		w->err = st;
		w->err_idx = i;
	}
	if (w->left)
		return true;
	if (lv->phase == RL_STAGE) {
		if (w->err) {
			stage_next(o);
			op_end(o, op, w->err);
		} else {
			/* The next wave, when this reply's credit is back. */
			w->waiting = true;
		}
		return true;
	}
	/* The write is sent (or waits for a credit, ahead of any part). */
	lv->err = w->err;
	stage_next(o);
	if (lv->commit_back) {
		st = lv->err ?: lv->commit_st;
		op_end(o, op, st);
	}
	return true;
}

/**
 * rlong_write_done() - the reply to an operation's own call is decoded
 * @o: the handle
 * @op: the operation
 * @st: its status
 *
 * Return: @st, but for the write of a staged value: %RLONG_MORE while
 * some of its parts are unanswered (the last one ends it), else the
 * first failed part's status if one failed.
 */
int rlong_write_done(struct ordo *o, struct shim_op *op, int st)
{
	struct rdma_be *r = rbe(o);
	struct rlong *lv = lv_of(o, op);

	if (lv->phase != RL_COMMIT)
		return st;
	if (r->stager == op->slot && r->wave.left) {
		lv->commit_back = true;
		lv->commit_st = st;
		return RLONG_MORE;
	}
	lv->phase = RL_NONE;
	return lv->err ?: st;
}

/* Room at the call's destination (at least value_size). */
static uint32_t out_cap(struct ordo *o, struct shim_op *op)
{
	return op->call.out_cap > o->geo.value_size ? op->call.out_cap :
	       o->geo.value_size;
}

/*
 * More than one part of the value is missing from @at: ask for them in
 * waves.  From a reply, so the first wave goes when its credit is back.
 */
static bool getw_start(struct ordo *o, struct shim_op *op, uint32_t at)
{
	struct rdma_be *r = rbe(o);
	struct rlong *lv = lv_of(o, op);

	if (getw_max(r) < 2 || lv->len - at <= part_bytes(r))
		return false;
	lv->phase = RL_GETW;
	lv->at = at;
	lv->wn = 0;
	lv->wleft = 0;
	lv->err = 0;
	lv->changed = false;
	lv->waiting = true;
	op->call_id = 0;
	r->ngetw++;
	return true;
}

/**
 * rlong_got() - take a decoded part of a GET's or LOOKUP's value
 * @o: the handle
 * @op: the operation
 * @p: the part (a whole inline value is a part from 0 with ref 0)
 *
 * Copies the bytes to the call's destination; asks for the next part
 * while some are missing, or for the value again when it changed.
 *
 * Return: 0 (whole: out_len is the value's length), %RLONG_MORE (the next
 * request is under way), -ENOBUFS (out_len set: the destination is too
 * small), -EAGAIN (the value kept changing) or a transport error.
 */
int rlong_got(struct ordo *o, struct shim_op *op, const struct shim_part *p)
{
	struct rlong *lv = lv_of(o, op);
	struct shim_call *c = &op->call;
	uint32_t at;

	c->out_len = p->len;
	if (!c->out_val) {
		lv->phase = RL_NONE;
		return 0;
	}
	if (p->len > out_cap(o, op)) {
		lv->phase = RL_NONE;
		return -ENOBUFS;
	}
	if (!p->offset) {
		lv->ref = p->ref;
		lv->len = p->len;
	} else if (p->ref != lv->ref || p->len != lv->len) {
		/* Another value was stored meanwhile: start again. */
		o->cnt.retries++;
		if (++lv->restarts > RLONG_RESTARTS) {
			lv->phase = RL_NONE;
			return -EAGAIN;
		}
		return send_get_part(o, op, 0) ?: RLONG_MORE;
	}
	memcpy((uint8_t *)c->out_val + p->offset, p->bytes, p->returned);
	at = p->offset + p->returned;
	if (at >= p->len) {
		lv->phase = RL_NONE;
		return 0;
	}
	if (getw_start(o, op, at))
		return RLONG_MORE;
	return send_get_part(o, op, at) ?: RLONG_MORE;
}

/**
 * rlong_reply() - a reply to a step of a long operation
 * @o: the handle
 * @op: the operation, whose current step the reply answers
 * @h: the reply, @len bytes, its header checked
 * @len: bytes
 *
 * Return: as rlong_got(); %RLONG_DECODE for a reply to the call's own
 * request (decode it as such).
 */
int rlong_reply(struct ordo *o, struct shim_op *op,
		const struct ordo_wire_hdr *h, uint32_t len)
{
	struct rlong *lv = lv_of(o, op);
	struct shim_part p;
	int st;

	switch (lv->phase) {
	case RL_GET:
		st = ordo_wire_errno(le32toh(h->status));
		if (st) {
			lv->phase = RL_NONE;
			return len == HDR ? st : -EPROTO;
		}
		if (shim_dec_get((const uint8_t *)(h + 1), len - HDR,
				 le16toh(h->flags), o->geo.value_size,
				 rlong_value_max(o), lv->want, &p)) {
			lv->phase = RL_NONE;
			return -EPROTO;
		}
		return rlong_got(o, op, &p);
	}
	return RLONG_DECODE;
}

/* Forget every long operation (the connection failed or is new). */
void rlong_reset(struct ordo *o)
{
	struct rdma_be *r = rbe(o);

	r->stager = RLONG_NONE;
	r->nstage_q = 0;
	r->ngetw = 0;
	memset(&r->wave, 0, sizeof(r->wave));
	if (r->lv)
		memset(r->lv, 0, o->qd * sizeof(*r->lv));
}

int rlong_init(struct ordo *o)
{
	struct rdma_be *r = rbe(o);

	r->lv = calloc(o->qd, sizeof(*r->lv));
	r->stage_q = calloc(o->qd, sizeof(*r->stage_q));
	r->stager = RLONG_NONE;
	return r->lv && r->stage_q ? 0 : -ENOMEM;
}

void rlong_free(struct rdma_be *r)
{
	free(r->lv);
	free(r->stage_q);
}
