// SPDX-License-Identifier: GPL-2.0
/*
 * Chunked node pool: a bump pointer over published chunks and a small free
 * list for reused leaves, a second bump pointer over the inner chunks, and
 * reservation counts so that nothing is ever allocated while a node lock
 * is held.
 */
#include "compat.h"
#include "pool.h"

/* Largest chunk accepted: keeps a chunk's size in size_t and u32 math. */
#define ORDO_CHUNK_SIZE_MAX	(1024ULL * 1024 * 1024)

static void atomic_add_s64(s64 *ctr, s64 delta)
{
	s64 cur = READ_ONCE(*ctr), old;

	while ((old = cmpxchg(ctr, cur, cur + delta)) != cur)
		cur = old;
}

static void avail_add(struct ordo_pool *p, s64 delta)
{
	atomic_add_s64(&p->avail, delta);
}

static struct ordo_super *super_lock(struct ordo_pool *p)
{
	struct ordo_super *s = ordo_pool_super(p);

	ordo_node_lock(&s->hdr);
	return s;
}

static void super_unlock(struct ordo_pool *p, struct ordo_super *s)
{
	ordo_node_unlock(&s->hdr, &p->geo);
}

static void super_init(struct ordo_pool *p)
{
	struct ordo_super *s = super_lock(p);

	s->hdr.flags = ORDO_NODE_F_SUPER;
	s->magic = cpu_to_le64(ORDO_SUPER_MAGIC);
	s->layout_version = cpu_to_le32(ORDO_LAYOUT_VERSION);
	s->super_size = cpu_to_le32(ORDO_SUPER_SIZE);
	s->chunk_size = cpu_to_le64(p->chunk_size);
	s->node_size = cpu_to_le32(p->geo.node_size);
	s->value_size = cpu_to_le32(p->geo.value_size);
	s->leaf_slots = cpu_to_le32(p->geo.leaf_slots);
	s->inner_fanout = cpu_to_le32(p->geo.inner_fanout);
	s->nodes_per_chunk = cpu_to_le32(p->nodes_per_chunk);
	s->max_chunks = cpu_to_le32(p->max_chunks);
	s->nr_chunks = cpu_to_le32(1);
	super_unlock(p, s);
}

/* Inner chunk @idx (zeroed, kind set) joins the inner bump pointer's. */
static void inner_chunk_add(struct ordo_pool *p, u32 idx)
{
	p->inner_chunk[p->nr_inner_chunks++] = idx;
	/* A full barrier: whoever reserves its nodes sees the entry. */
	atomic_add_s64(&p->inner_avail, p->inner_per_chunk);
}

/*
 * Publish one more chunk of @kind: leaves, extents or inner nodes; called
 * with grow_lock held.
 */
static int pool_add_chunk(struct ordo_pool *p, u8 kind)
{
	u32 idx = p->nr_chunks;
	void *mem;

	if (idx >= p->max_chunks)
		return -ENOMEM;
	mem = p->ops->chunk_alloc(p->ops_ctx, idx, p->chunk_size);
	if (!mem)
		return -ENOMEM;
	/* Fresh nodes read as version 0 (never written), incarnation 0. */
	memset(mem, 0, p->chunk_size);
	p->chunk_kind[idx] = kind;
	/* Release: lock-free readers see the zeroed chunk, then the count. */
	smp_store_release(&p->chunks[idx], mem);
	/* Release: ordo_pool_take() hands out nodes below the count. */
	smp_store_release(&p->nr_chunks, idx + 1);
	if (!idx) {
		super_init(p);
		p->next = 1;
		avail_add(p, p->nodes_per_chunk - 1);
	} else {
		struct ordo_super *s = super_lock(p);

		s->nr_chunks = cpu_to_le32(idx + 1);
		super_unlock(p, s);
		if (kind == ORDO_CHUNK_NODES)
			avail_add(p, p->nodes_per_chunk);
		else if (kind == ORDO_CHUNK_INNER)
			inner_chunk_add(p, idx);
	}
	return 0;
}

/**
 * ordo_pool_add_value_chunk() - publish a chunk for extents
 * @p: pool
 * @idx: set to the new chunk's index
 *
 * May sleep.  The node allocator never hands out numbers in the chunk.
 *
 * Return: 0 or -ENOMEM when the pool's bound (or memory) is exhausted.
 */
int ordo_pool_add_value_chunk(struct ordo_pool *p, u32 *idx)
{
	int err;

	ordo_mutex_lock(&p->grow_lock);
	*idx = p->nr_chunks;
	err = pool_add_chunk(p, ORDO_CHUNK_VALUES);
	ordo_mutex_unlock(&p->grow_lock);
	return err;
}

/**
 * ordo_pool_init() - set up a pool and its first chunk (with node 0)
 * @p: pool to initialise
 * @geo: node geometry
 * @chunk_size: power of two, at least %ORDO_CHUNK_SIZE_MIN, at most 1 GiB
 * @max_bytes: bound on chunk memory; the pool holds at most
 *	max_bytes / chunk_size chunks (never more than 2^32 nodes, nor 4 TiB:
 *	the reach of an extent reference)
 * @ops: chunk memory hooks
 * @ops_ctx: passed to @ops
 *
 * May sleep.
 *
 * Return: 0, -EINVAL for a bad shape or bound, -ENOMEM.
 */
int ordo_pool_init(struct ordo_pool *p, const struct ordo_geo *geo,
		   u64 chunk_size, u64 max_bytes,
		   const struct ordo_pool_ops *ops, void *ops_ctx)
{
	u64 max_chunks;
	int err;

	memset(p, 0, sizeof(*p));
	if (!ops || !ops->chunk_alloc || chunk_size < ORDO_CHUNK_SIZE_MIN ||
	    chunk_size > ORDO_CHUNK_SIZE_MAX || (chunk_size & (chunk_size - 1)) ||
	    chunk_size < geo->node_size)
		return -EINVAL;
	p->geo = *geo;
	p->chunk_size = chunk_size;
	p->nodes_per_chunk = (u32)div64_u64(chunk_size, geo->node_size);
	p->inner_span = ordo_inner_span(geo->node_size);
	p->inner_per_chunk = p->nodes_per_chunk / p->inner_span;
	if (p->nodes_per_chunk > 1)
		p->npc_recip = div64_u64(U64_MAX, p->nodes_per_chunk) + 1;
	max_chunks = div64_u64(max_bytes, chunk_size);
	max_chunks = min_t(u64, max_chunks, U32_MAX / p->nodes_per_chunk);
	/* An extent reference holds pool offsets below 2^42 (4 TiB). */
	max_chunks = min_t(u64, max_chunks,
			   div64_u64(1ULL << (ORDO_EXTENT_OFF_BITS + 6),
				     chunk_size));
	if (!max_chunks)
		return -EINVAL;
	p->max_chunks = (u32)max_chunks;
	p->chunks = ordo_malloc(sizeof(*p->chunks) * p->max_chunks);
	p->chunk_kind = ordo_malloc(p->max_chunks);
	p->inner_chunk = ordo_malloc(sizeof(*p->inner_chunk) * p->max_chunks);
	if (!p->chunks || !p->chunk_kind || !p->inner_chunk) {
		ordo_free(p->chunks);
		ordo_free(p->chunk_kind);
		ordo_free(p->inner_chunk);
		p->chunks = NULL;
		return -ENOMEM;
	}
	p->ops = ops;
	p->ops_ctx = ops_ctx;
	ordo_spin_init(&p->free_lock);
	ordo_mutex_init(&p->grow_lock);
	ordo_mutex_lock(&p->grow_lock);
	err = pool_add_chunk(p, ORDO_CHUNK_NODES);
	ordo_mutex_unlock(&p->grow_lock);
	if (err)
		ordo_pool_destroy(p);
	return err;
}

/**
 * ordo_pool_destroy() - return every chunk and the chunk table
 * @p: pool; no other user may remain
 */
void ordo_pool_destroy(struct ordo_pool *p)
{
	u32 i;

	if (!p->chunks)
		return;
	for (i = 0; i < p->nr_chunks; i++)
		if (p->ops->chunk_free)
			p->ops->chunk_free(p->ops_ctx, i, p->chunks[i],
					   p->chunk_size);
	ordo_free(p->chunks);
	ordo_free(p->chunk_kind);
	ordo_free(p->inner_chunk);
	p->chunks = NULL;
	ordo_mutex_destroy(&p->grow_lock);
	ordo_spin_destroy(&p->free_lock);
}

/*
 * Take @nr from @avail (a class's free count), adding chunks of @kind
 * while it falls short, then emptied value chunks.
 */
static int pool_reserve(struct ordo_pool *p, s64 *avail, u8 kind, u32 nr)
{
	for (;;) {
		s64 cur = READ_ONCE(*avail);
		int err = 0;

		if (cur >= nr) {
			if (cmpxchg(avail, cur, cur - nr) == cur)
				return 0;
			continue;
		}
		ordo_mutex_lock(&p->grow_lock);
		if (READ_ONCE(*avail) < nr)
			err = pool_add_chunk(p, kind);
		ordo_mutex_unlock(&p->grow_lock);
		if (err == -ENOMEM && p->reclaim &&
		    !p->reclaim(p->reclaim_ctx, kind == ORDO_CHUNK_INNER))
			continue;
		if (err)
			return err;
	}
}

/**
 * ordo_pool_reserve() - guarantee that @nr later ordo_pool_take() succeed
 * @p: pool
 * @nr: nodes to reserve
 *
 * May sleep (allocates chunks); never call it with a node lock held.
 *
 * Return: 0, or -ENOMEM when the pool's bound (or memory) is exhausted;
 * nothing is reserved then.
 */
int ordo_pool_reserve(struct ordo_pool *p, u32 nr)
{
	return pool_reserve(p, &p->avail, ORDO_CHUNK_NODES, nr);
}

/**
 * ordo_pool_reserve_inner() - guarantee @nr later ordo_pool_take_inner()
 * @p: pool
 * @nr: inner nodes to reserve
 *
 * As ordo_pool_reserve(), for inner nodes: may sleep, never under a node
 * lock.
 *
 * Return: 0 or -ENOMEM; nothing is reserved then.
 */
int ordo_pool_reserve_inner(struct ordo_pool *p, u32 nr)
{
	return pool_reserve(p, &p->inner_avail, ORDO_CHUNK_INNER, nr);
}

/**
 * ordo_pool_unreserve_inner() - give back inner reservations not taken
 * @p: pool
 * @nr: count
 */
void ordo_pool_unreserve_inner(struct ordo_pool *p, u32 nr)
{
	if (nr)
		atomic_add_s64(&p->inner_avail, nr);
}

/**
 * ordo_pool_take_inner() - hand out one reserved inner node
 * @p: pool
 *
 * Never sleeps and never fails if the caller holds an inner reservation.
 * The node's slots are zero (never used: inner nodes are not freed); the
 * caller initialises it under its lock.
 *
 * Return: the node number of its first slot.
 */
u32 ordo_pool_take_inner(struct ordo_pool *p)
{
	u32 i, c;

	for (;;) {
		i = READ_ONCE(p->inner_next);
		if (cmpxchg(&p->inner_next, i, i + 1) == i)
			break;
	}
	/*
	 * The reservation's cmpxchg of inner_avail came after the one of
	 * inner_chunk_add() that covers @i, so its entry is visible.
	 */
	c = p->inner_chunk[i / p->inner_per_chunk];
	return c * p->nodes_per_chunk + (i % p->inner_per_chunk) * p->inner_span;
}

/**
 * ordo_pool_set_reclaim() - set the hook that frees chunks for nodes
 * @p: pool
 * @reclaim: see struct ordo_pool; may sleep
 * @ctx: passed to @reclaim
 */
void ordo_pool_set_reclaim(struct ordo_pool *p,
			   int (*reclaim)(void *ctx, bool inner), void *ctx)
{
	p->reclaim = reclaim;
	p->reclaim_ctx = ctx;
}

/**
 * ordo_pool_value_chunk_to_nodes() - make an empty value chunk free nodes
 * @p: pool
 * @idx: a value chunk with no extent in use or listed as free
 * @inner: make it an inner chunk, not one of leaves
 *
 * May sleep.  The chunk is zeroed, so a reader still holding an extent
 * reference into it fails.  Leaves: each of its nodes goes on the free
 * list like a freed node (FREE flag, version and checksum), and node
 * numbers in it name leaves from now on; the bump pointer skips the chunk
 * as before, counting it skipped if it had not yet: skipped is lowered
 * now.  Inner: it joins the inner chunks (the bump pointer counts it
 * skipped, as any chunk not of leaves).
 */
void ordo_pool_value_chunk_to_nodes(struct ordo_pool *p, u32 idx, bool inner)
{
	u32 i, first = idx * p->nodes_per_chunk;

	ordo_mutex_lock(&p->grow_lock);
	memset(p->chunks[idx], 0, p->chunk_size);
	if (inner) {
		WRITE_ONCE(p->chunk_kind[idx], ORDO_CHUNK_INNER);
		inner_chunk_add(p, idx);
		ordo_mutex_unlock(&p->grow_lock);
		return;
	}
	WRITE_ONCE(p->chunk_kind[idx], ORDO_CHUNK_RECLAIMED);
	atomic_add_s64(&p->skipped, -(s64)p->nodes_per_chunk);
	for (i = 0; i < p->nodes_per_chunk; i++)
		ordo_pool_free(p, first + i);
	ordo_mutex_unlock(&p->grow_lock);
}

/**
 * ordo_pool_unreserve() - give back reservations not taken
 * @p: pool
 * @nr: count
 */
void ordo_pool_unreserve(struct ordo_pool *p, u32 nr)
{
	if (nr)
		avail_add(p, nr);
}

static u32 free_pop(struct ordo_pool *p)
{
	u32 n;

	ordo_spin_lock(&p->free_lock);
	n = p->free_head;
	if (n) {
		p->free_head = le32_to_cpu(ordo_pool_node(p, n)->right);
		p->nr_free--;
	}
	ordo_spin_unlock(&p->free_lock);
	return n;
}

/**
 * ordo_pool_take() - hand out one reserved node
 * @p: pool
 *
 * Never sleeps and never fails if the caller holds a reservation, so it is
 * safe under node locks.  The node keeps its version and incarnation: the
 * caller initialises it under its lock.
 *
 * Return: the node number.
 */
u32 ordo_pool_take(struct ordo_pool *p)
{
	for (;;) {
		u32 n, cap;

		if (READ_ONCE(p->nr_free)) {
			n = free_pop(p);
			if (n)
				return n;
		}
		n = READ_ONCE(p->next);
		cap = ordo_pool_nr_chunks(p) * p->nodes_per_chunk;
		if (n < cap) {
			u32 c = n / p->nodes_per_chunk;

			/*
			 * The bump pointer meets a chunk of values (or of
			 * reclaimed nodes, on the free list) at its start.
			 */
			if (READ_ONCE(p->chunk_kind[c]) != ORDO_CHUNK_NODES) {
				if (cmpxchg(&p->next, n,
					    n + p->nodes_per_chunk) == n)
					atomic_add_s64(&p->skipped,
						       p->nodes_per_chunk);
				continue;
			}
			if (cmpxchg(&p->next, n, n + 1) == n)
				return n;
			continue;
		}
		ordo_cpu_relax();
	}
}

/**
 * ordo_pool_free() - put an unreachable node on the free list
 * @p: pool
 * @node_no: node no reader can reach any more (stale readers holding its
 *	number see the FREE flag and a new incarnation)
 */
void ordo_pool_free(struct ordo_pool *p, u32 node_no)
{
	struct ordo_node_hdr *h = ordo_pool_node(p, node_no);

	ordo_node_lock(h);
	h->flags = ORDO_NODE_F_FREE;
	h->count = 0;
	h->incarnation = cpu_to_le32(le32_to_cpu(h->incarnation) + 1);
	ordo_spin_lock(&p->free_lock);
	h->right = cpu_to_le32(p->free_head);
	p->free_head = node_no;
	p->nr_free++;
	ordo_spin_unlock(&p->free_lock);
	ordo_node_unlock(h, &p->geo);
	avail_add(p, 1);
}

/**
 * ordo_pool_set_root() - record the tree's entry points in node 0
 * @p: pool
 * @root: root node number
 * @height: number of levels
 * @leftmost_leaf: first leaf
 */
void ordo_pool_set_root(struct ordo_pool *p, u32 root, u32 height,
			u32 leftmost_leaf)
{
	struct ordo_super *s = super_lock(p);

	s->root = cpu_to_le32(root);
	s->height = cpu_to_le32(height);
	s->leftmost_leaf = cpu_to_le32(leftmost_leaf);
	super_unlock(p, s);
}

/* Leaves (and free nodes of leaf chunks) in use, node 0 included. */
static u64 leaves_used(const struct ordo_pool *p)
{
	return READ_ONCE(p->next) - READ_ONCE(p->nr_free) -
	       READ_ONCE(p->skipped);
}

/**
 * ordo_pool_nodes_used() - nodes handed out and not freed, node 0 included
 * @p: pool
 *
 * Return: a racy but cheap count; an inner node counts as one.
 */
u64 ordo_pool_nodes_used(const struct ordo_pool *p)
{
	return leaves_used(p) + READ_ONCE(p->inner_next);
}

/**
 * ordo_pool_node_bytes_used() - bytes of the nodes handed out
 * @p: pool
 *
 * Return: a racy but cheap count: node_size a leaf, ordo_inner_span()
 * slots an inner node.
 */
u64 ordo_pool_node_bytes_used(const struct ordo_pool *p)
{
	return (leaves_used(p) + (u64)READ_ONCE(p->inner_next) *
		p->inner_span) * p->geo.node_size;
}
