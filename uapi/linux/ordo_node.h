/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/*
 * ordo node pool byte layout: the single source of truth shared by the
 * kernel module, the client library and every tool that reads the pool.
 *
 * The pool is a flat, zero-based address space of fixed-size node slots.
 * Node 0 is the superblock; every other node is a B-link tree node: a
 * leaf fills one slot, an inner node several adjacent ones.  All fields are
 * little-endian and nothing in a node is a pointer.  See
 * Documentation/tree.rst for the algorithms (checksum, validation, search).
 */
#ifndef _UAPI_LINUX_ORDO_NODE_H
#define _UAPI_LINUX_ORDO_NODE_H

#include <linux/types.h>

#define ORDO_NODE_HDR_SIZE	64
#define ORDO_NODE_ALIGN		64
#define ORDO_SUPER_SIZE		128

/* "ORDOTREE" read as a little-endian 64-bit word. */
#define ORDO_SUPER_MAGIC	0x454552544f44524fULL
/*
 * 2: key block and check words; 3: 8-byte values in the key block;
 * 4: a length per value (values of 0..value_size bytes); 5: values longer
 * than value_size out of line, in extents; 6: inner nodes span several
 * node slots (up to 4 KiB) in chunks of their own.
 */
#define ORDO_LAYOUT_VERSION	6

#define ORDO_LEAF_SLOTS_MIN	4
#define ORDO_LEAF_SLOTS_MAX	255
#define ORDO_LEAF_SLOTS_DEFAULT	16
/*
 * value_size is the longest value a leaf slot holds (the inline
 * threshold); longer ones, up to ordo_value_len_max(), are out of line.
 */
#define ORDO_VALUE_SIZE_MIN	8
#define ORDO_VALUE_SIZE_MAX	1024
#define ORDO_CHUNK_SIZE_MIN	(64ULL << 10)
#define ORDO_CHUNK_SIZE_DEFAULT	(2ULL << 20)
/* Bytes per inner-node entry: one __le64 key and one __le32 child. */
#define ORDO_INNER_ENTRY_SIZE	12

/* Levels a tree may have; a reader's path array needs this many slots. */
#define ORDO_MAX_HEIGHT		32

/* Node number 0 is the superblock, so it never names a tree node. */
#define ORDO_NODE_NONE		0

/* ordo_node_hdr.flags */
#define ORDO_NODE_F_HAS_HIGH	0x01	/* high_key is meaningful */
#define ORDO_NODE_F_SUPER	0x02	/* node 0, the superblock */
#define ORDO_NODE_F_FREE	0x04	/* on the pool's free list */
#define ORDO_NODE_F_KNOWN	0x07

/**
 * struct ordo_node_hdr - the 64-byte header that starts every node
 * @version: seqlock word and node lock.  Even: stable; odd: a writer holds
 *	the node.  Grows by 2 with every modification and never goes back.
 * @checksum: XXH64 (seed 0) of the node's checked bytes, computed as if
 *	@checksum were 0 and @version already held its final even value.  A
 *	leaf's checked bytes are its key block, the first
 *	ordo_leaf_block_size() bytes: header, keys, check words, lengths
 *	and order.
 *	Every other node (inner, superblock, free) is checked whole.
 * @low_key: inclusive lower fence of the node's key range.
 * @high_key: exclusive upper fence; meaningful only with
 *	%ORDO_NODE_F_HAS_HIGH (the rightmost node of a level has none).
 * @node_no: this node's own number.
 * @right: right sibling's node number, %ORDO_NODE_NONE if rightmost.
 * @incarnation: changes whenever the key range changes (both halves of a
 *	split) and whenever the node is freed or reused; never reset.
 * @count: number of valid entries.
 * @level: 0 for leaves, parent levels count up.
 * @flags: ORDO_NODE_F_* bits.
 * @reserved: zero.
 *
 * A leaf has leaf_slots slots.  Its key block (what @checksum covers) is
 * the header, ``__le64 keys[leaf_slots]``, ``__le64 checks[leaf_slots]``,
 * ``__le16 lens[leaf_slots]`` and ``__u8 order[leaf_slots]`` zero-padded
 * to a multiple of 8; then ``values[leaf_slots][value_size]``.
 * order[0..@count) lists the slots in use in ascending key order; a slot
 * not listed is free and its bytes mean nothing.  Entries never move
 * between slots: an insert fills a free slot and shifts order[], a delete
 * shifts order[].  lens[s] is the length of value s, 0..value_size: its
 * bytes are the first lens[s] of the slot, the rest of the slot means
 * nothing.  checks[s] is the check word of value s: XXH64 of its lens[s]
 * bytes with keys[s] as the seed.  So a copy of a leaf is one publication
 * when its key block passes the checksum and each value it uses hashes to
 * its check word, and a write rehashes the key block and the value it
 * wrote, never the whole leaf.  A value longer than value_size is out of
 * line: lens[s] has %ORDO_LEN_EXTENT set, and checks[s] is an extent
 * reference (see struct ordo_extent_hdr), which the checksum covers.
 * A value slot of %ORDO_VALUE_IN_BLOCK_MAX bytes (value_size 8) is no
 * larger than its check word: checks[s] then holds value s itself, its
 * bytes past lens[s] zero, the key block's checksum covers it, and a leaf
 * is its key block alone.
 * An inner node spans ordo_inner_span() node slots of a chunk of inner
 * nodes and is ordo_inner_size() bytes long (its checksum covers all of
 * it); its body is ``__le64 keys[inner_fanout]`` then
 * ``__le32 child[inner_fanout]``;
 * child[i] covers [keys[i], keys[i + 1]) and keys[0] equals @low_key.
 */
struct ordo_node_hdr {
	__le64 version;
	__le64 checksum;
	__le64 low_key;
	__le64 high_key;
	__le32 node_no;
	__le32 right;
	__le32 incarnation;
	__le16 count;
	__u8 level;
	__u8 flags;
	__le64 reserved[2];
};

/**
 * struct ordo_super - node 0: what a client reads first to bootstrap
 * @hdr: a normal node header (node_no 0, %ORDO_NODE_F_SUPER) so the usual
 *	version and checksum validation applies.
 * @magic: %ORDO_SUPER_MAGIC.
 * @layout_version: %ORDO_LAYOUT_VERSION.
 * @super_size: bytes of this structure (%ORDO_SUPER_SIZE).
 * @chunk_size: bytes per chunk, a power of two.
 * @node_size: bytes per node, a multiple of %ORDO_NODE_ALIGN.
 * @value_size: bytes per value.
 * @leaf_slots: key/value slots per leaf.
 * @inner_fanout: entries per inner node: ordo_inner_fanout(node_size).
 * @nodes_per_chunk: chunk_size / node_size, rounded down.
 * @max_chunks: chunks the pool may ever hold.
 * @nr_chunks: chunks in use: the readable part of the pool is
 *	[0, nr_chunks * chunk_size).
 * @root: root node number.
 * @height: number of levels (1 when the root is a leaf).
 * @leftmost_leaf: first leaf of the leaf level.
 *
 * The rest of node 0 (up to node_size) is zero.
 */
struct ordo_super {
	struct ordo_node_hdr hdr;
	__le64 magic;
	__le32 layout_version;
	__le32 super_size;
	__le64 chunk_size;
	__le32 node_size;
	__le32 value_size;
	__le32 leaf_slots;
	__le32 inner_fanout;
	__le32 nodes_per_chunk;
	__le32 max_chunks;
	__le32 nr_chunks;
	__le32 root;
	__le32 height;
	__le32 leftmost_leaf;
};

/**
 * ordo_leaf_check_off() - offset of leaf check word @i inside a node
 * @leaf_slots: slots per leaf
 * @i: slot index
 *
 * Return: byte offset from the start of the node.
 */
static inline __u32 ordo_leaf_check_off(__u32 leaf_slots, __u32 i)
{
	return ORDO_NODE_HDR_SIZE + 8 * leaf_slots + 8 * i;
}

/*
 * Values this small (value_size 8) sit in the key block, in place of
 * their check words.
 */
#define ORDO_VALUE_IN_BLOCK_MAX	8

/**
 * ordo_leaf_values_in_block() - do a leaf's values sit in its key block?
 * @value_size: bytes per value
 *
 * Return: non-zero for value_size up to %ORDO_VALUE_IN_BLOCK_MAX.
 */
static inline int ordo_leaf_values_in_block(__u32 value_size)
{
	return value_size <= ORDO_VALUE_IN_BLOCK_MAX;
}

/**
 * ordo_leaf_len_off() - offset of leaf value length @i inside a node
 * @leaf_slots: slots per leaf
 * @i: slot index
 *
 * Return: byte offset from the start of the node.
 */
static inline __u32 ordo_leaf_len_off(__u32 leaf_slots, __u32 i)
{
	return ORDO_NODE_HDR_SIZE + 16 * leaf_slots + 2 * i;
}

/**
 * ordo_leaf_order_off() - offset of a leaf's order array inside a node
 * @leaf_slots: slots per leaf
 *
 * Return: byte offset from the start of the node.
 */
static inline __u32 ordo_leaf_order_off(__u32 leaf_slots)
{
	return ORDO_NODE_HDR_SIZE + 18 * leaf_slots;
}

/**
 * ordo_leaf_block_size() - bytes of a leaf's key block
 * @leaf_slots: slots per leaf
 *
 * The key block (header, keys, check words, lengths, order) is what a
 * leaf's checksum covers; the values follow it.
 *
 * Return: 64 + 19 * leaf_slots rounded up to 8.
 */
static inline __u32 ordo_leaf_block_size(__u32 leaf_slots)
{
	return (ordo_leaf_order_off(leaf_slots) + leaf_slots + 7) & ~7U;
}

/**
 * ordo_node_size() - bytes per node for a leaf geometry
 * @leaf_slots: slots per leaf
 * @value_size: bytes per value
 *
 * Return: ordo_leaf_block_size(), plus leaf_slots * value_size unless
 * the values sit in the key block (ordo_leaf_values_in_block()), rounded
 * up to 64.
 */
static inline __u32 ordo_node_size(__u32 leaf_slots, __u32 value_size)
{
	__u32 raw = ordo_leaf_block_size(leaf_slots) +
		    (ordo_leaf_values_in_block(value_size) ? 0 :
		     leaf_slots * value_size);

	return (raw + ORDO_NODE_ALIGN - 1) & ~(__u32)(ORDO_NODE_ALIGN - 1);
}

/*
 * Inner nodes have their own size class, up to 4 KiB: an inner node spans
 * ordo_inner_span() adjacent node slots of a chunk that holds only inner
 * nodes, so the offset rule (ordo_node_offset()) names it by its first
 * slot.  A separator insert moves and hashes at most 4 KiB, and a walk
 * reads that much a level, whatever the leaves hold.
 */
#define ORDO_INNER_BYTES_MAX	4096
#define ORDO_INNER_FANOUT_MAX	\
	((ORDO_INNER_BYTES_MAX - ORDO_NODE_HDR_SIZE) / ORDO_INNER_ENTRY_SIZE)

/**
 * ordo_inner_span() - node slots an inner node spans
 * @node_size: bytes per node
 *
 * Return: 4096 / node_size (integer division), at least 1.
 */
static inline __u32 ordo_inner_span(__u32 node_size)
{
	__u32 span = ORDO_INNER_BYTES_MAX / node_size;

	return span ? span : 1;
}

/**
 * ordo_inner_fanout() - entries per inner node
 * @node_size: bytes per node
 *
 * Return: (ordo_inner_span() * node_size - 64) / 12, at most
 * %ORDO_INNER_FANOUT_MAX (336).
 */
static inline __u32 ordo_inner_fanout(__u32 node_size)
{
	__u32 f = (ordo_inner_span(node_size) * node_size -
		   ORDO_NODE_HDR_SIZE) / ORDO_INNER_ENTRY_SIZE;

	return f < ORDO_INNER_FANOUT_MAX ? f : ORDO_INNER_FANOUT_MAX;
}

/**
 * ordo_inner_size() - bytes of an inner node in use (its checksum's)
 * @inner_fanout: entries per inner node
 *
 * Return: 64 + 12 * inner_fanout rounded up to 64: at most
 * ordo_inner_span() * node_size, and at most 4096.
 */
static inline __u32 ordo_inner_size(__u32 inner_fanout)
{
	__u32 raw = ORDO_NODE_HDR_SIZE + ORDO_INNER_ENTRY_SIZE * inner_fanout;

	return (raw + ORDO_NODE_ALIGN - 1) & ~(__u32)(ORDO_NODE_ALIGN - 1);
}

/**
 * ordo_node_offset() - offset of a node in the zero-based pool space
 * @node_no: node number
 * @nodes_per_chunk: nodes per chunk
 * @chunk_size: bytes per chunk
 * @node_size: bytes per node
 *
 * Return: (node_no / nodes_per_chunk) * chunk_size +
 * (node_no % nodes_per_chunk) * node_size.
 */
static inline __u64 ordo_node_offset(__u32 node_no, __u32 nodes_per_chunk,
				     __u64 chunk_size, __u32 node_size)
{
	return (__u64)(node_no / nodes_per_chunk) * chunk_size +
	       (__u64)(node_no % nodes_per_chunk) * node_size;
}

/**
 * ordo_leaf_key_off() - offset of leaf key slot @i inside a node
 * @i: slot index
 *
 * Return: byte offset from the start of the node.
 */
static inline __u32 ordo_leaf_key_off(__u32 i)
{
	return ORDO_NODE_HDR_SIZE + 8 * i;
}

/**
 * ordo_leaf_value_off() - offset of leaf value slot @i inside a node
 * @leaf_slots: slots per leaf
 * @value_size: bytes per value
 * @i: slot index
 *
 * Return: byte offset from the start of the node: check word @i's when
 * the values sit in the key block, else past the key block.
 */
static inline __u32 ordo_leaf_value_off(__u32 leaf_slots, __u32 value_size,
					__u32 i)
{
	if (ordo_leaf_values_in_block(value_size))
		return ordo_leaf_check_off(leaf_slots, i);
	return ordo_leaf_block_size(leaf_slots) + value_size * i;
}

/**
 * ordo_inner_key_off() - offset of inner key @i inside a node
 * @i: entry index
 *
 * Return: byte offset from the start of the node.
 */
static inline __u32 ordo_inner_key_off(__u32 i)
{
	return ORDO_NODE_HDR_SIZE + 8 * i;
}

/**
 * ordo_inner_child_off() - offset of inner child @i inside a node
 * @inner_fanout: entries per inner node
 * @i: entry index
 *
 * Return: byte offset from the start of the node.
 */
static inline __u32 ordo_inner_child_off(__u32 inner_fanout, __u32 i)
{
	return ORDO_NODE_HDR_SIZE + 8 * inner_fanout + 4 * i;
}

/*
 * Out-of-line values.  lens[s] with %ORDO_LEN_EXTENT set marks value s as
 * an extent: its low 15 bits are the extent's size in %ORDO_EXTENT_UNIT
 * units (header included: what a reader reads), and checks[s] is the
 * extent reference: the extent's offset in the pool space divided by
 * %ORDO_EXTENT_UNIT in bits 0..35, its stamp in bits 36..63.
 */
#define ORDO_LEN_EXTENT		0x8000
#define ORDO_LEN_UNITS_MASK	0x7fff
#define ORDO_EXTENT_UNIT	64
#define ORDO_EXTENT_OFF_BITS	36
#define ORDO_EXTENT_STAMP_BITS	28
/* The longest value any store holds; a store's own bound is below. */
#define ORDO_VALUE_LEN_MAX	1048576

/**
 * struct ordo_extent_hdr - the 24 bytes that start an extent
 * @check: XXH64 (seed 0) of the extent's bytes from @key to the value's
 *	end: @key, @len, @stamp and the value.
 * @key: the key whose value this is.
 * @len: the value's length: more than value_size, at most
 *	ordo_value_len_max().
 * @stamp: the reference's stamp: a number (1 .. 2^28 - 1) drawn anew for
 *	every extent written, so a reference to a reused extent fails.
 *
 * The value's bytes follow.  An extent never crosses a chunk boundary.
 */
struct ordo_extent_hdr {
	__le64 check;
	__le64 key;
	__le32 len;
	__le32 stamp;
};

#define ORDO_EXTENT_HDR_SIZE	24

/**
 * ordo_extent_units() - size of the extent of a value, in units
 * @len: the value's length
 *
 * Return: (24 + @len) / 64 rounded up: the low bits of lens[s].
 */
static inline __u32 ordo_extent_units(__u32 len)
{
	return (ORDO_EXTENT_HDR_SIZE + len + ORDO_EXTENT_UNIT - 1) /
	       ORDO_EXTENT_UNIT;
}

/**
 * ordo_extent_ref_offset() - pool offset of a referenced extent
 * @ref: an extent reference (checks[s])
 *
 * Return: the offset of the extent's header in the pool space.
 */
static inline __u64 ordo_extent_ref_offset(__u64 ref)
{
	return (ref & ((1ULL << ORDO_EXTENT_OFF_BITS) - 1)) * ORDO_EXTENT_UNIT;
}

/**
 * ordo_extent_ref_stamp() - stamp of a referenced extent
 * @ref: an extent reference (checks[s])
 *
 * Return: bits 36..63 of @ref.
 */
static inline __u32 ordo_extent_ref_stamp(__u64 ref)
{
	return (__u32)(ref >> ORDO_EXTENT_OFF_BITS);
}

/**
 * ordo_value_len_max() - the longest value a store holds
 * @chunk_size: the store's chunk size
 *
 * Return: %ORDO_VALUE_LEN_MAX, or less when an extent of that value would
 * not fit in one chunk: chunk_size - 24.
 */
static inline __u32 ordo_value_len_max(__u64 chunk_size)
{
	if (chunk_size - ORDO_EXTENT_HDR_SIZE < ORDO_VALUE_LEN_MAX)
		return (__u32)(chunk_size - ORDO_EXTENT_HDR_SIZE);
	return ORDO_VALUE_LEN_MAX;
}

#endif /* _UAPI_LINUX_ORDO_NODE_H */
