/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The selftests' hostile RDMA client: libordo's raw handles (ordo_raw.h:
 * libordo's own connect, completion loop and region-table decoder) driven
 * by hand -- forged private data, malformed and oversized messages, more
 * requests than credits, WRITEs, atomics and forged keys -- plus the sysfs
 * and resource helpers the RDMA tests share.  What a well-behaved client
 * does, the tests do through libordo's API.
 *
 * Every function returns 0 or a negative errno; RPC helpers return the
 * reply's status as ordo_wire_errno() maps it.
 */
#ifndef ORDO_RAW_CLIENT_H
#define ORDO_RAW_CLIENT_H

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <linux/ordo_node.h>
#include <linux/ordo_wire.h>

#include "ordo.h"
#include "ordo_raw.h"
#include "ordo_test.h"

/*
 * At least the largest node any geometry has, ordo_node_size(255, 1024):
 * per slot a key, a check word, an order byte and a value, plus the header
 * and room for the roundings.
 */
#define RC_NODE_MAX	(2 * ORDO_NODE_HDR_SIZE + ORDO_LEAF_SLOTS_MAX * \
			 (17 + ORDO_VALUE_SIZE_MAX) + 8)
#define RC_ADDR		"192.0.2.1"
#define RC_URI		"rdma://" RC_ADDR
#define RC_TIMEOUT_MS	30000
#define RC_QD_MAX	ORDO_RAW_SEND_BUFS
#define RC_SYSFS	"/sys/class/misc/ordo/rdma"
#define RC_PARAMS	"/sys/module/ordo/parameters"

static inline long long rc_now_ms(void)
{
	return t_now_ms();
}

/* Write a module parameter or sysfs file; 0 or -errno. */
static inline int rc_write_file(const char *path, const char *val)
{
	return t_write_file(path, val);
}

static inline long long rc_sysfs_u64(const char *rel)
{
	char path[256], buf[64];

	snprintf(path, sizeof(path), RC_SYSFS "/%s", rel);
	if (t_read_file(path, buf, sizeof(buf)))
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

/* Objects of ordo's own ("comm [ordo]") in "rdma resource show @what". */
static inline long rc_ordo_objects(const char *what)
{
	char cmd[128], line[1024];
	long n = 0;
	FILE *f;

	snprintf(cmd, sizeof(cmd), "rdma resource show %s 2>/dev/null", what);
	f = popen(cmd, "r");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (strstr(line, "comm [ordo]"))
			n++;
	pclose(f);
	return n;
}

static inline bool rc_rxe_present(void)
{
	return !access("/sys/class/infiniband/rxe0", F_OK);
}

/* Add rxe0 back on ordo0 (if gone) and wait until its port is active. */
static inline int rc_rxe_add(void)
{
	int i;

	if (!rc_rxe_present() &&
	    system("rdma link add rxe0 type rxe netdev ordo0 >/dev/null 2>&1"))
		return -EIO;
	for (i = 0; i < 200; i++) {
		if (!system("rdma link show rxe0/1 2>/dev/null | grep -q ACTIVE"))
			return 0;
		usleep(50000);
	}
	return -ETIMEDOUT;
}

/*
 * insmod ordo.ko with @params and @extra (" name=value ..."; a parameter
 * given twice takes its last value), then wait up to 30 s for its RDMA
 * listener.  Return: 0, or -1 if insmod failed.
 */
static inline int rc_module_insert(const char *params, const char *extra)
{
	char cmd[768];
	int i;

	snprintf(cmd, sizeof(cmd), "insmod kmod/ordo.ko%s%s", params, extra);
	if (system(cmd))
		return -1;
	for (i = 0; i < 600 && access(RC_SYSFS "/listener", F_OK); i++)
		usleep(50000);
	return 0;
}

/* rmmod ordo, then rc_module_insert(): a fresh store.  0 or -1. */
static inline int rc_module_reload(const char *params, const char *extra)
{
	return system("rmmod ordo") ? -1 : rc_module_insert(params, extra);
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


/**
 * struct rc_opts - how to connect; zero means the default
 * @addr: server address (default RC_ADDR)
 * @port: server port (default ORDO_WIRE_PORT)
 * @token: access token, NUL-terminated, or NULL
 * @queue_depth: credits to ask for in a forged request (0: libordo's)
 * @version: protocol version to claim in a forged request (0: the real one)
 * @magic: magic of a forged request (0: the real one)
 * @raw: if set, sent as the private data instead of any request
 * @raw_len: bytes of @raw
 * @src: local address to connect from (default: the route's)
 * @no_recv: post no receive buffers: the server's replies find none
 *
 * The connection is bare: nothing is sent until the test sends it.
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
	const char *src;
	bool no_recv;
};

/**
 * struct rc_conn - one raw connection
 * @o: the raw libordo handle, NULL when closed
 * @qd: credits granted by the server
 * @max_msg: the server's max_msg
 * @rep: the accept reply
 * @rej: the reject, when connecting was refused
 * @rej_status: CM status of that reject (28: consumer defined)
 * @next_id: next request id
 * @pool_chunks: pool_chunks of the last checked reply
 * @regions: pool region table (wire layout) after rc_regions()
 * @nregions: entries of @regions
 * @reply: the last reply received (a buffer of max_msg bytes)
 * @reply_len: its bytes
 */
struct rc_conn {
	struct ordo *o;
	uint32_t qd;
	uint32_t max_msg;
	struct ordo_wire_conn_rep rep;
	struct ordo_wire_conn_rej rej;
	int rej_status;
	uint64_t next_id;
	uint32_t pool_chunks;
	struct ordo_wire_region *regions;
	uint32_t nregions;
	uint8_t *reply;
	uint32_t reply_len;
};

static inline void rc_close(struct rc_conn *c)
{
	ordo_close(c->o);
	free(c->regions);
	free(c->reply);
	memset(c, 0, sizeof(*c));
}

static inline bool rc_dead(struct rc_conn *c)
{
	return !c->o || ordo_raw_dead(c->o);
}

static inline uint8_t *rc_read_buf(struct rc_conn *c)
{
	return ordo_raw_local(c->o);
}

/**
 * rc_connect - open a raw connection
 * @c: connection (overwritten)
 * @o: options, or NULL
 *
 * Return: 0, or libordo's errno for the failure (a reject: EACCES for the
 * token, EUSERS when full, EPROTONOSUPPORT for the version, ECONNREFUSED
 * for a malformed request); c->rej and c->rej_status keep the reject.
 */
static inline int rc_connect(struct rc_conn *c, const struct rc_opts *o)
{
	static const struct rc_opts defaults;
	struct ordo_opts op = { .size = sizeof(op), .timeout_ms = RC_TIMEOUT_MS };
	struct ordo_raw_cfg cfg = { 0 };
	struct ordo_wire_conn_req req;
	char uri[128];

	if (!o)
		o = &defaults;
	memset(c, 0, sizeof(*c));
	snprintf(uri, sizeof(uri), "rdma://%s:%u", o->addr ? o->addr : RC_ADDR,
		 o->port ? o->port : ORDO_WIRE_PORT);
	op.token = o->token ? o->token : "";
	cfg.bare = true;
	cfg.src_addr = o->src;
	cfg.no_recv = o->no_recv;
	if (o->raw) {
		cfg.priv = o->raw;
		cfg.priv_len = o->raw_len;
	} else if (o->version || o->magic || o->queue_depth) {
		size_t tlen = strlen(op.token);

		memset(&req, 0, sizeof(req));
		req.magic = htole32(o->magic ? o->magic : ORDO_WIRE_MAGIC);
		req.version = htole16(o->version ? o->version :
				      ORDO_WIRE_VERSION);
		req.queue_depth = htole16(o->queue_depth);
		req.token_len = htole16(tlen);
		memcpy(req.token, op.token,
		       tlen < sizeof(req.token) ? tlen : sizeof(req.token));
		cfg.priv = &req;
		cfg.priv_len = sizeof(req);
	}
	c->o = ordo_raw_open(uri, &op, &cfg);
	c->rej = cfg.rej;
	c->rej_status = cfg.rej_status;
	if (!c->o)
		return -errno;
	c->qd = ordo_raw_credits(c->o);
	c->max_msg = ordo_raw_max_msg(c->o);
	c->rep = *ordo_raw_accept(c->o);
	c->next_id = 1;
	c->reply = calloc(1, c->max_msg);
	if (!c->reply) {
		rc_close(c);
		return -ENOMEM;
	}
	return 0;
}

/* Send any bytes as one message (no header added). */
static inline int rc_send_raw(struct rc_conn *c, const void *msg, uint32_t len)
{
	return ordo_raw_send(c->o, msg, len);
}

/* Wait for the next reply; it is then in c->reply. */
static inline int rc_wait_reply(struct rc_conn *c, int ms)
{
	const uint8_t *msg;
	int ret = ordo_raw_wait(c->o, ms, &msg, &c->reply_len);

	if (!ret)
		memcpy(c->reply, msg, c->reply_len);
	return ret;
}

/* Build a request (header + @body) and send it; *@id is its id. */
static inline int rc_send_req(struct rc_conn *c, uint8_t op,
			      const void *body, uint32_t blen, uint64_t *id)
{
	uint8_t msg[ORDO_WIRE_MSG_MAX];
	struct ordo_wire_hdr *h = (void *)msg;

	if (sizeof(*h) + blen > c->max_msg)
		return -EMSGSIZE;
	memset(h, 0, sizeof(*h));
	*id = c->next_id++;
	h->id = htole64(*id);
	h->length = htole32(sizeof(*h) + blen);
	h->version = ORDO_WIRE_VERSION;
	h->op = op;
	memcpy(h + 1, body, blen);
	return rc_send_raw(c, msg, sizeof(*h) + blen);
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

/* One synchronous request of any body; see rc_check_reply(). */
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

/*
 * A point request with hand-set fields (a hint on any op, a value on a
 * GET).  A GET's reply body is the value: GET copies it to @val and
 * zero-pads it to value_size (@val has value_size bytes).
 */
static inline int rc_kv_raw(struct rc_conn *c, uint8_t op, uint64_t key,
			    const void *val, uint32_t vlen, uint8_t flags,
			    uint32_t leaf, uint32_t inc, void *out)
{
	uint8_t body[sizeof(struct ordo_wire_kv) + ORDO_VALUE_SIZE_MAX + 8];
	struct ordo_wire_kv *kv = (void *)body;
	uint32_t vs = le32toh(c->rep.value_size);
	int ret;

	if (vlen > ORDO_VALUE_SIZE_MAX + 8)
		return -E2BIG;
	memset(body, 0, sizeof(body));
	kv->key = htole64(key);
	kv->value_len = htole16(vlen);
	kv->op = op;
	kv->flags = flags;
	kv->hint_leaf = htole32(leaf);
	kv->hint_incarnation = htole32(inc);
	if (vlen)
		memcpy(kv + 1, val, vlen);
	ret = rc_call(c, op, body, sizeof(*kv) + ordo_wire_pad8(vlen));
	if (!ret && op == ORDO_WIRE_OP_GET) {
		uint32_t got = c->reply_len - sizeof(struct ordo_wire_hdr);

		if (got > vs)
			return -EBADMSG;
		if (out) {
			memcpy(out, rc_reply_body(c), got);
			memset((uint8_t *)out + got, 0, vs - got);
		}
	}
	return ret;
}

/* A point operation; GET copies the value, zero-padded, to @val. */
static inline int rc_kv(struct rc_conn *c, uint8_t op, uint64_t key,
			void *val, uint32_t vlen)
{
	bool get = op == ORDO_WIRE_OP_GET;

	if (get || op == ORDO_WIRE_OP_DELETE)
		vlen = 0;
	return rc_kv_raw(c, op, key, val, vlen, 0, 0, 0, get ? val : NULL);
}

/* UPDATE at a hinted leaf; *@used says whether the hint was applied. */
static inline int rc_update_hint(struct rc_conn *c, uint64_t key,
				 const void *val, uint32_t vlen, uint32_t leaf,
				 uint32_t inc, int *used)
{
	int ret = rc_kv_raw(c, ORDO_WIRE_OP_UPDATE, key, val, vlen,
			    ORDO_WIRE_KV_HINT, leaf, inc, NULL);

	*used = c->reply_len >= sizeof(struct ordo_wire_hdr) &&
		(le16toh(rc_reply_hdr(c)->flags) & ORDO_WIRE_F_HINT_USED);
	return ret;
}

/* One MODEL_FETCH; its data goes to @out (at most @cap bytes). */
static inline int rc_model_fetch(struct rc_conn *c, uint16_t part,
				 uint32_t index, uint32_t count, uint32_t off,
				 struct ordo_wire_model_rep *rep, void *out,
				 size_t cap)
{
	struct ordo_wire_model_req req = {
		.part = htole16(part),
		.index = htole32(index),
		.count = htole32(count),
		.offset = htole32(off),
	};
	int ret = rc_call(c, ORDO_WIRE_OP_MODEL_FETCH, &req, sizeof(req));
	uint32_t n;

	if (ret)
		return ret;
	memcpy(rep, rc_reply_body(c), sizeof(*rep));
	n = le32toh(rep->returned);
	if (c->reply_len != sizeof(struct ordo_wire_hdr) + sizeof(*rep) + n ||
	    n > cap)
		return -EBADMSG;
	memcpy(out, (const uint8_t *)rc_reply_body(c) + sizeof(*rep), n);
	return 0;
}

/*
 * The published top level by MODEL_FETCH TOP, in as many pieces as it
 * takes: *@top (malloc()ed, *@len bytes) and its epoch; *@rpcs counts the
 * requests.  -EBADMSG if the pieces do not add up (a publication raced).
 */
static inline int rc_model_top(struct rc_conn *c, uint8_t **top,
			       uint32_t *len, uint64_t *epoch, uint32_t *rpcs)
{
	static uint8_t buf[ORDO_WIRE_MSG_MAX];
	struct ordo_wire_model_rep rep;
	uint32_t total = 0, got = 0;
	uint8_t *t = NULL;
	int ret;

	do {
		ret = rc_model_fetch(c, ORDO_WIRE_MODEL_TOP, 0, 0, got, &rep,
				     buf, sizeof(buf));
		if (ret)
			break;
		++*rpcs;
		if (!t) {
			total = le32toh(rep.total);
			t = malloc(total ? total : 1);
			if (!t)
				return -ENOMEM;
		}
		if (le32toh(rep.total) != total ||
		    le32toh(rep.returned) > total - got) {
			ret = -EBADMSG;
			break;
		}
		memcpy(t + got, buf, le32toh(rep.returned));
		got += le32toh(rep.returned);
		*epoch = le64toh(rep.epoch);
	} while (got < total && rep.returned);
	if (ret) {
		free(t);
		return ret;
	}
	*top = t;
	*len = got;
	return 0;
}

/*
 * The published regions of @kind in wire layout, into *@tab (*@n
 * entries), once they cover at least @min bytes.  A device's first
 * connection waits for the registrar's first publication, and a region
 * that grew for its next (polled) registration: both are asynchronous, so
 * this asks again, by REGIONS RPCs, for up to RC_TIMEOUT_MS.
 */
static inline int rc_fetch_regions_min(struct rc_conn *c, uint16_t kind,
				       uint64_t min,
				       struct ordo_wire_region **tab,
				       uint32_t *n)
{
	long long end = rc_now_ms() + RC_TIMEOUT_MS;
	struct ordo_raw_region *t = NULL;
	uint64_t covered;
	uint32_t i;
	int ret;

	for (;;) {
		ret = ordo_raw_regions(c->o, kind, &t, n);
		if (ret)
			return ret;
		covered = *n ? t[*n - 1].off + t[*n - 1].len : 0;
		if (*n && covered >= min)
			break;
		free(t);
		t = NULL;
		if (rc_now_ms() > end)
			return -ETIMEDOUT;
		usleep(20000);
	}
	free(*tab);
	*tab = calloc(*n + 1, sizeof(**tab));
	if (!*tab) {
		free(t);
		return -ENOMEM;
	}
	for (i = 0; i < *n; i++) {
		(*tab)[i].offset = htole64(t[i].off);
		(*tab)[i].length = htole64(t[i].len);
		(*tab)[i].rkey = htole32(t[i].rkey);
		(*tab)[i].kind = htole16(kind);
	}
	free(t);
	return 0;
}

/* The published regions of @kind, once there are any. */
static inline int rc_fetch_regions(struct rc_conn *c, uint16_t kind,
				   struct ordo_wire_region **tab, uint32_t *n)
{
	return rc_fetch_regions_min(c, kind, 1, tab, n);
}

/*
 * INFO until a reply's pool_chunks says the published table covers at
 * least @chunks (registration follows growth asynchronously).
 */
static inline int rc_wait_pool_chunks(struct rc_conn *c, uint32_t chunks)
{
	long long end = rc_now_ms() + RC_TIMEOUT_MS;
	int ret;

	for (;;) {
		ret = rc_call(c, ORDO_WIRE_OP_INFO, NULL, 0);
		if (ret || c->pool_chunks >= chunks)
			return ret;
		if (rc_now_ms() > end)
			return -ETIMEDOUT;
		usleep(20000);
	}
}

/*
 * Fetch the pool's regions into c->regions once they cover every chunk
 * the pool has now (INFO says how many).
 */
static inline int rc_regions(struct rc_conn *c)
{
	const struct ordo_wire_info *info;
	uint32_t chunks;
	int ret = rc_call(c, ORDO_WIRE_OP_INFO, NULL, 0);

	if (ret)
		return ret;
	info = rc_reply_body(c);
	chunks = le32toh(info->nr_chunks);
	ret = rc_wait_pool_chunks(c, chunks);
	if (ret)
		return ret;
	return rc_fetch_regions_min(c, ORDO_WIRE_REGION_POOL, (uint64_t)chunks *
				    le64toh(c->rep.chunk_size), &c->regions,
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

/*
 * One raw one-sided operation (READ, WRITE, an atomic) with any address
 * and key; local side: rc_read_buf().  0, the failed completion's status
 * (> 0), or a negative errno.
 */
static inline int rc_rdma_raw(struct rc_conn *c, enum ibv_wr_opcode opcode,
			      uint64_t addr, uint32_t len, uint32_t rkey)
{
	return ordo_raw_rdma(c->o, opcode, addr, len, rkey);
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

/* READ @len bytes of the pool at @addr into @out, by the region table. */
static inline int rc_read(struct rc_conn *c, uint64_t addr, uint32_t len,
			  void *out)
{
	return rc_read_region(c, rc_region_in(c->regions, c->nregions, addr,
					      len), addr, len, out);
}

/* The pool offset of node @n, from the accept reply's geometry. */
static inline uint64_t rc_node_off(struct rc_conn *c, uint32_t n)
{
	return ordo_node_offset(n, le32toh(c->rep.nodes_per_chunk),
				le64toh(c->rep.chunk_size),
				le32toh(c->rep.node_size));
}

/* ---- hostile traffic: random, valid and mutated requests ---- */

/* A splitmix64 step: each thread of a test keeps its own state. */
static inline uint64_t rc_rnd(uint64_t *s)
{
	uint64_t z = (*s += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

/* A request header for @blen bytes of body. */
static inline void rc_hdr(uint8_t *msg, uint8_t op, uint64_t id, uint32_t blen)
{
	struct ordo_wire_hdr *h = (void *)msg;

	memset(h, 0, sizeof(*h));
	h->id = htole64(id);
	h->length = htole32(sizeof(*h) + blen);
	h->version = ORDO_WIRE_VERSION;
	h->op = op;
}

/*
 * A well-formed request of a random op (every op of the protocol) into
 * @msg (ORDO_WIRE_MSG_MAX bytes), as libordo would send it, with every
 * key it writes in [@base, @base + @span); returns its length, at most
 * @max_msg.  @vs is the store's value size.
 */
static inline uint32_t rc_req_valid(uint8_t *msg, uint64_t *rng, uint64_t id,
				    uint32_t vs, uint32_t max_msg,
				    uint64_t base, uint64_t span)
{
	uint8_t op = 1 + rc_rnd(rng) % ORDO_WIRE_OP_MAX, *b = msg +
		     sizeof(struct ordo_wire_hdr);
	uint32_t blen = 0, n, i;

	memset(b, 0, 512);
	switch (op) {
	case ORDO_WIRE_OP_SCAN: {
		struct ordo_wire_scan_req *s = (void *)b;

		s->start = htole64(rc_rnd(rng) % 2 ? base + rc_rnd(rng) % span :
				   rc_rnd(rng));
		s->count = htole32(1 + rc_rnd(rng) % 64);
		s->flags = htole32(rc_rnd(rng) % 2 ? ORDO_WIRE_SCAN_KEYS_ONLY : 0);
		blen = sizeof(*s);
		break;
	}
	case ORDO_WIRE_OP_INFO:
		break;
	case ORDO_WIRE_OP_REGIONS: {
		struct ordo_wire_regions_req *r = (void *)b;

		r->kind = htole16(1 + rc_rnd(rng) % 2);
		r->first = htole32(rc_rnd(rng) % 4);
		blen = sizeof(*r);
		break;
	}
	case ORDO_WIRE_OP_MODEL_FETCH: {
		struct ordo_wire_model_req *m = (void *)b;

		m->part = htole16(1 + rc_rnd(rng) % 3);
		m->index = htole32(rc_rnd(rng) % 8);
		m->count = htole32(rc_rnd(rng) % 64);
		m->offset = htole32(rc_rnd(rng) % 4096);
		blen = sizeof(*m);
		break;
	}
	case ORDO_WIRE_OP_LOOKUP: {
		struct ordo_wire_lookup_req *l = (void *)b;

		l->key = htole64(base + rc_rnd(rng) % span);
		l->epoch = htole64(rc_rnd(rng) % 4);
		l->flags = htole32(rc_rnd(rng) % 2 ? ORDO_WIRE_LOOKUP_NO_MODEL : 0);
		blen = sizeof(*l);
		break;
	}
	case ORDO_WIRE_OP_BATCH: {
		struct ordo_wire_batch *bt = (void *)b;
		uint32_t room = max_msg - sizeof(struct ordo_wire_hdr) -
				sizeof(*bt);

		n = 1 + rc_rnd(rng) % 8;
		blen = sizeof(*bt);
		for (i = 0; i < n; i++) {
			struct ordo_wire_kv *kv = (void *)(b + blen);
			uint8_t kop = ORDO_WIRE_OP_GET + rc_rnd(rng) % 5;
			uint32_t vl = kop == ORDO_WIRE_OP_GET ||
				      kop == ORDO_WIRE_OP_DELETE ? 0 :
				      1 + rc_rnd(rng) % vs;

			if (blen - sizeof(*bt) + sizeof(*kv) +
			    ordo_wire_pad8(vl) > room || blen + 512 > 60000)
				break;
			memset(kv, 0, sizeof(*kv) + ordo_wire_pad8(vl));
			kv->key = htole64(base + rc_rnd(rng) % span);
			kv->op = kop;
			kv->value_len = htole16(vl);
			memset(kv + 1, 0x5a, vl);
			blen += sizeof(*kv) + ordo_wire_pad8(vl);
		}
		bt->count = htole32(i);
		break;
	}
	default: {
		struct ordo_wire_kv *kv = (void *)b;
		uint32_t vl = op == ORDO_WIRE_OP_GET ||
			      op == ORDO_WIRE_OP_DELETE ? 0 : 1 + rc_rnd(rng) % vs;

		kv->key = htole64(base + rc_rnd(rng) % span);
		kv->op = op;
		kv->value_len = htole16(vl);
		memset(kv + 1, 0, ordo_wire_pad8(vl));
		memset(kv + 1, 0x3c, vl);
		blen = sizeof(*kv) + ordo_wire_pad8(vl);
	}
	}
	rc_hdr(msg, op, id, blen);
	return sizeof(struct ordo_wire_hdr) + blen;
}

/* What a hostile message is, and what the server must answer to it. */
enum rc_hostile {
	RC_H_VALID,	/* a well-formed request: a reply, any status */
	RC_H_FLIPPED,	/* bits flipped: a reply, any status */
	RC_H_RANDOM,	/* random bytes behind a plausible header: a reply */
	RC_H_TRUNCATED,	/* cut short (header length either way): an error */
	RC_H_LENGTH,	/* header length past the bytes sent: an error */
	RC_H_OPCODE,	/* an op that does not exist: an error */
	RC_H_COUNT,	/* a SCAN or BATCH count out of range: an error */
	RC_H_SHORT,	/* shorter than a header: the server hangs up */
	RC_H_OVERSIZE,	/* longer than max_msg: the server hangs up */
	RC_H_NR,
};

static inline bool rc_hostile_fails(enum rc_hostile k)
{
	return k >= RC_H_TRUNCATED && k <= RC_H_COUNT;
}

static inline bool rc_hostile_hangs_up(enum rc_hostile k)
{
	return k == RC_H_SHORT || k == RC_H_OVERSIZE;
}

/*
 * A hostile message of kind @k into @msg (ORDO_WIRE_MSG_MAX + 64 bytes),
 * built from a valid request (rc_req_valid(), keys in [@base, @base +
 * @span) before any mutation); returns its length.  *@id and *@op are the
 * header's id and op as sent, which the reply must echo.
 */
static inline uint32_t rc_req_hostile(uint8_t *msg, enum rc_hostile k,
				      uint64_t *rng, uint64_t *id, uint8_t *op,
				      uint32_t vs, uint32_t max_msg,
				      uint64_t base, uint64_t span)
{
	struct ordo_wire_hdr *h = (void *)msg;
	uint32_t len = rc_req_valid(msg, rng, *id, vs, max_msg, base, span);
	uint32_t i, n, full = len;

	switch (k) {
	case RC_H_FLIPPED:
		n = 1 + rc_rnd(rng) % 4;
		for (i = 0; i < n; i++) {
			uint32_t at = rc_rnd(rng) % len;

			msg[at] ^= 1 << (rc_rnd(rng) % 8);
		}
		break;
	case RC_H_RANDOM:
		len = sizeof(*h) + rc_rnd(rng) % (max_msg - sizeof(*h) + 1);
		for (i = sizeof(*h); i < len; i++)
			msg[i] = rc_rnd(rng);
		h->op = rc_rnd(rng) % 16;
		h->length = htole32(len);
		break;
	case RC_H_TRUNCATED:
		if (len == sizeof(*h)) {	/* INFO has no body to cut */
			h->op = ORDO_WIRE_OP_GET;
			full = len = sizeof(*h) + sizeof(struct ordo_wire_kv);
		}
		len = sizeof(*h) + rc_rnd(rng) % (len - sizeof(*h));
		h->length = htole32(rc_rnd(rng) % 2 ? full : len);
		break;
	case RC_H_LENGTH:
		h->length = htole32(len + 1 + (rc_rnd(rng) % 2 ?
					       rc_rnd(rng) % 64 :
					       (uint32_t)rc_rnd(rng) % (1u << 31)));
		break;
	case RC_H_OPCODE:
		h->op = rc_rnd(rng) % 2 ? 0 : ORDO_WIRE_OP_MAX + 1 +
		       rc_rnd(rng) % (255 - ORDO_WIRE_OP_MAX);
		break;
	case RC_H_COUNT:
		if (rc_rnd(rng) % 2) {
			struct ordo_wire_scan_req *s = (void *)(h + 1);

			memset(s, 0, sizeof(*s));
			s->count = htole32(rc_rnd(rng) % 2 ? 0 :
					   ORDO_WIRE_SCAN_MAX + 1 +
					   (uint32_t)rc_rnd(rng) % 1000000);
			rc_hdr(msg, ORDO_WIRE_OP_SCAN, *id, sizeof(*s));
			len = sizeof(*h) + sizeof(*s);
		} else {
			struct ordo_wire_batch *b = (void *)(h + 1);
			struct ordo_wire_kv *kv = (void *)(b + 1);

			/* Zero, too many, or more than the body holds. */
			memset(b, 0, sizeof(*b) + sizeof(*kv));
			kv->op = ORDO_WIRE_OP_DELETE;
			kv->key = htole64(base);
			switch (rc_rnd(rng) % 3) {
			case 0:
				b->count = 0;
				break;
			case 1:
				b->count = htole32(ORDO_WIRE_BATCH_MAX + 1 +
						   rc_rnd(rng) % 1000);
				break;
			default:
				b->count = htole32(2 + rc_rnd(rng) % 200);
			}
			rc_hdr(msg, ORDO_WIRE_OP_BATCH, *id,
			       sizeof(*b) + sizeof(*kv));
			len = sizeof(*h) + sizeof(*b) + sizeof(*kv);
		}
		break;
	case RC_H_SHORT:
		len = rc_rnd(rng) % sizeof(*h);
		break;
	case RC_H_OVERSIZE:
		len = max_msg + 1 + rc_rnd(rng) % 64;
		memset(msg + full, 0, len - full);
		h->length = htole32(len);
		break;
	default:
		break;
	}
	*id = le64toh(h->id);
	*op = h->op;
	return len;
}

#endif /* ORDO_RAW_CLIENT_H */
