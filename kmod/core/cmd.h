/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Decoding of /dev/ordo commands and the checks of their argument structs
 * (linux/ordo.h): what the ioctl and io_uring paths take from user space
 * before anything executes.  Kernel-neutral, so the same code runs in
 * ordo.ko (kmod/ioctl.c, kmod/ops.c) and in the native fuzzers.
 */
#ifndef ORDO_CORE_CMD_H
#define ORDO_CORE_CMD_H

#include "compat.h"
#include <linux/ordo.h>

/* The ioctl number with its size bits cleared: what identifies a command. */
#define ORDO_IOC_BASE(cmd)	((cmd) & ~(_IOC_SIZEMASK << _IOC_SIZESHIFT))

union ordo_args {
	struct ordo_info info;
	struct ordo_kv kv;
	struct ordo_scan scan;
	struct ordo_batch batch;
	struct ordo_model_info model;
	struct ordo_retrain retrain;
};

/* Bytes of a command payload (an io_uring SQE's command area) looked at. */
#define ORDO_CMD_PAYLOAD_MAX	(sizeof(union ordo_args) + 64)

/**
 * struct ordo_cmd_desc - what a command takes
 * @cmd: the ioctl number of the current struct version
 * @op: enum ordo_op for point operations, else 0
 * @size: size of the current struct version
 * @min_size: size of its first version, the smallest accepted
 */
struct ordo_cmd_desc {
	unsigned int cmd;
	u32 op;
	size_t size;
	size_t min_size;
};

const struct ordo_cmd_desc *ordo_cmd_find(unsigned int cmd);
int ordo_cmd_size(unsigned int cmd, size_t usize,
		  const struct ordo_cmd_desc **dp);
int ordo_cmd_decode(unsigned int cmd, const void *payload, size_t len,
		    union ordo_args *args, const struct ordo_cmd_desc **dp);
int ordo_kv_check(u32 op, const struct ordo_kv *kv, u32 value_size,
		  u32 value_max);
int ordo_scan_check(const struct ordo_scan *sc);
int ordo_batch_check(const struct ordo_batch *b);
int ordo_retrain_check(const struct ordo_retrain *r);

#endif /* ORDO_CORE_CMD_H */
