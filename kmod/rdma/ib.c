// SPDX-License-Identifier: GPL-2.0
/*
 * ib_client: the RDMA devices connections may live on, including devices
 * added after load ("rdma link add") and removed while serving ("rdma
 * link delete").
 *
 * Removal has the layers above close everything on the device (the
 * remove callback) and returns once all of it is released (QPs drained
 * and destroyed, CQs back in the pool; the last connection frees the
 * device's registrar, its MRs and DMA mappings, its shared receive
 * queue, and its PD),
 * because the device is gone when remove() returns.  The rdma_cm client
 * registered before ours, so its remove() runs after ours and finds no id
 * of ours left on the device except an address-bound listener, which it
 * reports with DEVICE_REMOVAL (listener.c).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/dma-mapping.h>
#include <linux/slab.h>
#include <rdma/ib_verbs.h>

#include "device.h"

/* The devices the client serves; set before ib_register_client(). */
static struct ordo_rdma_devs *ordo_ib_devs;
static struct ib_client ordo_ib_client;

/* With devs->lock held. */
struct ordo_rdma_dev *ordo_rdma_dev_find(struct ordo_rdma_devs *devs,
					 struct ib_device *ibdev)
{
	struct ordo_rdma_dev *dev;

	list_for_each_entry(dev, &devs->list, node)
		if (dev->ibdev == ibdev)
			return dev;
	return NULL;
}

/**
 * ordo_rdma_dev_pd_get - the protection domain of everything on @dev
 * @dev: the device
 *
 * Connections, the registrar and their queues share it: a QP and the MRs
 * its client reads, like a QP and its SRQ, must be in one PD.  Allocated
 * for the first user, freed after the last.
 *
 * Return: the PD, or an ERR_PTR.
 */
struct ib_pd *ordo_rdma_dev_pd_get(struct ordo_rdma_dev *dev)
{
	struct ib_pd *pd;

	mutex_lock(&dev->pd_mutex);
	if (!dev->pd_users) {
		pd = ib_alloc_pd(dev->ibdev, 0);
		if (IS_ERR(pd))
			goto out;
		dev->pd = pd;
	}
	dev->pd_users++;
	pd = dev->pd;
out:
	mutex_unlock(&dev->pd_mutex);
	return pd;
}

/* Drop a reference of ordo_rdma_dev_pd_get(); everything on it is gone. */
void ordo_rdma_dev_pd_put(struct ordo_rdma_dev *dev)
{
	mutex_lock(&dev->pd_mutex);
	if (!--dev->pd_users) {
		ib_dealloc_pd(dev->pd);
		dev->pd = NULL;
	}
	mutex_unlock(&dev->pd_mutex);
}

/**
 * ordo_rdma_mr_geometry - how chunks of @chunk bytes are cut into MRs
 * @ibdev: the device
 * @chunk: chunk size, a power of two
 * @page_size: out: MR page size
 *
 * Chunks are physically contiguous and aligned to their size, so a device
 * that takes the chunk size as MR page size needs one page-list entry per
 * chunk (rxe: 512 entries, 1 GiB of 2 MiB chunks); others get PAGE_SIZE.
 *
 * Return: chunks one MR may cover, 0 if not even one.
 */
u32 ordo_rdma_mr_geometry(struct ib_device *ibdev, u64 chunk, u32 *page_size)
{
	const struct ib_device_attr *a = &ibdev->attrs;

	*page_size = (a->page_size_cap & chunk) ? chunk : PAGE_SIZE;
	return a->max_fast_reg_page_list_len / (u32)(chunk / *page_size);
}

/*
 * Test facility: while non-zero, devices added are taken as needing DMA
 * syncs, as no soft-RoCE device ever does (debugfs.c); 0: off.
 */
u32 ordo_rdma_dma_unsynced;

/**
 * ordo_rdma_dma_synced - does DMA by @ibdev see the CPU's stores as made?
 * @ibdev: the device
 *
 * The pool is mapped once and written by the CPU all the time; READs must
 * see those stores without a sync per write.  That holds where mappings
 * need no sync (coherent, no bounce buffer): probed with one page.
 *
 * Return: true if the device can serve the pool as it is mapped.
 */
bool ordo_rdma_dma_synced(struct ib_device *ibdev)
{
	struct page *page;
	u64 addr;
	bool need;

	if (ib_uses_virt_dma(ibdev))
		return true;
	page = alloc_page(GFP_KERNEL);
	if (!page)
		return false;
	addr = ib_dma_map_page(ibdev, page, 0, PAGE_SIZE, DMA_TO_DEVICE);
	if (ib_dma_mapping_error(ibdev, addr)) {
		__free_page(page);
		return false;
	}
	need = dma_need_sync(ibdev->dma_device, addr);
	ib_dma_unmap_page(ibdev, addr, PAGE_SIZE, DMA_TO_DEVICE);
	__free_page(page);
	return !need;
}

static void ordo_rdma_dev_caps(struct ordo_rdma_devs *devs,
			       struct ordo_rdma_dev *dev)
{
	const struct ib_device_attr *a = &dev->ibdev->attrs;
	u32 page_size;

	dev->fast_reg = (a->device_cap_flags & IB_DEVICE_MEM_MGT_EXTENSIONS) &&
			ordo_rdma_mr_geometry(dev->ibdev,
					      devs->chunk_size,
					      &page_size);
	dev->dma_synced = !READ_ONCE(ordo_rdma_dma_unsynced) &&
			  ordo_rdma_dma_synced(dev->ibdev);
	dev->usable = dev->fast_reg && dev->dma_synced;
}

static int ordo_ib_add(struct ib_device *ibdev)
{
	struct ordo_rdma_devs *devs = ordo_ib_devs;
	struct ordo_rdma_dev *dev;

	dev = kzalloc(sizeof(*dev), GFP_KERNEL);
	if (!dev)
		return -ENOMEM;
	dev->ibdev = ibdev;
	INIT_LIST_HEAD(&dev->conns);
	mutex_init(&dev->reg_mutex);
	mutex_init(&dev->pd_mutex);
	ordo_rdma_dev_caps(devs, dev);
	spin_lock(devs->lock);
	list_add_tail(&dev->node, &devs->list);
	spin_unlock(devs->lock);
	ib_set_client_data(ibdev, &ordo_ib_client, dev);
	if (dev->usable)
		pr_info("RDMA device %s: serving\n", dev_name(&ibdev->dev));
	else if (!dev->fast_reg)
		pr_info("RDMA device %s: no fast memory registration, not serving\n",
			dev_name(&ibdev->dev));
	else
		pr_warn("RDMA device %s: its DMA needs cache syncs or bounce buffers, which one-sided reads of live memory cannot have; not serving\n",
			dev_name(&ibdev->dev));
	return 0;
}

static void ordo_ib_remove(struct ib_device *ibdev, void *client_data)
{
	struct ordo_rdma_devs *devs = ordo_ib_devs;
	struct ordo_rdma_dev *dev = client_data;

	spin_lock(devs->lock);
	dev->dying = true;
	spin_unlock(devs->lock);
	/* Also waits for connections still being set up on it. */
	devs->ops->remove(dev, devs->ctx);
	spin_lock(devs->lock);
	list_del(&dev->node);
	spin_unlock(devs->lock);
	/* Its last connection took the registrar and the PD along. */
	WARN_ON(dev->nr_conns || dev->reg || dev->pd_users);
	mutex_destroy(&dev->reg_mutex);
	mutex_destroy(&dev->pd_mutex);
	kfree(dev);
}

static struct ib_client ordo_ib_client = {
	.name	= "ordo",
	.add	= ordo_ib_add,
	.remove	= ordo_ib_remove,
};

/**
 * ordo_rdma_ib_register - serve the RDMA devices present and to come
 * @devs: the server's devices; @lock, @chunk_size and @ops set
 *
 * Return: 0 or a negative errno.
 */
int ordo_rdma_ib_register(struct ordo_rdma_devs *devs)
{
	int ret;

	ordo_ib_devs = devs;
	ret = ib_register_client(&ordo_ib_client);
	if (ret) {
		ordo_ib_devs = NULL;
		return ret;
	}
	devs->registered = true;
	return 0;
}

/* Let go of every device; each is removed as if it went away. */
void ordo_rdma_ib_unregister(struct ordo_rdma_devs *devs)
{
	if (!devs->registered)
		return;
	ib_unregister_client(&ordo_ib_client);
	devs->registered = false;
	ordo_ib_devs = NULL;
}
