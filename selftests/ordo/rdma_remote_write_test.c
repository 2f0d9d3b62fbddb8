// SPDX-License-Identifier: GPL-2.0
/*
 * Remote access is read-only and confined: an RDMA WRITE or atomic to a
 * registered region fails on the client with a protection error and
 * changes nothing; READs past a region or with a forged key fail too.
 * Every connection to a device gets the same keys (one registration per
 * device); they die with the device's last connection.  A SEND with
 * Invalidate of one of those keys (which the device carries out before
 * the server sees the request) closes the sender's connection, and the
 * key's MR is registered again under a new key for everyone else.
 */
#define _GNU_SOURCE
/*
 * The harness runs each test body after setjmp(); once the body is inlined
 * its locals look clobberable, but none is used after a longjmp().
 */
#pragma GCC diagnostic ignored "-Wclobbered"
#include <stdbool.h>

#include "ordo_test.h"
#include "kselftest_harness.h"
#include "raw_client.h"

#define KBASE	0x5700000000000000ULL

FIXTURE(wr) {
	int fd;
	uint32_t vs;
	uint32_t node_size;
	struct rc_conn c;
	uint8_t *before;
};

/* Is @status a failure that says "you may not do this"? */
static bool refused(int status)
{
	return status == IBV_WC_REM_ACCESS_ERR ||
	       status == IBV_WC_REM_INV_REQ_ERR ||
	       status == IBV_WC_REM_OP_ERR;
}

/* A fresh connection with its region table. */
static int conn_regions(struct rc_conn *c)
{
	int ret = rc_connect(c, NULL);

	if (ret)
		return ret;
	ret = rc_regions(c);
	if (!ret && !c->nregions)
		ret = -ENODATA;
	return ret;
}

FIXTURE_SETUP(wr)
{
	uint8_t v[ORDO_VALUE_SIZE_MAX];
	int i;

	ASSERT_TRUE(rc_available());
	ASSERT_EQ(0, rc_set_param("token", "\n"));
	self->fd = open(ORDO_DEV, O_RDWR);
	ASSERT_LE(0, self->fd);
	self->vs = t_value_size(self->fd);
	ASSERT_EQ(0, t_clear(self->fd));
	for (i = 0; i < 64; i++) {
		t_fill(v, self->vs, KBASE + i, 1);
		ASSERT_EQ(0, t_kv(self->fd, ORDO_IOC_PUT, KBASE + i, v, self->vs));
	}
	ASSERT_EQ(0, conn_regions(&self->c));
	self->node_size = le32toh(self->c.rep.node_size);
	self->before = malloc(2 * self->node_size);
	ASSERT_NE(NULL, self->before);
	/* The superblock and the first tree node, as they are now. */
	ASSERT_EQ(0, rc_read(&self->c, 0, 2 * self->node_size, self->before));
}

FIXTURE_TEARDOWN(wr)
{
	rc_close(&self->c);
	free(self->before);
	if (self->fd > 0) {
		t_clear(self->fd);
		close(self->fd);
	}
}

/* Nothing changed: the same bytes, and every key holds its value. */
static void unchanged(struct __test_metadata *_metadata,
		      FIXTURE_DATA(wr) *self)
{
	static uint8_t now[2 * RC_NODE_MAX];
	uint8_t v[ORDO_VALUE_SIZE_MAX];
	struct rc_conn c;
	int i;

	ASSERT_EQ(0, conn_regions(&c));
	ASSERT_EQ(0, rc_read(&c, 0, 2 * self->node_size, now));
	EXPECT_EQ(0, memcmp(self->before, now, 2 * self->node_size));
	rc_close(&c);
	for (i = 0; i < 64; i++) {
		ASSERT_EQ(0, t_kv(self->fd, ORDO_IOC_GET, KBASE + i, v, self->vs));
		EXPECT_EQ(1, t_version(v, self->vs, KBASE + i));
	}
}

TEST_F(wr, rdma_write_is_refused)
{
	uint32_t rkey = le32toh(self->c.regions[0].rkey);
	int st;

	memset(rc_read_buf(&self->c), 0xa5, 4096);
	/* Over the superblock, and over a tree node. */
	st = rc_rdma_raw(&self->c, IBV_WR_RDMA_WRITE, 0, 64, rkey);
	TH_LOG("RDMA WRITE completion: %s", ibv_wc_status_str(st));
	EXPECT_TRUE(refused(st));
	rc_close(&self->c);
	ASSERT_EQ(0, conn_regions(&self->c));
	rkey = le32toh(self->c.regions[0].rkey);
	st = rc_rdma_raw(&self->c, IBV_WR_RDMA_WRITE, self->node_size,
			 self->node_size, rkey);
	EXPECT_TRUE(refused(st));
	unchanged(_metadata, self);
}

TEST_F(wr, atomics_are_refused)
{
	uint32_t rkey = le32toh(self->c.regions[0].rkey);
	int st;

	/* The version word of node 1: an attacker's favourite target. */
	st = rc_rdma_raw(&self->c, IBV_WR_ATOMIC_CMP_AND_SWP, self->node_size,
			 8, rkey);
	TH_LOG("compare-and-swap completion: %s", ibv_wc_status_str(st));
	EXPECT_TRUE(refused(st));
	rc_close(&self->c);
	ASSERT_EQ(0, conn_regions(&self->c));
	rkey = le32toh(self->c.regions[0].rkey);
	st = rc_rdma_raw(&self->c, IBV_WR_ATOMIC_FETCH_AND_ADD, 0, 8, rkey);
	TH_LOG("fetch-and-add completion: %s", ibv_wc_status_str(st));
	EXPECT_TRUE(refused(st));
	unchanged(_metadata, self);
}

TEST_F(wr, reads_outside_the_regions_fail)
{
	const struct ordo_wire_region *last =
		&self->c.regions[self->c.nregions - 1];
	uint64_t end = le64toh(last->offset) + le64toh(last->length);
	uint32_t rkey = le32toh(last->rkey);
	int st;

	/* The last bytes of the region are readable, one more is not. */
	EXPECT_EQ(0, rc_rdma_raw(&self->c, IBV_WR_RDMA_READ, end - 64, 64, rkey));
	st = rc_rdma_raw(&self->c, IBV_WR_RDMA_READ, end - 63, 64, rkey);
	EXPECT_TRUE(refused(st));
	rc_close(&self->c);
	/* Kernel-address-looking and huge offsets. */
	ASSERT_EQ(0, conn_regions(&self->c));
	rkey = le32toh(self->c.regions[0].rkey);
	st = rc_rdma_raw(&self->c, IBV_WR_RDMA_READ, 0xffff888000000000ULL, 64,
			 rkey);
	EXPECT_TRUE(refused(st));
	unchanged(_metadata, self);
}

/* Wait until no connection, and so no registration, is left. */
static int all_gone(void)
{
	long long end = rc_now_ms() + RC_TIMEOUT_MS;

	while (rc_sysfs_u64("stats/connections") ||
	       rc_sysfs_u64("stats/mrs")) {
		if (rc_now_ms() > end)
			return -ETIMEDOUT;
		usleep(20000);
	}
	return 0;
}

TEST_F(wr, forged_keys_fail_and_keys_are_per_device)
{
	uint32_t rkey = le32toh(self->c.regions[0].rkey);
	struct rc_conn other;
	int st;

	/* Another key byte of the same MR. */
	st = rc_rdma_raw(&self->c, IBV_WR_RDMA_READ, 0, 64, rkey ^ 0x01);
	EXPECT_TRUE(refused(st));
	rc_close(&self->c);
	/* Two live connections to one device share the keys. */
	ASSERT_EQ(0, conn_regions(&self->c));
	ASSERT_EQ(0, conn_regions(&other));
	rkey = le32toh(other.regions[0].rkey);
	EXPECT_EQ(rkey, le32toh(self->c.regions[0].rkey));
	EXPECT_EQ(0, rc_rdma_raw(&self->c, IBV_WR_RDMA_READ, 0, 64, rkey));
	EXPECT_EQ(0, rc_rdma_raw(&other, IBV_WR_RDMA_READ, 0, 64, rkey));
	/* One closing leaves the other's keys alone. */
	rc_close(&other);
	EXPECT_EQ(0, rc_rdma_raw(&self->c, IBV_WR_RDMA_READ, 0, 64, rkey));
	/* The device's last connection takes its keys along. */
	rc_close(&self->c);
	ASSERT_EQ(0, all_gone());
	ASSERT_EQ(0, conn_regions(&self->c));
	if (le32toh(self->c.regions[0].rkey) != rkey) {
		st = rc_rdma_raw(&self->c, IBV_WR_RDMA_READ, 0, 64, rkey);
		EXPECT_TRUE(refused(st));
	} else {
		/* rxe drew the same key byte for the same MR index again. */
		TH_LOG("new registration reused key %#x", rkey);
	}
	unchanged(_metadata, self);
}

/* The key of the region table, by REGIONS of kind TABLE. */
static uint32_t table_key(struct rc_conn *c)
{
	struct ordo_wire_region *t = NULL;
	uint32_t n = 0, key = 0;

	if (!rc_fetch_regions(c, ORDO_WIRE_REGION_TABLE, &t, &n) && n == 1)
		key = le32toh(t[0].rkey);
	free(t);
	return key;
}

/*
 * A fresh connection whose published key (the pool's first region's, or
 * with @table the table's) is no longer @old; 0 or -ETIMEDOUT.
 */
static int rekeyed(struct rc_conn *c, bool table, uint32_t old,
		   uint32_t *key)
{
	long long end = rc_now_ms() + RC_TIMEOUT_MS;

	for (;;) {
		if (!conn_regions(c)) {
			*key = table ? table_key(c) :
			       le32toh(c->regions[0].rkey);
			if (*key && *key != old)
				return 0;
		}
		rc_close(c);
		if (rc_now_ms() > end)
			return -ETIMEDOUT;
		usleep(50000);
	}
}

TEST_F(wr, send_with_invalidate_closes_and_rekeys)
{
	uint64_t inv0 = rc_sysfs_u64("stats/remote_invalidations");
	uint8_t msg[sizeof(struct ordo_wire_hdr)];
	struct rc_conn other, fresh;
	uint32_t old, key;
	long long end;
	int round, st;

	for (round = 0; round < 2; round++) {
		bool table = round == 1;

		/* A bystander keeps the device's registration alive. */
		ASSERT_EQ(0, conn_regions(&other));
		old = table ? table_key(&self->c) :
		      le32toh(self->c.regions[0].rkey);
		ASSERT_NE(0, old);
		rc_hdr(msg, ORDO_WIRE_OP_INFO, 1, 0);
		ASSERT_EQ(0, ordo_raw_send_inv(self->c.o, msg, sizeof(msg),
					       old));
		/* No reply: the server closes the sender. */
		end = rc_now_ms() + RC_TIMEOUT_MS;
		while (!rc_dead(&self->c) && rc_now_ms() < end)
			EXPECT_NE(0, rc_wait_reply(&self->c, 100));
		EXPECT_TRUE(rc_dead(&self->c));
		EXPECT_EQ(inv0 + round + 1,
			  rc_sysfs_u64("stats/remote_invalidations"));
		/* The others get a new key, which reads; the old one does not. */
		ASSERT_EQ(0, rekeyed(&fresh, table, old, &key));
		TH_LOG("%s key %#x invalidated, now %#x", table ? "table" :
		       "pool", old, key);
		EXPECT_EQ(0, rc_rdma_raw(&fresh, IBV_WR_RDMA_READ, 0, 64, key));
		st = rc_rdma_raw(&fresh, IBV_WR_RDMA_READ, 0, 64, old);
		EXPECT_TRUE(refused(st));
		rc_close(&fresh);
		rc_close(&other);
		rc_close(&self->c);
		ASSERT_EQ(0, conn_regions(&self->c));
	}
	unchanged(_metadata, self);
}

TEST_HARNESS_MAIN
