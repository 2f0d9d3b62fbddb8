// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target: the client's decoders of what a server sends
 * (libshim/decode.c): reply headers, LOOKUP, SCAN and INFO replies,
 * region tables fetched page by page and the lookups in them, the accept
 * and reject private data, BATCH replies.  A client must survive a broken or malicious
 * server: every accepted input must keep the promises decode.h makes.
 *
 * Input: [sel u8][value_size u8][p u64][q u32][bytes...]; value_max is
 * value_size plus some of q, the reply header's flags some of p.
 */
#include "fuzz.h"
#include "decode.h"

static void fz_lookup(const u8 *b, u32 blen, u16 hflags, u32 vs, u32 vmax)
{
	struct shim_lookup_rep l;

	if (shim_dec_lookup(b, blen, hflags, vs, vmax, &l))
		return;
	FZ_CHECK(l.model_len <= l.model_total);
	FZ_CHECK(l.val >= b && l.model >= l.val &&
		 l.model + l.model_len == b + blen);
	FZ_CHECK(l.val_len <= l.total && l.total <= vmax &&
		 l.val + l.val_len <= l.model);
	if (!(hflags & ORDO_WIRE_F_PART))
		FZ_CHECK(l.val_len == l.total && l.total <= vs && !l.ref);
	if (l.ref)
		FZ_CHECK(l.total > vs &&
			 l.units == ordo_extent_units(l.total));
	if (!l.found)
		FZ_CHECK(l.model == l.val && !l.val_len);
}

/* A GET reply, whole or a part from an offset the input picks. */
static void fz_get(const u8 *b, u32 blen, u16 hflags, u32 vs, u32 vmax,
		   u32 off)
{
	struct shim_part p;

	if (shim_dec_get(b, blen, hflags, vs, vmax, off, &p))
		return;
	FZ_CHECK(p.offset == off && p.len <= vmax);
	FZ_CHECK(p.bytes >= b && p.bytes + p.returned == b + blen);
	FZ_CHECK(p.returned <= (off < p.len ? p.len - off : 0));
	/* Progress: a part inside the value carries a byte at least. */
	FZ_CHECK(off >= p.len || p.returned);
	if (p.ref)
		FZ_CHECK(p.len > vs && p.units == ordo_extent_units(p.len));
	else
		FZ_CHECK(p.len <= vs && !p.units);
}

static void fz_scan(const u8 *b, u32 blen, u32 vs, u32 vmax, u64 start,
		    u32 count)
{
	struct shim_scan_rep s;
	u64 *keys;
	u32 i;

	count = 1 + count % 4096;
	keys = malloc(sizeof(*keys) * count);
	if (!shim_dec_scan(b, blen, vs, vmax, start, count, keys, &s)) {
		FZ_CHECK(s.n <= count && s.more <= 1);
		for (i = 0; i < s.n; i++)
			FZ_CHECK(keys[i] >= start && (!i || keys[i] > keys[i - 1]));
		/* A scan that goes on moves past what it took. */
		if (s.more)
			FZ_CHECK(s.n && s.next > keys[s.n - 1]);
		FZ_CHECK(s.vals >= b && s.vals + (size_t)s.n * vs == b + blen);
		for (i = 0; i < s.n; i++)
			FZ_CHECK(le32toh(s.lens[i]) <= vmax);
	}
	free(keys);
}

/* A BATCH reply for @n entries whose ops the input picks. */
static void fz_batch(const u8 *b, u32 blen, u32 vs, u32 vmax, u64 p, u32 q)
{
	u32 n = 1 + q % ORDO_WIRE_BATCH_MAX, i;
	struct ordo_batch_op *ops = calloc(n, sizeof(*ops));
	u8 **bufs = calloc(n, sizeof(*bufs));

	for (i = 0; i < n; i++) {
		ops[i].op = ORDO_OP_GET + (p >> (2 * (i % 32))) % 5;
		ops[i].kv.value_len = (p >> (i % 64)) & 1 ? vs : vs / 2;
		bufs[i] = malloc(ops[i].kv.value_len);
		ops[i].kv.value = (uintptr_t)bufs[i];
		ops[i].result = 12345;
	}
	if (!shim_dec_batch(b, blen, vs, vmax, ops, n)) {
		for (i = 0; i < n; i++) {
			FZ_CHECK(ops[i].result <= 0);
			/* Bytes went only where they fit. */
			if (!ops[i].result && ops[i].op == ORDO_OP_GET)
				FZ_CHECK(ops[i].kv.value_len <= vs);
		}
	}
	for (i = 0; i < n; i++)
		free(bufs[i]);
	free(bufs);
	free(ops);
}

/* Pages of a REGIONS table: [len u16][page] ..., then lookups. */
static void fz_regions(struct fin *f, u16 kind)
{
	struct shim_regions acc = { 0 };
	struct region_tab t;
	int ret = 0, pages = 0;
	u32 i;

	while (f->n && pages++ < 8) {
		size_t len;
		const u8 *p = fin_bytes(f, fin_u16(f) % 4096, &len);
		u8 *page = fz_copy(p, len);

		ret = shim_dec_regions(&acc, kind, page, len);
		free(page);
		if (ret || acc.got >= acc.total)
			break;
	}
	if (ret || acc.got < acc.total || shim_dec_regions_end(&acc))
		goto out;
	/* The entries tile [0, covered) in order, without wrapping. */
	for (i = 0; i < acc.got; i++) {
		FZ_CHECK(acc.ent[i].len);
		FZ_CHECK(acc.ent[i].off + acc.ent[i].len > acc.ent[i].off);
		FZ_CHECK(acc.ent[i].off == (i ? acc.ent[i - 1].off +
					   acc.ent[i - 1].len : 0));
	}
	if (acc.got)
		FZ_CHECK(acc.ent[acc.got - 1].off + acc.ent[acc.got - 1].len ==
			 acc.covered);
	t.ent = acc.ent;
	t.n = acc.got;
	t.covered = acc.covered;
	for (i = 0; i < 16; i++) {
		u64 off = fin_u64(f);
		u32 len = fin_u32(f);
		const struct region_ent *e = shim_region_find(&t, off, len);

		if (!e)
			continue;
		/* A READ of [off, off + len) inside the entry. */
		FZ_CHECK(e >= t.ent && e < t.ent + t.n);
		FZ_CHECK(off >= e->off && off - e->off < e->len &&
			 len <= e->len - (off - e->off));
	}
out:
	free(acc.ent);
}

static void fz_conn_rep(const u8 *b, size_t len, u32 max_qd)
{
	struct ordo_wire_conn_rep rep;
	struct ordo_geo none = { 0 }, geo, again;

	if (len < sizeof(rep))
		return;
	memcpy(&rep, b, sizeof(rep));
	max_qd = 1 + max_qd % 256;
	if (shim_dec_conn_rep(&rep, max_qd, &none, &geo))
		return;
	FZ_CHECK(le16toh(rep.queue_depth) >= 1 &&
		 le16toh(rep.queue_depth) <= max_qd);
	FZ_CHECK(le32toh(rep.max_msg) >= ORDO_WIRE_MSG_MIN &&
		 le32toh(rep.max_msg) <= ORDO_WIRE_MSG_MAX);
	FZ_CHECK(le32toh(rep.value_max) >= geo.value_size &&
		 le32toh(rep.value_max) <=
		 ordo_value_len_max(le64toh(rep.chunk_size)));
	FZ_CHECK(!ordo_geo_init(&again, geo.leaf_slots, geo.value_size));
	FZ_CHECK(!memcmp(&again, &geo, sizeof(geo)));
	/* A reconnect to the same geometry is accepted again. */
	FZ_CHECK(!shim_dec_conn_rep(&rep, max_qd, &geo, &again));
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fin f = { data, size };
	u8 sel = fin_u8(&f);
	u32 vs = fz_value_size(fin_u8(&f));
	u64 p = fin_u64(&f);
	u32 q = fin_u32(&f);
	u32 vmax = vs + (q >> 12) % (ORDO_VALUE_LEN_MAX - vs + 1);
	u16 hflags = (u16)(p >> 48);
	struct ordo_info info;
	const u8 *in;
	size_t len;
	u8 *b;

	if (sel % 8 == 5) {
		fz_regions(&f, q & 1 ? ORDO_WIRE_REGION_MODEL :
			   ORDO_WIRE_REGION_POOL);
		return 0;
	}
	in = fin_bytes(&f, 1 << 20, &len);
	b = fz_copy(in, len);
	switch (sel % 8) {
	case 0:
		if (!shim_dec_reply_hdr(b, len))
			FZ_CHECK(len >= sizeof(struct ordo_wire_hdr) &&
				 le32toh(((struct ordo_wire_hdr *)b)->length) ==
				 len);
		break;
	case 1:
		fz_lookup(b, len, hflags, vs, vmax);
		break;
	case 2:
		fz_scan(b, len, vs, vmax, p, q);
		break;
	case 3:
		if (!shim_dec_info(b, len, &info))
			FZ_CHECK(len == sizeof(struct ordo_wire_info));
		break;
	case 4:
		fz_conn_rep(b, len, q);
		break;
	case 6:
		if (q & 1)
			fz_get(b, len, hflags, vs, vmax,
			       p & 0x100 ? (u32)(p >> 16) % (1u << 21) : 0);
		else
			FZ_CHECK(shim_dec_conn_rej(len ? b : NULL, len) < 0);
		break;
	case 7:
		fz_batch(b, len, vs, vmax, p, q);
		break;
	default: {
		int err = shim_dec_conn_rej(len ? b : NULL, len);

		FZ_CHECK(err < 0);
		break;
	}
	}
	free(b);
	return 0;
}
