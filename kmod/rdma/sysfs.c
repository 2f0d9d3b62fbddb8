// SPDX-License-Identifier: GPL-2.0
/*
 * sysfs of the RDMA server, under /sys/class/misc/ordo/rdma/:
 *
 *	listener		where the server listens, or why it does not
 *	stats/			server counters, one value per file
 *	connections/<id>/	one directory per connected client
 *
 * Documented in Documentation/ABI/testing/sysfs-class-misc-ordo.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/device.h>
#include <linux/jiffies.h>
#include <linux/kobject.h>
#include <linux/slab.h>
#include <linux/sysfs.h>

#include "ordo.h"
#include "rdma.h"

/* The server whose files these are; set while the files exist. */
static struct ordo_rdma *ordo_sysfs_srv;

static ssize_t listener_show(struct kobject *kobj, struct kobj_attribute *a,
			     char *buf)
{
	struct ordo_rdma *srv = ordo_sysfs_srv;
	struct sockaddr_storage ss;
	bool on;
	int err;

	spin_lock(&srv->lock);
	on = srv->listen_id;
	ss = srv->listen_addr;
	err = srv->listen_err;
	spin_unlock(&srv->lock);
	if (on)
		return sysfs_emit(buf, "%pISpc\n", &ss);
	return sysfs_emit(buf, "none (error %d)\n", err);
}

static struct kobj_attribute ordo_attr_listener = __ATTR_RO(listener);

static struct attribute *ordo_rdma_attrs[] = {
	&ordo_attr_listener.attr,
	NULL,
};

static const struct attribute_group ordo_rdma_group = {
	.attrs = ordo_rdma_attrs,
};

#define ORDO_RDMA_ATTR(_name, expr)					\
static ssize_t _name##_show(struct kobject *kobj,			\
			    struct kobj_attribute *a, char *buf)	\
{									\
	struct ordo_rdma *srv = ordo_sysfs_srv;				\
									\
	return sysfs_emit(buf, "%llu\n", (unsigned long long)(expr));	\
}									\
static struct kobj_attribute ordo_attr_##_name = __ATTR_RO(_name)

#define ORDO_RDMA_STAT(_name, field)					\
	ORDO_RDMA_ATTR(_name, ordo_rdma_stat_sum(srv,			\
		offsetof(struct ordo_rdma_stats, field)))

ORDO_RDMA_ATTR(connections, READ_ONCE(srv->nr_conns));
ORDO_RDMA_ATTR(connections_total, atomic64_read(&srv->conns_total));
ORDO_RDMA_ATTR(rejected_malformed,
	       atomic64_read(&srv->rejected[ORDO_WIRE_REJ_MALFORMED]));
ORDO_RDMA_ATTR(rejected_version,
	       atomic64_read(&srv->rejected[ORDO_WIRE_REJ_VERSION]));
ORDO_RDMA_ATTR(rejected_token,
	       atomic64_read(&srv->rejected[ORDO_WIRE_REJ_TOKEN]));
ORDO_RDMA_ATTR(rejected_throttled,
	       atomic64_read(&srv->rejected[ORDO_WIRE_REJ_THROTTLED]));
ORDO_RDMA_ATTR(rejected_peer_busy,
	       atomic64_read(&srv->rejected[ORDO_WIRE_REJ_PEER_BUSY]));
ORDO_RDMA_ATTR(rejected_busy,
	       atomic64_read(&srv->rejected[ORDO_WIRE_REJ_BUSY]));
ORDO_RDMA_ATTR(rejected_resources,
	       atomic64_read(&srv->rejected[ORDO_WIRE_REJ_RESOURCES]));
ORDO_RDMA_ATTR(rejected_shutdown,
	       atomic64_read(&srv->rejected[ORDO_WIRE_REJ_SHUTDOWN]));
ORDO_RDMA_ATTR(rejected_device,
	       atomic64_read(&srv->rejected[ORDO_WIRE_REJ_DEVICE]));
ORDO_RDMA_ATTR(registered_bytes, atomic64_read(&srv->registered_bytes));
ORDO_RDMA_ATTR(keepalive_probes, atomic64_read(&srv->probes));
ORDO_RDMA_ATTR(keepalive_closed, atomic64_read(&srv->keepalive_closed));
ORDO_RDMA_STAT(rpc_unknown, rpcs[0]);
ORDO_RDMA_STAT(rpc_get, rpcs[ORDO_WIRE_OP_GET]);
ORDO_RDMA_STAT(rpc_put, rpcs[ORDO_WIRE_OP_PUT]);
ORDO_RDMA_STAT(rpc_insert, rpcs[ORDO_WIRE_OP_INSERT]);
ORDO_RDMA_STAT(rpc_update, rpcs[ORDO_WIRE_OP_UPDATE]);
ORDO_RDMA_STAT(rpc_delete, rpcs[ORDO_WIRE_OP_DELETE]);
ORDO_RDMA_STAT(rpc_scan, rpcs[ORDO_WIRE_OP_SCAN]);
ORDO_RDMA_STAT(rpc_info, rpcs[ORDO_WIRE_OP_INFO]);
ORDO_RDMA_STAT(rpc_regions, rpcs[ORDO_WIRE_OP_REGIONS]);
ORDO_RDMA_STAT(rpc_model_fetch, rpcs[ORDO_WIRE_OP_MODEL_FETCH]);
ORDO_RDMA_STAT(rpc_batch, rpcs[ORDO_WIRE_OP_BATCH]);
ORDO_RDMA_STAT(rpc_lookup, rpcs[ORDO_WIRE_OP_LOOKUP]);
ORDO_RDMA_STAT(rpc_errors, rpc_errors);
ORDO_RDMA_STAT(bytes_in, bytes_in);
ORDO_RDMA_STAT(bytes_out, bytes_out);

static struct attribute *ordo_rdma_stats_attrs[] = {
	&ordo_attr_connections.attr,
	&ordo_attr_connections_total.attr,
	&ordo_attr_rejected_malformed.attr,
	&ordo_attr_rejected_version.attr,
	&ordo_attr_rejected_token.attr,
	&ordo_attr_rejected_throttled.attr,
	&ordo_attr_rejected_busy.attr,
	&ordo_attr_rejected_peer_busy.attr,
	&ordo_attr_rejected_resources.attr,
	&ordo_attr_rejected_shutdown.attr,
	&ordo_attr_rejected_device.attr,
	&ordo_attr_registered_bytes.attr,
	&ordo_attr_keepalive_probes.attr,
	&ordo_attr_keepalive_closed.attr,
	&ordo_attr_rpc_unknown.attr,
	&ordo_attr_rpc_get.attr,
	&ordo_attr_rpc_put.attr,
	&ordo_attr_rpc_insert.attr,
	&ordo_attr_rpc_update.attr,
	&ordo_attr_rpc_delete.attr,
	&ordo_attr_rpc_scan.attr,
	&ordo_attr_rpc_info.attr,
	&ordo_attr_rpc_regions.attr,
	&ordo_attr_rpc_model_fetch.attr,
	&ordo_attr_rpc_batch.attr,
	&ordo_attr_rpc_lookup.attr,
	&ordo_attr_rpc_errors.attr,
	&ordo_attr_bytes_in.attr,
	&ordo_attr_bytes_out.attr,
	NULL,
};

static const struct attribute_group ordo_rdma_stats_group = {
	.name = "stats",
	.attrs = ordo_rdma_stats_attrs,
};

/* rdma/connections/<id>/ */

#define to_conn(k) container_of(k, struct ordo_rdma_conn, kobj)

static ssize_t peer_show(struct kobject *kobj, struct kobj_attribute *a,
			 char *buf)
{
	return sysfs_emit(buf, "%pISpc\n", &to_conn(kobj)->peer);
}

static ssize_t device_show(struct kobject *kobj, struct kobj_attribute *a,
			   char *buf)
{
	return sysfs_emit(buf, "%s\n", dev_name(&to_conn(kobj)->dev->ibdev->dev));
}

static ssize_t state_show(struct kobject *kobj, struct kobj_attribute *a,
			  char *buf)
{
	static const char * const names[] = {
		[ORDO_CONN_CONNECTING] = "connecting",
		[ORDO_CONN_LIVE] = "live",
		[ORDO_CONN_CLOSING] = "closing",
	};

	return sysfs_emit(buf, "%s\n", names[READ_ONCE(to_conn(kobj)->state)]);
}

/* A u64 counter of the connection, written by its I/O path alone. */
struct ordo_conn_u64_attr {
	struct kobj_attribute attr;
	size_t offset;
};

static ssize_t ordo_conn_u64_show(struct kobject *kobj,
				  struct kobj_attribute *a, char *buf)
{
	struct ordo_conn_u64_attr *ca;
	const u64 *p;

	ca = container_of(a, struct ordo_conn_u64_attr, attr);
	p = (const u64 *)((const u8 *)to_conn(kobj) + ca->offset);
	return sysfs_emit(buf, "%llu\n", READ_ONCE(*p));
}

static struct ordo_conn_u64_attr ordo_conn_attr_rpcs = {
	.attr = __ATTR(rpcs, 0444, ordo_conn_u64_show, NULL),
	.offset = offsetof(struct ordo_rdma_conn, rpcs),
};

static struct ordo_conn_u64_attr ordo_conn_attr_errors = {
	.attr = __ATTR(errors, 0444, ordo_conn_u64_show, NULL),
	.offset = offsetof(struct ordo_rdma_conn, errors),
};

static struct ordo_conn_u64_attr ordo_conn_attr_bytes_in = {
	.attr = __ATTR(bytes_in, 0444, ordo_conn_u64_show, NULL),
	.offset = offsetof(struct ordo_rdma_conn, bytes_in),
};

static struct ordo_conn_u64_attr ordo_conn_attr_bytes_out = {
	.attr = __ATTR(bytes_out, 0444, ordo_conn_u64_show, NULL),
	.offset = offsetof(struct ordo_rdma_conn, bytes_out),
};

static struct ordo_conn_u64_attr ordo_conn_attr_registered_bytes = {
	.attr = __ATTR(registered_bytes, 0444, ordo_conn_u64_show, NULL),
	.offset = offsetof(struct ordo_rdma_conn, registered_bytes),
};

static struct ordo_conn_u64_attr ordo_conn_attr_parked = {
	.attr = __ATTR(parked, 0444, ordo_conn_u64_show, NULL),
	.offset = offsetof(struct ordo_rdma_conn, parked),
};

static struct ordo_conn_u64_attr ordo_conn_attr_send_posts = {
	.attr = __ATTR(send_posts, 0444, ordo_conn_u64_show, NULL),
	.offset = offsetof(struct ordo_rdma_conn, send_posts),
};

static struct ordo_conn_u64_attr ordo_conn_attr_inline_replies = {
	.attr = __ATTR(inline_replies, 0444, ordo_conn_u64_show, NULL),
	.offset = offsetof(struct ordo_rdma_conn, inline_replies),
};

static struct ordo_conn_u64_attr ordo_conn_attr_probes = {
	.attr = __ATTR(probes, 0444, ordo_conn_u64_show, NULL),
	.offset = offsetof(struct ordo_rdma_conn, probes),
};

static ssize_t queue_depth_show(struct kobject *kobj, struct kobj_attribute *a,
				char *buf)
{
	return sysfs_emit(buf, "%u\n", to_conn(kobj)->qd);
}

static ssize_t max_inline_show(struct kobject *kobj, struct kobj_attribute *a,
			       char *buf)
{
	return sysfs_emit(buf, "%u\n", to_conn(kobj)->max_inline);
}

static ssize_t srq_show(struct kobject *kobj, struct kobj_attribute *a,
			char *buf)
{
	return sysfs_emit(buf, "%d\n", !!to_conn(kobj)->srq);
}

static ssize_t idle_ms_show(struct kobject *kobj, struct kobj_attribute *a,
			    char *buf)
{
	unsigned long last = READ_ONCE(to_conn(kobj)->last_heard);

	return sysfs_emit(buf, "%u\n", jiffies_to_msecs(jiffies - last));
}

static struct kobj_attribute ordo_conn_attr_peer = __ATTR_RO(peer);
static struct kobj_attribute ordo_conn_attr_device = __ATTR_RO(device);
static struct kobj_attribute ordo_conn_attr_state = __ATTR_RO(state);
static struct kobj_attribute ordo_conn_attr_queue_depth = __ATTR_RO(queue_depth);
static struct kobj_attribute ordo_conn_attr_max_inline = __ATTR_RO(max_inline);
static struct kobj_attribute ordo_conn_attr_srq = __ATTR_RO(srq);
static struct kobj_attribute ordo_conn_attr_idle_ms = __ATTR_RO(idle_ms);

static struct attribute *ordo_conn_attrs[] = {
	&ordo_conn_attr_peer.attr,
	&ordo_conn_attr_device.attr,
	&ordo_conn_attr_state.attr,
	&ordo_conn_attr_queue_depth.attr,
	&ordo_conn_attr_max_inline.attr,
	&ordo_conn_attr_srq.attr,
	&ordo_conn_attr_idle_ms.attr,
	&ordo_conn_attr_rpcs.attr.attr,
	&ordo_conn_attr_errors.attr.attr,
	&ordo_conn_attr_bytes_in.attr.attr,
	&ordo_conn_attr_bytes_out.attr.attr,
	&ordo_conn_attr_registered_bytes.attr.attr,
	&ordo_conn_attr_parked.attr.attr,
	&ordo_conn_attr_send_posts.attr.attr,
	&ordo_conn_attr_inline_replies.attr.attr,
	&ordo_conn_attr_probes.attr.attr,
	NULL,
};
ATTRIBUTE_GROUPS(ordo_conn);

static void ordo_conn_kobj_release(struct kobject *kobj)
{
	kfree(to_conn(kobj));
}

static const struct kobj_type ordo_conn_ktype = {
	.release = ordo_conn_kobj_release,
	.sysfs_ops = &kobj_sysfs_ops,
	.default_groups = ordo_conn_groups,
};

/* The connection is freed by its kobject's release from now on. */
void ordo_rdma_conn_kobj_init(struct ordo_rdma_conn *c)
{
	kobject_init(&c->kobj, &ordo_conn_ktype);
}

void ordo_rdma_conn_put(struct ordo_rdma_conn *c)
{
	kobject_put(&c->kobj);
}

/* A connection without its sysfs directory still works: no error. */
int ordo_rdma_sysfs_conn_add(struct ordo_rdma_conn *c)
{
	int ret = kobject_add(&c->kobj, c->srv->conns_kobj, "%u", c->id);

	if (ret)
		pr_warn_ratelimited("no sysfs directory for connection %u: %d\n",
				    c->id, ret);
	return ret;
}

void ordo_rdma_sysfs_conn_del(struct ordo_rdma_conn *c)
{
	if (c->kobj.state_in_sysfs)
		kobject_del(&c->kobj);
}

int ordo_rdma_sysfs_init(struct ordo_rdma *srv)
{
	struct kobject *parent = &srv->od->misc.this_device->kobj;
	int ret;

	ordo_sysfs_srv = srv;
	srv->kobj = kobject_create_and_add("rdma", parent);
	if (!srv->kobj)
		return -ENOMEM;
	ret = sysfs_create_group(srv->kobj, &ordo_rdma_group);
	if (ret)
		goto err;
	ret = sysfs_create_group(srv->kobj, &ordo_rdma_stats_group);
	if (ret)
		goto err;
	srv->conns_kobj = kobject_create_and_add("connections", srv->kobj);
	if (!srv->conns_kobj) {
		ret = -ENOMEM;
		goto err;
	}
	return 0;
err:
	ordo_rdma_sysfs_exit(srv);
	return ret;
}

void ordo_rdma_sysfs_exit(struct ordo_rdma *srv)
{
	kobject_put(srv->conns_kobj);
	srv->conns_kobj = NULL;
	/* Removes the groups along with the directory. */
	kobject_put(srv->kobj);
	srv->kobj = NULL;
	ordo_sysfs_srv = NULL;
}
