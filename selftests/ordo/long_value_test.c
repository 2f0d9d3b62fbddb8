// SPDX-License-Identifier: GPL-2.0
/*
 * Values longer than value_size (out of line, in extents) through libordo:
 * values of 0, 1, 8, 100, 1000, 4096, 65536 bytes and 1 MiB in one store,
 * GET byte for byte in every mode on /dev/ordo and in every one-sided mode
 * over rdma:// (written locally: long writes over RDMA wait for the
 * wire's staged upload); -ENOBUFS with the length needed; SCAN by length
 * only; what one long GET costs (the leaf, then one READ of the extent);
 * ordo_batch() with long values on both backends; and GETs racing a writer that keeps replacing a long value by others of
 * other lengths never return a mix of two.
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/prctl.h>
#include <sys/wait.h>

#include "kselftest_harness.h"
#include "ordo.h"
#include "ordo_test.h"

#define URI_RDMA	"rdma://192.0.2.1"
#define NFILL		600
#define NLEN		8

static const size_t lens[NLEN] = {
	0, 1, 8, 100, 1000, 4096, 65536, 1 << 20,
};

static uint64_t key_of(uint32_t i)
{
	return 1000000 + (uint64_t)i * 1000;
}

/* Every byte depends on the key, the version and its place. */
static void value_of(uint8_t *v, size_t len, uint64_t key, uint64_t ver)
{
	size_t i;

	for (i = 0; i < len; i++)
		v[i] = (uint8_t)(key * 131 + ver * 29 + i * 7 + (i >> 8));
}

static int same_value(const uint8_t *v, size_t len, uint64_t key,
		      uint64_t ver)
{
	size_t i;

	for (i = 0; i < len; i++)
		if (v[i] != (uint8_t)(key * 131 + ver * 29 + i * 7 + (i >> 8)))
			return 0;
	return 1;
}

static struct ordo *open_mode(const char *uri, enum ordo_mode mode)
{
	struct ordo_opts op = {
		.size = sizeof(op),
		.mode = mode,
		.timeout_ms = 20000,
	};

	return ordo_open_opts(uri, &op);
}

/* The length test value @i has in this store (1 MiB: at most the max). */
static size_t len_at(struct ordo *o, uint32_t i)
{
	return lens[i] < ordo_value_max(o) ? lens[i] : ordo_value_max(o);
}

FIXTURE(lv) {
	uint8_t *buf;
	size_t vmax;
	uint32_t vs;
};

/*
 * Filler keys with inline values around the test keys (several leaves),
 * the test keys' values of every length, and a model over them.
 */
FIXTURE_SETUP(lv)
{
	struct ordo *o = ordo_open(NULL);
	uint32_t i;

	ASSERT_NE(NULL, o);
	self->vs = ordo_value_size(o);
	self->vmax = ordo_value_max(o);
	ASSERT_GT(self->vmax, self->vs);
	self->buf = malloc(self->vmax + 64);
	ASSERT_NE(NULL, self->buf);
	ASSERT_EQ(0, t_clear(ordo_fd(o)));
	for (i = 0; i < NFILL; i++) {
		value_of(self->buf, self->vs, key_of(i) + 1, 1);
		ASSERT_EQ(0, ordo_put(o, key_of(i) + 1, self->buf, self->vs));
	}
	for (i = 0; i < NLEN; i++) {
		size_t len = len_at(o, i);

		value_of(self->buf, len, key_of(i * 50), 2);
		ASSERT_EQ(0, ordo_put(o, key_of(i * 50), self->buf, len));
	}
	ASSERT_EQ(0, ordo_retrain(o, NULL));
	ordo_close(o);
}

FIXTURE_TEARDOWN(lv)
{
	struct ordo *o = ordo_open(NULL);

	if (o) {
		t_clear(ordo_fd(o));
		ordo_close(o);
	}
	free(self->buf);
}

/* Every test value, byte for byte, and -ENOBUFS for a short buffer. */
static void check_gets(struct __test_metadata *_metadata, struct ordo *o,
		       uint8_t *buf, uint32_t vs)
{
	uint32_t i;

	for (i = 0; i < NLEN; i++) {
		uint64_t key = key_of(i * 50);
		size_t len = len_at(o, i), got = 0;

		memset(buf, 0xa5, len + 64);
		ASSERT_EQ(0, ordo_get_len(o, key, buf, ordo_value_max(o),
					  &got)) {
			TH_LOG("%s: GET of %zu bytes", ordo_mode_name(
				ordo_mode(o)), len);
		}
		ASSERT_EQ(len, got);
		ASSERT_TRUE(same_value(buf, len, key, 2));
		ASSERT_EQ(0xa5, buf[len]);
		if (len <= vs)
			continue;
		/* A buffer one byte short: the length, nothing written. */
		memset(buf, 0xa5, 16);
		got = 0;
		ASSERT_EQ(-ENOBUFS, ordo_get_len(o, key, buf,
						 len - 1 > vs ? len - 1 : vs,
						 &got));
		ASSERT_EQ(len, got);
		ASSERT_EQ(0xa5, buf[0]);
		ASSERT_EQ(-ENOBUFS, ordo_get(o, key, buf, vs));
		/* Its neighbour is inline. */
		ASSERT_EQ(0, ordo_get_len(o, key + 1, buf, vs, &got));
		ASSERT_EQ(vs, got);
	}
}

/* SCAN over the test keys: long values by length only, zero bytes. */
static void check_scan(struct __test_metadata *_metadata, struct ordo *o,
		       uint32_t vs)
{
	uint64_t keys[64];
	uint32_t slens[64], i, j;
	uint8_t *vals = malloc(64 * (size_t)vs);
	int n;

	ASSERT_NE(NULL, vals);
	for (i = 0; i < NLEN; i++) {
		uint64_t key = key_of(i * 50);
		size_t len = len_at(o, i);

		memset(vals, 0xa5, 64 * (size_t)vs);
		n = ordo_scan_len(o, key, 4, keys, vals, slens, NULL, NULL);
		ASSERT_EQ(4, n);
		ASSERT_EQ(key, keys[0]);
		ASSERT_EQ(len, slens[0]);
		if (len > vs) {
			for (j = 0; j < vs; j++)
				ASSERT_EQ(0, vals[j]);
		} else {
			ASSERT_TRUE(same_value(vals, len, key, 2));
		}
		/* The filler after it, whole. */
		ASSERT_EQ(key + 1, keys[1]);
		ASSERT_EQ(vs, slens[1]);
		ASSERT_TRUE(same_value(vals + vs, vs, key + 1, 1));
	}
	free(vals);
}

TEST_F_TIMEOUT(lv, local_every_mode, 900)
{
	static const enum ordo_mode modes[] = {
		ORDO_MODE_LEARNED, ORDO_MODE_MODEL_ONLY, ORDO_MODE_WALK,
		ORDO_MODE_RPC,
	};
	uint32_t m;

	for (m = 0; m < ARRAY_SIZE(modes); m++) {
		struct ordo *o = open_mode(NULL, modes[m]);

		ASSERT_NE(NULL, o);
		check_gets(_metadata, o, self->buf, self->vs);
		check_scan(_metadata, o, self->vs);
		ordo_close(o);
	}
}

/* Written locally, read one-sided over RDMA (RPC GETs: the wire's). */
TEST_F_TIMEOUT(lv, rdma_one_sided, 900)
{
	static const enum ordo_mode modes[] = {
		ORDO_MODE_LEARNED, ORDO_MODE_MODEL_ONLY, ORDO_MODE_WALK,
	};
	uint32_t m;

	for (m = 0; m < ARRAY_SIZE(modes); m++) {
		struct ordo *o = open_mode(URI_RDMA, modes[m]);
		struct ordo_counters c;

		ASSERT_NE(NULL, o);
		check_gets(_metadata, o, self->buf, self->vs);
		ASSERT_EQ(0, ordo_counters(o, &c));
		TH_LOG("rdma %s: %llu GETs, %llu round trips, %llu bytes, %llu fallbacks, %llu retries",
		       ordo_mode_name(modes[m]), (unsigned long long)c.gets,
		       (unsigned long long)c.round_trips,
		       (unsigned long long)c.bytes_read,
		       (unsigned long long)c.fallbacks,
		       (unsigned long long)c.retries);
		ordo_close(o);
	}
}

/*
 * What a long GET costs, warm, on a static store: the learned GET of an
 * inline value READs its leaf (one round trip), of a long value the leaf
 * and then the whole extent: one READ and one round trip more, and
 * ordo_extent_units() * 64 bytes more.
 */
static void one_get_cost(struct __test_metadata *_metadata, struct ordo *o,
			 uint8_t *buf, uint64_t key, struct ordo_counters *d)
{
	struct ordo_counters a, b;
	size_t got;

	ASSERT_EQ(0, ordo_get_len(o, key, buf, ordo_value_max(o), &got));
	ASSERT_EQ(0, ordo_counters(o, &a));
	ASSERT_EQ(0, ordo_get_len(o, key, buf, ordo_value_max(o), &got));
	ASSERT_EQ(0, ordo_counters(o, &b));
	d->reads = b.reads - a.reads;
	d->round_trips = b.round_trips - a.round_trips;
	d->bytes_read = b.bytes_read - a.bytes_read;
	d->rpcs = b.rpcs - a.rpcs;
	d->fallbacks = b.fallbacks - a.fallbacks;
}

static void check_costs(struct __test_metadata *_metadata, const char *uri,
			uint8_t *buf)
{
	struct ordo *o = open_mode(uri, ORDO_MODE_LEARNED);
	struct ordo_counters in, lg;
	uint64_t key = key_of(5 * 50);	/* 4096 bytes */
	uint32_t units = (24 + 4096 + 63) / 64;

	ASSERT_NE(NULL, o);
	one_get_cost(_metadata, o, buf, key + 1, &in);
	one_get_cost(_metadata, o, buf, key, &lg);
	TH_LOG("%s: inline GET %llu reads, %llu bytes, %llu round trips; 4 KiB GET %llu reads, %llu bytes, %llu round trips",
	       uri ? uri : "/dev/ordo", (unsigned long long)in.reads,
	       (unsigned long long)in.bytes_read,
	       (unsigned long long)in.round_trips,
	       (unsigned long long)lg.reads,
	       (unsigned long long)lg.bytes_read,
	       (unsigned long long)lg.round_trips);
	ASSERT_EQ(0, in.rpcs + lg.rpcs + in.fallbacks + lg.fallbacks);
	/* The same leaf path, then the extent (an inline value of a large
	 * leaf is a READ of its own too, as long as the extent's). */
	ASSERT_GE(lg.reads, 2);
	ASSERT_LE(lg.reads, in.reads + 1);
	ASSERT_GE(lg.bytes_read, (uint64_t)units * 64);
	if (uri)
		ASSERT_LE(lg.round_trips, in.round_trips + 1);
	ordo_close(o);
}

TEST_F_TIMEOUT(lv, cost_per_get, 900)
{
	check_costs(_metadata, NULL, self->buf);
	check_costs(_metadata, URI_RDMA, self->buf);
}

/*
 * ordo_batch() takes any value ordo_put() takes, on either backend: long
 * writes run in their place, a GET of a long value returns it whole (or
 * -ENOBUFS with its length) as the key was when the entry ran, even when
 * a later entry of the batch rewrites the key; a write longer than
 * value_max makes the batch malformed, and nothing runs.
 */
static void check_batch(struct __test_metadata *_metadata, const char *uri,
			uint8_t *buf, uint32_t vs)
{
	struct ordo *o = open_mode(uri, ORDO_MODE_LEARNED);
	enum { N = 9 };
	struct ordo_batch_op ops[N];
	uint64_t k = key_of(7 * 50 + 3), k2 = key_of(7 * 50 + 4);
	size_t big = 200000, lmax;
	uint8_t *v1 = malloc(big), *v2 = malloc(vs), *out[N];
	uint32_t i;
	size_t got;

	ASSERT_NE(NULL, o);
	lmax = ordo_value_max(o);
	ASSERT_NE(NULL, v1);
	ASSERT_NE(NULL, v2);
	value_of(v1, big, k, 5);
	value_of(v2, vs, k, 6);
	memset(ops, 0, sizeof(ops));
	for (i = 0; i < N; i++) {
		out[i] = calloc(1, big + 64);
		ASSERT_NE(NULL, out[i]);
		ops[i].op = ORDO_OP_GET;
		ops[i].kv.key = k;
		ops[i].kv.value = (uintptr_t)out[i];
		ops[i].kv.value_len = big;
	}
	/* 0: long PUT k; 1: GET k; 2: short GET buffer of k: ENOBUFS. */
	ops[0].op = ORDO_OP_PUT;
	ops[0].kv.value = (uintptr_t)v1;
	ops[0].kv.value_len = big;
	ops[2].kv.value_len = big - 1;
	/* 3: inline PUT k2; 4: GET k (long) then 5: PUT k inline; 6: GET k. */
	ops[3].op = ORDO_OP_PUT;
	ops[3].kv.key = k2;
	ops[3].kv.value = (uintptr_t)v2;
	ops[3].kv.value_len = vs;
	ops[5].op = ORDO_OP_PUT;
	ops[5].kv.value = (uintptr_t)v2;
	ops[5].kv.value_len = vs;
	/* 7: long INSERT of a present key: EEXIST; 8: GET k2. */
	ops[7].op = ORDO_OP_INSERT;
	ops[7].kv.value = (uintptr_t)v1;
	ops[7].kv.value_len = big;
	ops[8].kv.key = k2;
	ASSERT_EQ(N, ordo_batch(o, ops, N));
	EXPECT_EQ(0, ops[0].result);
	EXPECT_EQ(0, ops[1].result);
	EXPECT_EQ(big, ops[1].kv.value_len);
	EXPECT_EQ(0, memcmp(out[1], v1, big));
	EXPECT_EQ(-ENOBUFS, ops[2].result);
	EXPECT_EQ(big, ops[2].kv.value_len);
	EXPECT_EQ(0, ops[3].result);
	EXPECT_EQ(0, ops[4].result);
	EXPECT_EQ(big, ops[4].kv.value_len);
	EXPECT_EQ(0, memcmp(out[4], v1, big));
	EXPECT_EQ(0, ops[5].result);
	EXPECT_EQ(0, ops[6].result);
	EXPECT_EQ(vs, ops[6].kv.value_len);
	EXPECT_EQ(0, memcmp(out[6], v2, vs));
	EXPECT_EQ(-EEXIST, ops[7].result);
	EXPECT_EQ(0, ops[8].result);
	EXPECT_EQ(vs, ops[8].kv.value_len);
	/*
	 * Read-modify-write pairs with buffers of value_size: no GET of
	 * them can need a fetch of its own, so the batch is one BATCH.
	 */
	{
		struct ordo_counters a, b;

		for (i = 0; i < 4; i++) {
			struct ordo_batch_op *g = &ops[2 * i];

			g[0].op = ORDO_OP_GET;
			g[0].kv.key = key_of(i) + 1;
			g[0].kv.value = (uintptr_t)out[i];
			g[0].kv.value_len = vs;
			g[1] = g[0];
			g[1].op = ORDO_OP_PUT;
			g[1].kv.value = (uintptr_t)v2;
		}
		ordo_counters(o, &a);
		ASSERT_EQ(8, ordo_batch(o, ops, 8));
		ordo_counters(o, &b);
		EXPECT_EQ(1, b.rpcs - a.rpcs);
		for (i = 0; i < 8; i++)
			EXPECT_EQ(0, ops[i].result);
	}
	/* Longer than value_max: malformed, so the long PUT before it
	 * never ran either. */
	ops[0].kv.key = k + 2;
	ops[1].op = ORDO_OP_PUT;
	ops[1].kv.value = (uintptr_t)v1;
	ops[1].kv.value_len = lmax + 1;
	EXPECT_EQ(-EMSGSIZE, ordo_batch(o, ops, 2));
	EXPECT_EQ(-ENOENT, ordo_get_len(o, k + 2, buf, lmax, &got));
	for (i = 0; i < N; i++)
		free(out[i]);
	free(v1);
	free(v2);
	ordo_close(o);
}

TEST_F_TIMEOUT(lv, batch_of_long_values, 900)
{
	check_batch(_metadata, NULL, self->buf, self->vs);
	check_batch(_metadata, URI_RDMA, self->buf, self->vs);
}

/*
 * A writer process keeps replacing one key's value by versions of other
 * lengths (inline and long, up to 256 KiB) while GETs read it, locally
 * and over RDMA: each GET returns one whole version, never the length of
 * one with bytes of another or a torn extent.
 */
static size_t race_len(uint32_t vs, uint64_t ver)
{
	static const size_t l[] = { 0, 1, 4096, 65536, 262144, 3000 };

	return ver % 7 == 6 ? vs : l[ver % 6] ? l[ver % 6] : vs + 1;
}

static void race(struct __test_metadata *_metadata, const char *uri,
		 enum ordo_mode mode, uint8_t *buf, uint32_t vs, int secs)
{
	/* Each race's versions above the last one's (the key keeps its). */
	static uint64_t base;
	uint64_t key = key_of(25 * 50 + 7) + 3, ver, last = 0;
	struct ordo *o;
	struct ordo_counters c;
	unsigned long n = 0, nfb = 0;
	long long end;
	pid_t pid;
	int st;

	base += 1ULL << 32;
	pid = fork();
	ASSERT_GE(pid, 0);
	if (!pid) {
		struct ordo *w;
		uint8_t *v = malloc(262144 + 8);

		/* A failed assertion ends the test: the writer with it. */
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		if (getppid() == 1)
			_exit(1);
		w = ordo_open(NULL);
		if (!w || !v)
			_exit(2);
		for (ver = base;; ver++) {
			size_t len = race_len(vs, ver);

			value_of(v, len, key, ver);
			if (len >= 8)
				memcpy(v, &ver, 8);
			if (ordo_put(w, key, v, len))
				_exit(3);
		}
	}
	o = open_mode(uri, mode);
	ASSERT_NE(NULL, o);
	end = (long long)time(NULL) + secs;
	while ((long long)time(NULL) < end) {
		size_t got;
		int ret = ordo_get_len(o, key, buf, 262144, &got);

		if (ret == -ENOENT)
			continue;
		if (ret && uri) {
			/*
			 * Over RDMA a GET that keeps meeting new versions
			 * falls back to LOOKUP, which carries long values
			 * only with the wire's work: counted, not failed.
			 */
			ASSERT_EQ(0, ordo_counters(o, &c));
			ASSERT_GT(c.fallbacks, nfb);
			nfb++;
			continue;
		}
		ASSERT_EQ(0, ret);
		n++;
		if (got < 8)
			continue;	/* versions of 0 and 1 byte: length only */
		memcpy(&ver, buf, 8);
		ASSERT_EQ(race_len(vs, ver), got) {
			TH_LOG("version %llu with %zu bytes",
			       (unsigned long long)ver, got);
		}
		{
			uint8_t *want = malloc(got);

			ASSERT_NE(NULL, want);
			value_of(want, got, key, ver);
			memcpy(want, &ver, 8);
			ASSERT_EQ(0, memcmp(want, buf, got)) {
				TH_LOG("version %llu of %zu bytes: torn",
				       (unsigned long long)ver, got);
			}
			free(want);
		}
		/* One reader: versions never go back. */
		ASSERT_GE(ver, last);
		last = ver;
	}
	kill(pid, SIGKILL);
	waitpid(pid, &st, 0);
	ASSERT_EQ(0, ordo_counters(o, &c));
	TH_LOG("%s %s: %lu GETs racing the writer, %llu retries, %llu fallbacks",
	       uri ? uri : "/dev/ordo", ordo_mode_name(mode), n,
	       (unsigned long long)c.retries,
	       (unsigned long long)c.fallbacks);
	ASSERT_GT(n, 0);
	ordo_close(o);
}

TEST_F_TIMEOUT(lv, racing_writer_never_torn, 900)
{
	int secs = 5 * (int)t_time_scale();

	race(_metadata, NULL, ORDO_MODE_LEARNED, self->buf, self->vs, secs);
	race(_metadata, NULL, ORDO_MODE_WALK, self->buf, self->vs, secs);
	race(_metadata, URI_RDMA, ORDO_MODE_WALK, self->buf, self->vs, secs);
}

TEST_HARNESS_MAIN
