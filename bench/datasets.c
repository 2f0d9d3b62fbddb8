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
	"osm", "fb", "timeseries", "books",
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

/*
 * OSM-like cells: settlements (clusters) gathered on a few continents, of
 * heavy-tailed sizes, each spread wide enough that cells rarely repeat.
 */
#define OSM_CONTINENTS	16
#define OSM_GRID	4294967296.0	/* 2^32 cells a side */

struct osm_cluster {
	double cw;	/* cumulative weight, for picking a cluster */
	double x, y;	/* centre */
	double sd;	/* spread, in cells */
};

/* Everything a draw needs besides the generator. */
struct draw_ctx {
	uint64_t base;			/* noised: the first key */
	struct osm_cluster *cl;		/* osm: clusters */
	size_t ncl;
	uint64_t salt;			/* books: the cascade's weights */
};

static double clamp(double v, double lo, double hi)
{
	return v < lo ? lo : v > hi ? hi : v;
}

static int osm_setup(struct draw_ctx *c, size_t n, struct rng *r)
{
	double cont[OSM_CONTINENTS][2], w = 0;
	size_t i;

	for (i = 0; i < OSM_CONTINENTS; i++) {
		cont[i][0] = rng_unit(r) * OSM_GRID;
		cont[i][1] = rng_unit(r) * OSM_GRID;
	}
	c->ncl = n / 256 + 1;
	c->cl = malloc(c->ncl * sizeof(*c->cl));
	if (!c->cl)
		return -1;
	for (i = 0; i < c->ncl; i++) {
		struct osm_cluster *k = &c->cl[i];
		const double *at = cont[rng_below(r, OSM_CONTINENTS)];

		k->x = clamp(at[0] + rng_normal(r) * 0x1.0p28, 0, OSM_GRID - 1);
		k->y = clamp(at[1] + rng_normal(r) * 0x1.0p28, 0, OSM_GRID - 1);
		k->sd = clamp(exp(log(4096.0) + 2.0 * rng_normal(r)), 4,
			      0x1.0p24);
		w += exp(1.5 * rng_normal(r));
		k->cw = w;
	}
	/* At least 4 * sqrt(points) cells of spread: a peak density of 1%. */
	for (i = 0; i < c->ncl; i++) {
		struct osm_cluster *k = &c->cl[i];
		double pts = (k->cw - (i ? c->cl[i - 1].cw : 0)) / w * n;

		if (k->sd < 4 * sqrt(pts))
			k->sd = 4 * sqrt(pts);
	}
	return 0;
}

/* Bits 0-31 of v to the even bits of the result. */
static uint64_t spread_bits(uint32_t v)
{
	uint64_t x = v;

	x = (x | x << 16) & 0x0000ffff0000ffffULL;
	x = (x | x << 8) & 0x00ff00ff00ff00ffULL;
	x = (x | x << 4) & 0x0f0f0f0f0f0f0f0fULL;
	x = (x | x << 2) & 0x3333333333333333ULL;
	x = (x | x << 1) & 0x5555555555555555ULL;
	return x;
}

static uint64_t draw_osm(struct rng *r, const struct draw_ctx *c)
{
	double u = rng_unit(r) * c->cl[c->ncl - 1].cw;
	size_t lo = 0, hi = c->ncl - 1;
	const struct osm_cluster *k;
	uint32_t x, y;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (c->cl[mid].cw <= u)
			lo = mid + 1;
		else
			hi = mid;
	}
	k = &c->cl[lo];
	x = (uint32_t)clamp(k->x + rng_normal(r) * k->sd, 0, OSM_GRID - 1);
	y = (uint32_t)clamp(k->y + rng_normal(r) * k->sd, 0, OSM_GRID - 1);
	return spread_bits(x) | spread_bits(y) << 1;	/* Z-order */
}

static uint64_t mix64(uint64_t z)
{
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

/*
 * Books-like: a binary cascade 48 levels deep.  At every node a key goes
 * left with a probability in [0.3, 0.7] that the node fixes (a hash of its
 * prefix), so the density changes at every scale; the low 16 bits are
 * uniform.
 */
static uint64_t draw_books(struct rng *r, const struct draw_ctx *c)
{
	uint64_t p = 0, u = 0;
	unsigned int lvl;

	for (lvl = 0; lvl < 48; lvl++) {
		uint64_t h = mix64(c->salt + (p << 6 | lvl));
		uint64_t thr = 19661 + ((h >> 48) * 26214 >> 16);

		if (!(lvl & 3))
			u = rng_next(r);
		p = p << 1 | ((u & 0xffff) >= thr);
		u >>= 16;
	}
	return p << 16 | (rng_next(r) & 0xffff);
}

static uint64_t draw(enum ordo_dist d, struct rng *r, uint64_t i,
		     const struct draw_ctx *c)
{
	double x;

	switch (d) {
	case ORDO_DIST_NOISED:
		return c->base + i * 1000 + rng_below(r, 4000);
	case ORDO_DIST_LOGNORMAL:
		x = exp(2.0 * rng_normal(r)) * 1e9;
		return x >= 1.8e19 ? UINT64_MAX : (uint64_t)x;
	case ORDO_DIST_OSM:
		return draw_osm(r, c);
	case ORDO_DIST_BOOKS:
		return draw_books(r, c);
	default:
		return rng_next(r);
	}
}

/*
 * Independent draws, deduplicated; a random subset if there are extras.
 * Missing keys (duplicates) are drawn again in batches, at most 64 times.
 */
static int gen_draws(enum ordo_dist d, size_t n, struct rng *r,
		     uint64_t *keys)
{
	size_t have = 0, want = n + n / 64 + 16, i;
	struct draw_ctx c = { .base = rng_below(r, 1ULL << 40) };
	unsigned int round;
	uint64_t *buf;
	int err = -1;

	if (d == ORDO_DIST_OSM && osm_setup(&c, n, r))
		return -1;
	c.salt = d == ORDO_DIST_BOOKS ? rng_next(r) : 0;
	buf = malloc(want * sizeof(*buf));
	if (!buf)
		goto out;
	for (i = 0; i < want; i++)
		buf[i] = draw(d, r, i, &c);
	for (round = 0;; round++) {
		if (ordo_sort_keys(buf, want))
			goto out;
		have = uniq(buf, want);
		if (have >= n)
			break;
		if (round == 64)
			goto out;
		for (i = have; i < want; i++)
			buf[i] = draw(d, r, rng_below(r, want), &c);
	}
	if (have > n) {
		shuffle(buf, have, r);
		ordo_sort_keys(buf, n);
	}
	memcpy(keys, buf, n * sizeof(*keys));
	err = 0;
out:
	free(buf);
	free(c.cl);
	return err;
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

/*
 * Facebook-id-like: ids handed out in order, densely, with the density
 * changing from era to era (lognormal era lengths, median 50,000 ids, and
 * mean gaps, median 8), plus 0.01% of the keys anywhere in 2^64.
 */
static int gen_fb(size_t n, struct rng *r, uint64_t *keys)
{
	size_t nout = n / 10000, i = 0, era = 0;
	uint64_t k = (1ULL << 40) + rng_below(r, 1ULL << 40), gap = 2;
	unsigned int round;

	while (i < n - nout) {
		if (!era) {
			era = 1 + (size_t)exp(log(50000.0) + rng_normal(r));
			gap = 2 * (uint64_t)clamp(exp(log(8.0) +
						      1.2 * rng_normal(r)),
						  1, 4096);
		}
		k += 1 + rng_below(r, gap);
		keys[i++] = k;
		era--;
	}
	for (round = 0; round < 64; round++) {
		while (i < n)
			keys[i++] = rng_next(r);
		if (ordo_sort_keys(keys, n))
			return -1;
		i = uniq(keys, n);
		if (i == n)
			return 0;
	}
	return -1;
}

/*
 * Append-only time series: nanosecond timestamps from 2023 on.  Events
 * arrive at a daily cycle of rates (ten times busier at noon than at
 * midnight, 10 per second at the quietest), and one in 10,000 starts a
 * burst (lognormal length, median 1,000 events) at a hundred times the
 * rate.  Each timestamp is at least 1 ns after the previous one.
 */
static void gen_timeseries(size_t n, struct rng *r, uint64_t *keys)
{
	const uint64_t day = 86400000000000ULL;
	uint64_t k = 1672531200000000000ULL + rng_below(r, day);
	size_t i, burst = 0;

	for (i = 0; i < n; i++) {
		double phase = (double)(k % day) / day;
		double mean = 1e8 / (1 + 4.5 * (1 - cos(2 * M_PI * phase)));

		if (burst) {
			mean /= 100;
			burst--;
		} else if (!rng_below(r, 10000)) {
			burst = (size_t)exp(log(1000.0) + rng_normal(r));
		}
		k += 1 + (uint64_t)(-log(1.0 - rng_unit(r)) * mean);
		keys[i] = k;
	}
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
	case ORDO_DIST_FB:
		err = gen_fb(n, &r, keys);
		break;
	case ORDO_DIST_TIMESERIES:
		gen_timeseries(n, &r, keys);
		break;
	default:
		err = gen_draws(d, n, &r, keys);
		break;
	}
	if (!err && order == ORDO_ORDER_RANDOM)
		shuffle(keys, n, &r);
	return err;
}
