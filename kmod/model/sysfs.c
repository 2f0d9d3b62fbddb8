// SPDX-License-Identifier: GPL-2.0
/*
 * sysfs: /sys/class/misc/ordo/model/, one figure per file, the same as
 * ORDO_IOC_MODEL_INFO.
 */
#include <linux/device.h>
#include <linux/sysfs.h>

#include "ordo.h"
#include "trainer.h"

#define ORDO_MODEL_ATTR(name, field)					\
static ssize_t name##_show(struct device *dev,				\
			   struct device_attribute *attr, char *buf)	\
{									\
	struct ordo_model_info info;					\
									\
	ordo_trainer_info(ordo, &info);					\
	return sysfs_emit(buf, "%llu\n", (u64)info.field);		\
}									\
static DEVICE_ATTR_RO(name)

ORDO_MODEL_ATTR(version, version);
ORDO_MODEL_ATTR(keys, keys);
ORDO_MODEL_ATTR(sub_models, sub_models);
ORDO_MODEL_ATTR(tt_entries, tt_entries);
ORDO_MODEL_ATTR(tt_capacity, tt_capacity);
ORDO_MODEL_ATTR(eps, eps);
ORDO_MODEL_ATTR(model_bytes, model_bytes);
ORDO_MODEL_ATTR(tt_bytes, tt_bytes);
ORDO_MODEL_ATTR(region_bytes, region_bytes);
ORDO_MODEL_ATTR(err_pos_avg_milli, err_pos_avg_milli);
ORDO_MODEL_ATTR(err_pos_max, err_pos_max);
ORDO_MODEL_ATTR(err_leaf_avg_milli, err_leaf_avg_milli);
ORDO_MODEL_ATTR(err_leaf_max, err_leaf_max);
ORDO_MODEL_ATTR(window_avg_milli, window_avg_milli);
ORDO_MODEL_ATTR(window_max, window_max);
ORDO_MODEL_ATTR(one_leaf_ppm, one_leaf_ppm);
ORDO_MODEL_ATTR(cand_avg_milli, cand_avg_milli);
ORDO_MODEL_ATTR(cand_max, cand_max);
ORDO_MODEL_ATTR(cand_one_ppm, cand_one_ppm);
ORDO_MODEL_ATTR(wrong, wrong);
ORDO_MODEL_ATTR(retrains, retrains);
ORDO_MODEL_ATTR(pending, pending);
ORDO_MODEL_ATTR(full_trains, full_trains);
ORDO_MODEL_ATTR(expansions, expansions);
ORDO_MODEL_ATTR(shrinks, shrinks);
ORDO_MODEL_ATTR(last_full_train_us, last_full_train_us);
ORDO_MODEL_ATTR(last_full_train_ns, last_full_train_ns);

static ssize_t full_train_failures_show(struct device *dev,
					struct device_attribute *attr,
					char *buf)
{
	return sysfs_emit(buf, "%llu\n", ordo_trainer_failures(ordo));
}
static DEVICE_ATTR_RO(full_train_failures);

static struct attribute *ordo_model_attrs[] = {
	&dev_attr_version.attr,
	&dev_attr_keys.attr,
	&dev_attr_sub_models.attr,
	&dev_attr_tt_entries.attr,
	&dev_attr_tt_capacity.attr,
	&dev_attr_eps.attr,
	&dev_attr_model_bytes.attr,
	&dev_attr_tt_bytes.attr,
	&dev_attr_region_bytes.attr,
	&dev_attr_err_pos_avg_milli.attr,
	&dev_attr_err_pos_max.attr,
	&dev_attr_err_leaf_avg_milli.attr,
	&dev_attr_err_leaf_max.attr,
	&dev_attr_window_avg_milli.attr,
	&dev_attr_window_max.attr,
	&dev_attr_one_leaf_ppm.attr,
	&dev_attr_cand_avg_milli.attr,
	&dev_attr_cand_max.attr,
	&dev_attr_cand_one_ppm.attr,
	&dev_attr_wrong.attr,
	&dev_attr_retrains.attr,
	&dev_attr_pending.attr,
	&dev_attr_full_trains.attr,
	&dev_attr_expansions.attr,
	&dev_attr_shrinks.attr,
	&dev_attr_last_full_train_us.attr,
	&dev_attr_last_full_train_ns.attr,
	&dev_attr_full_train_failures.attr,
	NULL,
};

const struct attribute_group ordo_model_group = {
	.name = "model",
	.attrs = ordo_model_attrs,
};
