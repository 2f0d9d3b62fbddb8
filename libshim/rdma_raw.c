// SPDX-License-Identifier: GPL-2.0
/*
 * libordo: raw RDMA handles (ordo_raw.h).  The connection is libordo's
 * own (rdma_conn.c); what differs is who speaks on it.  Once open, every
 * reply lands in a queue in arrival order and its receive is posted again
 * only when the owner takes it -- so a test can also stop taking replies.
 * Sends and one-sided operations use the raw handle's own registered
 * buffers, never a slot's.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "ordo_raw.h"
#include "rdma.h"

/**
 * struct rdma_raw - a raw handle's state
 * @cfg: what the caller asked for; only while the handle opens.
 * @on: replies go to @queue (off while libordo's own calls run).
 * @queue: receive indices of replies not yet taken, oldest at @head.
 * @len: their bytes, by receive index.
 * @head, @n: the queue's start and length.
 * @mr: registers @mem: the send buffers, then the local buffer.
 * @busy: send buffers whose send has not completed.
 * @next: the send buffer to use next.
 * @rep: the reply handed out last; @rep_len its bytes.
 * @op_done, @op_status: the one-sided operation's completion.
 */
struct rdma_raw {
	struct ordo_raw_cfg *cfg;
	bool on;
	uint32_t *queue;
	uint32_t *len;
	uint32_t head;
	uint32_t n;
	struct ibv_mr *mr;
	uint8_t *mem;
	bool busy[ORDO_RAW_SEND_BUFS];
	uint32_t next;
	uint8_t *rep;
	uint32_t rep_len;
	bool op_done;
	int op_status;
};

static uint8_t *send_buf(struct rdma_be *r, uint32_t i)
{
	return r->raw->mem + (size_t)i * r->max_msg;
}

uint8_t *ordo_raw_local(struct ordo *o)
{
	return send_buf(rbe(o), ORDO_RAW_SEND_BUFS);
}

int rdma_raw_init(struct ordo *o)
{
	struct rdma_raw *w = calloc(1, sizeof(*w));

	if (!w)
		return -ENOMEM;
	w->cfg = o->raw_cfg;
	rbe(o)->raw = w;
	return 0;
}

/* The caller's private data, if it brought its own. */
void rdma_raw_conn_data(struct rdma_be *r, const void **priv, uint8_t *len)
{
	const struct ordo_raw_cfg *cfg = r->raw->cfg;

	if (!cfg || !cfg->priv)
		return;
	*priv = cfg->priv;
	*len = cfg->priv_len > 255 ? 255 : (uint8_t)cfg->priv_len;
}

/* The local address to connect from, if the caller chose one. */
const char *rdma_raw_src(struct rdma_be *r)
{
	return r->raw && r->raw->cfg ? r->raw->cfg->src_addr : NULL;
}

/* Should the connection post no receive buffers? */
bool rdma_raw_no_recv(struct rdma_be *r)
{
	return r->raw && r->raw->cfg && r->raw->cfg->no_recv;
}

/* Keep the server's reject for the caller to inspect. */
void rdma_raw_rejected(struct rdma_be *r, const struct rdma_cm_event *ev)
{
	struct ordo_raw_cfg *cfg = r->raw->cfg;

	if (!cfg)
		return;
	cfg->rej_status = ev->status;
	if (ev->param.conn.private_data &&
	    ev->param.conn.private_data_len >= sizeof(cfg->rej))
		memcpy(&cfg->rej, ev->param.conn.private_data,
		       sizeof(cfg->rej));
}

/* Buffers of a (re)established connection, in its protection domain. */
int rdma_raw_setup(struct ordo *o)
{
	struct rdma_be *r = rbe(o);
	struct rdma_raw *w = r->raw;
	size_t bytes = (size_t)ORDO_RAW_SEND_BUFS * r->max_msg +
		       ORDO_RAW_LOCAL_BYTES;

	free(w->queue);
	free(w->len);
	free(w->rep);
	w->queue = calloc(r->credits, sizeof(*w->queue));
	w->len = calloc(r->credits, sizeof(*w->len));
	w->rep = malloc(r->max_msg);
	w->mem = aligned_alloc(4096, (bytes + 4095) & ~(size_t)4095);
	if (!w->queue || !w->len || !w->rep || !w->mem)
		return -ENOMEM;
	memset(w->mem, 0, bytes);
	w->mr = ibv_reg_mr(r->pd, w->mem, bytes, IBV_ACCESS_LOCAL_WRITE);
	if (!w->mr)
		return -errno;
	w->head = 0;
	w->n = 0;
	w->next = 0;
	memset(w->busy, 0, sizeof(w->busy));
	return 0;
}

/* Take the raw handle's completions; false: libordo's own. */
bool rdma_raw_wc(struct ordo *o, const struct ibv_wc *wc)
{
	struct rdma_be *r = rbe(o);
	struct rdma_raw *w = r->raw;
	uint64_t tag = WR_TAG(wc->wr_id);
	uint32_t idx = WR_IDX(wc->wr_id);

	if (tag == WR_RAW_SEND) {
		if (idx < ORDO_RAW_SEND_BUFS)
			w->busy[idx] = false;
		return true;
	}
	if (tag == WR_RAW_OP) {
		w->op_done = true;
		w->op_status = wc->status;
		return true;
	}
	if (tag != WR_RECV || !w->on)
		return false;
	if (wc->status == IBV_WC_SUCCESS && idx < r->credits &&
	    w->n < r->credits) {
		uint32_t at = (w->head + w->n++) % r->credits;

		w->queue[at] = idx;
		w->len[idx] = wc->byte_len;
	}
	return true;
}

void rdma_raw_release(struct rdma_be *r)
{
	if (r->raw->mr)
		ibv_dereg_mr(r->raw->mr);
	r->raw->mr = NULL;
	free(r->raw->mem);
	r->raw->mem = NULL;
}

void rdma_raw_free(struct rdma_be *r)
{
	if (!r->raw)
		return;
	free(r->raw->queue);
	free(r->raw->len);
	free(r->raw->rep);
	free(r->raw);
	r->raw = NULL;
}

struct ordo *ordo_raw_open(const char *uri, const struct ordo_opts *opts,
			   struct ordo_raw_cfg *cfg)
{
	struct ordo_opts op = { .size = sizeof(op) };
	struct ordo *o;

	if (opts) {
		if (opts->size > sizeof(op)) {
			errno = EINVAL;
			return NULL;
		}
		memcpy(&op, opts, opts->size);
	}
	op.mode = ORDO_MODE_RPC;
	memset(&cfg->rej, 0, sizeof(cfg->rej));
	cfg->rej_status = 0;
	o = shim_open(uri, &op, cfg);
	if (!o)
		return NULL;
	if (!rbe(o)->raw) {	/* a local path was given */
		ordo_close(o);
		errno = EINVAL;
		return NULL;
	}
	rbe(o)->raw->on = true;
	rbe(o)->raw->cfg = NULL;
	return o;
}

const struct ordo_wire_conn_rep *ordo_raw_accept(struct ordo *o)
{
	return &rbe(o)->rep;
}

uint32_t ordo_raw_credits(struct ordo *o)
{
	return rbe(o)->credits;
}

uint32_t ordo_raw_max_msg(struct ordo *o)
{
	return rbe(o)->max_msg;
}

bool ordo_raw_dead(struct ordo *o)
{
	return rbe(o)->dead;
}

/* Reap completions until *@flag is clear (or set, @want), within @ms. */
static int raw_until(struct ordo *o, const bool *flag, bool want, int ms)
{
	long long end = shim_now_ms() + ms;

	while (*flag != want) {
		long long left = end - shim_now_ms();
		int ret;

		if (left <= 0)
			return -ETIMEDOUT;
		ret = rconn_poll(o, (int)left);
		if (ret < 0)
			return ret;
	}
	return 0;
}

/* A SEND, or with @inv a SEND with Invalidate of @rkey. */
static int raw_send(struct ordo *o, const void *msg, uint32_t len, bool inv,
		    uint32_t rkey)
{
	struct rdma_be *r = rbe(o);
	struct rdma_raw *w = r->raw;
	uint32_t i = w->next % ORDO_RAW_SEND_BUFS;
	struct ibv_sge sge;
	struct ibv_send_wr wr = {
		.wr_id = WR_RAW_SEND | i,
		.sg_list = &sge,
		.num_sge = 1,
		.opcode = inv ? IBV_WR_SEND_WITH_INV : IBV_WR_SEND,
		.send_flags = IBV_SEND_SIGNALED,
	}, *bad;
	int ret;

	if (inv)
		wr.invalidate_rkey = rkey;

	if (r->dead)
		return -ECONNRESET;
	/* Oversized on purpose: it spans the following send buffers. */
	if (len > (uint64_t)(ORDO_RAW_SEND_BUFS - i) * r->max_msg)
		return -EMSGSIZE;
	ret = raw_until(o, &w->busy[i], false, (int)o->opts.timeout_ms);
	if (ret)
		return ret;
	w->next++;
	memcpy(send_buf(r, i), msg, len);
	sge = (struct ibv_sge){
		.addr = (uintptr_t)send_buf(r, i),
		.length = len,
		.lkey = w->mr->lkey,
	};
	if (ibv_post_send(r->qp, &wr, &bad))
		return -EIO;
	w->busy[i] = true;
	return 0;
}

int ordo_raw_send(struct ordo *o, const void *msg, uint32_t len)
{
	return raw_send(o, msg, len, false, 0);
}

int ordo_raw_send_inv(struct ordo *o, const void *msg, uint32_t len,
		      uint32_t rkey)
{
	return raw_send(o, msg, len, true, rkey);
}

int ordo_raw_wait(struct ordo *o, int ms, const uint8_t **msg,
		  uint32_t *len)
{
	struct rdma_be *r = rbe(o);
	struct rdma_raw *w = r->raw;
	long long end = shim_now_ms() + ms;
	uint32_t idx;

	while (!w->n) {
		long long left = end - shim_now_ms();
		int ret;

		if (r->dead)
			return -ECONNRESET;
		if (left <= 0)
			return -ETIMEDOUT;
		ret = rconn_poll(o, (int)left);
		if (ret < 0 && !w->n)
			return ret;
	}
	idx = w->queue[w->head];
	w->head = (w->head + 1) % r->credits;
	w->n--;
	w->rep_len = w->len[idx] < r->max_msg ? w->len[idx] : r->max_msg;
	memcpy(w->rep, rconn_recv_buf(r, idx), w->rep_len);
	if (!r->dead && rconn_post_recv(r, idx))
		r->dead = true;
	*msg = w->rep;
	*len = w->rep_len;
	return 0;
}

int ordo_raw_regions(struct ordo *o, uint16_t kind,
		     struct ordo_raw_region **tab, uint32_t *n)
{
	struct rdma_be *r = rbe(o);
	struct region_tab t = { 0 };
	uint32_t i;
	int ret;

	/* libordo's own request and decoder: its reply must reach it. */
	r->raw->on = false;
	ret = rdma_regions_fetch(o, kind, &t);
	r->raw->on = true;
	if (ret)
		return ret;
	*tab = calloc(t.n + 1, sizeof(**tab));
	if (!*tab) {
		free(t.ent);
		return -ENOMEM;
	}
	for (i = 0; i < t.n; i++)
		(*tab)[i] = (struct ordo_raw_region){
			.off = t.ent[i].off,
			.len = t.ent[i].len,
			.rkey = t.ent[i].rkey,
		};
	*n = t.n;
	free(t.ent);
	return 0;
}

int ordo_raw_rdma(struct ordo *o, enum ibv_wr_opcode opcode, uint64_t addr,
		  uint32_t len, uint32_t rkey)
{
	struct rdma_be *r = rbe(o);
	struct rdma_raw *w = r->raw;
	struct ibv_sge sge = {
		.addr = (uintptr_t)ordo_raw_local(o),
		.length = len,
		.lkey = w->mr->lkey,
	};
	struct ibv_send_wr wr = {
		.wr_id = WR_RAW_OP,
		.sg_list = &sge,
		.num_sge = 1,
		.opcode = opcode,
		.send_flags = IBV_SEND_SIGNALED,
	}, *bad;
	int ret;

	if (r->dead)
		return -ECONNRESET;
	if (len > ORDO_RAW_LOCAL_BYTES)
		return -E2BIG;
	if (opcode == IBV_WR_ATOMIC_CMP_AND_SWP ||
	    opcode == IBV_WR_ATOMIC_FETCH_AND_ADD) {
		wr.wr.atomic.remote_addr = addr;
		wr.wr.atomic.rkey = rkey;
		wr.wr.atomic.compare_add = 1;
		wr.wr.atomic.swap = 0x5a5a5a5a5a5a5a5aULL;
		sge.length = 8;
	} else {
		wr.wr.rdma.remote_addr = addr;
		wr.wr.rdma.rkey = rkey;
	}
	w->op_done = false;
	if (ibv_post_send(r->qp, &wr, &bad))
		return -EIO;
	ret = raw_until(o, &w->op_done, true, (int)o->opts.timeout_ms);
	/* A failed operation kills the connection: its status still counts. */
	if (w->op_done)
		return w->op_status;
	return ret ? ret : -EIO;
}
