// SPDX-License-Identifier: GPL-2.0
/*
 * libordo: the local backend, /dev/ordo through ioctls.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "shim.h"

static int xioctl(struct ordo *o, unsigned long cmd, void *arg)
{
	return ioctl(o->fd, cmd, arg) < 0 ? -errno : 0;
}

static int local_info(struct ordo *o, struct ordo_info *info)
{
	memset(info, 0, sizeof(*info));
	return xioctl(o, ORDO_IOC_INFO, info);
}

static int local_kv(struct ordo *o, unsigned long cmd, uint64_t key,
		    const void *val, size_t len)
{
	struct ordo_kv kv = {
		.key = key,
		.value = (uintptr_t)val,
		.value_len = len > UINT32_MAX ? UINT32_MAX : (uint32_t)len,
	};

	return xioctl(o, cmd, &kv);
}

static int local_scan(struct ordo *o, uint64_t start, uint32_t n,
		      uint64_t *keys, void *vals, int *more, uint64_t *next)
{
	struct ordo_scan sc = {
		.start = start,
		.keys = (uintptr_t)keys,
		.values = (uintptr_t)vals,
		.count = n,
	};
	int ret = xioctl(o, ORDO_IOC_SCAN, &sc);

	if (ret)
		return ret;
	if (more)
		*more = sc.more;
	if (next)
		*next = sc.next;
	return (int)sc.returned;
}

static int local_batch(struct ordo *o, struct ordo_batch_op *ops, uint32_t n)
{
	struct ordo_batch b = { .ops = (uintptr_t)ops, .count = n };
	int ret = xioctl(o, ORDO_IOC_BATCH, &b);

	return ret ? ret : (int)b.done;
}

static int local_model_info(struct ordo *o, struct ordo_model_info *info)
{
	memset(info, 0, sizeof(*info));
	return xioctl(o, ORDO_IOC_MODEL_INFO, info);
}

static int local_retrain(struct ordo *o, uint64_t *version)
{
	struct ordo_retrain r = { 0 };
	int ret = xioctl(o, ORDO_IOC_RETRAIN, &r);

	if (!ret && version)
		*version = r.version;
	return ret;
}

static void local_close(struct ordo *o)
{
	close(o->fd);
}

static const struct ordo_backend local_backend = {
	.info = local_info,
	.kv = local_kv,
	.scan = local_scan,
	.batch = local_batch,
	.model_info = local_model_info,
	.retrain = local_retrain,
	.close = local_close,
};

int ordo_local_open(struct ordo *o, const char *path)
{
	struct ordo_info info;
	int ret;

	o->fd = open(path, O_RDWR | O_CLOEXEC);
	if (o->fd < 0)
		return -errno;
	o->be = &local_backend;
	ret = local_info(o, &info);
	if (ret) {
		close(o->fd);
		return ret;
	}
	if (info.abi_version != ORDO_ABI_VERSION) {
		close(o->fd);
		return -EPROTO;
	}
	o->value_size = info.value_size;
	return 0;
}
