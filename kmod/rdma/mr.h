/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kmod/rdma/, layer 2 of 5: one registration per RDMA device (mr.c): the
 * MRs of the node pool and the model region, and the region table clients
 * READ one-sided.  Uses only device.h; layers and locking: device.h.
 */
#ifndef ORDO_RDMA_MR_H
#define ORDO_RDMA_MR_H

#include <linux/atomic.h>
#include <linux/list.h>
#include <linux/spinlock.h>
#include <linux/types.h>
#include <rdma/ib_verbs.h>

#include "device.h"

struct ordo_dev;

/* Send slots of each connection's QP kept for the registrar. */
#define ORDO_REG_CHAIN		4

/* Address spaces of the registrar: index = enum ordo_wire_region_kind - 1. */
enum {
	ORDO_RDMA_POOL,
	ORDO_RDMA_MODEL,
	ORDO_RDMA_KINDS,
};

/**
 * struct ordo_reg_port - a connection's QP the registrar may post on
 * @node: in the registrar's list of ports
 * @qp: the QP; ORDO_REG_CHAIN of its send slots are the registrar's
 * @cqe: completion of the registrar's work requests
 * @reg: the registrar, once added
 * @listed: on the registrar's list
 * @lock: held across every post to the QP's send queue, the connection's
 *	and the registrar's (the innermost lock of all)
 * @busy: sends of the connection's own are not all completed
 * @want: the registrar waits for @busy to clear
 *
 * A chain is posted only behind no outstanding send: rxe (6.1) retries a
 * SEND the peer had no receive for by running the send queue again from
 * it, REG_MRs behind it included, and a REG_MR run twice fails and kills
 * the QP.  A client that takes its replies late would lose its connection
 * that way, and a chain behind replies a client never takes would wait
 * for ever.  The connection posts with ordo_reg_port_post() and reports
 * an empty queue with ordo_reg_port_idle().
 */
struct ordo_reg_port {
	struct list_head node;
	struct ib_qp *qp;
	struct ib_cqe cqe;
	struct ordo_reg *reg;
	bool listed;
	spinlock_t lock;	/* see above */
	bool busy;
	bool want;
};

/*
 * Counters of every registrar, for sysfs.  @attempts: chains tried (each
 * failure backs off before the next); @runs: times the registrar's work
 * ran; @backoff_ms: the backoff a registrar chose last (0 after success);
 * @remote_invalidations: requests that came as a SEND with Invalidate.
 */
struct ordo_reg_stats {
	atomic_long_t mrs;
	atomic64_t registrations;
	atomic64_t attempts;
	atomic64_t failures;
	atomic64_t retired;
	atomic64_t publications;
	atomic64_t bytes;
	atomic64_t runs;
	atomic_long_t backoff_ms;
	atomic64_t remote_invalidations;
};

extern struct ordo_reg_stats ordo_reg_stats;
extern unsigned int ordo_rdma_lease_ms;
/* Test facility (debugfs fail_registrations): chains still to refuse. */
extern atomic_t ordo_reg_fail_posts;

struct ordo_reg *ordo_reg_get(struct ordo_rdma_dev *dev, struct ordo_dev *od,
			      u64 server_id);
void ordo_reg_put(struct ordo_reg *reg);
void ordo_reg_port_init(struct ordo_reg_port *p);
void ordo_reg_port_add(struct ordo_reg *reg, struct ordo_reg_port *p,
		       struct ib_qp *qp);
void ordo_reg_port_del(struct ordo_reg_port *p);
int ordo_reg_port_post(struct ordo_reg_port *p, struct ib_qp *qp,
		       const struct ib_send_wr *wr);
void ordo_reg_port_idle(struct ordo_reg_port *p);
u32 ordo_reg_pool_chunks(struct ordo_reg *reg);
void ordo_reg_invalidated(struct ordo_reg *reg, u32 rkey);
int ordo_reg_regions(struct ordo_reg *reg, u32 kind, u32 first, void *out,
		     u32 room, u32 *len);

#endif /* ORDO_RDMA_MR_H */
