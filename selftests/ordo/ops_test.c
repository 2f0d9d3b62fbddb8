// SPDX-License-Identifier: GPL-2.0
/*
 * Every /dev/ordo operation and every error path: GET, PUT, INSERT,
 * UPDATE, DELETE, SCAN and BATCH, with SCAN boundaries and hostile
 * arguments.  A rejected call must leave the store untouched.  Values
 * have lengths 0..value_size: a GET, a BATCH GET and a SCAN report each
 * value's length, and a GET writes exactly that many bytes.
 */
#define _GNU_SOURCE
#include <stddef.h>
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

/* GET into @buf of @room bytes; *@len: the value_len the kernel wrote. */
static int get_len(int fd, uint64_t key, void *buf, uint32_t room,
		   uint32_t *len)
{
	struct ordo_kv kv = {
		.key = key, .value = (uintptr_t)buf, .value_len = room,
	};
	int ret = t_ioctl(fd, ORDO_IOC_GET, &kv);

	*len = kv.value_len;
	return ret;
}

/* Are bytes [@from, @to) of @b all @c? */
static int all_bytes(const unsigned char *b, size_t from, size_t to, int c)
{
	for (; from < to; from++)
		if (b[from] != c)
			return 0;
	return 1;
}

/* The value of @len bytes tests store at @key: every byte non-zero. */
static void len_fill(unsigned char *v, uint32_t len, uint64_t key)
{
	uint32_t i;

	for (i = 0; i < len; i++)
		v[i] = (unsigned char)(key * 13 + i * 7 + len) | 1;
}

/* Is @v the value len_fill() gives @key at @len bytes? */
static int len_ok(const unsigned char *v, uint32_t len, uint64_t key)
{
	unsigned char want[1024];

	if (len > sizeof(want))
		return 0;
	len_fill(want, len, key);
	return !memcmp(v, want, len);
}

/* A short value reads back as its bytes and length, nothing more. */
TEST_F(store, short_value_exact_bytes)
{
	uint32_t vs = self->vsize, len = 0;

	memset(self->out, 0xff, vs * 2);
	ASSERT_EQ(0, t_kv(self->fd, ORDO_IOC_PUT, 5, "abc", 3));
	ASSERT_EQ(0, get_len(self->fd, 5, self->out, vs * 2, &len));
	EXPECT_EQ(3, len);
	EXPECT_EQ(0, memcmp(self->out, "abc", 3));
	EXPECT_TRUE(all_bytes(self->out, 3, vs * 2, 0xff));
}

/*
 * Values of 0, 1, 7, 8, value_size - 1 and value_size bytes side by side:
 * each GET reports its value's length and writes exactly those bytes into
 * a buffer larger than value_size.  Writes change lengths both ways.
 */
TEST_F(store, mixed_lengths)
{
	const uint32_t vs = self->vsize;
	const uint32_t lens[] = { 0, 1, 7, 8, vs - 1, vs };
	unsigned char *out = self->out;
	int fd = self->fd;
	uint32_t i, len;
	uint64_t key;

	for (i = 0; i < 6; i++) {
		key = 1000 + i;
		len_fill(self->val, lens[i], key);
		ASSERT_EQ(0, t_kv(fd, i % 2 ? ORDO_IOC_PUT : ORDO_IOC_INSERT,
				  key, self->val, lens[i]));
	}
	EXPECT_EQ(6, keys_stored(fd));
	for (i = 0; i < 6; i++) {
		key = 1000 + i;
		memset(out, 0xa5, vs * 2);
		len = 12345;
		ASSERT_EQ(0, get_len(fd, key, out, vs * 2, &len));
		EXPECT_EQ(lens[i], len);
		EXPECT_TRUE(len_ok(out, lens[i], key));
		EXPECT_TRUE(all_bytes(out, lens[i], vs * 2, 0xa5));
		/* A buffer of value_size exactly is enough. */
		memset(out, 0xa5, vs * 2);
		ASSERT_EQ(0, get_len(fd, key, out, vs, &len));
		EXPECT_EQ(lens[i], len);
		EXPECT_TRUE(len_ok(out, lens[i], key));
		EXPECT_TRUE(all_bytes(out, lens[i], vs * 2, 0xa5));
	}
	/* Longest to empty and back, by UPDATE and PUT. */
	key = 1005;
	ASSERT_EQ(0, t_kv(fd, ORDO_IOC_UPDATE, key, NULL, 0));
	memset(out, 0xa5, vs * 2);
	ASSERT_EQ(0, get_len(fd, key, out, vs, &len));
	EXPECT_EQ(0, len);
	EXPECT_TRUE(all_bytes(out, 0, vs * 2, 0xa5));
	len_fill(self->val, 7, key);
	ASSERT_EQ(0, t_kv(fd, ORDO_IOC_PUT, key, self->val, 7));
	ASSERT_EQ(0, get_len(fd, key, out, vs, &len));
	EXPECT_EQ(7, len);
	EXPECT_TRUE(len_ok(out, 7, key));
	len_fill(self->val, vs, key);
	ASSERT_EQ(0, t_kv(fd, ORDO_IOC_UPDATE, key, self->val, vs));
	ASSERT_EQ(0, get_len(fd, key, out, vs, &len));
	EXPECT_EQ(vs, len);
	EXPECT_TRUE(len_ok(out, vs, key));
	/* A missing key: -ENOENT, nothing written. */
	memset(out, 0xa5, vs * 2);
	EXPECT_EQ(-ENOENT, get_len(fd, 999, out, vs, &len));
	EXPECT_TRUE(all_bytes(out, 0, vs * 2, 0xa5));
	EXPECT_EQ(6, keys_stored(fd));
}

/*
 * Empty writes are valid, with value pointer 0; a non-empty value needs
 * a buffer, at most value_size bytes long; a GET needs room for the
 * longest value.
 */
TEST_F(store, empty_and_bad_lengths)
{
	int fd = self->fd;
	uint32_t vs = self->vsize, len;

	ASSERT_EQ(0, t_kv(fd, ORDO_IOC_INSERT, 7, NULL, 0));
	EXPECT_EQ(-EEXIST, t_kv(fd, ORDO_IOC_INSERT, 7, NULL, 0));
	ASSERT_EQ(0, t_kv(fd, ORDO_IOC_PUT, 8, NULL, 0));
	ASSERT_EQ(0, t_kv(fd, ORDO_IOC_UPDATE, 8, NULL, 0));
	/* Nothing is read of an empty value: any pointer will do. */
	ASSERT_EQ(0, t_kv(fd, ORDO_IOC_PUT, 8, (void *)8, 0));
	EXPECT_EQ(-ENOENT, t_kv(fd, ORDO_IOC_UPDATE, 9, NULL, 0));
	EXPECT_EQ(2, keys_stored(fd));
	memset(self->out, 0xa5, vs);
	len = 12345;
	ASSERT_EQ(0, get_len(fd, 7, self->out, vs, &len));
	EXPECT_EQ(0, len);
	EXPECT_TRUE(all_bytes(self->out, 0, vs, 0xa5));
	ASSERT_EQ(0, get_len(fd, 8, self->out, vs, &len));
	EXPECT_EQ(0, len);
	/* Rejected writes change nothing. */
	len_fill(self->val, vs, 7);
	EXPECT_EQ(-EFAULT, t_kv(fd, ORDO_IOC_PUT, 7, NULL, 1));
	EXPECT_EQ(-EFAULT, t_kv(fd, ORDO_IOC_UPDATE, 7, NULL, vs));
	EXPECT_EQ(-EFAULT, t_kv(fd, ORDO_IOC_INSERT, 10, NULL, 1));
	/* Past the longest value (vs + 1 is a long value: extent_test). */
	EXPECT_EQ(-EMSGSIZE, t_kv(fd, ORDO_IOC_PUT, 7, self->val,
				  t_value_max(fd) + 1));
	EXPECT_EQ(-EMSGSIZE, t_kv(fd, ORDO_IOC_INSERT, 10, self->val,
				  t_value_max(fd) + 1));
	EXPECT_EQ(-EMSGSIZE, t_kv(fd, ORDO_IOC_UPDATE, 7, self->val,
				  UINT32_MAX));
	ASSERT_EQ(0, get_len(fd, 7, self->out, vs, &len));
	EXPECT_EQ(0, len);
	EXPECT_EQ(2, keys_stored(fd));
	/* A GET needs value_size bytes of room, even for a short value. */
	EXPECT_EQ(-ENOBUFS, get_len(fd, 7, self->out, vs - 1, &len));
	EXPECT_EQ(-ENOBUFS, get_len(fd, 7, self->out, 0, &len));
	EXPECT_EQ(-ENOBUFS, get_len(fd, 999, self->out, 1, &len));
	EXPECT_EQ(-EFAULT, get_len(fd, 7, NULL, vs, &len));
}

TEST_F(store, bad_value_buffers)
{
	int fd = self->fd;
	uint32_t vs = self->vsize;
	void *ro;

	EXPECT_EQ(-EMSGSIZE, t_kv(fd, ORDO_IOC_PUT, 1, self->val,
				  t_value_max(fd) + 1));
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

/* Key i of scan_lengths(): 3 * i + 1, holding a value of i % (vs + 1) bytes. */
static void fill_lengths(struct __test_metadata *_metadata, int fd,
			 uint32_t vs, unsigned char *val, uint32_t n)
{
	uint32_t i;

	for (i = 0; i < n; i++) {
		len_fill(val, i % (vs + 1), 3 * i + 1);
		ASSERT_EQ(0, t_kv(fd, ORDO_IOC_PUT, 3 * i + 1, val,
				  i % (vs + 1)));
	}
}

/*
 * SCAN with lengths: of @n pairs (more than one round of the kernel's),
 * from key 0, each length and value, zero past its length.
 */
TEST_F(store, scan_lengths)
{
	const uint32_t vs = self->vsize, n = 700;
	unsigned char *vals = malloc((size_t)(n + 1) * vs);
	uint64_t *keys = calloc(n + 1, 8);
	uint32_t *lens = calloc(n + 1, 4), i;
	struct ordo_scan sc;
	int fd = self->fd;

	ASSERT_NE(NULL, vals);
	ASSERT_NE(NULL, keys);
	ASSERT_NE(NULL, lens);
	fill_lengths(_metadata, fd, vs, self->val, n);
	memset(vals, 0xa5, (size_t)(n + 1) * vs);
	memset(lens, 0xa5, (n + 1) * 4);
	memset(&sc, 0, sizeof(sc));
	sc.keys = (uintptr_t)keys;
	sc.values = (uintptr_t)vals;
	sc.lens = (uintptr_t)lens;
	sc.count = n + 1;
	ASSERT_EQ(0, t_ioctl(fd, ORDO_IOC_SCAN, &sc));
	ASSERT_EQ(n, sc.returned);
	EXPECT_EQ(0, sc.more);
	for (i = 0; i < n; i++) {
		const unsigned char *v = vals + (size_t)i * vs;

		ASSERT_EQ(3 * i + 1, keys[i]);
		ASSERT_EQ(i % (vs + 1), lens[i]);
		ASSERT_TRUE(len_ok(v, lens[i], keys[i]));
		ASSERT_TRUE(all_bytes(v, lens[i], vs, 0));
	}
	/* Lengths without values, from the middle. */
	memset(lens, 0xa5, (n + 1) * 4);
	memset(&sc, 0, sizeof(sc));
	sc.start = 3 * 300;
	sc.keys = (uintptr_t)keys;
	sc.lens = (uintptr_t)lens;
	sc.count = 300;
	ASSERT_EQ(0, t_ioctl(fd, ORDO_IOC_SCAN, &sc));
	ASSERT_EQ(300, sc.returned);
	EXPECT_EQ(1, sc.more);
	for (i = 0; i < 300; i++) {
		ASSERT_EQ(3 * (300 + i) + 1, keys[i]);
		ASSERT_EQ((300 + i) % (vs + 1), lens[i]);
	}
	/* Values without lengths: still zero past each length. */
	memset(vals, 0xa5, (size_t)(n + 1) * vs);
	sc.lens = 0;
	sc.values = (uintptr_t)vals;
	sc.start = 0;
	sc.count = vs < n ? vs + 1 : n;
	ASSERT_EQ(0, t_ioctl(fd, ORDO_IOC_SCAN, &sc));
	ASSERT_EQ(sc.count, sc.returned);
	for (i = 0; i < sc.count; i++) {
		ASSERT_TRUE(len_ok(vals + (size_t)i * vs, i, keys[i]));
		ASSERT_TRUE(all_bytes(vals + (size_t)i * vs, i, vs, 0));
	}
	/* An unwritable length array. */
	sc.lens = 8;
	EXPECT_EQ(-EFAULT, t_ioctl(fd, ORDO_IOC_SCAN, &sc));
	free(vals);
	free(keys);
	free(lens);
}

/* SCAN with a struct of another size than this header's. */
#define SCAN_SIZED(size)	_IOWR(ORDO_IOC_MAGIC, 0x06, char[size])

/*
 * The first struct ordo_scan (48 bytes, no lens) still works, and gets
 * only its own bytes back; a shorter one is refused, a longer one needs
 * a zero tail.
 */
TEST_F(store, scan_old_struct)
{
	const uint32_t vs = self->vsize, n = 20;
	unsigned char *vals = malloc((size_t)n * vs);
	unsigned char raw[sizeof(struct ordo_scan) + 16];
	struct ordo_scan sc;
	uint64_t keys[20];
	int fd = self->fd;
	uint32_t i;

	ASSERT_EQ(48, ORDO_SCAN_SIZE_VER0);
	ASSERT_EQ(56, sizeof(struct ordo_scan));
	ASSERT_EQ(ORDO_SCAN_SIZE_VER0, offsetof(struct ordo_scan, lens));
	ASSERT_NE(NULL, vals);
	fill_lengths(_metadata, fd, vs, self->val, n);
	memset(&sc, 0, sizeof(sc));
	sc.start = 1;
	sc.keys = (uintptr_t)keys;
	sc.values = (uintptr_t)vals;
	sc.count = n - 1;
	memset(raw, 0xa5, sizeof(raw));
	memcpy(raw, &sc, ORDO_SCAN_SIZE_VER0);
	memset(vals, 0xa5, (size_t)n * vs);
	ASSERT_EQ(0, t_ioctl(fd, SCAN_SIZED(ORDO_SCAN_SIZE_VER0), raw));
	memcpy(&sc, raw, ORDO_SCAN_SIZE_VER0);
	/* The bytes past the old struct (where lens is) stay the caller's. */
	EXPECT_TRUE(all_bytes(raw, ORDO_SCAN_SIZE_VER0, sizeof(raw), 0xa5));
	ASSERT_EQ(n - 1, sc.returned);
	EXPECT_EQ(1, sc.more);
	EXPECT_EQ(keys[n - 2] + 1, sc.next);
	for (i = 0; i < n - 1; i++) {
		const unsigned char *v = vals + (size_t)i * vs;

		ASSERT_EQ(3 * i + 1, keys[i]);
		ASSERT_TRUE(len_ok(v, i % (vs + 1), keys[i]));
		ASSERT_TRUE(all_bytes(v, i % (vs + 1), vs, 0));
	}
	/* Shorter than the first version. */
	EXPECT_EQ(-EINVAL, t_ioctl(fd, SCAN_SIZED(ORDO_SCAN_SIZE_VER0 - 8),
				   raw));
	/* Longer than this one: a zero tail is fine, anything else is not. */
	memset(&sc, 0, sizeof(sc));
	sc.keys = (uintptr_t)keys;
	sc.count = 5;
	memset(raw, 0, sizeof(raw));
	memcpy(raw, &sc, sizeof(sc));
	ASSERT_EQ(0, t_ioctl(fd, SCAN_SIZED(sizeof(raw)), raw));
	memcpy(&sc, raw, sizeof(sc));
	EXPECT_EQ(5, sc.returned);
	EXPECT_TRUE(all_bytes(raw, sizeof(sc), sizeof(raw), 0));
	raw[sizeof(sc) + 5] = 1;
	EXPECT_EQ(-E2BIG, t_ioctl(fd, SCAN_SIZED(sizeof(raw)), raw));
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

/*
 * A BATCH of writes of lengths 0..value_size, then GETs of each: every
 * GET entry gets its value's length back in kv.value_len and exactly
 * that many bytes; write entries keep theirs.
 */
TEST_F(store, batch_get_lengths)
{
	const uint32_t vs = self->vsize;
	const uint32_t lens[] = { 0, 1, 7, vs - 1, vs };
	struct ordo_batch_op ops[11];
	unsigned char vals[11][1032];
	struct ordo_batch b;
	int fd = self->fd, i;

	ASSERT_GE(1024, vs);
	memset(ops, 0, sizeof(ops));
	memset(vals, 0xa5, sizeof(vals));
	for (i = 0; i < 5; i++) {
		ops[i].op = ORDO_OP_PUT;
		ops[i].kv.key = 200 + i;
		ops[i].kv.value = lens[i] ? (uintptr_t)vals[i] : 0;
		ops[i].kv.value_len = lens[i];
		len_fill(vals[i], lens[i], 200 + i);
		ops[5 + i].op = ORDO_OP_GET;
		ops[5 + i].kv.key = 200 + i;
		ops[5 + i].kv.value = (uintptr_t)vals[5 + i];
		ops[5 + i].kv.value_len = vs + 8;
	}
	/* A GET of a missing key. */
	ops[10].op = ORDO_OP_GET;
	ops[10].kv.key = 300;
	ops[10].kv.value = (uintptr_t)vals[10];
	ops[10].kv.value_len = vs;
	memset(&b, 0, sizeof(b));
	b.ops = (uintptr_t)ops;
	b.count = 11;
	ASSERT_EQ(0, t_ioctl(fd, ORDO_IOC_BATCH, &b));
	EXPECT_EQ(11, b.done);
	for (i = 0; i < 5; i++) {
		EXPECT_EQ(0, ops[i].result);
		EXPECT_EQ(lens[i], ops[i].kv.value_len);
		EXPECT_EQ(0, ops[5 + i].result);
		EXPECT_EQ(lens[i], ops[5 + i].kv.value_len);
		EXPECT_TRUE(len_ok(vals[5 + i], lens[i], 200 + i));
		EXPECT_TRUE(all_bytes(vals[5 + i], lens[i], sizeof(vals[0]),
				      0xa5));
	}
	EXPECT_EQ(-ENOENT, ops[10].result);
	EXPECT_TRUE(all_bytes(vals[10], 0, sizeof(vals[0]), 0xa5));
	EXPECT_EQ(5, keys_stored(fd));
	/* A GET entry without room for value_size bytes fails the batch. */
	ops[0].kv.key = 400;
	for (i = 5; i < 11; i++)
		ops[i].kv.value_len = vs;
	ops[6].kv.value_len = vs - 1;
	EXPECT_EQ(-ENOBUFS, t_ioctl(fd, ORDO_IOC_BATCH, &b));
	EXPECT_EQ(5, keys_stored(fd));
	/* So does a non-empty write without a buffer. */
	ops[6].kv.value_len = vs;
	ops[1].kv.value = 0;
	EXPECT_EQ(-EFAULT, t_ioctl(fd, ORDO_IOC_BATCH, &b));
	EXPECT_EQ(5, keys_stored(fd));
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
