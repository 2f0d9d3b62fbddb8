// SPDX-License-Identifier: GPL-2.0
/*
 * libordo: handles and URI dispatch.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "shim.h"

struct ordo *ordo_open(const char *uri)
{
	struct ordo *o;
	int ret;

	if (!uri)
		uri = "/dev/ordo";
	o = calloc(1, sizeof(*o));
	if (!o)
		return NULL;
	o->fd = -1;
	if (uri[0] == '/')
		ret = ordo_local_open(o, uri);
	else if (!strncmp(uri, "rdma://", 7))
		ret = -EPROTONOSUPPORT;	/* the RDMA client is not built yet */
	else
		ret = -EINVAL;
	if (ret) {
		free(o);
		errno = -ret;
		return NULL;
	}
	return o;
}

void ordo_close(struct ordo *o)
{
	if (!o)
		return;
	o->be->close(o);
	free(o);
}

int ordo_info(struct ordo *o, struct ordo_info *info)
{
	return o->be->info(o, info);
}

size_t ordo_value_size(const struct ordo *o)
{
	return o->value_size;
}

int ordo_fd(const struct ordo *o)
{
	return o->fd;
}

int ordo_get(struct ordo *o, uint64_t key, void *val, size_t len)
{
	return o->be->kv(o, ORDO_IOC_GET, key, val, len);
}

int ordo_put(struct ordo *o, uint64_t key, const void *val, size_t len)
{
	return o->be->kv(o, ORDO_IOC_PUT, key, val, len);
}

int ordo_insert(struct ordo *o, uint64_t key, const void *val, size_t len)
{
	return o->be->kv(o, ORDO_IOC_INSERT, key, val, len);
}

int ordo_update(struct ordo *o, uint64_t key, const void *val, size_t len)
{
	return o->be->kv(o, ORDO_IOC_UPDATE, key, val, len);
}

int ordo_delete(struct ordo *o, uint64_t key)
{
	return o->be->kv(o, ORDO_IOC_DELETE, key, NULL, 0);
}

int ordo_scan(struct ordo *o, uint64_t start, uint32_t n, uint64_t *keys,
	      void *vals, int *more, uint64_t *next)
{
	return o->be->scan(o, start, n, keys, vals, more, next);
}

int ordo_batch(struct ordo *o, struct ordo_batch_op *ops, uint32_t n)
{
	return o->be->batch(o, ops, n);
}

int ordo_model_info(struct ordo *o, struct ordo_model_info *info)
{
	return o->be->model_info(o, info);
}

int ordo_retrain(struct ordo *o, uint64_t *version)
{
	return o->be->retrain(o, version);
}
