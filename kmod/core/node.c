// SPDX-License-Identifier: GPL-2.0
/*
 * Node checksum, publication and validation of node copies.
 *
 * The checksum is plain XXH64 with seed 0 over the node's checked bytes (a
 * leaf's key block, any other node whole), computed as if the checksum
 * word were 0 and the version word held the value being published.
 * Folding the version in makes a copy whose version word and body come
 * from different publications fail validation even when the body bytes
 * happen to be equal.  A leaf's values lie outside its key block: each is
 * bound to its key by a check word inside the block, so a writer rehashes
 * the block and the values it wrote, not the whole leaf.
 */
#include "compat.h"
#include "node.h"

#define XXH_P1	0x9e3779b185ebca87ULL
#define XXH_P2	0xc2b2ae3d27d4eb4fULL
#define XXH_P3	0x165667b19e3779f9ULL
#define XXH_P4	0x85ebca77c2b2ae63ULL
#define XXH_P5	0x27d4eb2f165667c5ULL

static inline u64 xxh_rotl(u64 x, unsigned int r)
{
	return (x << r) | (x >> (64 - r));
}

static inline u64 xxh_round(u64 acc, u64 in)
{
	acc += in * XXH_P2;
	acc = xxh_rotl(acc, 31);
	return acc * XXH_P1;
}

static inline u64 xxh_merge(u64 h, u64 v)
{
	h ^= xxh_round(0, v);
	return h * XXH_P1 + XXH_P4;
}

static inline u64 xxh_avalanche(u64 h)
{
	h ^= h >> 33;
	h *= XXH_P2;
	h ^= h >> 29;
	h *= XXH_P3;
	h ^= h >> 32;
	return h;
}

static inline u64 xxh_lanes(u64 v1, u64 v2, u64 v3, u64 v4)
{
	u64 h = xxh_rotl(v1, 1) + xxh_rotl(v2, 7) + xxh_rotl(v3, 12) +
		xxh_rotl(v4, 18);

	h = xxh_merge(h, v1);
	h = xxh_merge(h, v2);
	h = xxh_merge(h, v3);
	return xxh_merge(h, v4);
}

static inline u64 rd64(const u8 *p)
{
	__le64 v;

	memcpy(&v, p, sizeof(v));
	return le64_to_cpu(v);
}

static inline u32 rd32(const u8 *p)
{
	__le32 v;

	memcpy(&v, p, sizeof(v));
	return le32_to_cpu(v);
}

/**
 * ordo_xxh64() - the XXH64 hash
 * @buf: bytes
 * @len: number of bytes
 * @seed: seed
 *
 * Return: XXH64(@buf, @len, @seed), identical to the reference xxHash.
 */
u64 ordo_xxh64(const void *buf, size_t len, u64 seed)
{
	const u8 *p = buf, *end = p + len;
	u64 h;

	if (len >= 32) {
		u64 v1 = seed + XXH_P1 + XXH_P2, v2 = seed + XXH_P2;
		u64 v3 = seed, v4 = seed - XXH_P1;

		for (; end - p >= 32; p += 32) {
			v1 = xxh_round(v1, rd64(p));
			v2 = xxh_round(v2, rd64(p + 8));
			v3 = xxh_round(v3, rd64(p + 16));
			v4 = xxh_round(v4, rd64(p + 24));
		}
		h = xxh_lanes(v1, v2, v3, v4);
	} else {
		h = seed + XXH_P5;
	}
	h += len;
	for (; end - p >= 8; p += 8)
		h = xxh_rotl(h ^ xxh_round(0, rd64(p)), 27) * XXH_P1 + XXH_P4;
	if (end - p >= 4) {
		h ^= (u64)rd32(p) * XXH_P1;
		h = xxh_rotl(h, 23) * XXH_P2 + XXH_P3;
		p += 4;
	}
	for (; p < end; p++) {
		h ^= *p * XXH_P5;
		h = xxh_rotl(h, 11) * XXH_P1;
	}
	return xxh_avalanche(h);
}

/**
 * ordo_node_checksum() - checksum a node as published with @version
 * @node: node bytes (word 0 and word 1 are not read)
 * @len: bytes checked, a multiple of 8 and at least 32
 * @version: the even version the node is (or was) published with
 *
 * Return: XXH64 seed 0 of the first @len bytes of the node with word 0
 * replaced by @version and word 1 (the checksum field) replaced by 0.
 */
u64 ordo_node_checksum(const void *node, u32 len, u64 version)
{
	const __le64 *w = node;
	u32 i, nw = len / 8;
	u64 v1 = XXH_P1 + XXH_P2, v2 = XXH_P2, v3 = 0, v4 = -XXH_P1, h;

	v1 = xxh_round(v1, version);
	v2 = xxh_round(v2, 0);
	v3 = xxh_round(v3, le64_to_cpu(w[2]));
	v4 = xxh_round(v4, le64_to_cpu(w[3]));
	for (i = 4; i + 4 <= nw; i += 4) {
		v1 = xxh_round(v1, le64_to_cpu(w[i]));
		v2 = xxh_round(v2, le64_to_cpu(w[i + 1]));
		v3 = xxh_round(v3, le64_to_cpu(w[i + 2]));
		v4 = xxh_round(v4, le64_to_cpu(w[i + 3]));
	}
	h = xxh_lanes(v1, v2, v3, v4) + len;
	for (; i < nw; i++)
		h = xxh_rotl(h ^ xxh_round(0, le64_to_cpu(w[i])), 27) * XXH_P1 +
		    XXH_P4;
	return xxh_avalanche(h);
}

/**
 * ordo_node_sum_len() - bytes a node's checksum covers
 * @h: node header (of a copy, or of a locked node)
 * @geo: geometry
 *
 * Return: the key block size for a leaf (level 0, neither superblock nor
 * free), ordo_inner_size() for an inner node (neither flag either),
 * node_size for the superblock and free nodes.
 */
u32 ordo_node_sum_len(const struct ordo_node_hdr *h, const struct ordo_geo *geo)
{
	if (h->flags & (ORDO_NODE_F_SUPER | ORDO_NODE_F_FREE))
		return geo->node_size;
	if (!h->level)
		return ordo_leaf_block_size(geo->leaf_slots);
	return ordo_inner_size(geo->inner_fanout);
}

/**
 * ordo_leaf_value_ok() - does value @i of a leaf match its check word?
 * @h: leaf (a copy whose key block passed the checksum, or a locked leaf)
 * @geo: geometry
 * @i: slot number, below leaf_slots
 *
 * Return: true if XXH64 of the value's bytes with the slot's key as seed
 * equals the slot's check word; always for values in the key block (its
 * checksum covers them) and for extents (ordo_extent_validate() checks
 * those).
 */
bool ordo_leaf_value_ok(const struct ordo_node_hdr *h,
			const struct ordo_geo *geo, u32 i)
{
	if (ordo_leaf_values_in_block(geo->value_size) ||
	    ordo_leaf_is_extent(h, geo, i))
		return true;
	return ordo_leaf_value_matches(h, geo, i, ordo_leaf_cvalue(h, geo, i));
}

/**
 * ordo_leaf_value_matches() - do @val's bytes match slot @i's check word?
 * @h: leaf key block (a copy whose checksum matched)
 * @geo: geometry
 * @i: slot number, below leaf_slots
 * @val: the value's bytes (its length is the slot's), read apart from
 *	the key block
 *
 * A reader that reads a value by itself after the key block (a bounded
 * GET) checks it so: bytes of another publication, a torn value or a slot
 * reused for another key fail.
 *
 * Return: true if XXH64 of @val with keys[@i] as seed equals checks[@i];
 * for values in the key block, if @val's bytes are the slot's.
 */
bool ordo_leaf_value_matches(const struct ordo_node_hdr *h,
			     const struct ordo_geo *geo, u32 i,
			     const void *val)
{
	u64 key = le64_to_cpu(ordo_node_ckeys(h)[i]);
	u32 len = ordo_leaf_value_len(h, geo, i);

	if (ordo_leaf_values_in_block(geo->value_size))
		return !memcmp(val, ordo_leaf_cvalue(h, geo, i), len);
	return ordo_xxh64(val, len, key) ==
	       le64_to_cpu(ordo_leaf_cchecks(h, geo)[i]);
}

/**
 * ordo_leaf_set_value() - store value @i of a locked leaf and its check word
 * @h: leaf locked with ordo_node_lock(); keys[@i] already holds the key
 * @geo: geometry
 * @i: slot number, below leaf_slots
 * @val: @len bytes
 * @len: 0..value_size
 *
 * A value in the key block is its own check word, zero past @len so that
 * equal values have equal key blocks.
 */
void ordo_leaf_set_value(struct ordo_node_hdr *h, const struct ordo_geo *geo,
			 u32 i, const void *val, u32 len)
{
	u8 *dst = ordo_leaf_value(h, geo, i);

	memcpy(dst, val, len);
	ordo_leaf_lens(h, geo)[i] = cpu_to_le16(len);
	if (ordo_leaf_values_in_block(geo->value_size)) {
		memset(dst + len, 0, ORDO_VALUE_IN_BLOCK_MAX - len);
		return;
	}
	ordo_leaf_checks(h, geo)[i] =
		cpu_to_le64(ordo_xxh64(dst, len,
				       le64_to_cpu(ordo_node_keys(h)[i])));
}

/**
 * ordo_leaf_set_extent() - make value @i of a locked leaf an extent
 * @h: leaf locked with ordo_node_lock(); keys[@i] already holds the key
 * @geo: geometry
 * @i: slot number, below leaf_slots
 * @ref: the extent's reference, its header sealed
 * @units: ordo_extent_units() of the value's length
 */
void ordo_leaf_set_extent(struct ordo_node_hdr *h, const struct ordo_geo *geo,
			  u32 i, u64 ref, u32 units)
{
	ordo_leaf_lens(h, geo)[i] = cpu_to_le16(ORDO_LEN_EXTENT | units);
	ordo_leaf_checks(h, geo)[i] = cpu_to_le64(ref);
}

/**
 * ordo_extent_units_min() - units of the shortest out-of-line value
 * @geo: geometry
 *
 * Return: ordo_extent_units(value_size + 1).
 */
u32 ordo_extent_units_min(const struct ordo_geo *geo)
{
	return ordo_extent_units(geo->value_size + 1);
}

/**
 * ordo_extent_validate() - check a copy of an extent against its reference
 * @buf: the copy: @bytes bytes read at ordo_extent_ref_offset(@ref), in
 *	any byte order
 * @bytes: bytes copied; the check needs @units * 64
 * @key: the key whose slot holds @ref
 * @ref: the slot's check word, from a key block that passed its checksum
 * @units: the slot's lens word's low 15 bits
 * @value_size: the store's value_size
 * @chunk_size: the store's chunk size
 * @len: set to the value's length on success (its bytes follow the header)
 *
 * Return: 0; -EAGAIN if the copy is torn or the extent was freed or reused
 * since @ref was read (read the leaf again); -EIO if @units is not a
 * length's, or the extent would cross a chunk.
 */
int ordo_extent_validate(const void *buf, u32 bytes, u64 key, u64 ref,
			 u32 units, u32 value_size, u64 chunk_size, u32 *len)
{
	const struct ordo_extent_hdr *e = buf;
	u64 off = ordo_extent_ref_offset(ref);
	u64 span = (u64)units * ORDO_EXTENT_UNIT;
	u32 n;

	if (units < ordo_extent_units(value_size + 1) ||
	    units > ordo_extent_units(ordo_value_len_max(chunk_size)) ||
	    (off & (chunk_size - 1)) + span > chunk_size)
		return -EIO;
	if (bytes < span)
		return -EIO;
	n = le32_to_cpu(e->len);
	if (le64_to_cpu(e->key) != key ||
	    le32_to_cpu(e->stamp) != ordo_extent_ref_stamp(ref) ||
	    n <= value_size || n > ordo_value_len_max(chunk_size) ||
	    ordo_extent_units(n) != units ||
	    le64_to_cpu(e->check) !=
	    ordo_xxh64(&e->key, ORDO_EXTENT_HDR_SIZE - 8 + n, 0))
		return -EAGAIN;
	*len = n;
	return 0;
}

/**
 * ordo_geo_init() - compute the geometry for a leaf shape
 * @geo: filled in
 * @leaf_slots: %ORDO_LEAF_SLOTS_MIN..%ORDO_LEAF_SLOTS_MAX
 * @value_size: %ORDO_VALUE_SIZE_MIN..%ORDO_VALUE_SIZE_MAX, any size (layout
 *	2 keeps a leaf's key block aligned; values need no alignment)
 *
 * Return: 0 or -EINVAL.
 */
int ordo_geo_init(struct ordo_geo *geo, u32 leaf_slots, u32 value_size)
{
	if (leaf_slots < ORDO_LEAF_SLOTS_MIN ||
	    leaf_slots > ORDO_LEAF_SLOTS_MAX ||
	    value_size < ORDO_VALUE_SIZE_MIN ||
	    value_size > ORDO_VALUE_SIZE_MAX)
		return -EINVAL;
	geo->leaf_slots = leaf_slots;
	geo->value_size = value_size;
	geo->node_size = ordo_node_size(leaf_slots, value_size);
	geo->inner_fanout = ordo_inner_fanout(geo->node_size);
	return 0;
}

/* Units of an extent of a value longer than value_size, up to the most. */
static bool extent_units_ok(const struct ordo_geo *geo, u32 units)
{
	return units >= ordo_extent_units_min(geo) &&
	       units <= ordo_extent_units(ORDO_VALUE_LEN_MAX);
}

/*
 * A leaf's order[] names distinct slots in strictly ascending key order,
 * each holding a value no longer than a slot or naming an extent of a
 * longer one.
 */
static int leaf_check_order(const struct ordo_node_hdr *h,
			    const struct ordo_geo *geo, u32 count)
{
	const u8 *ord = ordo_leaf_corder(h, geo);
	const __le16 *lens = ordo_leaf_clens(h, geo);
	u32 r;

	for (r = 0; r < count; r++) {
		u32 len;

		if (ord[r] >= geo->leaf_slots)
			return -EIO;
		len = le16_to_cpu(lens[ord[r]]);
		if (len & ORDO_LEN_EXTENT ?
		    !extent_units_ok(geo, len & ORDO_LEN_UNITS_MASK) :
		    len > geo->value_size)
			return -EIO;
		if (r && ordo_leaf_key(h, geo, r - 1) >=
			 ordo_leaf_key(h, geo, r))
			return -EIO;
	}
	return 0;
}

/* Structure checks on a copy whose checksum already matched. */
static int node_check_shape(const struct ordo_node_hdr *h,
			    const struct ordo_geo *geo)
{
	u32 flags = h->flags, level = h->level;
	u32 count = le16_to_cpu(h->count);

	if (flags & ~ORDO_NODE_F_KNOWN)
		return -EIO;
	if (flags & ORDO_NODE_F_SUPER)
		return h->node_no ? -EIO : 0;
	if (flags & ORDO_NODE_F_FREE)
		return 0;
	if (level >= ORDO_MAX_HEIGHT ||
	    count > ordo_node_capacity(geo, level) || (level && !count))
		return -EIO;
	if ((flags & ORDO_NODE_F_HAS_HIGH) &&
	    (!h->right ||
	     le64_to_cpu(h->high_key) <= le64_to_cpu(h->low_key)))
		return -EIO;
	return level ? 0 : leaf_check_order(h, geo, count);
}

/*
 * Steps 1 to 3 of the reader protocol on a copy of which @avail bytes
 * were read: version, checksum, shape.
 */
static int node_validate(const void *buf, const struct ordo_geo *geo,
			 u32 avail)
{
	const struct ordo_node_hdr *h = buf;
	u64 v = le64_to_cpu(h->version);
	u32 len = ordo_node_sum_len(h, geo);

	if (!v)
		return -ENODATA;
	if (len > avail)
		return -ESTALE;
	if ((v & 1) || le64_to_cpu(h->checksum) !=
		       ordo_node_checksum(buf, len, v))
		return -EAGAIN;
	return node_check_shape(h, geo);
}

/* Steps 1 to 4: a copy of @avail bytes, at least node_size. */
static int node_validate_whole(const void *buf, const struct ordo_geo *geo,
			       u32 avail)
{
	const struct ordo_node_hdr *h = buf;
	int err = node_validate(buf, geo, avail);
	u32 r, cnt;

	if (err || !ordo_node_is_leaf(h))
		return err;
	cnt = le16_to_cpu(h->count);
	for (r = 0; r < cnt; r++)
		if (!ordo_leaf_value_ok(h, geo, ordo_leaf_corder(h, geo)[r]))
			return -EAGAIN;
	return 0;
}

/**
 * ordo_node_validate() - check that a raw node copy is one publication
 * @buf: node_size bytes copied in any byte order (memcpy, RDMA READ)
 * @geo: geometry of the pool the copy came from
 *
 * A leaf is one publication when its key block passes the checksum and
 * the value of each slot in use matches its check word.
 *
 * Return: 0 if the copy is consistent and well formed; -EAGAIN if it is
 * torn or was copied while a writer held the node (read it again);
 * -ENODATA if the node was never written; -EIO if it is consistent but
 * malformed; -ESTALE for an inner node larger than node_size (read it
 * as one: ordo_node_read_size(), ordo_node_validate_part()).
 */
int ordo_node_validate(const void *buf, const struct ordo_geo *geo)
{
	return node_validate_whole(buf, geo, geo->node_size);
}

/**
 * ordo_node_validate_part() - check a copy of a node's first @len bytes
 * @buf: the first @len bytes of a node, copied in any byte order
 * @len: bytes copied
 * @geo: geometry of the pool the copy came from
 *
 * ordo_node_validate() for a reader that reads what it needs of a node:
 * an inner node's entries (ordo_inner_size() bytes, all its checksum
 * covers, which may be more than node_size), or a leaf's key block, whose
 * values it reads apart and checks with ordo_leaf_value_matches().  A copy
 * of node_size bytes or more is checked as ordo_node_validate() checks
 * one, a leaf's values included.
 *
 * Return: as ordo_node_validate(), and -ESTALE if the checksum covers
 * more than @len bytes (the node is not what the reader took it for).
 */
int ordo_node_validate_part(const void *buf, u32 len,
			    const struct ordo_geo *geo)
{
	if (len >= geo->node_size)
		return node_validate_whole(buf, geo, len);
	return node_validate(buf, geo, len);
}

/**
 * ordo_node_copy_validate() - copy a node that may be changing, validate it
 * @dst: node_size bytes of destination
 * @src: node in a live pool (or any buffer)
 * @geo: geometry
 *
 * Does not depend on the copy order, so it also models a remote reader.
 *
 * Return: as ordo_node_validate() on the copy.
 */
int ordo_node_copy_validate(void *dst, const void *src,
			    const struct ordo_geo *geo)
{
	return ordo_node_copy_validate_at(dst, src, geo, 0);
}

/**
 * ordo_node_copy_validate_at() - ordo_node_copy_validate() of a node
 *	expected at @level
 * @dst: ordo_node_read_size(@geo, @level) bytes of destination
 * @src: node in a live pool (or any buffer)
 * @geo: geometry
 * @level: the level the reader expects: it copies what a node there has
 *
 * Return: as ordo_node_validate_part() on the copy.
 */
int ordo_node_copy_validate_at(void *dst, const void *src,
			       const struct ordo_geo *geo, u32 level)
{
	u32 len = ordo_node_read_size(geo, level);

	memcpy(dst, src, len);
	return ordo_node_validate_part(dst, len, geo);
}

/**
 * ordo_node_copy_stable() - seqlock copy of a live node
 * @dst: node_size bytes of destination
 * @src: node in a live pool
 * @node_size: bytes per node
 *
 * The cheap local path: retries until a copy is bracketed by one even
 * version, without hashing.
 */
void ordo_node_copy_stable(void *dst, const void *src, u32 node_size)
{
	const struct ordo_node_hdr *h = src;
	u64 v;

	do {
		v = ordo_node_read_begin(h);
		memcpy(dst, src, node_size);
	} while (ordo_node_read_retry(h, v));
}

static bool super_geo_ok(const struct ordo_super *s, struct ordo_super_info *in)
{
	u64 chunk = le64_to_cpu(s->chunk_size);

	if (ordo_geo_init(&in->geo, le32_to_cpu(s->leaf_slots),
			  le32_to_cpu(s->value_size)) ||
	    in->geo.node_size != le32_to_cpu(s->node_size) ||
	    in->geo.inner_fanout != le32_to_cpu(s->inner_fanout))
		return false;
	if (chunk < ORDO_CHUNK_SIZE_MIN || (chunk & (chunk - 1)) ||
	    chunk < in->geo.node_size ||
	    div64_u64(chunk, in->geo.node_size) !=
	    le32_to_cpu(s->nodes_per_chunk))
		return false;
	in->chunk_size = chunk;
	in->nodes_per_chunk = le32_to_cpu(s->nodes_per_chunk);
	in->max_chunks = le32_to_cpu(s->max_chunks);
	in->nr_chunks = le32_to_cpu(s->nr_chunks);
	in->root = le32_to_cpu(s->root);
	in->height = le32_to_cpu(s->height);
	in->leftmost_leaf = le32_to_cpu(s->leftmost_leaf);
	if (!in->nr_chunks || in->nr_chunks > in->max_chunks ||
	    (u64)in->max_chunks * in->nodes_per_chunk > U32_MAX)
		return false;
	if (!in->height || in->height > ORDO_MAX_HEIGHT)
		return false;
	return in->root && in->leftmost_leaf &&
	       in->root < in->nr_chunks * in->nodes_per_chunk &&
	       in->leftmost_leaf < in->nr_chunks * in->nodes_per_chunk;
}

/**
 * ordo_super_parse() - validate and decode a copy of node 0
 * @buf: copy of at least the first node_size bytes of the pool
 * @len: bytes in @buf; %ORDO_SUPER_SIZE suffices to learn node_size
 * @info: decoded on success
 *
 * Return: 0; -EMSGSIZE if @len is shorter than node_size (read
 * info->geo.node_size bytes is then set when known); -EAGAIN if torn;
 * -ENODATA if never written; -EBADMSG if not an ordo superblock;
 * -EPROTONOSUPPORT if an ordo superblock of another layout version (a
 * reader of this one must not read its nodes).
 */
int ordo_super_parse(const void *buf, size_t len,
		     struct ordo_super_info *info)
{
	const struct ordo_super *s = buf;
	u32 node_size;
	int err;

	memset(info, 0, sizeof(*info));
	if (len < ORDO_SUPER_SIZE)
		return -EMSGSIZE;
	if (!s->hdr.version)
		return -ENODATA;
	node_size = le32_to_cpu(s->node_size);
	if (node_size < 2 * ORDO_NODE_HDR_SIZE || node_size % ORDO_NODE_ALIGN)
		return (le64_to_cpu(s->hdr.version) & 1) ? -EAGAIN : -EBADMSG;
	info->geo.node_size = node_size;
	if (len < node_size)
		return -EMSGSIZE;
	if ((le64_to_cpu(s->hdr.version) & 1) ||
	    le64_to_cpu(s->hdr.checksum) !=
	    ordo_node_checksum(buf, node_size, le64_to_cpu(s->hdr.version)))
		return -EAGAIN;
	if (le64_to_cpu(s->magic) != ORDO_SUPER_MAGIC)
		return -EBADMSG;
	if (le32_to_cpu(s->layout_version) != ORDO_LAYOUT_VERSION)
		return -EPROTONOSUPPORT;
	if (le32_to_cpu(s->super_size) != ORDO_SUPER_SIZE ||
	    s->hdr.flags != ORDO_NODE_F_SUPER || s->hdr.node_no)
		return -EBADMSG;
	err = super_geo_ok(s, info) ? 0 : -EBADMSG;
	if (err)
		memset(info, 0, sizeof(*info));
	return err;
}

/**
 * ordo_super_read() - copy node 0 out of a live pool and decode it
 * @pool: the start of the pool (a read-only mapping, or any copy of it)
 * @info: decoded on success
 *
 * Copies the superblock's head to learn the node size, then the whole
 * node, and validates it, trying again (a bounded number of times) while
 * the copy is torn by a concurrent writer: what a local or remote reader
 * does before it can address any other node.
 *
 * Return: as ordo_super_parse(); -ENOMEM; -EAGAIN if every copy was torn.
 */
int ordo_super_read(const void *pool, struct ordo_super_info *info)
{
	size_t len = ORDO_SUPER_SIZE;
	int i, err = -EAGAIN;
	u8 *buf;

	buf = ordo_malloc(len);
	if (!buf)
		return -ENOMEM;
	for (i = 0; i < 1000 && err == -EAGAIN; i++) {
		memcpy(buf, pool, len);
		err = ordo_super_parse(buf, len, info);
		if (err == -EMSGSIZE && len < info->geo.node_size) {
			len = info->geo.node_size;
			ordo_free(buf);
			buf = ordo_malloc(len);
			if (!buf)
				return -ENOMEM;
			err = -EAGAIN;
		}
	}
	ordo_free(buf);
	return err;
}

/**
 * ordo_node_unlock() - publish a modified node and drop its lock
 * @h: node locked with ordo_node_lock()
 * @geo: geometry of its pool
 *
 * Writes the checksum for the next even version, then releases the version
 * so that everything written under the lock is visible before it.  A leaf
 * writer has already updated the check word of every value it wrote.
 */
void ordo_node_unlock(struct ordo_node_hdr *h, const struct ordo_geo *geo)
{
	u64 v = le64_to_cpu(h->version) + 1;

	h->checksum = cpu_to_le64(ordo_node_checksum(h, ordo_node_sum_len(h, geo),
						     v));
	/* Release: every write under the lock precedes the even version. */
	smp_store_release(&h->version, cpu_to_le64(v));
	ordo_lock_exit();
}

/**
 * ordo_node_unlock_clean() - drop a node's lock after changing nothing
 * @h: node locked with ordo_node_lock()
 *
 * Restores the previous even version: the stored checksum is still valid.
 */
void ordo_node_unlock_clean(struct ordo_node_hdr *h)
{
	/* Release pairs with readers' acquire of the version. */
	smp_store_release(&h->version,
			  cpu_to_le64(le64_to_cpu(h->version) - 1));
	ordo_lock_exit();
}
