// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target: the client's one-sided read paths over a pool of node
 * copies a server returns (libshim/decode.c, as libshim/read.c runs
 * them): a whole walk from the root to a key's leaf by shim_walk_step(),
 * and a whole SCAN leaf after leaf by shim_scan_take().  The harness
 * drives them the way read.c does (a torn or stale node is read again or
 * the walk restarts, at most SHIM_TRIES times; a node outside the pool is
 * a READ out of range, the fallback to an RPC), and checks what a caller
 * relies on: the walk ends within a bounded number of steps at a leaf
 * that was validated for the key; a scan returns at most count keys,
 * strictly ascending from the start, each inside the fences of the leaf
 * it came from, and values copied from inside that leaf.  With bit 0 of
 * fix the harness writes a valid version and checksum into every node
 * (and, unless bit 1 is set, check words for a leaf's values: a
 * malicious server can), so the checks behind the checksum are reached.
 * Each node is its own allocation of the larger of node_size and the
 * inner size.
 *
 * Input: [mode u8][slots u8][vs u8][fix u8][height u8][root u32][key u64]
 *	[count u16][npool u8][node 0][node 1]...  (mode bit 0: scan)
 */
#include "fuzz.h"
#include "decode.h"
#include "fuzz_seal.h"

#define TRIES		4	/* SHIM_TRIES in libshim/shim.h */
#define POOL_MAX	64

struct pool {
	const struct ordo_geo *geo;
	u8 *node[POOL_MAX];
	u32 n;
};

/* The READ of node @n: its copy, or NULL (out of range: fall back). */
static const u8 *pool_read(const struct pool *p, u32 n)
{
	return n < p->n ? p->node[n] : NULL;
}

static void fz_walk(const struct pool *p, u32 root, u32 height, u64 key)
{
	const struct ordo_geo *geo = p->geo;
	struct shim_walk w = { .key = key, .node = root, .level = height - 1 };
	u32 tries = 0, steps = 0;
	u8 *val = malloc(geo->value_size);
	u32 vlen;

	for (;;) {
		const u8 *buf = pool_read(p, w.node);
		const struct ordo_node_hdr *h = (const void *)buf;
		struct shim_walk was = w;
		enum shim_walk_res r;
		int ret;

		if (!buf)
			break;
		/* An attempt: height levels, a bounded number of right moves. */
		FZ_CHECK(++steps <= (TRIES + 1) *
			 (ORDO_MAX_HEIGHT + 1 + SHIM_WALK_RIGHTS_MAX));
		r = shim_walk_step(geo, &w, buf);
		if (r == SHIM_WALK_LEAF || r == SHIM_WALK_DOWN) {
			FZ_CHECK(!ordo_node_validate_part(buf,
					ordo_node_read_size(geo, was.level), geo));
			FZ_CHECK(le32toh(h->node_no) == was.node &&
				 h->level == was.level &&
				 key >= le64toh(h->low_key));
			FZ_CHECK(!(h->flags & ORDO_NODE_F_HAS_HIGH) ||
				 key < le64toh(h->high_key));
		}
		switch (r) {
		case SHIM_WALK_LEAF:
			FZ_CHECK(was.level == 0 && !memcmp(&w, &was, sizeof(w)));
			ret = shim_leaf_get(geo, buf, key, val, &vlen);
			FZ_CHECK(ret || vlen <= geo->value_size);
			FZ_CHECK(ret == 0 || ret == -ENOENT);
			goto out;
		case SHIM_WALK_DOWN:
			FZ_CHECK(was.level && w.level == was.level - 1);
			break;
		case SHIM_WALK_RIGHT:
			FZ_CHECK(w.level == was.level &&
				 w.node == le32toh(h->right) &&
				 w.rights == was.rights + 1 &&
				 w.rights <= SHIM_WALK_RIGHTS_MAX);
			break;
		case SHIM_WALK_TORN:
		case SHIM_WALK_STALE:
			FZ_CHECK(!memcmp(&w, &was, sizeof(w)));
			if (tries++ >= TRIES)
				goto out;
			/* The same bytes come back: a torn node stays torn. */
			if (r == SHIM_WALK_STALE)
				w = (struct shim_walk){ .key = key, .node = root,
							.level = height - 1 };
			break;
		default:
			FZ_CHECK(0);
		}
	}
out:
	free(val);
}

static void fz_scan(const struct pool *p, u32 first, u64 start, u32 count)
{
	const struct ordo_geo *geo = p->geo;
	u64 *keys = malloc(sizeof(*keys) * count);
	u8 *vals = malloc((size_t)geo->value_size * count);
	struct shim_scan s = {
		.keys = keys, .vals = vals, .count = count, .fence = start,
	};
	u32 node = first, leaves = 0, i, j, cnt, vlen;
	int ret = 0;
	const u8 *v;

	for (;;) {
		const u8 *buf = pool_read(p, node);
		const struct ordo_node_hdr *h = (const void *)buf;
		u32 had = s.have;
		u64 fence = s.fence;

		/* read.c takes a leaf only when it holds the fence. */
		if (!buf || shim_node_check(geo, buf, geo->node_size, node, 0,
					    s.fence) != V_OK)
			break;
		FZ_CHECK(++leaves <= p->n);
		ret = shim_scan_take(geo, &s, buf);
		FZ_CHECK(ret == 0 || ret == 1 || ret == -EIO);
		if (ret < 0) {
			/* A refused leaf: nothing of it is taken. */
			FZ_CHECK(s.have == had && s.fence == fence);
			break;
		}
		FZ_CHECK(s.have >= had && s.have <= count);
		/* Pairs are taken in key order from the fence's rank on. */
		cnt = le16toh(h->count) < geo->leaf_slots ?
		      le16toh(h->count) : geo->leaf_slots;
		j = ordo_leaf_lower_bound(h, geo, cnt, fence);
		for (i = had; i < s.have; i++, j++) {
			u8 slot;

			FZ_CHECK(keys[i] >= fence);
			FZ_CHECK(!(h->flags & ORDO_NODE_F_HAS_HIGH) ||
				 keys[i] < le64toh(h->high_key));
			/* The pair is the one stored in the slot of that rank. */
			FZ_CHECK(j < cnt);
			slot = ordo_leaf_corder(h, geo)[j];
			FZ_CHECK(slot < geo->leaf_slots &&
				 keys[i] == le64toh(ordo_node_ckeys(h)[slot]));
			/* Its length's bytes, then zeros to value_size. */
			vlen = ordo_leaf_value_len(h, geo, slot);
			v = vals + (size_t)i * geo->value_size;
			FZ_CHECK(!memcmp(v, ordo_leaf_cvalue(h, geo, slot),
					 vlen));
			FZ_CHECK(!memchr_inv(v + vlen, 0,
					     geo->value_size - vlen));
		}
		if (ret == 1)
			break;
		FZ_CHECK(s.fence > fence && s.fence == le64toh(h->high_key));
		node = s.right;
	}
	for (i = 0; i < s.have; i++)
		FZ_CHECK(keys[i] >= start && (!i || keys[i] > keys[i - 1]));
	if (ret == 1 && s.more)
		FZ_CHECK(s.have == count && keys[count - 1] != UINT64_MAX &&
			 s.next == keys[count - 1] + 1);
	free(vals);
	free(keys);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fin f = { data, size };
	u8 mode = fin_u8(&f), slots = fin_u8(&f), vs = fin_u8(&f);
	u8 fix = fin_u8(&f);
	u32 height = 1 + fin_u8(&f) % ORDO_MAX_HEIGHT, root = fin_u32(&f);
	u64 key = fin_u64(&f);
	u32 count = 1 + fin_u16(&f) % 512;
	struct ordo_geo geo;
	struct pool p = { .geo = &geo };
	u32 i;

	FZ_CHECK(!ordo_geo_init(&geo, ORDO_LEAF_SLOTS_MIN +
				slots % (ORDO_LEAF_SLOTS_MAX -
					 ORDO_LEAF_SLOTS_MIN + 1),
				fz_value_size(vs)));
	p.n = fin_u8(&f) % (POOL_MAX + 1);
	/* At most 512 KiB of nodes (a few of the largest): fast enough. */
	if (p.n > 2 && (size_t)p.n * geo.node_size > (512 << 10))
		p.n = (512 << 10) / geo.node_size > 2 ?
		      (512 << 10) / geo.node_size : 2;
	for (i = 0; i < p.n; i++) {
		size_t len;
		const u8 *in = fin_bytes(&f, ordo_node_read_size_max(&geo),
					 &len);

		/* Room for an inner node, which may be larger. */
		p.node[i] = calloc(1, ordo_node_read_size_max(&geo));
		memcpy(p.node[i], in, len);
		if (fix & 1)
			fz_seal(p.node[i], &geo, !(fix & 2));
	}
	if (mode & 1)
		fz_scan(&p, root, key, count);
	else
		fz_walk(&p, root, height, key);
	for (i = 0; i < p.n; i++)
		free(p.node[i]);
	return 0;
}
