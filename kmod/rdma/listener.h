/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kmod/rdma/, layer 4 of 5: the rdma_cm listener and the admission of
 * connect requests -- listen address and port, the access token, the
 * wrong-token throttle, the connection limits (listener.c, token.c,
 * throttle.c, peers.c).  Uses conn.h, mr.h and device.h; layers and
 * locking: device.h.
 */
#ifndef ORDO_RDMA_LISTENER_H
#define ORDO_RDMA_LISTENER_H

#include <linux/atomic.h>
#include <linux/in6.h>
#include <linux/list.h>
#include <linux/socket.h>
#include <linux/spinlock.h>
#include <linux/types.h>
#include <linux/workqueue.h>
#include <rdma/rdma_cm.h>
#include <linux/ordo_wire.h>

#include "conn.h"
#include "device.h"

extern unsigned int ordo_rdma_max_connections;
extern unsigned int ordo_rdma_max_per_peer;
extern unsigned int ordo_rdma_queue_depth;

/**
 * struct ordo_listener - the listener and what admission counts
 * @lock: the server's lock (device.h): @id, @err, @addr, @peers
 * @wq: runs @work
 * @devs: the devices connections may live on
 * @conns: the connections (their count, @stopping, their creation)
 * @id: the listener, NULL while not listening
 * @work: (re)creates the listener
 * @err: errno of the last failed attempt, 0 when listening
 * @addr: address the listener is bound to
 * @peers: admitted connections per peer address (peers.c)
 * @conns_total: connections accepted since load
 * @rejected: connect requests rejected, per enum ordo_wire_rej_reason
 */
struct ordo_listener {
	spinlock_t *lock;	/* the server's, see device.h */
	struct workqueue_struct *wq;
	struct ordo_rdma_devs *devs;
	struct ordo_conn_set *conns;
	struct rdma_cm_id *id;
	struct delayed_work work;
	int err;
	struct sockaddr_storage addr;
	struct list_head peers;
	atomic64_t conns_total;
	atomic64_t rejected[ORDO_WIRE_REJ_MAX + 1];
};

/* listener.c */
void ordo_listen_init(struct ordo_listener *l);
int ordo_listen_start(struct ordo_listener *l);
void ordo_listen_stop(struct ordo_listener *l);
extern const struct ordo_conn_ops ordo_listen_conn_ops;

/* token.c: the access token (Documentation/admin.rst) */
#define ORDO_TOKEN_MIN		16
bool ordo_rdma_token_ok(const struct ordo_wire_conn_req *req);
bool ordo_rdma_token_required(void);
int ordo_rdma_token_check(void);
void ordo_rdma_token_serve(bool on);

/* throttle.c: wrong tokens per peer address (Documentation/admin.rst) */
#define ORDO_THROTTLE_FAILS	8
#define ORDO_THROTTLE_WINDOW	(10 * HZ)
bool ordo_throttle_blocked(const struct sockaddr *peer);
void ordo_throttle_fail(const struct sockaddr *peer);
void ordo_throttle_reset(void);

/* peers.c: connections per peer address, under the server's lock */
struct ordo_rdma_peer;
bool ordo_rdma_peer_addr(const struct sockaddr *sa, struct in6_addr *a);
struct ordo_rdma_peer *ordo_rdma_peer_alloc(void);
bool ordo_rdma_peer_get(struct ordo_listener *l, const struct in6_addr *a,
			u32 limit, struct ordo_rdma_peer **fresh);
void ordo_rdma_peer_put(struct ordo_listener *l, const struct in6_addr *a);

#endif /* ORDO_RDMA_LISTENER_H */
