// SPDX-License-Identifier: GPL-2.0
/*
 * sysfs: /sys/class/misc/ordo/{version,stats/}.  One value per file.
 */
#include <linux/device.h>
#include <linux/sysfs.h>

#include "ordo.h"
#include "trainer.h"

u64 ordo_stat_sum(struct ordo_dev *od, enum ordo_stat s)
{
	u64 sum = 0;
	int cpu;

	for_each_possible_cpu(cpu)
		sum += per_cpu_ptr(od->stats, cpu)->count[s];
	return sum;
}

static ssize_t version_show(struct device *dev, struct device_attribute *attr,
			    char *buf)
{
	return sysfs_emit(buf, "%s\n", ORDO_VERSION);
}
static DEVICE_ATTR_RO(version);

static struct attribute *ordo_attrs[] = {
	&dev_attr_version.attr,
	NULL,
};

static const struct attribute_group ordo_group = {
	.attrs = ordo_attrs,
};

#define ORDO_STAT_ATTR(name, stat)					\
static ssize_t name##_show(struct device *dev,				\
			   struct device_attribute *attr, char *buf)	\
{									\
	return sysfs_emit(buf, "%llu\n", ordo_stat_sum(ordo, stat));	\
}									\
static DEVICE_ATTR_RO(name)

ORDO_STAT_ATTR(gets, ORDO_STAT_GETS);
ORDO_STAT_ATTR(puts, ORDO_STAT_PUTS);
ORDO_STAT_ATTR(inserts, ORDO_STAT_INSERTS);
ORDO_STAT_ATTR(updates, ORDO_STAT_UPDATES);
ORDO_STAT_ATTR(deletes, ORDO_STAT_DELETES);
ORDO_STAT_ATTR(scans, ORDO_STAT_SCANS);
ORDO_STAT_ATTR(errors, ORDO_STAT_ERRORS);

#define ORDO_TREE_ATTR(name, expr)					\
static ssize_t name##_show(struct device *dev,				\
			   struct device_attribute *attr, char *buf)	\
{									\
	struct ordo_tree_stats st;					\
									\
	ordo_tree_get_stats(&ordo->tree, &st);				\
	return sysfs_emit(buf, "%llu\n", (u64)(expr));			\
}									\
static DEVICE_ATTR_RO(name)

ORDO_TREE_ATTR(keys, st.keys);
ORDO_TREE_ATTR(leaves, st.leaves);
ORDO_TREE_ATTR(inner_nodes, st.inner_nodes);
ORDO_TREE_ATTR(height, st.height);
ORDO_TREE_ATTR(splits, st.leaf_splits + st.inner_splits);
ORDO_TREE_ATTR(leaves_retired, st.leaves_retired);
ORDO_TREE_ATTR(pool_bytes_used, st.pool_bytes_used);
ORDO_TREE_ATTR(pool_bytes_total, st.pool_bytes_total);
ORDO_TREE_ATTR(extent_bytes, st.extent_bytes);

static struct attribute *ordo_stats_attrs[] = {
	&dev_attr_keys.attr,
	&dev_attr_leaves.attr,
	&dev_attr_inner_nodes.attr,
	&dev_attr_height.attr,
	&dev_attr_splits.attr,
	&dev_attr_leaves_retired.attr,
	&dev_attr_pool_bytes_used.attr,
	&dev_attr_pool_bytes_total.attr,
	&dev_attr_extent_bytes.attr,
	&dev_attr_gets.attr,
	&dev_attr_puts.attr,
	&dev_attr_inserts.attr,
	&dev_attr_updates.attr,
	&dev_attr_deletes.attr,
	&dev_attr_scans.attr,
	&dev_attr_errors.attr,
	NULL,
};

static const struct attribute_group ordo_stats_group = {
	.name = "stats",
	.attrs = ordo_stats_attrs,
};

const struct attribute_group *ordo_sysfs_groups[] = {
	&ordo_group,
	&ordo_stats_group,
	&ordo_model_group,
	NULL,
};
