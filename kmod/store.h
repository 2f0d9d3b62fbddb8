/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The store: node pool + B-link tree of this host, on kernel buffers.  The
 * user-facing paths (ioctl, batch, io_uring, later RPC) validate and copy
 * their arguments and call these.
 */
#ifndef ORDO_STORE_H
#define ORDO_STORE_H

#include <linux/types.h>

struct ordo_dev;
struct ordo_info;

int ordo_store_init(struct ordo_dev *od);
void ordo_store_destroy(struct ordo_dev *od);
void ordo_store_info(struct ordo_dev *od, struct ordo_info *info);

/* @val: value_size bytes; @len: set to the value's length.  0 or -ENOENT. */
int ordo_store_get(struct ordo_dev *od, u64 key, void *val, u32 *len);
/* @op: ORDO_OP_PUT, _INSERT or _UPDATE; @val: @len <= value_size bytes. */
int ordo_store_write(struct ordo_dev *od, u32 op, u64 key, const void *val,
		     u32 len);
int ordo_store_delete(struct ordo_dev *od, u64 key);
/*
 * Up to @n pairs with key >= @start into @keys and (unless NULL) @vals,
 * value_size bytes apart and zero-padded, and their lengths into @lens
 * (unless NULL).  Return: the number of pairs, or a negative errno.
 */
int ordo_store_scan(struct ordo_dev *od, u64 start, u32 n, u64 *keys,
		    void *vals, u32 *lens);

#endif /* ORDO_STORE_H */
