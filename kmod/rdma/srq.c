// SPDX-License-Identifier: GPL-2.0
/*
 * The optional shared receive queue (SRQ) of each RDMA device, as
 * nvmet-rdma has: with srq_size set, every connection on a device takes its
 * requests from one queue of srq_size buffers instead of posting
 * queue_depth buffers of its own, so receive memory stays srq_size *
 * msg_size per device however many clients connect.
 *
 * The queue is made when a connection on a device needs it and none
 * exists (srq_size is read then), and freed with the last connection that
 * uses it.  It is in the device's protection domain (device.h), which its
 * connections share, because a queue pair and its SRQ must be in one
 * protection domain.
 *
 * Credits keep their meaning (a client has at most queue_depth requests
 * outstanding), but a request within them may find the queue empty and
 * be NAKed receiver-not-ready until another client's request frees a
 * buffer; a client exceeding its credits is disconnected (io.c), since
 * nothing else would stop it from taking every buffer.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/mutex.h>
#include <linux/slab.h>
#include <rdma/ib_verbs.h>

#include "conn.h"

#define ORDO_SRQ_MAX	65536

unsigned int ordo_rdma_srq_size;
module_param_named(srq_size, ordo_rdma_srq_size, uint, 0644);
MODULE_PARM_DESC(srq_size,
		 "Receive buffers of a shared receive queue per RDMA device (0: off, each connection posts queue_depth of its own; default 0). Read when a device's first connection is made");

/**
 * struct ordo_srq - the shared receive queue of one device
 * @node: in ordo_srqs
 * @users: connections using it
 * @dev: the device
 * @ibdev: its ib_device
 * @pd: the device's protection domain, held
 * @srq: the queue
 * @depth: buffers
 * @msg_size: bytes per buffer
 * @rx: the buffers
 */
struct ordo_srq {
	struct list_head node;
	u32 users;
	struct ordo_rdma_dev *dev;
	struct ib_device *ibdev;
	struct ib_pd *pd;
	struct ib_srq *srq;
	u32 depth;
	u32 msg_size;
	struct ordo_rdma_rx *rx;
};

static DEFINE_MUTEX(ordo_srq_mutex);
static LIST_HEAD(ordo_srqs);

static void ordo_srq_free(struct ordo_srq *s)
{
	u32 i;

	if (s->srq)
		ib_destroy_srq(s->srq);
	for (i = 0; s->rx && i < s->depth; i++) {
		if (s->rx[i].dma)
			ib_dma_unmap_single(s->ibdev, s->rx[i].dma, s->msg_size,
					    DMA_FROM_DEVICE);
		kfree(s->rx[i].buf);
	}
	kfree(s->rx);
	if (s->pd)
		ordo_rdma_dev_pd_put(s->dev);
	kfree(s);
}

static struct ordo_srq *ordo_srq_create(struct ordo_rdma_dev *dev,
					u32 depth, u32 msg_size,
					void (*done)(struct ib_cq *cq,
						     struct ib_wc *wc))
{
	struct ib_device *ibdev = dev->ibdev;
	struct ib_srq_init_attr attr = {
		.attr = { .max_wr = depth, .max_sge = 1 },
		.srq_type = IB_SRQT_BASIC,
	};
	struct ordo_srq *s;
	int ret;
	u32 i;

	s = kzalloc(sizeof(*s), GFP_KERNEL);
	if (!s)
		return ERR_PTR(-ENOMEM);
	s->dev = dev;
	s->ibdev = ibdev;
	s->depth = depth;
	s->msg_size = msg_size;
	s->pd = ordo_rdma_dev_pd_get(dev);
	if (IS_ERR(s->pd)) {
		ret = PTR_ERR(s->pd);
		s->pd = NULL;
		goto err;
	}
	s->srq = ib_create_srq(s->pd, &attr);
	if (IS_ERR(s->srq)) {
		ret = PTR_ERR(s->srq);
		s->srq = NULL;
		goto err;
	}
	ret = -ENOMEM;
	s->rx = kcalloc(depth, sizeof(*s->rx), GFP_KERNEL);
	if (!s->rx)
		goto err;
	for (i = 0; i < depth; i++) {
		struct ordo_rdma_rx *rx = &s->rx[i];

		rx->buf = kmalloc(msg_size, GFP_KERNEL);
		if (!rx->buf)
			goto err;
		rx->dma = ib_dma_map_single(ibdev, rx->buf, msg_size,
					    DMA_FROM_DEVICE);
		if (ib_dma_mapping_error(ibdev, rx->dma)) {
			rx->dma = 0;
			goto err;
		}
		ordo_rdma_rx_init(rx, s->pd, msg_size, done);
		ret = ib_post_srq_recv(s->srq, &rx->wr, NULL);
		if (ret)
			goto err;
		ret = -ENOMEM;
	}
	return s;
err:
	ordo_srq_free(s);
	return ERR_PTR(ret);
}

/**
 * ordo_srq_get - the shared receive queue a new connection on @dev uses
 * @dev: the device
 * @msg_size: bytes per buffer (msg_size, fixed while the module is loaded)
 * @done: completion handler of its receives
 *
 * Return: the queue (release it with ordo_srq_put()); NULL when
 * connections on @dev post their own receives (srq_size 0, or the
 * device has no SRQ); an ERR_PTR when the queue cannot be made.
 */
struct ordo_srq *ordo_srq_get(struct ordo_rdma_dev *dev, u32 msg_size,
			      void (*done)(struct ib_cq *cq, struct ib_wc *wc))
{
	struct ib_device *ibdev = dev->ibdev;
	u32 want = READ_ONCE(ordo_rdma_srq_size);
	struct ordo_srq *s;

	mutex_lock(&ordo_srq_mutex);
	list_for_each_entry(s, &ordo_srqs, node)
		if (s->dev == dev)
			goto found;
	s = NULL;
	if (!want)
		goto out;
	if (!ibdev->attrs.max_srq || !ibdev->attrs.max_srq_wr) {
		pr_info_once("RDMA device %s has no shared receive queue: connections post their own receives\n",
			     dev_name(&ibdev->dev));
		goto out;
	}
	/* Each connection's CQ must hold a completion per buffer, too. */
	want = min3(want, (u32)ORDO_SRQ_MAX, (u32)ibdev->attrs.max_srq_wr);
	want = min_t(u32, want, ibdev->attrs.max_cqe / 2);
	s = ordo_srq_create(dev, want, msg_size, done);
	if (IS_ERR(s))
		goto out;
	list_add(&s->node, &ordo_srqs);
	pr_info("RDMA device %s: shared receive queue of %u buffers\n",
		dev_name(&ibdev->dev), s->depth);
found:
	s->users++;
out:
	mutex_unlock(&ordo_srq_mutex);
	return s;
}

/**
 * ordo_srq_put - a connection no longer uses @s
 * @s: the queue; the connection's QP is destroyed
 */
void ordo_srq_put(struct ordo_srq *s)
{
	mutex_lock(&ordo_srq_mutex);
	if (--s->users) {
		s = NULL;
	} else {
		list_del(&s->node);
		pr_info("RDMA device %s: shared receive queue freed\n",
			dev_name(&s->ibdev->dev));
	}
	mutex_unlock(&ordo_srq_mutex);
	if (s)
		ordo_srq_free(s);
}

struct ib_srq *ordo_srq_ib(struct ordo_srq *s)
{
	return s->srq;
}

u32 ordo_srq_depth(struct ordo_srq *s)
{
	return s->depth;
}

/* Post a chain of the queue's buffers again; 0 or an errno. */
int ordo_srq_post(struct ordo_srq *s, struct ib_recv_wr *wr)
{
	return ib_post_srq_recv(s->srq, wr, NULL);
}
