// SPDX-License-Identifier: GPL-2.0
/*
 * libordo: ordo_batch(), the same on both backends.  A batch takes any
 * value ordo_put() and ordo_get_len() take.  The backend's BATCH (the
 * ioctl, or BATCH messages) carries values up to a bound of its own
 * (value_size locally, one message over RDMA): an entry it cannot carry
 * runs as an operation of its own, in its place, and a GET that found a
 * longer value than its BATCH could return is completed by a GET of its
 * own before any later entry that writes its key runs.
 */
#include <errno.h>
#include <stdlib.h>

#include "shim.h"

static bool is_write(const struct ordo_batch_op *b)
{
	return b->op == ORDO_OP_PUT || b->op == ORDO_OP_INSERT ||
	       b->op == ORDO_OP_UPDATE;
}

/* An entry the backend's BATCH cannot carry. */
static bool alone(struct ordo *o, const struct ordo_batch_op *b)
{
	return !o->be->batch_takes(o, b);
}

/* Every entry, as ORDO_IOC_BATCH checks them: 0 or the batch's errno. */
static int check(struct ordo *o, const struct ordo_batch_op *ops,
		 uint32_t n)
{
	uint32_t i;

	if (!n)
		return -EINVAL;
	if (n > ORDO_BATCH_MAX)
		return -E2BIG;
	if (!ops)
		return -EFAULT;
	for (i = 0; i < n; i++) {
		const struct ordo_batch_op *b = &ops[i];

		if (b->op < ORDO_OP_GET || b->op > ORDO_OP_DELETE ||
		    b->kv.flags)
			return -EINVAL;
		if (!b->kv.value && (b->op == ORDO_OP_GET ||
				     (is_write(b) && b->kv.value_len)))
			return -EFAULT;
		if (is_write(b) && b->kv.value_len > ordo_value_max(o))
			return -EMSGSIZE;
		if (b->op == ORDO_OP_GET && b->kv.value_len < o->geo.value_size)
			return -ENOBUFS;
	}
	return 0;
}

/*
 * End of the run of entries from @i that one backend BATCH takes: up to
 * an entry it cannot carry, or just after a GET that may find a long
 * value (its buffer holds more than value_size) whose key a later entry
 * of the run writes or deletes: that value is fetched after the run,
 * which must not have changed it.
 */
static uint32_t run_end(struct ordo *o, const struct ordo_batch_op *ops,
			const uint32_t *caps, uint32_t i, uint32_t n)
{
	uint32_t end = i, k, m;

	while (end < n && !alone(o, &ops[end]))
		end++;
	for (k = i; k < end; k++) {
		if (ops[k].op != ORDO_OP_GET || caps[k] <= o->geo.value_size)
			continue;
		for (m = k + 1; m < end; m++)
			if (ops[m].op != ORDO_OP_GET &&
			    ops[m].kv.key == ops[k].kv.key)
				return k + 1;
	}
	return end;
}

/*
 * An entry's own outcome; anything else (the connection failed or could
 * not be made, the handle is closing) stops the batch, as its BATCH
 * would.
 */
static bool entry_result(int st)
{
	switch (st) {
	case 0:
	case -ENOENT:
	case -EEXIST:
	case -EINVAL:
	case -EMSGSIZE:
	case -ENOMEM:
	case -ENOBUFS:
	case -EAGAIN:
	case -EIO:
	case -EFAULT:
		return true;
	}
	return false;
}

/* An entry run by itself (a GET into @cap bytes). */
static int one(struct ordo *o, struct ordo_batch_op *b, uint32_t cap)
{
	struct ordo_req r = {
		.op = b->op,
		.key = b->kv.key,
		.val = (void *)(uintptr_t)b->kv.value,
		.len = b->op == ORDO_OP_GET ? cap : b->kv.value_len,
	};

	b->result = shim_sync_req(o, &r);
	if (b->op == ORDO_OP_GET)
		b->kv.value_len = !b->result || b->result == -ENOBUFS ?
				  r.val_len : cap;
	return entry_result(b->result) ? 0 : b->result;
}

/* A GET its BATCH answered with the length of a value it can hold. */
static bool refetch(struct ordo *o, const struct ordo_batch_op *b,
		    uint32_t cap)
{
	return b->op == ORDO_OP_GET && b->result == -ENOBUFS &&
	       b->kv.value_len > o->geo.value_size && b->kv.value_len <= cap;
}

static int batch(struct ordo *o, struct ordo_batch_op *ops, uint32_t n)
{
	uint32_t i, k, end, *caps;
	int ret = check(o, ops, n);

	if (ret)
		return ret;
	/* As any operation that starts with none in flight: reconnect. */
	if (!o->inflight && o->be->prepare) {
		ret = o->be->prepare(o);
		if (ret)
			return ret;
	}
	caps = malloc(n * sizeof(*caps));
	if (!caps)
		return -ENOMEM;
	for (i = 0; i < n; i++) {
		ops[i].result = -ECANCELED;
		caps[i] = ops[i].kv.value_len;
	}
	/* A callback that closed the handle stops the batch. */
	for (i = 0; i < n && !ret && !o->closing; i = end) {
		if (alone(o, &ops[i])) {
			end = i + 1;
			ret = one(o, &ops[i], caps[i]);
			continue;
		}
		end = run_end(o, ops, caps, i, n);
		ret = o->be->batch(o, ops + i, end - i);
		if (ret > 0)
			ret = 0;
		/*
		 * Values its BATCH could not return: GET them now, or (the
		 * batch stopped) give their buffers' sizes back.
		 */
		for (k = i; k < end; k++) {
			if (!refetch(o, &ops[k], caps[k]))
				continue;
			if (ret || o->closing) {
				ops[k].result = -ECANCELED;
				ops[k].kv.value_len = caps[k];
				ret = ret ?: -EBADF;
				continue;
			}
			ret = one(o, &ops[k], caps[k]);
		}
	}
	free(caps);
	if (!ret && i < n)
		ret = -EBADF;	/* a callback closed the handle: it stopped */
	return ret ? ret : (int)n;
}

int ordo_batch(struct ordo *o, struct ordo_batch_op *ops, uint32_t n)
{
	int ret;

	if (!shim_enter(o))
		return -EBADF;
	ret = batch(o, ops, n);
	shim_leave(o);
	return ret;
}
