/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kmod/rdma/, layer 5 of 5 (the top): module glue -- start and stop of the
 * RDMA server, its counters, its sysfs directory and its test facilities
 * in debugfs (server.c, sysfs.c, debugfs.c).
 * Uses every layer below; layers and locking: device.h.
 */
#ifndef ORDO_RDMA_SERVER_H
#define ORDO_RDMA_SERVER_H

#include <linux/kobject.h>
#include <linux/spinlock.h>
#include <linux/types.h>
#include <linux/workqueue.h>

#include "conn.h"
#include "device.h"
#include "listener.h"
#include "mr.h"

struct ordo_dev;

/**
 * struct ordo_rdma - the RDMA server
 * @od: the store it serves
 * @server_id: random, drawn at start
 * @wq: runs release, listener and keepalive work
 * @io_wq: runs the connections' I/O work on the CPU that queued it (the
 *	CPU of the completion)
 * @lock: the server's lock, lent to every layer (device.h)
 * @devs: the RDMA devices
 * @conns: the connections
 * @listener: the listener and admission
 * @kobj: rdma/ in sysfs
 */
struct ordo_rdma {
	struct ordo_dev *od;
	u64 server_id;
	struct workqueue_struct *wq;
	struct workqueue_struct *io_wq;
	spinlock_t lock;	/* see device.h */
	struct ordo_rdma_devs devs;
	struct ordo_conn_set conns;
	struct ordo_listener listener;
	struct kobject *kobj;
};

/* server.c */
u64 ordo_rdma_stat_sum(struct ordo_rdma *srv, size_t offset);

/* sysfs.c */
int ordo_rdma_sysfs_init(struct ordo_rdma *srv);
void ordo_rdma_sysfs_exit(struct ordo_rdma *srv);

/* debugfs.c */
void ordo_rdma_debugfs_init(void);
void ordo_rdma_debugfs_exit(void);

#endif /* ORDO_RDMA_SERVER_H */
