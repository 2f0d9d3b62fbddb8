// SPDX-License-Identifier: GPL-2.0
/*
 * Randomized differential test of the B-link tree against a simple
 * reference (a sorted key universe with a presence bitmap), single-threaded
 * with several key distributions, leaf shapes and a tiny memory bound, then
 * multithreaded: writers on disjoint key partitions, lock-free readers and
 * a thread retiring empty leaves.  Empty leaves are retired periodically in
 * the single-threaded runs too.  Values have random lengths, 0..value_size
 * and now and then longer, out of line up to the store's most (the
 * reference keeps each one's), and every check compares lengths as well
 * as bytes; now and then every leaf is copied whole, with the extents its
 * slots name, and validated as a remote reader would.  A run ends by
 * deleting every key: the extents' bytes must all come back.
 *
 * Usage: tree_diff [-s SEED]... [-n OPS] [-m] [-M]
 *   -s SEED  run with this seed (repeatable; default: 1 2 3)
 *   -n OPS   operations per single-threaded run (default 300000)
 *   -m       multithreaded runs only; -M single-threaded runs only
 * Prints TAP; exits non-zero on any failure.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <getopt.h>
#include <inttypes.h>
#include <time.h>
#include <unistd.h>

#include "compat.h"
#include "node.h"
#include "pool.h"
#include "tree.h"

static int tap_n, tap_failed;

#define FAIL(...) do {							\
	printf("# %s:%d: ", __FILE__, __LINE__);			\
	printf(__VA_ARGS__);						\
	printf("\n");							\
	return 1;							\
} while (0)

static void tap(const char *name, int r)
{
	printf("%sok %d - %s\n", r ? "not " : "", ++tap_n, name);
	fflush(stdout);
	if (r)
		tap_failed++;
}

static void *chunk_alloc(void *ctx, u32 idx, size_t size)
{
	(void)ctx;
	(void)idx;
	return aligned_alloc(64, size);
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

/*
 * A value names its key and a write sequence number.  One of 8 bytes or
 * more is the first @len bytes of a stream: word 0 is seq << 32 | low
 * bits of mix(key ^ seq), further words are mix(key, seq, i).  A shorter
 * one has no room for the sequence number: it is the first @len bytes of
 * mix(key, len).  A reader can check any value it sees, of any length,
 * without knowing what was written last.
 */
static void vfill(void *buf, u32 len, u64 key, u32 seq)
{
	u8 *b = buf;
	u64 w;
	u32 i;

	if (len < 8) {
		w = mix(key ^ (len + 1) * 0xd6e8feb86659fd93ULL);
		memcpy(b, &w, len);
		return;
	}
	w = (u64)seq << 32 | (u32)mix(key ^ seq);
	/* Word by word through memcpy: values need not be aligned. */
	for (i = 0; i < len; i += 8) {
		if (i)
			w = mix(key + (i / 8) * 0x9e3779b97f4a7c15ULL + seq);
		memcpy(b + i, &w, len - i < 8 ? len - i : 8);
	}
}

/* vcheck() of a value too short to name its sequence number. */
#define V_SHORT	U32_MAX

/*
 * Return: the sequence number encoded in @len bytes at @buf, V_SHORT for
 * a short value of @key, or 0 if @buf is not a value of @key.
 */
static u32 vcheck(const void *buf, u32 len, u64 key)
{
	const u8 *b = buf;
	u8 tmp[8];
	u64 w0, w;
	u32 seq, i;

	if (len < 8) {
		vfill(tmp, len, key, 0);
		return memcmp(b, tmp, len) ? 0 : V_SHORT;
	}
	memcpy(&w0, b, 8);
	seq = w0 >> 32;
	if ((u32)w0 != (u32)mix(key ^ seq))
		return 0;
	for (i = 8; i < len; i += 8) {
		w = mix(key + (i / 8) * 0x9e3779b97f4a7c15ULL + seq);
		if (memcmp(b + i, &w, len - i < 8 ? len - i : 8))
			return 0;
	}
	return seq;
}

/*
 * The length of the value write @seq of @key stores: 0, 1, 7, 8, 9,
 * value_size - 1 and value_size often, any other length too; when @lmax
 * exceeds value_size, one write in 8 is longer (out of line): value_size
 * + 1, 4096, up to 4000 bytes more than value_size, and rarely @lmax.
 */
static u32 vlen(u64 key, u32 seq, u32 vs, u32 lmax)
{
	u64 z = mix(key * 0x2545f4914f6cdd1dULL ^ seq), y = z >> 3;

	if (lmax > vs && z % 8 == 0) {
		switch (y % 8) {
		case 0:
			return vs + 1;
		case 1:
			return min_t(u32, 4096, lmax);
		case 2:
			if (y % 64 == 2)
				return lmax;
			fallthrough;
		default:
			return vs + 1 + (y >> 8) % min_t(u32, lmax - vs, 4000);
		}
	}
	switch (z % 10) {
	case 0:
		return 0;
	case 1:
		return 1;
	case 2:
		return 7;
	case 3:
		return 8;
	case 4:
		return min_t(u32, 9, vs);
	case 5:
		return vs - 1;
	case 6:
		return vs;
	default:
		return (z >> 8) % (vs + 1);
	}
}

/*
 * A value a concurrent reader sees: @len bytes of @key's, and when long
 * enough to name its write, of the length that write gives it.
 */
static bool vseen_ok(const void *buf, u32 len, u64 key, u32 vs, u32 lmax)
{
	u32 seq;

	if (len > lmax)
		return false;
	seq = vcheck(buf, len, key);
	return seq == V_SHORT || (seq && vlen(key, seq, vs, lmax) == len);
}

/* Are bytes [@from, @to) of @b all @c? */
static bool all_bytes(const u8 *b, u32 from, u32 to, u8 c)
{
	for (; from < to; from++)
		if (b[from] != c)
			return false;
	return true;
}

enum { D_DENSE, D_UNIFORM, D_CLUSTER, D_STRIDE };
static const char *const dist_name[] = { "dense", "uniform", "cluster",
					 "stride" };

/* Sorted, distinct keys that ops draw from; ref state is per index. */
struct ref {
	u64 *keys;
	u32 n;
	u32 *seq;	/* 0: absent */
	u32 *len;	/* length of the value */
	u64 *bits;	/* presence bitmap */
	u64 present;
};

static int cmp_u64(const void *a, const void *b)
{
	u64 x = *(const u64 *)a, y = *(const u64 *)b;

	return x < y ? -1 : x > y;
}

static void ref_init(struct ref *r, int dist, u32 n, u64 *rs)
{
	u32 i, j, k;

	r->keys = malloc(sizeof(u64) * n);
	for (i = 0; i < n; i++) {
		switch (dist) {
		case D_DENSE:
			r->keys[i] = i;
			break;
		case D_UNIFORM:
			r->keys[i] = rnd(rs);
			break;
		case D_CLUSTER:
			/* 64 runs of consecutive keys; one at the top. */
			k = i % 64;
			r->keys[i] = (k == 63 ? U64_MAX - n : mix(k + *rs)) + i / 64;
			break;
		default:
			r->keys[i] = (u64)i * 1000003 + 17;
			break;
		}
	}
	if (dist == D_UNIFORM && n > 2) {
		r->keys[0] = 0;
		r->keys[1] = U64_MAX;
	}
	qsort(r->keys, n, sizeof(u64), cmp_u64);
	for (i = 1, j = 1; i < n; i++)
		if (r->keys[i] != r->keys[j - 1])
			r->keys[j++] = r->keys[i];
	r->n = j;
	r->seq = calloc(r->n, sizeof(u32));
	r->len = calloc(r->n, sizeof(u32));
	r->bits = calloc(r->n / 64 + 1, sizeof(u64));
	r->present = 0;
}

static void ref_free(struct ref *r)
{
	free(r->keys);
	free(r->seq);
	free(r->len);
	free(r->bits);
}

static void ref_set(struct ref *r, u32 i, u32 seq)
{
	if (!r->seq[i] && seq) {
		r->present++;
		r->bits[i / 64] |= 1ULL << (i % 64);
	} else if (r->seq[i] && !seq) {
		r->present--;
		r->bits[i / 64] &= ~(1ULL << (i % 64));
	}
	r->seq[i] = seq;
}

/* Index of the first universe key >= @key (r->n if none). */
static u32 ref_lower(const struct ref *r, u64 key)
{
	u32 lo = 0, hi = r->n;

	while (lo < hi) {
		u32 mid = lo + (hi - lo) / 2;

		if (r->keys[mid] < key)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* First present index >= @i, or r->n. */
static u32 ref_next(const struct ref *r, u32 i)
{
	u32 w = i / 64;
	u64 m;

	if (i >= r->n)
		return r->n;
	m = r->bits[w] & (~0ULL << (i % 64));
	while (!m) {
		if (++w > r->n / 64)
			return r->n;
		m = r->bits[w];
	}
	i = w * 64 + __builtin_ctzll(m);
	return i < r->n ? i : r->n;
}

/*
 * Is @got value @idx of the reference: @len bytes, its length, then bytes
 * @fill up to @room?
 */
static bool value_is(const struct ref *r, u32 idx, const u8 *got, u32 len,
		     u32 room, u8 fill)
{
	u8 *want;
	bool ok;

	if (idx >= r->n || !r->seq[idx] || len != r->len[idx])
		return false;
	want = malloc(len + 1);
	vfill(want, len, r->keys[idx], r->seq[idx]);
	ok = !memcmp(got, want, len) && all_bytes(got, len, room, fill);
	free(want);
	return ok;
}

/*
 * Copy the extent that slot @slot of the validated leaf copy @h names, as
 * a remote reader would (to @buf, room for the store's longest value and
 * its header), and validate it.  Return: as ordo_extent_validate(), with
 * *@len the value's length; its bytes are at @buf + 24.
 */
static int extent_copy(struct ordo_tree *t, const struct ordo_node_hdr *h,
		       u32 slot, u8 *buf, u32 *len)
{
	const struct ordo_geo *g = &t->geo;
	u64 ref = le64_to_cpu(ordo_leaf_cchecks(h, g)[slot]);
	u32 units = le16_to_cpu(ordo_leaf_clens(h, g)[slot]) &
		    ORDO_LEN_UNITS_MASK;
	u64 off = ordo_extent_ref_offset(ref), cs = t->pool.chunk_size;

	if (off / cs >= ordo_pool_nr_chunks(&t->pool) ||
	    units > ordo_extent_units(ordo_tree_value_max(t)))
		return -EIO;
	memcpy(buf, ordo_extent_at(&t->extents, ref),
	       (size_t)units * ORDO_EXTENT_UNIT);
	return ordo_extent_validate(buf, units * ORDO_EXTENT_UNIT,
				    le64_to_cpu(ordo_node_ckeys(h)[slot]), ref,
				    units, g->value_size, cs, len);
}

/*
 * Is a SCAN's pair @idx of the reference: a value of up to value_size
 * bytes in its value_size-byte slot, zero past its length; a longer one
 * by its length alone, its slot zero?
 */
static bool scan_value_is(const struct ref *r, u32 idx, const u8 *got,
			  u32 len, u32 vs)
{
	if (len <= vs)
		return value_is(r, idx, got, len, vs, 0);
	return idx < r->n && r->seq[idx] && len == r->len[idx] &&
	       all_bytes(got, 0, vs, 0);
}

/* Read a key's value whole with ordo_tree_get_part() and compare it. */
static bool get_part_is(struct ordo_tree *t, const struct ref *r, u32 idx)
{
	u32 lmax = ordo_tree_value_max(t);
	u8 *buf = malloc(lmax + 1);
	struct ordo_value_part vp = { .cap = lmax + 1, .buf = buf };
	bool ok;

	memset(buf, 0xa5, lmax + 1);
	ok = !ordo_tree_get_part(t, r->keys[idx], &vp) &&
	     vp.copied == vp.len && (vp.units != 0) == (vp.len > t->geo.value_size) &&
	     value_is(r, idx, buf, vp.len, lmax + 1, 0xa5);
	free(buf);
	return ok;
}

/* The leaf iterator's snapshots tile the key space, one per leaf. */
static int check_leaves(struct ordo_tree *t, const struct ordo_tree_stats *st)
{
	struct ordo_leaf_iter it;
	struct ordo_leaf_snap s;
	u64 prev = 0, leaves = 0, keys = 0;
	int r;

	if (ordo_leaf_iter_start(&it, t, 0))
		FAIL("leaf iterator");
	while ((r = ordo_leaf_iter_next(&it, &s)) == 1) {
		if (s.low_key != prev || s.clipped)
			FAIL("leaf %u: low fence %" PRIx64 ", previous high %"
			     PRIx64, s.node_no, s.low_key, prev);
		prev = s.high_key;
		leaves++;
		keys += s.count;
	}
	ordo_leaf_iter_end(&it);
	if (r || leaves != st->leaves || keys != st->keys)
		FAIL("%" PRIu64 " leaves and %" PRIu64 " keys iterated, stats %"
		     PRIu64 " and %" PRIu64, leaves, keys, st->leaves, st->keys);
	if (st->leaves != st->leaf_splits + 1 - st->leaves_retired)
		FAIL("leaves %" PRIu64 " != splits %" PRIu64 " + 1 - retired %"
		     PRIu64, st->leaves, st->leaf_splits, st->leaves_retired);
	return 0;
}

/*
 * Every leaf copied whole, as a remote reader copies it, is one
 * publication (ordo_node_validate()) and holds the reference's pairs:
 * each used slot's length and bytes, and zeroes past the length of a
 * value in the key block.
 */
static int check_leaf_copies(struct ordo_tree *t, const struct ref *r)
{
	const struct ordo_geo *g = &t->geo;
	u32 room = ordo_leaf_values_in_block(g->value_size) ?
		   ORDO_VALUE_IN_BLOCK_MAX : 0;
	u8 *buf = malloc(g->node_size);
	u8 *ext = malloc(ordo_tree_value_max(t) + 64);
	const struct ordo_node_hdr *h = (const void *)buf;
	struct ordo_leaf_iter it;
	struct ordo_leaf_snap s;
	u64 pairs = 0;
	u32 i, cnt;
	int err, ret = 1;

	if (!buf || !ext || ordo_leaf_iter_start(&it, t, 0)) {
		free(buf);
		free(ext);
		FAIL("leaf iterator");
	}
	while ((err = ordo_leaf_iter_next(&it, &s)) == 1) {
		err = ordo_node_copy_validate(buf, ordo_pool_node(&t->pool,
								  s.node_no), g);
		if (err) {
			printf("# leaf %u: copy does not validate: %d\n",
			       s.node_no, err);
			goto out;
		}
		cnt = le16_to_cpu(h->count);
		for (i = 0; i < cnt; i++) {
			u32 slot = ordo_leaf_slot(h, g, i);
			u32 len = le16_to_cpu(ordo_leaf_clens(h, g)[slot]);
			u64 key = ordo_leaf_key(h, g, i);
			const u8 *v = ordo_leaf_cvalue(h, g, slot);
			u32 rm = room;
			int xerr = 0;

			/* Nothing writes an extent while the test looks. */
			if (ordo_leaf_is_extent(h, g, slot)) {
				xerr = extent_copy(t, h, slot, ext, &len);
				v = ext + ORDO_EXTENT_HDR_SIZE;
				rm = 0;
			}
			if (xerr || !value_is(r, ref_lower(r, key), v, len,
					      max(len, rm), 0)) {
				printf("# leaf %u: key %" PRIx64
				       ", slot %u, length %u: wrong value\n",
				       s.node_no, key, slot, len);
				goto out;
			}
		}
		pairs += cnt;
	}
	if (err || pairs != r->present) {
		printf("# leaf copies: %" PRIu64 " pairs, reference %" PRIu64
		       "\n", pairs, r->present);
		goto out;
	}
	ret = 0;
out:
	ordo_leaf_iter_end(&it);
	free(buf);
	free(ext);
	return ret;
}

/* The whole tree must equal the reference. */
static int compare_all(struct ordo_tree *t, const struct ref *r)
{
	u32 vs = t->geo.value_size, i, idx = 0;
	u64 *keys = malloc(sizeof(u64) * (r->present + 1));
	u8 *vals = malloc((size_t)vs * (r->present + 1));
	u32 *lens = malloc(sizeof(u32) * (r->present + 1));
	struct ordo_tree_stats st;
	int got, ret = 1;

	got = ordo_tree_scan_len(t, 0, r->present + 1, keys, vals, lens);
	if (got != (int)r->present) {
		printf("# full scan: %d keys, reference %" PRIu64 "\n", got,
		       r->present);
		goto out;
	}
	for (i = 0; i < (u32)got; i++) {
		idx = ref_next(r, idx);
		if (keys[i] != r->keys[idx] ||
		    !scan_value_is(r, idx, vals + (size_t)i * vs, lens[i], vs) ||
		    (lens[i] > vs && !get_part_is(t, r, idx))) {
			printf("# full scan: pair %u: key %" PRIx64 " expected %"
			       PRIx64 ", length %u\n", i, keys[i], r->keys[idx],
			       lens[i]);
			goto out;
		}
		idx++;
	}
	ordo_tree_get_stats(t, &st);
	if (st.keys != r->present) {
		printf("# stats.keys %" PRIu64 " != %" PRIu64 "\n", st.keys,
		       r->present);
		goto out;
	}
	if (check_leaves(t, &st) || check_leaf_copies(t, r))
		goto out;
	ret = 0;
out:
	free(keys);
	free(vals);
	free(lens);
	return ret;
}

/*
 * Delete every key the reference holds: the tree must then hold no key
 * and no extent bytes (deleted values' extents come back).
 */
static int delete_all(struct ordo_tree *t, struct ref *r)
{
	struct ordo_tree_stats st;
	u32 i;

	for (i = 0; i < r->n; i++) {
		if (!r->seq[i])
			continue;
		if (ordo_tree_delete(t, r->keys[i]))
			FAIL("delete %" PRIx64, r->keys[i]);
		ref_set(r, i, 0);
	}
	ordo_tree_get_stats(t, &st);
	if (st.keys || st.extent_bytes)
		FAIL("%" PRIu64 " keys, %" PRIu64 " extent bytes left",
		     st.keys, st.extent_bytes);
	return 0;
}

struct cfg {
	u32 slots, vs, dist, universe;
	u64 max_bytes;
	u32 ops_div;	/* run ops / ops_div operations */
};

/*
 * Scan @how: 0 with values and lengths, 1 values only, 2 lengths only
 * (ordo_tree_scan_len()), 3 through ordo_tree_scan().  Each value takes
 * value_size bytes, zero past its length.
 */
static int do_scan_check(struct ordo_tree *t, struct ref *r, u64 start,
			 u32 n, u64 *keys, u8 *vals, u32 *lens, u32 how)
{
	u32 vs = t->geo.value_size, idx = ref_lower(r, start), i;
	u8 *v = how == 2 ? NULL : vals;
	u32 *l = how == 0 || how == 2 ? lens : NULL;
	int got;

	if (v)
		memset(v, 0xa5, (size_t)n * vs);
	if (how == 3)
		got = ordo_tree_scan(t, start, n, keys, v);
	else
		got = ordo_tree_scan_len(t, start, n, keys, v, l);
	if (got < 0 || (u32)got > n)
		FAIL("scan(%" PRIx64 ", %u): %d", start, n, got);
	for (i = 0; i < (u32)got; i++) {
		idx = ref_next(r, idx);
		if (idx >= r->n || keys[i] != r->keys[idx] ||
		    (l && l[i] != r->len[idx]) ||
		    (v && !scan_value_is(r, idx, v + (size_t)i * vs,
					 r->len[idx], vs)))
			FAIL("scan(%" PRIx64 ", %u) way %u: pair %u wrong",
			     start, n, how, i);
		idx++;
	}
	if ((u32)got < n && ref_next(r, idx) != r->n)
		FAIL("scan(%" PRIx64 ", %u): %d pairs, too few", start, n, got);
	return 0;
}

/*
 * Writes of random lengths (vlen()) through ordo_tree_*_len(), and some
 * of whole slots through the fixed-size calls; reads the same two ways.
 * A value to write ends where its buffer does, so that reading past its
 * length trips ASan.
 */
static int run_single(const struct cfg *c, u64 seed, u32 ops)
{
	u32 vs = c->vs, i, idx, seq = 0, n, len, glen;
	u32 lmax = ordo_value_len_max(1 << 16);
	u8 *val = malloc(lmax), *out = malloc(vs), *vb;
	u8 *vals = malloc((size_t)vs * 128);
	u64 rs = seed * 0x51ed2701 + c->dist, key, keys[128], nomem = 0;
	u64 retired = 0, lens_seen[4] = { 0 };
	u32 got, lens[128];
	struct ordo_tree_params p;
	struct ordo_tree_stats st;
	struct ordo_value wv;
	struct ordo_tree t;
	struct ref r;
	int err, want, op, phase = 0;
	bool whole;

	ordo_tree_default_params(&p);
	p.leaf_slots = c->slots;
	p.value_size = vs;
	p.chunk_size = 1 << 16;
	p.max_bytes = c->max_bytes;
	p.ops = &chunk_ops;
	if (ordo_tree_init(&t, &p))
		FAIL("init");
	ref_init(&r, c->dist, c->universe, &rs);
	for (i = 0; i < ops; i++) {
		u32 pick = rnd(&rs) % 100;

		/* Phases: grow, mixed, shrink, mixed, ... */
		if (i % 50000 == 0)
			phase = (i / 50000) % 4;
		idx = rnd(&rs) % r.n;
		key = r.keys[idx];
		if (rnd(&rs) % 16 == 0) {
			/* A key likely outside the universe. */
			key = rnd(&rs);
			idx = ref_lower(&r, key);
			if (idx == r.n || r.keys[idx] != key)
				idx = r.n;
		}
		if (phase == 0)
			op = pick < 60 ? 1 : pick < 75 ? 2 : pick < 85 ? 0 : pick < 95 ? 5 : 4;
		else if (phase == 2)
			op = pick < 55 ? 4 : pick < 70 ? 0 : pick < 80 ? 3 : pick < 90 ? 5 : 1;
		else
			op = pick < 25 ? 0 : pick < 45 ? 1 : pick < 55 ? 2 : pick < 65 ? 3 : pick < 85 ? 4 : 5;
		if (idx == r.n && op >= 1 && op <= 2)
			op = 0;
		seq++;
		whole = rnd(&rs) % 5 == 0;
		len = whole ? vs : vlen(key, seq, vs, lmax);
		lens_seen[len == 0 ? 0 : len < vs ? 1 : len == vs ? 2 : 3]++;
		vb = val + lmax - len;
		wv.buf = vb;
		wv.len = len;
		vfill(vb, len, key, seq);
		switch (op) {
		case 0:	/* get */
			want = idx < r.n && r.seq[idx] ? 0 : -ENOENT;
			memset(out, 0xa5, vs);
			glen = U32_MAX;
			if (!want && r.len[idx] > vs)
				want = -ENOBUFS;
			if (whole) {
				err = ordo_tree_get(&t, key, out);
				glen = err && err != -ENOBUFS ? 0 : r.len[idx];
			} else {
				err = ordo_tree_get_len(&t, key, out, &glen);
			}
			if (err != want)
				FAIL("op %u get %" PRIx64 ": %d, want %d", i, key,
				     err, want);
			/* A longer value: its length, then its bytes by part. */
			if (err == -ENOBUFS) {
				if (glen != r.len[idx] || !get_part_is(&t, &r, idx))
					FAIL("op %u get %" PRIx64
					     ": long value, length %u, want %u",
					     i, key, glen, r.len[idx]);
				break;
			}
			/* A GET of a whole slot zero-pads; else writes len. */
			if (!err && !value_is(&r, idx, out, glen, vs,
					      whole ? 0 : 0xa5))
				FAIL("op %u get %" PRIx64
				     "%s: wrong value, length %u, want %u", i,
				     key, whole ? " (whole slot)" : "", glen,
				     r.len[idx]);
			break;
		case 1:	/* put */
		case 2:	/* insert */
			if (whole)
				err = op == 1 ? ordo_tree_put(&t, key, vb) :
					ordo_tree_insert(&t, key, vb);
			else
				err = op == 1 ? ordo_tree_put_len(&t, key, &wv) :
					ordo_tree_insert_len(&t, key, &wv);
			want = op == 2 && r.seq[idx] ? -EEXIST : 0;
			/* A longer value needs memory for its extent too. */
			if (err == -ENOMEM && (!r.seq[idx] || len > vs) &&
			    c->max_bytes < (1 << 22)) {
				nomem++;
				break;
			}
			if (err != want)
				FAIL("op %u %s %" PRIx64 ": %d, want %d", i,
				     op == 1 ? "put" : "insert", key, err, want);
			if (!err) {
				ref_set(&r, idx, seq);
				r.len[idx] = len;
			}
			break;
		case 3:	/* update */
			err = whole ? ordo_tree_update(&t, key, vb) :
				ordo_tree_update_len(&t, key, &wv);
			want = idx < r.n && r.seq[idx] ? 0 : -ENOENT;
			if (err == -ENOMEM && len > vs && c->max_bytes < (1 << 22)) {
				nomem++;
				break;
			}
			if (err != want)
				FAIL("op %u update %" PRIx64 ": %d, want %d", i,
				     key, err, want);
			if (!err) {
				ref_set(&r, idx, seq);
				r.len[idx] = len;
			}
			break;
		case 4:	/* delete */
			err = ordo_tree_delete(&t, key);
			want = idx < r.n && r.seq[idx] ? 0 : -ENOENT;
			if (err != want)
				FAIL("op %u delete %" PRIx64 ": %d, want %d", i,
				     key, err, want);
			if (!err)
				ref_set(&r, idx, 0);
			break;
		default: /* scan */
			n = rnd(&rs) % 4 ? rnd(&rs) % 40 : rnd(&rs) % 129;
			if (do_scan_check(&t, &r, key - (rnd(&rs) % 3 == 0),
					  n, keys, vals, lens, rnd(&rs) % 4))
				FAIL("op %u", i);
			break;
		}
		if (i % 1000 == 999) {
			/* Retire a few empty leaves now and then. */
			if (ordo_tree_retire_empty(&t, 1 + rnd(&rs) % 64, &got))
				FAIL("op %u: retire", i);
			retired += got;
		}
		if (i % 25000 == 24999 && compare_all(&t, &r))
			FAIL("after op %u", i);
	}
	if (compare_all(&t, &r))
		FAIL("at the end");
	ordo_tree_get_stats(&t, &st);
	if (st.unlinked_splits)
		FAIL("unlinked splits without concurrency");
	if (c->max_bytes < (1 << 22) && !nomem)
		FAIL("the memory bound was never reached");
	/* Small leaves empty out in the shrink phases; big ones rarely do. */
	if (st.leaves_retired != retired ||
	    (c->slots <= 8 && ops >= 100000 && !retired))
		FAIL("%" PRIu64 " leaves retired, stats %" PRIu64, retired,
		     st.leaves_retired);
	if (ops >= 1000 && (!lens_seen[0] || !lens_seen[1] || !lens_seen[2] ||
			    !lens_seen[3]))
		FAIL("lengths: %" PRIu64 " empty, %" PRIu64 " partial, %"
		     PRIu64 " whole, %" PRIu64 " longer", lens_seen[0],
		     lens_seen[1], lens_seen[2], lens_seen[3]);
	if (delete_all(&t, &r))
		FAIL("at the end");
	printf("# slots %u vs %u %s seed %" PRIu64 ": %" PRIu64
	       " keys, height %u, %" PRIu64 " leaves, %" PRIu64
	       " splits, %" PRIu64 " retired, %" PRIu64 " ENOMEM, %" PRIu64
	       " longer values written, %" PRIu64 " extent bytes before the "
	       "deletes\n", c->slots,
	       vs, dist_name[c->dist], seed, st.keys, st.height, st.leaves,
	       st.leaf_splits, st.leaves_retired, nomem, lens_seen[3],
	       st.extent_bytes);
	ordo_tree_destroy(&t);
	ref_free(&r);
	free(val);
	free(out);
	free(vals);
	return 0;
}

/* Multithreaded run. */
#define MT_MAX_THREADS	8

struct mt {
	struct ordo_tree t;
	struct ref r;
	u32 writers;
	u32 ops;
	int stop;
	int stop_retirer;
	int errors;
	u64 hook_calls;
	u64 retire_calls;
	u64 retire_hook_calls;
	u64 retired;
};

struct mt_arg {
	struct mt *m;
	u32 id;
	u64 reads, scans, copies, torn;
};

static void mt_hook(void *ctx, u32 left, u32 right, u64 sep)
{
	struct mt *m = ctx;

	(void)left;
	(void)right;
	(void)sep;
	__atomic_fetch_add(&m->hook_calls, 1, __ATOMIC_RELAXED);
}

static void mt_retire_hook(void *ctx, u32 heir, u32 gone, u64 low)
{
	struct mt *m = ctx;

	(void)heir;
	(void)gone;
	(void)low;
	__atomic_fetch_add(&m->retire_hook_calls, 1, __ATOMIC_RELAXED);
}

#define MT_ERR(m, ...) do {						\
	printf("# " __VA_ARGS__);					\
	printf("\n");							\
	__atomic_fetch_add(&(m)->errors, 1, __ATOMIC_RELAXED);		\
	return NULL;							\
} while (0)

static void *mt_writer(void *p)
{
	struct mt_arg *a = p;
	struct mt *m = a->m;
	struct ref *r = &m->r;
	u32 vs = m->t.geo.value_size, i, idx, seq, slice = r->n / m->writers;
	u32 len, lmax = ordo_tree_value_max(&m->t);
	u8 *val = malloc(lmax);
	u64 rs = 1000 + a->id, key;
	struct ordo_value wv;
	int err, want;

	for (i = 0; i < m->ops; i++) {
		u32 op = rnd(&rs) % 100;

		idx = (rnd(&rs) % slice) * m->writers + a->id;
		key = r->keys[idx];
		seq = i * m->writers + a->id + 1;
		len = vlen(key, seq, vs, lmax);
		wv = (struct ordo_value){ .buf = val + lmax - len, .len = len };
		vfill(val + lmax - len, len, key, seq);
		if (i > m->ops / 2 && op < 40)
			op += 60;	/* second half: more deletes */
		if (op < 45) {
			err = ordo_tree_put_len(&m->t, key, &wv);
			want = 0;
		} else if (op < 65) {
			err = ordo_tree_insert_len(&m->t, key, &wv);
			want = r->seq[idx] ? -EEXIST : 0;
		} else if (op < 75) {
			err = ordo_tree_update_len(&m->t, key, &wv);
			want = r->seq[idx] ? 0 : -ENOENT;
		} else {
			err = ordo_tree_delete(&m->t, key);
			want = r->seq[idx] ? 0 : -ENOENT;
			seq = 0;
		}
		if (err != want)
			MT_ERR(m, "writer %u op %u key %" PRIx64 ": %d, want %d",
			       a->id, i, key, err, want);
		if (!err) {
			r->seq[idx] = seq;
			r->len[idx] = len;
		}
	}
	free(val);
	return NULL;
}

/* Retires empty leaves all along, in passes of random size. */
static void *mt_retirer(void *p)
{
	struct mt *m = p;
	u64 rs = 999;
	u32 got;

	while (!__atomic_load_n(&m->stop_retirer, __ATOMIC_ACQUIRE)) {
		if (ordo_tree_retire_empty(&m->t, 1 + rnd(&rs) % 32, &got))
			MT_ERR(m, "retire failed");
		m->retire_calls++;
		m->retired += got;
		if (!got)
			sched_yield();
	}
	return NULL;
}

static bool in_universe(const struct ref *r, u64 key)
{
	u32 i = ref_lower(r, key);

	return i < r->n && r->keys[i] == key;
}

/*
 * Copy a random node as a remote reader would and check what it says,
 * and what the extents its slots name say (@ext: room for the longest).
 */
static int mt_raw_copy(struct mt *m, u64 *rs, u8 *buf, u8 *ext, u64 *torn)
{
	struct ordo_tree *t = &m->t;
	const struct ordo_geo *g = &t->geo;
	u32 n = 1 + rnd(rs) % (READ_ONCE(t->pool.next) - 1), i, cnt;
	const struct ordo_node_hdr *h = (const void *)buf;
	int err;

	/* Numbers in value and inner chunks name no leaf-sized node. */
	if (!ordo_pool_is_leaf_slot(&t->pool, n))
		return 0;
	err = ordo_node_copy_validate(buf, ordo_pool_node(&t->pool, n), g);
	if (err == -EAGAIN)
		(*torn)++;
	if (err == -EAGAIN || err == -ENODATA)
		return 0;
	if (err || le32_to_cpu(h->node_no) != n)
		return 1;
	if (h->level || h->flags & ORDO_NODE_F_FREE)
		return 0;
	cnt = le16_to_cpu(h->count);
	for (i = 0; i < cnt; i++) {
		u64 key = ordo_leaf_key(h, g, i);
		u32 slot = ordo_leaf_slot(h, g, i);
		const u8 *v = ordo_leaf_cvalue(h, g, slot);
		u32 len = le16_to_cpu(ordo_leaf_clens(h, g)[slot]);

		if (ordo_leaf_is_extent(h, g, slot)) {
			/* Freed and reused since: the copy must fail. */
			err = extent_copy(t, h, slot, ext, &len);
			if (err == -EAGAIN) {
				(*torn)++;
				continue;
			}
			if (err)
				return 1;
			v = ext + ORDO_EXTENT_HDR_SIZE;
		}
		if ((i && ordo_leaf_key(h, g, i - 1) >= key) ||
		    key < le64_to_cpu(h->low_key) ||
		    ((h->flags & ORDO_NODE_F_HAS_HIGH) &&
		     key >= le64_to_cpu(h->high_key)) ||
		    !vseen_ok(v, len, key, g->value_size,
			      ordo_tree_value_max(t)))
			return 1;
	}
	return 0;
}

static void *mt_reader(void *p)
{
	struct mt_arg *a = p;
	struct mt *m = a->m;
	struct ref *r = &m->r;
	u32 vs = m->t.geo.value_size, i, len, room, lens[64];
	u32 lmax = ordo_tree_value_max(&m->t);
	u8 *val = malloc(lmax + 8), *vals = malloc((size_t)vs * 64);
	u8 *node = malloc(m->t.geo.node_size), *ext = malloc(lmax + 64);
	u64 rs = 5000 + a->id, keys[64];
	int err;

	while (!__atomic_load_n(&m->stop, __ATOMIC_ACQUIRE)) {
		u64 key = r->keys[rnd(&rs) % r->n];
		u32 what = rnd(&rs) % 10;

		if (what < 6) {
			/*
			 * The value's bytes, and nothing past the buffer's
			 * room: value_size for a GET, the longest value for
			 * a GET by part (a retried copy may have written the
			 * bytes past the length, up to the room: the API
			 * leaves them unspecified).
			 */
			room = vs;
			memset(val, 0xa5, vs + 8);
			len = U32_MAX;
			err = ordo_tree_get_len(&m->t, key, val, &len);
			if (err == -ENOBUFS) {
				/*
				 * A longer value: all of it by part.  It may
				 * be inline again by then, its bytes past the
				 * length those of an extent copy retried.
				 */
				struct ordo_value_part vp = { .cap = lmax,
							      .buf = val };

				room = lmax;
				memset(val, 0xa5, lmax + 8);
				err = ordo_tree_get_part(&m->t, key, &vp);
				len = vp.len;
				if (!err && vp.copied != len)
					MT_ERR(m, "get_part: %u of %u", vp.copied,
					       len);
			}
			if (err && err != -ENOENT)
				MT_ERR(m, "get: %d", err);
			if (!err && (!vseen_ok(val, len, key, vs, lmax) ||
				     !all_bytes(val, room, room + 8, 0xa5)))
				MT_ERR(m, "get %" PRIx64
				       ": foreign value, length %u", key, len);
			a->reads++;
		} else if (what < 9) {
			int got = ordo_tree_scan_len(&m->t, key - (what & 1),
						     1 + rnd(&rs) % 64, keys,
						     vals, lens);

			if (got < 0)
				MT_ERR(m, "scan: %d", got);
			for (i = 0; i < (u32)got; i++) {
				const u8 *v = vals + (size_t)i * vs;

				if ((i && keys[i - 1] >= keys[i]) ||
				    keys[i] < key - (what & 1) ||
				    !in_universe(r, keys[i]) ||
				    lens[i] > lmax ||
				    (lens[i] <= vs &&
				     !vseen_ok(v, lens[i], keys[i], vs, lmax)) ||
				    !all_bytes(v, lens[i] <= vs ? lens[i] : 0,
					       vs, 0))
					MT_ERR(m, "scan %" PRIx64 ": bad pair %u",
					       key, i);
			}
			a->scans++;
		} else {
			if (mt_raw_copy(m, &rs, node, ext, &a->torn))
				MT_ERR(m, "validated raw copy is inconsistent");
			a->copies++;
		}
	}
	free(val);
	free(vals);
	free(node);
	free(ext);
	return NULL;
}

static int run_mt(u32 writers, u32 readers, u32 slots, u32 vs, int dist,
		  u32 universe, u32 ops)
{
	struct ordo_tree_hooks hooks = { .leaf_split = mt_hook,
					 .leaf_retired = mt_retire_hook };
	pthread_t th[MT_MAX_THREADS], rt;
	struct mt_arg args[MT_MAX_THREADS];
	struct ordo_tree_params p;
	struct ordo_tree_stats st;
	u64 rs = 77, reads = 0, scans = 0, copies = 0, torn = 0;
	struct mt *m = calloc(1, sizeof(*m));
	u32 i, w;

	ordo_tree_default_params(&p);
	p.leaf_slots = slots;
	p.value_size = vs;
	p.chunk_size = 1 << 16;
	p.max_bytes = 1ULL << 30;
	p.ops = &chunk_ops;
	if (!m || ordo_tree_init(&m->t, &p))
		FAIL("init");
	hooks.ctx = m;
	ordo_tree_set_hooks(&m->t, &hooks);
	ref_init(&m->r, dist, universe, &rs);
	m->ops = ops;
	m->writers = writers;
	if (writers + readers > MT_MAX_THREADS)
		FAIL("too many threads");
	if (pthread_create(&rt, NULL, mt_retirer, m))
		FAIL("pthread_create");
	for (i = 0; i < writers + readers; i++) {
		args[i] = (struct mt_arg){ .m = m, .id = i < writers ?
					   i : i - writers };
		if (pthread_create(&th[i], NULL, i < writers ? mt_writer :
				   mt_reader, &args[i]))
			FAIL("pthread_create");
	}
	for (w = 0; w < writers; w++)
		pthread_join(th[w], NULL);
	__atomic_store_n(&m->stop_retirer, 1, __ATOMIC_RELEASE);
	pthread_join(rt, NULL);
	__atomic_store_n(&m->stop, 1, __ATOMIC_RELEASE);
	for (i = writers; i < writers + readers; i++) {
		pthread_join(th[i], NULL);
		reads += args[i].reads;
		scans += args[i].scans;
		copies += args[i].copies;
		torn += args[i].torn;
	}
	if (m->errors)
		FAIL("%d errors", m->errors);
	/* Rebuild the reference bitmap from the writers' sequence arrays. */
	for (i = 0; i < m->r.n; i++) {
		u32 s = m->r.seq[i];

		m->r.seq[i] = 0;
		ref_set(&m->r, i, s);
	}
	if (compare_all(&m->t, &m->r))
		FAIL("final store differs from the merged reference");
	ordo_tree_get_stats(&m->t, &st);
	if (st.leaf_splits != m->hook_calls)
		FAIL("hook calls %" PRIu64 " != leaf splits %" PRIu64,
		     m->hook_calls, st.leaf_splits);
	/* Small leaves empty out as the second half deletes; big ones rarely. */
	if (st.leaves_retired != m->retired ||
	    m->retire_hook_calls != m->retired || (slots <= 8 && !m->retired))
		FAIL("%" PRIu64 " leaves retired, %" PRIu64 " hook calls, "
		     "stats %" PRIu64, m->retired, m->retire_hook_calls,
		     st.leaves_retired);
	printf("# mt %uw+%ur slots %u vs %u %s: %" PRIu64 " keys, height %u, %" PRIu64
	       " splits, %" PRIu64 " retired in %" PRIu64 " passes, %" PRIu64
	       " gets, %" PRIu64 " scans, %" PRIu64
	       " raw copies (%" PRIu64 " torn), %" PRIu64 " retries\n", writers,
	       readers, slots, vs, dist_name[dist],
	       st.keys, st.height, st.leaf_splits, m->retired, m->retire_calls,
	       reads, scans, copies, torn, st.retries);
	ordo_tree_set_hooks(&m->t, NULL);
	ordo_tree_destroy(&m->t);
	ref_free(&m->r);
	free(m);
	return 0;
}

/*
 * One leaf rewritten nonstop while readers copy it byte by byte backwards
 * (a slow copy in the opposite order of the writer's): every copy that
 * validates must be one consistent publication, and some must be torn.
 * The writer runs its operations, then goes on in bursts with short pauses
 * until the readers have made copies of each kind (at most 120 s): on a
 * loaded machine the readers may get little CPU while the writer runs.
 */
struct hot {
	struct ordo_tree t;
	struct ordo_node_hdr *leaf;
	int stop;
	u64 accepted, torn, stable, bad;
};

static bool leaf_consistent(const struct ordo_tree *t, const u8 *buf)
{
	const struct ordo_geo *g = &t->geo;
	const struct ordo_node_hdr *h = (const void *)buf;
	u32 i, cnt = le16_to_cpu(h->count);

	if (cnt > g->leaf_slots)
		return false;
	for (i = 0; i < cnt; i++) {
		u64 key = ordo_leaf_key(h, g, i);
		u32 slot = ordo_leaf_corder(h, g)[i];

		if (slot >= g->leaf_slots ||
		    (i && ordo_leaf_key(h, g, i - 1) >= key) ||
		    !vseen_ok(ordo_leaf_cvalue(h, g, slot),
			      le16_to_cpu(ordo_leaf_clens(h, g)[slot]), key,
			      g->value_size, g->value_size))
			return false;
	}
	return true;
}

static void *hot_reader(void *p)
{
	struct hot *hm = p;
	u32 ns = hm->t.geo.node_size, i;
	u8 *buf = malloc(ns);
	const volatile u8 *src = (const volatile u8 *)hm->leaf;

	while (!__atomic_load_n(&hm->stop, __ATOMIC_ACQUIRE)) {
		for (i = ns; i-- > 0;)
			buf[i] = src[i];
		switch (ordo_node_validate(buf, &hm->t.geo)) {
		case 0:
			__atomic_fetch_add(&hm->accepted, 1, __ATOMIC_RELAXED);
			if (!leaf_consistent(&hm->t, buf))
				__atomic_fetch_add(&hm->bad, 1, __ATOMIC_RELAXED);
			break;
		case -EAGAIN:
			__atomic_fetch_add(&hm->torn, 1, __ATOMIC_RELAXED);
			break;
		default:
			__atomic_fetch_add(&hm->bad, 1, __ATOMIC_RELAXED);
		}
		ordo_node_copy_stable(buf, hm->leaf, ns);
		__atomic_fetch_add(&hm->stable, 1, __ATOMIC_RELAXED);
		if (ordo_node_validate(buf, &hm->t.geo) ||
		    !leaf_consistent(&hm->t, buf))
			__atomic_fetch_add(&hm->bad, 1, __ATOMIC_RELAXED);
	}
	free(buf);
	return NULL;
}

/* Each kind of copy seen: accepted, torn, and under the seqlock. */
static bool hot_progress(struct hot *hm)
{
	return __atomic_load_n(&hm->accepted, __ATOMIC_RELAXED) &&
	       __atomic_load_n(&hm->torn, __ATOMIC_RELAXED) &&
	       __atomic_load_n(&hm->stable, __ATOMIC_RELAXED);
}

static int run_hot_leaf(u32 ops)
{
	struct hot *hm = calloc(1, sizeof(*hm));
	time_t t0;
	struct ordo_tree_params p;
	struct ordo_leaf_iter it;
	struct ordo_leaf_snap snap;
	pthread_t th[2];
	u8 val[64];
	struct ordo_value wv;
	u32 i, len;

	ordo_tree_default_params(&p);
	p.value_size = sizeof(val);
	p.chunk_size = 1 << 16;
	p.ops = &chunk_ops;
	if (!hm || ordo_tree_init(&hm->t, &p))
		FAIL("init");
	for (i = 0; i < 16; i++) {
		len = vlen(i * 3, 1, sizeof(val), sizeof(val));
		vfill(val, len, i * 3, 1);
		wv = (struct ordo_value){ .buf = val, .len = len };
		if (ordo_tree_insert_len(&hm->t, i * 3, &wv))
			FAIL("insert");
	}
	if (ordo_leaf_iter_start(&it, &hm->t, 0) ||
	    ordo_leaf_iter_next(&it, &snap) != 1 || snap.has_high)
		FAIL("expected a single leaf");
	hm->leaf = ordo_pool_node(&hm->t.pool, snap.node_no);
	ordo_leaf_iter_end(&it);
	for (i = 0; i < 2; i++)
		if (pthread_create(&th[i], NULL, hot_reader, hm))
			FAIL("pthread_create");
	t0 = time(NULL);
	for (i = 0; i < ops || !hot_progress(hm); i++) {
		u64 key = (i * 7) % 16 * 3;

		if (i >= ops && !(i % 1000)) {
			if (time(NULL) - t0 > 120)
				break;
			usleep(1000);	/* let a reader copy a quiet leaf */
		}

		len = vlen(key, i + 2, sizeof(val), sizeof(val));
		vfill(val, len, key, i + 2);
		wv = (struct ordo_value){ .buf = val, .len = len };
		/*
		 * Updates rewrite a value, and its length; delete + insert
		 * shift entries.
		 */
		if (i % 3 == 0) {
			if (ordo_tree_delete(&hm->t, key) ||
			    ordo_tree_insert_len(&hm->t, key, &wv))
				FAIL("delete/insert %" PRIu64, key);
		} else if (ordo_tree_update_len(&hm->t, key, &wv)) {
			FAIL("update %" PRIu64, key);
		}
	}
	__atomic_store_n(&hm->stop, 1, __ATOMIC_RELEASE);
	for (i = 0; i < 2; i++)
		pthread_join(th[i], NULL);
	printf("# hot leaf: %" PRIu64 " copies accepted, %" PRIu64
	       " torn rejected, %" PRIu64 " seqlock copies, %" PRIu64 " bad\n",
	       hm->accepted, hm->torn, hm->stable, hm->bad);
	if (hm->bad)
		FAIL("%" PRIu64 " inconsistent copies accepted", hm->bad);
	if (!hm->accepted || !hm->torn || !hm->stable)
		FAIL("readers made no progress in 120 s");
	ordo_tree_destroy(&hm->t);
	free(hm);
	return 0;
}

static const struct cfg configs[] = {
	{ 4, 8, D_DENSE, 20000, 1ULL << 30, 1 },
	{ 16, 8, D_UNIFORM, 50000, 1ULL << 30, 1 },
	{ 5, 24, D_CLUSTER, 30000, 1ULL << 30, 1 },
	{ 255, 8, D_DENSE, 60000, 1ULL << 30, 2 },
	{ 8, 16, D_STRIDE, 30000, 1ULL << 30, 2 },
	{ 16, 1024, D_UNIFORM, 4000, 1ULL << 30, 10 },
	/* Values of any size: 100 bytes, unaligned in the leaf. */
	{ 7, 100, D_CLUSTER, 20000, 1ULL << 30, 4 },
	/* 17.5 KB nodes: inner nodes use their first 4 KiB, 336 entries. */
	{ 64, 256, D_UNIFORM, 40000, 1ULL << 30, 4 },
	{ 4, 8, D_DENSE, 20000, 256 << 10, 2 },
};

int main(int argc, char **argv)
{
	u64 seeds[16] = { 1, 2, 3 };
	u32 nseeds = 0, ops = 300000, i, s;
	bool st_only = false, mt_only = false;
	char name[128];
	int opt;

	while ((opt = getopt(argc, argv, "s:n:mM")) != -1) {
		switch (opt) {
		case 's':
			if (nseeds < ARRAY_SIZE(seeds))
				seeds[nseeds++] = strtoull(optarg, NULL, 0);
			break;
		case 'n':
			ops = strtoul(optarg, NULL, 0);
			break;
		case 'm':
			mt_only = true;
			break;
		case 'M':
			st_only = true;
			break;
		default:
			fprintf(stderr, "usage: %s [-s SEED]... [-n OPS] [-m|-M]\n",
				argv[0]);
			return 2;
		}
	}
	if (!nseeds)
		nseeds = 3;
	for (s = 0; s < nseeds && !mt_only; s++) {
		for (i = 0; i < ARRAY_SIZE(configs); i++) {
			const struct cfg *c = &configs[i];

			snprintf(name, sizeof(name),
				 "diff slots %u vs %u %s%s seed %" PRIu64,
				 c->slots, c->vs, dist_name[c->dist],
				 c->max_bytes < (1 << 22) ? " tiny-pool" : "",
				 seeds[s]);
			tap(name, run_single(c, seeds[s], ops / c->ops_div));
		}
	}
	if (!st_only) {
		tap("mt torn copies of a hot leaf", run_hot_leaf(300000));
		tap("mt 2 writers 2 readers, slots 4 dense",
		    run_mt(2, 2, 4, 8, D_DENSE, 40000, 150000));
		tap("mt 2 writers 2 readers, slots 16 uniform",
		    run_mt(2, 2, 16, 8, D_UNIFORM, 100000, 150000));
		tap("mt 4 writers 2 readers, slots 4 dense",
		    run_mt(4, 2, 4, 8, D_DENSE, 20000, 60000));
		tap("mt 3 writers 3 readers, slots 8 vs 64 cluster",
		    run_mt(3, 3, 8, 64, D_CLUSTER, 40000, 60000));
	}
	printf("1..%d\n", tap_n);
	return tap_failed ? 1 : 0;
}
