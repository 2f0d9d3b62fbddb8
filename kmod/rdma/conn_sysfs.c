// SPDX-License-Identifier: GPL-2.0
/*
 * A connection's directory in sysfs, rdma/connections/<id>/ under the
 * server's rdma/connections/ (sysfs.c makes that one), documented in
 * Documentation/ABI/testing/sysfs-class-misc-ordo.  The directory's
 * kobject owns the connection: its release frees it.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/device.h>
#include <linux/jiffies.h>
#include <linux/kobject.h>
#include <linux/slab.h>
#include <linux/sysfs.h>

#include "conn.h"

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
		[ORDO_CONN_HANGUP] = "hanging-up",
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

static struct ordo_conn_u64_attr ordo_conn_attr_parked = {
	.attr = __ATTR(parked, 0444, ordo_conn_u64_show, NULL),
	.offset = offsetof(struct ordo_rdma_conn, parked),
};

static struct ordo_conn_u64_attr ordo_conn_attr_send_posts = {
	.attr = __ATTR(send_posts, 0444, ordo_conn_u64_show, NULL),
	.offset = offsetof(struct ordo_rdma_conn, send_posts),
};

static struct ordo_conn_u64_attr ordo_conn_attr_recv_posts = {
	.attr = __ATTR(recv_posts, 0444, ordo_conn_u64_show, NULL),
	.offset = offsetof(struct ordo_rdma_conn, recv_posts),
};

static struct ordo_conn_u64_attr ordo_conn_attr_signaled_replies = {
	.attr = __ATTR(signaled_replies, 0444, ordo_conn_u64_show, NULL),
	.offset = offsetof(struct ordo_rdma_conn, signaled_replies),
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
	&ordo_conn_attr_parked.attr.attr,
	&ordo_conn_attr_send_posts.attr.attr,
	&ordo_conn_attr_recv_posts.attr.attr,
	&ordo_conn_attr_signaled_replies.attr.attr,
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
void ordo_conn_kobj_init(struct ordo_rdma_conn *c)
{
	kobject_init(&c->kobj, &ordo_conn_ktype);
}

void ordo_conn_put(struct ordo_rdma_conn *c)
{
	kobject_put(&c->kobj);
}

/* A connection without its sysfs directory still works: no error. */
int ordo_conn_sysfs_add(struct ordo_rdma_conn *c)
{
	int ret = kobject_add(&c->kobj, c->set->kobj, "%u", c->id);

	if (ret)
		pr_warn_ratelimited("no sysfs directory for connection %u: %d\n",
				    c->id, ret);
	return ret;
}

void ordo_conn_sysfs_del(struct ordo_rdma_conn *c)
{
	if (c->kobj.state_in_sysfs)
		kobject_del(&c->kobj);
}

