// SPDX-License-Identifier: GPL-2.0
/*
 * libordo: the verbs side of the RDMA backend.  One RC queue pair per
 * handle, one CQ with a completion channel (so waits sleep, bounded by the
 * handle's timeout), and one registered buffer for receives, sends, the
 * slots' reads and bulk reads.  A batch of READs is one doorbell: the work
 * requests are chained and only the last is signaled (completions on a
 * send queue come in order, so it stands for the whole batch).
 */
#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>

#include "rdma.h"

uint8_t *rconn_recv_buf(struct rdma_be *r, uint32_t i)
{
	return r->mem + (size_t)i * r->max_msg;
}

uint8_t *rconn_send_buf(struct rdma_be *r, uint32_t slot)
{
	return r->mem + (size_t)(r->credits + slot) * r->max_msg;
}

/*
 * Send buffers: one per slot, the sync call's (slot == qd), then those of
 * STAGE parts (qd + 1 on).
 */
static size_t reads_at(struct ordo *o)
{
	struct rdma_be *r = rbe(o);

	return (size_t)(r->credits + o->qd + 1 + rlong_wave_bufs(r)) *
	       r->max_msg;
}

uint8_t *rconn_bulk_buf(struct ordo *o)
{
	return rbe(o)->mem + reads_at(o) + (size_t)o->qd * rbe(o)->per_slot;
}

/* Wait up to @ms for a CM event on a connection being set up. */
static int cm_event(struct rdma_be *r, struct rdma_cm_event **ev, int ms)
{
	long long end = shim_now_ms() + ms;

	for (;;) {
		struct pollfd p = { .fd = r->ch->fd, .events = POLLIN };
		long long left = end - shim_now_ms();

		if (!rdma_get_cm_event(r->ch, ev))
			return 0;
		if (errno != EAGAIN)
			return -errno;
		if (left <= 0)
			return -ETIMEDOUT;
		poll(&p, 1, (int)left);
	}
}

static int cm_expect(struct rdma_be *r, enum rdma_cm_event_type want, int ms)
{
	struct rdma_cm_event *ev;
	int ret = cm_event(r, &ev, ms);

	if (ret)
		return ret;
	ret = ev->event == want ? 0 : -EHOSTUNREACH;
	rdma_ack_cm_event(ev);
	return ret;
}

int rconn_post_recv(struct rdma_be *r, uint32_t i)
{
	struct ibv_sge sge = {
		.addr = (uintptr_t)rconn_recv_buf(r, i),
		.length = r->max_msg,
		.lkey = r->mr->lkey,
	};
	struct ibv_recv_wr wr = {
		.wr_id = WR_RECV | i,
		.sg_list = &sge,
		.num_sge = 1,
	}, *bad;

	return ibv_post_recv(r->qp, &wr, &bad) ? -EIO : 0;
}

int rconn_post_send(struct rdma_be *r, uint32_t slot, uint32_t len)
{
	return rconn_post_send_at(r, slot, 0, len);
}

/* Send @len bytes from @off in send buffer @slot. */
int rconn_post_send_at(struct rdma_be *r, uint32_t slot, uint32_t off,
		       uint32_t len)
{
	struct ibv_sge sge = {
		.addr = (uintptr_t)rconn_send_buf(r, slot) + off,
		.length = len,
		.lkey = r->mr->lkey,
	};
	struct ibv_send_wr wr = {
		.wr_id = WR_SEND | slot,
		.sg_list = &sge,
		.num_sge = 1,
		.opcode = IBV_WR_SEND,
		.send_flags = IBV_SEND_SIGNALED,
	}, *bad;

	return ibv_post_send(r->qp, &wr, &bad) ? -EIO : 0;
}

/* Post op->io[] as one chained batch; @rkeys: each read's key. */
int rconn_post_reads(struct ordo *o, struct shim_op *op, const uint32_t *rkeys)
{
	struct rdma_be *r = rbe(o);
	struct ibv_send_wr wr[SHIM_BATCH_MAX], *bad;
	struct ibv_sge sge[SHIM_BATCH_MAX];
	uint32_t i;

	for (i = 0; i < op->nio; i++) {
		sge[i] = (struct ibv_sge){
			.addr = (uintptr_t)op->io[i].dst,
			.length = op->io[i].len,
			.lkey = r->mr->lkey,
		};
		wr[i] = (struct ibv_send_wr){
			.wr_id = WR_READ | op->slot,
			.next = i + 1 < op->nio ? &wr[i + 1] : NULL,
			.sg_list = &sge[i],
			.num_sge = 1,
			.opcode = IBV_WR_RDMA_READ,
			.send_flags = i + 1 < op->nio ? 0 : IBV_SEND_SIGNALED,
		};
		wr[i].wr.rdma.remote_addr = op->io[i].off;
		wr[i].wr.rdma.rkey = rkeys[i];
		o->cnt.reads++;
		o->cnt.bytes_read += op->io[i].len;
	}
	o->cnt.round_trips++;
	return ibv_post_send(r->qp, wr, &bad) ? -EIO : 0;
}

int rconn_post_bulk(struct ordo *o, uint64_t off, uint32_t len, uint32_t rkey)
{
	struct rdma_be *r = rbe(o);
	struct ibv_sge sge = {
		.addr = (uintptr_t)rconn_bulk_buf(o),
		.length = len,
		.lkey = r->mr->lkey,
	};
	struct ibv_send_wr wr = {
		.wr_id = WR_BULK,
		.sg_list = &sge,
		.num_sge = 1,
		.opcode = IBV_WR_RDMA_READ,
		.send_flags = IBV_SEND_SIGNALED,
	}, *bad;

	wr.wr.rdma.remote_addr = off;
	wr.wr.rdma.rkey = rkey;
	o->cnt.reads++;
	o->cnt.bytes_read += len;
	o->cnt.round_trips++;
	r->bulk_done = false;
	return ibv_post_send(r->qp, &wr, &bad) ? -EIO : 0;
}

/* Handle one work completion. */
static void on_wc(struct ordo *o, const struct ibv_wc *wc)
{
	struct rdma_be *r = rbe(o);
	uint64_t tag = WR_TAG(wc->wr_id);
	uint32_t idx = WR_IDX(wc->wr_id);
	int st = wc->status == IBV_WC_SUCCESS ? 0 : -EIO;

	if (st)
		r->dead = true;
	if (r->raw && rdma_raw_wc(o, wc))
		return;
	switch (tag) {
	case WR_RECV:
		if (!st && idx < r->credits) {
			rdma_on_reply(o, rconn_recv_buf(r, idx), wc->byte_len);
			if (!r->dead && rconn_post_recv(r, idx))
				r->dead = true;
			if (!r->dead)
				rdma_on_recv_posted(o);
		}
		break;
	case WR_READ:
		if (idx < o->qd)
			rdma_on_read(o, idx, st);
		break;
	case WR_BULK:
		r->bulk_done = true;
		r->bulk_status = st;
		break;
	default:
		break;
	}
}

/*
 * Reap completions, sleeping up to @ms for the first.  A CM event on an
 * established connection (disconnect, device removal) ends it, after the
 * completions already queued are handled.  Returns completions handled, or
 * -ECONNRESET when the connection is dead.
 */
int rconn_poll(struct ordo *o, int ms)
{
	struct rdma_be *r = rbe(o);
	long long end = shim_now_ms() + ms;
	struct rdma_cm_event *ev;
	struct ibv_wc wc[16];
	int n, i, done = 0;

	for (;;) {
		if (r->dead)
			return -ECONNRESET;
		n = ibv_poll_cq(r->cq, 16, wc);
		if (n < 0) {
			r->dead = true;
			return -ECONNRESET;
		}
		for (i = 0; i < n; i++)
			on_wc(o, &wc[i]);
		done += n;
		if (done)
			return done;
		if (!rdma_get_cm_event(r->ch, &ev)) {
			rdma_ack_cm_event(ev);
			/*
			 * Replies that arrived before the disconnect, even
			 * after the poll above, are the server's last words.
			 */
			while ((n = ibv_poll_cq(r->cq, 16, wc)) > 0) {
				for (i = 0; i < n; i++)
					on_wc(o, &wc[i]);
				done += n;
			}
			r->dead = true;
			return done ? done : -ECONNRESET;
		}
		if (ibv_req_notify_cq(r->cq, 0)) {
			r->dead = true;
			return -ECONNRESET;
		}
		n = ibv_poll_cq(r->cq, 16, wc);
		for (i = 0; i < n; i++)
			on_wc(o, &wc[i]);
		if (n > 0)
			return n;
		if (end - shim_now_ms() <= 0)
			return 0;
		{
			struct pollfd p[2] = {
				{ .fd = r->cc->fd, .events = POLLIN },
				{ .fd = r->ch->fd, .events = POLLIN },
			};
			struct ibv_cq *ecq;
			void *ctx;

			if (poll(p, 2, (int)(end - shim_now_ms())) > 0 &&
			    (p[0].revents & POLLIN) &&
			    !ibv_get_cq_event(r->cc, &ecq, &ctx))
				ibv_ack_cq_events(ecq, 1);
		}
	}
}

void rconn_close(struct rdma_be *r)
{
	if (r->id && r->qp && !r->dead)
		rdma_disconnect(r->id);
	if (r->qp)
		rdma_destroy_qp(r->id);
	if (r->mr)
		ibv_dereg_mr(r->mr);
	if (r->raw)
		rdma_raw_release(r);
	if (r->cq)
		ibv_destroy_cq(r->cq);
	if (r->cc)
		ibv_destroy_comp_channel(r->cc);
	if (r->pd)
		ibv_dealloc_pd(r->pd);
	if (r->id)
		rdma_destroy_id(r->id);
	if (r->ch)
		rdma_destroy_event_channel(r->ch);
	free(r->mem);
	r->qp = NULL;
	r->mr = NULL;
	r->cq = NULL;
	r->cc = NULL;
	r->pd = NULL;
	r->id = NULL;
	r->ch = NULL;
	r->mem = NULL;
	r->dead = true;
}

/* Build the connect request: magic, version, queue depth, token. */
static int conn_req(struct ordo *o, struct ordo_wire_conn_req *req)
{
	const char *tok = o->opts.token;
	size_t tlen = tok ? strlen(tok) : 0;

	if (tlen > ORDO_WIRE_TOKEN_MAX)
		return -EINVAL;
	memset(req, 0, sizeof(*req));
	req->magic = htole32(ORDO_WIRE_MAGIC);
	req->version = htole16(ORDO_WIRE_VERSION);
	req->queue_depth = htole16(o->qd);
	req->token_len = htole16(tlen);
	memcpy(req->token, tok ? tok : "", tlen);
	return 0;
}

/* Check the accept reply: every field a client relies on, in range. */
static int rep_check(struct ordo *o, const struct ordo_wire_conn_rep *rep)
{
	return shim_dec_conn_rep(rep, o->qd, &o->geo, &o->geo);
}

static int reject_errno(const struct rdma_cm_event *ev)
{
	return shim_dec_conn_rej(ev->param.conn.private_data,
				 ev->param.conn.private_data_len);
}

/* Allocate and register the buffers; post the receives. */
static int conn_buffers(struct ordo *o)
{
	struct rdma_be *r = rbe(o);
	uint32_t i;

	r->per_slot = shim_slot_bytes(&o->geo);
	r->mem_len = reads_at(o) + (size_t)o->qd * r->per_slot + RDMA_BULK_BUF;
	r->mem = aligned_alloc(4096, (r->mem_len + 4095) & ~(size_t)4095);
	if (!r->mem)
		return -ENOMEM;
	memset(r->mem, 0, r->mem_len);
	r->mr = ibv_reg_mr(r->pd, r->mem, r->mem_len, IBV_ACCESS_LOCAL_WRITE);
	if (!r->mr)
		return -errno;
	for (i = 0; i < r->credits && !rdma_raw_no_recv(r); i++)
		if (rconn_post_recv(r, i))
			return -EIO;
	return 0;
}

/**
 * rconn_connect() - connect to the server (again)
 * @o: handle; its backend state holds the address
 *
 * Return: 0; -EACCES (wrong token), -EUSERS (server full), -ETIMEDOUT,
 * -EHOSTUNREACH, -EPROTO (a reply out of range), another negative errno.
 */
int rconn_connect(struct ordo *o)
{
	struct rdma_be *r = rbe(o);
	int ms = (int)o->opts.timeout_ms;
	struct ordo_wire_conn_req req;
	struct rdma_conn_param param;
	struct ibv_qp_init_attr qa;
	struct ibv_device_attr da;
	struct rdma_cm_event *ev;
	struct addrinfo *ai = NULL, *src = NULL;
	struct addrinfo numeric = { .ai_flags = AI_NUMERICHOST };
	const char *src_addr = rdma_raw_src(r);
	int ret;

	ret = conn_req(o, &req);
	if (ret)
		return ret;
	if (src_addr && getaddrinfo(src_addr, NULL, &numeric, &src))
		return -EADDRNOTAVAIL;
	if (getaddrinfo(r->host, r->port, NULL, &ai)) {
		if (src)
			freeaddrinfo(src);
		return -EHOSTUNREACH;
	}
	r->dead = false;
	r->ch = rdma_create_event_channel();
	if (!r->ch || rdma_create_id(r->ch, &r->id, r, RDMA_PS_TCP)) {
		ret = -errno;
		goto fail;
	}
	fcntl(r->ch->fd, F_SETFL, fcntl(r->ch->fd, F_GETFL) | O_NONBLOCK);
	ret = rdma_resolve_addr(r->id, src ? src->ai_addr : NULL, ai->ai_addr,
				ms) ? -errno :
	      cm_expect(r, RDMA_CM_EVENT_ADDR_RESOLVED, ms);
	if (!ret)
		ret = rdma_resolve_route(r->id, ms) ? -errno :
		      cm_expect(r, RDMA_CM_EVENT_ROUTE_RESOLVED, ms);
	if (ret)
		goto fail;
	r->pd = ibv_alloc_pd(r->id->verbs);
	r->cc = r->pd ? ibv_create_comp_channel(r->id->verbs) : NULL;
	r->cq = r->cc ? ibv_create_cq(r->id->verbs, 2 * o->qd *
				      (SHIM_BATCH_MAX + 1) + 64, NULL,
				      r->cc, 0) : NULL;
	if (!r->cq) {
		ret = -ENOMEM;
		goto fail;
	}
	memset(&qa, 0, sizeof(qa));
	qa.send_cq = r->cq;
	qa.recv_cq = r->cq;
	qa.qp_type = IBV_QPT_RC;
	qa.cap.max_send_wr = o->qd * (SHIM_BATCH_MAX + 1) + 16;
	qa.cap.max_recv_wr = o->qd;
	qa.cap.max_send_sge = 1;
	qa.cap.max_recv_sge = 1;
	if (rdma_create_qp(r->id, r->pd, &qa)) {
		ret = -errno;
		goto fail;
	}
	r->qp = r->id->qp;
	if (ibv_query_device(r->id->verbs, &da)) {
		ret = -EIO;
		goto fail;
	}
	memset(&param, 0, sizeof(param));
	param.private_data = &req;
	param.private_data_len = sizeof(req);
	if (r->raw)
		rdma_raw_conn_data(r, &param.private_data,
				   &param.private_data_len);
	param.initiator_depth = da.max_qp_init_rd_atom < 16 ?
				da.max_qp_init_rd_atom : 16;
	param.retry_count = 7;
	param.rnr_retry_count = 7;
	if (rdma_connect(r->id, &param)) {
		ret = -errno;
		goto fail;
	}
	ret = cm_event(r, &ev, ms);
	if (ret)
		goto fail;
	if (ev->event == RDMA_CM_EVENT_REJECTED) {
		if (r->raw)
			rdma_raw_rejected(r, ev);
		ret = reject_errno(ev);
		rdma_ack_cm_event(ev);
		goto fail;
	}
	if (ev->event != RDMA_CM_EVENT_ESTABLISHED ||
	    ev->param.conn.private_data_len < sizeof(r->rep)) {
		/* The ack frees the event: read it first. */
		ret = ev->event == RDMA_CM_EVENT_UNREACHABLE ? -EHOSTUNREACH :
		      -ECONNRESET;
		rdma_ack_cm_event(ev);
		goto fail;
	}
	memcpy(&r->rep, ev->param.conn.private_data, sizeof(r->rep));
	rdma_ack_cm_event(ev);
	ret = rep_check(o, &r->rep);
	if (ret)
		goto fail;
	r->credits = le16toh(r->rep.queue_depth);
	r->avail = r->credits;
	r->max_msg = le32toh(r->rep.max_msg);
	r->npend = 0;
	ret = conn_buffers(o);
	if (ret)
		goto fail;
	freeaddrinfo(ai);
	if (src)
		freeaddrinfo(src);
	return 0;
fail:
	freeaddrinfo(ai);
	if (src)
		freeaddrinfo(src);
	rconn_close(r);
	return ret;
}
