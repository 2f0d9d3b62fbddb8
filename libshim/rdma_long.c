// SPDX-License-Identifier: GPL-2.0
/*
 * libordo, RDMA backend: values longer than one message
 * (Documentation/wire.rst, "Long values").
 *
 * A write whose value does not fit in one request is uploaded as STAGE
 * parts into the connection's staged value, then stored by the write with
 * ORDO_WIRE_KV_STAGED.  The server keeps one staged value per connection,
 * so one operation of the handle stages at a time; others wait in order
 * for it to send its write.  The parts and the write of one operation go
 * out back to back on the connection (in order, as every request does).
 *
 * A GET or LOOKUP reply that carries part of a value (ORDO_WIRE_F_PART)
 * is completed by GETs with ORDO_WIRE_KV_PART from where it stopped; a
 * part of another stored value (its ref or length changed) starts the
 * value again, at most RLONG_RESTARTS times.
 *
 * Each step is one more request of the same operation in its own slot,
 * sent from the completion of the one before: nothing here waits.
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
	switch (lv_of(o, op)->phase) {
	case RL_STAGE:
		return ORDO_WIRE_OP_STAGE;
	case RL_GET:
		return ORDO_WIRE_OP_GET;
	}
	return call_op;
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

static int send_stage_part(struct ordo *o, struct shim_op *op)
{
	struct rlong *lv = lv_of(o, op);
	const struct shim_call *c = &op->call;
	uint32_t n = shim_stage_part_max(rbe(o)->max_msg), total = c->len;
	uint64_t id;
	uint8_t *b;

	if (n > total - lv->at)
		n = total - lv->at;
	b = rdma_req_begin(o, op->slot, ORDO_WIRE_OP_STAGE, &id);
	lv->sent = n;
	return send_body(o, op, b,
			 shim_enc_stage(b, total, lv->at,
					(const uint8_t *)c->val + lv->at, n),
			 id);
}

/* All parts are staged: the write that stores them. */
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

static int stage_begin(struct ordo *o, struct shim_op *op)
{
	struct rlong *lv = lv_of(o, op);

	rbe(o)->stager = op->slot;
	lv->phase = RL_STAGE;
	lv->at = 0;
	return send_stage_part(o, op);
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

/* The staging operation is done with the staged value: the next one goes. */
static void stage_next(struct ordo *o)
{
	struct rdma_be *r = rbe(o);

	r->stager = RLONG_NONE;
	while (r->nstage_q && r->stager == RLONG_NONE) {
		struct shim_op *op = &o->ops[r->stage_q[0]];
		int ret;

		memmove(r->stage_q, r->stage_q + 1,
			--r->nstage_q * sizeof(*r->stage_q));
		ret = stage_begin(o, op);
		if (ret) {
			r->stager = RLONG_NONE;
			op_end(o, op, ret);
		}
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
	ret = stage_begin(o, op);
	if (ret)
		r->stager = RLONG_NONE;
	return ret;
}

/* A STAGE reply: send the next part, or the write; or end on an error. */
static int stage_reply(struct ordo *o, struct shim_op *op,
		       const struct ordo_wire_hdr *h, uint32_t len)
{
	struct rlong *lv = lv_of(o, op);
	int st = ordo_wire_errno(le32toh(h->status)), ret;

	if (len != HDR)
		st = -EPROTO;
	if (st) {
		stage_next(o);
		return st;
	}
	lv->at += lv->sent;
	if (lv->at < op->call.len)
		ret = send_stage_part(o, op);
	else
		ret = send_commit(o, op);
	if (ret) {
		stage_next(o);
		return ret;
	}
	/* The write went out (or waits for a credit ahead of any other). */
	if (lv->phase == RL_COMMIT)
		stage_next(o);
	return RLONG_MORE;
}

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

/* Room at the call's destination (at least value_size). */
static uint32_t out_cap(struct ordo *o, struct shim_op *op)
{
	return op->call.out_cap > o->geo.value_size ? op->call.out_cap :
	       o->geo.value_size;
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
	if (at < p->len)
		return send_get_part(o, op, at) ?: RLONG_MORE;
	lv->phase = RL_NONE;
	return 0;
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
	case RL_STAGE:
		return stage_reply(o, op, h, len);
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
	case RL_COMMIT:
		lv->phase = RL_NONE;
		break;
	}
	return RLONG_DECODE;
}

/* Forget every long operation (the connection failed or is new). */
void rlong_reset(struct ordo *o)
{
	struct rdma_be *r = rbe(o);

	r->stager = RLONG_NONE;
	r->nstage_q = 0;
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
