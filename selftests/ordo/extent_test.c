// SPDX-License-Identifier: GPL-2.0
/*
 * Values longer than value_size (out of line, in extents) through
 * /dev/ordo: lengths 0, 1, 8, 100, 1000, 4096, 65536 and the store's
 * longest in one store, byte for byte by ioctl and io_uring; -ENOBUFS with
 * the length for short buffers, -EMSGSIZE past the longest; SCAN reports
 * long values by length; BATCH keeps to value_size; the read-only mapping
 * holds each extent where its slot says, valid by the reader protocol; a
 * GET racing a writer of long values never returns a torn value; deleting
 * and shrinking values gives their bytes back.
 */
#define _GNU_SOURCE
#include <liburing.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>
#include <sys/mman.h>

#include "ordo_test.h"
#include "kselftest_harness.h"
#include "node.h"

#define MAP_LEN (256UL << 20)

FIXTURE(ext) {
	int fd;
	struct ordo_info info;
	uint8_t *buf;
	uint8_t *want;
};

FIXTURE_SETUP(ext)
{
	self->fd = open(ORDO_DEV, O_RDWR);
	ASSERT_LE(0, self->fd);
	ASSERT_EQ(0, t_ioctl(self->fd, ORDO_IOC_INFO, &self->info));
	ASSERT_EQ(ordo_value_len_max(self->info.chunk_size),
		  self->info.value_max);
	ASSERT_LT(self->info.value_size, self->info.value_max);
	ASSERT_EQ(0, t_clear(self->fd));
	self->buf = malloc(self->info.value_max + 64);
	self->want = malloc(self->info.value_max + 64);
	ASSERT_NE(NULL, self->buf);
	ASSERT_NE(NULL, self->want);
}

FIXTURE_TEARDOWN(ext)
{
	t_clear(self->fd);
	close(self->fd);
	free(self->buf);
	free(self->want);
}

/* @len bytes naming @key, @ver and every byte's position. */
static void fill(uint8_t *v, uint32_t len, uint64_t key, uint32_t ver)
{
	uint32_t i;

	for (i = 0; i < len; i++)
		v[i] = (uint8_t)((key * 131) ^ (ver * 31) ^ (i * 7) ^ (i >> 8));
}

static int get(int fd, uint64_t key, void *buf, uint32_t *len)
{
	struct ordo_kv kv = {
		.key = key, .value = (uintptr_t)buf, .value_len = *len,
	};
	int ret = t_ioctl(fd, ORDO_IOC_GET, &kv);

	*len = kv.value_len;
	return ret;
}

static uint32_t lens_of(const struct ordo_info *in, uint32_t *lens)
{
	uint32_t n = 0;

	lens[n++] = 0;
	lens[n++] = 1;
	lens[n++] = 8;
	lens[n++] = 100;
	lens[n++] = 1000;
	lens[n++] = in->value_size;
	lens[n++] = in->value_size + 1;
	lens[n++] = 4096;
	lens[n++] = 65536;
	lens[n++] = in->value_max;
	return n;
}

TEST_F(ext, mixed_lengths_round_trip)
{
	uint32_t lens[16], n = lens_of(&self->info, lens), i, len;
	unsigned long long base = t_sysfs_u64("stats/extent_bytes");

	EXPECT_EQ(0, base);
	for (i = 0; i < n; i++) {
		fill(self->want, lens[i], 100 + i, 1);
		ASSERT_EQ(0, t_kv(self->fd, ORDO_IOC_PUT, 100 + i, self->want,
				  lens[i]));
	}
	EXPECT_LT(0, t_sysfs_u64("stats/extent_bytes"));
	for (i = 0; i < n; i++) {
		len = self->info.value_max + 64;
		memset(self->buf, 0xa5, len);
		ASSERT_EQ(0, get(self->fd, 100 + i, self->buf, &len));
		ASSERT_EQ(lens[i], len);
		fill(self->want, lens[i], 100 + i, 1);
		ASSERT_EQ(0, memcmp(self->buf, self->want, len));
		/* Exactly the value's bytes are written. */
		EXPECT_EQ(0xa5, self->buf[len]);
	}
	/* Longer than the store takes: refused, nothing stored. */
	EXPECT_EQ(-EMSGSIZE, t_kv(self->fd, ORDO_IOC_PUT, 99, self->want,
				  self->info.value_max + 1));
	len = self->info.value_max;
	EXPECT_EQ(-ENOENT, get(self->fd, 99, self->buf, &len));
}

TEST_F(ext, short_buffer_learns_the_length)
{
	uint32_t vs = self->info.value_size, len;

	fill(self->want, 5000, 7, 2);
	ASSERT_EQ(0, t_kv(self->fd, ORDO_IOC_PUT, 7, self->want, 5000));
	/* A buffer of value_size: the length comes back, no bytes. */
	len = vs;
	memset(self->buf, 0xa5, vs + 1);
	EXPECT_EQ(-ENOBUFS, get(self->fd, 7, self->buf, &len));
	EXPECT_EQ(5000, len);
	EXPECT_EQ(0xa5, self->buf[0]);
	len = 4999;
	EXPECT_EQ(-ENOBUFS, get(self->fd, 7, self->buf, &len));
	EXPECT_EQ(5000, len);
	len = 5000;
	ASSERT_EQ(0, get(self->fd, 7, self->buf, &len));
	EXPECT_EQ(0, memcmp(self->buf, self->want, 5000));
	/* Below value_size: refused before the lookup, value_size told. */
	len = vs - 1;
	EXPECT_EQ(-ENOBUFS, get(self->fd, 7, self->buf, &len));
	EXPECT_EQ(vs, len);
	/* INSERT of a present key and UPDATE of an absent one, long. */
	EXPECT_EQ(-EEXIST, t_kv(self->fd, ORDO_IOC_INSERT, 7, self->want,
				3000));
	EXPECT_EQ(-ENOENT, t_kv(self->fd, ORDO_IOC_UPDATE, 8, self->want,
				3000));
	EXPECT_EQ(0, t_kv(self->fd, ORDO_IOC_UPDATE, 7, self->want, 3000));
	len = 5000;
	ASSERT_EQ(0, get(self->fd, 7, self->buf, &len));
	EXPECT_EQ(3000, len);
	/* A bad user pointer is EFAULT, and stores nothing. */
	EXPECT_EQ(-EFAULT, t_kv(self->fd, ORDO_IOC_PUT, 9, (void *)8, 3000));
	len = 5000;
	EXPECT_EQ(-ENOENT, get(self->fd, 9, self->buf, &len));
}

TEST_F(ext, memory_comes_back)
{
	unsigned long long used1, ext1, total;
	uint32_t i;

	for (i = 0; i < 64; i++) {
		fill(self->want, 20000, i, 1);
		ASSERT_EQ(0, t_kv(self->fd, ORDO_IOC_PUT, i, self->want,
				  20000));
	}
	used1 = t_sysfs_u64("stats/pool_bytes_used");
	ext1 = t_sysfs_u64("stats/extent_bytes");
	EXPECT_LE(64 * 20024ULL, ext1);
	EXPECT_GE(64 * 20024ULL * 9 / 8 + 64 * 64, ext1);
	/*
	 * Not against the bytes before the writes: the trainer may retire
	 * earlier tests' empty leaves meanwhile.
	 */
	EXPECT_LE(ext1, used1);
	/* Shrinking to inline lengths frees every extent. */
	for (i = 0; i < 32; i++)
		ASSERT_EQ(0, t_kv(self->fd, ORDO_IOC_PUT, i, self->want, 1));
	EXPECT_GT(ext1, t_sysfs_u64("stats/extent_bytes"));
	for (i = 0; i < 64; i++)
		ASSERT_EQ(0, t_kv(self->fd, ORDO_IOC_DELETE, i, NULL, 0));
	EXPECT_EQ(0, t_sysfs_u64("stats/extent_bytes"));
	/*
	 * The extents went; the nodes stay, or fewer (the trainer retires
	 * empty leaves whenever it runs).
	 */
	EXPECT_GE(used1 - ext1, t_sysfs_u64("stats/pool_bytes_used"));
	/* Rewriting in a loop reuses the freed extents: no new chunk. */
	total = t_sysfs_u64("stats/pool_bytes_total");
	for (i = 0; i < 2000; i++) {
		ASSERT_EQ(0, t_kv(self->fd, ORDO_IOC_PUT, i % 64, self->want,
				  20000));
		if (i % 64 == 63)
			ASSERT_EQ(0, t_clear(self->fd));
	}
	EXPECT_EQ(total, t_sysfs_u64("stats/pool_bytes_total"));
	ASSERT_EQ(0, t_clear(self->fd));
	EXPECT_EQ(0, t_sysfs_u64("stats/extent_bytes"));
}

TEST_F(ext, scan_reports_long_values_by_length)
{
	uint32_t vs = self->info.value_size, i, lens[4];
	uint8_t *vals = malloc(4 * vs);
	uint64_t keys[4];
	struct ordo_scan sc = {
		.start = 0, .keys = (uintptr_t)keys, .values = (uintptr_t)vals,
		.lens = (uintptr_t)lens, .count = 4,
	};

	ASSERT_NE(NULL, vals);
	fill(self->want, 9000, 1, 1);
	ASSERT_EQ(0, t_kv(self->fd, ORDO_IOC_PUT, 1, self->want, 9000));
	fill(self->want, 3, 2, 1);
	ASSERT_EQ(0, t_kv(self->fd, ORDO_IOC_PUT, 2, self->want, 3));
	memset(vals, 0xa5, 4 * vs);
	ASSERT_EQ(0, t_ioctl(self->fd, ORDO_IOC_SCAN, &sc));
	ASSERT_EQ(2, sc.returned);
	EXPECT_EQ(1, keys[0]);
	EXPECT_EQ(9000, lens[0]);
	for (i = 0; i < vs; i++)
		ASSERT_EQ(0, vals[i]);
	EXPECT_EQ(3, lens[1]);
	EXPECT_EQ(0, memcmp(vals + vs, self->want, 3));
	free(vals);
}

TEST_F(ext, batch_keeps_to_value_size)
{
	uint32_t vs = self->info.value_size;
	struct ordo_batch_op ops[2] = {
		{ .op = ORDO_OP_GET, .kv = { .key = 5,
			.value = (uintptr_t)self->buf, .value_len = vs } },
		{ .op = ORDO_OP_PUT, .kv = { .key = 6,
			.value = (uintptr_t)self->want, .value_len = vs + 1 } },
	};
	struct ordo_batch b = { .ops = (uintptr_t)ops, .count = 1 };

	ASSERT_EQ(0, t_kv(self->fd, ORDO_IOC_PUT, 5, self->want, 2000));
	ASSERT_EQ(0, t_ioctl(self->fd, ORDO_IOC_BATCH, &b));
	EXPECT_EQ(-ENOBUFS, ops[0].result);
	EXPECT_EQ(2000, ops[0].kv.value_len);
	b.count = 2;
	ops[0].kv.value_len = vs;
	EXPECT_EQ(-EMSGSIZE, t_ioctl(self->fd, ORDO_IOC_BATCH, &b));
}

TEST_F(ext, uring_round_trip)
{
	struct io_uring ring;
	struct io_uring_cqe *cqe;
	struct io_uring_sqe *sqe;
	struct ordo_kv kv;
	int i;

	ASSERT_EQ(0, io_uring_queue_init(4, &ring, IORING_SETUP_SQE128));
	fill(self->want, 70000, 3, 1);
	for (i = 0; i < 2; i++) {
		kv = (struct ordo_kv){ .key = 3, .value_len = 70000,
			.value = (uintptr_t)(i ? self->buf : self->want) };
		sqe = io_uring_get_sqe(&ring);
		/* liburing 2.3 has no io_uring_prep_cmd(): by hand. */
		io_uring_prep_rw(IORING_OP_URING_CMD, sqe, self->fd, NULL, 0, 0);
		sqe->cmd_op = i ? ORDO_IOC_GET : ORDO_IOC_PUT;
		sqe->__pad1 = 0;
		memset(sqe->cmd, 0, 80);
		memcpy(sqe->cmd, &kv, sizeof(kv));
		ASSERT_EQ(1, io_uring_submit(&ring));
		ASSERT_EQ(0, io_uring_wait_cqe(&ring, &cqe));
		EXPECT_EQ(i ? 70000 : 0, cqe->res);
		io_uring_cqe_seen(&ring, cqe);
	}
	EXPECT_EQ(0, memcmp(self->buf, self->want, 70000));
	io_uring_queue_exit(&ring);
}

/*
 * The mapping holds each long value where its slot says: the leaf's key
 * block validates, the slot's lens word names the extent's units, and the
 * extent copied from the reference's offset validates to the value.
 */
TEST_F(ext, mapped_extents_validate)
{
	uint8_t *pool = mmap(NULL, MAP_LEN, PROT_READ, MAP_SHARED, self->fd, 0);
	struct ordo_super_info sb;
	const struct ordo_geo *g = &sb.geo;
	uint32_t n, r, len, seen = 0;
	uint8_t *leaf;
	uint64_t i;

	ASSERT_NE(MAP_FAILED, pool);
	for (i = 0; i < 40; i++) {
		fill(self->want, 1000 + 977 * i, i, 3);
		ASSERT_EQ(0, t_kv(self->fd, ORDO_IOC_PUT, i, self->want,
				  1000 + 977 * i));
	}
	ASSERT_EQ(0, ordo_super_read(pool, &sb));
	leaf = malloc(g->node_size);
	for (n = sb.leftmost_leaf; n; ) {
		const struct ordo_node_hdr *h = (const void *)leaf;

		memcpy(leaf, pool + ordo_node_offset(n, sb.nodes_per_chunk,
						     sb.chunk_size,
						     g->node_size),
		       g->node_size);
		ASSERT_EQ(0, ordo_node_validate(leaf, g));
		ASSERT_EQ(n, le32_to_cpu(h->node_no));
		for (r = 0; r < le16_to_cpu(h->count); r++) {
			uint32_t s = ordo_leaf_slot(h, g, r);
			uint64_t key = ordo_leaf_key(h, g, r);
			uint64_t ref = le64_to_cpu(ordo_leaf_cchecks(h, g)[s]);
			uint32_t units;

			if (!ordo_leaf_is_extent(h, g, s))
				continue;
			units = le16_to_cpu(ordo_leaf_clens(h, g)[s]) &
				ORDO_LEN_UNITS_MASK;
			ASSERT_GT(sb.nr_chunks * sb.chunk_size,
				  ordo_extent_ref_offset(ref));
			memcpy(self->buf, pool + ordo_extent_ref_offset(ref),
			       units * 64);
			ASSERT_EQ(0, ordo_extent_validate(self->buf, units * 64,
							  key, ref, units,
							  g->value_size,
							  sb.chunk_size, &len));
			ASSERT_EQ(1000 + 977 * key, len);
			fill(self->want, len, key, 3);
			ASSERT_EQ(0, memcmp(self->buf + 24, self->want, len));
			/* Another key's reference is refused. */
			EXPECT_EQ(-EAGAIN, ordo_extent_validate(self->buf,
					units * 64, key + 1, ref, units,
					g->value_size, sb.chunk_size, &len));
			seen++;
		}
		n = le32_to_cpu(((const struct ordo_node_hdr *)leaf)->right);
	}
	EXPECT_EQ(40 - (self->info.value_size >= 1000), seen);
	free(leaf);
	munmap(pool, MAP_LEN);
}

struct race {
	int fd;
	uint64_t key;
	volatile int stop;
	uint32_t writes;
};

static void *race_writer(void *p)
{
	struct race *rc = p;
	uint8_t *v = malloc(40000);
	uint32_t ver;

	for (ver = 1; !rc->stop || ver < 50; ver++) {
		uint32_t len = 9000 + (ver % 7) * 4000;

		fill(v, len, rc->key, ver);
		if (t_kv(rc->fd, ORDO_IOC_PUT, rc->key, v, len))
			break;
		rc->writes = ver;
	}
	free(v);
	return NULL;
}

/* A GET never mixes two versions, and its length is its version's. */
TEST_F(ext, get_races_writer)
{
	struct race rc = { .fd = self->fd, .key = 77 };
	uint32_t i, len, ver, ok = 0;
	pthread_t th;

	fill(self->want, 9000, 77, 0);
	ASSERT_EQ(0, t_kv(self->fd, ORDO_IOC_PUT, 77, self->want, 9000));
	ASSERT_EQ(0, pthread_create(&th, NULL, race_writer, &rc));
	for (i = 0; i < 2000; i++) {
		len = 40000;
		ASSERT_EQ(0, get(self->fd, 77, self->buf, &len));
		for (ver = 0; ver <= rc.writes + 1; ver++) {
			if (len != (ver ? 9000 + (ver % 7) * 4000 : 9000))
				continue;
			fill(self->want, len, 77, ver);
			if (!memcmp(self->buf, self->want, len))
				break;
		}
		ASSERT_GE(rc.writes + 1, ver);
		ok++;
	}
	rc.stop = 1;
	pthread_join(th, NULL);
	EXPECT_EQ(2000, ok);
	EXPECT_LT(50, rc.writes);
}

TEST_HARNESS_MAIN
