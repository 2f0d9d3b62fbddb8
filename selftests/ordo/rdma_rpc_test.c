// SPDX-License-Identifier: GPL-2.0
/*
 * The RDMA server as a client sees it, over rxe: connect and the accept
 * reply, every RPC with its status codes (the ioctls' errnos), SCAN
 * continuation, batches, the region table, one-sided READs that find a key
 * just inserted, hinted UPDATE, pool growth announced to a connected
 * client, LOOKUP (the learned client's fallback: GET plus the key's
 * current sub-model), the access token and its per-address throttle
 * (from a second address on ordo0), protocol-version and
 * malformed-request rejects, max_connections, and the sysfs counters.
 */
#define _GNU_SOURCE
/*
 * The harness runs each test body after setjmp(); once the body is inlined
 * its locals look clobberable, but none is used after a longjmp().
 */
#pragma GCC diagnostic ignored "-Wclobbered"
#include <stdbool.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include "ordo_test.h"
#include "kselftest_harness.h"
#include "model.h"
#include "node.h"
#include "raw_client.h"

/* Keys of this test binary live here, clear of other tests' keys. */
#define KBASE	0x7200000000000000ULL

FIXTURE(rpc) {
	int fd;
	uint32_t vs;
	struct rc_conn c;
	struct ordo_geo geo;
};

FIXTURE_SETUP(rpc)
{
	/* The guest always has rxe and the server: their absence is a bug. */
	ASSERT_TRUE(rc_available());
	/* Defaults, whatever an earlier test left behind. */
	ASSERT_EQ(0, rc_set_param("token", "\n"));
	ASSERT_EQ(0, rc_set_param("max_connections", "64"));
	ASSERT_EQ(0, rc_set_param("max_connections_per_peer", "32"));
	self->fd = open(ORDO_DEV, O_RDWR);
	ASSERT_LE(0, self->fd);
	self->vs = t_value_size(self->fd);
	ASSERT_EQ(0, t_clear(self->fd));
	ASSERT_EQ(0, rc_connect(&self->c, NULL));
	self->geo.node_size = le32toh(self->c.rep.node_size);
	self->geo.leaf_slots = le32toh(self->c.rep.leaf_slots);
	self->geo.inner_fanout = le32toh(self->c.rep.inner_fanout);
	self->geo.value_size = le32toh(self->c.rep.value_size);
}

FIXTURE_TEARDOWN(rpc)
{
	rc_close(&self->c);
	rc_set_param("token", "\n");
	rc_set_param("max_connections", "64");
	rc_set_param("max_connections_per_peer", "32");
	if (self->fd > 0) {
		t_clear(self->fd);
		close(self->fd);
	}
}

/*
 * Read node @n, expected at @level, by RDMA READ and validate the copy
 * (retry torn ones): an inner node's inner size, node_size otherwise.
 */
static int rd_node(struct rc_conn *c, const struct ordo_geo *geo, uint32_t n,
		   uint32_t level, void *buf)
{
	uint32_t len = level ? ordo_inner_size(geo->inner_fanout) :
		       geo->node_size;
	int i, ret = -EAGAIN;

	for (i = 0; i < 100 && ret == -EAGAIN; i++) {
		ret = rc_read(c, rc_node_off(c, n), len, buf);
		if (!ret)
			ret = ordo_node_validate_part(buf, len, geo);
	}
	return ret;
}

/*
 * Walk from the root to the leaf covering @key with one-sided READs only,
 * as the client library will: superblock, inner nodes, right links.
 */
static int rd_leaf(struct rc_conn *c, const struct ordo_geo *geo, uint64_t key,
		   uint8_t *buf, uint32_t *leaf)
{
	struct ordo_super_info si;
	uint32_t n, level;
	int ret, steps;

	ret = rd_node(c, geo, 0, 0, buf);
	if (ret)
		return ret;
	ret = ordo_super_parse(buf, geo->node_size, &si);
	if (ret)
		return ret;
	n = si.root;
	level = si.height - 1;
	for (steps = 0; steps < 1000; steps++) {
		const struct ordo_node_hdr *h = (const void *)buf;
		uint32_t cnt, i;

		ret = rd_node(c, geo, n, level, buf);
		if (ret)
			return ret;
		if (h->flags & (ORDO_NODE_F_FREE | ORDO_NODE_F_SUPER) ||
		    le32toh(h->node_no) != n || h->level != level ||
		    key < le64toh(h->low_key))
			return -ESTALE;
		if ((h->flags & ORDO_NODE_F_HAS_HIGH) &&
		    key >= le64toh(h->high_key)) {
			n = le32toh(h->right);
			continue;
		}
		if (!h->level) {
			*leaf = n;
			return 0;
		}
		cnt = le16toh(h->count);
		i = ordo_keys_upper_bound(ordo_node_ckeys(h), cnt, key);
		n = le32toh(ordo_inner_cchildren(h, geo)[i ? i - 1 : 0]);
		level--;
	}
	return -ELOOP;
}

/* Is @key in the leaf copy @buf?  Its value goes to @val. */
static bool leaf_has(const struct ordo_geo *geo, const uint8_t *buf,
		     uint64_t key, void *val)
{
	const struct ordo_node_hdr *h = (const void *)buf;
	uint32_t cnt = le16toh(h->count), rank;
	int slot = ordo_leaf_find(h, geo, cnt, key, &rank);

	if (slot < 0)
		return false;
	memcpy(val, ordo_leaf_cvalue(h, geo, slot), geo->value_size);
	return true;
}

TEST_F(rpc, accept_reply_and_info)
{
	const struct ordo_wire_info *wi;
	struct ordo_info info;
	char path[128], buf[128];

	ASSERT_EQ(0, t_ioctl(self->fd, ORDO_IOC_INFO, &info));
	EXPECT_EQ(info.node_size, le32toh(self->c.rep.node_size));
	EXPECT_EQ(info.value_size, le32toh(self->c.rep.value_size));
	EXPECT_EQ(info.leaf_slots, le32toh(self->c.rep.leaf_slots));
	EXPECT_EQ(info.inner_fanout, le32toh(self->c.rep.inner_fanout));
	EXPECT_EQ(info.chunk_size, le64toh(self->c.rep.chunk_size));
	EXPECT_EQ(info.max_chunks, le32toh(self->c.rep.max_chunks));
	EXPECT_LE(1, self->c.qd);
	EXPECT_LE(ORDO_WIRE_MSG_MIN, self->c.max_msg);
	EXPECT_EQ(ORDO_WIRE_BATCH_MAX, le32toh(self->c.rep.batch_max));
	EXPECT_EQ(ordo_value_len_max(info.chunk_size),
		  le32toh(self->c.rep.value_max));

	ASSERT_EQ(0, rc_call(&self->c, ORDO_WIRE_OP_INFO, NULL, 0));
	ASSERT_EQ(sizeof(struct ordo_wire_hdr) + sizeof(*wi), self->c.reply_len);
	wi = rc_reply_body(&self->c);
	EXPECT_EQ(self->c.rep.server_id, wi->server_id);
	EXPECT_EQ(info.node_size, le32toh(wi->node_size));
	EXPECT_EQ(info.keys, le64toh(wi->keys));
	EXPECT_EQ(self->c.qd, le32toh(wi->queue_depth));
	EXPECT_EQ(self->c.max_msg, le32toh(wi->max_msg));

	/* The connection shows up in sysfs. */
	EXPECT_LE(1, rc_sysfs_u64("stats/connections"));
	snprintf(path, sizeof(path), RC_SYSFS "/connections/%u/queue_depth",
		 le32toh(self->c.rep.conn_id));
	ASSERT_EQ(0, t_read_file(path, buf, sizeof(buf)));
	EXPECT_EQ(self->c.qd, strtoul(buf, NULL, 10));
	snprintf(path, sizeof(path), RC_SYSFS "/connections/%u/peer",
		 le32toh(self->c.rep.conn_id));
	ASSERT_EQ(0, t_read_file(path, buf, sizeof(buf)));
	EXPECT_EQ(0, strncmp(buf, "192.0.2.1:", 10));
	snprintf(path, sizeof(path), RC_SYSFS "/connections/%u/state",
		 le32toh(self->c.rep.conn_id));
	ASSERT_EQ(0, t_read_file(path, buf, sizeof(buf)));
	EXPECT_STREQ("live\n", buf);
	ASSERT_EQ(0, t_read_file(RC_SYSFS "/listener", buf, sizeof(buf)));
	EXPECT_EQ(0, strncmp(buf, "[::]:7471", 9));
}

TEST_F(rpc, point_ops_and_errnos)
{
	uint8_t v[ORDO_VALUE_SIZE_MAX + 16], g[ORDO_VALUE_SIZE_MAX];
	uint64_t k = KBASE + 1;
	struct rc_conn *c = &self->c;

	t_fill(v, self->vs, k, 1);
	EXPECT_EQ(-ENOENT, rc_kv(c, ORDO_WIRE_OP_GET, k, g, 0));
	EXPECT_EQ(-ENOENT, rc_kv(c, ORDO_WIRE_OP_UPDATE, k, v, self->vs));
	EXPECT_EQ(-ENOENT, rc_kv(c, ORDO_WIRE_OP_DELETE, k, NULL, 0));
	EXPECT_EQ(0, rc_kv(c, ORDO_WIRE_OP_INSERT, k, v, self->vs));
	EXPECT_EQ(-EEXIST, rc_kv(c, ORDO_WIRE_OP_INSERT, k, v, self->vs));
	ASSERT_EQ(0, rc_kv(c, ORDO_WIRE_OP_GET, k, g, 0));
	EXPECT_EQ(1, t_version(g, self->vs, k));
	/* The same store as /dev/ordo. */
	ASSERT_EQ(0, t_kv(self->fd, ORDO_IOC_GET, k, g, self->vs));
	EXPECT_EQ(1, t_version(g, self->vs, k));
	t_fill(v, self->vs, k, 2);
	EXPECT_EQ(0, rc_kv(c, ORDO_WIRE_OP_UPDATE, k, v, self->vs));
	t_fill(v, self->vs, k, 3);
	EXPECT_EQ(0, rc_kv(c, ORDO_WIRE_OP_PUT, k, v, self->vs));
	ASSERT_EQ(0, t_kv(self->fd, ORDO_IOC_GET, k, g, self->vs));
	EXPECT_EQ(3, t_version(g, self->vs, k));
	/* A short value keeps its length: the GET reply is its 3 bytes. */
	memset(v, 0xab, 3);
	EXPECT_EQ(0, rc_kv(c, ORDO_WIRE_OP_PUT, k + 1, v, 3));
	ASSERT_EQ(0, rc_kv(c, ORDO_WIRE_OP_GET, k + 1, g, 0));
	EXPECT_EQ(sizeof(struct ordo_wire_hdr) + 3, c->reply_len);
	EXPECT_EQ(0xab, g[2]);
	EXPECT_EQ(0, g[3]);
	/* An empty value is a value: its reply has no body. */
	EXPECT_EQ(0, rc_kv(c, ORDO_WIRE_OP_PUT, k + 3, v, 0));
	ASSERT_EQ(0, rc_kv(c, ORDO_WIRE_OP_GET, k + 3, g, 0));
	EXPECT_EQ(sizeof(struct ordo_wire_hdr), c->reply_len);
	EXPECT_EQ(0, rc_kv(c, ORDO_WIRE_OP_DELETE, k + 3, NULL, 0));
	/*
	 * Longer than value_size: stored out of line (rdma_long_test reads
	 * it back, and checks EMSGSIZE over value_max).
	 */
	EXPECT_EQ(0, rc_kv(c, ORDO_WIRE_OP_PUT, k + 2, v, self->vs + 8));
	EXPECT_EQ(0, rc_kv(c, ORDO_WIRE_OP_DELETE, k + 2, NULL, 0));
	/* Same conditions, same errnos as the ioctls. */
	EXPECT_EQ(-EEXIST, t_kv(self->fd, ORDO_IOC_INSERT, k, v, self->vs));
	EXPECT_EQ(-ENOENT, rc_kv(c, ORDO_WIRE_OP_GET, k + 2, g, 0));
	EXPECT_EQ(0, rc_kv(c, ORDO_WIRE_OP_DELETE, k, NULL, 0));
	EXPECT_EQ(-ENOENT, rc_kv(c, ORDO_WIRE_OP_DELETE, k, NULL, 0));
	EXPECT_EQ(-ENOENT, t_kv(self->fd, ORDO_IOC_GET, k, g, self->vs));
	/* Key 0 and the largest key are ordinary keys. */
	EXPECT_EQ(0, rc_kv(c, ORDO_WIRE_OP_PUT, 0, v, self->vs));
	EXPECT_EQ(0, rc_kv(c, ORDO_WIRE_OP_PUT, UINT64_MAX, v, self->vs));
	EXPECT_EQ(0, rc_kv(c, ORDO_WIRE_OP_GET, UINT64_MAX, g, 0));
}

/* Load @n keys KBASE + 3i through BATCH RPCs of up to @per entries. */
static int batch_load(struct rc_conn *c, uint32_t vs, uint32_t n, uint32_t per)
{
	uint8_t body[65536];
	uint32_t i = 0, j, off;
	int ret;

	while (i < n) {
		struct ordo_wire_batch *b = (void *)body;
		uint32_t cnt = n - i < per ? n - i : per;

		off = sizeof(*b);
		for (j = 0; j < cnt; j++, i++) {
			struct ordo_wire_kv *kv = (void *)(body + off);
			uint64_t k = KBASE + 3ULL * i;

			memset(kv, 0, sizeof(*kv));
			kv->key = htole64(k);
			kv->op = ORDO_WIRE_OP_PUT;
			kv->value_len = htole16(vs);
			t_fill(kv + 1, vs, k, 7);
			off += sizeof(*kv) + vs;
		}
		b->count = htole32(cnt);
		b->flags = 0;
		ret = rc_call(c, ORDO_WIRE_OP_BATCH, body, off);
		if (ret)
			return ret;
		for (j = 0; j < cnt; j++) {
			const struct ordo_wire_batch_res *res;

			res = (const void *)((const uint8_t *)rc_reply_body(c) +
					     sizeof(struct ordo_wire_batch_rep));
			if (res[j].status)
				return ordo_wire_errno(le32toh(res[j].status));
		}
	}
	return 0;
}

/* Entries per batch that fit in one request and its reply. */
static uint32_t batch_per(struct rc_conn *c, uint32_t vs)
{
	uint32_t per = (c->max_msg - sizeof(struct ordo_wire_hdr) -
			sizeof(struct ordo_wire_batch)) /
		       (sizeof(struct ordo_wire_kv) + vs);

	return per > ORDO_WIRE_BATCH_MAX ? ORDO_WIRE_BATCH_MAX : per;
}

TEST_F(rpc, scan_continuation)
{
	struct ordo_wire_scan_req req = { 0 };
	struct rc_conn *c = &self->c;
	uint32_t n = 3000, got = 0, replies = 0;
	uint64_t next = KBASE;
	bool more = true;

	ASSERT_EQ(0, batch_load(c, self->vs, n, batch_per(c, self->vs)));
	while (more) {
		const struct ordo_wire_scan_rep *rep;
		const uint64_t *keys;
		const uint32_t *lens;
		const uint8_t *vals;
		uint32_t ret, i;

		req.start = htole64(next);
		req.count = htole32(ORDO_WIRE_SCAN_MAX);
		ASSERT_EQ(0, rc_call(c, ORDO_WIRE_OP_SCAN, &req, sizeof(req)));
		ASSERT_GE(c->max_msg, c->reply_len);
		rep = rc_reply_body(c);
		ret = le32toh(rep->returned);
		ASSERT_EQ(sizeof(struct ordo_wire_hdr) + sizeof(*rep) +
			  ret * (12 + self->vs), c->reply_len);
		keys = (const void *)(rep + 1);
		lens = (const uint32_t *)(keys + ret);
		vals = (const uint8_t *)(lens + ret);
		for (i = 0; i < ret; i++, got++) {
			ASSERT_EQ(KBASE + 3ULL * got, le64toh(keys[i]));
			ASSERT_EQ(self->vs, le32toh(lens[i]));
			ASSERT_EQ(7, t_version(vals + i * self->vs, self->vs,
					       le64toh(keys[i])));
		}
		more = le32toh(rep->more);
		next = le64toh(rep->next);
		if (more)
			ASSERT_EQ(le64toh(keys[ret - 1]) + 1, next);
		replies++;
	}
	EXPECT_EQ(n, got);
	/* Bounded replies: 3000 pairs do not fit in one. */
	EXPECT_LT(1, replies);

	/* Keys only, a small count: exactly that many, more set. */
	req.start = htole64(KBASE);
	req.count = htole32(10);
	req.flags = htole32(ORDO_WIRE_SCAN_KEYS_ONLY);
	ASSERT_EQ(0, rc_call(c, ORDO_WIRE_OP_SCAN, &req, sizeof(req)));
	EXPECT_EQ(sizeof(struct ordo_wire_hdr) +
		  sizeof(struct ordo_wire_scan_rep) + 80, c->reply_len);
	EXPECT_EQ(1, le32toh(((const struct ordo_wire_scan_rep *)
			       rc_reply_body(c))->more));
	/* Past the last key: nothing, no more. */
	req.start = htole64(KBASE + 3ULL * n);
	ASSERT_EQ(0, rc_call(c, ORDO_WIRE_OP_SCAN, &req, sizeof(req)));
	EXPECT_EQ(0, ((const struct ordo_wire_scan_rep *)rc_reply_body(c))->returned);
	EXPECT_EQ(0, ((const struct ordo_wire_scan_rep *)rc_reply_body(c))->more);
	/* Bad counts and flags. */
	req.count = 0;
	EXPECT_EQ(-EINVAL, rc_call(c, ORDO_WIRE_OP_SCAN, &req, sizeof(req)));
	req.count = htole32(ORDO_WIRE_SCAN_MAX + 1);
	EXPECT_EQ(-E2BIG, rc_call(c, ORDO_WIRE_OP_SCAN, &req, sizeof(req)));
	req.count = htole32(1);
	req.flags = htole32(2);
	EXPECT_EQ(-EINVAL, rc_call(c, ORDO_WIRE_OP_SCAN, &req, sizeof(req)));
}

/* Is @got (@vlen bytes) what a write of t_fill(key, ver)'s first stored? */
static bool value_is(const uint8_t *got, uint32_t vlen, uint64_t key,
		     uint64_t ver)
{
	uint8_t want[ORDO_VALUE_SIZE_MAX] = { 0 };

	t_fill(want, vlen, key, ver);
	return !memcmp(want, got, vlen);
}

TEST_F(rpc, batch)
{
	uint8_t body[65536], g[ORDO_VALUE_SIZE_MAX];
	/* Short values keep the batch within the smallest max_msg. */
	uint32_t wlen = self->vs < 64 ? self->vs : 64;
	struct ordo_wire_batch *b = (void *)body;
	const struct ordo_wire_batch_res *res;
	struct rc_conn *c = &self->c;
	static const uint8_t ops[] = {
		ORDO_WIRE_OP_PUT, ORDO_WIRE_OP_INSERT, ORDO_WIRE_OP_INSERT,
		ORDO_WIRE_OP_GET, ORDO_WIRE_OP_UPDATE, ORDO_WIRE_OP_GET,
		ORDO_WIRE_OP_DELETE, ORDO_WIRE_OP_GET, ORDO_WIRE_OP_DELETE,
	};
	static const uint64_t keys[] = { 1, 2, 1, 1, 2, 2, 1, 1, 9 };
	static const int want[] = {
		0, 0, -EEXIST, 0, 0, 0, 0, -ENOENT, -ENOENT,
	};
	uint32_t i, off = sizeof(*b);
	const uint8_t *vals;

	for (i = 0; i < sizeof(ops); i++) {
		struct ordo_wire_kv *kv = (void *)(body + off);
		uint32_t vlen = ops[i] == ORDO_WIRE_OP_GET ||
				ops[i] == ORDO_WIRE_OP_DELETE ? 0 : wlen;

		memset(kv, 0, sizeof(*kv) + vlen);
		kv->key = htole64(KBASE + keys[i]);
		kv->op = ops[i];
		kv->value_len = htole16(vlen);
		t_fill(kv + 1, vlen, KBASE + keys[i], i);
		off += sizeof(*kv) + vlen;
	}
	b->count = htole32(sizeof(ops));
	b->flags = 0;
	ASSERT_EQ(0, rc_call(c, ORDO_WIRE_OP_BATCH, body, off));
	EXPECT_EQ(sizeof(ops), le32toh(((const struct ordo_wire_batch_rep *)
					 rc_reply_body(c))->count));
	res = (const void *)((const uint8_t *)rc_reply_body(c) +
			     sizeof(struct ordo_wire_batch_rep));
	vals = (const uint8_t *)(res + sizeof(ops));
	for (i = 0; i < sizeof(ops); i++) {
		EXPECT_EQ(want[i], ordo_wire_errno(le32toh(res[i].status)));
		if (ops[i] == ORDO_WIRE_OP_GET && !want[i]) {
			/* Values keep their length, packed back to back. */
			EXPECT_EQ(wlen, le32toh(res[i].value_len));
			/* GET 1 sees the PUT (entry 0); GET 2 the UPDATE (4). */
			EXPECT_TRUE(value_is(vals, wlen, KBASE + keys[i],
					     keys[i] == 1 ? 0 : 4));
			vals += wlen;
		} else {
			EXPECT_EQ(0, res[i].value_len);
		}
	}
	EXPECT_EQ(sizeof(struct ordo_wire_hdr) + vals -
		  (const uint8_t *)rc_reply_body(c), c->reply_len);
	ASSERT_EQ(0, t_kv(self->fd, ORDO_IOC_GET, KBASE + 2, g, self->vs));
	EXPECT_TRUE(value_is(g, wlen, KBASE + 2, 4));

	/* Malformed batches change nothing: a bad entry after good ones. */
	off = sizeof(*b);
	for (i = 0; i < 3; i++) {
		struct ordo_wire_kv *kv = (void *)(body + off);

		memset(kv, 0, sizeof(*kv) + self->vs);
		kv->key = htole64(KBASE + 100 + i);
		kv->op = i == 2 ? 77 : ORDO_WIRE_OP_PUT;
		kv->value_len = htole16(self->vs);
		off += sizeof(*kv) + self->vs;
	}
	b->count = htole32(3);
	EXPECT_EQ(-EINVAL, rc_call(c, ORDO_WIRE_OP_BATCH, body, off));
	EXPECT_EQ(-ENOENT, t_kv(self->fd, ORDO_IOC_GET, KBASE + 100, g, self->vs));
	/* Count larger than the entries sent. */
	((struct ordo_wire_kv *)(body + sizeof(*b) + 2 *
				 (sizeof(struct ordo_wire_kv) + self->vs)))->op =
		ORDO_WIRE_OP_PUT;
	b->count = htole32(4);
	EXPECT_EQ(-EINVAL, rc_call(c, ORDO_WIRE_OP_BATCH, body, off));
	/* Trailing bytes after the last entry. */
	b->count = htole32(2);
	EXPECT_EQ(-EINVAL, rc_call(c, ORDO_WIRE_OP_BATCH, body, off));
	EXPECT_EQ(-ENOENT, t_kv(self->fd, ORDO_IOC_GET, KBASE + 100, g, self->vs));
	/* A value longer than value_size in a batch: stored out of line. */
	((struct ordo_wire_kv *)(body + sizeof(*b)))->value_len =
		htole16(self->vs + 8);
	b->count = htole32(1);
	EXPECT_EQ(0, rc_call(c, ORDO_WIRE_OP_BATCH, body,
			     sizeof(*b) + sizeof(struct ordo_wire_kv) +
			     self->vs + 8));
	EXPECT_EQ(0, t_kv(self->fd, ORDO_IOC_DELETE,
			  le64toh(((struct ordo_wire_kv *)(body + sizeof(*b)))->key),
			  NULL, 0));
	/* Counts. */
	b->count = 0;
	EXPECT_EQ(-EINVAL, rc_call(c, ORDO_WIRE_OP_BATCH, body, sizeof(*b)));
	b->count = htole32(ORDO_WIRE_BATCH_MAX + 1);
	EXPECT_EQ(-E2BIG, rc_call(c, ORDO_WIRE_OP_BATCH, body, off));
	b->count = htole32(0xffffffff);
	EXPECT_EQ(-E2BIG, rc_call(c, ORDO_WIRE_OP_BATCH, body, off));
	EXPECT_EQ(-ENOENT, t_kv(self->fd, ORDO_IOC_GET, KBASE + 100, g, self->vs));
}

/*
 * The reply bound: a batch of GETs whose values cannot all fit in one reply
 * is refused whole (E2BIG), one entry fewer runs.  With small values even
 * the largest batch fits, and then it must run with every value returned.
 */
TEST_F(rpc, batch_reply_bound)
{
	uint8_t body[65536];
	struct ordo_wire_batch *b = (void *)body;
	const struct ordo_wire_batch_res *res;
	struct rc_conn *c = &self->c;
	uint32_t i, n = 0, off = sizeof(*b);

	while (n < ORDO_WIRE_BATCH_MAX &&
	       sizeof(struct ordo_wire_hdr) + sizeof(struct ordo_wire_batch_rep) +
	       (n + 1) * (sizeof(struct ordo_wire_batch_res) + self->vs) <=
	       c->max_msg)
		n++;
	ASSERT_EQ(0, rc_kv(c, ORDO_WIRE_OP_PUT, KBASE, body, self->vs));
	for (i = 0; i <= n && i < ORDO_WIRE_BATCH_MAX; i++) {
		struct ordo_wire_kv *kv = (void *)(body + off);

		memset(kv, 0, sizeof(*kv));
		kv->key = htole64(KBASE);
		kv->op = ORDO_WIRE_OP_GET;
		off += sizeof(*kv);
	}
	b->flags = 0;
	if (n < ORDO_WIRE_BATCH_MAX) {
		b->count = htole32(n + 1);
		EXPECT_EQ(-E2BIG, rc_call(c, ORDO_WIRE_OP_BATCH, body, off));
		off -= sizeof(struct ordo_wire_kv);
	}
	TH_LOG("%u GETs fit in a %u-byte reply", n, c->max_msg);
	b->count = htole32(n);
	ASSERT_EQ(0, rc_call(c, ORDO_WIRE_OP_BATCH, body, off));
	res = (const void *)((const uint8_t *)rc_reply_body(c) +
			     sizeof(struct ordo_wire_batch_rep));
	for (i = 0; i < n; i++) {
		EXPECT_EQ(0, res[i].status);
		EXPECT_EQ(self->vs, le32toh(res[i].value_len));
	}
	EXPECT_EQ(sizeof(struct ordo_wire_hdr) + sizeof(struct ordo_wire_batch_rep) +
		  n * (sizeof(*res) + self->vs), c->reply_len);
}

TEST_F(rpc, one_sided_read_finds_inserted_key)
{
	static uint8_t node[RC_NODE_MAX];
	uint8_t v[ORDO_VALUE_SIZE_MAX], g[ORDO_VALUE_SIZE_MAX];
	struct rc_conn *c = &self->c;
	uint64_t chunk = le64toh(c->rep.chunk_size), covered = 0;
	struct ordo_super_info si;
	uint32_t leaf, i;

	ASSERT_EQ(0, batch_load(c, self->vs, 500, batch_per(c, self->vs)));
	t_fill(v, self->vs, KBASE + 1, 42);
	ASSERT_EQ(0, rc_kv(c, ORDO_WIRE_OP_INSERT, KBASE + 1, v, self->vs));
	ASSERT_EQ(0, rc_regions(c));
	/* The table tiles the registered prefix of the pool, in order. */
	ASSERT_LE(1, c->nregions);
	for (i = 0; i < c->nregions; i++) {
		EXPECT_EQ(covered, le64toh(c->regions[i].offset));
		EXPECT_EQ(0, le64toh(c->regions[i].length) % chunk);
		EXPECT_EQ(ORDO_WIRE_REGION_POOL, le16toh(c->regions[i].kind));
		covered += le64toh(c->regions[i].length);
	}
	EXPECT_EQ((uint64_t)c->pool_chunks * chunk, covered);
	/* The superblock at offset 0 bootstraps the walk. */
	ASSERT_EQ(0, rd_node(c, &self->geo, 0, 0, node));
	ASSERT_EQ(0, ordo_super_parse(node, self->geo.node_size, &si));
	EXPECT_EQ(self->geo.node_size, si.geo.node_size);
	EXPECT_EQ(le32toh(c->rep.nodes_per_chunk), si.nodes_per_chunk);
	/* The key just inserted, found by READs alone. */
	ASSERT_EQ(0, rd_leaf(c, &self->geo, KBASE + 1, node, &leaf));
	ASSERT_TRUE(leaf_has(&self->geo, node, KBASE + 1, g));
	EXPECT_EQ(42, t_version(g, self->vs, KBASE + 1));
	/* And a loaded one, and one that is absent. */
	ASSERT_EQ(0, rd_leaf(c, &self->geo, KBASE + 3 * 321, node, &leaf));
	ASSERT_TRUE(leaf_has(&self->geo, node, KBASE + 3 * 321, g));
	EXPECT_EQ(7, t_version(g, self->vs, KBASE + 3 * 321));
	ASSERT_EQ(0, rd_leaf(c, &self->geo, KBASE + 2, node, &leaf));
	EXPECT_FALSE(leaf_has(&self->geo, node, KBASE + 2, g));
	/* A READ past what is registered fails. */
	EXPECT_EQ(-ERANGE, rc_read(c, covered, 64, node));
}

TEST_F(rpc, hinted_update)
{
	static uint8_t node[RC_NODE_MAX];
	uint8_t v[ORDO_VALUE_SIZE_MAX], g[ORDO_VALUE_SIZE_MAX];
	struct rc_conn *c = &self->c;
	const struct ordo_node_hdr *h = (const void *)node;
	uint64_t k = KBASE + 3 * 200;
	uint32_t leaf, other, inc;
	int used;

	ASSERT_EQ(0, batch_load(c, self->vs, 400, batch_per(c, self->vs)));
	ASSERT_EQ(0, rc_regions(c));
	ASSERT_EQ(0, rd_leaf(c, &self->geo, k, node, &leaf));
	inc = le32toh(h->incarnation);
	t_fill(v, self->vs, k, 50);
	EXPECT_EQ(0, rc_update_hint(c, k, v, self->vs, leaf, inc, &used));
	EXPECT_TRUE(used);
	ASSERT_EQ(0, rc_kv(c, ORDO_WIRE_OP_GET, k, g, 0));
	EXPECT_EQ(50, t_version(g, self->vs, k));
	/* The incarnation is ignored: the leaf's number and fences decide. */
	t_fill(v, self->vs, k, 51);
	EXPECT_EQ(0, rc_update_hint(c, k, v, self->vs, leaf, inc + 1, &used));
	EXPECT_TRUE(used);
	ASSERT_EQ(0, rc_kv(c, ORDO_WIRE_OP_GET, k, g, 0));
	EXPECT_EQ(51, t_version(g, self->vs, k));
	/* A stale hint costs a descent, not correctness. */
	ASSERT_EQ(0, rd_leaf(c, &self->geo, KBASE, node, &other));
	ASSERT_NE(other, leaf);
	t_fill(v, self->vs, k, 52);
	EXPECT_EQ(0, rc_update_hint(c, k, v, self->vs, other, 0, &used));
	EXPECT_FALSE(used);
	ASSERT_EQ(0, rc_kv(c, ORDO_WIRE_OP_GET, k, g, 0));
	EXPECT_EQ(52, t_version(g, self->vs, k));
	EXPECT_EQ(0, rc_update_hint(c, k, v, self->vs, 0, 0, &used));
	EXPECT_FALSE(used);
	EXPECT_EQ(0, rc_update_hint(c, k, v, self->vs, 0xffffffff, 7, &used));
	EXPECT_FALSE(used);
	/* The leaf covering an absent key says so authoritatively. */
	ASSERT_EQ(0, rd_leaf(c, &self->geo, k + 1, node, &leaf));
	EXPECT_EQ(-ENOENT, rc_update_hint(c, k + 1, v, self->vs, leaf, 0,
					  &used));
	EXPECT_EQ(-ENOENT, rc_kv(c, ORDO_WIRE_OP_GET, k + 1, g, 0));
}

TEST_F(rpc, hint_fields_only_with_update)
{
	uint8_t body[64] = { 0 };
	struct ordo_wire_kv *kv = (void *)body;
	struct rc_conn *c = &self->c;

	kv->key = htole64(KBASE);
	kv->value_len = htole16(8);
	kv->op = ORDO_WIRE_OP_PUT;
	kv->flags = ORDO_WIRE_KV_HINT;
	EXPECT_EQ(-EINVAL, rc_call(c, ORDO_WIRE_OP_PUT, body, sizeof(*kv) + 8));
	kv->flags = 0;
	kv->hint_leaf = htole32(5);
	EXPECT_EQ(-EINVAL, rc_call(c, ORDO_WIRE_OP_PUT, body, sizeof(*kv) + 8));
	kv->hint_leaf = 0;
	kv->flags = 0x80;
	EXPECT_EQ(-EINVAL, rc_call(c, ORDO_WIRE_OP_PUT, body, sizeof(*kv) + 8));
	kv->flags = 0;
	/* arg only with KV_PART (GET) or KV_STAGED (writes). */
	kv->arg = htole32(1);
	EXPECT_EQ(-EINVAL, rc_call(c, ORDO_WIRE_OP_PUT, body, sizeof(*kv) + 8));
	kv->flags = ORDO_WIRE_KV_PART;
	EXPECT_EQ(-EINVAL, rc_call(c, ORDO_WIRE_OP_PUT, body, sizeof(*kv) + 8));
	kv->flags = 0;
	kv->arg = 0;
	/* The body's op must match the header's. */
	kv->op = ORDO_WIRE_OP_INSERT;
	EXPECT_EQ(-EINVAL, rc_call(c, ORDO_WIRE_OP_PUT, body, sizeof(*kv) + 8));
	kv->op = ORDO_WIRE_OP_PUT;
	/* Padding must be zero. */
	kv->value_len = htole16(5);
	body[sizeof(*kv) + 6] = 1;
	EXPECT_EQ(-EINVAL, rc_call(c, ORDO_WIRE_OP_PUT, body, sizeof(*kv) + 8));
	body[sizeof(*kv) + 6] = 0;
	EXPECT_EQ(0, rc_call(c, ORDO_WIRE_OP_PUT, body, sizeof(*kv) + 8));
	/* A value on GET. */
	kv->op = ORDO_WIRE_OP_GET;
	EXPECT_EQ(-EINVAL, rc_call(c, ORDO_WIRE_OP_GET, body, sizeof(*kv) + 8));
}

TEST_F_TIMEOUT(rpc, pool_growth_is_announced, 300)
{
	struct ordo_batch_op ops[ORDO_BATCH_MAX];
	struct rc_conn *c = &self->c;
	uint8_t vals[ORDO_BATCH_MAX][ORDO_VALUE_SIZE_MAX];
	static uint8_t node[RC_NODE_MAX];
	uint8_t g[ORDO_VALUE_SIZE_MAX];
	uint32_t before, leaf, i, n;
	int ret;
	uint64_t k, covered, limit;
	struct ordo_info info;
	struct ordo_batch b;

	ASSERT_EQ(0, rc_call(c, ORDO_WIRE_OP_INFO, NULL, 0));
	before = le32toh(((const struct ordo_wire_info *)rc_reply_body(c))->nr_chunks);
	ASSERT_EQ(0, rc_wait_pool_chunks(c, before));
	ASSERT_EQ(before, c->pool_chunks);
	ASSERT_EQ(0, rc_regions(c));
	/*
	 * Grow the pool by at least one chunk, fast, through /dev/ordo.  The
	 * earlier tests' deletes leave free nodes behind, as many as the
	 * background retirement has given back by now: insert new keys until
	 * the pool grows, at most as many as its nodes hold as full leaves
	 * (past that it must grow).
	 */
	ASSERT_EQ(0, t_ioctl(self->fd, ORDO_IOC_INFO, &info));
	limit = (uint64_t)info.leaf_slots *
		(info.pool_bytes_total / info.node_size) + ORDO_BATCH_MAX;
	for (k = KBASE; k - KBASE < limit;) {
		ASSERT_EQ(0, t_ioctl(self->fd, ORDO_IOC_INFO, &info));
		if (info.pool_bytes_total >= (uint64_t)(before + 1) * info.chunk_size &&
		    info.pool_bytes_used > (uint64_t)before * info.chunk_size +
		    info.node_size)
			break;
		for (i = 0; i < ORDO_BATCH_MAX; i++, k++) {
			ops[i].op = ORDO_OP_PUT;
			ops[i].result = 0;
			ops[i].kv.key = k;
			ops[i].kv.value = (uintptr_t)vals[i];
			ops[i].kv.value_len = self->vs;
			ops[i].kv.flags = 0;
			t_fill(vals[i], self->vs, k, 9);
		}
		memset(&b, 0, sizeof(b));
		b.ops = (uintptr_t)ops;
		b.count = ORDO_BATCH_MAX;
		ASSERT_EQ(0, t_ioctl(self->fd, ORDO_IOC_BATCH, &b));
		for (i = 0; i < ORDO_BATCH_MAX; i++)
			ASSERT_EQ(0, ops[i].result);
	}
	ASSERT_LT(before, info.pool_bytes_total / info.chunk_size)
		TH_LOG("%llu keys inserted, %llu of %llu pool bytes used",
		       (unsigned long long)(k - KBASE),
		       (unsigned long long)info.pool_bytes_used,
		       (unsigned long long)info.pool_bytes_total);
	/* Replies announce the chunks once the registrar published them... */
	ASSERT_EQ(0, rc_wait_pool_chunks(c, info.pool_bytes_total /
					    info.chunk_size));
	EXPECT_EQ(info.pool_bytes_total / info.chunk_size, c->pool_chunks);
	/* ...and REGIONS hands out their keys. */
	ASSERT_EQ(0, rc_fetch_regions_min(c, ORDO_WIRE_REGION_POOL,
					  (uint64_t)c->pool_chunks *
					  info.chunk_size, &c->regions,
					  &c->nregions));
	covered = 0;
	for (i = 0; i < c->nregions; i++)
		covered += le64toh(c->regions[i].length);
	EXPECT_EQ((uint64_t)c->pool_chunks * info.chunk_size, covered);
	/*
	 * Nodes handed out from the first new chunk are readable (a leaf,
	 * or an inner node if it is a chunk of those)...
	 */
	n = before * le32toh(c->rep.nodes_per_chunk);
	ret = rd_node(c, &self->geo, n, 0, node);
	if (ret == -ESTALE)
		ret = rd_node(c, &self->geo, n, 1, node);
	ASSERT_EQ(0, ret);
	/* ...and the walk finds the last key inserted. */
	k--;
	ASSERT_EQ(0, rd_leaf(c, &self->geo, k, node, &leaf));
	ASSERT_TRUE(leaf_has(&self->geo, node, k, g));
	EXPECT_EQ(9, t_version(g, self->vs, k));
	EXPECT_LE((long long)covered, rc_sysfs_u64("stats/registered_bytes"));
}

/* Malformed MODEL_FETCH and REGIONS, unknown ops (rdma_model_test: the rest). */
TEST_F(rpc, malformed_model_and_region_requests)
{
	struct ordo_wire_model_req m = { 0 };
	struct ordo_wire_regions_req r = { 0 };
	struct rc_conn *c = &self->c;

	m.part = htole16(ORDO_WIRE_MODEL_TT);
	EXPECT_EQ(-EINVAL, rc_call(c, ORDO_WIRE_OP_MODEL_FETCH, &m, sizeof(m)));
	m.part = htole16(9);
	EXPECT_EQ(-EINVAL, rc_call(c, ORDO_WIRE_OP_MODEL_FETCH, &m, sizeof(m)));
	m.part = 0;
	EXPECT_EQ(-EINVAL, rc_call(c, ORDO_WIRE_OP_MODEL_FETCH, &m, sizeof(m)));
	m.part = htole16(ORDO_WIRE_MODEL_TOP);
	m.flags = htole16(1);
	EXPECT_EQ(-EINVAL, rc_call(c, ORDO_WIRE_OP_MODEL_FETCH, &m, sizeof(m)));
	m.flags = 0;
	m.count = htole32(1);
	EXPECT_EQ(-EINVAL, rc_call(c, ORDO_WIRE_OP_MODEL_FETCH, &m, sizeof(m)));
	m.count = 0;
	m.part = htole16(ORDO_WIRE_MODEL_SUB);
	m.offset = htole32(8);
	EXPECT_EQ(-EINVAL, rc_call(c, ORDO_WIRE_OP_MODEL_FETCH, &m, sizeof(m)));
	EXPECT_EQ(-EINVAL, rc_call(c, ORDO_WIRE_OP_MODEL_FETCH, &m, 4));
	/* A kind this server does not know is unsupported, like an op. */
	r.kind = htole16(ORDO_WIRE_REGION_TABLE + 1);
	EXPECT_EQ(-EOPNOTSUPP, rc_call(c, ORDO_WIRE_OP_REGIONS, &r, sizeof(r)));
	/* The table's listing has one entry; past it is EINVAL. */
	r.kind = htole16(ORDO_WIRE_REGION_TABLE);
	r.first = htole32(2);
	EXPECT_EQ(-EINVAL, rc_call(c, ORDO_WIRE_OP_REGIONS, &r, sizeof(r)));
	r.first = 0;
	r.kind = 0;
	EXPECT_EQ(-EOPNOTSUPP, rc_call(c, ORDO_WIRE_OP_REGIONS, &r, sizeof(r)));
	r.kind = htole16(0xffff);
	EXPECT_EQ(-EOPNOTSUPP, rc_call(c, ORDO_WIRE_OP_REGIONS, &r, sizeof(r)));
	/* The body and flags are checked before the kind. */
	EXPECT_EQ(-EINVAL, rc_call(c, ORDO_WIRE_OP_REGIONS, &r, 4));
	r.flags = htole16(1);
	EXPECT_EQ(-EINVAL, rc_call(c, ORDO_WIRE_OP_REGIONS, &r, sizeof(r)));
	r.kind = htole16(ORDO_WIRE_REGION_POOL);
	EXPECT_EQ(-EINVAL, rc_call(c, ORDO_WIRE_OP_REGIONS, &r, sizeof(r)));
	r.flags = 0;
	r.first = htole32(1000000);
	EXPECT_EQ(-EINVAL, rc_call(c, ORDO_WIRE_OP_REGIONS, &r, sizeof(r)));
	/* Unknown op codes. */
	EXPECT_EQ(-EOPNOTSUPP, rc_call(c, 0, NULL, 0));
	EXPECT_EQ(-EOPNOTSUPP, rc_call(c, ORDO_WIRE_OP_MAX + 1, NULL, 0));
	EXPECT_EQ(-EOPNOTSUPP, rc_call(c, 255, NULL, 0));
	/* INFO takes no body. */
	EXPECT_EQ(-EINVAL, rc_call(c, ORDO_WIRE_OP_INFO, &r, sizeof(r)));
}

/* A LOOKUP reply, taken apart and checked against the wire rules. */
struct lookup_res {
	struct ordo_wire_lookup_rep rep;
	uint8_t val[ORDO_VALUE_SIZE_MAX];
	uint8_t model[ORDO_WIRE_MSG_MAX];
};

static int lookup_raw(struct rc_conn *c, uint64_t key, uint64_t epoch,
		      uint32_t flags, uint32_t reserved)
{
	struct ordo_wire_lookup_req req = {
		.key = htole64(key),
		.epoch = htole64(epoch),
		.flags = htole32(flags),
		.reserved = htole32(reserved),
	};

	return rc_call(c, ORDO_WIRE_OP_LOOKUP, &req, sizeof(req));
}

/* LOOKUP @key; -EBADMSG if the reply breaks a rule of Documentation/wire.rst. */
static int lookup(struct rc_conn *c, uint64_t key, uint32_t flags,
		  struct lookup_res *res)
{
	const uint8_t *b = rc_reply_body(c);
	uint32_t vs = le32toh(c->rep.value_size), vlen, mlen, pad;
	const struct ordo_wire_lookup_rep *rep = (const void *)b;
	int ret = lookup_raw(c, key, 0, flags, 0);

	if (ret)
		return ret;
	if (c->reply_len < sizeof(struct ordo_wire_hdr) + sizeof(*rep))
		return -EBADMSG;
	memcpy(&res->rep, rep, sizeof(*rep));
	vlen = le32toh(rep->value_len);
	mlen = le32toh(rep->model_len);
	pad = ordo_wire_pad8(vlen);
	if (le32toh(rep->found) > 1 || rep->reserved ||
	    vlen != (rep->found ? vs : 0) ||
	    c->reply_len != sizeof(struct ordo_wire_hdr) + sizeof(*rep) + pad +
			    mlen)
		return -EBADMSG;
	for (uint32_t i = vlen; i < pad; i++)
		if (b[sizeof(*rep) + i])
			return -EBADMSG;
	if (!mlen) {
		if (rep->epoch || rep->sub || rep->model_total)
			return -EBADMSG;
	} else if (le32toh(rep->model_total) < mlen ||
		   (mlen != ORDO_MODEL_DESC_SIZE &&
		    mlen != le32toh(rep->model_total)) ||
		   !rep->epoch) {
		return -EBADMSG;
	}
	memcpy(res->val, b + sizeof(*rep), vlen);
	memcpy(res->model, b + sizeof(*rep) + pad, mlen);
	return 0;
}

/* The published top level by MODEL_FETCH TOP, as a client model. */
static int fetch_top(struct rc_conn *c, struct ordo_model **mp)
{
	uint32_t len, rpcs = 0;
	uint64_t epoch;
	uint8_t *top;
	int ret;

	ordo_model_free(*mp);
	*mp = NULL;
	ret = rc_model_top(c, &top, &len, &epoch, &rpcs);
	if (ret)
		return ret;
	ret = ordo_model_load_top(mp, top, len);
	free(top);
	return ret;
}

/*
 * Install the sub-model a LOOKUP attached into @m: the whole slice came
 * along, or the descriptor alone and the slice by MODEL_FETCH TT.
 * *@whole: the slice was in the LOOKUP reply.
 */
static int install_sub(struct rc_conn *c, struct ordo_model *m,
		       struct lookup_res *res, int *whole)
{
	const struct ordo_model_desc *d = (const void *)res->model;
	uint32_t mlen = le32toh(res->rep.model_len), have = 0, ntt, first;
	struct ordo_wire_model_rep rep;
	uint8_t *slice = res->model + ORDO_MODEL_DESC_SIZE;
	size_t cap = sizeof(res->model) - ORDO_MODEL_DESC_SIZE;
	static uint8_t big[ORDO_MODEL_DESC_SIZE + 4096 * ORDO_TT_ENTRY_SIZE];
	int ret;

	if (mlen < ORDO_MODEL_DESC_SIZE)
		return -ENODATA;
	ntt = le32toh(d->ntt);
	first = le32toh(d->tt_start);
	*whole = mlen == le32toh(res->rep.model_total);
	if (!*whole) {
		if (le32toh(res->rep.model_total) !=
		    ORDO_MODEL_DESC_SIZE + ntt * ORDO_TT_ENTRY_SIZE)
			return -EBADMSG;
		memcpy(big, res->model, ORDO_MODEL_DESC_SIZE);
		d = (const void *)big;
		slice = big + ORDO_MODEL_DESC_SIZE;
		cap = sizeof(big) - ORDO_MODEL_DESC_SIZE;
		if ((size_t)ntt * ORDO_TT_ENTRY_SIZE > cap)
			return -E2BIG;
		while (have < ntt) {
			ret = rc_model_fetch(c, ORDO_WIRE_MODEL_TT,
					     first + have, ntt - have, 0, &rep,
					     slice + have * ORDO_TT_ENTRY_SIZE,
					     cap - have * ORDO_TT_ENTRY_SIZE);
			if (ret)
				return ret;
			if (!rep.returned ||
			    le64toh(rep.epoch) != le64toh(res->rep.epoch))
				return -EBADMSG;
			have += le32toh(rep.returned) / ORDO_TT_ENTRY_SIZE;
		}
		mlen = ORDO_MODEL_DESC_SIZE + ntt * ORDO_TT_ENTRY_SIZE;
	}
	return ordo_model_load_sub(m, le32toh(res->rep.sub), d, slice,
				   mlen - ORDO_MODEL_DESC_SIZE);
}

/*
 * With @m, READ the leaf its TT names for @key: 1 if that leaf is the one
 * holding @key's range and has @key, 0 if it lacks @key, -ESTALE if the
 * entry does not name the leaf of @key (stale TT).
 */
static int tt_leaf(struct rc_conn *c, const struct ordo_geo *geo,
		   const struct ordo_model *m, uint64_t key, uint32_t *leaf)
{
	static uint8_t node[RC_NODE_MAX];
	const struct ordo_node_hdr *h = (const void *)node;
	uint8_t v[ORDO_VALUE_SIZE_MAX];
	struct ordo_pred pr;
	uint32_t i;
	int ret;

	if (ordo_model_lookup(m, key, &pr))
		return -ENODATA;
	/* The candidates, then the leaf before them (a tie settled right). */
	*leaf = ordo_pred_ent(&pr, 0).leaf;
	for (i = 0; i <= pr.ncand; i++) {
		struct ordo_tt ent, *e = &ent;

		if (!ordo_pred_try(&pr, i, &ent))
			return -ESTALE;
		ret = rd_node(c, geo, e->leaf, 0, node);
		if (ret)
			return ret;
		if (h->level ||
		    (h->flags & (ORDO_NODE_F_FREE | ORDO_NODE_F_SUPER)) ||
		    key < le64toh(h->low_key) ||
		    ((h->flags & ORDO_NODE_F_HAS_HIGH) &&
		     key >= le64toh(h->high_key)))
			continue;
		*leaf = e->leaf;
		if (!ordo_tt_inca_matches(e, le32toh(h->incarnation)))
			return -ESTALE;
		return leaf_has(geo, node, key, v);
	}
	return -ESTALE;
}

/*
 * The learned client's repair: LOOKUP @key, install the attached
 * sub-model (the top level fetched again when the epoch moved, or when
 * the checksum failed: a top level changed within the epoch moves the
 * pivots it binds), and resolve @key with it by READ.  Return as
 * tt_leaf(); *@whole as install_sub().
 */
static int lookup_repair(struct rc_conn *c, const struct ordo_geo *geo,
			 struct ordo_model **mp, uint64_t key,
			 struct lookup_res *res, int *whole, uint32_t *leaf)
{
	int ret = -EAGAIN, tries;

	for (tries = 0; tries < 20; tries++) {
		ret = lookup(c, key, 0, res);
		if (ret)
			return ret;
		if (!res->rep.model_len)
			return -ENODATA;
		if (!*mp || (*mp)->epoch != le64toh(res->rep.epoch)) {
			ret = fetch_top(c, mp);
			if (ret == -EBADMSG)
				continue;
			if (ret)
				return ret;
			if ((*mp)->epoch != le64toh(res->rep.epoch))
				continue;
		}
		/*
		 * The index the server found is the client's own, unless the
		 * tail was extended within the epoch: fetch the top again.
		 */
		if (le32toh(res->rep.sub) != ordo_model_sub_of(*mp, key)) {
			ordo_model_free(*mp);
			*mp = NULL;
			ret = -EPROTO;
			continue;
		}
		ret = install_sub(c, *mp, res, whole);
		if (ret == -EBADMSG) {
			/* A race, or a top level changed within the epoch. */
			ordo_model_free(*mp);
			*mp = NULL;
			continue;
		}
		if (ret)
			return ret;
		return tt_leaf(c, geo, *mp, key, leaf);
	}
	return ret;
}

/* Load @n keys @base + @step * i with t_fill() values through /dev/ordo. */
static int ioctl_load(int fd, uint32_t vs, uint64_t base, uint64_t step,
		      uint32_t n)
{
	static struct ordo_batch_op ops[ORDO_BATCH_MAX];
	static uint8_t vals[ORDO_BATCH_MAX][ORDO_VALUE_SIZE_MAX];
	struct ordo_batch b;
	uint32_t i = 0, j;
	int ret;

	while (i < n) {
		for (j = 0; j < ORDO_BATCH_MAX && i < n; j++, i++) {
			uint64_t k = base + step * i;

			t_fill(vals[j], vs, k, 4);
			memset(&ops[j], 0, sizeof(ops[j]));
			ops[j].op = ORDO_OP_PUT;
			ops[j].kv.key = k;
			ops[j].kv.value = (uintptr_t)vals[j];
			ops[j].kv.value_len = vs;
		}
		memset(&b, 0, sizeof(b));
		b.ops = (uintptr_t)ops;
		b.count = j;
		ret = t_ioctl(fd, ORDO_IOC_BATCH, &b);
		if (ret)
			return ret;
	}
	return 0;
}

TEST_F(rpc, lookup_found_and_absent)
{
	static struct lookup_res res;
	uint8_t v[ORDO_VALUE_SIZE_MAX], g[ORDO_VALUE_SIZE_MAX];
	struct rc_conn *c = &self->c;
	uint64_t k = KBASE + 0x100;

	t_fill(v, self->vs, k, 9);
	ASSERT_EQ(0, rc_kv(c, ORDO_WIRE_OP_PUT, k, v, self->vs));
	/* Present: the value, as GET returns it. */
	ASSERT_EQ(0, lookup(c, k, 0, &res));
	EXPECT_EQ(1, le32toh(res.rep.found));
	EXPECT_EQ(self->vs, le32toh(res.rep.value_len));
	EXPECT_EQ(9, t_version(res.val, self->vs, k));
	ASSERT_EQ(0, rc_kv(c, ORDO_WIRE_OP_GET, k, g, 0));
	EXPECT_EQ(0, memcmp(g, res.val, self->vs));
	/* Absent: status OK, found 0, no value -- GET says ENOENT. */
	ASSERT_EQ(0, lookup(c, k + 1, 0, &res));
	EXPECT_EQ(0, le32toh(res.rep.found));
	EXPECT_EQ(0, le32toh(res.rep.value_len));
	EXPECT_EQ(-ENOENT, rc_kv(c, ORDO_WIRE_OP_GET, k + 1, g, 0));
	/* NO_MODEL: a plain GET, no model bytes whatever is published. */
	ASSERT_EQ(0, lookup(c, k, ORDO_WIRE_LOOKUP_NO_MODEL, &res));
	EXPECT_EQ(1, le32toh(res.rep.found));
	EXPECT_EQ(9, t_version(res.val, self->vs, k));
	EXPECT_EQ(0, le32toh(res.rep.model_len));
	EXPECT_EQ(0, le32toh(res.rep.model_total));
	EXPECT_EQ(0, le64toh(res.rep.epoch));
	EXPECT_EQ(0, le32toh(res.rep.sub));
	EXPECT_EQ(sizeof(struct ordo_wire_hdr) + sizeof(res.rep) +
		  ordo_wire_pad8(self->vs), c->reply_len);
	ASSERT_EQ(0, lookup(c, k + 1, ORDO_WIRE_LOOKUP_NO_MODEL, &res));
	EXPECT_EQ(0, le32toh(res.rep.found));
	EXPECT_EQ(sizeof(struct ordo_wire_hdr) + sizeof(res.rep),
		  c->reply_len);
	/* The client's epoch is informational: any value is accepted. */
	EXPECT_EQ(0, lookup_raw(c, k, UINT64_MAX, 0, 0));
	/* Key 0 and the largest key are ordinary keys. */
	ASSERT_EQ(0, rc_kv(c, ORDO_WIRE_OP_PUT, UINT64_MAX, v, self->vs));
	ASSERT_EQ(0, lookup(c, UINT64_MAX, 0, &res));
	EXPECT_EQ(1, le32toh(res.rep.found));
	ASSERT_EQ(0, lookup(c, 0, 0, &res));
	EXPECT_EQ(0, le32toh(res.rep.found));
}

TEST_F(rpc, lookup_malformed_changes_nothing)
{
	struct ordo_wire_lookup_req req = { .key = htole64(KBASE + 7) };
	static struct lookup_res res;
	uint8_t v[ORDO_VALUE_SIZE_MAX], body[64] = { 0 };
	struct rc_conn *c = &self->c;
	const struct ordo_wire_info *wi;
	long long lookups = rc_sysfs_u64("stats/rpc_lookup");
	long long errs = rc_sysfs_u64("stats/rpc_errors");
	uint64_t keys;

	ASSERT_LE(0, lookups);
	t_fill(v, self->vs, KBASE + 7, 3);
	ASSERT_EQ(0, rc_kv(c, ORDO_WIRE_OP_PUT, KBASE + 7, v, self->vs));
	ASSERT_EQ(0, rc_call(c, ORDO_WIRE_OP_INFO, NULL, 0));
	wi = rc_reply_body(c);
	keys = le64toh(wi->keys);
	/* Body not exactly 24 bytes. */
	EXPECT_EQ(-EINVAL, rc_call(c, ORDO_WIRE_OP_LOOKUP, NULL, 0));
	EXPECT_EQ(-EINVAL, rc_call(c, ORDO_WIRE_OP_LOOKUP, &req, 8));
	EXPECT_EQ(-EINVAL, rc_call(c, ORDO_WIRE_OP_LOOKUP, &req, 16));
	EXPECT_EQ(-EINVAL, rc_call(c, ORDO_WIRE_OP_LOOKUP, &req, 20));
	memcpy(body, &req, sizeof(req));
	EXPECT_EQ(-EINVAL, rc_call(c, ORDO_WIRE_OP_LOOKUP, body, 32));
	EXPECT_EQ(-EINVAL, rc_call(c, ORDO_WIRE_OP_LOOKUP, body, 25));
	/* Unknown flags, reserved bits. */
	EXPECT_EQ(-EINVAL, lookup_raw(c, KBASE + 7, 0, 0x02, 0));
	EXPECT_EQ(-EINVAL, lookup_raw(c, KBASE + 7, 0, 0x80000000, 0));
	EXPECT_EQ(-EINVAL, lookup_raw(c, KBASE + 7, 0,
				      ORDO_WIRE_LOOKUP_NO_MODEL | 0x100, 0));
	EXPECT_EQ(-EINVAL, lookup_raw(c, KBASE + 7, 0, 0, 1));
	EXPECT_EQ(-EINVAL, lookup_raw(c, KBASE + 7, 0, 0, 0x80000000));
	/* Error replies carry no body (rc_call checks), the store is as it was. */
	ASSERT_EQ(0, rc_call(c, ORDO_WIRE_OP_INFO, NULL, 0));
	wi = rc_reply_body(c);
	EXPECT_EQ(keys, le64toh(wi->keys));
	ASSERT_EQ(0, lookup(c, KBASE + 7, 0, &res));
	EXPECT_EQ(1, le32toh(res.rep.found));
	EXPECT_EQ(3, t_version(res.val, self->vs, KBASE + 7));
	/* The connection still serves requests in order. */
	ASSERT_EQ(0, lookup(c, KBASE + 8, 0, &res));
	EXPECT_EQ(0, le32toh(res.rep.found));
	/* Counted per op, malformed ones too; an absent key is no error. */
	EXPECT_EQ(lookups + 13, rc_sysfs_u64("stats/rpc_lookup"));
	EXPECT_EQ(errs + 11, rc_sysfs_u64("stats/rpc_errors"));
}

/*
 * The fallback after a retraining: the attached sub-model is the one
 * MODEL_FETCH SUB gives, loads on the published top level, and its TT
 * names the leaf holding the key (checked by READ), for keys of every
 * sub-model, present and absent; large slices come as the descriptor
 * alone.
 */
TEST_F_TIMEOUT(rpc, lookup_returns_the_sub_model, 300)
{
	const uint32_t n = 20000;
	const uint64_t step = 4099;
	static struct lookup_res res;
	static uint8_t sub[ORDO_WIRE_MSG_MAX];
	struct ordo_model *m = NULL;
	struct ordo_wire_model_rep mrep;
	struct ordo_retrain rt = { 0 };
	uint32_t i, j, leaf, whole = 0, desc_only = 0, subs_seen = 0;
	uint32_t last_sub = UINT32_MAX;
	int ret, w;

	ASSERT_EQ(0, ioctl_load(self->fd, self->vs, KBASE, step, n));
	ASSERT_EQ(0, t_ioctl(self->fd, ORDO_IOC_RETRAIN, &rt));
	ASSERT_LT(0, rt.version);
	ASSERT_EQ(0, rc_regions(&self->c));
	/* Every 211th key and the last one. */
	for (j = 0; j <= n / 211; j++) {
		uint64_t k;

		i = j < n / 211 ? j * 211 : n - 1;
		k = KBASE + step * i;

		ret = lookup_repair(&self->c, &self->geo, &m, k, &res, &w,
				    &leaf);
		ASSERT_EQ(1, ret)
			TH_LOG("key %llu: %d", (unsigned long long)k, ret);
		EXPECT_EQ(1, le32toh(res.rep.found));
		EXPECT_EQ(4, t_version(res.val, self->vs, k));
		EXPECT_LE(rt.version, le64toh(res.rep.epoch));
		whole += w;
		desc_only += !w;
		if (le32toh(res.rep.sub) != last_sub)
			subs_seen++;
		last_sub = le32toh(res.rep.sub);
		/* A key between stored keys: the same leaf, without it. */
		ret = lookup_repair(&self->c, &self->geo, &m, k + 1, &res, &w,
				    &leaf);
		ASSERT_EQ(0, ret);
		EXPECT_EQ(0, le32toh(res.rep.found));
		EXPECT_EQ(0, le32toh(res.rep.value_len));
	}
	TH_LOG("%u sub-models, %u seen; slices attached whole %u, descriptor alone %u",
	       ordo_model_count(m), subs_seen, whole, desc_only);
	/*
	 * Several sub-models met (others may cover only empty leaves that
	 * earlier tests left): the server's search over the pivots counts.
	 */
	EXPECT_LT(1, subs_seen);
	/* The first and last keys of the space: the first and last in use. */
	ASSERT_EQ(0, lookup(&self->c, 0, 0, &res));
	if (le64toh(res.rep.epoch) == m->epoch)
		EXPECT_EQ(m->first, le32toh(res.rep.sub));
	ASSERT_EQ(0, lookup(&self->c, UINT64_MAX, 0, &res));
	if (le64toh(res.rep.epoch) == m->epoch)
		EXPECT_EQ(m->nsub - 1, le32toh(res.rep.sub));
	/* The attached bytes are MODEL_FETCH SUB's, descriptor and slice. */
	for (i = 0; i < 5; i++) {
		ASSERT_EQ(0, lookup(&self->c, KBASE + step * (n / 2), 0, &res));
		ASSERT_EQ(0, rc_model_fetch(&self->c, ORDO_WIRE_MODEL_SUB,
					 le32toh(res.rep.sub), 0, 0, &mrep,
					 sub, sizeof(sub)));
		if (le64toh(mrep.epoch) == le64toh(res.rep.epoch))
			break;
	}
	EXPECT_EQ(le32toh(mrep.total), le32toh(res.rep.model_total));
	EXPECT_EQ(0, memcmp(sub, res.model, ORDO_MODEL_DESC_SIZE));
	if (le32toh(res.rep.model_len) == le32toh(res.rep.model_total) &&
	    le32toh(mrep.returned) == le32toh(mrep.total))
		EXPECT_EQ(0, memcmp(sub, res.model, le32toh(res.rep.model_len)));
	/* NO_MODEL leaves it out even with a model published. */
	ASSERT_EQ(0, lookup(&self->c, KBASE, ORDO_WIRE_LOOKUP_NO_MODEL, &res));
	EXPECT_EQ(0, le32toh(res.rep.model_len));
	EXPECT_EQ(0, le64toh(res.rep.epoch));
	ordo_model_free(m);
}

/*
 * A small model: the slice rides along when it fits.  Then splits make the TT
 * stale; LOOKUP keeps answering, and once the trainer has patched the
 * sub-model its reply repairs the client's copy, without a new top level
 * unless the trainer cut the sub-model (the splits are a dense cluster;
 * under a slow kernel the trainer may see them over several rounds).
 */
TEST_F_TIMEOUT(rpc, lookup_repairs_a_stale_tt, 300)
{
	const uint64_t step = 1ULL << 20;
	static struct lookup_res res;
	struct ordo_model *m = NULL;
	struct ordo_retrain rt = { 0 };
	uint8_t v[ORDO_VALUE_SIZE_MAX];
	uint64_t k = KBASE + step * 100, hot;
	uint32_t leaf, leaf0, i, tries, torn = 0;
	long long t0;
	int ret, w;

	ASSERT_EQ(0, ioctl_load(self->fd, self->vs, KBASE, step, 400));
	ASSERT_EQ(0, t_ioctl(self->fd, ORDO_IOC_RETRAIN, &rt));
	ASSERT_EQ(0, rc_regions(&self->c));
	ASSERT_EQ(1, lookup_repair(&self->c, &self->geo, &m, k, &res, &w,
				   &leaf0));
	/*
	 * The slice rides along exactly when the reply has room for it (the
	 * sub-model may also span empty leaves that earlier tests left and
	 * that are not retired yet, so its size is not this test's own).
	 */
	if (sizeof(struct ordo_wire_hdr) + sizeof(res.rep) +
	    ordo_wire_pad8(le32toh(res.rep.value_len)) +
	    le32toh(res.rep.model_total) <= self->c.max_msg) {
		EXPECT_EQ(1, w);
		EXPECT_EQ(le32toh(res.rep.model_len),
			  le32toh(res.rep.model_total));
	} else {
		EXPECT_EQ(0, w);
		EXPECT_EQ(ORDO_MODEL_DESC_SIZE, le32toh(res.rep.model_len));
	}
	/* Split the leaf of k many times over, right above k. */
	for (i = 1; i <= 4 * self->geo.leaf_slots; i++) {
		t_fill(v, self->vs, k + i, 6);
		ASSERT_EQ(0, rc_kv(&self->c, ORDO_WIRE_OP_PUT, k + i, v,
				   self->vs));
	}
	hot = k + 4 * self->geo.leaf_slots;
	/* The client's copy is stale now: its entry names the old leaf. */
	EXPECT_EQ(-ESTALE, tt_leaf(&self->c, &self->geo, m, hot, &leaf));
	EXPECT_EQ(leaf0, leaf);
	/* Whatever the TT says, LOOKUP itself is right at once. */
	ASSERT_EQ(0, lookup(&self->c, hot, 0, &res));
	EXPECT_EQ(1, le32toh(res.rep.found));
	EXPECT_EQ(6, t_version(res.val, self->vs, hot));
	/*
	 * The trainer patches the sub-model; the fallback picks that up.  A
	 * slow kernel may still be publishing the splits' patches, round
	 * after round, while the client asks: bytes that keep failing their
	 * checksum are asked for again a little later.
	 */
	t0 = rc_now_ms();
	for (tries = 0, ret = -ESTALE;
	     (ret == -ESTALE || ret == -EBADMSG) && tries < 600; tries++) {
		ret = lookup_repair(&self->c, &self->geo, &m, hot, &res, &w,
				    &leaf);
		if (ret == -EBADMSG)
			torn++;
		if (ret == -ESTALE || ret == -EBADMSG)
			usleep(100000);
	}
	ASSERT_EQ(1, ret);
	EXPECT_EQ(6, t_version(res.val, self->vs, hot));
	TH_LOG("TT repaired by LOOKUP after %lld ms (%u tries, %u failing checksums 20 times): leaf %u, was %u",
	       rc_now_ms() - t0, tries, torn, leaf, leaf0);
	ordo_model_free(m);
}

TEST_F(rpc, token)
{
	struct rc_opts o = { 0 };
	struct rc_conn c2;
	char buf[64];
	long long rej = rc_sysfs_u64("stats/rejected_token");
	struct stat st;

	ASSERT_EQ(0, rc_set_param("token", "sekrit-token-0123\n"));
	/* Write-only: not readable back, not even by root. */
	ASSERT_EQ(0, stat(RC_PARAMS "/token", &st));
	EXPECT_EQ(0200, st.st_mode & 0777);
	EXPECT_NE(0, t_read_file(RC_PARAMS "/token", buf, sizeof(buf)));
	/* No token, a wrong one, a prefix, a longer one. */
	EXPECT_EQ(-EACCES, rc_connect(&c2, NULL));
	EXPECT_EQ(ORDO_WIRE_REJ_TOKEN, le16toh(c2.rej.reason));
	EXPECT_EQ(28, c2.rej_status);
	EXPECT_STREQ("wrong access token",
		     ordo_wire_rej_str(le16toh(c2.rej.reason)));
	o.token = "sekrit-token-0124";
	EXPECT_EQ(-EACCES, rc_connect(&c2, &o));
	EXPECT_EQ(ORDO_WIRE_REJ_TOKEN, le16toh(c2.rej.reason));
	o.token = "sekrit-token-012";
	EXPECT_EQ(-EACCES, rc_connect(&c2, &o));
	o.token = "sekrit-token-01234";
	EXPECT_EQ(-EACCES, rc_connect(&c2, &o));
	EXPECT_EQ(rej + 4, rc_sysfs_u64("stats/rejected_token"));
	/* The right one. */
	o.token = "sekrit-token-0123";
	ASSERT_EQ(0, rc_connect(&c2, &o));
	EXPECT_EQ(ORDO_WIRE_CONN_F_TOKEN, le32toh(c2.rep.flags));
	EXPECT_EQ(0, rc_call(&c2, ORDO_WIRE_OP_INFO, NULL, 0));
	rc_close(&c2);
	/* A connection made before the token was set keeps working. */
	EXPECT_EQ(0, rc_call(&self->c, ORDO_WIRE_OP_INFO, NULL, 0));
	/* Too long to set. */
	EXPECT_EQ(-EINVAL, rc_set_param("token",
		"0123456789012345678901234567890123456789x"));
	/* Cleared: no token needed again. */
	ASSERT_EQ(0, rc_set_param("token", "\n"));
	ASSERT_EQ(0, rc_connect(&c2, NULL));
	EXPECT_EQ(0, le32toh(c2.rep.flags));
	rc_close(&c2);
}

/* Connect with @token until refused with @reason: how many attempts. */
static int wrong_tokens(const char *token, int n)
{
	struct rc_opts o = { .token = token };
	struct rc_conn c;
	int i;

	for (i = 0; i < n; i++)
		if (rc_connect(&c, &o) != -EACCES ||
		    le16toh(c.rej.reason) != ORDO_WIRE_REJ_TOKEN)
			return i;
	return n;
}

/*
 * Present 8 wrong tokens within the throttle's 10 s window, counted from
 * the first, leaving 4 s of it for the checks that follow: on a slow guest
 * the 8 connects may take longer, and then the next try starts once that
 * window is over.  Return: when the window of the 8 started, or -1.
 */
static long long throttle_self(const char *token)
{
	for (int tries = 0; tries < 4; tries++) {
		long long t0 = rc_now_ms(), took;

		if (wrong_tokens(token, 8) != 8)
			return -1;
		took = rc_now_ms() - t0;
		if (took < 6000)
			return t0;
		printf("# 8 wrong tokens took %lld ms: again\n", took);
		usleep(10000 * 1000);
	}
	return -1;
}

/*
 * Tokens of 16..40 bytes; 8 wrong ones from an address within 10 s make
 * it wait out the window, even with the right token; a new token forgets.
 */
TEST_F_TIMEOUT(rpc, token_policy, 300)
{
	struct rc_opts o = { .token = "policy-token-0123" };
	long long thr = rc_sysfs_u64("stats/rejected_throttled");
	struct rc_conn c2;
	long long t0;
	int ret;

	EXPECT_EQ(-EINVAL, rc_set_param("token", "fifteen-bytes-x"));
	EXPECT_EQ(-EINVAL, rc_set_param("token", "1"));
	ASSERT_EQ(0, rc_set_param("token", "sixteen-bytes-xy"));
	ASSERT_EQ(0, rc_set_param("token", "policy-token-0123"));
	ASSERT_LE(0, throttle_self("policy-token-9999"));
	/* The ninth attempt is refused unseen, right token or not. */
	EXPECT_EQ(-EAGAIN, rc_connect(&c2, &o));
	EXPECT_EQ(ORDO_WIRE_REJ_THROTTLED, le16toh(c2.rej.reason));
	EXPECT_EQ(28, c2.rej_status);
	EXPECT_EQ(thr + 1, rc_sysfs_u64("stats/rejected_throttled"));
	/* Connected clients are not affected. */
	EXPECT_EQ(0, rc_call(&self->c, ORDO_WIRE_OP_INFO, NULL, 0));
	/* A new token forgets the failures. */
	ASSERT_EQ(0, rc_set_param("token", "policy-token-4567"));
	o.token = "policy-token-4567";
	ASSERT_EQ(0, rc_connect(&c2, &o));
	rc_close(&c2);
	/* Throttled again; served once the window has passed. */
	t0 = throttle_self("policy-token-9999");
	ASSERT_LE(0, t0);
	EXPECT_EQ(-EAGAIN, rc_connect(&c2, &o));
	for (ret = -EAGAIN; ret == -EAGAIN && rc_now_ms() - t0 < 60000;) {
		usleep(250000);
		ret = rc_connect(&c2, &o);
	}
	ASSERT_EQ(0, ret);
	EXPECT_LE(9000, rc_now_ms() - t0);
	TH_LOG("throttled for %lld ms", rc_now_ms() - t0);
	rc_close(&c2);
	ASSERT_EQ(0, rc_set_param("token", "\n"));
}

#define OTHER_IP	"192.0.2.78"

static int sh(const char *cmd)
{
	int st = system(cmd);

	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

/* The peer address the server shows for connection @c. */
static int conn_peer(struct rc_conn *c, char *buf, size_t len)
{
	char path[128];

	snprintf(path, sizeof(path), RC_SYSFS "/connections/%u/peer",
		 le32toh(c->rep.conn_id));
	return t_read_file(path, buf, len);
}

/*
 * Wrong tokens are throttled per peer address: while RC_ADDR is, a
 * client connecting from a second address is served, and its own wrong
 * tokens are still checked (refused as wrong, not unseen).
 */
TEST_F_TIMEOUT(rpc, token_throttle_is_per_peer, 300)
{
	struct rc_opts o = { .token = "peer-token-012345" };
	struct rc_opts other = { .token = "peer-token-012345",
				 .src = OTHER_IP };
	long long thr = rc_sysfs_u64("stats/rejected_throttled");
	long long rej;
	struct rc_conn c2;
	char peer[64];
	int ret, i;

	sh("ip addr del " OTHER_IP "/24 dev ordo0 2>/dev/null");
	ASSERT_EQ(0, sh("ip addr add " OTHER_IP "/24 dev ordo0"));
	ASSERT_EQ(0, rc_set_param("token", "peer-token-012345"));
	/* rxe adds the address's GID shortly after the address. */
	for (i = 0, ret = -1; ret && i < 100; i++) {
		ret = rc_connect(&c2, &other);
		if (ret)
			usleep(100000);
	}
	ASSERT_EQ(0, ret);
	ASSERT_EQ(0, conn_peer(&c2, peer, sizeof(peer)));
	EXPECT_NE(NULL, strstr(peer, OTHER_IP ":"));
	rc_close(&c2);

	/* RC_ADDR: 8 wrong tokens, then refused unseen. */
	ASSERT_LE(0, throttle_self("peer-token-999999"));
	rej = rc_sysfs_u64("stats/rejected_token") - 8;
	EXPECT_EQ(-EAGAIN, rc_connect(&c2, &o));
	EXPECT_EQ(ORDO_WIRE_REJ_THROTTLED, le16toh(c2.rej.reason));
	/* The other address is served meanwhile... */
	ASSERT_EQ(0, rc_connect(&c2, &other));
	ASSERT_EQ(0, conn_peer(&c2, peer, sizeof(peer)));
	EXPECT_NE(NULL, strstr(peer, OTHER_IP ":"));
	EXPECT_EQ(0, rc_call(&c2, ORDO_WIRE_OP_INFO, NULL, 0));
	rc_close(&c2);
	/* ...and its wrong tokens are read and counted as its own. */
	other.token = "peer-token-999999";
	EXPECT_EQ(-EACCES, rc_connect(&c2, &other));
	EXPECT_EQ(ORDO_WIRE_REJ_TOKEN, le16toh(c2.rej.reason));
	/* RC_ADDR is still throttled. */
	EXPECT_EQ(-EAGAIN, rc_connect(&c2, &o));
	EXPECT_EQ(thr + 2, rc_sysfs_u64("stats/rejected_throttled"));
	EXPECT_EQ(rej + 9, rc_sysfs_u64("stats/rejected_token"));
	TH_LOG("%s throttled after 8 wrong tokens; %s served and judged",
	       RC_ADDR, OTHER_IP);
	ASSERT_EQ(0, rc_set_param("token", "\n"));
	EXPECT_EQ(0, sh("ip addr del " OTHER_IP "/24 dev ordo0"));
}

TEST_F(rpc, version_and_malformed_rejects)
{
	struct ordo_wire_conn_req req;
	struct rc_opts o = { 0 };
	long long mal = rc_sysfs_u64("stats/rejected_malformed");
	long long ver = rc_sysfs_u64("stats/rejected_version");
	struct rc_conn c2;

	/*
	 * Version 1, before value lengths, 2, before long values, and 3,
	 * before inner nodes of their own size, are refused like any other.
	 */
	o.version = 1;
	EXPECT_EQ(-EPROTONOSUPPORT, rc_connect(&c2, &o));
	EXPECT_EQ(ORDO_WIRE_REJ_VERSION, le16toh(c2.rej.reason));
	EXPECT_EQ(ORDO_WIRE_VERSION, le16toh(c2.rej.version));
	EXPECT_EQ(ORDO_WIRE_MAGIC, le32toh(c2.rej.magic));
	o.version = 2;
	EXPECT_EQ(-EPROTONOSUPPORT, rc_connect(&c2, &o));
	EXPECT_EQ(ORDO_WIRE_REJ_VERSION, le16toh(c2.rej.reason));
	EXPECT_EQ(4, le16toh(c2.rej.version));
	o.version = 3;
	EXPECT_EQ(-EPROTONOSUPPORT, rc_connect(&c2, &o));
	EXPECT_EQ(ORDO_WIRE_REJ_VERSION, le16toh(c2.rej.reason));
	EXPECT_EQ(4, le16toh(c2.rej.version));
	o.version = 0xffff;
	EXPECT_EQ(-EPROTONOSUPPORT, rc_connect(&c2, &o));
	EXPECT_EQ(ORDO_WIRE_REJ_VERSION, le16toh(c2.rej.reason));
	o.version = 0;
	o.magic = 0x12345678;
	EXPECT_EQ(-ECONNREFUSED, rc_connect(&c2, &o));
	EXPECT_EQ(ORDO_WIRE_REJ_MALFORMED, le16toh(c2.rej.reason));
	o.magic = 0;
	o.queue_depth = ORDO_WIRE_QUEUE_MAX + 1;
	EXPECT_EQ(-ECONNREFUSED, rc_connect(&c2, &o));
	EXPECT_EQ(ORDO_WIRE_REJ_MALFORMED, le16toh(c2.rej.reason));
	o.queue_depth = 0;
	/* Reserved fields, a token length past the field, stray bytes. */
	memset(&req, 0, sizeof(req));
	req.magic = htole32(ORDO_WIRE_MAGIC);
	req.version = htole16(ORDO_WIRE_VERSION);
	req.flags = htole32(1);
	o.raw = &req;
	o.raw_len = sizeof(req);
	EXPECT_EQ(-ECONNREFUSED, rc_connect(&c2, &o));
	EXPECT_EQ(ORDO_WIRE_REJ_MALFORMED, le16toh(c2.rej.reason));
	req.flags = 0;
	req.token_len = htole16(ORDO_WIRE_TOKEN_MAX + 1);
	EXPECT_EQ(-ECONNREFUSED, rc_connect(&c2, &o));
	EXPECT_EQ(ORDO_WIRE_REJ_MALFORMED, le16toh(c2.rej.reason));
	req.token_len = htole16(2);
	req.token[5] = 'x';
	EXPECT_EQ(-ECONNREFUSED, rc_connect(&c2, &o));
	EXPECT_EQ(ORDO_WIRE_REJ_MALFORMED, le16toh(c2.rej.reason));
	/* Short private data: the CM pads it with zeroes, cutting the magic. */
	o.raw_len = 2;
	EXPECT_EQ(-ECONNREFUSED, rc_connect(&c2, &o));
	EXPECT_EQ(ORDO_WIRE_REJ_MALFORMED, le16toh(c2.rej.reason));
	o.raw_len = 0;
	o.raw = NULL;
	o.magic = 0;
	EXPECT_EQ(mal + 6, rc_sysfs_u64("stats/rejected_malformed"));
	EXPECT_EQ(ver + 4, rc_sysfs_u64("stats/rejected_version"));
	/* None of it harmed the live connection. */
	EXPECT_EQ(0, rc_call(&self->c, ORDO_WIRE_OP_INFO, NULL, 0));
}

/*
 * Wait until at most @n connections are left: a closed client's teardown
 * runs in the background.  Bounded by 60 s (times ORDO_TIME_SCALE).
 */
static bool conns_at_most(long long n)
{
	long long polls = 1200LL * t_time_scale();

	for (long long i = 0; rc_sysfs_u64("stats/connections") > n; i++) {
		if (i == polls)
			return false;
		usleep(50000);
	}
	return true;
}

TEST_F(rpc, too_many_connections)
{
	struct rc_conn more[3];
	long long busy = rc_sysfs_u64("stats/rejected_busy");
	long long now = rc_sysfs_u64("stats/connections");
	char lim[32];

	/* Room for exactly two more than are connected now. */
	snprintf(lim, sizeof(lim), "%lld\n", now + 2);
	ASSERT_EQ(0, rc_set_param("max_connections", lim));
	ASSERT_EQ(0, rc_connect(&more[0], NULL));
	ASSERT_EQ(0, rc_connect(&more[1], NULL));
	EXPECT_EQ(-EUSERS, rc_connect(&more[2], NULL));
	EXPECT_EQ(ORDO_WIRE_REJ_BUSY, le16toh(more[2].rej.reason));
	EXPECT_EQ(now + 2, le32toh(more[2].rej.limit));
	EXPECT_STREQ("too many connections",
		     ordo_wire_rej_str(le16toh(more[2].rej.reason)));
	EXPECT_EQ(busy + 1, rc_sysfs_u64("stats/rejected_busy"));
	/* A slot frees once a client leaves. */
	rc_close(&more[1]);
	ASSERT_TRUE(conns_at_most(now + 1));
	EXPECT_EQ(0, rc_connect(&more[2], NULL));
	EXPECT_EQ(0, rc_call(&more[2], ORDO_WIRE_OP_INFO, NULL, 0));
	rc_close(&more[2]);
	rc_close(&more[0]);
}

/* One address gets max_connections_per_peer of the slots, no more. */
TEST_F(rpc, too_many_from_one_address)
{
	struct rc_conn more[2];
	long long peer = rc_sysfs_u64("stats/rejected_peer_busy");
	long long busy = rc_sysfs_u64("stats/rejected_busy");
	long long now = rc_sysfs_u64("stats/connections");
	char lim[32];

	/* Every client here is 192.0.2.1: room for one more. */
	snprintf(lim, sizeof(lim), "%lld\n", now + 1);
	ASSERT_EQ(0, rc_set_param("max_connections_per_peer", lim));
	ASSERT_EQ(0, rc_connect(&more[0], NULL));
	EXPECT_EQ(-EUSERS, rc_connect(&more[1], NULL));
	EXPECT_EQ(ORDO_WIRE_REJ_PEER_BUSY, le16toh(more[1].rej.reason));
	EXPECT_EQ(now + 1, le32toh(more[1].rej.limit));
	EXPECT_STREQ("too many connections from this address",
		     ordo_wire_rej_str(le16toh(more[1].rej.reason)));
	EXPECT_EQ(peer + 1, rc_sysfs_u64("stats/rejected_peer_busy"));
	EXPECT_EQ(busy, rc_sysfs_u64("stats/rejected_busy"));
	/* Raised at run time: taken at once; 0 is no limit. */
	snprintf(lim, sizeof(lim), "%lld\n", now + 2);
	ASSERT_EQ(0, rc_set_param("max_connections_per_peer", lim));
	ASSERT_EQ(0, rc_connect(&more[1], NULL));
	EXPECT_EQ(0, rc_call(&more[1], ORDO_WIRE_OP_INFO, NULL, 0));
	rc_close(&more[1]);
	/* The slot comes back when a client leaves. */
	ASSERT_TRUE(conns_at_most(now + 1));
	ASSERT_EQ(0, rc_connect(&more[1], NULL));
	rc_close(&more[1]);
	/* Lowered: connected clients stay, new ones wait. */
	ASSERT_EQ(0, rc_set_param("max_connections_per_peer", "1\n"));
	EXPECT_EQ(0, rc_call(&more[0], ORDO_WIRE_OP_INFO, NULL, 0));
	EXPECT_EQ(-EUSERS, rc_connect(&more[1], NULL));
	ASSERT_EQ(0, rc_set_param("max_connections_per_peer", "0\n"));
	ASSERT_EQ(0, rc_connect(&more[1], NULL));
	rc_close(&more[1]);
	rc_close(&more[0]);
}

TEST_F(rpc, counters)
{
	long long gets = rc_sysfs_u64("stats/rpc_get");
	long long puts = rc_sysfs_u64("stats/rpc_put");
	long long errs = rc_sysfs_u64("stats/rpc_errors");
	long long in = rc_sysfs_u64("stats/bytes_in");
	long long out = rc_sysfs_u64("stats/bytes_out");
	long long unk = rc_sysfs_u64("stats/rpc_unknown");
	long long total = rc_sysfs_u64("stats/connections_total");
	uint8_t v[ORDO_VALUE_SIZE_MAX] = { 0 };
	char path[128], buf[64];
	int i;

	for (i = 0; i < 5; i++)
		ASSERT_EQ(0, rc_kv(&self->c, ORDO_WIRE_OP_PUT, KBASE + i, v,
				   self->vs));
	for (i = 0; i < 7; i++)
		ASSERT_EQ(0, rc_kv(&self->c, ORDO_WIRE_OP_GET, KBASE + i % 5, v, 0));
	EXPECT_EQ(-ENOENT, rc_kv(&self->c, ORDO_WIRE_OP_GET, KBASE + 99, v, 0));
	EXPECT_EQ(-EOPNOTSUPP, rc_call(&self->c, 200, NULL, 0));
	EXPECT_EQ(puts + 5, rc_sysfs_u64("stats/rpc_put"));
	EXPECT_EQ(gets + 8, rc_sysfs_u64("stats/rpc_get"));
	EXPECT_EQ(unk + 1, rc_sysfs_u64("stats/rpc_unknown"));
	EXPECT_EQ(errs + 2, rc_sysfs_u64("stats/rpc_errors"));
	EXPECT_LT(in + 14 * 24, rc_sysfs_u64("stats/bytes_in"));
	EXPECT_LT(out + 14 * 24, rc_sysfs_u64("stats/bytes_out"));
	EXPECT_LE(1, total);
	snprintf(path, sizeof(path), RC_SYSFS "/connections/%u/rpcs",
		 le32toh(self->c.rep.conn_id));
	ASSERT_EQ(0, t_read_file(path, buf, sizeof(buf)));
	EXPECT_EQ(14, strtoul(buf, NULL, 10));
	snprintf(path, sizeof(path), RC_SYSFS "/connections/%u/errors",
		 le32toh(self->c.rep.conn_id));
	ASSERT_EQ(0, t_read_file(path, buf, sizeof(buf)));
	EXPECT_EQ(2, strtoul(buf, NULL, 10));
}

/* RPC round trip against one-sided READ of a leaf, for the report. */
TEST_F(rpc, latency)
{
	static uint8_t node[RC_NODE_MAX];
	uint8_t v[ORDO_VALUE_SIZE_MAX];
	struct rc_conn *c = &self->c;
	long long t0, t_rpc, t_read;
	uint32_t leaf;
	int i, n = 200;

	ASSERT_EQ(0, batch_load(c, self->vs, 1000, batch_per(c, self->vs)));
	ASSERT_EQ(0, rc_regions(c));
	ASSERT_EQ(0, rd_leaf(c, &self->geo, KBASE + 300, node, &leaf));
	t0 = rc_now_ms();
	for (i = 0; i < n; i++)
		ASSERT_EQ(0, rc_kv(c, ORDO_WIRE_OP_GET, KBASE + 300, v, 0));
	t_rpc = rc_now_ms() - t0;
	t0 = rc_now_ms();
	for (i = 0; i < n; i++)
		ASSERT_EQ(0, rc_read(c, rc_node_off(c, leaf),
				     self->geo.node_size, node));
	t_read = rc_now_ms() - t0;
	TH_LOG("GET by RPC: %.1f us, leaf by RDMA READ: %.1f us (%d each)",
	       t_rpc * 1000.0 / n, t_read * 1000.0 / n, n);
	printf("# latency: rpc_get_us=%.1f rdma_read_us=%.1f\n",
	       t_rpc * 1000.0 / n, t_read * 1000.0 / n);
}

TEST_HARNESS_MAIN
