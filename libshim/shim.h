/* SPDX-License-Identifier: GPL-2.0 */
/*
 * libordo internals: a handle dispatches to one backend.
 */
#ifndef LIBORDO_SHIM_H
#define LIBORDO_SHIM_H

#include "ordo.h"

struct ordo_backend {
	int (*info)(struct ordo *o, struct ordo_info *info);
	/* cmd: one of ORDO_IOC_{GET,PUT,INSERT,UPDATE,DELETE} */
	int (*kv)(struct ordo *o, unsigned long cmd, uint64_t key,
		  const void *val, size_t len);
	int (*scan)(struct ordo *o, uint64_t start, uint32_t n,
		    uint64_t *keys, void *vals, int *more, uint64_t *next);
	int (*batch)(struct ordo *o, struct ordo_batch_op *ops, uint32_t n);
	int (*model_info)(struct ordo *o, struct ordo_model_info *info);
	int (*retrain)(struct ordo *o, uint64_t *version);
	void (*close)(struct ordo *o);
};

struct ordo {
	const struct ordo_backend *be;
	int fd;
	size_t value_size;
};

int ordo_local_open(struct ordo *o, const char *path);

#endif /* LIBORDO_SHIM_H */
