// SPDX-License-Identifier: GPL-2.0
/*
 * Out-of-line values, natively with ASan/UBSan: lengths 0 B to 1 MiB in
 * one store, the allocator's classes, reuse, accounting and memory bound,
 * the reader's extent check against hostile copies, stale references after
 * reuse, and copies made in random byte order while a writer runs: no torn
 * copy is ever accepted.
 */
#include <pthread.h>
#include <string.h>
#include <time.h>

#include "core_test.h"
#include "tree.h"

#define MIB	(1U << 20)

static int tree_new(struct ordo_tree *t, u32 vs, u64 chunk, u64 max_bytes)
{
	struct ordo_tree_params p;

	ordo_tree_default_params(&p);
	p.value_size = vs;
	p.chunk_size = chunk;
	p.max_bytes = max_bytes;
	p.ops = &chunk_ops;
	p.stamp_seed = 12345;
	return ordo_tree_init(t, &p);
}

/* @len bytes naming @key, @ver and each byte's position. */
static void fill(u8 *v, u32 len, u64 key, u32 ver)
{
	u32 i;

	for (i = 0; i < len; i++)
		v[i] = (u8)((key * 131) ^ (ver * 31) ^ (i * 7) ^ (i >> 8));
}

static int put(struct ordo_tree *t, u64 key, const u8 *v, u32 len)
{
	struct ordo_value val = { .buf = v, .len = len };

	return ordo_tree_put_len(t, key, &val);
}

/* The value of @key read whole by part into @buf (room @cap); its length. */
static int get_all(struct ordo_tree *t, u64 key, u8 *buf, u32 cap, u32 *len)
{
	struct ordo_value_part vp = { .cap = cap, .buf = buf };
	int err = ordo_tree_get_part(t, key, &vp);

	*len = vp.len;
	if (!err && vp.copied != vp.len)
		return -ENOBUFS;
	return err;
}

static int t_mixed_to_1mib(void)
{
	static const u32 lens[] = { 0, 1, 8, 99, 100, 101, 1000, 4096, 65536,
				    MIB - 1, MIB };
	u8 *v = malloc(MIB + 1), *out = malloc(MIB + 1);
	struct ordo_tree_stats st;
	struct ordo_value_part vp;
	struct ordo_tree t;
	u32 i, len, slen[16];
	u64 keys[16];
	u8 vals[16 * 100];

	CHECK(v && out);
	CHECK(!tree_new(&t, 100, 2 * MIB, 64 * MIB));
	CHECK_EQ(ordo_tree_value_max(&t), MIB);
	for (i = 0; i < ARRAY_SIZE(lens); i++) {
		fill(v, lens[i], i, 1);
		CHECK(!put(&t, i, v, lens[i]));
	}
	/* One more than the most: refused, nothing stored. */
	CHECK_EQ(put(&t, 99, v, MIB + 1), -EINVAL);
	for (i = 0; i < ARRAY_SIZE(lens); i++) {
		memset(out, 0xa5, MIB + 1);
		CHECK(!get_all(&t, i, out, MIB + 1, &len));
		CHECK_EQ(len, lens[i]);
		fill(v, len, i, 1);
		CHECK(!memcmp(out, v, len));
		CHECK_EQ(out[len], 0xa5);
		/* The inline-only GET: the length, or -ENOBUFS with it. */
		CHECK_EQ(ordo_tree_get_len(&t, i, out, &len),
			 lens[i] > 100 ? -ENOBUFS : 0);
		CHECK_EQ(len, lens[i]);
	}
	/* A part from the middle of the 1 MiB value, and past its end. */
	vp = (struct ordo_value_part){ .off = 500000, .cap = 1000, .buf = out };
	CHECK(!ordo_tree_get_part(&t, ARRAY_SIZE(lens) - 1, &vp));
	CHECK_EQ(vp.copied, 1000);
	CHECK_EQ(vp.units, ordo_extent_units(MIB));
	CHECK(vp.ref);
	CHECK(!memcmp(out, v + 500000, 1000));
	vp = (struct ordo_value_part){ .off = MIB, .cap = 1000, .buf = out };
	CHECK(!ordo_tree_get_part(&t, ARRAY_SIZE(lens) - 1, &vp));
	CHECK_EQ(vp.copied, 0);
	/* SCAN: long values by length, their slots zero. */
	CHECK_EQ(ordo_tree_scan_len(&t, 0, 16, keys, vals, slen),
		 ARRAY_SIZE(lens));
	for (i = 0; i < ARRAY_SIZE(lens); i++) {
		CHECK_EQ(slen[i], lens[i]);
		if (lens[i] > 100)
			CHECK(!memcmp(vals + i * 100, (u8[100]){ 0 }, 100));
	}
	ordo_tree_get_stats(&t, &st);
	CHECK(st.extent_bytes >= 2 * MIB + 65536 + 4096 + 1000);
	CHECK(st.extent_bytes <= (2 * MIB + 65536 + 4096 + 1000) * 9 / 8 +
	      8 * 64);
	for (i = 0; i < ARRAY_SIZE(lens); i++)
		CHECK(!ordo_tree_delete(&t, i));
	ordo_tree_get_stats(&t, &st);
	CHECK_EQ(st.extent_bytes, 0);
	ordo_tree_destroy(&t);
	free(v);
	free(out);
	return 0;
}

/*
 * Freed extents are reused: rewriting values of one class churns no new
 * chunk, and pool_bytes_used follows the live values up and down.
 */
static int t_reuse_and_accounting(void)
{
	u8 *v = malloc(70000);
	struct ordo_tree_stats st0, st1, st2;
	struct ordo_tree t;
	u32 i, round;

	CHECK(v);
	CHECK(!tree_new(&t, 8, 1 << 16, 16 * MIB));
	/* 64 KiB chunks: the longest value fills one. */
	CHECK_EQ(ordo_tree_value_max(&t), 65536 - 24);
	ordo_tree_get_stats(&t, &st0);
	for (i = 0; i < 100; i++) {
		fill(v, 3000, i, 1);
		CHECK(!put(&t, i, v, 3000));
	}
	ordo_tree_get_stats(&t, &st1);
	CHECK(st1.extent_bytes >= 100 * 3024);
	CHECK(st1.pool_bytes_used >= st0.pool_bytes_used + st1.extent_bytes);
	for (round = 0; round < 50; round++)
		for (i = 0; i < 100; i++) {
			fill(v, 3000 - round, i, round);
			CHECK(!put(&t, i, v, 3000 - round));
		}
	ordo_tree_get_stats(&t, &st2);
	CHECK_EQ(st2.pool_bytes_total, st1.pool_bytes_total);
	CHECK_EQ(st2.extent_bytes, st1.extent_bytes);
	/* Shrink half to inline lengths, delete the rest. */
	for (i = 0; i < 100; i++)
		CHECK(i % 2 ? !put(&t, i, v, 8) : !ordo_tree_delete(&t, i));
	ordo_tree_get_stats(&t, &st2);
	CHECK_EQ(st2.extent_bytes, 0);
	CHECK_EQ(st2.pool_bytes_used, st1.pool_bytes_used - st1.extent_bytes);
	CHECK(st2.pool_bytes_used >= st0.pool_bytes_used);
	ordo_tree_destroy(&t);
	free(v);
	return 0;
}

/* At the memory bound a long write fails whole and changes nothing. */
static int t_memory_bound(void)
{
	u8 *v = malloc(65536), *out = malloc(65536);
	struct ordo_tree_stats st;
	struct ordo_tree t;
	u32 i, len, stored = 0;
	int err = 0;

	CHECK(v && out);
	CHECK(!tree_new(&t, 8, 1 << 16, 1 << 20));
	for (i = 0; i < 100 && !err; i++) {
		fill(v, 40000, i, 1);
		err = put(&t, i, v, 40000);
		stored += !err;
	}
	CHECK_EQ(err, -ENOMEM);
	CHECK(stored >= 8);
	/* Updates of stored keys past the bound fail and keep the value. */
	fill(v, 40000, 0, 2);
	CHECK_EQ(put(&t, 0, v, 40000), -ENOMEM);
	CHECK(!get_all(&t, 0, out, 65536, &len));
	fill(v, 40000, 0, 1);
	CHECK(!memcmp(out, v, 40000));
	/* Inline writes still work; a delete makes room again. */
	CHECK(!put(&t, 1000, v, 8));
	CHECK(!ordo_tree_delete(&t, 1));
	fill(v, 40000, 0, 3);
	CHECK(!put(&t, 0, v, 40000));
	ordo_tree_get_stats(&t, &st);
	CHECK_EQ(st.keys, stored);
	CHECK(st.pool_bytes_used <= st.pool_bytes_max);
	ordo_tree_destroy(&t);
	free(v);
	free(out);
	return 0;
}

/* The pool offset of a staged extent, and its chunk (64 KiB chunks). */
static u64 st_off(const struct ordo_staged *s)
{
	return ordo_extent_ref_offset(s->ref);
}

static u32 st_chunk(const struct ordo_staged *s)
{
	return st_off(s) >> 16;
}

/*
 * The carve point stays put when the extent taken is a free one that
 * lies right at it.  A full pool of 4000-byte values (16 to a 64 KiB
 * chunk, exactly) has chunk k emptied and carved again for 8000-byte
 * ones, filled exactly: the carve point is then the start of chunk k + 1,
 * whose first extent is freed and taken again.  That moved the carve
 * point into chunk k + 1 (past the end of the current chunk): emptying
 * chunk k walked into it, and a whole-chunk value later shared a chunk
 * with 4000-byte ones (natively: the walk's WARN aborts).
 */
static int t_carve_point_stays(void)
{
	static struct ordo_staged a[1024], b[8], s, big, more[16];
	struct ordo_tree t;
	u32 na = 0, i, k;

	CHECK(!tree_new(&t, 8, 1 << 16, 8 << 16));
	while (na < ARRAY_SIZE(a) && !ordo_tree_stage(&t, 4000, &a[na]))
		na++;
	CHECK(na > 16);
	k = st_chunk(&a[0]);
	for (i = 0; i < na; i++)
		if (st_chunk(&a[i]) == k) {
			ordo_tree_unstage(&t, &a[i]);
			a[i].len = 0;
		}
	for (i = 0; i < 8; i++) {
		CHECK(!ordo_tree_stage(&t, 8000, &b[i]));
		CHECK_EQ(st_chunk(&b[i]), k);
	}
	for (i = 0; i < na; i++)
		if (a[i].len && st_off(&a[i]) == (u64)(k + 1) << 16)
			break;
	CHECK(i < na);
	ordo_tree_unstage(&t, &a[i]);
	a[i].len = 0;
	CHECK(!ordo_tree_stage(&t, 4000, &s));
	CHECK_EQ(st_off(&s), (u64)(k + 1) << 16);
	CHECK(t.extents.cur <= t.extents.cur_end);
	/* Chunk k empties; then chunk k + 1, which a whole value takes. */
	ordo_tree_unstage(&t, &s);
	for (i = 0; i < 8; i++)
		ordo_tree_unstage(&t, &b[i]);
	CHECK(!ordo_tree_stage(&t, 2000, &s));
	for (i = 0; i < na; i++)
		if (a[i].len && st_chunk(&a[i]) == k + 1) {
			ordo_tree_unstage(&t, &a[i]);
			a[i].len = 0;
		}
	CHECK(!ordo_tree_stage(&t, (1 << 16) - ORDO_EXTENT_HDR_SIZE, &big));
	memset(big.bytes, 0x5a, big.len);
	/* Nothing else lands in its chunk, and its bytes stay its own. */
	for (i = 0; i < ARRAY_SIZE(more); i++) {
		if (ordo_tree_stage(&t, 4000, &more[i]))
			break;
		CHECK(st_chunk(&more[i]) != st_chunk(&big));
		memset(more[i].bytes, 0xa5, 4000);
	}
	for (i = 0; i < big.len; i++)
		CHECK_EQ(big.bytes[i], 0x5a);
	ordo_tree_destroy(&t);
	return 0;
}

/*
 * Chunks freed of their values serve again: a pool filled with 1 MiB
 * values and emptied takes values of another class in the same chunks,
 * and then, emptied again, nodes in every one of them.
 */
static int t_chunks_come_back(void)
{
	u8 *v = malloc(MIB);
	struct ordo_tree_stats st;
	struct ordo_tree t;
	u32 i, big = 0, mid = 0, keys = 0;
	u64 k;
	int err = 0;

	CHECK(v);
	memset(v, 0x5a, MIB);
	CHECK(!tree_new(&t, 8, 2 * MIB, 16 * MIB));
	/* Chunk 0 holds the nodes; one 1 MiB value fills each other one. */
	for (i = 0; !err; i++) {
		err = put(&t, i, v, MIB);
		big += !err;
	}
	CHECK_EQ(err, -ENOMEM);
	CHECK_EQ(big, 7);
	for (i = 0; i < big; i++)
		CHECK(!ordo_tree_delete(&t, i));
	/*
	 * 700 KB values: two in each chunk the 1 MiB ones left, but the last
	 * (one in its tail: its freed 1 MiB extent is not split).
	 */
	for (i = 0, err = 0; !err; i++) {
		err = put(&t, i, v, 700000);
		mid += !err;
	}
	CHECK_EQ(err, -ENOMEM);
	CHECK_EQ(mid, 13);
	for (i = 0; i < mid; i++)
		CHECK(!ordo_tree_delete(&t, i));
	ordo_tree_get_stats(&t, &st);
	CHECK_EQ(st.extent_bytes, 0);
	/* Small values: the tree's nodes take the emptied value chunks. */
	for (k = 1000, err = 0; !err; k++) {
		err = ordo_tree_put(&t, k * 7919, &k);
		keys += !err;
	}
	CHECK_EQ(err, -ENOMEM);
	ordo_tree_get_stats(&t, &st);
	printf("# 1 MiB values %u, 700 KB values %u, then %u keys in %llu"
	       " bytes of nodes\n", big, mid, keys,
	       (unsigned long long)st.pool_bytes_used);
	CHECK(st.pool_bytes_used > 7 * 2 * MIB);
	CHECK_EQ(st.keys, keys);
	ordo_tree_destroy(&t);
	free(v);
	return 0;
}

/* The reader's extent check refuses every kind of wrong copy. */
static int t_validate_hostile(void)
{
	u8 *v = malloc(5000), *copy = malloc(8192), *bad = malloc(8192);
	const u64 cs = 2 * MIB;
	struct ordo_value_part vp = { 0 };
	struct ordo_extent_hdr *e = (void *)bad;
	struct ordo_tree t;
	u32 units, len, bytes, at;
	u64 ref;

	CHECK(v && copy && bad);
	CHECK(!tree_new(&t, 100, cs, 64 * MIB));
	fill(v, 5000, 42, 1);
	CHECK(!put(&t, 42, v, 5000));
	CHECK(!ordo_tree_get_part(&t, 42, &vp));
	ref = vp.ref;
	units = vp.units;
	bytes = units * 64;
	CHECK_EQ(units, (24 + 5000 + 63) / 64);
	memcpy(copy, ordo_extent_at(&t.extents, ref), bytes);
	CHECK(!ordo_extent_validate(copy, bytes, 42, ref, units, 100, cs,
				    &len));
	CHECK_EQ(len, 5000);
	CHECK(!memcmp(copy + 24, v, 5000));
	/* Short read, units not a long value's, an extent past its chunk. */
	CHECK_EQ(ordo_extent_validate(copy, bytes - 1, 42, ref, units, 100, cs,
				      &len), -EIO);
	CHECK_EQ(ordo_extent_validate(copy, bytes, 42, ref, 1, 100, cs, &len),
		 -EIO);
	CHECK_EQ(ordo_extent_validate(copy, bytes, 42, ref,
				      ordo_extent_units(MIB) + 1, 100, cs,
				      &len), -EIO);
	CHECK_EQ(ordo_extent_validate(copy, bytes, 42,
				      (ref & ~((1ULL << 36) - 1)) |
				      ((cs - 64) / 64), units, 100, cs, &len),
		 -EIO);
	/* Another key, another stamp, one byte flipped anywhere. */
	CHECK_EQ(ordo_extent_validate(copy, bytes, 43, ref, units, 100, cs,
				      &len), -EAGAIN);
	CHECK_EQ(ordo_extent_validate(copy, bytes, 42, ref + (1ULL << 36),
				      units, 100, cs, &len), -EAGAIN);
	for (at = 0; at < 24 + 5000; at += 211) {
		memcpy(bad, copy, bytes);
		bad[at] ^= 0x10;
		CHECK_EQ(ordo_extent_validate(bad, bytes, 42, ref, units, 100,
					      cs, &len), -EAGAIN);
	}
	/* A header whose length disagrees with the units, even if rehashed. */
	memcpy(bad, copy, bytes);
	e->len = cpu_to_le32(5000 - 64);
	e->check = cpu_to_le64(ordo_xxh64(&e->key, 16 + 5000 - 64, 0));
	CHECK_EQ(ordo_extent_validate(bad, bytes, 42, ref, units, 100, cs,
				      &len), -EAGAIN);
	/* A length no longer than value_size is never an extent's. */
	e->len = cpu_to_le32(100);
	e->check = cpu_to_le64(ordo_xxh64(&e->key, 16 + 100, 0));
	CHECK_EQ(ordo_extent_validate(bad, 128, 42, ref, 2, 100, cs, &len),
		 -EAGAIN);
	CHECK_EQ(ordo_extent_validate(bad, 128, 42, ref, 1, 100, cs, &len),
		 -EIO);
	/* After a rewrite the old reference fails, even at the same spot. */
	CHECK(!put(&t, 42, v, 5000));
	CHECK(!ordo_tree_delete(&t, 42));
	fill(v, 5000, 42, 2);
	CHECK(!put(&t, 42, v, 5000));
	memcpy(bad, ordo_extent_at(&t.extents, ref), bytes);
	CHECK_EQ(ordo_extent_validate(bad, bytes, 42, ref, units, 100, cs,
				      &len), -EAGAIN);
	ordo_tree_destroy(&t);
	free(v);
	free(copy);
	free(bad);
	return 0;
}

/*
 * One key rewritten nonstop with long values of changing length while a
 * reader copies its leaf's key block and then its extent, each in a
 * random byte order (as a NIC may), and validates them as a remote reader
 * does.  Every accepted copy must be exactly one version the writer
 * wrote; some copies must be torn or stale and refused.
 */
struct torn {
	struct ordo_tree t;
	int stop;
	u32 last;
	u64 accepted, refused, bad;
};

#define TORN_KEY	7

static u32 torn_len(u32 ver)
{
	return 200 + (ver % 13) * 300;
}

static void *torn_writer(void *p)
{
	struct torn *x = p;
	u8 *v = malloc(5000);
	u32 ver;

	for (ver = 1; !__atomic_load_n(&x->stop, __ATOMIC_ACQUIRE); ver++) {
		fill(v, torn_len(ver), TORN_KEY, ver);
		if (put(&x->t, TORN_KEY, v, torn_len(ver)))
			break;
		__atomic_store_n(&x->last, ver, __ATOMIC_RELEASE);
	}
	free(v);
	return NULL;
}

static u32 gcd(u32 a, u32 b)
{
	while (b) {
		u32 r = a % b;

		a = b;
		b = r;
	}
	return a;
}

/*
 * Copy @n bytes (a multiple of 8) word by word in a random order: from a
 * random start, a random stride coprime with the word count visits each
 * word once.
 */
static void copy_shuffled(u8 *dst, const u8 *src, u32 n, u64 *rs)
{
	u32 words = n / 8, i, start, step;

	*rs = *rs * 6364136223846793005ULL + 1442695040888963407ULL;
	start = (u32)(*rs >> 33) % words;
	step = 1 + (u32)(*rs >> 17) % words;
	while (gcd(step, words) != 1)
		step++;
	for (i = 0; i < words; i++) {
		u32 w = (start + (u64)i * step) % words;

		__atomic_load((const u64 *)src + w, (u64 *)dst + w,
			      __ATOMIC_RELAXED);
	}
}

static int t_torn_copies(void)
{
	struct torn *x = calloc(1, sizeof(*x));
	const struct ordo_geo *g;
	u8 *leaf, *ext, *want = malloc(5000);
	u64 rs = 99;
	time_t end = time(NULL) + 120;
	pthread_t th;
	u32 tries;

	CHECK(x && want);
	CHECK(!tree_new(&x->t, 100, 1 << 16, 64 * MIB));
	g = &x->t.geo;
	leaf = malloc(g->node_size);
	ext = malloc(8192);
	fill(want, 300, TORN_KEY, 0);
	CHECK(!put(&x->t, TORN_KEY, want, 300));
	CHECK(!pthread_create(&th, NULL, torn_writer, x));
	/*
	 * Until both kinds were seen plenty (on a loaded machine the two
	 * threads may rarely overlap), at most 120 s.
	 */
	for (tries = 0; (x->accepted < 2000 || x->refused < 50) &&
	     (tries % 1024 || time(NULL) < end); tries++) {
		const struct ordo_node_hdr *h = (const void *)leaf;
		u32 n = x->t.root, pos, units, len, ver;
		u64 ref;
		int s;

		/* A single leaf: the root. */
		copy_shuffled(leaf, (const u8 *)ordo_pool_node(&x->t.pool, n),
			      ordo_leaf_block_size(g->leaf_slots), &rs);
		if (ordo_node_validate_part(leaf, ordo_leaf_block_size(g->leaf_slots),
					    g)) {
			x->refused++;
			continue;
		}
		s = ordo_leaf_find(h, g, le16_to_cpu(h->count), TORN_KEY, &pos);
		if (s < 0 || !ordo_leaf_is_extent(h, g, s)) {
			x->bad += s < 0;
			continue;
		}
		ref = le64_to_cpu(ordo_leaf_cchecks(h, g)[s]);
		units = le16_to_cpu(ordo_leaf_clens(h, g)[s]) &
			ORDO_LEN_UNITS_MASK;
		if (units * 64 > 8192) {
			x->bad++;
			continue;
		}
		copy_shuffled(ext, ordo_extent_at(&x->t.extents, ref),
			      units * 64, &rs);
		if (ordo_extent_validate(ext, units * 64, TORN_KEY, ref, units,
					 g->value_size, 1 << 16, &len)) {
			x->refused++;
			continue;
		}
		/* Accepted: exactly one version's bytes, of its length. */
		for (ver = 0; ver <= __atomic_load_n(&x->last,
						     __ATOMIC_ACQUIRE) + 1; ver++) {
			if (len != (ver ? torn_len(ver) : 300))
				continue;
			fill(want, len, TORN_KEY, ver);
			if (!memcmp(ext + 24, want, len))
				break;
		}
		if (ver > __atomic_load_n(&x->last, __ATOMIC_ACQUIRE) + 1)
			x->bad++;
		x->accepted++;
	}
	__atomic_store_n(&x->stop, 1, __ATOMIC_RELEASE);
	pthread_join(th, NULL);
	printf("# torn copies: %llu accepted, %llu refused, %llu bad, %u writes\n",
	       (unsigned long long)x->accepted,
	       (unsigned long long)x->refused, (unsigned long long)x->bad,
	       x->last);
	CHECK_EQ(x->bad, 0);
	CHECK(x->accepted >= 50);
	CHECK(x->refused >= 1);
	ordo_tree_destroy(&x->t);
	free(leaf);
	free(ext);
	free(want);
	free(x);
	return 0;
}

/*
 * GETs of a key a writer flips between a long and a short value: the
 * inline-only GET either gives -ENOBUFS with the long length or the short
 * value's own bytes -- never success with a buffer it did not fill.
 */
struct flip {
	struct ordo_tree t;
	int stop;
};

static void *flip_writer(void *p)
{
	struct flip *f = p;
	u8 big[2000], small[16];
	struct ordo_value vb = { .buf = big, .len = sizeof(big) };
	struct ordo_value vs = { .buf = small, .len = sizeof(small) };

	memset(big, 0x11, sizeof(big));
	memset(small, 0x22, sizeof(small));
	while (!__atomic_load_n(&f->stop, __ATOMIC_ACQUIRE)) {
		ordo_tree_put_len(&f->t, 5, &vb);
		ordo_tree_put_len(&f->t, 5, &vs);
	}
	return NULL;
}

static int t_flip_long_short(void)
{
	struct flip *f = calloc(1, sizeof(*f));
	u64 nobufs = 0, shorts = 0, i;
	u8 buf[64], want[16];
	pthread_t th;
	u32 len;

	CHECK(f);
	memset(want, 0x22, sizeof(want));
	CHECK(!tree_new(&f->t, 64, 1 << 20, 64 * MIB));
	CHECK(!pthread_create(&th, NULL, flip_writer, f));
	for (i = 0; i < 300000; i++) {
		int err;

		memset(buf, 0xaa, sizeof(buf));
		err = ordo_tree_get_len(&f->t, 5, buf, &len);
		if (err == -ENOBUFS) {
			CHECK_EQ(len, 2000);
			nobufs++;
		} else if (!err) {
			CHECK_EQ(len, 16);
			CHECK(!memcmp(buf, want, 16));
			shorts++;
		} else {
			CHECK_EQ(err, -ENOENT);
		}
	}
	__atomic_store_n(&f->stop, 1, __ATOMIC_RELEASE);
	pthread_join(th, NULL);
	printf("# flips: %llu long, %llu short\n", (unsigned long long)nobufs,
	       (unsigned long long)shorts);
	ordo_tree_destroy(&f->t);
	free(f);
	return 0;
}

int main(void)
{
	run("values of 0 B to 1 MiB in one store", t_mixed_to_1mib);
	run("extents are reused; bytes used follow the values",
	    t_reuse_and_accounting);
	run("the memory bound fails long writes whole", t_memory_bound);
	run("a free extent taken at the carve point leaves it in its chunk",
	    t_carve_point_stays);
	run("emptied value chunks serve other classes, then nodes",
	    t_chunks_come_back);
	run("hostile and stale extent copies are refused", t_validate_hostile);
	run("no torn copy is accepted", t_torn_copies);
	run("a GET racing long/short rewrites fills what it returns",
	    t_flip_long_short);
	return tap_done();
}
