// SPDX-License-Identifier: GPL-2.0
/*
 * The server's request path never waits for a client: small replies go
 * inline and replies of a burst share a doorbell; a request that finds no
 * reply buffer parks and resumes when one frees up, in order; clients
 * that post no receives at all stall neither other clients, nor the
 * registration of the pool's growth, nor rmmod; and
 * with a shared receive queue (srq_size) many clients are served from
 * one pool of buffers while one that exceeds its credits is cut off.
 * Runs in the vmrun guest only: one test unloads and reloads ordo.ko.
 */
#define _GNU_SOURCE
/*
 * The harness runs each test body after setjmp(); once the body is inlined
 * its locals look clobberable, but none is used after a longjmp().
 */
#pragma GCC diagnostic ignored "-Wclobbered"
#include <stdbool.h>
#include <sys/wait.h>

#include "ordo_test.h"
#include "kselftest_harness.h"
#include "raw_client.h"

#define KBASE	0x5100000000000000ULL
#define INLINE_LIMIT	"/sys/kernel/debug/ordo/qp_inline_limit"
#define NKEYS	64
#define NHOGS	8
/* Keys of pool growth, above KBASE + NKEYS. */
#define GROW_KEY(i)	(KBASE + 0x100000000ULL + (uint64_t)(i) * 104729)

static int sh(const char *cmd)
{
	int st = system(cmd);

	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

/* Wait until at most @n connections are left; returns the count. */
static long long wait_conns(long long n)
{
	long long now = -1;
	int i;

	for (i = 0; i < 1200; i++) {
		now = rc_sysfs_u64("stats/connections");
		if (now <= n)
			break;
		usleep(50000);
	}
	return now;
}

/* A counter of connection @c in sysfs (connections/<id>/@name), or -1. */
static long long conn_u64(struct rc_conn *c, const char *name)
{
	char rel[96];

	snprintf(rel, sizeof(rel), "connections/%u/%s",
		 le32toh(c->rep.conn_id), name);
	return rc_sysfs_u64(rel);
}

static bool module_loaded(void)
{
	return !access(RC_SYSFS "/listener", F_OK);
}

/* The module loaded and listening, the parameters as vmrun left them. */
static int restore(void)
{
	int i;

	if (!module_loaded() &&
	    sh("insmod kmod/ordo.ko $ORDO_GUEST_MODULE_PARAMS"))
		return -EIO;
	for (i = 0; i < 200 && rc_sysfs_u64("stats/connections") < 0; i++)
		usleep(100000);
	if (rc_set_param("token", "\n") ||
	    rc_set_param("max_connections", "64") ||
	    rc_set_param("keepalive_timeout", "30") ||
	    rc_set_param("srq_size", "0"))
		return -EIO;
	for (i = 0; i < 200; i++) {
		char buf[64];

		if (!t_read_file(RC_SYSFS "/listener", buf, sizeof(buf)) &&
		    !strncmp(buf, "[::]:7471", 9))
			return 0;
		usleep(100000);
	}
	return -ETIMEDOUT;
}

FIXTURE(io) {
	uint32_t vs;
	struct rc_conn c;
};

FIXTURE_SETUP(io)
{
	uint8_t v[ORDO_VALUE_SIZE_MAX];
	int i;

	ASSERT_TRUE(rc_available());
	ASSERT_EQ(0, restore());
	ASSERT_EQ(0, wait_conns(0));
	ASSERT_EQ(0, rc_connect(&self->c, NULL));
	self->vs = le32toh(self->c.rep.value_size);
	for (i = 0; i < NKEYS; i++) {
		t_fill(v, self->vs, KBASE + i, 1);
		ASSERT_EQ(0, rc_kv(&self->c, ORDO_WIRE_OP_PUT, KBASE + i, v,
				   self->vs));
	}
}

FIXTURE_TEARDOWN(io)
{
	if (!access(INLINE_LIMIT, F_OK))
		rc_write_file(INLINE_LIMIT, "0");
	rc_close(&self->c);
	EXPECT_EQ(0, restore());
}

/* Send a GET of KBASE + @i; *@id is its id. */
static int send_get(struct rc_conn *c, uint32_t i, uint64_t *id)
{
	struct ordo_wire_kv kv = {
		.key = htole64(KBASE + i % NKEYS),
		.op = ORDO_WIRE_OP_GET,
	};

	return rc_send_req(c, ORDO_WIRE_OP_GET, &kv, sizeof(kv), id);
}

/* Send a SCAN of every test key with values: a reply of several KiB. */
static int send_scan(struct rc_conn *c, uint64_t *id)
{
	struct ordo_wire_scan_req s = {
		.start = htole64(KBASE),
		.count = htole32(NKEYS),
	};

	return rc_send_req(c, ORDO_WIRE_OP_SCAN, &s, sizeof(s), id);
}

/* Take the reply to request @id of @op and check it; 0 or an errno. */
static int take(struct rc_conn *c, uint64_t id, uint8_t op, uint32_t vs)
{
	const struct ordo_wire_scan_rep *sr;
	int ret = rc_wait_reply(c, RC_TIMEOUT_MS);

	if (ret)
		return ret;
	ret = rc_check_reply(c, id, op);
	if (ret)
		return ret;
	if (op == ORDO_WIRE_OP_GET)
		return c->reply_len == sizeof(struct ordo_wire_hdr) + vs ?
		       0 : -EBADMSG;
	sr = rc_reply_body(c);
	return le32toh(sr->returned) == NKEYS ? 0 : -EBADMSG;
}

/*
 * A GET's reply (header and value) fits inline on rxe; a SCAN of 64
 * values does not.  Replies of one run of the I/O work share a post: a
 * run executes every request that is in when it starts, but on an idle
 * server each request is usually done before the next arrives.  So the
 * client first takes no replies: qd fill its receives, qd wait in the
 * server's send queue (receiver not ready) holding every reply buffer,
 * and qd park at the server.  When it takes them, its receives come
 * back at once, the waiting replies go out together on the next retry,
 * their completions free several buffers, and the parked requests leave
 * in fewer posts than replies.
 */
TEST_F(io, inline_and_chained_replies)
{
	struct rc_conn *c = &self->c;
	long long inl, posts, rpcs, d_posts, d_rpcs, parked, recvs, sig;
	uint64_t id[RC_QD_MAX];
	uint32_t n = 3 * c->qd, i, r;
	int t;

	ASSERT_LE(sizeof(struct ordo_wire_hdr) + self->vs,
		  conn_u64(c, "max_inline"));
	inl = conn_u64(c, "inline_replies");
	ASSERT_EQ(0, send_get(c, 0, &id[0]));
	ASSERT_EQ(0, take(c, id[0], ORDO_WIRE_OP_GET, self->vs));
	EXPECT_EQ(inl + 1, conn_u64(c, "inline_replies"));
	ASSERT_EQ(0, send_scan(c, &id[0]));
	ASSERT_EQ(0, take(c, id[0], ORDO_WIRE_OP_SCAN, self->vs));
	ASSERT_LT(conn_u64(c, "max_inline"), (long long)c->reply_len);
	EXPECT_EQ(inl + 1, conn_u64(c, "inline_replies"));

	ASSERT_GE(RC_QD_MAX, n);
	posts = conn_u64(c, "send_posts");
	recvs = conn_u64(c, "recv_posts");
	sig = conn_u64(c, "signaled_replies");
	rpcs = conn_u64(c, "rpcs");
	for (r = 0; r < 5; r++) {
		parked = conn_u64(c, "parked");
		for (i = 0; i < n; i++)
			ASSERT_EQ(0, send_get(c, i, &id[i]));
		for (t = 0; t < 600 && conn_u64(c, "parked") == parked; t++)
			usleep(50000);
		ASSERT_LT(parked, conn_u64(c, "parked"));
		for (i = 0; i < n; i++)
			ASSERT_EQ(0, take(c, id[i], ORDO_WIRE_OP_GET, self->vs));
	}
	d_posts = conn_u64(c, "send_posts") - posts;
	d_rpcs = conn_u64(c, "rpcs") - rpcs;
	TH_LOG("%lld replies in %lld posts, their receive buffers back in %lld (5 rounds of %u)",
	       d_rpcs, d_posts, conn_u64(c, "recv_posts") - recvs, n);
	EXPECT_EQ(5LL * n, d_rpcs);
	EXPECT_LT(d_posts, d_rpcs);
	/* Receives go back in batches too; one reply per post is signaled. */
	EXPECT_LT(conn_u64(c, "recv_posts") - recvs, d_rpcs);
	EXPECT_EQ(d_posts, conn_u64(c, "signaled_replies") - sig);
}

/*
 * A device that refuses the 256 bytes of inline data asked for but
 * allows fewer: the QP is asked for half as much until it is created, so
 * a GET's reply still goes inline.  The debugfs test facility
 * qp_inline_limit makes QP creation refuse as such a device would.
 */
TEST_F(io, inline_on_a_device_that_allows_less)
{
	long long need = sizeof(struct ordo_wire_hdr) + self->vs, limit;
	long long inl, max;
	char buf[16];
	struct rc_conn c;
	uint64_t id;
	int ret;

	if (need > 128)
		SKIP(return, "a GET reply of %lld bytes", need);
	/* Below 256; the largest power of two it allows is >= need. */
	limit = 2 * need - 1 < 255 ? 2 * need - 1 : 255;
	snprintf(buf, sizeof(buf), "%lld", limit);
	ASSERT_EQ(0, rc_write_file(INLINE_LIMIT, buf));
	ret = rc_connect(&c, NULL);
	ASSERT_EQ(0, rc_write_file(INLINE_LIMIT, "0"));
	ASSERT_EQ(0, ret);
	max = conn_u64(&c, "max_inline");
	TH_LOG("a device allowing %lld bytes inline: the QP has %lld", limit,
	       max);
	EXPECT_LE(need, max);
	EXPECT_GE(limit, max);
	inl = conn_u64(&c, "inline_replies");
	ASSERT_EQ(0, send_get(&c, 0, &id));
	ASSERT_EQ(0, take(&c, id, ORDO_WIRE_OP_GET, self->vs));
	EXPECT_EQ(inl + 1, conn_u64(&c, "inline_replies"));
	rc_close(&c);
}

/*
 * A client that takes no replies for a while: its first queue_depth
 * replies fill its receives, the next queue_depth wait in the server's
 * send queue (receiver not ready) holding every reply buffer, and the
 * next queue_depth find none and park.  Another client is served all the
 * while; once the first takes its replies, every one arrives, in order.
 */
TEST_F(io, parked_requests_resume_in_order)
{
	struct rc_conn *c = &self->c, other;
	uint64_t id[RC_QD_MAX];
	uint32_t n = 3 * c->qd, i;
	long long parked;
	int t;

	ASSERT_GE(RC_QD_MAX, n);
	parked = conn_u64(c, "parked");
	for (i = 0; i < n; i++)
		ASSERT_EQ(0, send_scan(c, &id[i]));
	for (t = 0; t < 600 && conn_u64(c, "parked") == parked; t++)
		usleep(50000);
	EXPECT_LT(parked, conn_u64(c, "parked"));
	ASSERT_EQ(0, rc_connect(&other, NULL));
	for (i = 0; i < 100; i++)
		ASSERT_EQ(0, rc_call(&other, ORDO_WIRE_OP_INFO, NULL, 0));
	rc_close(&other);
	for (i = 0; i < n; i++)
		ASSERT_EQ(0, take(c, id[i], ORDO_WIRE_OP_SCAN, self->vs))
			TH_LOG("reply %u of %u", i, n);
	EXPECT_EQ(0, rc_call(c, ORDO_WIRE_OP_INFO, NULL, 0));
}

/* @n clients that post no receives, each with every credit in use. */
static void hogs_start(struct __test_metadata *_metadata, struct rc_conn *h,
		       int n)
{
	struct rc_opts o = { .no_recv = true };
	uint64_t id;
	uint32_t i;
	int k;

	for (k = 0; k < n; k++) {
		ASSERT_EQ(0, rc_connect(&h[k], &o));
		for (i = 0; i < h[k].qd; i++)
			ASSERT_EQ(0, i % 2 ? send_scan(&h[k], &id) :
				  send_get(&h[k], i, &id));
	}
}

/*
 * Clients that never post a receive: their replies can never be
 * delivered.  With keepalive off, nothing ends them; other clients'
 * requests are still answered, each within the usual bound.
 */
TEST_F_TIMEOUT(io, clients_without_receives_stall_no_one, 300)
{
	struct rc_conn h[NHOGS], *c = &self->c;
	uint8_t v[ORDO_VALUE_SIZE_MAX];
	long long t0, worst = 0;
	int i, k;

	ASSERT_EQ(0, rc_set_param("keepalive_timeout", "0"));
	hogs_start(_metadata, h, NHOGS);
	t0 = rc_now_ms();
	for (i = 0; i < 300; i++) {
		long long s = rc_now_ms();

		ASSERT_EQ(0, rc_kv(c, ORDO_WIRE_OP_GET, KBASE + i % NKEYS, v,
				   0));
		ASSERT_EQ(1, t_version(v, self->vs, KBASE + i % NKEYS));
		if (rc_now_ms() - s > worst)
			worst = rc_now_ms() - s;
	}
	TH_LOG("300 GETs beside %d stuck clients: %lld ms, slowest %lld ms",
	       NHOGS, rc_now_ms() - t0, worst);
	EXPECT_EQ(1 + NHOGS, rc_sysfs_u64("stats/connections"));
	for (k = 0; k < NHOGS; k++)
		rc_close(&h[k]);
	EXPECT_EQ(1, wait_conns(1));
}

/*
 * The device's registrations go out on its clients' send queues (a
 * REG_MR chain of the registrar, mr.c), where they would wait behind
 * replies a client never takes.  With such clients connected and
 * keepalive off, the pool grows chunk by chunk through /dev/ordo and every
 * growth is still registered and published: the table a client sees
 * covers it.  Keys of the growth lie above the fixture's, which SCANs of
 * the other tests start at.
 */
TEST_F_TIMEOUT(io, growth_registered_beside_clients_without_receives, 600)
{
	struct rc_conn h[NHOGS], *c = &self->c;
	uint8_t v[ORDO_VALUE_SIZE_MAX];
	uint64_t n = 0, chunks, i;
	struct ordo_info info;
	long long pubs;
	int fd, k, step;

	ASSERT_EQ(0, rc_set_param("keepalive_timeout", "0"));
	fd = open(ORDO_DEV, O_RDWR);
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, t_ioctl(fd, ORDO_IOC_INFO, &info));
	chunks = info.pool_bytes_total / info.chunk_size;
	ASSERT_EQ(0, rc_wait_pool_chunks(c, chunks));
	hogs_start(_metadata, h, NHOGS);
	pubs = rc_sysfs_u64("stats/table_publications");
	for (step = 0; step < 3; step++) {
		while (info.pool_bytes_total / info.chunk_size < chunks + 1) {
			for (i = 0; i < 256; i++, n++) {
				t_fill(v, self->vs, GROW_KEY(n), 1);
				ASSERT_EQ(0, t_kv(fd, ORDO_IOC_PUT, GROW_KEY(n),
						  v, self->vs));
			}
			ASSERT_EQ(0, t_ioctl(fd, ORDO_IOC_INFO, &info));
		}
		chunks = info.pool_bytes_total / info.chunk_size;
		ASSERT_EQ(0, rc_wait_pool_chunks(c, chunks))
			TH_LOG("growth %d to %llu chunks not published", step,
			       (unsigned long long)chunks);
	}
	TH_LOG("3 growths beside %d stuck clients: %lld tables published, %llu keys",
	       NHOGS, rc_sysfs_u64("stats/table_publications") - pubs,
	       (unsigned long long)n);
	EXPECT_EQ(1 + NHOGS, rc_sysfs_u64("stats/connections"));
	for (k = 0; k < NHOGS; k++)
		rc_close(&h[k]);
	EXPECT_EQ(1, wait_conns(1));
	EXPECT_EQ(0, t_clear(fd));
	close(fd);
}

/* rmmod with clients that post no receives, their replies stuck. */
TEST_F_TIMEOUT(io, rmmod_with_clients_without_receives, 300)
{
	struct rc_conn h[NHOGS];
	long long t0;
	int k;

	ASSERT_EQ(0, rc_set_param("keepalive_timeout", "0"));
	hogs_start(_metadata, h, NHOGS);
	rc_close(&self->c);
	t0 = rc_now_ms();
	ASSERT_EQ(0, sh("rmmod ordo"));
	TH_LOG("rmmod with %d stuck clients: %lld ms", NHOGS,
	       rc_now_ms() - t0);
	EXPECT_FALSE(module_loaded());
	for (k = 0; k < NHOGS; k++)
		rc_close(&h[k]);
	/* The teardown loads it again and checks it serves. */
	ASSERT_EQ(0, restore());
	ASSERT_EQ(0, rc_connect(&self->c, NULL));
	EXPECT_EQ(0, rc_call(&self->c, ORDO_WIRE_OP_INFO, NULL, 0));
}

/*
 * srq_size: every connection on the device takes its requests from one
 * shared queue.  Four clients with every credit in use are all answered
 * correctly; one that sends more than its credits while taking no replies
 * is disconnected rather than allowed to drain the queue; the queue is
 * in the device's protection domain; and it goes with its last
 * connection (no PD is left behind).
 */
TEST_F_TIMEOUT(io, shared_receive_queue, 300)
{
	struct rc_conn cl[4], hog;
	struct rc_opts nr = { .no_recv = true };
	uint64_t id[4][RC_QD_MAX];
	struct rc_res base, now;
	uint32_t i, r;
	int k;

	rc_close(&self->c);
	ASSERT_EQ(0, wait_conns(0));
	ASSERT_EQ(0, rc_res_count("rxe0", &base));
	ASSERT_EQ(0, rc_set_param("srq_size", "48"));
	for (k = 0; k < 4; k++) {
		ASSERT_EQ(0, rc_connect(&cl[k], NULL));
		EXPECT_EQ(1, conn_u64(&cl[k], "srq"));
	}
	/* The queue, its QPs and the MRs share the device's one PD. */
	EXPECT_EQ(1, rc_ordo_objects("pd"));
	for (r = 0; r < 20; r++) {
		for (k = 0; k < 4; k++)
			for (i = 0; i < cl[k].qd; i++)
				ASSERT_EQ(0, (i + r) % 4 ?
					  send_get(&cl[k], i, &id[k][i]) :
					  send_scan(&cl[k], &id[k][i]));
		for (k = 0; k < 4; k++)
			for (i = 0; i < cl[k].qd; i++)
				ASSERT_EQ(0, take(&cl[k], id[k][i],
						  (i + r) % 4 ? ORDO_WIRE_OP_GET :
						  ORDO_WIRE_OP_SCAN, self->vs));
	}
	/* Past its credits with its replies stuck: cut off. */
	ASSERT_EQ(0, rc_connect(&hog, &nr));
	for (i = 0; i < 3 * hog.qd && i < RC_QD_MAX; i++)
		ASSERT_EQ(0, send_get(&hog, i, &id[0][0]));
	EXPECT_EQ(4, wait_conns(4));
	rc_close(&hog);
	/* The queue got its buffers back: the others are still served. */
	for (k = 0; k < 4; k++)
		for (i = 0; i < 2 * cl[k].qd; i++) {
			ASSERT_EQ(0, send_get(&cl[k], i, &id[k][0]));
			ASSERT_EQ(0, take(&cl[k], id[k][0], ORDO_WIRE_OP_GET,
					  self->vs));
		}
	for (k = 0; k < 4; k++)
		rc_close(&cl[k]);
	ASSERT_EQ(0, wait_conns(0));
	ASSERT_EQ(0, rc_res_count("rxe0", &now));
	EXPECT_EQ(base.pd, now.pd);
	EXPECT_EQ(base.qp, now.qp);
	ASSERT_EQ(0, rc_set_param("srq_size", "0"));
	ASSERT_EQ(0, rc_connect(&self->c, NULL));
	EXPECT_EQ(0, conn_u64(&self->c, "srq"));
	EXPECT_EQ(0, rc_call(&self->c, ORDO_WIRE_OP_INFO, NULL, 0));
}

TEST_HARNESS_MAIN
