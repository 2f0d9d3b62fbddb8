// SPDX-License-Identifier: GPL-2.0
/*
 * The read-only mapping of the node pool: never writable, and a reader that
 * walks the leaves through it (validating every copy by checksum, as a
 * remote client will) sees the same data as GET and SCAN, and never a torn
 * node, even while writers change the nodes under it.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdbool.h>
#include <sys/mman.h>
#include <time.h>

#include "ordo_test.h"
#include "kselftest_harness.h"
#include "node.h"

#define MAP_LEN (64UL << 20)	/* covers the chunks these tests touch */

FIXTURE(map) {
	int fd;
	uint32_t vsize;
	const uint8_t *pool;
	struct ordo_super_info sb;
};

static const void *node_at(const uint8_t *pool, const struct ordo_super_info *sb,
			   uint32_t n)
{
	return pool + ordo_node_offset(n, sb->nodes_per_chunk, sb->chunk_size,
				       sb->geo.node_size);
}

FIXTURE_SETUP(map)
{
	void *p;

	self->fd = open(ORDO_DEV, O_RDWR);
	ASSERT_LE(0, self->fd);
	self->vsize = t_value_size(self->fd);
	ASSERT_EQ(0, t_clear(self->fd));
	p = mmap(NULL, MAP_LEN, PROT_READ, MAP_SHARED, self->fd, 0);
	ASSERT_NE(MAP_FAILED, p);
	self->pool = p;
	ASSERT_EQ(0, ordo_super_read(self->pool, &self->sb));
	EXPECT_EQ(self->vsize, self->sb.geo.value_size);
}

FIXTURE_TEARDOWN(map)
{
	munmap((void *)self->pool, MAP_LEN);
	t_clear(self->fd);
	close(self->fd);
}

TEST_F(map, never_writable)
{
	void *p;

	p = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED, self->fd, 0);
	EXPECT_EQ(MAP_FAILED, p);
	EXPECT_EQ(EPERM, errno);
	p = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE, self->fd, 0);
	EXPECT_EQ(MAP_FAILED, p);
	EXPECT_EQ(-1, mprotect((void *)self->pool, 4096, PROT_READ | PROT_WRITE));
	EXPECT_EQ(EACCES, errno);
	p = mmap(NULL, 4096, PROT_READ, MAP_PRIVATE, self->fd, 0);
	ASSERT_NE(MAP_FAILED, p);
	EXPECT_EQ(-1, mprotect(p, 4096, PROT_READ | PROT_WRITE));
	EXPECT_EQ(EACCES, errno);
	EXPECT_EQ(-1, mprotect(p, 4096, PROT_READ | PROT_EXEC));
	munmap(p, 4096);
}

static sigjmp_buf jump;

static void on_sigbus(int sig)
{
	siglongjmp(jump, sig);
}

TEST_F(map, unallocated_chunk_is_sigbus)
{
	volatile const uint8_t *far;
	struct sigaction sa = { .sa_handler = on_sigbus };
	int sig;

	/* The last chunk this mapping covers is not allocated yet. */
	ASSERT_LT(self->sb.nr_chunks * self->sb.chunk_size, MAP_LEN);
	far = self->pool + MAP_LEN - 4096;
	sigaction(SIGBUS, &sa, NULL);
	sig = sigsetjmp(jump, 1);
	if (!sig)
		(void)*far;
	EXPECT_EQ(SIGBUS, sig);
}

/*
 * Walk the leaf level from the leftmost leaf through right links, checking
 * each validated copy; returns the number of keys seen, or -1.
 */
static long walk_leaves(struct __test_metadata *_metadata,
			const uint8_t *pool, const struct ordo_super_info *sb,
			uint64_t *keys_out, uint8_t *vals_out, long max,
			long *torn)
{
	const struct ordo_geo *geo = &sb->geo;
	uint8_t *copy = malloc(geo->node_size);
	uint32_t n = sb->leftmost_leaf, restarts = 0;
	bool have_prev = false;
	uint64_t prev = 0, fence = 0;
	long total = 0;

	while (n != ORDO_NODE_NONE) {
		const struct ordo_node_hdr *h = (const void *)copy;
		uint32_t i;
		int ret;

		ret = ordo_node_copy_validate(copy, node_at(pool, sb, n), geo);
		if (ret == -EAGAIN) {
			(*torn)++;
			continue;
		}
		if (ret) {
			free(copy);
			TH_LOG("node %u: validation %d", n, ret);
			return -1;
		}
		if (h->level != 0 || le32_to_cpu(h->node_no) != n) {
			free(copy);
			return -1;
		}
		/*
		 * A right link read earlier may name a leaf retired since (the
		 * module retires emptied leaves in the background) and reused
		 * elsewhere: its low fence is not the previous high fence.
		 * Walk again from the leftmost leaf, a bounded number of times.
		 */
		if (le64_to_cpu(h->low_key) != fence) {
			if (++restarts > 1000) {
				TH_LOG("leaf %u: low fence %llu, want %llu", n,
				       (unsigned long long)le64_to_cpu(h->low_key),
				       (unsigned long long)fence);
				free(copy);
				return -1;
			}
			n = sb->leftmost_leaf;
			fence = 0;
			total = 0;
			have_prev = false;
			continue;
		}
		for (i = 0; i < le16_to_cpu(h->count); i++) {
			uint64_t k = ordo_leaf_key(h, geo, i);

			if ((have_prev && k <= prev) || total >= max) {
				free(copy);
				TH_LOG("order broken at key %llu",
				       (unsigned long long)k);
				return -1;
			}
			keys_out[total] = k;
			memcpy(vals_out + total * geo->value_size,
			       ordo_leaf_cvalue(h, geo,
						ordo_leaf_slot(h, geo, i)),
			       geo->value_size);
			total++;
			prev = k;
			have_prev = true;
		}
		n = le32_to_cpu(h->right);
		fence = le64_to_cpu(h->high_key);
	}
	free(copy);
	return total;
}

TEST_F(map, same_data_as_get_and_scan)
{
	uint32_t vs = self->vsize;
	long n = 30000, got, torn = 0, i;
	uint64_t *keys = calloc(n, 8), *skeys = calloc(n, 8);
	uint8_t *vals = calloc(n, vs), *svals = calloc(n, vs), *v = calloc(1, vs);
	struct ordo_scan sc = { 0 };

	for (i = 0; i < n; i++) {
		uint64_t k = (uint64_t)i * 7919 % 1000003 * 1000;

		t_fill(v, vs, k, 5);
		ASSERT_EQ(0, t_kv(self->fd, ORDO_IOC_PUT, k, v, vs));
	}
	ASSERT_EQ(0, ordo_super_read(self->pool, &self->sb));
	got = walk_leaves(_metadata, self->pool, &self->sb, keys, vals, n, &torn);
	ASSERT_EQ(n, got);
	sc.keys = (uintptr_t)skeys;
	sc.values = (uintptr_t)svals;
	sc.count = n;
	ASSERT_EQ(0, t_ioctl(self->fd, ORDO_IOC_SCAN, &sc));
	ASSERT_EQ(n, sc.returned);
	EXPECT_EQ(0, memcmp(keys, skeys, n * 8));
	EXPECT_EQ(0, memcmp(vals, svals, n * vs));
	for (i = 0; i < n; i += 101) {
		ASSERT_EQ(0, t_kv(self->fd, ORDO_IOC_GET, keys[i], v, vs));
		EXPECT_EQ(0, memcmp(v, vals + i * vs, vs));
	}
	free(keys);
	free(skeys);
	free(vals);
	free(svals);
	free(v);
}

struct writer_arg {
	int fd;
	uint32_t vs;
	volatile bool stop;
	long writes;
};

/* Rewrites values (new versions) and inserts keys, forcing splits. */
static void *writer(void *p)
{
	struct writer_arg *a = p;
	uint8_t *v = malloc(a->vs);
	uint64_t ver = 10, next = 1;

	while (!a->stop) {
		uint64_t k = (next * 2654435761ULL) % 50000;

		t_fill(v, a->vs, k, ver++);
		if (t_kv(a->fd, ORDO_IOC_PUT, k, v, a->vs))
			break;
		next++;
		__atomic_store_n(&a->writes, a->writes + 1, __ATOMIC_RELAXED);
	}
	free(v);
	return NULL;
}

/*
 * Walks go on until the writer has done 1,000 writes beside them, not a
 * fixed count: on the debug kernel under load, 30 walks of the young
 * store were over before its first write.  Bounded by 300 s.
 */
TEST_F_TIMEOUT(map, no_torn_node_under_writers, 600)
{
	struct writer_arg a = { .fd = self->fd, .vs = self->vsize };
	uint32_t vs = self->vsize;
	long n = 60000, rounds = 0, torn = 0, i, got;
	uint64_t *keys = calloc(n, 8);
	uint8_t *vals = calloc(n, vs);
	time_t end = time(NULL) + 300;
	pthread_t th;

	ASSERT_EQ(0, pthread_create(&th, NULL, writer, &a));
	while (rounds < 30 ||
	       (__atomic_load_n(&a.writes, __ATOMIC_RELAXED) < 1000 &&
		time(NULL) < end)) {
		struct ordo_super_info sb;

		ASSERT_EQ(0, ordo_super_read(self->pool, &sb));
		got = walk_leaves(_metadata, self->pool, &sb, keys, vals, n,
				  &torn);
		ASSERT_LE(0, got);
		/* Every value seen is one that was written for its key. */
		for (i = 0; i < got; i++)
			ASSERT_LE(10, t_version(vals + i * vs, vs, keys[i]));
		rounds++;
	}
	a.stop = true;
	pthread_join(th, NULL);
	TH_LOG("%ld walks, %ld writes, %ld torn copies rejected", rounds,
	       a.writes, torn);
	EXPECT_LE(1000, a.writes);
	free(keys);
	free(vals);
}

TEST_HARNESS_MAIN
