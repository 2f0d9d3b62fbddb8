// SPDX-License-Identifier: GPL-2.0
/*
 * A message too short to carry a header cannot be answered, so the server
 * hangs up -- but the replies to the requests before it are still the
 * client's (Documentation/wire.rst, "Malformed messages"):
 *
 * - the server closes only once those replies were delivered, since
 *   closing moves the queue pair to the error state and flushes whatever
 *   the device has not sent yet.  A client that posts no receives shows
 *   it: its reply cannot be delivered, so the connection stays
 *   "hanging-up" until the keepalive ends it.
 * - libordo hands over every reply that arrived before the disconnect,
 *   even one that came while it was looking at the CM events.  This
 *   program slows rdma_get_cm_event() (interposed below) so that replies
 *   and the disconnect both arrive in that window.
 *
 * Runs in the vmrun guest only.
 */
#define _GNU_SOURCE
/*
 * The harness runs each test body after setjmp(); once the body is inlined
 * its locals look clobberable, but none is used after a longjmp().
 */
#pragma GCC diagnostic ignored "-Wclobbered"
#include <dlfcn.h>
#include <rdma/rdma_cma.h>
#include <stdbool.h>

#include "ordo_test.h"
#include "kselftest_harness.h"
#include "raw_client.h"

#define KBASE	0x6900000000000000ULL
#define NKEYS	256

/* Milliseconds rdma_get_cm_event() sleeps first; 0: not at all. */
static volatile int cm_event_delay_ms;

/*
 * libordo is linked in statically, so its calls bind to this definition;
 * the real function is librdmacm's.
 */
int rdma_get_cm_event(struct rdma_event_channel *ch,
		      struct rdma_cm_event **ev)
{
	static int (*real)(struct rdma_event_channel *,
			   struct rdma_cm_event **);

	if (!real)
		real = (int (*)(struct rdma_event_channel *,
				struct rdma_cm_event **))
			dlsym(RTLD_NEXT, "rdma_get_cm_event");
	if (cm_event_delay_ms)
		usleep(cm_event_delay_ms * 1000);
	return real(ch, ev);
}

/* Wait until at most @n connections are left, up to @s seconds. */
static long long wait_conns(long long n, int s)
{
	long long now = -1;
	int i;

	for (i = 0; i < s * 20; i++) {
		now = rc_sysfs_u64("stats/connections");
		if (now <= n)
			break;
		usleep(50000);
	}
	return now;
}

/* The state of connection @c in sysfs, or "" once it is gone. */
static void conn_state(struct rc_conn *c, char *buf, size_t len)
{
	char path[128];

	snprintf(path, sizeof(path), RC_SYSFS "/connections/%u/state",
		 le32toh(c->rep.conn_id));
	if (t_read_file(path, buf, len))
		buf[0] = 0;
	buf[strcspn(buf, "\n")] = 0;
}

FIXTURE(hangup) {
	struct rc_conn c;
};

FIXTURE_SETUP(hangup)
{
	uint8_t v[ORDO_VALUE_SIZE_MAX];
	uint32_t vs;
	int i;

	/* The guest always has rxe and the server: their absence is a bug. */
	ASSERT_TRUE(rc_available());
	ASSERT_EQ(0, rc_set_param("token", "\n"));
	ASSERT_EQ(0, rc_set_param("keepalive_timeout", "30"));
	ASSERT_EQ(0, wait_conns(0, 60));
	ASSERT_EQ(0, rc_connect(&self->c, NULL));
	vs = le32toh(self->c.rep.value_size);
	for (i = 0; i < NKEYS; i++) {
		t_fill(v, vs, KBASE + i, 1);
		ASSERT_EQ(0, rc_kv(&self->c, ORDO_WIRE_OP_PUT, KBASE + i, v,
				   vs));
	}
}

FIXTURE_TEARDOWN(hangup)
{
	cm_event_delay_ms = 0;
	rc_close(&self->c);
	rc_set_param("keepalive_timeout", "30");
	rc_set_param("srq_size", "0");
	EXPECT_EQ(0, wait_conns(0, 60 * t_time_scale()));
}

/*
 * The fixture's client again, without receives (and with @srq_size, when
 * given, once no connection is left), sending a GET and then 23 bytes;
 * returns the connection's state once it left "live".
 */
static void hang_up(struct __test_metadata *_metadata, struct rc_conn *c,
		    const char *srq_size, char *state, size_t len)
{
	struct rc_opts o = { .no_recv = true };
	uint8_t body[24] = { 0 }, msg[sizeof(struct ordo_wire_hdr)] = { 0 };
	unsigned int scale = t_time_scale();
	uint64_t id;
	int i;

	rc_close(c);
	ASSERT_EQ(0, wait_conns(0, 60 * scale));
	if (srq_size)
		ASSERT_EQ(0, rc_set_param("srq_size", srq_size));
	ASSERT_EQ(0, rc_connect(c, &o));
	body[10] = ORDO_WIRE_OP_GET;
	ASSERT_EQ(0, rc_send_req(c, ORDO_WIRE_OP_GET, body, sizeof(body),
				 &id));
	ASSERT_EQ(0, rc_send_raw(c, msg, 23));
	for (i = 0; i < 200 * (int)scale; i++) {
		conn_state(c, state, len);
		if (strcmp(state, "live"))
			break;
		usleep(50000);
	}
}

/*
 * A client without receives sends a GET and then 23 bytes.  Its reply
 * cannot be delivered, so the server must neither execute more nor close:
 * the connection is "hanging-up" and stays so; then the keepalive
 * (3 s here) ends it, as it ends any client that takes no replies.
 */
TEST_F_TIMEOUT(hangup, server_waits_for_replies_in_flight, 300)
{
	unsigned int scale = t_time_scale();
	char state[32] = "";
	long long t0;

	hang_up(_metadata, &self->c, NULL, state, sizeof(state));
	ASSERT_STREQ("hanging-up", state);
	/* Still held a while later: nothing closes it but the keepalive. */
	usleep(500000);
	conn_state(&self->c, state, sizeof(state));
	EXPECT_STREQ("hanging-up", state);
	EXPECT_EQ(1, rc_sysfs_u64("stats/connections"));
	t0 = rc_now_ms();
	ASSERT_EQ(0, rc_set_param("keepalive_timeout", "3"));
	EXPECT_EQ(0, wait_conns(0, 30 * scale));
	TH_LOG("closed %lld ms after keepalive_timeout became 3 s",
	       rc_now_ms() - t0);
}

/*
 * The same with a shared receive queue, which takes requests beyond a
 * client's credits: one that keeps sending after its hang-up is not heard
 * from for that, and the keepalive still ends it.
 */
TEST_F_TIMEOUT(hangup, requests_after_the_hangup_keep_nothing_alive, 300)
{
	unsigned int scale = t_time_scale(), sent = 0;
	char state[32] = "";
	long long t0, end;
	uint64_t id;

	hang_up(_metadata, &self->c, "48", state, sizeof(state));
	ASSERT_STREQ("hanging-up", state);
	t0 = rc_now_ms();
	ASSERT_EQ(0, rc_set_param("keepalive_timeout", "3"));
	/* An INFO every 100 ms until the server is gone (or 60 s). */
	end = t0 + 60000LL * scale;
	while (rc_sysfs_u64("stats/connections") > 0 && rc_now_ms() < end) {
		if (!rc_send_req(&self->c, ORDO_WIRE_OP_INFO, NULL, 0, &id))
			sent++;
		usleep(100000);
	}
	TH_LOG("closed %lld ms after keepalive_timeout became 3 s, %u requests sent meanwhile",
	       rc_now_ms() - t0, sent);
	EXPECT_EQ(0, rc_sysfs_u64("stats/connections"));
	EXPECT_LT(10, sent);
}

/*
 * Rounds of credits - 1 SCANs of every known key and then 23 bytes, while
 * rdma_get_cm_event() sleeps 200 ms first: libordo's first look at the CQ
 * finds nothing, the replies and the disconnect both arrive during the
 * sleep, and every reply must still be handed over, in order, before the
 * connection reads as reset.
 */
TEST_F_TIMEOUT(hangup, client_takes_replies_before_the_disconnect, 600)
{
	struct ordo_wire_scan_req scan = {
		.start = htole64(KBASE),
		.count = htole32(NKEYS),
	};
	uint8_t msg[sizeof(struct ordo_wire_hdr)] = { 0 };
	unsigned int round, rounds = 20, lost = 0, bytes = 0;
	uint64_t id[RC_QD_MAX];
	uint32_t i, n = 0;
	int ret;

	for (round = 0; round < rounds; round++) {
		rc_close(&self->c);
		ASSERT_EQ(0, rc_connect(&self->c, NULL));
		n = self->c.qd - 1;
		ASSERT_LT(0, n);
		for (i = 0; i < n; i++)
			ASSERT_EQ(0, rc_send_req(&self->c, ORDO_WIRE_OP_SCAN,
						 &scan, sizeof(scan), &id[i]));
		ASSERT_EQ(0, rc_send_raw(&self->c, msg, 23));
		cm_event_delay_ms = 200;
		for (i = 0; i < n; i++) {
			ret = rc_wait_reply(&self->c, RC_TIMEOUT_MS);
			if (ret) {
				TH_LOG("round %u: reply %u of %u: %d", round,
				       i, n, ret);
				lost += n - i;
				break;
			}
			ASSERT_EQ(0, rc_check_reply(&self->c, id[i],
						    ORDO_WIRE_OP_SCAN));
			bytes = self->c.reply_len;
		}
		EXPECT_EQ(-ECONNRESET, rc_wait_reply(&self->c, RC_TIMEOUT_MS));
		cm_event_delay_ms = 0;
	}
	TH_LOG("%u rounds of %u SCANs (replies of %u bytes) and a short message: %u replies lost",
	       rounds, n, bytes, lost);
	EXPECT_EQ(0, lost);
}

TEST_HARNESS_MAIN
