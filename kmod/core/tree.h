/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Concurrent Lehman-Yao B-link tree over the node pool.
 *
 * Keys are u64 (every value storable); values are 0..value_size bytes
 * stored inline in leaves, each with its length.  Readers (GET, SCAN,
 * leaf iteration) take no lock and validate every node with its seqlock.
 * Writers lock one node at a time (two while a split links the new right
 * node) and never allocate while holding a node lock.  Deletes never merge
 * nodes; ordo_tree_retire_empty() unlinks empty leaves and gives their
 * nodes back to the pool.
 *
 * Writers and the retirer may sleep (chunk allocation, mutexes): call them in
 * process context.  Readers never sleep but spin while a writer holds a
 * node, so they must not run in a context that may interrupt a writer on
 * the same CPU.
 */
#ifndef ORDO_CORE_TREE_H
#define ORDO_CORE_TREE_H

#include "compat.h"
#include "node.h"
#include "pool.h"
#include "extent.h"

/* Key-count stripes: spread the hottest counter over cache lines. */
#define ORDO_TREE_KEY_STRIPES	16

/* Counters of leaf separators on their way to the parent, by node number. */
#define ORDO_TREE_POST_SLOTS	64

/**
 * struct ordo_tree_params - shape and bounds of a tree
 * @value_size: bytes per value slot (longer values go out of line), 8..1024
 * @leaf_slots: slots per leaf, 4..255
 * @chunk_size: pool chunk size, power of two >= 64 KiB
 * @max_bytes: bound on pool memory
 * @ops: chunk memory hooks
 * @ops_ctx: passed to @ops
 * @stamp_seed: where extent stamps start (the kernel draws it at random)
 */
struct ordo_tree_params {
	u32 value_size;
	u32 leaf_slots;
	u64 chunk_size;
	u64 max_bytes;
	const struct ordo_pool_ops *ops;
	void *ops_ctx;
	u32 stamp_seed;
};

/**
 * struct ordo_value - a value to write
 * @buf: @len bytes
 * @len: 0..value_size
 */
struct ordo_value {
	const void *buf;
	u32 len;
};

/**
 * struct ordo_tree_hooks - callbacks for the learned-model trainer
 * @leaf_split: called after leaf @left split off @right at @sep (the lowest
 *	key of @right), once the split is linked into the tree, from the
 *	writer's context with no node lock held.  May be NULL.
 * @leaf_retired: called after empty leaf @retired (whose low fence was
 *	@low_key) left the tree and its node went back to the pool; @heir now
 *	covers its key range: its left neighbour, whose high fence grew, or,
 *	when @retired was its parent's first child, its right neighbour, whose
 *	low fence became @low_key.  The incarnations of both changed, so TT
 *	entries naming either are stale.  Called from ordo_tree_retire_empty()
 *	with no node lock held but its mutex held: must not retire in turn.
 *	May be NULL.
 * @ctx: passed to the callbacks
 */
struct ordo_tree_hooks {
	void (*leaf_split)(void *ctx, u32 left, u32 right, u64 sep);
	void (*leaf_retired)(void *ctx, u32 heir, u32 retired, u64 low_key);
	void *ctx;
};

/**
 * struct ordo_tree_stats - counters, each read without locking
 * @keys: keys stored
 * @leaves: leaf nodes in the tree (retired ones excluded)
 * @inner_nodes: inner nodes
 * @height: levels (1: the root is a leaf)
 * @leaf_splits: leaf splits so far
 * @inner_splits: inner-node splits so far (root growth excluded)
 * @root_growths: times the tree grew a level
 * @retries: reads and lock attempts that had to restart or move right
 * @unlinked_splits: splits whose separator could not be posted to the
 *	parent for lack of memory; still reachable through right links
 * @leaves_retired: empty leaves retired so far
 * @pool_bytes_used: bytes of nodes and extents handed out and not freed
 *	(node 0 included)
 * @extent_bytes: of those, bytes of extents (out-of-line values), in
 *	their allocation classes' sizes
 * @pool_bytes_total: bytes of chunks allocated
 * @pool_bytes_max: bound on chunk bytes
 */
struct ordo_tree_stats {
	u64 keys;
	u64 leaves;
	u64 inner_nodes;
	u32 height;
	u64 leaf_splits;
	u64 inner_splits;
	u64 root_growths;
	u64 retries;
	u64 unlinked_splits;
	u64 leaves_retired;
	u64 pool_bytes_used;
	u64 extent_bytes;
	u64 pool_bytes_total;
	u64 pool_bytes_max;
};

/* One counter per cache line. */
struct ordo_stripe {
	atomic64_t n;
	u64 pad[7];
};

/**
 * struct ordo_tree - a B-link tree and its pool
 * @pool: node pool (node 0 is the superblock)
 * @extents: the allocator of out-of-line values in the pool's value chunks
 * @geo: node geometry
 * @root: root node number, published with release after the root is written
 * @height: levels; changes only under @root_lock
 * @leftmost: first leaf; fixed for the tree's life
 * @root_lock: serialises root growth
 * @retire_lock: serialises ordo_tree_retire_empty()
 * @retire_from: where the next retirement pass starts; under @retire_lock
 * @hooks: trainer callbacks, published with release
 * @posting: leaf splits whose separator is being posted, counted in slot
 *	(new leaf's number % %ORDO_TREE_POST_SLOTS)
 * @keys: striped key count
 * @leaves: see struct ordo_tree_stats
 * @inner_nodes: see struct ordo_tree_stats
 * @leaf_splits: see struct ordo_tree_stats
 * @inner_splits: see struct ordo_tree_stats
 * @root_growths: see struct ordo_tree_stats
 * @retries: see struct ordo_tree_stats
 * @unlinked_splits: see struct ordo_tree_stats
 * @leaves_retired: see struct ordo_tree_stats
 */
struct ordo_tree {
	struct ordo_pool pool;
	struct ordo_extents extents;
	struct ordo_geo geo;
	u32 root;
	u32 height;
	u32 leftmost;
	ordo_mutex_t root_lock;
	ordo_mutex_t retire_lock;
	u64 retire_from;
	const struct ordo_tree_hooks *hooks;
	atomic_t posting[ORDO_TREE_POST_SLOTS];
	struct ordo_stripe keys[ORDO_TREE_KEY_STRIPES];
	atomic64_t leaves;
	atomic64_t inner_nodes;
	atomic64_t leaf_splits;
	atomic64_t inner_splits;
	atomic64_t root_growths;
	atomic64_t retries;
	atomic64_t unlinked_splits;
	atomic64_t leaves_retired;
};

/**
 * struct ordo_leaf_snap - consistent copy of one leaf's routing data
 * @node_no: leaf number
 * @incarnation: its incarnation when copied
 * @low_key: inclusive lower fence; above the leaf's own one if @clipped
 * @high_key: exclusive upper fence, if @has_high
 * @has_high: false for the rightmost leaf
 * @clipped: the leaf absorbed a retired neighbour after the iterator had
 *	passed the leaf's left part, so only its part from @low_key (the
 *	previous snapshot's high fence) is reported, with its keys from there
 * @count: keys in @keys
 * @keys: the leaf's keys in order (iterator-owned buffer)
 */
struct ordo_leaf_snap {
	u32 node_no;
	u32 incarnation;
	u64 low_key;
	u64 high_key;
	bool has_high;
	bool clipped;
	u32 count;
	const u64 *keys;
};

/**
 * struct ordo_leaf_iter - walks the leaf level left to right
 * @tree: tree walked
 * @next_node: leaf to read next, 0 when done
 * @next_key: lowest key the next leaf must cover
 * @keys: buffer of leaf_slots keys
 * @clip: a leaf was reported: clip later leaves to start at @next_key
 */
struct ordo_leaf_iter {
	struct ordo_tree *tree;
	u32 next_node;
	u64 next_key;
	u64 *keys;
	bool clip;
};

void ordo_tree_default_params(struct ordo_tree_params *params);
int ordo_tree_init(struct ordo_tree *t, const struct ordo_tree_params *params);
void ordo_tree_destroy(struct ordo_tree *t);
int ordo_tree_get_len(struct ordo_tree *t, u64 key, void *value, u32 *len);
int ordo_tree_put_len(struct ordo_tree *t, u64 key,
		      const struct ordo_value *val);
int ordo_tree_insert_len(struct ordo_tree *t, u64 key,
			 const struct ordo_value *val);
int ordo_tree_update_len(struct ordo_tree *t, u64 key,
			 const struct ordo_value *val);
int ordo_tree_delete(struct ordo_tree *t, u64 key);
int ordo_tree_scan_len(struct ordo_tree *t, u64 start, u32 n, u64 *keys,
		       void *values, u32 *lens);
/* The same for values of value_size bytes (GET and SCAN zero-pad). */
int ordo_tree_get(struct ordo_tree *t, u64 key, void *value);
int ordo_tree_put(struct ordo_tree *t, u64 key, const void *value);
int ordo_tree_insert(struct ordo_tree *t, u64 key, const void *value);
int ordo_tree_update(struct ordo_tree *t, u64 key, const void *value);
int ordo_tree_scan(struct ordo_tree *t, u64 start, u32 n, u64 *keys,
		   void *values);
/* Values longer than value_size: staged into an extent, then published. */
enum ordo_write_mode {
	ORDO_WRITE_PUT,
	ORDO_WRITE_INSERT,
	ORDO_WRITE_UPDATE,
};

/**
 * struct ordo_value_part - what ordo_tree_get_part() copies and reports
 * @off: in: the first byte of the value wanted
 * @cap: in: room at @buf
 * @buf: in: destination; may be NULL when @cap is 0.  Its bytes past
 *	@copied (up to @cap) are unspecified: a retried copy may write them
 * @len: out: the value's length
 * @copied: out: bytes copied, min(@cap, @len - @off) (0 if @off >= @len)
 * @ref: out: 0 for an inline value, else the extent reference: parts of
 *	one value read under the same @ref are parts of one publication
 * @units: out: for an extent, its size in 64-byte units (else 0)
 */
struct ordo_value_part {
	u32 off;
	u32 cap;
	void *buf;
	u32 len;
	u32 copied;
	u64 ref;
	u32 units;
};

u32 ordo_tree_value_max(const struct ordo_tree *t);
int ordo_tree_stage(struct ordo_tree *t, u32 len, struct ordo_staged *st);
void ordo_tree_unstage(struct ordo_tree *t, struct ordo_staged *st);
int ordo_tree_write_staged(struct ordo_tree *t, u64 key,
			   struct ordo_staged *st, enum ordo_write_mode mode);
int ordo_tree_get_part(struct ordo_tree *t, u64 key,
		       struct ordo_value_part *vp);
int ordo_tree_retire_empty(struct ordo_tree *t, u32 max, u32 *retired);
void ordo_tree_set_hooks(struct ordo_tree *t,
			 const struct ordo_tree_hooks *hooks);
void ordo_tree_get_stats(struct ordo_tree *t, struct ordo_tree_stats *st);
int ordo_leaf_iter_start(struct ordo_leaf_iter *it, struct ordo_tree *t,
			 u64 start);
int ordo_leaf_iter_next(struct ordo_leaf_iter *it, struct ordo_leaf_snap *snap);
void ordo_leaf_iter_end(struct ordo_leaf_iter *it);

#endif /* ORDO_CORE_TREE_H */
