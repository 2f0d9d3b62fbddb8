/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kmod/rdma/, layer 1 of 5 (the lowest): the RDMA devices connections may
 * live on and their protection domains (ib.c).
 *
 * The RDMA server of ordo.ko is split by job as RTRS is, into layers that
 * each use only the layers below them; a lower layer tells an upper one
 * of an event through a callback the upper one gave it:
 *
 *	5 server.h	module glue: start and stop, counters, sysfs,
 *			debugfs test facilities (server.c, sysfs.c,
 *			debugfs.c)
 *	4 listener.h	the rdma_cm listener and connect-request admission:
 *			address, token, limits (listener.c, token.c,
 *			throttle.c, peers.c)
 *	3 conn.h	one connection: QP, buffers, accept, teardown, its
 *			request path and keepalive probes, the shared
 *			receive queue, its sysfs directory (conn.c, io.c,
 *			rpc.c, keepalive.c, srq.c, conn_sysfs.c)
 *	2 mr.h		one registration per device: MRs and the region
 *			table clients READ (mr.c)
 *	1 device.h	this file
 *
 * Locking: the server's lock (a spinlock, lent to each layer as a
 * pointer) protects the device list and each device's @dying, @conns and
 * @nr_conns, the connection list and counts, the listener and the
 * admission counters.  A connection's own lock nests inside it, the
 * registrar's locks (mr.c) inside both, and the lock of a connection's
 * registration port (mr.h), held across posts to its send queue, inside
 * all of them.
 */
#ifndef ORDO_RDMA_DEVICE_H
#define ORDO_RDMA_DEVICE_H

#include <linux/list.h>
#include <linux/mutex.h>
#include <linux/spinlock.h>
#include <linux/types.h>
#include <rdma/ib_verbs.h>

struct ordo_reg;

/**
 * struct ordo_rdma_dev - an RDMA device seen by the ib_client
 * @node: in ordo_rdma_devs.list
 * @ibdev: the device
 * @conns: connections on it (the connection layer's)
 * @nr_conns: admitted connections on it, listed or not yet
 * @dying: being removed: admit nothing more
 * @reg_mutex: protects @reg
 * @reg: its registrar while it has connections (mr.c)
 * @pd_mutex: protects @pd and @pd_users (nests inside @reg_mutex and
 *	the shared receive queues' mutex, srq.c)
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

/**
 * struct ordo_rdma_devs_ops - what the layers above do for the devices
 * @remove: @dev is going away (its @dying is set): close everything on it
 *	and return once all of it is released.
 */
struct ordo_rdma_devs_ops {
	void (*remove)(struct ordo_rdma_dev *dev, void *ctx);
};

/**
 * struct ordo_rdma_devs - the devices of the server
 * @lock: the server's lock (see the top of this file)
 * @list: struct ordo_rdma_dev list
 * @chunk_size: bytes per pool chunk, which the devices must register
 * @ops: callbacks of the layers above
 * @ctx: passed to @ops
 * @registered: the ib_client is registered
 */
struct ordo_rdma_devs {
	spinlock_t *lock;	/* the server's, see the top of this file */
	struct list_head list;
	u64 chunk_size;
	const struct ordo_rdma_devs_ops *ops;
	void *ctx;
	bool registered;
};

int ordo_rdma_ib_register(struct ordo_rdma_devs *devs);
void ordo_rdma_ib_unregister(struct ordo_rdma_devs *devs);
struct ordo_rdma_dev *ordo_rdma_dev_find(struct ordo_rdma_devs *devs,
					 struct ib_device *ibdev);
u32 ordo_rdma_mr_geometry(struct ib_device *ibdev, u64 chunk, u32 *page_size);
bool ordo_rdma_dma_synced(struct ib_device *ibdev);
extern u32 ordo_rdma_dma_unsynced;
struct ib_pd *ordo_rdma_dev_pd_get(struct ordo_rdma_dev *dev);
void ordo_rdma_dev_pd_put(struct ordo_rdma_dev *dev);

#endif /* ORDO_RDMA_DEVICE_H */
