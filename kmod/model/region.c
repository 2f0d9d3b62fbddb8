// SPDX-License-Identifier: GPL-2.0
/*
 * Memory of the model region: chunks allocated as the model grows, up to
 * model_max_mb.  The core's ordo_region view (chunk addresses) is built
 * over them for ordo_region_write() and ordo_region_patch().  A full
 * training writes its image beside the live one and then moves the anchor
 * (double buffering); patches change the live image in place.
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
	mm->live = 0;
	mm->live_bytes = 0;
	seqcount_init(&mm->seq);
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
 * ordo_model_mem_fit - make room for @bytes of image at @base
 * @mm: the region's memory
 * @base: region offset of the image
 * @bytes: its size
 * @rg: set to a view of every allocated chunk, with @base
 *
 * Return: 0, or -ENOSPC past model_max_mb, -ENOMEM.
 */
int ordo_model_mem_fit(struct ordo_model_mem *mm, u64 base, u64 bytes,
		       struct ordo_region *rg)
{
	u64 end = base + bytes;
	u64 need = (end + (1ULL << mm->chunk_shift) - 1) >> mm->chunk_shift;

	if (end < base || need > mm->chunks.max)
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
	rg->base = base;
	return 0;
}

/**
 * ordo_model_mem_room - is there room for a new image of @bytes?
 * @mm: the region's memory
 * @bytes: its size
 *
 * Return: true if it fits where ordo_model_mem_publish() would put it.
 */
bool ordo_model_mem_room(const struct ordo_model_mem *mm, u64 bytes)
{
	u64 base = ordo_region_place(mm->live, mm->live_bytes, bytes);
	u64 max = (u64)mm->chunks.max << mm->chunk_shift;

	return bytes <= max && base <= max - bytes;
}

/**
 * ordo_model_mem_publish - write @m as a new image and make it live
 * @mm: the region's memory
 * @m: a freshly trained model (a new epoch), or the live one after a
 *	middle cut renumbered its sub-models (same epoch, a new top_gen)
 *
 * The image goes where it does not overlap the live one, so readers of
 * the live image keep consistent bytes for the whole write; one anchor
 * store then switches them over.
 *
 * Return: 0, or -ENOSPC past model_max_mb, -ENOMEM, -EINVAL.
 */
int ordo_model_mem_publish(struct ordo_model_mem *mm,
			   const struct ordo_model *m)
{
	u64 bytes = ordo_region_bytes(m);
	u64 base = ordo_region_place(mm->live, mm->live_bytes, bytes);
	struct ordo_region rg;
	int ret;

	ret = ordo_model_mem_fit(mm, base, bytes, &rg);
	if (!ret)
		ret = ordo_region_write(&rg, m);
	if (ret)
		return ret;
	preempt_disable();
	write_seqcount_begin(&mm->seq);
	ret = ordo_region_publish(&rg, m->epoch);
	if (!ret) {
		mm->live = base;
		mm->live_bytes = bytes;
	}
	write_seqcount_end(&mm->seq);
	preempt_enable();
	return ret;
}

/**
 * ordo_model_mem_patch - publish retrained sub-model @sub in the live image
 * @mm: the region's memory
 * @m: the live model after ordo_model_retrain_sub()
 * @sub: the sub-model
 *
 * A cut that renumbered sub-models cannot be patched into the live image:
 * @m is written as a new image beside it (ordo_model_mem_publish()).
 *
 * Return: 0, or as ordo_region_patch() or ordo_model_mem_publish();
 * -ESTALE without a live image.
 */
int ordo_model_mem_patch(struct ordo_model_mem *mm,
			 const struct ordo_model *m, u32 sub)
{
	struct ordo_region rg;
	int ret;

	if (!mm->live)
		return -ESTALE;
	ret = ordo_model_mem_fit(mm, mm->live, ordo_region_bytes(m), &rg);
	if (ret)
		return ret;
	preempt_disable();
	write_seqcount_begin(&mm->seq);
	ret = ordo_region_patch(&rg, m, sub);
	/* A cut may have grown the TT area, and the image with it. */
	if (!ret)
		mm->live_bytes = ordo_region_bytes(m);
	write_seqcount_end(&mm->seq);
	preempt_enable();
	if (ret == -EXDEV)
		ret = ordo_model_mem_publish(mm, m);
	return ret;
}

/**
 * ordo_model_mem_grow - publish the live model's larger TT area
 * @mm: the region's memory
 * @m: the live model after ordo_model_tt_grow()
 *
 * The live image grows at its end, over what may be the previous image
 * (its readers fail their checksums, as they would at the next training).
 *
 * Return: 0, or -ENOSPC past model_max_mb, -ENOMEM, -ESTALE.
 */
int ordo_model_mem_grow(struct ordo_model_mem *mm, const struct ordo_model *m)
{
	u64 bytes = ordo_region_bytes(m);
	struct ordo_region rg;
	int ret;

	if (!mm->live)
		return -ESTALE;
	ret = ordo_model_mem_fit(mm, mm->live, bytes, &rg);
	if (ret)
		return ret;
	preempt_disable();
	write_seqcount_begin(&mm->seq);
	ret = ordo_region_grow(&rg, m);
	if (!ret)
		mm->live_bytes = bytes;
	write_seqcount_end(&mm->seq);
	preempt_enable();
	return ret;
}
