/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The chunked node pool.  Nodes are addressed by u32 number; node n lives
 * at chunk n / nodes_per_chunk, slot n % nodes_per_chunk.  Chunks come from
 * caller hooks (physically contiguous pages in the kernel, aligned_alloc in
 * tests) and are never freed before the pool is destroyed, so lock-free
 * readers can translate any number they validated.
 *
 * Writers reserve nodes first (may sleep: it may allocate a chunk), then
 * take reserved nodes under node locks (never sleeps, never fails).
 *
 * Leaves (and node 0) fill chunks of node slots.  Inner nodes span
 * ordo_inner_span() adjacent slots each, in chunks of their own, so a
 * number in a leaf chunk is always a whole node's first slot.  Some chunks
 * hold out-of-line values (extent.h) instead; the leaf allocator skips
 * the numbers of every chunk not its own.
 */
#ifndef ORDO_CORE_POOL_H
#define ORDO_CORE_POOL_H

#include "compat.h"
#include "node.h"

/*
 * What a chunk holds: leaves handed out by the bump pointer, extents,
 * leaves again, all put on the free list when the chunk stopped holding
 * extents (the bump pointer skips it like a value chunk), or inner nodes.
 */
enum {
	ORDO_CHUNK_NODES,
	ORDO_CHUNK_VALUES,
	ORDO_CHUNK_RECLAIMED,
	ORDO_CHUNK_INNER,
};

/**
 * struct ordo_pool_ops - where chunk memory comes from
 * @chunk_alloc: return @size bytes for chunk @idx (aligned to at least 64
 *	bytes), or NULL.  May sleep.  The pool zeroes it.
 * @chunk_free: give chunk @idx back; called only from ordo_pool_destroy().
 */
struct ordo_pool_ops {
	void *(*chunk_alloc)(void *ctx, u32 idx, size_t size);
	void (*chunk_free)(void *ctx, u32 idx, void *mem, size_t size);
};

/**
 * struct ordo_pool - node pool
 * @geo: node geometry
 * @chunk_size: bytes per chunk
 * @nodes_per_chunk: nodes per chunk
 * @max_chunks: capacity of @chunks
 * @npc_recip: ceil(2^64 / nodes_per_chunk), for division-free translation
 * @inner_span: node slots per inner node (ordo_inner_span())
 * @inner_per_chunk: inner nodes per inner chunk
 * @chunks: chunk addresses, each published with release semantics
 * @nr_chunks: chunks published, stored with release after the chunk
 * @chunk_kind: per chunk, what it holds (ORDO_CHUNK_*); set before the
 *	chunk is published
 * @inner_chunk: the inner chunks' indices, in the order they came
 * @nr_inner_chunks: entries of @inner_chunk (under @grow_lock)
 * @next: bump pointer: lowest node number never handed out or skipped
 * @skipped: node numbers the bump pointer passed over in chunks that are
 *	not leaf chunks
 * @avail: free leaves in published chunks minus outstanding reservations
 * @inner_next: inner nodes handed out; inner node i is the (i %
 *	inner_per_chunk)-th of chunk inner_chunk[i / inner_per_chunk] (inner
 *	nodes are never freed)
 * @inner_avail: inner nodes not yet handed out minus reservations
 * @free_head: free-list head, linked through the nodes' right field
 * @nr_free: nodes on the free list
 * @free_lock: protects @free_head and @nr_free
 * @grow_lock: serialises chunk allocation
 * @ops: chunk memory hooks
 * @ops_ctx: passed to @ops
 * @reclaim: when no chunk can be added, called (no lock held) to turn an
 *	empty value chunk into leaves or (@inner) inner nodes; 0 if it did
 * @reclaim_ctx: passed to @reclaim
 */
struct ordo_pool {
	struct ordo_geo geo;
	u64 chunk_size;
	u32 nodes_per_chunk;
	u32 max_chunks;
	u64 npc_recip;
	u32 inner_span;
	u32 inner_per_chunk;
	void **chunks;
	u8 *chunk_kind;
	u32 *inner_chunk;
	u32 nr_inner_chunks;
	u32 nr_chunks;
	u32 next;
	s64 skipped;
	s64 avail;
	u32 inner_next;
	s64 inner_avail;
	u32 free_head;
	u32 nr_free;
	ordo_spinlock_t free_lock;
	ordo_mutex_t grow_lock;
	const struct ordo_pool_ops *ops;
	void *ops_ctx;
	int (*reclaim)(void *ctx, bool inner);
	void *reclaim_ctx;
};

int ordo_pool_init(struct ordo_pool *p, const struct ordo_geo *geo,
		   u64 chunk_size, u64 max_bytes,
		   const struct ordo_pool_ops *ops, void *ops_ctx);
void ordo_pool_destroy(struct ordo_pool *p);
int ordo_pool_reserve(struct ordo_pool *p, u32 nr);
void ordo_pool_unreserve(struct ordo_pool *p, u32 nr);
u32 ordo_pool_take(struct ordo_pool *p);
int ordo_pool_reserve_inner(struct ordo_pool *p, u32 nr);
void ordo_pool_unreserve_inner(struct ordo_pool *p, u32 nr);
u32 ordo_pool_take_inner(struct ordo_pool *p);
void ordo_pool_free(struct ordo_pool *p, u32 node_no);
void ordo_pool_set_root(struct ordo_pool *p, u32 root, u32 height,
			u32 leftmost_leaf);
u64 ordo_pool_nodes_used(const struct ordo_pool *p);
u64 ordo_pool_node_bytes_used(const struct ordo_pool *p);
int ordo_pool_add_value_chunk(struct ordo_pool *p, u32 *idx);
void ordo_pool_value_chunk_to_nodes(struct ordo_pool *p, u32 idx, bool inner);
void ordo_pool_set_reclaim(struct ordo_pool *p,
			   int (*reclaim)(void *ctx, bool inner), void *ctx);

/**
 * ordo_pool_node() - translate a node number
 * @p: pool
 * @n: node number
 *
 * Lock-free.
 *
 * Return: the node, or NULL if @n lies in a chunk not (yet) published.
 */
static inline struct ordo_node_hdr *ordo_pool_node(struct ordo_pool *p, u32 n)
{
	u32 c = p->nodes_per_chunk == 1 ? n :
		(u32)mul_u64_u64_shr(p->npc_recip, n, 64);
	u8 *mem;

	if (unlikely(c >= p->max_chunks))
		return NULL;
	/* Acquire pairs with the release that published the chunk. */
	mem = smp_load_acquire(&p->chunks[c]);
	if (unlikely(!mem))
		return NULL;
	return (struct ordo_node_hdr *)(mem + (size_t)(n - c * p->nodes_per_chunk) *
					p->geo.node_size);
}

/**
 * ordo_pool_is_leaf_slot() - does a number name a whole node-sized node?
 * @p: pool
 * @n: node number in a published chunk (ordo_pool_node() not NULL)
 *
 * A number in a leaf chunk names a leaf, node 0 or a free node, each with
 * a header to lock; one in a value chunk names extent bytes, one in an
 * inner chunk may name the middle of an inner node.
 *
 * Return: true for numbers in leaf chunks.
 */
static inline bool ordo_pool_is_leaf_slot(const struct ordo_pool *p, u32 n)
{
	u8 kind = READ_ONCE(p->chunk_kind[n / p->nodes_per_chunk]);

	return kind == ORDO_CHUNK_NODES || kind == ORDO_CHUNK_RECLAIMED;
}

/**
 * ordo_pool_nr_chunks() - chunks published so far
 * @p: pool
 *
 * Return: the count; chunks [0, count) may be read, registered or mapped.
 */
static inline u32 ordo_pool_nr_chunks(const struct ordo_pool *p)
{
	/* Acquire: chunks below the count are published. */
	return smp_load_acquire(&p->nr_chunks);
}

/**
 * ordo_pool_chunk() - address of a published chunk
 * @p: pool
 * @idx: chunk index below ordo_pool_nr_chunks()
 *
 * Return: the chunk memory.
 */
static inline void *ordo_pool_chunk(const struct ordo_pool *p, u32 idx)
{
	/* Acquire pairs with the release that published the chunk. */
	return smp_load_acquire(&p->chunks[idx]);
}

/**
 * ordo_pool_super() - the superblock (node 0)
 * @p: pool
 *
 * Return: node 0, which is always published.
 */
static inline struct ordo_super *ordo_pool_super(const struct ordo_pool *p)
{
	return p->chunks[0];
}

#endif /* ORDO_CORE_POOL_H */
