/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kmod/rdma/, layer 3 of 5: one client connection -- its QP, buffers,
 * completions and teardown (conn.c), the execution of its requests
 * (rpc.c) and its sysfs directory (conn_sysfs.c).  Uses mr.h and
 * device.h; layers and locking: device.h.  A connection's c->lock
 * protects its state, its ready-request and free-reply lists and its
 * send-queue budget.
 */
#ifndef ORDO_RDMA_CONN_H
#define ORDO_RDMA_CONN_H

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
#include "mr.h"

struct ordo_dev;
struct ordo_rdma_conn;

/* Requests one run of a connection's RPC work handles before yielding. */
#define ORDO_RDMA_RPC_BUDGET	16
/* A client that takes none of its replies for this long is gone. */
#define ORDO_RDMA_STALL		(10 * HZ)

extern unsigned int ordo_rdma_msg_size;

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
 * @wq: runs RPC and release work
 * @stats: per-CPU counters
 * @kobj: rdma/connections/ in sysfs, the parent of each connection's
 * @list: struct ordo_rdma_conn list (published connections)
 * @nr: admitted connections, listed or not yet
 * @next_id: number of the last connection
 * @stopping: module unload: admit nothing, close whatever is published
 * @wait: woken when a connection is released
 * @ops: callbacks of the layers above
 * @ctx: passed to @ops
 */
struct ordo_conn_set {
	spinlock_t *lock;	/* the server's, see device.h */
	struct ordo_dev *od;
	u64 server_id;
	struct workqueue_struct *wq;
	struct ordo_rdma_stats __percpu *stats;
	struct kobject *kobj;
	struct list_head list;
	u32 nr;
	u32 next_id;
	bool stopping;
	wait_queue_head_t wait;
	const struct ordo_conn_ops *ops;
	void *ctx;
};

enum ordo_conn_state {
	ORDO_CONN_CONNECTING,	/* accepted, waiting for ESTABLISHED */
	ORDO_CONN_LIVE,		/* requests are executed */
	ORDO_CONN_CLOSING,	/* teardown queued or running */
};

/* A receive buffer: one request. */
struct ordo_rdma_rx {
	struct ib_cqe cqe;
	struct ordo_rdma_conn *conn;
	struct list_head node;
	void *buf;
	u64 dma;
	u32 len;
};

/* A send buffer: one reply. */
struct ordo_rdma_tx {
	struct ib_cqe cqe;
	struct ordo_rdma_conn *conn;
	struct list_head node;
	void *buf;
	u64 dma;
};

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
 * @pd: the device's protection domain, held
 * @cq: send and receive CQ, from the device's pool
 * @qp: RC queue pair
 * @id: number in sysfs and in the accept reply
 * @qd: credits: receive buffers posted, requests outstanding at most
 * @nr_tx: reply buffers (2 * @qd: replies may await their completion
 *	while the next @qd requests are already in)
 * @msg_size: bytes of every request and reply buffer
 * @cq_size: CQ entries taken from the pool
 * @lock: protects @state, @listed, @rx_ready, @tx_free, @sq_avail
 * @state: enum ordo_conn_state
 * @listed: on the server's lists, so closing it queues @release_work
 * @rx_ready: received requests not yet executed
 * @tx_free: reply buffers not in flight
 * @sq_avail: send-queue slots for replies not in use (the registrar's
 *	and the drain slot excluded)
 * @wait: woken when a reply buffer or send slot frees up, and on close
 * @rpc_work: executes @rx_ready
 * @release_work: tears the connection down
 * @set_node: in ordo_conn_set.list
 * @dev_node: in ordo_rdma_dev.conns
 * @rx: @qd receive buffers
 * @tx: @nr_tx send buffers
 * @scan_keys: SCAN scratch, @msg_size bytes
 * @value: write scratch, value_size bytes
 * @rpcs: RPCs executed
 * @errors: RPCs answered with an error
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
	spinlock_t lock;	/* see the top of this file */
	enum ordo_conn_state state;
	bool listed;
	struct list_head rx_ready;
	struct list_head tx_free;
	u32 sq_avail;
	wait_queue_head_t wait;
	struct work_struct rpc_work;
	struct work_struct release_work;
	struct list_head set_node;
	struct list_head dev_node;
	struct ordo_rdma_rx *rx;
	struct ordo_rdma_tx *tx;
	u64 *scan_keys;
	void *value;
	u64 rpcs;
	u64 errors;
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

/* rpc.c */
int ordo_rpc_handle(struct ordo_rdma_conn *c, const void *req, u32 len,
		    void *rep);

/* conn_sysfs.c */
void ordo_conn_kobj_init(struct ordo_rdma_conn *c);
void ordo_conn_put(struct ordo_rdma_conn *c);
int ordo_conn_sysfs_add(struct ordo_rdma_conn *c);
void ordo_conn_sysfs_del(struct ordo_rdma_conn *c);

#endif /* ORDO_RDMA_CONN_H */
