// SPDX-License-Identifier: GPL-2.0
/*
 * One client connection: its queue pair, buffers, accept and teardown.
 * Its requests, replies and probes go through io.c.
 *
 * Flow control is by credits: a client may have at most queue_depth
 * requests outstanding, and each reply returns one credit because the
 * request's receive buffer is posted again before the reply is sent.
 * Without a shared receive queue, queue_depth receive buffers of the
 * connection's own are posted before the accept and a client that sends
 * more gets receiver-not-ready NAKs; with one (srq.c) buffers come from the
 * device's queue and a client that sends more is disconnected.  Either
 * way the server never allocates for a client after the accept.
 *
 * Memory registration is the device's registrar's (mr.c): the connection
 * uses its PD, and once established lends it ORDO_REG_CHAIN send slots
 * (its "port") until it closes.
 *
 * Teardown (release work, queued once by ordo_conn_close()): disconnect,
 * stop the I/O work, drain the QP (one extra send and receive slot are
 * reserved for the drain), give parked requests' buffers back, destroy QP,
 * CQ and id, then the buffers, and drop the registrar, the shared receive
 * queue and the PD.  Flushed completions (IB_WC_WR_FLUSH_ERR) are expected
 * then and ignored.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/slab.h>
#include <rdma/ib_verbs.h>
#include <rdma/rdma_cm.h>

#include <linux/module.h>
#include <linux/moduleparam.h>

#include "ordo.h"
#include "conn.h"

unsigned int ordo_rdma_msg_size = 8192;
module_param_named(msg_size, ordo_rdma_msg_size, uint, 0444);
MODULE_PARM_DESC(msg_size,
		 "Bytes of the largest RPC request or reply: a power of two, 4096..65536 (default 8192)");

/*
 * Test facility: QPs asking for more inline bytes than this are refused
 * as by a device with that limit (debugfs.c); 0: off.
 */
u32 ordo_rdma_inline_limit;

static void ordo_conn_release_work(struct work_struct *work);

static void ordo_conn_free_bufs(struct ordo_rdma_conn *c)
{
	struct ib_device *ibdev = c->cm_id->device;
	u32 i;

	/* With a shared receive queue the connection has no buffers of its own. */
	for (i = 0; c->rx && i < c->qd; i++) {
		if (c->rx[i].dma)
			ib_dma_unmap_single(ibdev, c->rx[i].dma, c->msg_size,
					    DMA_FROM_DEVICE);
		kfree(c->rx[i].buf);
	}
	for (i = 0; c->tx && i < c->nr_tx; i++) {
		if (c->tx[i].dma)
			ib_dma_unmap_single(ibdev, c->tx[i].dma, c->msg_size,
					    DMA_TO_DEVICE);
		kfree(c->tx[i].buf);
	}
	kfree(c->rx);
	kfree(c->tx);
	kfree(c->scan_keys);
	kfree(c->value);
	c->rx = NULL;
	c->tx = NULL;
}

static void *ordo_conn_buf(struct ordo_rdma_conn *c, u64 *dma,
			   enum dma_data_direction dir)
{
	struct ib_device *ibdev = c->cm_id->device;
	void *buf = kzalloc(c->msg_size, GFP_KERNEL);

	if (!buf)
		return NULL;
	*dma = ib_dma_map_single(ibdev, buf, c->msg_size, dir);
	if (ib_dma_mapping_error(ibdev, *dma)) {
		*dma = 0;
		kfree(buf);
		return NULL;
	}
	return buf;
}

static int ordo_conn_alloc_bufs(struct ordo_rdma_conn *c)
{
	u32 i;

	if (!c->srq) {
		c->rx = kcalloc(c->qd, sizeof(*c->rx), GFP_KERNEL);
		if (!c->rx)
			return -ENOMEM;
	}
	c->tx = kcalloc(c->nr_tx, sizeof(*c->tx), GFP_KERNEL);
	c->scan_keys = kmalloc(c->msg_size, GFP_KERNEL);
	c->value = kzalloc(c->set->od->tree.geo.value_size, GFP_KERNEL);
	if (!c->tx || !c->scan_keys || !c->value)
		return -ENOMEM;
	for (i = 0; c->rx && i < c->qd; i++) {
		struct ordo_rdma_rx *rx = &c->rx[i];

		rx->buf = ordo_conn_buf(c, &rx->dma, DMA_FROM_DEVICE);
		if (!rx->buf)
			return -ENOMEM;
		ordo_rdma_rx_init(rx, c->pd, c->msg_size, ordo_io_recv_done);
	}
	for (i = 0; i < c->nr_tx; i++) {
		struct ordo_rdma_tx *tx = &c->tx[i];

		tx->buf = ordo_conn_buf(c, &tx->dma, DMA_TO_DEVICE);
		if (!tx->buf)
			return -ENOMEM;
		ordo_io_tx_init(tx, c->pd);
		list_add_tail(&tx->node, &c->tx_free);
	}
	return 0;
}

static void ordo_conn_qp_event(struct ib_event *ev, void *ctx)
{
	struct ordo_rdma_conn *c = ctx;

	switch (ev->event) {
	case IB_EVENT_COMM_EST:
		/* A request arrived before the CM's RTU: tell the CM. */
		rdma_notify(c->cm_id, ev->event);
		break;
	case IB_EVENT_SQ_DRAINED:
	case IB_EVENT_PATH_MIG:
		break;
	default:
		pr_info_ratelimited("connection %u: QP event %s\n", c->id,
				    ib_event_msg(ev->event));
		ordo_conn_close(c);
		break;
	}
}

/*
 * Create the QP with as much inline room as the device grants: 6.1 does
 * not report a device's inline limit, so a refused size is halved.
 */
static int ordo_conn_create_qp_inline(struct ordo_rdma_conn *c,
				      const struct ib_qp_init_attr *want)
{
	u32 limit = READ_ONCE(ordo_rdma_inline_limit);
	struct ib_qp_init_attr attr;
	u32 inl = ORDO_RDMA_INLINE;
	int ret;

	for (;;) {
		/* The device may write back what it granted: a fresh copy. */
		attr = *want;
		attr.cap.max_inline_data = inl;
		if (limit && inl > limit)
			ret = -EINVAL;
		else
			ret = rdma_create_qp(c->cm_id, c->pd, &attr);
		if (!ret || !inl)
			break;
		inl = inl / 2 >= ORDO_RDMA_INLINE_MIN ? inl / 2 : 0;
	}
	if (ret)
		return ret;
	/* What the device granted (it may round up). */
	c->max_inline = attr.cap.max_inline_data;
	return 0;
}

static int ordo_conn_create_qp(struct ordo_rdma_conn *c)
{
	struct ib_device *ibdev = c->cm_id->device;
	struct ib_qp_init_attr attr = {};
	/*
	 * Send work requests that can be outstanding at once: the replies
	 * (sq_max, io.c), the registrar's chain (ORDO_REG_CHAIN, mr.c), a
	 * keepalive probe and ib_drain_qp()'s.  A flushed request completes
	 * even when it was not signaled, so the CQ holds one entry for each.
	 */
	u32 sq = c->sq_max + ORDO_REG_CHAIN + 1 + 1;
	/* Receives of its own and ib_drain_qp()'s; none with an SRQ. */
	u32 rq = c->srq ? 0 : c->qd + 1;
	/*
	 * Every buffer of a shared receive queue may complete on this CQ
	 * (a client sends before it can be stopped), so it must hold them.
	 */
	u32 rcqe = c->srq ? ordo_srq_depth(c->srq) : rq;
	int ret;

	c->cq_size = sq + rcqe;
	c->cq = ib_cq_pool_get(ibdev, c->cq_size, -1, IB_POLL_WORKQUEUE);
	if (IS_ERR(c->cq)) {
		ret = PTR_ERR(c->cq);
		c->cq = NULL;
		return ret;
	}
	attr.event_handler = ordo_conn_qp_event;
	attr.qp_context = c;
	attr.send_cq = c->cq;
	attr.recv_cq = c->cq;
	attr.srq = c->srq ? ordo_srq_ib(c->srq) : NULL;
	attr.sq_sig_type = IB_SIGNAL_REQ_WR;
	attr.qp_type = IB_QPT_RC;
	attr.cap.max_send_wr = sq;
	attr.cap.max_recv_wr = rq;
	attr.cap.max_send_sge = 1;
	attr.cap.max_recv_sge = 1;
	ret = ordo_conn_create_qp_inline(c, &attr);
	if (ret)
		return ret;
	c->qp = c->cm_id->qp;
	return 0;
}

/**
 * ordo_conn_create - build a connection for a connect request
 * @set: the connections of the server
 * @dev: the device of @cm_id, admitted
 * @cm_id: the new connection's id (inside its CONNECT_REQUEST handler)
 * @qd: credits granted
 *
 * Everything is allocated and every receive is posted; nothing is visible
 * to other threads yet.
 *
 * Return: the connection or an ERR_PTR.
 */
struct ordo_rdma_conn *ordo_conn_create(struct ordo_conn_set *set,
					struct ordo_rdma_dev *dev,
					struct rdma_cm_id *cm_id, u32 qd)
{
	const struct ib_device_attr *a = &cm_id->device->attrs;
	struct ordo_rdma_conn *c;
	int ret;
	u32 i;

	c = kzalloc(sizeof(*c), GFP_KERNEL);
	if (!c)
		return ERR_PTR(-ENOMEM);
	ordo_conn_kobj_init(c);
	c->set = set;
	c->dev = dev;
	c->cm_id = cm_id;
	/* Keep within what the device offers for the send queue. */
	c->qd = min_t(u32, qd, a->max_qp_wr - ORDO_REG_CHAIN - 2);
	/* A reply buffer per credit: a request that finds none is parked. */
	c->nr_tx = c->qd;
	c->sq_max = c->nr_tx;
	c->msg_size = ordo_rdma_msg_size;
	c->state = ORDO_CONN_CONNECTING;
	spin_lock_init(&c->lock);
	INIT_LIST_HEAD(&c->set_node);
	INIT_LIST_HEAD(&c->dev_node);
	ordo_io_init(c);
	INIT_WORK(&c->release_work, ordo_conn_release_work);
	memcpy(&c->peer, &cm_id->route.addr.dst_addr, sizeof(c->peer));
	spin_lock(set->lock);
	c->id = ++set->next_id;
	spin_unlock(set->lock);

	c->pd = ordo_rdma_dev_pd_get(dev);
	if (IS_ERR(c->pd)) {
		ret = PTR_ERR(c->pd);
		c->pd = NULL;
		goto err;
	}
	c->reg = ordo_reg_get(dev, set->od, set->server_id);
	if (IS_ERR(c->reg)) {
		ret = PTR_ERR(c->reg);
		c->reg = NULL;
		goto err;
	}
	c->srq = ordo_srq_get(dev, c->msg_size, ordo_io_recv_done);
	if (IS_ERR(c->srq)) {
		ret = PTR_ERR(c->srq);
		c->srq = NULL;
		goto err;
	}
	ret = ordo_conn_alloc_bufs(c);
	if (ret)
		goto err;
	ret = ordo_conn_create_qp(c);
	if (ret)
		goto err;
	for (i = 0; c->rx && i < c->qd; i++) {
		ret = ordo_io_post_recv(c, &c->rx[i]);
		if (ret)
			goto err;
	}
	/* A client that sends more than its credits waits 1.28 ms, not 655. */
	rdma_set_min_rnr_timer(cm_id, IB_RNR_TIMER_001_28);
	cm_id->context = c;
	return c;
err:
	ordo_conn_destroy_unlisted(c);
	return ERR_PTR(ret);
}

/*
 * Stop the I/O work and the QP; every completion has run afterwards, and
 * parked requests' buffers are given back.
 */
static void ordo_conn_quiesce(struct ordo_rdma_conn *c)
{
	cancel_work_sync(&c->io_work);
	if (c->qp)
		ib_drain_qp(c->qp);
	ordo_io_return_rx(c);
}

static void ordo_conn_free(struct ordo_rdma_conn *c)
{
	if (c->qp) {
		rdma_destroy_qp(c->cm_id);
		c->qp = NULL;
	}
	if (c->cq)
		ib_cq_pool_put(c->cq, c->cq_size);
	c->cq = NULL;
	/* The I/O work is stopped: a half-uploaded value goes back now. */
	ordo_rpc_release(c);
	ordo_conn_free_bufs(c);
	/* The device's last connection deregisters. */
	if (c->reg)
		ordo_reg_put(c->reg);
	c->reg = NULL;
	/* After its QP: the queue may go with its last connection. */
	if (c->srq)
		ordo_srq_put(c->srq);
	c->srq = NULL;
	/* The last user of the device's PD, of all these, frees it. */
	if (c->pd)
		ordo_rdma_dev_pd_put(c->dev);
	c->pd = NULL;
}

/**
 * ordo_conn_destroy_unlisted - undo ordo_conn_create()
 * @c: a connection never published; its id stays to the CM to destroy
 */
void ordo_conn_destroy_unlisted(struct ordo_rdma_conn *c)
{
	spin_lock_bh(&c->lock);
	c->state = ORDO_CONN_CLOSING;
	spin_unlock_bh(&c->lock);
	ordo_conn_quiesce(c);
	ordo_conn_free(c);
	c->cm_id->context = NULL;
	ordo_conn_put(c);
}

static int ordo_conn_cm_handler(struct rdma_cm_id *id, struct rdma_cm_event *ev)
{
	struct ordo_rdma_conn *c = id->context;

	switch (ev->event) {
	case RDMA_CM_EVENT_ESTABLISHED:
		spin_lock_bh(&c->lock);
		if (c->state == ORDO_CONN_CONNECTING) {
			ordo_io_established(c);
			/*
			 * The QP can post now (on iWARP not before); under the
			 * lock, so a close either comes after or sees it added.
			 */
			ordo_reg_port_add(c->reg, &c->port, c->qp);
		}
		spin_unlock_bh(&c->lock);
		break;
	case RDMA_CM_EVENT_DISCONNECTED:
	case RDMA_CM_EVENT_TIMEWAIT_EXIT:
	case RDMA_CM_EVENT_CONNECT_ERROR:
	case RDMA_CM_EVENT_UNREACHABLE:
	case RDMA_CM_EVENT_REJECTED:
	case RDMA_CM_EVENT_ADDR_CHANGE:
	case RDMA_CM_EVENT_DEVICE_REMOVAL:
		ordo_conn_close(c);
		break;
	default:
		break;
	}
	/* Never destroy a connection's id here: its release work does. */
	return 0;
}

/**
 * ordo_conn_accept - accept the connect request, from its handler
 * @c: a connection built by ordo_conn_create()
 * @ev: the CONNECT_REQUEST event
 * @token: the request's token was checked (a token is required)
 *
 * Return: 0 or the error of rdma_accept().
 */
int ordo_conn_accept(struct ordo_rdma_conn *c, struct rdma_cm_event *ev,
		     bool token)
{
	const struct ib_device_attr *a = &c->cm_id->device->attrs;
	const struct ordo_tree *t = &c->set->od->tree;
	struct ordo_wire_conn_rep rep = {
		.magic = cpu_to_le32(ORDO_WIRE_MAGIC),
		.version = cpu_to_le16(ORDO_WIRE_VERSION),
		.queue_depth = cpu_to_le16(c->qd),
		.max_msg = cpu_to_le32(c->msg_size),
		.flags = cpu_to_le32(token ? ORDO_WIRE_CONN_F_TOKEN : 0),
		.server_id = cpu_to_le64(c->set->server_id),
		.chunk_size = cpu_to_le64(t->pool.chunk_size),
		.node_size = cpu_to_le32(t->geo.node_size),
		.value_size = cpu_to_le32(t->geo.value_size),
		.leaf_slots = cpu_to_le32(t->geo.leaf_slots),
		.inner_fanout = cpu_to_le32(t->geo.inner_fanout),
		.nodes_per_chunk = cpu_to_le32(t->pool.nodes_per_chunk),
		.max_chunks = cpu_to_le32(t->pool.max_chunks),
		.nr_chunks = cpu_to_le32(ordo_pool_nr_chunks(&t->pool)),
		.conn_id = cpu_to_le32(c->id),
		.batch_max = cpu_to_le32(ORDO_WIRE_BATCH_MAX),
		.value_max = cpu_to_le32(ordo_tree_value_max(t)),
	};
	struct rdma_conn_param param = {
		.private_data = &rep,
		.private_data_len = sizeof(rep),
		/*
		 * The client's RDMA READs in flight (its initiator depth; the
		 * CM already swapped the REQ's fields to our point of view).
		 */
		.responder_resources = min3((u32)ev->param.conn.responder_resources,
					    (u32)a->max_qp_rd_atom, (u32)U8_MAX),
		/* The server itself never reads remotely. */
		.initiator_depth = 0,
		/* The client's sends wait for our receives (credits). */
		.rnr_retry_count = 7,
		.flow_control = 1,
	};

	c->cm_id->event_handler = ordo_conn_cm_handler;
	return rdma_accept(c->cm_id, &param);
}

/**
 * ordo_conn_publish - make an accepted connection visible
 * @c: the connection, accepted (inside its CONNECT_REQUEST handler)
 *
 * From now on ordo_conn_close() queues its teardown.  A close that came
 * earlier (a failed completion, device removal, module unload) is carried
 * out now.
 */
void ordo_conn_publish(struct ordo_rdma_conn *c)
{
	struct ordo_conn_set *set = c->set;
	bool dying, closing;

	ordo_conn_sysfs_add(c);
	spin_lock(set->lock);
	list_add_tail(&c->set_node, &set->list);
	list_add_tail(&c->dev_node, &c->dev->conns);
	dying = set->stopping || c->dev->dying;
	spin_unlock(set->lock);

	spin_lock_bh(&c->lock);
	c->listed = true;
	closing = c->state == ORDO_CONN_CLOSING;
	if (closing)
		queue_work(set->wq, &c->release_work);
	spin_unlock_bh(&c->lock);
	if (dying)
		ordo_conn_close(c);
}

/**
 * ordo_conn_close - start tearing a connection down; idempotent
 * @c: the connection
 *
 * Safe from completion handlers, CM handlers and under the server's lock.
 */
void ordo_conn_close(struct ordo_rdma_conn *c)
{
	bool first;

	spin_lock_bh(&c->lock);
	first = c->state != ORDO_CONN_CLOSING;
	c->state = ORDO_CONN_CLOSING;
	if (first && c->listed)
		queue_work(c->set->wq, &c->release_work);
	/* No more registrations on a QP about to fail. */
	if (first)
		ordo_reg_port_del(&c->port);
	spin_unlock_bh(&c->lock);
}

static void ordo_conn_release_work(struct work_struct *work)
{
	struct ordo_rdma_conn *c = container_of(work, struct ordo_rdma_conn,
						release_work);
	struct ordo_conn_set *set = c->set;

	/* Moves the QP to the error state: no more remote access. */
	rdma_disconnect(c->cm_id);
	ordo_conn_quiesce(c);
	ordo_conn_free(c);
	/* No CM event may run after this; then the id is ours to free. */
	rdma_destroy_id(c->cm_id);
	ordo_conn_sysfs_del(c);

	spin_lock(set->lock);
	list_del(&c->set_node);
	list_del(&c->dev_node);
	set->nr--;
	c->dev->nr_conns--;
	set->ops->released(c, set->ctx);
	spin_unlock(set->lock);
	wake_up_all(&set->wait);
	ordo_conn_put(c);
}

/**
 * ordo_conns_close - close connections and wait until they are released
 * @set: the connections of the server
 * @dev: only those on this device (also those still being set up on
 *	it), or NULL: all (@set->stopping set, so none is admitted any more)
 */
void ordo_conns_close(struct ordo_conn_set *set, struct ordo_rdma_dev *dev)
{
	struct ordo_rdma_conn *c;
	u32 n = 0;

	spin_lock(set->lock);
	if (dev) {
		list_for_each_entry(c, &dev->conns, dev_node) {
			ordo_conn_close(c);
			n++;
		}
	} else {
		list_for_each_entry(c, &set->list, set_node)
			ordo_conn_close(c);
	}
	spin_unlock(set->lock);
	if (n)
		pr_info("RDMA device %s removed: closing %u connection(s)\n",
			dev_name(&dev->ibdev->dev), n);
	if (dev)
		wait_event(set->wait, !READ_ONCE(dev->nr_conns));
	else
		wait_event(set->wait, !READ_ONCE(set->nr));
}
