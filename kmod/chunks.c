// SPDX-License-Identifier: GPL-2.0
/*
 * Chunk memory: high-order page allocations split into order-0 pages, so
 * every page can be mapped (and reference-counted) on its own by mmap.
 */
#include <linux/gfp.h>
#include <linux/mm.h>
#include <linux/slab.h>

#include "chunks.h"

int ordo_chunks_init(struct ordo_chunks *c, size_t chunk_size, u32 max)
{
	c->order = get_order(chunk_size);
	if (PAGE_SIZE << c->order != chunk_size)
		return -EINVAL;
	c->max = max;
	c->pages = kvcalloc(max, sizeof(*c->pages), GFP_KERNEL);
	return c->pages ? 0 : -ENOMEM;
}

/**
 * ordo_chunks_free - free chunk @idx; nobody may map or read it any more
 * @c: the chunk table
 * @idx: which chunk
 */
void ordo_chunks_free(struct ordo_chunks *c, u32 idx)
{
	struct page *page = c->pages[idx];
	unsigned long i;

	if (!page)
		return;
	c->pages[idx] = NULL;
	for (i = 0; i < (1UL << c->order); i++)
		__free_page(page + i);
}

void ordo_chunks_destroy(struct ordo_chunks *c)
{
	u32 idx;

	if (!c->pages)
		return;
	for (idx = 0; idx < c->max; idx++)
		ordo_chunks_free(c, idx);
	kvfree(c->pages);
	c->pages = NULL;
}

/**
 * ordo_chunks_alloc - allocate chunk @idx (zeroed); may sleep
 * @c: the chunk table
 * @idx: which chunk; the caller serialises allocations of one index
 *
 * Return: the chunk's kernel address, or NULL when out of memory.
 */
void *ordo_chunks_alloc(struct ordo_chunks *c, u32 idx)
{
	struct page *page;

	if (idx >= c->max || c->pages[idx])
		return NULL;
	page = alloc_pages(GFP_KERNEL | __GFP_ZERO | __GFP_NOWARN, c->order);
	if (!page)
		return NULL;
	split_page(page, c->order);
	/* Pairs with the acquire in ordo_chunks_page(): zeroed before seen. */
	smp_store_release(&c->pages[idx], page);
	return page_address(page);
}

/**
 * ordo_chunks_page - the page at page offset @pgoff of the chunk space
 * @c: the chunk table
 * @pgoff: page index, counting all chunks back to back
 *
 * Return: the page, or NULL if that chunk is not allocated.
 */
struct page *ordo_chunks_page(struct ordo_chunks *c, unsigned long pgoff)
{
	unsigned long idx = pgoff >> c->order;
	struct page *page;

	if (idx >= c->max)
		return NULL;
	/* Pairs with the release in ordo_chunks_alloc(). */
	page = smp_load_acquire(&c->pages[idx]);
	return page ? page + (pgoff & ((1UL << c->order) - 1)) : NULL;
}
