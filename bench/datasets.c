// SPDX-License-Identifier: GPL-2.0
/*
 * Seeded key-set generators (see datasets.h).  Floating point is fine here:
 * this is user space, and only the keys, not the arithmetic, need to be
 * reproducible (glibc's exp/log/cos are correctly rounded enough for that
 * on one platform; keys may differ across libms in their last bits).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "datasets.h"

static const char * const names[ORDO_DIST_COUNT] = {
	"linear", "noised", "uniform", "lognormal", "maplike",
};

const char *ordo_dist_name(enum ordo_dist d)
{
	return (unsigned int)d < ORDO_DIST_COUNT ? names[d] : NULL;
}

int ordo_dist_parse(const char *name, enum ordo_dist *d)
{
	unsigned int i;

	for (i = 0; i < ORDO_DIST_COUNT; i++) {
		if (!strcmp(name, names[i])) {
			*d = i;
			return 0;
		}
	}
	return -1;
}

/* splitmix64: tiny, fast, and good enough for data generation. */
struct rng {
	uint64_t s;
};

static uint64_t rng_next(struct rng *r)
{
	uint64_t z = (r->s += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

/* Uniform in [0, n) (multiply-high, no modulo bias worth noting). */
static uint64_t rng_below(struct rng *r, uint64_t n)
{
	return (uint64_t)(((unsigned __int128)rng_next(r) * n) >> 64);
}

static double rng_unit(struct rng *r)
{
	return (double)(rng_next(r) >> 11) * 0x1.0p-53;
}

static double rng_normal(struct rng *r)
{
	double u1 = 1.0 - rng_unit(r), u2 = rng_unit(r);

	return sqrt(-2.0 * log(u1)) * cos(2.0 * M_PI * u2);
}

int ordo_sort_keys(uint64_t *keys, size_t n)
{
	uint64_t *tmp, *src = keys, *dst, *t, any = 0, all = ~0ULL;
	size_t i, *cnt;
	unsigned int pass;

	if (n < 2)
		return 0;
	tmp = malloc(n * sizeof(*tmp));
	cnt = malloc((1 << 16) * sizeof(*cnt));
	if (!tmp || !cnt) {
		free(tmp);
		free(cnt);
		return -1;
	}
	dst = tmp;
	for (i = 0; i < n; i++) {
		any |= keys[i];
		all &= keys[i];
	}
	for (pass = 0; pass < 4; pass++) {
		unsigned int sh = 16 * pass;
		size_t sum = 0, c;

		/* Skip digits that every key shares. */
		if (!(((any ^ all) >> sh) & 0xffff))
			continue;
		memset(cnt, 0, (1 << 16) * sizeof(*cnt));
		for (i = 0; i < n; i++)
			cnt[(src[i] >> sh) & 0xffff]++;
		for (i = 0; i < (1 << 16); i++) {
			c = cnt[i];
			cnt[i] = sum;
			sum += c;
		}
		for (i = 0; i < n; i++)
			dst[cnt[(src[i] >> sh) & 0xffff]++] = src[i];
		t = src;
		src = dst;
		dst = t;
	}
	if (src != keys)
		memcpy(keys, src, n * sizeof(*keys));
	free(tmp);
	free(cnt);
	return 0;
}

static size_t uniq(uint64_t *k, size_t n)
{
	size_t i, m = 0;

	for (i = 0; i < n; i++)
		if (!m || k[i] != k[m - 1])
			k[m++] = k[i];
	return m;
}

static void shuffle(uint64_t *k, size_t n, struct rng *r)
{
	size_t i;

	for (i = n; i > 1; i--) {
		size_t j = rng_below(r, i);
		uint64_t t = k[i - 1];

		k[i - 1] = k[j];
		k[j] = t;
	}
}

static uint64_t draw(enum ordo_dist d, struct rng *r, uint64_t i,
		     uint64_t base)
{
	double x;

	switch (d) {
	case ORDO_DIST_NOISED:
		return base + i * 1000 + rng_below(r, 4000);
	case ORDO_DIST_LOGNORMAL:
		x = exp(2.0 * rng_normal(r)) * 1e9;
		return x >= 1.8e19 ? UINT64_MAX : (uint64_t)x;
	default:
		return rng_next(r);
	}
}

/* Independent draws, deduplicated; a random subset if there are extras. */
static int gen_draws(enum ordo_dist d, size_t n, struct rng *r,
		     uint64_t *keys)
{
	size_t have = 0, want = n + n / 64 + 16, i;
	uint64_t base = rng_below(r, 1ULL << 40), *buf;

	buf = malloc(want * sizeof(*buf));
	if (!buf)
		return -1;
	for (i = 0; i < want; i++)
		buf[i] = draw(d, r, i, base);
	if (ordo_sort_keys(buf, want)) {
		free(buf);
		return -1;
	}
	have = uniq(buf, want);
	while (have < n) {	/* practically never */
		buf[have] = draw(d, r, rng_below(r, want), base);
		have++;
		ordo_sort_keys(buf, have);
		have = uniq(buf, have);
	}
	if (have > n) {
		shuffle(buf, have, r);
		ordo_sort_keys(buf, n);
	}
	memcpy(keys, buf, n * sizeof(*keys));
	free(buf);
	return 0;
}

static void gen_linear(size_t n, struct rng *r, uint64_t *keys)
{
	uint64_t k = (1ULL << 32) + rng_below(r, 1ULL << 32);
	size_t i;

	for (i = 0; i < n; i++) {
		k += 1 + rng_below(r, 4);
		keys[i] = k;
	}
}

/*
 * Map-like: runs of nearly consecutive keys (lognormal lengths, median 300)
 * separated by heavy-tailed gaps that together span 2^62, like populated
 * places on a map with empty land and sea between them.
 */
static int gen_maplike(size_t n, struct rng *r, uint64_t *keys)
{
	size_t runs = 0, cap = 1024, i, j, have = 0;
	uint32_t *len = malloc(cap * sizeof(*len));
	double *gap = malloc(cap * sizeof(*gap)), sum = 0, scale;
	uint64_t k;

	if (!len || !gap)
		goto fail;
	while (have < n) {
		double l = exp(log(300.0) + 1.5 * rng_normal(r));

		if (runs == cap) {
			cap *= 2;
			len = realloc(len, cap * sizeof(*len));
			gap = realloc(gap, cap * sizeof(*gap));
			if (!len || !gap)
				goto fail;
		}
		len[runs] = l < 1 ? 1 : l > 200000 ? 200000 : (uint32_t)l;
		if (len[runs] > n - have)
			len[runs] = n - have;
		have += len[runs];
		gap[runs] = exp(2.5 * rng_normal(r));
		sum += gap[runs];
		runs++;
	}
	scale = 0x1.0p62 / sum;
	k = rng_below(r, 1ULL << 60);
	for (i = 0, have = 0; i < runs; i++) {
		k += 1 + (uint64_t)(gap[i] * scale);
		for (j = 0; j < len[i]; j++) {
			keys[have++] = k;
			k += 1 + rng_below(r, 8);
		}
	}
	free(len);
	free(gap);
	return 0;
fail:
	free(len);
	free(gap);
	return -1;
}

int ordo_dataset_gen(enum ordo_dist d, size_t n, uint64_t seed,
		     enum ordo_order order, uint64_t *keys)
{
	struct rng r = { seed * 0x2545f4914f6cdd1dULL + d };
	int err = 0;

	if ((unsigned int)d >= ORDO_DIST_COUNT || !keys)
		return -1;
	switch (d) {
	case ORDO_DIST_LINEAR:
		gen_linear(n, &r, keys);
		break;
	case ORDO_DIST_MAPLIKE:
		err = gen_maplike(n, &r, keys);
		break;
	default:
		err = gen_draws(d, n, &r, keys);
		break;
	}
	if (!err && order == ORDO_ORDER_RANDOM)
		shuffle(keys, n, &r);
	return err;
}
