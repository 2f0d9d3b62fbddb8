// SPDX-License-Identifier: GPL-2.0
/*
 * libordo's GET of a large leaf, natively (ASan, UBSan): the key block by
 * one READ, then the one value by another (Documentation/client.rst),
 * over a pool the real tree built.  The backend serves READs from the
 * pool and can run a writer between a GET's two READs: the value it
 * reads then is not the one the key block's publication holds (another
 * value, or another key's), fails its check word, and the GET reads
 * again.  A small leaf is still read whole, in one READ.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "shim.h"
#include "tree.h"
#include "core_test.h"

/* The pool behind the backend, and what the GETs read of it. */
static struct {
	struct ordo_tree t;
	u32 block_reads, value_reads, node_reads, inner_reads, other_reads;
	/* Run once, before the first value READ is served. */
	void (*between)(void);
	u64 key;
} B;

static void pool_copy(u64 off, void *dst, size_t len)
{
	struct ordo_pool *p = &B.t.pool;
	u64 c = off / p->chunk_size;

	if (c >= p->nr_chunks || off % p->chunk_size + len > p->chunk_size)
		abort();
	memcpy(dst, (u8 *)p->chunks[c] + off % p->chunk_size, len);
}

static int be_read(struct ordo *o, struct shim_op *op)
{
	u32 block = ordo_leaf_block_size(o->geo.leaf_slots), i;
	u32 inner = ordo_inner_size(o->geo.inner_fanout);

	for (i = 0; i < op->nio; i++) {
		struct shim_io *io = &op->io[i];

		if (io->kind != SHIM_POOL)
			return -EIO;
		if (io->len == o->geo.node_size) {
			B.node_reads++;
		} else if (io->len == inner) {
			B.inner_reads++;
		} else if (io->len == block) {
			B.block_reads++;
		} else if (io->len == o->geo.value_size) {
			B.value_reads++;
			if (B.between) {
				B.between();
				B.between = NULL;
			}
		} else {
			B.other_reads++;
		}
		pool_copy(io->off, io->dst, io->len);
		o->cnt.reads++;
		o->cnt.bytes_read += io->len;
	}
	o->cnt.round_trips++;
	op->io_res = 0;
	return 1;
}

/* No fallback is expected: a call fails the test's GET. */
static int be_call(struct ordo *o, struct shim_op *op)
{
	return -EIO;
}

static int be_wait(struct ordo *o, int ms)
{
	return 0;
}

static int be_bulk(struct ordo *o, uint32_t kind, uint64_t off, void *dst,
		   size_t len)
{
	pool_copy(off, dst, len);
	return 0;
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

static void value_of(u8 *v, u32 vs, u64 key, u32 version)
{
	u32 i;

	for (i = 0; i < vs; i++)
		v[i] = (u8)(key * 31 + i * 7 + version * 13);
}

/* A tree of @n keys (i * 1000 + 1000) and a walk-mode handle over it. */
static struct ordo *setup(u32 slots, u32 vs, u32 n)
{
	struct ordo_tree_params p;
	struct ordo *o = calloc(1, sizeof(*o));
	u8 *v = malloc(vs);
	size_t per;
	u32 i;

	ordo_tree_default_params(&p);
	p.leaf_slots = slots;
	p.value_size = vs;
	p.chunk_size = 4 << 20;
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
	o->mode = ORDO_MODE_WALK;
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

/*
 * The reads of one GET of @key, and its result: key blocks, values, and
 * nodes read otherwise (whole, or an inner node's first 4 KiB).
 */
static int get_one(struct ordo *o, u64 key, u8 *val, u32 *blocks,
		   u32 *values, u32 *nodes)
{
	u32 b = B.block_reads, v = B.value_reads;
	u32 n = B.node_reads + B.inner_reads;
	int ret = ordo_get(o, key, val, o->geo.value_size);

	*blocks = B.block_reads - b;
	*values = B.value_reads - v;
	*nodes = B.node_reads + B.inner_reads - n;
	return ret;
}

/*
 * 16 slots of 1 KiB (16,768-byte nodes): every GET reads its leaf's key
 * block and then its one value, 1,360 bytes; an absent key the key block
 * alone.  The walk reads an inner node's first 4 KiB, all it uses.
 */
static int t_bounded_get(void)
{
	struct ordo *o = setup(16, 1024, 3000);
	u32 block = ordo_leaf_block_size(16), h = o->sup.height;
	u8 *val = malloc(1024), *want = malloc(1024);
	u32 i, nb, nv, nn;

	CHECK(h >= 2);
	for (i = 0; i < 3000; i++) {
		u64 key = i * 1000ULL + 1000;

		CHECK_EQ(get_one(o, key, val, &nb, &nv, &nn), 0);
		value_of(want, 1024, key, 1);
		CHECK(!memcmp(val, want, 1024));
		CHECK_EQ(nb, 1);
		CHECK_EQ(nv, 1);
		/* The inner nodes of the walk, 4 KiB each. */
		CHECK_EQ(nn, h - 1);
		CHECK_EQ(get_one(o, key + 1, val, &nb, &nv, &nn), -ENOENT);
		CHECK_EQ(nb, 1);
		CHECK_EQ(nv, 0);
	}
	CHECK_EQ(B.other_reads, 0);
	CHECK_EQ(B.node_reads, 0);
	CHECK_EQ(B.inner_reads, 6000 * (h - 1));
	CHECK_EQ(o->geo.inner_fanout, 336);
	CHECK_EQ(ordo_inner_size(o->geo.inner_fanout), 4096);
	CHECK_EQ(o->cnt.retries, 0);
	printf("# a GET reads %u + %u leaf bytes of a %u-byte leaf\n", block,
	       1024, o->geo.node_size);
	CHECK(block + 1024 <= 2560);
	free(val);
	free(want);
	teardown(o);
	return 0;
}

/*
 * Leaves read whole, in one READ: the default geometry's 384-byte ones,
 * 4 slots (192 bytes, under inner nodes of 21 node slots: a batch of
 * leaves is smaller than one inner node, which must still fit the
 * slot's buffer), and 255 slots of 8-byte values (4,928 bytes, over the
 * 4 KiB bound, but the values are in the key block: it is the whole leaf).
 */
static int small_values_whole(u32 slots, u32 ns)
{
	struct ordo *o = setup(slots, 8, 3000);
	u8 val[8], want[8];
	u32 i, nb, nv, nn;

	CHECK_EQ(o->geo.node_size, ns);
	for (i = 0; i < 3000; i += 7) {
		u64 key = i * 1000ULL + 1000;

		CHECK_EQ(get_one(o, key, val, &nb, &nv, &nn), 0);
		value_of(want, 8, key, 1);
		CHECK(!memcmp(val, want, 8));
		CHECK_EQ(nb + nv, 0);
		CHECK_EQ(nn, o->sup.height);
		CHECK_EQ(get_one(o, key + 1, val, &nb, &nv, &nn), -ENOENT);
		CHECK_EQ(nb + nv, 0);
	}
	CHECK_EQ(o->cnt.retries, 0);
	teardown(o);
	return 0;
}

static int t_small_leaf_whole(void)
{
	CHECK(!small_values_whole(16, 384));
	CHECK(!small_values_whole(4, 192));
	CHECK(!small_values_whole(255, 4928));
	return 0;
}

static void update_key(void)
{
	u8 v[1024];

	value_of(v, 1024, B.key, 2);
	if (ordo_tree_update(&B.t, B.key, v))
		abort();
}

/* The one free slot of a full leaf goes to another key, other bytes. */
static void replace_key(void)
{
	u8 v[1024];

	if (ordo_tree_delete(&B.t, B.key))
		abort();
	value_of(v, 1024, B.key + 1, 3);
	if (ordo_tree_insert(&B.t, B.key + 1, v))
		abort();
}

/*
 * A writer between the two READs: the value read is the new one, which
 * the key block read before it does not vouch for; the GET reads again
 * and answers with the new value.
 */
static int t_value_changed_between(void)
{
	struct ordo *o = setup(16, 1024, 3000);
	u8 *val = malloc(1024), *want = malloc(1024);
	u32 nb, nv, nn;

	B.key = 1234000 + 1000;
	B.between = update_key;
	CHECK_EQ(get_one(o, B.key, val, &nb, &nv, &nn), 0);
	value_of(want, 1024, B.key, 2);
	CHECK(!memcmp(val, want, 1024));
	CHECK_EQ(nb, 2);
	CHECK_EQ(nv, 2);
	CHECK_EQ(o->cnt.retries, 1);
	CHECK_EQ(o->cnt.fallbacks, 0);
	free(val);
	free(want);
	teardown(o);
	return 0;
}

/*
 * A full leaf (one leaf of 16 keys): the key is deleted and its slot
 * taken by another key between the two READs.  The bytes read there are
 * the other key's and fail the check word; the GET reads the key block
 * again and finds the key gone.
 */
static int t_slot_reused_between(void)
{
	struct ordo *o = setup(16, 1024, 16);
	u8 *val = malloc(1024);
	u32 nb, nv, nn;

	CHECK_EQ(o->sup.height, 1);
	B.key = 5 * 1000ULL + 1000;
	B.between = replace_key;
	CHECK_EQ(get_one(o, B.key, val, &nb, &nv, &nn), -ENOENT);
	CHECK_EQ(nb, 2);
	CHECK_EQ(nv, 1);
	CHECK_EQ(o->cnt.retries, 1);
	CHECK_EQ(get_one(o, B.key + 1, val, &nb, &nv, &nn), 0);
	CHECK_EQ(nb + nv, 2);
	free(val);
	teardown(o);
	return 0;
}

int main(void)
{
	printf("TAP version 13\n");
	run("a large leaf: key block, then the one value", t_bounded_get);
	run("a small leaf, or 8-byte values: read whole, in one READ",
	    t_small_leaf_whole);
	run("a value rewritten between the READs: read again",
	    t_value_changed_between);
	run("a slot taken by another key between the READs: read again",
	    t_slot_reused_between);
	return tap_done();
}
