// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of the node layout, the node pool and the B-link tree (native
 * build of kmod/core).  Prints TAP; exits non-zero on any failure.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <inttypes.h>

#include "compat.h"
#include "node.h"
#include "pool.h"
#include "tree.h"
#include "core_test.h"

static int tree_new(struct ordo_tree *t, u32 slots, u32 vs, u64 chunk,
		    u64 max_bytes)
{
	struct ordo_tree_params p;

	ordo_tree_default_params(&p);
	p.leaf_slots = slots;
	p.value_size = vs;
	p.chunk_size = chunk;
	p.max_bytes = max_bytes;
	p.ops = &chunk_ops;
	return ordo_tree_init(t, &p);
}

static u64 rng_state = 0x9e3779b97f4a7c15ULL;

static u64 rnd(void)
{
	u64 z = (rng_state += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

/* Value pattern for (key, tag): every word depends on both. */
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

/* The first byte of @n at @p that is not @c, or NULL. */
static const u8 *memchr_inv_u8(const void *p, u8 c, size_t n)
{
	const u8 *b = p;
	size_t i;

	for (i = 0; i < n; i++)
		if (b[i] != c)
			return b + i;
	return NULL;
}

/* Full-tree invariants: scan order, leaf chain, stats. */
static int check_tree(struct ordo_tree *t, u64 expect_keys)
{
	struct ordo_tree_stats st;
	struct ordo_leaf_iter it;
	struct ordo_leaf_snap snap;
	u64 *keys = malloc(sizeof(u64) * (expect_keys + 1));
	u64 leaves = 0, total = 0, prev_high = 0;
	int got, r, first = 1;
	u32 i;

	CHECK(keys);
	got = ordo_tree_scan(t, 0, expect_keys + 1, keys, NULL);
	CHECK_EQ(got, expect_keys);
	for (i = 1; i < (u32)got; i++)
		CHECK(keys[i - 1] < keys[i]);
	free(keys);
	ordo_tree_get_stats(t, &st);
	CHECK_EQ(st.keys, expect_keys);
	CHECK(!ordo_leaf_iter_start(&it, t, 0));
	while ((r = ordo_leaf_iter_next(&it, &snap)) == 1) {
		if (first)
			CHECK_EQ(snap.low_key, 0);
		else
			CHECK_EQ(snap.low_key, prev_high);
		for (i = 0; i < snap.count; i++) {
			CHECK(snap.keys[i] >= snap.low_key);
			CHECK(!snap.has_high || snap.keys[i] < snap.high_key);
			CHECK(!i || snap.keys[i - 1] < snap.keys[i]);
		}
		prev_high = snap.high_key;
		first = 0;
		leaves++;
		total += snap.count;
		if (!snap.has_high)
			break;
	}
	CHECK(r == 1 || r == 0);
	CHECK_EQ(ordo_leaf_iter_next(&it, &snap), 0);
	ordo_leaf_iter_end(&it);
	CHECK_EQ(total, expect_keys);
	CHECK_EQ(leaves, st.leaves);
	CHECK_EQ(st.unlinked_splits, 0);
	return 0;
}

static int t_geometry(void)
{
	struct ordo_geo g;

	BUILD_BUG_ON(sizeof(struct ordo_node_hdr) != ORDO_NODE_HDR_SIZE);
	BUILD_BUG_ON(sizeof(struct ordo_super) != ORDO_SUPER_SIZE);
	BUILD_BUG_ON(offsetof(struct ordo_node_hdr, node_no) != 32);
	BUILD_BUG_ON(offsetof(struct ordo_node_hdr, count) != 44);
	BUILD_BUG_ON(offsetof(struct ordo_super, root) != 116);
	CHECK_EQ(ordo_geo_init(&g, 3, 8), -EINVAL);
	CHECK_EQ(ordo_geo_init(&g, 256, 8), -EINVAL);
	CHECK_EQ(ordo_geo_init(&g, 16, 0), -EINVAL);
	CHECK_EQ(ordo_geo_init(&g, 16, 7), -EINVAL);
	CHECK_EQ(ordo_geo_init(&g, 16, 1032), -EINVAL);
	/* 8-byte values sit in the key block: a leaf is its key block. */
	CHECK_EQ(ordo_geo_init(&g, 16, 8), 0);
	CHECK_EQ(g.node_size, 384);
	/* Inner nodes: the most whole node slots within 4 KiB. */
	CHECK_EQ(ordo_inner_span(384), 10);
	CHECK_EQ(g.inner_fanout, 314);
	CHECK_EQ(ordo_inner_size(g.inner_fanout), 3840);
	CHECK_EQ(ordo_geo_init(&g, 16, 16), 0);
	CHECK_EQ(g.node_size, 640);
	CHECK_EQ(ordo_inner_span(640), 6);
	CHECK_EQ(g.inner_fanout, 314);
	CHECK_EQ(ordo_geo_init(&g, 4, 8), 0);
	CHECK_EQ(g.node_size, 192);
	CHECK_EQ(g.inner_fanout, 330);
	CHECK_EQ(ordo_inner_size(g.inner_fanout), 4032);
	CHECK_EQ(ordo_geo_init(&g, 255, 1024), 0);
	CHECK_EQ(g.node_size, 266048);
	CHECK_EQ(ordo_inner_span(266048), 1);
	CHECK_EQ(g.inner_fanout, 336);
	CHECK_EQ(ordo_inner_size(g.inner_fanout), 4096);
	CHECK_EQ(ordo_inner_span(4096), 1);
	CHECK_EQ(ordo_inner_span(2112), 1);
	CHECK_EQ(ordo_inner_fanout(2112), 170);
	CHECK_EQ(ordo_geo_init(&g, 5, 16), 0);
	CHECK_EQ(g.node_size, 256);
	CHECK_EQ(ordo_leaf_block_size(16), 64 + 256 + 32 + 16);
	CHECK_EQ(ordo_leaf_block_size(17), 64 + 272 + 34 + 17 + 5);
	CHECK_EQ(ordo_leaf_check_off(16, 3), 64 + 128 + 24);
	CHECK_EQ(ordo_leaf_len_off(16, 3), 64 + 256 + 6);
	CHECK_EQ(ordo_leaf_order_off(16), 64 + 256 + 32);
	CHECK_EQ(ordo_leaf_value_off(16, 16, 3), 64 + 288 + 16 + 48);
	CHECK_EQ(ordo_leaf_value_off(16, 8, 3), ordo_leaf_check_off(16, 3));
	CHECK_EQ(ordo_inner_child_off(21, 2), 64 + 168 + 8);
	CHECK_EQ(ordo_node_offset(7, 3, 65536, 320), 2 * 65536 + 320);
	return 0;
}

static const struct {
	u32 len;
	u64 h0, hs;
} xxh_vectors[] = {
	/* From the kernel's lib/xxhash.c; input byte i is (u8)(i * 131 + 7). */
	{ 0, 0xef46db3751d8e999ULL, 0x51e24c0e9077a48cULL },
	{ 1, 0xa96c7f0ce858bbb7ULL, 0x63f3595cc59f5425ULL },
	{ 3, 0xbed43740ee6332bbULL, 0x8692154d5e3e638eULL },
	{ 4, 0xfa212ae44b3bb23dULL, 0xaf87cb9fea57b444ULL },
	{ 7, 0x2744460dd675d2c0ULL, 0xbb72b234e29ecbc8ULL },
	{ 8, 0x994b676b71ce94ddULL, 0x2973a98413b92ac7ULL },
	{ 31, 0x6711d55e306b5d8fULL, 0x7c3c27bb6bc30d89ULL },
	{ 32, 0x07f7b8e3bc5d6e25ULL, 0x8519ae048355104fULL },
	{ 33, 0x09f85eeb4e1cbe9fULL, 0x493b081beae9e600ULL },
	{ 63, 0xb7c9968c066cb6a5ULL, 0x9d4f8c8e4efbebb6ULL },
	{ 64, 0x50d4159a0411632eULL, 0x4eac01289e3bba7fULL },
	{ 100, 0x9ddada11d3dc2d8fULL, 0xa6436d517df6f2ffULL },
	{ 320, 0x68b39b33954c6509ULL, 0x59cf4a85ade34b3cULL },
	{ 400, 0xc23687731e427ce9ULL, 0xb0c75b9bfce68b26ULL },
};

static int t_xxh64(void)
{
	u8 b[400], c[400];
	u32 i, len;

	for (i = 0; i < sizeof(b); i++)
		b[i] = (u8)(i * 131 + 7);
	for (i = 0; i < ARRAY_SIZE(xxh_vectors); i++) {
		CHECK(ordo_xxh64(b, xxh_vectors[i].len, 0) == xxh_vectors[i].h0);
		CHECK(ordo_xxh64(b, xxh_vectors[i].len, 0x0123456789abcdefULL) ==
		      xxh_vectors[i].hs);
	}
	/*
	 * The node checksum is XXH64 of the node's first bytes with words 0
	 * and 1 replaced, for any multiple of 8 (a leaf's key block is 64 +
	 * 16 * leaf_slots bytes).
	 */
	memcpy(c, b, sizeof(c));
	((__le64 *)c)[0] = cpu_to_le64(42);
	((__le64 *)c)[1] = 0;
	for (len = 32; len <= sizeof(c); len += 8)
		CHECK(ordo_node_checksum(b, len, 42) == ordo_xxh64(c, len, 0));
	return 0;
}

static struct ordo_node_hdr *leaf_of(struct ordo_tree *t, u64 key)
{
	struct ordo_leaf_iter it;
	struct ordo_leaf_snap s;
	u32 n = 0;

	if (ordo_leaf_iter_start(&it, t, key))
		return NULL;
	if (ordo_leaf_iter_next(&it, &s) == 1)
		n = s.node_no;
	ordo_leaf_iter_end(&it);
	return n ? ordo_pool_node(&t->pool, n) : NULL;
}

/*
 * Bytes a copy of leaf publication @pub must share with it to be that
 * publication: the key block and the values of its first count slots.
 */
static bool same_pub(const u8 *m, const u8 *pub, const struct ordo_geo *g)
{
	u32 cnt = le16_to_cpu(((const struct ordo_node_hdr *)pub)->count);
	u32 blk = ordo_leaf_block_size(g->leaf_slots);

	if (ordo_leaf_values_in_block(g->value_size))
		cnt = 0;
	return !memcmp(m, pub, blk) &&
	       !memcmp(m + blk, pub + blk, (size_t)cnt * g->value_size);
}

/* A mix of publications @a and @b validates iff it is one of them. */
static int mix_check(const u8 *m, const u8 *a, const u8 *b,
		     const struct ordo_geo *g)
{
	int want = same_pub(m, a, g) || same_pub(m, b, g) ? 0 : -EAGAIN;

	CHECK_EQ(ordo_node_validate(m, g), want);
	return 0;
}

enum { TORN_MAX = 640 };

/*
 * Torn copies of a 16-slot leaf with values of @vs bytes: 16 (check
 * words, 640-byte nodes) or 8 (values in the key block, 384).
 */
static int torn_copies(u32 vs, u32 ns)
{
	struct ordo_tree t;
	u8 a[TORN_MAX], b[TORN_MAX], c[TORN_MAX], m[TORN_MAX], v[16];
	const struct ordo_geo *g = &t.geo;
	bool inb = ordo_leaf_values_in_block(vs);
	struct ordo_node_hdr *h;
	u32 i, line, blk, cnt;

	CHECK(!tree_new(&t, 16, vs, 1 << 16, 1 << 20));
	CHECK_EQ(g->node_size, ns);
	blk = ordo_leaf_block_size(g->leaf_slots);
	for (i = 0; i < 10; i++) {
		vfill(v, vs, i, 1);
		CHECK(!ordo_tree_put(&t, i * 10, v));
	}
	h = leaf_of(&t, 0);
	CHECK(h);
	CHECK_EQ(ordo_node_copy_validate(a, h, g), 0);
	vfill(v, vs, 95, 1);
	CHECK(!ordo_tree_put(&t, 95, v));
	CHECK_EQ(ordo_node_copy_validate(b, h, g), 0);
	CHECK(le64_to_cpu(((struct ordo_node_hdr *)b)->version) ==
	      le64_to_cpu(((struct ordo_node_hdr *)a)->version) + 2);
	/* An update in place: one value and its check word change. */
	vfill(v, vs, 33, 1);
	CHECK(!ordo_tree_update(&t, 30, v));
	CHECK_EQ(ordo_node_copy_validate(c, h, g), 0);
	cnt = le16_to_cpu(((struct ordo_node_hdr *)c)->count);
	for (i = 0; i < cnt && !inb; i++)
		CHECK(le64_to_cpu(ordo_leaf_cchecks((void *)c, g)[i]) ==
		      ordo_xxh64(ordo_leaf_cvalue((void *)c, g, i), vs,
				 le64_to_cpu(ordo_node_ckeys((void *)c)[i])));
	/* In the key block, a value is its own check word. */
	for (i = 0; i < cnt && inb; i++)
		CHECK(ordo_leaf_cvalue((void *)c, g, i) ==
		      (const u8 *)&ordo_leaf_cchecks((void *)c, g)[i]);
	/* Halves of two publications, in both orders. */
	for (i = 8; i < ns; i += 8) {
		memcpy(m, a, i);
		memcpy(m + i, b + i, ns - i);
		CHECK(!mix_check(m, a, b, g));
		memcpy(m, b, i);
		memcpy(m + i, a + i, ns - i);
		CHECK(!mix_check(m, a, b, g));
		memcpy(m, b, i);
		memcpy(m + i, c + i, ns - i);
		CHECK(!mix_check(m, b, c, g));
		memcpy(m, c, i);
		memcpy(m + i, b + i, ns - i);
		CHECK(!mix_check(m, b, c, g));
	}
	/* Cache lines interleaved (a NIC reading lines out of order). */
	for (line = 0; line < ns / 64; line++) {
		memcpy(m, a, ns);
		memcpy(m + 64 * line, b + 64 * line, 64);
		CHECK(!mix_check(m, a, b, g));
		memcpy(m, b, ns);
		memcpy(m + 64 * line, a + 64 * line, 64);
		CHECK(!mix_check(m, a, b, g));
		memcpy(m, c, ns);
		memcpy(m + 64 * line, b + 64 * line, 64);
		CHECK(!mix_check(m, b, c, g));
	}
	/* The key block of one publication, the values of the next. */
	memcpy(m, b, blk);
	memcpy(m + blk, c + blk, ns - blk);
	CHECK_EQ(ordo_node_validate(m, g), inb ? 0 : -EAGAIN);
	/* Same body, other publication's version word: still rejected. */
	memcpy(m, b, ns);
	memcpy(m, a, 8);
	CHECK_EQ(ordo_node_validate(m, g), -EAGAIN);
	/* Locked (odd) and never-written copies. */
	memcpy(m, b, ns);
	((struct ordo_node_hdr *)m)->version |= cpu_to_le64(1);
	CHECK_EQ(ordo_node_validate(m, g), -EAGAIN);
	memset(m, 0, sizeof(m));
	CHECK_EQ(ordo_node_validate(m, g), -ENODATA);
	/*
	 * A single flipped bit anywhere in the key block or a value in use;
	 * the values of unused slots are no part of the leaf.
	 */
	cnt = le16_to_cpu(((struct ordo_node_hdr *)c)->count);
	for (i = 16; i < ns * 8; i += 37) {
		memcpy(m, c, ns);
		m[i / 8] ^= 1 << (i % 8);
		CHECK_EQ(ordo_node_validate(m, g),
			 i / 8 < blk + (inb ? 0 : cnt * vs) ? -EAGAIN : 0);
	}
	CHECK_EQ(ordo_node_validate(a, g), 0);
	CHECK_EQ(ordo_node_validate(b, g), 0);
	ordo_node_copy_stable(m, h, ns);
	CHECK(!memcmp(m, c, ns));
	/* Nothing changes under an aborted write (clean unlock). */
	CHECK_EQ(ordo_tree_insert(&t, 95, v), -EEXIST);
	CHECK(!memcmp(h, c, ns));
	ordo_tree_destroy(&t);
	return 0;
}

static int t_torn_copies(void)
{
	CHECK(!torn_copies(16, 640));
	CHECK(!torn_copies(8, 384));
	return 0;
}

/* Re-seal a leaf copy's key block after tampering with it. */
static void reseal(u8 *buf, const struct ordo_geo *g)
{
	struct ordo_node_hdr *h = (void *)buf;

	h->checksum = cpu_to_le64(ordo_node_checksum(buf,
				ordo_leaf_block_size(g->leaf_slots),
				le64_to_cpu(h->version)));
}

/* 16 slots of @vs-byte values: 16 (check words) or 8 (in the key block). */
static int stable_slots(u32 vs)
{
	struct ordo_tree t;
	const struct ordo_geo *g = &t.geo;
	bool inb = ordo_leaf_values_in_block(vs);
	u8 before[640], m[640], v[16];
	struct ordo_node_hdr *h;
	u32 i, rank, cnt, vals;
	int slot, s50;

	CHECK(!tree_new(&t, 16, vs, 1 << 16, 1 << 20));
	CHECK_EQ(g->node_size, inb ? 384 : 640);
	vals = ordo_leaf_value_off(16, vs, 0);
	/* Descending inserts: each lands at rank 0 in the next free slot. */
	for (i = 10; i >= 1; i--) {
		vfill(v, vs, i * 10, 1);
		CHECK(!ordo_tree_insert(&t, i * 10, v));
	}
	h = leaf_of(&t, 0);
	CHECK(h);
	for (i = 1; i <= 10; i++) {
		slot = ordo_leaf_find(h, g, 10, i * 10, &rank);
		CHECK_EQ(slot, 10 - (int)i);
		CHECK_EQ(rank, i - 1);
		vfill(v, vs, i * 10, 1);
		CHECK(!memcmp(ordo_leaf_cvalue(h, g, slot), v, vs));
	}
	/* An insert writes one free slot: no stored key or value moves. */
	memcpy(before, h, g->node_size);
	vfill(v, vs, 55, 1);
	CHECK(!ordo_tree_insert(&t, 55, v));
	CHECK_EQ(ordo_leaf_find(h, g, 11, 55, &rank), 10);
	CHECK_EQ(rank, 5);
	CHECK(!memcmp((u8 *)h + ORDO_NODE_HDR_SIZE,
		      before + ORDO_NODE_HDR_SIZE, 8 * 10));
	CHECK(!memcmp((u8 *)h + ordo_leaf_check_off(16, 0),
		      before + ordo_leaf_check_off(16, 0), 8 * 10));
	CHECK(!memcmp((u8 *)h + vals, before + vals, vs * 10));
	/* A delete frees its slot; the next insert takes the lowest free. */
	s50 = ordo_leaf_find(h, g, 11, 50, &rank);
	CHECK(s50 >= 0);
	CHECK(!ordo_tree_delete(&t, 50));
	CHECK_EQ(ordo_leaf_find(h, g, 10, 50, &rank), -1);
	vfill(v, vs, 51, 1);
	CHECK(!ordo_tree_insert(&t, 51, v));
	CHECK_EQ(ordo_leaf_find(h, g, 11, 51, &rank), s50);
	CHECK_EQ(ordo_node_copy_validate(m, h, g), 0);
	cnt = le16_to_cpu(h->count);
	CHECK_EQ(cnt, 11);
	/* A sealed key block whose order[] is not a sorted slot list. */
	memcpy(before, m, g->node_size);
	m[ordo_leaf_order_off(16)] = 16;
	reseal(m, g);
	CHECK_EQ(ordo_node_validate(m, g), -EIO);
	memcpy(m, before, g->node_size);
	m[ordo_leaf_order_off(16) + 1] = m[ordo_leaf_order_off(16)];
	reseal(m, g);
	CHECK_EQ(ordo_node_validate(m, g), -EIO);
	memcpy(m, before, g->node_size);
	m[ordo_leaf_order_off(16) + 1] = before[ordo_leaf_order_off(16) + 2];
	m[ordo_leaf_order_off(16) + 2] = before[ordo_leaf_order_off(16) + 1];
	reseal(m, g);
	CHECK_EQ(ordo_node_validate(m, g), -EIO);
	/* A value in use that does not hash to its check word: torn. */
	memcpy(m, before, g->node_size);
	m[ordo_leaf_value_off(16, vs, s50)] ^= 1;
	CHECK_EQ(ordo_node_validate(m, g), -EAGAIN);
	/* A free slot's bytes are no part of the leaf. */
	memcpy(m, before, g->node_size);
	m[ordo_leaf_value_off(16, vs, 15)] ^= 1;
	m[ordo_leaf_key_off(15)] ^= 1;
	CHECK_EQ(ordo_node_validate(m, g), -EAGAIN);
	/* Unless it is in the key block, which the checksum covers. */
	memcpy(m, before, g->node_size);
	m[ordo_leaf_value_off(16, vs, 15)] ^= 1;
	CHECK_EQ(ordo_node_validate(m, g), inb ? -EAGAIN : 0);
	CHECK(!check_tree(&t, 11));
	ordo_tree_destroy(&t);
	return 0;
}

static int t_stable_slots(void)
{
	CHECK(!stable_slots(16));
	CHECK(!stable_slots(8));
	return 0;
}

/* Re-hash out-of-block value @slot of a leaf copy as if @len bytes long. */
static void rehash(u8 *buf, const struct ordo_geo *g, u32 slot, u32 len)
{
	struct ordo_node_hdr *h = (void *)buf;

	ordo_leaf_checks(h, g)[slot] =
		cpu_to_le64(ordo_xxh64(ordo_leaf_cvalue(h, g, slot), len,
				       le64_to_cpu(ordo_node_ckeys(h)[slot])));
}

/*
 * Values of 0..value_size bytes in one 16-slot leaf of @vs-byte slots: 16
 * (check words, 640-byte nodes) or 8 (values in the key block, 384).
 * Each length round-trips, a leaf copy's lengths are checked, and a
 * value's bytes are its first lens[] bytes, no more.
 */
static int value_lens(u32 vs)
{
	static const u32 lens[] = { 0, 1, 7, 8, 9, 15, 16 };
	struct ordo_tree t;
	const struct ordo_geo *g = &t.geo;
	bool inb = ordo_leaf_values_in_block(vs);
	u8 v[16], out[16], w[16], m[640], pub[640], vals[16 * 16];
	u32 i, n = 0, len, glen, rank, got_lens[16], sshort = 0, sfull = 0;
	u32 ns = inb ? 384 : 640;
	u64 keys[16];
	struct ordo_value val;
	struct ordo_node_hdr *h;
	int slot;

	CHECK(!tree_new(&t, 16, vs, 1 << 16, 1 << 20));
	CHECK_EQ(g->node_size, ns);
	/* Key 10 * (i + 1) holds a value of lens[i] bytes. */
	for (i = 0; i < ARRAY_SIZE(lens) && lens[i] <= vs; i++, n++) {
		vfill(v, 16, (i + 1) * 10, 1);
		val = (struct ordo_value){ .buf = v, .len = lens[i] };
		CHECK(!ordo_tree_insert_len(&t, (i + 1) * 10, &val));
	}
	CHECK_EQ(n, inb ? 4 : 7);
	for (i = 0; i < n; i++) {
		len = lens[i];
		vfill(v, 16, (i + 1) * 10, 1);
		/* GET writes exactly the value's bytes. */
		memset(out, 0xa5, sizeof(out));
		glen = 12345;
		CHECK(!ordo_tree_get_len(&t, (i + 1) * 10, out, &glen));
		CHECK_EQ(glen, len);
		CHECK(!memcmp(out, v, len));
		CHECK(!memchr_inv_u8(out + len, 0xa5, sizeof(out) - len));
		/* The whole-slot GET zero-pads to value_size. */
		memset(out, 0xa5, sizeof(out));
		CHECK(!ordo_tree_get(&t, (i + 1) * 10, out));
		CHECK(!memcmp(out, v, len));
		CHECK(!memchr_inv_u8(out + len, 0, vs - len));
		CHECK(!memchr_inv_u8(out + vs, 0xa5, sizeof(out) - vs));
	}
	memset(vals, 0xa5, sizeof(vals));
	memset(got_lens, 0xa5, sizeof(got_lens));
	CHECK_EQ(ordo_tree_scan_len(&t, 0, 16, keys, vals, got_lens), n);
	for (i = 0; i < n; i++) {
		vfill(v, 16, (i + 1) * 10, 1);
		CHECK_EQ(keys[i], (i + 1) * 10);
		CHECK_EQ(got_lens[i], lens[i]);
		CHECK(!memcmp(vals + i * vs, v, lens[i]));
		CHECK(!memchr_inv_u8(vals + i * vs + lens[i], 0, vs - lens[i]));
	}
	CHECK(!memchr_inv_u8(vals + n * vs, 0xa5, sizeof(vals) - n * vs));
	/* Lengths without values, and neither. */
	CHECK_EQ(ordo_tree_scan_len(&t, 15, 16, keys, NULL, got_lens), n - 1);
	CHECK_EQ(got_lens[0], lens[1]);
	CHECK_EQ(ordo_tree_scan_len(&t, 0, 16, keys, NULL, NULL), n);

	/* An empty value: written, overwritten, and written back. */
	val = (struct ordo_value){ .buf = v, .len = 0 };
	CHECK(!ordo_tree_put_len(&t, 500, &val));
	glen = 12345;
	memset(out, 0xa5, sizeof(out));
	CHECK(!ordo_tree_get_len(&t, 500, out, &glen));
	CHECK_EQ(glen, 0);
	CHECK(!memchr_inv_u8(out, 0xa5, sizeof(out)));
	CHECK_EQ(ordo_tree_insert_len(&t, 500, &val), -EEXIST);
	vfill(v, 16, 500, 2);
	val.len = vs;
	CHECK(!ordo_tree_update_len(&t, 500, &val));
	CHECK(!ordo_tree_get_len(&t, 500, out, &glen));
	CHECK_EQ(glen, vs);
	CHECK(!memcmp(out, v, vs));
	val.len = 0;
	CHECK(!ordo_tree_update_len(&t, 500, &val));
	memset(out, 0xa5, sizeof(out));
	CHECK(!ordo_tree_get_len(&t, 500, out, &glen));
	CHECK_EQ(glen, 0);
	CHECK(!memchr_inv_u8(out, 0xa5, sizeof(out)));
	CHECK(!ordo_tree_get(&t, 500, out));
	CHECK(!memchr_inv_u8(out, 0, vs));
	CHECK_EQ(ordo_tree_scan_len(&t, 500, 1, keys, vals, got_lens), 1);
	CHECK_EQ(got_lens[0], 0);
	CHECK(!memchr_inv_u8(vals, 0, vs));
	n++;

	/* A whole copy carries each length, and is one publication. */
	h = leaf_of(&t, 0);
	CHECK(h);
	CHECK_EQ(ordo_node_copy_validate(pub, h, g), 0);
	CHECK_EQ(le16_to_cpu(((struct ordo_node_hdr *)pub)->count), n);
	for (i = 0; i < n; i++) {
		u64 key = i + 1 < n ? (i + 1) * 10 : 500;

		slot = ordo_leaf_find((void *)pub, g, n, key, &rank);
		CHECK(slot >= 0);
		len = le16_to_cpu(ordo_leaf_clens((void *)pub, g)[slot]);
		CHECK_EQ(len, i + 1 < n ? lens[i] : 0);
		/* In the key block, the bytes past a value's length are 0. */
		if (inb)
			CHECK(!memchr_inv_u8(ordo_leaf_cvalue((void *)pub, g,
							       slot) + len,
					     0, ORDO_VALUE_IN_BLOCK_MAX - len));
		if (len == 7)
			sshort = slot;
		if (len == vs)
			sfull = slot;
	}
	CHECK(sshort != sfull);

	/*
	 * A value's bytes changed after publication: its check word fails
	 * (in the key block, the checksum), torn.
	 */
	memcpy(m, pub, ns);
	m[ordo_leaf_value_off(16, vs, sshort) + 6] ^= 0x40;
	CHECK_EQ(ordo_node_validate(m, g), -EAGAIN);
	memcpy(m, pub, ns);
	m[ordo_leaf_value_off(16, vs, sfull) + vs - 1] ^= 1;
	CHECK_EQ(ordo_node_validate(m, g), -EAGAIN);
	/* So does a length changed alone (the check word covers 7 bytes). */
	if (!inb) {
		memcpy(m, pub, ns);
		ordo_leaf_lens((void *)m, g)[sshort] = cpu_to_le16(6);
		reseal(m, g);
		CHECK_EQ(ordo_node_validate(m, g), -EAGAIN);
		/* ... and passes once the check word says 6 bytes. */
		rehash(m, g, sshort, 6);
		reseal(m, g);
		CHECK_EQ(ordo_node_validate(m, g), 0);
	}
	/*
	 * Past its length a slot's bytes are no part of the value, unless
	 * they are in the key block.
	 */
	memcpy(m, pub, ns);
	m[ordo_leaf_value_off(16, vs, sshort) + 7] ^= 0x40;
	CHECK_EQ(ordo_node_validate(m, g), inb ? -EAGAIN : 0);
	/* A bounded GET's check of a value read apart: its 7 bytes only. */
	memcpy(w, ordo_leaf_cvalue((void *)pub, g, sshort), 7);
	memset(w + 7, 0x5a, sizeof(w) - 7);
	CHECK(ordo_leaf_value_matches((void *)pub, g, sshort, w));
	w[6] ^= 1;
	CHECK(!ordo_leaf_value_matches((void *)pub, g, sshort, w));
	/* The live leaf: a value byte changed under it fails the same way. */
	((u8 *)h)[ordo_leaf_value_off(16, vs, sshort)] ^= 0x80;
	CHECK_EQ(ordo_node_copy_validate(m, h, g), -EAGAIN);
	((u8 *)h)[ordo_leaf_value_off(16, vs, sshort)] ^= 0x80;
	CHECK_EQ(ordo_node_copy_validate(m, h, g), 0);

	/*
	 * A used slot longer than value_size, in a sealed key block whose
	 * check word matches: consistent but malformed.
	 */
	for (len = vs; len <= vs + 1; len++) {
		memcpy(m, pub, ns);
		ordo_leaf_lens((void *)m, g)[sshort] = cpu_to_le16(len);
		if (!inb)
			rehash(m, g, sshort, len);
		reseal(m, g);
		CHECK_EQ(ordo_node_validate(m, g), len > vs ? -EIO : 0);
	}
	memcpy(m, pub, ns);
	ordo_leaf_lens((void *)m, g)[sfull] = cpu_to_le16(0xffff);
	reseal(m, g);
	CHECK_EQ(ordo_node_validate(m, g), -EIO);
	/* A free slot's length is no part of the leaf. */
	memcpy(m, pub, ns);
	ordo_leaf_lens((void *)m, g)[15] = cpu_to_le16(0xffff);
	reseal(m, g);
	CHECK_EQ(ordo_node_validate(m, g), 0);
	CHECK(!check_tree(&t, n));
	ordo_tree_destroy(&t);
	return 0;
}

static int t_value_lens(void)
{
	CHECK(!value_lens(16));
	CHECK(!value_lens(8));
	return 0;
}

static int t_empty(void)
{
	struct ordo_tree t;
	u64 k[4], v = 0;

	CHECK(!tree_new(&t, 16, 8, 1 << 16, 1 << 20));
	CHECK_EQ(ordo_tree_get(&t, 0, &v), -ENOENT);
	CHECK_EQ(ordo_tree_get(&t, U64_MAX, &v), -ENOENT);
	CHECK_EQ(ordo_tree_scan(&t, 0, 4, k, NULL), 0);
	CHECK_EQ(ordo_tree_scan(&t, 0, 0, k, NULL), 0);
	CHECK_EQ(ordo_tree_delete(&t, 5), -ENOENT);
	CHECK_EQ(ordo_tree_update(&t, 5, &v), -ENOENT);
	CHECK(!check_tree(&t, 0));
	ordo_tree_destroy(&t);
	return 0;
}

static int t_ops(void)
{
	struct ordo_tree t;
	u64 v, w;

	CHECK(!tree_new(&t, 16, 8, 1 << 16, 1 << 20));
	v = 1;
	CHECK_EQ(ordo_tree_insert(&t, 7, &v), 0);
	v = 2;
	CHECK_EQ(ordo_tree_insert(&t, 7, &v), -EEXIST);
	CHECK_EQ(ordo_tree_get(&t, 7, &w), 0);
	CHECK_EQ(w, 1);
	CHECK_EQ(ordo_tree_update(&t, 7, &v), 0);
	CHECK_EQ(ordo_tree_get(&t, 7, &w), 0);
	CHECK_EQ(w, 2);
	CHECK_EQ(ordo_tree_update(&t, 8, &v), -ENOENT);
	CHECK_EQ(ordo_tree_get(&t, 8, &w), -ENOENT);
	v = 3;
	CHECK_EQ(ordo_tree_put(&t, 7, &v), 0);
	CHECK_EQ(ordo_tree_put(&t, 8, &v), 0);
	CHECK_EQ(ordo_tree_get(&t, 7, NULL), 0);
	CHECK_EQ(ordo_tree_get(&t, 8, &w), 0);
	CHECK_EQ(w, 3);
	CHECK(!check_tree(&t, 2));
	CHECK_EQ(ordo_tree_delete(&t, 7), 0);
	CHECK_EQ(ordo_tree_delete(&t, 7), -ENOENT);
	CHECK_EQ(ordo_tree_get(&t, 7, &w), -ENOENT);
	CHECK_EQ(ordo_tree_insert(&t, 7, &v), 0);
	CHECK(!check_tree(&t, 2));
	ordo_tree_destroy(&t);
	return 0;
}

static int t_extreme_keys(void)
{
	struct ordo_tree t;
	u64 k[8], vals[8], v, i;

	CHECK(!tree_new(&t, 4, 8, 1 << 16, 1 << 20));
	v = 100;
	CHECK(!ordo_tree_insert(&t, U64_MAX, &v));
	v = 200;
	CHECK(!ordo_tree_insert(&t, 0, &v));
	for (i = 1; i <= 40; i++) {
		v = i;
		CHECK(!ordo_tree_insert(&t, U64_MAX - i, &v));
		CHECK(!ordo_tree_insert(&t, i, &v));
	}
	CHECK(!ordo_tree_get(&t, U64_MAX, &v));
	CHECK_EQ(v, 100);
	CHECK(!ordo_tree_get(&t, 0, &v));
	CHECK_EQ(v, 200);
	CHECK_EQ(ordo_tree_scan(&t, U64_MAX, 8, k, vals), 1);
	CHECK(k[0] == U64_MAX && vals[0] == 100);
	CHECK_EQ(ordo_tree_scan(&t, U64_MAX - 1, 8, k, vals), 2);
	CHECK(k[0] == U64_MAX - 1 && k[1] == U64_MAX);
	CHECK_EQ(ordo_tree_scan(&t, 0, 3, k, vals), 3);
	CHECK(k[0] == 0 && k[1] == 1 && k[2] == 2 && vals[0] == 200);
	CHECK_EQ(ordo_tree_scan(&t, 41, 1, k, NULL), 1);
	CHECK(k[0] == U64_MAX - 40);
	CHECK(!check_tree(&t, 82));
	CHECK(!ordo_tree_delete(&t, U64_MAX));
	CHECK(!ordo_tree_delete(&t, 0));
	CHECK_EQ(ordo_tree_get(&t, U64_MAX, &v), -ENOENT);
	CHECK_EQ(ordo_tree_scan(&t, U64_MAX, 8, k, vals), 0);
	CHECK(!check_tree(&t, 80));
	ordo_tree_destroy(&t);
	return 0;
}

static int t_scan_bounds(void)
{
	struct ordo_tree t;
	u64 k[300], vals[300], v, i;

	CHECK(!tree_new(&t, 4, 8, 1 << 16, 1 << 20));
	for (i = 0; i < 200; i++) {
		v = i * 3 + 1;
		CHECK(!ordo_tree_put(&t, i * 3 + 1, &v));
	}
	CHECK_EQ(ordo_tree_scan(&t, 0, 0, k, vals), 0);
	CHECK_EQ(ordo_tree_scan(&t, 598, 5, k, vals), 1);
	CHECK_EQ(ordo_tree_scan(&t, 599, 5, k, vals), 0);
	CHECK_EQ(ordo_tree_scan(&t, U64_MAX, 5, k, vals), 0);
	CHECK_EQ(ordo_tree_scan(&t, 0, 300, k, vals), 200);
	for (i = 0; i < 200; i++)
		CHECK(k[i] == i * 3 + 1 && vals[i] == k[i]);
	for (i = 0; i < 600; i += 7) {
		int n = ordo_tree_scan(&t, i, 13, k, vals);
		u64 first = i ? (i - 1) / 3 * 3 + 4 : 1;

		if (i % 3 == 1)
			first = i;
		CHECK_EQ(n, min_t(u64, 13, first > 598 ? 0 :
				  (598 - first) / 3 + 1));
		if (n)
			CHECK_EQ(k[0], first);
	}
	CHECK(!check_tree(&t, 200));
	ordo_tree_destroy(&t);
	return 0;
}

static int t_deep_splits(void)
{
	/* Random keys in 4-slot leaves: height 4 with fanout 330. */
	const u32 n = 250000;
	struct ordo_tree_stats st, st2;
	struct ordo_tree t;
	u64 *keys = malloc(sizeof(u64) * n), v, i;
	u32 got;

	CHECK(keys);
	CHECK(!tree_new(&t, 4, 8, 1 << 16, 256 << 20));
	for (i = 0; i < n; i++) {
		keys[i] = rnd();
		vfill(&v, 8, keys[i], 0);
		CHECK(!ordo_tree_put(&t, keys[i], &v));
	}
	ordo_tree_get_stats(&t, &st);
	CHECK(st.height >= 4);
	CHECK(st.inner_splits > 0 && st.root_growths >= 3);
	CHECK_EQ(st.root_growths + 1, st.height);
	for (i = 0; i < n; i++) {
		CHECK(!ordo_tree_get(&t, keys[i], &v));
		CHECK(vcheck(&v, 8, keys[i], 0));
	}
	CHECK(!check_tree(&t, n));
	/* Delete everything: leaves stay, empty; the tree still works. */
	for (i = 0; i < n; i++)
		CHECK(!ordo_tree_delete(&t, keys[i]));
	CHECK(!check_tree(&t, 0));
	ordo_tree_get_stats(&t, &st);
	CHECK_EQ(st.leaves_retired, 0);
	for (i = 0; i < n; i += 3)
		CHECK(!ordo_tree_insert(&t, keys[i], &v));
	CHECK(!check_tree(&t, (n + 2) / 3));
	/* Empty again; now retire the empty leaves and refill. */
	for (i = 0; i < n; i += 3)
		CHECK(!ordo_tree_delete(&t, keys[i]));
	do {
		CHECK(!ordo_tree_retire_empty(&t, 1000, &got));
	} while (got);
	ordo_tree_get_stats(&t, &st2);
	CHECK(st2.leaves_retired > 0);
	CHECK_EQ(st2.leaves + st2.leaves_retired, st.leaves + st2.leaf_splits -
		 st.leaf_splits);
	CHECK_EQ(st2.pool_bytes_used + st2.leaves_retired * t.geo.node_size,
		 st.pool_bytes_used + (st2.leaf_splits - st.leaf_splits +
				       st2.inner_nodes - st.inner_nodes) *
		 t.geo.node_size);
	CHECK(!check_tree(&t, 0));
	for (i = 0; i < n; i++) {
		CHECK(!ordo_tree_insert(&t, keys[i], &v));
		CHECK(!ordo_tree_get(&t, keys[i], &v));
	}
	CHECK(!check_tree(&t, n));
	ordo_tree_destroy(&t);
	free(keys);
	return 0;
}

static int t_sequential(void)
{
	struct ordo_tree_stats st;
	struct ordo_tree t;
	u64 v, i, n = 20000;

	/* Ascending loads fill leaves completely (append split). */
	CHECK(!tree_new(&t, 16, 8, 1 << 16, 64 << 20));
	for (i = 0; i < n; i++) {
		v = i;
		CHECK(!ordo_tree_insert(&t, i, &v));
	}
	ordo_tree_get_stats(&t, &st);
	CHECK_EQ(st.leaves, (n + 15) / 16);
	CHECK(!check_tree(&t, n));
	ordo_tree_destroy(&t);
	/* Descending loads work too (half-full leaves). */
	CHECK(!tree_new(&t, 16, 8, 1 << 16, 64 << 20));
	for (i = n; i > 0; i--) {
		v = i;
		CHECK(!ordo_tree_insert(&t, i, &v));
	}
	CHECK(!check_tree(&t, n));
	for (i = 1; i <= n; i++) {
		CHECK(!ordo_tree_get(&t, i, &v));
		CHECK_EQ(v, i);
	}
	ordo_tree_destroy(&t);
	return 0;
}

static int value_sizes_one(u32 slots, u32 vs, u32 n)
{
	u64 *buf = malloc(vs), *out = malloc((size_t)vs * 8), k[8], i;
	struct ordo_tree t;

	CHECK(buf && out);
	CHECK(!tree_new(&t, slots, vs, 2 << 20, 256 << 20));
	for (i = 0; i < n; i++) {
		vfill(buf, vs, i * 7, 1);
		CHECK(!ordo_tree_insert(&t, i * 7, buf));
	}
	for (i = 0; i < n; i += 2) {
		vfill(buf, vs, i * 7, 2);
		CHECK(!ordo_tree_update(&t, i * 7, buf));
	}
	for (i = 0; i < n; i++) {
		CHECK(!ordo_tree_get(&t, i * 7, buf));
		CHECK(vcheck(buf, vs, i * 7, i % 2 ? 1 : 2));
	}
	CHECK_EQ(ordo_tree_scan(&t, 7 * (n - 8), 8, k, out), 8);
	for (i = 0; i < 8; i++)
		CHECK(vcheck((u8 *)out + i * vs, vs, k[i], (n - 8 + i) % 2 ? 1 : 2));
	CHECK(!check_tree(&t, n));
	ordo_tree_destroy(&t);
	free(buf);
	free(out);
	return 0;
}

static int t_value_sizes(void)
{
	CHECK(!value_sizes_one(4, 8, 3000));
	CHECK(!value_sizes_one(16, 1024, 3000));
	CHECK(!value_sizes_one(4, 1024, 2000));
	CHECK(!value_sizes_one(255, 8, 20000));
	CHECK(!value_sizes_one(255, 1024, 2000));
	CHECK(!value_sizes_one(7, 24, 5000));
	return 0;
}

static int enomem_one(u32 slots, u32 vs, u64 max_bytes)
{
	u64 *buf = malloc(vs), *keys = malloc(sizeof(u64) * 100000), i, n;
	struct ordo_tree_stats st, st2;
	struct ordo_tree t;
	int err = 0;

	CHECK(buf && keys);
	CHECK(!tree_new(&t, slots, vs, 1 << 16, max_bytes));
	for (n = 0; n < 100000; n++) {
		keys[n] = rnd();
		vfill(buf, vs, keys[n], 0);
		err = ordo_tree_insert(&t, keys[n], buf);
		if (err)
			break;
	}
	CHECK_EQ(err, -ENOMEM);
	CHECK(n > 0);
	CHECK_EQ(ordo_tree_get(&t, keys[n], buf), -ENOENT);
	ordo_tree_get_stats(&t, &st);
	CHECK(st.pool_bytes_total <= max_bytes);
	CHECK_EQ(st.pool_bytes_total, st.pool_bytes_max);
	/* Everything stored before is intact and readable. */
	CHECK(!check_tree(&t, n));
	for (i = 0; i < n; i++) {
		CHECK(!ordo_tree_get(&t, keys[i], buf));
		CHECK(vcheck(buf, vs, keys[i], 0));
	}
	/* Retrying fails the same way and changes nothing. */
	for (i = 0; i < 50; i++)
		CHECK_EQ(ordo_tree_insert(&t, keys[n], buf), -ENOMEM);
	ordo_tree_get_stats(&t, &st2);
	CHECK_EQ(st2.pool_bytes_used, st.pool_bytes_used);
	/* Writes that need no new node still work. */
	for (i = 0; i < n; i++) {
		vfill(buf, vs, keys[i], 5);
		CHECK(!ordo_tree_update(&t, keys[i], buf));
	}
	for (i = 0; i < n; i += 2)
		CHECK(!ordo_tree_delete(&t, keys[i]));
	for (i = 1; i < n; i += 2) {
		CHECK(!ordo_tree_get(&t, keys[i], buf));
		CHECK(vcheck(buf, vs, keys[i], 5));
	}
	CHECK(!check_tree(&t, n / 2));
	ordo_tree_destroy(&t);
	free(buf);
	free(keys);
	return 0;
}

static int t_enomem(void)
{
	CHECK(!enomem_one(4, 8, 64 << 10));
	CHECK(!enomem_one(16, 8, 3 * (64 << 10)));
	CHECK(!enomem_one(16, 1024, 2 * (64 << 10)));
	return 0;
}

struct split_log {
	u32 calls, left, right;
	u64 sep;
};

static void on_split(void *ctx, u32 left, u32 right, u64 sep)
{
	struct split_log *l = ctx;

	l->calls++;
	l->left = left;
	l->right = right;
	l->sep = sep;
}

static int t_incarnation(void)
{
	struct split_log log = { 0 };
	struct ordo_tree_hooks hooks = { .leaf_split = on_split, .ctx = &log };
	struct ordo_tree_stats st;
	struct ordo_node_hdr *l, *r;
	struct ordo_tree t;
	u32 inc, rinc;
	u64 v = 0, i;

	CHECK(!tree_new(&t, 4, 8, 1 << 16, 1 << 20));
	ordo_tree_set_hooks(&t, &hooks);
	for (i = 0; i < 4; i++)
		CHECK(!ordo_tree_put(&t, i * 10, &v));
	l = leaf_of(&t, 0);
	inc = le32_to_cpu(l->incarnation);
	CHECK_EQ(log.calls, 0);
	CHECK(!ordo_tree_put(&t, 15, &v));
	CHECK_EQ(log.calls, 1);
	CHECK_EQ(log.left, le32_to_cpu(l->node_no));
	CHECK(le32_to_cpu(l->incarnation) != inc);
	r = ordo_pool_node(&t.pool, log.right);
	CHECK_EQ(le32_to_cpu(l->right), log.right);
	CHECK(l->flags & ORDO_NODE_F_HAS_HIGH);
	CHECK_EQ(le64_to_cpu(l->high_key), log.sep);
	CHECK_EQ(le64_to_cpu(r->low_key), log.sep);
	CHECK_EQ(le64_to_cpu(r->node_no), log.right);
	CHECK(!(r->flags & ORDO_NODE_F_HAS_HIGH));
	/* [0 10 20 30] + 15 splits into [0 10] and [15 20 30]. */
	CHECK_EQ(log.sep, 15);
	CHECK_EQ(le16_to_cpu(l->count), 2);
	CHECK_EQ(le16_to_cpu(r->count), 3);
	/* Non-split writes keep the incarnation. */
	inc = le32_to_cpu(l->incarnation);
	rinc = le32_to_cpu(r->incarnation);
	CHECK(!ordo_tree_put(&t, 5, &v));
	CHECK(!ordo_tree_delete(&t, 5));
	CHECK_EQ(le32_to_cpu(l->incarnation), inc);
	/* Splitting the right node changes its incarnation too. */
	for (i = 0; i < 3; i++)
		CHECK(!ordo_tree_put(&t, 100 + i, &v));
	CHECK_EQ(log.calls, 2);
	CHECK_EQ(log.left, le32_to_cpu(r->node_no));
	CHECK(le32_to_cpu(r->incarnation) != rinc);
	ordo_tree_get_stats(&t, &st);
	CHECK_EQ(st.leaf_splits, 2);
	ordo_tree_set_hooks(&t, NULL);
	ordo_tree_destroy(&t);
	return 0;
}

static int t_leaf_iter(void)
{
	struct ordo_leaf_snap s;
	struct ordo_leaf_iter it;
	struct ordo_tree t;
	u64 v = 0, i, seen = 0, prev_high = 0;
	int r;

	CHECK(!tree_new(&t, 8, 8, 1 << 16, 8 << 20));
	for (i = 0; i < 1000; i++)
		CHECK(!ordo_tree_put(&t, i * 2, &v));
	/* Start in the middle: the first leaf holds key 1000. */
	CHECK(!ordo_leaf_iter_start(&it, &t, 1001));
	CHECK_EQ(ordo_leaf_iter_next(&it, &s), 1);
	CHECK(s.low_key <= 1001 && (!s.has_high || 1001 < s.high_key));
	seen = s.count;
	for (i = 0; i < s.count; i++)
		CHECK(s.keys[i] % 2 == 0);
	prev_high = s.high_key;
	while ((r = ordo_leaf_iter_next(&it, &s)) == 1) {
		CHECK_EQ(s.low_key, prev_high);
		prev_high = s.high_key;
		seen += s.count;
		CHECK(s.incarnation > 0);
	}
	CHECK_EQ(r, 0);
	CHECK(seen >= 500 && seen <= 510);
	ordo_leaf_iter_end(&it);
	ordo_tree_destroy(&t);
	return 0;
}

/*
 * The leaf iterator keeps a node number between calls, the one way a local
 * seqlock reader starts from a number the tree did not just hand it.  Given
 * a never-written node (all zeroes: level 0, version 0, open fences, as an
 * empty leaf would look) or an inner node, it must notice and descend: a
 * reader that skipped the node_no check returns an empty leaf.
 */
static int t_local_stale_numbers(void)
{
	struct ordo_leaf_snap s;
	struct ordo_leaf_iter it;
	struct ordo_tree t;
	u32 blank = 0, n, bad[2], k;
	u64 v = 0, i;

	CHECK(!tree_new(&t, 8, 8, 1 << 16, 8 << 20));
	for (i = 0; i < 200; i++)
		CHECK(!ordo_tree_put(&t, i * 2, &v));
	CHECK(t.height >= 2);
	for (n = t.pool.nodes_per_chunk - 1; n > 0 && !blank; n--) {
		const struct ordo_node_hdr *h = ordo_pool_node(&t.pool, n);

		if (h && !h->version && !h->node_no)
			blank = n;
	}
	CHECK(blank);
	bad[0] = blank;
	bad[1] = t.root;
	for (k = 0; k < 2; k++) {
		CHECK(!ordo_leaf_iter_start(&it, &t, 201));
		it.next_node = bad[k];
		CHECK_EQ(ordo_leaf_iter_next(&it, &s), 1);
		CHECK(s.node_no != bad[k]);
		CHECK(s.count > 0);
		CHECK(s.low_key <= 201 && (!s.has_high || 201 < s.high_key));
		ordo_leaf_iter_end(&it);
	}
	ordo_tree_destroy(&t);
	return 0;
}

static int t_superblock(void)
{
	struct ordo_super_info si;
	struct ordo_tree_stats st;
	struct ordo_tree t;
	u8 *copy;
	u64 v = 0, i;

	CHECK(!tree_new(&t, 4, 16, 1 << 16, 16 << 20));
	copy = malloc(t.geo.node_size);
	CHECK(copy);
	ordo_node_copy_stable(copy, ordo_pool_super(&t.pool), t.geo.node_size);
	CHECK_EQ(ordo_super_parse(copy, t.geo.node_size, &si), 0);
	CHECK_EQ(si.geo.node_size, 256);
	CHECK_EQ(si.geo.leaf_slots, 4);
	CHECK_EQ(si.geo.value_size, 16);
	CHECK_EQ(si.geo.inner_fanout, 336);
	CHECK_EQ(si.chunk_size, 1 << 16);
	CHECK_EQ(si.nodes_per_chunk, 256);
	CHECK_EQ(si.max_chunks, 256);
	CHECK_EQ(si.nr_chunks, 1);
	CHECK_EQ(si.height, 1);
	CHECK_EQ(si.root, si.leftmost_leaf);
	CHECK_EQ(ordo_super_parse(copy, 64, &si), -EMSGSIZE);
	CHECK_EQ(ordo_super_parse(copy, 128, &si), -EMSGSIZE);
	CHECK_EQ(si.geo.node_size, 256);
	for (i = 0; i < 5000; i++) {
		u64 val[2] = { i, i };

		CHECK(!ordo_tree_put(&t, rnd(), val));
	}
	ordo_tree_get_stats(&t, &st);
	ordo_node_copy_stable(copy, ordo_pool_super(&t.pool), t.geo.node_size);
	CHECK_EQ(ordo_super_parse(copy, t.geo.node_size, &si), 0);
	CHECK_EQ(si.height, st.height);
	CHECK_EQ(si.root, t.root);
	CHECK_EQ((u64)si.nr_chunks * si.chunk_size, st.pool_bytes_total);
	CHECK(si.nr_chunks > 1);
	copy[100] ^= 1;
	CHECK_EQ(ordo_super_parse(copy, t.geo.node_size, &si), -EAGAIN);
	copy[100] ^= 1;
	((struct ordo_super *)copy)->magic ^= 1;
	((struct ordo_super *)copy)->hdr.checksum = cpu_to_le64(
		ordo_node_checksum(copy, t.geo.node_size,
				   le64_to_cpu(((struct ordo_super *)copy)->hdr.version)));
	CHECK_EQ(ordo_super_parse(copy, t.geo.node_size, &si), -EBADMSG);
	((struct ordo_super *)copy)->magic ^= 1;
	/* Another layout (3: before value lengths): a clear refusal. */
	((struct ordo_super *)copy)->layout_version =
		cpu_to_le32(ORDO_LAYOUT_VERSION - 1);
	((struct ordo_super *)copy)->hdr.checksum = cpu_to_le64(
		ordo_node_checksum(copy, t.geo.node_size,
				   le64_to_cpu(((struct ordo_super *)copy)->hdr.version)));
	CHECK_EQ(ordo_super_parse(copy, t.geo.node_size, &si),
		 -EPROTONOSUPPORT);
	free(copy);
	(void)v;
	ordo_tree_destroy(&t);
	return 0;
}

/*
 * A client's GET, written only against the uapi layout and the copy
 * validation: bootstrap from node 0, then copy and validate each node,
 * an inner node's inner size, a leaf's node_size.
 */
static int client_get(struct ordo_tree *t, u64 key, u64 *val)
{
	struct ordo_super_info si;
	u8 *buf = malloc(4096 + t->geo.node_size);
	u8 sb[ORDO_SUPER_SIZE];
	u32 n, i, lvl;
	int ret = -EIO;

	/* First read: enough to learn node_size, then the whole node 0. */
	memcpy(sb, ordo_pool_super(&t->pool), sizeof(sb));
	ret = ordo_super_parse(sb, sizeof(sb), &si);
	if ((ret && ret != -EMSGSIZE) || !buf)
		goto out;
	ret = -EIO;
	if (ordo_node_copy_validate(buf, ordo_pool_super(&t->pool), &si.geo) ||
	    ordo_super_parse(buf, si.geo.node_size, &si))
		goto out;
	for (n = si.root, lvl = si.height - 1;;) {
		const struct ordo_node_hdr *h = (void *)buf;
		const __le64 *k = (const __le64 *)(buf + ordo_leaf_key_off(0));
		u32 cnt, len = lvl ? ordo_inner_size(si.geo.inner_fanout) :
			       si.geo.node_size;

		/*
		 * Remote: READ len bytes at offset ordo_node_offset(n, ...)
		 * of the pool, inside n's chunk.
		 */
		if ((n % si.nodes_per_chunk) * si.geo.node_size + len >
		    si.chunk_size) {
			printf("# node %u crosses its chunk's end\n", n);
			goto out;
		}
		memcpy(buf, ordo_pool_node(&t->pool, n), len);
		if (ordo_node_validate_part(buf, len, &si.geo)) {
			printf("# bad copy of node %u\n", n);
			goto out;
		}
		/* A retired or reused node fails one of these: restart. */
		if (le32_to_cpu(h->node_no) != n || h->level != lvl ||
		    (h->flags & (ORDO_NODE_F_FREE | ORDO_NODE_F_SUPER)) ||
		    key < le64_to_cpu(h->low_key)) {
			printf("# node %u: wrong node, level or range\n", n);
			goto out;
		}
		if ((h->flags & ORDO_NODE_F_HAS_HIGH) &&
		    key >= le64_to_cpu(h->high_key)) {
			n = le32_to_cpu(h->right);
			continue;
		}
		cnt = le16_to_cpu(h->count);
		if (h->level) {
			for (i = 1; i < cnt && le64_to_cpu(k[i]) <= key; i++)
				;
			memcpy(&n, buf + ordo_inner_child_off(si.geo.inner_fanout,
							      i - 1), 4);
			n = le32_to_cpu(n);
			lvl--;
			continue;
		}
		/* order[i] names the slot of the i-th smallest key. */
		ret = -ENOENT;
		for (i = 0; i < cnt; i++) {
			u8 s = buf[ordo_leaf_order_off(si.geo.leaf_slots) + i];

			if (le64_to_cpu(k[s]) == key) {
				memcpy(val, buf + ordo_leaf_value_off(si.geo.leaf_slots,
								      si.geo.value_size, s), 8);
				ret = 0;
			}
		}
		break;
	}
out:
	free(buf);
	return ret;
}

static int t_client_walk(void)
{
	struct ordo_tree t;
	u64 v, i;

	CHECK(!tree_new(&t, 4, 8, 1 << 16, 32 << 20));
	for (i = 0; i < 5000; i++) {
		v = i * 11;
		CHECK(!ordo_tree_put(&t, i * 11, &v));
	}
	for (i = 0; i < 5000 * 11; i += 5) {
		int r = client_get(&t, i, &v);

		CHECK_EQ(r, i % 11 ? -ENOENT : 0);
		if (!r)
			CHECK_EQ(v, i);
	}
	ordo_tree_destroy(&t);
	return 0;
}

static int t_pool(void)
{
	struct ordo_pool p;
	struct ordo_geo g;
	u32 a, b, c, inc;
	struct ordo_node_hdr *h;

	CHECK(!ordo_geo_init(&g, 4, 8));
	CHECK_EQ(ordo_pool_init(&p, &g, 3 << 16, 1 << 20, &chunk_ops, NULL), -EINVAL);
	CHECK_EQ(ordo_pool_init(&p, &g, 1 << 15, 1 << 20, &chunk_ops, NULL), -EINVAL);
	CHECK_EQ(ordo_pool_init(&p, &g, 1 << 16, 1 << 15, &chunk_ops, NULL), -EINVAL);
	CHECK_EQ(ordo_pool_init(&p, &g, 1 << 16, 1 << 20, NULL, NULL), -EINVAL);
	CHECK_EQ(chunks_live, 0);
	CHECK(!ordo_pool_init(&p, &g, 1 << 16, 2 << 16, &chunk_ops, NULL));
	CHECK_EQ(g.node_size, 192);
	CHECK_EQ(p.nodes_per_chunk, 341);
	CHECK_EQ(p.max_chunks, 2);
	CHECK_EQ(ordo_pool_reserve(&p, 682), -ENOMEM);
	CHECK(!ordo_pool_reserve(&p, 681));
	CHECK_EQ(ordo_pool_nr_chunks(&p), 2);
	CHECK_EQ(ordo_pool_reserve(&p, 1), -ENOMEM);
	a = ordo_pool_take(&p);
	b = ordo_pool_take(&p);
	CHECK_EQ(a, 1);
	CHECK_EQ(b, 2);
	ordo_pool_unreserve(&p, 679);
	/* Node n sits at (n / npc) * chunk + (n % npc) * node_size. */
	for (c = 0; c < 682; c += 37)
		CHECK((u8 *)ordo_pool_node(&p, c) ==
		      (u8 *)ordo_pool_chunk(&p, c / 341) + (c % 341) * 192);
	CHECK(!ordo_pool_node(&p, 682));
	CHECK(!ordo_pool_node(&p, U32_MAX));
	/* Free-list reuse: FREE flag, new incarnation, same number back. */
	h = ordo_pool_node(&p, b);
	inc = le32_to_cpu(h->incarnation);
	ordo_pool_free(&p, b);
	CHECK(h->flags & ORDO_NODE_F_FREE);
	CHECK(le32_to_cpu(h->incarnation) != inc);
	CHECK_EQ(ordo_node_validate(h, &g), 0);
	CHECK(!ordo_pool_reserve(&p, 1));
	CHECK_EQ(ordo_pool_take(&p), b);
	CHECK_EQ(ordo_pool_nodes_used(&p), 3);
	ordo_pool_destroy(&p);
	CHECK_EQ(chunks_live, 0);
	return 0;
}

/*
 * Inner nodes: ordo_inner_span() adjacent slots each, in chunks of their
 * own that the leaf bump pointer skips; none crosses its chunk's end.
 */
static int t_pool_inner(void)
{
	struct ordo_pool p;
	struct ordo_geo g;
	u32 i, n, c, first = 0, leaf;

	CHECK(!ordo_geo_init(&g, 4, 8));
	CHECK(!ordo_pool_init(&p, &g, 1 << 16, 4 << 16, &chunk_ops, NULL));
	CHECK_EQ(p.inner_span, 21);
	CHECK_EQ(p.inner_per_chunk, 16);
	/* 17 inner nodes: chunk 1 holds 16, chunk 2 the 17th. */
	CHECK(!ordo_pool_reserve_inner(&p, 17));
	CHECK_EQ(ordo_pool_nr_chunks(&p), 3);
	for (i = 0; i < 17; i++) {
		n = ordo_pool_take_inner(&p);
		c = n / p.nodes_per_chunk;
		CHECK_EQ(c, i < 16 ? 1 : 2);
		CHECK_EQ(n % p.nodes_per_chunk, (i % 16) * 21);
		CHECK((n % p.nodes_per_chunk) * g.node_size +
		      ordo_inner_size(g.inner_fanout) <= p.chunk_size);
		CHECK(!ordo_pool_is_leaf_slot(&p, n));
		CHECK(!ordo_pool_is_leaf_slot(&p, n + 1));
		if (!i)
			first = n;
	}
	CHECK_EQ(first, 341);
	CHECK_EQ(ordo_pool_nodes_used(&p), 1 + 17);
	CHECK_EQ(ordo_pool_node_bytes_used(&p), (1 + 17 * 21) * 192);
	/* Leaves: chunk 0, then chunk 3, past both inner chunks. */
	CHECK(!ordo_pool_reserve(&p, 340 + 341));
	CHECK_EQ(ordo_pool_nr_chunks(&p), 4);
	for (i = 0; i < 681; i++) {
		leaf = ordo_pool_take(&p);
		CHECK(ordo_pool_is_leaf_slot(&p, leaf));
		CHECK_EQ(leaf, i < 340 ? 1 + i : 3 * 341 + i - 340);
	}
	CHECK_EQ(ordo_pool_nodes_used(&p), 682 + 17);
	/* Full: no chunk for either class. */
	CHECK_EQ(ordo_pool_reserve(&p, 1), -ENOMEM);
	CHECK(!ordo_pool_reserve_inner(&p, 15));
	CHECK_EQ(ordo_pool_reserve_inner(&p, 1), -ENOMEM);
	ordo_pool_unreserve_inner(&p, 15);
	CHECK(!ordo_pool_reserve_inner(&p, 15));
	ordo_pool_destroy(&p);
	CHECK_EQ(chunks_live, 0);
	return 0;
}

static int t_bad_params(void)
{
	struct ordo_tree t;

	CHECK_EQ(tree_new(&t, 3, 8, 1 << 16, 1 << 20), -EINVAL);
	CHECK_EQ(tree_new(&t, 16, 7, 1 << 16, 1 << 20), -EINVAL);
	CHECK_EQ(tree_new(&t, 16, 1025, 1 << 16, 1 << 20), -EINVAL);
	CHECK_EQ(tree_new(&t, 16, 8, 100000, 1 << 20), -EINVAL);
	CHECK_EQ(tree_new(&t, 16, 8, 1 << 16, 1000), -EINVAL);
	/* A node larger than a chunk. */
	CHECK_EQ(tree_new(&t, 255, 1024, 1 << 16, 1 << 30), -EINVAL);
	CHECK_EQ(chunks_live, 0);
	return 0;
}

int main(void)
{
	run("geometry and uapi layout", t_geometry);
	run("xxh64 matches the reference", t_xxh64);
	run("torn and stale copies are rejected", t_torn_copies);
	run("leaf slots stay put; order[] is checked", t_stable_slots);
	run("values of 0..value_size bytes; lens[] is checked", t_value_lens);
	run("empty tree", t_empty);
	run("get/put/insert/update/delete and errors", t_ops);
	run("keys 0 and UINT64_MAX", t_extreme_keys);
	run("scan boundaries", t_scan_bounds);
	run("splits at every level, height >= 4", t_deep_splits);
	run("ascending and descending loads", t_sequential);
	run("value sizes 8..1024, slots 4..255", t_value_sizes);
	run("ENOMEM leaves the store intact", t_enomem);
	run("incarnation and split hook", t_incarnation);
	run("leaf iterator", t_leaf_iter);
	run("local readers refuse numbers of other nodes", t_local_stale_numbers);
	run("superblock bootstrap", t_superblock);
	run("client walk from raw copies", t_client_walk);
	run("pool reserve/take/free", t_pool);
	run("inner nodes: spans in chunks of their own", t_pool_inner);
	run("bad parameters", t_bad_params);
	return tap_done();
}
