// SPDX-License-Identifier: GPL-2.0
/*
 * Retirement of empty leaves (ordo_tree_retire_empty()): deterministic
 * shapes (leftmost leaf, first and only children, the rightmost leaf), the
 * leaf iterator's clipping, GET and SCAN across retired ranges, node reuse
 * against stale TT entries and remote copies, memory reuse under churn, and
 * a concurrent run of writers, readers of every kind and a retirer.
 *
 * Usage: retire_test [-s SEED] [-q]
 *   -s SEED  seed of the randomized parts (default 1)
 *   -q       shorter concurrent run
 * Prints TAP; exits non-zero on any failure.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <getopt.h>
#include <inttypes.h>
#include <time.h>

#include "compat.h"
#include "node.h"
#include "pool.h"
#include "tree.h"
#include "core_test.h"
#include <linux/ordo_model.h>

static u64 seed = 1;
static bool quick;

static int tree_new(struct ordo_tree *t, u32 slots, u32 vs, u64 max_bytes)
{
	struct ordo_tree_params p;

	ordo_tree_default_params(&p);
	p.leaf_slots = slots;
	p.value_size = vs;
	p.chunk_size = 1 << 16;
	p.max_bytes = max_bytes;
	p.ops = &chunk_ops;
	return ordo_tree_init(t, &p);
}

static u64 mix(u64 z)
{
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

static u64 rnd(u64 *s)
{
	return mix(*s += 0x9e3779b97f4a7c15ULL);
}

/* A value names its key and a sequence number (never 0). */
static void vfill(void *buf, u32 vs, u64 key, u32 seq)
{
	u64 *w = buf;
	u32 i;

	w[0] = (u64)seq << 32 | (u32)mix(key ^ seq);
	for (i = 1; i < vs / 8; i++)
		w[i] = mix(key + i * 0x9e3779b97f4a7c15ULL + seq);
}

/* Return: the sequence number of a value of @key, or 0 if it is not one. */
static u32 vcheck(const void *buf, u32 vs, u64 key)
{
	const u64 *w = buf;
	u32 seq = w[0] >> 32, i;

	if (!seq || (u32)w[0] != (u32)mix(key ^ seq))
		return 0;
	for (i = 1; i < vs / 8; i++)
		if (w[i] != mix(key + i * 0x9e3779b97f4a7c15ULL + seq))
			return 0;
	return seq;
}

static int cmp_u64(const void *a, const void *b)
{
	u64 x = *(const u64 *)a, y = *(const u64 *)b;

	return x < y ? -1 : x > y;
}

/* n distinct random keys, sorted. */
static u64 *random_keys(u64 *rs, u32 *n)
{
	u64 *k = malloc(sizeof(u64) * *n);
	u32 i, j;

	for (i = 0; i < *n; i++)
		k[i] = rnd(rs) >> 1;
	qsort(k, *n, sizeof(u64), cmp_u64);
	for (i = 1, j = 1; i < *n; i++)
		if (k[i] != k[j - 1])
			k[j++] = k[i];
	*n = j;
	return k;
}

static struct ordo_node_hdr *nd(struct ordo_tree *t, u32 n)
{
	return ordo_pool_node(&t->pool, n);
}

static u64 lo_of(struct ordo_tree *t, u32 n)
{
	return le64_to_cpu(nd(t, n)->low_key);
}

static u64 hi_of(struct ordo_tree *t, u32 n)
{
	return le64_to_cpu(nd(t, n)->high_key);
}

static u32 inca_of(struct ordo_tree *t, u32 n)
{
	return le32_to_cpu(nd(t, n)->incarnation);
}

static u32 cnt_of(struct ordo_tree *t, u32 n)
{
	return le16_to_cpu(nd(t, n)->count);
}

static u32 child_of(struct ordo_tree *t, u32 p, u32 i)
{
	return le32_to_cpu(ordo_inner_cchildren(nd(t, p), &t->geo)[i]);
}

static u64 nodes_max(struct ordo_tree *t)
{
	return (u64)t->pool.max_chunks * t->pool.nodes_per_chunk;
}

/* Leaf covering @key (quiescent tree). */
static u32 leaf_at(struct ordo_tree *t, u64 key)
{
	struct ordo_leaf_iter it;
	struct ordo_leaf_snap s;
	u32 n = 0;

	if (ordo_leaf_iter_start(&it, t, key))
		return 0;
	if (ordo_leaf_iter_next(&it, &s) == 1)
		n = s.node_no;
	ordo_leaf_iter_end(&it);
	return n;
}

/* Level-1 node covering @key and the index of the entry for @key. */
static u32 parent_at(struct ordo_tree *t, u64 key, u32 *idx)
{
	u32 n = t->root;

	for (;;) {
		struct ordo_node_hdr *h = nd(t, n);
		u32 cnt = le16_to_cpu(h->count), i;

		if ((h->flags & ORDO_NODE_F_HAS_HIGH) &&
		    key >= le64_to_cpu(h->high_key)) {
			n = le32_to_cpu(h->right);
			continue;
		}
		i = ordo_keys_upper_bound(ordo_node_ckeys(h), cnt, key) - 1;
		if (h->level == 1) {
			*idx = i;
			return n;
		}
		n = child_of(t, n, i);
	}
}

/* Trainer hooks: counts and, when single-threaded, checks of the heir. */
struct hooklog {
	struct ordo_tree *t;
	bool inspect;
	u64 splits, retired, left_merges, right_merges, bad, reused;
	u32 last_heir, last_gone;
	u64 last_low;
	u8 *was_retired;	/* node numbers ever retired */
};

static void on_split(void *ctx, u32 left, u32 right, u64 sep)
{
	struct hooklog *l = ctx;

	(void)left;
	(void)sep;
	__atomic_fetch_add(&l->splits, 1, __ATOMIC_RELAXED);
	if (l->was_retired &&
	    __atomic_load_n(&l->was_retired[right], __ATOMIC_RELAXED))
		__atomic_fetch_add(&l->reused, 1, __ATOMIC_RELAXED);
}

static void on_retire(void *ctx, u32 heir, u32 gone, u64 low)
{
	struct hooklog *l = ctx;

	__atomic_fetch_add(&l->retired, 1, __ATOMIC_RELAXED);
	if (l->was_retired)
		__atomic_store_n(&l->was_retired[gone], 1, __ATOMIC_RELAXED);
	l->last_heir = heir;
	l->last_gone = gone;
	l->last_low = low;
	if (!l->inspect)
		return;
	/* Nothing runs concurrently: the heir must cover the range. */
	if (!(nd(l->t, gone)->flags & ORDO_NODE_F_FREE) ||
	    nd(l->t, heir)->flags & ORDO_NODE_F_FREE || nd(l->t, heir)->level)
		l->bad++;
	else if (lo_of(l->t, heir) == low)
		l->right_merges++;
	else if (lo_of(l->t, heir) < low)
		l->left_merges++;
	else
		l->bad++;
}

static void hooks_init(struct ordo_tree *t, struct ordo_tree_hooks *hk,
		       struct hooklog *log, bool inspect)
{
	memset(log, 0, sizeof(*log));
	log->t = t;
	log->inspect = inspect;
	log->was_retired = calloc(nodes_max(t), 1);
	hk->leaf_split = on_split;
	hk->leaf_retired = on_retire;
	hk->ctx = log;
	ordo_tree_set_hooks(t, hk);
}

static void hooks_done(struct ordo_tree *t, struct hooklog *log)
{
	ordo_tree_set_hooks(t, NULL);
	free(log->was_retired);
	log->was_retired = NULL;
}

/* Retire until nothing more goes; return the total. */
static u64 retire_all(struct ordo_tree *t)
{
	u64 total = 0;
	u32 got;

	do {
		if (ordo_tree_retire_empty(t, 1000, &got))
			return ~0ULL;
		total += got;
	} while (got);
	return total;
}

struct shape {
	u64 leaves, inner, level1, only_children, empty;
};

/*
 * Structural invariants of a quiescent tree: every level is a chain of
 * live nodes whose fences tile the key space; every inner entry (k, c)
 * names a live node one level down with low fence k; every leaf has
 * exactly one entry; the counters and the pool's accounting agree; the
 * free list holds FREE nodes only.  With @fixpoint, every empty leaf is
 * the leftmost one or the only child of its parent.
 */
static int check_structure(struct ordo_tree *t, struct shape *sh,
			   bool fixpoint)
{
	const struct ordo_geo *g = &t->geo;
	u8 *ref = calloc(nodes_max(t), 1);
	struct ordo_tree_stats st;
	u32 first = t->root, lvl, n, nfree = 0;
	int level = t->height - 1;

	CHECK(ref);
	memset(sh, 0, sizeof(*sh));
	ordo_tree_get_stats(t, &st);
	for (lvl = level; ; lvl--) {
		u64 prev_high = 0;
		u32 next_first = 0;
		bool have_prev = false;

		if (!lvl)
			CHECK_EQ(first, t->leftmost);
		for (n = first; n;) {
			struct ordo_node_hdr *h = nd(t, n);
			const __le64 *k = ordo_node_ckeys(h);
			u32 cnt = le16_to_cpu(h->count), i;
			u64 low = le64_to_cpu(h->low_key);
			u64 high = le64_to_cpu(h->high_key);
			bool has_high = h->flags & ORDO_NODE_F_HAS_HIGH;

			CHECK_EQ(ordo_node_validate_part(h,
				ordo_node_read_size(g, lvl), g), 0);
			CHECK_EQ(le32_to_cpu(h->node_no), n);
			CHECK_EQ(h->level, lvl);
			CHECK(!(h->flags & (ORDO_NODE_F_FREE | ORDO_NODE_F_SUPER)));
			CHECK_EQ(low, have_prev ? prev_high : 0);
			for (i = 0; i < cnt; i++) {
				u64 ki = lvl ? le64_to_cpu(k[i]) :
					       ordo_leaf_key(h, g, i);

				CHECK(ki >= low);
				CHECK(!has_high || ki < high);
				CHECK(!i || (lvl ? le64_to_cpu(k[i - 1]) :
					     ordo_leaf_key(h, g, i - 1)) < ki);
			}
			if (lvl) {
				CHECK(cnt >= 1);
				CHECK_EQ(le64_to_cpu(k[0]), low);
				if (!next_first)
					next_first = child_of(t, n, 0);
				for (i = 0; i < cnt; i++) {
					u32 c = child_of(t, n, i);
					struct ordo_node_hdr *ch = nd(t, c);

					CHECK(ch && ch->level == lvl - 1);
					CHECK(!(ch->flags & ORDO_NODE_F_FREE));
					CHECK_EQ(le64_to_cpu(ch->low_key),
						 le64_to_cpu(k[i]));
					CHECK(!ref[c]);
					ref[c] = cnt == 1 ? 2 : 1;
				}
				sh->inner++;
				if (lvl == 1) {
					sh->level1++;
					sh->only_children += cnt == 1;
				}
			} else {
				sh->leaves++;
				if (t->height > 1 && !st.unlinked_splits)
					CHECK(ref[n]);
				if (!cnt) {
					sh->empty++;
					if (fixpoint)
						CHECK(n == t->leftmost ||
						      ref[n] == 2);
				}
			}
			if (!has_high) {
				CHECK_EQ(le32_to_cpu(h->right), 0);
				break;
			}
			CHECK(high > low);
			prev_high = high;
			have_prev = true;
			n = le32_to_cpu(h->right);
		}
		if (!lvl)
			break;
		first = next_first;
	}
	CHECK_EQ(st.leaves, sh->leaves);
	CHECK_EQ(st.inner_nodes, sh->inner);
	CHECK_EQ(ordo_pool_nodes_used(&t->pool), 1 + sh->leaves + sh->inner);
	for (n = t->pool.free_head; n; n = le32_to_cpu(nd(t, n)->right)) {
		CHECK(nd(t, n)->flags & ORDO_NODE_F_FREE);
		CHECK(!ref[n]);
		CHECK(++nfree <= t->pool.nr_free);
	}
	CHECK_EQ(nfree, t->pool.nr_free);
	free(ref);
	return 0;
}

/* The whole store equals @keys[0..n) with values of sequence @seq[i]. */
static int check_contents(struct ordo_tree *t, const u64 *keys,
			  const u32 *seq, u32 n)
{
	u32 vs = t->geo.value_size, present = 0, i, j = 0;
	u64 *got = malloc(sizeof(u64) * (n + 1));
	u8 *vals = malloc((size_t)vs * (n + 1)), *v = malloc(vs);
	struct ordo_tree_stats st;
	int r;

	CHECK(got && vals && v);
	for (i = 0; i < n; i++)
		present += !!seq[i];
	r = ordo_tree_scan(t, 0, n + 1, got, vals);
	CHECK_EQ(r, present);
	for (i = 0; i < n; i++) {
		int err = ordo_tree_get(t, keys[i], v);

		if (!seq[i]) {
			CHECK_EQ(err, -ENOENT);
			continue;
		}
		CHECK_EQ(err, 0);
		CHECK_EQ(vcheck(v, vs, keys[i]), seq[i]);
		CHECK(got[j] == keys[i]);
		CHECK_EQ(vcheck(vals + (size_t)j * vs, vs, keys[i]), seq[i]);
		j++;
	}
	ordo_tree_get_stats(t, &st);
	CHECK_EQ(st.keys, present);
	free(got);
	free(vals);
	free(v);
	return 0;
}

/*
 * Leaf iteration from 0: the snapshots tile the key space, keys lie in
 * their snapshot's fences, and there are as many as the stats say.
 */
static int check_iter(struct ordo_tree *t, u64 nkeys)
{
	struct ordo_tree_stats st;
	struct ordo_leaf_iter it;
	struct ordo_leaf_snap s;
	u64 prev = 0, leaves = 0, total = 0;
	u32 i;
	int r;

	CHECK(!ordo_leaf_iter_start(&it, t, 0));
	while ((r = ordo_leaf_iter_next(&it, &s)) == 1) {
		CHECK_EQ(s.low_key, prev);
		CHECK(!s.clipped);
		for (i = 0; i < s.count; i++)
			CHECK(s.keys[i] >= s.low_key &&
			      (!s.has_high || s.keys[i] < s.high_key));
		leaves++;
		total += s.count;
		prev = s.high_key;
	}
	CHECK_EQ(r, 0);
	ordo_leaf_iter_end(&it);
	ordo_tree_get_stats(t, &st);
	CHECK_EQ(leaves, st.leaves);
	CHECK_EQ(total, nkeys);
	return 0;
}

static int t_small_trees(void)
{
	struct ordo_tree t;
	struct shape sh;
	u64 v = 1, i;
	u32 got = 7;

	CHECK(!tree_new(&t, 4, 8, 1 << 20));
	/* A single leaf (height 1): nothing to retire, no matter what. */
	CHECK_EQ(ordo_tree_retire_empty(&t, 10, &got), 0);
	CHECK_EQ(got, 0);
	for (i = 0; i < 4; i++)
		CHECK(!ordo_tree_put(&t, i, &v));
	for (i = 0; i < 4; i++)
		CHECK(!ordo_tree_delete(&t, i));
	CHECK_EQ(ordo_tree_retire_empty(&t, 10, NULL), 0);
	/* Five keys: two leaves under a root, [0, 4) and [4, ...). */
	for (i = 0; i < 5; i++)
		CHECK(!ordo_tree_put(&t, i, &v));
	CHECK_EQ(t.height, 2);
	/* max 0 does nothing. */
	for (i = 0; i < 5; i++)
		CHECK(!ordo_tree_delete(&t, i));
	CHECK_EQ(ordo_tree_retire_empty(&t, 0, &got), 0);
	CHECK_EQ(got, 0);
	/* Leaves [0, 4) (leftmost) and [4, ...): the second goes. */
	CHECK_EQ(ordo_tree_retire_empty(&t, 10, &got), 0);
	CHECK_EQ(got, 1);
	CHECK_EQ(retire_all(&t), 0);
	CHECK(!check_structure(&t, &sh, true));
	CHECK_EQ(sh.leaves, 1);
	CHECK(!(nd(&t, t.leftmost)->flags & ORDO_NODE_F_HAS_HIGH));
	for (i = 0; i < 100; i++)
		CHECK(!ordo_tree_put(&t, i * 3, &v));
	CHECK(!check_iter(&t, 100));
	CHECK(!check_structure(&t, &sh, false));
	ordo_tree_destroy(&t);
	return 0;
}

/*
 * Ascending keys 0..n-1 in 4-slot leaves: leaf i holds [4i, 4i + 4) and
 * level-1 nodes are full (5 entries), so shapes can be picked by key.
 */
static int t_shapes(void)
{
	struct ordo_tree_hooks hk;
	struct hooklog log;
	struct ordo_tree t;
	struct shape sh;
	/* Enough 4-key leaves for several parents of up to 330 children. */
	u32 n = 4000, p, idx, lp, l, r, inc, inc2, pcnt, got, freed, next0;
	u64 i, p2low, p2high, k;
	u32 *seq = calloc(n, sizeof(u32));
	u64 *keys = malloc(sizeof(u64) * n), nfree;
	u8 val[8];

	CHECK(seq && keys);
	CHECK(!tree_new(&t, 4, 8, 8 << 20));
	hooks_init(&t, &hk, &log, true);
	for (i = 0; i < n; i++) {
		keys[i] = i;
		seq[i] = 1;
		vfill(val, 8, i, 1);
		CHECK(!ordo_tree_insert(&t, i, val));
	}
	CHECK(t.height >= 3);
	CHECK(!check_structure(&t, &sh, false));
	CHECK_EQ(sh.leaves, n / 4);

	/* The leftmost leaf stays, empty. */
	for (i = 0; i < 4; i++) {
		CHECK(!ordo_tree_delete(&t, i));
		seq[i] = 0;
	}
	CHECK_EQ(retire_all(&t), 0);
	CHECK_EQ(cnt_of(&t, t.leftmost), 0);
	CHECK_EQ(leaf_at(&t, 0), t.leftmost);

	/* A first child (not the leftmost): its right neighbour takes it. */
	for (k = 4; k < n; k += 4) {
		p = parent_at(&t, k, &idx);
		if (idx == 0 && k != 0 && cnt_of(&t, p) >= 3)
			break;
	}
	CHECK(k < n);
	l = leaf_at(&t, k);
	r = leaf_at(&t, k + 4);
	lp = leaf_at(&t, k - 1);
	CHECK_EQ(child_of(&t, p, 0), l);
	CHECK_EQ(child_of(&t, p, 1), r);
	pcnt = cnt_of(&t, p);
	inc = inca_of(&t, r);
	inc2 = inca_of(&t, lp);
	for (i = k; i < k + 4; i++) {
		CHECK(!ordo_tree_delete(&t, i));
		seq[i] = 0;
	}
	CHECK_EQ(ordo_tree_retire_empty(&t, 100, &got), 0);
	CHECK_EQ(got, 1);
	CHECK_EQ(log.last_gone, l);
	CHECK_EQ(log.last_heir, r);
	CHECK_EQ(log.last_low, k);
	CHECK_EQ(log.right_merges, 1);
	CHECK(nd(&t, l)->flags & ORDO_NODE_F_FREE);
	CHECK_EQ(lo_of(&t, r), k);
	CHECK_EQ(hi_of(&t, r), k + 8);
	CHECK(inca_of(&t, r) != inc);
	/* The left neighbour keeps its range and incarnation. */
	CHECK_EQ(inca_of(&t, lp), inc2);
	CHECK_EQ(le32_to_cpu(nd(&t, lp)->right), r);
	CHECK_EQ(hi_of(&t, lp), k);
	CHECK_EQ(cnt_of(&t, p), pcnt - 1);
	CHECK_EQ(child_of(&t, p, 0), r);
	CHECK_EQ(leaf_at(&t, k), r);
	CHECK_EQ(t.pool.nr_free, 1);
	CHECK_EQ(t.pool.free_head, l);
	CHECK(!check_structure(&t, &sh, false));
	CHECK(!check_contents(&t, keys, seq, n));

	/* A middle child: its left neighbour takes it. */
	k += 4 * 8;
	p = parent_at(&t, k, &idx);
	if (idx == 0)
		k += 4;
	p = parent_at(&t, k, &idx);
	CHECK(idx > 0);
	l = leaf_at(&t, k);
	lp = leaf_at(&t, k - 1);
	r = le32_to_cpu(nd(&t, l)->right);
	inc = inca_of(&t, lp);
	pcnt = cnt_of(&t, p);
	for (i = k; i < k + 4; i++) {
		CHECK(!ordo_tree_delete(&t, i));
		seq[i] = 0;
	}
	CHECK_EQ(ordo_tree_retire_empty(&t, 100, &got), 0);
	CHECK_EQ(got, 1);
	CHECK_EQ(log.last_gone, l);
	CHECK_EQ(log.last_heir, lp);
	CHECK_EQ(log.left_merges, 1);
	CHECK_EQ(hi_of(&t, lp), k + 4);
	CHECK_EQ(le32_to_cpu(nd(&t, lp)->right), r);
	CHECK(inca_of(&t, lp) != inc);
	CHECK_EQ(cnt_of(&t, p), pcnt - 1);
	CHECK_EQ(leaf_at(&t, k), lp);
	CHECK(!check_structure(&t, &sh, false));

	/* The rightmost leaf: its left neighbour becomes the rightmost. */
	l = leaf_at(&t, n - 1);
	lp = leaf_at(&t, n - 5);
	p = parent_at(&t, n - 4, &idx);
	CHECK(idx > 0);
	for (i = n - 4; i < n; i++) {
		CHECK(!ordo_tree_delete(&t, i));
		seq[i] = 0;
	}
	CHECK_EQ(ordo_tree_retire_empty(&t, 100, &got), 0);
	CHECK_EQ(got, 1);
	CHECK_EQ(log.last_heir, lp);
	CHECK(!(nd(&t, lp)->flags & ORDO_NODE_F_HAS_HIGH));
	CHECK_EQ(le32_to_cpu(nd(&t, lp)->right), 0);
	CHECK_EQ(ordo_tree_get(&t, U64_MAX, NULL), -ENOENT);
	CHECK(!check_structure(&t, &sh, false));

	/*
	 * Every child of one parent whose keys are all still there: one
	 * leaf stays, the only child.
	 */
	for (k = 0; k < n; k = p2high) {
		p = parent_at(&t, k, &idx);
		p2low = lo_of(&t, p);
		p2high = hi_of(&t, p);
		if (!(nd(&t, p)->flags & ORDO_NODE_F_HAS_HIGH) ||
		    p2high >= n) {
			k = n;
			break;
		}
		for (i = p2low; i < p2high && seq[i]; i++)
			;
		if (i == p2high)
			break;
	}
	CHECK(k < n);
	for (i = p2low; i < p2high; i++) {
		CHECK(!ordo_tree_delete(&t, i));
		seq[i] = 0;
	}
	freed = retire_all(&t);
	CHECK_EQ(freed, (p2high - p2low) / 4 - 1);
	CHECK_EQ(cnt_of(&t, p), 1);
	l = child_of(&t, p, 0);
	CHECK_EQ(lo_of(&t, l), p2low);
	CHECK_EQ(hi_of(&t, l), p2high);
	CHECK_EQ(cnt_of(&t, l), 0);
	CHECK(!check_structure(&t, &sh, true));
	CHECK(!check_contents(&t, keys, seq, n));
	for (i = 0, k = 0; i < n; i++)
		k += !!seq[i];
	CHECK(!check_iter(&t, k));
	CHECK_EQ(log.bad, 0);

	/* Keys back into every retired range: splits reuse freed nodes. */
	nfree = t.pool.nr_free;
	CHECK(nfree >= 4);
	next0 = t.pool.next;
	for (i = 0; i < n; i++) {
		if (seq[i])
			continue;
		vfill(val, 8, i, 2);
		CHECK(!ordo_tree_insert(&t, i, val));
		seq[i] = 2;
		CHECK(t.pool.nr_free == 0 || t.pool.next == next0);
	}
	CHECK(log.reused > 0);
	CHECK_EQ(t.pool.nr_free, 0);
	CHECK(!check_contents(&t, keys, seq, n));
	CHECK(!check_structure(&t, &sh, false));
	CHECK(!check_iter(&t, n));
	CHECK_EQ(log.bad, 0);
	hooks_done(&t, &log);
	ordo_tree_destroy(&t);
	free(seq);
	free(keys);
	return 0;
}

/*
 * A leaf whose split is still posting its separator is left alone: were
 * its entry removed meanwhile, the late post (after a root growth listed
 * the leaf) would add back an entry naming a retired node.  The test holds
 * the counter a split in flight holds (white box: the race itself needs a
 * root growth from a leaf between a split and its post).
 */
static int t_post_in_flight(void)
{
	struct ordo_tree t;
	u32 idx, l, lp, r, got, slot;
	u64 v = 0, i, k;

	CHECK(!tree_new(&t, 4, 8, 8 << 20));
	for (i = 0; i < 4000; i++)
		CHECK(!ordo_tree_insert(&t, i, &v));
	/* A middle child and a first child. */
	for (k = 8; parent_at(&t, k, &idx) && idx == 0; k += 4)
		;
	l = leaf_at(&t, k);
	lp = leaf_at(&t, k - 4);
	for (i = k; i < k + 4; i++)
		CHECK(!ordo_tree_delete(&t, i));
	slot = l % ORDO_TREE_POST_SLOTS;
	atomic_inc(&t.posting[slot]);
	CHECK_EQ(ordo_tree_retire_empty(&t, 10, &got), 0);
	CHECK_EQ(got, 0);
	CHECK(!(nd(&t, l)->flags & ORDO_NODE_F_FREE));
	CHECK_EQ(le32_to_cpu(nd(&t, lp)->right), l);
	atomic_dec(&t.posting[slot]);
	CHECK_EQ(ordo_tree_retire_empty(&t, 10, &got), 0);
	CHECK_EQ(got, 1);
	CHECK(nd(&t, l)->flags & ORDO_NODE_F_FREE);
	/* First child: its right neighbour's entry moves, so R counts too. */
	for (k = 4; k < 4000; k += 4)
		if (parent_at(&t, k, &idx) && idx == 0)
			break;
	CHECK(k < 4000);
	l = leaf_at(&t, k);
	r = leaf_at(&t, k + 4);
	for (i = k; i < k + 4; i++)
		CHECK(!ordo_tree_delete(&t, i));
	if (r % ORDO_TREE_POST_SLOTS != l % ORDO_TREE_POST_SLOTS) {
		slot = r % ORDO_TREE_POST_SLOTS;
		atomic_inc(&t.posting[slot]);
		CHECK_EQ(ordo_tree_retire_empty(&t, 10, &got), 0);
		CHECK_EQ(got, 0);
		atomic_dec(&t.posting[slot]);
	}
	CHECK_EQ(ordo_tree_retire_empty(&t, 10, &got), 0);
	CHECK_EQ(got, 1);
	CHECK_EQ(lo_of(&t, r), k);
	ordo_tree_destroy(&t);
	return 0;
}

/*
 * Mass deletes over random keys, then retirement to the fixpoint, in
 * passes of various sizes (the cursor resumes and wraps around).
 */
static int t_mass_delete(void)
{
	struct ordo_tree_hooks hk;
	struct ordo_tree_stats st, st2;
	struct hooklog log;
	struct ordo_tree t;
	struct shape sh;
	u64 rs = seed * 7 + 1, total = 0;
	u32 n = 30000, i, got, calls = 0, *seq;
	u64 *keys = random_keys(&rs, &n);
	u8 val[16];

	seq = calloc(n, sizeof(u32));
	CHECK(keys && seq);
	CHECK(!tree_new(&t, 4, 16, 64 << 20));
	hooks_init(&t, &hk, &log, true);
	for (i = 0; i < n; i++) {
		vfill(val, 16, keys[i], 1);
		CHECK(!ordo_tree_put(&t, keys[i], val));
		seq[i] = 1;
	}
	ordo_tree_get_stats(&t, &st);
	/* Keep one key in 40, and every key of one stretch. */
	for (i = 0; i < n; i++) {
		if (i % 40 == 7 || (i > n / 2 && i < n / 2 + 500))
			continue;
		CHECK(!ordo_tree_delete(&t, keys[i]));
		seq[i] = 0;
	}
	CHECK(!check_contents(&t, keys, seq, n));
	/* Small passes first: each retires at most its max. */
	for (i = 0; i < 50; i++) {
		CHECK_EQ(ordo_tree_retire_empty(&t, 1 + i % 3, &got), 0);
		CHECK(got <= 1 + i % 3);
		CHECK(got > 0);
		total += got;
		calls++;
	}
	total += retire_all(&t);
	ordo_tree_get_stats(&t, &st2);
	CHECK_EQ(st2.leaves_retired, total);
	CHECK_EQ(log.retired, total);
	CHECK_EQ(st2.leaves + total, st.leaves);
	CHECK(st2.leaves * 4 < st.leaves);
	CHECK(log.left_merges > 0 && log.right_merges > 0);
	CHECK_EQ(log.bad, 0);
	CHECK_EQ(st2.pool_bytes_used + total * t.geo.node_size,
		 st.pool_bytes_used);
	CHECK(!check_structure(&t, &sh, true));
	CHECK(!check_contents(&t, keys, seq, n));
	CHECK(!check_iter(&t, st2.keys));
	printf("# %u keys: %" PRIu64 " leaves, %" PRIu64 " after deletes and "
	       "%u small passes: %" PRIu64 " retired (%" PRIu64 " into the "
	       "left, %" PRIu64 " into the right neighbour), %" PRIu64
	       " empty kept\n", n, st.leaves, st2.leaves, calls, total,
	       log.left_merges, log.right_merges, sh.empty);
	/* Delete everything: one leaf per level-1 node is left. */
	for (i = 0; i < n; i++) {
		if (seq[i])
			CHECK(!ordo_tree_delete(&t, keys[i]));
		seq[i] = 0;
	}
	retire_all(&t);
	CHECK(!check_structure(&t, &sh, true));
	CHECK_EQ(sh.leaves, sh.level1);
	CHECK_EQ(sh.only_children, sh.level1);
	CHECK(!check_contents(&t, keys, seq, n));
	/* Everything back. */
	for (i = 0; i < n; i++) {
		vfill(val, 16, keys[i], 3);
		CHECK(!ordo_tree_insert(&t, keys[i], val));
		seq[i] = 3;
	}
	CHECK(!check_contents(&t, keys, seq, n));
	CHECK(!check_structure(&t, &sh, false));
	CHECK_EQ(t.pool.nr_free, 0);
	CHECK(log.reused > 0);
	hooks_done(&t, &log);
	ordo_tree_destroy(&t);
	free(keys);
	free(seq);
	return 0;
}

/*
 * The leaf iterator passing a leaf that then absorbs its retired right
 * neighbour reports it again, clipped, so its snapshots still tile.
 */
static int t_iter_clip(void)
{
	struct ordo_leaf_iter it;
	struct ordo_leaf_snap s;
	struct ordo_tree t;
	u32 idx, lp, f, r, got;
	u64 v = 0, i, k;

	CHECK(!tree_new(&t, 4, 8, 8 << 20));
	for (i = 0; i < 4000; i++)
		CHECK(!ordo_tree_insert(&t, i, &v));
	/* Left merge: iterator on Lp [k - 4, k), then L [k, k + 4) goes. */
	for (k = 8; parent_at(&t, k, &idx) && idx == 0; k += 4)
		;
	lp = leaf_at(&t, k - 4);
	CHECK(!ordo_leaf_iter_start(&it, &t, k - 4));
	CHECK_EQ(ordo_leaf_iter_next(&it, &s), 1);
	CHECK_EQ(s.node_no, lp);
	CHECK_EQ(s.high_key, k);
	for (i = k; i < k + 4; i++)
		CHECK(!ordo_tree_delete(&t, i));
	CHECK_EQ(ordo_tree_retire_empty(&t, 10, &got), 0);
	CHECK_EQ(got, 1);
	CHECK_EQ(ordo_leaf_iter_next(&it, &s), 1);
	CHECK_EQ(s.node_no, lp);
	CHECK(s.clipped);
	CHECK_EQ(s.low_key, k);
	CHECK_EQ(s.high_key, k + 4);
	CHECK_EQ(s.count, 0);
	CHECK_EQ(ordo_leaf_iter_next(&it, &s), 1);
	CHECK(!s.clipped);
	CHECK_EQ(s.low_key, k + 4);
	CHECK_EQ(s.count, 4);
	ordo_leaf_iter_end(&it);
	/* Right merge: iterator on the first child F, then F goes into R. */
	for (k = 4; k < 4000; k += 4)
		if (parent_at(&t, k, &idx) && idx == 0)
			break;
	CHECK(k < 4000);
	f = leaf_at(&t, k);
	r = leaf_at(&t, k + 4);
	CHECK(!ordo_leaf_iter_start(&it, &t, k));
	CHECK_EQ(ordo_leaf_iter_next(&it, &s), 1);
	CHECK_EQ(s.node_no, f);
	for (i = k; i < k + 4; i++)
		CHECK(!ordo_tree_delete(&t, i));
	CHECK_EQ(ordo_tree_retire_empty(&t, 10, &got), 0);
	CHECK_EQ(got, 1);
	CHECK_EQ(lo_of(&t, r), k);
	CHECK_EQ(ordo_leaf_iter_next(&it, &s), 1);
	CHECK_EQ(s.node_no, r);
	CHECK(s.clipped);
	CHECK_EQ(s.low_key, k + 4);
	CHECK_EQ(s.count, 4);
	CHECK_EQ(s.keys[0], k + 4);
	ordo_leaf_iter_end(&it);
	/* A fresh iterator sees R whole. */
	CHECK(!ordo_leaf_iter_start(&it, &t, k));
	CHECK_EQ(ordo_leaf_iter_next(&it, &s), 1);
	CHECK(!s.clipped);
	CHECK_EQ(s.node_no, r);
	CHECK_EQ(s.low_key, k);
	ordo_leaf_iter_end(&it);
	ordo_tree_destroy(&t);
	return 0;
}

static u32 lower_index(const u64 *keys, u32 n, u64 key)
{
	u32 lo = 0, hi = n;

	while (lo < hi) {
		u32 mid = lo + (hi - lo) / 2;

		if (keys[mid] < key)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* GET and SCAN from every kind of start around retired ranges. */
static int t_scan_get(void)
{
	struct ordo_tree t;
	struct shape sh;
	u64 rs = seed * 13 + 5, *out = malloc(sizeof(u64) * 400);
	u32 n = 20000, i, j, *seq;
	u64 *keys = random_keys(&rs, &n);
	u8 *vals = malloc(8 * 400), val[8];

	seq = calloc(n, sizeof(u32));
	CHECK(keys && seq && out && vals);
	CHECK(!tree_new(&t, 5, 8, 64 << 20));
	for (i = 0; i < n; i++) {
		vfill(val, 8, keys[i], 1);
		CHECK(!ordo_tree_insert(&t, keys[i], val));
		seq[i] = 1;
	}
	/* Empty alternate stretches of 60 keys; a few keys survive. */
	for (i = 0; i < n; i++) {
		if ((i / 60) % 2 == 0 || i % 97 == 3)
			continue;
		CHECK(!ordo_tree_delete(&t, keys[i]));
		seq[i] = 0;
	}
	CHECK(retire_all(&t) > 0);
	CHECK(!check_structure(&t, &sh, true));
	CHECK(!check_contents(&t, keys, seq, n));
	for (i = 0; i < 3000; i++) {
		u32 pick = rnd(&rs) % n, want = rnd(&rs) % 300, e;
		u64 start = keys[pick] + (rnd(&rs) % 3) - 1;
		int got = ordo_tree_scan(&t, start, want, out, vals);

		/* Expected: present keys >= start, in order. */
		e = lower_index(keys, n, start);
		CHECK_EQ(ordo_tree_get(&t, start, val),
			 e < n && keys[e] == start && seq[e] ? 0 : -ENOENT);
		for (j = 0; j < (u32)got; j++) {
			while (e < n && !seq[e])
				e++;
			CHECK(e < n && out[j] == keys[e]);
			CHECK(vcheck(vals + 8 * j, 8, out[j]));
			e++;
		}
		while (e < n && !seq[e])
			e++;
		CHECK((u32)got == want || e == n);
	}
	ordo_tree_destroy(&t);
	free(keys);
	free(seq);
	free(out);
	free(vals);
	return 0;
}

/* A TT entry as a client caches it: {node, incarnation, fences}. */
struct tt_ent {
	u64 low, high;
	u32 node, inca;
	bool has_high;
};

static struct tt_ent *tt_snapshot(struct ordo_tree *t, u32 *n)
{
	struct tt_ent *tt = NULL;
	struct ordo_leaf_iter it;
	struct ordo_leaf_snap s;
	u32 cap = 0;

	*n = 0;
	if (ordo_leaf_iter_start(&it, t, 0))
		return NULL;
	while (ordo_leaf_iter_next(&it, &s) == 1) {
		if (*n == cap) {
			cap = cap ? cap * 2 : 1024;
			tt = realloc(tt, sizeof(*tt) * cap);
		}
		tt[(*n)++] = (struct tt_ent){ .low = s.low_key,
			.high = s.high_key, .node = s.node_no,
			.inca = s.incarnation, .has_high = s.has_high };
	}
	ordo_leaf_iter_end(&it);
	return tt;
}

/*
 * Remote GET through a cached TT entry: copy the node, validate it by
 * checksum, accept it only if it is the live leaf named by the entry (24
 * bits of incarnation, as in the TT) and its own fences cover the key.
 * Return: 0 or -ENOENT when answered, 1 when the entry is stale.
 */
static int tt_get(struct ordo_tree *t, const struct tt_ent *e, u64 key,
		  void *val, u8 *buf)
{
	const struct ordo_geo *g = &t->geo;
	const struct ordo_node_hdr *h = (const void *)buf;
	u32 i, cnt;
	int err;

	do {
		err = ordo_node_copy_validate(buf, nd(t, e->node), g);
	} while (err == -EAGAIN);
	if (err || le32_to_cpu(h->node_no) != e->node || h->level ||
	    (h->flags & (ORDO_NODE_F_FREE | ORDO_NODE_F_SUPER)) ||
	    ((le32_to_cpu(h->incarnation) ^ e->inca) & ORDO_TT_INCA_MASK) ||
	    key < le64_to_cpu(h->low_key) ||
	    ((h->flags & ORDO_NODE_F_HAS_HIGH) &&
	     key >= le64_to_cpu(h->high_key)))
		return 1;
	cnt = le16_to_cpu(h->count);
	for (i = 0; i < cnt; i++) {
		if (ordo_leaf_key(h, g, i) == key) {
			memcpy(val, ordo_leaf_cvalue(h, g,
						     ordo_leaf_slot(h, g, i)),
			       g->value_size);
			return 0;
		}
	}
	return -ENOENT;
}

static const struct tt_ent *tt_find(const struct tt_ent *tt, u32 n, u64 key)
{
	u32 lo = 0, hi = n;

	while (hi - lo > 1) {
		u32 mid = lo + (hi - lo) / 2;

		if (tt[mid].low <= key)
			lo = mid;
		else
			hi = mid;
	}
	return &tt[lo];
}

/*
 * Remote GET: every node copied and validated by checksum, as a client
 * does over RDMA; restarts from the superblock on anything stale.  With
 * @stale, the walk starts from that old copy of a level-1 node (a client
 * holding a stale parent).  With @yield, it sometimes yields between
 * reads, so that nodes change under it.
 * Return: 0 or -ENOENT, -EIO on a malformed node or too many restarts.
 */
static int remote_get(struct ordo_tree *t, u64 key, void *val, u8 *buf,
		      const u8 *stale, u64 *yield, u64 *restarts)
{
	const struct ordo_geo *g = &t->geo;
	const struct ordo_node_hdr *h = (const void *)buf;
	struct ordo_super_info si;
	u32 n = 0, lvl = 1, i, cnt, tries;
	bool restart = !stale;
	int err;

	for (tries = 0; tries < 1000000; tries++) {
		if (restart) {
			err = ordo_node_copy_validate(buf,
						      ordo_pool_super(&t->pool), g);
			if (err == -EAGAIN)
				continue;
			if (err || ordo_super_parse(buf, g->node_size, &si))
				return -EIO;
			n = si.root;
			lvl = si.height - 1;
			restart = false;
		}
		if (stale) {
			memcpy(buf, stale, ordo_node_read_size(g, 1));
			n = le32_to_cpu(h->node_no);
			stale = NULL;
			err = 0;
		} else {
			if (yield && rnd(yield) % 16 == 0)
				sched_yield();
			err = ordo_node_copy_validate_at(buf, nd(t, n), g,
							 lvl);
		}
		if (err == -EAGAIN)
			continue;
		if (err)
			return -EIO;
		if (le32_to_cpu(h->node_no) != n || h->level != lvl ||
		    (h->flags & (ORDO_NODE_F_FREE | ORDO_NODE_F_SUPER)) ||
		    key < le64_to_cpu(h->low_key)) {
			(*restarts)++;
			restart = true;
			continue;
		}
		if ((h->flags & ORDO_NODE_F_HAS_HIGH) &&
		    key >= le64_to_cpu(h->high_key)) {
			n = le32_to_cpu(h->right);
			continue;
		}
		cnt = le16_to_cpu(h->count);
		if (lvl) {
			i = ordo_keys_upper_bound(ordo_node_ckeys(h), cnt, key);
			n = le32_to_cpu(ordo_inner_cchildren(h, g)[i ? i - 1 : 0]);
			lvl--;
			continue;
		}
		for (i = 0; i < cnt; i++) {
			if (ordo_leaf_key(h, g, i) == key) {
				memcpy(val, ordo_leaf_cvalue(h, g,
						ordo_leaf_slot(h, g, i)),
				       g->value_size);
				return 0;
			}
		}
		return -ENOENT;
	}
	return -EIO;
}

/*
 * Stale TT entries after retirement and reuse: an entry whose incarnation
 * still matches names an unchanged leaf; every retired node (free or
 * reused) and every heir fails the match; lookups through the stale TT
 * never give a wrong answer.
 */
static int t_stale_tt(void)
{
	struct ordo_tree_hooks hk;
	struct hooklog log;
	struct ordo_tree t;
	struct shape sh;
	u64 rs = seed * 31 + 3, v;
	u32 n = 20000, i, ntt, *seq, match = 0, stale = 0, reused = 0;
	u32 answered = 0, fallback = 0, m = 8000, np = 0, j, psize;
	u64 *keys = random_keys(&rs, &n), *more, restarts = 0;
	u8 *buf, val[8], *parents;
	struct tt_ent *tt;

	seq = calloc(n, sizeof(u32));
	CHECK(keys && seq);
	CHECK(!tree_new(&t, 8, 8, 64 << 20));
	buf = malloc(ordo_node_read_size_max(&t.geo));
	hooks_init(&t, &hk, &log, true);
	for (i = 0; i < n; i++) {
		vfill(val, 8, keys[i], 1);
		CHECK(!ordo_tree_insert(&t, keys[i], val));
		seq[i] = 1;
	}
	tt = tt_snapshot(&t, &ntt);
	CHECK(tt && ntt > 1000);
	/* Copies of every level-1 node, as a client may have cached them. */
	psize = ordo_node_read_size(&t.geo, 1);
	parents = malloc((size_t)psize * ntt);
	CHECK(parents);
	for (j = parent_at(&t, 0, &i); j;
	     j = le32_to_cpu(nd(&t, j)->right), np++)
		memcpy(parents + (size_t)np * psize, nd(&t, j), psize);
	for (i = 0; i < n; i++) {
		if ((i / 200) % 3 == 1 || i % 50 == 0)
			continue;
		CHECK(!ordo_tree_delete(&t, keys[i]));
		seq[i] = 0;
	}
	CHECK(retire_all(&t) > 100);
	CHECK_EQ(log.bad, 0);
	/* New keys elsewhere: their splits take the retired nodes. */
	more = random_keys(&rs, &m);
	for (i = 0; i < m; i++) {
		vfill(val, 8, more[i], 9);
		if (ordo_tree_get(&t, more[i], NULL) == -ENOENT)
			CHECK(!ordo_tree_insert(&t, more[i], val));
	}
	CHECK(log.reused > 100);
	CHECK(!check_structure(&t, &sh, false));
	for (i = 0; i < ntt; i++) {
		const struct tt_ent *e = &tt[i];
		struct ordo_node_hdr *h = nd(&t, e->node);
		bool live = !h->level && !(h->flags & ORDO_NODE_F_FREE);

		if (log.was_retired[e->node] && live)
			reused++;
		if (live && !((inca_of(&t, e->node) ^ e->inca) &
			      ORDO_TT_INCA_MASK)) {
			/* A match names the very same leaf, unchanged. */
			CHECK(!log.was_retired[e->node]);
			CHECK_EQ(lo_of(&t, e->node), e->low);
			CHECK_EQ(!!(h->flags & ORDO_NODE_F_HAS_HIGH),
				 e->has_high);
			CHECK(!e->has_high || hi_of(&t, e->node) == e->high);
			match++;
		} else {
			stale++;
		}
	}
	CHECK(match > 0 && stale > 0 && reused > 0);
	/* Old keys and new ones, through the stale TT. */
	for (i = 0; i < n + m; i++) {
		u64 key = i < n ? keys[i] : more[i - n];
		int want = ordo_tree_get(&t, key, &v), r;

		r = tt_get(&t, tt_find(tt, ntt, key), key, val, buf);
		if (r == 1) {
			fallback++;
			continue;
		}
		answered++;
		CHECK_EQ(r, want);
		CHECK(r || !memcmp(val, &v, 8));
	}
	CHECK(answered > 0 && fallback > 0);
	/* Remote walks resumed from the stale level-1 copies. */
	for (i = 0; i < n + m; i++) {
		u64 key = i < n ? keys[i] : more[i - n];
		int want = ordo_tree_get(&t, key, &v), r;
		const u8 *pc;

		for (j = 0; j + 1 < np; j++) {
			pc = parents + (size_t)(j + 1) * psize;
			if (key < le64_to_cpu(((const struct ordo_node_hdr *)
					       pc)->low_key))
				break;
		}
		pc = parents + (size_t)j * psize;
		r = remote_get(&t, key, val, buf, pc, NULL, &restarts);
		CHECK_EQ(r, want);
		CHECK(r || !memcmp(val, &v, 8));
	}
	CHECK(restarts > 0);
	printf("# %u TT entries: %u still match, %u stale (%u on reused "
	       "nodes); %u lookups answered, %u fell back; walks from %u "
	       "stale parents restarted %" PRIu64 " times\n", ntt, match,
	       stale, reused, answered, fallback, np, restarts);
	free(parents);
	hooks_done(&t, &log);
	ordo_tree_destroy(&t);
	free(tt);
	free(keys);
	free(more);
	free(seq);
	free(buf);
	return 0;
}

/*
 * Memory under churn: every round inserts 4000 fresh random keys and
 * deletes them again, either over the whole key space (@slide false) or
 * in a new stretch of it each round, like a time series (@slide true).
 * Records after each round the nodes ever handed out (pool.next), the
 * nodes taken by splits and root growths so far, and the leaves left.  The
 * control runs without retirement.
 */
static int churn(bool retire, bool slide, u32 rounds, u64 *next_at,
		 u64 *taken_at, u64 *leaves_at)
{
	struct ordo_tree_stats st;
	struct ordo_tree t;
	u64 rs = seed * 101 + 7, v = 5;
	struct shape sh;
	u32 r, i;

	CHECK(!tree_new(&t, 16, 8, 256 << 20));
	for (r = 0; r < rounds; r++) {
		u32 n = 4000;
		u64 *keys = random_keys(&rs, &n);

		for (i = 0; i < n; i++) {
			u32 j = i + rnd(&rs) % (n - i);
			u64 k = keys[j];

			/* Uniform: random order; sliding: ascending. */
			if (slide)
				k = ((u64)r << 40) + (keys[i] >> 23);
			else
				keys[j] = keys[i];
			keys[i] = k;
			CHECK(!ordo_tree_put(&t, k, &v));
		}
		for (i = 0; i < n; i++)
			CHECK(!ordo_tree_delete(&t, keys[n - 1 - i]));
		if (retire)
			CHECK(retire_all(&t) != ~0ULL);
		ordo_tree_get_stats(&t, &st);
		next_at[r] = t.pool.next;
		taken_at[r] = st.leaf_splits + st.inner_splits +
			      st.root_growths;
		leaves_at[r] = st.leaves;
		free(keys);
	}
	CHECK(!check_structure(&t, &sh, retire));
	ordo_tree_destroy(&t);
	return 0;
}

static int t_churn_memory(void)
{
	enum { R = 48 };
	u64 next[R], leaves[R], cnext[R], cleaves[R], taken[R], ctaken[R];
	u64 snext[R], sleaves[R], scnext[R], scleaves[R], staken[R];
	u64 sctaken[R];

	CHECK(!churn(true, false, R, next, taken, leaves));
	CHECK(!churn(false, false, R, cnext, ctaken, cleaves));
	CHECK(!churn(true, true, R, snext, staken, sleaves));
	CHECK(!churn(false, true, R, scnext, sctaken, scleaves));
	printf("# uniform churn: nodes handed out after rounds 8/24/48 %"
	       PRIu64 "/%" PRIu64 "/%" PRIu64 " (control %" PRIu64 "/%" PRIu64
	       "/%" PRIu64 "), leaves left %" PRIu64 " (control %" PRIu64
	       "); rounds 24-48 took %" PRIu64 " nodes, %" PRIu64 " new\n",
	       next[7], next[23], next[R - 1], cnext[7], cnext[23],
	       cnext[R - 1], leaves[R - 1], cleaves[R - 1],
	       taken[R - 1] - taken[R / 2 - 1], next[R - 1] - next[R / 2 - 1]);
	printf("# sliding churn: nodes handed out after rounds 8/24/48 %"
	       PRIu64 "/%" PRIu64 "/%" PRIu64 " (control %" PRIu64 "/%" PRIu64
	       "/%" PRIu64 "), leaves left %" PRIu64 " (control %" PRIu64
	       ")\n", snext[7], snext[23], snext[R - 1], scnext[7],
	       scnext[23], scnext[R - 1], sleaves[R - 1], scleaves[R - 1]);
	/*
	 * Uniform: the empty leaves go back to the pool after every round
	 * and the next round's splits take them again, so the pool stops
	 * growing; the control keeps all its (empty) leaves.
	 */
	CHECK((next[R - 1] - next[R / 2 - 1]) * 100 <=
	      taken[R - 1] - taken[R / 2 - 1]);
	CHECK(next[R - 1] - next[R / 2 - 1] <= next[R / 2 - 1] / 20);
	CHECK(leaves[R - 1] * 5 < cleaves[R - 1]);
	/*
	 * Sliding: the control grows by every round's leaves; with
	 * retirement only the level-1 nodes each round adds stay, with one
	 * leaf each (inner nodes are not retired).
	 */
	CHECK(scnext[R - 1] - scnext[R / 2] >
	      5 * (snext[R - 1] - snext[R / 2]));
	return 0;
}

/*
 * Concurrent run: writers churn disjoint blocks of a key universe (filling
 * and draining whole blocks, so leaves empty out), readers GET, SCAN,
 * iterate, and read raw copies like a remote client (from the root and
 * through a stale TT), and a retirer runs all along.  A sparse set of
 * pinned keys never changes: every reader must always find each of them.
 */
#define CC_WRITERS	2
#define CC_READERS	3
#define CC_BLOCK	512
#define CC_PIN		256

struct cc {
	struct ordo_tree t;
	struct ordo_tree_hooks hk;
	struct hooklog log;
	u64 *keys;
	u32 n;
	u32 *seq;
	u64 deadline;
	u64 rounds;
	int stop_readers;
	int stop_retirer;
	int errors;
	u64 retire_calls, retire_got;
	u64 gets, scans, iters, clipped, remote, remote_restarts, tt_hits,
	    tt_stale;
	struct tt_ent *tt;
	u32 ntt;
	pthread_mutex_t tt_lock;
};

struct cc_arg {
	struct cc *c;
	u32 id;
};

#define CC_ERR(c, ...) do {						\
	printf("# " __VA_ARGS__);					\
	printf("\n");							\
	__atomic_fetch_add(&(c)->errors, 1, __ATOMIC_RELAXED);		\
	return NULL;							\
} while (0)

static u64 now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (u64)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static bool cc_pinned(u32 idx)
{
	return idx % CC_PIN == 0;
}

static u32 cc_index(const struct cc *c, u64 key)
{
	return lower_index(c->keys, c->n, key);
}

static void *cc_writer(void *p)
{
	struct cc_arg *a = p;
	struct cc *c = a->c;
	u32 vs = c->t.geo.value_size, nblocks = c->n / CC_BLOCK, r, i, idx;
	u64 rs = seed * 1000 + a->id;
	u8 *val = malloc(vs);
	u32 seqno = 1;

	for (r = 0; r < 20 || now_ns() < c->deadline; r++) {
		u32 b = (rnd(&rs) % (nblocks / CC_WRITERS)) * CC_WRITERS + a->id;
		u32 mode = rnd(&rs) % 3, base = b * CC_BLOCK;

		for (i = 0; i < CC_BLOCK; i++) {
			u32 op = rnd(&rs) % 100, s = c->seq[base + i];
			int err, want;

			idx = base + i;
			if (cc_pinned(idx))
				continue;
			seqno++;
			vfill(val, vs, c->keys[idx], seqno);
			if (mode == 1 || (mode == 2 && op < 40)) {
				err = ordo_tree_delete(&c->t, c->keys[idx]);
				want = s ? 0 : -ENOENT;
				if (!err)
					s = 0;
			} else if (mode == 0 && op < 30) {
				continue;
			} else if (op < 70) {
				err = ordo_tree_put(&c->t, c->keys[idx], val);
				want = 0;
				s = seqno;
			} else if (op < 85) {
				err = ordo_tree_insert(&c->t, c->keys[idx], val);
				want = s ? -EEXIST : 0;
				if (!err)
					s = seqno;
			} else {
				err = ordo_tree_update(&c->t, c->keys[idx], val);
				want = s ? 0 : -ENOENT;
				if (!err)
					s = seqno;
			}
			if (err != want)
				CC_ERR(c, "writer %u key %" PRIx64 ": %d, want %d",
				       a->id, c->keys[idx], err, want);
			c->seq[idx] = s;
		}
	}
	__atomic_fetch_add(&c->rounds, r, __ATOMIC_RELAXED);
	free(val);
	return NULL;
}

static void *cc_reader(void *p)
{
	struct cc_arg *a = p;
	struct cc *c = a->c;
	struct ordo_tree *t = &c->t;
	u32 vs = t->geo.value_size, i, want, pin;
	u8 *val = malloc(vs), *vals = malloc((size_t)vs * 256);
	u8 *buf = malloc(ordo_node_read_size_max(&t->geo));
	u64 rs = seed * 5000 + a->id, out[256];
	u64 gets = 0, scans = 0, iters = 0, clipped = 0, remote = 0;
	u64 restarts = 0, tt_hits = 0, tt_stale = 0;
	int err;

	while (!__atomic_load_n(&c->stop_readers, __ATOMIC_ACQUIRE)) {
		u32 pick = rnd(&rs) % c->n, what = rnd(&rs) % 100;
		u64 key = c->keys[pick];

		if (what < 30) {
			err = ordo_tree_get(t, key, val);
			if (err && err != -ENOENT)
				CC_ERR(c, "get: %d", err);
			if (!err && !vcheck(val, vs, key))
				CC_ERR(c, "get %" PRIx64 ": foreign value", key);
			if (cc_pinned(pick) && (err || vcheck(val, vs, key) != 1))
				CC_ERR(c, "get %" PRIx64 ": pinned key lost", key);
			gets++;
		} else if (what < 55) {
			u64 start = key - (what & 1);
			int got;

			want = 1 + rnd(&rs) % 256;
			got = ordo_tree_scan(t, start, want, out, vals);
			if (got < 0)
				CC_ERR(c, "scan: %d", got);
			for (i = 0; i < (u32)got; i++) {
				u32 ix = cc_index(c, out[i]);

				if ((i && out[i - 1] >= out[i]) ||
				    out[i] < start || ix >= c->n ||
				    c->keys[ix] != out[i] ||
				    !vcheck(vals + (size_t)i * vs, vs, out[i]))
					CC_ERR(c, "scan %" PRIx64 ": bad pair %u",
					       start, i);
			}
			/* Every pinned key in the range scanned is there. */
			pin = (cc_index(c, start) + CC_PIN - 1) / CC_PIN * CC_PIN;
			for (i = 0; pin < c->n; pin += CC_PIN) {
				u64 pk = c->keys[pin];

				if ((u32)got == want && pk > out[got - 1])
					break;
				while (i < (u32)got && out[i] < pk)
					i++;
				if (i == (u32)got || out[i] != pk)
					CC_ERR(c, "scan %" PRIx64 " (%u of %u): "
					       "pinned key %" PRIx64 " skipped",
					       start, got, want, pk);
			}
			scans++;
		} else if (what < 65) {
			struct ordo_leaf_iter it;
			struct ordo_leaf_snap s;
			u64 prev = 0;
			u32 nl = 0;
			int r;

			if (ordo_leaf_iter_start(&it, t, key))
				CC_ERR(c, "iter start");
			while (nl < 40 && (r = ordo_leaf_iter_next(&it, &s)) == 1) {
				if (nl && s.low_key != prev)
					CC_ERR(c, "iter: gap or overlap at %"
					       PRIx64, prev);
				if (!nl && (s.low_key > key ||
					    (s.has_high && key >= s.high_key)))
					CC_ERR(c, "iter: first leaf misses key");
				for (i = 0; i < s.count; i++) {
					u32 ix = cc_index(c, s.keys[i]);

					if (s.keys[i] < s.low_key ||
					    (s.has_high && s.keys[i] >= s.high_key) ||
					    (i && s.keys[i - 1] >= s.keys[i]) ||
					    ix >= c->n || c->keys[ix] != s.keys[i])
						CC_ERR(c, "iter: bad key");
				}
				clipped += s.clipped;
				prev = s.high_key;
				nl++;
				if (!s.has_high)
					break;
			}
			ordo_leaf_iter_end(&it);
			iters++;
		} else if (what < 85) {
			err = remote_get(t, key, val, buf, NULL, &rs, &restarts);
			if (err && err != -ENOENT)
				CC_ERR(c, "remote get: %d", err);
			if (!err && !vcheck(val, vs, key))
				CC_ERR(c, "remote get %" PRIx64 ": foreign value",
				       key);
			if (cc_pinned(pick) && (err || vcheck(val, vs, key) != 1))
				CC_ERR(c, "remote get %" PRIx64 ": pinned key lost",
				       key);
			remote++;
		} else {
			const struct tt_ent *e;

			pthread_mutex_lock(&c->tt_lock);
			e = tt_find(c->tt, c->ntt, key);
			err = tt_get(t, e, key, val, buf);
			pthread_mutex_unlock(&c->tt_lock);
			if (err == 1) {
				tt_stale++;
				continue;
			}
			if (!err && !vcheck(val, vs, key))
				CC_ERR(c, "tt get %" PRIx64 ": foreign value", key);
			if (cc_pinned(pick) && (err || vcheck(val, vs, key) != 1))
				CC_ERR(c, "tt get %" PRIx64 ": pinned key lost", key);
			tt_hits++;
		}
	}
	__atomic_fetch_add(&c->gets, gets, __ATOMIC_RELAXED);
	__atomic_fetch_add(&c->scans, scans, __ATOMIC_RELAXED);
	__atomic_fetch_add(&c->iters, iters, __ATOMIC_RELAXED);
	__atomic_fetch_add(&c->clipped, clipped, __ATOMIC_RELAXED);
	__atomic_fetch_add(&c->remote, remote, __ATOMIC_RELAXED);
	__atomic_fetch_add(&c->remote_restarts, restarts, __ATOMIC_RELAXED);
	__atomic_fetch_add(&c->tt_hits, tt_hits, __ATOMIC_RELAXED);
	__atomic_fetch_add(&c->tt_stale, tt_stale, __ATOMIC_RELAXED);
	free(val);
	free(vals);
	free(buf);
	return NULL;
}

/* Retires all along; refreshes the TT now and then, like a trainer. */
static void *cc_retirer(void *p)
{
	struct cc *c = p;
	u64 rs = seed * 77, calls = 0, total = 0;
	u32 got;

	while (!__atomic_load_n(&c->stop_retirer, __ATOMIC_ACQUIRE)) {
		if (ordo_tree_retire_empty(&c->t, 1 + rnd(&rs) % 16, &got))
			CC_ERR(c, "retire failed");
		calls++;
		total += got;
		if (calls % 64 == 0) {
			u32 ntt;
			struct tt_ent *tt = tt_snapshot(&c->t, &ntt);

			if (!tt || !ntt)
				CC_ERR(c, "TT snapshot");
			pthread_mutex_lock(&c->tt_lock);
			free(c->tt);
			c->tt = tt;
			c->ntt = ntt;
			pthread_mutex_unlock(&c->tt_lock);
		}
		if (!got)
			sched_yield();
	}
	c->retire_calls = calls;
	c->retire_got = total;
	return NULL;
}

static int t_concurrent(void)
{
	pthread_t wr[CC_WRITERS], rd[CC_READERS], rt;
	struct cc_arg wa[CC_WRITERS], ra[CC_READERS];
	struct cc *c = calloc(1, sizeof(*c));
	struct ordo_tree_stats st;
	struct shape sh;
	u64 rs = seed * 3 + 11, final;
	u32 i;
	u8 val[16];

	CHECK(c);
	c->n = 16 * CC_BLOCK;
	c->keys = malloc(sizeof(u64) * c->n);
	c->seq = calloc(c->n, sizeof(u32));
	c->deadline = now_ns() + (quick ? 2 : 6) * 1000000000ULL;
	CHECK(c->keys && c->seq);
	/* A sorted universe with uneven gaps, 0 and U64_MAX included. */
	c->keys[0] = 0;
	for (i = 1; i < c->n - 1; i++)
		c->keys[i] = c->keys[i - 1] + 1 + rnd(&rs) % 1000;
	c->keys[c->n - 1] = U64_MAX;
	CHECK(!tree_new(&c->t, 4, 16, 256 << 20));
	hooks_init(&c->t, &c->hk, &c->log, false);
	for (i = 0; i < c->n; i++) {
		if (!cc_pinned(i) && rnd(&rs) % 2)
			continue;
		vfill(val, 16, c->keys[i], 1);
		CHECK(!ordo_tree_insert(&c->t, c->keys[i], val));
		c->seq[i] = 1;
	}
	pthread_mutex_init(&c->tt_lock, NULL);
	c->tt = tt_snapshot(&c->t, &c->ntt);
	CHECK(c->tt);
	for (i = 0; i < CC_READERS; i++) {
		ra[i] = (struct cc_arg){ .c = c, .id = i };
		CHECK(!pthread_create(&rd[i], NULL, cc_reader, &ra[i]));
	}
	CHECK(!pthread_create(&rt, NULL, cc_retirer, c));
	for (i = 0; i < CC_WRITERS; i++) {
		wa[i] = (struct cc_arg){ .c = c, .id = i };
		CHECK(!pthread_create(&wr[i], NULL, cc_writer, &wa[i]));
	}
	for (i = 0; i < CC_WRITERS; i++)
		pthread_join(wr[i], NULL);
	__atomic_store_n(&c->stop_retirer, 1, __ATOMIC_RELEASE);
	pthread_join(rt, NULL);
	__atomic_store_n(&c->stop_readers, 1, __ATOMIC_RELEASE);
	for (i = 0; i < CC_READERS; i++)
		pthread_join(rd[i], NULL);
	CHECK_EQ(c->errors, 0);
	ordo_tree_get_stats(&c->t, &st);
	CHECK_EQ(st.leaves_retired, c->retire_got);
	final = retire_all(&c->t);
	ordo_tree_get_stats(&c->t, &st);
	CHECK_EQ(st.leaves_retired, c->retire_got + final);
	CHECK_EQ(c->log.retired, st.leaves_retired);
	CHECK_EQ(c->log.splits, st.leaf_splits);
	CHECK_EQ(st.leaves, st.leaf_splits + 1 - st.leaves_retired);
	CHECK(c->retire_got > 0);
	CHECK(c->log.reused > 0);
	CHECK(!check_contents(&c->t, c->keys, c->seq, c->n));
	CHECK(!check_structure(&c->t, &sh, true));
	CHECK(!check_iter(&c->t, st.keys));
	printf("# concurrent: %" PRIu64 " rounds by %u writers, %" PRIu64
	       " retire calls "
	       "retired %" PRIu64 " leaves while running (+%" PRIu64 " at the "
	       "end), %" PRIu64 " splits (%" PRIu64 " into reused nodes), %"
	       PRIu64 " leaves left; %" PRIu64 " gets, %" PRIu64 " scans, %"
	       PRIu64 " leaf walks (%" PRIu64 " clipped leaves), %" PRIu64
	       " remote gets (%" PRIu64 " restarts), %" PRIu64
	       " TT gets (%" PRIu64 " stale), %" PRIu64 " retries\n",
	       c->rounds, CC_WRITERS, c->retire_calls, c->retire_got, final,
	       st.leaf_splits, c->log.reused, st.leaves, c->gets, c->scans,
	       c->iters, c->clipped, c->remote, c->remote_restarts,
	       c->tt_hits, c->tt_stale, st.retries);
	hooks_done(&c->t, &c->log);
	ordo_tree_destroy(&c->t);
	pthread_mutex_destroy(&c->tt_lock);
	free(c->tt);
	free(c->keys);
	free(c->seq);
	free(c);
	return 0;
}

int main(int argc, char **argv)
{
	int opt;

	while ((opt = getopt(argc, argv, "s:q")) != -1) {
		switch (opt) {
		case 's':
			seed = strtoull(optarg, NULL, 0);
			break;
		case 'q':
			quick = true;
			break;
		default:
			fprintf(stderr, "usage: %s [-s SEED] [-q]\n", argv[0]);
			return 2;
		}
	}
	run("height 1 and 2: nothing or the obvious", t_small_trees);
	run("leftmost, first child, middle, rightmost, only child; reuse",
	    t_shapes);
	run("a leaf whose separator is in flight stays", t_post_in_flight);
	run("mass deletes, passes of any size, delete all, refill",
	    t_mass_delete);
	run("leaf iterator clips a leaf that grew behind it", t_iter_clip);
	run("GET and SCAN across retired ranges", t_scan_get);
	run("stale TT entries never match a retired or reused node",
	    t_stale_tt);
	run("pool stops growing under churn with retirement", t_churn_memory);
	run("concurrent writers, readers, remote readers and retirer",
	    t_concurrent);
	return tap_done();
}
