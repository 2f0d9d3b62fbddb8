// SPDX-License-Identifier: GPL-2.0
/*
 * GETs of a large leaf over RDMA (ordo.ko loaded again with 1 KiB values:
 * 16,768-byte nodes).  A GET reads the leaf's key block and then the one
 * value it needs, never the whole leaf: counted exactly on a static
 * store, learned and walk; and under writers rewriting the values, every
 * value returned is one a writer stored whole.
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

#define URI_RDMA	"rdma://192.0.2.1"
#define VS		1024
#define NKEYS		3000
#define WRITES		4000

static uint64_t key_of(uint32_t i)
{
	return (uint64_t)i * 7919 * 1000003ULL + 17;
}

FIXTURE(large) {
	char params[256];
};

FIXTURE_SETUP(large)
{
	t_module_params(self->params, sizeof(self->params));
	if (rc_available())
		ASSERT_EQ(0, rc_module_reload(self->params, " value_size=1024"));
}

/* The rest of the suite runs on the geometry it was started with. */
FIXTURE_TEARDOWN(large)
{
	if (rc_available())
		ASSERT_EQ(0, rc_module_reload(self->params, ""));
}

static struct ordo *open_mode(enum ordo_mode mode)
{
	struct ordo_opts op = {
		.size = sizeof(op),
		.mode = mode,
		.timeout_ms = 20000,
	};

	return ordo_open_opts(URI_RDMA, &op);
}

static void load_store(struct __test_metadata *_metadata)
{
	struct ordo *o = ordo_open(NULL);
	uint8_t val[VS];
	uint32_t i;

	ASSERT_NE(NULL, o);
	ASSERT_EQ(VS, ordo_value_size(o));
	for (i = 0; i < NKEYS; i++) {
		t_fill(val, VS, key_of(i), 1);
		ASSERT_EQ(0, ordo_put(o, key_of(i), val, VS));
	}
	ASSERT_EQ(0, ordo_retrain(o, NULL));
	ordo_close(o);
}

/* Every key and a neighbour that is absent; the counters of the pass. */
static void get_all(struct __test_metadata *_metadata, struct ordo *o,
		    struct ordo_counters *d)
{
	struct ordo_counters a, b;
	uint8_t val[VS];
	uint32_t i;

	ordo_counters(o, &a);
	for (i = 0; i < NKEYS; i++) {
		ASSERT_EQ(0, ordo_get(o, key_of(i), val, sizeof(val)));
		ASSERT_EQ(1, t_version(val, VS, key_of(i)));
		ASSERT_EQ(-ENOENT, ordo_get(o, key_of(i) + 1, val,
					    sizeof(val)));
	}
	ordo_counters(o, &b);
	d->round_trips = b.round_trips - a.round_trips;
	d->bytes_read = b.bytes_read - a.bytes_read;
	d->rpcs = b.rpcs - a.rpcs;
	d->fallbacks = b.fallbacks - a.fallbacks;
}

/*
 * A present key costs two round trips and block + 1,024 bytes; an absent
 * one the key block alone (besides, the handle re-reads the region table
 * when half its lease is gone: a round trip of a few hundred bytes).  The walk's one inner node is in its cache
 * after the first pass, so its second pass costs the same.
 */
TEST_F_TIMEOUT(large, key_block_then_value, 900)
{
	const uint64_t block = ordo_leaf_block_size(16);
	const enum ordo_mode modes[] = { ORDO_MODE_LEARNED, ORDO_MODE_WALK };
	struct ordo_counters d;
	unsigned int m;

	if (!rc_available())
		SKIP(return, "no RDMA");
	load_store(_metadata);
	for (m = 0; m < 2; m++) {
		struct ordo *o = open_mode(modes[m]);

		ASSERT_NE(NULL, o);
		ASSERT_EQ(VS, ordo_value_size(o));
		get_all(_metadata, o, &d);
		get_all(_metadata, o, &d);
		TH_LOG("%s: %.3f round trips and %.0f bytes per GET of a present and an absent key",
		       ordo_mode_name(modes[m]), d.round_trips / (2.0 * NKEYS),
		       d.bytes_read / (2.0 * NKEYS));
		/* Beyond the GETs: the region table's lease refreshes. */
		EXPECT_LE(3ULL * NKEYS, d.round_trips);
		EXPECT_GE(3ULL * NKEYS + 16, d.round_trips);
		EXPECT_LE(NKEYS * (2 * block + VS), d.bytes_read);
		EXPECT_GE(NKEYS * (2 * block + VS) +
			  (d.round_trips - 3ULL * NKEYS) * 4096, d.bytes_read);
		EXPECT_EQ(0, d.rpcs);
		EXPECT_EQ(0, d.fallbacks);
		ordo_close(o);
	}
}

/*
 * The length of version @v of a value: the load writes whole slots, later
 * versions 8..VS bytes, so that each write also changes the length.
 */
static uint32_t len_of_version(int64_t v)
{
	return v == 1 ? VS : 8 * (1 + (uint32_t)(v * 37) % (VS / 8));
}

/*
 * A writer rewrites values (each one whole, with a new version and a new
 * length) while a learned handle GETs them: every value it returns is one
 * version whole, with that version's length, never a mix, and never older
 * than one it returned before.
 */
TEST_F_TIMEOUT(large, writers_never_tear_a_value, 900)
{
	struct ordo_counters c;
	uint8_t val[VS];
	int64_t seen[64] = { 0 };
	uint32_t i, gets = 0;
	struct ordo *o;
	int status;
	pid_t pid;

	if (!rc_available())
		SKIP(return, "no RDMA");
	load_store(_metadata);
	o = open_mode(ORDO_MODE_LEARNED);
	ASSERT_NE(NULL, o);
	ASSERT_EQ(0, ordo_get(o, key_of(0), val, sizeof(val)));
	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid) {
		struct ordo *w = ordo_open(NULL);

		if (!w)
			_exit(2);
		/* 64 hot keys of a few leaves, versions 2, 3, ... */
		for (i = 0; i < WRITES; i++) {
			uint32_t len = len_of_version(2 + i / 64);

			t_fill(val, len, key_of(i % 64), 2 + i / 64);
			if (ordo_put(w, key_of(i % 64), val, len))
				_exit(3);
		}
		ordo_close(w);
		_exit(0);
	}
	while (waitpid(pid, &status, WNOHANG) == 0) {
		size_t len;
		int64_t v;

		i = gets++ % 64;
		ASSERT_EQ(0, ordo_get_len(o, key_of(i), val, sizeof(val), &len));
		ASSERT_LE(8, len);
		v = t_version(val, len, key_of(i));
		ASSERT_LE(1, v);
		ASSERT_EQ(len_of_version(v), len);
		ASSERT_LE(seen[i], v);
		seen[i] = v;
	}
	ASSERT_TRUE(WIFEXITED(status));
	ASSERT_EQ(0, WEXITSTATUS(status));
	for (i = 0; i < 64; i++) {
		int64_t v = 2 + (WRITES - 1 - i) / 64;
		size_t len;

		ASSERT_EQ(0, ordo_get_len(o, key_of(i), val, sizeof(val), &len));
		EXPECT_EQ(len_of_version(v), len);
		EXPECT_EQ(v, t_version(val, len, key_of(i)));
	}
	ordo_counters(o, &c);
	TH_LOG("%u GETs under %u writes: %llu read again, %llu fallbacks",
	       gets, WRITES, (unsigned long long)c.retries,
	       (unsigned long long)c.fallbacks);
	ordo_close(o);
}

TEST_HARNESS_MAIN
