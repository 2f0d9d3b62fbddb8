/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Validation and execution of /dev/ordo operations (ops.c).
 */
#ifndef ORDO_OPS_H
#define ORDO_OPS_H

#include <linux/types.h>

struct ordo_dev;
struct ordo_kv;
struct ordo_scan;
struct ordo_batch;
struct ordo_retrain;

int ordo_kv_load(const struct ordo_kv *kv, void *buf);
int ordo_kv_exec(struct ordo_dev *od, u32 op, u64 key, void *buf, u32 *len);
int ordo_op_kv(struct ordo_dev *od, u32 op, struct ordo_kv *kv);
int ordo_op_scan(struct ordo_dev *od, struct ordo_scan *sc);
int ordo_op_batch(struct ordo_dev *od, struct ordo_batch *b);
int ordo_op_retrain(struct ordo_dev *od, struct ordo_retrain *r);

/*
 * ordo_cmd - decode and run one command on a kernel copy of its argument
 * struct (@arg, @size bytes, already copied in); writes outputs back into
 * @arg.  Used by ioctl and io_uring alike.  Return: >= 0 or -errno.
 */
long ordo_cmd(struct ordo_dev *od, unsigned int cmd, void *arg, size_t size);

long ordo_cmd_payload(struct ordo_dev *od, unsigned int cmd,
		      const void *payload, size_t len);

#endif /* ORDO_OPS_H */
