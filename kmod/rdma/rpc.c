// SPDX-License-Identifier: GPL-2.0
/*
 * RPC execution: decode, validate, run on the store, encode the reply.
 *
 * Nothing from the network is trusted.  The request buffer is stable while
 * this runs (its receive is not posted again until the reply is built), so
 * every field is checked once and then used.  A request is checked whole
 * before anything executes: a malformed one gets an error reply and
 * changes nothing, a batch included.  Only a message too short to carry a
 * header gets no reply; the connection is closed instead.
 *
 * Status codes map one to one onto the errnos of the /dev/ordo ioctls
 * (linux/ordo_wire.h, ordo_wire_errno()).
 */
#include <linux/ordo.h>

#include "ordo.h"
#include "ops.h"
#include "conn.h"
#include "store.h"
#include "trainer.h"
#include "tree_hint.h"
#include "wire.h"

/* Copies of model bytes that a patch or publication tore, at most. */
#define ORDO_RPC_MODEL_TRIES	16

/* What a handler needs: the connection and the reply being built. */
struct ordo_rpc {
	struct ordo_rdma_conn *c;
	struct ordo_dev *od;
	u32 value_size;
	u32 value_max;
	u8 *out;	/* reply body */
	u32 room;	/* bytes available at @out */
	u32 len;	/* reply body bytes written */
	u16 flags;	/* ORDO_WIRE_F_* of the reply */
};

/* Drop the connection's staged value, if any. */
static void ordo_rpc_unstage(struct ordo_rdma_conn *c)
{
	if (c->staged.len)
		ordo_tree_unstage(&c->set->od->tree, &c->staged);
	memset(&c->staged, 0, sizeof(c->staged));
	c->staged_have = 0;
}

/**
 * ordo_rpc_release - free what a connection's requests left behind
 * @c: the connection, its I/O work stopped for good
 */
void ordo_rpc_release(struct ordo_rdma_conn *c)
{
	ordo_rpc_unstage(c);
}

/*
 * STAGE: one part of a value too long for one message.  Any failure drops
 * the staged value, so a client's later parts and its write fail too.
 */
static int ordo_rpc_stage(struct ordo_rpc *r, const u8 *body, u32 blen)
{
	struct ordo_rdma_conn *c = r->c;
	struct ordo_wire_stage_args a;
	int ret;

	ret = ordo_wire_stage_check(body, blen, r->value_size, r->value_max,
				    &a);
	if (!ret)
		ret = ordo_wire_stage_next(&a, c->staged.len, c->staged_have);
	if (ret || !a.offset)
		ordo_rpc_unstage(c);
	if (!ret && !a.offset)
		ret = ordo_tree_stage(&r->od->tree, a.total, &c->staged);
	if (ret) {
		memset(&c->staged, 0, sizeof(c->staged));
		return ret;
	}
	memcpy(c->staged.bytes + a.offset, a.data, a.len);
	c->staged_have = a.offset + a.len;
	return 0;
}

static const enum ordo_write_mode ordo_rpc_mode[] = {
	[ORDO_WIRE_OP_PUT] = ORDO_WRITE_PUT,
	[ORDO_WIRE_OP_INSERT] = ORDO_WRITE_INSERT,
	[ORDO_WIRE_OP_UPDATE] = ORDO_WRITE_UPDATE,
};

static const enum ordo_stat ordo_rpc_write_stat[] = {
	[ORDO_WIRE_OP_PUT] = ORDO_STAT_PUTS,
	[ORDO_WIRE_OP_INSERT] = ORDO_STAT_INSERTS,
	[ORDO_WIRE_OP_UPDATE] = ORDO_STAT_UPDATES,
};

/* A write of the staged value: it is stored or dropped, never kept. */
static int ordo_rpc_write_staged(struct ordo_rpc *r,
				 const struct ordo_wire_kv *kv)
{
	struct ordo_rdma_conn *c = r->c;
	int ret;

	ret = ordo_wire_staged_check(kv, c->staged.len, c->staged_have);
	if (ret) {
		ordo_rpc_unstage(c);
		return ret;
	}
	ret = ordo_tree_write_staged(&r->od->tree, le64_to_cpu(kv->key),
				     &c->staged, ordo_rpc_mode[kv->op]);
	memset(&c->staged, 0, sizeof(c->staged));
	c->staged_have = 0;
	ordo_stat_inc(r->od, ordo_rpc_write_stat[kv->op]);
	return ret;
}

/*
 * Run a checked point operation.  GET stores the value at @out (at most
 * value_size bytes) and its length at @glen: a longer value gives
 * -ENOBUFS with @glen set and nothing stored.  *@flags gets
 * ORDO_WIRE_F_HINT_USED when a hinted UPDATE hit.
 */
static int ordo_rpc_kv_exec(struct ordo_rpc *r, const struct ordo_wire_kv *kv,
			    void *out, u32 *glen, u16 *flags)
{
	u32 vlen = le16_to_cpu(kv->value_len);
	u64 key = le64_to_cpu(kv->key);
	void *buf = r->c->value;
	u32 op = kv->op;
	int ret;

	if (op == ORDO_WIRE_OP_GET)
		return ordo_kv_exec(r->od, ORDO_OP_GET, key, out, glen);
	if (op == ORDO_WIRE_OP_DELETE)
		return ordo_kv_exec(r->od, ORDO_OP_DELETE, key, NULL, NULL);
	if (kv->flags & ORDO_WIRE_KV_STAGED)
		return ordo_rpc_write_staged(r, kv);
	/* The request buffer is stable: a long value is stored from it. */
	if (vlen > r->value_size)
		return ordo_kv_exec(r->od, op, key, (void *)(kv + 1), &vlen);
	memcpy(buf, kv + 1, vlen);
	if (kv->flags & ORDO_WIRE_KV_HINT) {
		struct ordo_value v = { .buf = buf, .len = vlen };

		ret = ordo_tree_update_hint(&r->od->tree,
					    le32_to_cpu(kv->hint_leaf), key,
					    &v);
		if (ret != -ESTALE) {
			ordo_stat_inc(r->od, ORDO_STAT_UPDATES);
			if (!ret)
				*flags |= ORDO_WIRE_F_HINT_USED;
			return ret;
		}
		/* The hint no longer holds: an ordinary update. */
	}
	return ordo_kv_exec(r->od, op, key, buf, &vlen);
}

/*
 * Copy bytes [@off, @off + @cap) of @key's value behind a struct
 * ordo_wire_part at @out, which it fills.  Return: 0 or -ENOENT.
 */
static int ordo_rpc_part(struct ordo_rpc *r, u64 key, u32 off, u32 cap,
			 u8 *out)
{
	struct ordo_wire_part *p = (void *)out;
	struct ordo_value_part vp = {
		.off = off,
		.cap = cap,
		.buf = p + 1,
	};
	int ret;

	ret = ordo_tree_get_part(&r->od->tree, key, &vp);
	if (ret)
		return ret;
	p->ref = cpu_to_le64(vp.ref);
	p->len = cpu_to_le32(vp.len);
	p->offset = cpu_to_le32(off);
	p->returned = cpu_to_le32(vp.copied);
	p->units = cpu_to_le32(vp.units);
	r->flags |= ORDO_WIRE_F_PART;
	return 0;
}

/*
 * A GET's reply body is its value, exactly: the length is the body's.  A
 * value longer than value_size, or a part asked for, comes as a struct
 * ordo_wire_part and as many bytes as fit.
 */
static int ordo_rpc_point(struct ordo_rpc *r, u32 op, const u8 *body, u32 blen)
{
	const struct ordo_wire_kv *kv = (const void *)body;
	u32 glen = 0, off = 0;
	int ret;

	ret = ordo_wire_point_check(op, body, blen, r->value_max);
	if (ret)
		return ret;
	if (kv->flags & ORDO_WIRE_KV_PART) {
		off = le32_to_cpu(kv->arg);
		ret = -ENOBUFS;
		ordo_stat_inc(r->od, ORDO_STAT_GETS);
	} else {
		ret = ordo_rpc_kv_exec(r, kv, r->out, &glen, &r->flags);
	}
	if (ret == -ENOBUFS && op == ORDO_WIRE_OP_GET) {
		ret = ordo_rpc_part(r, le64_to_cpu(kv->key), off,
				    ordo_wire_part_cap(r->room), r->out);
		glen = sizeof(struct ordo_wire_part) +
		       le32_to_cpu(((struct ordo_wire_part *)r->out)->returned);
	}
	if (!ret && op == ORDO_WIRE_OP_GET)
		r->len = glen;
	return ret;
}

static int ordo_rpc_scan(struct ordo_rpc *r, const u8 *body, u32 blen)
{
	struct ordo_wire_scan_args a;
	u64 *keys = r->c->scan_keys;
	u32 n;
	int ret;

	ret = ordo_wire_scan_check(body, blen, &a);
	if (ret)
		return ret;
	/* Bounded by the reply buffer; the client continues at @next. */
	n = ordo_wire_scan_fit(&a, r->value_size, r->room);
	ordo_stat_inc(r->od, ORDO_STAT_SCANS);
	ret = ordo_store_scan(r->od, a.start, n, keys,
			      a.with_vals ? ordo_wire_scan_vals(r->out, n) :
			      NULL,
			      a.with_vals ? ordo_wire_scan_lens(r->out, n) :
			      NULL);
	if (ret < 0)
		return ret;
	r->len = ordo_wire_scan_finish(r->out, n, ret, keys, r->value_size,
				       a.with_vals);
	return 0;
}

static int ordo_rpc_info(struct ordo_rpc *r, u32 blen)
{
	struct ordo_wire_info *info = (void *)r->out;
	const struct ordo_tree *t = &r->od->tree;
	struct ordo_tree_stats st;

	if (blen)
		return -EINVAL;
	ordo_tree_get_stats(&r->od->tree, &st);
	memset(info, 0, sizeof(*info));
	info->server_id = cpu_to_le64(r->c->set->server_id);
	info->keys = cpu_to_le64(st.keys);
	info->pool_bytes_used = cpu_to_le64(st.pool_bytes_used);
	info->pool_bytes_total = cpu_to_le64(st.pool_bytes_total);
	info->chunk_size = cpu_to_le64(t->pool.chunk_size);
	info->node_size = cpu_to_le32(t->geo.node_size);
	info->value_size = cpu_to_le32(t->geo.value_size);
	info->leaf_slots = cpu_to_le32(t->geo.leaf_slots);
	info->inner_fanout = cpu_to_le32(t->geo.inner_fanout);
	info->nodes_per_chunk = cpu_to_le32(t->pool.nodes_per_chunk);
	info->max_chunks = cpu_to_le32(t->pool.max_chunks);
	info->nr_chunks = cpu_to_le32(ordo_pool_nr_chunks(&t->pool));
	info->height = cpu_to_le32(st.height);
	info->queue_depth = cpu_to_le32(r->c->qd);
	info->max_msg = cpu_to_le32(r->c->msg_size);
	r->len = sizeof(*info);
	return 0;
}

static int ordo_rpc_regions(struct ordo_rpc *r, const u8 *body, u32 blen)
{
	u32 first, kind;
	int ret;

	ret = ordo_wire_regions_check(body, blen, &kind, &first);
	if (ret)
		return ret;
	if (kind == ORDO_WIRE_REGION_MODEL && !r->od->trainer)
		return -EOPNOTSUPP;
	return ordo_reg_regions(r->c->reg, kind, first, r->out, r->room,
				&r->len);
}

/*
 * Copy @len bytes at @off of the model region.  The trainer may patch the
 * live image or move the anchor while we copy: callers bracket their
 * copies with ordo_rpc_model_begin() and ordo_rpc_model_torn().
 */
static int ordo_rpc_model_copy(struct ordo_model_mem *mm, u64 off, void *dst,
			       u32 len)
{
	u64 chunk = 1ULL << mm->chunk_shift;
	u8 *d = dst;

	while (len) {
		u64 idx = off >> mm->chunk_shift;
		u32 in = off & (chunk - 1);
		u32 n = min_t(u64, len, chunk - in);
		struct page *page;

		if (idx >= mm->chunks.max)
			return -ERANGE;
		page = ordo_chunks_page(&mm->chunks,
					(unsigned long)idx << mm->chunks.order);
		if (!page)
			return -ERANGE;
		memcpy(d, (u8 *)page_address(page) + in, n);
		d += n;
		off += n;
		len -= n;
	}
	return 0;
}

static unsigned int ordo_rpc_model_begin(struct ordo_model_mem *mm)
{
	return raw_read_seqcount(&mm->seq);
}

/* Did the trainer change the live image or the anchor since @seq? */
static bool ordo_rpc_model_torn(struct ordo_model_mem *mm, unsigned int seq)
{
	return (seq & 1) || read_seqcount_retry(&mm->seq, seq);
}

/*
 * The published image: the anchor names it and its header must carry the
 * anchor's epoch.  -ENOENT when there is none (or it is being replaced).
 */
static int ordo_rpc_model_layout(struct ordo_model_mem *mm,
				 struct ordo_model_layout *lay)
{
	u8 buf[ORDO_MODEL_HDR_SIZE];
	u64 live, epoch;

	BUILD_BUG_ON(sizeof(buf) < ORDO_MODEL_ANCHOR_SIZE);
	if (ordo_rpc_model_copy(mm, 0, buf, ORDO_MODEL_ANCHOR_SIZE) ||
	    ordo_model_parse_anchor(buf, ORDO_MODEL_ANCHOR_SIZE, &live,
				    &epoch) ||
	    ordo_rpc_model_copy(mm, live, buf, sizeof(buf)) ||
	    ordo_model_parse_hdr(buf, sizeof(buf), lay) || lay->epoch != epoch)
		return -ENOENT;
	lay->base = live;
	return 0;
}

/*
 * Copy descriptor @index of the model @lay describes to @data and, if it
 * fits in @room bytes (at least a descriptor), its TT slice behind it:
 * what ordo_model_load_sub() takes.  *@n: bytes copied; *@total: bytes of
 * the descriptor and its whole slice.  -ENOENT if the descriptor names a
 * slice outside the TT area (torn by a patch being written).
 */
static int ordo_rpc_model_sub(struct ordo_model_mem *mm,
			      const struct ordo_model_layout *lay, u32 index,
			      u8 *data, u64 room, u64 *n, u64 *total)
{
	u64 soff, slen;

	if (ordo_rpc_model_copy(mm, lay->base + lay->desc_off +
				(u64)ORDO_MODEL_DESC_SIZE * index,
				data, ORDO_MODEL_DESC_SIZE) ||
	    ordo_model_desc_slice(lay, data, &soff, &slen))
		return -ENOENT;
	*total = ORDO_MODEL_DESC_SIZE + slen;
	*n = ORDO_MODEL_DESC_SIZE;
	if (*total > room)
		return 0;
	if (ordo_rpc_model_copy(mm, soff, data + ORDO_MODEL_DESC_SIZE, slen))
		return -ENOENT;
	*n = *total;
	return 0;
}

/*
 * The sub-model whose domain holds @key: the largest i in sub_first ..
 * nsub - 1 with pivot[i] <= @key, else sub_first, by binary search over
 * the region's pivots, eight bytes at a time (nsub may be in the
 * millions).  Pivots being rewritten give some index in that range; the
 * caller's epoch check catches that.
 */
static int ordo_rpc_model_sub_of(struct ordo_model_mem *mm,
				 const struct ordo_model_layout *lay, u64 key,
				 u32 *sub)
{
	u32 base = lay->first, n = lay->nsub - lay->first;
	__le64 piv;

	while (n > 1) {
		u32 half = n / 2;

		if (ordo_rpc_model_copy(mm, lay->base + lay->piv_off +
					8ULL * (base + half),
					&piv, sizeof(piv)))
			return -ENOENT;
		if (le64_to_cpu(piv) <= key)
			base += half;
		n -= half;
	}
	*sub = base;
	return 0;
}

/* Copy the requested part of the published model into the reply. */
static int ordo_rpc_model_part(struct ordo_rpc *r, struct ordo_model_mem *mm,
			       const struct ordo_wire_model_args *a,
			       struct ordo_wire_model_rep *rep)
{
	u32 room = r->room - sizeof(*rep);
	u8 *data = (u8 *)(rep + 1);
	struct ordo_model_layout lay;
	u64 src = 0, n = 0, total = 0;
	unsigned int seq = ordo_rpc_model_begin(mm);
	int ret;

	if (ordo_rpc_model_layout(mm, &lay))
		return ordo_rpc_model_torn(mm, seq) ? -ESTALE : -ENOENT;
	ret = ordo_wire_model_span(a, &lay, room, &src, &n, &total);
	if (ret)
		return ret;
	if (a->part == ORDO_WIRE_MODEL_SUB)
		/* Descriptor, then its slice if it fits: ordo_model_load_sub(). */
		ret = ordo_rpc_model_sub(mm, &lay, a->index, data, room, &n,
					 &total);
	else
		ret = ordo_rpc_model_copy(mm, src, data, n);
	if (ret)
		return ordo_rpc_model_torn(mm, seq) ? -ESTALE : -ENOENT;
	rep->epoch = cpu_to_le64(lay.epoch);
	rep->total = cpu_to_le32(total);
	rep->returned = cpu_to_le32(n);
	r->len = sizeof(*rep) + n;
	/* A patch or a new image meanwhile: the caller copies again. */
	return ordo_rpc_model_torn(mm, seq) ? -EAGAIN : 0;
}

static int ordo_rpc_model_fetch(struct ordo_rpc *r, const u8 *body, u32 blen)
{
	struct ordo_wire_model_rep *rep = (void *)r->out;
	struct ordo_wire_model_args a;
	int ret, tries;

	ret = ordo_wire_model_check(body, blen, &a);
	if (ret)
		return ret;
	if (!r->od->trainer)
		return -EOPNOTSUPP;
	for (tries = 0; tries < ORDO_RPC_MODEL_TRIES; tries++) {
		ret = ordo_rpc_model_part(r, &r->od->trainer->mem, &a, rep);
		if (ret != -EAGAIN && ret != -ESTALE)
			return ret;
		cond_resched();
	}
	/* Patches follow each other this fast: the checksums will tell. */
	return ret == -EAGAIN ? 0 : -ENOENT;
}

/*
 * Attach the sub-model of @key in the model published now to a LOOKUP
 * reply: its descriptor and, if it fits in @room bytes at @data, its TT
 * slice.  Return: 0; -EAGAIN when a new epoch was published meanwhile
 * (bytes attached, the caller copies again); -ESTALE when the descriptor
 * was torn (nothing attached, copy again); -ENOENT when no model is
 * published (nothing attached).
 */
static int ordo_rpc_lookup_model(struct ordo_model_mem *mm, u64 key,
				 struct ordo_wire_lookup_rep *rep, u8 *data,
				 u32 room)
{
	unsigned int seq = ordo_rpc_model_begin(mm);
	struct ordo_model_layout lay;
	u64 n, total;
	u32 sub;

	if (ordo_rpc_model_layout(mm, &lay))
		return ordo_rpc_model_torn(mm, seq) ? -ESTALE : -ENOENT;
	if (ordo_rpc_model_sub_of(mm, &lay, key, &sub) ||
	    ordo_rpc_model_sub(mm, &lay, sub, data, room, &n, &total))
		return -ESTALE;
	rep->epoch = cpu_to_le64(lay.epoch);
	rep->sub = cpu_to_le32(sub);
	rep->model_len = cpu_to_le32(n);
	rep->model_total = cpu_to_le32(total);
	return ordo_rpc_model_torn(mm, seq) ? -EAGAIN : 0;
}

/*
 * LOOKUP, the learned client's fallback (XStore 5.2): the GET, then the
 * current sub-model of the key's range, so a client whose TT entry proved
 * stale repairs its cache in the same round trip.
 */
static int ordo_rpc_lookup(struct ordo_rpc *r, const u8 *body, u32 blen)
{
	struct ordo_wire_lookup_rep *rep = (void *)r->out;
	u8 *val = (u8 *)(rep + 1), *data;
	struct ordo_wire_lookup_args a;
	u32 vlen, pad, room;
	int ret, tries;

	/* A reply with the largest value still has room for a descriptor. */
	BUILD_BUG_ON(sizeof(struct ordo_wire_lookup_req) != 24);
	BUILD_BUG_ON(sizeof(struct ordo_wire_lookup_rep) != 32);
	BUILD_BUG_ON(sizeof(struct ordo_wire_hdr) +
		     sizeof(struct ordo_wire_lookup_rep) +
		     ORDO_VALUE_SIZE_MAX + ORDO_MODEL_DESC_SIZE >
		     ORDO_WIRE_MSG_MIN);

	ret = ordo_wire_lookup_check(body, blen, &a);
	if (ret)
		return ret;
	ret = ordo_kv_exec(r->od, ORDO_OP_GET, a.key, val, &vlen);
	/* Longer than value_size: a part, as much as leaves model room. */
	if (ret == -ENOBUFS) {
		ret = ordo_rpc_part(r, a.key, 0,
				    ordo_wire_lookup_part_cap(r->room), val);
		vlen = sizeof(struct ordo_wire_part) +
		       le32_to_cpu(((struct ordo_wire_part *)val)->returned);
	}
	if (ret && ret != -ENOENT)
		return ret;
	if (ret) {
		vlen = 0;
		r->flags = 0;
	}
	pad = ordo_wire_pad8(vlen);
	memset(val + vlen, 0, pad - vlen);
	memset(rep, 0, sizeof(*rep));
	rep->found = cpu_to_le32(!ret);
	rep->value_len = cpu_to_le32(vlen);
	data = val + pad;
	room = ordo_wire_lookup_room(r->room, vlen);

	if (r->od->trainer && !(a.flags & ORDO_WIRE_LOOKUP_NO_MODEL)) {
		for (tries = 0; tries < ORDO_RPC_MODEL_TRIES; tries++) {
			ret = ordo_rpc_lookup_model(&r->od->trainer->mem, a.key,
						    rep, data, room);
			if (ret != -EAGAIN && ret != -ESTALE)
				break;
			cond_resched();
		}
		/*
		 * -EAGAIN: patches follow each other this fast, the checksums
		 * will tell.  Otherwise no model, or none copied whole.
		 */
		if (ret && ret != -EAGAIN) {
			rep->epoch = 0;
			rep->sub = 0;
			rep->model_len = 0;
			rep->model_total = 0;
		}
	}
	r->len = sizeof(*rep) + pad + le32_to_cpu(rep->model_len);
	return 0;
}

static int ordo_rpc_batch(struct ordo_rpc *r, const u8 *body, u32 blen)
{
	struct ordo_wire_batch_rep *rep = (void *)r->out;
	struct ordo_wire_batch_res *res;
	u32 count, off, i, size;
	u8 *vout;
	int ret;

	/* Every entry is checked before any runs. */
	ret = ordo_wire_batch_check(body, blen, r->value_size, r->value_max,
				    r->room, &count);
	if (ret)
		return ret;

	rep->count = cpu_to_le32(count);
	rep->reserved = 0;
	res = (void *)(rep + 1);
	vout = (u8 *)(res + count);
	for (i = 0, off = sizeof(struct ordo_wire_batch); i < count;
	     i++, off += size) {
		const struct ordo_wire_kv *kv = (const void *)(body + off);
		u32 glen = 0;
		u16 flags = 0;

		size = sizeof(*kv) + ordo_wire_pad8(le16_to_cpu(kv->value_len));
		ret = ordo_rpc_kv_exec(r, kv, vout, &glen, &flags);
		/* A value longer than value_size: its length, no bytes. */
		if (ret == -ENOBUFS && kv->op == ORDO_WIRE_OP_GET) {
			res[i].value_len = cpu_to_le32(glen);
			ret = 0;
			glen = 0;
		} else {
			res[i].value_len = 0;
		}
		if (ret)
			ordo_stat_inc(r->od, ORDO_STAT_ERRORS);
		res[i].status = cpu_to_le32(ordo_wire_status(ret));
		res[i].flags = flags;
		memset(res[i].reserved, 0, sizeof(res[i].reserved));
		if (!ret && kv->op == ORDO_WIRE_OP_GET && glen) {
			res[i].value_len = cpu_to_le32(glen);
			vout += glen;
		}
	}
	/* GET values packed behind the results, in entry order. */
	r->len = vout - r->out;
	return 0;
}

/**
 * ordo_rpc_handle - execute one request and build its reply
 * @c: the connection, from its I/O work
 * @req: the request, @len bytes as received
 * @len: bytes received
 * @out: the reply buffer, c->msg_size bytes
 *
 * Return: bytes of the reply, or -EPROTO when the message cannot even be
 * answered (shorter than a header): the caller then disconnects.
 */
int ordo_rpc_handle(struct ordo_rdma_conn *c, const void *req, u32 len,
		    void *out)
{
	const struct ordo_wire_hdr *h = req;
	struct ordo_wire_hdr *rh = out;
	struct ordo_conn_set *set = c->set;
	struct ordo_rpc r = {
		.c = c,
		.od = set->od,
		.value_size = set->od->tree.geo.value_size,
		.value_max = ordo_tree_value_max(&set->od->tree),
		.out = (u8 *)(rh + 1),
		.room = c->msg_size - sizeof(*rh),
	};
	const u8 *body = (const u8 *)(h + 1);
	u32 blen;
	int ret;

	/* Point operations go to ordo_kv_exec() with their wire number. */
	BUILD_BUG_ON((int)ORDO_WIRE_OP_GET != (int)ORDO_OP_GET ||
		     (int)ORDO_WIRE_OP_PUT != (int)ORDO_OP_PUT ||
		     (int)ORDO_WIRE_OP_INSERT != (int)ORDO_OP_INSERT ||
		     (int)ORDO_WIRE_OP_UPDATE != (int)ORDO_OP_UPDATE ||
		     (int)ORDO_WIRE_OP_DELETE != (int)ORDO_OP_DELETE);

	WRITE_ONCE(c->bytes_in, c->bytes_in + len);
	if (len < sizeof(*h)) {
		ordo_rdma_count_bytes(set, len, 0);
		ordo_rdma_count_error(set);
		return -EPROTO;
	}
	blen = len - sizeof(*h);
	ordo_rdma_count_rpc(set, h->op);
	WRITE_ONCE(c->rpcs, c->rpcs + 1);

	ret = ordo_wire_hdr_check(h, len);
	if (ret)
		goto reply;
	switch (h->op) {
	case ORDO_WIRE_OP_GET:
	case ORDO_WIRE_OP_PUT:
	case ORDO_WIRE_OP_INSERT:
	case ORDO_WIRE_OP_UPDATE:
	case ORDO_WIRE_OP_DELETE:
		ret = ordo_rpc_point(&r, h->op, body, blen);
		break;
	case ORDO_WIRE_OP_SCAN:
		ret = ordo_rpc_scan(&r, body, blen);
		break;
	case ORDO_WIRE_OP_INFO:
		ret = ordo_rpc_info(&r, blen);
		break;
	case ORDO_WIRE_OP_REGIONS:
		ret = ordo_rpc_regions(&r, body, blen);
		break;
	case ORDO_WIRE_OP_MODEL_FETCH:
		ret = ordo_rpc_model_fetch(&r, body, blen);
		break;
	case ORDO_WIRE_OP_BATCH:
		ret = ordo_rpc_batch(&r, body, blen);
		break;
	case ORDO_WIRE_OP_LOOKUP:
		ret = ordo_rpc_lookup(&r, body, blen);
		break;
	case ORDO_WIRE_OP_STAGE:
		ret = ordo_rpc_stage(&r, body, blen);
		break;
	default:
		ret = -EOPNOTSUPP;
		break;
	}
reply:
	/* Nothing of a failed request's partial body goes out. */
	if (ret) {
		r.len = 0;
		r.flags = 0;
		ordo_rdma_count_error(set);
		WRITE_ONCE(c->errors, c->errors + 1);
		/* As the ioctls count them: every failed request. */
		ordo_stat_inc(set->od, ORDO_STAT_ERRORS);
	}
	rh->id = h->id;
	rh->length = cpu_to_le32(sizeof(*rh) + r.len);
	rh->version = ORDO_WIRE_VERSION;
	rh->op = h->op;
	rh->flags = cpu_to_le16(r.flags);
	rh->status = cpu_to_le32(ordo_wire_status(ret));
	rh->pool_chunks = cpu_to_le32(ordo_reg_pool_chunks(c->reg));
	ordo_rdma_count_bytes(set, len, sizeof(*rh) + r.len);
	WRITE_ONCE(c->bytes_out, c->bytes_out + sizeof(*rh) + r.len);
	return sizeof(*rh) + r.len;
}
