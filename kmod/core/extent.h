/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Extents: the out-of-line values, in value chunks of the node pool.
 *
 * An extent is a header (struct ordo_extent_hdr) and a value longer than
 * value_size.  Extents are carved from value chunks in size classes of
 * 64-byte units (one unit apart up to 512 bytes, then eight per doubling:
 * at most 12.5% waste) and freed ones are kept per class for reuse.  A
 * value chunk whose extents are all free is carved again, for any class,
 * when the pool is full, or handed to the node allocator when nodes run
 * out.  A reader holding the reference of a freed extent fails on its
 * stamp or check, so reuse needs no grace period; chunks stay mapped
 * until the pool goes.
 */
#ifndef ORDO_CORE_EXTENT_H
#define ORDO_CORE_EXTENT_H

#include "compat.h"
#include "pool.h"

/* Size classes: 8 small ones and 8 per doubling from 512 B to 1 GiB. */
#define ORDO_EXTENT_CLASSES	(8 + 8 * 21)

/**
 * struct ordo_extents - the extent allocator of one pool
 * @pool: the pool whose value chunks hold the extents
 * @free: per class, the pool offset of the first free extent (0: none),
 *	doubly linked through the free extents' check (previous) and key
 *	(next) fields; a free extent's len holds its class and bit 31
 * @live: per chunk, units of the extents in use in it
 * @cur: pool offset of the unused tail of the current value chunk
 * @cur_end: its end (@cur == @cur_end: no tail)
 * @stamp: the last stamp drawn
 * @bytes: bytes of extents handed out and not freed
 * @lock: protects the fields above except @pool
 * @grow_lock: serialises adding value chunks
 */
struct ordo_extents {
	struct ordo_pool *pool;
	u64 free[ORDO_EXTENT_CLASSES];
	u32 *live;
	u64 cur;
	u64 cur_end;
	u32 stamp;
	u64 bytes;
	ordo_spinlock_t lock;
	ordo_mutex_t grow_lock;
};

/**
 * struct ordo_staged - an extent allocated for a value not yet published
 * @ref: its reference (what checks[s] will hold)
 * @len: the value's length
 * @bytes: where the value's @len bytes go (the caller fills them)
 *
 * The header is written when the value is published.
 */
struct ordo_staged {
	u64 ref;
	u32 len;
	u8 *bytes;
};

int ordo_extents_init(struct ordo_extents *x, struct ordo_pool *pool,
		      u32 first_stamp);
void ordo_extents_destroy(struct ordo_extents *x);
int ordo_extent_alloc(struct ordo_extents *x, u32 len,
		      struct ordo_staged *st);
void ordo_extent_seal(struct ordo_extents *x, struct ordo_staged *st,
		      u64 key);
void ordo_extent_free(struct ordo_extents *x, u64 ref, u32 units);
u64 ordo_extents_bytes(const struct ordo_extents *x);
int ordo_extents_release_chunk(struct ordo_extents *x, bool inner);
void *ordo_extent_at(struct ordo_extents *x, u64 ref);

#endif /* ORDO_CORE_EXTENT_H */
