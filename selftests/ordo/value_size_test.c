// SPDX-License-Identifier: GPL-2.0
/*
 * A value size that is not a multiple of 8 (ordo.ko loaded again with
 * value_size=100): values lie unaligned in the leaves, and every path
 * returns them byte for byte -- /dev/ordo and rdma://, learned, walk and
 * RPC GETs, SCANs, and a shorter write read back zero-padded.  Values of
 * every length 0..100 in the one store come back with their lengths on
 * every path.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "kselftest_harness.h"
#include "ordo.h"
#include "ordo_test.h"
#include "raw_client.h"

#define URI_RDMA	"rdma://192.0.2.1"
#define VS		100
#define NKEYS		2000

static uint64_t key_of(uint32_t i)
{
	return (uint64_t)i * 7919 * 1000003ULL + 17;
}

static void value_of(uint8_t *v, uint64_t key)
{
	uint32_t i;

	for (i = 0; i < VS; i++)
		v[i] = (uint8_t)(key * 31 + i * 7 + 1);
}

FIXTURE(odd) {
	char params[256];
};

FIXTURE_SETUP(odd)
{
	t_module_params(self->params, sizeof(self->params));
	ASSERT_EQ(0, rc_module_reload(self->params, " value_size=100"));
}

/* The rest of the suite runs on the geometry it was started with. */
FIXTURE_TEARDOWN(odd)
{
	ASSERT_EQ(0, rc_module_reload(self->params, ""));
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

/* Every key byte for byte, a neighbour absent, and scans of 300 pairs. */
static void check_all(struct __test_metadata *_metadata, struct ordo *o)
{
	uint8_t val[VS], want[VS], *vals = malloc(300 * VS);
	uint64_t keys[300], next;
	uint32_t i, j;
	int more, n;

	ASSERT_NE(NULL, vals);
	ASSERT_EQ(VS, ordo_value_size(o));
	for (i = 0; i < NKEYS; i++) {
		ASSERT_EQ(0, ordo_get(o, key_of(i), val, sizeof(val)));
		value_of(want, key_of(i));
		ASSERT_EQ(0, memcmp(val, want, VS));
		ASSERT_EQ(-ENOENT, ordo_get(o, key_of(i) + 1, val,
					    sizeof(val)));
	}
	for (i = 0; i + 300 <= NKEYS; i += 571) {
		n = ordo_scan(o, key_of(i), 300, keys, vals, &more, &next);
		ASSERT_EQ(300, n);
		for (j = 0; j < 300; j++) {
			ASSERT_EQ(key_of(i + j), keys[j]);
			value_of(want, keys[j]);
			ASSERT_EQ(0, memcmp(vals + (size_t)j * VS, want, VS));
		}
	}
	free(vals);
}

TEST_F_TIMEOUT(odd, every_path_byte_for_byte, 900)
{
	static const enum ordo_mode modes[] = {
		ORDO_MODE_LEARNED, ORDO_MODE_WALK, ORDO_MODE_RPC,
	};
	uint8_t val[VS], want[VS];
	struct ordo *l, *o;
	unsigned int m;
	uint32_t i;

	l = ordo_open(NULL);
	ASSERT_NE(NULL, l);
	ASSERT_EQ(VS, ordo_value_size(l));
	for (i = 0; i < NKEYS; i++) {
		value_of(val, key_of(i));
		ASSERT_EQ(0, ordo_put(l, key_of(i), val, VS));
	}
	ASSERT_EQ(0, ordo_retrain(l, NULL));
	check_all(_metadata, l);
	for (m = 0; rc_available() && m < ARRAY_SIZE(modes); m++) {
		o = open_mode(URI_RDMA, modes[m]);
		ASSERT_NE(NULL, o);
		check_all(_metadata, o);
		ordo_close(o);
	}
	/* A shorter write: the rest of the value reads back as zeros. */
	value_of(val, 5);
	ASSERT_EQ(0, ordo_put(l, key_of(3), val, 37));
	memset(want, 0, sizeof(want));
	memcpy(want, val, 37);
	ASSERT_EQ(0, ordo_get(l, key_of(3), val, sizeof(val)));
	EXPECT_EQ(0, memcmp(val, want, VS));
	ordo_close(l);
}

/* Lengths 0..VS, the ends included, spread over neighbouring keys. */
static uint32_t len_of(uint32_t i, uint32_t round)
{
	return (i * 37 + round * 11) % (VS + 1);
}

/* Every key's exact length and bytes (nothing written past them), scans. */
static void check_lengths(struct __test_metadata *_metadata, struct ordo *o,
			  uint32_t round)
{
	uint8_t val[VS + 8], want[VS], *vals = malloc(300 * VS);
	uint64_t keys[300], next;
	uint32_t lens[300], i, j;
	size_t len;
	int more, n;

	ASSERT_NE(NULL, vals);
	for (i = 0; i < NKEYS; i += 3) {
		memset(val, 0xee, sizeof(val));
		ASSERT_EQ(0, ordo_get_len(o, key_of(i), val, VS, &len));
		ASSERT_EQ(len_of(i, round), len);
		value_of(want, key_of(i) + round);
		ASSERT_EQ(0, memcmp(val, want, len));
		for (j = len; j < sizeof(val); j++)
			ASSERT_EQ(0xee, val[j]);
		/* The fixed-size call pads with zeros. */
		ASSERT_EQ(0, ordo_get(o, key_of(i), val, VS));
		for (j = len; j < VS; j++)
			ASSERT_EQ(0, val[j]);
	}
	for (i = 0; i + 300 <= NKEYS; i += 571) {
		memset(vals, 0xee, 300 * VS);
		n = ordo_scan_len(o, key_of(i), 300, keys, vals, lens, &more,
				  &next);
		ASSERT_EQ(300, n);
		for (j = 0; j < 300; j++) {
			const uint8_t *v = vals + (size_t)j * VS;

			ASSERT_EQ(key_of(i + j), keys[j]);
			ASSERT_EQ(len_of(i + j, round), lens[j]);
			value_of(want, keys[j] + round);
			ASSERT_EQ(0, memcmp(v, want, lens[j]));
			for (len = lens[j]; len < VS; len++)
				ASSERT_EQ(0, v[len]);
		}
	}
	free(vals);
}

/*
 * Values of every length in one store, then every value rewritten with
 * another length (longer and shorter, to and from empty): each path
 * returns exactly what was written.
 */
TEST_F_TIMEOUT(odd, mixed_lengths_every_path, 900)
{
	static const enum ordo_mode modes[] = {
		ORDO_MODE_LEARNED, ORDO_MODE_WALK, ORDO_MODE_RPC,
	};
	uint8_t val[VS];
	struct ordo *l, *o;
	uint32_t i, round;
	unsigned int m;

	l = ordo_open(NULL);
	ASSERT_NE(NULL, l);
	for (round = 0; round < 2; round++) {
		for (i = 0; i < NKEYS; i++) {
			value_of(val, key_of(i) + round);
			ASSERT_EQ(0, ordo_put(l, key_of(i), len_of(i, round) ?
					      val : NULL, len_of(i, round)));
		}
		ASSERT_EQ(0, ordo_retrain(l, NULL));
		check_lengths(_metadata, l, round);
		for (m = 0; rc_available() && m < ARRAY_SIZE(modes); m++) {
			o = open_mode(URI_RDMA, modes[m]);
			ASSERT_NE(NULL, o);
			check_lengths(_metadata, o, round);
			ordo_close(o);
		}
	}
	ordo_close(l);
}

TEST_HARNESS_MAIN
