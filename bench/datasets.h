/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Seeded key-set generators shared by the benchmarks and `ordoctl load`.
 * Every generator returns n distinct 64-bit keys; the same (dist, n, seed)
 * gives the same keys on every machine.  Link with -lm.
 */
#ifndef ORDO_BENCH_DATASETS_H
#define ORDO_BENCH_DATASETS_H

#include <stdint.h>
#include <stddef.h>

enum ordo_dist {
	ORDO_DIST_LINEAR,	/* dense sequential, gaps of 1 to 4 */
	ORDO_DIST_NOISED,	/* linear with noise over 4 steps */
	ORDO_DIST_UNIFORM,	/* uniform over all 64-bit keys */
	ORDO_DIST_LOGNORMAL,	/* lognormal(0, 2) scaled by 1e9 */
	ORDO_DIST_MAPLIKE,	/* dense runs, heavy-tailed runs and gaps */
	ORDO_DIST_OSM,		/* Z-order cell ids of clustered points */
	ORDO_DIST_FB,		/* dense ids by era, 0.01% outliers over 2^64 */
	ORDO_DIST_TIMESERIES,	/* nanosecond timestamps, daily cycle, bursts */
	ORDO_DIST_BOOKS,	/* smooth overall, irregular at every scale */
	ORDO_DIST_COUNT,
};

/* Order of the returned keys. */
enum ordo_order {
	ORDO_ORDER_RANDOM,	/* a seeded shuffle: an insertion order */
	ORDO_ORDER_SORTED,	/* ascending */
};

/**
 * ordo_dist_name() - name of a distribution
 * @d: distribution
 *
 * Return: "linear", "noised", "uniform", "lognormal", "maplike", "osm",
 * "fb", "timeseries", "books", or NULL.
 */
const char *ordo_dist_name(enum ordo_dist d);

/**
 * ordo_dist_parse() - distribution of a name
 * @name: as returned by ordo_dist_name()
 * @d: result
 *
 * Return: 0, or -1 for an unknown name.
 */
int ordo_dist_parse(const char *name, enum ordo_dist *d);

/**
 * ordo_dataset_gen() - generate a key set
 * @d: distribution
 * @n: number of distinct keys
 * @seed: seed
 * @order: ORDO_ORDER_RANDOM or ORDO_ORDER_SORTED
 * @keys: n keys out
 *
 * The first k keys of a random-order set of n are a uniform sample of it,
 * so a caller can load a prefix and insert the rest later.
 *
 * Return: 0, or -1 (bad argument or out of memory).
 */
int ordo_dataset_gen(enum ordo_dist d, size_t n, uint64_t seed,
		     enum ordo_order order, uint64_t *keys);

/**
 * ordo_sort_keys() - sort keys ascending (LSD radix sort)
 * @keys: keys
 * @n: count
 *
 * Return: 0, or -1 when out of memory.
 */
int ordo_sort_keys(uint64_t *keys, size_t n);

#endif /* ORDO_BENCH_DATASETS_H */
