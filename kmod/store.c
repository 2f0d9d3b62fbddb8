// SPDX-License-Identifier: GPL-2.0
/*
 * The store of this host: the kernel-neutral B-link tree (kmod/core) on a
 * node pool whose chunks are physically contiguous pages (chunks.c).
 */
#include <linux/ordo.h>

#include "ordo.h"
#include "store.h"

static void *ordo_pool_chunk_alloc(void *ctx, u32 idx, size_t size)
{
	struct ordo_dev *od = ctx;

	return ordo_chunks_alloc(&od->pool_mem, idx);
}

static void ordo_pool_chunk_free(void *ctx, u32 idx, void *mem, size_t size)
{
	struct ordo_dev *od = ctx;

	ordo_chunks_free(&od->pool_mem, idx);
}

static const struct ordo_pool_ops ordo_pool_mem_ops = {
	.chunk_alloc = ordo_pool_chunk_alloc,
	.chunk_free = ordo_pool_chunk_free,
};

int ordo_store_init(struct ordo_dev *od)
{
	struct ordo_tree_params params;
	u64 chunk = (u64)ordo_chunk_kb << 10;
	u64 max_bytes = (u64)ordo_max_memory_mb << 20;
	u64 nmax = div64_u64(max_bytes, chunk);
	int ret;

	/* No more than the pool can name (ordo_pool_init() caps it too). */
	nmax = min(nmax, div64_u64(1ULL << (ORDO_EXTENT_OFF_BITS + 6), chunk));
	nmax = min_t(u64, nmax, U32_MAX);
	ret = ordo_chunks_init(&od->pool_mem, chunk, (u32)nmax);
	if (ret)
		return ret;
	ordo_tree_default_params(&params);
	params.value_size = ordo_value_size;
	params.leaf_slots = ordo_leaf_slots;
	params.chunk_size = chunk;
	params.max_bytes = max_bytes;
	params.ops = &ordo_pool_mem_ops;
	params.ops_ctx = od;
	/* A client outliving this load must not meet old stamps by counting. */
	params.stamp_seed = get_random_u32();
	ret = ordo_tree_init(&od->tree, &params);
	if (ret) {
		ordo_chunks_destroy(&od->pool_mem);
		return ret;
	}
	/* The registrar sizes its table by this: the pool's own bound. */
	od->pool_mem.max = min(od->pool_mem.max, od->tree.pool.max_chunks);
	return 0;
}

void ordo_store_destroy(struct ordo_dev *od)
{
	ordo_tree_destroy(&od->tree);
	ordo_chunks_destroy(&od->pool_mem);
}

void ordo_store_info(struct ordo_dev *od, struct ordo_info *info)
{
	const struct ordo_geo *geo = &od->tree.geo;
	struct ordo_tree_stats st;

	ordo_tree_get_stats(&od->tree, &st);
	memset(info, 0, sizeof(*info));
	info->abi_version = ORDO_ABI_VERSION;
	strscpy(info->version, ORDO_VERSION, sizeof(info->version));
	info->node_size = geo->node_size;
	info->leaf_slots = geo->leaf_slots;
	info->inner_fanout = geo->inner_fanout;
	info->value_size = geo->value_size;
	info->chunk_size = od->tree.pool.chunk_size;
	info->max_chunks = od->tree.pool.max_chunks;
	info->pool_bytes_used = st.pool_bytes_used;
	info->pool_bytes_total = st.pool_bytes_total;
	info->keys = st.keys;
	info->height = st.height;
	info->value_max = ordo_tree_value_max(&od->tree);
}

int ordo_store_get(struct ordo_dev *od, u64 key, void *val, u32 *len)
{
	return ordo_tree_get_len(&od->tree, key, val, len);
}

int ordo_store_write(struct ordo_dev *od, u32 op, u64 key, const void *val,
		     u32 len)
{
	struct ordo_value v = { .buf = val, .len = len };

	switch (op) {
	case ORDO_OP_PUT:
		return ordo_tree_put_len(&od->tree, key, &v);
	case ORDO_OP_INSERT:
		return ordo_tree_insert_len(&od->tree, key, &v);
	case ORDO_OP_UPDATE:
		return ordo_tree_update_len(&od->tree, key, &v);
	}
	return -EINVAL;
}

int ordo_store_delete(struct ordo_dev *od, u64 key)
{
	int ret = ordo_tree_delete(&od->tree, key);

	/* The trainer retires leaves that deletes may have emptied. */
	if (!ret)
		atomic64_inc(&od->deletes_unretired);
	return ret;
}

int ordo_store_scan(struct ordo_dev *od, u64 start, u32 n, u64 *keys,
		    void *vals, u32 *lens)
{
	return ordo_tree_scan_len(&od->tree, start, n, keys, vals, lens);
}
