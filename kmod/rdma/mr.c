// SPDX-License-Identifier: GPL-2.0
/*
 * Remote read-only access to the node pool and the model region: one
 * registration per RDMA device, shared by every connection on it, as
 * nvmet-rdma and RTRS share one PD per device.
 *
 * The registrar of a device (struct ordo_reg, kref'd by its connections)
 * owns, in the device's protection domain (ordo_rdma_dev_pd_get()), a DMA
 * mapping of every chunk, the MRs, and the region table clients READ
 * one-sided (linux/ordo_wire.h, struct ordo_wire_table).  Every client of
 * the device gets the same keys.
 *
 * Extents.  Each kind's address space (pool, model) is cut into slots of
 * per_mr chunks, the most one fast-registration MR may hold with the
 * chunk size as MR page size (rxe: 512).  A slot has one published MR
 * over the chunks it has so far.  When a kind grows, the registrar
 * registers one new MR over the grown slot's whole prefix (and over any
 * new slot), publishes the table, and retires the MR it replaced once
 * 2 * lease_ms have passed: clients use a table's keys for at most
 * lease_ms (Documentation/wire.rst).  Growth seen by one poll is one MR,
 * however many chunks it added, and a slot never holds more than one live
 * MR beyond those retiring.
 *
 * Registration.  FRWR needs a send queue; the registrar posts on the QP of
 * an established connection of the device ("ports": each reserves
 * ORDO_REG_CHAIN send slots for it), at most one chain at a time, every
 * request signaled, and only on a port with no send of its connection
 * outstanding (struct ordo_reg_port says why).  Nothing is published
 * before its REG_MR completed.  A chain that fails (not merely flushed by
 * its connection's teardown) backs off exponentially, from
 * ORDO_REG_BACKOFF_MIN to ORDO_REG_BACKOFF_MAX, instead of being retried
 * by every request of every connection.  The debugfs file
 * fail_registrations (Documentation/testing.rst) makes chains fail so.
 *
 * Growth is found by a poll of the chunk counts every ORDO_REG_POLL while
 * the registrar lives (while the device has connections), and right away
 * when a request sees the pool ahead of the table, unless a backoff runs:
 * then its deadline stands.
 *
 * Access is IB_ACCESS_REMOTE_READ alone: the MRs are never local buffers,
 * and remote writes and atomics must fail.  Each MR's iova is its offset
 * in its kind's zero-based space, so no kernel address leaves the host.
 *
 * Locking: reg->mutex serialises the work (extents, chains, the staging
 * table); reg->lock (taken with bottom halves off: completions may run in
 * softirq context) protects the ports, the chain's completion count and
 * the live table with what REGIONS reads of it.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/dma-mapping.h>
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/slab.h>
#include <linux/workqueue.h>
#include <rdma/ib_verbs.h>

#include "ordo.h"
#include "mr.h"
#include "trainer.h"
#include "wire.h"
#include "wire_table.h"

#define ORDO_REG_POLL		(HZ / 10)
#define ORDO_REG_BACKOFF_MIN	(HZ / 20)
#define ORDO_REG_BACKOFF_MAX	(10 * HZ)

/* Counters of every registrar, for sysfs. */
struct ordo_reg_stats ordo_reg_stats;

/*
 * Test facility: this many chains from now on fail as if the device
 * refused their post, before anything reaches it (debugfs.c).
 */
atomic_t ordo_reg_fail_posts;

unsigned int ordo_rdma_lease_ms = 5000;
module_param_named(region_lease_ms, ordo_rdma_lease_ms, uint, 0444);
MODULE_PARM_DESC(region_lease_ms,
		 "How long clients may use a copy of the region table; a replaced MR is kept twice as long: 100..600000 ms (default 5000)");

/**
 * struct ordo_reg_ext - one MR over chunks [@first, @first + @nr) of a kind
 * @node: on ordo_reg.retiring once replaced
 * @mr: the MR
 * @first: first chunk
 * @nr: chunks
 * @retire_at: jiffies from which it may be deregistered
 * @dead: a client invalidated its key: register the extent again
 */
struct ordo_reg_ext {
	struct list_head node;
	struct ib_mr *mr;
	u32 first;
	u32 nr;
	unsigned long retire_at;
	bool dead;
};

/**
 * struct ordo_reg_space - one kind's address space on one device
 * @src: its chunks (NULL: this server has no such region)
 * @chunk: bytes per chunk
 * @page_size: MR page size
 * @per_mr: chunks per slot
 * @slots: entries of @ext
 * @ext: the published extent of each slot, NULL where none
 * @chunks: chunks the published extents tile from 0
 * @dma: DMA address of each chunk mapped so far
 * @mapped: chunks [0, @mapped) are mapped
 */
struct ordo_reg_space {
	struct ordo_chunks *src;
	u64 chunk;
	u32 page_size;
	u32 per_mr;
	u32 slots;
	struct ordo_reg_ext **ext;
	u32 chunks;
	u64 *dma;
	u32 mapped;
};

/* A REG_MR being posted: the extent and where it goes. */
struct ordo_reg_link {
	struct ordo_reg_ext *ext;
	int kind;	/* ORDO_RDMA_POOL, ORDO_RDMA_MODEL, -1: the table */
	u32 slot;
};

/**
 * struct ordo_reg - the registrar of one RDMA device
 * @ref: held by each connection on the device
 * @dev: the device
 * @ibdev: its ib_device
 * @pd: the device's protection domain, held
 * @od: the store
 * @server_id: the server's id, for the table
 * @lease_ms: lease of the table's keys
 * @mutex: see the top of this file
 * @lock: see the top of this file
 * @ports: struct ordo_reg_port of established connections
 * @work: registers, publishes, retires; re-armed every ORDO_REG_POLL
 * @kicked: bit 0: a request saw the pool ahead of the table and queued
 *	@work, which has not run since
 * @space: the pool's and the model region's address spaces
 * @chain: the chain in flight or just completed
 * @nchain: entries of @chain
 * @chain_left: its requests not yet completed
 * @chain_failed: one of them failed (not merely flushed)
 * @chain_flushed: one of them was flushed
 * @retiring: replaced extents, oldest first
 * @backoff: current backoff, 0 while registrations succeed
 * @retry_at: no registration before this (jiffies); read without
 *	@mutex by requests, which do not kick the work before it
 * @table: the live table clients READ
 * @stage: where the next table is built
 * @table_len: bytes of both (page multiple)
 * @cap: entries the table has room for
 * @table_mr: the table's MR (NULL until registered)
 * @table_dma: DMA address of @table
 * @table_live: published at least once: REGIONS may announce it
 * @seq: sequence word of the live table
 * @pool_chunks: pool chunks the live table covers
 * @inval: keys clients invalidated, not yet looked up (under @lock)
 * @ninval: entries of @inval
 * @inval_all: more came than @inval holds: register everything again
 * @table_dead: @table_mr's key was invalidated; REGIONS announces no
 *	table until its new MR is registered (under @lock)
 */
struct ordo_reg {
	struct kref ref;
	struct ordo_rdma_dev *dev;
	struct ib_device *ibdev;
	struct ib_pd *pd;
	struct ordo_dev *od;
	u64 server_id;
	u32 lease_ms;
	struct mutex mutex;	/* see the top of this file */
	spinlock_t lock;	/* see the top of this file */
	struct list_head ports;
	struct delayed_work work;
	unsigned long kicked;
	struct ordo_reg_space space[ORDO_RDMA_KINDS];
	struct ordo_reg_link chain[ORDO_REG_CHAIN];
	u32 nchain;
	u32 chain_left;
	bool chain_failed;
	bool chain_flushed;
	struct list_head retiring;
	unsigned long backoff;
	unsigned long retry_at;
	void *table;
	void *stage;
	size_t table_len;
	u32 cap;
	struct ib_mr *table_mr;
	u64 table_dma;
	bool table_live;
	u64 seq;
	u32 pool_chunks;
	u32 inval[ORDO_REG_CHAIN];
	u32 ninval;
	bool inval_all;
	bool table_dead;
};

static void ordo_reg_ext_free(struct ordo_reg_ext *x)
{
	if (!x)
		return;
	if (x->mr) {
		ib_dereg_mr(x->mr);
		atomic_long_dec(&ordo_reg_stats.mrs);
	}
	kfree(x);
}

/* Chunks of @sp that exist now (a prefix: both kinds grow in order). */
static u32 ordo_reg_avail(struct ordo_reg *reg, int kind)
{
	struct ordo_reg_space *sp = &reg->space[kind];
	u32 n;

	if (kind == ORDO_RDMA_POOL)
		return ordo_pool_nr_chunks(&reg->od->tree.pool);
	n = sp->mapped;
	while (n < sp->src->max &&
	       ordo_chunks_page(sp->src, (unsigned long)n << sp->src->order))
		n++;
	return n;
}

/* Map chunks [sp->mapped, @to) for DMA; false if one cannot serve. */
static int ordo_reg_map(struct ordo_reg *reg, struct ordo_reg_space *sp, u32 to)
{
	struct ib_device *ibdev = reg->ibdev;

	while (sp->mapped < to) {
		struct page *page = ordo_chunks_page(sp->src, (unsigned long)
						     sp->mapped << sp->src->order);
		u64 addr = ib_dma_map_page(ibdev, page, 0, sp->chunk,
					   DMA_TO_DEVICE);

		if (ib_dma_mapping_error(ibdev, addr))
			return -ENOMEM;
		/* Bounced or non-coherent chunks would serve stale bytes. */
		if (!ib_uses_virt_dma(ibdev) &&
		    dma_need_sync(ibdev->dma_device, addr)) {
			ib_dma_unmap_page(ibdev, addr, sp->chunk, DMA_TO_DEVICE);
			pr_warn_once("RDMA device %s: a chunk would need DMA syncs; not registered\n",
				     dev_name(&ibdev->dev));
			return -EOPNOTSUPP;
		}
		sp->dma[sp->mapped++] = addr;
	}
	return 0;
}

/*
 * An MR over @n DMA ranges of @len bytes each, zero-based at @iova, built
 * but not registered yet.
 */
static struct ib_mr *ordo_reg_build_mr(struct ordo_reg *reg, const u64 *dma,
				       u32 n, u64 len, u32 page_size, u64 iova)
{
	struct scatterlist *sg;
	struct sg_table sgt;
	struct ib_mr *mr;
	int ret;
	u32 i;

	/* Zero-based addressing needs the run to start on a page. */
	if (dma[0] & (page_size - 1))
		return ERR_PTR(-EINVAL);
	ret = sg_alloc_table(&sgt, n, GFP_KERNEL);
	if (ret)
		return ERR_PTR(ret);
	/* Already mapped: only the DMA side of the list is read. */
	for_each_sg(sgt.sgl, sg, n, i) {
		sg_dma_address(sg) = dma[i];
		sg_dma_len(sg) = len;
	}
	mr = ib_alloc_mr(reg->pd, IB_MR_TYPE_MEM_REG,
			 n * (u32)div_u64(len, page_size));
	if (IS_ERR(mr))
		goto out;
	ret = ib_map_mr_sg(mr, sgt.sgl, n, NULL, page_size);
	if (ret != n) {
		ib_dereg_mr(mr);
		mr = ERR_PTR(ret < 0 ? ret : -EINVAL);
		goto out;
	}
	/* The offset in its space, not the DMA address (cf. _zbva()). */
	mr->iova = iova;
	ib_update_fast_reg_key(mr, ib_inc_rkey(mr->rkey));
	atomic_long_inc(&ordo_reg_stats.mrs);
out:
	sg_free_table(&sgt);
	return mr;
}

/* Build the extent of slot @slot of @kind up to chunk @to. */
static int ordo_reg_add_ext(struct ordo_reg *reg, int kind, u32 slot, u32 to)
{
	struct ordo_reg_space *sp = &reg->space[kind];
	u32 first = slot * sp->per_mr;
	struct ordo_reg_ext *x;
	int ret;

	ret = ordo_reg_map(reg, sp, to);
	if (ret)
		return ret;
	x = kzalloc(sizeof(*x), GFP_KERNEL);
	if (!x)
		return -ENOMEM;
	x->mr = ordo_reg_build_mr(reg, sp->dma + first, to - first, sp->chunk,
				  sp->page_size, (u64)first * sp->chunk);
	if (IS_ERR(x->mr)) {
		ret = PTR_ERR(x->mr);
		kfree(x);
		return ret;
	}
	x->first = first;
	x->nr = to - first;
	reg->chain[reg->nchain++] = (struct ordo_reg_link){ x, kind, slot };
	return 0;
}

/* The table's own MR. */
static int ordo_reg_add_table(struct ordo_reg *reg)
{
	struct ordo_reg_ext *x = kzalloc(sizeof(*x), GFP_KERNEL);
	u32 pages = reg->table_len >> PAGE_SHIFT, i;
	u64 *dma;

	if (!x)
		return -ENOMEM;
	dma = kcalloc(pages, sizeof(*dma), GFP_KERNEL);
	if (!dma) {
		kfree(x);
		return -ENOMEM;
	}
	for (i = 0; i < pages; i++)
		dma[i] = reg->table_dma + ((u64)i << PAGE_SHIFT);
	x->mr = ordo_reg_build_mr(reg, dma, pages, PAGE_SIZE, PAGE_SIZE, 0);
	kfree(dma);
	if (IS_ERR(x->mr)) {
		int ret = PTR_ERR(x->mr);

		kfree(x);
		return ret;
	}
	reg->chain[reg->nchain++] = (struct ordo_reg_link){ x, -1, 0 };
	return 0;
}

/* Build the next chain: the table first, then what the kinds grew by. */
static int ordo_reg_build(struct ordo_reg *reg)
{
	int kind, ret;

	if (!reg->table_mr || reg->table_dead) {
		ret = ordo_reg_add_table(reg);
		if (ret)
			return ret;
	}
	for (kind = 0; kind < ORDO_RDMA_KINDS; kind++) {
		struct ordo_reg_space *sp = &reg->space[kind];
		u32 at = sp->chunks, avail, s;

		if (!sp->src)
			continue;
		/* An invalidated extent, again under a new key. */
		for (s = 0; s < sp->slots && reg->nchain < ORDO_REG_CHAIN; s++) {
			struct ordo_reg_ext *x = sp->ext[s];

			if (!x || !x->dead)
				continue;
			ret = ordo_reg_add_ext(reg, kind, s, x->first + x->nr);
			if (ret)
				return ret;
		}
		avail = ordo_reg_avail(reg, kind);
		while (at < avail && reg->nchain < ORDO_REG_CHAIN) {
			u32 slot = at / sp->per_mr;
			u32 to = min(avail, (slot + 1) * sp->per_mr);

			ret = ordo_reg_add_ext(reg, kind, slot, to);
			if (ret)
				return ret;
			at = to;
		}
	}
	return 0;
}

static void ordo_reg_chain_free(struct ordo_reg *reg)
{
	u32 i;

	for (i = 0; i < reg->nchain; i++)
		ordo_reg_ext_free(reg->chain[i].ext);
	reg->nchain = 0;
}

/* Build and post the chain on @p, idle; reg->lock and p->lock held. */
static int ordo_reg_post_on(struct ordo_reg *reg, struct ordo_reg_port *p)
{
	struct ib_reg_wr wrs[ORDO_REG_CHAIN];
	const struct ib_send_wr *bad = NULL;
	int ret;
	u32 i;

	memset(wrs, 0, sizeof(wrs));
	for (i = 0; i < reg->nchain; i++) {
		struct ib_mr *mr = reg->chain[i].ext->mr;

		wrs[i].wr.opcode = IB_WR_REG_MR;
		wrs[i].wr.wr_cqe = &p->cqe;
		wrs[i].wr.send_flags = IB_SEND_SIGNALED;
		wrs[i].wr.next = i + 1 < reg->nchain ? &wrs[i + 1].wr : NULL;
		wrs[i].mr = mr;
		wrs[i].key = mr->rkey;
		/* Remote read only: never REMOTE_WRITE or ATOMIC. */
		wrs[i].access = IB_ACCESS_REMOTE_READ;
	}
	reg->chain_left = reg->nchain;
	reg->chain_failed = false;
	reg->chain_flushed = false;
	/* An injected failure: nothing is posted, as if refused at once. */
	if (atomic_add_unless(&ordo_reg_fail_posts, -1, 0))
		ret = -EIO;
	else
		ret = ib_post_send(p->qp, &wrs[0].wr, &bad);
	if (ret) {
		/* Those posted before @bad still complete. */
		for (i = 0; bad && &wrs[i].wr != bad; i++)
			;
		reg->chain_left = bad ? i : 0;
		reg->chain_failed = true;
	}
	return ret;
}

/*
 * Post the chain on the first port whose send queue is empty (see struct
 * ordo_reg_port); that port goes to the list's end.  Busy ones are asked
 * to say when they are idle.
 *
 * Return: 0, -ENOTCONN without ports, -EBUSY when none is idle, or the
 * error of the post.
 */
static int ordo_reg_post(struct ordo_reg *reg)
{
	struct ordo_reg_port *p;
	int ret = -ENOTCONN;

	spin_lock_bh(&reg->lock);
	list_for_each_entry(p, &reg->ports, node) {
		spin_lock(&p->lock);
		if (p->busy) {
			p->want = true;
			ret = -EBUSY;
			spin_unlock(&p->lock);
			continue;
		}
		ret = ordo_reg_post_on(reg, p);
		spin_unlock(&p->lock);
		list_move_tail(&p->node, &reg->ports);
		break;
	}
	spin_unlock_bh(&reg->lock);
	return ret;
}

/* Is a port idle now?  Busy ones are asked to say when they are. */
static bool ordo_reg_idle_port(struct ordo_reg *reg)
{
	struct ordo_reg_port *p;
	bool idle = false;

	spin_lock_bh(&reg->lock);
	list_for_each_entry(p, &reg->ports, node) {
		spin_lock(&p->lock);
		if (p->busy)
			p->want = true;
		else
			idle = true;
		spin_unlock(&p->lock);
		if (idle)
			break;
	}
	spin_unlock_bh(&reg->lock);
	return idle;
}

static void ordo_reg_done(struct ib_cq *cq, struct ib_wc *wc)
{
	struct ordo_reg_port *p = container_of(wc->wr_cqe,
					       struct ordo_reg_port, cqe);
	struct ordo_reg *reg = p->reg;
	bool last;

	spin_lock_bh(&reg->lock);
	if (wc->status == IB_WC_WR_FLUSH_ERR)
		reg->chain_flushed = true;
	else if (wc->status != IB_WC_SUCCESS)
		reg->chain_failed = true;
	last = !--reg->chain_left;
	spin_unlock_bh(&reg->lock);
	if (wc->status != IB_WC_SUCCESS && wc->status != IB_WC_WR_FLUSH_ERR)
		pr_warn_ratelimited("RDMA device %s: memory registration failed: %s\n",
				    dev_name(&reg->ibdev->dev),
				    ib_wc_status_msg(wc->status));
	if (last)
		mod_delayed_work(system_unbound_wq, &reg->work, 0);
}

/* Write the live table from the published extents. */
static void ordo_reg_publish(struct ordo_reg *reg)
{
	struct ordo_wire_table_info ti = {
		.server_id = reg->server_id,
		.cap = reg->cap,
		.lease_ms = reg->lease_ms,
		.pool_chunks = reg->space[ORDO_RDMA_POOL].chunks,
		.nr_chunks = ordo_pool_nr_chunks(&reg->od->tree.pool),
	};
	u32 nr = 0, kind, s;

	for (kind = 0; kind < ORDO_RDMA_KINDS; kind++) {
		struct ordo_reg_space *sp = &reg->space[kind];

		for (s = 0; sp->src && s < sp->slots && sp->ext[s]; s++) {
			struct ordo_reg_ext *x = sp->ext[s];

			ordo_wire_table_entry(reg->stage, nr++, kind + 1,
					      (u64)x->first * sp->chunk,
					      (u64)x->nr * sp->chunk,
					      x->mr->rkey);
		}
	}
	ti.model_bytes = (u64)reg->space[ORDO_RDMA_MODEL].chunks *
			 reg->space[ORDO_RDMA_MODEL].chunk;
	ti.nr_chunks = max(ti.nr_chunks, ti.pool_chunks);
	ordo_wire_table_seal(reg->stage, reg->seq + 2, nr, &ti);
	spin_lock_bh(&reg->lock);
	ordo_wire_table_publish(reg->table, reg->stage);
	reg->seq += 2;
	reg->table_live = true;
	WRITE_ONCE(reg->pool_chunks, ti.pool_chunks);
	spin_unlock_bh(&reg->lock);
	atomic64_inc(&ordo_reg_stats.publications);
}

/* A chain completed: publish what it registered, or give it up. */
static void ordo_reg_finish(struct ordo_reg *reg)
{
	unsigned long grace = 2 * msecs_to_jiffies(reg->lease_ms);
	u32 i;

	if (reg->chain_failed || reg->chain_flushed) {
		/* Never published: nobody has these keys. */
		ordo_reg_chain_free(reg);
		if (!reg->chain_failed) {
			/* Its connection is closing: another port, shortly. */
			WRITE_ONCE(reg->retry_at,
				   jiffies + ORDO_REG_BACKOFF_MIN);
			return;
		}
		atomic64_inc(&ordo_reg_stats.failures);
		reg->backoff = clamp(2 * reg->backoff, ORDO_REG_BACKOFF_MIN,
				     ORDO_REG_BACKOFF_MAX);
		atomic_long_set(&ordo_reg_stats.backoff_ms,
				jiffies_to_msecs(reg->backoff));
		WRITE_ONCE(reg->retry_at, jiffies + reg->backoff);
		return;
	}
	if (reg->backoff)
		atomic_long_set(&ordo_reg_stats.backoff_ms, 0);
	reg->backoff = 0;
	for (i = 0; i < reg->nchain; i++) {
		struct ordo_reg_link *l = &reg->chain[i];
		struct ordo_reg_space *sp;
		struct ordo_reg_ext *old;

		atomic64_inc(&ordo_reg_stats.registrations);
		if (l->kind < 0) {
			struct ib_mr *dead = reg->table_mr;

			spin_lock_bh(&reg->lock);
			reg->table_mr = l->ext->mr;
			reg->table_dead = false;
			spin_unlock_bh(&reg->lock);
			/* A replaced table MR retires like an extent. */
			if (dead) {
				l->ext->mr = dead;
				l->ext->retire_at = jiffies + grace;
				list_add_tail(&l->ext->node, &reg->retiring);
			} else {
				kfree(l->ext);
			}
			continue;
		}
		sp = &reg->space[l->kind];
		old = sp->ext[l->slot];
		sp->ext[l->slot] = l->ext;
		/* An extent registered again ends where it ended. */
		sp->chunks = max(sp->chunks, l->ext->first + l->ext->nr);
		atomic64_add((u64)(l->ext->nr - (old ? old->nr : 0)) * sp->chunk,
			     &ordo_reg_stats.bytes);
		if (old) {
			old->retire_at = jiffies + grace;
			list_add_tail(&old->node, &reg->retiring);
		}
	}
	reg->nchain = 0;
	ordo_reg_publish(reg);
}

/* Deregister replaced extents whose grace has passed. */
static void ordo_reg_retire(struct ordo_reg *reg, bool all)
{
	struct ordo_reg_ext *x, *tmp;

	list_for_each_entry_safe(x, tmp, &reg->retiring, node) {
		if (!all && time_before(jiffies, x->retire_at))
			break;
		list_del(&x->node);
		ordo_reg_ext_free(x);
		atomic64_inc(&ordo_reg_stats.retired);
	}
}

/* Is @key one of @keys[0..@n)? */
static bool ordo_reg_key_in(const u32 *keys, u32 n, u32 key)
{
	u32 i;

	for (i = 0; i < n; i++)
		if (keys[i] == key)
			return true;
	return false;
}

/*
 * Look up the keys clients invalidated: the table's MR or a published
 * extent's is registered again by the next chain (ordo_reg_build()).  A
 * key of nothing published (a retiring MR, a guess) needs nothing.
 */
static void ordo_reg_mark_dead(struct ordo_reg *reg)
{
	u32 keys[ORDO_REG_CHAIN], n, kind, s;
	bool all;

	spin_lock_bh(&reg->lock);
	n = reg->ninval;
	all = reg->inval_all;
	memcpy(keys, reg->inval, n * sizeof(keys[0]));
	reg->ninval = 0;
	reg->inval_all = false;
	if (reg->table_mr &&
	    (all || ordo_reg_key_in(keys, n, reg->table_mr->rkey)))
		reg->table_dead = true;
	spin_unlock_bh(&reg->lock);
	if (!n && !all)
		return;
	for (kind = 0; kind < ORDO_RDMA_KINDS; kind++) {
		struct ordo_reg_space *sp = &reg->space[kind];

		for (s = 0; sp->ext && s < sp->slots; s++) {
			struct ordo_reg_ext *x = sp->ext[s];

			if (x && (all || ordo_reg_key_in(keys, n, x->mr->rkey)))
				x->dead = true;
		}
	}
}

/**
 * ordo_reg_invalidated - a client sent with Invalidate
 * @reg: the registrar of the device it came on
 * @rkey: the key it named
 *
 * The device invalidated the MR of @rkey before the request reached the
 * server: any MR of the protection domain every connection of the device
 * shares, so every client reading with that key now fails.  The MR is
 * registered again under a new key and the table published; the old one
 * retires.  Any context.
 */
void ordo_reg_invalidated(struct ordo_reg *reg, u32 rkey)
{
	spin_lock_bh(&reg->lock);
	if (reg->ninval < ARRAY_SIZE(reg->inval))
		reg->inval[reg->ninval++] = rkey;
	else
		reg->inval_all = true;
	spin_unlock_bh(&reg->lock);
	atomic64_inc(&ordo_reg_stats.remote_invalidations);
	mod_delayed_work(system_unbound_wq, &reg->work, 0);
}

static void ordo_reg_work(struct work_struct *work)
{
	struct ordo_reg *reg = container_of(to_delayed_work(work),
					    struct ordo_reg, work);
	unsigned long next = ORDO_REG_POLL;
	bool busy;
	int ret;

	mutex_lock(&reg->mutex);
	atomic64_inc(&ordo_reg_stats.runs);
	clear_bit(0, &reg->kicked);
	ordo_reg_retire(reg, false);
	spin_lock_bh(&reg->lock);
	busy = reg->chain_left;
	spin_unlock_bh(&reg->lock);
	if (busy)
		goto out;	/* its last completion queues us */
	if (reg->nchain)
		ordo_reg_finish(reg);
	ordo_reg_mark_dead(reg);
	if (time_before(jiffies, reg->retry_at)) {
		next = reg->retry_at - jiffies;
		goto out;
	}
	/*
	 * No idle port (or none at all): an established connection, or a
	 * busy one that drained, queues us.
	 */
	if (!ordo_reg_idle_port(reg))
		goto out;
	ret = ordo_reg_build(reg);
	if (!ret && !reg->nchain)
		goto out;	/* nothing new */
	if (!ret)
		ret = ordo_reg_post(reg);
	if (ret == -ENOTCONN || ret == -EBUSY) {
		/* The port went busy or away meanwhile: later. */
		ordo_reg_chain_free(reg);
		goto out;
	}
	atomic64_inc(&ordo_reg_stats.attempts);
	if (ret) {
		pr_warn_ratelimited("RDMA device %s: cannot register memory: %d; backing off\n",
				    dev_name(&reg->ibdev->dev), ret);
		/* Completions of a partly posted chain write it too. */
		spin_lock_bh(&reg->lock);
		reg->chain_failed = true;
		busy = reg->chain_left;
		spin_unlock_bh(&reg->lock);
		if (!busy) {
			ordo_reg_finish(reg);
			next = reg->backoff;
		}
	}
out:
	/* A completion may have queued us sooner: keep the sooner. */
	queue_delayed_work(system_unbound_wq, &reg->work, next);
	mutex_unlock(&reg->mutex);
}

/**
 * ordo_reg_port_init - set up a connection's port, not yet added
 * @p: the port, zeroed
 */
void ordo_reg_port_init(struct ordo_reg_port *p)
{
	spin_lock_init(&p->lock);
}

/**
 * ordo_reg_port_post - post the connection's own sends on its QP
 * @p: the connection's port (added or not)
 * @qp: the QP
 * @wr: the chain of sends
 *
 * The port counts as busy from now until ordo_reg_port_idle().  Call with
 * bottom halves off.
 *
 * Return: the error of ib_post_send().
 */
int ordo_reg_port_post(struct ordo_reg_port *p, struct ib_qp *qp,
		       const struct ib_send_wr *wr)
{
	int ret;

	spin_lock(&p->lock);
	p->busy = true;
	ret = ib_post_send(qp, wr, NULL);
	spin_unlock(&p->lock);
	return ret;
}

/**
 * ordo_reg_port_idle - every send the connection posted has completed
 * @p: its port
 *
 * Call with bottom halves off.  A registrar waiting for an idle port runs
 * now.
 */
void ordo_reg_port_idle(struct ordo_reg_port *p)
{
	bool want;

	spin_lock(&p->lock);
	p->busy = false;
	want = p->want;
	p->want = false;
	spin_unlock(&p->lock);
	if (want && p->reg)
		mod_delayed_work(system_unbound_wq, &p->reg->work, 0);
}

/**
 * ordo_reg_port_add - let the registrar post on an established connection
 * @reg: the connection's registrar
 * @p: the connection's port
 * @qp: its QP, in RTS, with ORDO_REG_CHAIN send slots kept for @reg
 */
void ordo_reg_port_add(struct ordo_reg *reg, struct ordo_reg_port *p,
		       struct ib_qp *qp)
{
	p->reg = reg;
	p->qp = qp;
	p->cqe.done = ordo_reg_done;
	spin_lock_bh(&reg->lock);
	list_add_tail(&p->node, &reg->ports);
	p->listed = true;
	spin_unlock_bh(&reg->lock);
	mod_delayed_work(system_unbound_wq, &reg->work, 0);
}

/**
 * ordo_reg_port_del - no more registrations on this connection
 * @p: its port, added or not
 *
 * Call before draining the QP: a chain in flight on it then completes
 * (flushed) during the drain, and the registrar tries another port.
 */
void ordo_reg_port_del(struct ordo_reg_port *p)
{
	struct ordo_reg *reg = p->reg;

	if (!reg)
		return;
	spin_lock_bh(&reg->lock);
	if (p->listed)
		list_del(&p->node);
	p->listed = false;
	spin_unlock_bh(&reg->lock);
}

/**
 * ordo_reg_pool_chunks - pool chunks the published table covers
 * @reg: the registrar
 *
 * A caller that sees the pool larger asks for a registration now, unless
 * the registrar backs off after a failure: its work is queued for the
 * backoff's end already, and is not woken once per request meanwhile.
 *
 * Return: the count for a reply's header.
 */
u32 ordo_reg_pool_chunks(struct ordo_reg *reg)
{
	u32 n = READ_ONCE(reg->pool_chunks);

	if (n < ordo_pool_nr_chunks(&reg->od->tree.pool) &&
	    !time_before(jiffies, READ_ONCE(reg->retry_at)) &&
	    !test_and_set_bit(0, &reg->kicked))
		mod_delayed_work(system_unbound_wq, &reg->work, 0);
	return n;
}

/**
 * ordo_reg_regions - a REGIONS reply body from the published table
 * @reg: the registrar
 * @kind: enum ordo_wire_region_kind, checked
 * @first: the first entry wanted, not yet checked
 * @out: the reply body
 * @room: bytes at @out
 * @len: out: bytes of the body
 *
 * Return: 0, or -EINVAL when @first is past the kind's entries.
 */
int ordo_reg_regions(struct ordo_reg *reg, u32 kind, u32 first, void *out,
		     u32 room, u32 *len)
{
	struct ordo_wire_regions_rep *rep = out;
	struct ordo_wire_region *e = (void *)(rep + 1);
	const struct ordo_wire_table *t = reg->table;
	const struct ordo_wire_region *te = (const void *)(t + 1);
	u32 i, nr, at = 0, total = 0, n;
	u64 covered = 0;
	int ret;

	spin_lock_bh(&reg->lock);
	if (kind == ORDO_WIRE_REGION_TABLE) {
		/* The table's bytes; its MR has the rest of the page too. */
		total = reg->table_live && !reg->table_dead;
		covered = total ? ordo_wire_table_bytes(reg->cap) : 0;
	} else if (reg->table_live) {
		nr = le32_to_cpu(t->nr_entries);
		while (at < nr && le16_to_cpu(te[at].kind) != kind)
			at++;
		while (at + total < nr && le16_to_cpu(te[at + total].kind) == kind)
			total++;
		covered = kind == ORDO_WIRE_REGION_POOL ?
			  (u64)le32_to_cpu(t->pool_chunks) *
			  reg->space[ORDO_RDMA_POOL].chunk :
			  le64_to_cpu(t->model_bytes);
	}
	ret = ordo_wire_regions_fit(total, first, room, &n);
	if (ret)
		goto out;
	if (kind == ORDO_WIRE_REGION_TABLE && n) {
		e[0] = (struct ordo_wire_region){
			.offset = 0,
			.length = cpu_to_le64(covered),
			.rkey = cpu_to_le32(reg->table_mr->rkey),
			.kind = cpu_to_le16(kind),
		};
	} else {
		for (i = 0; i < n; i++)
			e[i] = te[at + first + i];
	}
	rep->total = cpu_to_le32(total);
	rep->returned = cpu_to_le32(n);
	rep->covered = cpu_to_le64(covered);
	*len = sizeof(*rep) + n * sizeof(*e);
out:
	spin_unlock_bh(&reg->lock);
	return ret;
}

static int ordo_reg_space_init(struct ordo_reg *reg, int kind,
			       struct ordo_chunks *src)
{
	struct ordo_reg_space *sp = &reg->space[kind];

	sp->src = src;
	sp->chunk = PAGE_SIZE << src->order;
	sp->per_mr = ordo_rdma_mr_geometry(reg->ibdev, sp->chunk,
					   &sp->page_size);
	if (!sp->per_mr)
		return -EOPNOTSUPP;
	sp->slots = DIV_ROUND_UP(src->max, sp->per_mr);
	sp->ext = kcalloc(sp->slots, sizeof(*sp->ext), GFP_KERNEL);
	sp->dma = kvcalloc(src->max, sizeof(*sp->dma), GFP_KERNEL);
	return sp->ext && sp->dma ? 0 : -ENOMEM;
}

static int ordo_reg_table_init(struct ordo_reg *reg)
{
	u32 cap = reg->space[ORDO_RDMA_POOL].slots +
		  reg->space[ORDO_RDMA_MODEL].slots;
	struct ordo_wire_table_info ti = {
		.server_id = reg->server_id,
		.cap = cap,
		.lease_ms = reg->lease_ms,
	};

	reg->cap = cap;
	reg->table_len = PAGE_ALIGN(ordo_wire_table_bytes(cap));
	if (cap > ORDO_WIRE_TABLE_ENTRIES_MAX ||
	    (reg->table_len >> PAGE_SHIFT) >
	    reg->ibdev->attrs.max_fast_reg_page_list_len) {
		pr_warn("RDMA device %s: a region table of %u entries does not fit one MR\n",
			dev_name(&reg->ibdev->dev), cap);
		return -EOPNOTSUPP;
	}
	/* Whole pages: the MR exposes nothing else. */
	reg->table = alloc_pages_exact(reg->table_len, GFP_KERNEL | __GFP_ZERO);
	reg->stage = kvzalloc(reg->table_len, GFP_KERNEL);
	if (!reg->table || !reg->stage)
		return -ENOMEM;
	reg->table_dma = ib_dma_map_single(reg->ibdev, reg->table,
					   reg->table_len, DMA_TO_DEVICE);
	if (ib_dma_mapping_error(reg->ibdev, reg->table_dma)) {
		reg->table_dma = 0;
		return -ENOMEM;
	}
	/* An empty table, sequence 0, until the first publication. */
	ordo_wire_table_seal(reg->stage, 0, 0, &ti);
	memcpy(reg->table, reg->stage, sizeof(struct ordo_wire_table));
	return 0;
}

static void ordo_reg_destroy(struct ordo_reg *reg)
{
	int kind;
	u32 i;

	cancel_delayed_work_sync(&reg->work);
	ordo_reg_chain_free(reg);
	ordo_reg_retire(reg, true);
	for (kind = 0; kind < ORDO_RDMA_KINDS; kind++) {
		struct ordo_reg_space *sp = &reg->space[kind];

		for (i = 0; sp->ext && i < sp->slots; i++) {
			if (sp->ext[i])
				atomic64_sub((u64)sp->ext[i]->nr * sp->chunk,
					     &ordo_reg_stats.bytes);
			ordo_reg_ext_free(sp->ext[i]);
		}
		for (i = 0; i < sp->mapped; i++)
			ib_dma_unmap_page(reg->ibdev, sp->dma[i], sp->chunk,
					  DMA_TO_DEVICE);
		kfree(sp->ext);
		kvfree(sp->dma);
	}
	if (reg->table_mr) {
		ib_dereg_mr(reg->table_mr);
		atomic_long_dec(&ordo_reg_stats.mrs);
	}
	if (reg->table_dma)
		ib_dma_unmap_single(reg->ibdev, reg->table_dma, reg->table_len,
				    DMA_TO_DEVICE);
	if (reg->table)
		free_pages_exact(reg->table, reg->table_len);
	kvfree(reg->stage);
	if (reg->pd)
		ordo_rdma_dev_pd_put(reg->dev);
	mutex_destroy(&reg->mutex);
	kfree(reg);
}

static struct ordo_reg *ordo_reg_create(struct ordo_rdma_dev *dev,
					struct ordo_dev *od, u64 server_id)
{
	struct ordo_reg *reg = kzalloc(sizeof(*reg), GFP_KERNEL);
	int ret;

	if (!reg)
		return ERR_PTR(-ENOMEM);
	kref_init(&reg->ref);
	reg->dev = dev;
	reg->ibdev = dev->ibdev;
	reg->od = od;
	reg->server_id = server_id;
	reg->lease_ms = ordo_rdma_lease_ms;
	mutex_init(&reg->mutex);
	spin_lock_init(&reg->lock);
	INIT_LIST_HEAD(&reg->ports);
	INIT_LIST_HEAD(&reg->retiring);
	INIT_DELAYED_WORK(&reg->work, ordo_reg_work);
	WRITE_ONCE(reg->retry_at, jiffies);
	reg->pd = ordo_rdma_dev_pd_get(dev);
	if (IS_ERR(reg->pd)) {
		ret = PTR_ERR(reg->pd);
		reg->pd = NULL;
		goto err;
	}
	ret = ordo_reg_space_init(reg, ORDO_RDMA_POOL, &od->pool_mem);
	/* The trainer outlives the RDMA server (main.c). */
	if (!ret && od->trainer)
		ret = ordo_reg_space_init(reg, ORDO_RDMA_MODEL,
					  &od->trainer->mem.chunks);
	if (!ret)
		ret = ordo_reg_table_init(reg);
	if (ret)
		goto err;
	return reg;
err:
	ordo_reg_destroy(reg);
	return ERR_PTR(ret);
}

/**
 * ordo_reg_get - the registrar of @dev, created for its first connection
 * @dev: the device
 * @od: the store
 * @server_id: the server's id
 *
 * Return: a reference, or an ERR_PTR.
 */
struct ordo_reg *ordo_reg_get(struct ordo_rdma_dev *dev, struct ordo_dev *od,
			      u64 server_id)
{
	struct ordo_reg *reg;

	mutex_lock(&dev->reg_mutex);
	reg = dev->reg;
	if (reg) {
		kref_get(&reg->ref);
	} else {
		reg = ordo_reg_create(dev, od, server_id);
		if (!IS_ERR(reg)) {
			dev->reg = reg;
			/* Polls from now on; registers once a port comes. */
			queue_delayed_work(system_unbound_wq, &reg->work, 0);
		}
	}
	mutex_unlock(&dev->reg_mutex);
	return reg;
}

/* Called with dev->reg_mutex held (kref_put_mutex()); drops it. */
static void ordo_reg_release(struct kref *ref)
{
	struct ordo_reg *reg = container_of(ref, struct ordo_reg, ref);

	reg->dev->reg = NULL;
	mutex_unlock(&reg->dev->reg_mutex);
	ordo_reg_destroy(reg);
}

/**
 * ordo_reg_put - drop a connection's reference
 * @reg: the registrar; the last put deregisters everything and frees
 *	the PD, so every QP on it must be gone
 */
void ordo_reg_put(struct ordo_reg *reg)
{
	kref_put_mutex(&reg->ref, ordo_reg_release, &reg->dev->reg_mutex);
}
