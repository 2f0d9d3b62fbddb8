/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Physically contiguous memory chunks that back the node pool (and later the
 * model region): registered for remote read-only access as they are, and
 * mapped read-only into user space page by page.
 */
#ifndef ORDO_CHUNKS_H
#define ORDO_CHUNKS_H

#include <linux/mm_types.h>
#include <linux/types.h>

/**
 * struct ordo_chunks - a table of chunks of one size
 * @order: page order of one chunk
 * @max: capacity of @pages
 * @pages: first page of each allocated chunk, NULL if not yet allocated;
 *	set with release semantics, so readers may look chunks up locklessly
 */
struct ordo_chunks {
	unsigned int order;
	u32 max;
	struct page **pages;
};

int ordo_chunks_init(struct ordo_chunks *c, size_t chunk_size, u32 max);
void ordo_chunks_destroy(struct ordo_chunks *c);
void *ordo_chunks_alloc(struct ordo_chunks *c, u32 idx);
void ordo_chunks_free(struct ordo_chunks *c, u32 idx);
struct page *ordo_chunks_page(struct ordo_chunks *c, unsigned long pgoff);

#endif /* ORDO_CHUNKS_H */
