/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kmod/rdma/, layer 3 of 5: one client connection -- its QP, buffers,
 * accept and teardown (conn.c), its request path: completions, execution,
 * replies and keepalive probes (io.c, rpc.c), the scan for silent
 * connections (keepalive.c), the optional shared receive queue of each
 * device (srq.c) and its sysfs directory (conn_sysfs.c).  Uses mr.h and
 * device.h; layers and locking: device.h.  A connection's c->lock
 * protects its state, its ready-request and reply lists, its send-queue
 * accounting and its probe, and is held across every post of a reply or
 * probe to its send queue so that those posts are numbered in queue order.
 */
#ifndef ORDO_RDMA_CONN_H
#define ORDO_RDMA_CONN_H

#include <linux/atomic.h>
#include <linux/in6.h>
#include <linux/kobject.h>
#include <linux/list.h>
#include <linux/percpu.h>
#include <linux/socket.h>
#include <linux/spinlock.h>
#include <linux/types.h>
#include <linux/wait.h>
#include <linux/workqueue.h>
#include <rdma/ib_verbs.h>
#include <rdma/rdma_cm.h>
#include <linux/ordo_wire.h>

#include "device.h"
#include "extent.h"
#include "mr.h"

struct ordo_dev;
struct ordo_rdma_conn;

/* Requests one run of a connection's I/O work executes before yielding. */
#define ORDO_RDMA_IO_BUDGET	16
/*
 * Bytes of reply the QP is asked to send inline (the device may give
 * more); a device that refuses is asked for half as much, down to
 * ORDO_RDMA_INLINE_MIN (a reply's header and an 8-byte value), then none.
 */
#define ORDO_RDMA_INLINE	256
#define ORDO_RDMA_INLINE_MIN	32

extern unsigned int ordo_rdma_msg_size;
/* Test facility (debugfs qp_inline_limit): refuse asks above it; 0: off. */
extern u32 ordo_rdma_inline_limit;
extern unsigned int ordo_rdma_keepalive;
extern unsigned int ordo_rdma_srq_size;

/* Per-CPU counters of the server; summed when sysfs reads them. */
struct ordo_rdma_stats {
	u64 rpcs[ORDO_WIRE_OP_MAX + 1];	/* [0]: unknown op codes */
	u64 rpc_errors;
	u64 bytes_in;
	u64 bytes_out;
};

/**
 * struct ordo_conn_ops - what the layers above do for connections
 * @released: @c is gone (its QP, buffers and id freed); called with the
 *	server's lock held, to take it off their counts.
 */
struct ordo_conn_ops {
	void (*released)(struct ordo_rdma_conn *c, void *ctx);
};

/**
 * struct ordo_conn_set - what the connections of the server share
 * @lock: the server's lock (device.h): @list, @nr, @next_id, @stopping
 * @od: the store
 * @server_id: the server's id, random per load
 * @wq: runs release and keepalive work
 * @io_wq: runs the connections' I/O work on the CPU that queued it (the
 *	CPU of the completion): per CPU, high priority
 * @stats: per-CPU counters
 * @kobj: rdma/connections/ in sysfs, the parent of each connection's
 * @list: struct ordo_rdma_conn list (published connections)
 * @nr: admitted connections, listed or not yet
 * @next_id: number of the last connection
 * @stopping: module unload: admit nothing, close whatever is published
 * @wait: woken when a connection is released
 * @keepalive_work: probes idle connections, closes silent ones
 * @probes: keepalive probes sent
 * @keepalive_closed: connections closed because nothing was heard from
 *	them for keepalive_timeout
 * @ops: callbacks of the layers above
 * @ctx: passed to @ops
 */
struct ordo_conn_set {
	spinlock_t *lock;	/* the server's, see device.h */
	struct ordo_dev *od;
	u64 server_id;
	struct workqueue_struct *wq;
	struct workqueue_struct *io_wq;
	struct ordo_rdma_stats __percpu *stats;
	struct kobject *kobj;
	struct list_head list;
	u32 nr;
	u32 next_id;
	bool stopping;
	wait_queue_head_t wait;
	struct delayed_work keepalive_work;
	atomic64_t probes;
	atomic64_t keepalive_closed;
	const struct ordo_conn_ops *ops;
	void *ctx;
};

enum ordo_conn_state {
	ORDO_CONN_CONNECTING,	/* accepted, waiting for ESTABLISHED */
	ORDO_CONN_LIVE,		/* requests are executed */
	ORDO_CONN_HANGUP,	/* a request cannot be answered: replies
				 * posted before it are delivered, then it
				 * closes
				 */
	ORDO_CONN_CLOSING,	/* teardown queued or running */
};

/*
 * A receive buffer: one request.  It belongs to a connection's receive
 * queue or to a device's shared receive queue (srq.c); its completion
 * names the connection by its QP.
 */
struct ordo_rdma_rx {
	struct ib_cqe cqe;
	struct list_head node;
	struct ib_recv_wr wr;
	struct ib_sge sge;
	void *buf;
	u64 dma;
	u32 len;
};

/*
 * A send buffer: one reply.  @seq: the connection's send count once the
 * post carrying it went out; it is free again when a signaled completion
 * at or past @seq arrives (an inline reply that is not signaled, at once).
 */
struct ordo_rdma_tx {
	struct ib_cqe cqe;
	struct list_head node;
	struct ib_send_wr wr;
	struct ib_sge sge;
	void *buf;
	u64 dma;
	u32 seq;
};

struct ordo_srq;

/* Set up @rx, mapped at @rx->dma, for a queue of protection domain @pd. */
static inline void ordo_rdma_rx_init(struct ordo_rdma_rx *rx, struct ib_pd *pd,
				     u32 len,
				     void (*done)(struct ib_cq *cq,
						  struct ib_wc *wc))
{
	rx->cqe.done = done;
	rx->sge.addr = rx->dma;
	rx->sge.length = len;
	rx->sge.lkey = pd->local_dma_lkey;
	rx->wr.wr_cqe = &rx->cqe;
	rx->wr.sg_list = &rx->sge;
	rx->wr.num_sge = 1;
	rx->wr.next = NULL;
}

/**
 * struct ordo_rdma_conn - one client connection
 * @kobj: rdma/connections/<id>/ in sysfs; its release frees the connection
 * @set: the connections of the server
 * @dev: the device it lives on
 * @cm_id: its rdma_cm id
 * @peer_ip: the client's IP address (v4-mapped for IPv4), as the
 *	listener counts it
 * @reg: the device's registrar, held
 * @port: where the registrar may post on @qp once established
 * @pd: the device's protection domain, held (its shared receive queue's
 *	too)
 * @cq: send and receive CQ, from the device's pool
 * @qp: RC queue pair
 * @id: number in sysfs and in the accept reply
 * @qd: credits: requests outstanding at most (and receive buffers posted,
 *	without @srq)
 * @nr_tx: reply buffers; a request waits (parked) while none is free
 * @msg_size: bytes of every request and reply buffer
 * @cq_size: CQ entries taken from the pool
 * @max_inline: replies up to this many bytes are sent inline
 * @srq: the device's shared receive queue, or NULL: receives of its own
 * @lock: see the top of this file
 * @state: enum ordo_conn_state
 * @listed: on the server's lists, so closing it queues @release_work
 * @rx_ready: received requests not yet executed, in arrival order
 * @outstanding: requests received whose reply is not posted yet
 * @tx_free: reply buffers not in flight
 * @tx_busy: reply buffers posted, in post order, until a signaled
 *	completion covers them
 * @sq_max: send-queue slots for replies (the registrar's, the probe's
 *	and the drain's are kept apart)
 * @sq_posted: replies posted on the send queue (wraps)
 * @sq_done: of them, those a signaled completion covered (wraps)
 * @last_heard: jiffies of the last sign of life: a request received, or a
 *	reply or probe the client's side acknowledged
 * @probing: a keepalive probe is in flight
 * @probe_seq: the send count when it was posted
 * @probe_at: jiffies when it was posted
 * @probe_cqe: its completion
 * @io_work: executes @rx_ready and posts the replies
 * @release_work: tears the connection down
 * @set_node: in ordo_conn_set.list
 * @dev_node: in ordo_rdma_dev.conns
 * @rx: @qd receive buffers
 * @tx: @nr_tx send buffers
 * @scan_keys: SCAN scratch, @msg_size bytes
 * @value: write scratch, value_size bytes
 * @staged: the value STAGE requests upload (@staged.len 0: none); only
 *	the I/O work touches it, and teardown frees it once that stopped
 * @staged_have: bytes of @staged received so far
 * @rpcs: RPCs executed
 * @errors: RPCs answered with an error
 * @parked: times a received request had to wait for a reply buffer or
 *	send-queue room
 * @send_posts: posts to the send queue (doorbells) that carried replies
 * @recv_posts: posts (doorbells) that gave consumed receive buffers back
 * @signaled_replies: replies posted signaled (one per post)
 * @inline_replies: replies sent inline
 * @probes: keepalive probes sent
 * @bytes_in: request bytes received
 * @bytes_out: reply bytes sent
 * @peer: the client's address
 */
struct ordo_rdma_conn {
	struct kobject kobj;
	struct ordo_conn_set *set;
	struct ordo_rdma_dev *dev;
	struct rdma_cm_id *cm_id;
	struct in6_addr peer_ip;
	struct ordo_reg *reg;
	struct ordo_reg_port port;
	struct ib_pd *pd;
	struct ib_cq *cq;
	struct ib_qp *qp;
	u32 id;
	u32 qd;
	u32 nr_tx;
	u32 msg_size;
	u32 cq_size;
	u32 max_inline;
	struct ordo_srq *srq;
	spinlock_t lock;	/* see the top of this file */
	enum ordo_conn_state state;
	bool listed;
	struct list_head rx_ready;
	u32 outstanding;
	struct list_head tx_free;
	struct list_head tx_busy;
	u32 sq_max;
	u32 sq_posted;
	u32 sq_done;
	unsigned long last_heard;
	bool probing;
	u32 probe_seq;
	unsigned long probe_at;
	struct ib_cqe probe_cqe;
	struct work_struct io_work;
	struct work_struct release_work;
	struct list_head set_node;
	struct list_head dev_node;
	struct ordo_rdma_rx *rx;
	struct ordo_rdma_tx *tx;
	u64 *scan_keys;
	void *value;
	struct ordo_staged staged;
	u32 staged_have;
	u64 rpcs;
	u64 errors;
	u64 parked;
	u64 send_posts;
	u64 recv_posts;
	u64 signaled_replies;
	u64 inline_replies;
	u64 probes;
	u64 bytes_in;
	u64 bytes_out;
	struct sockaddr_storage peer;
};

static inline void ordo_rdma_count_rpc(struct ordo_conn_set *set, u32 op)
{
	this_cpu_inc(set->stats->rpcs[op <= ORDO_WIRE_OP_MAX ? op : 0]);
}

static inline void ordo_rdma_count_error(struct ordo_conn_set *set)
{
	this_cpu_inc(set->stats->rpc_errors);
}

static inline void ordo_rdma_count_bytes(struct ordo_conn_set *set, u32 in,
					 u32 out)
{
	this_cpu_add(set->stats->bytes_in, in);
	this_cpu_add(set->stats->bytes_out, out);
}

/* conn.c */
struct ordo_rdma_conn *ordo_conn_create(struct ordo_conn_set *set,
					struct ordo_rdma_dev *dev,
					struct rdma_cm_id *cm_id, u32 qd);
void ordo_conn_destroy_unlisted(struct ordo_rdma_conn *c);
int ordo_conn_accept(struct ordo_rdma_conn *c, struct rdma_cm_event *ev,
		     bool token);
void ordo_conn_publish(struct ordo_rdma_conn *c);
void ordo_conn_close(struct ordo_rdma_conn *c);
void ordo_conns_close(struct ordo_conn_set *set, struct ordo_rdma_dev *dev);

/* io.c */
void ordo_io_init(struct ordo_rdma_conn *c);
void ordo_io_tx_init(struct ordo_rdma_tx *tx, struct ib_pd *pd);
int ordo_io_post_recv(struct ordo_rdma_conn *c, struct ordo_rdma_rx *rx);
void ordo_io_recv_done(struct ib_cq *cq, struct ib_wc *wc);
void ordo_io_established(struct ordo_rdma_conn *c);
void ordo_io_return_rx(struct ordo_rdma_conn *c);
bool ordo_io_keepalive(struct ordo_rdma_conn *c, unsigned long now,
		       unsigned long timeout);

/* keepalive.c */
void ordo_keepalive_start(struct ordo_conn_set *set);
void ordo_keepalive_stop(struct ordo_conn_set *set);

/* srq.c */
struct ordo_srq *ordo_srq_get(struct ordo_rdma_dev *dev, u32 msg_size,
			      void (*done)(struct ib_cq *cq, struct ib_wc *wc));
void ordo_srq_put(struct ordo_srq *s);
struct ib_srq *ordo_srq_ib(struct ordo_srq *s);
u32 ordo_srq_depth(struct ordo_srq *s);
int ordo_srq_post(struct ordo_srq *s, struct ib_recv_wr *wr);

/* rpc.c */
int ordo_rpc_handle(struct ordo_rdma_conn *c, const void *req, u32 len,
		    void *rep);
void ordo_rpc_release(struct ordo_rdma_conn *c);

/* conn_sysfs.c */
void ordo_conn_kobj_init(struct ordo_rdma_conn *c);
void ordo_conn_put(struct ordo_rdma_conn *c);
int ordo_conn_sysfs_add(struct ordo_rdma_conn *c);
void ordo_conn_sysfs_del(struct ordo_rdma_conn *c);

#endif /* ORDO_RDMA_CONN_H */
