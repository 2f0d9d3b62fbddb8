// SPDX-License-Identifier: GPL-2.0
/*
 * The request path of one connection: completions, execution, replies and
 * keepalive probes.  Nothing here ever waits for a client.
 *
 * Completion handlers (IB_POLL_WORKQUEUE) only queue received requests and
 * free reply buffers.  The connection's I/O work, queued on the CPU whose
 * completion made work for it (the set's io_wq is per-CPU, high priority:
 * the pool the CQ's own work runs in), executes the ready requests in
 * arrival order, each into a free reply buffer, and posts the batch with two
 * doorbells: every request's receive buffer again (its credit returns),
 * then every reply, chained, with only the last one signaled.  When no
 * reply buffer or send-queue room is free, a request stays parked in
 * rx_ready and the work returns; the send completion that frees room
 * queues the work again.  A client that takes no replies thus holds its
 * own buffers and nothing else: no worker sleeps for it.
 *
 * Replies of up to max_inline bytes are sent inline: the device copies
 * them into the work request when it is posted, so their buffer is free
 * as soon as the post returns -- unless the reply is the signaled one of
 * its post, whose buffer stays busy until its completion.
 *
 * Send-queue accounting.  Replies posted on the send queue are counted in
 * sq_posted, under c->lock and with the post itself, so counts follow
 * queue order.  Completions of one send queue come in order and a
 * signaled one stands for every request before it, so a signaled
 * completion carrying count n sets sq_done to n.  Room for replies:
 * sq_max - (sq_posted - sq_done).  The keepalive probe and ib_drain_qp()
 * have one slot each of their own, and the device's registrar (mr.c)
 * ORDO_REG_CHAIN slots that it accounts for itself: replies never wait
 * for a registration, which is the registrar's job, once per device.
 * Replies and probes are posted through the registrar's port
 * (ordo_reg_port_post()), which tells it when the queue has none of ours
 * left (ordo_reg_port_idle()): it posts only on an empty queue.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/jiffies.h>
#include <rdma/ib_verbs.h>

#include "conn.h"

/* Replies built by one run of the I/O work, posted together. */
struct ordo_io_batch {
	struct ib_recv_wr *rx_head;
	struct ib_recv_wr **rx_tail;
	struct ib_send_wr *sq_head;
	struct ib_send_wr **sq_tail;
	struct ordo_rdma_tx *tx[ORDO_RDMA_IO_BUDGET];
	u32 ntx;
};

static void ordo_io_batch_init(struct ordo_io_batch *b)
{
	b->rx_head = NULL;
	b->rx_tail = &b->rx_head;
	b->sq_head = NULL;
	b->sq_tail = &b->sq_head;
	b->ntx = 0;
}

/* Send-queue slots left for replies; c->lock held. */
static u32 ordo_io_sq_room(struct ordo_rdma_conn *c)
{
	return c->sq_max - (c->sq_posted - c->sq_done);
}

/*
 * A signaled send completion carrying count @seq arrived: every request
 * posted up to it is done, and so are the reply buffers it covers.
 * Returns true when a connection hanging up has no reply left in flight:
 * the caller closes it.
 */
static bool ordo_io_sq_complete(struct ordo_rdma_conn *c, u32 seq)
{
	struct ordo_rdma_tx *tx, *next;

	lockdep_assert_held(&c->lock);
	if ((s32)(seq - c->sq_done) > 0)
		c->sq_done = seq;
	list_for_each_entry_safe(tx, next, &c->tx_busy, node) {
		if ((s32)(tx->seq - c->sq_done) > 0)
			break;
		list_move(&tx->node, &c->tx_free);
	}
	/* Nothing of ours in the send queue: the registrar may post. */
	if (c->sq_done == c->sq_posted && !c->probing)
		ordo_reg_port_idle(&c->port);
	return c->state == ORDO_CONN_HANGUP && c->sq_done == c->sq_posted;
}

/*
 * A request that cannot be answered arrived (shorter than a header): no
 * request is executed any more, and the connection closes once the replies
 * posted before it are delivered.  Closing at once would move the queue
 * pair to the error state and flush replies the device has not sent yet.
 * A client that never acknowledges them makes them fail (transport retries
 * run out) or is found by the keepalive; either closes it.
 */
static void ordo_io_hang_up(struct ordo_rdma_conn *c)
{
	bool now;

	spin_lock_bh(&c->lock);
	if (c->state == ORDO_CONN_LIVE)
		c->state = ORDO_CONN_HANGUP;
	now = c->sq_done == c->sq_posted;
	spin_unlock_bh(&c->lock);
	if (now)
		ordo_conn_close(c);
}

/* Queue the I/O work if requests wait and may run; c->lock held. */
static void ordo_io_queue(struct ordo_rdma_conn *c)
{
	lockdep_assert_held(&c->lock);
	if (c->state == ORDO_CONN_LIVE && !list_empty(&c->rx_ready))
		queue_work(c->set->io_wq, &c->io_work);
}

/* Make @rx ready to be posted again (alone). */
static void ordo_io_rx_prepare(struct ordo_rdma_conn *c,
			       struct ordo_rdma_rx *rx)
{
	rx->wr.next = NULL;
	ib_dma_sync_single_for_device(c->cm_id->device, rx->dma, rx->sge.length,
				      DMA_FROM_DEVICE);
}

/*
 * A request buffer that will not be executed: a shared receive queue gets
 * it back now; a connection's own buffers wait for its release.
 */
static void ordo_io_rx_recycle(struct ordo_rdma_conn *c,
			       struct ordo_rdma_rx *rx)
{
	if (!c->srq)
		return;
	ordo_io_rx_prepare(c, rx);
	if (ordo_srq_post(c->srq, &rx->wr))
		pr_warn_ratelimited("cannot give a receive buffer back to the shared queue\n");
}

/**
 * ordo_io_recv_done - completion of a receive: one request
 * @cq: the connection's CQ
 * @wc: the completion; its QP names the connection
 */
void ordo_io_recv_done(struct ib_cq *cq, struct ib_wc *wc)
{
	struct ordo_rdma_rx *rx = container_of(wc->wr_cqe, struct ordo_rdma_rx,
					       cqe);
	struct ordo_rdma_conn *c = wc->qp->qp_context;
	bool over;

	if (unlikely(wc->status != IB_WC_SUCCESS || wc->opcode != IB_WC_RECV)) {
		if (wc->status == IB_WC_SUCCESS)
			pr_info_ratelimited("connection %u: unexpected receive opcode %d\n",
					    c->id, wc->opcode);
		else if (wc->status != IB_WC_WR_FLUSH_ERR)
			pr_info_ratelimited("connection %u: receive failed: %s\n",
					    c->id, ib_wc_status_msg(wc->status));
		ordo_io_rx_recycle(c, rx);
		ordo_conn_close(c);
		return;
	}
	/*
	 * A SEND with Invalidate: the device has invalidated the key it
	 * named, if that was one of the shared MRs, for every client.  Get
	 * it registered again, and drop a client that breaks the protocol.
	 */
	if (unlikely(wc->wc_flags & IB_WC_WITH_INVALIDATE)) {
		pr_info_ratelimited("connection %u: a send with invalidate (key %#x), disconnecting\n",
				    c->id, wc->ex.invalidate_rkey);
		if (c->reg)
			ordo_reg_invalidated(c->reg, wc->ex.invalidate_rkey);
		ordo_io_rx_recycle(c, rx);
		ordo_conn_close(c);
		return;
	}
	rx->len = wc->byte_len;
	spin_lock_bh(&c->lock);
	/*
	 * Nothing more is executed; nor does it count as heard from, so a
	 * client that keeps sending after its hang-up is still closed when
	 * keepalive_timeout passes.
	 */
	if (c->state == ORDO_CONN_CLOSING || c->state == ORDO_CONN_HANGUP) {
		spin_unlock_bh(&c->lock);
		ordo_io_rx_recycle(c, rx);
		return;
	}
	WRITE_ONCE(c->last_heard, jiffies);
	list_add_tail(&rx->node, &c->rx_ready);
	over = ++c->outstanding > c->qd;
	/* Requests that beat ESTABLISHED wait for it. */
	if (!over)
		ordo_io_queue(c);
	spin_unlock_bh(&c->lock);
	if (over) {
		/* Only a shared receive queue lets a client get this far. */
		pr_info_ratelimited("connection %u: more than %u requests outstanding, disconnecting\n",
				    c->id, c->qd);
		ordo_conn_close(c);
	}
}

static void ordo_io_send_done(struct ib_cq *cq, struct ib_wc *wc)
{
	struct ordo_rdma_tx *tx = container_of(wc->wr_cqe, struct ordo_rdma_tx,
					       cqe);
	struct ordo_rdma_conn *c = wc->qp->qp_context;
	bool close;

	if (unlikely(wc->status != IB_WC_SUCCESS)) {
		if (wc->status != IB_WC_WR_FLUSH_ERR)
			pr_info_ratelimited("connection %u: send failed: %s\n",
					    c->id, ib_wc_status_msg(wc->status));
		ordo_conn_close(c);
		return;
	}
	/* The client's side acknowledged the reply. */
	WRITE_ONCE(c->last_heard, jiffies);
	spin_lock_bh(&c->lock);
	close = ordo_io_sq_complete(c, tx->seq);
	/* Parked requests go on. */
	ordo_io_queue(c);
	spin_unlock_bh(&c->lock);
	if (close)
		ordo_conn_close(c);
}

static void ordo_io_probe_done(struct ib_cq *cq, struct ib_wc *wc)
{
	struct ordo_rdma_conn *c = container_of(wc->wr_cqe,
						struct ordo_rdma_conn,
						probe_cqe);
	bool close;

	if (unlikely(wc->status != IB_WC_SUCCESS)) {
		if (wc->status != IB_WC_WR_FLUSH_ERR)
			pr_info_ratelimited("connection %u: keepalive probe failed: %s\n",
					    c->id, ib_wc_status_msg(wc->status));
		ordo_conn_close(c);
		return;
	}
	WRITE_ONCE(c->last_heard, jiffies);
	spin_lock_bh(&c->lock);
	c->probing = false;
	close = ordo_io_sq_complete(c, c->probe_seq);
	ordo_io_queue(c);
	spin_unlock_bh(&c->lock);
	if (close)
		ordo_conn_close(c);
}

/* Add to the connection's send statistics (under c->lock). */
static void ordo_io_count_post(struct ordo_rdma_conn *c, int posts,
			       int signaled, int inlined)
{
	WRITE_ONCE(c->send_posts, c->send_posts + posts);
	WRITE_ONCE(c->signaled_replies, c->signaled_replies + signaled);
	WRITE_ONCE(c->inline_replies, c->inline_replies + inlined);
}

/*
 * Post the batch: receives first (each request's credit returns before
 * its reply can reach the client), then the replies in one chain whose
 * last request alone is signaled.
 */
static int ordo_io_flush(struct ordo_rdma_conn *c, struct ordo_io_batch *b)
{
	struct ordo_rdma_tx *last;
	u32 i, ninline = 0, nsignaled = 0;
	int ret = 0;

	if (b->rx_head) {
		ret = c->srq ? ordo_srq_post(c->srq, b->rx_head) :
		      ib_post_recv(c->qp, b->rx_head, NULL);
		if (ret)
			pr_warn_ratelimited("connection %u: cannot post receives: %d\n",
					    c->id, ret);
		else
			WRITE_ONCE(c->recv_posts, c->recv_posts + 1);
	}
	if (!ret && b->ntx) {
		last = b->tx[b->ntx - 1];
		last->wr.send_flags |= IB_SEND_SIGNALED;
		spin_lock_bh(&c->lock);
		c->sq_posted += b->ntx;
		c->outstanding -= b->ntx;
		for (i = 0; i < b->ntx; i++) {
			struct ordo_rdma_tx *tx = b->tx[i];

			tx->seq = c->sq_posted;
			if (tx->wr.send_flags & IB_SEND_INLINE)
				ninline++;
			if (tx->wr.send_flags & IB_SEND_SIGNALED)
				nsignaled++;
			/* Copied at the post, which nothing can overtake. */
			if (tx != last && (tx->wr.send_flags & IB_SEND_INLINE))
				list_add(&tx->node, &c->tx_free);
			else
				list_add_tail(&tx->node, &c->tx_busy);
		}
		/*
		 * Counted before the post: a client that has a reply in hand
		 * reads counters that include it (a failed post takes its
		 * counts back).
		 */
		ordo_io_count_post(c, 1, nsignaled, ninline);
		ret = ordo_reg_port_post(&c->port, c->qp, b->sq_head);
		if (ret)
			ordo_io_count_post(c, -1, -(int)nsignaled,
					   -(int)ninline);
		spin_unlock_bh(&c->lock);
		if (ret)
			pr_warn_ratelimited("connection %u: cannot post replies: %d\n",
					    c->id, ret);
	}
	ordo_io_batch_init(b);
	return ret;
}

/* Execute @rx into @tx and add both to the batch. */
static int ordo_io_exec(struct ordo_rdma_conn *c, struct ordo_rdma_rx *rx,
			struct ordo_rdma_tx *tx, struct ordo_io_batch *b)
{
	struct ib_device *ibdev = c->cm_id->device;
	int len;

	ib_dma_sync_single_for_cpu(ibdev, rx->dma, rx->len, DMA_FROM_DEVICE);
	len = ordo_rpc_handle(c, rx->buf, rx->len, tx->buf);
	if (len < 0) {
		pr_info_ratelimited("connection %u: garbled request (%u bytes), disconnecting\n",
				    c->id, rx->len);
		ordo_io_rx_recycle(c, rx);
		return -EPROTO;
	}
	/* The request is consumed: its buffer takes the next one. */
	ordo_io_rx_prepare(c, rx);
	*b->rx_tail = &rx->wr;
	b->rx_tail = &rx->wr.next;

	tx->wr.next = NULL;
	tx->sge.length = len;
	if (len <= c->max_inline) {
		/* The device copies from this address while posting. */
		tx->sge.addr = (uintptr_t)tx->buf;
		tx->wr.send_flags = IB_SEND_INLINE;
	} else {
		tx->sge.addr = tx->dma;
		tx->wr.send_flags = 0;
		ib_dma_sync_single_for_device(ibdev, tx->dma, len,
					      DMA_TO_DEVICE);
	}
	*b->sq_tail = &tx->wr;
	b->sq_tail = &tx->wr.next;
	b->tx[b->ntx++] = tx;
	return 0;
}

static void ordo_io_work(struct work_struct *work)
{
	struct ordo_rdma_conn *c = container_of(work, struct ordo_rdma_conn,
						io_work);
	struct ordo_io_batch b;
	u32 budget = ORDO_RDMA_IO_BUDGET;
	int ret = 0;

	ordo_io_batch_init(&b);
	while (budget && !ret) {
		struct ordo_rdma_rx *rx;
		struct ordo_rdma_tx *tx;

		spin_lock_bh(&c->lock);
		if (c->state != ORDO_CONN_LIVE || list_empty(&c->rx_ready)) {
			spin_unlock_bh(&c->lock);
			break;
		}
		/* Room for this reply behind those of the batch. */
		if (list_empty(&c->tx_free) ||
		    ordo_io_sq_room(c) < b.ntx + 1) {
			/* Parked: the completion that frees room resumes. */
			WRITE_ONCE(c->parked, c->parked + 1);
			spin_unlock_bh(&c->lock);
			break;
		}
		rx = list_first_entry(&c->rx_ready, struct ordo_rdma_rx, node);
		list_del(&rx->node);
		tx = list_first_entry(&c->tx_free, struct ordo_rdma_tx, node);
		list_del(&tx->node);
		spin_unlock_bh(&c->lock);
		budget--;
		ret = ordo_io_exec(c, rx, tx, &b);
	}
	/* Replies built before a garbled request still go out, in order. */
	if (ordo_io_flush(c, &b)) {
		ordo_conn_close(c);
		return;
	}
	if (ret) {
		ordo_io_hang_up(c);
		return;
	}
	if (!budget) {
		/* Let other connections of this CPU run; come back for more. */
		spin_lock_bh(&c->lock);
		ordo_io_queue(c);
		spin_unlock_bh(&c->lock);
	}
}

/**
 * ordo_io_established - the CM reported the connection established
 * @c: the connection, still connecting; c->lock held
 *
 * Requests that arrived before (a client may send as soon as its side is
 * connected) run from now on.
 */
void ordo_io_established(struct ordo_rdma_conn *c)
{
	lockdep_assert_held(&c->lock);
	c->state = ORDO_CONN_LIVE;
	WRITE_ONCE(c->last_heard, jiffies);
	ordo_io_queue(c);
}

/**
 * ordo_io_keepalive - probe a quiet connection, or find it gone
 * @c: the connection, the server's lock held
 * @now: jiffies
 * @timeout: keepalive_timeout in jiffies, not 0
 *
 * A live connection silent for a third of @timeout gets a probe: a
 * zero-length RDMA WRITE, which touches no memory and needs no key, that
 * the client's side acknowledges without its software taking part.  A
 * connection is gone when it has been silent for @timeout and a probe has
 * been unanswered for a third of it (so a late scan never condemns one
 * without a fair chance to answer); one still connecting, or hanging up
 * with replies undelivered, when it has been silent for @timeout.
 *
 * Return: true if @c is gone; the caller closes it.
 */
bool ordo_io_keepalive(struct ordo_rdma_conn *c, unsigned long now,
		       unsigned long timeout)
{
	struct ib_rdma_wr wr = {
		.wr = {
			.wr_cqe = &c->probe_cqe,
			.opcode = IB_WR_RDMA_WRITE,
			.send_flags = IB_SEND_SIGNALED,
		},
	};
	unsigned long last = READ_ONCE(c->last_heard);
	bool gone = false;

	spin_lock_bh(&c->lock);
	switch (c->state) {
	case ORDO_CONN_CONNECTING:
	case ORDO_CONN_HANGUP:
		gone = time_after_eq(now, last + timeout);
		break;
	case ORDO_CONN_LIVE:
		if (c->probing) {
			gone = time_after_eq(now, last + timeout) &&
			       time_after_eq(now, c->probe_at + timeout / 3);
			break;
		}
		if (time_before(now, last + timeout / 3))
			break;
		c->probe_seq = c->sq_posted;
		c->probe_at = now;
		if (ordo_reg_port_post(&c->port, c->qp, &wr.wr)) {
			gone = true;
			break;
		}
		c->probing = true;
		WRITE_ONCE(c->probes, c->probes + 1);
		atomic64_inc(&c->set->probes);
		break;
	case ORDO_CONN_CLOSING:
		break;
	}
	spin_unlock_bh(&c->lock);
	return gone;
}

/**
 * ordo_io_init - set up the request path of a new connection
 * @c: the connection, not yet visible to anyone
 */
void ordo_io_init(struct ordo_rdma_conn *c)
{
	INIT_LIST_HEAD(&c->rx_ready);
	INIT_LIST_HEAD(&c->tx_free);
	INIT_LIST_HEAD(&c->tx_busy);
	INIT_WORK(&c->io_work, ordo_io_work);
	c->probe_cqe.done = ordo_io_probe_done;
	ordo_reg_port_init(&c->port);
	c->last_heard = jiffies;
}

/**
 * ordo_io_tx_init - set up a reply buffer, mapped at @tx->dma
 * @tx: the buffer
 * @pd: the connection's protection domain
 */
void ordo_io_tx_init(struct ordo_rdma_tx *tx, struct ib_pd *pd)
{
	tx->cqe.done = ordo_io_send_done;
	tx->sge.lkey = pd->local_dma_lkey;
	tx->wr.wr_cqe = &tx->cqe;
	tx->wr.opcode = IB_WR_SEND;
	tx->wr.sg_list = &tx->sge;
	tx->wr.num_sge = 1;
}

/**
 * ordo_io_post_recv - post one of the connection's own receive buffers
 * @c: the connection
 * @rx: the buffer
 *
 * Return: 0 or the error of ib_post_recv().
 */
int ordo_io_post_recv(struct ordo_rdma_conn *c, struct ordo_rdma_rx *rx)
{
	ordo_io_rx_prepare(c, rx);
	return ib_post_recv(c->qp, &rx->wr, NULL);
}

/**
 * ordo_io_return_rx - give parked requests' buffers back
 * @c: the connection, its I/O work stopped and its QP drained
 *
 * Buffers of a shared receive queue go back to it; a connection's own are
 * freed with it.
 */
void ordo_io_return_rx(struct ordo_rdma_conn *c)
{
	struct ordo_rdma_rx *rx, *next;

	list_for_each_entry_safe(rx, next, &c->rx_ready, node) {
		list_del(&rx->node);
		ordo_io_rx_recycle(c, rx);
	}
}
