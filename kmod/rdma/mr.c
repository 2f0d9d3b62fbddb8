// SPDX-License-Identifier: GPL-2.0
/*
 * Remote read-only access to the node pool and the model region: fast
 * registration (FRWR) of their chunks and the per-connection region tables.
 *
 * Each region is one MR over a run of chunks of one kind (pool or model).
 * Chunks are physically contiguous and size-aligned, so the MR page size is
 * the chunk size when the device supports it (one page-list entry per
 * chunk; rxe's 512 entries then cover 1 GiB of 2 MiB chunks).  The MR's
 * iova is the run's offset in its kind's zero-based address space, so a
 * client reads node n at ordo_node_offset(n) (and model bytes at their
 * region offset) with the key of the region containing it, and no kernel
 * address ever leaves the host.  Access is IB_ACCESS_REMOTE_READ alone: the
 * server never uses these MRs as local buffers, so it needs no LOCAL_WRITE,
 * and remote writes and atomics must fail.
 *
 * Registration happens on the connection's own QP (each connection has its
 * own PD, so its keys are useless on any other QP), lazily: before each
 * reply, chunks the regions grew by are registered and the REG_MR requests
 * are posted in front of the reply's SEND, which is the first message that
 * can announce them (RTRS posts its REG_MR chain the same way).  Regions
 * are never re-registered, because pool and model chunks are never freed
 * while the server runs (main.c stops it first); teardown deregisters them
 * after the QP is drained.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/dma-mapping.h>
#include <linux/slab.h>
#include <rdma/ib_verbs.h>

#include "ordo.h"
#include "rdma.h"
#include "trainer.h"

static void ordo_mr_region_free(struct ordo_rdma_conn *c,
				struct ordo_rdma_region *r)
{
	if (r->mr)
		ib_dereg_mr(r->mr);
	if (r->nents)
		ib_dma_unmap_sg(c->cm_id->device, r->sgt.sgl,
				r->sgt.orig_nents, DMA_TO_DEVICE);
	sg_free_table(&r->sgt);
	memset(r, 0, sizeof(*r));
}

/*
 * The chunks behind region kind @kind, and in *@avail how many of them
 * (from the first) exist now; NULL if this server has no such region.
 */
static struct ordo_chunks *ordo_mr_source(struct ordo_rdma_conn *c, int kind,
					  u32 *avail)
{
	struct ordo_dev *od = c->srv->od;
	struct ordo_chunks *src;
	u32 n;

	if (kind == ORDO_RDMA_POOL) {
		/* Chunks below the count are published (and zeroed). */
		*avail = ordo_pool_nr_chunks(&od->tree.pool);
		return &od->pool_mem;
	}
	/* The trainer outlives the RDMA server (main.c). */
	if (!od->trainer)
		return NULL;
	src = &od->trainer->mem.chunks;
	/* The model region grows by chunks in order, never shrinks. */
	n = c->tables[kind].chunks;
	while (n < src->max && ordo_chunks_page(src, (unsigned long)n << src->order))
		n++;
	*avail = n;
	return src;
}

/* Build (not yet post) region [first, first + nr) of @src at @t's end. */
static int ordo_mr_add(struct ordo_rdma_conn *c, struct ordo_rdma_table *t,
		       struct ordo_chunks *src, u32 first, u32 nr,
		       u32 page_size)
{
	struct ib_device *ibdev = c->cm_id->device;
	u64 chunk = PAGE_SIZE << src->order;
	struct ordo_rdma_region *r;
	struct scatterlist *sg;
	int ret;
	u32 i;

	if (t->nr == t->cap) {
		u32 cap = max(2 * t->cap, 4U);
		struct ordo_rdma_region *regions;

		regions = krealloc_array(t->regions, cap, sizeof(*regions),
					 GFP_KERNEL);
		if (!regions)
			return -ENOMEM;
		t->regions = regions;
		t->cap = cap;
	}
	r = &t->regions[t->nr];
	memset(r, 0, sizeof(*r));
	ret = sg_alloc_table(&r->sgt, nr, GFP_KERNEL);
	if (ret)
		return ret;
	for_each_sg(r->sgt.sgl, sg, nr, i)
		sg_set_page(sg, ordo_chunks_page(src,
						 (unsigned long)(first + i) << src->order),
			    (u32)chunk, 0);
	r->nents = ib_dma_map_sg(ibdev, r->sgt.sgl, nr, DMA_TO_DEVICE);
	if (r->nents <= 0) {
		r->nents = 0;
		ret = -ENOMEM;
		goto err;
	}
	/* Bounced or non-coherent chunks would serve stale bytes. */
	if (!ib_uses_virt_dma(ibdev))
		for_each_sg(r->sgt.sgl, sg, r->nents, i)
			if (dma_need_sync(ibdev->dma_device,
					  sg_dma_address(sg))) {
				pr_warn_once("RDMA device %s: a pool chunk would need DMA syncs; not registered\n",
					     dev_name(&ibdev->dev));
				ret = -EOPNOTSUPP;
				goto err;
			}
	r->mr = ib_alloc_mr(c->pd, IB_MR_TYPE_MEM_REG,
			    nr * (u32)(chunk / page_size));
	if (IS_ERR(r->mr)) {
		ret = PTR_ERR(r->mr);
		r->mr = NULL;
		goto err;
	}
	/* Zero-based addressing needs the run to start on a page. */
	if (sg_dma_address(r->sgt.sgl) & (page_size - 1)) {
		ret = -EINVAL;
		goto err;
	}
	ret = ib_map_mr_sg(r->mr, r->sgt.sgl, r->nents, NULL, page_size);
	if (ret != r->nents) {
		ret = ret < 0 ? ret : -EINVAL;
		goto err;
	}
	/* The offset in its region, not the DMA address (cf. _zbva()). */
	r->mr->iova = (u64)first * chunk;
	ib_update_fast_reg_key(r->mr, ib_inc_rkey(r->mr->rkey));
	r->first = first;
	r->nr = nr;
	r->chunk_size = chunk;
	t->nr++;
	t->chunks = first + nr;
	c->pending[c->npending++] = r->mr;
	WRITE_ONCE(c->registered_bytes, c->registered_bytes + nr * chunk);
	atomic64_add(nr * chunk, &c->srv->registered_bytes);
	return 0;
err:
	ordo_mr_region_free(c, r);
	return ret;
}

/* Register what is new in region kind @kind, within the batch. */
static void ordo_mr_prepare_kind(struct ordo_rdma_conn *c, int kind)
{
	struct ordo_rdma_table *t = &c->tables[kind];
	struct ordo_chunks *src;
	u32 avail, per_mr, page_size;
	int ret;

	src = ordo_mr_source(c, kind, &avail);
	if (!src || t->chunks >= avail)
		return;
	per_mr = ordo_rdma_mr_geometry(c->cm_id->device, PAGE_SIZE << src->order,
				       &page_size);
	while (c->npending < ORDO_RDMA_REG_BATCH && t->chunks < avail && per_mr) {
		u32 nr = min(avail - t->chunks, per_mr);

		ret = ordo_mr_add(c, t, src, t->chunks, nr, page_size);
		if (ret) {
			pr_warn_ratelimited("connection %u: cannot register chunks %u..%u: %d\n",
					    c->id, t->chunks, t->chunks + nr - 1,
					    ret);
			break;
		}
	}
}

/**
 * ordo_mr_prepare - build regions for the chunks not yet registered
 * @c: the connection, from its RPC work
 *
 * Node-pool chunks always; model-region chunks once the client asked for
 * the model.  The new regions count as registered from now on: their
 * REG_MR requests go out in front of the next reply (ordo_mr_chain()), and
 * if that post fails the connection closes before any client learns a
 * key.  Out of memory simply leaves the rest for a later reply.
 *
 * Return: MRs to register, at most %ORDO_RDMA_REG_BATCH.
 */
int ordo_mr_prepare(struct ordo_rdma_conn *c)
{
	c->npending = 0;
	ordo_mr_prepare_kind(c, ORDO_RDMA_POOL);
	if (c->want_model)
		ordo_mr_prepare_kind(c, ORDO_RDMA_MODEL);
	return c->npending;
}

/**
 * ordo_mr_chain - REG_MR requests for the prepared MRs, then @next
 * @c: the connection
 * @wrs: room for %ORDO_RDMA_REG_BATCH requests
 * @next: the work request to follow them (the reply's SEND)
 *
 * Return: the head of the chain.
 */
struct ib_send_wr *ordo_mr_chain(struct ordo_rdma_conn *c,
				 struct ib_reg_wr *wrs,
				 struct ib_send_wr *next)
{
	int i;

	for (i = c->npending - 1; i >= 0; i--) {
		struct ib_mr *mr = c->pending[i];

		memset(&wrs[i], 0, sizeof(wrs[i]));
		wrs[i].wr.opcode = IB_WR_REG_MR;
		wrs[i].wr.wr_cqe = &c->reg_cqe;
		wrs[i].wr.send_flags = IB_SEND_SIGNALED;
		wrs[i].wr.next = next;
		wrs[i].mr = mr;
		wrs[i].key = mr->rkey;
		/* Remote read only: never REMOTE_WRITE or REMOTE_ATOMIC. */
		wrs[i].access = IB_ACCESS_REMOTE_READ;
		next = &wrs[i].wr;
	}
	c->npending = 0;
	return next;
}

/**
 * ordo_mr_release_all - deregister (invalidate) and free every region
 * @c: the connection, its QP drained and destroyed
 */
void ordo_mr_release_all(struct ordo_rdma_conn *c)
{
	int kind;
	u32 i;

	for (kind = 0; kind < ORDO_RDMA_KINDS; kind++) {
		struct ordo_rdma_table *t = &c->tables[kind];

		for (i = 0; i < t->nr; i++)
			ordo_mr_region_free(c, &t->regions[i]);
		kfree(t->regions);
		memset(t, 0, sizeof(*t));
	}
	atomic64_sub(c->registered_bytes, &c->srv->registered_bytes);
	WRITE_ONCE(c->registered_bytes, 0);
}
