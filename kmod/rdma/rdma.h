/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The RDMA server of ordo.ko (kmod/rdma/), split by job as RTRS is:
 *
 * server.c	start and stop, access token and limit parameters, counters
 * listener.c	listen address, rdma_cm listener, connect request checks
 * ib.c		ib_client: the RDMA devices connections may live on
 * conn.c	one connection: QP, CQ, buffers, completions, RPC loop, teardown
 * mr.c		one registration per device: PD, MRs, the region table
 * rpc.c	RPC decoding, validation and execution
 * sysfs.c	/sys/class/misc/ordo/rdma/
 *
 * Locking: srv->lock (a spinlock) protects the device and connection lists,
 * the connection count, the listener pointer and srv->stopping; a
 * connection's c->lock protects its state, its ready-request and free-reply
 * lists and its send-queue budget.  srv->lock nests outside c->lock.  The
 * registrar of a device has its own locks (mr.c), taken inside both.
 */
#ifndef ORDO_RDMA_H
#define ORDO_RDMA_H

#include <linux/kobject.h>
#include <linux/list.h>
#include <linux/mutex.h>
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

/* Send slots of each connection's QP kept for the registrar (mr.c). */
#define ORDO_REG_CHAIN		4
/* Requests one run of a connection's RPC work handles before yielding. */
#define ORDO_RDMA_RPC_BUDGET	16
/* A client that takes none of its replies for this long is gone. */
#define ORDO_RDMA_STALL		(10 * HZ)

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
 * @reg_mutex: protects @reg
 * @reg: its registrar while it has connections (mr.c)
 * @pd_mutex: protects @pd and @pd_users (nests inside @reg_mutex)
 * @pd: the protection domain of everything on the device, while used
 * @pd_users: references to @pd (ordo_rdma_dev_pd_get())
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
	struct mutex reg_mutex;	/* protects @reg */
	struct ordo_reg *reg;
	struct mutex pd_mutex;	/* protects @pd, @pd_users */
	struct ib_pd *pd;
	u32 pd_users;
	bool fast_reg;
	bool dma_synced;
	bool usable;
};

/* Address spaces of the registrar: index = enum ordo_wire_region_kind - 1. */
enum {
	ORDO_RDMA_POOL,
	ORDO_RDMA_MODEL,
	ORDO_RDMA_KINDS,
};

struct ordo_reg;

/**
 * struct ordo_reg_port - a connection's QP the registrar may post on
 * @node: in the registrar's list of ports
 * @qp: the QP; ORDO_REG_CHAIN of its send slots are the registrar's
 * @cqe: completion of the registrar's work requests
 * @reg: the registrar, once added
 * @listed: on the registrar's list
 */
struct ordo_reg_port {
	struct list_head node;
	struct ib_qp *qp;
	struct ib_cqe cqe;
	struct ordo_reg *reg;
	bool listed;
};

/* Counters of every registrar (mr.c), for sysfs. */
struct ordo_reg_stats {
	atomic_long_t mrs;
	atomic64_t registrations;
	atomic64_t failures;
	atomic64_t retired;
	atomic64_t publications;
	atomic64_t bytes;
};

extern struct ordo_reg_stats ordo_reg_stats;

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
 * @srv: the server
 * @dev: the device it lives on
 * @cm_id: its rdma_cm id
 * @peer_ip: the client's IP address (v4-mapped for IPv4), as counted in peers.c
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
 * @srv_node: in ordo_rdma.conns
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
	struct ordo_rdma *srv;
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
	struct list_head srv_node;
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

/**
 * struct ordo_rdma - the RDMA server
 * @od: the store it serves
 * @server_id: random, drawn at start
 * @wq: runs RPC, release and listener work
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
 * @stats: per-CPU counters
 * @conns_total: connections accepted since load
 * @rejected: connect requests rejected, per enum ordo_wire_rej_reason
 * @kobj: rdma/ in sysfs
 * @conns_kobj: rdma/connections/ in sysfs
 * @client_registered: the ib_client is registered
 */
struct ordo_rdma {
	struct ordo_dev *od;
	u64 server_id;
	struct workqueue_struct *wq;
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
	struct ordo_rdma_stats __percpu *stats;
	atomic64_t conns_total;
	atomic64_t rejected[ORDO_WIRE_REJ_MAX + 1];
	struct kobject *kobj;
	struct kobject *conns_kobj;
	bool client_registered;
};

/* server.c */
extern unsigned int ordo_rdma_max_connections;
extern unsigned int ordo_rdma_queue_depth;
extern unsigned int ordo_rdma_msg_size;
extern unsigned int ordo_rdma_lease_ms;
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
struct ib_pd *ordo_rdma_dev_pd_get(struct ordo_rdma_dev *dev);
void ordo_rdma_dev_pd_put(struct ordo_rdma_dev *dev);

/* conn.c */
struct ordo_rdma_conn *ordo_conn_create(struct ordo_rdma *srv,
					struct ordo_rdma_dev *dev,
					struct rdma_cm_id *cm_id, u32 qd);
void ordo_conn_destroy_unlisted(struct ordo_rdma_conn *c);
int ordo_conn_accept(struct ordo_rdma_conn *c, struct rdma_cm_event *ev);
void ordo_conn_publish(struct ordo_rdma_conn *c);
void ordo_conn_close(struct ordo_rdma_conn *c);

/* mr.c */
struct ordo_reg *ordo_reg_get(struct ordo_rdma_dev *dev, struct ordo_dev *od,
			      u64 server_id, u32 lease_ms);
void ordo_reg_put(struct ordo_reg *reg);
void ordo_reg_port_add(struct ordo_reg *reg, struct ordo_reg_port *p,
		       struct ib_qp *qp);
void ordo_reg_port_del(struct ordo_reg_port *p);
u32 ordo_reg_pool_chunks(struct ordo_reg *reg);
int ordo_reg_regions(struct ordo_reg *reg, u32 kind, u32 first, void *out,
		     u32 room, u32 *len);

/* rpc.c */
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
