/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Shared by the native unit tests of the tree core: a minimal TAP runner,
 * checks that fail the current test with a message, and node-pool chunk
 * hooks on aligned heap memory, counted so leaked chunks fail the run.
 */
#ifndef ORDO_CORE_TEST_H
#define ORDO_CORE_TEST_H

#include <stdio.h>
#include <stdlib.h>

#include "pool.h"

static int tap_n, tap_failed;

#define CHECK(c) do {							\
	if (!(c)) {							\
		printf("# %s:%d: check failed: %s\n", __FILE__, __LINE__, #c); \
		return 1;						\
	}								\
} while (0)

#define CHECK_EQ(a, b) do {						\
	long long __a = (long long)(a), __b = (long long)(b);		\
	if (__a != __b) {						\
		printf("# %s:%d: %s == %lld, expected %s == %lld\n",	\
		       __FILE__, __LINE__, #a, __a, #b, __b);		\
		return 1;						\
	}								\
} while (0)

/* Run one test function (0: passed) and print its TAP line. */
static inline void run(const char *name, int (*fn)(void))
{
	int r = fn();

	printf("%sok %d - %s\n", r ? "not " : "", ++tap_n, name);
	fflush(stdout);
	if (r)
		tap_failed++;
}

static long chunks_live;

static inline void *t_chunk_alloc(void *ctx, u32 idx, size_t size)
{
	(void)ctx;
	(void)idx;
	__atomic_add_fetch(&chunks_live, 1, __ATOMIC_RELAXED);
	return aligned_alloc(64, size);
}

static inline void t_chunk_free(void *ctx, u32 idx, void *mem, size_t size)
{
	(void)ctx;
	(void)idx;
	(void)size;
	__atomic_sub_fetch(&chunks_live, 1, __ATOMIC_RELAXED);
	free(mem);
}

static const struct ordo_pool_ops chunk_ops = {
	.chunk_alloc = t_chunk_alloc,
	.chunk_free = t_chunk_free,
};

/* Print the plan; the exit status: failed tests or leaked chunks. */
static inline int tap_done(void)
{
	printf("1..%d\n", tap_n);
	if (chunks_live) {
		printf("# %ld chunks leaked\n", chunks_live);
		return 1;
	}
	return tap_failed ? 1 : 0;
}

#endif /* ORDO_CORE_TEST_H */
