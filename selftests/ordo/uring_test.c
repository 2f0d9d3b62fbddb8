// SPDX-License-Identifier: GPL-2.0
/*
 * io_uring commands on /dev/ordo: the ioctl operations submitted as
 * IORING_OP_URING_CMD (cmd_op = ioctl number, struct in the 128-byte SQE),
 * many in flight at once, and their error paths.  A GET's CQE res is the
 * value's length.  liburing 2.3 has no io_uring_prep_cmd(), so the SQE is
 * filled by hand.
 */
#define _GNU_SOURCE
#include <liburing.h>

#include "ordo_test.h"
#include "kselftest_harness.h"

#define DEPTH 64

FIXTURE(ring) {
	int fd;
	uint32_t vsize;
	struct io_uring ring;
};

FIXTURE_SETUP(ring)
{
	self->fd = open(ORDO_DEV, O_RDWR);
	ASSERT_LE(0, self->fd);
	self->vsize = t_value_size(self->fd);
	ASSERT_EQ(0, t_clear(self->fd));
	ASSERT_EQ(0, io_uring_queue_init(DEPTH, &self->ring,
					 IORING_SETUP_SQE128));
}

FIXTURE_TEARDOWN(ring)
{
	io_uring_queue_exit(&self->ring);
	t_clear(self->fd);
	close(self->fd);
}

static void prep_cmd(struct io_uring_sqe *sqe, int fd, unsigned int cmd_op,
		     const void *arg, size_t len, uint64_t user_data)
{
	io_uring_prep_rw(IORING_OP_URING_CMD, sqe, fd, NULL, 0, 0);
	sqe->cmd_op = cmd_op;
	sqe->__pad1 = 0;
	memset(sqe->cmd, 0, 80);
	memcpy(sqe->cmd, arg, len);
	sqe->user_data = user_data;
}

/* Submit one command and wait for its result. */
static int run_one(struct io_uring *ring, int fd, unsigned int cmd_op,
		   const void *arg, size_t len)
{
	struct io_uring_cqe *cqe;
	int res;

	prep_cmd(io_uring_get_sqe(ring), fd, cmd_op, arg, len, 1);
	if (io_uring_submit(ring) != 1 || io_uring_wait_cqe(ring, &cqe))
		return -9999;
	res = cqe->res;
	io_uring_cqe_seen(ring, cqe);
	return res;
}

TEST_F(ring, many_in_flight)
{
	uint32_t vs = self->vsize, n = 4096, i, done;
	uint8_t *vals = calloc(n, vs), *out = calloc(n, vs);
	struct ordo_kv kv;

	/* Puts, DEPTH at a time. */
	for (i = 0; i < n; i += DEPTH) {
		uint32_t j;

		for (j = i; j < i + DEPTH; j++) {
			t_fill(vals + j * vs, vs, j * 3, 1);
			kv = (struct ordo_kv){ .key = j * 3,
				.value = (uintptr_t)(vals + j * vs),
				.value_len = vs };
			prep_cmd(io_uring_get_sqe(&self->ring), self->fd,
				 ORDO_IOC_PUT, &kv, sizeof(kv), j);
		}
		ASSERT_EQ(DEPTH, io_uring_submit(&self->ring));
		for (done = 0; done < DEPTH; done++) {
			struct io_uring_cqe *cqe;

			ASSERT_EQ(0, io_uring_wait_cqe(&self->ring, &cqe));
			EXPECT_EQ(0, cqe->res);
			io_uring_cqe_seen(&self->ring, cqe);
		}
	}
	/* Gets, all checked by user_data. */
	for (i = 0; i < n; i += DEPTH) {
		uint32_t j;

		for (j = i; j < i + DEPTH; j++) {
			kv = (struct ordo_kv){ .key = j * 3,
				.value = (uintptr_t)(out + j * vs),
				.value_len = vs };
			prep_cmd(io_uring_get_sqe(&self->ring), self->fd,
				 ORDO_IOC_GET, &kv, sizeof(kv), j);
		}
		ASSERT_EQ(DEPTH, io_uring_submit(&self->ring));
		for (done = 0; done < DEPTH; done++) {
			struct io_uring_cqe *cqe;

			ASSERT_EQ(0, io_uring_wait_cqe(&self->ring, &cqe));
			EXPECT_EQ(vs, cqe->res);
			EXPECT_EQ(1, t_version(out + cqe->user_data * vs, vs,
					       cqe->user_data * 3));
			io_uring_cqe_seen(&self->ring, cqe);
		}
	}
	free(vals);
	free(out);
}

TEST_F(ring, scan_batch_and_delete)
{
	uint64_t keys[16];
	struct ordo_scan sc = { .start = 5, .keys = (uintptr_t)keys,
				.count = 16 };
	struct ordo_batch_op ops[2] = {
		{ .op = ORDO_OP_INSERT, .kv = { .key = 7 } },
		{ .op = ORDO_OP_INSERT, .kv = { .key = 9 } },
	};
	struct ordo_batch b = { .ops = (uintptr_t)ops, .count = 2 };
	struct ordo_kv kv = { .key = 7 };
	uint8_t v[1024] = "x";

	ops[0].kv.value = ops[1].kv.value = (uintptr_t)v;
	ops[0].kv.value_len = ops[1].kv.value_len = 1;
	EXPECT_EQ(2, run_one(&self->ring, self->fd, ORDO_IOC_BATCH, &b,
			     sizeof(b)));
	EXPECT_EQ(2, run_one(&self->ring, self->fd, ORDO_IOC_SCAN, &sc,
			     sizeof(sc)));
	EXPECT_EQ(7, keys[0]);
	EXPECT_EQ(9, keys[1]);
	EXPECT_EQ(0, run_one(&self->ring, self->fd, ORDO_IOC_DELETE, &kv,
			     sizeof(kv)));
	EXPECT_EQ(-ENOENT, run_one(&self->ring, self->fd, ORDO_IOC_DELETE,
				   &kv, sizeof(kv)));
	EXPECT_EQ(1, run_one(&self->ring, self->fd, ORDO_IOC_SCAN, &sc,
			     sizeof(sc)));
}

/*
 * GETs of values of 0, 1, a middle length and value_size bytes: each
 * CQE's res is the value's length, and exactly that many bytes are
 * written.  The GETs are in flight together, told apart by user_data.
 */
TEST_F(ring, get_returns_length)
{
	const uint32_t vs = self->vsize;
	const uint32_t lens[] = { 0, 1, vs / 2 + 1, vs };
	uint8_t v[1024], out[4][1024 + 16];
	struct io_uring_cqe *cqe;
	struct ordo_kv kv;
	uint32_t i, j, seen = 0;

	ASSERT_GE(1024, vs);
	for (i = 0; i < 4; i++) {
		for (j = 0; j < lens[i]; j++)
			v[j] = (uint8_t)(i * 37 + j * 11 + 1);
		kv = (struct ordo_kv){ .key = 50 + i,
			.value = lens[i] ? (uintptr_t)v : 0,
			.value_len = lens[i] };
		ASSERT_EQ(0, run_one(&self->ring, self->fd, ORDO_IOC_PUT, &kv,
				     sizeof(kv)));
	}
	memset(out, 0xa5, sizeof(out));
	for (i = 0; i < 4; i++) {
		kv = (struct ordo_kv){ .key = 50 + i,
			.value = (uintptr_t)out[i],
			.value_len = vs + 16 };
		prep_cmd(io_uring_get_sqe(&self->ring), self->fd,
			 ORDO_IOC_GET, &kv, sizeof(kv), i);
	}
	ASSERT_EQ(4, io_uring_submit(&self->ring));
	for (i = 0; i < 4; i++) {
		uint32_t n;

		ASSERT_EQ(0, io_uring_wait_cqe(&self->ring, &cqe));
		n = cqe->user_data;
		ASSERT_GT(4, n);
		seen |= 1 << n;
		EXPECT_EQ(lens[n], cqe->res);
		for (j = 0; j < lens[n]; j++)
			if (out[n][j] != (uint8_t)(n * 37 + j * 11 + 1))
				break;
		EXPECT_EQ(lens[n], j);
		for (j = lens[n]; j < sizeof(out[n]); j++)
			if (out[n][j] != 0xa5)
				break;
		EXPECT_EQ(sizeof(out[n]), j);
		io_uring_cqe_seen(&self->ring, cqe);
	}
	EXPECT_EQ(15, seen);
	/* A missing key: no length, nothing written. */
	memset(out, 0xa5, sizeof(out));
	kv = (struct ordo_kv){ .key = 60, .value = (uintptr_t)out[0],
			       .value_len = vs };
	EXPECT_EQ(-ENOENT, run_one(&self->ring, self->fd, ORDO_IOC_GET, &kv,
				   sizeof(kv)));
	EXPECT_EQ(0xa5, out[0][0]);
	/* The empty value written back over a long one reads as length 0. */
	kv = (struct ordo_kv){ .key = 53 };
	ASSERT_EQ(0, run_one(&self->ring, self->fd, ORDO_IOC_UPDATE, &kv,
			     sizeof(kv)));
	kv = (struct ordo_kv){ .key = 53, .value = (uintptr_t)out[0],
			       .value_len = vs };
	EXPECT_EQ(0, run_one(&self->ring, self->fd, ORDO_IOC_GET, &kv,
			     sizeof(kv)));
	EXPECT_EQ(0xa5, out[0][0]);
}

/* SCAN with the first struct ordo_scan (48 bytes, no lens). */
TEST_F(ring, scan_old_struct)
{
	uint64_t keys[4] = { 0 };
	struct ordo_scan sc = { .start = 0, .keys = (uintptr_t)keys,
				.count = 4 };
	struct ordo_kv kv = { .key = 77 };

	ASSERT_EQ(0, run_one(&self->ring, self->fd, ORDO_IOC_PUT, &kv,
			     sizeof(kv)));
	kv.key = 78;
	ASSERT_EQ(0, run_one(&self->ring, self->fd, ORDO_IOC_PUT, &kv,
			     sizeof(kv)));
	EXPECT_EQ(2, run_one(&self->ring, self->fd,
			     _IOWR(ORDO_IOC_MAGIC, 0x06,
				   char[ORDO_SCAN_SIZE_VER0]),
			     &sc, ORDO_SCAN_SIZE_VER0));
	EXPECT_EQ(77, keys[0]);
	EXPECT_EQ(78, keys[1]);
	EXPECT_EQ(-EINVAL, run_one(&self->ring, self->fd,
				   _IOWR(ORDO_IOC_MAGIC, 0x06,
					 char[ORDO_SCAN_SIZE_VER0 - 8]),
				   &sc, ORDO_SCAN_SIZE_VER0 - 8));
}

TEST_F(ring, errors)
{
	struct ordo_kv kv = { .key = 1, .value = 8, .value_len = 8 };
	struct ordo_info info;
	struct io_uring small;
	uint8_t garbage[80];

	EXPECT_EQ(-EFAULT, run_one(&self->ring, self->fd, ORDO_IOC_PUT, &kv,
				   sizeof(kv)));
	kv.value_len = t_value_max(self->fd) + 1;
	EXPECT_EQ(-EMSGSIZE, run_one(&self->ring, self->fd, ORDO_IOC_PUT, &kv,
				     sizeof(kv)));
	kv.value_len = self->vsize - 1;
	EXPECT_EQ(-ENOBUFS, run_one(&self->ring, self->fd, ORDO_IOC_GET, &kv,
				    sizeof(kv)));
	kv.value_len = 8;
	kv.flags = 1;
	EXPECT_EQ(-EINVAL, run_one(&self->ring, self->fd, ORDO_IOC_PUT, &kv,
				   sizeof(kv)));
	EXPECT_EQ(-ENOTTY, run_one(&self->ring, self->fd,
				   _IOW(ORDO_IOC_MAGIC, 0x55, struct ordo_kv),
				   &kv, sizeof(kv)));
	EXPECT_EQ(-ENOTTY, run_one(&self->ring, self->fd, 0, &kv, sizeof(kv)));
	EXPECT_EQ(-EOPNOTSUPP, run_one(&self->ring, self->fd, ORDO_IOC_INFO,
				       &info, 0));
	/* A struct larger than the SQE's command area. */
	EXPECT_EQ(-EINVAL, run_one(&self->ring, self->fd,
				   _IOC(_IOC_WRITE, ORDO_IOC_MAGIC, 0x02, 200),
				   &kv, sizeof(kv)));
	/* Non-zero bytes past the known struct. */
	memset(garbage, 0xff, sizeof(garbage));
	memcpy(garbage, &kv, sizeof(kv));
	EXPECT_EQ(-E2BIG, run_one(&self->ring, self->fd,
				  _IOC(_IOC_WRITE, ORDO_IOC_MAGIC, 0x02, 80),
				  garbage, sizeof(garbage)));
	/* Rings without 128-byte SQEs cannot carry the structs. */
	ASSERT_EQ(0, io_uring_queue_init(4, &small, 0));
	{
		struct io_uring_sqe *sqe = io_uring_get_sqe(&small);
		struct io_uring_cqe *cqe;

		io_uring_prep_rw(IORING_OP_URING_CMD, sqe, self->fd, NULL, 0, 0);
		sqe->cmd_op = ORDO_IOC_DELETE;
		sqe->__pad1 = 0;
		ASSERT_EQ(1, io_uring_submit(&small));
		ASSERT_EQ(0, io_uring_wait_cqe(&small, &cqe));
		EXPECT_EQ(-EINVAL, cqe->res);
		io_uring_cqe_seen(&small, cqe);
	}
	io_uring_queue_exit(&small);
	EXPECT_EQ(0, t_sysfs_u64("stats/keys"));
}

TEST_HARNESS_MAIN
