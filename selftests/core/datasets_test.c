// SPDX-License-Identifier: GPL-2.0
/*
 * The benchmarks' key sets (bench/datasets.c) and the learned model over
 * each of them, native, TAP.
 *
 * Per distribution: n distinct keys, ascending when asked for, the random
 * order a permutation of the sorted one, the same keys for the same seed;
 * the shape a distribution promises where it is cheap to check (fb's
 * outliers, timeseries' start and span).  Then the model core
 * (kmod/core/model_*.c) is trained over a leaf level of each set, hard ones
 * included, and every stored key and a sample of absent keys must be
 * predicted to the leaf whose fences hold it, inside the error window.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "datasets.h"
#include "model.h"

#define N_KEYS		200000
#define LEAF_KEYS	12	/* keys per simulated leaf, of 16 slots */

static int n_tests, n_failed;

#define CHECK(c) do {							\
	if (!(c)) {							\
		printf("# %s:%d: %s: check failed: %s\n", __FILE__,	\
		       __LINE__, name, #c);				\
		return 1;						\
	}								\
} while (0)

static void tap(int r, const char *what, const char *name)
{
	n_tests++;
	n_failed += r != 0;
	printf("%sok %d - %s %s\n", r ? "not " : "", n_tests, what, name);
	fflush(stdout);
}

static uint64_t *gen(enum ordo_dist d, size_t n, uint64_t seed,
		     enum ordo_order o)
{
	uint64_t *k = malloc((n ? n : 1) * sizeof(*k));

	if (k && ordo_dataset_gen(d, n, seed, o, k)) {
		free(k);
		k = NULL;
	}
	return k;
}

/* Distinct, ascending, reproducible; random order a permutation. */
static int check_keys(enum ordo_dist d, size_t n)
{
	const char *name = ordo_dist_name(d);
	uint64_t *s = gen(d, n, 7, ORDO_ORDER_SORTED);
	uint64_t *again = gen(d, n, 7, ORDO_ORDER_SORTED);
	uint64_t *r = gen(d, n, 7, ORDO_ORDER_RANDOM);
	uint64_t *other = gen(d, n, 8, ORDO_ORDER_SORTED);
	size_t i;
	int ret = 1;

	if (!s || !again || !r || !other) {
		printf("# %s: generator failed at n = %zu\n", name, n);
		goto out;
	}
	for (i = 1; i < n; i++) {
		if (s[i - 1] >= s[i]) {
			printf("# %s: n = %zu: keys %zu, %zu not ascending\n",
			       name, n, i - 1, i);
			goto out;
		}
	}
	if (memcmp(s, again, n * sizeof(*s))) {
		printf("# %s: n = %zu: same seed, other keys\n", name, n);
		goto out;
	}
	if (n > 100 && !memcmp(s, other, n * sizeof(*s))) {
		printf("# %s: n = %zu: other seed, same keys\n", name, n);
		goto out;
	}
	if (ordo_sort_keys(r, n) || memcmp(s, r, n * sizeof(*s))) {
		printf("# %s: n = %zu: random order is not a permutation\n",
		       name, n);
		goto out;
	}
	ret = 0;
out:
	free(s);
	free(again);
	free(r);
	free(other);
	return ret;
}

static int test_keys(enum ordo_dist d)
{
	static const size_t sizes[] = { 0, 1, 2, 17, 1000, N_KEYS };
	size_t i;

	for (i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++)
		if (check_keys(d, sizes[i]))
			return 1;
	return 0;
}

/* What fb and timeseries promise beyond distinct keys. */
static int test_shape(enum ordo_dist d)
{
	const char *name = ordo_dist_name(d);
	uint64_t *k = gen(d, N_KEYS, 1, ORDO_ORDER_SORTED);
	size_t i, far = 0;

	CHECK(k);
	if (d == ORDO_DIST_FB) {
		/* The dense ids stay below 2^44; 0.01% are anywhere. */
		for (i = 0; i < N_KEYS; i++)
			far += k[i] >= 1ULL << 44;
		printf("# fb: %zu of %d keys at or above 2^44\n", far, N_KEYS);
		free(k);
		CHECK(far >= N_KEYS / 10000 * 9 / 10 && far <= N_KEYS / 10000);
		return 0;
	}
	if (d == ORDO_DIST_TIMESERIES) {
		double days = (k[N_KEYS - 1] - k[0]) / 86400e9;
		bool from_2023 = k[0] >= 1672531200000000000ULL;

		/* From 2023 on, 200,000 events within a day or two. */
		printf("# timeseries: %d events over %.2f days\n", N_KEYS,
		       days);
		free(k);
		CHECK(from_2023);
		CHECK(days > 0.05 && days < 2);
		return 0;
	}
	free(k);
	return 0;
}

/* Leaves of LEAF_KEYS keys in key order, fences at their first keys. */
static struct ordo_leaf_info *leaf_level(const uint64_t *k, size_t n,
					 u32 *nleaves)
{
	u32 nl = (n + LEAF_KEYS - 1) / LEAF_KEYS, j;
	struct ordo_leaf_info *lv = calloc(nl, sizeof(*lv));

	for (j = 0; lv && j < nl; j++) {
		size_t a = (size_t)j * LEAF_KEYS;

		lv[j].low = j ? k[a] : 0;
		lv[j].leaf = j + 1;
		lv[j].inca = 1;
		lv[j].count = n - a < LEAF_KEYS ? n - a : LEAF_KEYS;
		if (j + 1 < nl)
			lv[j].high = k[a + LEAF_KEYS];
		else
			lv[j].flags = ORDO_LEAF_LAST;
	}
	*nleaves = nl;
	return lv;
}

/* The leaf (index) whose fences hold key. */
static u32 leaf_of(const struct ordo_leaf_info *lv, u32 nl, u64 key)
{
	u32 lo = 0, hi = nl - 1;

	while (lo < hi) {
		u32 mid = lo + (hi - lo + 1) / 2;

		if (lv[mid].low <= key)
			lo = mid;
		else
			hi = mid - 1;
	}
	return lo;
}

/*
 * 1 if the key's leaf is among the lookup's candidates, inside the window;
 * 2 if an absent key was sent one leaf right by a tie settled for the
 * right (the leaf before the candidates holds it); else 0.
 */
static int predicts(const struct ordo_model *m, const struct ordo_leaf_info *lv,
		    u32 nl, u64 key, u64 *cands)
{
	u32 want = lv[leaf_of(lv, nl, key)].leaf, i;
	struct ordo_tt e;
	struct ordo_pred p;

	if (ordo_model_lookup(m, key, &p))
		return 0;
	*cands += p.ncand;
	if (p.lln < p.win_lo || p.lln + p.ncand - 1 > p.win_hi)
		return 0;
	for (i = 0; i < p.ncand; i++)
		if (ordo_pred_ent(&p, i).leaf == want)
			return 1;
	return ordo_pred_try(&p, p.ncand, &e) && e.leaf == want ? 2 : 0;
}

static int test_model(enum ordo_dist d)
{
	const char *name = ordo_dist_name(d);
	uint64_t *k = gen(d, N_KEYS, 1, ORDO_ORDER_SORTED);
	struct ordo_model_params prm;
	struct ordo_model_stats st;
	struct ordo_leaf_set set;
	struct ordo_leaf_info *lv;
	struct ordo_model *m = NULL;
	u64 x = 0x243f6a8885a308d3ULL;
	u64 cands = 0, acands = 0;
	u32 nl, i, bad = 0, right = 0;
	int r;

	CHECK(k);
	lv = leaf_level(k, N_KEYS, &nl);
	CHECK(lv);
	set = (struct ordo_leaf_set){ .leaves = lv, .keys = k, .nleaves = nl };
	ordo_model_params_default(&prm);
	prm.leaf_slots = 16;
	prm.leaves_per_sub = 64;	/* a few hundred sub-models */
	CHECK(!ordo_model_train(&m, &set, &prm, 1));
	CHECK(!ordo_model_eval(m, &set, 1, &st));
	printf("# %s: %u leaves, %u sub-models, window %.2f leaves, "
	       "%llu wrong\n", name, nl, ordo_model_count(m),
	       (double)st.win_sum / st.nkeys, (unsigned long long)st.wrong);
	for (i = 0; i < N_KEYS; i++)
		bad += predicts(m, lv, nl, k[i], &cands) != 1;
	for (i = 0; i < N_KEYS; i++) {	/* absent keys: random and k + 1 */
		x = x * 6364136223846793005ULL + 1442695040888963407ULL;
		r = predicts(m, lv, nl, x, &acands);
		bad += !r;
		right += r == 2;
		r = predicts(m, lv, nl, k[i] + 1, &acands);
		bad += !r;
		right += r == 2;
	}
	printf("# %s: %.4f leaves per stored key, %.4f per absent key, "
	       "%u absent keys one leaf right\n", name,
	       (double)cands / N_KEYS, (double)acands / (2.0 * N_KEYS), right);
	ordo_model_free(m);
	free(lv);
	free(k);
	CHECK(st.wrong == 0);
	CHECK(bad == 0);
	CHECK(cands <= N_KEYS + N_KEYS / 20);	/* <= 1.05 leaves per GET */
	return 0;
}

int main(void)
{
	enum ordo_dist d;

	printf("1..%d\n", 3 * ORDO_DIST_COUNT);
	for (d = 0; d < ORDO_DIST_COUNT; d++) {
		tap(test_keys(d), "keys", ordo_dist_name(d));
		tap(test_shape(d), "shape", ordo_dist_name(d));
		tap(test_model(d), "model over", ordo_dist_name(d));
	}
	printf("# %d passed, %d failed\n", n_tests - n_failed, n_failed);
	return n_failed ? 1 : 0;
}
