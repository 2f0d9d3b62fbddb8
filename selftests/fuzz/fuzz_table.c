// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target: the client's decoder of the region table a server
 * publishes (shim_dec_table() in libshim/decode.c), as one RDMA READ of
 * it returns it, and the lookups a client then makes in it.  A malicious
 * server controls every byte, checksum included: an accepted table must
 * keep the promises decode.h makes.
 *
 * Input: [chunk shift u8][flags u8][lookups: 8 x (off u64, len u32)]
 *	[table bytes...]; flags bit 0: the server id is the table's own;
 *	bit 1: checksum the bytes first, as a lying server would, so the
 *	checks behind the checksum see every mutation.
 */
#include "fuzz.h"
#include "decode.h"

/* The entries tile [0, covered) in order, none empty, none wrapping. */
static void fz_tiles(const struct region_tab *t, u64 align)
{
	u64 at = 0;
	u32 i;

	for (i = 0; i < t->n; i++) {
		FZ_CHECK(t->ent[i].off == at && t->ent[i].len);
		FZ_CHECK(t->ent[i].len % align == 0);
		FZ_CHECK(t->ent[i].off + t->ent[i].len > t->ent[i].off);
		at = t->ent[i].off + t->ent[i].len;
	}
	FZ_CHECK(at == t->covered);
}

static void fz_find(const struct region_tab *t, u64 off, u32 len)
{
	const struct region_ent *e = shim_region_find(t, off, len);

	if (!e)
		return;
	FZ_CHECK(e >= t->ent && e < t->ent + t->n);
	FZ_CHECK(off >= e->off && off - e->off < e->len &&
		 len <= e->len - (off - e->off));
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fin f = { data, size };
	u64 chunk = 1ULL << (fin_u8(&f) % 31);
	u8 flags = fin_u8(&f);
	u64 off[8];
	u32 len[8], i;
	struct shim_table t;
	const u8 *in;
	size_t n;
	u64 sid;
	u8 *b;
	int ret;

	for (i = 0; i < 8; i++) {
		off[i] = fin_u64(&f);
		len[i] = fin_u32(&f);
	}
	in = fin_bytes(&f, 1 << 20, &n);
	b = fz_copy(in, n);
	if ((flags & 2) && n >= sizeof(struct ordo_wire_table)) {
		struct ordo_wire_table *h = (void *)b;
		u64 nr = le32toh(h->nr_entries), room;

		room = (n - sizeof(*h)) / sizeof(struct ordo_wire_region);
		h->checksum = 0;
		h->checksum = htole64(ordo_xxh64(b, sizeof(*h) + (nr <= room ?
					nr : 0) * sizeof(struct ordo_wire_region), 0));
	}
	sid = n >= sizeof(struct ordo_wire_table) && (flags & 1) ?
	      le64toh(((const struct ordo_wire_table *)b)->server_id) : 7;
	ret = shim_dec_table(b, n, sid, chunk, &t);
	FZ_CHECK(ret == 0 || ret == -EAGAIN || ret == -EPROTO);
	if (!ret) {
		FZ_CHECK(!(t.seq & 1) && t.lease_ms);
		FZ_CHECK(t.pool_chunks <= t.nr_chunks);
		FZ_CHECK(t.pool.covered == (u64)t.pool_chunks * chunk);
		FZ_CHECK((u64)t.pool.n + t.model.n <= ORDO_WIRE_TABLE_ENTRIES_MAX);
		fz_tiles(&t.pool, chunk);
		fz_tiles(&t.model, 1);
		for (i = 0; i < 8; i++)
			fz_find(i % 2 ? &t.model : &t.pool, off[i], len[i]);
		free(t.pool.ent);
		free(t.model.ent);
	}
	free(b);
	return 0;
}
