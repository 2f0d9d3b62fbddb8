// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target: what a client makes of node copies it READ from a
 * server: the superblock (ordo_super_parse()), node validation
 * (ordo_node_validate()), the check against the node and key wanted, leaf
 * GETs and the inner step of the walk (libshim/decode.c).  With bit 0 of
 * fix set the harness gives the copy a valid version and checksum (and,
 * unless bit 1 is set, a leaf's values their check words), so the checks
 * behind the checksum are reached: a server may be malicious, not only
 * torn.
 *
 * Input: [mode u8][slots u8][vs u8][fix u8][node u32][level u8][key u64]
 *	[bytes...].
 */
#include "fuzz.h"
#include "decode.h"
#include "fuzz_seal.h"

static void fz_super(const u8 *in, size_t len, bool fix)
{
	u8 *buf = fz_copy(in, len);
	struct ordo_super_info si;
	u64 pool;

	if (fix && len >= ORDO_SUPER_SIZE) {
		u32 ns = le32toh(((struct ordo_super *)buf)->node_size);

		if (ns >= ORDO_SUPER_SIZE && ns <= len)
			fz_seal_len(buf, ns);
	}
	if (ordo_super_parse(buf, len, &si))
		goto out;
	/* What the client then relies on to address nodes. */
	FZ_CHECK(si.geo.node_size <= len);
	FZ_CHECK(si.nr_chunks >= 1 && si.nr_chunks <= si.max_chunks);
	FZ_CHECK(si.height >= 1 && si.height <= ORDO_MAX_HEIGHT);
	FZ_CHECK(si.chunk_size >= si.geo.node_size && si.nodes_per_chunk);
	FZ_CHECK((u64)si.nodes_per_chunk * si.geo.node_size <= si.chunk_size);
	pool = (u64)si.nr_chunks * si.chunk_size;
	FZ_CHECK(pool / si.chunk_size == si.nr_chunks);
	FZ_CHECK(ordo_node_offset(si.root, si.nodes_per_chunk, si.chunk_size,
				  si.geo.node_size) + si.geo.node_size <= pool);
	FZ_CHECK(ordo_node_offset(si.leftmost_leaf, si.nodes_per_chunk,
				  si.chunk_size, si.geo.node_size) +
		 si.geo.node_size <= pool);
out:
	free(buf);
}

/*
 * What a reader needs of the node alone, as a bounded GET reads a large
 * leaf (its key block; all of it when its values sit there) and a walk an
 * inner node (its inner size): the
 * partial copy is accepted exactly when the whole one is (but for values
 * that fail their check words); at a leaf, the slot found is the one
 * order[] names for the key, and its value in place matches its check
 * word when the whole copy passed.
 */
static void fz_block(const struct ordo_geo *geo, const u8 *buf, u32 node,
		     u32 level, u64 key, int whole)
{
	const struct ordo_node_hdr *h = (const void *)buf;
	u32 len = shim_node_read_len(geo, level, false);
	enum vres v = shim_node_check(geo, buf, len, node, level, key);
	enum vres w = shim_node_check(geo, buf, ordo_node_read_size(geo, level),
				      node, level, key);
	u32 slot, r, cnt;
	int ret;

	if (v == V_OK || v == V_RIGHT)
		FZ_CHECK(!ordo_node_validate_part(buf, len, geo) &&
			 le32toh(h->node_no) == node && h->level == level);
	if (w != V_TORN)
		FZ_CHECK(v == w);
	if (v != V_OK || level)
		return;
	cnt = le16toh(h->count);
	ret = shim_leaf_find(geo, buf, key, &slot);
	FZ_CHECK(ret == 0 || ret == -ENOENT);
	if (ret)
		return;
	for (r = 0; r < cnt; r++)
		if (ordo_leaf_corder(h, geo)[r] == slot)
			break;
	FZ_CHECK(r < cnt && le64toh(ordo_node_ckeys(h)[slot]) == key);
	/* An extent's reference is checked with the extent (fuzz_extent). */
	if (!whole && !ordo_leaf_is_extent(h, geo, slot))
		FZ_CHECK(shim_value_matches(geo, buf, slot,
					    ordo_leaf_cvalue(h, geo, slot)));
}

static void fz_node(const struct ordo_geo *geo, const u8 *in, size_t len,
		    u8 fix, u32 node, u32 level, u64 key)
{
	/* Room for an inner node, which may be larger than node_size. */
	u32 max = ordo_node_read_size_max(geo);
	u8 *buf = calloc(1, max);
	const struct ordo_node_hdr *h = (const void *)buf;
	u8 *val = malloc(geo->value_size);
	u32 vlen;
	struct shim_walk w;
	enum vres v;
	u32 cnt;
	int ret;

	memcpy(buf, in, len < max ? len : max);
	if (fix & 1)
		fz_seal(buf, geo, !(fix & 2));
	ret = ordo_node_validate_part(buf, max, geo);
	if (!ret && !(h->flags & (ORDO_NODE_F_FREE | ORDO_NODE_F_SUPER))) {
		FZ_CHECK(h->level < ORDO_MAX_HEIGHT);
		FZ_CHECK(le16toh(h->count) <=
			 ordo_node_capacity(geo, h->level));
	}
	fz_block(geo, buf, node, level, key, ret);
	v = shim_node_check(geo, buf, ordo_node_read_size(geo, level), node,
			    level, key);
	if (v == V_OK || v == V_RIGHT) {
		FZ_CHECK(!ret && le32toh(h->node_no) == node &&
			 h->level == level && key >= le64toh(h->low_key));
		if (v == V_RIGHT)
			FZ_CHECK(h->right && (h->flags & ORDO_NODE_F_HAS_HIGH));
	}
	if (v != V_OK)
		goto out;
	cnt = le16toh(h->count);
	if (!level) {
		const u8 *ord = ordo_leaf_corder(h, geo);
		u32 r;

		ret = shim_leaf_get(geo, buf, key, val, &vlen);
		FZ_CHECK(ret || vlen <= geo->value_size);
		FZ_CHECK(ret == 0 || ret == -ENOENT);
		/* The value is the one in the slot order[] names for key. */
		for (r = 0; r < cnt; r++) {
			FZ_CHECK(ord[r] < geo->leaf_slots);
			if (le64toh(ordo_node_ckeys(h)[ord[r]]) == key)
				break;
		}
		FZ_CHECK(!ret == (r < cnt));
		if (!ret)
			FZ_CHECK(vlen == ordo_leaf_value_len(h, geo, ord[r]) &&
				 !memcmp(val, ordo_leaf_cvalue(h, geo, ord[r]),
					 vlen));
		goto out;
	}
	/* The walk's step down, as read.c takes it. */
	FZ_CHECK(cnt >= 1 && cnt <= geo->inner_fanout);
	w = (struct shim_walk){ .key = key, .node = node, .level = level };
	FZ_CHECK(shim_walk_step(geo, &w, buf) == SHIM_WALK_DOWN);
	FZ_CHECK(w.level == level - 1);
out:
	free(val);
	free(buf);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fin f = { data, size };
	u8 mode = fin_u8(&f), slots = fin_u8(&f), vs = fin_u8(&f);
	u8 fix = fin_u8(&f);
	u32 node = fin_u32(&f), level = fin_u8(&f) % 4;
	u64 key = fin_u64(&f);
	struct ordo_geo geo;
	const u8 *in;
	size_t len;

	FZ_CHECK(!ordo_geo_init(&geo, ORDO_LEAF_SLOTS_MIN +
				slots % (ORDO_LEAF_SLOTS_MAX -
					 ORDO_LEAF_SLOTS_MIN + 1),
				fz_value_size(vs)));
	in = fin_bytes(&f, 1 << 20, &len);
	if (mode & 1)
		fz_super(in, len, fix & 1);
	else
		fz_node(&geo, in, len, fix, node, level, key);
	return 0;
}
