// SPDX-License-Identifier: GPL-2.0
/*
 * ordo-bench: which operation and which key come next (YCSB, XStore's
 * Table 1).  Items are numbered in insertion order; the request
 * distributions pick item numbers (uniform; zipfian theta 0.99 scrambled by
 * an FNV hash, so hot items are spread over the key space; latest: zipfian
 * over the newest items) and the items map them to keys.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "ycsb.h"

/* Ring of ack flags past items->acked: inserts in flight at once. */
#define ACK_RING	(1u << 16)

int items_init(struct items *it, const struct keyset *ks, uint64_t cap)
{
	memset(it, 0, sizeof(*it));
	it->loaded = ks->keys;
	it->nloaded = ks->nkeys;
	it->next = ks->nkeys;
	it->acked = ks->nkeys;
	it->cap = cap;
	it->ins = calloc(cap ? cap : 1, sizeof(*it->ins));
	it->done = calloc(ACK_RING, 1);
	if (!it->ins || !it->done) {
		items_free(it);
		return -ENOMEM;
	}
	pthread_mutex_init(&it->lock, NULL);
	return 0;
}

void items_free(struct items *it)
{
	free(it->ins);
	free(it->done);
	it->ins = NULL;
	it->done = NULL;
}

uint64_t items_key(const struct items *it, uint64_t item)
{
	if (item < it->nloaded)
		return it->loaded[item];
	return it->ins[item - it->nloaded];
}

uint64_t items_acked(struct items *it)
{
	return __atomic_load_n(&it->acked, __ATOMIC_ACQUIRE);
}

bool items_claim(struct items *it, uint64_t key, uint64_t *item)
{
	bool ok;

	pthread_mutex_lock(&it->lock);
	ok = it->next - it->nloaded < it->cap &&
	     it->next - it->acked < ACK_RING;
	if (ok) {
		*item = it->next++;
		it->ins[*item - it->nloaded] = key;
	}
	pthread_mutex_unlock(&it->lock);
	return ok;
}

/* Reads may use an item once it and every older one were acknowledged. */
void items_ack(struct items *it, uint64_t item)
{
	uint64_t a;

	pthread_mutex_lock(&it->lock);
	it->done[item % ACK_RING] = 1;
	a = it->acked;
	while (a < it->next && it->done[a % ACK_RING]) {
		it->done[a % ACK_RING] = 0;
		a++;
	}
	__atomic_store_n(&it->acked, a, __ATOMIC_RELEASE);
	pthread_mutex_unlock(&it->lock);
}

/* xorshift64*: fast, and enough for choosing keys. */
uint64_t gen_rand(struct gen *g)
{
	g->rng ^= g->rng >> 12;
	g->rng ^= g->rng << 25;
	g->rng ^= g->rng >> 27;
	return g->rng * 0x2545f4914f6cdd1dULL;
}

static double rand01(struct gen *g)
{
	return (double)(gen_rand(g) >> 11) / (double)(1ULL << 53);
}

double zeta(uint64_t from, uint64_t n, double theta, double start)
{
	double sum = start;
	uint64_t i;

	for (i = from; i < n; i++)
		sum += 1.0 / pow((double)(i + 1), theta);
	return sum;
}

/* Gray et al.'s zipfian over [0, n), 0 the most popular (as YCSB). */
static uint64_t zipf(struct gen *g, uint64_t n, double zetan)
{
	double theta = ZIPF_THETA, alpha = 1.0 / (1.0 - theta);
	double eta = (1.0 - pow(2.0 / (double)n, 1.0 - theta)) /
		     (1.0 - g->zeta2 / zetan);
	double u = rand01(g), uz = u * zetan;
	uint64_t v;

	if (n < 2 || uz < 1.0)
		return 0;
	if (uz < 1.0 + pow(0.5, theta))
		return 1;
	v = (uint64_t)((double)n * pow(eta * u - eta + 1.0, alpha));
	return v >= n ? n - 1 : v;
}

static uint64_t fnv64(uint64_t v)
{
	uint64_t h = 0xcbf29ce484222325ULL;
	int i;

	for (i = 0; i < 8; i++) {
		h ^= v & 0xff;
		h *= 0x100000001b3ULL;
		v >>= 8;
	}
	return h;
}

void gen_init(struct gen *g, enum wl wl, enum rdist dist, uint64_t seed,
	      const struct keyset *ks, struct items *it)
{
	memset(g, 0, sizeof(*g));
	g->wl = wl;
	g->dist = dist;
	g->rng = seed * 0x9e3779b97f4a7c15ULL + 0x632be59bd9b4e019ULL;
	if (!g->rng)
		g->rng = 1;
	g->ks = ks;
	g->it = it;
	g->zeta2 = zeta(0, 2, ZIPF_THETA, 0);
	g->n_latest = ks->nkeys;
	g->zeta_latest = ks->zeta_n;
}

enum bop_kind gen_kind(struct gen *g)
{
	uint32_t p = (uint32_t)(gen_rand(g) % 100);

	switch (g->wl) {
	case WL_A:
		return p < 50 ? OP_READ : OP_UPDATE;
	case WL_B:
		return p < 95 ? OP_READ : OP_UPDATE;
	case WL_D:
		return p < 95 ? OP_READ : OP_INSERT;
	case WL_E:
		return p < 95 ? OP_SCAN : OP_INSERT;
	case WL_F:
		return p < 50 ? OP_READ : OP_RMW;
	case WL_APPEND:
	case WL_COUNTDOWN:
		return p < 50 ? OP_READ : OP_INSERT;
	default:
		return OP_READ;
	}
}

uint64_t gen_key(struct gen *g)
{
	uint64_t n = items_acked(g->it), item;

	switch (g->dist) {
	case RD_ZIPFIAN:
		/* Over the loaded items (YCSB's scrambled zipfian). */
		item = fnv64(zipf(g, g->ks->nkeys, g->ks->zeta_n)) %
		       g->ks->nkeys;
		break;
	case RD_LATEST:
		/* zeta grows with the items, term by term. */
		if (n > g->n_latest) {
			g->zeta_latest = zeta(g->n_latest, n, ZIPF_THETA,
					      g->zeta_latest);
			g->n_latest = n;
		}
		item = n - 1 - zipf(g, n, g->zeta_latest);
		break;
	default:
		item = gen_rand(g) % n;
		break;
	}
	return items_key(g->it, item);
}

bool gen_insert_key(struct gen *g, uint64_t *key, uint64_t *item)
{
	struct keyset *ks = (struct keyset *)g->ks;
	uint64_t i;

	if (g->wl == WL_APPEND) {
		/* Increasing keys, as time series and auto-increment ids. */
		i = __atomic_fetch_add(&ks->append_next, 1, __ATOMIC_RELAXED);
		*key = ks->append_base + i;
	} else if (g->wl == WL_COUNTDOWN) {
		/* Decreasing keys: reverse time stamps, countdown ids. */
		i = __atomic_fetch_add(&ks->down_next, 1, __ATOMIC_RELAXED);
		if (i >= ks->down_room)
			goto none;
		*key = ks->down_base - i;
	} else {
		i = __atomic_fetch_add(&ks->reserve_next, 1, __ATOMIC_RELAXED);
		if (i >= ks->nreserve)
			goto none;
		*key = ks->keys[ks->nkeys + i];
	}
	if (items_claim(g->it, *key, item))
		return true;
none:
	g->inserts_skipped++;
	return false;
}

uint32_t gen_scan_len(struct gen *g)
{
	return 1 + (uint32_t)(gen_rand(g) % SCAN_LEN_MAX);
}
