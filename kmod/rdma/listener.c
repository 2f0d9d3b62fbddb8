// SPDX-License-Identifier: GPL-2.0
/*
 * The rdma_cm listener and connect-request admission.
 *
 * One listener on listen_addr:listen_port.  The default (empty) address is
 * the IPv6 wildcard with afonly off, which also takes IPv4 requests, on
 * every RDMA device present or added later.  The listener is (re)created by
 * listen_work: at start, when the parameters change, when the address moves
 * (ADDR_CHANGE) and after the device it was bound to went away
 * (DEVICE_REMOVAL); while the address cannot be bound it retries every
 * ORDO_LISTEN_RETRY.
 *
 * A connect request is checked in the listener's handler: private data
 * (magic, version, reserved bytes), throttle, token, device, connection
 * limit.  Then
 * the connection is built and accepted from inside the handler, as
 * rdma_accept() requires in 6.1; a non-zero return makes the CM destroy
 * the new id, so the handler never destroys an id itself.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/inet.h>
#include <linux/in6.h>
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/mutex.h>
#include <net/net_namespace.h>
#include <rdma/ib_cm.h>

#include "ordo.h"
#include "listener.h"
#include "wire.h"

#define ORDO_LISTEN_RETRY	(5 * HZ)
#define ORDO_LISTEN_BACKLOG	128
#define ORDO_LISTEN_ADDR_MAX	64

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

static char ordo_listen_addr[ORDO_LISTEN_ADDR_MAX];
static unsigned short ordo_listen_port = ORDO_WIRE_PORT;

/* The running listener, for parameter changes; NULL when stopped. */
static DEFINE_MUTEX(ordo_listen_mutex);
static struct ordo_listener *ordo_listen_l;

static void ordo_listen_params_changed(void);

/* Parse @addr ("" for every address) and @port into @ss. */
static int ordo_listen_parse(const char *addr, u16 port,
			     struct sockaddr_storage *ss)
{
	struct sockaddr_in6 *sin6 = (struct sockaddr_in6 *)ss;
	char p[8];

	memset(ss, 0, sizeof(*ss));
	if (!*addr) {
		sin6->sin6_family = AF_INET6;
		sin6->sin6_addr = in6addr_any;
		sin6->sin6_port = htons(port);
		return 0;
	}
	snprintf(p, sizeof(p), "%u", port);
	return inet_pton_with_scope(&init_net, AF_UNSPEC, addr, p, ss);
}

static int ordo_listen_addr_set(const char *val, const struct kernel_param *kp)
{
	char buf[ORDO_LISTEN_ADDR_MAX];
	struct sockaddr_storage ss;
	size_t len = strlen(val);
	int ret;

	if (len && val[len - 1] == '\n')
		len--;
	if (len >= sizeof(buf))
		return -EINVAL;
	memcpy(buf, val, len);
	buf[len] = 0;
	ret = ordo_listen_parse(buf, ORDO_WIRE_PORT, &ss);
	if (ret)
		return ret;
	strscpy(ordo_listen_addr, buf, sizeof(ordo_listen_addr));
	ordo_listen_params_changed();
	return 0;
}

static int ordo_listen_addr_get(char *buf, const struct kernel_param *kp)
{
	return scnprintf(buf, PAGE_SIZE, "%s\n", ordo_listen_addr);
}

static const struct kernel_param_ops ordo_listen_addr_ops = {
	.set = ordo_listen_addr_set,
	.get = ordo_listen_addr_get,
};
module_param_cb(listen_addr, &ordo_listen_addr_ops, NULL, 0644);
MODULE_PARM_DESC(listen_addr,
		 "IPv4 or IPv6 address the RDMA server listens on (default empty: all addresses); writing it moves the listener");

static int ordo_listen_port_set(const char *val, const struct kernel_param *kp)
{
	u16 port;
	int ret;

	ret = kstrtou16(val, 0, &port);
	if (ret)
		return ret;
	if (!port)
		return -EINVAL;
	ordo_listen_port = port;
	ordo_listen_params_changed();
	return 0;
}

static int ordo_listen_port_get(char *buf, const struct kernel_param *kp)
{
	return scnprintf(buf, PAGE_SIZE, "%u\n", ordo_listen_port);
}

static const struct kernel_param_ops ordo_listen_port_ops = {
	.set = ordo_listen_port_set,
	.get = ordo_listen_port_get,
};
module_param_cb(listen_port, &ordo_listen_port_ops, NULL, 0644);
MODULE_PARM_DESC(listen_port,
		 "rdma_cm port of the RDMA server (default 7471); writing it moves the listener");

/* Called by the parameter setters with the parameter lock held. */
static void ordo_listen_params_changed(void)
{
	mutex_lock(&ordo_listen_mutex);
	if (ordo_listen_l)
		mod_delayed_work(ordo_listen_l->wq, &ordo_listen_l->work, 0);
	mutex_unlock(&ordo_listen_mutex);
}

static int ordo_rdma_reject(struct ordo_listener *l, struct rdma_cm_id *id,
			    u16 reason, u32 limit)
{
	struct ordo_wire_conn_rej rej = {
		.magic = cpu_to_le32(ORDO_WIRE_MAGIC),
		.version = cpu_to_le16(ORDO_WIRE_VERSION),
		.reason = cpu_to_le16(reason),
		.limit = cpu_to_le32(limit),
	};

	atomic64_inc(&l->rejected[reason]);
	pr_info_ratelimited("rejected RDMA client %pISpc: %s\n",
			    &id->route.addr.dst_addr, ordo_wire_rej_str(reason));
	rdma_reject(id, &rej, sizeof(rej), IB_CM_REJ_CONSUMER_DEFINED);
	/* Non-zero: the CM destroys the id once the handler returns. */
	return -ECONNREFUSED;
}

/* Private data checks; 0 or an enum ordo_wire_rej_reason. */
static u16 ordo_rdma_check_req(const struct sockaddr *peer, const void *pdata,
			       u8 len, u32 *qd)
{
	u32 want = 0;
	u16 reason;

	reason = ordo_wire_conn_req_check(pdata, len, &want);
	if (reason)
		return reason;
	if (ordo_rdma_token_required() && ordo_throttle_blocked(peer))
		return ORDO_WIRE_REJ_THROTTLED;
	if (!ordo_rdma_token_ok(pdata)) {
		ordo_throttle_fail(peer);
		return ORDO_WIRE_REJ_TOKEN;
	}
	*qd = want ? min(want, ordo_rdma_queue_depth) : ordo_rdma_queue_depth;
	return 0;
}

/*
 * Admit one more connection from @peer on @ibdev, at most @per_peer from
 * one address (0: no limit): 0 or a reject reason.
 */
static u16 ordo_rdma_admit(struct ordo_listener *l, struct ib_device *ibdev,
			   const struct in6_addr *peer, u32 per_peer,
			   struct ordo_rdma_dev **devp, u32 *limit)
{
	struct ordo_rdma_peer *fresh = ordo_rdma_peer_alloc();
	struct ordo_rdma_dev *dev;
	u16 reason = 0;

	if (!fresh)
		return ORDO_WIRE_REJ_RESOURCES;
	spin_lock(l->lock);
	dev = ordo_rdma_dev_find(l->devs, ibdev);
	*limit = READ_ONCE(ordo_rdma_max_connections);
	if (l->conns->stopping || !dev || dev->dying) {
		reason = ORDO_WIRE_REJ_SHUTDOWN;
	} else if (!dev->usable) {
		reason = ORDO_WIRE_REJ_DEVICE;
	} else if (l->conns->nr >= *limit) {
		reason = ORDO_WIRE_REJ_BUSY;
	} else if (!ordo_rdma_peer_get(l, peer, per_peer, &fresh)) {
		reason = ORDO_WIRE_REJ_PEER_BUSY;
		*limit = per_peer;
	} else {
		l->conns->nr++;
		dev->nr_conns++;
		*devp = dev;
	}
	spin_unlock(l->lock);
	kfree(fresh);
	return reason;
}

static void ordo_rdma_unadmit(struct ordo_listener *l, struct ordo_rdma_dev *dev,
			      const struct in6_addr *peer)
{
	spin_lock(l->lock);
	ordo_rdma_peer_put(l, peer);
	l->conns->nr--;
	dev->nr_conns--;
	spin_unlock(l->lock);
	wake_up_all(&l->conns->wait);
}

static int ordo_rdma_connect(struct ordo_listener *l, struct rdma_cm_id *id,
			     struct rdma_cm_event *ev)
{
	struct sockaddr *sa = (struct sockaddr *)&id->route.addr.dst_addr;
	struct ordo_rdma_dev *dev = NULL;
	struct ordo_rdma_conn *c;
	struct in6_addr peer;
	u32 qd = 0, limit = 0, per_peer;
	u16 reason;

	/* Non-IP peers (AF_IB) share one count and are not limited. */
	per_peer = ordo_rdma_peer_addr(sa, &peer) ?
		   READ_ONCE(ordo_rdma_max_per_peer) : 0;
	reason = ordo_rdma_check_req(sa, ev->param.conn.private_data,
				     ev->param.conn.private_data_len, &qd);
	if (reason)
		return ordo_rdma_reject(l, id, reason, 0);
	reason = ordo_rdma_admit(l, id->device, &peer, per_peer, &dev,
				 &limit);
	if (reason)
		return ordo_rdma_reject(l, id, reason,
					reason == ORDO_WIRE_REJ_BUSY ||
					reason == ORDO_WIRE_REJ_PEER_BUSY ?
					limit : 0);
	c = ordo_conn_create(l->conns, dev, id, qd);
	if (IS_ERR(c)) {
		ordo_rdma_unadmit(l, dev, &peer);
		return ordo_rdma_reject(l, id, ORDO_WIRE_REJ_RESOURCES, 0);
	}
	c->peer_ip = peer;
	if (ordo_conn_accept(c, ev, ordo_rdma_token_required())) {
		/* The client gave up or the device failed: nothing to tell. */
		ordo_conn_destroy_unlisted(c);
		ordo_rdma_unadmit(l, dev, &peer);
		return -ECONNABORTED;
	}
	atomic64_inc(&l->conns_total);
	ordo_conn_publish(c);
	return 0;
}

static int ordo_listen_handler(struct rdma_cm_id *id, struct rdma_cm_event *ev)
{
	struct ordo_listener *l = id->context;
	bool own;

	switch (ev->event) {
	case RDMA_CM_EVENT_CONNECT_REQUEST:
		/* @id is the new connection's id; it inherited our context. */
		return ordo_rdma_connect(l, id, ev);
	case RDMA_CM_EVENT_ADDR_CHANGE:
		spin_lock(l->lock);
		if (l->id == id && !l->conns->stopping)
			mod_delayed_work(l->wq, &l->work, 0);
		spin_unlock(l->lock);
		return 0;
	case RDMA_CM_EVENT_DEVICE_REMOVAL:
		/*
		 * A listener bound to one device's address.  Whoever takes it
		 * off l->id destroys it: we by returning non-zero,
		 * or listen_work and ordo_listen_stop() by rdma_destroy_id().
		 */
		spin_lock(l->lock);
		own = l->id == id;
		if (own) {
			l->id = NULL;
			l->err = -ENODEV;
			if (!l->conns->stopping)
				mod_delayed_work(l->wq, &l->work,
						 ORDO_LISTEN_RETRY);
		}
		spin_unlock(l->lock);
		if (own)
			pr_info("listener lost its RDMA device; retrying\n");
		return own;
	default:
		return 0;
	}
}

/* Create, bind and listen; 0 or a negative errno. */
static int ordo_listen_create(struct ordo_listener *l,
			      struct sockaddr_storage *ss,
			      struct rdma_cm_id **idp)
{
	struct rdma_cm_id *id;
	int ret;

	id = rdma_create_id(&init_net, ordo_listen_handler, l, RDMA_PS_TCP,
			    IB_QPT_RC);
	if (IS_ERR(id))
		return PTR_ERR(id);
	/* One wildcard listener serves IPv4 and IPv6. */
	if (ss->ss_family == AF_INET6) {
		ret = rdma_set_afonly(id, 0);
		if (ret)
			goto err;
	}
	ret = rdma_bind_addr(id, (struct sockaddr *)ss);
	if (ret)
		goto err;
	ret = rdma_listen(id, ORDO_LISTEN_BACKLOG);
	if (ret)
		goto err;
	*idp = id;
	return 0;
err:
	rdma_destroy_id(id);
	return ret;
}

/**
 * ordo_listen_work - (re)create the listener from the current parameters
 * @work: ordo_listener.work
 */
static void ordo_listen_work(struct work_struct *work)
{
	struct ordo_listener *l = container_of(to_delayed_work(work),
					       struct ordo_listener, work);
	struct rdma_cm_id *old, *id = NULL;
	struct sockaddr_storage ss;
	char addr[ORDO_LISTEN_ADDR_MAX];
	bool stopping;
	u16 port;
	int ret;

	spin_lock(l->lock);
	old = l->id;
	l->id = NULL;
	stopping = l->conns->stopping;
	spin_unlock(l->lock);
	/* Close the old listener first: the new one may want its port. */
	if (old)
		rdma_destroy_id(old);
	if (stopping)
		return;

	kernel_param_lock(THIS_MODULE);
	strscpy(addr, ordo_listen_addr, sizeof(addr));
	port = ordo_listen_port;
	kernel_param_unlock(THIS_MODULE);

	ret = ordo_listen_parse(addr, port, &ss);
	if (!ret)
		ret = ordo_listen_create(l, &ss, &id);
	if (ret == -EAFNOSUPPORT && !*addr) {
		/* No IPv6 in this kernel: the IPv4 wildcard still works. */
		struct sockaddr_in *sin = (struct sockaddr_in *)&ss;

		memset(&ss, 0, sizeof(ss));
		sin->sin_family = AF_INET;
		sin->sin_port = htons(port);
		ret = ordo_listen_create(l, &ss, &id);
	}

	spin_lock(l->lock);
	l->err = ret;
	if (!ret && !l->conns->stopping) {
		l->id = id;
		l->addr = ss;
		id = NULL;
	} else if (ret && !l->conns->stopping) {
		mod_delayed_work(l->wq, &l->work, ORDO_LISTEN_RETRY);
	}
	spin_unlock(l->lock);
	if (id)
		rdma_destroy_id(id);
	if (ret)
		pr_warn_ratelimited("cannot listen on %s port %u: error %d; retrying every %d s\n",
				    *addr ? addr : "all addresses", port, ret,
				    ORDO_LISTEN_RETRY / HZ);
	else if (!stopping)
		pr_info("RDMA server listening on %pISpc\n", &ss);
}

/* A connection admitted here is released: it no longer counts. */
static void ordo_listen_released(struct ordo_rdma_conn *c, void *ctx)
{
	ordo_rdma_peer_put(ctx, &c->peer_ip);
}

const struct ordo_conn_ops ordo_listen_conn_ops = {
	.released = ordo_listen_released,
};

/**
 * ordo_listen_init - set up a listener that does not listen yet
 * @l: the listener; @lock, @devs and @conns set
 */
void ordo_listen_init(struct ordo_listener *l)
{
	INIT_LIST_HEAD(&l->peers);
	INIT_DELAYED_WORK(&l->work, ordo_listen_work);
}

/**
 * ordo_listen_start - listen now, or keep trying in the background
 * @l: the listener; @wq set
 *
 * Return: 0; a listen address that cannot be bound yet is retried.
 */
int ordo_listen_start(struct ordo_listener *l)
{
	mutex_lock(&ordo_listen_mutex);
	ordo_listen_l = l;
	mutex_unlock(&ordo_listen_mutex);
	mod_delayed_work(l->wq, &l->work, 0);
	flush_delayed_work(&l->work);
	return 0;
}

/**
 * ordo_listen_stop - destroy the listener for good
 * @l: the listener, its connections already marked stopping
 *
 * Returns once no connect request handler runs any more.
 */
void ordo_listen_stop(struct ordo_listener *l)
{
	struct rdma_cm_id *id;

	mutex_lock(&ordo_listen_mutex);
	ordo_listen_l = NULL;
	mutex_unlock(&ordo_listen_mutex);
	/* Handlers and the work re-arm it only while not stopping. */
	cancel_delayed_work_sync(&l->work);
	spin_lock(l->lock);
	id = l->id;
	l->id = NULL;
	spin_unlock(l->lock);
	if (id)
		rdma_destroy_id(id);
}
