// SPDX-License-Identifier: GPL-2.0
/*
 * sysfs of the RDMA server, under /sys/class/misc/ordo/rdma/:
 *
 *	listener		where the server listens, or why it does not
 *	stats/			server counters, one value per file
 *	connections/<id>/	one directory per connected client (conn_sysfs.c)
 *
 * Documented in Documentation/ABI/testing/sysfs-class-misc-ordo.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/device.h>
#include <linux/kobject.h>
#include <linux/slab.h>
#include <linux/sysfs.h>

#include "ordo.h"
#include "server.h"

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
	on = srv->listener.id;
	ss = srv->listener.addr;
	err = srv->listener.err;
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

/* A counter of the registrars (mr.c), which have no server pointer. */
#define ORDO_REG_ATTR(_name, expr)					\
static ssize_t _name##_show(struct kobject *kobj,			\
			    struct kobj_attribute *a, char *buf)	\
{									\
	return sysfs_emit(buf, "%llu\n", (unsigned long long)(expr));	\
}									\
static struct kobj_attribute ordo_attr_##_name = __ATTR_RO(_name)

#define ORDO_RDMA_STAT(_name, field)					\
	ORDO_RDMA_ATTR(_name, ordo_rdma_stat_sum(srv,			\
		offsetof(struct ordo_rdma_stats, field)))

ORDO_RDMA_ATTR(connections, READ_ONCE(srv->conns.nr));
ORDO_RDMA_ATTR(connections_total,
	       atomic64_read(&srv->listener.conns_total));
ORDO_RDMA_ATTR(rejected_malformed,
	       atomic64_read(&srv->listener.rejected[ORDO_WIRE_REJ_MALFORMED]));
ORDO_RDMA_ATTR(rejected_version,
	       atomic64_read(&srv->listener.rejected[ORDO_WIRE_REJ_VERSION]));
ORDO_RDMA_ATTR(rejected_token,
	       atomic64_read(&srv->listener.rejected[ORDO_WIRE_REJ_TOKEN]));
ORDO_RDMA_ATTR(rejected_throttled,
	       atomic64_read(&srv->listener.rejected[ORDO_WIRE_REJ_THROTTLED]));
ORDO_RDMA_ATTR(rejected_peer_busy,
	       atomic64_read(&srv->listener.rejected[ORDO_WIRE_REJ_PEER_BUSY]));
ORDO_RDMA_ATTR(rejected_busy,
	       atomic64_read(&srv->listener.rejected[ORDO_WIRE_REJ_BUSY]));
ORDO_RDMA_ATTR(rejected_resources,
	       atomic64_read(&srv->listener.rejected[ORDO_WIRE_REJ_RESOURCES]));
ORDO_RDMA_ATTR(rejected_shutdown,
	       atomic64_read(&srv->listener.rejected[ORDO_WIRE_REJ_SHUTDOWN]));
ORDO_RDMA_ATTR(rejected_device,
	       atomic64_read(&srv->listener.rejected[ORDO_WIRE_REJ_DEVICE]));
ORDO_REG_ATTR(registered_bytes, atomic64_read(&ordo_reg_stats.bytes));
ORDO_REG_ATTR(mrs, atomic_long_read(&ordo_reg_stats.mrs));
ORDO_REG_ATTR(registrations, atomic64_read(&ordo_reg_stats.registrations));
ORDO_REG_ATTR(registration_failures,
	      atomic64_read(&ordo_reg_stats.failures));
ORDO_REG_ATTR(registration_attempts,
	      atomic64_read(&ordo_reg_stats.attempts));
ORDO_REG_ATTR(registration_backoff_ms,
	      atomic_long_read(&ordo_reg_stats.backoff_ms));
ORDO_REG_ATTR(registrar_runs, atomic64_read(&ordo_reg_stats.runs));
ORDO_REG_ATTR(mrs_retired, atomic64_read(&ordo_reg_stats.retired));
ORDO_REG_ATTR(remote_invalidations,
	      atomic64_read(&ordo_reg_stats.remote_invalidations));
ORDO_REG_ATTR(table_publications,
	      atomic64_read(&ordo_reg_stats.publications));
ORDO_RDMA_ATTR(keepalive_probes, atomic64_read(&srv->conns.probes));
ORDO_RDMA_ATTR(keepalive_closed, atomic64_read(&srv->conns.keepalive_closed));
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
ORDO_RDMA_STAT(rpc_stage, rpcs[ORDO_WIRE_OP_STAGE]);
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
	&ordo_attr_mrs.attr,
	&ordo_attr_registrations.attr,
	&ordo_attr_registration_failures.attr,
	&ordo_attr_registration_attempts.attr,
	&ordo_attr_registration_backoff_ms.attr,
	&ordo_attr_registrar_runs.attr,
	&ordo_attr_mrs_retired.attr,
	&ordo_attr_remote_invalidations.attr,
	&ordo_attr_table_publications.attr,
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
	&ordo_attr_rpc_stage.attr,
	&ordo_attr_rpc_errors.attr,
	&ordo_attr_bytes_in.attr,
	&ordo_attr_bytes_out.attr,
	NULL,
};

static const struct attribute_group ordo_rdma_stats_group = {
	.name = "stats",
	.attrs = ordo_rdma_stats_attrs,
};

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
	srv->conns.kobj = kobject_create_and_add("connections", srv->kobj);
	if (!srv->conns.kobj) {
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
	kobject_put(srv->conns.kobj);
	srv->conns.kobj = NULL;
	/* Removes the groups along with the directory. */
	kobject_put(srv->kobj);
	srv->kobj = NULL;
	ordo_sysfs_srv = NULL;
}
