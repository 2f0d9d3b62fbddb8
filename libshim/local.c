// SPDX-License-Identifier: GPL-2.0
/*
 * libordo: the local backend.  GET and SCAN read the read-only mappings of
 * the node pool and the model region (no system call per read); writes,
 * fallbacks, batches and admin calls are ioctls on /dev/ordo.  Reads and
 * calls complete at once, so every operation finishes in ordo_submit().
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <unistd.h>

#include "shim.h"

/**
 * struct local - the local backend's state
 * @pool: mapping of the node pool (max_chunks chunks of address space).
 * @pool_len: its bytes.
 * @model: mapping of the model region, or MAP_FAILED.
 * @model_len: its bytes.
 * @model_known: bytes of the model region known to exist (chunks are
 *	allocated as the model grows; touching others raises SIGBUS).
 * @chunk_size: bytes per pool chunk.
 * @bufs: the slots' read buffers.
 */
struct local {
	const uint8_t *pool;
	size_t pool_len;
	const uint8_t *model;
	size_t model_len;
	uint64_t model_known;
	uint64_t chunk_size;
	uint8_t *bufs;
};

static int xioctl(struct ordo *o, unsigned long cmd, void *arg)
{
	return ioctl(o->fd, cmd, arg) < 0 ? -errno : 0;
}

static int local_info(struct ordo *o, struct ordo_info *info)
{
	memset(info, 0, sizeof(*info));
	return xioctl(o, ORDO_IOC_INFO, info);
}

static int local_model_info(struct ordo *o, struct ordo_model_info *info)
{
	memset(info, 0, sizeof(*info));
	return xioctl(o, ORDO_IOC_MODEL_INFO, info);
}

/* Re-read what bounds the mappings: the superblock and the model size. */
static int local_refresh(struct ordo *o)
{
	struct local *l = o->priv;
	struct ordo_model_info mi;

	if (!local_model_info(o, &mi) && mi.region_bytes <= l->model_len)
		l->model_known = mi.region_bytes;
	return shim_super_load(o);
}

/* Copy one read; -ERANGE past what exists. */
static int local_copy(struct ordo *o, uint32_t kind, uint64_t off, void *dst,
		      size_t len)
{
	struct local *l = o->priv;
	uint64_t end;

	if (kind == SHIM_POOL) {
		/* Chunk 0 (node 0) always exists. */
		end = (uint64_t)(o->sup.nr_chunks ? o->sup.nr_chunks : 1) *
		      l->chunk_size;
		if (off > end || len > end - off)
			return -ERANGE;
		memcpy(dst, l->pool + off, len);
	} else {
		if (off > l->model_known || len > l->model_known - off)
			return -ERANGE;
		memcpy(dst, l->model + off, len);
	}
	o->cnt.reads++;
	o->cnt.bytes_read += len;
	return 0;
}

static int local_bulk(struct ordo *o, uint32_t kind, uint64_t off, void *dst,
		      size_t len)
{
	int ret = local_copy(o, kind, off, dst, len);

	if (ret == -ERANGE && !local_refresh(o))
		ret = local_copy(o, kind, off, dst, len);
	return ret;
}

static int local_read(struct ordo *o, struct shim_op *op)
{
	uint32_t i;
	int ret = 0;

	for (i = 0; i < op->nio && !ret; i++)
		ret = local_copy(o, op->io[i].kind, op->io[i].off,
				 op->io[i].dst, op->io[i].len);
	op->io_res = ret;
	return 1;
}

/* LOOKUP locally: the GET by ioctl, the sub-model from the mapping. */
static int local_call(struct ordo *o, struct shim_op *op)
{
	struct shim_call *c = &op->call;
	struct ordo_kv kv = { .key = c->key };
	struct ordo_scan sc;
	unsigned long cmd;
	int ret;

	o->cnt.rpcs++;
	switch (c->op) {
	case SHIM_CALL_SCAN:
		memset(&sc, 0, sizeof(sc));
		sc.start = c->key;
		sc.keys = (uintptr_t)c->out_keys;
		sc.values = (uintptr_t)c->out_vals;
		sc.lens = (uintptr_t)c->out_lens;
		sc.count = c->count;
		ret = xioctl(o, ORDO_IOC_SCAN, &sc);
		c->returned = sc.returned;
		c->more = sc.more;
		c->next = sc.next;
		break;
	case SHIM_CALL_LOOKUP:
	case ORDO_OP_GET:
		kv.value = (uintptr_t)c->out_val;
		kv.value_len = c->out_cap;
		ret = xioctl(o, ORDO_IOC_GET, &kv);
		c->out_len = kv.value_len;
		break;
	default:
		cmd = c->op == ORDO_OP_PUT ? ORDO_IOC_PUT :
		      c->op == ORDO_OP_INSERT ? ORDO_IOC_INSERT :
		      c->op == ORDO_OP_UPDATE ? ORDO_IOC_UPDATE :
		      ORDO_IOC_DELETE;
		kv.value = (uintptr_t)c->val;
		kv.value_len = c->len;
		ret = xioctl(o, cmd, &kv);
		break;
	}
	c->status = ret;
	op->io_res = 0;
	return 1;
}

/* Everything completed in ordo_submit(): nothing to wait for. */
static int local_wait(struct ordo *o, int ms)
{
	(void)o;
	(void)ms;
	return 0;
}

static int local_batch(struct ordo *o, struct ordo_batch_op *ops, uint32_t n)
{
	struct ordo_batch b = { .ops = (uintptr_t)ops, .count = n };
	int ret = xioctl(o, ORDO_IOC_BATCH, &b);

	o->cnt.rpcs++;
	return ret ? ret : (int)b.done;
}

/* ORDO_IOC_BATCH carries values of up to value_size bytes. */
static bool local_batch_takes(struct ordo *o, const struct ordo_batch_op *b)
{
	return b->op == ORDO_OP_GET || b->op == ORDO_OP_DELETE ||
	       b->kv.value_len <= o->geo.value_size;
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
	struct local *l = o->priv;

	if (l) {
		if (l->pool && l->pool != MAP_FAILED)
			munmap((void *)l->pool, l->pool_len);
		if (l->model && l->model != MAP_FAILED)
			munmap((void *)l->model, l->model_len);
		free(l->bufs);
		free(l);
	}
	close(o->fd);
}

static const struct shim_backend local_backend = {
	.read = local_read,
	.call = local_call,
	.wait = local_wait,
	.bulk = local_bulk,
	.info = local_info,
	.model_info = local_model_info,
	.retrain = local_retrain,
	.batch = local_batch,
	.batch_takes = local_batch_takes,
	.refresh = local_refresh,
	.close = local_close,
};

/* Map the pool and the model region; read node 0. */
static int local_map(struct ordo *o, const struct ordo_info *info)
{
	struct local *l = o->priv;
	struct ordo_model_info mi;

	l->chunk_size = info->chunk_size;
	l->pool_len = (size_t)info->max_chunks * info->chunk_size;
	l->pool = mmap(NULL, l->pool_len, PROT_READ, MAP_SHARED, o->fd,
		       ORDO_MMAP_POOL);
	if (l->pool == MAP_FAILED)
		return -errno;
	/* The region never outgrows model_max_mb; reserve address space. */
	l->model_len = 1ULL << 32;
	l->model = mmap(NULL, l->model_len, PROT_READ, MAP_SHARED, o->fd,
			ORDO_MMAP_MODEL);
	if (l->model == MAP_FAILED)
		l->model_len = 0;
	if (!local_model_info(o, &mi) && mi.region_bytes <= l->model_len)
		l->model_known = mi.region_bytes;
	return shim_super_load(o);
}

int ordo_local_open(struct ordo *o, const char *path)
{
	struct ordo_info info;
	struct local *l;
	size_t per;
	int ret;

	o->fd = open(path, O_RDWR | O_CLOEXEC);
	if (o->fd < 0)
		return -errno;
	o->be = &local_backend;
	l = calloc(1, sizeof(*l));
	o->priv = l;
	ret = l ? local_info(o, &info) : -ENOMEM;
	if (!ret && info.abi_version != ORDO_ABI_VERSION)
		ret = -EPROTO;
	if (!ret)
		ret = ordo_geo_init(&o->geo, info.leaf_slots, info.value_size);
	/* Bounds the values (shim_value_max()) in rpc mode too. */
	o->sup.chunk_size = info.chunk_size;
	if (!ret && o->mode != ORDO_MODE_RPC)
		ret = local_map(o, &info);
	if (!ret) {
		per = shim_slot_bytes(&o->geo);
		l->bufs = calloc(o->qd, per);
		ret = l->bufs ? shim_slots_init(o, l->bufs, per) : -ENOMEM;
	}
	if (ret) {
		local_close(o);
		o->priv = NULL;
		return ret;
	}
	return 0;
}
