// SPDX-License-Identifier: GPL-2.0
/*
 * The extent allocator: size classes carved from value chunks of the node
 * pool, a free list per class, and stamps that make stale references fail.
 */
#include "compat.h"
#include "extent.h"
#include "node.h"

#define STAMP_MASK	((1U << ORDO_EXTENT_STAMP_BITS) - 1)

/* Size of class @c in 64-byte units: 1..8, then 8 steps per doubling. */
static u64 class_units(u32 c)
{
	u32 e, m;

	if (c < 8)
		return c + 1;
	e = 3 + (c - 8) / 8;
	m = (c - 8) % 8 + 1;
	return (1ULL << e) + ((u64)m << (e - 3));
}

/* The smallest class of at least @units units (@units <= 2^24). */
static u32 class_of(u64 units)
{
	u32 c = 0;

	while (class_units(c) < units)
		c++;
	return c;
}

/**
 * ordo_extent_at() - the memory of an extent of this pool
 * @x: allocator
 * @ref: a reference the allocator handed out (never one from outside)
 *
 * Return: the extent's header.
 */
void *ordo_extent_at(struct ordo_extents *x, u64 ref)
{
	u64 off = ordo_extent_ref_offset(ref);
	u64 cs = x->pool->chunk_size;
	u8 *chunk = ordo_pool_chunk(x->pool, (u32)div64_u64(off, cs));

	return chunk + (off & (cs - 1));
}

static struct ordo_extent_hdr *hdr_at(struct ordo_extents *x, u64 off)
{
	return ordo_extent_at(x, div64_u64(off, ORDO_EXTENT_UNIT));
}

/* A free extent's len field: this bit and its class. */
#define FREE_MARK	0x80000000U

static u32 chunk_of(const struct ordo_extents *x, u64 off)
{
	return (u32)div64_u64(off, x->pool->chunk_size);
}

/*
 * Put the extent at @off of class @c on its free list (doubly linked
 * through the extent's check and key fields); lock held.
 */
static void free_push(struct ordo_extents *x, u64 off, u32 c)
{
	struct ordo_extent_hdr *e = hdr_at(x, off);
	u64 next = x->free[c];

	/*
	 * After the unlock that unpublished the reference: a reader that
	 * sees these stores sees the leaf's new version too.
	 */
	smp_wmb();
	/* Stamp 0 is never drawn: a stale reference to it fails. */
	WRITE_ONCE(e->stamp, 0);
	WRITE_ONCE(e->len, cpu_to_le32(FREE_MARK | c));
	WRITE_ONCE(e->check, 0);
	WRITE_ONCE(e->key, cpu_to_le64(next));
	if (next)
		WRITE_ONCE(hdr_at(x, next)->check, cpu_to_le64(off));
	x->free[c] = off;
}

/* Take the free extent at @off of class @c off its list; lock held. */
static void free_unlink(struct ordo_extents *x, u64 off, u32 c)
{
	struct ordo_extent_hdr *e = hdr_at(x, off);
	u64 prev = le64_to_cpu(READ_ONCE(e->check));
	u64 next = le64_to_cpu(READ_ONCE(e->key));

	if (prev)
		WRITE_ONCE(hdr_at(x, prev)->key, cpu_to_le64(next));
	else
		x->free[c] = next;
	if (next)
		WRITE_ONCE(hdr_at(x, next)->check, cpu_to_le64(prev));
	WRITE_ONCE(e->len, 0);
}

/* Cut the current chunk's tail into free extents; lock held. */
static void shred_tail(struct ordo_extents *x)
{
	while (x->cur < x->cur_end) {
		u64 units = div64_u64(x->cur_end - x->cur, ORDO_EXTENT_UNIT);
		u32 c = class_of(units);

		if (class_units(c) > units)
			c--;
		free_push(x, x->cur, c);
		x->cur += class_units(c) * ORDO_EXTENT_UNIT;
	}
}

/* A free extent of class @c, or 0; lock held. */
static u64 take(struct ordo_extents *x, u32 c)
{
	u64 off = x->free[c], size = class_units(c) * ORDO_EXTENT_UNIT;

	/*
	 * Only a carved extent moves the carve point: a free one may lie
	 * right at it (the first of the next chunk, once the current one is
	 * filled exactly), and moving it there would carry x->cur into that
	 * chunk, where it walks over extents in use.
	 */
	if (off) {
		free_unlink(x, off, c);
	} else if (x->cur + size <= x->cur_end) {
		off = x->cur;
		x->cur += size;
	}
	if (!off)
		return 0;
	x->bytes += size;
	x->live[chunk_of(x, off)] += class_units(c);
	return off;
}

/*
 * A value chunk with no extent in use, every free extent in it off its
 * list, so that nothing hands out its bytes any more; U32_MAX if there is
 * none.  Lock held.
 */
static u32 empty_chunk_take(struct ordo_extents *x)
{
	struct ordo_pool *p = x->pool;
	u32 n = ordo_pool_nr_chunks(p), idx, cur = U32_MAX;
	u64 off, end;

	if (x->cur_end)
		cur = chunk_of(x, x->cur_end - 1);
	for (idx = 1; idx < n; idx++)
		if (p->chunk_kind[idx] == ORDO_CHUNK_VALUES && !x->live[idx])
			break;
	if (idx >= n)
		return U32_MAX;
	off = (u64)idx * p->chunk_size;
	end = idx == cur ? x->cur : off + p->chunk_size;
	while (off < end) {
		u32 len = le32_to_cpu(hdr_at(x, off)->len), c;

		/* Nothing in use: every extent here is on a free list. */
		if (WARN_ON_ONCE(!(len & FREE_MARK) ||
				 (len & ~FREE_MARK) >= ORDO_EXTENT_CLASSES))
			break;
		c = len & ~FREE_MARK;
		free_unlink(x, off, c);
		off += class_units(c) * ORDO_EXTENT_UNIT;
	}
	if (idx == cur) {
		x->cur = 0;
		x->cur_end = 0;
	}
	return idx;
}

static u32 next_stamp(struct ordo_extents *x)
{
	x->stamp = (x->stamp + 1) & STAMP_MASK;
	if (!x->stamp)
		x->stamp = 1;
	return x->stamp;
}

/**
 * ordo_extents_init() - set up the allocator of @pool
 * @x: allocator
 * @pool: its pool
 * @first_stamp: where stamps start (random in the kernel, so a client that
 *	outlives a module load cannot meet an old reference's stamp again
 *	by counting)
 *
 * Return: 0 or -ENOMEM.
 */
int ordo_extents_init(struct ordo_extents *x, struct ordo_pool *pool,
		      u32 first_stamp)
{
	memset(x, 0, sizeof(*x));
	x->live = ordo_malloc(sizeof(*x->live) * pool->max_chunks);
	if (!x->live)
		return -ENOMEM;
	x->pool = pool;
	x->stamp = first_stamp & STAMP_MASK;
	ordo_spin_init(&x->lock);
	ordo_mutex_init(&x->grow_lock);
	return 0;
}

/**
 * ordo_extents_destroy() - release the allocator (its chunks go with the pool)
 * @x: allocator
 */
void ordo_extents_destroy(struct ordo_extents *x)
{
	ordo_free(x->live);
	ordo_mutex_destroy(&x->grow_lock);
	ordo_spin_destroy(&x->lock);
}

static bool try_alloc(struct ordo_extents *x, u32 c, u64 *off, u32 *stamp)
{
	ordo_spin_lock(&x->lock);
	*off = take(x, c);
	if (*off)
		*stamp = next_stamp(x);
	ordo_spin_unlock(&x->lock);
	return *off;
}

/**
 * ordo_extent_alloc() - allocate the extent of a value of @len bytes
 * @x: allocator
 * @len: the value's length; its extent must fit in one chunk
 * @st: receives the reference, the length and where the bytes go
 *
 * May sleep (it may add a value chunk to the pool).
 *
 * Return: 0, -EINVAL if the extent cannot fit in a chunk, -ENOMEM.
 */
int ordo_extent_alloc(struct ordo_extents *x, u32 len, struct ordo_staged *st)
{
	u64 units = ordo_extent_units(len), off;
	u32 c = class_of(units), stamp = 0, idx;
	int err = 0;

	if (class_units(c) * ORDO_EXTENT_UNIT > x->pool->chunk_size)
		return -EINVAL;
	if (!try_alloc(x, c, &off, &stamp)) {
		ordo_mutex_lock(&x->grow_lock);
		while (!err && !try_alloc(x, c, &off, &stamp)) {
			err = ordo_pool_add_value_chunk(x->pool, &idx);
			ordo_spin_lock(&x->lock);
			/*
			 * The pool is full: carve again a value chunk whose
			 * extents are all free (cut, maybe, for other classes).
			 */
			if (err == -ENOMEM) {
				idx = empty_chunk_take(x);
				if (idx != U32_MAX)
					err = 0;
			}
			if (!err) {
				shred_tail(x);
				x->cur = (u64)idx * x->pool->chunk_size;
				x->cur_end = x->cur + x->pool->chunk_size;
			}
			ordo_spin_unlock(&x->lock);
		}
		ordo_mutex_unlock(&x->grow_lock);
		if (err)
			return err;
	}
	st->ref = div64_u64(off, ORDO_EXTENT_UNIT) |
		  (u64)stamp << ORDO_EXTENT_OFF_BITS;
	st->len = len;
	st->bytes = (u8 *)hdr_at(x, off) + ORDO_EXTENT_HDR_SIZE;
	return 0;
}

/**
 * ordo_extent_seal() - write the header of a filled extent
 * @x: allocator
 * @st: the extent, its value's bytes in place
 * @key: the key it is published under
 *
 * Call before the reference is published: a reader that finds it reads
 * the header and check written here.
 */
void ordo_extent_seal(struct ordo_extents *x, struct ordo_staged *st,
		      u64 key)
{
	struct ordo_extent_hdr *e = ordo_extent_at(x, st->ref);

	e->key = cpu_to_le64(key);
	e->len = cpu_to_le32(st->len);
	e->stamp = cpu_to_le32(ordo_extent_ref_stamp(st->ref));
	e->check = cpu_to_le64(ordo_xxh64(&e->key, ORDO_EXTENT_HDR_SIZE - 8 +
					  st->len, 0));
}

/**
 * ordo_extent_free() - give an extent back
 * @x: allocator
 * @ref: its reference, no longer published (readers that still hold it
 *	fail on its stamp from now on)
 * @units: the units of its value (the lens word's low bits)
 */
void ordo_extent_free(struct ordo_extents *x, u64 ref, u32 units)
{
	u64 off = ordo_extent_ref_offset(ref);
	u32 c = class_of(units);

	ordo_spin_lock(&x->lock);
	free_push(x, off, c);
	x->bytes -= class_units(c) * ORDO_EXTENT_UNIT;
	x->live[chunk_of(x, off)] -= class_units(c);
	ordo_spin_unlock(&x->lock);
}

/**
 * ordo_extents_release_chunk() - give the node allocator an empty value chunk
 * @x: allocator
 * @inner: for inner nodes, not leaves
 *
 * For a pool that is full of chunks when the tree needs nodes: a value
 * chunk with no extent in use becomes a chunk of free leaves or of inner
 * nodes.  May sleep.
 *
 * Return: 0, or -ENOMEM if no value chunk is empty.
 */
int ordo_extents_release_chunk(struct ordo_extents *x, bool inner)
{
	u32 idx;

	ordo_mutex_lock(&x->grow_lock);
	ordo_spin_lock(&x->lock);
	idx = empty_chunk_take(x);
	ordo_spin_unlock(&x->lock);
	if (idx != U32_MAX)
		ordo_pool_value_chunk_to_nodes(x->pool, idx, inner);
	ordo_mutex_unlock(&x->grow_lock);
	return idx == U32_MAX ? -ENOMEM : 0;
}

/**
 * ordo_extents_bytes() - bytes of extents in use
 * @x: allocator
 *
 * Return: a racy but cheap count, in allocation classes' bytes.
 */
u64 ordo_extents_bytes(const struct ordo_extents *x)
{
	return READ_ONCE(x->bytes);
}
