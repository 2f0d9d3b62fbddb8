// SPDX-License-Identifier: GPL-2.0
/*
 * The server's decoders of untrusted bytes from the network and the bounds
 * of the replies it builds (wire.h).  Every function reads only the bytes
 * it was given the length of, checks every field once and reports what the
 * caller may then use without checking again.
 */
#include "wire.h"
#include "model.h"

/**
 * ordo_wire_status() - the wire status of an errno
 * @err: 0 or a negative errno from a handler or the store
 *
 * Return: enum ordo_wire_status; %ORDO_WIRE_EIO for an errno the wire has
 * no status for.
 */
u32 ordo_wire_status(int err)
{
	switch (err) {
	case 0:
		return ORDO_WIRE_OK;
	case -ENOENT:
		return ORDO_WIRE_ENOENT;
	case -EEXIST:
		return ORDO_WIRE_EEXIST;
	case -EINVAL:
		return ORDO_WIRE_EINVAL;
	case -EMSGSIZE:
		return ORDO_WIRE_EMSGSIZE;
	case -E2BIG:
		return ORDO_WIRE_E2BIG;
	case -ENOMEM:
		return ORDO_WIRE_ENOMEM;
	case -EPROTO:
		return ORDO_WIRE_EPROTO;
	case -EOPNOTSUPP:
		return ORDO_WIRE_EOPNOTSUPP;
	}
	return ORDO_WIRE_EIO;
}

/**
 * ordo_wire_hdr_check() - check the header of a request
 * @msg: the request, @len bytes as received
 * @len: bytes received, at least sizeof(struct ordo_wire_hdr)
 *
 * Return: 0, or -EPROTO for an unknown version, a length that is not the
 * bytes received, or non-zero flags, status or pool_chunks.
 */
int ordo_wire_hdr_check(const void *msg, u32 len)
{
	const struct ordo_wire_hdr *h = msg;

	if (len < sizeof(*h) || h->version != ORDO_WIRE_VERSION ||
	    le32_to_cpu(h->length) != len || h->flags || h->status ||
	    h->pool_chunks)
		return -EPROTO;
	return 0;
}

/**
 * ordo_wire_conn_req_check() - check the private data of a connect request
 * @pdata: the private data, or NULL
 * @len: its bytes
 * @want: out: the queue depth asked for, 0 to %ORDO_WIRE_QUEUE_MAX
 *
 * The token itself is the caller's to compare.
 *
 * Return: 0, %ORDO_WIRE_REJ_MALFORMED or %ORDO_WIRE_REJ_VERSION.
 */
u16 ordo_wire_conn_req_check(const void *pdata, u32 len, u32 *want)
{
	const struct ordo_wire_conn_req *req = pdata;
	u32 tlen, qd;

	if (!pdata || len < sizeof(*req) ||
	    le32_to_cpu(req->magic) != ORDO_WIRE_MAGIC)
		return ORDO_WIRE_REJ_MALFORMED;
	if (le16_to_cpu(req->version) != ORDO_WIRE_VERSION)
		return ORDO_WIRE_REJ_VERSION;
	tlen = le16_to_cpu(req->token_len);
	qd = le16_to_cpu(req->queue_depth);
	if (req->flags || req->reserved || tlen > ORDO_WIRE_TOKEN_MAX ||
	    qd > ORDO_WIRE_QUEUE_MAX ||
	    memchr_inv(req->token + tlen, 0, ORDO_WIRE_TOKEN_MAX - tlen))
		return ORDO_WIRE_REJ_MALFORMED;
	*want = qd;
	return 0;
}

static bool ordo_wire_is_write(u32 op)
{
	return op == ORDO_WIRE_OP_PUT || op == ORDO_WIRE_OP_INSERT ||
	       op == ORDO_WIRE_OP_UPDATE;
}

/* Which flags an op may carry, and what @arg must then be. */
static int ordo_wire_kv_flags(const struct ordo_wire_kv *kv, u32 vlen,
			      bool batch)
{
	u32 op = kv->op, flags = kv->flags, arg = le32_to_cpu(kv->arg);

	if (flags & ~(ORDO_WIRE_KV_HINT | ORDO_WIRE_KV_PART |
		      ORDO_WIRE_KV_STAGED))
		return -EINVAL;
	if ((flags & ORDO_WIRE_KV_HINT) ? op != ORDO_WIRE_OP_UPDATE :
	    (kv->hint_leaf || kv->hint_incarnation))
		return -EINVAL;
	if ((flags & ORDO_WIRE_KV_PART) && (op != ORDO_WIRE_OP_GET || batch))
		return -EINVAL;
	if (flags & ORDO_WIRE_KV_STAGED)
		/* The value is the staged one: none in the message. */
		return !ordo_wire_is_write(op) || vlen || !arg ||
		       (flags & ORDO_WIRE_KV_HINT) ? -EINVAL : 0;
	if (arg && !(flags & ORDO_WIRE_KV_PART))
		return -EINVAL;
	return 0;
}

/**
 * ordo_wire_kv_check() - validate one point operation
 * @kv: the operation; @avail bytes start at @kv
 * @avail: bytes left in the message
 * @value_max: the longest value the store holds
 * @batch: @kv is a batch entry (%ORDO_WIRE_KV_PART is not allowed there)
 * @size: out: bytes the operation takes (struct, value, padding), at most
 *	@avail on success
 *
 * The state a %ORDO_WIRE_KV_STAGED write needs is checked when it runs
 * (ordo_wire_staged_check()).
 *
 * Return: 0, -EINVAL (bad op, flags, arg, reserved or padding bytes, a
 * length that overruns the message, a value on GET, DELETE or a staged
 * write) or -EMSGSIZE (value longer than @value_max).  A write of an
 * empty value is valid.
 */
int ordo_wire_kv_check(const struct ordo_wire_kv *kv, u32 avail,
		       u32 value_max, bool batch, u32 *size)
{
	const u8 *val = (const u8 *)(kv + 1);
	u32 vlen, op;

	/* Not a byte of @kv is read before it is known to be in the message. */
	if (avail < sizeof(*kv))
		return -EINVAL;
	vlen = le16_to_cpu(kv->value_len);
	op = kv->op;
	*size = sizeof(*kv) + ordo_wire_pad8(vlen);
	if (*size > avail)
		return -EINVAL;
	if (op < ORDO_WIRE_OP_GET || op > ORDO_WIRE_OP_DELETE)
		return -EINVAL;
	if (ordo_wire_kv_flags(kv, vlen, batch))
		return -EINVAL;
	if (memchr_inv(val + vlen, 0, ordo_wire_pad8(vlen) - vlen))
		return -EINVAL;
	if (!ordo_wire_is_write(op))
		return vlen ? -EINVAL : 0;
	return vlen > value_max ? -EMSGSIZE : 0;
}

/**
 * ordo_wire_point_check() - validate the body of GET, PUT, ... DELETE
 * @op: the header's op
 * @body: the body, @blen bytes
 * @blen: bytes of the body
 * @value_max: the longest value the store holds
 *
 * Return: as ordo_wire_kv_check(); -EINVAL also when the operation does
 * not fill the body exactly or names another op than the header.
 */
int ordo_wire_point_check(u32 op, const void *body, u32 blen, u32 value_max)
{
	const struct ordo_wire_kv *kv = body;
	u32 size;
	int ret;

	ret = ordo_wire_kv_check(kv, blen, value_max, false, &size);
	if (ret)
		return ret;
	if (size != blen || kv->op != op)
		return -EINVAL;
	return 0;
}

/**
 * ordo_wire_stage_check() - decode a STAGE request body
 * @body: the body, @blen bytes
 * @blen: bytes of the body
 * @value_size: the store's value size
 * @value_max: the longest value the store holds
 * @a: out: the request; @a->data lies inside @body
 *
 * Return: 0; -EINVAL (size, flags, padding, a total of at most
 * @value_size, an empty part, a part past @total); -EMSGSIZE (a total
 * over @value_max).
 */
int ordo_wire_stage_check(const void *body, u32 blen, u32 value_size,
			  u32 value_max, struct ordo_wire_stage_args *a)
{
	const struct ordo_wire_stage *req = body;
	const u8 *data = (const u8 *)(req + 1);
	u32 total, off, len;

	if (blen < sizeof(*req) || req->flags)
		return -EINVAL;
	total = le32_to_cpu(req->total);
	off = le32_to_cpu(req->offset);
	len = le32_to_cpu(req->len);
	/* 64-bit sums: every u32 is possible here. */
	if (sizeof(*req) + (u64)ordo_wire_pad8(len) != blen ||
	    (u64)len + 7 > U32_MAX)
		return -EINVAL;
	if (memchr_inv(data + len, 0, ordo_wire_pad8(len) - len))
		return -EINVAL;
	if (total > value_max)
		return -EMSGSIZE;
	if (total <= value_size || !len || (u64)off + len > total)
		return -EINVAL;
	a->total = total;
	a->offset = off;
	a->len = len;
	a->data = data;
	return 0;
}

/**
 * ordo_wire_stage_next() - may a checked STAGE part follow what is staged?
 * @a: the checked request
 * @total: the staged value's length, 0 if none is staged
 * @have: its bytes received so far
 *
 * Return: 0 when @a starts a new value (offset 0) or continues the staged
 * one exactly where it stops; else -EINVAL.
 */
int ordo_wire_stage_next(const struct ordo_wire_stage_args *a, u32 total,
			 u32 have)
{
	if (!a->offset)
		return 0;
	return total && total == a->total && have == a->offset ? 0 : -EINVAL;
}

/**
 * ordo_wire_staged_check() - may a checked %ORDO_WIRE_KV_STAGED write run?
 * @kv: the write, checked by ordo_wire_kv_check()
 * @total: the staged value's length, 0 if none is staged
 * @have: its bytes received so far
 *
 * Return: 0 when a value of @kv->arg bytes is staged whole; else -EINVAL.
 */
int ordo_wire_staged_check(const struct ordo_wire_kv *kv, u32 total,
			   u32 have)
{
	return total && le32_to_cpu(kv->arg) == total && have == total ?
	       0 : -EINVAL;
}

/**
 * ordo_wire_part_cap() - value bytes a GET reply with a part carries
 * @room: bytes of the reply body
 *
 * Return: @room less struct ordo_wire_part, or 0.
 */
u32 ordo_wire_part_cap(u32 room)
{
	const u32 part = sizeof(struct ordo_wire_part);

	return room > part ? room - part : 0;
}

/**
 * ordo_wire_lookup_part_cap() - value bytes a LOOKUP reply with a part
 *	carries
 * @room: bytes of the reply body
 *
 * Leaves room for the reply struct, the part struct and a model
 * descriptor, and keeps the padded value within @room.
 *
 * Return: a multiple of 8, or 0.
 */
u32 ordo_wire_lookup_part_cap(u32 room)
{
	const u32 used = sizeof(struct ordo_wire_lookup_rep) +
			 sizeof(struct ordo_wire_part) + ORDO_MODEL_DESC_SIZE;

	return room > used ? (room - used) & ~7U : 0;
}

/**
 * ordo_wire_scan_check() - decode a SCAN request body
 * @body: the body, @blen bytes
 * @blen: bytes of the body
 * @a: out: the request
 *
 * Return: 0, -EINVAL (size, flags, count 0) or -E2BIG (count over
 * %ORDO_WIRE_SCAN_MAX).
 */
int ordo_wire_scan_check(const void *body, u32 blen,
			 struct ordo_wire_scan_args *a)
{
	const struct ordo_wire_scan_req *req = body;
	u32 count, flags;

	if (blen != sizeof(*req))
		return -EINVAL;
	count = le32_to_cpu(req->count);
	flags = le32_to_cpu(req->flags);
	if (flags & ~ORDO_WIRE_SCAN_KEYS_ONLY || !count)
		return -EINVAL;
	if (count > ORDO_WIRE_SCAN_MAX)
		return -E2BIG;
	a->start = le64_to_cpu(req->start);
	a->count = count;
	a->with_vals = !(flags & ORDO_WIRE_SCAN_KEYS_ONLY);
	return 0;
}

/* Reply bytes per pair: its key, and with values its length and slot. */
static u32 scan_pair_bytes(u32 value_size, bool with_vals)
{
	return 8 + (with_vals ? 4 + value_size : 0);
}

/**
 * ordo_wire_scan_fit() - pairs a SCAN reply of @room bytes holds
 * @a: the checked request
 * @value_size: the store's value size
 * @room: bytes of the reply body
 *
 * Return: at most @a->count; the reply's struct, keys, lengths and values
 * of that many pairs fit in @room.  The client continues at the reply's
 * next key.
 */
u32 ordo_wire_scan_fit(const struct ordo_wire_scan_args *a, u32 value_size,
		       u32 room)
{
	u32 per = scan_pair_bytes(value_size, a->with_vals);

	if (room < sizeof(struct ordo_wire_scan_rep))
		return 0;
	return min_t(u32, a->count,
		     (room - sizeof(struct ordo_wire_scan_rep)) / per);
}

/**
 * ordo_wire_scan_lens() - where the store puts the lengths of a SCAN reply
 * @out: the reply body
 * @n: pairs from ordo_wire_scan_fit()
 *
 * Return: the address behind @n keys, where up to @n u32 lengths may be
 * stored (in CPU order: ordo_wire_scan_finish() converts them).
 */
u32 *ordo_wire_scan_lens(void *out, u32 n)
{
	return (u32 *)((u8 *)out + sizeof(struct ordo_wire_scan_rep) + 8ULL * n);
}

/**
 * ordo_wire_scan_vals() - where the store puts the values of a SCAN reply
 * @out: the reply body
 * @n: pairs from ordo_wire_scan_fit()
 *
 * Return: the address behind @n keys and @n lengths, where up to @n values
 * may be stored.
 */
u8 *ordo_wire_scan_vals(void *out, u32 n)
{
	return (u8 *)out + sizeof(struct ordo_wire_scan_rep) + 12ULL * n;
}

/**
 * ordo_wire_scan_finish() - complete a SCAN reply
 * @out: the reply body: lengths and values of @ret pairs at
 *	ordo_wire_scan_lens() and ordo_wire_scan_vals() of (@out, @n)
 * @n: pairs asked of the store (from ordo_wire_scan_fit())
 * @ret: pairs the store returned, at most @n
 * @keys: their keys, ascending
 * @value_size: the store's value size
 * @with_vals: the reply carries values
 *
 * Return: bytes of the reply body.
 */
u32 ordo_wire_scan_finish(void *out, u32 n, u32 ret, const u64 *keys,
			  u32 value_size, bool with_vals)
{
	struct ordo_wire_scan_rep *rep = out;
	__le64 *wkeys = (__le64 *)(rep + 1);
	u32 per = scan_pair_bytes(value_size, with_vals), more = 1, i;
	__le32 *wlens = (__le32 *)(wkeys + ret);
	u64 next = 0;

	for (i = 0; i < ret; i++)
		wkeys[i] = cpu_to_le64(keys[i]);
	/*
	 * Lengths, then values, follow the keys actually returned: both move
	 * down (lengths first, whose new place ends before the values' old
	 * one starts).
	 */
	if (with_vals) {
		memmove(wlens, ordo_wire_scan_lens(out, n), (size_t)ret * 4);
		for (i = 0; i < ret; i++) {
			u32 l;

			memcpy(&l, &wlens[i], sizeof(l));
			wlens[i] = cpu_to_le32(l);
		}
		memmove(wlens + ret, ordo_wire_scan_vals(out, n),
			(size_t)ret * value_size);
	}
	if (ret < n || !ret || keys[ret - 1] == U64_MAX)
		more = 0;
	else
		next = keys[ret - 1] + 1;
	rep->next = cpu_to_le64(next);
	rep->returned = cpu_to_le32(ret);
	rep->more = cpu_to_le32(more);
	return sizeof(*rep) + ret * per;
}

/**
 * ordo_wire_regions_check() - decode a REGIONS request body
 * @body: the body, @blen bytes
 * @blen: bytes of the body
 * @kind: out: enum ordo_wire_region_kind
 * @first: out: the first entry wanted (not yet checked against a table)
 *
 * Return: 0; -EINVAL for a body that is not exactly the request or
 * non-zero flags; -EOPNOTSUPP for a kind enum ordo_wire_region_kind does
 * not have (as for an unknown op).
 */
int ordo_wire_regions_check(const void *body, u32 blen, u32 *kind,
			    u32 *first)
{
	const struct ordo_wire_regions_req *req = body;
	u32 k;

	if (blen != sizeof(*req) || req->flags)
		return -EINVAL;
	k = le16_to_cpu(req->kind);
	if (k != ORDO_WIRE_REGION_POOL && k != ORDO_WIRE_REGION_MODEL &&
	    k != ORDO_WIRE_REGION_TABLE)
		return -EOPNOTSUPP;
	*kind = k;
	*first = le32_to_cpu(req->first);
	return 0;
}

/**
 * ordo_wire_regions_fit() - entries of a REGIONS reply
 * @nr: entries in the table
 * @first: the first entry wanted
 * @room: bytes of the reply body
 * @n: out: entries from @first that fit in @room
 *
 * Return: 0, or -EINVAL when @first is past the table.
 */
int ordo_wire_regions_fit(u32 nr, u32 first, u32 room, u32 *n)
{
	const u32 rep = sizeof(struct ordo_wire_regions_rep);

	if (first > nr)
		return -EINVAL;
	*n = min_t(u32, nr - first, room < rep ? 0 :
		   (room - rep) / sizeof(struct ordo_wire_region));
	return 0;
}

/**
 * ordo_wire_model_check() - decode a MODEL_FETCH request body
 * @body: the body, @blen bytes
 * @blen: bytes of the body
 * @a: out: the request
 *
 * Return: 0 or -EINVAL (size, flags, unknown part, a field the part does
 * not take).
 */
int ordo_wire_model_check(const void *body, u32 blen,
			  struct ordo_wire_model_args *a)
{
	const struct ordo_wire_model_req *req = body;
	u32 part, count;

	if (blen != sizeof(*req) || req->flags)
		return -EINVAL;
	part = le16_to_cpu(req->part);
	count = le32_to_cpu(req->count);
	switch (part) {
	case ORDO_WIRE_MODEL_TOP:
		if (req->index || count)
			return -EINVAL;
		break;
	case ORDO_WIRE_MODEL_SUB:
		if (count || req->offset)
			return -EINVAL;
		break;
	case ORDO_WIRE_MODEL_TT:
		if (!count || req->offset)
			return -EINVAL;
		break;
	default:
		return -EINVAL;
	}
	a->part = part;
	a->index = le32_to_cpu(req->index);
	a->count = count;
	a->offset = le32_to_cpu(req->offset);
	return 0;
}

/**
 * ordo_wire_model_span() - what of the model region a MODEL_FETCH copies
 * @a: the checked request
 * @lay: the layout of the published image (ordo_model_parse_hdr(), with
 *	its region offset in @lay->base)
 * @room: bytes of reply data available
 * @src: out: TOP, TT: region offset to copy from
 * @n: out: TOP, TT: bytes to copy, at most @room, within the region
 * @total: out: TOP, TT: the reply's total
 *
 * For SUB only the index is checked; the descriptor names its slice.
 *
 * Return: 0, or -EINVAL for an index, count or offset outside the model.
 */
int ordo_wire_model_span(const struct ordo_wire_model_args *a,
			 const struct ordo_model_layout *lay, u32 room,
			 u64 *src, u64 *n, u64 *total)
{
	switch (a->part) {
	case ORDO_WIRE_MODEL_TOP:
		/* Header, pivots and descriptors: ordo_model_load_top(). */
		*total = lay->model_size;
		if (a->offset > *total)
			return -EINVAL;
		*src = lay->base + a->offset;
		*n = min_t(u64, *total - a->offset, room);
		return 0;
	case ORDO_WIRE_MODEL_SUB:
		return a->index >= lay->first && a->index < lay->nsub ?
		       0 : -EINVAL;
	}
	/* TT entries [index, index + count). */
	*total = lay->tt_cap;
	if (a->index > *total || a->count > *total - a->index)
		return -EINVAL;
	*src = lay->base + lay->tt_off + (u64)ORDO_TT_ENTRY_SIZE * a->index;
	*n = (u64)min_t(u32, a->count, room / ORDO_TT_ENTRY_SIZE) *
	     ORDO_TT_ENTRY_SIZE;
	return 0;
}

/**
 * ordo_wire_lookup_check() - decode a LOOKUP request body
 * @body: the body, @blen bytes
 * @blen: bytes of the body
 * @a: out: the request
 *
 * Return: 0 or -EINVAL.
 */
int ordo_wire_lookup_check(const void *body, u32 blen,
			   struct ordo_wire_lookup_args *a)
{
	const struct ordo_wire_lookup_req *req = body;
	u32 flags;

	if (blen != sizeof(*req))
		return -EINVAL;
	flags = le32_to_cpu(req->flags);
	if (flags & ~ORDO_WIRE_LOOKUP_NO_MODEL || req->reserved)
		return -EINVAL;
	/* req->epoch is informational: the current model is attached. */
	a->key = le64_to_cpu(req->key);
	a->flags = flags;
	return 0;
}

/**
 * ordo_wire_lookup_room() - bytes left for model data in a LOOKUP reply
 * @room: bytes of the reply body
 * @vlen: bytes of the value (0 or value_size)
 *
 * Return: @room less the reply struct and the padded value, or 0.
 */
u32 ordo_wire_lookup_room(u32 room, u32 vlen)
{
	u64 used = sizeof(struct ordo_wire_lookup_rep) +
		   (u64)ordo_wire_pad8(vlen);

	return room > used ? room - (u32)used : 0;
}

/**
 * ordo_wire_batch_check() - validate a BATCH request body whole
 * @body: the body, @blen bytes
 * @blen: bytes of the body
 * @value_size: the store's value size
 * @value_max: the longest value the store holds
 * @room: bytes of the reply body
 * @count: out: entries; each is a checked struct ordo_wire_kv and its
 *	padded value, filling the body exactly
 *
 * Return: 0; -EINVAL (size, flags, count 0, a bad entry, bytes left over,
 * more than one %ORDO_WIRE_KV_STAGED entry); -EMSGSIZE (a value over
 * @value_max); -E2BIG (count over
 * %ORDO_WIRE_BATCH_MAX, or the reply would not fit in @room).
 */
int ordo_wire_batch_check(const void *body, u32 blen, u32 value_size,
			  u32 value_max, u32 room, u32 *count)
{
	const struct ordo_wire_batch *b = body;
	u32 n, off, i, size, nget = 0, nstaged = 0;
	u64 need;
	int ret;

	if (blen < sizeof(*b) || b->flags)
		return -EINVAL;
	n = le32_to_cpu(b->count);
	if (!n)
		return -EINVAL;
	if (n > ORDO_WIRE_BATCH_MAX)
		return -E2BIG;
	/* Check every entry before running any. */
	for (i = 0, off = sizeof(*b); i < n; i++, off += size) {
		const struct ordo_wire_kv *kv = (const void *)((const u8 *)body +
							       off);

		ret = ordo_wire_kv_check(kv, blen - off, value_max, true, &size);
		if (ret)
			return ret;
		nget += kv->op == ORDO_WIRE_OP_GET;
		nstaged += !!(kv->flags & ORDO_WIRE_KV_STAGED);
	}
	/* One staged value per connection: one entry may store it. */
	if (off != blen || nstaged > 1)
		return -EINVAL;
	need = sizeof(struct ordo_wire_batch_rep) +
	       (u64)n * sizeof(struct ordo_wire_batch_res) +
	       (u64)nget * value_size;
	if (need > room)
		return -E2BIG;
	*count = n;
	return 0;
}
