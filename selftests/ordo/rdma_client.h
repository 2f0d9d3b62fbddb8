/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A small ordo RDMA client for the selftests (librdmacm + libibverbs):
 * connect with the wire protocol's private data, synchronous and pipelined
 * RPCs, the region table, one-sided READs of the node pool, and raw verbs
 * (WRITE, atomics, bad keys) for the hostile tests.  Header-only so each
 * test binary stays one source file; libordo may take it over.
 *
 * Every function returns 0 or a negative errno; RPC helpers return the
 * reply's status as ordo_wire_errno() maps it.
 */
#ifndef ORDO_RDMA_CLIENT_H
#define ORDO_RDMA_CLIENT_H

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <infiniband/verbs.h>
#include <rdma/rdma_cma.h>
#include <linux/ordo_node.h>
#include <linux/ordo_wire.h>

/* The largest node any geometry has: a leaf of 255 slots of 1 KiB values. */
#define RC_NODE_MAX	(ORDO_NODE_HDR_SIZE + ORDO_LEAF_SLOTS_MAX * \
			 (8 + ORDO_VALUE_SIZE_MAX))
#define RC_ADDR		"192.0.2.1"
#define RC_READ_BUF	(1u << 20)
#define RC_TIMEOUT_MS	30000
#define RC_SYSFS	"/sys/class/misc/ordo/rdma"
#define RC_PARAMS	"/sys/module/ordo/parameters"

/**
 * struct rc_opts - how to connect; zero means the default
 * @addr: server address (default RC_ADDR or $ORDO_RDMA_ADDR)
 * @port: server port (default ORDO_WIRE_PORT)
 * @token: access token, NUL-terminated, or NULL
 * @queue_depth: credits asked for (0: the server's default)
 * @version: protocol version to claim (0: ORDO_WIRE_VERSION)
 * @magic: magic to send (0: ORDO_WIRE_MAGIC)
 * @raw: if set, sent as the private data instead of a built request
 * @raw_len: bytes of @raw
 * @rnr_retry: RNR retry count (0: 7, infinite)
 */
struct rc_opts {
	const char *addr;
	unsigned short port;
	const char *token;
	unsigned int queue_depth;
	unsigned int version;
	unsigned int magic;
	const void *raw;
	unsigned int raw_len;
	unsigned int rnr_retry;
};

/**
 * struct rc_conn - one connection
 * @ch: CM event channel (non-blocking)
 * @id: CM id
 * @pd: protection domain
 * @cc: completion channel
 * @cq: send and receive CQ
 * @qp: the QP
 * @mr: local memory: receive slots, send slots, read buffer
 * @mem: what @mr covers
 * @qd: credits granted by the server
 * @max_msg: the server's max_msg
 * @rep: the accept reply
 * @rej: the reject, when connecting failed with -ECONNREFUSED
 * @rej_status: CM status of a reject (28: consumer defined)
 * @next_id: next request id
 * @sends: sends posted and not yet completed
 * @send_slot: next send slot to use
 * @pool_chunks: pool_chunks of the last reply
 * @regions: pool region table as fetched
 * @nregions: entries of @regions
 * @dead: the connection failed or was disconnected
 * @last_wc_status: status of the last failed work completion
 * @reply: the last reply received
 * @reply_len: its bytes
 */
struct rc_conn {
	struct rdma_event_channel *ch;
	struct rdma_cm_id *id;
	struct ibv_pd *pd;
	struct ibv_comp_channel *cc;
	struct ibv_cq *cq;
	struct ibv_qp *qp;
	struct ibv_mr *mr;
	uint8_t *mem;
	uint32_t qd;
	uint32_t max_msg;
	struct ordo_wire_conn_rep rep;
	struct ordo_wire_conn_rej rej;
	int rej_status;
	uint64_t next_id;
	uint32_t sends;
	uint32_t send_slot;
	uint32_t pool_chunks;
	struct ordo_wire_region *regions;
	uint32_t nregions;
	int dead;
	int last_wc_status;
	uint8_t *reply;
	uint32_t reply_len;
};

/* Local buffers: qd receive slots, qd send slots, then the read buffer. */
#define RC_QD_MAX	64

static inline uint8_t *rc_recv_buf(struct rc_conn *c, uint32_t i)
{
	return c->mem + (size_t)i * c->max_msg;
}

static inline uint8_t *rc_send_buf(struct rc_conn *c, uint32_t i)
{
	return c->mem + (size_t)(RC_QD_MAX + i) * c->max_msg;
}

static inline uint8_t *rc_read_buf(struct rc_conn *c)
{
	return c->mem + (size_t)2 * RC_QD_MAX * c->max_msg;
}

static inline long long rc_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000LL + ts.tv_nsec / 1000000;
}

/* Write a module parameter or sysfs file; 0 or -errno. */
static inline int rc_write_file(const char *path, const char *val)
{
	int fd = open(path, O_WRONLY);
	ssize_t n;

	if (fd < 0)
		return -errno;
	n = write(fd, val, strlen(val));
	close(fd);
	return n < 0 ? -errno : 0;
}

static inline int rc_read_file(const char *path, char *buf, size_t len)
{
	int fd = open(path, O_RDONLY);
	ssize_t n;

	if (fd < 0)
		return -errno;
	n = read(fd, buf, len - 1);
	close(fd);
	if (n < 0)
		return -errno;
	buf[n] = 0;
	return 0;
}

static inline long long rc_sysfs_u64(const char *rel)
{
	char path[256], buf[64];

	snprintf(path, sizeof(path), RC_SYSFS "/%s", rel);
	if (rc_read_file(path, buf, sizeof(buf)))
		return -1;
	return strtoll(buf, NULL, 10);
}

static inline int rc_set_param(const char *name, const char *val)
{
	char path[256];

	snprintf(path, sizeof(path), RC_PARAMS "/%s", name);
	return rc_write_file(path, val);
}

/**
 * struct rc_res - verbs objects of a device ("rdma resource show")
 * @pd: protection domains
 * @qp: queue pairs
 * @cm_id: rdma_cm ids
 * @mr: memory regions
 *
 * CQs are left out: the CQ pool keeps its CQs until the device goes.
 */
struct rc_res {
	long pd;
	long qp;
	long cm_id;
	long mr;
};

/* Count the verbs objects of @dev, kernel and user; 0 or -errno. */
static inline int rc_res_count(const char *dev, struct rc_res *r)
{
	char cmd[128], line[512], *p;
	FILE *f;
	int ret = -ENOENT;

	snprintf(cmd, sizeof(cmd), "rdma resource show %s 2>/dev/null", dev);
	f = popen(cmd, "r");
	if (!f)
		return -errno;
	if (fgets(line, sizeof(line), f)) {
		p = strchr(line, ':');
		p = p ? strchr(p + 1, ':') : NULL;
		if (p && sscanf(p + 1, " pd %ld cq %*d qp %ld cm_id %ld mr %ld",
				&r->pd, &r->qp, &r->cm_id, &r->mr) == 4)
			ret = 0;
	}
	pclose(f);
	return ret;
}

/* Load the userspace CM module once; false if RDMA is unusable here. */
static inline int rc_available(void)
{
	if (access("/dev/infiniband/rdma_cm", F_OK))
		if (system("modprobe rdma_ucm >/dev/null 2>&1")) {
			/* Checked below. */
		}
	return !access("/dev/infiniband/rdma_cm", F_OK) &&
	       !access(RC_SYSFS "/stats/connections", F_OK);
}

/* Wait up to @ms for a CM event; 0 and *@ev, or -ETIMEDOUT / -errno. */
static inline int rc_cm_event(struct rc_conn *c, struct rdma_cm_event **ev,
			      int ms)
{
	long long end = rc_now_ms() + ms;

	for (;;) {
		struct pollfd p = { .fd = c->ch->fd, .events = POLLIN };
		long long left = end - rc_now_ms();

		if (!rdma_get_cm_event(c->ch, ev))
			return 0;
		if (errno != EAGAIN)
			return -errno;
		if (left <= 0)
			return -ETIMEDOUT;
		poll(&p, 1, (int)left);
	}
}

static inline int rc_expect_event(struct rc_conn *c,
				  enum rdma_cm_event_type want)
{
	struct rdma_cm_event *ev;
	int ret = rc_cm_event(c, &ev, RC_TIMEOUT_MS);

	if (ret)
		return ret;
	ret = ev->event == want ? 0 : -EPROTO;
	rdma_ack_cm_event(ev);
	return ret;
}

static inline int rc_post_recv(struct rc_conn *c, uint32_t slot)
{
	struct ibv_sge sge = {
		.addr = (uintptr_t)rc_recv_buf(c, slot),
		.length = c->max_msg,
		.lkey = c->mr->lkey,
	};
	struct ibv_recv_wr wr = {
		.wr_id = slot,
		.sg_list = &sge,
		.num_sge = 1,
	}, *bad;

	return ibv_post_recv(c->qp, &wr, &bad) ? -EIO : 0;
}

/* Tag of work request ids: receives are slot numbers, these are not. */
#define RC_WR_SEND	(1ULL << 40)
#define RC_WR_RAW	(2ULL << 40)

/*
 * A CM event on an established connection ends it (DISCONNECTED,
 * DEVICE_REMOVAL, ...): librdmacm moves the QP to the error state as the
 * event is read, as a real client must notice the server going away.
 */
static inline int rc_cm_check(struct rc_conn *c)
{
	struct rdma_cm_event *ev;

	if (rdma_get_cm_event(c->ch, &ev))
		return 0;
	rdma_ack_cm_event(ev);
	c->dead = 1;
	return -ECONNRESET;
}

/*
 * Next completion within @ms; 0 and *@wc, -ECONNRESET once the CM says
 * the connection ended (completions already queued come first), or
 * -ETIMEDOUT / -EIO.
 */
static inline int rc_poll(struct rc_conn *c, struct ibv_wc *wc, int ms)
{
	long long end = rc_now_ms() + ms;

	for (;;) {
		struct pollfd p[2] = {
			{ .fd = c->cc->fd, .events = POLLIN },
			{ .fd = c->ch->fd, .events = POLLIN },
		};
		struct ibv_cq *ecq;
		void *ctx;
		int n;

		n = ibv_poll_cq(c->cq, 1, wc);
		if (n > 0)
			return 0;
		if (n < 0)
			return -EIO;
		if (ibv_req_notify_cq(c->cq, 0))
			return -EIO;
		n = ibv_poll_cq(c->cq, 1, wc);
		if (n > 0)
			return 0;
		if (rc_cm_check(c))
			return -ECONNRESET;
		if (end - rc_now_ms() <= 0)
			return -ETIMEDOUT;
		if (poll(p, 2, (int)(end - rc_now_ms())) > 0 &&
		    (p[0].revents & POLLIN) &&
		    !ibv_get_cq_event(c->cc, &ecq, &ctx))
			ibv_ack_cq_events(ecq, 1);
	}
}

static inline void rc_close(struct rc_conn *c)
{
	if (c->id && c->qp && !c->dead)
		rdma_disconnect(c->id);
	if (c->qp)
		rdma_destroy_qp(c->id);
	if (c->mr)
		ibv_dereg_mr(c->mr);
	if (c->cq)
		ibv_destroy_cq(c->cq);
	if (c->cc)
		ibv_destroy_comp_channel(c->cc);
	if (c->pd)
		ibv_dealloc_pd(c->pd);
	if (c->id)
		rdma_destroy_id(c->id);
	if (c->ch)
		rdma_destroy_event_channel(c->ch);
	free(c->mem);
	free(c->regions);
	free(c->reply);
	memset(c, 0, sizeof(*c));
}

/**
 * rc_connect - connect to the ordo server
 * @c: zeroed connection
 * @o: options, or NULL for defaults
 *
 * Return: 0; -ECONNREFUSED with @c->rej filled for an ordo reject; another
 * negative errno for other failures.  On failure @c is closed.
 */
static inline int rc_connect(struct rc_conn *c, const struct rc_opts *o)
{
	static const struct rc_opts defaults;
	struct ordo_wire_conn_req req;
	struct rdma_conn_param param;
	struct ibv_qp_init_attr qa;
	struct ibv_device_attr da;
	struct rdma_cm_event *ev;
	struct addrinfo *ai = NULL;
	char port[8];
	const char *addr;
	int ret;
	size_t tlen;

	if (!o)
		o = &defaults;
	memset(c, 0, sizeof(*c));
	addr = o->addr ? o->addr :
	       (getenv("ORDO_RDMA_ADDR") ? getenv("ORDO_RDMA_ADDR") : RC_ADDR);
	snprintf(port, sizeof(port), "%u", o->port ? o->port : ORDO_WIRE_PORT);
	if (getaddrinfo(addr, port, NULL, &ai))
		return -EINVAL;
	c->ch = rdma_create_event_channel();
	if (!c->ch) {
		ret = -errno;
		goto fail;
	}
	fcntl(c->ch->fd, F_SETFL, fcntl(c->ch->fd, F_GETFL) | O_NONBLOCK);
	if (rdma_create_id(c->ch, &c->id, c, RDMA_PS_TCP)) {
		ret = -errno;
		goto fail;
	}
	if (rdma_resolve_addr(c->id, NULL, ai->ai_addr, 5000)) {
		ret = -errno;
		goto fail;
	}
	ret = rc_expect_event(c, RDMA_CM_EVENT_ADDR_RESOLVED);
	if (ret)
		goto fail;
	if (rdma_resolve_route(c->id, 5000)) {
		ret = -errno;
		goto fail;
	}
	ret = rc_expect_event(c, RDMA_CM_EVENT_ROUTE_RESOLVED);
	if (ret)
		goto fail;

	c->qd = o->queue_depth ? o->queue_depth : 16;
	if (c->qd > RC_QD_MAX)
		c->qd = RC_QD_MAX;
	c->pd = ibv_alloc_pd(c->id->verbs);
	c->cc = ibv_create_comp_channel(c->id->verbs);
	if (!c->pd || !c->cc) {
		ret = -ENOMEM;
		goto fail;
	}
	c->cq = ibv_create_cq(c->id->verbs, 4 * RC_QD_MAX + 16, NULL, c->cc, 0);
	if (!c->cq) {
		ret = -ENOMEM;
		goto fail;
	}
	memset(&qa, 0, sizeof(qa));
	qa.send_cq = c->cq;
	qa.recv_cq = c->cq;
	qa.qp_type = IBV_QPT_RC;
	qa.cap.max_send_wr = 2 * RC_QD_MAX + 8;
	qa.cap.max_recv_wr = RC_QD_MAX;
	qa.cap.max_send_sge = 1;
	qa.cap.max_recv_sge = 1;
	if (rdma_create_qp(c->id, c->pd, &qa)) {
		ret = -errno;
		goto fail;
	}
	c->qp = c->id->qp;

	memset(&req, 0, sizeof(req));
	req.magic = htole32(o->magic ? o->magic : ORDO_WIRE_MAGIC);
	req.version = htole16(o->version ? o->version : ORDO_WIRE_VERSION);
	req.queue_depth = htole16(o->queue_depth);
	tlen = o->token ? strlen(o->token) : 0;
	if (tlen > ORDO_WIRE_TOKEN_MAX)
		tlen = ORDO_WIRE_TOKEN_MAX;
	req.token_len = htole16(tlen);
	memcpy(req.token, o->token ? o->token : "", tlen);
	memset(&param, 0, sizeof(param));
	param.private_data = o->raw ? o->raw : (const void *)&req;
	param.private_data_len = o->raw ? o->raw_len : sizeof(req);
	if (ibv_query_device(c->id->verbs, &da)) {
		ret = -EIO;
		goto fail;
	}
	param.initiator_depth = da.max_qp_init_rd_atom < 16 ?
				da.max_qp_init_rd_atom : 16;
	param.responder_resources = 0;
	param.retry_count = 7;
	param.rnr_retry_count = o->rnr_retry ? o->rnr_retry : 7;
	if (rdma_connect(c->id, &param)) {
		ret = -errno;
		goto fail;
	}
	ret = rc_cm_event(c, &ev, RC_TIMEOUT_MS);
	if (ret)
		goto fail;
	if (ev->event == RDMA_CM_EVENT_REJECTED) {
		c->rej_status = ev->status;
		if (ev->param.conn.private_data &&
		    ev->param.conn.private_data_len >= sizeof(c->rej))
			memcpy(&c->rej, ev->param.conn.private_data,
			       sizeof(c->rej));
		rdma_ack_cm_event(ev);
		ret = -ECONNREFUSED;
		goto fail_keep_rej;
	}
	if (ev->event != RDMA_CM_EVENT_ESTABLISHED ||
	    ev->param.conn.private_data_len < sizeof(c->rep)) {
		rdma_ack_cm_event(ev);
		ret = -ECONNRESET;
		goto fail;
	}
	memcpy(&c->rep, ev->param.conn.private_data, sizeof(c->rep));
	rdma_ack_cm_event(ev);
	if (le32toh(c->rep.magic) != ORDO_WIRE_MAGIC ||
	    le16toh(c->rep.version) != ORDO_WIRE_VERSION ||
	    !c->rep.queue_depth || le16toh(c->rep.queue_depth) > c->qd ||
	    le32toh(c->rep.max_msg) < ORDO_WIRE_MSG_MIN ||
	    le32toh(c->rep.max_msg) > ORDO_WIRE_MSG_MAX) {
		ret = -EPROTO;
		goto fail;
	}
	c->qd = le16toh(c->rep.queue_depth);
	c->max_msg = le32toh(c->rep.max_msg);
	c->mem = aligned_alloc(4096, (size_t)2 * RC_QD_MAX * c->max_msg +
				     RC_READ_BUF);
	c->reply = malloc(c->max_msg);
	if (!c->mem || !c->reply) {
		ret = -ENOMEM;
		goto fail;
	}
	c->mr = ibv_reg_mr(c->pd, c->mem,
			   (size_t)2 * RC_QD_MAX * c->max_msg + RC_READ_BUF,
			   IBV_ACCESS_LOCAL_WRITE);
	if (!c->mr) {
		ret = -errno;
		goto fail;
	}
	/* The server sends nothing unasked: receives can go in now. */
	for (uint32_t i = 0; i < c->qd; i++) {
		ret = rc_post_recv(c, i);
		if (ret)
			goto fail;
	}
	c->next_id = 1;
	freeaddrinfo(ai);
	return 0;
fail:
	memset(&c->rej, 0, sizeof(c->rej));
fail_keep_rej:
	{
		struct ordo_wire_conn_rej rej = c->rej;
		int st = c->rej_status;

		c->dead = 1;
		rc_close(c);
		c->rej = rej;
		c->rej_status = st;
	}
	if (ai)
		freeaddrinfo(ai);
	return ret;
}

/* Post @len bytes at send slot @slot; completions reaped by rc_wait(). */
static inline int rc_post_send_slot(struct rc_conn *c, uint32_t slot,
				    uint32_t len)
{
	struct ibv_sge sge = {
		.addr = (uintptr_t)rc_send_buf(c, slot),
		.length = len,
		.lkey = c->mr->lkey,
	};
	struct ibv_send_wr wr = {
		.wr_id = RC_WR_SEND | slot,
		.sg_list = &sge,
		.num_sge = 1,
		.opcode = IBV_WR_SEND,
		.send_flags = IBV_SEND_SIGNALED,
	}, *bad;

	if (ibv_post_send(c->qp, &wr, &bad))
		return -EIO;
	c->sends++;
	return 0;
}

/**
 * rc_send_raw - send any bytes as one message (no header added)
 * @c: connection
 * @msg: bytes
 * @len: at most RC_QD_MAX * max_msg (larger than max_msg on purpose only)
 */
static inline int rc_send_raw(struct rc_conn *c, const void *msg, uint32_t len)
{
	uint32_t slot = c->send_slot++ % RC_QD_MAX;

	if (len > c->max_msg) {
		/* Oversized on purpose: spans the following send slots. */
		if (len > (RC_QD_MAX - slot) * c->max_msg)
			return -EMSGSIZE;
	}
	memcpy(rc_send_buf(c, slot), msg, len);
	return rc_post_send_slot(c, slot, len);
}

/*
 * Wait for the next reply (send completions are reaped on the way); the
 * reply is copied to c->reply and its receive posted again.
 */
static inline int rc_wait_reply(struct rc_conn *c, int ms)
{
	struct ibv_wc wc;
	int ret;

	for (;;) {
		ret = rc_poll(c, &wc, ms);
		if (ret)
			return ret;
		if (wc.status != IBV_WC_SUCCESS) {
			c->last_wc_status = wc.status;
			c->dead = 1;
			return -ECONNRESET;
		}
		if (wc.wr_id & RC_WR_SEND) {
			c->sends--;
			continue;
		}
		if (wc.wr_id & RC_WR_RAW)
			continue;
		memcpy(c->reply, rc_recv_buf(c, wc.wr_id), wc.byte_len);
		c->reply_len = wc.byte_len;
		return rc_post_recv(c, wc.wr_id);
	}
}

/* Build a request (header + @body) in a send slot and post it. */
static inline int rc_send_req(struct rc_conn *c, uint8_t op,
			      const void *body, uint32_t blen, uint64_t *id)
{
	uint32_t slot = c->send_slot++ % RC_QD_MAX;
	struct ordo_wire_hdr *h = (void *)rc_send_buf(c, slot);

	if (sizeof(*h) + blen > c->max_msg)
		return -EMSGSIZE;
	memset(h, 0, sizeof(*h));
	*id = c->next_id++;
	h->id = htole64(*id);
	h->length = htole32(sizeof(*h) + blen);
	h->version = ORDO_WIRE_VERSION;
	h->op = op;
	memcpy(h + 1, body, blen);
	return rc_post_send_slot(c, slot, sizeof(*h) + blen);
}

static inline const struct ordo_wire_hdr *rc_reply_hdr(struct rc_conn *c)
{
	return (const struct ordo_wire_hdr *)c->reply;
}

static inline const void *rc_reply_body(struct rc_conn *c)
{
	return c->reply + sizeof(struct ordo_wire_hdr);
}

/*
 * Check a reply's header against its request; return its status as a
 * negative errno (0 for OK), or -EBADMSG if the header is inconsistent.
 */
static inline int rc_check_reply(struct rc_conn *c, uint64_t id, uint8_t op)
{
	const struct ordo_wire_hdr *h = rc_reply_hdr(c);

	if (c->reply_len < sizeof(*h) || le64toh(h->id) != id ||
	    h->op != op || h->version != ORDO_WIRE_VERSION ||
	    le32toh(h->length) != c->reply_len || c->reply_len > c->max_msg)
		return -EBADMSG;
	if (h->status && c->reply_len != sizeof(*h))
		return -EBADMSG;
	c->pool_chunks = le32toh(h->pool_chunks);
	return ordo_wire_errno(le32toh(h->status));
}

/**
 * rc_call - one synchronous RPC
 * @c: connection
 * @op: enum ordo_wire_op
 * @body: request body
 * @blen: its bytes
 *
 * Return: the reply status as a negative errno (0: OK; the reply is in
 * c->reply), -EBADMSG for a malformed reply, or a transport error.
 */
static inline int rc_call(struct rc_conn *c, uint8_t op, const void *body,
			  uint32_t blen)
{
	uint64_t id;
	int ret = rc_send_req(c, op, body, blen, &id);

	if (ret)
		return ret;
	ret = rc_wait_reply(c, RC_TIMEOUT_MS);
	if (ret)
		return ret;
	return rc_check_reply(c, id, op);
}

/* A point operation; GET copies value_size bytes to @val. */
static inline int rc_kv(struct rc_conn *c, uint8_t op, uint64_t key,
			void *val, uint32_t vlen)
{
	uint8_t body[sizeof(struct ordo_wire_kv) + ORDO_VALUE_SIZE_MAX + 8];
	struct ordo_wire_kv *kv = (void *)body;
	uint32_t vs = le32toh(c->rep.value_size);
	int ret;

	if (op == ORDO_WIRE_OP_GET || op == ORDO_WIRE_OP_DELETE)
		vlen = 0;
	if (vlen > ORDO_VALUE_SIZE_MAX + 8)
		return -E2BIG;
	memset(body, 0, sizeof(body));
	kv->key = htole64(key);
	kv->value_len = htole16(vlen);
	kv->op = op;
	if (vlen)
		memcpy(kv + 1, val, vlen);
	ret = rc_call(c, op, body, sizeof(*kv) + ordo_wire_pad8(vlen));
	if (!ret && op == ORDO_WIRE_OP_GET) {
		if (c->reply_len != sizeof(struct ordo_wire_hdr) + vs)
			return -EBADMSG;
		if (val)
			memcpy(val, rc_reply_body(c), vs);
	}
	return ret;
}

/* UPDATE at a hinted leaf; *@used says whether the hint was applied. */
static inline int rc_update_hint(struct rc_conn *c, uint64_t key,
				 const void *val, uint32_t vlen, uint32_t leaf,
				 uint32_t inc, int *used)
{
	uint8_t body[sizeof(struct ordo_wire_kv) + ORDO_VALUE_SIZE_MAX + 8];
	struct ordo_wire_kv *kv = (void *)body;
	int ret;

	memset(body, 0, sizeof(body));
	kv->key = htole64(key);
	kv->value_len = htole16(vlen);
	kv->op = ORDO_WIRE_OP_UPDATE;
	kv->flags = ORDO_WIRE_KV_HINT;
	kv->hint_leaf = htole32(leaf);
	kv->hint_incarnation = htole32(inc);
	memcpy(kv + 1, val, vlen);
	ret = rc_call(c, ORDO_WIRE_OP_UPDATE, body,
		      sizeof(*kv) + ordo_wire_pad8(vlen));
	*used = !!(le16toh(rc_reply_hdr(c)->flags) & ORDO_WIRE_F_HINT_USED);
	return ret;
}

/* Fetch the whole region table of @kind into *@tab (*@n entries). */
static inline int rc_fetch_regions(struct rc_conn *c, uint16_t kind,
				   struct ordo_wire_region **tab, uint32_t *n)
{
	struct ordo_wire_regions_req req = { .kind = htole16(kind) };
	uint32_t got = 0, total;
	int ret;

	do {
		const struct ordo_wire_regions_rep *rep;
		uint32_t k;

		req.first = htole32(got);
		ret = rc_call(c, ORDO_WIRE_OP_REGIONS, &req, sizeof(req));
		if (ret)
			return ret;
		rep = rc_reply_body(c);
		total = le32toh(rep->total);
		k = le32toh(rep->returned);
		if (got + k > total || c->reply_len != sizeof(struct ordo_wire_hdr) +
		    sizeof(*rep) + k * sizeof(struct ordo_wire_region))
			return -EBADMSG;
		*tab = realloc(*tab, (got + k + 1) * sizeof(**tab));
		if (!*tab)
			return -ENOMEM;
		memcpy(*tab + got, rep + 1, k * sizeof(**tab));
		got += k;
		if (!k && got < total)
			return -EBADMSG;
	} while (got < total);
	*n = got;
	return 0;
}

/* Fetch the whole pool region table into c->regions. */
static inline int rc_regions(struct rc_conn *c)
{
	return rc_fetch_regions(c, ORDO_WIRE_REGION_POOL, &c->regions,
				&c->nregions);
}

/* The entry of @tab covering [addr, addr + len), or NULL. */
static inline const struct ordo_wire_region *
rc_region_in(const struct ordo_wire_region *tab, uint32_t n, uint64_t addr,
	     uint32_t len)
{
	for (uint32_t i = 0; i < n; i++) {
		const struct ordo_wire_region *r = &tab[i];
		uint64_t off = le64toh(r->offset), l = le64toh(r->length);

		if (addr >= off && addr + len <= off + l)
			return r;
	}
	return NULL;
}

/* The pool region covering [addr, addr + len), or NULL. */
static inline const struct ordo_wire_region *
rc_region_for(struct rc_conn *c, uint64_t addr, uint32_t len)
{
	return rc_region_in(c->regions, c->nregions, addr, len);
}

/*
 * One raw one-sided operation on the server's memory: READ or WRITE of
 * @len bytes at remote @addr with @rkey (local side: the read buffer), or
 * an 8-byte atomic.  Returns 0 or the failed completion's status (> 0), or
 * a negative errno if nothing could be posted.
 */
static inline int rc_rdma_raw(struct rc_conn *c, enum ibv_wr_opcode opcode,
			      uint64_t addr, uint32_t len, uint32_t rkey)
{
	struct ibv_sge sge = {
		.addr = (uintptr_t)rc_read_buf(c),
		.length = len,
		.lkey = c->mr->lkey,
	};
	struct ibv_send_wr wr = {
		.wr_id = RC_WR_RAW,
		.sg_list = &sge,
		.num_sge = 1,
		.opcode = opcode,
		.send_flags = IBV_SEND_SIGNALED,
	}, *bad;
	struct ibv_wc wc;
	int ret;

	if (len > RC_READ_BUF)
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
	if (ibv_post_send(c->qp, &wr, &bad))
		return -EIO;
	for (;;) {
		ret = rc_poll(c, &wc, RC_TIMEOUT_MS);
		if (ret)
			return ret;
		if (wc.wr_id & RC_WR_SEND) {
			c->sends--;
			if (wc.status != IBV_WC_SUCCESS)
				c->dead = 1;
			continue;
		}
		if (wc.wr_id == RC_WR_RAW)
			break;
		/* A receive flushed by a failure: the QP is gone. */
		c->dead = 1;
	}
	if (wc.status != IBV_WC_SUCCESS) {
		c->dead = 1;
		c->last_wc_status = wc.status;
		return wc.status;
	}
	return 0;
}

/* READ @len bytes at @addr of the region described by @r into @out. */
static inline int rc_read_region(struct rc_conn *c,
				 const struct ordo_wire_region *r,
				 uint64_t addr, uint32_t len, void *out)
{
	int ret;

	if (!r)
		return -ERANGE;
	ret = rc_rdma_raw(c, IBV_WR_RDMA_READ, addr, len, le32toh(r->rkey));
	if (ret > 0)
		return -EIO;
	if (!ret)
		memcpy(out, rc_read_buf(c), len);
	return ret;
}

/* READ @len bytes of the pool at @addr into @out, using the region table. */
static inline int rc_read(struct rc_conn *c, uint64_t addr, uint32_t len,
			  void *out)
{
	const struct ordo_wire_region *r = rc_region_for(c, addr, len);
	int ret;

	if (!r)
		return -ERANGE;
	ret = rc_rdma_raw(c, IBV_WR_RDMA_READ, addr, len, le32toh(r->rkey));
	if (ret > 0)
		return -EIO;
	if (!ret)
		memcpy(out, rc_read_buf(c), len);
	return ret;
}

/* The pool offset of node @n, from the accept reply's geometry. */
static inline uint64_t rc_node_off(struct rc_conn *c, uint32_t n)
{
	return ordo_node_offset(n, le32toh(c->rep.nodes_per_chunk),
				le64toh(c->rep.chunk_size),
				le32toh(c->rep.node_size));
}

#endif /* ORDO_RDMA_CLIENT_H */
