// SPDX-License-Identifier: GPL-2.0
/*
 * libordo's GET of a long value (layout 5), natively (ASan, UBSan): the
 * leaf (whole, or its key block), then the whole extent by one more READ,
 * checked by ordo_extent_validate().  The extents here are written by
 * the test into the unused tail of the pool's last chunk and named from
 * real leaves (re-sealed), so every hostile reference a server could
 * publish can be tried: each must end in the fallback, never in bytes
 * delivered, and never in a READ outside the pool or across a chunk.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "shim.h"
#include "tree.h"
#include "core_test.h"

#define CHUNK		(4u << 20)
#define XMAX		ORDO_VALUE_LEN_MAX	/* ordo_value_len_max(4 MiB) */

static struct {
	struct ordo_tree t;
	u32 ext_reads, calls, scan_calls;
	u64 call_key;
	/* Run once, before the next extent READ is served. */
	void (*between)(void);
} B;

/* A READ the way the backends check it: inside one chunk that exists. */
static int pool_copy(u64 off, void *dst, size_t len)
{
	struct ordo_pool *p = &B.t.pool;
	u64 c = off / p->chunk_size;

	if (c >= p->nr_chunks || off % p->chunk_size + len > p->chunk_size)
		return -ERANGE;
	memcpy(dst, (u8 *)p->chunks[c] + off % p->chunk_size, len);
	return 0;
}

static bool is_node_read(struct ordo *o, u32 len)
{
	return len == o->geo.node_size ||
	       len == ordo_inner_size(o->geo.inner_fanout) ||
	       len == ordo_leaf_block_size(o->geo.leaf_slots) ||
	       len == o->geo.value_size;
}

static int be_read(struct ordo *o, struct shim_op *op)
{
	u32 i;
	int ret = 0;

	for (i = 0; i < op->nio && !ret; i++) {
		struct shim_io *io = &op->io[i];

		if (io->kind != SHIM_POOL)
			return -EIO;
		if (!is_node_read(o, io->len)) {
			B.ext_reads++;
			if (B.between) {
				B.between();
				B.between = NULL;
			}
		}
		ret = pool_copy(io->off, io->dst, io->len);
		if (!ret) {
			o->cnt.reads++;
			o->cnt.bytes_read += io->len;
		}
	}
	o->cnt.round_trips++;
	op->io_res = ret;
	return 1;
}

/* The fallback: noted, and it fails (a GET that reaches it: -EIO). */
static int be_call(struct ordo *o, struct shim_op *op)
{
	B.calls++;
	if (op->call.op == SHIM_CALL_SCAN) {
		B.scan_calls++;
		B.call_key = op->call.key;
		op->call.status = 0;
		op->call.returned = 0;
		op->call.more = 0;
		op->io_res = 0;
		return 1;
	}
	return -EIO;
}

static int be_wait(struct ordo *o, int ms)
{
	return 0;
}

static int be_bulk(struct ordo *o, uint32_t kind, uint64_t off, void *dst,
		   size_t len)
{
	return pool_copy(off, dst, len);
}

static int be_refresh(struct ordo *o)
{
	return -EIO;
}

static void be_close(struct ordo *o)
{
	free(o->ops[0].buf);
}

static const struct shim_backend pool_be = {
	.read = be_read,
	.call = be_call,
	.wait = be_wait,
	.bulk = be_bulk,
	.refresh = be_refresh,
	.close = be_close,
};

static void value_of(u8 *v, u32 len, u64 key, u32 version)
{
	u32 i;

	for (i = 0; i < len; i++)
		v[i] = (u8)(key * 31 + i * 7 + version * 13 + (i >> 9));
}

/* A tree of @n keys (i * 1000 + 1000) and a handle of @mode over it. */
static struct ordo *setup(u32 slots, u32 vs, u32 n, enum ordo_mode mode)
{
	struct ordo_tree_params p;
	struct ordo *o = calloc(1, sizeof(*o));
	u8 *v = malloc(vs);
	size_t per;
	u32 i;

	ordo_tree_default_params(&p);
	p.leaf_slots = slots;
	p.value_size = vs;
	p.chunk_size = CHUNK;
	p.max_bytes = 256 << 20;
	p.ops = &chunk_ops;
	memset(&B, 0, sizeof(B));
	if (!o || !v || ordo_tree_init(&B.t, &p))
		abort();
	for (i = 0; i < n; i++) {
		value_of(v, vs, i * 1000ULL + 1000, 1);
		if (ordo_tree_put(&B.t, i * 1000ULL + 1000, v))
			abort();
	}
	free(v);
	o->fd = -1;
	o->be = &pool_be;
	o->mode = mode;
	o->opts.timeout_ms = 5000;
	o->qd = 1;
	o->geo = B.t.pool.geo;
	if (ordo_super_parse(ordo_pool_node(&B.t.pool, 0), o->geo.node_size,
			     &o->sup))
		abort();
	per = shim_slot_bytes(&o->geo);
	if (shim_slots_init(o, calloc(1, per), per) || !o->ops[0].buf)
		abort();
	return o;
}

static void teardown(struct ordo *o)
{
	ordo_close(o);
	ordo_tree_destroy(&B.t);
}

/* Where test extents go: the last chunk's tail, past every node. */
static u64 ext_area(u32 bytes)
{
	struct ordo_pool *p = &B.t.pool;
	u64 base = (u64)(p->nr_chunks - 1) * p->chunk_size;
	u64 off = base + p->chunk_size - ((bytes + 63) & ~63ULL);

	if (ordo_node_offset(p->next, p->nodes_per_chunk, p->chunk_size,
			     p->geo.node_size) > off)
		abort();
	return off;
}

static u8 *pool_at(u64 off)
{
	struct ordo_pool *p = &B.t.pool;

	return (u8 *)p->chunks[off / p->chunk_size] + off % p->chunk_size;
}

/* Write an extent of @key's value (@len bytes, @version) at @off. */
static void ext_write(u64 off, u64 key, u32 len, u32 stamp, u32 version)
{
	struct ordo_extent_hdr *h = (void *)pool_at(off);

	h->key = cpu_to_le64(key);
	h->len = cpu_to_le32(len);
	h->stamp = cpu_to_le32(stamp);
	value_of((u8 *)h + ORDO_EXTENT_HDR_SIZE, len, key, version);
	h->check = cpu_to_le64(ordo_xxh64((u8 *)h + 8, 16 + len, 0));
}

/* The live leaf holding @key, and its slot. */
static struct ordo_node_hdr *leaf_of(u64 key, u32 *slot)
{
	struct ordo_pool *p = &B.t.pool;
	u32 n, rank;

	for (n = 1; n < p->next; n++) {
		struct ordo_node_hdr *h = ordo_pool_node(p, n);
		int s;

		if (h->level || (h->flags & ORDO_NODE_F_FREE))
			continue;
		s = ordo_leaf_find(h, &p->geo, le16_to_cpu(h->count), key,
				   &rank);
		if (s >= 0) {
			*slot = s;
			return h;
		}
	}
	abort();
}

/* Publish @key's slot as naming an extent: length word and reference. */
static void slot_set(u64 key, u16 lens, u64 ref)
{
	const struct ordo_geo *geo = &B.t.pool.geo;
	u32 s;
	struct ordo_node_hdr *h = leaf_of(key, &s);

	ordo_node_lock(h);
	ordo_leaf_lens(h, geo)[s] = cpu_to_le16(lens);
	ordo_leaf_checks(h, geo)[s] = cpu_to_le64(ref);
	ordo_node_unlock(h, geo);
}

static u64 ref_of(u64 off, u32 stamp)
{
	return off / ORDO_EXTENT_UNIT | (u64)stamp << ORDO_EXTENT_OFF_BITS;
}

/* @key's value becomes @len bytes out of line, at the area's end. */
static u64 ext_put(u64 key, u32 len, u32 stamp, u32 version)
{
	u32 units = ordo_extent_units(len);
	u64 off = ext_area(units * ORDO_EXTENT_UNIT);

	ext_write(off, key, len, stamp, version);
	slot_set(key, ORDO_LEN_EXTENT | units, ref_of(off, stamp));
	return off;
}

static int check_value(const u8 *got, u64 key, u32 len, u32 version)
{
	u8 *want = malloc(len ? len : 1);
	int same;

	value_of(want, len, key, version);
	same = !memcmp(got, want, len);
	free(want);
	return same;
}

/*
 * Long values of several lengths, on both leaf paths: the whole leaf
 * (8-byte values, in the key block) and the key block of a large leaf.
 * Each GET is exact, costs the leaf's READ plus one READ of the whole
 * extent (round trips and bytes counted), and a too-small buffer gets
 * -ENOBUFS with the length and nothing written.
 */
static int long_gets(u32 slots, u32 vs, enum ordo_mode mode)
{
	static const u32 lens[] = { 0, 4096, 65536, 1000, XMAX };
	struct ordo *o = setup(slots, vs, 200, mode);
	u8 *val = malloc(XMAX);
	u32 i;

	for (i = 0; i < sizeof(lens) / sizeof(lens[0]); i++) {
		u32 len = lens[i] > vs ? lens[i] : vs + 1;
		u64 key = (i * 37 + 5) * 1000ULL + 1000;
		u32 units = ordo_extent_units(len);
		struct ordo_counters c0 = o->cnt;
		size_t got = 0;

		ext_put(key, len, 100 + i, i);
		memset(val, 0xa5, XMAX);
		CHECK_EQ(ordo_get_len(o, key, val, XMAX, &got), 0);
		CHECK_EQ(got, len);
		CHECK(check_value(val, key, len, i));
		CHECK_EQ(o->cnt.retries, c0.retries);
		CHECK_EQ(o->cnt.fallbacks, 0);
		/* The walk's READs (one per level, leaf included) + 1. */
		CHECK_EQ(o->cnt.round_trips - c0.round_trips,
			 o->sup.height + 1);
		CHECK_EQ(o->cnt.reads - c0.reads, o->sup.height + 1);
		CHECK(o->cnt.bytes_read - c0.bytes_read >=
		      (u64)units * ORDO_EXTENT_UNIT);

		/* Too small a buffer: the length, nothing written. */
		memset(val, 0xa5, XMAX);
		got = 0;
		CHECK_EQ(ordo_get_len(o, key, val, len - 1 < vs ? vs : len - 1,
				      &got), -ENOBUFS);
		CHECK_EQ(got, len);
		CHECK_EQ(val[0], 0xa5);
		CHECK_EQ(val[len - 2], 0xa5);
		CHECK_EQ(ordo_get(o, key, val, vs), -ENOBUFS);
		/* Its neighbours are still inline. */
		CHECK_EQ(ordo_get_len(o, key + 1000, val, XMAX, &got), 0);
		CHECK_EQ(got, vs);
		CHECK(check_value(val, key + 1000, vs, 1));
	}
	CHECK_EQ(o->cnt.fallbacks, 0);
	CHECK_EQ(B.calls, 0);
	free(val);
	teardown(o);
	return 0;
}

static int t_long_gets(void)
{
	CHECK(!long_gets(16, 8, ORDO_MODE_WALK));	/* whole leaf */
	CHECK(!long_gets(16, 1024, ORDO_MODE_WALK));	/* key block */
	CHECK(!long_gets(16, 64, ORDO_MODE_WALK));	/* whole, values after */
	return 0;
}

/* Nothing of a hostile extent is delivered: the GET ends in the call. */
static int hostile(struct ordo *o, u64 key, const char *what)
{
	u8 *val = malloc(XMAX);
	u32 calls = B.calls;
	size_t got = 7;
	int ret;

	memset(val, 0xa5, XMAX);
	ret = ordo_get_len(o, key, val, XMAX, &got);
	if (ret != -EIO || B.calls != calls + 1 || got != 7 ||
	    val[0] != 0xa5 || val[100] != 0xa5) {
		printf("# %s: GET %d, len %zu, calls %u\n", what, ret, got,
		       B.calls - calls);
		free(val);
		return 1;
	}
	free(val);
	return 0;
}

/* Every way a published reference or extent can be wrong. */
static int t_hostile_refs(void)
{
	struct ordo *o = setup(16, 1024, 200, ORDO_MODE_WALK);
	u64 key = 77 * 1000ULL + 1000, off, end;
	u32 len = 5000, units = ordo_extent_units(len), xread;
	struct ordo_extent_hdr *h;

	off = ext_put(key, len, 9, 1);
	end = (u64)B.t.pool.nr_chunks * CHUNK;
	h = (void *)pool_at(off);

	/* References outside the pool, across a chunk, of no size. */
	xread = B.ext_reads;
	slot_set(key, ORDO_LEN_EXTENT | units, ref_of(64ULL * CHUNK, 9));
	CHECK(!hostile(o, key, "past max_chunks"));
	slot_set(key, ORDO_LEN_EXTENT | units,
		 ref_of((1ULL << ORDO_EXTENT_OFF_BITS) * 64 - 64, 9));
	CHECK(!hostile(o, key, "at the offset field's end"));
	slot_set(key, ORDO_LEN_EXTENT | units, ref_of(CHUNK - 64, 9));
	CHECK(!hostile(o, key, "across a chunk"));
	slot_set(key, ORDO_LEN_EXTENT | 0, ref_of(off, 9));
	CHECK(!hostile(o, key, "0 units"));
	slot_set(key, ORDO_LEN_EXTENT | 1, ref_of(off, 9));
	CHECK(!hostile(o, key, "too few units for a long value"));
	slot_set(key, ORDO_LEN_EXTENT | ORDO_LEN_UNITS_MASK, ref_of(off, 9));
	CHECK(!hostile(o, key, "more units than the longest value"));
	slot_set(key, ORDO_LEN_EXTENT | units, ref_of(off, 0));
	CHECK(!hostile(o, key, "stamp 0"));
	CHECK_EQ(B.ext_reads, xread);	/* none of those was READ */

	/* Inside the pool's bound, past the chunks that exist: -ERANGE. */
	slot_set(key, ORDO_LEN_EXTENT | units, ref_of(end, 9));
	CHECK(!hostile(o, key, "past nr_chunks"));

	/* Read, and refused by the extent's own check. */
	slot_set(key, ORDO_LEN_EXTENT | units, ref_of(off, 10));
	CHECK(!hostile(o, key, "another stamp"));
	slot_set(key, ORDO_LEN_EXTENT | (units + 1), ref_of(off, 9));
	CHECK(!hostile(o, key, "units not the length's"));
	slot_set(key, ORDO_LEN_EXTENT | units, ref_of(off, 9));
	ext_write(off, key + 1, len, 9, 1);
	CHECK(!hostile(o, key, "another key's extent"));
	ext_write(off, key, len - 64, 9, 1);
	CHECK(!hostile(o, key, "a shorter length in the header"));
	ext_write(off, key, len, 9, 1);
	h->len = cpu_to_le32(len - 1);	/* same units, check not redone */
	CHECK(!hostile(o, key, "length changed, check not"));
	ext_write(off, key, len, 9, 1);
	pool_at(off)[ORDO_EXTENT_HDR_SIZE + len - 1] ^= 1;
	CHECK(!hostile(o, key, "a value byte flipped"));
	ext_write(off, key, len, 9, 1);
	h->check ^= cpu_to_le64(1);
	CHECK(!hostile(o, key, "check word wrong"));

	/*
	 * A header claiming value_size bytes, self-consistent: as many
	 * units as value_size + 1 takes, so only the length refuses it.
	 */
	CHECK_EQ(ordo_extent_units(1024), ordo_extent_units(1025));
	ext_write(off, key, 1024, 9, 1);
	slot_set(key, ORDO_LEN_EXTENT | ordo_extent_units(1024),
		 ref_of(off, 9));
	CHECK(!hostile(o, key, "a length of value_size"));
	CHECK(B.ext_reads > xread);

	/* And the good one still answers. */
	ext_put(key, len, 9, 1);
	{
		u8 *val = malloc(len);
		size_t got;

		CHECK_EQ(ordo_get_len(o, key, val, len, &got), 0);
		CHECK_EQ(got, len);
		CHECK(check_value(val, key, len, 1));
		free(val);
	}
	teardown(o);
	return 0;
}

static u64 B_key;

/*
 * The value rewritten between the key block's READ and the extent's: a
 * new extent elsewhere, and the old one reused (another stamp, another
 * value) -- what a reader holding the old reference then READs.
 */
static void rewrite_value(void)
{
	u32 len = 3000, units = ordo_extent_units(len);
	u64 old = ext_area(units * ORDO_EXTENT_UNIT);
	u64 fresh = old - 2 * units * ORDO_EXTENT_UNIT;

	ext_write(fresh, B_key, len, 21, 2);
	slot_set(B_key, ORDO_LEN_EXTENT | units, ref_of(fresh, 21));
	ext_write(old, B_key + 5, len, 22, 3);
}

/* Torn halfway: the first half of the extent is a newer publication's. */
static void tear_value(void)
{
	u32 len = 3000, units = ordo_extent_units(len);
	u64 off = ext_area(units * ORDO_EXTENT_UNIT);
	u8 *tmp = malloc(units * ORDO_EXTENT_UNIT);

	memcpy(tmp, pool_at(off), units * ORDO_EXTENT_UNIT);
	ext_write(off, B_key, len, 20, 4);
	/* The second half as it was: a copy made while it was written. */
	memcpy(pool_at(off) + len / 2, tmp + len / 2,
	       units * ORDO_EXTENT_UNIT - len / 2);
	free(tmp);
}

/* Restore a good extent after the torn READ was served. */
static int t_rewritten_between(void)
{
	struct ordo *o = setup(16, 1024, 200, ORDO_MODE_WALK);
	u8 *val = malloc(3000);
	size_t got;

	B_key = 50 * 1000ULL + 1000;
	ext_put(B_key, 3000, 20, 1);
	B.between = rewrite_value;
	CHECK_EQ(ordo_get_len(o, B_key, val, 3000, &got), 0);
	CHECK_EQ(got, 3000);
	CHECK(check_value(val, B_key, 3000, 2));
	CHECK_EQ(o->cnt.retries, 1);
	CHECK_EQ(o->cnt.fallbacks, 0);
	CHECK_EQ(B.ext_reads, 2);

	/* A torn extent READ: refused; here it stays torn, so: the call. */
	ext_put(B_key, 3000, 20, 1);
	B.between = tear_value;
	CHECK(!hostile(o, B_key, "torn extent"));
	free(val);
	teardown(o);
	return 0;
}

/*
 * SCAN over a leaf holding a long value: keys only goes on one-sidedly;
 * with lengths it takes the pairs before the long value (exact lengths
 * and bytes) and asks the server from there (which reports its length).
 */
static int scan_stops_at_long(u32 vs)
{
	struct ordo *o = setup(16, vs, 200, ORDO_MODE_WALK);
	u64 first = 100 * 1000ULL + 1000, lkey = first + 3000;
	u64 keys[8];
	u32 lens[8], i;
	u8 *vals = malloc(8 * vs);
	int more;
	u64 next;

	ext_put(lkey, 2000, 30, 1);
	CHECK_EQ(ordo_scan(o, first, 8, keys, NULL, &more, &next), 8);
	CHECK_EQ(B.scan_calls, 0);
	for (i = 0; i < 8; i++)
		CHECK_EQ(keys[i], first + i * 1000);

	memset(vals, 0xa5, 8 * vs);
	CHECK_EQ(ordo_scan_len(o, first, 8, keys, vals, lens, &more, &next),
		 3);
	CHECK_EQ(B.scan_calls, 1);
	CHECK_EQ(B.call_key, lkey - 1000 + 1);
	for (i = 0; i < 3; i++) {
		CHECK_EQ(keys[i], first + i * 1000);
		CHECK_EQ(lens[i], vs);
		CHECK(check_value(vals + i * vs, keys[i], vs, 1));
	}
	CHECK_EQ(vals[3 * vs], 0xa5);	/* nothing past them */

	/* Starting at the long value: straight to the calls. */
	CHECK_EQ(ordo_scan_len(o, lkey, 8, keys, NULL, lens, &more, &next), 0);
	CHECK_EQ(B.scan_calls, 2);
	CHECK_EQ(B.call_key, lkey);
	free(vals);
	teardown(o);
	return 0;
}

static int t_scan_stops_at_long(void)
{
	CHECK(!scan_stops_at_long(8));
	CHECK(!scan_stops_at_long(1024));
	return 0;
}

/* @key's value: @len bytes of @version, by the real tree (an extent). */
static void tree_put(u64 key, u32 len, u32 version)
{
	u8 *v = malloc(len ? len : 1);
	struct ordo_value val = { v, len };

	value_of(v, len, key, version);
	if (ordo_tree_put_len(&B.t, key, &val))
		abort();
	free(v);
}

static u64 T_key;
static u32 T_ver;

/* The real writer between the READs: a new extent, the old one freed. */
static void tree_rewrite(void)
{
	tree_put(T_key, 5000 + T_ver * 100, T_ver);
	tree_put(T_key + 1000, 5000 + T_ver * 100, T_ver);	/* reuses */
}

/*
 * Long values the core itself stored (its allocator, its extents):
 * every length GET byte for byte, on both leaf paths; rewritten between
 * the key block's READ and the extent's by the real tree (the old extent
 * freed and at once reused for another key's value), the GET reads again
 * and answers with the new version.
 */
static int tree_long(u32 vs)
{
	static const u32 lens[] = { 0, 1, 8, 100, 1000, 4096, 65536, XMAX };
	struct ordo *o = setup(16, vs, 300, ORDO_MODE_WALK);
	u8 *val = malloc(XMAX);
	size_t got;
	u32 i;

	CHECK_EQ(ordo_tree_value_max(&B.t), XMAX);
	for (i = 0; i < 8; i++)
		tree_put((i * 31 + 3) * 1000ULL + 1000, lens[i], 5);
	for (i = 0; i < 8; i++) {
		u64 key = (i * 31 + 3) * 1000ULL + 1000;

		CHECK_EQ(ordo_get_len(o, key, val, XMAX, &got), 0);
		CHECK_EQ(got, lens[i]);
		CHECK(check_value(val, key, lens[i], 5));
	}
	CHECK_EQ(o->cnt.retries, 0);
	CHECK_EQ(B.calls, 0);

	T_key = 200 * 1000ULL + 1000;
	for (T_ver = 1; T_ver <= 3; T_ver++) {
		u64 r0 = o->cnt.retries;

		tree_put(T_key, 5000, 0);
		tree_put(T_key + 1000, 5000, 0);
		B.between = tree_rewrite;
		CHECK_EQ(ordo_get_len(o, T_key, val, XMAX, &got), 0);
		CHECK_EQ(got, 5000 + T_ver * 100);
		CHECK(check_value(val, T_key, got, T_ver));
		CHECK_EQ(o->cnt.retries, r0 + 1);
	}
	CHECK_EQ(B.calls, 0);
	free(val);
	teardown(o);
	return 0;
}

static int t_tree_long(void)
{
	CHECK(!tree_long(8));
	CHECK(!tree_long(1024));
	return 0;
}

int main(void)
{
	printf("TAP version 13\n");
	run("long values: leaf, then one READ of the whole extent",
	    t_long_gets);
	run("hostile references and extents are never accepted",
	    t_hostile_refs);
	run("a value rewritten or torn between the READs: read again",
	    t_rewritten_between);
	run("SCAN takes the pairs before a long value, then calls",
	    t_scan_stops_at_long);
	run("the core's own extents: every length; rewritten between READs",
	    t_tree_long);
	return tap_done();
}
