// SPDX-License-Identifier: GPL-2.0
/*
 * Liveness: a client whose host died or was cut off sends nothing, and
 * nothing on an idle reliable connection would ever notice.  Every tenth
 * of keepalive_timeout the server looks at each connection: one silent
 * (no request received, no reply or probe acknowledged) for a third of the
 * timeout gets a probe, a zero-length RDMA WRITE that the client's RDMA
 * device acknowledges by itself; one silent for the whole timeout, with a
 * probe unanswered for at least a third of it, is closed, which frees its
 * QP, buffers and max_connections slot (io.c, ordo_io_keepalive()).
 * Documented in Documentation/wire.rst ("Liveness").
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/jiffies.h>
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/mutex.h>

#include "conn.h"

#define ORDO_KEEPALIVE_MAX	86400

unsigned int ordo_rdma_keepalive = 30;

/* The running server's connections, for parameter changes; NULL if none. */
static DEFINE_MUTEX(ordo_keepalive_mutex);
static struct ordo_conn_set *ordo_keepalive_conns;

static int ordo_keepalive_set(const char *val, const struct kernel_param *kp)
{
	unsigned int v;
	int ret;

	ret = kstrtouint(val, 0, &v);
	if (ret)
		return ret;
	if (v > ORDO_KEEPALIVE_MAX)
		return -EINVAL;
	WRITE_ONCE(ordo_rdma_keepalive, v);
	/* Look at the connections again with the new timeout. */
	mutex_lock(&ordo_keepalive_mutex);
	if (ordo_keepalive_conns)
		mod_delayed_work(ordo_keepalive_conns->wq,
				 &ordo_keepalive_conns->keepalive_work, 0);
	mutex_unlock(&ordo_keepalive_mutex);
	return 0;
}

static const struct kernel_param_ops ordo_keepalive_ops = {
	.set = ordo_keepalive_set,
	.get = param_get_uint,
};
module_param_cb(keepalive_timeout, &ordo_keepalive_ops, &ordo_rdma_keepalive,
		0644);
MODULE_PARM_DESC(keepalive_timeout,
		 "Seconds an RDMA connection may stay silent (probed from a third of it) before it is closed; 0: never (default 30)");

static void ordo_keepalive_work(struct work_struct *work)
{
	struct ordo_conn_set *set = container_of(to_delayed_work(work),
						 struct ordo_conn_set,
						 keepalive_work);
	unsigned int secs = READ_ONCE(ordo_rdma_keepalive);
	unsigned long now = jiffies, timeout;
	struct ordo_rdma_conn *c;

	if (!secs)
		return;
	timeout = (unsigned long)secs * HZ;
	spin_lock(set->lock);
	list_for_each_entry(c, &set->list, set_node) {
		if (!ordo_io_keepalive(c, now, timeout))
			continue;
		atomic64_inc(&set->keepalive_closed);
		pr_info_ratelimited("connection %u: nothing heard from %pISpc for %u s, closing\n",
				    c->id, &c->peer, secs);
		ordo_conn_close(c);
	}
	spin_unlock(set->lock);
	queue_delayed_work(set->wq, &set->keepalive_work,
			   max(timeout / 10, 1UL));
}

/**
 * ordo_keepalive_start - look after idle connections from now on
 * @set: the connections of the server; @set->wq set
 */
void ordo_keepalive_start(struct ordo_conn_set *set)
{
	INIT_DELAYED_WORK(&set->keepalive_work, ordo_keepalive_work);
	mutex_lock(&ordo_keepalive_mutex);
	ordo_keepalive_conns = set;
	mutex_unlock(&ordo_keepalive_mutex);
	mod_delayed_work(set->wq, &set->keepalive_work, 0);
}

/**
 * ordo_keepalive_stop - stop looking; returns once no scan runs
 * @set: the connections of the server
 */
void ordo_keepalive_stop(struct ordo_conn_set *set)
{
	mutex_lock(&ordo_keepalive_mutex);
	ordo_keepalive_conns = NULL;
	mutex_unlock(&ordo_keepalive_mutex);
	cancel_delayed_work_sync(&set->keepalive_work);
}
