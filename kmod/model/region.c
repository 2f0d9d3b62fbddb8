// SPDX-License-Identifier: GPL-2.0
/*
 * Memory of the model region: chunks allocated as the model grows, up to
 * model_max_mb.  The core's ordo_region view (chunk addresses) is built
 * over them for ordo_region_write() and ordo_region_patch().
 */
#include <linux/log2.h>
#include <linux/slab.h>

#include "trainer.h"

int ordo_model_mem_init(struct ordo_model_mem *mm, u64 chunk_size,
			u64 max_bytes)
{
	u32 max = div64_u64(max_bytes + chunk_size - 1, chunk_size);
	int ret;

	mm->nr = 0;
	mm->chunk_shift = ilog2(chunk_size);
	ret = ordo_chunks_init(&mm->chunks, chunk_size, max);
	if (ret)
		return ret;
	mm->vaddr = kvcalloc(max, sizeof(*mm->vaddr), GFP_KERNEL);
	if (!mm->vaddr) {
		ordo_chunks_destroy(&mm->chunks);
		return -ENOMEM;
	}
	return 0;
}

void ordo_model_mem_destroy(struct ordo_model_mem *mm)
{
	ordo_chunks_destroy(&mm->chunks);
	kvfree(mm->vaddr);
	mm->vaddr = NULL;
}

/**
 * ordo_model_mem_fit - make the region at least @bytes long
 * @mm: the region's memory
 * @bytes: bytes the next model needs
 * @rg: set to a view of every allocated chunk
 *
 * Return: 0, or -ENOSPC past model_max_mb, -ENOMEM.
 */
int ordo_model_mem_fit(struct ordo_model_mem *mm, u64 bytes,
		       struct ordo_region *rg)
{
	u64 need = (bytes + (1ULL << mm->chunk_shift) - 1) >> mm->chunk_shift;

	if (need > mm->chunks.max)
		return -ENOSPC;
	while (mm->nr < need) {
		void *va = ordo_chunks_alloc(&mm->chunks, mm->nr);

		if (!va)
			return -ENOMEM;
		mm->vaddr[mm->nr++] = va;
	}
	rg->chunks = mm->vaddr;
	rg->nchunks = mm->nr;
	rg->chunk_shift = mm->chunk_shift;
	return 0;
}
