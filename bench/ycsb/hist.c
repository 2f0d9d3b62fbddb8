// SPDX-License-Identifier: GPL-2.0
/*
 * ordo-bench: an HDR-style latency histogram.  Exact below 128 ns, then 64
 * linear sub-buckets per power of two: every value is kept within 1.6%,
 * whatever its magnitude, in a fixed array that threads merge by adding.
 */
#include "ycsb.h"

static uint32_t bucket(uint64_t v)
{
	uint32_t shift;

	if (v < 128)
		return (uint32_t)v;
	/* v >> shift lands in [64, 128). */
	shift = 63 - __builtin_clzll(v) - 6;
	if (shift > 40)
		return HIST_BUCKETS - 1;
	return 128 + (shift - 1) * 64 + (uint32_t)((v >> shift) - 64);
}

/* The middle of a bucket's range. */
static uint64_t bucket_value(uint32_t b)
{
	uint32_t shift;

	if (b < 128)
		return b;
	shift = (b - 128) / 64 + 1;
	return ((uint64_t)((b - 128) % 64 + 64) << shift) +
	       ((1ULL << shift) >> 1);
}

void hist_add(struct hist *h, uint64_t ns)
{
	h->n[bucket(ns)]++;
	h->count++;
	if (ns > h->max)
		h->max = ns;
}

void hist_merge(struct hist *to, const struct hist *from)
{
	uint32_t i;

	for (i = 0; i < HIST_BUCKETS; i++)
		to->n[i] += from->n[i];
	to->count += from->count;
	if (from->max > to->max)
		to->max = from->max;
}

uint64_t hist_quantile(const struct hist *h, double q)
{
	uint64_t want, seen = 0;
	uint32_t i;

	if (!h->count)
		return 0;
	want = (uint64_t)(q * (double)h->count + 0.5);
	if (want < 1)
		want = 1;
	for (i = 0; i < HIST_BUCKETS; i++) {
		seen += h->n[i];
		if (seen >= want) {
			uint64_t v = bucket_value(i);

			return v > h->max ? h->max : v;
		}
	}
	return h->max;
}
