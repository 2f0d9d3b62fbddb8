// SPDX-License-Identifier: GPL-2.0
/*
 * The operations of /dev/ordo on user-space arguments: validation, copies
 * between user and kernel buffers, statistics.  Shared by the single-op
 * ioctls, batches and io_uring commands.
 */
#include <linux/slab.h>
#include <linux/uaccess.h>
#include <linux/ordo.h>

#include "cmd.h"
#include "ordo.h"
#include "ops.h"
#include "store.h"
#include "trainer.h"

/* Pairs copied per round of a SCAN: bounds the kernel bounce buffer. */
#define ORDO_SCAN_ROUND	256

static const enum ordo_stat ordo_op_stat[] = {
	[ORDO_OP_GET] = ORDO_STAT_GETS,
	[ORDO_OP_PUT] = ORDO_STAT_PUTS,
	[ORDO_OP_INSERT] = ORDO_STAT_INSERTS,
	[ORDO_OP_UPDATE] = ORDO_STAT_UPDATES,
	[ORDO_OP_DELETE] = ORDO_STAT_DELETES,
};

static bool ordo_op_is_write(u32 op)
{
	return op == ORDO_OP_PUT || op == ORDO_OP_INSERT ||
	       op == ORDO_OP_UPDATE;
}

/**
 * ordo_kv_load - copy a write's value in
 * @kv: a checked write
 * @buf: value_size bytes
 */
int ordo_kv_load(const struct ordo_kv *kv, void *buf)
{
	if (copy_from_user(buf, u64_to_user_ptr(kv->value), kv->value_len))
		return -EFAULT;
	return 0;
}

/**
 * ordo_kv_exec - execute a checked point operation on kernel buffers
 * @od: the device
 * @op: enum ordo_op
 * @key: the key
 * @buf: value_size bytes: the value to write, or where GET stores it
 * @len: writes: the value's length (0..value_size); GET: set to it
 */
int ordo_kv_exec(struct ordo_dev *od, u32 op, u64 key, void *buf, u32 *len)
{
	int ret;

	if (op == ORDO_OP_GET)
		ret = ordo_store_get(od, key, buf, len);
	else if (op == ORDO_OP_DELETE)
		ret = ordo_store_delete(od, key);
	else
		ret = ordo_store_write(od, op, key, buf, *len);
	ordo_stat_inc(od, ordo_op_stat[op]);
	return ret;
}

/*
 * A write of a value longer than value_size: copied from user memory
 * straight into its extent, then published.
 */
static int ordo_op_write_long(struct ordo_dev *od, u32 op, struct ordo_kv *kv)
{
	static const enum ordo_write_mode mode[] = {
		[ORDO_OP_PUT] = ORDO_WRITE_PUT,
		[ORDO_OP_INSERT] = ORDO_WRITE_INSERT,
		[ORDO_OP_UPDATE] = ORDO_WRITE_UPDATE,
	};
	struct ordo_staged st;
	int ret;

	ret = ordo_tree_stage(&od->tree, kv->value_len, &st);
	if (ret)
		return ret;
	if (copy_from_user(st.bytes, u64_to_user_ptr(kv->value),
			   kv->value_len)) {
		ordo_tree_unstage(&od->tree, &st);
		return -EFAULT;
	}
	ret = ordo_tree_write_staged(&od->tree, kv->key, &st, mode[op]);
	ordo_stat_inc(od, ordo_op_stat[op]);
	return ret;
}

/*
 * The GET of a value longer than value_size, @len bytes when its slot was
 * read, into a user buffer of @cap bytes: a bounce buffer of its length
 * (again if it grew meanwhile).  Sets @len to the length; -ENOBUFS if the
 * buffer is too small.
 */
static int ordo_op_get_long(struct ordo_dev *od, const struct ordo_kv *kv,
			    u32 cap, u32 *len)
{
	struct ordo_value_part vp = { 0 };
	int ret;

	while (*len <= cap) {
		vp.cap = *len;
		vp.buf = kvmalloc(vp.cap, GFP_KERNEL);
		if (!vp.buf)
			return -ENOMEM;
		ret = ordo_tree_get_part(&od->tree, kv->key, &vp);
		if (!ret && vp.copied == vp.len &&
		    copy_to_user(u64_to_user_ptr(kv->value), vp.buf, vp.len))
			ret = -EFAULT;
		kvfree(vp.buf);
		*len = vp.len;
		if (ret || vp.copied == vp.len)
			return ret;
	}
	return -ENOBUFS;
}

/*
 * One point operation with its value in user memory.  A GET sets
 * @kv->value_len to the value's length and writes that many bytes, or
 * fails with -ENOBUFS and sets it to the length the buffer lacks room for.
 */
int ordo_op_kv(struct ordo_dev *od, u32 op, struct ordo_kv *kv)
{
	u32 cap = kv->value_len;
	void *buf = NULL;
	int ret;

	ret = ordo_kv_check(op, kv, ordo_value_size,
			    ordo_tree_value_max(&od->tree));
	if (ret == -ENOBUFS)
		kv->value_len = ordo_value_size;
	if (ret)
		return ret;
	if (ordo_op_is_write(op) && kv->value_len > ordo_value_size)
		return ordo_op_write_long(od, op, kv);
	if (op != ORDO_OP_DELETE) {
		buf = kmalloc(ordo_value_size, GFP_KERNEL);
		if (!buf)
			return -ENOMEM;
	}
	if (ordo_op_is_write(op))
		ret = ordo_kv_load(kv, buf);
	if (!ret)
		ret = ordo_kv_exec(od, op, kv->key, buf, &kv->value_len);
	if (ret == -ENOBUFS && op == ORDO_OP_GET)
		ret = ordo_op_get_long(od, kv, cap, &kv->value_len);
	else if (!ret && op == ORDO_OP_GET &&
		 copy_to_user(u64_to_user_ptr(kv->value), buf, kv->value_len))
		ret = -EFAULT;
	kfree(buf);
	return ret;
}

/**
 * ordo_op_scan - SCAN into user buffers
 * @od: the device
 * @sc: arguments; on success @sc->returned, ->more and ->next are set
 *
 * Return: 0 or a negative errno: -EINVAL (flags, count 0), -E2BIG (count
 * over ORDO_SCAN_MAX), -EFAULT (bad buffer).
 */
int ordo_op_scan(struct ordo_dev *od, struct ordo_scan *sc)
{
	u64 __user *ukeys = u64_to_user_ptr(sc->keys);
	u8 __user *uvals = u64_to_user_ptr(sc->values);
	u32 __user *ulens = u64_to_user_ptr(sc->lens);
	u32 done = 0, round = ORDO_SCAN_ROUND, *lens = NULL;
	u64 start = sc->start, *keys;
	u8 *vals = NULL;
	int ret = 0;

	ret = ordo_scan_check(sc);
	if (ret)
		return ret;
	ordo_stat_inc(od, ORDO_STAT_SCANS);
	keys = kmalloc_array(round, sizeof(*keys), GFP_KERNEL);
	if (uvals)
		vals = kmalloc_array(round, ordo_value_size, GFP_KERNEL);
	if (ulens)
		lens = kmalloc_array(round, sizeof(*lens), GFP_KERNEL);
	if (!keys || (uvals && !vals) || (ulens && !lens)) {
		ret = -ENOMEM;
		goto out;
	}
	sc->more = 1;
	while (done < sc->count) {
		u32 want = min(round, sc->count - done);

		ret = ordo_store_scan(od, start, want, keys, vals, lens);
		if (ret < 0)
			goto out;
		if (copy_to_user(ukeys + done, keys, ret * sizeof(*keys)) ||
		    (uvals && copy_to_user(uvals + (size_t)done * ordo_value_size,
					   vals, (size_t)ret * ordo_value_size)) ||
		    (ulens && copy_to_user(ulens + done, lens,
					   ret * sizeof(*lens)))) {
			ret = -EFAULT;
			goto out;
		}
		done += ret;
		if (ret < want || keys[ret - 1] == U64_MAX) {
			sc->more = 0;
			break;
		}
		start = keys[ret - 1] + 1;
	}
	sc->returned = done;
	sc->next = sc->more ? start : 0;
	ret = 0;
out:
	kfree(keys);
	kfree(vals);
	kfree(lens);
	return ret;
}

/**
 * ordo_op_batch - several point operations
 * @od: the device
 * @b: arguments; @b->done is set on success
 *
 * All entries are checked and all written values copied in first, so a
 * malformed batch fails as a whole (-EINVAL, -EMSGSIZE, -ENOBUFS, -EFAULT)
 * before anything changes.  Then each entry runs and gets its own result.
 * Values in a batch are at most value_size bytes: a longer write is
 * -EMSGSIZE, a GET of a longer value gets -ENOBUFS and its length.
 */
int ordo_op_batch(struct ordo_dev *od, struct ordo_batch *b)
{
	struct ordo_batch_op __user *uops = u64_to_user_ptr(b->ops);
	struct ordo_batch_op *ops;
	size_t vsize = ordo_value_size;
	u8 *vals;
	int ret;
	u32 i;

	ret = ordo_batch_check(b);
	if (ret)
		return ret;
	ops = kvmalloc_array(b->count, sizeof(*ops), GFP_KERNEL);
	vals = kvmalloc_array(b->count, vsize, GFP_KERNEL);
	if (!ops || !vals) {
		ret = -ENOMEM;
		goto out;
	}
	if (copy_from_user(ops, uops, b->count * sizeof(*ops))) {
		ret = -EFAULT;
		goto out;
	}
	for (i = 0; i < b->count; i++) {
		ret = ordo_kv_check(ops[i].op, &ops[i].kv,
				    ordo_value_size, ordo_value_size);
		if (!ret && ordo_op_is_write(ops[i].op))
			ret = ordo_kv_load(&ops[i].kv, vals + i * vsize);
		if (ret)
			goto out;
	}
	for (i = 0; i < b->count; i++) {
		struct ordo_batch_op *e = &ops[i];

		e->result = ordo_kv_exec(od, e->op, e->kv.key, vals + i * vsize,
					 &e->kv.value_len);
		if (e->result)
			ordo_stat_inc(od, ORDO_STAT_ERRORS);
		if (!e->result && e->op == ORDO_OP_GET &&
		    copy_to_user(u64_to_user_ptr(e->kv.value), vals + i * vsize,
				 e->kv.value_len))
			e->result = -EFAULT;
		if ((!e->result || e->result == -ENOBUFS) &&
		    e->op == ORDO_OP_GET &&
		    put_user(e->kv.value_len, &uops[i].kv.value_len))
			e->result = -EFAULT;
		if (put_user(e->result, &uops[i].result)) {
			ret = -EFAULT;
			goto out;
		}
	}
	b->done = b->count;
	ret = 0;
out:
	kvfree(ops);
	kvfree(vals);
	return ret;
}

/**
 * ordo_op_retrain - RETRAIN: a full training, waited for
 * @od: the device
 * @r: arguments; @r->version is set on success
 *
 * Return: 0, -EINVAL (flags), -ENODATA (empty store), -EINTR, or the
 * training's error.
 */
int ordo_op_retrain(struct ordo_dev *od, struct ordo_retrain *r)
{
	u64 version = 0;
	int ret;

	ret = ordo_retrain_check(r);
	if (ret)
		return ret;
	ret = ordo_trainer_retrain(od, &version);
	if (!ret)
		r->version = version;
	return ret;
}
