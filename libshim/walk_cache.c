// SPDX-License-Identifier: GPL-2.0
/*
 * libordo: the walk's cache of inner nodes, a direct-mapped table of
 * validated copies within a byte budget.  A copy may go stale at any time;
 * the walk checks every node it reaches through one (node number, level,
 * fences) and drops what led it astray.  Upper levels are few and visited
 * by every walk, so a slot keeps the higher node on a collision.
 */
#include <stdlib.h>
#include <string.h>

#include "shim.h"

/**
 * struct shim_walk_cache - cached inner nodes
 * @node_size: bytes of a copy: an inner node's ordo_inner_size().
 * @nslots: slots in @mem.
 * @used: slots holding a node.
 * @mem: @nslots node copies; node_no 0 marks an empty slot.
 */
struct shim_walk_cache {
	uint32_t node_size;
	uint32_t nslots;
	uint32_t used;
	uint8_t *mem;
};

struct shim_walk_cache *shim_walk_cache_new(uint64_t budget,
					    const struct ordo_geo *geo)
{
	struct shim_walk_cache *wc;
	uint32_t size = ordo_inner_size(geo->inner_fanout);
	uint64_t n = budget / size;

	if (!n)
		return NULL;
	if (n > (1u << 24))
		n = 1u << 24;
	wc = calloc(1, sizeof(*wc));
	if (!wc)
		return NULL;
	wc->node_size = size;
	wc->nslots = (uint32_t)n;
	wc->mem = calloc(n, size);
	if (!wc->mem) {
		free(wc);
		return NULL;
	}
	return wc;
}

void shim_walk_cache_free(struct shim_walk_cache *wc)
{
	if (!wc)
		return;
	free(wc->mem);
	free(wc);
}

static struct ordo_node_hdr *slot_of(struct shim_walk_cache *wc, uint32_t node)
{
	/* Multiplicative hash: node numbers of one level are clustered. */
	uint32_t i = (uint32_t)(((uint64_t)(node * 0x9e3779b1u) * wc->nslots)
				>> 32);

	return (struct ordo_node_hdr *)(wc->mem + (size_t)i * wc->node_size);
}

const struct ordo_node_hdr *shim_walk_cache_find(struct shim_walk_cache *wc,
						 uint32_t node)
{
	struct ordo_node_hdr *h = slot_of(wc, node);

	return h->node_no && le32toh(h->node_no) == node ? h : NULL;
}

void shim_walk_cache_add(struct shim_walk_cache *wc, const void *node)
{
	const struct ordo_node_hdr *n = node;
	struct ordo_node_hdr *h = slot_of(wc, le32toh(n->node_no));

	if (!n->node_no)
		return;
	if (h->node_no && h->node_no != n->node_no && h->level > n->level)
		return;
	if (!h->node_no)
		wc->used++;
	memcpy(h, node, wc->node_size);
}

void shim_walk_cache_drop(struct shim_walk_cache *wc, uint32_t node)
{
	struct ordo_node_hdr *h = slot_of(wc, node);

	if (h->node_no && le32toh(h->node_no) == node) {
		h->node_no = 0;
		wc->used--;
	}
}

uint64_t shim_walk_cache_bytes(const struct shim_walk_cache *wc)
{
	return wc ? (uint64_t)wc->used * wc->node_size : 0;
}
