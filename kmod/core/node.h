/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Node accessors, the node lock/seqlock and torn-read validation.
 *
 * Writers lock a node by moving its version word from even to odd and
 * publish by storing the next even value after writing the checksum.  Local
 * readers use the version as a seqlock; remote readers, whose copy may be
 * made in any byte order, validate it with the checksum instead.
 */
#ifndef ORDO_CORE_NODE_H
#define ORDO_CORE_NODE_H

#include "compat.h"
#include <linux/ordo_node.h>

/**
 * struct ordo_geo - node geometry of one pool
 * @node_size: bytes per node
 * @leaf_slots: key/value slots per leaf
 * @inner_fanout: entries per inner node
 * @value_size: bytes per value slot: the longest value
 */
struct ordo_geo {
	u32 node_size;
	u32 leaf_slots;
	u32 inner_fanout;
	u32 value_size;
};

/**
 * struct ordo_super_info - bootstrap data decoded from a superblock copy
 * @geo: node geometry
 * @chunk_size: bytes per chunk
 * @nodes_per_chunk: nodes per chunk
 * @max_chunks: chunks the pool may hold
 * @nr_chunks: chunks in use
 * @root: root node number
 * @height: number of tree levels
 * @leftmost_leaf: first leaf
 */
struct ordo_super_info {
	struct ordo_geo geo;
	u64 chunk_size;
	u32 nodes_per_chunk;
	u32 max_chunks;
	u32 nr_chunks;
	u32 root;
	u32 height;
	u32 leftmost_leaf;
};

int ordo_geo_init(struct ordo_geo *geo, u32 leaf_slots, u32 value_size);
u64 ordo_xxh64(const void *buf, size_t len, u64 seed);
u64 ordo_node_checksum(const void *node, u32 len, u64 version);
int ordo_node_validate(const void *buf, const struct ordo_geo *geo);
int ordo_node_validate_part(const void *buf, u32 len,
			    const struct ordo_geo *geo);
int ordo_node_copy_validate(void *dst, const void *src,
			    const struct ordo_geo *geo);
int ordo_node_copy_validate_at(void *dst, const void *src,
			       const struct ordo_geo *geo, u32 level);
void ordo_node_copy_stable(void *dst, const void *src, u32 node_size);
int ordo_super_parse(const void *buf, size_t len,
		     struct ordo_super_info *info);
int ordo_super_read(const void *pool, struct ordo_super_info *info);
void ordo_node_unlock(struct ordo_node_hdr *h, const struct ordo_geo *geo);
void ordo_node_unlock_clean(struct ordo_node_hdr *h);

/**
 * ordo_node_lock() - take a node's lock (version even -> odd)
 * @h: node
 *
 * Spins while another writer holds the node.  Pair with ordo_node_unlock()
 * after a modification or ordo_node_unlock_clean() when nothing changed.
 * Must not be called from atomic context that a lock holder may interrupt.
 */
static inline void ordo_node_lock(struct ordo_node_hdr *h)
{
	ordo_lock_enter();
	for (;;) {
		__le64 v = READ_ONCE(h->version);

		if (!(le64_to_cpu(v) & 1) &&
		    cmpxchg(&h->version, v,
			    cpu_to_le64(le64_to_cpu(v) + 1)) == v)
			return;
		ordo_cpu_relax();
	}
}

/**
 * ordo_node_read_begin() - start a seqlock read of a node
 * @h: node
 *
 * Return: the even version to pass to ordo_node_read_retry().
 */
static inline u64 ordo_node_read_begin(const struct ordo_node_hdr *h)
{
	u64 v;

	/* Acquire: the node's fields are read after its version. */
	while ((v = le64_to_cpu(smp_load_acquire(&h->version))) & 1)
		ordo_cpu_relax();
	return v;
}

/**
 * ordo_node_read_retry() - finish a seqlock read of a node
 * @h: node
 * @v: value returned by ordo_node_read_begin()
 *
 * Return: true if a writer intervened and what was read must be discarded.
 */
static inline bool ordo_node_read_retry(const struct ordo_node_hdr *h, u64 v)
{
	/* The fields were read before the version is read again. */
	smp_rmb();
	return le64_to_cpu(READ_ONCE(h->version)) != v;
}

static inline __le64 *ordo_node_keys(struct ordo_node_hdr *h)
{
	return (__le64 *)(h + 1);
}

static inline const __le64 *ordo_node_ckeys(const struct ordo_node_hdr *h)
{
	return (const __le64 *)(h + 1);
}

static inline __le64 *ordo_leaf_checks(struct ordo_node_hdr *h,
				       const struct ordo_geo *geo)
{
	return (__le64 *)((u8 *)h + ordo_leaf_check_off(geo->leaf_slots, 0));
}

static inline const __le64 *ordo_leaf_cchecks(const struct ordo_node_hdr *h,
					      const struct ordo_geo *geo)
{
	return (const __le64 *)((const u8 *)h +
				ordo_leaf_check_off(geo->leaf_slots, 0));
}

static inline __le16 *ordo_leaf_lens(struct ordo_node_hdr *h,
				     const struct ordo_geo *geo)
{
	return (__le16 *)((u8 *)h + ordo_leaf_len_off(geo->leaf_slots, 0));
}

static inline const __le16 *ordo_leaf_clens(const struct ordo_node_hdr *h,
					    const struct ordo_geo *geo)
{
	return (const __le16 *)((const u8 *)h +
				ordo_leaf_len_off(geo->leaf_slots, 0));
}

/* Is value @i out of line (lens[@i] names an extent)? */
static inline bool ordo_leaf_is_extent(const struct ordo_node_hdr *h,
				       const struct ordo_geo *geo, u32 i)
{
	return le16_to_cpu(ordo_leaf_clens(h, geo)[i]) & ORDO_LEN_EXTENT;
}

/* Units of value @i's extent (lens word's low bits), 0 for an inline one. */
static inline u32 ordo_leaf_extent_units(const struct ordo_node_hdr *h,
					 const struct ordo_geo *geo, u32 i)
{
	u32 len = le16_to_cpu(ordo_leaf_clens(h, geo)[i]);

	return len & ORDO_LEN_EXTENT ? len & ORDO_LEN_UNITS_MASK : 0;
}

/*
 * Bytes of value @i in its slot: its length, or 0 for an extent.  At most
 * value_size even while a seqlock reader sees the leaf being rewritten (it
 * discards what it read then); a copy that passed ordo_node_validate()
 * never needs the bound.
 */
static inline u32 ordo_leaf_value_len(const struct ordo_node_hdr *h,
				      const struct ordo_geo *geo, u32 i)
{
	u32 len = le16_to_cpu(ordo_leaf_clens(h, geo)[i]);

	if (len & ORDO_LEN_EXTENT)
		return 0;
	return min_t(u32, len, geo->value_size);
}

static inline u8 *ordo_leaf_order(struct ordo_node_hdr *h,
				  const struct ordo_geo *geo)
{
	return (u8 *)h + ordo_leaf_order_off(geo->leaf_slots);
}

static inline const u8 *ordo_leaf_corder(const struct ordo_node_hdr *h,
					 const struct ordo_geo *geo)
{
	return (const u8 *)h + ordo_leaf_order_off(geo->leaf_slots);
}

/*
 * The slot of a leaf's entry of rank @r (its @r-th smallest), @r below
 * leaf_slots.  Kept below leaf_slots even while a node is rewritten (from
 * an inner node, say) under a seqlock reader, which discards what it read
 * then; a copy that passed ordo_node_validate() never needs the bound.
 */
static inline u32 ordo_leaf_slot(const struct ordo_node_hdr *h,
				 const struct ordo_geo *geo, u32 r)
{
	u32 s = ordo_leaf_corder(h, geo)[r];

	return s < geo->leaf_slots ? s : 0;
}

/* The key of a leaf's entry of rank @r. */
static inline u64 ordo_leaf_key(const struct ordo_node_hdr *h,
				const struct ordo_geo *geo, u32 r)
{
	return le64_to_cpu(ordo_node_ckeys(h)[ordo_leaf_slot(h, geo, r)]);
}

static inline u8 *ordo_leaf_value(struct ordo_node_hdr *h,
				  const struct ordo_geo *geo, u32 i)
{
	u32 off = ordo_leaf_value_off(geo->leaf_slots, geo->value_size, i);

	return (u8 *)h + off;
}

static inline const u8 *ordo_leaf_cvalue(const struct ordo_node_hdr *h,
					 const struct ordo_geo *geo, u32 i)
{
	u32 off = ordo_leaf_value_off(geo->leaf_slots, geo->value_size, i);

	return (const u8 *)h + off;
}

static inline __le32 *ordo_inner_children(struct ordo_node_hdr *h,
					  const struct ordo_geo *geo)
{
	return (__le32 *)((u8 *)h + ordo_inner_child_off(geo->inner_fanout, 0));
}

static inline const __le32 *
ordo_inner_cchildren(const struct ordo_node_hdr *h, const struct ordo_geo *geo)
{
	return (const __le32 *)((const u8 *)h +
				ordo_inner_child_off(geo->inner_fanout, 0));
}

/**
 * ordo_node_is_leaf() - is a node a leaf in use?
 * @h: node header
 *
 * Return: true for level 0 without the superblock or free flag: a node
 * whose values lie outside the checksummed key block.
 */
static inline bool ordo_node_is_leaf(const struct ordo_node_hdr *h)
{
	return !h->level &&
	       !(h->flags & (ORDO_NODE_F_SUPER | ORDO_NODE_F_FREE));
}

/**
 * ordo_node_read_size() - bytes of a node at @level a whole copy holds
 * @geo: geometry
 * @level: node level
 *
 * Return: node_size for a leaf, ordo_inner_size() for an inner node (its
 * slots past that mean nothing).
 */
static inline u32 ordo_node_read_size(const struct ordo_geo *geo, u32 level)
{
	return level ? ordo_inner_size(geo->inner_fanout) : geo->node_size;
}

/**
 * ordo_node_read_size_max() - bytes of the largest whole node copy
 * @geo: geometry
 *
 * Return: the larger of node_size and ordo_inner_size().
 */
static inline u32 ordo_node_read_size_max(const struct ordo_geo *geo)
{
	return max_t(u32, geo->node_size, ordo_inner_size(geo->inner_fanout));
}

/**
 * ordo_node_capacity() - entries a node at @level can hold
 * @geo: geometry
 * @level: node level
 *
 * Return: leaf_slots for leaves, inner_fanout otherwise.
 */
static inline u32 ordo_node_capacity(const struct ordo_geo *geo, u32 level)
{
	return level ? geo->inner_fanout : geo->leaf_slots;
}

/**
 * ordo_keys_lower_bound() - first index whose key is >= @key
 * @keys: sorted keys
 * @count: number of keys
 * @key: key searched
 *
 * Safe on a node being modified: it reads only keys[0..count).
 *
 * Return: index in [0, count].
 */
static inline u32 ordo_keys_lower_bound(const __le64 *keys, u32 count,
					u64 key)
{
	u32 lo = 0;

	while (count) {
		u32 half = count / 2;

		if (le64_to_cpu(keys[lo + half]) < key) {
			lo += half + 1;
			count -= half + 1;
		} else {
			count = half;
		}
	}
	return lo;
}

/**
 * ordo_keys_upper_bound() - first index whose key is > @key
 * @keys: sorted keys
 * @count: number of keys
 * @key: key searched
 *
 * Return: index in [0, count].
 */
static inline u32 ordo_keys_upper_bound(const __le64 *keys, u32 count,
					u64 key)
{
	u32 lo = 0;

	while (count) {
		u32 half = count / 2;

		if (le64_to_cpu(keys[lo + half]) <= key) {
			lo += half + 1;
			count -= half + 1;
		} else {
			count = half;
		}
	}
	return lo;
}

u32 ordo_node_sum_len(const struct ordo_node_hdr *h,
		      const struct ordo_geo *geo);
bool ordo_leaf_value_ok(const struct ordo_node_hdr *h,
			const struct ordo_geo *geo, u32 i);
bool ordo_leaf_value_matches(const struct ordo_node_hdr *h,
			     const struct ordo_geo *geo, u32 i,
			     const void *val);
void ordo_leaf_set_value(struct ordo_node_hdr *h, const struct ordo_geo *geo,
			 u32 i, const void *val, u32 len);
void ordo_leaf_set_extent(struct ordo_node_hdr *h, const struct ordo_geo *geo,
			  u32 i, u64 ref, u32 units);
u32 ordo_extent_units_min(const struct ordo_geo *geo);
int ordo_extent_validate(const void *buf, u32 bytes, u64 key, u64 ref,
			 u32 units, u32 value_size, u64 chunk_size, u32 *len);

/**
 * ordo_leaf_lower_bound() - rank of the first key of a leaf >= @key
 * @h: leaf (order[0..count) below leaf_slots)
 * @geo: geometry
 * @count: entries, at most leaf_slots
 * @key: key searched
 *
 * Return: rank in [0, count].
 */
static inline u32 ordo_leaf_lower_bound(const struct ordo_node_hdr *h,
					const struct ordo_geo *geo, u32 count,
					u64 key)
{
	u32 lo = 0;

	while (count) {
		u32 half = count / 2;

		if (ordo_leaf_key(h, geo, lo + half) < key) {
			lo += half + 1;
			count -= half + 1;
		} else {
			count = half;
		}
	}
	return lo;
}

/**
 * ordo_leaf_find() - slot of @key in a leaf
 * @h: leaf (order[0..count) below leaf_slots)
 * @geo: geometry
 * @count: entries, at most leaf_slots
 * @key: key searched
 * @rank: set to the rank of the first key >= @key
 *
 * Return: the slot holding @key, or -1 if the leaf does not hold it.
 */
static inline int ordo_leaf_find(const struct ordo_node_hdr *h,
				 const struct ordo_geo *geo, u32 count,
				 u64 key, u32 *rank)
{
	*rank = ordo_leaf_lower_bound(h, geo, count, key);
	if (*rank < count && ordo_leaf_key(h, geo, *rank) == key)
		return ordo_leaf_slot(h, geo, *rank);
	return -1;
}

#endif /* ORDO_CORE_NODE_H */
