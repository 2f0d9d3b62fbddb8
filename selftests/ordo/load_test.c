// SPDX-License-Identifier: GPL-2.0
/*
 * Bulk load through ordoctl: 1,000,000 generated keys, every one verified
 * by GET (in batches) and all of them by one full SCAN in order; then the
 * module is removed with the data in it and inserted again.
 */
#define _GNU_SOURCE
#include <endian.h>
#include <sys/syscall.h>

#include "ordo_test.h"
#include "kselftest_harness.h"
#include "datasets.h"

#define N	1000000
#define SEED	7

FIXTURE(load) {
	int fd;
};

FIXTURE_SETUP(load)
{
	self->fd = open(ORDO_DEV, O_RDWR);
	ASSERT_LE(0, self->fd);
	ASSERT_EQ(0, t_clear(self->fd));
}

FIXTURE_TEARDOWN(load)
{
	if (self->fd >= 0)
		close(self->fd);
}

TEST_F_TIMEOUT(load, million_keys_via_ordoctl, 1200)
{
	uint32_t vs = t_value_size(self->fd), i, j;
	uint64_t *keys = malloc(N * sizeof(*keys));
	uint64_t *got = malloc(ORDO_SCAN_MAX * sizeof(*got));
	uint8_t *vals = calloc(ORDO_BATCH_MAX, vs);
	struct ordo_batch_op ops[ORDO_BATCH_MAX];
	char cmd[512], params[256];
	uint64_t start = 0, seen = 0;
	struct ordo_scan sc;

	ASSERT_EQ(0, system("tools/ordoctl load --count 1000000 --dist uniform --seed 7 > /dev/null"));
	EXPECT_EQ(N, t_sysfs_u64("stats/keys"));
	ASSERT_EQ(0, ordo_dataset_gen(ORDO_DIST_UNIFORM, N, SEED,
				      ORDO_ORDER_SORTED, keys));

	/* Every key by GET, 256 to a batch. */
	for (i = 0; i < N; i += ORDO_BATCH_MAX) {
		uint32_t b = N - i < ORDO_BATCH_MAX ? N - i : ORDO_BATCH_MAX;
		struct ordo_batch bt = { .ops = (uintptr_t)ops, .count = b };

		memset(ops, 0, sizeof(ops));
		for (j = 0; j < b; j++) {
			ops[j].op = ORDO_OP_GET;
			ops[j].kv.key = keys[i + j];
			ops[j].kv.value = (uintptr_t)(vals + j * vs);
			ops[j].kv.value_len = vs;
		}
		ASSERT_EQ(0, t_ioctl(self->fd, ORDO_IOC_BATCH, &bt));
		for (j = 0; j < b; j++) {
			uint64_t le;

			ASSERT_EQ(0, ops[j].result);
			memcpy(&le, vals + j * vs, 8);
			ASSERT_EQ(keys[i + j], le64toh(le));
		}
	}

	/* One full SCAN in order (in calls of ORDO_SCAN_MAX pairs). */
	do {
		memset(&sc, 0, sizeof(sc));
		sc.start = start;
		sc.keys = (uintptr_t)got;
		sc.count = ORDO_SCAN_MAX;
		ASSERT_EQ(0, t_ioctl(self->fd, ORDO_IOC_SCAN, &sc));
		ASSERT_GE(N - seen, sc.returned);
		for (j = 0; j < sc.returned; j++)
			ASSERT_EQ(keys[seen + j], got[j]);
		seen += sc.returned;
		start = sc.next;
	} while (sc.more);
	EXPECT_EQ(N, seen);

	/* Remove the module with the data in it, then bring it back. */
	t_module_params(params, sizeof(params));
	close(self->fd);
	self->fd = -1;
	ASSERT_EQ(0, syscall(SYS_delete_module, "ordo", O_NONBLOCK));
	snprintf(cmd, sizeof(cmd), "insmod kmod/ordo.ko%s", params);
	ASSERT_EQ(0, system(cmd));
	EXPECT_EQ(0, t_sysfs_u64("stats/keys"));
	free(keys);
	free(got);
	free(vals);
}

TEST_HARNESS_MAIN
