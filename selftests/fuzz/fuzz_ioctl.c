// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target: /dev/ordo command decoding and argument checks
 * (kmod/core/cmd.c), as the ioctl and io_uring paths run them.
 *
 * Input: [sel u8][size u8][value_size u8][payload...].  sel < 240 picks a
 * known command (sel % 10) whose size field is replaced by @size unless it
 * is 0; otherwise the command number is the next 4 bytes.  The payload is
 * the argument bytes (an SQE's command area); BATCH entries follow it.
 */
#include "fuzz.h"
#include "cmd.h"
#include <linux/ordo_node.h>

static const unsigned int cmds[] = {
	ORDO_IOC_INFO, ORDO_IOC_GET, ORDO_IOC_PUT, ORDO_IOC_INSERT,
	ORDO_IOC_UPDATE, ORDO_IOC_DELETE, ORDO_IOC_SCAN, ORDO_IOC_BATCH,
	ORDO_IOC_MODEL_INFO, ORDO_IOC_RETRAIN,
};

/* A store's longest value: the default chunk's, or value_size (BATCH). */
static void check_kv(u32 op, const struct ordo_kv *kv, u32 vs)
{
	u32 vmax = vs & 1 ? vs : ordo_value_len_max(ORDO_CHUNK_SIZE_DEFAULT);
	int ret = ordo_kv_check(op, kv, vs, vmax);

	if (ret)
		return;
	FZ_CHECK(op >= ORDO_OP_GET && op <= ORDO_OP_DELETE && !kv->flags);
	if (op == ORDO_OP_DELETE)
		return;
	/* An empty write needs no buffer; every other op does. */
	FZ_CHECK(kv->value || (op != ORDO_OP_GET && !kv->value_len));
	if (op == ORDO_OP_GET)
		FZ_CHECK(kv->value_len >= vs);
	else
		FZ_CHECK(kv->value_len <= vmax);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fin f = { data, size };
	const struct ordo_cmd_desc *d = NULL, *d2 = NULL;
	uint8_t sel = fin_u8(&f), sz = fin_u8(&f);
	u32 vs = fz_value_size(fin_u8(&f));
	union ordo_args args;
	unsigned int cmd;
	const uint8_t *pl;
	size_t len, usize, i;
	uint8_t *payload;
	int ret;

	if (sel < 240) {
		cmd = cmds[sel % ARRAY_SIZE(cmds)];
		if (sz)
			cmd = _IOC(_IOC_DIR(cmd), _IOC_TYPE(cmd), _IOC_NR(cmd),
				   sz);
	} else {
		cmd = fin_u32(&f);
	}
	pl = fin_bytes(&f, f.n, &len);
	payload = fz_copy(pl, len);
	usize = _IOC_SIZE(cmd);

	/* ioctl(2): the size bits say how much the caller passes. */
	ret = ordo_cmd_size(cmd, usize, &d);
	if (!ret) {
		FZ_CHECK(d && d == ordo_cmd_find(cmd));
		FZ_CHECK(usize >= d->min_size && d->min_size <= d->size &&
			 d->size <= sizeof(union ordo_args));
		FZ_CHECK(_IOC_TYPE(cmd) == ORDO_IOC_MAGIC);
	} else {
		FZ_CHECK(ret == -ENOTTY || ret == -EINVAL);
	}

	/* io_uring: the struct in the SQE's command area. */
	ret = ordo_cmd_decode(cmd, payload, len, &args, &d2);
	if (ret) {
		FZ_CHECK(ret == -ENOTTY || ret == -EINVAL || ret == -E2BIG ||
			 ret == -EOPNOTSUPP);
		goto out;
	}
	FZ_CHECK(d2 == d && usize <= len);
	FZ_CHECK(d2->cmd != ORDO_IOC_INFO && d2->cmd != ORDO_IOC_MODEL_INFO);
	for (i = d2->size; i < usize; i++)
		FZ_CHECK(!payload[i]);
	/* An older, shorter struct reads as zero past its end. */
	FZ_CHECK(!memcmp(&args, payload, min(usize, d2->size)));
	for (i = min(usize, d2->size); i < sizeof(args); i++)
		FZ_CHECK(!((uint8_t *)&args)[i]);

	if (d2->op) {
		check_kv(d2->op, &args.kv, vs);
	} else if (d2->cmd == ORDO_IOC_SCAN) {
		if (!ordo_scan_check(&args.scan))
			FZ_CHECK(args.scan.count >= 1 &&
				 args.scan.count <= ORDO_SCAN_MAX &&
				 args.scan.keys && !args.scan.flags);
	} else if (d2->cmd == ORDO_IOC_BATCH) {
		const struct ordo_batch_op *ops;
		size_t n;

		if (ordo_batch_check(&args.batch))
			goto out;
		FZ_CHECK(args.batch.count >= 1 &&
			 args.batch.count <= ORDO_BATCH_MAX);
		/* The entries, as ordo_op_batch() checks them one by one. */
		n = (len - usize) / sizeof(*ops);
		ops = (const void *)(payload + usize);
		for (i = 0; i < n && i < args.batch.count; i++) {
			struct ordo_batch_op op;

			memcpy(&op, &ops[i], sizeof(op));
			check_kv(op.op, &op.kv, vs);
		}
	} else if (d2->cmd == ORDO_IOC_RETRAIN) {
		if (!ordo_retrain_check(&args.retrain))
			FZ_CHECK(!args.retrain.flags && !args.retrain.reserved);
	}
out:
	free(payload);
	return 0;
}
