// SPDX-License-Identifier: GPL-2.0
/*
 * libordo: decoders of bytes from a server (decode.h).  Every reply is
 * checked against its request before a byte of it is used: a broken or
 * hostile server gets -EPROTO, never an overrun.
 */
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "decode.h"

#define HDR	sizeof(struct ordo_wire_hdr)

/**
 * shim_enc_req() - encode the body of a GET ... DELETE, SCAN or LOOKUP
 * @body: where the body goes, behind the request's header; room for
 *	sizeof(struct ordo_wire_kv) + ordo_wire_pad8(@q->len) bytes
 * @q: the request
 *
 * Return: bytes of the body.
 */
uint32_t shim_enc_req(uint8_t *body, const struct shim_req *q)
{
	if (q->op == ORDO_WIRE_OP_SCAN) {
		struct ordo_wire_scan_req *s = (void *)body;

		s->start = htole64(q->key);
		s->count = htole32(q->count);
		s->flags = htole32(0);
		return sizeof(*s);
	}
	if (q->op == ORDO_WIRE_OP_LOOKUP) {
		struct ordo_wire_lookup_req *l = (void *)body;

		memset(l, 0, sizeof(*l));
		l->key = htole64(q->key);
		l->epoch = htole64(q->epoch);
		l->flags = htole32(q->flags);
		return sizeof(*l);
	}
	{
		struct ordo_wire_kv *kv = (void *)body;

		memset(kv, 0, sizeof(*kv) + ordo_wire_pad8(q->len));
		kv->key = htole64(q->key);
		kv->value_len = htole16(q->len);
		kv->op = q->op;
		kv->flags = q->kv_flags;
		kv->arg = htole32(q->arg);
		if (q->hint_leaf) {
			kv->flags |= ORDO_WIRE_KV_HINT;
			kv->hint_leaf = htole32(q->hint_leaf);
		}
		if (q->len)
			memcpy(kv + 1, q->val, q->len);
		return sizeof(*kv) + ordo_wire_pad8(q->len);
	}
}

/**
 * shim_stage_part_max() - value bytes one STAGE request carries at most
 * @max_msg: the server's message bound, at least %ORDO_WIRE_MSG_MIN
 *
 * Return: a multiple of 8.
 */
uint32_t shim_stage_part_max(uint32_t max_msg)
{
	return (max_msg - HDR - sizeof(struct ordo_wire_stage)) & ~7U;
}

/**
 * shim_enc_stage() - encode the body of a STAGE request
 * @body: where the body goes, behind the request's header; room for
 *	sizeof(struct ordo_wire_stage) + ordo_wire_pad8(@len) bytes
 * @total: the whole value's length
 * @offset: where this part goes (0: a new value)
 * @part: @len bytes of value
 * @len: bytes of this part
 *
 * Return: bytes of the body.
 */
uint32_t shim_enc_stage(uint8_t *body, uint32_t total, uint32_t offset,
			const void *part, uint32_t len)
{
	struct ordo_wire_stage *st = (void *)body;

	memset(st, 0, sizeof(*st) + ordo_wire_pad8(len));
	st->total = htole32(total);
	st->offset = htole32(offset);
	st->len = htole32(len);
	memcpy(st + 1, part, len);
	return sizeof(*st) + ordo_wire_pad8(len);
}

/**
 * shim_dec_reply_hdr() - check the header of a reply
 * @msg: the message, @len bytes
 * @len: bytes received
 *
 * Return: 0 (the header is in @msg and its length is @len), or -EPROTO.
 */
int shim_dec_reply_hdr(const void *msg, uint32_t len)
{
	const struct ordo_wire_hdr *h = msg;

	if (len < HDR || le32toh(h->length) != len ||
	    h->version != ORDO_WIRE_VERSION)
		return -EPROTO;
	return 0;
}

/**
 * shim_dec_part() - decode a struct ordo_wire_part and its bytes
 * @b: the part, @blen bytes: the struct and exactly its returned bytes
 * @blen: bytes at @b
 * @value_size: the store's value size
 * @value_max: the longest value the store holds
 * @offset: the offset asked for
 * @p: out: the part; @p->bytes lies inside @b
 *
 * A part that starts inside the value carries at least one byte, so a
 * client assembling a value always progresses.
 *
 * Return: 0 or -EPROTO.
 */
int shim_dec_part(const uint8_t *b, uint32_t blen, uint32_t value_size,
		  uint32_t value_max, uint32_t offset, struct shim_part *p)
{
	const struct ordo_wire_part *w = (const void *)b;
	uint32_t len, ret, units, left;
	uint64_t ref;

	if (blen < sizeof(*w))
		return -EPROTO;
	ref = le64toh(w->ref);
	len = le32toh(w->len);
	ret = le32toh(w->returned);
	units = le32toh(w->units);
	left = offset < len ? len - offset : 0;
	if (le32toh(w->offset) != offset || len > value_max ||
	    blen - sizeof(*w) != ret || ret > left || (left && !ret))
		return -EPROTO;
	/* An extent holds a long value; a value in its slot has no ref. */
	if (ref ? len <= value_size || units != ordo_extent_units(len) :
	    len > value_size || units)
		return -EPROTO;
	p->ref = ref;
	p->len = len;
	p->offset = offset;
	p->returned = ret;
	p->units = units;
	p->bytes = (const uint8_t *)(w + 1);
	return 0;
}

/**
 * shim_dec_get() - decode a GET reply body
 * @b: the body, @blen bytes
 * @blen: bytes of the body
 * @hflags: the reply header's flags
 * @value_size: the store's value size
 * @value_max: the longest value the store holds
 * @offset: the offset asked for with %ORDO_WIRE_KV_PART, else 0
 * @p: out: what the reply carries, as a part; @p->bytes lies inside @b
 *
 * Without %ORDO_WIRE_F_PART the body is a whole value of at most
 * @value_size bytes (only an answer to a GET from offset 0).
 *
 * Return: 0 or -EPROTO.
 */
int shim_dec_get(const uint8_t *b, uint32_t blen, uint16_t hflags,
		 uint32_t value_size, uint32_t value_max, uint32_t offset,
		 struct shim_part *p)
{
	if (hflags & ORDO_WIRE_F_PART)
		return shim_dec_part(b, blen, value_size, value_max, offset, p);
	if (offset || blen > value_size)
		return -EPROTO;
	memset(p, 0, sizeof(*p));
	p->len = blen;
	p->returned = blen;
	p->bytes = b;
	return 0;
}

/**
 * shim_dec_lookup() - decode a LOOKUP reply body
 * @b: the body, @blen bytes
 * @blen: bytes of the body
 * @hflags: the reply header's flags (%ORDO_WIRE_F_PART: the value is
 *	described by a struct ordo_wire_part)
 * @value_size: the store's value size
 * @value_max: the longest value the store holds
 * @l: out: the reply; its pointers lie inside @b
 *
 * Return: 0 or -EPROTO.
 */
int shim_dec_lookup(const uint8_t *b, uint32_t blen, uint16_t hflags,
		    uint32_t value_size, uint32_t value_max,
		    struct shim_lookup_rep *l)
{
	const struct ordo_wire_lookup_rep *w = (const void *)b;
	bool part = hflags & ORDO_WIRE_F_PART;
	uint32_t vlen, mlen, mtot, vpad;
	struct shim_part p = { 0 };

	if (blen < sizeof(*w))
		return -EPROTO;
	vlen = le32toh(w->value_len);
	mlen = le32toh(w->model_len);
	mtot = le32toh(w->model_total);
	if (w->found > htole32(1) || (!part && vlen > value_size) ||
	    (!w->found && (vlen || part)) || mlen > mtot || vlen > blen ||
	    w->reserved)
		return -EPROTO;
	vpad = ordo_wire_pad8(vlen);
	if ((uint64_t)sizeof(*w) + vpad + mlen != blen)
		return -EPROTO;
	if (part && shim_dec_part(b + sizeof(*w), vlen, value_size, value_max,
				  0, &p))
		return -EPROTO;
	l->epoch = le64toh(w->epoch);
	l->sub = le32toh(w->sub);
	l->found = w->found != 0;
	l->val = part ? p.bytes : (const uint8_t *)(w + 1);
	l->val_len = part ? p.returned : vlen;
	l->total = part ? p.len : vlen;
	l->ref = p.ref;
	l->units = p.units;
	l->model = (const uint8_t *)(w + 1) + vpad;
	l->model_len = mlen;
	l->model_total = mtot;
	return 0;
}

/**
 * shim_dec_scan() - decode a SCAN reply body
 * @b: the body, @blen bytes
 * @blen: bytes of the body
 * @value_size: the store's value size (the client always asks for values)
 * @value_max: the longest value the store holds
 * @start: the request's start key
 * @count: the request's count
 * @keys: out: @count keys at most (written even if the reply is refused)
 * @s: out: the reply
 *
 * Return: 0 or -EPROTO.
 */
int shim_dec_scan(const uint8_t *b, uint32_t blen, uint32_t value_size,
		  uint32_t value_max, uint64_t start, uint32_t count,
		  uint64_t *keys, struct shim_scan_rep *s)
{
	const struct ordo_wire_scan_rep *w = (const void *)b;
	const uint8_t *p = b + sizeof(*w);
	uint32_t n, i;
	uint64_t prev = 0;

	if (blen < sizeof(*w))
		return -EPROTO;
	n = le32toh(w->returned);
	if (n > count || le32toh(w->more) > 1 ||
	    blen != sizeof(*w) + (uint64_t)n * (12 + value_size))
		return -EPROTO;
	for (i = 0; i < n; i++) {
		uint64_t k = le64toh(((const __le64 *)p)[i]);

		/* Ascending, no duplicates, from the start key on. */
		if (k < start || (i && k <= prev))
			return -EPROTO;
		prev = k;
		keys[i] = k;
	}
	s->lens = (const __le32 *)(p + 8 * (size_t)n);
	for (i = 0; i < n; i++)
		if (le32toh(s->lens[i]) > value_max)
			return -EPROTO;
	s->n = n;
	s->more = le32toh(w->more);
	s->next = le64toh(w->next);
	/* More only after a key, and from past it: a scan always moves on. */
	if (s->more && (!n || s->next <= prev))
		return -EPROTO;
	s->vals = p + 12 * (size_t)n;
	return 0;
}

/**
 * shim_dec_batch() - decode a BATCH reply body into its entries
 * @b: the body, @blen bytes
 * @blen: bytes of the body
 * @value_size: the store's value size
 * @value_max: the longest value the store holds
 * @ops: the @n entries the request carried; each gets its result, and a
 *	GET that found its key its value and length in kv.value_len
 *	(-ENOBUFS if kv.value_len is short, and for a value longer than
 *	@value_size, whose length alone the reply carries)
 * @n: entries
 *
 * Return: 0, or -EPROTO (results already set may be partial).
 */
int shim_dec_batch(const uint8_t *b, uint32_t blen, uint32_t value_size,
		   uint32_t value_max, struct ordo_batch_op *ops, uint32_t n)
{
	const struct ordo_wire_batch_rep *rep = (const void *)b;
	const struct ordo_wire_batch_res *res = (const void *)(rep + 1);
	const uint8_t *vals = (const uint8_t *)(res + n), *end = b + blen;
	uint32_t i;

	if (blen < sizeof(*rep) + (uint64_t)n * sizeof(*res) ||
	    le32toh(rep->count) != n)
		return -EPROTO;
	for (i = 0; i < n; i++) {
		uint32_t vl = le32toh(res[i].value_len);
		int st = ordo_wire_errno(le32toh(res[i].status));
		bool get = ops[i].op == ORDO_OP_GET && !st;
		/* Bytes follow for values of at most value_size. */
		uint32_t bytes = get && vl <= value_size ? vl : 0;

		/* A GET that found its key carries its length; nothing else. */
		if (get ? vl > value_max : vl != 0)
			return -EPROTO;
		if (res[i].reserved[0] || res[i].reserved[1] ||
		    res[i].reserved[2] || bytes > (size_t)(end - vals))
			return -EPROTO;
		ops[i].result = st;
		if (get && (ops[i].kv.value_len < value_size ||
			    vl > value_size)) {
			ops[i].result = -ENOBUFS;
			if (vl > value_size)
				ops[i].kv.value_len = vl;
		} else if (get) {
			memcpy((void *)(uintptr_t)ops[i].kv.value, vals, vl);
			ops[i].kv.value_len = vl;
		}
		vals += bytes;
	}
	return 0;
}

/**
 * shim_dec_info() - decode an INFO reply body
 * @b: the body, @blen bytes
 * @blen: bytes of the body
 * @info: out: the figures
 *
 * Return: 0 or -EPROTO.
 */
int shim_dec_info(const uint8_t *b, uint32_t blen, struct ordo_info *info)
{
	const struct ordo_wire_info *w = (const void *)b;

	if (blen != sizeof(*w))
		return -EPROTO;
	memset(info, 0, sizeof(*info));
	info->abi_version = ORDO_ABI_VERSION;
	snprintf(info->version, sizeof(info->version), "wire %u",
		 ORDO_WIRE_VERSION);
	info->node_size = le32toh(w->node_size);
	info->leaf_slots = le32toh(w->leaf_slots);
	info->inner_fanout = le32toh(w->inner_fanout);
	info->value_size = le32toh(w->value_size);
	info->chunk_size = le64toh(w->chunk_size);
	info->max_chunks = le32toh(w->max_chunks);
	info->pool_bytes_used = le64toh(w->pool_bytes_used);
	info->pool_bytes_total = le64toh(w->pool_bytes_total);
	info->keys = le64toh(w->keys);
	info->height = le32toh(w->height);
	return 0;
}

/**
 * shim_dec_regions() - take one page of a REGIONS reply
 * @acc: the table so far (zeroed before the first page)
 * @kind: the kind asked for
 * @b: the body, @blen bytes
 * @blen: bytes of the body
 *
 * Return: 0 (ask for the next page while @acc->got < @acc->total), -EPROTO
 * or -ENOMEM.
 */
int shim_dec_regions(struct shim_regions *acc, uint16_t kind,
		     const uint8_t *b, uint32_t blen)
{
	const struct ordo_wire_regions_rep *rep = (const void *)b;
	const struct ordo_wire_region *e = (const void *)(rep + 1);
	struct region_ent *ent;
	uint32_t k, i, got = acc->got;

	if (blen < sizeof(*rep))
		return -EPROTO;
	k = le32toh(rep->returned);
	if (got && le32toh(rep->total) != acc->total)
		return -EPROTO;
	acc->total = le32toh(rep->total);
	/* The table is one region (none before the first publication). */
	if (kind == ORDO_WIRE_REGION_TABLE && acc->total > 1)
		return -EPROTO;
	acc->covered = le64toh(rep->covered);
	if (k > acc->total - got || (!k && got < acc->total) ||
	    blen != sizeof(*rep) + (uint64_t)k * sizeof(*e))
		return -EPROTO;
	ent = realloc(acc->ent, ((size_t)got + k + 1) * sizeof(*ent));
	if (!ent)
		return -ENOMEM;
	acc->ent = ent;
	for (i = 0; i < k; i++, got++) {
		ent[got].off = le64toh(e[i].offset);
		ent[got].len = le64toh(e[i].length);
		ent[got].rkey = le32toh(e[i].rkey);
		/* They must tile [0, covered) in order, without wrapping. */
		if (ent[got].off != (got ? ent[got - 1].off +
				     ent[got - 1].len : 0) ||
		    !ent[got].len || ent[got].len > UINT64_MAX - ent[got].off ||
		    le16toh(e[i].kind) != kind)
			return -EPROTO;
	}
	acc->got = got;
	return 0;
}

/**
 * shim_dec_regions_end() - check a table whose every page was taken
 * @acc: the table
 *
 * Return: 0 (the entries tile [0, @acc->covered)), or -EPROTO.
 */
int shim_dec_regions_end(const struct shim_regions *acc)
{
	const struct region_ent *last = acc->got ? &acc->ent[acc->got - 1] :
					NULL;

	if (last && last->off + last->len != acc->covered)
		return -EPROTO;
	return 0;
}

/*
 * Take the entries of @kind from @e[*@i] on into @t: they must tile [0,
 * @end) in order, each a non-empty multiple of @align bytes.
 */
static int table_kind(const struct ordo_wire_region *e, uint32_t n,
		      uint32_t *i, uint16_t kind, uint64_t align, uint64_t end,
		      struct region_tab *t)
{
	uint32_t first = *i, k;
	uint64_t at = 0;

	while (*i < n && le16toh(e[*i].kind) == kind)
		++*i;
	t->n = *i - first;
	t->covered = end;
	t->ent = t->n ? calloc(t->n, sizeof(*t->ent)) : NULL;
	if (t->n && !t->ent)
		return -ENOMEM;
	for (k = 0; k < t->n; k++) {
		const struct ordo_wire_region *w = &e[first + k];
		struct region_ent *x = &t->ent[k];

		x->off = le64toh(w->offset);
		x->len = le64toh(w->length);
		x->rkey = le32toh(w->rkey);
		if (w->flags || x->off != at || !x->len || x->len % align ||
		    x->len > UINT64_MAX - x->off)
			return -EPROTO;
		at = x->off + x->len;
	}
	return at == end ? 0 : -EPROTO;
}

/**
 * shim_dec_table() - decode a region table from one READ of all of it
 * @b: the bytes read, @len of them
 * @len: the table's length as its REGIONS entry gives it
 * @server_id: the accept reply's server id
 * @chunk_size: the accept reply's chunk size, not 0
 * @t: out: the table; on success the caller owns @t->pool.ent and
 *	@t->model.ent
 *
 * The checks of Documentation/wire.rst, "The region table", in its order:
 * fields that never change first (a mismatch is a broken server, not a
 * torn copy), then the sequence word and the checksum (a torn copy: READ
 * again), then the entries the checksum vouched for.
 *
 * Return: 0; -EAGAIN for a torn copy; -EPROTO; -ENOMEM.
 */
int shim_dec_table(const uint8_t *b, uint64_t len, uint64_t server_id,
		   uint64_t chunk_size, struct shim_table *t)
{
	const struct ordo_wire_table *h = (const void *)b;
	const struct ordo_wire_region *e = (const void *)(h + 1);
	uint64_t body, sum, pool_end;
	uint32_t cap, nr, i = 0;
	uint8_t *copy;
	int ret;

	memset(t, 0, sizeof(*t));
	if (len < sizeof(*h) || !chunk_size)
		return -EPROTO;
	body = len - sizeof(*h);
	cap = le32toh(h->cap_entries);
	if (body % sizeof(*e) || body / sizeof(*e) != cap ||
	    cap > ORDO_WIRE_TABLE_ENTRIES_MAX ||
	    le32toh(h->magic) != ORDO_WIRE_TABLE_MAGIC ||
	    le16toh(h->version) != ORDO_WIRE_TABLE_VERSION ||
	    le16toh(h->hdr_size) != sizeof(*h) ||
	    le64toh(h->server_id) != server_id || h->reserved)
		return -EPROTO;
	if (le64toh(h->seq) & 1)
		return -EAGAIN;
	nr = le32toh(h->nr_entries);
	if (nr > cap)
		return -EPROTO;
	/* The sum of the bytes as read, with the checksum field zero. */
	copy = malloc(sizeof(*h) + (size_t)nr * sizeof(*e));
	if (!copy)
		return -ENOMEM;
	memcpy(copy, b, sizeof(*h) + (size_t)nr * sizeof(*e));
	memset(copy + offsetof(struct ordo_wire_table, checksum), 0, 8);
	sum = ordo_xxh64(copy, sizeof(*h) + (size_t)nr * sizeof(*e), 0);
	free(copy);
	if (sum != le64toh(h->checksum))
		return -EAGAIN;
	t->seq = le64toh(h->seq);
	t->pool_chunks = le32toh(h->pool_chunks);
	t->nr_chunks = le32toh(h->nr_chunks);
	t->lease_ms = le32toh(h->lease_ms);
	if (t->pool_chunks > t->nr_chunks || !t->lease_ms ||
	    t->pool_chunks > UINT64_MAX / chunk_size)
		return -EPROTO;
	pool_end = t->pool_chunks * chunk_size;
	ret = table_kind(e, nr, &i, ORDO_WIRE_REGION_POOL, chunk_size,
			 pool_end, &t->pool);
	if (!ret)
		ret = table_kind(e, nr, &i, ORDO_WIRE_REGION_MODEL, 1,
				 le64toh(h->model_bytes), &t->model);
	/* Anything left is of another kind, or pool after model. */
	if (!ret && i != nr)
		ret = -EPROTO;
	if (ret) {
		free(t->pool.ent);
		free(t->model.ent);
		memset(t, 0, sizeof(*t));
	}
	return ret;
}

/**
 * shim_region_find() - the entry a READ of [@off, @off + @len) uses
 * @t: the table
 * @off: offset in the address space
 * @len: bytes
 *
 * Return: the entry that holds the whole range, or NULL.
 */
const struct region_ent *shim_region_find(const struct region_tab *t,
					  uint64_t off, uint32_t len)
{
	uint32_t lo = 0, hi = t->n;

	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;
		const struct region_ent *e = &t->ent[mid];

		if (off < e->off)
			hi = mid;
		else if (off - e->off >= e->len)
			lo = mid + 1;
		else
			return len <= e->len - (off - e->off) ? e : NULL;
	}
	return NULL;
}

/**
 * shim_dec_conn_rep() - check the accept reply: every field a client
 *	relies on, in range
 * @rep: the private data of the accept
 * @max_qd: the queue depth asked for
 * @have: the geometry of an earlier connection (node_size 0: none)
 * @geo: out: the server's geometry
 *
 * Return: 0 or -EPROTO.
 */
int shim_dec_conn_rep(const struct ordo_wire_conn_rep *rep, uint32_t max_qd,
		      const struct ordo_geo *have, struct ordo_geo *geo)
{
	uint32_t qd = le16toh(rep->queue_depth), mm = le32toh(rep->max_msg);
	uint32_t vmax = le32toh(rep->value_max);
	uint64_t chunk = le64toh(rep->chunk_size);
	struct ordo_geo g;

	if (le32toh(rep->magic) != ORDO_WIRE_MAGIC ||
	    le16toh(rep->version) != ORDO_WIRE_VERSION || !qd ||
	    qd > max_qd || mm < ORDO_WIRE_MSG_MIN || mm > ORDO_WIRE_MSG_MAX)
		return -EPROTO;
	if (ordo_geo_init(&g, le32toh(rep->leaf_slots),
			  le32toh(rep->value_size)) ||
	    g.node_size != le32toh(rep->node_size) ||
	    g.inner_fanout != le32toh(rep->inner_fanout) ||
	    !le32toh(rep->nodes_per_chunk) || chunk < g.node_size)
		return -EPROTO;
	/* Lengths are checked against it: it must be what the chunks hold. */
	if (vmax < g.value_size || vmax > ordo_value_len_max(chunk))
		return -EPROTO;
	if (have->node_size && memcmp(&g, have, sizeof(g)))
		return -EPROTO;	/* a reconnect met another geometry */
	*geo = g;
	return 0;
}

/**
 * shim_dec_conn_rej() - the errno of a reject's private data
 * @pdata: the private data, or NULL
 * @len: its bytes
 *
 * Return: a negative errno; -ECONNREFUSED when the reject is not ordo's.
 */
int shim_dec_conn_rej(const void *pdata, size_t len)
{
	struct ordo_wire_conn_rej rej;

	if (!pdata || len < sizeof(rej))
		return -ECONNREFUSED;
	memcpy(&rej, pdata, sizeof(rej));
	if (le32toh(rej.magic) != ORDO_WIRE_MAGIC)
		return -ECONNREFUSED;
	switch (le16toh(rej.reason)) {
	case ORDO_WIRE_REJ_TOKEN:
		return -EACCES;
	case ORDO_WIRE_REJ_BUSY:
		return -EUSERS;
	case ORDO_WIRE_REJ_VERSION:
		return -EPROTONOSUPPORT;
	case ORDO_WIRE_REJ_SHUTDOWN:
		return -ESHUTDOWN;
	case ORDO_WIRE_REJ_RESOURCES:
		return -ENOMEM;
	case ORDO_WIRE_REJ_DEVICE:
		return -ENODEV;
	case ORDO_WIRE_REJ_THROTTLED:
		return -EAGAIN;
	case ORDO_WIRE_REJ_PEER_BUSY:
		return -EUSERS;
	}
	return -ECONNREFUSED;
}

/**
 * shim_node_read_len() - bytes a reader needs of a node at @level
 * @geo: the store's geometry
 * @level: the node's level
 * @whole_leaf: a leaf with its values (SCAN), not its key block alone
 *
 * Return: ordo_inner_size() for an inner node; node_size or the key
 * block's size for a leaf (node_size when the values sit in the key
 * block: the key block is then the whole leaf).
 */
uint32_t shim_node_read_len(const struct ordo_geo *geo, uint32_t level,
			    bool whole_leaf)
{
	if (level)
		return ordo_inner_size(geo->inner_fanout);
	return whole_leaf || ordo_leaf_values_in_block(geo->value_size) ?
	       geo->node_size : ordo_leaf_block_size(geo->leaf_slots);
}

/**
 * shim_leaf_read_len() - bytes a GET reads of a leaf
 * @geo: the store's geometry
 *
 * Return: node_size up to %SHIM_LEAF_WHOLE_MAX or when the values sit in
 * the key block, else the key block's size (the value follows in a READ
 * of its own).
 */
uint32_t shim_leaf_read_len(const struct ordo_geo *geo)
{
	return shim_node_read_len(geo, 0,
				  geo->node_size <= SHIM_LEAF_WHOLE_MAX);
}

/**
 * shim_node_check() - check a node copy against the node and key wanted
 * @geo: the store's geometry
 * @buf: the copy as READ
 * @len: bytes read: node_size, or what the reader needs: an inner node's
 *	ordo_inner_size(), a leaf's ordo_leaf_block_size()
 * @node: the node number wanted
 * @level: its level
 * @key: the key whose range it must cover
 *
 * A copy of the key block alone is checked without the values (the
 * reader checks the one value it reads with shim_value_matches()); a
 * partial copy is stale if the node's checksum covers more than it holds.
 *
 * Return: enum vres; %V_OK and %V_RIGHT only for a copy that passed
 * ordo_node_validate_part() (so its count is within the node's capacity;
 * a copy of node_size bytes or more has its leaf values checked too).
 */
enum vres shim_node_check(const struct ordo_geo *geo, const void *buf,
			  uint32_t len, uint32_t node, uint32_t level,
			  uint64_t key)
{
	const struct ordo_node_hdr *h = buf;
	int ret;

	if (len < shim_node_read_len(geo, level, 0))
		return V_STALE;
	ret = ordo_node_validate_part(buf, len, geo);
	if (ret == -EAGAIN)
		return V_TORN;
	if (ret || le32toh(h->node_no) != node || h->level != level ||
	    (h->flags & (ORDO_NODE_F_FREE | ORDO_NODE_F_SUPER)))
		return V_STALE;
	if (key < le64toh(h->low_key))
		return V_LEFT;
	if ((h->flags & ORDO_NODE_F_HAS_HIGH) && key >= le64toh(h->high_key))
		return h->right ? V_RIGHT : V_STALE;
	return V_OK;
}

/**
 * shim_leaf_find() - the slot of @key in a validated leaf copy
 * @geo: the store's geometry
 * @buf: the leaf, whole or its key block, as shim_node_check() passed it
 * @key: the key
 * @slot: out: its slot, below leaf_slots
 *
 * Return: 0, -ENOENT, or -EIO for a count over leaf_slots.
 */
int shim_leaf_find(const struct ordo_geo *geo, const void *buf, uint64_t key,
		   uint32_t *slot)
{
	const struct ordo_node_hdr *h = buf;
	uint32_t cnt = le16toh(h->count), rank;
	int s;

	if (cnt > geo->leaf_slots)
		return -EIO;
	s = ordo_leaf_find(h, geo, cnt, key, &rank);
	if (s < 0)
		return -ENOENT;
	*slot = s;
	return 0;
}

/**
 * shim_leaf_get() - copy the value of @key from a validated leaf
 * @geo: the store's geometry
 * @buf: the whole leaf
 * @key: the key
 * @val: value_size bytes, or NULL
 * @len: out: the value's length
 *
 * Return: 0, -ENOENT, or -EIO for a count over leaf_slots.
 */
int shim_leaf_get(const struct ordo_geo *geo, const void *buf, uint64_t key,
		  void *val, uint32_t *len)
{
	uint32_t slot;
	int ret = shim_leaf_find(geo, buf, key, &slot);

	if (ret)
		return ret;
	*len = ordo_leaf_value_len(buf, geo, slot);
	if (val)
		memcpy(val, ordo_leaf_cvalue(buf, geo, slot), *len);
	return 0;
}

/**
 * shim_value_matches() - check a value read apart from its key block
 * @geo: the store's geometry
 * @block: the leaf's key block, validated
 * @slot: the slot the value was read from, below leaf_slots
 * @val: the value's bytes as READ (its length is the key block's)
 *
 * Return: true if @val is the value the key block's publication holds in
 * @slot (its check word matches).
 */
bool shim_value_matches(const struct ordo_geo *geo, const void *block,
			uint32_t slot, const void *val)
{
	return ordo_leaf_value_matches(block, geo, slot, val);
}

/**
 * shim_walk_step() - one node of a walk from the root to a key's leaf
 * @geo: the store's geometry
 * @w: the walk: @w->node at @w->level is the node @buf was read from
 * @buf: the copy as READ (or cached): an inner node's ordo_inner_size()
 *	bytes, a leaf's @w->leaf_len
 *
 * Validates the copy against the node and key wanted (shim_node_check())
 * and takes the next step: a leaf holding the key ends the walk; a good
 * inner node leads down to the child whose range holds the key; a node
 * the key has left leads right, at most %SHIM_WALK_RIGHTS_MAX times (then
 * the walk is stale: right links that never end are a broken server's, or
 * stale cached copies of nodes freed and used again).
 *
 * Return: enum shim_walk_res.  %SHIM_WALK_DOWN and %SHIM_WALK_RIGHT
 * update @w->node (and @w->level, or @w->rights); every other result
 * leaves @w as it was.  %SHIM_WALK_LEAF and %SHIM_WALK_DOWN only for a
 * copy that passed shim_node_check() at the level wanted.
 */
enum shim_walk_res shim_walk_step(const struct ordo_geo *geo,
				  struct shim_walk *w, const void *buf)
{
	const struct ordo_node_hdr *h = buf;
	uint32_t len = w->level ? shim_node_read_len(geo, w->level, true) :
		       w->leaf_len ? w->leaf_len : geo->node_size;
	uint32_t cnt, i;

	switch (shim_node_check(geo, buf, len, w->node, w->level, w->key)) {
	case V_TORN:
		return SHIM_WALK_TORN;
	case V_STALE:
	case V_LEFT:
		return SHIM_WALK_STALE;
	case V_RIGHT:
		if (w->rights >= SHIM_WALK_RIGHTS_MAX)
			return SHIM_WALK_STALE;
		w->rights++;
		w->node = le32toh(h->right);
		return SHIM_WALK_RIGHT;
	case V_OK:
		break;
	}
	if (w->level == 0)
		return SHIM_WALK_LEAF;
	cnt = le16toh(h->count);
	if (cnt > geo->inner_fanout)
		cnt = geo->inner_fanout;
	i = ordo_keys_upper_bound(ordo_node_ckeys(h), cnt, w->key);
	i = i ? i - 1 : 0;
	w->node = le32toh(ordo_inner_cchildren(h, geo)[i]);
	w->level--;
	return SHIM_WALK_DOWN;
}

/**
 * shim_scan_take() - take the pairs of a leaf from the scan's fence on
 * @geo: the store's geometry
 * @s: the scan
 * @leaf: a leaf copy that passed shim_node_check() at level 0 for
 *	@s->fence
 *
 * Return: 1 when the scan is complete (@s->count pairs, or the rightmost
 * leaf): @s->more and @s->next are set; 0 to go on at leaf @s->right from
 * @s->fence, now the leaf's high fence; -EIO, and nothing taken, when the
 * keys to take are not strictly ascending from the fence and below the
 * leaf's high fence (a broken or malicious server: a checksum only proves
 * that the node was published so).
 */
int shim_scan_take(const struct ordo_geo *geo, struct shim_scan *s,
		   const void *leaf)
{
	const struct ordo_node_hdr *h = leaf;
	uint32_t cnt = le16toh(h->count), i, have = s->have, slot, len;
	bool high = h->flags & ORDO_NODE_F_HAS_HIGH;
	uint64_t prev = 0;

	if (cnt > geo->leaf_slots)
		cnt = geo->leaf_slots;
	i = ordo_leaf_lower_bound(h, geo, cnt, s->fence);
	for (; i < cnt && have < s->count; i++) {
		uint64_t k = ordo_leaf_key(h, geo, i);

		if (k < s->fence || (have > s->have && k <= prev) ||
		    (high && k >= le64toh(h->high_key)))
			return -EIO;
		s->keys[have] = k;
		slot = ordo_leaf_slot(h, geo, i);
		len = ordo_leaf_value_len(h, geo, slot);
		if (s->vals) {
			uint8_t *v = s->vals + (size_t)have * geo->value_size;

			memcpy(v, ordo_leaf_cvalue(h, geo, slot), len);
			memset(v + len, 0, geo->value_size - len);
		}
		if (s->lens)
			s->lens[have] = len;
		have++;
		prev = k;
	}
	s->have = have;
	if (s->have == s->count) {
		uint64_t last = s->keys[s->count - 1];

		s->more = last != UINT64_MAX && (i < cnt || high);
		s->next = last + 1;
		return 1;
	}
	if (!high) {
		s->more = 0;
		return 1;
	}
	s->fence = le64toh(h->high_key);
	s->right = le32toh(h->right);
	return 0;
}

/**
 * shim_model_same_layout() - do two reads of a model header agree?
 * @a: one header
 * @b: the other
 *
 * The same epoch, sub-models in use, and the same places for pivots,
 * descriptors and slices (nsub_cap and tt_cap fix them): bytes read
 * with one header may be decoded with the other.
 *
 * Return: true if they agree.
 */
bool shim_model_same_layout(const struct ordo_model_layout *a,
			    const struct ordo_model_layout *b)
{
	return a->epoch == b->epoch && a->first == b->first &&
	       a->nsub == b->nsub && a->nsub_cap == b->nsub_cap &&
	       a->tt_cap == b->tt_cap;
}

/**
 * shim_dec_model_only() - a model-only cache from the model's top level
 * @lay: the layout of the header read first
 * @img: the image's bytes [0, @len): header, pivots and descriptors
 * @len: bytes at @img, @lay->model_size
 * @mp: out: the model, sub-models without TT slices
 * @starts: out: each sub-model's first TT entry in the region
 * @tt_off: out: region offset of the TT area
 *
 * Return: 0; -EINVAL for malformed bytes; -EBADMSG when the checksum
 * fails (read again); -ENOMEM.
 */
int shim_dec_model_only(const struct ordo_model_layout *lay,
			const uint8_t *img, size_t len,
			struct ordo_model **mp, uint32_t **starts,
			uint64_t *tt_off)
{
	struct ordo_model_layout il;
	struct ordo_model *m;
	uint32_t i;
	int ret;

	/*
	 * The header was read before the image: a model published between
	 * the two reads has another layout (another range: the loop below
	 * would leave sub-models out or write past m->subs).  Read again.
	 */
	if (ordo_model_parse_hdr(img, len, &il) ||
	    !shim_model_same_layout(&il, lay))
		return -EBADMSG;
	ret = ordo_model_load_top(&m, img, len);
	if (ret)
		return ret;
	/* The TT entries stay with the server: no room for them here. */
	ordo_model_drop_tt(m);
	*starts = calloc(lay->nsub, sizeof(**starts));
	for (i = lay->first; *starts && i < lay->nsub; i++) {
		const uint8_t *d = img + lay->desc_off +
				   (uint64_t)ORDO_MODEL_DESC_SIZE * i;
		uint64_t off, n;

		/* Unchecked by a sum: the leaf's checks decide. */
		ret = ordo_model_desc_decode(d, &m->subs[i]);
		if (!ret)
			ret = ordo_model_desc_slice(lay, d, &off, &n);
		if (ret)
			break;
		(*starts)[i] = (off - lay->base - lay->tt_off) /
			       ORDO_TT_ENTRY_SIZE;
		m->subs[i].tt = ORDO_SUB_NO_TT;
	}
	if (!*starts)
		ret = -ENOMEM;
	if (ret) {
		ordo_model_free(m);
		free(*starts);
		*starts = NULL;
		return ret;
	}
	*tt_off = lay->base + lay->tt_off;
	*mp = m;
	return 0;
}
