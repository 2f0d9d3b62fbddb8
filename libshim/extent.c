// SPDX-License-Identifier: GPL-2.0
/*
 * libordo: long values (layout 5).  A leaf slot whose length word has
 * ORDO_LEN_EXTENT set names an extent elsewhere in the pool: its check
 * word is the extent's reference, its length word the extent's size in
 * 64-byte units.  A GET reads the whole extent with one more READ into
 * the slot's extent buffer and checks it with ordo_extent_validate(), the
 * core's own code (Documentation/client.rst).
 */
#include <errno.h>
#include <stdlib.h>

#include "shim.h"

/* Extent buffers grow in steps of this many bytes (and at least double). */
#define XBUF_STEP	(64u << 10)

/**
 * shim_value_max() - the longest value the handle's store holds
 * @o: handle
 *
 * Return: ordo_value_len_max() of the store's chunk size; before the
 * superblock is known (an RPC-mode handle) the bound of any store, which
 * the server narrows.
 */
uint32_t shim_value_max(const struct ordo *o)
{
	if (o->sup.chunk_size < ORDO_CHUNK_SIZE_MIN)
		return ORDO_VALUE_LEN_MAX;
	return ordo_value_len_max(o->sup.chunk_size);
}

/**
 * shim_extent_locate() - where a slot's extent lies, checked
 * @geo: the store's geometry
 * @chunk_size: its chunk size (at least %ORDO_CHUNK_SIZE_MIN)
 * @max_chunks: chunks its pool may hold
 * @lens: the slot's length word, %ORDO_LEN_EXTENT set
 * @ref: the slot's check word: the extent reference
 * @off: out: the extent's offset in the pool
 * @bytes: out: bytes to read, header included
 *
 * The key block that held @lens and @ref passed its checksum, which only
 * proves a server published it: the reference may still name anything.
 *
 * Return: 0, or -EIO when it cannot name an extent of this store: a size
 * no value longer than value_size and at most the store's bound has, a
 * stamp of 0, an extent crossing a chunk boundary or past the pool's end.
 */
int shim_extent_locate(const struct ordo_geo *geo, uint64_t chunk_size,
		       uint32_t max_chunks, uint16_t lens, uint64_t ref,
		       uint64_t *off, uint32_t *bytes)
{
	uint32_t units = lens & ORDO_LEN_UNITS_MASK;
	uint64_t o = ordo_extent_ref_offset(ref), n;

	if (!(lens & ORDO_LEN_EXTENT) || chunk_size < ORDO_CHUNK_SIZE_MIN ||
	    units < ordo_extent_units(geo->value_size + 1) ||
	    units > ordo_extent_units(ordo_value_len_max(chunk_size)) ||
	    !ordo_extent_ref_stamp(ref))
		return -EIO;
	n = (uint64_t)units * ORDO_EXTENT_UNIT;
	if (o % chunk_size + n > chunk_size ||
	    o / chunk_size >= max_chunks)
		return -EIO;
	*off = o;
	*bytes = (uint32_t)n;
	return 0;
}

static void xbuf_free(struct ordo *o, struct shim_op *op)
{
	if (op->xbuf && o->be->xbuf_drop)
		o->be->xbuf_drop(o, op);
	free(op->xbuf);
	op->xbuf = NULL;
	op->xbuf_len = 0;
}

/**
 * shim_xbuf_get() - make the slot's extent buffer hold @len bytes
 * @o: handle
 * @op: the slot
 * @len: bytes needed, at most a largest extent's
 *
 * A slot gets one only when it reads a long value, sized for it; a
 * longer one later grows it (at least doubling).
 *
 * Return: 0 or -ENOMEM.
 */
int shim_xbuf_get(struct ordo *o, struct shim_op *op, size_t len)
{
	size_t max = (size_t)ordo_extent_units(ORDO_VALUE_LEN_MAX) *
		     ORDO_EXTENT_UNIT;
	size_t n = op->xbuf_len * 2;

	if (len <= op->xbuf_len)
		return 0;
	if (n < len)
		n = len;
	n = (n + XBUF_STEP - 1) / XBUF_STEP * XBUF_STEP;
	if (n > max)
		n = len > max ? len : max;
	xbuf_free(o, op);
	op->xbuf = aligned_alloc(4096, (n + 4095) & ~(size_t)4095);
	if (!op->xbuf)
		return -ENOMEM;
	op->xbuf_len = n;
	return 0;
}

/* Free every slot's extent buffer (before the backend closes). */
void shim_xbufs_free(struct ordo *o)
{
	uint32_t i;

	for (i = 0; o->ops && i < o->qd; i++)
		xbuf_free(o, &o->ops[i]);
}

