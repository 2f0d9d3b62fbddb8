// SPDX-License-Identifier: GPL-2.0
/*
 * Tests of ordo_tree_update_hint() (native build of kmod/core): hints that
 * hold are applied in place, every way a hint can be stale is detected, and
 * hinted updates racing with splits never lose or misplace a value.
 * Prints TAP; exits non-zero on any failure.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <pthread.h>
#include <stdatomic.h>

#include "compat.h"
#include "node.h"
#include "pool.h"
#include "tree.h"
#include "core_test.h"
#include "tree_hint.h"

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

/* A hinted UPDATE of a whole slot's value. */
static int hint_update(struct ordo_tree *t, u32 leaf, u64 key, const void *v)
{
	struct ordo_value val = { .buf = v, .len = t->geo.value_size };

	return ordo_tree_update_hint(t, leaf, key, &val);
}

static void vfill(void *buf, u32 vs, u64 key, u64 tag)
{
	u64 *w = buf;
	u32 i;

	for (i = 0; i < vs / 8; i++)
		w[i] = key * 0x9e3779b97f4a7c15ULL + tag * 31 + i;
}

static int vcheck(const void *buf, u32 vs, u64 key, u64 tag)
{
	u64 tmp[128];

	vfill(tmp, vs, key, tag);
	return !memcmp(tmp, buf, vs);
}

/* Where a key lives now: the leaf's number and incarnation. */
static int locate(struct ordo_tree *t, u64 key, u32 *leaf, u32 *inc)
{
	struct ordo_leaf_iter it;
	struct ordo_leaf_snap s;
	int r;

	if (ordo_leaf_iter_start(&it, t, key))
		return -1;
	r = ordo_leaf_iter_next(&it, &s);
	ordo_leaf_iter_end(&it);
	if (r != 1)
		return -1;
	*leaf = s.node_no;
	*inc = s.incarnation;
	return 0;
}

static u64 node_version(struct ordo_tree *t, u32 n)
{
	return le64_to_cpu(ordo_pool_node(&t->pool, n)->version);
}

/* A hint that holds updates in place and republishes a valid node. */
static int t_hit(void)
{
	u8 val[64], got[64], copy[4096];
	struct ordo_tree t;
	u32 leaf, inc, inc2;
	u64 k, v0;

	CHECK(!tree_new(&t, 8, 64, 8 << 20));
	CHECK(t.geo.node_size <= sizeof(copy));
	for (k = 0; k < 2000; k++) {
		vfill(val, 64, k, 0);
		CHECK(!ordo_tree_put(&t, k * 3, val));
	}
	for (k = 0; k < 2000; k += 7) {
		CHECK(!locate(&t, k * 3, &leaf, &inc));
		v0 = node_version(&t, leaf);
		vfill(val, 64, k, 1);
		CHECK_EQ(hint_update(&t, leaf, k * 3, val), 0);
		CHECK_EQ(node_version(&t, leaf), v0 + 2);
		CHECK(!ordo_tree_get(&t, k * 3, got));
		CHECK(vcheck(got, 64, k, 1));
		/* What a remote reader would copy validates (checksum). */
		CHECK_EQ(ordo_node_copy_validate(copy, ordo_pool_node(&t.pool, leaf),
						 &t.geo), 0);
		/* Same leaf, same incarnation: an update is no split. */
		CHECK(!locate(&t, k * 3, &leaf, &inc2));
		CHECK_EQ(inc2, inc);
	}
	ordo_tree_destroy(&t);
	return 0;
}

/* Inside the leaf's fences but absent: ENOENT, and nothing changes. */
static int t_absent(void)
{
	struct ordo_tree t;
	u64 v = 7, k, ver;
	u32 leaf, inc;

	CHECK(!tree_new(&t, 8, 8, 8 << 20));
	for (k = 0; k < 500; k++)
		CHECK(!ordo_tree_put(&t, k * 10, &v));
	CHECK(!locate(&t, 2005, &leaf, &inc));
	ver = node_version(&t, leaf);
	CHECK_EQ(hint_update(&t, leaf, 2005, &v), -ENOENT);
	CHECK_EQ(node_version(&t, leaf), ver);
	CHECK_EQ(ordo_tree_get(&t, 2005, NULL), -ENOENT);
	/* A deleted key, same leaf. */
	CHECK(!ordo_tree_delete(&t, 2000));
	CHECK(!locate(&t, 2000, &leaf, &inc));
	CHECK_EQ(hint_update(&t, leaf, 2000, &v), -ENOENT);
	CHECK_EQ(ordo_tree_get(&t, 2000, NULL), -ENOENT);
	ordo_tree_destroy(&t);
	return 0;
}

/* A key outside the leaf's fences: ESTALE, no change. */
static int t_stale(void)
{
	u64 v = 1, w = 2, got, k, ver;
	struct ordo_tree t;
	u32 leaf, inc, other, oinc;

	CHECK(!tree_new(&t, 8, 8, 8 << 20));
	for (k = 0; k < 500; k++)
		CHECK(!ordo_tree_put(&t, k, &v));
	CHECK(!locate(&t, 100, &leaf, &inc));
	ver = node_version(&t, leaf);
	/* A live leaf, but another key range. */
	CHECK(!locate(&t, 400, &other, &oinc));
	CHECK(other != leaf);
	CHECK_EQ(hint_update(&t, other, 100, &w), -ESTALE);
	CHECK_EQ(hint_update(&t, leaf, 400, &w), -ESTALE);
	CHECK_EQ(node_version(&t, leaf), ver);
	CHECK(!ordo_tree_get(&t, 100, &got));
	CHECK_EQ(got, 1);
	CHECK(!ordo_tree_get(&t, 400, &got));
	CHECK_EQ(got, 1);
	ordo_tree_destroy(&t);
	return 0;
}

/*
 * After a split the old hint holds for the keys its leaf kept (the fences,
 * not the incarnation the split changed, decide) and is stale for the
 * keys that moved.
 */
static int t_after_split(void)
{
	u64 v = 1, w = 2, got, k;
	struct ordo_tree t;
	u32 leaf, inc, nleaf, ninc;

	CHECK(!tree_new(&t, 8, 8, 8 << 20));
	for (k = 0; k < 8; k++)
		CHECK(!ordo_tree_put(&t, k * 100, &v));
	CHECK(!locate(&t, 0, &leaf, &inc));
	CHECK(!locate(&t, 700, &nleaf, &ninc));
	CHECK_EQ(nleaf, leaf);
	/* The leaf is full: one more key splits it. */
	CHECK(!ordo_tree_put(&t, 350, &v));
	CHECK(!locate(&t, 0, &nleaf, &ninc));
	CHECK_EQ(nleaf, leaf);
	CHECK(ninc != inc);
	CHECK_EQ(hint_update(&t, leaf, 700, &w), -ESTALE);
	CHECK(!ordo_tree_get(&t, 700, &got));
	CHECK_EQ(got, 1);
	CHECK_EQ(hint_update(&t, leaf, 0, &w), 0);
	CHECK(!ordo_tree_get(&t, 0, &got));
	CHECK_EQ(got, 2);
	/* The new right half takes hints for the keys that moved. */
	CHECK(!locate(&t, 700, &nleaf, &ninc));
	CHECK(nleaf != leaf);
	CHECK_EQ(hint_update(&t, nleaf, 700, &w), 0);
	CHECK(!ordo_tree_get(&t, 700, &got));
	CHECK_EQ(got, 2);
	ordo_tree_destroy(&t);
	return 0;
}

/*
 * Numbers that are not leaves: superblock, inner, the middle of an inner
 * node, unused, free, unmapped.
 */
static int t_not_a_leaf(void)
{
	struct ordo_node_hdr *h;
	struct ordo_tree t;
	u64 v = 1, k, got, word;
	u32 n, free_no;

	CHECK(!tree_new(&t, 4, 8, 8 << 20));
	/* Odd keys: every leaf but the first has an odd low fence. */
	for (k = 0; k < 4000; k++)
		CHECK(!ordo_tree_put(&t, 2 * k + 1, &v));
	CHECK(t.height >= 3);
	/* Node 0 is the superblock. */
	CHECK_EQ(hint_update(&t, 0, 5, &v), -ESTALE);
	/* The root is an inner node whose fences cover every key. */
	n = t.root;
	h = ordo_pool_node(&t.pool, n);
	CHECK(h->level > 0);
	CHECK_EQ(hint_update(&t, n, 5, &v), -ESTALE);
	/*
	 * A level-1 node's second slot starts with its key 16 (the low fence
	 * of its 17th leaf, odd): locked as a node, a writer would spin on
	 * it, or, even, corrupt the key.
	 */
	n = le32_to_cpu(ordo_inner_children(h, &t.geo)[0]);
	h = ordo_pool_node(&t.pool, n);
	CHECK_EQ(h->level, 1);
	CHECK(le16_to_cpu(h->count) > 17);
	CHECK(t.pool.inner_span > 1);
	word = le64_to_cpu(*(__le64 *)ordo_pool_node(&t.pool, n + 1));
	CHECK_EQ(word, le64_to_cpu(ordo_node_keys(h)[16]));
	CHECK(word & 1);
	CHECK_EQ(hint_update(&t, n + 1, 5, &v), -ESTALE);
	CHECK_EQ(le64_to_cpu(ordo_node_keys(h)[16]), word);
	/* Never handed out: all zeroes, node_no 0. */
	n = t.pool.next;
	CHECK(n < t.pool.nr_chunks * t.pool.nodes_per_chunk);
	CHECK_EQ(hint_update(&t, n, 5, &v), -ESTALE);
	CHECK_EQ(le64_to_cpu(ordo_pool_node(&t.pool, n)->version), 0);
	/* Past every published chunk, and the largest number. */
	n = t.pool.nr_chunks * t.pool.nodes_per_chunk;
	CHECK_EQ(hint_update(&t, n, 5, &v), -ESTALE);
	CHECK_EQ(hint_update(&t, U32_MAX, 5, &v), -ESTALE);
	/* A freed node keeps its number but is marked free. */
	CHECK(!ordo_pool_reserve(&t.pool, 1));
	free_no = ordo_pool_take(&t.pool);
	ordo_pool_free(&t.pool, free_no);
	h = ordo_pool_node(&t.pool, free_no);
	CHECK(h->flags & ORDO_NODE_F_FREE);
	CHECK_EQ(hint_update(&t, free_no, 5, &v), -ESTALE);
	CHECK(!ordo_tree_get(&t, 5, &got));
	CHECK_EQ(got, 1);
	ordo_tree_destroy(&t);
	return 0;
}

/*
 * Extents: a number in a value chunk is never taken for a node (its bytes
 * could look like a locked or a live leaf, and locking them would change
 * a value); a long value is not written through a hint; a hinted update
 * of a slot holding an extent frees it.
 */
static int t_extents(void)
{
	u8 big[3000], out[3000];
	struct ordo_value_part vp = { .cap = sizeof(out), .buf = out };
	struct ordo_value lv = { .buf = big, .len = sizeof(big) };
	struct ordo_tree_stats st;
	struct ordo_tree t;
	u64 v = 7, k, off;
	u32 n, i, leaf;

	CHECK(!tree_new(&t, 4, 8, 8 << 20));
	for (k = 0; k < 3; k++)
		CHECK(!ordo_tree_put(&t, k, &v));
	leaf = t.root;
	memset(big, 0xab, sizeof(big));
	/* An odd first word: a node lock would spin on it for ever. */
	big[0] = 1;
	CHECK(!ordo_tree_put_len(&t, 1, &lv));
	CHECK(!ordo_tree_get_part(&t, 1, &vp));
	CHECK(vp.units);
	off = ordo_extent_ref_offset(vp.ref);
	/* Every number of the value chunk, the extent's own included. */
	n = (u32)(off / t.pool.chunk_size) * t.pool.nodes_per_chunk;
	for (i = 0; i < t.pool.nodes_per_chunk; i++)
		CHECK_EQ(hint_update(&t, n + i, 1, &v), -ESTALE);
	memset(out, 0, sizeof(out));
	CHECK(!ordo_tree_get_part(&t, 1, &vp));
	CHECK_EQ(vp.len, sizeof(big));
	CHECK(!memcmp(out, big, sizeof(big)));
	/* Long values take the ordinary path. */
	CHECK_EQ(ordo_tree_update_hint(&t, leaf, 2, &lv), -ESTALE);
	/* Replacing the long value through the hint frees its extent. */
	CHECK(!hint_update(&t, leaf, 1, &v));
	ordo_tree_get_stats(&t, &st);
	CHECK_EQ(st.extent_bytes, 0);
	CHECK(!ordo_tree_get(&t, 1, &k));
	CHECK_EQ(k, 7);
	ordo_tree_destroy(&t);
	return 0;
}

/*
 * Concurrency: updaters own disjoint keys and write increasing tags,
 * through hints that go stale while inserters split the leaves under
 * them.  At the end every key holds its owner's last tag.  The inserter
 * starts only once every updater holds its hints, and the updaters go on
 * until it is done, so some hints go stale however the threads are
 * scheduled.
 */
#define C_UPDATERS	3
#define C_KEYS		400
#define C_ROUNDS	60

static pthread_barrier_t c_start;
static atomic_int c_inserted;

struct c_arg {
	struct ordo_tree *t;
	int id;
	int last;	/* the tag of the last round */
	u64 hits;
	u64 stale;
	int err;
};

static void *c_updater(void *p)
{
	struct c_arg *a = p;
	u32 leaf[C_KEYS], inc[C_KEYS];
	u8 val[32];
	int r, i, k;

	for (k = 0; k < C_KEYS; k++)
		if (locate(a->t, (u64)k * 1000 + a->id, &leaf[k], &inc[k]))
			a->err = 1;
	pthread_barrier_wait(&c_start);
	for (r = 1; (r <= C_ROUNDS || !atomic_load(&c_inserted)) && !a->err;
	     r++) {
		for (k = 0; k < C_KEYS; k++) {
			u64 key = (u64)k * 1000 + a->id;

			vfill(val, 32, key, r);
			i = hint_update(a->t, leaf[k], key, val);
			if (i == 0) {
				a->hits++;
				continue;
			}
			if (i != -ESTALE) {
				a->err = 2;
				break;
			}
			a->stale++;
			if (ordo_tree_update(a->t, key, val)) {
				a->err = 3;
				break;
			}
			/* Refresh the hint as a client would after a READ. */
			if (locate(a->t, key, &leaf[k], &inc[k])) {
				a->err = 4;
				break;
			}
		}
		a->last = r;
	}
	return NULL;
}

static void *c_inserter(void *p)
{
	struct c_arg *a = p;
	u8 val[32];
	u64 k;

	pthread_barrier_wait(&c_start);
	/* Keys between the updaters' keys: splits all over the range. */
	for (k = 0; k < C_KEYS * 20; k++) {
		u64 key = (k % C_KEYS) * 1000 + 100 + k / C_KEYS;

		vfill(val, 32, key, 0);
		if (ordo_tree_put(a->t, key, val)) {
			a->err = 5;
			break;
		}
	}
	atomic_store(&c_inserted, 1);
	return NULL;
}

static int t_concurrent(void)
{
	struct c_arg args[C_UPDATERS + 1];
	pthread_t th[C_UPDATERS + 1];
	struct ordo_tree t;
	u64 hits = 0, stale = 0;
	u8 val[32];
	int i, k;

	CHECK(!tree_new(&t, 8, 32, 64 << 20));
	for (i = 0; i < C_UPDATERS; i++)
		for (k = 0; k < C_KEYS; k++) {
			u64 key = (u64)k * 1000 + i;

			vfill(val, 32, key, 0);
			CHECK(!ordo_tree_put(&t, key, val));
		}
	memset(args, 0, sizeof(args));
	atomic_store(&c_inserted, 0);
	CHECK(!pthread_barrier_init(&c_start, NULL, C_UPDATERS + 1));
	for (i = 0; i <= C_UPDATERS; i++) {
		args[i].t = &t;
		args[i].id = i;
		CHECK(!pthread_create(&th[i], NULL,
				      i < C_UPDATERS ? c_updater : c_inserter,
				      &args[i]));
	}
	for (i = 0; i <= C_UPDATERS; i++)
		pthread_join(th[i], NULL);
	pthread_barrier_destroy(&c_start);
	for (i = 0; i <= C_UPDATERS; i++) {
		CHECK_EQ(args[i].err, 0);
		hits += args[i].hits;
		stale += args[i].stale;
	}
	printf("# %llu hinted updates applied, %llu stale hints\n",
	       (unsigned long long)hits, (unsigned long long)stale);
	CHECK(hits > 0);
	CHECK(stale > 0);
	for (i = 0; i < C_UPDATERS; i++)
		for (k = 0; k < C_KEYS; k++) {
			u64 key = (u64)k * 1000 + i;

			CHECK(!ordo_tree_get(&t, key, val));
			CHECK(vcheck(val, 32, key, args[i].last));
		}
	ordo_tree_destroy(&t);
	return 0;
}

int main(void)
{
	run("hint that holds updates in place", t_hit);
	run("absent key in the hinted leaf is ENOENT", t_absent);
	run("keys outside the fences are ESTALE", t_stale);
	run("after a split, old hints hold for the keys the leaf kept", t_after_split);
	run("non-leaf node numbers are ESTALE", t_not_a_leaf);
	run("value-chunk numbers are ESTALE; extents freed", t_extents);
	run("hinted updates racing with splits", t_concurrent);
	return tap_done();
}
