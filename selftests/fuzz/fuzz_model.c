// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target: the client's parsers of the learned model it READs or
 * is sent (kmod/core/model_predict.c, libshim/decode.c): the region's
 * anchor and image header, a whole region or image (learned caches), the top level and descriptors alone
 * (model-only caches, whose header and image come from two reads), and a
 * descriptor with its TT slice (LOOKUP replies, sub-model refreshes).
 * With the fix flag set the harness writes valid checksums, so the checks
 * behind them are reached, as a malicious server could.  A model that
 * loads must then answer lookups inside its own tables.
 *
 * Input: [mode u8][fix u8][keys 4 x u64][bytes...].  mode % 3: 0 image,
 * or a whole region when the bytes start with a valid anchor;
 * 1 model-only: [header 128][image]; 2 sub: [sub u32][desc 32][slice len
 * u16][slice][image].
 */
#include "fuzz.h"
#include "decode.h"

#define IMG_MAX	(4u << 20)

static u64 ld64(const u8 *p)
{
	u64 v;

	memcpy(&v, p, 8);
	return le64toh(v);
}

static void st64(u8 *p, u64 v)
{
	v = htole64(v);
	memcpy(p, &v, 8);
}

/* Checksums a server would write over whatever the bytes say. */
static void fix_image(u8 *b, size_t len)
{
	struct ordo_model_layout lay;
	u32 i;

	if (ordo_model_parse_hdr(b, len, &lay) || len < lay.top_size)
		return;
	st64(b + offsetof(struct ordo_model_hdr, top_sum),
	     ordo_model_top_checksum(b, b + lay.piv_off, lay.first, lay.nsub));
	for (i = lay.first; i < lay.nsub; i++) {
		u8 *d = b + lay.desc_off + (u64)ORDO_MODEL_DESC_SIZE * i;
		u64 off, n;

		if (lay.desc_off + (u64)ORDO_MODEL_DESC_SIZE * (i + 1) > len)
			break;
		if (ordo_model_desc_slice(&lay, d, &off, &n) || off + n > len)
			continue;
		st64(d, ordo_sub_checksum(lay.epoch, i,
					  ld64(b + lay.piv_off + 8ULL * i), d,
					  b + off, n / ORDO_TT_ENTRY_SIZE));
	}
}

/* A loaded model answers inside its tables. */
static void use_model(const struct ordo_model *m, const u64 *keys)
{
	struct ordo_pred p;
	struct ordo_tt e;
	u32 i, sub, lln, steps;

	FZ_CHECK(m->first < m->nsub);
	for (i = m->first; i < m->nsub; i++) {
		const struct ordo_sub *s = &m->subs[i];

		if (i > m->first)
			FZ_CHECK(m->pivots[i] > m->pivots[i - 1]);
		if (s->tt != ORDO_SUB_NO_TT)
			FZ_CHECK(s->ntt >= 1 &&
				 (u64)s->tt + s->ntt <= m->tt_cap);
	}
	for (i = 0; i < 4; i++) {
		const struct ordo_sub *s;

		if (ordo_model_lookup(m, keys[i], &p))
			continue;
		FZ_CHECK(ordo_model_has_sub(m, p.sub));
		s = &m->subs[p.sub];
		/* Keys below the first pivot belong to the first sub-model. */
		FZ_CHECK(m->pivots[p.sub] <= keys[i] || p.sub == m->first);
		FZ_CHECK(p.ncand >= 1 && p.win_lo <= p.lln &&
			 p.lln + p.ncand - 1 <= p.win_hi && p.win_hi < s->ntt);
		FZ_CHECK(p.m == m);
	}
	sub = m->first;
	lln = 0;
	for (steps = 0; steps < 64; steps++) {
		int r = ordo_model_next(m, &sub, &lln);

		if (r == -ENOENT || r == -EINVAL)
			break;
		FZ_CHECK(ordo_model_has_sub(m, sub));
		if (!r)
			FZ_CHECK(ordo_model_tt(m, sub, lln, &e));
	}
}

/*
 * Packed (as libordo keeps it), @m answers as before: the same candidates
 * with the same leaves, codes and tie flags; only incarnations go.
 */
static void same_packed(struct ordo_model *m, const u64 *keys)
{
	struct ordo_pred was[4], p;
	bool ok[4];
	u64 sig[4] = { 0 };
	struct ordo_tt e;
	u32 i, c;

	for (i = 0; i < 4; i++) {
		ok[i] = !ordo_model_lookup(m, keys[i], &was[i]);
		for (c = 0; ok[i] && ordo_pred_try(&was[i], c, &e); c++)
			sig[i] = sig[i] * 31 + e.leaf * 7 +
				 (e.code_inca & ~(ORDO_TT_INCA_MASK <<
						  ORDO_TT_INCA_SHIFT));
	}
	if (ordo_model_pack(m))
		return;
	use_model(m, keys);
	for (i = 0; i < 4; i++) {
		u64 now = 0;

		FZ_CHECK(ok[i] == !ordo_model_lookup(m, keys[i], &p));
		if (!ok[i])
			continue;
		FZ_CHECK(p.sub == was[i].sub && p.lln == was[i].lln &&
			 p.ncand == was[i].ncand);
		for (c = 0; ordo_pred_try(&p, c, &e); c++) {
			FZ_CHECK(!(e.code_inca >> ORDO_TT_INCA_SHIFT));
			now = now * 31 + e.leaf * 7 + e.code_inca;
		}
		FZ_CHECK(now == sig[i]);
	}
}

static void fz_image(const u8 *in, size_t len, bool fix, const u64 *keys)
{
	u8 *b = fz_copy(in, len);
	struct ordo_model *m;
	u64 live, epoch;
	int err;

	if (!ordo_model_parse_anchor(b, len, &live, &epoch) && live <= len) {
		if (fix)
			fix_image(b + live, len - live);
		err = ordo_model_from_region(&m, b, len);
	} else {
		if (fix)
			fix_image(b, len);
		err = ordo_model_from_image(&m, b, len);
	}
	if (!err) {
		use_model(m, keys);
		same_packed(m, keys);
		ordo_model_free(m);
	}
	free(b);
}

/* The cache's model-only load: a header read, then the top-level read. */
static void fz_model_only(struct fin *f, bool fix, const u64 *keys)
{
	struct ordo_model_layout lay;
	struct ordo_model *m;
	uint32_t *starts;
	uint64_t tt_off;
	const u8 *hdr, *in;
	size_t hl, len;
	u8 *img;
	u32 i;

	hdr = fin_bytes(f, ORDO_MODEL_HDR_SIZE, &hl);
	if (ordo_model_parse_hdr(hdr, hl, &lay) || lay.model_size > IMG_MAX)
		return;
	in = fin_bytes(f, lay.model_size, &len);
	img = calloc(1, lay.model_size);
	memcpy(img, in, len);
	if (fix)
		fix_image(img, lay.model_size);
	if (shim_dec_model_only(&lay, img, lay.model_size, &m, &starts,
				&tt_off)) {
		free(img);
		return;
	}
	FZ_CHECK(tt_off == lay.tt_off);
	/* Descriptors and pivots alone: 32 bytes a sub-model, levels aside. */
	FZ_CHECK(!m->tt_cap && ordo_model_mem_bytes(m) <=
		 33ULL * (m->nsub - m->first) + 48);
	for (i = m->first; i < m->nsub; i++) {
		const struct ordo_sub *s = &m->subs[i];
		u32 lo, hi, k;

		FZ_CHECK(s->tt == ORDO_SUB_NO_TT && s->ntt >= 1);
		FZ_CHECK((u64)starts[i] + s->ntt <= lay.tt_cap);
		/* shim_cache_tt_window() on each key. */
		for (k = 0; k < 4; k++) {
			if (ordo_model_sub_of(m, keys[k]) != i)
				continue;
			ordo_sub_window(s, ordo_sub_pos(s,
					ordo_model_dx(keys[k], m->pivots[i])),
					&lo, &hi);
			FZ_CHECK(lo <= hi && hi < s->ntt);
		}
	}
	ordo_model_free(m);
	free(starts);
	free(img);
}

/* A descriptor and slice (LOOKUP reply) installed in a loaded top. */
static void fz_sub(struct fin *f, bool fix, const u64 *keys)
{
	u32 sub = fin_u32(f);
	u8 desc[ORDO_MODEL_DESC_SIZE] = { 0 };
	struct ordo_model *m;
	const u8 *p, *in;
	size_t n, sl, len;
	u8 *slice, *img;
	int r;

	p = fin_bytes(f, sizeof(desc), &n);
	memcpy(desc, p, n);
	p = fin_bytes(f, fin_u16(f), &sl);
	slice = fz_copy(p, sl);
	in = fin_bytes(f, IMG_MAX, &len);
	img = fz_copy(in, len);
	if (fix)
		fix_image(img, len);
	if (ordo_model_load_top(&m, img, len))
		goto out;
	sub = m->first + sub % ordo_model_count(m);
	if (fix) {
		struct ordo_model_desc d;

		memcpy(&d, desc, sizeof(d));
		if (le32toh(d.ntt) <= sl / ORDO_TT_ENTRY_SIZE)
			st64(desc, ordo_sub_checksum(m->epoch, sub,
						     m->pivots[sub], desc,
						     slice, le32toh(d.ntt)));
	}
	r = ordo_model_load_sub(m, sub, desc, slice, sl);
	if (!r) {
		FZ_CHECK(m->subs[sub].tt != ORDO_SUB_NO_TT);
		/* Installing it again replaces it in place or moves it. */
		FZ_CHECK(!ordo_model_load_sub(m, sub, desc, slice, sl));
	}
	use_model(m, keys);
	ordo_model_free(m);
out:
	free(slice);
	free(img);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fin f = { data, size };
	u8 mode = fin_u8(&f);
	bool fix = fin_u8(&f) & 1;
	u64 keys[4];
	const u8 *in;
	size_t len;
	int i;

	for (i = 0; i < 4; i++)
		keys[i] = fin_u64(&f);
	switch (mode % 3) {
	case 0:
		in = fin_bytes(&f, IMG_MAX, &len);
		fz_image(in, len, fix, keys);
		break;
	case 1:
		fz_model_only(&f, fix, keys);
		break;
	default:
		fz_sub(&f, fix, keys);
		break;
	}
	return 0;
}
