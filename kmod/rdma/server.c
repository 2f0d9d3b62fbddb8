// SPDX-License-Identifier: GPL-2.0
/*
 * RDMA server: start and stop, and its counters.
 *
 * Teardown order mirrors RTRS and nvmet-rdma: stop admitting, destroy the
 * listener (which waits for connect handlers in progress), close every
 * connection and wait until each is released (QP drained, MRs freed), then
 * let go of the devices and the work queue.  The store outlives all of it.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>
#include <linux/random.h>
#include <linux/slab.h>

#include "ordo.h"
#include "server.h"

u64 ordo_rdma_stat_sum(struct ordo_rdma *srv, size_t offset)
{
	u64 sum = 0;
	int cpu;

	for_each_possible_cpu(cpu)
		sum += *(u64 *)((u8 *)per_cpu_ptr(srv->conns.stats, cpu) +
				offset);
	return sum;
}

static int ordo_rdma_check_params(void)
{
	int ret = ordo_rdma_token_check();

	if (ret)
		return ret;
	if (!ordo_rdma_queue_depth ||
	    ordo_rdma_queue_depth > ORDO_WIRE_QUEUE_MAX) {
		pr_err("queue_depth=%u: must be 1..%d\n", ordo_rdma_queue_depth,
		       ORDO_WIRE_QUEUE_MAX);
		return -EINVAL;
	}
	if (ordo_rdma_msg_size < ORDO_WIRE_MSG_MIN ||
	    ordo_rdma_msg_size > ORDO_WIRE_MSG_MAX ||
	    !is_power_of_2(ordo_rdma_msg_size)) {
		pr_err("msg_size=%u: must be a power of two in %d..%d\n",
		       ordo_rdma_msg_size, ORDO_WIRE_MSG_MIN, ORDO_WIRE_MSG_MAX);
		return -EINVAL;
	}
	if (ordo_rdma_lease_ms < 100 || ordo_rdma_lease_ms > 600000) {
		pr_err("region_lease_ms=%u: must be 100..600000\n",
		       ordo_rdma_lease_ms);
		return -EINVAL;
	}
	return 0;
}

/* A device goes away: close what lives on it (device.h's callback). */
static void ordo_rdma_dev_remove(struct ordo_rdma_dev *dev, void *ctx)
{
	struct ordo_rdma *srv = ctx;

	ordo_conns_close(&srv->conns, dev);
}

static const struct ordo_rdma_devs_ops ordo_rdma_devs_ops = {
	.remove = ordo_rdma_dev_remove,
};

static void ordo_rdma_free(struct ordo_rdma *srv)
{
	if (srv->io_wq)
		destroy_workqueue(srv->io_wq);
	if (srv->wq)
		destroy_workqueue(srv->wq);
	free_percpu(srv->conns.stats);
	kfree(srv);
}

/* Wire the layers together, bottom up; nothing runs yet. */
static void ordo_rdma_setup(struct ordo_rdma *srv, struct ordo_dev *od)
{
	srv->od = od;
	srv->server_id = get_random_u64();
	spin_lock_init(&srv->lock);

	srv->devs.lock = &srv->lock;
	INIT_LIST_HEAD(&srv->devs.list);
	srv->devs.chunk_size = od->tree.pool.chunk_size;
	srv->devs.ops = &ordo_rdma_devs_ops;
	srv->devs.ctx = srv;

	srv->conns.lock = &srv->lock;
	srv->conns.od = od;
	srv->conns.server_id = srv->server_id;
	INIT_LIST_HEAD(&srv->conns.list);
	init_waitqueue_head(&srv->conns.wait);
	srv->conns.ops = &ordo_listen_conn_ops;
	srv->conns.ctx = &srv->listener;

	srv->listener.lock = &srv->lock;
	srv->listener.devs = &srv->devs;
	srv->listener.conns = &srv->conns;
	ordo_listen_init(&srv->listener);
}

/**
 * ordo_rdma_init - start the RDMA server of @od
 * @od: the store, fully set up; its misc device is registered
 *
 * The server listens from now on (or keeps trying, see listener.c).
 *
 * Return: 0 or a negative errno.
 */
int ordo_rdma_init(struct ordo_dev *od)
{
	struct ordo_rdma *srv;
	int ret;

	BUILD_BUG_ON(sizeof(struct ordo_wire_conn_req) != ORDO_WIRE_CONN_REQ_MAX);
	BUILD_BUG_ON(sizeof(struct ordo_wire_conn_rep) > ORDO_WIRE_CONN_REP_MAX);
	BUILD_BUG_ON(sizeof(struct ordo_wire_conn_rej) > 148);
	BUILD_BUG_ON(sizeof(struct ordo_wire_hdr) != 24);
	BUILD_BUG_ON(sizeof(struct ordo_wire_kv) != 24);

	ret = ordo_rdma_check_params();
	if (ret)
		return ret;
	srv = kzalloc(sizeof(*srv), GFP_KERNEL);
	if (!srv)
		return -ENOMEM;
	ordo_rdma_setup(srv, od);
	srv->conns.stats = alloc_percpu(struct ordo_rdma_stats);
	srv->wq = alloc_workqueue("ordo_rdma", WQ_UNBOUND, 0);
	/*
	 * Per CPU and high priority, as ib_comp_wq: I/O work queued by a
	 * completion handler runs on its CPU, in the pool of the CQ's work.
	 */
	srv->io_wq = alloc_workqueue("ordo_rdma_io", WQ_HIGHPRI, 0);
	if (!srv->conns.stats || !srv->wq || !srv->io_wq) {
		ret = -ENOMEM;
		goto err_free;
	}
	srv->conns.wq = srv->wq;
	srv->conns.io_wq = srv->io_wq;
	srv->listener.wq = srv->wq;
	ret = ordo_rdma_sysfs_init(srv);
	if (ret)
		goto err_free;
	ret = ordo_rdma_ib_register(&srv->devs);
	if (ret)
		goto err_sysfs;
	ordo_rdma_debugfs_init();
	od->rdma = srv;

	ordo_rdma_token_serve(true);
	if (ordo_rdma_token_required())
		pr_info("RDMA clients must present the access token\n");
	else
		pr_notice("no access token set: any RDMA client that reaches the listener may connect\n");

	ordo_keepalive_start(&srv->conns);
	ret = ordo_listen_start(&srv->listener);
	if (ret)
		goto err_ib;
	return 0;

err_ib:
	ordo_keepalive_stop(&srv->conns);
	od->rdma = NULL;
	ordo_rdma_token_serve(false);
	ordo_rdma_debugfs_exit();
	ordo_rdma_ib_unregister(&srv->devs);
err_sysfs:
	ordo_rdma_sysfs_exit(srv);
err_free:
	ordo_rdma_free(srv);
	return ret;
}

/**
 * ordo_rdma_exit - stop the RDMA server; every client is disconnected
 * @od: the store, still intact
 */
void ordo_rdma_exit(struct ordo_dev *od)
{
	struct ordo_rdma *srv = od->rdma;

	if (!srv)
		return;
	spin_lock(&srv->lock);
	srv->conns.stopping = true;
	spin_unlock(&srv->lock);
	ordo_listen_stop(&srv->listener);
	ordo_keepalive_stop(&srv->conns);
	ordo_conns_close(&srv->conns, NULL);
	ordo_rdma_debugfs_exit();
	ordo_rdma_ib_unregister(&srv->devs);
	/* Release work still finishing its last lines holds the queue. */
	flush_workqueue(srv->wq);
	ordo_rdma_sysfs_exit(srv);
	ordo_rdma_token_serve(false);
	WARN_ON(!list_empty(&srv->conns.list) || !list_empty(&srv->devs.list));
	od->rdma = NULL;
	ordo_rdma_free(srv);
}
