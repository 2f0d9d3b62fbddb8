// SPDX-License-Identifier: GPL-2.0
/*
 * model_bench - quality, size and speed of ordo's learned model.
 *
 * For each dataset: generate N + N * insert% keys, simulate the leaf level
 * of a B-link tree with 16-slot leaves built by inserting N of them in
 * random order (full leaves split in half, both halves get a new
 * incarnation), train and measure; then insert the rest in random order,
 * measure the stale model, retrain only the sub-models whose leaves split,
 * and train a complete new model.  Results go to a JSON file that
 * bench/model_plot.py turns into bench/results/model_error.png.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "datasets.h"
#include "model.h"
#include <linux/ordo_node.h>

/*
 * The default geometry (16 slots of 8-byte values): its node, its inner
 * fanout and the bytes an inner node takes (the node slots it spans).
 */
#define SLOTS		ORDO_LEAF_SLOTS_DEFAULT
#define NODE_SIZE	ordo_node_size(SLOTS, 8)
#define FANOUT		ordo_inner_fanout(NODE_SIZE)
#define INNER_BYTES	(ordo_inner_span(NODE_SIZE) * NODE_SIZE)
#define HIST_BINS	512	/* over +-4 eps of the bulk model */
#define WIN_BINS	65	/* 1..64 leaves, then 65+ */

static double now(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec + t.tv_nsec * 1e-9;
}

static void *xcalloc(size_t n, size_t sz)
{
	void *p = calloc(n, sz);

	if (!p) {
		fprintf(stderr, "model_bench: out of memory\n");
		exit(3);
	}
	return p;
}

static void *xrealloc(void *p, size_t sz)
{
	p = realloc(p, sz);
	if (!p) {
		fprintf(stderr, "model_bench: out of memory\n");
		exit(3);
	}
	return p;
}

static u64 rs;

static u64 rnd(void)
{
	u64 z = (rs += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

/* Ranks 0..n-1 in a random order (rnd()'s): an insertion order. */
static u32 *shuffled_ranks(u64 n)
{
	u32 *perm = xcalloc(n ? n : 1, sizeof(u32)), x;
	u64 i, j;

	for (i = 0; i < n; i++)
		perm[i] = i;
	for (i = n; i > 1; i--) {
		j = rnd() % i;
		x = perm[i - 1];
		perm[i - 1] = perm[j];
		perm[j] = x;
	}
	return perm;
}

/* ---- leaf-level simulation over the ranks of the final key set -------- */

struct simleaf {
	u64 rlo, rhi;	/* ranks [rlo, rhi) of the final key set it covers */
	u32 count;
	u32 inca;
};

struct sim {
	const u64 *u;	/* all keys, sorted */
	u64 n;
	u32 *lof;	/* leaf (node number) of each rank */
	u8 *ins;	/* rank inserted? */
	struct simleaf *lv;	/* by node number, from 1 */
	u32 nleaves, cap;
	u64 splits;
	u32 *split_at;	/* node number of each split's right half */
	u64 split_cap;
};

static void sim_init(struct sim *s, const u64 *u, u64 n)
{
	memset(s, 0, sizeof(*s));
	s->u = u;
	s->n = n;
	s->lof = xcalloc(n, sizeof(u32));
	s->ins = xcalloc(n, 1);
	s->cap = 1 << 20;
	s->lv = xcalloc(s->cap, sizeof(*s->lv));
	s->nleaves = 1;
	s->lv[1].rlo = 0;
	s->lv[1].rhi = n;
	s->lv[1].inca = 1;
	for (u64 r = 0; r < n; r++)
		s->lof[r] = 1;
}

static void sim_free(struct sim *s)
{
	free(s->lof);
	free(s->ins);
	free(s->lv);
	free(s->split_at);
}

static void sim_split(struct sim *s, u32 l)
{
	struct simleaf *L = &s->lv[l];
	u32 half = L->count / 2, seen = 0, r;
	u64 m = L->rlo, k;

	for (;; m++) {
		if (!s->ins[m])
			continue;
		if (seen++ == half)
			break;
	}
	if (s->nleaves + 1 == s->cap) {
		s->cap *= 2;
		s->lv = realloc(s->lv, s->cap * sizeof(*s->lv));
		if (!s->lv)
			exit(3);
		L = &s->lv[l];
	}
	r = ++s->nleaves;
	s->lv[r].rlo = m;
	s->lv[r].rhi = L->rhi;
	s->lv[r].count = L->count - half;
	s->lv[r].inca = 1;
	for (k = m; k < L->rhi; k++)
		s->lof[k] = r;
	L->rhi = m;
	L->count = half;
	L->inca++;
	if (s->split_at) {
		if (s->splits == s->split_cap) {
			s->split_cap *= 2;
			s->split_at = realloc(s->split_at,
					      s->split_cap * sizeof(u32));
			if (!s->split_at)
				exit(3);
		}
		s->split_at[s->splits] = r;
	}
	s->splits++;
}

static void sim_insert(struct sim *s, u64 r)
{
	u32 l = s->lof[r];

	s->ins[r] = 1;
	if (++s->lv[l].count > SLOTS)
		sim_split(s, l);
}

/* A consistent snapshot: what the tree's leaf iterator would hand over. */
struct snap {
	struct ordo_leaf_info *lv;
	u64 *keys;
	u64 *koff;	/* first key of each leaf */
	u32 n;
	u64 nkeys;
};

static void snap_free(struct snap *p)
{
	free(p->lv);
	free(p->keys);
	free(p->koff);
	memset(p, 0, sizeof(*p));
}

/* The leaves covering ranks [ra, rb): ra and rb are leaf boundaries. */
static void snap_ranks(const struct sim *s, u64 ra, u64 rb, struct snap *p)
{
	u64 r, k = 0, i, nk = 0;
	u32 j = 0, nl = 0;

	for (r = ra; r < rb; r = s->lv[s->lof[r]].rhi) {
		nk += s->lv[s->lof[r]].count;
		nl++;
	}
	p->lv = xcalloc(nl ? nl : 1, sizeof(*p->lv));
	p->koff = xcalloc(nl + 1, sizeof(u64));
	p->keys = xcalloc(nk ? nk : 1, sizeof(u64));
	for (r = ra; r < rb; r = s->lv[s->lof[r]].rhi) {
		u32 l = s->lof[r];
		const struct simleaf *L = &s->lv[l];
		struct ordo_leaf_info *o = &p->lv[j];

		o->low = r ? s->u[r] : 0;
		o->leaf = l;
		o->inca = L->inca;
		o->count = L->count;
		if (L->rhi < s->n)
			o->high = s->u[L->rhi];
		else
			o->flags = ORDO_LEAF_LAST;
		p->koff[j] = k;
		for (i = L->rlo; i < L->rhi; i++)
			if (s->ins[i])
				p->keys[k++] = s->u[i];
		j++;
	}
	p->koff[j] = k;
	p->n = j;
	p->nkeys = k;
}

/* The whole leaf level. */
static void snap_take(const struct sim *s, struct snap *p)
{
	snap_ranks(s, 0, s->n, p);
}

/* Rank of the first key >= key. */
static u64 sim_rank(const struct sim *s, u64 key)
{
	u64 lo = 0, hi = s->n;

	while (lo < hi) {
		u64 mid = lo + (hi - lo) / 2;

		if (s->u[mid] < key)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* Every leaf with 8 keys and the last with the rest: a key-order load. */
static void snap_sorted_load(const u64 *u, u64 n, struct snap *p)
{
	u32 j, nl = n <= SLOTS ? 1 : (n - 9) / 8 + 1;
	u64 k = 0;

	p->lv = xcalloc(nl, sizeof(*p->lv));
	p->koff = xcalloc(nl + 1, sizeof(u64));
	p->keys = xcalloc(n, sizeof(u64));
	memcpy(p->keys, u, n * sizeof(u64));
	for (j = 0; j < nl; j++) {
		u32 c = j + 1 < nl ? 8 : n - k;

		p->lv[j].low = j ? u[k] : 0;
		p->lv[j].leaf = j + 1;
		p->lv[j].inca = 1;
		p->lv[j].count = c;
		p->koff[j] = k;
		k += c;
		if (j + 1 < nl)
			p->lv[j].high = u[k];
		else
			p->lv[j].flags = ORDO_LEAF_LAST;
	}
	p->koff[nl] = k;
	p->n = nl;
	p->nkeys = n;
}

static struct ordo_leaf_set snap_set(const struct snap *p, u32 a, u32 b)
{
	struct ordo_leaf_set set = {
		.leaves = p->lv + a,
		.keys = p->keys + p->koff[a],
		.nleaves = b - a,
	};

	return set;
}

static u32 snap_find(const struct snap *p, u64 key)
{
	u32 lo = 0, hi = p->n - 1;

	while (lo < hi) {
		u32 mid = lo + (hi - lo + 1) / 2;

		if (p->lv[mid].low <= key)
			lo = mid;
		else
			hi = mid - 1;
	}
	return lo;
}

/* The snapshot leaves tiling a sub-model's domain. */
static struct ordo_leaf_set snap_domain(const struct snap *p,
					const struct ordo_model *m, u32 sub)
{
	u64 lo, hi;
	bool has_hi = ordo_model_sub_domain(m, sub, &lo, &hi);

	return snap_set(p, snap_find(p, lo), has_hi ? snap_find(p, hi) : p->n);
}

/* ---- measurements ------------------------------------------------------- */

struct metrics {
	u64 keys;
	u32 leaves;
	u32 nsub;
	u32 eps;
	u64 model_bytes;
	u64 tt_bytes;
	u64 region_bytes;
	u64 client_bytes;
	double inner_bytes;
	double train_s;
	double eval_s;
	double hist_lo, hist_step;
	struct ordo_model_stats st;
	u64 hist[HIST_BINS + 2];
	u64 win[WIN_BINS + 1];
};

static double inner_bytes(u32 leaves)
{
	double total = 0;
	u64 l = leaves;

	while (l > 1) {
		l = (l + FANOUT - 1) / FANOUT;
		total += l;
	}
	return total * INNER_BYTES;
}

static struct ordo_model *train_timed(const struct snap *p,
				      const struct ordo_model_params *prm,
				      u64 epoch, int runs, double *secs)
{
	struct ordo_leaf_set set = snap_set(p, 0, p->n);
	struct ordo_model *m = NULL, *best = NULL;
	double t, dt;
	int i, err;

	*secs = 1e9;
	for (i = 0; i < runs; i++) {
		t = now();
		err = ordo_model_train(&m, &set, prm, epoch);
		dt = now() - t;
		if (err) {
			fprintf(stderr, "model_bench: train: %d\n", err);
			exit(3);
		}
		if (dt < *secs)
			*secs = dt;
		ordo_model_free(best);
		best = m;
	}
	return best;
}

/* Signed error of every stride-th key in leaves, and window sizes. */
static void histogram(const struct ordo_model *m, const struct snap *p,
		      u32 stride, struct metrics *mt)
{
	u64 ki = 0;
	u32 j, c;

	for (j = 0; j < p->n; j++) {
		for (c = 0; c < p->lv[j].count; c++, ki++) {
			struct ordo_pred pr;
			double e;
			long b;
			u32 w;

			if (ki % stride)
				continue;
			if (ordo_model_lookup(m, p->keys[ki], &pr))
				continue;
			e = (double)ordo_model_pos(m, pr.sub, p->keys[ki]) /
			    4294967296.0 - (pr.lln + (double)c / SLOTS);
			b = (long)((e - mt->hist_lo) / mt->hist_step);
			b = b < 0 ? 0 : b >= HIST_BINS ? HIST_BINS + 1 : b + 1;
			mt->hist[b]++;
			w = pr.win_hi - pr.win_lo + 1;
			mt->win[w > WIN_BINS ? WIN_BINS : w]++;
		}
	}
}

/* Histogram bins span +-4 eps (at least +-4 leaves) of the given eps. */
static void hist_range(struct metrics *mt, u32 eps)
{
	double e = eps / 256.0 < 1 ? 1 : eps / 256.0;

	mt->hist_lo = -4 * e;
	mt->hist_step = 8 * e / HIST_BINS;
}

static u64 client_copy_bytes(const struct ordo_model *m);

static void measure(const struct ordo_model *m, const struct snap *p,
		    u32 stride, u32 hist_stride, struct metrics *mt)
{
	struct ordo_leaf_set set = snap_set(p, 0, p->n);
	double t = now();

	ordo_model_eval(m, &set, stride, &mt->st);
	mt->eval_s = now() - t;
	mt->keys = p->nkeys;
	mt->leaves = p->n;
	mt->nsub = ordo_model_count(m);
	mt->eps = m->eps;
	mt->model_bytes = mt->st.model_bytes;
	mt->tt_bytes = mt->st.tt_bytes;
	mt->region_bytes = ordo_region_bytes(m);
	mt->client_bytes = client_copy_bytes(m);
	mt->inner_bytes = inner_bytes(p->n);
	if (hist_stride)
		histogram(m, p, hist_stride, mt);
}

/* ---- JSON ------------------------------------------------------------- */

static FILE *out;

static void j_metrics(const char *name, const struct metrics *mt,
		      bool hist, const char *tail)
{
	const struct ordo_model_stats *st = &mt->st;
	double nk = st->nkeys ? (double)st->nkeys : 1;
	u32 i;

	fprintf(out, "      \"%s\": {\n", name);
	fprintf(out, "        \"keys\": %llu, \"leaves\": %u, "
		"\"keys_per_leaf\": %.3f,\n", (unsigned long long)mt->keys,
		mt->leaves, (double)mt->keys / mt->leaves);
	fprintf(out, "        \"sub_models\": %u, \"eps_leaves\": %.4f, "
		"\"tt_entries\": %u,\n", mt->nsub, mt->eps / 256.0,
		st->nleaves);
	fprintf(out, "        \"model_bytes\": %llu, \"tt_bytes\": %llu, "
		"\"region_bytes\": %llu, \"client_copy_bytes\": %llu,\n",
		(unsigned long long)mt->model_bytes,
		(unsigned long long)mt->tt_bytes,
		(unsigned long long)mt->region_bytes,
		(unsigned long long)mt->client_bytes);
	fprintf(out, "        \"inner_node_bytes\": %.0f, "
		"\"model_pct_of_inner\": %.4f, "
		"\"client_bytes_per_key\": %.4f, "
		"\"client_pct_of_inner\": %.4f, "
		"\"published_bytes_per_key\": %.4f,\n", mt->inner_bytes,
		100.0 * mt->model_bytes / mt->inner_bytes,
		(double)mt->client_bytes / mt->keys,
		100.0 * mt->client_bytes / mt->inner_bytes,
		(double)(mt->model_bytes + mt->tt_bytes) / mt->keys);
	fprintf(out, "        \"keys_evaluated\": %llu, \"wrong_leaf\": %llu, "
		"\"leaves_per_get\": %.4f, \"one_leaf_share\": %.6f, "
		"\"leaves_per_get_max\": %llu,\n",
		(unsigned long long)st->nkeys, (unsigned long long)st->wrong,
		(st->cand_sum + st->wrong) / nk, st->cand_one / nk,
		(unsigned long long)st->cand_max);
	fprintf(out, "        \"window_leaves_avg\": %.4f, "
		"\"window_leaves_max\": %llu, \"window_one_leaf_share\": %.6f,\n",
		st->win_sum / nk, (unsigned long long)st->win_max,
		st->win_one / nk);
	fprintf(out, "        \"err_pos_avg\": %.4f, \"err_pos_max\": %.4f, "
		"\"err_leaf_avg\": %.4f, \"err_leaf_max\": %llu,\n",
		st->err_pos_sum / 256.0 / nk, st->err_pos_max / 256.0,
		st->err_leaf_sum / nk, (unsigned long long)st->err_leaf_max);
	fprintf(out, "        \"train_s\": %.6f, \"train_keys_per_s\": %.0f, "
		"\"eval_s\": %.4f", mt->train_s,
		mt->train_s > 0 ? mt->keys / mt->train_s : 0, mt->eval_s);
	if (hist) {
		fprintf(out, ",\n        \"err_hist_lo\": %.6f, "
			"\"err_hist_step\": %.6f,", mt->hist_lo, mt->hist_step);
		fprintf(out, "\n        \"err_hist\": [");
		for (i = 0; i < HIST_BINS + 2; i++)
			fprintf(out, "%s%llu", i ? "," : "",
				(unsigned long long)mt->hist[i]);
		fprintf(out, "],\n        \"window_hist\": [");
		for (i = 1; i <= WIN_BINS; i++)
			fprintf(out, "%s%llu", i > 1 ? "," : "",
				(unsigned long long)mt->win[i]);
		fprintf(out, "]");
	}
	fprintf(out, "%s\n      }", tail ? tail : "");
}

/* ---- one dataset ------------------------------------------------------- */

struct opts {
	u64 keys;
	u32 insert_pct;
	u64 seed;
	u32 stride;
	u64 appends;		/* keys appended in the policy run */
	u64 append_bulk;	/* keys loaded before them */
};

static struct metrics mt_a, mt_b, mt_p;

static int cmp_u64(const void *a, const void *b)
{
	u64 x = *(const u64 *)a, y = *(const u64 *)b;

	return x < y ? -1 : x > y;
}

/* The @q quantile of @n samples, sorting them in place. */
static double quantile(u64 *v, u64 n, double q)
{
	if (!n)
		return 0;
	qsort(v, n, sizeof(*v), cmp_u64);
	return v[(u64)((n - 1) * q)];
}

/*
 * Time retraining of unchanged sub-models of 150 to 250 keys (the work is
 * the same as after a split: validate, fit, measure, rewrite the slice).
 */
static void bench_retrain200(const struct snap *a, double *keys_per_sub,
			     double *us_avg, double *us_p50, double *us_p99)
{
	struct ordo_model_params p;
	struct ordo_model *m;
	double t, kpl = (double)a->nkeys / a->n, sum = 0;
	u32 n = 0, tries, lps = (u32)(200 / kpl + 0.5);
	u64 *ns = xcalloc(4000, sizeof(u64)), keys = 0;

	ordo_model_params_default(&p);
	p.leaves_per_sub = 0;
	p.target_subs = (u32)(a->nkeys / 200);
	p.max_sub_leaves = 2 * (lps ? lps : 1);
	m = train_timed(a, &p, 1, 1, &t);
	for (tries = 0; n < 4000 && tries < 100000; tries++) {
		u32 sub = m->first + (u32)(rnd() % ordo_model_count(m)), j;
		struct ordo_leaf_set set = snap_domain(a, m, sub);
		u64 k = 0;
		int err;

		for (j = 0; j < set.nleaves; j++)
			k += set.leaves[j].count;
		if (k < 150 || k > 250)
			continue;
		t = now();
		err = ordo_model_retrain_sub(m, sub, &set, &p);
		ns[n] = (u64)((now() - t) * 1e9);
		if (err) {
			fprintf(stderr, "model_bench: retrain: %d\n", err);
			exit(3);
		}
		sum += ns[n++];
		keys += k;
	}
	if (!n)
		n = 1;
	*keys_per_sub = (double)keys / n;
	*us_avg = sum / n / 1000.0;
	*us_p50 = quantile(ns, n, 0.5) / 1000.0;
	*us_p99 = quantile(ns, n, 0.99) / 1000.0;
	free(ns);
	ordo_model_free(m);
}

/*
 * Client lookup CPU: a client's copy of the model (loaded from the region
 * image, with its pivot search levels; sub-model, window, fence search in
 * the window) against a binary search over every leaf's low fence, for
 * the same stored keys in random order.  Both return the leaf's node
 * number, and both tables sit on huge pages where the system gives them
 * (ordo_malloc(), as the client's TT).
 *
 * Each pair is timed twice: lookups one after the other with nothing
 * tying them (the processor overlaps one's cache misses with the next
 * one's work: the throughput of a thread with many keys in hand), and
 * chained, each key waiting for the previous lookup's leaf (the latency a
 * GET pays before it can post its READ, which needs the leaf).
 *
 * The four timings take turns, LOOKUP_ROUNDS rounds of a fifth of the
 * keys each, and each figure is the median of its rounds: on a shared
 * machine one slow stretch then moves one round of each, not a whole
 * figure, and the ratio of model to search compares like with like.
 */
#define LOOKUP_ROUNDS	5

struct lookup_times {
	u64 probes;
	double model_ns, bsearch_ns;		/* independent */
	double model_chained_ns, bsearch_chained_ns;	/* chained */
	double chained_ratio_lo, chained_ratio_hi;	/* over the rounds */
};

/* The last leaf whose low fence is <= @key, by binary search. */
static u32 fence_search(const u64 *lows, u32 n, u64 key)
{
	u32 lo = 0, hi = n - 1;

	while (lo < hi) {
		u32 mid = lo + (hi - lo + 1) / 2;

		if (lows[mid] <= key)
			lo = mid;
		else
			hi = mid - 1;
	}
	return lo;
}

/*
 * Leaf numbers and fence indices are below 2^32 and at most 1M of them
 * are summed: the sum stays below 2^62, so chain() is 0, but the compiler
 * cannot know that and the next key waits for the sum.
 */
static inline u64 chain(u64 sum)
{
	return sum >> 62;
}

/* One round of each timing over keys[0..n): its ns into t[0..3]. */
static u64 lookup_round(const struct ordo_model *m, const u64 *lows,
			const u32 *leaf, u32 nf, const u64 *keys, u64 n,
			u64 *t)
{
	u64 i, sum = 0, dep;
	double t0;
	u32 j;

	t0 = now();
	for (i = 0; i < n; i++) {
		struct ordo_pred p;

		if (!ordo_model_lookup(m, keys[i], &p))
			sum += ordo_pred_ent(&p, 0).leaf;
	}
	t[0] = (now() - t0) * 1e9;
	t0 = now();
	for (i = 0; i < n; i++)
		sum -= leaf[fence_search(lows, nf, keys[i])];
	t[1] = (now() - t0) * 1e9;
	dep = 0;
	t0 = now();
	for (i = 0; i < n; i++) {
		struct ordo_pred p;

		if (!ordo_model_lookup(m, keys[i] + chain(dep), &p))
			dep += ordo_pred_ent(&p, 0).leaf;
	}
	t[2] = (now() - t0) * 1e9;
	sum += dep;
	/*
	 * The search's chain waits for the fence's index, not for the node
	 * number in the other array: a client would keep the two side by
	 * side, in the line of the last probe.
	 */
	dep = 0;
	t0 = now();
	for (i = 0; i < n; i++) {
		j = fence_search(lows, nf, keys[i] + chain(dep));
		dep += j;
		sum -= leaf[j];
	}
	t[3] = (now() - t0) * 1e9;
	return sum + dep;
}

static void bench_lookup(const struct ordo_model *m, const struct snap *a,
			 struct lookup_times *lt)
{
	u64 n = a->nkeys < 1000000 ? a->nkeys : 1000000, i, sum = 0;
	u64 *keys = xcalloc(n, sizeof(u64)), *lows = ordo_malloc(8ULL * a->n);
	u32 *leaf = ordo_malloc(4ULL * a->n), j, r;
	u64 per = n / LOOKUP_ROUNDS;
	u64 t[4][LOOKUP_ROUNDS];	/* ns of each round */
	double ratio;

	if (!lows || !leaf) {
		fprintf(stderr, "model_bench: out of memory\n");
		exit(2);
	}

	for (i = 0; i < n; i++)
		keys[i] = a->keys[rnd() % a->nkeys];
	/*
	 * The fences in one dense array, as a client searching them would
	 * hold them (snap_find() strides over whole leaf records).
	 */
	for (j = 0; j < a->n; j++) {
		lows[j] = a->lv[j].low;
		leaf[j] = a->lv[j].leaf;
	}
	lt->chained_ratio_lo = 1e300;
	lt->chained_ratio_hi = 0;
	for (r = 0; r < LOOKUP_ROUNDS; r++) {
		u64 tr[4];

		sum += lookup_round(m, lows, leaf, a->n, keys + r * per, per,
				    tr);
		for (j = 0; j < 4; j++)
			t[j][r] = tr[j];
		ratio = (double)tr[2] / tr[3];
		if (ratio < lt->chained_ratio_lo)
			lt->chained_ratio_lo = ratio;
		if (ratio > lt->chained_ratio_hi)
			lt->chained_ratio_hi = ratio;
	}
	/* Rounds of equal length: the median round, per lookup. */
	lt->model_ns = quantile(t[0], LOOKUP_ROUNDS, 0.5) / per;
	lt->bsearch_ns = quantile(t[1], LOOKUP_ROUNDS, 0.5) / per;
	lt->model_chained_ns = quantile(t[2], LOOKUP_ROUNDS, 0.5) / per;
	lt->bsearch_chained_ns = quantile(t[3], LOOKUP_ROUNDS, 0.5) / per;
	lt->probes = per * LOOKUP_ROUNDS;
	/* Untimed: the search's leaf must be among the model's candidates. */
	for (i = 0; i < n; i++) {
		u32 want = leaf[fence_search(lows, a->n, keys[i])];
		struct ordo_pred p;

		for (j = 0; !ordo_model_lookup(m, keys[i], &p) &&
		     j < p.ncand && ordo_pred_ent(&p, j).leaf != want;)
			j++;
		if (ordo_model_lookup(m, keys[i], &p) || j == p.ncand) {
			fprintf(stderr, "model_bench: lookup and search "
				"disagree (sum %llu)\n",
				(unsigned long long)sum);
			exit(3);
		}
	}
	free(keys);
	ordo_free(lows);
	ordo_free(leaf);
}

struct region {
	void **chunks;
	struct ordo_region rg;
};

/* The module grows the live image in place: more chunks at its end. */
static void region_fit(struct region *r, u64 size)
{
	u32 i, n = (size >> r->rg.chunk_shift) + 1;

	if (n <= r->rg.nchunks)
		return;
	r->chunks = xrealloc(r->chunks, n * sizeof(void *));
	for (i = r->rg.nchunks; i < n; i++)
		r->chunks[i] = xcalloc(1, 1ULL << r->rg.chunk_shift);
	r->rg.nchunks = n;
	r->rg.chunks = r->chunks;
}

static void region_alloc(struct region *r, u64 size)
{
	u32 i, shift = 21;	/* ORDO_CHUNK_SIZE_DEFAULT */

	r->rg.nchunks = (size >> shift) + 1;
	r->rg.chunk_shift = shift;
	r->rg.base = 0;
	r->chunks = xcalloc(r->rg.nchunks, sizeof(void *));
	for (i = 0; i < r->rg.nchunks; i++)
		r->chunks[i] = xcalloc(1, 1ULL << shift);
	r->rg.chunks = r->chunks;
}

static void region_free(struct region *r)
{
	u32 i;

	for (i = 0; i < r->rg.nchunks; i++)
		free(r->chunks[i]);
	free(r->chunks);
}

/*
 * The module's trainer policy (kmod/model/trainer.c) over an append
 * stream: each split's separator is retrained at once (a trainer that
 * keeps up: one split per round), a retraining that fails trains a full
 * model, and after each successful round the model's health may call for
 * a full training of a new size.
 */
struct policy {
	u64 splits;
	u64 patches;
	u64 full_error;		/* a retraining failed */
	u64 full_resize;	/* expand, shrink or rebuild */
	u64 tt_grows;		/* TT area grown in place instead */
	u64 tail_cuts;		/* the tail cut, sub-models appended */
	u64 head_cuts;		/* the head cut, sub-models put in front */
	u64 mid_cuts;		/* cut, sub-models renumbered: a new image */
	double patch_s, full_s;
	u64 *patch_ns;		/* each patch: snapshot, retrain, publish */
	u64 npatch_ns;
	double patch_us_p50, patch_us_p99;
	struct region rg;	/* the published region of the current model */
	bool has_rg;
};

static struct ordo_model *policy_full(const struct sim *s,
				      struct ordo_model *old,
				      const struct ordo_model_params *prm,
				      u32 target, struct policy *pc)
{
	struct ordo_model_params q = *prm;
	struct ordo_model_stats st;
	struct ordo_model *m;
	struct ordo_leaf_set set;
	struct snap a;
	double t = now(), ta;

	q.target_subs = target;
	snap_take(s, &a);
	set = snap_set(&a, 0, a.n);
	if (ordo_model_train(&m, &set, &q, old ? old->epoch + 1 : 1)) {
		fprintf(stderr, "model_bench: policy: full training failed\n");
		exit(3);
	}
	/* The module reuses its region's chunks: allocation is not timed. */
	ta = now();
	if (pc->has_rg)
		region_free(&pc->rg);
	region_alloc(&pc->rg, ordo_region_bytes(m));
	pc->has_rg = true;
	t += now() - ta;
	if (ordo_region_write(&pc->rg.rg, m)) {
		fprintf(stderr, "model_bench: policy: region write failed\n");
		exit(3);
	}
	/* As the module: evaluate at most 2^20 stored keys. */
	ordo_model_eval(m, &set, a.nkeys > (1 << 20) ?
			(u32)((a.nkeys + (1 << 20) - 1) >> 20) : 1, &st);
	snap_free(&a);
	ordo_model_free(old);
	pc->full_s += now() - t;
	return m;
}

static struct ordo_model *policy_split(const struct sim *s,
				       struct ordo_model *m,
				       const struct ordo_model_params *prm,
				       u64 sep, struct policy *pc)
{
	u32 sub = ordo_model_sub_of(m, sep), nsub = m->nsub, first = m->first;
	u32 renum = m->renum_gen;
	struct ordo_model_health h;
	struct ordo_leaf_set set;
	struct snap d;
	u64 lo, hi;
	u32 extra;
	bool has_hi = ordo_model_sub_domain(m, sub, &lo, &hi);
	double t = now();
	int err;

	snap_ranks(s, sim_rank(s, lo), has_hi ? sim_rank(s, hi) : s->n, &d);
	set = snap_set(&d, 0, d.n);
	err = ordo_model_retrain_sub(m, sub, &set, prm);
	if (!err)	/* a tail cut may have grown the image */
		region_fit(&pc->rg, ordo_region_bytes(m));
	if (!err) {
		int perr = ordo_region_patch(&pc->rg.rg, m, sub);

		/* The module writes a new image beside the live one. */
		if (perr == -EXDEV)
			perr = ordo_region_write(&pc->rg.rg, m);
		if (perr) {
			fprintf(stderr, "model_bench: policy: region patch "
				"failed: %d\n", perr);
			exit(3);
		}
	}
	snap_free(&d);
	t = now() - t;
	pc->patch_s += t;
	if (!(pc->npatch_ns & (pc->npatch_ns + 1)))	/* 0, 1, 3, 7, ... */
		pc->patch_ns = xrealloc(pc->patch_ns,
					2 * (pc->npatch_ns + 1) * sizeof(u64));
	pc->patch_ns[pc->npatch_ns++] = (u64)(t * 1e9);
	if (err) {
		pc->full_error++;
		return policy_full(s, m, prm, 0, pc);
	}
	pc->patches++;
	if (m->renum_gen != renum) {
		pc->mid_cuts++;
	} else {
		pc->tail_cuts += m->nsub > nsub;
		pc->head_cuts += m->first < first;
	}
	ordo_model_health(m, &h);
	extra = ordo_model_tt_room_due(&h, prm);
	if (extra && !ordo_model_tt_grow(m, extra)) {
		region_fit(&pc->rg, ordo_region_bytes(m));
		if (ordo_region_grow(&pc->rg.rg, m)) {
			fprintf(stderr, "model_bench: policy: grow failed\n");
			exit(3);
		}
		pc->tt_grows++;
		return m;
	}
	if (ordo_model_needs_expand(&h, prm) ||
	    ordo_model_needs_shrink(&h, prm) ||
	    ordo_model_needs_rebuild(&h, prm)) {
		pc->full_resize++;
		return policy_full(s, m, prm,
				   ordo_model_resize_target(&h, prm), pc);
	}
	return m;
}

/* Where a policy run's new keys go, and in which order. */
enum stream {
	STREAM_APPEND,		/* above every stored key, ascending */
	STREAM_DESCEND,		/* below every stored key, descending */
	STREAM_HOTSPOT,		/* between two stored keys, random order */
	STREAM_COUNT,
};

static const char *const stream_names[STREAM_COUNT] = {
	"appends", "descending", "hotspot",
};

/*
 * The universe of a hotspot run: @bulk keys of the data set, and @n keys
 * spread evenly over the widest gap between two stored keys of the
 * middle half.  Sorted into @u; *@hot is the rank of the first new key.
 * False if that gap cannot hold them.
 */
static bool hotspot_keys(enum ordo_dist d, u64 bulk, u64 n, u64 seed,
			 u64 *u, u64 *hot)
{
	u64 g = bulk / 2, i;

	if (ordo_dataset_gen(d, bulk, seed, ORDO_ORDER_SORTED, u))
		exit(3);
	for (i = bulk / 4 + 1; i < bulk && i <= 3 * bulk / 4; i++)
		if (u[i] - u[i - 1] > u[g] - u[g - 1])
			g = i;
	if (u[g] - u[g - 1] <= n)
		return false;
	memmove(u + g + n, u + g, (bulk - g) * sizeof(u64));
	for (i = 0; i < n; i++)
		u[g + i] = u[g - 1] + 1 + (u64)((unsigned __int128)i *
						(u[g + n] - u[g - 1] - 1) / n);
	*hot = g;
	return true;
}

/*
 * @bulk keys of a data set loaded in random order, then @n more as @how
 * says (appends: the next keys of the set, as time stamps and
 * auto-increment ids arrive), each split retrained by the policy.  False
 * if the set has no room for the stream (a hotspot in a dense set).
 */
static bool run_stream(enum ordo_dist d, enum stream how, u64 bulk, u64 n,
		       u64 seed, struct policy *pc)
{
	u64 total = bulk + n, i, first = 0, r;
	u64 *u = xcalloc(total, sizeof(u64));
	u32 *perm = shuffled_ranks(bulk), *news = shuffled_ranks(n);
	struct ordo_model_params prm;
	struct ordo_model *m;
	struct sim s;

	memset(pc, 0, sizeof(*pc));
	if (how == STREAM_HOTSPOT) {
		if (!hotspot_keys(d, bulk, n, seed, u, &first)) {
			free(u);
			free(perm);
			free(news);
			return false;
		}
	} else if (ordo_dataset_gen(d, total, seed, ORDO_ORDER_SORTED, u)) {
		exit(3);
	}
	/* Descending: the new keys are the lowest n, from rank 0. */
	if (how == STREAM_APPEND)
		first = bulk;
	sim_init(&s, u, total);
	for (i = 0; i < bulk; i++)	/* the stored ranks skip the new ones */
		sim_insert(&s, perm[i] < first ? perm[i] : perm[i] + n);
	ordo_model_params_default(&prm);
	prm.leaf_slots = SLOTS;
	m = policy_full(&s, NULL, &prm, 0, pc);
	pc->full_s = 0;	/* the first model is the bulk load's, not the stream's */
	for (i = 0; i < n; i++) {
		u64 before = s.splits;

		r = how == STREAM_APPEND ? first + i :
		    how == STREAM_DESCEND ? first + n - 1 - i : first + news[i];
		sim_insert(&s, r);
		if (s.splits == before)
			continue;
		pc->splits++;
		m = policy_split(&s, m, &prm, s.u[s.lv[s.nleaves].rlo], pc);
	}
	pc->patch_us_p50 = quantile(pc->patch_ns, pc->npatch_ns, 0.5) / 1e3;
	pc->patch_us_p99 = quantile(pc->patch_ns, pc->npatch_ns, 0.99) / 1e3;
	free(pc->patch_ns);
	region_free(&pc->rg);
	ordo_model_free(m);
	sim_free(&s);
	free(perm);
	free(news);
	free(u);
	return true;
}

/* A policy run's figures; null for a stream the set had no room for. */
static void j_stream(const char *name, u64 bulk, u64 n,
		     const struct policy *pc)
{
	u64 full;

	if (!pc) {
		fprintf(out, "      \"%s\": null,\n", name);
		return;
	}
	full = pc->full_error + pc->full_resize;
	fprintf(out, "      \"%s\": {\"bulk_keys\": %llu, \"keys\": %llu, "
		"\"splits\": %llu, \"patches\": %llu,\n"
		"        \"full_trains\": %llu, \"full_trains_after_error\": "
		"%llu, \"full_trains_resize\": %llu,\n"
		"        \"tail_cuts\": %llu, \"head_cuts\": %llu, "
		"\"middle_cuts\": %llu, "
		"\"tt_grows\": %llu, "
		"\"full_trains_per_1m_%s\": %.1f, "
		"\"patch_us_avg\": %.3f, \"patch_us_p50\": %.3f, "
		"\"patch_us_p99\": %.3f, \"full_train_ms_avg\": %.3f},\n",
		name, (unsigned long long)bulk, (unsigned long long)n,
		(unsigned long long)pc->splits,
		(unsigned long long)pc->patches, (unsigned long long)full,
		(unsigned long long)pc->full_error,
		(unsigned long long)pc->full_resize,
		(unsigned long long)pc->tail_cuts,
		(unsigned long long)pc->head_cuts,
		(unsigned long long)pc->mid_cuts,
		(unsigned long long)pc->tt_grows,
		strcmp(name, "appends") ? "keys" : "appends",
		n ? full * 1e6 / n : 0,
		pc->splits ? pc->patch_s * 1e6 / pc->splits : 0,
		pc->patch_us_p50, pc->patch_us_p99,
		full ? pc->full_s * 1e3 / full : 0);
}

/*
 * Client side: load a region image and spot-check it against the master.
 * The copy, as a client holds it (packed, as libordo keeps it), goes to
 * @cp.
 */
static double client_load(const struct ordo_model *m,
			  const struct ordo_region *rg, u64 size,
			  struct ordo_model **cp)
{
	u8 *img = xcalloc(1, size);
	u64 csize = 1ULL << rg->chunk_shift, off;
	struct ordo_model *c;
	double t;
	u32 i;
	int err;

	for (off = 0; off < size; off += csize)
		memcpy(img + off, rg->chunks[off / csize],
		       size - off < csize ? size - off : csize);
	t = now();
	err = ordo_model_load_image(&c, img, size, true);
	t = now() - t;
	if (err) {
		fprintf(stderr, "model_bench: from_image: %d\n", err);
		exit(3);
	}
	for (i = 0; i < 100000; i++) {
		struct ordo_pred a, b;
		u64 k = rnd();

		if (ordo_model_lookup(m, k, &a) || ordo_model_lookup(c, k, &b) ||
		    ordo_pred_ent(&a, 0).leaf != ordo_pred_ent(&b, 0).leaf ||
		    a.win_lo != b.win_lo ||
		    a.ncand != b.ncand) {
			fprintf(stderr, "model_bench: client copy differs\n");
			exit(3);
		}
	}
	*cp = c;
	free(img);
	return t;
}

/*
 * What a client's copy of @m holds in memory (ordo_model_mem_bytes(): its
 * pivots, sub-models, search levels and packed TT), loaded from the image
 * as libordo loads it.
 */
static u64 client_copy_bytes(const struct ordo_model *m)
{
	struct ordo_model *c;
	struct region rg;
	u64 bytes;

	region_alloc(&rg, ordo_region_bytes(m));
	if (ordo_region_write(&rg.rg, m)) {
		fprintf(stderr, "model_bench: region write failed\n");
		exit(3);
	}
	client_load(m, &rg.rg, ordo_region_bytes(m), &c);
	bytes = ordo_model_mem_bytes(c);
	ordo_model_free(c);
	region_free(&rg);
	return bytes;
}

static void run_dataset(enum ordo_dist d, const struct opts *o, bool first)
{
	u64 total = o->keys + o->keys * o->insert_pct / 100, i;
	u64 *u = xcalloc(total, sizeof(u64));
	u32 *perm;
	struct ordo_model_params prm;
	struct ordo_model *m, *full, *client;
	struct snap a, b;
	struct sim s;
	struct region rg;
	double t, t_write, t_load, t_patch = 0, t_retrain = 0;
	double k200, us_avg, us_p50, us_p99;
	struct lookup_times lk;
	struct policy pcs[STREAM_COUNT];
	bool ran[STREAM_COUNT];
	u64 valid = 0, moved = 0, fallback = 0, probes = 0;
	u32 nsweep = 0, dirty_n = 0, *byno;
	u64 *skeys, send;
	bool bounded;
	static const u32 sweep[] = { 4096, 512, 64, 16, 4, 2 };
	struct { u32 lps, nsub, eps; double pct, win, one; } sw[6];

	fprintf(stderr, "model_bench: %s: generating %llu keys\n",
		ordo_dist_name(d), (unsigned long long)total);
	if (ordo_dataset_gen(d, total, o->seed, ORDO_ORDER_SORTED, u)) {
		fprintf(stderr, "model_bench: generator failed\n");
		exit(3);
	}
	rs = o->seed * 7919 + d;
	perm = shuffled_ranks(total);

	/* Bulk load: o->keys keys in random order. */
	sim_init(&s, u, total);
	t = now();
	for (i = 0; i < o->keys; i++)
		sim_insert(&s, perm[i]);
	fprintf(stderr, "model_bench: %s: bulk load simulated in %.2fs, "
		"%u leaves\n", ordo_dist_name(d), now() - t, s.nleaves);
	snap_take(&s, &a);

	ordo_model_params_default(&prm);
	prm.leaf_slots = SLOTS;
	memset(&mt_a, 0, sizeof(mt_a));
	m = train_timed(&a, &prm, 1, 3, &mt_a.train_s);
	hist_range(&mt_a, m->eps);
	measure(m, &a, o->stride, o->stride, &mt_a);
	if (mt_a.st.wrong) {
		fprintf(stderr, "model_bench: %s: %llu keys mispredicted\n",
			ordo_dist_name(d), (unsigned long long)mt_a.st.wrong);
		exit(3);
	}

	/* Publication: region write and a client's full load. */
	region_alloc(&rg, ordo_region_bytes(m));
	t = now();
	if (ordo_region_write(&rg.rg, m)) {
		fprintf(stderr, "model_bench: region write failed\n");
		exit(3);
	}
	t_write = now() - t;
	t_load = client_load(m, &rg.rg, ordo_region_bytes(m), &client);
	bench_lookup(client, &a, &lk);
	ordo_model_free(client);

	/* Model size vs. window: the trade without fences in the TT. */
	for (nsweep = 0; nsweep < ARRAY_SIZE(sweep); nsweep++) {
		struct ordo_model_params q = prm;
		struct ordo_leaf_set set = snap_set(&a, 0, a.n);
		struct ordo_model_stats st;
		struct ordo_model *x;

		q.leaves_per_sub = sweep[nsweep];
		q.max_sub_leaves = sweep[nsweep] * 8;
		if (ordo_model_train(&x, &set, &q, 1))
			exit(3);
		ordo_model_eval(x, &set, 16, &st);
		sw[nsweep].lps = sweep[nsweep];
		sw[nsweep].nsub = ordo_model_count(x);
		sw[nsweep].eps = x->eps;
		sw[nsweep].pct = 100.0 * st.model_bytes / inner_bytes(a.n);
		sw[nsweep].win = (double)st.win_sum / st.nkeys;
		sw[nsweep].one = (double)st.win_one / st.nkeys;
		ordo_model_free(x);
	}
	bench_retrain200(&a, &k200, &us_avg, &us_p50, &us_p99);

	/* The remaining keys, in random order; note the splits. */
	s.split_cap = 1 << 16;
	s.split_at = xcalloc(s.split_cap, sizeof(u32));
	s.splits = 0;
	for (i = o->keys; i < total; i++)
		sim_insert(&s, perm[i]);
	snap_take(&s, &b);

	/* The stale model against the new leaf level. */
	byno = xcalloc(s.nleaves + 1, sizeof(u32));
	for (i = 0; i < b.n; i++)
		byno[b.lv[i].leaf] = i;
	for (i = 0; i < b.nkeys; i += o->stride) {
		struct ordo_pred pr;
		u64 key = b.keys[i];
		u32 want = snap_find(&b, key), at = 0, c;

		if (ordo_model_lookup(m, key, &pr))
			continue;
		probes++;
		/* As a client: a candidate whose fences hold the key answers. */
		for (c = 0; c < pr.ncand; c++) {
			at = byno[ordo_pred_ent(&pr, c).leaf];
			if (at == want)
				break;
		}
		if (c < pr.ncand) {
			valid++;
		} else if (at + 1 == want) {
			moved++;	/* the last one's right sibling */
		} else {
			fallback++;
		}
	}
	free(byno);

	/*
	 * Retrain only what split, in key order as the module does (a
	 * middle cut renumbers sub-models), and publish each as a patch, or
	 * after a middle cut as a new image.
	 */
	skeys = xcalloc(s.splits ? s.splits : 1, sizeof(u64));
	for (i = 0; i < s.splits; i++)
		skeys[i] = s.u[s.lv[s.split_at[i]].rlo];
	qsort(skeys, s.splits, sizeof(u64), cmp_u64);
	for (i = 0, send = 0, bounded = true; i < s.splits && bounded; i++) {
		struct ordo_leaf_set set;
		u64 slo;
		u32 sub;
		int err;

		if (i && skeys[i] < send)
			continue;
		sub = ordo_model_sub_of(m, skeys[i]);
		bounded = ordo_model_sub_domain(m, sub, &slo, &send);
		dirty_n++;
		set = snap_domain(&b, m, sub);
		t = now();
		err = ordo_model_retrain_sub(m, sub, &set, &prm);
		t_retrain += now() - t;
		if (err) {
			fprintf(stderr, "model_bench: retrain %u: %d\n", sub,
				err);
			exit(3);
		}
		t = now();
		region_fit(&rg, ordo_region_bytes(m));
		err = ordo_region_patch(&rg.rg, m, sub);
		if (err == -EXDEV)
			err = ordo_region_write(&rg.rg, m);
		t_patch += now() - t;
		if (err) {
			fprintf(stderr, "model_bench: patch: %d\n", err);
			exit(3);
		}
	}
	free(skeys);
	memset(&mt_p, 0, sizeof(mt_p));
	measure(m, &b, o->stride, 0, &mt_p);
	mt_p.train_s = t_retrain;
	client_load(m, &rg.rg, ordo_region_bytes(m), &client);
	ordo_model_free(client);

	memset(&mt_b, 0, sizeof(mt_b));
	hist_range(&mt_b, mt_a.eps);
	full = train_timed(&b, &prm, 2, 3, &mt_b.train_s);
	measure(full, &b, o->stride, o->stride, &mt_b);
	if (mt_b.st.wrong) {
		fprintf(stderr, "model_bench: %s: wrong leaves after inserts\n",
			ordo_dist_name(d));
		exit(3);
	}

	for (i = 0; i < STREAM_COUNT; i++)
		ran[i] = run_stream(d, i, o->append_bulk, o->appends, o->seed,
				    &pcs[i]);

	fprintf(out, "%s\n    \"%s\": {\n", first ? "" : ",", ordo_dist_name(d));
	j_metrics("bulk", &mt_a, true, NULL);
	fprintf(out, ",\n");
	j_metrics("after_inserts", &mt_b, true, NULL);
	fprintf(out, ",\n");
	j_metrics("after_inserts_patched", &mt_p, false, NULL);
	fprintf(out, ",\n      \"inserts\": {\"keys\": %llu, \"splits\": %llu, "
		"\"subs_retrained\": %u, \"retrain_us_avg\": %.3f, "
		"\"patch_us_avg\": %.3f,\n"
		"        \"stale_probes\": %llu, \"stale_valid_share\": %.6f, "
		"\"stale_right_link_share\": %.6f, "
		"\"stale_fallback_share\": %.6f},\n",
		(unsigned long long)(total - o->keys),
		(unsigned long long)s.splits, dirty_n,
		dirty_n ? t_retrain * 1e6 / dirty_n : 0,
		dirty_n ? t_patch * 1e6 / dirty_n : 0,
		(unsigned long long)probes, (double)valid / probes,
		(double)moved / probes, (double)fallback / probes);
	fprintf(out, "      \"lookup\": {\"probes\": %llu, \"model_ns\": %.1f, "
		"\"binary_search_ns\": %.1f,\n"
		"        \"model_chained_ns\": %.1f, "
		"\"binary_search_chained_ns\": %.1f, \"rounds\": %d,\n"
		"        \"chained_ratio_min\": %.3f, "
		"\"chained_ratio_max\": %.3f},\n",
		(unsigned long long)lk.probes, lk.model_ns, lk.bsearch_ns,
		lk.model_chained_ns, lk.bsearch_chained_ns, LOOKUP_ROUNDS,
		lk.chained_ratio_lo, lk.chained_ratio_hi);
	for (i = 0; i < STREAM_COUNT; i++)
		j_stream(stream_names[i], o->append_bulk, o->appends,
			 ran[i] ? &pcs[i] : NULL);
	fprintf(out, "      \"publication\": {\"region_write_s\": %.6f, "
		"\"client_load_s\": %.6f},\n", t_write, t_load);
	fprintf(out, "      \"retrain_200\": {\"keys_per_sub\": %.1f, "
		"\"us_avg\": %.3f, \"us_p50\": %.3f, \"us_p99\": %.3f},\n",
		k200, us_avg, us_p50, us_p99);
	fprintf(out, "      \"model_size_sweep\": [");
	for (i = 0; i < nsweep; i++)
		fprintf(out, "%s\n        {\"leaves_per_sub\": %u, "
			"\"sub_models\": %u, \"eps_leaves\": %.4f, "
			"\"model_pct_of_inner\": %.4f, "
			"\"window_leaves_avg\": %.4f, "
			"\"window_one_leaf_share\": %.6f}", i ? "," : "",
			sw[i].lps, sw[i].nsub, sw[i].eps / 256.0, sw[i].pct,
			sw[i].win, sw[i].one);
	fprintf(out, "\n      ]\n    }");
	fflush(out);

	ordo_model_free(m);
	ordo_model_free(full);
	region_free(&rg);
	snap_free(&a);
	snap_free(&b);
	sim_free(&s);
	free(perm);
	free(u);
}

/* Linear keys loaded in key order: half-full leaves, the worst fill. */
static void run_sorted_load(const struct opts *o)
{
	u64 *u = xcalloc(o->keys, sizeof(u64));
	struct ordo_model_params prm;
	struct ordo_model *m;
	struct metrics mt;
	struct snap a;

	if (ordo_dataset_gen(ORDO_DIST_LINEAR, o->keys, o->seed,
			     ORDO_ORDER_SORTED, u))
		exit(3);
	snap_sorted_load(u, o->keys, &a);
	ordo_model_params_default(&prm);
	memset(&mt, 0, sizeof(mt));
	m = train_timed(&a, &prm, 1, 1, &mt.train_s);
	measure(m, &a, o->stride, 0, &mt);
	fprintf(out, ",\n    \"linear_key_order_load\": {\n");
	j_metrics("bulk", &mt, false, NULL);
	fprintf(out, "\n    }");
	ordo_model_free(m);
	snap_free(&a);
	free(u);
}

static void usage(void)
{
	fprintf(stderr,
		"usage: model_bench [--keys N] [--insert-pct P] [--seed S]\n"
		"                   [--dist NAME]... [--stride K] [--json FILE]\n"
		"                   [--appends N] [--append-bulk N]\n");
	exit(2);
}

int main(int argc, char **argv)
{
	static const struct option lo[] = {
		{ "keys", required_argument, NULL, 'n' },
		{ "insert-pct", required_argument, NULL, 'i' },
		{ "seed", required_argument, NULL, 's' },
		{ "dist", required_argument, NULL, 'd' },
		{ "stride", required_argument, NULL, 'k' },
		{ "json", required_argument, NULL, 'j' },
		{ "appends", required_argument, NULL, 'a' },
		{ "append-bulk", required_argument, NULL, 'b' },
		{ NULL, 0, NULL, 0 },
	};
	struct opts o = { 10000000, 20, 1, 1, 1000000, 100000 };
	bool want[ORDO_DIST_COUNT] = { false }, any = false, first = true;
	struct ordo_model_params prm;
	enum ordo_dist d;
	int c;

	out = stdout;
	while ((c = getopt_long(argc, argv, "", lo, NULL)) != -1) {
		switch (c) {
		case 'n':
			o.keys = strtoull(optarg, NULL, 0);
			break;
		case 'i':
			o.insert_pct = strtoul(optarg, NULL, 0);
			break;
		case 's':
			o.seed = strtoull(optarg, NULL, 0);
			break;
		case 'k':
			o.stride = strtoul(optarg, NULL, 0);
			break;
		case 'a':
			o.appends = strtoull(optarg, NULL, 0);
			break;
		case 'b':
			o.append_bulk = strtoull(optarg, NULL, 0);
			break;
		case 'd':
			if (ordo_dist_parse(optarg, &d))
				usage();
			want[d] = any = true;
			break;
		case 'j':
			out = fopen(optarg, "w");
			if (!out) {
				perror(optarg);
				return 3;
			}
			break;
		default:
			usage();
		}
	}
	if (o.keys < 100 || !o.stride || o.keys > (1ULL << 31) ||
	    o.append_bulk < 100 || o.append_bulk + o.appends > (1ULL << 31))
		usage();
	ordo_model_params_default(&prm);
	fprintf(out, "{\n  \"config\": {\"keys\": %llu, \"insert_pct\": %u, "
		"\"seed\": %llu, \"leaf_slots\": %u, \"node_size\": %u, "
		"\"inner_fanout\": %u, \"stride\": %u,\n"
		"    \"appends\": %llu, \"append_bulk\": %llu,\n"
		"    \"fill\": \"bulk load = inserts in random order into "
		"16-slot leaves, full leaves split in half\",\n"
		"    \"params\": {\"leaves_per_sub\": %u, \"max_sub_leaves\": %u, "
		"\"tt_slack_pct\": %u, \"tt_spare_pct\": %u},\n"
		"    \"tt_entry_bytes\": %d, \"desc_bytes\": %d, "
		"\"tt_entry\": \"leaf, %d-bit fence code, tie flag, "
		"8 incarnation bits\"},\n"
		"  \"targets\": {\"leaves_per_get\": 1.05, "
		"\"client_bytes_per_key\": 0.75, \"client_pct_of_inner\": 50, "
		"\"train_keys_per_s\": 20000000, \"retrain_200_us\": 10, "
		"\"full_trains_per_1m_appends\": 10},\n  \"datasets\": {",
		(unsigned long long)o.keys, o.insert_pct,
		(unsigned long long)o.seed, SLOTS, NODE_SIZE, FANOUT, o.stride,
		(unsigned long long)o.appends,
		(unsigned long long)o.append_bulk,
		prm.leaves_per_sub, prm.max_sub_leaves, prm.tt_slack_pct,
		prm.tt_spare_pct, ORDO_TT_ENTRY_SIZE, ORDO_MODEL_DESC_SIZE,
		ORDO_TT_CODE_BITS);
	for (d = 0; d < ORDO_DIST_COUNT; d++) {
		if (any && !want[d])
			continue;
		run_dataset(d, &o, first);
		first = false;
	}
	if (!any || want[ORDO_DIST_LINEAR])
		run_sorted_load(&o);
	fprintf(out, "\n  }\n}\n");
	if (out != stdout)
		fclose(out);
	return 0;
}
