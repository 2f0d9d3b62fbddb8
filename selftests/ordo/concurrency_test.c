// SPDX-License-Identifier: GPL-2.0
/*
 * Concurrency: writer threads run random mixed operations (and split-heavy
 * sequential inserts) on disjoint key partitions while reader threads GET
 * and SCAN.  Readers must only ever see values that were written for their
 * key and strictly ascending scans; afterwards the store must equal the
 * merged per-writer references exactly.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>

#include "ordo_test.h"
#include "kselftest_harness.h"

#define WRITERS		3
#define READERS		2
#define RANGE		6000		/* random keys per writer */
#define OPS		25000		/* random ops per writer */
#define SEQ		6000		/* sequential inserts per writer */
#define SEQ_BASE	(1ULL << 40)

struct writer {
	int fd, id;
	uint32_t vs;
	uint64_t ver[RANGE];		/* 0: absent */
	uint64_t seq;			/* sequential keys inserted */
	int bad;
};

static atomic_bool stop;

static uint64_t rnd(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

static uint64_t rkey(int id, uint64_t i)
{
	return i * WRITERS + id;
}

static uint64_t skey(int id, uint64_t i)
{
	return SEQ_BASE + i * WRITERS + id;
}

static void *writer_main(void *p)
{
	struct writer *w = p;
	uint8_t *v = malloc(w->vs);
	uint64_t s = 0x1234567 + w->id, next_ver = 1, i;

	for (i = 0; i < OPS; i++) {
		uint64_t slot = rnd(&s) % RANGE, k = rkey(w->id, slot);
		int op = rnd(&s) % 5, ret, want;

		t_fill(v, w->vs, k, next_ver);
		switch (op) {
		case 0: /* PUT */
			ret = t_kv(w->fd, ORDO_IOC_PUT, k, v, w->vs);
			want = 0;
			break;
		case 1: /* INSERT */
			ret = t_kv(w->fd, ORDO_IOC_INSERT, k, v, w->vs);
			want = w->ver[slot] ? -EEXIST : 0;
			break;
		case 2: /* UPDATE */
			ret = t_kv(w->fd, ORDO_IOC_UPDATE, k, v, w->vs);
			want = w->ver[slot] ? 0 : -ENOENT;
			break;
		case 3: /* DELETE */
			ret = t_kv(w->fd, ORDO_IOC_DELETE, k, NULL, 0);
			want = w->ver[slot] ? 0 : -ENOENT;
			if (!ret)
				w->ver[slot] = 0;
			break;
		default: /* sequential insert: splits at the right edge */
			if (w->seq < SEQ) {
				k = skey(w->id, w->seq);
				t_fill(v, w->vs, k, 1);
				ret = t_kv(w->fd, ORDO_IOC_INSERT, k, v, w->vs);
				want = 0;
				if (!ret)
					w->seq++;
			} else {
				ret = want = 0;
			}
			break;
		}
		if (ret != want)
			w->bad++;
		if (!ret && op <= 2)
			w->ver[slot] = next_ver;
		next_ver++;
	}
	free(v);
	return NULL;
}

struct reader {
	int fd;
	uint32_t vs;
	long gets, scans, bad;
};

static void *reader_main(void *p)
{
	struct reader *r = p;
	uint64_t s = 99, keys[256];
	uint8_t *vals = malloc(256 * r->vs);

	while (!atomic_load(&stop)) {
		uint64_t k = rnd(&s) % (RANGE * WRITERS);
		struct ordo_scan sc = { .keys = (uintptr_t)keys,
					.values = (uintptr_t)vals,
					.count = 256 };
		uint32_t i;
		int ret;

		if (rnd(&s) & 1)
			k = SEQ_BASE + rnd(&s) % (SEQ * WRITERS);
		ret = t_kv(r->fd, ORDO_IOC_GET, k, vals, r->vs);
		if (ret && ret != -ENOENT)
			r->bad++;
		if (!ret && t_version(vals, r->vs, k) < 1)
			r->bad++;
		r->gets++;
		sc.start = k;
		if (t_ioctl(r->fd, ORDO_IOC_SCAN, &sc)) {
			r->bad++;
			continue;
		}
		for (i = 0; i < sc.returned; i++) {
			if (keys[i] < k || (i && keys[i] <= keys[i - 1]) ||
			    t_version(vals + i * r->vs, r->vs, keys[i]) < 1)
				r->bad++;
		}
		r->scans++;
	}
	free(vals);
	return NULL;
}

FIXTURE(conc) {
	int unused;
};

FIXTURE_SETUP(conc)
{
}

FIXTURE_TEARDOWN(conc)
{
}

/* TCG makes every ioctl slow: allow minutes, not the default 30 s. */
TEST_F_TIMEOUT(conc, mixed_writers_and_readers, 600)
{
	static struct writer w[WRITERS];
	struct reader r[READERS];
	pthread_t wt[WRITERS], rt[READERS];
	uint64_t *keys, expect = 0, i;
	uint8_t *vals;
	struct ordo_scan sc = { 0 };
	uint32_t vs;
	int fd, j;

	fd = open(ORDO_DEV, O_RDWR);
	ASSERT_LE(0, fd);
	vs = t_value_size(fd);
	ASSERT_EQ(0, t_clear(fd));
	for (j = 0; j < READERS; j++) {
		r[j] = (struct reader){ .fd = fd, .vs = vs };
		ASSERT_EQ(0, pthread_create(&rt[j], NULL, reader_main, &r[j]));
	}
	for (j = 0; j < WRITERS; j++) {
		memset(&w[j], 0, sizeof(w[j]));
		w[j].fd = fd;
		w[j].id = j;
		w[j].vs = vs;
		ASSERT_EQ(0, pthread_create(&wt[j], NULL, writer_main, &w[j]));
	}
	for (j = 0; j < WRITERS; j++)
		pthread_join(wt[j], NULL);
	atomic_store(&stop, true);
	for (j = 0; j < READERS; j++)
		pthread_join(rt[j], NULL);
	for (j = 0; j < WRITERS; j++)
		EXPECT_EQ(0, w[j].bad);
	for (j = 0; j < READERS; j++) {
		EXPECT_EQ(0, r[j].bad);
		TH_LOG("reader %d: %ld gets, %ld scans", j, r[j].gets,
		       r[j].scans);
	}

	/* The store equals the merged references, in order. */
	for (j = 0; j < WRITERS; j++) {
		for (i = 0; i < RANGE; i++)
			expect += !!w[j].ver[i];
		expect += w[j].seq;
	}
	keys = calloc(expect + 1, 8);
	vals = calloc(expect + 1, vs);
	sc.keys = (uintptr_t)keys;
	sc.values = (uintptr_t)vals;
	sc.count = expect + 1;
	ASSERT_GE(ORDO_SCAN_MAX, sc.count);
	ASSERT_EQ(0, t_ioctl(fd, ORDO_IOC_SCAN, &sc));
	ASSERT_EQ(expect, sc.returned);
	for (i = 0; i < expect; i++) {
		uint64_t k = keys[i];
		int64_t ver = t_version(vals + i * vs, vs, k);

		if (k >= SEQ_BASE) {
			uint64_t idx = (k - SEQ_BASE) / WRITERS;

			ASSERT_LT(idx, w[(k - SEQ_BASE) % WRITERS].seq);
			ASSERT_EQ(1, ver);
		} else {
			ASSERT_EQ(w[k % WRITERS].ver[k / WRITERS], (uint64_t)ver);
		}
		if (i) {
			ASSERT_LT(keys[i - 1], k);
		}
	}
	free(keys);
	free(vals);
	t_clear(fd);
	close(fd);
}

TEST_HARNESS_MAIN
