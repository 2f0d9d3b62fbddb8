// SPDX-License-Identifier: GPL-2.0
/*
 * Every /dev/ordo operation and every error path: GET, PUT, INSERT,
 * UPDATE, DELETE, SCAN and BATCH, with SCAN boundaries and hostile
 * arguments.  A rejected call must leave the store untouched.
 */
#define _GNU_SOURCE
#include <sys/mman.h>

#include "ordo_test.h"
#include "kselftest_harness.h"

FIXTURE(store) {
	int fd;
	uint32_t vsize;
	unsigned char *val, *out;
};

FIXTURE_SETUP(store)
{
	self->fd = open(ORDO_DEV, O_RDWR);
	ASSERT_LE(0, self->fd);
	self->vsize = t_value_size(self->fd);
	ASSERT_LE(8, self->vsize);
	self->val = calloc(1, self->vsize * 2);
	self->out = calloc(1, self->vsize * 2);
	ASSERT_EQ(0, t_clear(self->fd));
}

FIXTURE_TEARDOWN(store)
{
	t_clear(self->fd);
	close(self->fd);
	free(self->val);
	free(self->out);
}

static uint64_t keys_stored(int fd)
{
	struct ordo_info info;

	if (t_ioctl(fd, ORDO_IOC_INFO, &info))
		return ~0ULL;
	return info.keys;
}

TEST_F(store, point_ops)
{
	int fd = self->fd;
	uint32_t vs = self->vsize;

	t_fill(self->val, vs, 42, 1);
	EXPECT_EQ(-ENOENT, t_kv(fd, ORDO_IOC_GET, 42, self->out, vs));
	EXPECT_EQ(-ENOENT, t_kv(fd, ORDO_IOC_UPDATE, 42, self->val, vs));
	EXPECT_EQ(-ENOENT, t_kv(fd, ORDO_IOC_DELETE, 42, NULL, 0));
	ASSERT_EQ(0, t_kv(fd, ORDO_IOC_INSERT, 42, self->val, vs));
	EXPECT_EQ(-EEXIST, t_kv(fd, ORDO_IOC_INSERT, 42, self->val, vs));
	ASSERT_EQ(0, t_kv(fd, ORDO_IOC_GET, 42, self->out, vs));
	EXPECT_EQ(0, memcmp(self->val, self->out, vs));
	t_fill(self->val, vs, 42, 2);
	ASSERT_EQ(0, t_kv(fd, ORDO_IOC_UPDATE, 42, self->val, vs));
	ASSERT_EQ(0, t_kv(fd, ORDO_IOC_GET, 42, self->out, vs));
	EXPECT_EQ(2, t_version(self->out, vs, 42));
	t_fill(self->val, vs, 42, 3);
	ASSERT_EQ(0, t_kv(fd, ORDO_IOC_PUT, 42, self->val, vs));
	ASSERT_EQ(0, t_kv(fd, ORDO_IOC_GET, 42, self->out, vs));
	EXPECT_EQ(3, t_version(self->out, vs, 42));
	t_fill(self->val, vs, 43, 1);
	ASSERT_EQ(0, t_kv(fd, ORDO_IOC_PUT, 43, self->val, vs));
	EXPECT_EQ(2, keys_stored(fd));
	ASSERT_EQ(0, t_kv(fd, ORDO_IOC_DELETE, 42, NULL, 0));
	EXPECT_EQ(-ENOENT, t_kv(fd, ORDO_IOC_GET, 42, self->out, vs));
	EXPECT_EQ(-ENOENT, t_kv(fd, ORDO_IOC_DELETE, 42, NULL, 0));
	EXPECT_EQ(1, keys_stored(fd));
}

TEST_F(store, extreme_keys)
{
	uint64_t keys[] = { 0, 1, UINT64_MAX - 1, UINT64_MAX };
	uint32_t vs = self->vsize;
	size_t i;

	for (i = 0; i < 4; i++) {
		t_fill(self->val, vs, keys[i], 7);
		ASSERT_EQ(0, t_kv(self->fd, ORDO_IOC_INSERT, keys[i],
				  self->val, vs));
	}
	for (i = 0; i < 4; i++) {
		ASSERT_EQ(0, t_kv(self->fd, ORDO_IOC_GET, keys[i], self->out,
				  vs));
		EXPECT_EQ(7, t_version(self->out, vs, keys[i]));
	}
}

TEST_F(store, short_value_is_zero_padded)
{
	uint32_t vs = self->vsize;

	memset(self->out, 0xff, vs);
	ASSERT_EQ(0, t_kv(self->fd, ORDO_IOC_PUT, 5, "abc", 3));
	ASSERT_EQ(0, t_kv(self->fd, ORDO_IOC_GET, 5, self->out, vs));
	EXPECT_EQ(0, memcmp(self->out, "abc", 3));
	EXPECT_EQ(NULL, memchr(self->out + 3, 0xff, vs - 3));
	EXPECT_EQ(0, self->out[3]);
}

TEST_F(store, bad_value_buffers)
{
	int fd = self->fd;
	uint32_t vs = self->vsize;
	void *ro;

	EXPECT_EQ(-EMSGSIZE, t_kv(fd, ORDO_IOC_PUT, 1, self->val, vs + 1));
	EXPECT_EQ(-EINVAL, t_kv(fd, ORDO_IOC_PUT, 1, self->val, 0));
	EXPECT_EQ(-EFAULT, t_kv(fd, ORDO_IOC_PUT, 1, NULL, vs));
	EXPECT_EQ(-EFAULT, t_kv(fd, ORDO_IOC_INSERT, 1, (void *)8, vs));
	EXPECT_EQ(0, keys_stored(fd));
	ASSERT_EQ(0, t_kv(fd, ORDO_IOC_PUT, 1, self->val, vs));
	EXPECT_EQ(-ENOBUFS, t_kv(fd, ORDO_IOC_GET, 1, self->out, vs - 1));
	EXPECT_EQ(-EFAULT, t_kv(fd, ORDO_IOC_GET, 1, NULL, vs));
	ro = mmap(NULL, 4096, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, ro);
	EXPECT_EQ(-EFAULT, t_kv(fd, ORDO_IOC_GET, 1, ro, vs));
	munmap(ro, 4096);
	/* A failed update with a bad buffer leaves the old value. */
	t_fill(self->val, vs, 1, 9);
	ASSERT_EQ(0, t_kv(fd, ORDO_IOC_PUT, 1, self->val, vs));
	EXPECT_EQ(-EFAULT, t_kv(fd, ORDO_IOC_UPDATE, 1, (void *)8, vs));
	ASSERT_EQ(0, t_kv(fd, ORDO_IOC_GET, 1, self->out, vs));
	EXPECT_EQ(9, t_version(self->out, vs, 1));
}

TEST_F(store, flags_and_struct_sizes)
{
	struct ordo_kv kv = { .key = 1, .value = (uintptr_t)self->val,
			      .value_len = 8, .flags = 1 };
	unsigned char big[sizeof(kv) + 16];
	int fd = self->fd;

	EXPECT_EQ(-EINVAL, t_ioctl(fd, ORDO_IOC_PUT, &kv));
	kv.flags = 0;
	/* A shorter struct than version 1 */
	EXPECT_EQ(-EINVAL, t_ioctl(fd, _IOC(_IOC_WRITE, ORDO_IOC_MAGIC, 0x02,
					    sizeof(kv) - 4), &kv));
	/* A longer one: fine with zero tail, -E2BIG with garbage. */
	memset(big, 0, sizeof(big));
	memcpy(big, &kv, sizeof(kv));
	EXPECT_EQ(0, t_ioctl(fd, _IOC(_IOC_WRITE, ORDO_IOC_MAGIC, 0x02,
				      sizeof(big)), big));
	big[sizeof(kv) + 3] = 1;
	EXPECT_EQ(-E2BIG, t_ioctl(fd, _IOC(_IOC_WRITE, ORDO_IOC_MAGIC, 0x03,
					   sizeof(big)), big));
	EXPECT_EQ(-EFAULT, t_ioctl(fd, ORDO_IOC_PUT, NULL));
	EXPECT_EQ(-EFAULT, t_ioctl(fd, ORDO_IOC_SCAN, (void *)4096));
	EXPECT_EQ(1, keys_stored(fd));
}

/* Inserts keys 10, 20, ..., 10 * n. */
static void fill_tens(struct __test_metadata *_metadata, int fd,
		      uint32_t vs, unsigned char *val, uint64_t n)
{
	uint64_t i;

	for (i = 1; i <= n; i++) {
		t_fill(val, vs, i * 10, 1);
		ASSERT_EQ(0, t_kv(fd, ORDO_IOC_INSERT, i * 10, val, vs));
	}
}

static int scan(int fd, uint64_t start, uint32_t n, uint64_t *keys,
		void *vals, struct ordo_scan *out)
{
	memset(out, 0, sizeof(*out));
	out->start = start;
	out->keys = (uintptr_t)keys;
	out->values = (uintptr_t)vals;
	out->count = n;
	return t_ioctl(fd, ORDO_IOC_SCAN, out);
}

TEST_F(store, scan_boundaries)
{
	uint64_t *keys = calloc(ORDO_SCAN_MAX + 1, 8);
	unsigned char *vals = calloc(2000, self->vsize);
	struct ordo_scan sc;
	int fd = self->fd;
	uint32_t i;

	/* Empty store. */
	ASSERT_EQ(0, scan(fd, 0, 10, keys, vals, &sc));
	EXPECT_EQ(0, sc.returned);
	EXPECT_EQ(0, sc.more);
	fill_tens(_metadata, fd, self->vsize, self->val, 1000);
	/* Whole store, n larger than the store. */
	ASSERT_EQ(0, scan(fd, 0, 5000, keys, vals, &sc));
	ASSERT_EQ(1000, sc.returned);
	EXPECT_EQ(0, sc.more);
	for (i = 0; i < 1000; i++) {
		ASSERT_EQ((i + 1) * 10, keys[i]);
		ASSERT_EQ(1, t_version(vals + i * self->vsize, self->vsize,
				       keys[i]));
	}
	/* Start between keys, and on a key. */
	ASSERT_EQ(0, scan(fd, 15, 3, keys, NULL, &sc));
	ASSERT_EQ(3, sc.returned);
	EXPECT_EQ(20, keys[0]);
	EXPECT_EQ(40, keys[2]);
	EXPECT_EQ(1, sc.more);
	EXPECT_EQ(41, sc.next);
	ASSERT_EQ(0, scan(fd, 20, 1, keys, NULL, &sc));
	EXPECT_EQ(20, keys[0]);
	/* Past the last key. */
	ASSERT_EQ(0, scan(fd, 10001, 10, keys, NULL, &sc));
	EXPECT_EQ(0, sc.returned);
	ASSERT_EQ(0, scan(fd, UINT64_MAX, 10, keys, NULL, &sc));
	EXPECT_EQ(0, sc.returned);
	/* Key UINT64_MAX is returned and ends the scan. */
	ASSERT_EQ(0, t_kv(fd, ORDO_IOC_PUT, UINT64_MAX, self->val, 8));
	ASSERT_EQ(0, scan(fd, 10000, 10, keys, NULL, &sc));
	ASSERT_EQ(2, sc.returned);
	EXPECT_EQ(UINT64_MAX, keys[1]);
	EXPECT_EQ(0, sc.more);
	ASSERT_EQ(0, scan(fd, UINT64_MAX, 1, keys, NULL, &sc));
	ASSERT_EQ(1, sc.returned);
	EXPECT_EQ(0, sc.more);
	/* Continuation walks everything exactly once. */
	{
		uint64_t start = 0, seen = 0, last = 0;

		do {
			ASSERT_EQ(0, scan(fd, start, 7, keys, NULL, &sc));
			for (i = 0; i < sc.returned; i++) {
				if (seen) {
					ASSERT_LT(last, keys[i]);
				}
				last = keys[i];
				seen++;
			}
			start = sc.next;
		} while (sc.more);
		EXPECT_EQ(1001, seen);
	}
	/* Bad counts, flags and buffers. */
	EXPECT_EQ(-EINVAL, scan(fd, 0, 0, keys, NULL, &sc));
	EXPECT_EQ(-E2BIG, scan(fd, 0, ORDO_SCAN_MAX + 1, keys, NULL, &sc));
	EXPECT_EQ(-E2BIG, scan(fd, 0, UINT32_MAX, keys, NULL, &sc));
	EXPECT_EQ(-EFAULT, scan(fd, 0, 10, NULL, NULL, &sc));
	EXPECT_EQ(-EFAULT, scan(fd, 0, 10, (uint64_t *)8, NULL, &sc));
	EXPECT_EQ(-EFAULT, scan(fd, 0, 10, keys, (void *)8, &sc));
	memset(&sc, 0, sizeof(sc));
	sc.keys = (uintptr_t)keys;
	sc.count = 1;
	sc.flags = 1;
	EXPECT_EQ(-EINVAL, t_ioctl(fd, ORDO_IOC_SCAN, &sc));
	free(keys);
	free(vals);
}

TEST_F(store, batch)
{
	struct ordo_batch_op ops[6];
	unsigned char vals[6][1024];
	struct ordo_batch b;
	uint32_t vs = self->vsize;
	int fd = self->fd, i;

	ASSERT_GE(1024, vs);
	memset(ops, 0, sizeof(ops));
	for (i = 0; i < 6; i++) {
		ops[i].kv.key = 100 + (i % 3);
		ops[i].kv.value = (uintptr_t)vals[i];
		ops[i].kv.value_len = vs;
		t_fill(vals[i], vs, ops[i].kv.key, i);
	}
	ops[0].op = ORDO_OP_INSERT;	/* 100 */
	ops[1].op = ORDO_OP_PUT;	/* 101 */
	ops[2].op = ORDO_OP_UPDATE;	/* 102: absent */
	ops[3].op = ORDO_OP_INSERT;	/* 100: exists */
	ops[4].op = ORDO_OP_GET;	/* 101 */
	ops[5].op = ORDO_OP_DELETE;	/* 102: absent */
	memset(&b, 0, sizeof(b));
	b.ops = (uintptr_t)ops;
	b.count = 6;
	ASSERT_EQ(0, t_ioctl(fd, ORDO_IOC_BATCH, &b));
	EXPECT_EQ(6, b.done);
	EXPECT_EQ(0, ops[0].result);
	EXPECT_EQ(0, ops[1].result);
	EXPECT_EQ(-ENOENT, ops[2].result);
	EXPECT_EQ(-EEXIST, ops[3].result);
	EXPECT_EQ(0, ops[4].result);
	EXPECT_EQ(1, t_version(vals[4], vs, 101));
	EXPECT_EQ(-ENOENT, ops[5].result);
	EXPECT_EQ(2, keys_stored(fd));
}

TEST_F(store, malformed_batch_changes_nothing)
{
	struct ordo_batch_op ops[3];
	struct ordo_batch b;
	uint32_t vs = self->vsize;
	int fd = self->fd;

	memset(ops, 0, sizeof(ops));
	ops[0].op = ORDO_OP_PUT;
	ops[0].kv.key = 1;
	ops[0].kv.value = (uintptr_t)self->val;
	ops[0].kv.value_len = vs;
	ops[1] = ops[0];
	ops[1].kv.key = 2;
	memset(&b, 0, sizeof(b));
	b.ops = (uintptr_t)ops;
	b.count = 3;

	ops[2] = ops[0];
	ops[2].op = 99;
	EXPECT_EQ(-EINVAL, t_ioctl(fd, ORDO_IOC_BATCH, &b));
	ops[2].op = ORDO_OP_PUT;
	ops[2].kv.value = 8;	/* unmapped */
	EXPECT_EQ(-EFAULT, t_ioctl(fd, ORDO_IOC_BATCH, &b));
	ops[2].kv.value = (uintptr_t)self->val;
	ops[2].kv.value_len = vs + 8;
	EXPECT_EQ(-EMSGSIZE, t_ioctl(fd, ORDO_IOC_BATCH, &b));
	ops[2].kv.value_len = vs;
	ops[2].kv.flags = 4;
	EXPECT_EQ(-EINVAL, t_ioctl(fd, ORDO_IOC_BATCH, &b));
	EXPECT_EQ(0, keys_stored(fd));

	b.count = 0;
	EXPECT_EQ(-EINVAL, t_ioctl(fd, ORDO_IOC_BATCH, &b));
	b.count = ORDO_BATCH_MAX + 1;
	EXPECT_EQ(-E2BIG, t_ioctl(fd, ORDO_IOC_BATCH, &b));
	b.count = 3;
	b.ops = 0;
	EXPECT_EQ(-EFAULT, t_ioctl(fd, ORDO_IOC_BATCH, &b));
	b.ops = (uintptr_t)ops;
	b.flags = 1;
	EXPECT_EQ(-EINVAL, t_ioctl(fd, ORDO_IOC_BATCH, &b));
	EXPECT_EQ(0, keys_stored(fd));
}

TEST_F(store, splits_and_stats)
{
	unsigned long long splits0 = t_sysfs_u64("stats/splits");
	unsigned long long puts0 = t_sysfs_u64("stats/puts");
	uint32_t vs = self->vsize;
	uint64_t i;

	/* Sequential inserts: the split-heaviest pattern. */
	for (i = 0; i < 20000; i++) {
		t_fill(self->val, vs, i, 1);
		ASSERT_EQ(0, t_kv(self->fd, ORDO_IOC_PUT, i, self->val, vs));
	}
	EXPECT_EQ(20000, t_sysfs_u64("stats/keys"));
	EXPECT_LE(puts0 + 20000, t_sysfs_u64("stats/puts"));
	EXPECT_LT(splits0, t_sysfs_u64("stats/splits"));
	EXPECT_LE(2, t_sysfs_u64("stats/height"));
	EXPECT_LT(1, t_sysfs_u64("stats/leaves"));
	EXPECT_LE(1, t_sysfs_u64("stats/inner_nodes"));
	EXPECT_LT(0, t_sysfs_u64("stats/pool_bytes_used"));
	EXPECT_LE(t_sysfs_u64("stats/pool_bytes_used"),
		  t_sysfs_u64("stats/pool_bytes_total"));
	for (i = 0; i < 20000; i += 97) {
		ASSERT_EQ(0, t_kv(self->fd, ORDO_IOC_GET, i, self->out, vs));
		ASSERT_EQ(1, t_version(self->out, vs, i));
	}
}

TEST_HARNESS_MAIN
