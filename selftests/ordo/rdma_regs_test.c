// SPDX-License-Identifier: GPL-2.0
/*
 * One registration per RDMA device and the region table clients READ
 * one-sided (kmod/rdma/mr.c, Documentation/wire.rst):
 *
 * - the server's MRs and PDs ("rdma resource show") are as many with 32
 *   connections as with one;
 * - 64 clients at once each find the table with one REGIONS and READ the
 *   same table, with the same keys, that serve their READs;
 * - a pool that grows while libordo clients read is picked up through the
 *   table: no REGIONS after each client's bootstrap, and once registered,
 *   keys in the new chunks are found by READs alone; the MRs replaced by
 *   the growth are retired, leaving one MR per table entry;
 * - registrations that fail (made to by the debugfs test facility
 *   fail_registrations) back off, 50 ms doubling up to 10 s: clients keep
 *   working on what is registered, the attempts follow the backoff and
 *   not the requests, and the table catches up once they succeed.
 */
#define _GNU_SOURCE
/*
 * The harness runs each test body after setjmp(); once the body is inlined
 * its locals look clobberable, but none is used after a longjmp().
 */
#pragma GCC diagnostic ignored "-Wclobbered"
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>

#include "ordo_test.h"
#include "kselftest_harness.h"
#include "decode.h"
#include "raw_client.h"

#define KBASE	0x6600000000000000ULL
#define CLIENTS	64
#define FAIL_REG	"/sys/kernel/debug/ordo/fail_registrations"

FIXTURE(regs) {
	int fd;
	uint32_t vs;
	long long max_conns;
	long long per_peer;
};

static long long read_param(const char *name)
{
	char path[256], buf[64];

	snprintf(path, sizeof(path), RC_PARAMS "/%s", name);
	if (t_read_file(path, buf, sizeof(buf)))
		return -1;
	return strtoll(buf, NULL, 10);
}

static void set_param_ll(const char *name, long long v)
{
	char buf[32];

	snprintf(buf, sizeof(buf), "%lld", v);
	rc_set_param(name, buf);
}

/* Until no connection, and so no registration, is left. */
static int all_gone(void)
{
	long long end = rc_now_ms() + RC_TIMEOUT_MS;

	while (rc_sysfs_u64("stats/connections") || rc_sysfs_u64("stats/mrs")) {
		if (rc_now_ms() > end)
			return -ETIMEDOUT;
		usleep(20000);
	}
	return 0;
}

FIXTURE_SETUP(regs)
{
	ASSERT_TRUE(rc_available());
	ASSERT_EQ(0, rc_set_param("token", "\n"));
	self->fd = open(ORDO_DEV, O_RDWR);
	ASSERT_LE(0, self->fd);
	self->vs = t_value_size(self->fd);
	ASSERT_EQ(0, t_clear(self->fd));
	self->max_conns = read_param("max_connections");
	self->per_peer = read_param("max_connections_per_peer");
	/* Every client of these tests comes from 192.0.2.1. */
	set_param_ll("max_connections", CLIENTS + 16);
	set_param_ll("max_connections_per_peer", 0);
	ASSERT_EQ(0, all_gone());
}

FIXTURE_TEARDOWN(regs)
{
	if (!access(FAIL_REG, F_OK))
		rc_write_file(FAIL_REG, "0");
	set_param_ll("max_connections", self->max_conns);
	set_param_ll("max_connections_per_peer", self->per_peer);
	if (self->fd > 0) {
		t_clear(self->fd);
		close(self->fd);
	}
}

/*
 * The table by one READ, decoded as libordo decodes it; a copy torn by a
 * publication is read again.  *@where: its REGIONS entry.
 */
static int read_table(struct rc_conn *c, struct shim_table *t,
		      struct ordo_wire_region *where)
{
	struct ordo_wire_region *e = NULL;
	uint32_t n = 0;
	int ret, tries;

	ret = rc_fetch_regions(c, ORDO_WIRE_REGION_TABLE, &e, &n);
	if (ret)
		return ret;
	*where = e[0];
	free(e);
	if (n != 1 || le64toh(where->length) > ORDO_RAW_LOCAL_BYTES)
		return -EBADMSG;
	for (tries = 0, ret = -EAGAIN; tries < 100 && ret == -EAGAIN; tries++) {
		ret = rc_rdma_raw(c, IBV_WR_RDMA_READ, le64toh(where->offset),
				  le64toh(where->length), le32toh(where->rkey));
		if (ret)
			return ret > 0 ? -EIO : ret;
		ret = shim_dec_table(rc_read_buf(c), le64toh(where->length),
				     le64toh(c->rep.server_id),
				     le64toh(c->rep.chunk_size), t);
	}
	return ret;
}

static void table_free(struct shim_table *t)
{
	free(t->pool.ent);
	free(t->model.ent);
}

/* Until the published table covers every chunk of the pool. */
static int registered_all(struct rc_conn *c)
{
	return rc_regions(c);
}

TEST_F_TIMEOUT(regs, mrs_do_not_grow_with_connections, 600)
{
	struct rc_conn c[32];
	long mr1, pd1, mr32, pd32;
	int i;

	ASSERT_EQ(0, rc_connect(&c[0], NULL));
	ASSERT_EQ(0, registered_all(&c[0]));
	mr1 = rc_ordo_objects("mr");
	pd1 = rc_ordo_objects("pd");
	TH_LOG("1 connection: %ld MRs, %ld PDs", mr1, pd1);
	/* The table's MR and one per pool extent. */
	EXPECT_LE(2, mr1);
	EXPECT_EQ(1, pd1);
	EXPECT_EQ(mr1, rc_sysfs_u64("stats/mrs"));
	for (i = 1; i < 32; i++) {
		ASSERT_EQ(0, rc_connect(&c[i], NULL));
		ASSERT_EQ(0, rc_call(&c[i], ORDO_WIRE_OP_INFO, NULL, 0));
	}
	mr32 = rc_ordo_objects("mr");
	pd32 = rc_ordo_objects("pd");
	TH_LOG("32 connections: %ld MRs, %ld PDs", mr32, pd32);
	EXPECT_EQ(mr1, mr32);
	EXPECT_EQ(pd1, pd32);
	EXPECT_EQ(32, rc_sysfs_u64("stats/connections"));
	for (i = 0; i < 32; i++)
		rc_close(&c[i]);
	/* The last connection takes the registration along. */
	ASSERT_EQ(0, all_gone());
	EXPECT_EQ(0, rc_ordo_objects("mr"));
	EXPECT_EQ(0, rc_ordo_objects("pd"));
	EXPECT_EQ(0, rc_sysfs_u64("stats/registered_bytes"));
}

/* ---- 64 clients at once ---- */

struct reader {
	pthread_t th;
	struct rc_conn c;
	struct ordo_wire_region where;
	struct shim_table t;
	uint8_t super[64];
	int ret;
};

static atomic_int readers_ready;
static atomic_bool readers_go;

static void *reader_main(void *arg)
{
	struct reader *r = arg;
	const struct region_ent *e;

	r->ret = rc_connect(&r->c, NULL);
	atomic_fetch_add(&readers_ready, 1);
	while (!r->ret && !atomic_load(&readers_go))
		usleep(1000);
	if (!r->ret)
		r->ret = read_table(&r->c, &r->t, &r->where);
	/* The table's key for the superblock serves this connection. */
	if (!r->ret) {
		e = shim_region_find(&r->t.pool, 0, sizeof(r->super));
		r->ret = e ? rc_rdma_raw(&r->c, IBV_WR_RDMA_READ, 0,
					 sizeof(r->super), e->rkey) : -ERANGE;
		if (!r->ret)
			memcpy(r->super, rc_read_buf(&r->c), sizeof(r->super));
	}
	return NULL;
}

TEST_F_TIMEOUT(regs, sixty_four_clients_read_one_table, 600)
{
	static struct reader rd[CLIENTS];
	struct rc_conn first;
	long long regions0;
	uint32_t i, k;

	/* The store is registered before the crowd arrives. */
	ASSERT_EQ(0, rc_connect(&first, NULL));
	ASSERT_EQ(0, registered_all(&first));
	regions0 = rc_sysfs_u64("stats/rpc_regions");
	atomic_store(&readers_ready, 0);
	atomic_store(&readers_go, false);
	for (i = 0; i < CLIENTS; i++)
		ASSERT_EQ(0, pthread_create(&rd[i].th, NULL, reader_main, &rd[i]));
	while (atomic_load(&readers_ready) < CLIENTS)
		usleep(1000);
	atomic_store(&readers_go, true);
	for (i = 0; i < CLIENTS; i++)
		pthread_join(rd[i].th, NULL);
	for (i = 0; i < CLIENTS; i++) {
		ASSERT_EQ(0, rd[i].ret);
		/* One table: its key, its sequence word and its keys. */
		EXPECT_EQ(rd[0].where.rkey, rd[i].where.rkey);
		EXPECT_EQ(rd[0].where.offset, rd[i].where.offset);
		EXPECT_EQ(rd[0].where.length, rd[i].where.length);
		EXPECT_EQ(rd[0].t.seq, rd[i].t.seq);
		ASSERT_EQ(rd[0].t.model.n, rd[i].t.model.n);
		for (k = 0; k < rd[i].t.model.n; k++) {
			EXPECT_EQ(rd[0].t.model.ent[k].rkey, rd[i].t.model.ent[k].rkey);
			EXPECT_EQ(rd[0].t.model.ent[k].off, rd[i].t.model.ent[k].off);
			EXPECT_EQ(rd[0].t.model.ent[k].len, rd[i].t.model.ent[k].len);
		}
		ASSERT_EQ(rd[0].t.pool.n, rd[i].t.pool.n);
		for (k = 0; k < rd[i].t.pool.n; k++) {
			EXPECT_EQ(rd[0].t.pool.ent[k].rkey, rd[i].t.pool.ent[k].rkey);
			EXPECT_EQ(rd[0].t.pool.ent[k].off, rd[i].t.pool.ent[k].off);
			EXPECT_EQ(rd[0].t.pool.ent[k].len, rd[i].t.pool.ent[k].len);
		}
		EXPECT_EQ(0, memcmp(rd[0].super, rd[i].super, sizeof(rd[0].super)));
	}
	TH_LOG("%d clients: table of %u pool entries, sequence %llu", CLIENTS,
	       rd[0].t.pool.n, (unsigned long long)rd[0].t.seq);
	/* One REGIONS each, to find the table; the rest was READs. */
	EXPECT_EQ(regions0 + CLIENTS, rc_sysfs_u64("stats/rpc_regions"));
	EXPECT_EQ(CLIENTS + 1, rc_sysfs_u64("stats/connections"));
	for (i = 0; i < CLIENTS; i++) {
		table_free(&rd[i].t);
		rc_close(&rd[i].c);
	}
	rc_close(&first);
}

/*
 * The table is published read-only: a WRITE or an atomic with its key is
 * refused by the device, and the table reads back as it was.
 */
TEST_F(regs, table_refuses_writes_and_atomics)
{
	static const enum ibv_wr_opcode ops[] = {
		IBV_WR_RDMA_WRITE, IBV_WR_ATOMIC_CMP_AND_SWP,
		IBV_WR_ATOMIC_FETCH_AND_ADD,
	};
	struct ordo_wire_region where;
	struct shim_table t0, t1;
	struct rc_conn keep, c;
	unsigned int i;
	int st;

	/* Keeps the device's registration (and its keys) throughout. */
	ASSERT_EQ(0, rc_connect(&keep, NULL));
	ASSERT_EQ(0, registered_all(&keep));
	ASSERT_EQ(0, rc_connect(&c, NULL));
	ASSERT_EQ(0, read_table(&c, &t0, &where));
	for (i = 0; i < ARRAY_SIZE(ops); i++) {
		/* A refused request breaks the queue pair: a new one each. */
		rc_close(&c);
		ASSERT_EQ(0, rc_connect(&c, NULL));
		ASSERT_EQ(0, read_table(&c, &t1, &where));
		table_free(&t1);
		memset(rc_read_buf(&c), 0xa5, 64);
		st = rc_rdma_raw(&c, ops[i], le64toh(where.offset),
				 ops[i] == IBV_WR_RDMA_WRITE ? 64 : 8,
				 le32toh(where.rkey));
		TH_LOG("opcode %d on the table: %s", ops[i],
		       st > 0 ? ibv_wc_status_str(st) : strerror(-st));
		EXPECT_TRUE(st == IBV_WC_REM_ACCESS_ERR ||
			    st == IBV_WC_REM_INV_REQ_ERR ||
			    st == IBV_WC_REM_OP_ERR);
	}
	rc_close(&c);
	ASSERT_EQ(0, rc_connect(&c, NULL));
	ASSERT_EQ(0, read_table(&c, &t1, &where));
	EXPECT_EQ(t0.seq, t1.seq);
	ASSERT_EQ(t0.pool.n, t1.pool.n);
	for (i = 0; i < t0.pool.n; i++)
		EXPECT_EQ(t0.pool.ent[i].rkey, t1.pool.ent[i].rkey);
	table_free(&t0);
	table_free(&t1);
	rc_close(&c);
	rc_close(&keep);
}

/* ---- growth picked up through the table ---- */

#define READERS	4
/* max_fast_reg_page_list_len of rxe: chunks per MR at chunk-sized pages. */
#define RXE_PER_MR	512

static uint64_t grow_key(uint64_t i)
{
	return KBASE + i * 104729;
}

struct grower {
	pthread_t th;
	struct ordo *o;
	uint32_t vs;
	atomic_ullong *inserted;
	atomic_bool *stop;
	uint64_t seed;
	long gets;
	long bad;
};

/* GET keys already inserted, by walk: READs, RPC only as a fallback. */
static void *grower_reader(void *arg)
{
	struct grower *g = arg;
	uint8_t v[ORDO_VALUE_SIZE_MAX];

	while (!atomic_load(g->stop)) {
		uint64_t n = atomic_load(g->inserted), i;

		if (!n)
			continue;
		i = rc_rnd(&g->seed) % n;
		if (ordo_get(g->o, grow_key(i), v, g->vs) ||
		    t_version(v, g->vs, grow_key(i)) != 1)
			g->bad++;
		g->gets++;
	}
	return NULL;
}

static struct ordo *open_walk(void)
{
	struct ordo_opts op = {
		.size = sizeof(op),
		.mode = ORDO_MODE_WALK,
		.timeout_ms = RC_TIMEOUT_MS,
	};

	return ordo_open_opts(RC_URI, &op);
}

/* Until the MRs are one per table entry plus the table's: none retiring. */
static int settled(long *mrs, long *entries)
{
	long long end = rc_now_ms() + 120000;
	struct ordo_wire_region where;
	struct shim_table t;
	struct rc_conn c;
	int ret = rc_connect(&c, NULL);

	while (!ret) {
		ret = read_table(&c, &t, &where);
		if (ret)
			break;
		*entries = t.pool.n + t.model.n;
		table_free(&t);
		*mrs = rc_sysfs_u64("stats/mrs");
		if (*mrs == *entries + 1)
			break;
		if (rc_now_ms() > end)
			ret = -ETIMEDOUT;
		usleep(100000);
	}
	rc_close(&c);
	return ret;
}

/* 3600 s: a bound for a hang; the debug kernel under load took 15 min. */
TEST_F_TIMEOUT(regs, pool_growth_is_read_from_the_table, 3600)
{
	static struct grower g[READERS];
	uint8_t v[ORDO_VALUE_SIZE_MAX];
	struct ordo_counters before, after;
	atomic_ullong inserted = 0;
	atomic_bool stop = false;
	struct ordo_info info;
	long long regions0, retired0;
	uint64_t chunks0, n = 0, i;
	struct rc_conn keep;
	long mrs = 0, entries = 0;
	struct ordo *o;
	int r;

	/* A raw connection that stays, to wait for registration with. */
	ASSERT_EQ(0, rc_connect(&keep, NULL));
	ASSERT_EQ(0, registered_all(&keep));
	for (r = 0; r < READERS; r++) {
		g[r].o = open_walk();
		ASSERT_NE(NULL, g[r].o);
		g[r].vs = self->vs;
		g[r].inserted = &inserted;
		g[r].stop = &stop;
		g[r].seed = r + 1;
	}
	/* From here on, no client may ask where anything is. */
	regions0 = rc_sysfs_u64("stats/rpc_regions");
	retired0 = rc_sysfs_u64("stats/mrs_retired");
	ASSERT_EQ(0, t_ioctl(self->fd, ORDO_IOC_INFO, &info));
	chunks0 = info.pool_bytes_total / info.chunk_size;
	for (r = 0; r < READERS; r++)
		ASSERT_EQ(0, pthread_create(&g[r].th, NULL, grower_reader, &g[r]));
	/* Grow the pool by 4 chunks through /dev/ordo while they read. */
	while (info.pool_bytes_total / info.chunk_size < chunks0 + 4) {
		for (i = 0; i < 256; i++, n++) {
			t_fill(v, self->vs, grow_key(n), 1);
			ASSERT_EQ(0, t_kv(self->fd, ORDO_IOC_PUT, grow_key(n), v,
					  self->vs));
		}
		atomic_store(&inserted, n);
		ASSERT_EQ(0, t_ioctl(self->fd, ORDO_IOC_INFO, &info));
	}
	atomic_store(&stop, true);
	for (r = 0; r < READERS; r++) {
		pthread_join(g[r].th, NULL);
		TH_LOG("reader %d: %ld GETs during growth", r, g[r].gets);
		EXPECT_EQ(0, g[r].bad);
	}
	EXPECT_EQ(regions0, rc_sysfs_u64("stats/rpc_regions"));

	/* Once the table covers the new chunks, READs alone find the keys. */
	ASSERT_EQ(0, rc_wait_pool_chunks(&keep, info.pool_bytes_total /
					    info.chunk_size));
	o = g[0].o;
	ASSERT_EQ(0, ordo_counters(o, &before));
	for (i = n - 256; i < n; i++) {
		ASSERT_EQ(0, ordo_get(o, grow_key(i), v, self->vs));
		EXPECT_EQ(1, t_version(v, self->vs, grow_key(i)));
	}
	ASSERT_EQ(0, ordo_counters(o, &after));
	TH_LOG("256 GETs of the newest keys: %llu READs, %llu RPCs",
	       (unsigned long long)(after.reads - before.reads),
	       (unsigned long long)(after.rpcs - before.rpcs));
	EXPECT_EQ(before.rpcs, after.rpcs);
	EXPECT_EQ(before.fallbacks, after.fallbacks);
	EXPECT_EQ(regions0, rc_sysfs_u64("stats/rpc_regions"));

	/* Growth replaced MRs; their grace over, one MR per entry is left. */
	ASSERT_EQ(0, settled(&mrs, &entries));
	TH_LOG("after growth by %llu chunks: %ld MRs for %ld table entries, %lld retired",
	       (unsigned long long)(info.pool_bytes_total / info.chunk_size -
				    chunks0), mrs, entries,
	       rc_sysfs_u64("stats/mrs_retired") - retired0);
	EXPECT_LT(retired0, rc_sysfs_u64("stats/mrs_retired"));
	EXPECT_EQ(mrs, rc_ordo_objects("mr"));
	/*
	 * However it grew, the pool is one entry (one MR) per slot of
	 * per_mr chunks: 512 of 2 MiB on rxe (wire.rst, "How chunks become
	 * MRs"), never one per growth step.
	 */
	{
		struct ordo_wire_region where;
		struct shim_table t;

		ASSERT_EQ(0, read_table(&keep, &t, &where));
		TH_LOG("table: %u pool chunks in %u entries, %u model entries",
		       t.pool_chunks, t.pool.n, t.model.n);
		EXPECT_EQ((t.pool_chunks + RXE_PER_MR - 1) / RXE_PER_MR,
			  t.pool.n);
		table_free(&t);
	}
	for (r = 0; r < READERS; r++)
		ordo_close(g[r].o);
	rc_close(&keep);
}

/* ---- failed registrations back off ---- */

#define OLD_KEYS	2048
#define FAIL_GETS	300

static uint64_t old_key(uint64_t i)
{
	return KBASE - 0x10000000000ULL + i * 7919;
}

/*
 * The most registration attempts the backoff allows within @ms of
 * another: gaps of at least 40 ms (50 ms, less a jiffy), doubling,
 * capped at 10 s.  A slower machine only widens the bound.
 */
static long long backoff_bound(long long ms)
{
	long long gap = 40, sum = 0, n = 1;

	for (;;) {
		sum += gap;
		if (sum > ms)
			return n;
		n++;
		gap = gap * 2 > 10000 ? 10000 : gap * 2;
	}
}

/*
 * Registration attempts, failures and the backoff, read twice alike: not
 * while an attempt has counted and its failure not yet.
 */
static void reg_counts(long long *a, long long *f, long long *b)
{
	long long a2 = -1, f2 = -1, b2 = -1;

	do {
		*a = a2;
		*f = f2;
		*b = b2;
		usleep(20000);
		a2 = rc_sysfs_u64("stats/registration_attempts");
		f2 = rc_sysfs_u64("stats/registration_failures");
		b2 = rc_sysfs_u64("stats/registration_backoff_ms");
	} while (*a != a2 || *f != f2 || *b != b2);
}

/* GET keys @key(i), i in [@from, @to) by @step, through @o: 0 or -EIO. */
static int get_all(struct ordo *o, uint32_t vs, uint64_t (*key)(uint64_t),
		   uint64_t from, uint64_t to, uint64_t step)
{
	uint8_t v[ORDO_VALUE_SIZE_MAX];
	uint64_t i;

	for (i = from; i < to; i += step)
		if (ordo_get(o, key(i), v, vs) || t_version(v, vs, key(i)) != 1)
			return -EIO;
	return 0;
}

/* 3600 s: a bound for a hang; the debug kernel under load overran 900 s. */
TEST_F_TIMEOUT(regs, failed_registrations_back_off, 3600)
{
	uint8_t v[ORDO_VALUE_SIZE_MAX];
	struct ordo_counters c0, c1, c2;
	long long f0, f1, f2, a1, a2, runs1, runs2, t0, t1, end;
	long long backoff0, backoff, bound, lookup1, regs0;
	int rounds;
	struct ordo_info info;
	uint64_t chunks0, chunks, n = 0, n1 = 0, i, step;
	struct rc_conn keep;
	struct ordo *o;

	ASSERT_EQ(0, access(FAIL_REG, W_OK));
	ASSERT_EQ(0, rc_connect(&keep, NULL));
	for (i = 0; i < OLD_KEYS; i++) {
		t_fill(v, self->vs, old_key(i), 1);
		ASSERT_EQ(0, t_kv(self->fd, ORDO_IOC_PUT, old_key(i), v,
				  self->vs));
	}
	ASSERT_EQ(0, registered_all(&keep));
	/* A walking client whose cache holds the path to every old key. */
	o = open_walk();
	ASSERT_NE(NULL, o);
	ASSERT_EQ(0, get_all(o, self->vs, old_key, 0, OLD_KEYS, 1));

	/* From now on every registration fails; the pool grows 2 chunks. */
	ASSERT_EQ(0, rc_write_file(FAIL_REG, "2147483647"));
	f0 = rc_sysfs_u64("stats/registration_failures");
	regs0 = rc_sysfs_u64("stats/registrations");
	ASSERT_EQ(0, t_ioctl(self->fd, ORDO_IOC_INFO, &info));
	chunks0 = info.pool_bytes_total / info.chunk_size;
	while (info.pool_bytes_total / info.chunk_size < chunks0 + 2) {
		for (i = 0; i < 256; i++, n++) {
			t_fill(v, self->vs, grow_key(n), 1);
			ASSERT_EQ(0, t_kv(self->fd, ORDO_IOC_PUT, grow_key(n), v,
					  self->vs));
		}
		ASSERT_EQ(0, t_ioctl(self->fd, ORDO_IOC_INFO, &info));
		/* Nodes from here on are in new chunks, not in freed ones. */
		if (!n1 && info.pool_bytes_total / info.chunk_size > chunks0)
			n1 = n;
	}
	chunks = info.pool_bytes_total / info.chunk_size;
	/* The registrar's poll finds the growth; its chain fails. */
	end = rc_now_ms() + 60000;
	while (rc_sysfs_u64("stats/registration_failures") == f0 &&
	       rc_now_ms() < end)
		usleep(20000);
	ASSERT_LT(f0, rc_sysfs_u64("stats/registration_failures"));

	/*
	 * Backing off: old keys by READ, new ones by RPC, all served, in
	 * rounds until the registrar has tried twice more meanwhile.
	 */
	t0 = rc_now_ms();
	reg_counts(&a1, &f1, &backoff0);
	runs1 = rc_sysfs_u64("stats/registrar_runs");
	lookup1 = rc_sysfs_u64("stats/rpc_lookup");
	ASSERT_EQ(0, ordo_counters(o, &c0));
	/* The last old leaf may have split into the new chunks: not it. */
	ASSERT_EQ(0, get_all(o, self->vs, old_key, 0, OLD_KEYS - 64, 1));
	ASSERT_EQ(0, ordo_counters(o, &c1));
	step = (n - n1) / FAIL_GETS;
	ASSERT_LT(0, step);
	rounds = 0;
	do {
		ASSERT_EQ(0, get_all(o, self->vs, grow_key,
				     n - step * FAIL_GETS, n, step));
		rounds++;
	} while (rc_sysfs_u64("stats/registration_attempts") < a1 + 2 &&
		 rc_now_ms() < t0 + 120000);
	ASSERT_EQ(0, ordo_counters(o, &c2));
	t1 = rc_now_ms();
	runs2 = rc_sysfs_u64("stats/registrar_runs");
	reg_counts(&a2, &f2, &backoff);
	bound = backoff_bound(rc_now_ms() - t0);
	TH_LOG("old keys: %llu GETs, %llu READs, %llu fallbacks",
	       (unsigned long long)(c1.gets - c0.gets),
	       (unsigned long long)(c1.reads - c0.reads),
	       (unsigned long long)(c1.fallbacks - c0.fallbacks));
	TH_LOG("new keys: %llu GETs, %llu fallbacks, %lld LOOKUP RPCs served",
	       (unsigned long long)(c2.gets - c1.gets),
	       (unsigned long long)(c2.fallbacks - c1.fallbacks),
	       rc_sysfs_u64("stats/rpc_lookup") - lookup1);
	TH_LOG("%lld ms, %d rounds of %d GETs: %lld attempts (the backoff allows %lld), %lld registrar runs, %lld failures in all, backoff %lld -> %lld ms",
	       t1 - t0, rounds, FAIL_GETS, a2 - a1, bound, runs2 - runs1,
	       f2 - f0, backoff0, backoff);
	EXPECT_EQ(c0.fallbacks, c1.fallbacks);
	EXPECT_EQ(c0.rpcs, c1.rpcs);
	EXPECT_LE(OLD_KEYS - 64, c1.reads - c0.reads);
	EXPECT_LT(rounds * FAIL_GETS / 2, c2.fallbacks - c1.fallbacks);
	EXPECT_LE(c2.fallbacks - c1.fallbacks,
		  rc_sysfs_u64("stats/rpc_lookup") - lookup1);
	/* Every attempt failed; they follow the backoff, not the requests. */
	EXPECT_LE(2, a2 - a1);
	EXPECT_EQ(a2 - a1, f2 - f1);
	EXPECT_GE(bound, a2 - a1);
	/* Each failure doubled the backoff (up to 10 s). */
	EXPECT_EQ(backoff0 << (f2 - f1) < 10000 ? backoff0 << (f2 - f1) :
		  10000, backoff);
	EXPECT_EQ(regs0, rc_sysfs_u64("stats/registrations"));
	/*
	 * Each of those requests saw the pool ahead of the table; during a
	 * backoff that wakes no registrar: it ran for its attempts, for
	 * ports that drained (a few per attempt) and for its poll.
	 */
	EXPECT_GE(4 * (a2 - a1 + 1) + 8, runs2 - runs1);
	/* 50 ms, doubling per failure, at most 10 s. */
	if (backoff < 10000) {
		EXPECT_EQ(0, backoff % (1LL << (f2 - f0 - 1)));
		EXPECT_LE(40, backoff >> (f2 - f0 - 1));
		EXPECT_GE(60, backoff >> (f2 - f0 - 1));
	}
	EXPECT_LE(40, backoff);
	EXPECT_GE(10000, backoff);

	/* Registrations succeed again: the table catches up... */
	ASSERT_EQ(0, rc_write_file(FAIL_REG, "0"));
	ASSERT_EQ(0, rc_wait_pool_chunks(&keep, chunks));
	EXPECT_LT(regs0, rc_sysfs_u64("stats/registrations"));
	EXPECT_EQ(0, rc_sysfs_u64("stats/registration_backoff_ms"));
	/* ...and new keys are READ one-sided, no RPC. */
	ASSERT_EQ(0, get_all(o, self->vs, grow_key, 0, n, 1));
	ASSERT_EQ(0, ordo_counters(o, &c1));
	ASSERT_EQ(0, get_all(o, self->vs, grow_key, n - 256, n, 1));
	ASSERT_EQ(0, ordo_counters(o, &c2));
	TH_LOG("once registered: 256 GETs of the newest keys: %llu READs, %llu RPCs",
	       (unsigned long long)(c2.reads - c1.reads),
	       (unsigned long long)(c2.rpcs - c1.rpcs));
	EXPECT_EQ(c1.rpcs, c2.rpcs);
	EXPECT_EQ(c1.fallbacks, c2.fallbacks);
	ordo_close(o);
	rc_close(&keep);
}

TEST_HARNESS_MAIN
