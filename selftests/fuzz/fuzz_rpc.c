// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target: the server's decoders of untrusted bytes
 * (kmod/core/wire.c): the connect private data, the RPC header, every
 * request body, and the bounds of the replies built from them.  A reply
 * is built into a buffer of exactly the room the connection has, from
 * store results the input chooses, and decoded again by the client's
 * decoders (libshim/decode.c): what the server builds, the client takes.
 *
 * Input: [mode u8][value_size u8][msg u16][a u64][b u64][message...].
 * mode bit 1: the message describes a request for libordo's encoder
 * (round trip); else bit 0: the message is connect private data.  msg picks max_msg
 * (4096 to 65536); a and b choose the simulated store's answers and
 * value_max (value_size up to 1 MiB).
 */
#include "fuzz.h"
#include "wire.h"
#include "model.h"
#include "decode.h"

#define RHDR	sizeof(struct ordo_wire_hdr)

struct env {
	u32 vs;
	u32 vmax;	/* the longest value: vs to ORDO_VALUE_LEN_MAX */
	u32 room;	/* reply body bytes: max_msg less the header */
	u64 a, b;
};

static void fz_point(const struct env *e, u32 op, const u8 *body, u32 blen)
{
	const struct ordo_wire_kv *kv = (const void *)body;
	u32 vlen;

	if (ordo_wire_point_check(op, body, blen, e->vmax))
		return;
	vlen = le16toh(kv->value_len);
	FZ_CHECK(kv->op == op && blen == sizeof(*kv) + ordo_wire_pad8(vlen));
	if (op == ORDO_WIRE_OP_GET || op == ORDO_WIRE_OP_DELETE)
		FZ_CHECK(!vlen);
	else
		FZ_CHECK(vlen <= e->vmax);	/* an empty value is a value */
	if (kv->flags & ORDO_WIRE_KV_HINT)
		FZ_CHECK(op == ORDO_WIRE_OP_UPDATE &&
			 !(kv->flags & ORDO_WIRE_KV_STAGED));
	if (kv->flags & ORDO_WIRE_KV_PART)
		FZ_CHECK(op == ORDO_WIRE_OP_GET);
	if (kv->flags & ORDO_WIRE_KV_STAGED)
		FZ_CHECK(op != ORDO_WIRE_OP_GET && op != ORDO_WIRE_OP_DELETE &&
			 !vlen && kv->arg);
	if (!(kv->flags & (ORDO_WIRE_KV_PART | ORDO_WIRE_KV_STAGED)))
		FZ_CHECK(!kv->arg);
	/* A staged write runs only on a whole staged value of its length. */
	if (kv->flags & ORDO_WIRE_KV_STAGED) {
		u32 total = (u32)e->a, have = (u32)e->b;

		if (!ordo_wire_staged_check(kv, total, have))
			FZ_CHECK(total && total == have &&
				 total == le32toh(kv->arg));
	}
	/* A GET's reply is a value, or a part with a byte at least. */
	FZ_CHECK(e->vs <= e->room && ordo_wire_part_cap(e->room) >= 1);
}

/* STAGE: the part lies inside the message and inside the value. */
static void fz_stage(const struct env *e, const u8 *body, u32 blen)
{
	struct ordo_wire_stage_args a;
	u32 total = (u32)e->a % (e->vmax + 1), have = (u32)e->b;
	int ret;

	ret = ordo_wire_stage_check(body, blen, e->vs, e->vmax, &a);
	if (ret) {
		FZ_CHECK(ret == -EINVAL || ret == -EMSGSIZE);
		return;
	}
	FZ_CHECK(a.total > e->vs && a.total <= e->vmax);
	FZ_CHECK(a.len >= 1 && (u64)a.offset + a.len <= a.total);
	FZ_CHECK(a.data == body + sizeof(struct ordo_wire_stage) &&
		 sizeof(struct ordo_wire_stage) + (u64)a.len <= blen);
	if (have > total)
		have = total;
	ret = ordo_wire_stage_next(&a, total, have);
	if (!ret && a.offset)
		FZ_CHECK(total == a.total && have == a.offset);
	if (!a.offset)
		FZ_CHECK(!ret);
}

static void fz_scan(const struct env *e, const u8 *body, u32 blen)
{
	struct ordo_wire_scan_args a;
	struct shim_scan_rep s;
	u64 *keys, *back, k;
	u32 n, ret, i, len, per;
	u8 *out, *vals;

	if (ordo_wire_scan_check(body, blen, &a))
		return;
	FZ_CHECK(a.count >= 1 && a.count <= ORDO_WIRE_SCAN_MAX);
	n = ordo_wire_scan_fit(&a, e->vs, e->room);
	per = 8 + (a.with_vals ? e->vs : 0);
	FZ_CHECK(n <= a.count && n >= 1);
	FZ_CHECK(sizeof(struct ordo_wire_scan_rep) + (u64)n * per <= e->room);
	/* The store returns up to n ascending keys from start. */
	out = malloc(e->room);
	keys = malloc(sizeof(u64) * n);
	ret = e->a % (n + 1);
	k = a.start;
	for (i = 0; i < ret; i++) {
		u64 step = 1 + ((e->b >> (i % 56)) & 0xff);

		keys[i] = k;
		if (U64_MAX - k < step) {
			ret = i + 1;
			break;
		}
		k += step;
	}
	vals = ordo_wire_scan_vals(out, n);
	if (a.with_vals)
		for (i = 0; i < ret; i++) {
			/* Longer values: a length and zeros (core's scan). */
			u32 l = (i * 7) % (e->vmax + 1);

			memset(vals + (size_t)i * e->vs, l > e->vs ? 0 : (int)(i + 1),
			       e->vs);
			ordo_wire_scan_lens(out, n)[i] = l;
		}
	len = ordo_wire_scan_finish(out, n, ret, keys, e->vs, a.with_vals);
	FZ_CHECK(len <= e->room);
	if (a.with_vals) {
		/* The client asks for values: its decoder must take this. */
		back = malloc(sizeof(u64) * a.count);
		FZ_CHECK(!shim_dec_scan(out, len, e->vs, e->vmax, a.start,
					a.count, back, &s));
		FZ_CHECK(s.n == ret);
		for (i = 0; i < ret; i++) {
			FZ_CHECK(back[i] == keys[i]);
			u32 l = (i * 7) % (e->vmax + 1);

			FZ_CHECK(s.vals[(size_t)i * e->vs] ==
				 (l > e->vs ? 0 : (u8)(i + 1)));
			FZ_CHECK(le32toh(s.lens[i]) == l);
		}
		FZ_CHECK(s.more == (ret == n && keys[ret - 1] != U64_MAX));
		if (s.more)
			FZ_CHECK(s.next == keys[ret - 1] + 1);
		free(back);
	}
	free(keys);
	free(out);
}

static void fz_regions(const struct env *e, const u8 *body, u32 blen)
{
	struct shim_regions acc = { 0 };
	struct ordo_wire_regions_rep *rep;
	struct ordo_wire_region *w;
	const struct ordo_wire_regions_req *req = (const void *)body;
	u32 kind, first, nr = e->a % 5000, n, i, want;
	u64 off = 0, covered = 0;
	u8 *out;
	int ret;

	ret = ordo_wire_regions_check(body, blen, &kind, &first);
	/*
	 * The exact body and zero flags first (EINVAL), then the kind: one
	 * this server does not know is EOPNOTSUPP, like an unknown op.
	 */
	if (blen != sizeof(*req) || req->flags) {
		FZ_CHECK(ret == -EINVAL);
		return;
	}
	want = le16toh(req->kind);
	if (want != ORDO_WIRE_REGION_POOL && want != ORDO_WIRE_REGION_MODEL &&
	    want != ORDO_WIRE_REGION_TABLE) {
		FZ_CHECK(ret == -EOPNOTSUPP);
		return;
	}
	FZ_CHECK(ret == 0 && kind == want);
	/* The table lists itself: one entry, or none before it is live. */
	if (kind == ORDO_WIRE_REGION_TABLE)
		nr %= 2;
	if (ordo_wire_regions_fit(nr, first, e->room, &n))
		return;
	FZ_CHECK(first <= nr && n <= nr - first);
	FZ_CHECK(sizeof(*rep) + (u64)n * sizeof(*w) <= e->room);
	/* Build the page as rpc.c does, from a table of nr regions. */
	out = malloc(e->room);
	rep = (void *)out;
	w = (void *)(rep + 1);
	for (i = 0; i < nr; i++) {
		u64 len = 4096ULL << ((e->b >> (i % 60)) & 3);

		if (i >= first && i < first + n) {
			w[i - first].offset = htole64(off);
			w[i - first].length = htole64(len);
			w[i - first].rkey = htole32(i);
			w[i - first].kind = htole16(kind);
			w[i - first].flags = 0;
		}
		off += len;
	}
	covered = off;
	rep->total = htole32(nr);
	rep->returned = htole32(n);
	rep->covered = htole64(covered);
	if (!first && (n || !nr)) {
		FZ_CHECK(!shim_dec_regions(&acc, kind, out,
					   sizeof(*rep) + n * sizeof(*w)));
		FZ_CHECK(acc.got == n && acc.total == nr);
		if (n == nr)
			FZ_CHECK(!shim_dec_regions_end(&acc));
	}
	free(acc.ent);
	free(out);
}

/*
 * A model header as the trainer writes it, sized by a and b, at a region
 * offset that a also picks.
 */
static int fz_layout(const struct env *e, struct ordo_model_layout *lay)
{
	struct ordo_model_hdr h = { 0 };
	u32 nsub = 1 + e->a % 100000, tt_cap = nsub + (e->b % 400000);
	u32 first = (e->b >> 20) % nsub;
	int ret;

	h.magic = htole32(ORDO_MODEL_MAGIC);
	h.version = htole16(ORDO_MODEL_VERSION);
	h.hdr_size = htole16(ORDO_MODEL_HDR_SIZE);
	h.desc_size = htole32(ORDO_MODEL_DESC_SIZE);
	h.tt_entry_size = htole32(ORDO_TT_ENTRY_SIZE);
	h.epoch = htole64(1 + (e->b >> 32));
	h.nsub = htole32(nsub);
	h.nsub_cap = htole32(nsub);
	h.sub_first = htole32(first);
	h.tt_cap = htole32(tt_cap);
	h.nleaves = htole32(nsub - first);
	h.leaf_slots = htole32(32);
	h.piv_off = htole64(ORDO_MODEL_HDR_SIZE);
	h.desc_off = htole64(ordo_model_desc_off(nsub));
	h.tt_off = htole64(ordo_model_tt_off(nsub));
	h.region_size = htole64(ordo_model_region_size(nsub, tt_cap));
	ret = ordo_model_parse_hdr(&h, sizeof(h), lay);
	lay->base = ORDO_MODEL_ALIGN * (1 + ((e->a >> 32) & 0xffffff));
	return ret;
}

static void fz_model(const struct env *e, const u8 *body, u32 blen)
{
	struct ordo_wire_model_args a;
	struct ordo_model_layout lay;
	u32 room = e->room - sizeof(struct ordo_wire_model_rep);
	u64 src = 0, n = 0, total = 0;

	if (ordo_wire_model_check(body, blen, &a))
		return;
	FZ_CHECK(a.part >= ORDO_WIRE_MODEL_TOP && a.part <= ORDO_WIRE_MODEL_TT);
	FZ_CHECK(!fz_layout(e, &lay));
	if (ordo_wire_model_span(&a, &lay, room, &src, &n, &total))
		return;
	if (a.part == ORDO_WIRE_MODEL_SUB) {
		FZ_CHECK(a.index >= lay.first && a.index < lay.nsub);
		return;
	}
	/* The copy stays inside the reply and inside the model. */
	FZ_CHECK(n <= room && n <= U32_MAX && total <= U32_MAX);
	if (a.part == ORDO_WIRE_MODEL_TOP)
		FZ_CHECK(src >= lay.base &&
			 src + n <= lay.base + lay.model_size);
	else
		FZ_CHECK(src >= lay.base + lay.tt_off &&
			 src + n <= lay.base + lay.region_size &&
			 n % ORDO_TT_ENTRY_SIZE == 0);
}

static void fz_lookup(const struct env *e, const u8 *body, u32 blen)
{
	struct ordo_wire_lookup_args a;
	struct ordo_wire_lookup_rep *rep;
	struct shim_lookup_rep l;
	/* Found (of any length, 0 included, or longer: a part) or not. */
	bool found = e->a & 1, part = found && (e->a & 2) && e->vmax > e->vs;
	u32 vlen = found ? (u32)(e->a >> 2) % (e->vs + 1) : 0;
	u32 room, mlen, mtot, len, total = 0, cap;
	u16 hflags = part ? ORDO_WIRE_F_PART : 0;
	u8 *out;

	if (ordo_wire_lookup_check(body, blen, &a))
		return;
	if (part) {
		struct ordo_wire_part *p;

		/* As rpc.c: a part from 0, as much as leaves model room. */
		total = e->vs + 1 + (u32)(e->a >> 2) % (e->vmax - e->vs);
		cap = ordo_wire_lookup_part_cap(e->room);
		FZ_CHECK(cap >= 8 && cap % 8 == 0);
		out = malloc(e->room);
		p = (void *)(out + sizeof(*rep));
		p->ref = htole64(e->b | 1);
		p->len = htole32(total);
		p->offset = 0;
		p->returned = htole32(total < cap ? total : cap);
		p->units = htole32(ordo_extent_units(total));
		vlen = sizeof(*p) + le32toh(p->returned);
		memcpy(out + sizeof(*rep), p, sizeof(*p));
		free(out);
	}
	FZ_CHECK(!(a.flags & ~ORDO_WIRE_LOOKUP_NO_MODEL));
	room = ordo_wire_lookup_room(e->room, vlen);
	/* A reply with the largest value still has room for a descriptor. */
	FZ_CHECK(room >= ORDO_MODEL_DESC_SIZE);
	FZ_CHECK(sizeof(*rep) + ordo_wire_pad8(vlen) + (u64)room <= e->room);
	/* Build it as rpc.c does and decode it as the client does. */
	mtot = ORDO_MODEL_DESC_SIZE + (e->b % 100000) * ORDO_TT_ENTRY_SIZE;
	mlen = mtot <= room ? mtot : (a.flags ? 0 : ORDO_MODEL_DESC_SIZE);
	out = malloc(e->room);
	rep = (void *)out;
	memset(rep, 0, sizeof(*rep));
	rep->found = htole32(found);
	rep->value_len = htole32(vlen);
	rep->epoch = htole64(mlen ? 7 : 0);
	rep->sub = htole32(e->b >> 40);
	rep->model_len = htole32(mlen);
	rep->model_total = htole32(mlen ? mtot : 0);
	memset(rep + 1, 0xab, ordo_wire_pad8(vlen) + mlen);
	if (part) {
		struct ordo_wire_part *p = (void *)(rep + 1);

		p->ref = htole64(e->b | 1);
		p->len = htole32(total);
		p->offset = 0;
		p->returned = htole32(vlen - sizeof(*p));
		p->units = htole32(ordo_extent_units(total));
	}
	len = sizeof(*rep) + ordo_wire_pad8(vlen) + mlen;
	FZ_CHECK(len <= e->room);
	FZ_CHECK(!shim_dec_lookup(out, len, hflags, e->vs, e->vmax, &l));
	FZ_CHECK(l.found == found && l.model_len == mlen);
	if (part)
		FZ_CHECK(l.total == total &&
			 l.val_len == vlen - sizeof(struct ordo_wire_part) &&
			 l.ref == (e->b | 1));
	else
		FZ_CHECK(l.val_len == vlen && l.total == vlen && !l.ref);
	FZ_CHECK(l.model + l.model_len == out + len);
	free(out);
}

static void fz_batch(const struct env *e, const u8 *body, u32 blen)
{
	u32 count, i, off, nget = 0, size, nstaged = 0;

	if (ordo_wire_batch_check(body, blen, e->vs, e->vmax, e->room, &count))
		return;
	FZ_CHECK(count >= 1 && count <= ORDO_WIRE_BATCH_MAX);
	/* rpc.c walks the entries again without checks: they must hold. */
	for (i = 0, off = sizeof(struct ordo_wire_batch); i < count;
	     i++, off += size) {
		const struct ordo_wire_kv *kv = (const void *)(body + off);
		u32 vlen;

		FZ_CHECK(off + sizeof(*kv) <= blen);
		vlen = le16toh(kv->value_len);
		size = sizeof(*kv) + ordo_wire_pad8(vlen);
		FZ_CHECK(off + size <= blen);
		FZ_CHECK(kv->op >= ORDO_WIRE_OP_GET &&
			 kv->op <= ORDO_WIRE_OP_DELETE);
		FZ_CHECK(vlen <= e->vmax && !(kv->flags & ORDO_WIRE_KV_PART));
		nget += kv->op == ORDO_WIRE_OP_GET;
		nstaged += !!(kv->flags & ORDO_WIRE_KV_STAGED);
	}
	FZ_CHECK(off == blen && nstaged <= 1);
	FZ_CHECK(sizeof(struct ordo_wire_batch_rep) +
		 (u64)count * sizeof(struct ordo_wire_batch_res) +
		 (u64)nget * e->vs <= e->room);
}

/*
 * STAGE round trip: the parts libordo cuts a value of @total bytes into
 * (shim_stage_part_max(), shim_enc_stage()) fit in max_msg, are accepted
 * in order by the server's checks, and rebuild the value.
 */
static void fz_client_stage(const struct env *e, const u8 *seed, u32 slen,
			    u32 pick)
{
	u32 max_msg = e->room + RHDR, part = shim_stage_part_max(max_msg);
	u32 total = e->vs + 1 + pick % (e->vmax - e->vs), at = 0, have = 0;
	u8 *val = malloc(total), *back = malloc(total);
	u8 *msg = malloc(max_msg);
	u32 i, staged = 0;

	for (i = 0; i < total; i++)
		val[i] = slen ? seed[i % slen] ^ (u8)i : (u8)(i * 31);
	FZ_CHECK(part >= 8 && part % 8 == 0);
	while (at < total) {
		struct ordo_wire_stage_args a;
		u32 n = total - at < part ? total - at : part, blen;
		struct ordo_wire_hdr *h = (void *)msg;

		memset(h, 0, RHDR);
		h->version = ORDO_WIRE_VERSION;
		h->op = ORDO_WIRE_OP_STAGE;
		blen = shim_enc_stage(msg + RHDR, total, at, val + at, n);
		FZ_CHECK(RHDR + blen <= max_msg);
		h->length = htole32(RHDR + blen);
		FZ_CHECK(!ordo_wire_hdr_check(msg, RHDR + blen));
		FZ_CHECK(!ordo_wire_stage_check(msg + RHDR, blen, e->vs,
						 e->vmax, &a));
		FZ_CHECK(!ordo_wire_stage_next(&a, staged, have));
		FZ_CHECK(a.offset == at && a.len == n && a.total == total);
		memcpy(back + a.offset, a.data, a.len);
		staged = total;
		have = at + n;
		at += n;
	}
	FZ_CHECK(!memcmp(back, val, total));
	free(msg);
	free(back);
	free(val);
}

/*
 * Round trip: a request libordo encodes (shim_enc_req(), what rdma.c
 * sends) is accepted by the server's decoders with the same fields.
 */
static void fz_client(const struct env *e, const u8 *in, size_t len)
{
	static const u8 ops[] = {
		ORDO_WIRE_OP_GET, ORDO_WIRE_OP_PUT, ORDO_WIRE_OP_INSERT,
		ORDO_WIRE_OP_UPDATE, ORDO_WIRE_OP_DELETE, ORDO_WIRE_OP_SCAN,
		ORDO_WIRE_OP_LOOKUP,
	};
	struct fin f = { in, len };
	struct shim_req q = { 0 };
	struct ordo_wire_hdr *h;
	u32 blen, size, vlen, max_msg = e->room + RHDR;
	u8 *msg, *val, kind;
	size_t got;
	const u8 *v;

	q.op = ops[fin_u8(&f) % ARRAY_SIZE(ops)];
	q.key = fin_u64(&f);
	vlen = fin_u16(&f);
	q.hint_leaf = fin_u32(&f);
	q.count = 1 + fin_u32(&f) % ORDO_WIRE_SCAN_MAX;
	q.epoch = fin_u64(&f);
	q.flags = fin_u8(&f) & ORDO_WIRE_LOOKUP_NO_MODEL;
	kind = fin_u8(&f);
	/* What read.c, rdma.c and rdma_long.c put in a call of each kind. */
	if (q.op == ORDO_WIRE_OP_PUT || q.op == ORDO_WIRE_OP_INSERT ||
	    q.op == ORDO_WIRE_OP_UPDATE) {
		/* Up to what one message holds (longer ones are staged). */
		q.len = vlen % (e->vmax + 1);
		if (RHDR + sizeof(struct ordo_wire_kv) +
		    (u64)ordo_wire_pad8(q.len) > max_msg)
			q.len = vlen % (e->vs + 1);
		if (kind & 1 && e->vmax > e->vs) {
			/* The write of a staged value. */
			q.kv_flags = ORDO_WIRE_KV_STAGED;
			q.arg = e->vs + 1 + vlen % (e->vmax - e->vs);
			q.len = 0;
		}
	}
	if (q.op == ORDO_WIRE_OP_GET && kind & 1) {
		q.kv_flags = ORDO_WIRE_KV_PART;
		q.arg = fin_u32(&f);
	}
	if (q.op != ORDO_WIRE_OP_UPDATE || q.len > e->vs || q.kv_flags)
		q.hint_leaf = 0;
	if (q.op == ORDO_WIRE_OP_SCAN || q.op == ORDO_WIRE_OP_LOOKUP) {
		q.kv_flags = 0;
		q.arg = 0;
	}
	val = malloc(q.len + 1);
	v = fin_bytes(&f, q.len, &got);
	memset(val, 0x5a, q.len + 1);
	memcpy(val, v, got);
	q.val = val;
	if (kind & 2 && e->vmax > e->vs) {
		fz_client_stage(e, val, q.len, vlen);
		free(val);
		return;
	}
	msg = malloc(RHDR + sizeof(struct ordo_wire_kv) + ORDO_WIRE_MSG_MAX);
	memset(msg, 0, RHDR);
	h = (void *)msg;
	h->version = ORDO_WIRE_VERSION;
	h->op = q.op;
	blen = shim_enc_req(msg + RHDR, &q);
	h->length = htole32(RHDR + blen);
	FZ_CHECK(!ordo_wire_hdr_check(msg, RHDR + blen));
	if (q.op == ORDO_WIRE_OP_SCAN) {
		struct ordo_wire_scan_args a;

		FZ_CHECK(!ordo_wire_scan_check(msg + RHDR, blen, &a));
		FZ_CHECK(a.start == q.key && a.count == q.count && a.with_vals);
	} else if (q.op == ORDO_WIRE_OP_LOOKUP) {
		struct ordo_wire_lookup_args a;

		FZ_CHECK(!ordo_wire_lookup_check(msg + RHDR, blen, &a));
		FZ_CHECK(a.key == q.key && a.flags == q.flags);
	} else {
		const struct ordo_wire_kv *kv = (const void *)(msg + RHDR);

		FZ_CHECK(!ordo_wire_point_check(q.op, kv, blen, e->vmax));
		FZ_CHECK(!ordo_wire_kv_check(kv, blen, e->vmax, false, &size) &&
			 size == blen);
		FZ_CHECK(le64toh(kv->key) == q.key &&
			 le16toh(kv->value_len) == q.len &&
			 !memcmp(kv + 1, val, q.len));
		FZ_CHECK(le32toh(kv->hint_leaf) == q.hint_leaf &&
			 le32toh(kv->arg) == q.arg);
	}
	free(msg);
	free(val);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fin f = { data, size };
	u8 mode = fin_u8(&f);
	struct env e;
	const u8 *m;
	size_t len;
	u8 *msg;
	u32 want = 0;

	e.vs = fz_value_size(fin_u8(&f));
	e.room = 4096 + fin_u16(&f) % (65536 - 4096 + 1) - RHDR;
	e.a = fin_u64(&f);
	e.b = fin_u64(&f);
	e.vmax = e.vs + (u32)(e.b >> 40) % (ORDO_VALUE_LEN_MAX - e.vs + 1);
	m = fin_bytes(&f, 65536, &len);
	msg = fz_copy(m, len);

	if (mode & 2) {
		fz_client(&e, msg, len);
		goto out;
	}
	if (mode & 1) {
		u16 r = ordo_wire_conn_req_check(len ? msg : NULL, len, &want);

		if (!r) {
			const struct ordo_wire_conn_req *req = (void *)msg;

			FZ_CHECK(len >= sizeof(*req) && want <= ORDO_WIRE_QUEUE_MAX);
			FZ_CHECK(le16toh(req->token_len) <= ORDO_WIRE_TOKEN_MAX);
		} else {
			FZ_CHECK(r == ORDO_WIRE_REJ_MALFORMED ||
				 r == ORDO_WIRE_REJ_VERSION);
		}
		goto out;
	}
	if (len < RHDR || ordo_wire_hdr_check(msg, len))
		goto out;
	FZ_CHECK(le32toh(((struct ordo_wire_hdr *)msg)->length) == len);
	switch (((struct ordo_wire_hdr *)msg)->op) {
	case ORDO_WIRE_OP_GET:
	case ORDO_WIRE_OP_PUT:
	case ORDO_WIRE_OP_INSERT:
	case ORDO_WIRE_OP_UPDATE:
	case ORDO_WIRE_OP_DELETE:
		fz_point(&e, ((struct ordo_wire_hdr *)msg)->op, msg + RHDR,
			 len - RHDR);
		break;
	case ORDO_WIRE_OP_SCAN:
		fz_scan(&e, msg + RHDR, len - RHDR);
		break;
	case ORDO_WIRE_OP_REGIONS:
		fz_regions(&e, msg + RHDR, len - RHDR);
		break;
	case ORDO_WIRE_OP_MODEL_FETCH:
		fz_model(&e, msg + RHDR, len - RHDR);
		break;
	case ORDO_WIRE_OP_BATCH:
		fz_batch(&e, msg + RHDR, len - RHDR);
		break;
	case ORDO_WIRE_OP_LOOKUP:
		fz_lookup(&e, msg + RHDR, len - RHDR);
		break;
	case ORDO_WIRE_OP_STAGE:
		fz_stage(&e, msg + RHDR, len - RHDR);
		break;
	}
	/* Status codes: every errno a handler returns has one. */
	FZ_CHECK(ordo_wire_errno(ordo_wire_status(-ENOENT)) == -ENOENT);
out:
	free(msg);
	return 0;
}
