// SPDX-License-Identifier: GPL-2.0
/*
 * libordo end to end, on both backends (/dev/ordo and rdma://192.0.2.1)
 * and in every mode: every operation against a reference, SCAN against
 * the reference, async requests, and the fast path proven by counters --
 * on a static store, a learned GET is exactly one round trip and no RPC,
 * a walk GET at most height round trips, and libordo's RPC count agrees
 * with the server's.
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/wait.h>

#include "kselftest_harness.h"
#include "ordo.h"
#include "ordo_test.h"
#include "raw_client.h"

#define NKEYS	6000
#define URI_RDMA "rdma://192.0.2.1"

/* Under TCG on shared cores an RDMA READ takes ~50 us or far more. */
FIXTURE(client) {};
FIXTURE_SETUP(client) {}
FIXTURE_TEARDOWN(client)
{
	/* A test that deleted the link and failed leaves it back for the rest. */
	if (!access(RC_SYSFS "/stats/connections", F_OK))
		rc_rxe_add();
}

static const enum ordo_mode modes[] = {
	ORDO_MODE_LEARNED, ORDO_MODE_MODEL_ONLY, ORDO_MODE_WALK, ORDO_MODE_RPC,
};

static uint64_t key_of(uint32_t i)
{
	return (uint64_t)i * 7919 * 1000003ULL + 17;
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

/* Load NKEYS keys through /dev/ordo and publish a model for them. */
static void load_store(struct __test_metadata *_metadata)
{
	struct ordo *o = ordo_open(NULL);
	uint8_t val[ORDO_VALUE_SIZE_MAX];
	uint32_t vs, i;

	ASSERT_NE(NULL, o);
	vs = ordo_value_size(o);
	ASSERT_EQ(0, t_clear(ordo_fd(o)));
	for (i = 0; i < NKEYS; i++) {
		t_fill(val, vs, key_of(i), 1);
		ASSERT_EQ(0, ordo_put(o, key_of(i), val, vs));
	}
	ASSERT_EQ(0, ordo_retrain(o, NULL));
	ordo_close(o);
}

static long long server_rpcs(void)
{
	static const char *const ops[] = {
		"get", "put", "insert", "update", "delete", "scan", "info",
		"regions", "model_fetch", "batch", "lookup",
	};
	long long sum = 0;
	char rel[64];
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(ops); i++) {
		snprintf(rel, sizeof(rel), "stats/rpc_%s", ops[i]);
		sum += rc_sysfs_u64(rel);
	}
	return sum;
}

/* Every key, absent keys, scans: the same answers in every mode. */
static void check_reads(struct __test_metadata *_metadata, struct ordo *o)
{
	uint8_t val[ORDO_VALUE_SIZE_MAX], *vals;
	uint64_t keys[300], next;
	uint32_t vs = ordo_value_size(o), i, j;
	int more, n;

	for (i = 0; i < NKEYS; i++) {
		ASSERT_EQ(0, ordo_get(o, key_of(i), val, sizeof(val)));
		ASSERT_EQ(1, t_version(val, vs, key_of(i)));
		ASSERT_EQ(-ENOENT, ordo_get(o, key_of(i) + 1, val, sizeof(val)));
	}
	ASSERT_EQ(-ENOENT, ordo_get(o, 0, val, sizeof(val)));
	ASSERT_EQ(-ENOENT, ordo_get(o, UINT64_MAX, val, sizeof(val)));
	vals = malloc(300 * (size_t)vs);
	ASSERT_NE(NULL, vals);
	for (i = 0; i < NKEYS; i += 977) {
		n = ordo_scan(o, key_of(i) - 1, 300, keys, vals, &more, &next);
		ASSERT_EQ(i + 300 <= NKEYS ? 300 : NKEYS - i, n);
		for (j = 0; j < (uint32_t)n; j++) {
			ASSERT_EQ(key_of(i + j), keys[j]);
			ASSERT_EQ(1, t_version(vals + j * (size_t)vs, vs,
					       keys[j]));
		}
		if (i + 300 < NKEYS) {
			ASSERT_EQ(1, more);
			ASSERT_EQ(keys[n - 1] + 1, next);
		}
	}
	n = ordo_scan(o, key_of(NKEYS - 1), 10, keys, NULL, &more, &next);
	ASSERT_EQ(1, n);
	ASSERT_EQ(0, more);
	free(vals);
}

static void check_writes(struct __test_metadata *_metadata, struct ordo *o)
{
	uint8_t val[ORDO_VALUE_SIZE_MAX];
	uint32_t vs = ordo_value_size(o);
	uint64_t k = key_of(5) + 3;

	t_fill(val, vs, k, 7);
	ASSERT_EQ(0, ordo_insert(o, k, val, vs));
	ASSERT_EQ(-EEXIST, ordo_insert(o, k, val, vs));
	t_fill(val, vs, k, 8);
	ASSERT_EQ(0, ordo_update(o, k, val, vs));
	ASSERT_EQ(0, ordo_get(o, k, val, sizeof(val)));
	ASSERT_EQ(8, t_version(val, vs, k));
	ASSERT_EQ(0, ordo_delete(o, k));
	ASSERT_EQ(-ENOENT, ordo_delete(o, k));
	ASSERT_EQ(-ENOENT, ordo_update(o, k, val, vs));
	ASSERT_EQ(-ENOENT, ordo_get(o, k, val, sizeof(val)));
	/* Longer than any value the store holds: refused before sending. */
	ASSERT_EQ(-EMSGSIZE, ordo_put(o, k, val, ordo_value_max(o) + 1));
	ASSERT_EQ(-ENOBUFS, ordo_get(o, k, val, vs - 1));
}

static void batch_fill(struct ordo_batch_op *ops, uint8_t (*vals)[ORDO_VALUE_SIZE_MAX],
		       uint16_t op, uint32_t vs)
{
	uint32_t i;

	memset(ops, 0, ORDO_BATCH_MAX * sizeof(*ops));
	for (i = 0; i < ORDO_BATCH_MAX; i++) {
		uint64_t k = key_of(i) + 5;

		ops[i].op = op;
		ops[i].kv.key = k;
		ops[i].kv.value = (uintptr_t)vals[i];
		ops[i].kv.value_len = op == ORDO_OP_GET ? sizeof(vals[i]) : vs;
		if (op == ORDO_OP_PUT)
			t_fill(vals[i], vs, k, 3);
	}
}

/*
 * Full batches of PUTs, GETs and DELETEs run whole on either backend; 256
 * PUTs exceed one 8 KiB message, so over RDMA they take two or more.  A
 * malformed batch changes nothing.
 */
static void check_batch(struct __test_metadata *_metadata, struct ordo *o)
{
	static struct ordo_batch_op ops[ORDO_BATCH_MAX + 1];
	static uint8_t vals[ORDO_BATCH_MAX][ORDO_VALUE_SIZE_MAX];
	uint32_t vs = ordo_value_size(o), i;
	uint8_t val[ORDO_VALUE_SIZE_MAX];
	struct ordo_counters c0, c1;
	uint16_t op;

	for (op = ORDO_OP_PUT; op; op = op == ORDO_OP_PUT ? ORDO_OP_GET :
		     op == ORDO_OP_GET ? ORDO_OP_DELETE : 0) {
		batch_fill(ops, vals, op, vs);
		ordo_counters(o, &c0);
		ASSERT_EQ(ORDO_BATCH_MAX, ordo_batch(o, ops, ORDO_BATCH_MAX));
		ordo_counters(o, &c1);
		if (op == ORDO_OP_PUT && ordo_fd(o) < 0)
			ASSERT_LE(2, c1.rpcs - c0.rpcs);
		for (i = 0; i < ORDO_BATCH_MAX; i++) {
			ASSERT_EQ(0, ops[i].result) TH_LOG("entry %u", i);
			if (op == ORDO_OP_GET)
				ASSERT_EQ(3, t_version(vals[i], vs,
						       key_of(i) + 5));
		}
	}
	ASSERT_EQ(-ENOENT, ordo_get(o, key_of(9) + 5, val, sizeof(val)));
	/* The last entry is bad: nothing before it may run. */
	batch_fill(ops, vals, ORDO_OP_PUT, vs);
	ops[ORDO_BATCH_MAX - 1].op = 99;
	ASSERT_EQ(-EINVAL, ordo_batch(o, ops, ORDO_BATCH_MAX));
	ASSERT_EQ(-ENOENT, ordo_get(o, key_of(0) + 5, val, sizeof(val)));
	ops[ORDO_BATCH_MAX - 1].op = ORDO_OP_GET;
	ASSERT_EQ(-E2BIG, ordo_batch(o, ops, ORDO_BATCH_MAX + 1));
	ASSERT_EQ(-EINVAL, ordo_batch(o, ops, 0));
	/* An entry without its bytes' pointer: EFAULT, whole, either way. */
	batch_fill(ops, vals, ORDO_OP_PUT, vs);
	ops[ORDO_BATCH_MAX - 1].kv.value = 0;
	ASSERT_EQ(-EFAULT, ordo_batch(o, ops, ORDO_BATCH_MAX));
	ASSERT_EQ(-ENOENT, ordo_get(o, key_of(0) + 5, val, sizeof(val)));
	batch_fill(ops, vals, ORDO_OP_GET, vs);
	ops[3].kv.value = 0;
	ASSERT_EQ(-EFAULT, ordo_batch(o, ops, ORDO_BATCH_MAX));
}

static void run_backend(struct __test_metadata *_metadata, const char *uri)
{
	unsigned int m;

	load_store(_metadata);
	for (m = 0; m < ARRAY_SIZE(modes); m++) {
		struct ordo *o = open_mode(uri, modes[m]);
		struct ordo_counters c;

		ASSERT_NE(NULL, o) TH_LOG("%s %s: %s", uri,
					  ordo_mode_name(modes[m]),
					  strerror(errno));
		ASSERT_EQ(modes[m], ordo_mode(o));
		check_reads(_metadata, o);
		check_writes(_metadata, o);
		check_batch(_metadata, o);
		ordo_counters(o, &c);
		TH_LOG("%s %s: gets %llu rt %llu reads %llu rpcs %llu fb %llu spec %llu retries %llu cache %llu",
		       uri, ordo_mode_name(modes[m]),
		       (unsigned long long)c.gets,
		       (unsigned long long)c.round_trips,
		       (unsigned long long)c.reads,
		       (unsigned long long)c.rpcs,
		       (unsigned long long)c.fallbacks,
		       (unsigned long long)c.speculative_reads,
		       (unsigned long long)c.retries,
		       (unsigned long long)c.cache_bytes);
		ordo_close(o);
	}
}

TEST_F_TIMEOUT(client, local_every_mode, 900)
{
	run_backend(_metadata, "/dev/ordo");
}

TEST_F_TIMEOUT(client, rdma_every_mode, 900)
{
	if (!rc_available())
		SKIP(return, "no RDMA");
	run_backend(_metadata, URI_RDMA);
}

/* Static store, warm cache: GET = 1 round trip, 0 RPCs (learned). */
TEST_F_TIMEOUT(client, rdma_fast_path_counters, 900)
{
	uint8_t val[ORDO_VALUE_SIZE_MAX];
	struct ordo_counters a, b;
	long long s0, s1, t0, refreshes, extra;
	unsigned long long pub;
	struct ordo_info info;
	struct ordo *o;
	char num[32];
	uint32_t i;

	if (!rc_available())
		SKIP(return, "no RDMA");
	load_store(_metadata);
	o = open_mode(URI_RDMA, ORDO_MODE_LEARNED);
	ASSERT_NE(NULL, o);
	ASSERT_EQ(0, ordo_info(o, &info));
	for (i = 0; i < NKEYS; i++)	/* warm-up: any refreshes happen here */
		ASSERT_EQ(0, ordo_get(o, key_of(i), val, sizeof(val)));
	ordo_counters(o, &a);
	s0 = server_rpcs();
	t0 = rc_now_ms();
	for (i = 0; i < NKEYS; i++)
		ASSERT_EQ(0, ordo_get(o, key_of(i), val, sizeof(val)));
	for (i = 0; i < 1000; i++)
		ASSERT_EQ(-ENOENT, ordo_get(o, key_of(i) + 5, val,
					    sizeof(val)));
	ordo_counters(o, &b);
	s1 = server_rpcs();
	/*
	 * One READ per GET, plus the region table's, which the handle
	 * reads again each half lease (Documentation/wire.rst): at most
	 * one such refresh per half lease that passed, and one more.
	 */
	ASSERT_EQ(0, t_read_file("/sys/module/ordo/parameters/region_lease_ms",
				 num, sizeof(num)));
	refreshes = (rc_now_ms() - t0) / (atoll(num) / 2) + 1;
	extra = b.reads - a.reads - (NKEYS + 1000);
	TH_LOG("learned: %lld table refreshes (at most %lld)", extra,
	       refreshes);
	EXPECT_EQ(NKEYS + 1000, b.gets - a.gets);
	EXPECT_LE(0, extra);
	EXPECT_LE(extra, refreshes);
	EXPECT_EQ(NKEYS + 1000 + extra, b.round_trips - a.round_trips);
	EXPECT_EQ(0, b.rpcs - a.rpcs);
	EXPECT_EQ(0, b.fallbacks - a.fallbacks);
	EXPECT_EQ(0, s1 - s0);
	/*
	 * The learned cache is a packed copy: fewer bytes than the model as
	 * published (8-byte TT entries, 40 bytes a sub-model), not more.
	 */
	pub = t_sysfs_u64("model/model_bytes") + t_sysfs_u64("model/tt_bytes");
	TH_LOG("learned cache %llu bytes, published model %llu",
	       (unsigned long long)b.cache_bytes, pub);
	EXPECT_GT(b.cache_bytes, 0);
	EXPECT_LT(b.cache_bytes, pub);
	ordo_close(o);

	/* walk: at most height round trips per GET, none with a warm cache. */
	o = open_mode(URI_RDMA, ORDO_MODE_WALK);
	ASSERT_NE(NULL, o);
	ordo_counters(o, &a);
	for (i = 0; i < NKEYS; i++)
		ASSERT_EQ(0, ordo_get(o, key_of(i), val, sizeof(val)));
	ordo_counters(o, &b);
	EXPECT_LE(b.round_trips - a.round_trips, (uint64_t)NKEYS * info.height);
	EXPECT_EQ(0, b.rpcs - a.rpcs);
	TH_LOG("walk: %.2f round trips per GET, height %u",
	       (double)(b.round_trips - a.round_trips) / NKEYS, info.height);
	ordo_close(o);

	/* rpc: the client's count is the server's. */
	o = open_mode(URI_RDMA, ORDO_MODE_RPC);
	ASSERT_NE(NULL, o);
	ordo_counters(o, &a);
	s0 = server_rpcs();
	for (i = 0; i < 500; i++)
		ASSERT_EQ(0, ordo_get(o, key_of(i), val, sizeof(val)));
	ordo_counters(o, &b);
	s1 = server_rpcs();
	EXPECT_EQ(500, b.rpcs - a.rpcs);
	EXPECT_EQ(500, b.round_trips - a.round_trips);
	EXPECT_EQ(s1 - s0, (long long)(b.rpcs - a.rpcs));
	ordo_close(o);
}

/*
 * Keys appended past the end of the client's model: GETs step right from
 * the model's last leaf and remember each leaf they find, so reading them
 * in order costs at most one extra READ per new leaf, and again none:
 * never an RPC.
 */
#define APPENDS	2000

static void get_appended(struct __test_metadata *_metadata, struct ordo *o,
			 struct ordo_counters *d)
{
	uint8_t val[ORDO_VALUE_SIZE_MAX];
	struct ordo_counters a, b;
	uint32_t i;

	ordo_counters(o, &a);
	for (i = 0; i < APPENDS; i++) {
		ASSERT_EQ(0, ordo_get(o, key_of(NKEYS + i), val, sizeof(val)));
		ASSERT_EQ(1, t_version(val, ordo_value_size(o),
				       key_of(NKEYS + i)));
	}
	ordo_counters(o, &b);
	d->gets = b.gets - a.gets;
	d->rpcs = b.rpcs - a.rpcs;
	d->fallbacks = b.fallbacks - a.fallbacks;
	d->speculative_reads = b.speculative_reads - a.speculative_reads;
}

TEST_F_TIMEOUT(client, rdma_appends_past_the_model, 900)
{
	struct ordo_opts frozen = {
		.size = sizeof(frozen),
		.mode = ORDO_MODE_LEARNED,
		.timeout_ms = 20000,
		.flags = ORDO_OPT_FROZEN_CACHE,
	};
	uint8_t val[ORDO_VALUE_SIZE_MAX];
	struct ordo_counters first, again;
	struct ordo *o, *w;
	uint32_t vs, i;

	if (!rc_available())
		SKIP(return, "no RDMA");
	load_store(_metadata);
	/* Frozen: the model stays the one of the load, whatever the trainer. */
	o = ordo_open_opts(URI_RDMA, &frozen);
	ASSERT_NE(NULL, o);
	ASSERT_EQ(0, ordo_get(o, key_of(NKEYS - 1), val, sizeof(val)));
	/* Another client appends; this one's model ends before them. */
	w = open_mode(URI_RDMA, ORDO_MODE_RPC);
	ASSERT_NE(NULL, w);
	vs = ordo_value_size(w);
	for (i = 0; i < APPENDS; i++) {
		t_fill(val, vs, key_of(NKEYS + i), 1);
		ASSERT_EQ(0, ordo_put(w, key_of(NKEYS + i), val, vs));
	}
	ordo_close(w);

	get_appended(_metadata, o, &first);
	get_appended(_metadata, o, &again);
	TH_LOG("appended keys, in order: %llu extra READs, then %llu",
	       (unsigned long long)first.speculative_reads,
	       (unsigned long long)again.speculative_reads);
	EXPECT_EQ(APPENDS, first.gets);
	EXPECT_EQ(0, first.rpcs);
	EXPECT_EQ(0, first.fallbacks);
	/* A leaf holds at least half its slots' keys after a split. */
	EXPECT_LE(first.speculative_reads, APPENDS / 8 + 8);
	EXPECT_EQ(0, again.rpcs);
	EXPECT_EQ(0, again.fallbacks);
	EXPECT_EQ(0, again.speculative_reads);
	ordo_close(o);
}

/*
 * Countdown ids below every stored key move the first sub-model's pivot
 * (a new top level within the epoch): a learned handle reads the top
 * level again and the changed sub-models only, never the whole model, and
 * then answers every key one-sided.  Format 4 retrained in full every ~20
 * splits here (each a whole model load for the client).
 */
#define UP	20000
#define DOWN	4000

static uint64_t down_key(uint32_t i)
{
	return i < UP ? (1ULL << 40) + (uint64_t)i * 1000 :
			(1ULL << 40) - (uint64_t)(i - UP + 1) * 7;
}

/* Until the trainer has published everything queued (splits, retires). */
static void settle(struct __test_metadata *_metadata, struct ordo *l,
		   struct ordo_model_info *mi)
{
	uint32_t i;

	for (i = 0; i < 1200; i++) {
		ASSERT_EQ(0, ordo_model_info(l, mi));
		if (!mi->pending)
			return;
		usleep(50000);
	}
}

static void get_down(struct __test_metadata *_metadata, struct ordo *o,
		     struct ordo_counters *d)
{
	uint8_t val[ORDO_VALUE_SIZE_MAX];
	struct ordo_counters a, b;
	uint32_t i;

	ordo_counters(o, &a);
	for (i = 0; i < UP + DOWN; i++) {
		ASSERT_EQ(0, ordo_get(o, down_key(i), val, sizeof(val)));
		ASSERT_EQ(1, t_version(val, ordo_value_size(o), down_key(i)));
	}
	ordo_counters(o, &b);
	d->rpcs = b.rpcs - a.rpcs;
	d->fallbacks = b.fallbacks - a.fallbacks;
	d->model_loads = b.model_loads - a.model_loads;
	d->top_refreshes = b.top_refreshes - a.top_refreshes;
	d->sub_refreshes = b.sub_refreshes - a.sub_refreshes;
}

TEST_F_TIMEOUT(client, rdma_countdown_refreshes_the_top, 900)
{
	struct ordo_opts op = {
		.size = sizeof(op),
		.mode = ORDO_MODE_LEARNED,
		.timeout_ms = 20000,
		.flags = ORDO_OPT_PRIVATE_CACHE,
	};
	uint8_t val[ORDO_VALUE_SIZE_MAX];
	struct ordo_counters first, again;
	struct ordo_model_info m0, m1;
	char params[256];
	struct ordo *o, *f, *l;
	uint32_t vs, i;

	if (!rc_available())
		SKIP(return, "no RDMA");
	/*
	 * A fresh store: an empty leftmost leaf that earlier tests' deletes
	 * left behind would keep the countdown off the left edge of the leaf
	 * level (it would land in a gap, a hotspot).
	 */
	t_module_params(params, sizeof(params));
	ASSERT_EQ(0, rc_module_reload(params, ""));
	l = ordo_open(NULL);
	ASSERT_NE(NULL, l);
	vs = ordo_value_size(l);
	for (i = 0; i < UP; i++) {
		t_fill(val, vs, down_key(i), 1);
		ASSERT_EQ(0, ordo_put(l, down_key(i), val, vs));
	}
	/* Splits of the load still queued would retrain after it: drain. */
	settle(_metadata, l, &m0);
	ASSERT_EQ(0, ordo_retrain(l, NULL));
	settle(_metadata, l, &m0);
	o = ordo_open_opts(URI_RDMA, &op);
	ASSERT_NE(NULL, o);
	ASSERT_EQ(0, ordo_get(o, down_key(0), val, sizeof(val)));
	op.flags |= ORDO_OPT_FROZEN_CACHE;
	f = ordo_open_opts(URI_RDMA, &op);
	ASSERT_NE(NULL, f);
	ASSERT_EQ(0, ordo_get(f, down_key(0), val, sizeof(val)));
	for (i = UP; i < UP + DOWN; i++) {
		t_fill(val, vs, down_key(i), 1);
		ASSERT_EQ(0, ordo_put(l, down_key(i), val, vs));
	}
	settle(_metadata, l, &m1);
	/*
	 * A copy that never refreshes keeps the old edges.  The GET of the
	 * first key remembers leaves split off the first one; the last key
	 * is still at the model's last leaf and must not take one of them.
	 */
	ordo_counters(f, &first);
	ASSERT_EQ(0, ordo_get(f, down_key(0), val, sizeof(val)));
	ordo_counters(f, &again);
	EXPECT_LT(first.speculative_reads, again.speculative_reads);
	ASSERT_EQ(0, ordo_get(f, down_key(UP - 1), val, sizeof(val)));
	ASSERT_EQ(1, t_version(val, vs, down_key(UP - 1)));
	ordo_counters(f, &first);
	EXPECT_EQ(again.fallbacks, first.fallbacks);
	EXPECT_EQ(again.speculative_reads, first.speculative_reads);
	ordo_close(f);
	get_down(_metadata, o, &first);
	get_down(_metadata, o, &again);
	ASSERT_EQ(0, ordo_model_info(l, &m1));
	ordo_close(l);
	TH_LOG("countdown: epoch %s, full trainings +%llu (expansions +%llu), "
	       "retrains +%llu; client: %llu top refreshes, %llu sub-model "
	       "reads, %llu model loads, %llu fallbacks, then %llu",
	       m0.version == m1.version ? "kept" : "changed",
	       (unsigned long long)(m1.full_trains - m0.full_trains),
	       (unsigned long long)(m1.expansions - m0.expansions),
	       (unsigned long long)(m1.retrains - m0.retrains),
	       (unsigned long long)first.top_refreshes,
	       (unsigned long long)first.sub_refreshes,
	       (unsigned long long)first.model_loads,
	       (unsigned long long)first.fallbacks,
	       (unsigned long long)again.fallbacks);
	EXPECT_EQ(m0.version, m1.version);
	EXPECT_EQ(0, first.model_loads);
	EXPECT_LE(1, first.top_refreshes);
	EXPECT_EQ(0, again.model_loads + again.top_refreshes);
	EXPECT_EQ(0, again.rpcs);
	EXPECT_EQ(0, again.fallbacks);
	ordo_close(o);
}

static void count_cb(struct ordo_req *r)
{
	(*(int *)r->user)++;
}

/* Many requests in flight, completed by polling. */
TEST_F_TIMEOUT(client, async_many_in_flight, 900)
{
	static const char *const uris[] = { "/dev/ordo", URI_RDMA };
	uint8_t vals[64][ORDO_VALUE_SIZE_MAX];
	struct ordo_req reqs[64];
	unsigned int u, i, round;

	load_store(_metadata);
	for (u = 0; u < ARRAY_SIZE(uris); u++) {
		struct ordo *o;
		int done = 0, ret;

		if (u && !rc_available())
			break;
		o = open_mode(uris[u], ORDO_MODE_LEARNED);
		ASSERT_NE(NULL, o);
		for (round = 0; round < 20; round++) {
			done = 0;
			for (i = 0; i < 32; i++) {
				reqs[i] = (struct ordo_req){
					.op = ORDO_OP_GET,
					.key = key_of(round * 32 + i),
					.val = vals[i],
					.len = sizeof(vals[i]),
					.cb = count_cb,
					.user = &done,
				};
				ASSERT_EQ(0, ordo_submit(o, &reqs[i]));
			}
			while (ordo_inflight(o)) {
				ret = ordo_poll(o, 1, -1);
				ASSERT_LE(0, ret);
			}
			ASSERT_EQ(32, done);
			for (i = 0; i < 32; i++) {
				ASSERT_EQ(0, reqs[i].result);
				ASSERT_EQ(1, t_version(vals[i],
						       ordo_value_size(o),
						       key_of(round * 32 + i)));
			}
		}
		ordo_close(o);
	}
}

/*
 * A model-only handle whose descriptors went stale (new epoch after
 * inserts and a retraining) reloads them and is back on the one-sided
 * path: no fallback once it has met the change.
 */
static void model_only_follows(struct __test_metadata *_metadata,
			       const char *uri)
{
	uint8_t val[ORDO_VALUE_SIZE_MAX];
	struct ordo_opts op = {
		.size = sizeof(op),
		.mode = ORDO_MODE_MODEL_ONLY,
		.timeout_ms = 20000,
		.flags = ORDO_OPT_PRIVATE_CACHE,
	};
	struct ordo_counters a, b;
	struct ordo *o, *l;
	uint32_t vs, i;

	load_store(_metadata);
	o = ordo_open_opts(uri, &op);
	ASSERT_NE(NULL, o);
	for (i = 0; i < NKEYS; i++)
		ASSERT_EQ(0, ordo_get(o, key_of(i), val, sizeof(val)));
	l = ordo_open(NULL);
	ASSERT_NE(NULL, l);
	vs = ordo_value_size(l);
	for (i = 0; i < NKEYS; i++) {
		t_fill(val, vs, key_of(i) + 1, 1);
		ASSERT_EQ(0, ordo_put(l, key_of(i) + 1, val, vs));
	}
	ASSERT_EQ(0, ordo_retrain(l, NULL));
	/* Until the trainer has caught up with the splits, any cache lags. */
	for (i = 0; i < 1200; i++) {
		struct ordo_model_info mi;

		ASSERT_EQ(0, ordo_model_info(l, &mi));
		if (!mi.pending)
			break;
		usleep(50000);
	}
	ordo_close(l);
	for (i = 0; i < NKEYS; i++)	/* meets the change, reloads */
		ASSERT_EQ(0, ordo_get(o, key_of(i), val, sizeof(val)));
	ordo_counters(o, &a);
	for (i = 0; i < NKEYS; i++) {
		ASSERT_EQ(0, ordo_get(o, key_of(i), val, sizeof(val)));
		ASSERT_EQ(1, t_version(val, vs, key_of(i)));
	}
	ordo_counters(o, &b);
	TH_LOG("%s model-only: %llu model loads, %llu fallbacks before, %llu after",
	       uri, (unsigned long long)b.model_loads,
	       (unsigned long long)a.fallbacks,
	       (unsigned long long)(b.fallbacks - a.fallbacks));
	EXPECT_EQ(0, b.fallbacks - a.fallbacks);
	EXPECT_EQ(0, b.rpcs - a.rpcs);
	ordo_close(o);
}

TEST_F_TIMEOUT(client, model_only_follows_new_epochs, 900)
{
	model_only_follows(_metadata, "/dev/ordo");
	if (rc_available())
		model_only_follows(_metadata, URI_RDMA);
}

/*
 * The server goes away mid-run (rmmod): the next GET fails within the
 * handle's bound, never hangs; after insmod the same handle reconnects to
 * the new store (a new server_id: nothing of the old cache is used).  The
 * new store's first model has a random epoch, not the old one's.
 */
TEST_F_TIMEOUT(client, rdma_server_restart, 900)
{
	uint8_t val[ORDO_VALUE_SIZE_MAX];
	struct ordo_opts op = {
		.size = sizeof(op),
		.mode = ORDO_MODE_LEARNED,
		.timeout_ms = 3000,
	};
	struct ordo_counters c;
	char params[256];
	uint64_t v_old, v_new;
	struct ordo *o, *l;
	long long t0, dt;
	int ret, i;

	if (!rc_available())
		SKIP(return, "no RDMA");
	load_store(_metadata);
	v_old = t_sysfs_u64("model/version");
	o = ordo_open_opts(URI_RDMA, &op);
	ASSERT_NE(NULL, o);
	ASSERT_EQ(0, ordo_get(o, key_of(1), val, sizeof(val)));
	t_module_params(params, sizeof(params));
	ASSERT_EQ(0, system("rmmod ordo"));
	t0 = rc_now_ms();
	ret = ordo_get(o, key_of(2), val, sizeof(val));
	dt = rc_now_ms() - t0;
	TH_LOG("GET with the server gone: %d (%s) after %lld ms", ret,
	       strerror(-ret), dt);
	EXPECT_TRUE(ret == -ECONNRESET || ret == -ETIMEDOUT ||
		    ret == -ECONNREFUSED || ret == -EHOSTUNREACH ||
		    ret == -ENODEV);
	EXPECT_LE(dt, 3000 + 2000 * t_time_scale());
	/* With no server, reconnecting fails within the bound as well. */
	t0 = rc_now_ms();
	EXPECT_NE(0, ordo_get(o, key_of(2), val, sizeof(val)));
	EXPECT_LE(rc_now_ms() - t0, 2 * 3000 + 2000 * t_time_scale());

	ASSERT_EQ(0, rc_module_insert(params, ""));
	l = ordo_open(NULL);
	ASSERT_NE(NULL, l);
	t_fill(val, ordo_value_size(l), 42, 9);
	ASSERT_EQ(0, ordo_put(l, 42, val, ordo_value_size(l)));
	ASSERT_EQ(0, ordo_retrain(l, &v_new));
	TH_LOG("model epoch %llu before the reload, %llu after",
	       (unsigned long long)v_old, (unsigned long long)v_new);
	/* Counting from 1 again would be below 2^20 (random: p = 2^-43). */
	EXPECT_NE(v_old, v_new);
	EXPECT_LT(1ULL << 20, v_new);
	EXPECT_GT(1ULL << 63, v_new);
	ordo_close(l);
	/* Bounded retries while the listener comes up. */
	for (i = 0; i < 100; i++) {
		ret = ordo_get(o, 42, val, sizeof(val));
		if (!ret)
			break;
		usleep(100000);
	}
	ASSERT_EQ(0, ret);
	EXPECT_EQ(9, t_version(val, ordo_value_size(o), 42));
	/* The old store's keys are gone: no stale cache answers for them. */
	EXPECT_EQ(-ENOENT, ordo_get(o, key_of(1), val, sizeof(val)));
	ordo_counters(o, &c);
	EXPECT_LE(1, c.reconnects);
	ordo_close(o);
}

/*
 * A client process for rdma_link_deleted: GETs until 100 have failed,
 * then reports { GETs, failures, slowest ms, bad errnos, the first bad
 * errno } on @fd.  Its exit frees its verbs objects: rxe cannot take them
 * from a live process.
 *
 * While the device goes away the server rejects connects on it with
 * ORDO_WIRE_REJ_SHUTDOWN ("the server or its RDMA device is going away"),
 * -ESHUTDOWN here; on a slow kernel (the debug kernel of make check-debug)
 * that window is long enough for most of the 100 failures to land in it.
 */
static void link_client(int ready, int fd)
{
	struct ordo_opts op = {
		.size = sizeof(op),
		.mode = ORDO_MODE_LEARNED,
		.timeout_ms = 3000,
	};
	uint8_t val[ORDO_VALUE_SIZE_MAX];
	long long r[5] = { 0 }, t0, dt, end;
	struct ordo *o = ordo_open_opts(URI_RDMA, &op);
	int ret;

	if (!o || ordo_get(o, key_of(1), val, sizeof(val)) ||
	    write(ready, "c", 1) != 1)
		_exit(1);
	end = rc_now_ms() + 300000;
	for (; r[1] < 100 && rc_now_ms() < end; r[0]++) {
		t0 = rc_now_ms();
		ret = ordo_get(o, key_of(r[0] % NKEYS), val, sizeof(val));
		dt = rc_now_ms() - t0;
		r[2] = dt > r[2] ? dt : r[2];
		if (!ret)
			continue;
		r[1]++;
		if (ret != -ECONNRESET && ret != -ETIMEDOUT &&
		    ret != -EHOSTUNREACH && ret != -ENODEV &&
		    ret != -ECONNREFUSED && ret != -EIO &&
		    ret != -EADDRNOTAVAIL && ret != -ESHUTDOWN &&
		    /* a CM call on an id the device removal took along */
		    ret != -ENXIO) {
			if (!r[3]++)
				r[4] = ret;
		}
	}
	ordo_close(o);
	_exit(write(fd, r, sizeof(r)) == sizeof(r) ? 0 : 1);
}

/*
 * The server's link deleted mid-run: every GET returns within the bound,
 * with a value or an error, never a hang; once the link is back a new
 * handle is served.
 */
TEST_F_TIMEOUT(client, rdma_link_deleted, 900)
{
	uint8_t val[ORDO_VALUE_SIZE_MAX];
	long long r[5] = { 0 };
	int rp[2], dp[2], st = 0, i;
	pid_t cli, del;
	struct ordo *o = NULL;
	char c;

	if (!rc_available())
		SKIP(return, "no RDMA");
	load_store(_metadata);
	ASSERT_EQ(0, pipe(rp));
	ASSERT_EQ(0, pipe(dp));
	cli = fork();
	ASSERT_LE(0, cli);
	if (!cli)
		link_client(rp[1], dp[1]);
	close(rp[1]);
	close(dp[1]);
	ASSERT_EQ(1, read(rp[0], &c, 1));
	del = fork();
	ASSERT_LE(0, del);
	if (!del) {
		execlp("rdma", "rdma", "link", "delete", "rxe0", (char *)NULL);
		_exit(127);
	}
	ASSERT_EQ((ssize_t)sizeof(r), read(dp[0], r, sizeof(r)));
	ASSERT_EQ(cli, waitpid(cli, &st, 0));
	EXPECT_TRUE(WIFEXITED(st) && !WEXITSTATUS(st));
	TH_LOG("%lld GETs while the link went, %lld failed, slowest %lld ms",
	       r[0], r[1], r[2]);
	EXPECT_EQ(100, r[1]);
	EXPECT_EQ(0, r[3]) {
		TH_LOG("%lld GETs failed with another errno, the first %lld",
		       r[3], r[4]);
	}
	/* One GET may wait out a connect attempt and then its own bound. */
	EXPECT_LE(r[2], 2 * 3000 + 2000 * t_time_scale());
	for (i = 0; i < 1200 && waitpid(del, &st, WNOHANG) != del; i++)
		usleep(100000);
	ASSERT_GT(1200, i) {
		kill(del, SIGKILL);
	}
	EXPECT_TRUE(WIFEXITED(st) && !WEXITSTATUS(st));
	EXPECT_FALSE(rc_rxe_present());
	ASSERT_EQ(0, rc_rxe_add());
	for (i = 0; i < 100 && !o; i++) {
		o = open_mode(URI_RDMA, ORDO_MODE_LEARNED);
		if (!o)
			usleep(100000);
	}
	ASSERT_NE(NULL, o);
	EXPECT_EQ(0, ordo_get(o, key_of(3), val, sizeof(val)));
	EXPECT_EQ(1, t_version(val, ordo_value_size(o), key_of(3)));
	ordo_close(o);
}

TEST_HARNESS_MAIN
