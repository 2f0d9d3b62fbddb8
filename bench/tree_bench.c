// SPDX-License-Identifier: GPL-2.0
/*
 * Single-thread microbenchmark of ordo's B-link tree against JudyL on the
 * same keys in the same run: inserts/s (ascending or random order),
 * lookups/s and updates/s (random order), plus memory per store.
 *
 * Usage: tree_bench [--keys N[,N...]] [--slots S] [--value-size V[,V...]]
 *                   [--seed X] [--repeat R] [--json]
 * Values are V bytes (8 by default), the key in the first 8.  JudyL keeps
 * a value of 8 bytes in its word and a longer one in a slot of one array
 * the word points to (no per-value malloc, whose heap made the figures
 * depend on what ran before): the value stored beside the index, copied in
 * and out as ordo copies it, and counted in its memory.
 * Each figure is the best of R runs (default 3): the machines are shared.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <getopt.h>
#include <inttypes.h>
#include <time.h>
#include <sys/mman.h>
#include <Judy.h>

#include "compat.h"
#include "node.h"
#include "pool.h"
#include "tree.h"

static void *chunk_alloc(void *ctx, u32 idx, size_t size)
{
	void *p = aligned_alloc(size, size);

	(void)ctx;
	(void)idx;
	/* Like the module's physically contiguous chunks: few TLB misses. */
	if (p)
		madvise(p, size, MADV_HUGEPAGE);
	return p;
}

static void chunk_free(void *ctx, u32 idx, void *mem, size_t size)
{
	(void)ctx;
	(void)idx;
	(void)size;
	free(mem);
}

static const struct ordo_pool_ops chunk_ops = {
	.chunk_alloc = chunk_alloc,
	.chunk_free = chunk_free,
};

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static u64 mix(u64 z)
{
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

struct result {
	const char *dist;
	u64 keys;
	u32 vs;
	double ordo_ins, judy_ins, ordo_get, judy_get, ordo_upd, judy_upd;
	u64 ordo_bytes, judy_bytes;
	u32 height;
};

/* JudyL's side: the value in the word, or in slot @i of @arena. */
static void judy_put(PWord_t pv, const u8 *val, u32 vs, u8 *arena, u64 i)
{
	if (vs <= sizeof(Word_t)) {
		memcpy(pv, val, sizeof(Word_t));
		return;
	}
	memcpy(arena + i * vs, val, vs);
	*pv = (Word_t)(arena + i * vs);
}

static const void *judy_val(const PWord_t pv, u32 vs)
{
	return vs <= sizeof(Word_t) ? (const void *)pv : (const void *)*pv;
}

static int bench_one(struct result *res, const char *dist, u64 n, u32 slots,
		     u32 vs, u64 seed)
{
	u64 *keys = malloc(sizeof(u64) * n), *order = malloc(sizeof(u64) * n);
	u8 val[ORDO_VALUE_SIZE_MAX] = { 0 };
	struct ordo_tree_params p;
	struct ordo_tree_stats st;
	struct ordo_tree t;
	u64 i, v, sum_o = 0, sum_j = 0;
	Pvoid_t judy = NULL;
	u8 *arena = NULL;
	PWord_t pv;
	double t0;
	Word_t bytes;
	int err;

	if (!keys || !order)
		return -ENOMEM;
	for (i = 0; i < n; i++)
		keys[i] = !strcmp(dist, "sequential") ? i : mix(seed + i);
	/* Lookup order: a random permutation of the inserted keys. */
	for (i = 0; i < n; i++)
		order[i] = keys[i];
	for (i = n - 1; i > 0; i--) {
		u64 j = mix(seed ^ (i * 0x9e3779b97f4a7c15ULL)) % (i + 1);

		v = order[i];
		order[i] = order[j];
		order[j] = v;
	}

	ordo_tree_default_params(&p);
	p.leaf_slots = slots;
	p.value_size = vs;
	p.max_bytes = 64ULL << 30;
	p.ops = &chunk_ops;
	err = ordo_tree_init(&t, &p);
	if (err)
		return err;
	t0 = now();
	for (i = 0; i < n; i++) {
		memcpy(val, &keys[i], sizeof(keys[i]));
		err = ordo_tree_put(&t, keys[i], val);
		if (err)
			return err;
	}
	res->ordo_ins = n / (now() - t0);
	t0 = now();
	for (i = 0; i < n; i++) {
		if (ordo_tree_get(&t, order[i], val))
			return -ENOENT;
		memcpy(&v, val, sizeof(v));
		sum_o += v;
	}
	res->ordo_get = n / (now() - t0);
	/* Updates write a new value (the key's complement) in random order. */
	memset(val, 0xa5, vs);
	t0 = now();
	for (i = 0; i < n; i++) {
		v = ~order[i];
		memcpy(val, &v, sizeof(v));
		if (ordo_tree_update(&t, order[i], val))
			return -ENOENT;
	}
	res->ordo_upd = n / (now() - t0);
	if (ordo_tree_get(&t, order[0], val))
		return -ENOENT;
	memcpy(&v, val, sizeof(v));
	if (v != ~order[0])
		return -EIO;
	ordo_tree_get_stats(&t, &st);
	res->ordo_bytes = st.pool_bytes_used;
	res->height = st.height;
	ordo_tree_destroy(&t);

	if (vs > sizeof(Word_t)) {
		arena = malloc(n * vs);
		if (!arena)
			return -ENOMEM;
		memset(arena, 0, n * vs);	/* fault it in before timing */
	}
	memset(val, 0, vs);
	t0 = now();
	for (i = 0; i < n; i++) {
		memcpy(val, &keys[i], sizeof(keys[i]));
		JLI(pv, judy, keys[i]);
		if (!pv)
			return -ENOMEM;
		judy_put(pv, val, vs, arena, i);
	}
	res->judy_ins = n / (now() - t0);
	t0 = now();
	for (i = 0; i < n; i++) {
		JLG(pv, judy, order[i]);
		if (!pv)
			return -ENOENT;
		memcpy(val, judy_val(pv, vs), vs);
		memcpy(&v, val, sizeof(v));
		sum_j += v;
	}
	res->judy_get = n / (now() - t0);
	memset(val, 0xa5, vs);
	t0 = now();
	for (i = 0; i < n; i++) {
		v = ~order[i];
		memcpy(val, &v, sizeof(v));
		JLG(pv, judy, order[i]);
		if (!pv)
			return -ENOENT;
		memcpy((void *)judy_val(pv, vs), val, vs);
	}
	res->judy_upd = n / (now() - t0);
	res->judy_bytes = JudyLMemUsed(judy) + (arena ? n * vs : 0);
	free(arena);
	JLFA(bytes, judy);
	(void)bytes;

	free(keys);
	free(order);
	res->dist = dist;
	res->keys = n;
	res->vs = vs;
	return sum_o == sum_j ? 0 : -EIO;
}

static void best_of(struct result *best, const struct result *r)
{
	best->ordo_ins = max(best->ordo_ins, r->ordo_ins);
	best->judy_ins = max(best->judy_ins, r->judy_ins);
	best->ordo_get = max(best->ordo_get, r->ordo_get);
	best->judy_get = max(best->judy_get, r->judy_get);
	best->ordo_upd = max(best->ordo_upd, r->ordo_upd);
	best->judy_upd = max(best->judy_upd, r->judy_upd);
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "keys", required_argument, NULL, 'k' },
		{ "slots", required_argument, NULL, 's' },
		{ "value-size", required_argument, NULL, 'v' },
		{ "seed", required_argument, NULL, 'r' },
		{ "repeat", required_argument, NULL, 'R' },
		{ "json", no_argument, NULL, 'j' },
		{ NULL, 0, NULL, 0 },
	};
	static const char *const dists[] = { "uniform", "sequential" };
	u64 sizes[8] = { 1000000, 10000000 }, seed = 42;
	struct result res[8 * 8 * 2];
	u32 nsizes = 2, slots = ORDO_LEAF_SLOTS_DEFAULT, nres = 0, i, d, r;
	u32 vss[8] = { 8 }, nvs = 1, w;
	u32 repeat = 3;
	struct result one;
	bool json = false;
	char *s, *end;
	int opt, err;

	while ((opt = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		switch (opt) {
		case 'k':
			nsizes = 0;
			for (s = optarg; *s && nsizes < ARRAY_SIZE(sizes); s = end) {
				sizes[nsizes++] = strtoull(s, &end, 0);
				if (*end == ',')
					end++;
				else if (*end)
					goto usage;
			}
			break;
		case 's':
			slots = strtoul(optarg, NULL, 0);
			break;
		case 'v':
			nvs = 0;
			for (s = optarg; *s && nvs < ARRAY_SIZE(vss); s = end) {
				vss[nvs] = strtoul(s, &end, 0);
				if (vss[nvs] < ORDO_VALUE_SIZE_MIN ||
				    vss[nvs] > ORDO_VALUE_SIZE_MAX)
					goto usage;
				nvs++;
				if (*end == ',')
					end++;
				else if (*end)
					goto usage;
			}
			break;
		case 'r':
			seed = strtoull(optarg, NULL, 0);
			break;
		case 'R':
			repeat = strtoul(optarg, NULL, 0);
			break;
		case 'j':
			json = true;
			break;
		default:
			goto usage;
		}
	}
	for (w = 0; w < nvs; w++) {
		for (i = 0; i < nsizes; i++) {
			for (d = 0; d < ARRAY_SIZE(dists); d++) {
				for (r = 0; r < max_t(u32, repeat, 1); r++) {
					err = bench_one(&one, dists[d], sizes[i],
							slots, vss[w], seed);
					if (err) {
						fprintf(stderr, "tree_bench: %s %"
							PRIu64 " V=%u: error %d\n",
							dists[d], sizes[i],
							vss[w], err);
						return 1;
					}
					if (!r)
						res[nres] = one;
					best_of(&res[nres], &one);
				}
				nres++;
			}
		}
	}
	if (json) {
		printf("{\"bench\": \"tree\", \"leaf_slots\": %u, "
		       "\"threads\": 1, \"repeat\": %u, \"results\": [", slots,
		       repeat);
		for (i = 0; i < nres; i++)
			printf("%s\n  {\"value_size\": %u, \"dist\": \"%s\", \"keys\": %" PRIu64
			       ", \"ordo_insert_per_sec\": %.0f, \"judy_insert_per_sec\": %.0f"
			       ", \"ordo_lookup_per_sec\": %.0f, \"judy_lookup_per_sec\": %.0f"
			       ", \"ordo_update_per_sec\": %.0f, \"judy_update_per_sec\": %.0f"
			       ", \"ordo_bytes\": %" PRIu64 ", \"judy_bytes\": %" PRIu64
			       ", \"ordo_height\": %u}", i ? "," : "", res[i].vs,
			       res[i].dist, res[i].keys, res[i].ordo_ins,
			       res[i].judy_ins, res[i].ordo_get, res[i].judy_get,
			       res[i].ordo_upd, res[i].judy_upd, res[i].ordo_bytes,
			       res[i].judy_bytes, res[i].height);
		printf("\n]}\n");
		return 0;
	}
	printf("ordo B-link tree (%u-slot leaves) vs JudyL (value beside it), 1 thread\n",
	       slots);
	printf("%5s %-10s %9s | %10s %10s | %10s %10s | %10s %10s | %8s %8s\n",
	       "value", "dist", "keys", "ordo ins/s", "judy ins/s",
	       "ordo get/s", "judy get/s", "ordo upd/s", "judy upd/s",
	       "ordo MiB", "judy MiB");
	for (i = 0; i < nres; i++)
		printf("%5u %-10s %9" PRIu64 " | %10.0f %10.0f | %10.0f %10.0f | %10.0f %10.0f | %8.1f %8.1f\n",
		       res[i].vs, res[i].dist, res[i].keys, res[i].ordo_ins,
		       res[i].judy_ins, res[i].ordo_get, res[i].judy_get,
		       res[i].ordo_upd, res[i].judy_upd,
		       res[i].ordo_bytes / 1048576.0, res[i].judy_bytes / 1048576.0);
	return 0;
usage:
	fprintf(stderr, "usage: %s [--keys N[,N...]] [--slots S] "
		"[--value-size V[,V...]] [--seed X] [--repeat R] [--json]\n",
		argv[0]);
	return 2;
}
