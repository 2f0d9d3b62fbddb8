// SPDX-License-Identifier: GPL-2.0
/*
 * RDMA server: start and stop, the access token and the limits.
 *
 * Teardown order mirrors RTRS and nvmet-rdma: stop admitting, destroy the
 * listener (which waits for connect handlers in progress), close every
 * connection and wait until each is released (QP drained, MRs freed), then
 * let go of the devices and the work queue.  The store outlives all of it.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <crypto/algapi.h>
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/random.h>
#include <linux/slab.h>
#include <linux/string.h>

#include "ordo.h"
#include "rdma.h"

unsigned int ordo_rdma_max_connections = 64;
module_param_named(max_connections, ordo_rdma_max_connections, uint, 0644);
MODULE_PARM_DESC(max_connections,
		 "Most RDMA clients connected at once; further ones are rejected (default 64)");

unsigned int ordo_rdma_max_per_peer = 32;
module_param_named(max_connections_per_peer, ordo_rdma_max_per_peer, uint, 0644);
MODULE_PARM_DESC(max_connections_per_peer,
		 "Most RDMA clients connected at once from one IP address; 0: no limit (default 32)");

unsigned int ordo_rdma_queue_depth = 16;
module_param_named(queue_depth, ordo_rdma_queue_depth, uint, 0444);
MODULE_PARM_DESC(queue_depth,
		 "Most requests a client may have outstanding: 1..256 (default 16)");

unsigned int ordo_rdma_msg_size = 8192;
module_param_named(msg_size, ordo_rdma_msg_size, uint, 0444);
MODULE_PARM_DESC(msg_size,
		 "Bytes of the largest RPC request or reply: a power of two, 4096..65536 (default 8192)");

/*
 * The access token.  Write-only: the parameter has no get method, so its
 * sysfs file (mode 0200) cannot be read back, not even by root.
 */
static DEFINE_SPINLOCK(ordo_token_lock);
static u8 ordo_token[ORDO_WIRE_TOKEN_MAX];
static u32 ordo_token_len;
/* Set once the server runs: from then on, token changes are logged. */
static bool ordo_token_live;

static int ordo_token_set(const char *val, const struct kernel_param *kp)
{
	size_t len = strlen(val);
	bool live, changed;

	/* "echo secret > token" appends a newline that is not part of it. */
	if (len && val[len - 1] == '\n')
		len--;
	if (len > ORDO_WIRE_TOKEN_MAX || (len && len < ORDO_TOKEN_MIN)) {
		pr_warn("token: %d to %d bytes, or empty for none\n",
			ORDO_TOKEN_MIN, ORDO_WIRE_TOKEN_MAX);
		return -EINVAL;
	}
	spin_lock(&ordo_token_lock);
	changed = len != ordo_token_len || memcmp(ordo_token, val, len);
	memzero_explicit(ordo_token, sizeof(ordo_token));
	memcpy(ordo_token, val, len);
	ordo_token_len = len;
	live = ordo_token_live;
	spin_unlock(&ordo_token_lock);
	/* Failures against the old token say nothing about the new one. */
	if (changed)
		ordo_throttle_reset();
	if (!live || !changed)
		return 0;
	if (len)
		pr_info("access token changed (%zu bytes); connected clients keep their connections\n",
			len);
	else
		pr_notice("access token cleared: clients connect without a token\n");
	return 0;
}

static const struct kernel_param_ops ordo_token_ops = {
	.set = ordo_token_set,
};
module_param_cb(token, &ordo_token_ops, NULL, 0200);
MODULE_PARM_DESC(token,
		 "Access token RDMA clients must present (16 to 40 bytes; empty: none required). Write-only");

bool ordo_rdma_token_required(void)
{
	bool req;

	spin_lock(&ordo_token_lock);
	req = ordo_token_len != 0;
	spin_unlock(&ordo_token_lock);
	return req;
}

/**
 * ordo_rdma_token_ok - check a connect request's token in constant time
 * @req: the request, magic and version already checked
 *
 * Both tokens are compared as zero-padded %ORDO_WIRE_TOKEN_MAX-byte
 * fields, so the time taken tells nothing about where they differ or how
 * long the expected token is.
 *
 * Return: true if no token is required or the token matches.
 */
bool ordo_rdma_token_ok(const struct ordo_wire_conn_req *req)
{
	u8 want[ORDO_WIRE_TOKEN_MAX];
	u32 want_len;
	bool ok, same;

	spin_lock(&ordo_token_lock);
	memcpy(want, ordo_token, sizeof(want));
	want_len = ordo_token_len;
	spin_unlock(&ordo_token_lock);
	/* Both parts always evaluated: no early exit on the bytes. */
	same = !crypto_memneq(want, req->token, sizeof(want));
	ok = !want_len || (same && le16_to_cpu(req->token_len) == want_len);
	memzero_explicit(want, sizeof(want));
	return ok;
}

u64 ordo_rdma_stat_sum(struct ordo_rdma *srv, size_t offset)
{
	u64 sum = 0;
	int cpu;

	for_each_possible_cpu(cpu)
		sum += *(u64 *)((u8 *)per_cpu_ptr(srv->stats, cpu) + offset);
	return sum;
}

static int ordo_rdma_check_params(void)
{
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
	return 0;
}

/* Close every connection and wait until all are released. */
static void ordo_rdma_close_all(struct ordo_rdma *srv)
{
	struct ordo_rdma_conn *c;

	spin_lock(&srv->lock);
	list_for_each_entry(c, &srv->conns, srv_node)
		ordo_conn_close(c);
	spin_unlock(&srv->lock);
	wait_event(srv->conns_wait, !READ_ONCE(srv->nr_conns));
}

static void ordo_rdma_free(struct ordo_rdma *srv)
{
	if (srv->io_wq)
		destroy_workqueue(srv->io_wq);
	if (srv->wq)
		destroy_workqueue(srv->wq);
	free_percpu(srv->stats);
	kfree(srv);
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
	srv->od = od;
	srv->server_id = get_random_u64();
	spin_lock_init(&srv->lock);
	INIT_LIST_HEAD(&srv->devs);
	INIT_LIST_HEAD(&srv->conns);
	INIT_LIST_HEAD(&srv->peers);
	init_waitqueue_head(&srv->conns_wait);
	INIT_DELAYED_WORK(&srv->listen_work, ordo_listen_work);
	srv->stats = alloc_percpu(struct ordo_rdma_stats);
	srv->wq = alloc_workqueue("ordo_rdma", WQ_UNBOUND, 0);
	/*
	 * Per CPU and high priority, as ib_comp_wq: I/O work queued by a
	 * completion handler runs on its CPU, in the pool of the CQ's work.
	 */
	srv->io_wq = alloc_workqueue("ordo_rdma_io", WQ_HIGHPRI, 0);
	if (!srv->stats || !srv->wq || !srv->io_wq) {
		ret = -ENOMEM;
		goto err_free;
	}
	ret = ordo_rdma_sysfs_init(srv);
	if (ret)
		goto err_free;
	ret = ordo_rdma_ib_register(srv);
	if (ret)
		goto err_sysfs;
	od->rdma = srv;

	spin_lock(&ordo_token_lock);
	ordo_token_live = true;
	spin_unlock(&ordo_token_lock);
	if (ordo_rdma_token_required())
		pr_info("RDMA clients must present the access token\n");
	else
		pr_notice("no access token set: any RDMA client that reaches the listener may connect\n");

	ordo_keepalive_start(srv);
	ret = ordo_listen_start(srv);
	if (ret)
		goto err_ib;
	return 0;

err_ib:
	ordo_keepalive_stop(srv);
	od->rdma = NULL;
	ordo_rdma_ib_unregister(srv);
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
	srv->stopping = true;
	spin_unlock(&srv->lock);
	ordo_listen_stop(srv);
	ordo_keepalive_stop(srv);
	ordo_rdma_close_all(srv);
	ordo_rdma_ib_unregister(srv);
	/* Release work still finishing its last lines holds the queue. */
	flush_workqueue(srv->wq);
	ordo_rdma_sysfs_exit(srv);
	/* The token does not outlive the server in freed module memory. */
	spin_lock(&ordo_token_lock);
	ordo_token_live = false;
	memzero_explicit(ordo_token, sizeof(ordo_token));
	ordo_token_len = 0;
	spin_unlock(&ordo_token_lock);
	WARN_ON(!list_empty(&srv->conns) || !list_empty(&srv->devs));
	od->rdma = NULL;
	ordo_rdma_free(srv);
}
