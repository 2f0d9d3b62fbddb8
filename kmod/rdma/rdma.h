/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The RDMA server of ordo.ko (kmod/rdma/), split by job as RTRS is:
 *
 * server.c	start and stop, access token and limit parameters, counters
 * listener.c	listen address, rdma_cm listener, connect request checks
 * ib.c		ib_client: the RDMA devices connections may live on
 * conn.c	one connection: QP, CQ, buffers, accept, teardown
 * io.c		the request path: completions, execution, replies, probes
 * keepalive.c	idle connections: probed, and closed once silent
 * srq.c	the optional shared receive queue of each device
 * mr.c		fast registration of pool chunks and the region table
 * rpc.c	RPC decoding, validation and execution
 * sysfs.c	/sys/class/misc/ordo/rdma/
 *
 * Locking: srv->lock (a spinlock) protects the device and connection lists,
 * the connection count, the listener pointer and srv->stopping; a
 * connection's c->lock protects its state, its ready-request and reply
 * lists, its send-queue accounting and its probe, and is held across every
 * post to its send queue so that posts are numbered in queue order.
 * srv->lock nests outside c->lock.  Memory registration and the region
 * table belong to the connection's I/O work item, and to its release work
 * once the I/O work has stopped.
 */
#ifndef ORDO_RDMA_H
#define ORDO_RDMA_H

#include <linux/kobject.h>
#include <linux/list.h>
#include <linux/scatterlist.h>
#include <linux/socket.h>
#include <linux/spinlock.h>
#include <linux/types.h>
#include <linux/wait.h>
#include <linux/workqueue.h>
#include <rdma/ib_verbs.h>
#include <rdma/rdma_cm.h>
#include <linux/ordo_wire.h>

struct ordo_dev;

/* REG_MR work requests one reply may carry in front of its SEND. */
#define ORDO_RDMA_REG_BATCH	4
/* Requests one run of a connection's I/O work executes before yielding. */
#define ORDO_RDMA_IO_BUDGET	16
/* Bytes of reply the QP is asked to send inline (the device may give more). */
#define ORDO_RDMA_INLINE	256

/* Per-CPU counters of the server; summed when sysfs reads them. */
struct ordo_rdma_stats {
	u64 rpcs[ORDO_WIRE_OP_MAX + 1];	/* [0]: unknown op codes */
	u64 rpc_errors;
	u64 bytes_in;
	u64 bytes_out;
};

/**
 * struct ordo_rdma_dev - an RDMA device seen by the ib_client
 * @node: in ordo_rdma.devs
 * @ibdev: the device
 * @conns: connections on it
 * @nr_conns: admitted connections on it, listed or not yet
 * @dying: being removed: admit nothing more
 * @fast_reg: supports fast registration with pages as large as a chunk
 * @dma_synced: its DMA needs no sync calls (coherent, no bounce buffers)
 * @usable: both: the device serves clients
 */
struct ordo_rdma_dev {
	struct list_head node;
	struct ib_device *ibdev;
	struct list_head conns;
	u32 nr_conns;
	bool dying;
	bool fast_reg;
	bool dma_synced;
	bool usable;
};

/* Region kinds of the table: index = enum ordo_wire_region_kind - 1. */
enum {
	ORDO_RDMA_POOL,
	ORDO_RDMA_MODEL,
	ORDO_RDMA_KINDS,
};

/**
 * struct ordo_rdma_region - one registered run of chunks
 * @mr: fast-registration MR, zero-based at @first * chunk_size
 * @sgt: the chunks' pages
 * @nents: entries of @sgt mapped for DMA
 * @first: first chunk
 * @nr: chunks
 * @chunk_size: bytes per chunk
 */
struct ordo_rdma_region {
	struct ib_mr *mr;
	struct sg_table sgt;
	int nents;
	u32 first;
	u32 nr;
	u64 chunk_size;
};

/**
 * struct ordo_rdma_table - the regions of one kind, in chunk order
 * @regions: the regions; they tile chunks [0, @chunks)
 * @nr: entries of @regions
 * @cap: capacity of @regions
 * @chunks: chunks covered
 */
struct ordo_rdma_table {
	struct ordo_rdma_region *regions;
	u32 nr;
	u32 cap;
	u32 chunks;
};

enum ordo_conn_state {
	ORDO_CONN_CONNECTING,	/* accepted, waiting for ESTABLISHED */
	ORDO_CONN_LIVE,		/* requests are executed */
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
 * @srv: the server
 * @dev: the device it lives on
 * @cm_id: its rdma_cm id
 * @peer_ip: the client's IP address (v4-mapped for IPv4), as counted in peers.c
 * @pd: protection domain of its own, so its rkeys work on no other QP
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
 * @sq_max: send-queue slots for replies and registrations
 * @sq_posted: work requests posted on the send queue (wraps)
 * @sq_done: of them, those a signaled completion covered (wraps)
 * @last_heard: jiffies of the last sign of life: a request received, or a
 *	reply or probe the client's side acknowledged
 * @probing: a keepalive probe is in flight
 * @probe_seq: its send count
 * @probe_at: jiffies when it was posted
 * @probe_cqe: its completion
 * @io_work: executes @rx_ready and posts the replies
 * @release_work: tears the connection down
 * @srv_node: in ordo_rdma.conns
 * @dev_node: in ordo_rdma_dev.conns
 * @rx: @qd receive buffers
 * @tx: @nr_tx send buffers
 * @reg_cqe: completion of REG_MR work requests
 * @tables: region tables, by kind (ORDO_RDMA_POOL, ORDO_RDMA_MODEL)
 * @want_model: the client asked for the model: register its region too
 * @pending: MRs built for the next reply's registration chain
 * @npending: entries of @pending
 * @scan_keys: SCAN scratch, @msg_size bytes
 * @value: write scratch, value_size bytes
 * @rpcs: RPCs executed
 * @errors: RPCs answered with an error
 * @parked: times a received request had to wait for a reply buffer or
 *	send-queue room
 * @send_posts: posts to the send queue (doorbells) that carried replies
 * @inline_replies: replies sent inline
 * @probes: keepalive probes sent
 * @bytes_in: request bytes received
 * @bytes_out: reply bytes sent
 * @registered_bytes: bytes registered for this connection
 * @peer: the client's address
 */
struct ordo_rdma_conn {
	struct kobject kobj;
	struct ordo_rdma *srv;
	struct ordo_rdma_dev *dev;
	struct rdma_cm_id *cm_id;
	struct in6_addr peer_ip;
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
	struct list_head srv_node;
	struct list_head dev_node;
	struct ordo_rdma_rx *rx;
	struct ordo_rdma_tx *tx;
	struct ib_cqe reg_cqe;
	struct ordo_rdma_table tables[ORDO_RDMA_KINDS];
	bool want_model;
	struct ib_mr *pending[ORDO_RDMA_REG_BATCH];
	u32 npending;
	u64 *scan_keys;
	void *value;
	u64 rpcs;
	u64 errors;
	u64 parked;
	u64 send_posts;
	u64 inline_replies;
	u64 probes;
	u64 bytes_in;
	u64 bytes_out;
	u64 registered_bytes;
	struct sockaddr_storage peer;
};

/**
 * struct ordo_rdma - the RDMA server
 * @od: the store it serves
 * @server_id: random, drawn at start
 * @wq: runs release, listener and keepalive work
 * @io_wq: runs the connections' I/O work on the CPU that queued it (the
 *	CPU of the completion)
 * @lock: see the top of this file
 * @devs: struct ordo_rdma_dev list
 * @conns: struct ordo_rdma_conn list
 * @nr_conns: admitted connections
 * @peers: admitted connections per peer address (peers.c)
 * @next_conn_id: number of the next connection
 * @stopping: module unload: admit nothing, listen no more
 * @conns_wait: woken when a connection is released
 * @listen_id: the listener, NULL while not listening
 * @listen_work: (re)creates the listener
 * @listen_err: errno of the last failed attempt, 0 when listening
 * @listen_addr: address the listener is bound to
 * @keepalive_work: probes idle connections, closes silent ones
 * @stats: per-CPU counters
 * @conns_total: connections accepted since load
 * @rejected: connect requests rejected, per enum ordo_wire_rej_reason
 * @registered_bytes: bytes registered over all connections
 * @probes: keepalive probes sent
 * @keepalive_closed: connections closed because nothing was heard from
 *	them for keepalive_timeout
 * @kobj: rdma/ in sysfs
 * @conns_kobj: rdma/connections/ in sysfs
 * @client_registered: the ib_client is registered
 */
struct ordo_rdma {
	struct ordo_dev *od;
	u64 server_id;
	struct workqueue_struct *wq;
	struct workqueue_struct *io_wq;
	spinlock_t lock;	/* see the top of this file */
	struct list_head devs;
	struct list_head conns;
	u32 nr_conns;
	struct list_head peers;
	u32 next_conn_id;
	bool stopping;
	wait_queue_head_t conns_wait;
	struct rdma_cm_id *listen_id;
	struct delayed_work listen_work;
	int listen_err;
	struct sockaddr_storage listen_addr;
	struct delayed_work keepalive_work;
	struct ordo_rdma_stats __percpu *stats;
	atomic64_t conns_total;
	atomic64_t rejected[ORDO_WIRE_REJ_MAX + 1];
	atomic64_t registered_bytes;
	atomic64_t probes;
	atomic64_t keepalive_closed;
	struct kobject *kobj;
	struct kobject *conns_kobj;
	bool client_registered;
};

/* server.c */
extern unsigned int ordo_rdma_max_connections;
extern unsigned int ordo_rdma_queue_depth;
extern unsigned int ordo_rdma_msg_size;
bool ordo_rdma_token_ok(const struct ordo_wire_conn_req *req);
bool ordo_rdma_token_required(void);

/* throttle.c: wrong tokens per peer address (Documentation/admin.rst) */
#define ORDO_TOKEN_MIN		16
#define ORDO_THROTTLE_FAILS	8
#define ORDO_THROTTLE_WINDOW	(10 * HZ)
bool ordo_throttle_blocked(const struct sockaddr *peer);
/* peers.c: connections per peer address */
struct ordo_rdma_peer;
extern unsigned int ordo_rdma_max_per_peer;
bool ordo_rdma_peer_addr(const struct sockaddr *sa, struct in6_addr *a);
struct ordo_rdma_peer *ordo_rdma_peer_alloc(void);
bool ordo_rdma_peer_get(struct ordo_rdma *srv, const struct in6_addr *a,
			u32 limit, struct ordo_rdma_peer **fresh);
void ordo_rdma_peer_put(struct ordo_rdma *srv, const struct in6_addr *a);
void ordo_throttle_fail(const struct sockaddr *peer);
void ordo_throttle_reset(void);
u64 ordo_rdma_stat_sum(struct ordo_rdma *srv, size_t offset);

static inline void ordo_rdma_count_rpc(struct ordo_rdma *srv, u32 op)
{
	this_cpu_inc(srv->stats->rpcs[op <= ORDO_WIRE_OP_MAX ? op : 0]);
}

static inline void ordo_rdma_count_error(struct ordo_rdma *srv)
{
	this_cpu_inc(srv->stats->rpc_errors);
}

static inline void ordo_rdma_count_bytes(struct ordo_rdma *srv, u32 in,
					 u32 out)
{
	this_cpu_add(srv->stats->bytes_in, in);
	this_cpu_add(srv->stats->bytes_out, out);
}

/* listener.c */
int ordo_listen_start(struct ordo_rdma *srv);
void ordo_listen_stop(struct ordo_rdma *srv);
void ordo_listen_work(struct work_struct *work);
void ordo_listen_params_changed(void);

/* ib.c */
int ordo_rdma_ib_register(struct ordo_rdma *srv);
void ordo_rdma_ib_unregister(struct ordo_rdma *srv);
struct ordo_rdma_dev *ordo_rdma_dev_find(struct ordo_rdma *srv,
					 struct ib_device *ibdev);
u32 ordo_rdma_mr_geometry(struct ib_device *ibdev, u64 chunk, u32 *page_size);
bool ordo_rdma_dma_synced(struct ib_device *ibdev);

/* conn.c */
struct ordo_rdma_conn *ordo_conn_create(struct ordo_rdma *srv,
					struct ordo_rdma_dev *dev,
					struct rdma_cm_id *cm_id, u32 qd);
void ordo_conn_destroy_unlisted(struct ordo_rdma_conn *c);
int ordo_conn_accept(struct ordo_rdma_conn *c, struct rdma_cm_event *ev);
void ordo_conn_publish(struct ordo_rdma_conn *c);
void ordo_conn_close(struct ordo_rdma_conn *c);

/* io.c */
void ordo_io_init(struct ordo_rdma_conn *c);
void ordo_io_tx_init(struct ordo_rdma_tx *tx, struct ib_pd *pd);
int ordo_io_post_recv(struct ordo_rdma_conn *c, struct ordo_rdma_rx *rx);
void ordo_io_recv_done(struct ib_cq *cq, struct ib_wc *wc);
void ordo_io_established(struct ordo_rdma_conn *c);
void ordo_io_return_rx(struct ordo_rdma_conn *c);
bool ordo_io_keepalive(struct ordo_rdma_conn *c, unsigned long now,
		       unsigned long timeout);
void ordo_mr_reg_done(struct ib_cq *cq, struct ib_wc *wc);

/* keepalive.c */
extern unsigned int ordo_rdma_keepalive;
void ordo_keepalive_start(struct ordo_rdma *srv);
void ordo_keepalive_stop(struct ordo_rdma *srv);

/* srq.c */
extern unsigned int ordo_rdma_srq_size;
struct ordo_srq *ordo_srq_get(struct ib_device *ibdev, u32 msg_size,
			      void (*done)(struct ib_cq *cq, struct ib_wc *wc));
void ordo_srq_put(struct ordo_srq *s);
struct ib_pd *ordo_srq_pd(struct ordo_srq *s);
struct ib_srq *ordo_srq_ib(struct ordo_srq *s);
u32 ordo_srq_depth(struct ordo_srq *s);
int ordo_srq_post(struct ordo_srq *s, struct ib_recv_wr *wr);

/* mr.c */
int ordo_mr_prepare(struct ordo_rdma_conn *c);
struct ib_send_wr *ordo_mr_chain(struct ordo_rdma_conn *c,
				 struct ib_reg_wr *wrs,
				 struct ib_send_wr *next);
void ordo_mr_release_all(struct ordo_rdma_conn *c);

/* rpc.c */
void ordo_rpc_peek(struct ordo_rdma_conn *c, const void *req, u32 len);
int ordo_rpc_handle(struct ordo_rdma_conn *c, const void *req, u32 len,
		    void *rep);

/* sysfs.c */
int ordo_rdma_sysfs_init(struct ordo_rdma *srv);
void ordo_rdma_sysfs_exit(struct ordo_rdma *srv);
int ordo_rdma_sysfs_conn_add(struct ordo_rdma_conn *c);
void ordo_rdma_sysfs_conn_del(struct ordo_rdma_conn *c);
void ordo_rdma_conn_put(struct ordo_rdma_conn *c);
void ordo_rdma_conn_kobj_init(struct ordo_rdma_conn *c);

#endif /* ORDO_RDMA_H */
