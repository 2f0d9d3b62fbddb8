// SPDX-License-Identifier: GPL-2.0
/*
 * Property tests of the learned model (kmod/core/model_*.c), native, TAP.
 *
 * A small leaf-level simulator (B-link leaves, half splits, incarnation
 * bumps on both halves of a split, no merges) stands in for the tree.  The
 * properties: every key, stored or not, is predicted to the leaf whose
 * fences hold it, before and after per-sub-model retraining; the region
 * round trip predicts identically; hostile bytes are refused; readers racing
 * with a patch notice; a stale model never names a wrong leaf with a
 * matching incarnation.
 */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <time.h>
#include "model.h"

static int n_tests, n_failed;
static int fails;	/* failed checks in the current test */
/* TT counts are a training-time snapshot: only fresh models match them. */

#define CHECK(cond, ...) do {						\
	if (!(cond)) {							\
		if (fails++ < 8) {					\
			printf("#   %s:%d: %s: ", __func__, __LINE__, #cond); \
			printf(__VA_ARGS__);				\
			printf("\n");					\
		}							\
	}								\
} while (0)

static void tap(const char *name)
{
	n_tests++;
	if (fails) {
		n_failed++;
		printf("not ok %d - %s (%d failed checks)\n", n_tests, name, fails);
	} else {
		printf("ok %d - %s\n", n_tests, name);
	}
	fflush(stdout);
	fails = 0;
}

static u64 rng = 0x9e3779b97f4a7c15ULL;

static u64 rnd(void)
{
	u64 z = (rng += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

/* ---- leaf-level simulator ---------------------------------------------- */

struct sim {
	u32 slots;
	u32 n, cap;
	u32 next_no;
	struct ordo_leaf_info *lv;	/* leaves in key order */
	u64 *k;				/* slots keys per leaf */
	/* output of sim_set() */
	struct ordo_leaf_info *out;
	u64 *keys;
};

static void sim_init(struct sim *s, u32 slots)
{
	memset(s, 0, sizeof(*s));
	s->slots = slots;
	s->cap = 16;
	s->lv = calloc(s->cap, sizeof(*s->lv));
	s->k = calloc((size_t)s->cap * slots, sizeof(u64));
	s->n = 1;
	s->next_no = 2;
	s->lv[0].leaf = 1;
	s->lv[0].inca = 1;
	s->lv[0].flags = ORDO_LEAF_LAST;
}

static void sim_free(struct sim *s)
{
	free(s->lv);
	free(s->k);
	free(s->out);
	free(s->keys);
}

/* Index of the leaf whose fences hold key. */
static u32 sim_find(const struct sim *s, u64 key)
{
	u32 lo = 0, hi = s->n - 1;

	while (lo < hi) {
		u32 mid = lo + (hi - lo + 1) / 2;

		if (s->lv[mid].low <= key)
			lo = mid;
		else
			hi = mid - 1;
	}
	return lo;
}

/* Insert key; returns 1 if a leaf split (its index in *split), else 0. */
static int sim_insert(struct sim *s, u64 key, u32 *split)
{
	u32 i = sim_find(s, key), c, pos, half, j;
	struct ordo_leaf_info *l = &s->lv[i];
	u64 *k = s->k + (size_t)i * s->slots, tmp[300];
	int did = 0;

	for (pos = 0; pos < l->count && k[pos] < key; pos++)
		;
	if (pos < l->count && k[pos] == key)
		return 0;
	if (l->count < s->slots) {
		memmove(k + pos + 1, k + pos, (l->count - pos) * sizeof(u64));
		k[pos] = key;
		l->count++;
		return 0;
	}
	/* Full: split the slots + 1 keys in half, both halves change. */
	c = l->count;
	memcpy(tmp, k, pos * sizeof(u64));
	tmp[pos] = key;
	memcpy(tmp + pos + 1, k + pos, (c - pos) * sizeof(u64));
	c++;
	if (s->n == s->cap) {
		s->cap *= 2;
		s->lv = realloc(s->lv, s->cap * sizeof(*s->lv));
		s->k = realloc(s->k, (size_t)s->cap * s->slots * sizeof(u64));
	}
	memmove(s->lv + i + 2, s->lv + i + 1,
		(s->n - i - 1) * sizeof(*s->lv));
	memmove(s->k + (size_t)(i + 2) * s->slots,
		s->k + (size_t)(i + 1) * s->slots,
		(size_t)(s->n - i - 1) * s->slots * sizeof(u64));
	s->n++;
	l = &s->lv[i];
	k = s->k + (size_t)i * s->slots;
	half = c / 2;
	s->lv[i + 1] = *l;
	s->lv[i + 1].leaf = s->next_no++;
	s->lv[i + 1].inca = 1;
	s->lv[i + 1].low = tmp[half];
	s->lv[i + 1].count = c - half;
	for (j = 0; j < c - half; j++)
		s->k[(size_t)(i + 1) * s->slots + j] = tmp[half + j];
	l->high = tmp[half];
	l->flags = 0;
	l->count = half;
	l->inca++;
	memcpy(k, tmp, half * sizeof(u64));
	*split = i;
	did = 1;
	return did;
}

/* Build an ordo_leaf_set of leaves [a, b). */
static struct ordo_leaf_set sim_set_range(struct sim *s, u32 a, u32 b)
{
	struct ordo_leaf_set set;
	size_t nk = 0;
	u32 i, j;

	free(s->out);
	free(s->keys);
	s->out = calloc(b - a, sizeof(*s->out));
	for (i = a; i < b; i++)
		nk += s->lv[i].count;
	s->keys = calloc(nk + 1, sizeof(u64));
	nk = 0;
	for (i = a; i < b; i++) {
		s->out[i - a] = s->lv[i];
		for (j = 0; j < s->lv[i].count; j++)
			s->keys[nk++] = s->k[(size_t)i * s->slots + j];
	}
	set.leaves = s->out;
	set.keys = s->keys;
	set.nleaves = b - a;
	return set;
}

static struct ordo_leaf_set sim_set(struct sim *s)
{
	return sim_set_range(s, 0, s->n);
}

/* The leaves tiling a model's sub-model domain. */
static struct ordo_leaf_set sim_domain(struct sim *s,
				       const struct ordo_model *m, u32 sub)
{
	u64 lo, hi = 0;
	bool has_hi = ordo_model_sub_domain(m, sub, &lo, &hi);
	u32 a = sim_find(s, lo), b = has_hi ? sim_find(s, hi) : s->n;

	return sim_set_range(s, a, b);
}

/*
 * Retire leaf @i (never the leftmost) as the tree does once it is empty:
 * its keys go, and the neighbour on the left (@left) or on the right
 * takes its range and a new incarnation.
 */
static void sim_retire(struct sim *s, u32 i, bool left)
{
	struct ordo_leaf_info *l = &s->lv[i];

	if (left) {
		s->lv[i - 1].high = l->high;
		s->lv[i - 1].flags = l->flags;
		s->lv[i - 1].inca++;
	} else {
		s->lv[i + 1].low = l->low;
		s->lv[i + 1].inca++;
	}
	memmove(s->lv + i, s->lv + i + 1, (s->n - i - 1) * sizeof(*s->lv));
	memmove(s->k + (size_t)i * s->slots, s->k + (size_t)(i + 1) * s->slots,
		(size_t)(s->n - i - 1) * s->slots * sizeof(u64));
	s->n--;
}

/* ---- key generators ----------------------------------------------------- */

enum dist { D_UNIFORM, D_DENSE, D_CLUSTER, D_SKEW, D_EXTREME, D_NDIST };

static u64 gen_key(enum dist d, u64 i)
{
	switch (d) {
	case D_UNIFORM:
		return rnd();
	case D_DENSE:
		return 1000 + i * 2 + (rnd() & 1);
	case D_CLUSTER:
		return ((rnd() % 16) << 56) + (rnd() % 5000);
	case D_SKEW:
		return (rnd() >> (rnd() % 64));
	default:
		switch (rnd() % 6) {
		case 0: return rnd() % 8;
		case 1: return U64_MAX - rnd() % 8;
		case 2: return (1ULL << 63) + rnd() % 8 - 4;
		default: return rnd();
		}
	}
}

static void sim_fill(struct sim *s, enum dist d, u32 n)
{
	u32 i, sp;

	for (i = 0; i < n; i++)
		sim_insert(s, gen_key(d, rnd() % (4ULL * n)), &sp);
}

/* ---- the central property ----------------------------------------------- */

static u64 ref_sat(u64 dx, u64 mant, u32 shift, u32 ntt, u32 over);

/* Independent spelling of F for the bit-identity check. */
static u64 ref_pos(const struct ordo_model *m, u32 sub, u64 key)
{
	const struct ordo_sub *s = &m->subs[sub];

	u64 p = m->pivots[sub];

	/* Keys below the first sub-model's pivot count as the pivot. */
	return ref_sat(key > p ? key - p : 0, ordo_sub_mant(s),
		       ordo_sub_shift(s), s->ntt, s->over);
}

/* Candidates the lookups named, and lookups: leaves read per GET. */
static u64 cand_total, cand_keys, cand_absent_missed;

static bool sim_stored(const struct sim *s, u32 leaf, u64 key)
{
	const u64 *k = s->k + (size_t)leaf * s->slots;
	u32 c;

	for (c = 0; c < s->lv[leaf].count; c++)
		if (k[c] == key)
			return true;
	return false;
}

static void check_key(const struct ordo_model *m, const struct sim *s,
		      u64 key)
{
	u32 want = sim_find(s, key), sub, i;
	const struct ordo_leaf_info *l = &s->lv[want];
	struct ordo_pred p;
	int err = ordo_model_lookup(m, key, &p);

	CHECK(!err, "lookup %llx: %d", (unsigned long long)key, err);
	if (err)
		return;
	sub = ordo_model_sub_of(m, key);
	CHECK(p.sub == sub && p.ncand >= 1 &&
	      p.lln + p.ncand <= m->subs[sub].ntt &&
	      p.win_lo <= p.lln && p.lln + p.ncand - 1 <= p.win_hi,
	      "sub/candidates range");
	for (i = 0; i < p.ncand && ordo_pred_ent(&p, i).leaf != l->leaf;)
		i++;
	/* A tie settled for the right may skip an absent key's leaf. */
	if (i == p.ncand && !sim_stored(s, want, key)) {
		cand_absent_missed++;
		return;
	}
	CHECK(i < p.ncand,
	      "key %llx: leaf %u not among %u candidates from %u (window "
	      "[%u, %u])", (unsigned long long)key, l->leaf, p.ncand, p.lln,
	      p.win_lo, p.win_hi);
	cand_total += p.ncand;
	cand_keys++;
	CHECK(ordo_model_pos(m, sub, key) == ref_pos(m, sub, key),
	      "position arithmetic");
	if (i < p.ncand && !(m->flags & ORDO_MODEL_F_PACKED)) {
		struct ordo_tt e = ordo_pred_ent(&p, i);

		CHECK(ordo_tt_inca_matches(&e, l->inca), "incarnation");
	}
}

/* Every stored key, every fence and its neighbours, extremes, samples. */
static void check_model(const struct ordo_model *m, const struct sim *s,
			u32 samples)
{
	static const u64 extremes[] = { 0, 1, 2, U64_MAX, U64_MAX - 1,
					1ULL << 63, (1ULL << 63) - 1 };
	u32 i, j;

	for (i = 0; i < ARRAY_SIZE(extremes); i++)
		check_key(m, s, extremes[i]);
	for (i = 0; i < s->n; i++) {
		const struct ordo_leaf_info *l = &s->lv[i];

		check_key(m, s, l->low);
		if (l->low)
			check_key(m, s, l->low - 1);
		if (l->low < U64_MAX)
			check_key(m, s, l->low + 1);
		for (j = 0; j < l->count; j++) {
			u64 k = s->k[(size_t)i * s->slots + j];

			check_key(m, s, k);
			if (k < U64_MAX)
				check_key(m, s, k + 1);
		}
	}
	for (i = 0; i < samples; i++)
		check_key(m, s, rnd());
}

static struct ordo_model *train(struct sim *s,
				const struct ordo_model_params *p, u64 epoch)
{
	struct ordo_leaf_set set = sim_set(s);
	struct ordo_model *m = NULL;
	int err = ordo_model_train(&m, &set, p, epoch);

	CHECK(!err && m, "train: %d", err);
	return err ? NULL : m;
}

static void params_variant(struct ordo_model_params *p, int v)
{
	ordo_model_params_default(p);
	switch (v) {
	case 1:		/* tiny sub-models */
		p->leaves_per_sub = 2;
		break;
	case 2:		/* fixed, very tight error bound */
		p->leaves_per_sub = 0;
		p->eps = 16;
		break;
	case 3:		/* one leaf per sub-model */
		p->max_sub_leaves = 1;
		break;
	case 4:		/* one huge, loose sub-model */
		p->leaves_per_sub = 0;
		p->eps = 0xfffe;
		p->max_sub_leaves = 0;
		break;
	}
}

#define NVARIANTS 5

/* ---- tests -------------------------------------------------------------- */

static void test_tiny(void)
{
	static const u64 sets[][4] = {
		{ 0 }, { 0 }, { 0, 1 }, { U64_MAX }, { 0, U64_MAX },
		{ 0, 1, U64_MAX - 1, U64_MAX }, { 5, 7 },
	};
	static const u32 sizes[] = { 0, 1, 2, 1, 2, 4, 2 };
	struct ordo_model_params p;
	u32 i, j, slots;
	int v;

	for (slots = 1; slots <= 4; slots *= 2)
		for (i = 0; i < ARRAY_SIZE(sizes); i++)
			for (v = 0; v < NVARIANTS; v++) {
				struct ordo_model *m;
				struct sim s;
				u32 sp;

				sim_init(&s, slots);
				for (j = 0; j < sizes[i]; j++)
					sim_insert(&s, sets[i][j], &sp);
				params_variant(&p, v);
				m = train(&s, &p, 1);
				if (m)
					check_model(m, &s, 200);
				ordo_model_free(m);
				sim_free(&s);
			}
	tap("tiny key sets (0, 1, 2 keys; 0, 1, U64_MAX-1, U64_MAX)");
}

/* Hand-made leaf levels: width-1 leaves, a leaf starting at U64_MAX. */
static void test_edges(void)
{
	struct ordo_model_params p;
	struct sim s;
	u32 i, n = 40;
	int v;

	sim_init(&s, 4);
	free(s.lv);
	s.lv = calloc(n, sizeof(*s.lv));
	s.cap = n;
	s.n = n;
	for (i = 0; i < n; i++) {
		s.lv[i].low = i < n - 1 ? i : U64_MAX;
		s.lv[i].high = i < n - 2 ? i + 1 : U64_MAX;
		s.lv[i].leaf = 100 + i;
		s.lv[i].inca = i * 3;
	}
	s.lv[n - 2].high = U64_MAX;
	s.lv[n - 1].flags = ORDO_LEAF_LAST;
	free(s.k);
	s.k = calloc((size_t)n * s.slots, sizeof(u64));
	for (v = 0; v < NVARIANTS; v++) {
		struct ordo_model *m;

		params_variant(&p, v);
		m = train(&s, &p, 7);
		if (m)
			check_model(m, &s, 500);
		ordo_model_free(m);
	}
	sim_free(&s);
	tap("adjacent width-1 leaves and a leaf starting at U64_MAX");
}

static void test_distributions(void)
{
	static const u32 sizes[] = { 10, 300, 5000, 40000 };
	struct ordo_model_params p;
	u32 i, d;
	int v;

	for (d = 0; d < D_NDIST; d++)
		for (i = 0; i < ARRAY_SIZE(sizes); i++)
			for (v = 0; v < NVARIANTS; v++) {
				struct ordo_model *m;
				struct sim s;

				if (sizes[i] > 5000 && v)
					continue;
				sim_init(&s, v & 1 ? 4 : 16);
				sim_fill(&s, d, sizes[i]);
				params_variant(&p, v);
				m = train(&s, &p, 3);
				if (m)
					check_model(m, &s, 2000);
				ordo_model_free(m);
				sim_free(&s);
			}
	printf("# %llu lookups, %.4f candidate leaves each; %llu absent keys "
	       "sent right of their leaf\n", (unsigned long long)cand_keys,
	       (double)cand_total / cand_keys,
	       (unsigned long long)cand_absent_missed);
	tap("every key, fence +-1 and random absent key is in its predicted leaf");
}

static bool same_pred(const struct ordo_model *a, const struct ordo_model *b,
		      u64 key)
{
	struct ordo_pred pa, pb;

	if (ordo_model_lookup(a, key, &pa) || ordo_model_lookup(b, key, &pb))
		return false;
	/* A packed copy keeps no incarnation bits. */
	u32 mask = (a->flags | b->flags) & ORDO_MODEL_F_PACKED ?
		   ORDO_TT_CODE_MASK | ORDO_TT_TIE_RIGHT : U32_MAX;

	return pa.sub == pb.sub && pa.lln == pb.lln &&
	       pa.ncand == pb.ncand &&
	       pa.win_lo == pb.win_lo && pa.win_hi == pb.win_hi &&
	       ordo_pred_ent(&pa, 0).leaf == ordo_pred_ent(&pb, 0).leaf &&
	       (ordo_pred_ent(&pa, 0).code_inca & mask) ==
	       (ordo_pred_ent(&pb, 0).code_inca & mask) &&
	       ordo_model_pos(a, pa.sub, key) == ordo_model_pos(b, pb.sub, key);
}

static void check_same_n(const struct ordo_model *a,
			 const struct ordo_model *b, const struct sim *s,
			 u32 samples)
{
	u32 i;

	CHECK(a->first == b->first && a->nsub == b->nsub &&
	      a->epoch == b->epoch && a->nleaves == b->nleaves, "shape");
	for (i = 0; i < s->n; i++) {
		CHECK(same_pred(a, b, s->lv[i].low), "fence %u", i);
		if (s->lv[i].low)
			CHECK(same_pred(a, b, s->lv[i].low - 1), "fence-1 %u", i);
	}
	for (i = 0; i < samples; i++)
		CHECK(same_pred(a, b, rnd()), "random key");
	CHECK(same_pred(a, b, U64_MAX), "U64_MAX");
}

static void check_same(const struct ordo_model *a,
		       const struct ordo_model *b, const struct sim *s)
{
	check_same_n(a, b, s, 3000);
}

/* A region made of separate chunks of 1 << shift bytes. */
struct chunks {
	void **c;
	struct ordo_region rg;
	u8 *flat;	/* contiguous copy for readers */
	u64 size;
};

static void chunks_init(struct chunks *ch, u64 size, u32 shift)
{
	u32 i, n = (size >> shift) + 1;

	ch->c = calloc(n, sizeof(void *));
	for (i = 0; i < n; i++)
		ch->c[i] = calloc(1, 1ULL << shift);
	ch->rg.chunks = ch->c;
	ch->rg.nchunks = n;
	ch->rg.chunk_shift = shift;
	ch->rg.base = 0;
	ch->size = (u64)n << shift;
	ch->flat = calloc(1, ch->size);
}

/* What a client sees: the chunks back to back. */
static u8 *chunks_flat(struct chunks *ch)
{
	u64 csize = 1ULL << ch->rg.chunk_shift;
	u32 i;

	for (i = 0; i < ch->rg.nchunks; i++)
		memcpy(ch->flat + i * csize, ch->c[i], csize);
	return ch->flat;
}

static void chunks_free(struct chunks *ch)
{
	u32 i;

	for (i = 0; i < ch->rg.nchunks; i++)
		free(ch->c[i]);
	free(ch->c);
	free(ch->flat);
}

/* Load through separate reads: top level, then each descriptor + slice. */
static struct ordo_model *load_parts(const u8 *img, u64 len, bool packed)
{
	struct ordo_model_layout lay;
	struct ordo_model *m = NULL;
	u64 off, n;
	u32 i;
	int err;

	err = ordo_model_parse_hdr(img, ORDO_MODEL_HDR_SIZE, &lay);
	CHECK(!err, "parse_hdr %d", err);
	if (err)
		return NULL;
	err = ordo_model_load_top(&m, img, lay.top_size);
	CHECK(!err, "load_top %d", err);
	if (err)
		return NULL;
	CHECK(!packed || !ordo_model_pack(m), "pack");
	for (i = lay.first; i < lay.nsub; i++) {
		const u8 *d = img + lay.desc_off + ORDO_MODEL_DESC_SIZE * i;
		u8 desc[ORDO_MODEL_DESC_SIZE], *slice;

		/* Copies: a client's reads land in separate buffers. */
		memcpy(desc, d, sizeof(desc));
		err = ordo_model_desc_slice(&lay, desc, &off, &n);
		CHECK(!err && off + n <= len, "desc_slice %d", err);
		if (err)
			break;
		slice = malloc(n);
		memcpy(slice, img + off, n);
		err = ordo_model_load_sub(m, i, desc, slice, n);
		free(slice);
		CHECK(!err, "load_sub %u: %d", i, err);
	}
	return m;
}

/* Bits that hold leaf number @leaf (at least one). */
static u32 bits_of(u32 leaf)
{
	u32 b = 1;

	while (b < 32 && leaf >> b)
		b++;
	return b;
}

/* The bits that hold @m's leaf numbers (those of its slices). */
static u32 leaf_bits_of(const struct ordo_model *m)
{
	u32 i, j, top = 0;

	for (i = m->first; i < m->nsub; i++)
		for (j = 0; j < m->subs[i].ntt; j++)
			top = top > m->tt[m->subs[i].tt + j].leaf ? top :
			      m->tt[m->subs[i].tt + j].leaf;
	return bits_of(top);
}

/*
 * A client copy holds what lookups read: 8 + 20 bytes per sub-model in
 * use (none for the image's room in front), the search levels and TT
 * room: for a full copy the slices as trained plus 64 entries (8 bytes
 * each); packed, each slice from a byte in sub-model order, its entries
 * of @lb leaf bits plus the slice's grid bits (one more when a code is
 * 2^grid) plus the tie flag, at most 1/32 of them and 64 bytes to
 * spare, then 8 bytes of padding.
 */
static void check_client_bytes(const struct ordo_model *c, u32 lb)
{
	u64 lv = c->nlevels ? (u64)c->level_off[c->nlevels] +
			      c->level_len[c->nlevels] : 0;
	u64 tt = 8ULL * c->tt_cap, used = 0, want;
	u32 i, j;

	for (i = c->first; lb && i < c->nsub; i++) {
		const struct ordo_sub *s = &c->subs[i];
		bool wide = false;

		for (j = 0; j < s->ntt; j++)
			wide |= (ordo_model_entry(c, i, j).code_inca &
				 ORDO_TT_CODE_MASK) >> s->grid;
		CHECK(s->tt == used && s->wide == wide,
		      "slice %u at byte %u, %llu expected", i, s->tt,
		      (unsigned long long)used);
		used += ((u64)s->ntt * (lb + s->grid + wide + 1) + 7) / 8;
	}
	if (lb)
		tt = c->tt_cap + 8;
	want = 28ULL * (c->nsub - c->first) + 8 * lv + tt;
	CHECK(sizeof(struct ordo_sub) == 20 && !c->meta &&
	      c->base == c->first && c->leaf_bits == lb &&
	      (lb ? c->tt_used == used &&
		    c->tt_cap <= used + used / 32 + 64 :
		    c->tt_cap == c->nleaves + 64) &&
	      ordo_model_mem_bytes(c) == want,
	      "client copy of %llu bytes, %llu expected",
	      (unsigned long long)ordo_model_mem_bytes(c),
	      (unsigned long long)want);
}

/* Every TT entry of @c's slices is @m's (incarnation bits aside). */
static bool same_entries(const struct ordo_model *m,
			 const struct ordo_model *c)
{
	u32 i, j, mask = ORDO_TT_CODE_MASK | ORDO_TT_TIE_RIGHT;
	struct ordo_tt a, b;

	for (i = m->first; i < m->nsub; i++)
		for (j = 0; j < m->subs[i].ntt; j++) {
			if (!ordo_model_tt(m, i, j, &a) ||
			    !ordo_model_tt(c, i, j, &b) || a.leaf != b.leaf ||
			    (a.code_inca & mask) != (b.code_inca & mask))
				return false;
		}
	return true;
}

static void test_roundtrip(void)
{
	static const u32 shifts[] = { 6, 7, 12, 20 };
	struct ordo_model_params p;
	u32 d, si;
	int v;

	for (d = 0; d < D_NDIST; d++)
		for (v = 0; v < NVARIANTS; v++) {
			struct ordo_model *m, *c;
			struct sim s;

			sim_init(&s, 8);
			sim_fill(&s, d, 3000);
			params_variant(&p, v);
			m = train(&s, &p, 42 + v);
			if (!m) {
				sim_free(&s);
				continue;
			}
			for (si = 0; si < ARRAY_SIZE(shifts); si++) {
				struct chunks ch;
				u8 *img, *buf;
				size_t len;
				u32 i;
				int err;

				chunks_init(&ch, ordo_region_bytes(m), shifts[si]);
				err = ordo_region_write(&ch.rg, m);
				CHECK(!err, "region_write %d", err);
				img = chunks_flat(&ch);
				for (i = 0; i < 2; i++) {
					err = ordo_model_load_image(&c, img,
								    ch.size, i);
					CHECK(!err, "load_image %d", err);
					if (!err) {
						check_same(m, c, &s);
						check_model(c, &s, 100);
						check_client_bytes(c, i ?
							leaf_bits_of(m) : 0);
						ordo_model_free(c);
					}
					c = load_parts(img, ch.size, i);
					if (c) {
						check_same(m, c, &s);
						ordo_model_free(c);
					}
				}
				/* RPC path: export every sub-model again. */
				err = ordo_model_load_top(&c, img, ch.size);
				for (i = m->first; !err && i < m->nsub; i++) {
					len = 0;
					ordo_model_export_sub(m, i, NULL, &len);
					buf = malloc(len);
					err = ordo_model_export_sub(m, i, buf, &len);
					if (!err)
						err = ordo_model_load_sub(c, i, buf,
							buf + ORDO_MODEL_DESC_SIZE,
							len - ORDO_MODEL_DESC_SIZE);
					free(buf);
				}
				CHECK(!err, "export/load_sub %d", err);
				if (!err)
					check_same(m, c, &s);
				ordo_model_free(c);
				chunks_free(&ch);
			}
			ordo_model_free(m);
			sim_free(&s);
		}
	tap("region write -> image/partial/RPC load, full or packed, predicts identically");
}

static void test_determinism(void)
{
	struct ordo_model_params p;
	struct ordo_model *a, *b;
	struct sim s;
	u32 i;

	sim_init(&s, 16);
	sim_fill(&s, D_SKEW, 20000);
	ordo_model_params_default(&p);
	p.leaves_per_sub = 8;
	a = train(&s, &p, 5);
	b = train(&s, &p, 5);
	if (a && b) {
		CHECK(a->first == b->first && a->nsub == b->nsub &&
		      a->tt_used == b->tt_used, "shape");
		for (i = a->first; i < a->nsub; i++)
			CHECK(!memcmp(&a->subs[i], &b->subs[i],
				      sizeof(a->subs[i])) &&
			      a->pivots[i] == b->pivots[i], "sub %u", i);
		CHECK(!memcmp(a->tt, b->tt, sizeof(*a->tt) * a->tt_used), "tt");
	}
	ordo_model_free(a);
	ordo_model_free(b);
	sim_free(&s);
	tap("training is deterministic");
}

/*
 * A leaf split at @sp (its right half at @sp + 1): retrain the sub-model
 * holding the split, as the trainer does, and patch @ch's region if given.
 */
static int publish(struct chunks *ch, const struct ordo_model *m, u32 sub)
{
	int err = ordo_region_patch(&ch->rg, m, sub);

	/* A middle cut renumbered sub-models: a new image (no readers race). */
	if (err == -EXDEV)
		err = ordo_region_write(&ch->rg, m);
	return err;
}

static int retrain_split(struct sim *s, struct ordo_model *m,
			 const struct ordo_model_params *p, u32 sp,
			 struct chunks *ch)
{
	u32 sub = ordo_model_sub_of(m, s->lv[sp + 1].low);
	struct ordo_leaf_set set = sim_domain(s, m, sub);
	int err = ordo_model_retrain_sub(m, sub, &set, p);

	if (!err && ch)
		err = publish(ch, m, sub);
	return err;
}

static int cmp_key(const void *a, const void *b)
{
	u64 x = *(const u64 *)a, y = *(const u64 *)b;

	return x < y ? -1 : x > y;
}

/*
 * Retrain the sub-models that hold @keys as the trainer does: in key
 * order, each domain once (a middle cut renumbers sub-models, so keys,
 * not indices, name them).
 */
static int retrain_keys(struct sim *s, struct ordo_model *m,
			const struct ordo_model_params *p, u64 *keys, u32 n,
			struct chunks *ch)
{
	u64 lo, end = 0;
	bool bounded = true;
	u32 i, sub;
	int err = 0;

	qsort(keys, n, sizeof(*keys), cmp_key);
	for (i = 0; i < n && !err && bounded; i++) {
		struct ordo_leaf_set set;

		if (i && keys[i] < end)
			continue;
		sub = ordo_model_sub_of(m, keys[i]);
		bounded = ordo_model_sub_domain(m, sub, &lo, &end);
		set = sim_domain(s, m, sub);
		err = ordo_model_retrain_sub(m, sub, &set, p);
		if (!err && ch)
			err = publish(ch, m, sub);
	}
	return err;
}

/*
 * Retrain every sub-model touched by n inserts (split or not: a key
 * inserted since its sub-model's training may be sent right of its leaf
 * by a tie flag, which check_key() allows only for keys it does not hold).
 */
static int retrain_after(struct sim *s, struct ordo_model *m,
			 const struct ordo_model_params *p, enum dist d,
			 u32 n, struct chunks *ch)
{
	u64 *keys = malloc(sizeof(*keys) * n);
	u32 i, sp;
	int err;

	for (i = 0; i < n; i++) {
		keys[i] = gen_key(d, rnd() % (8ULL * n));
		sim_insert(s, keys[i], &sp);
	}
	err = retrain_keys(s, m, p, keys, n, ch);
	free(keys);
	return err;
}

static void test_retrain(void)
{
	struct ordo_model_params p;
	u32 d, round;
	int v;

	for (d = 0; d < D_NDIST; d++)
		for (v = 0; v < NVARIANTS; v++) {
			struct ordo_model *m, *c;
			struct chunks ch;
			struct sim s;
			int err;

			sim_init(&s, 8);
			sim_fill(&s, d, 2000);
			params_variant(&p, v);
			p.tt_spare_pct = 400;
			m = train(&s, &p, 9);
			if (!m) {
				sim_free(&s);
				continue;
			}
			chunks_init(&ch, ordo_region_bytes(m), 9);
			CHECK(!ordo_region_write(&ch.rg, m), "write");
			for (round = 0; round < 3; round++) {
				err = retrain_after(&s, m, &p, d, 300, &ch);
				CHECK(!err, "retrain/patch: %d", err);
				check_model(m, &s, 300);
				err = ordo_model_from_image(&c, chunks_flat(&ch),
							    ch.size);
				CHECK(!err, "from_image after patches %d", err);
				if (!err) {
					check_same(m, c, &s);
					ordo_model_free(c);
				}
			}
			chunks_free(&ch);
			ordo_model_free(m);
			sim_free(&s);
		}
	tap("per-sub-model retrain + patch after splits keeps every key");
}

/*
 * Appends (time stamps, auto-increment ids) land past the last fence.  Each
 * split retrains the last sub-model alone, as the trainer does; its window
 * stays within the trained one, so the trainer's policy never asks for a
 * full training (format version 1 fitted that sub-model through U64_MAX
 * and asked for one every ~200 keys), and every key stays in its window.
 */
static void test_appends(void)
{
	const u32 bulk = 20000, appends = 12000;
	u64 *keys = malloc(sizeof(u64) * (bulk + appends));
	struct ordo_model_params p;
	struct ordo_model_health h;
	struct ordo_model *m;
	u32 i, sp, splits = 0, full = 0;
	u64 max_err = 0;
	struct sim s;

	/*
	 * Ids with gaps of 1 to 5, all in key order (a time series from its
	 * start): the leaves of the bulk and of the appends are alike.
	 */
	for (i = 0; i < bulk + appends; i++)
		keys[i] = 1000000 + 3ULL * i + rnd() % 3;
	sim_init(&s, 16);
	for (i = 0; i < bulk; i++)
		sim_insert(&s, keys[i], &sp);
	ordo_model_params_default(&p);
	p.tt_spare_pct = 200;	/* room for the appended leaves */
	m = train(&s, &p, 5);
	for (i = bulk; m && i < bulk + appends; i++) {
		int err;

		if (!sim_insert(&s, keys[i], &sp))
			continue;
		splits++;
		err = retrain_split(&s, m, &p, sp, NULL);
		CHECK(!err, "retrain after split %u: %d", splits, err);
		ordo_model_health(m, &h);
		max_err = max_t(u64, max_err, h.max_err);
		full += ordo_model_needs_rebuild(&h, &p);
	}
	CHECK(splits > 1000, "only %u splits", splits);
	CHECK(!full, "%u of %u splits called for a full training (window "
	      "%llu/256 leaves at most, eps %u)", full, splits,
	      (unsigned long long)max_err, m ? m->eps : 0);
	if (m) {
		check_model(m, &s, 1000);
	}
	printf("# appends: %u splits, widest window %.2f leaves, %u full "
	       "trainings needed\n", splits, max_err / 256.0, full);
	ordo_model_free(m);
	sim_free(&s);
	free(keys);
	tap("appends retrain the last sub-model alone, no full training");
}

static void test_retrain_identity(void)
{
	struct ordo_model_params p;
	struct ordo_model *m;
	struct sim s;
	u32 i;
	int v;

	for (v = 0; v < NVARIANTS; v++) {
		sim_init(&s, 16);
		sim_fill(&s, D_UNIFORM, 8000);
		params_variant(&p, v);
		m = train(&s, &p, 11);
		for (i = m ? m->first : 0; m && i < m->nsub; i++) {
			struct ordo_sub before = m->subs[i];
			struct ordo_tt *t = malloc(sizeof(*t) * before.ntt);
			struct ordo_leaf_set set = sim_domain(&s, m, i);
			int err;

			memcpy(t, m->tt + before.tt, sizeof(*t) * before.ntt);
			err = ordo_model_retrain_sub(m, i, &set, &p);
			CHECK(!err, "retrain %d", err);
			CHECK(m->subs[i].slope == before.slope &&
			      m->subs[i].over == before.over &&
			      m->subs[i].under == before.under &&
			      m->subs[i].tt == before.tt &&
			      m->subs[i].gen == before.gen + 1 &&
			      !memcmp(t, m->tt + before.tt,
				      sizeof(*t) * before.ntt),
			      "sub %u changed", i);
			free(t);
			/* Leaves of the neighbour domain do not tile it. */
			if (i + 1 < m->nsub) {
				set = sim_domain(&s, m, i + 1);
				CHECK(ordo_model_retrain_sub(m, i, &set, &p) ==
				      -ERANGE, "foreign domain accepted");
			}
		}
		ordo_model_free(m);
		sim_free(&s);
	}
	tap("retraining an unchanged domain reproduces it; foreign leaves refused");
}

/* What the trainer policy did over a stream of inserts. */
struct stream_run {
	u32 splits, full, grows;
	u64 max_err;
};

/*
 * Insert @n keys from @key, each @dir times a gap of 1..8, 1..800 or
 * 1..80000 (changing every 1000) away from the last, and treat each split
 * as the trainer does: retrain and patch the sub-model, grow a TT area
 * short of room in place, and count the splits after which a full
 * training would be due.  Return: the last key.
 */
static u64 run_stream(struct sim *s, struct ordo_model *m,
		       const struct ordo_model_params *p, struct chunks *ch,
		       u64 key, int dir, u32 n, struct stream_run *r)
{
	static const u64 scale[] = { 8, 800, 80000 };
	struct ordo_model_health h;
	u32 i, sp, extra;
	int err;

	for (i = 0; i < n; i++) {
		u64 gap = 1 + rnd() % scale[(i / 1000) % 3];

		key = dir > 0 ? key + gap : key - gap;
		if (!sim_insert(s, key, &sp))
			continue;
		r->splits++;
		err = retrain_split(s, m, p, sp, ch);
		CHECK(!err, "retrain after split %u: %d", r->splits, err);
		ordo_model_health(m, &h);
		r->max_err = max_t(u64, r->max_err, h.max_err);
		extra = ordo_model_tt_room_due(&h, p);
		if (extra) {
			CHECK(!ordo_model_tt_grow(m, extra) &&
			      !ordo_region_grow(&ch->rg, m), "TT growth");
			r->grows++;
			ordo_model_health(m, &h);
		}
		r->full += ordo_model_needs_rebuild(&h, p);
	}
	return key;
}

/*
 * The region's image (patched, grown or written anew within the epoch)
 * loads as the trainer's model @m: the same top level, the same lookups.
 */
static void check_image(struct chunks *ch, const struct ordo_model *m,
			const struct sim *s, const char *after)
{
	struct ordo_model *c = NULL;
	int err = ordo_model_from_image(&c, chunks_flat(ch), ch->size);

	CHECK(!err, "image after %s: %d", after, err);
	if (err)
		return;
	CHECK(c->first == m->first && c->nsub == m->nsub &&
	      c->top_gen == m->top_gen, "first, nsub, top_gen after %s",
	      after);
	check_same(m, c, s);
	ordo_model_free(c);
}

/*
 * The trainer's health check after a round (@h), once the TT area, if
 * it ran short, grew in place.
 */
static void health_after_round(struct ordo_model *m, struct chunks *ch,
			       const struct ordo_model_params *p,
			       struct ordo_model_health *h)
{
	u32 extra;

	ordo_model_health(m, h);
	extra = ordo_model_tt_room_due(h, p);
	if (!extra)
		return;
	CHECK(!ordo_model_tt_grow(m, extra) && !ordo_region_grow(&ch->rg, m),
	      "TT growth");
	ordo_model_health(m, h);
}

/*
 * A client refreshing its top level from the image in @ch, as libordo
 * does: it loads the new top level (packed), takes from @old every slice
 * that did not change, at whatever index, and reads the others.  Return:
 * the new copy (NULL if its top level did not load); *@kept and *@read
 * count the slices, *@moved (if not NULL) those kept at another index.
 */
static struct ordo_model *refresh_top(struct chunks *ch,
				      const struct ordo_model *old,
				      u32 *kept, u32 *read, u32 *moved)
{
	struct ordo_model_layout lay;
	struct ordo_model *c = NULL;
	const u8 *d;
	u64 off, len;
	u32 i;

	chunks_flat(ch);
	*kept = *read = 0;
	if (moved)
		*moved = 0;
	ordo_model_parse_hdr(ch->flat, ch->size, &lay);
	CHECK(!ordo_model_load_top(&c, ch->flat, ch->size) &&
	      !ordo_model_pack(c), "new top");
	for (i = c ? c->first : 0; c && i < c->nsub; i++) {
		d = ch->flat + lay.desc_off + ORDO_MODEL_DESC_SIZE * i;
		if (!ordo_model_adopt_sub(c, i, d, old)) {
			(*kept)++;
			if (moved)
				*moved += i < old->first || i >= old->nsub ||
					  old->pivots[i] != c->pivots[i];
			continue;
		}
		CHECK(!ordo_model_desc_slice(&lay, d, &off, &len) &&
		      !ordo_model_load_sub(c, i, d, ch->flat + off, len),
		      "sub-model %u", i);
		(*read)++;
	}
	return c;
}

/*
 * @bulk random keys in [@lo, @lo + 2^40) in 16-slot leaves, trained with
 * small sub-models (32 leaves, at most 64) so that streams cut them soon.
 */
static struct ordo_model *train_small(struct sim *s,
				      struct ordo_model_params *p, u32 bulk,
				      u64 lo, u64 epoch)
{
	u32 i, sp;

	sim_init(s, 16);
	for (i = 0; i < bulk; i++)
		sim_insert(s, lo + rnd() % (1ULL << 40), &sp);
	ordo_model_params_default(p);
	p->leaves_per_sub = 32;
	p->max_sub_leaves = 64;
	return train(s, p, epoch);
}

/*
 * A time series outgrows its last sub-model: after a bulk load, keys
 * arrive in order with gaps that change scale, so one line at the model's
 * eps stops fitting the tail and max_sub_leaves (small here) caps it.
 * Retraining then cuts the tail and appends sub-models within the epoch,
 * and the TT area, short of room, grows in place (top_gen counts both):
 * no full training is called for, every key stays
 * exact, the region (patched through ordo_region_patch()) loads as the
 * trainer's model, and a client that kept the first top level still
 * accepts the narrowed old-last sub-model and looks up inside its slice.
 */
static void test_tail_extension(void)
{
	const u32 bulk = 20000, appends = 14000;
	struct ordo_model_params p;
	struct ordo_model *m, *old = NULL;
	struct stream_run r = { 0 };
	struct chunks ch;
	struct sim s;
	u32 i, nsub0 = 0, sub;
	u64 key = 1ULL << 40, off, len;
	int err;

	m = train_small(&s, &p, bulk, 0, 7);
	if (m) {
		nsub0 = m->nsub;
		/* Room for the image to grow, as the module's region has. */
		chunks_init(&ch, 4 * ordo_region_bytes(m), 12);
		CHECK(!ordo_region_write(&ch.rg, m), "write");
		CHECK(!ordo_model_from_image(&old, chunks_flat(&ch), ch.size),
		      "first image");
	}
	if (m)
		key = run_stream(&s, m, &p, &ch, key, 1, appends, &r);
	if (m) {
		CHECK(m->nsub > nsub0 + 10 && m->top_gen > 5 &&
		      m->nsub <= m->nsub_cap, "sub-models %u -> %u, top_gen %u",
		      nsub0, m->nsub, m->top_gen);
		CHECK(r.grows, "the TT area never grew");
		CHECK(!r.full, "%u of %u splits called for a full training "
		      "(window %llu/256 leaves at most)", r.full, r.splits,
		      (unsigned long long)r.max_err);
		check_model(m, &s, 1000);
		check_image(&ch, m, &s, "extensions");
	}
	if (m && old) {
		/* The old last sub-model, narrowed, against the old top. */
		struct ordo_model_layout lay;
		const u8 *d;

		sub = nsub0 - 1;
		ordo_model_parse_hdr(ch.flat, ch.size, &lay);
		d = ch.flat + lay.desc_off + ORDO_MODEL_DESC_SIZE * sub;
		CHECK(!ordo_model_desc_slice(&lay, d, &off, &len) &&
		      !ordo_model_load_sub(old, sub, d, ch.flat + off, len),
		      "narrowed sub-model refused by an old client");
		for (i = 0; i < 10000; i++) {
			struct ordo_pred pr;
			u64 k = i & 1 ? rnd() : key - rnd() % (key >> 4);

			err = ordo_model_lookup(old, k, &pr);
			if (!err && pr.sub == sub)
				CHECK(pr.lln < old->subs[sub].ntt, "outside");
		}
	}
	printf("# tail: %u splits, sub-models %u -> %u, top_gen %u, %u TT "
	       "growths, widest window %.2f leaves, %u full trainings "
	       "needed\n", r.splits, nsub0, m ? m->nsub : 0,
	       m ? m->top_gen : 0, r.grows, r.max_err / 256.0, r.full);
	if (m)
		chunks_free(&ch);
	ordo_model_free(old);
	ordo_model_free(m);
	sim_free(&s);
	tap("a growing tail is cut and extended within the epoch");
}

/*
 * Descending inserts (countdown ids, reverse time stamps) outgrow the
 * first sub-model at its left: after a bulk load above 2^40, keys arrive
 * in decreasing order below every stored key, with gaps that change
 * scale.  Retraining moves the first sub-model's pivot along with its
 * leftmost leaves, cuts it from the right once one line at the model's
 * eps within max_sub_leaves no longer covers it, and puts the new
 * sub-models in front of it within the epoch (first falls, top_gen counts
 * it): no full training is called for, every key stays exact, the region
 * (patched through ordo_region_patch()) loads as the trainer's model, and
 * a client that kept the first top level refuses the old first sub-model,
 * whose pivot moved, instead of trusting it; refreshing its top level, it
 * keeps every other slice and reads only the changed ones.
 */
static void test_head_extension(void)
{
	const u32 bulk = 20000, inserts = 14000;
	struct ordo_model_params p;
	struct ordo_model *m, *c, *old = NULL;
	struct stream_run r = { 0 };
	struct chunks ch;
	struct sim s;
	u32 first0 = 0, kept = 0, fetched = 0;
	u64 off, len;

	m = train_small(&s, &p, bulk, 1ULL << 40, 9);
	if (m) {
		first0 = m->first;
		CHECK(first0 >= 64, "no room in front: first %u", first0);
		chunks_init(&ch, 4 * ordo_region_bytes(m), 12);
		CHECK(!ordo_region_write(&ch.rg, m), "write");
		/* Packed, as libordo keeps its copies. */
		CHECK(!ordo_model_load_image(&old, chunks_flat(&ch), ch.size,
					     true), "first image");
	}
	if (m)
		run_stream(&s, m, &p, &ch, 1ULL << 40, -1, inserts, &r);
	if (m) {
		CHECK(m->first + 10 < first0 && m->top_gen > 5,
		      "first sub-model %u -> %u, top_gen %u", first0, m->first,
		      m->top_gen);
		CHECK(!r.full, "%u of %u splits called for a full training "
		      "(window %llu/256 leaves at most)", r.full, r.splits,
		      (unsigned long long)r.max_err);
		check_model(m, &s, 1000);
		check_image(&ch, m, &s, "extensions");
	}
	if (m && old) {
		/* The old first sub-model, now pivoted elsewhere. */
		struct ordo_model_layout lay;
		const u8 *d;

		ordo_model_parse_hdr(ch.flat, ch.size, &lay);
		d = ch.flat + lay.desc_off + ORDO_MODEL_DESC_SIZE * first0;
		CHECK(!ordo_model_desc_slice(&lay, d, &off, &len) &&
		      ordo_model_load_sub(old, first0, d, ch.flat + off, len) ==
		      -EBADMSG, "an old client took the moved first sub-model");
		CHECK(old->pivots[first0] != m->pivots[first0], "pivot kept");
		/* Refreshing the top keeps every slice that did not change. */
		c = refresh_top(&ch, old, &kept, &fetched, NULL);
		CHECK(kept == ordo_model_count(old) - 1 &&
		      fetched == 1 + first0 - m->first,
		      "%u slices kept, %u read", kept, fetched);
		if (c)
			check_same(m, c, &s);
		ordo_model_free(c);
	}
	printf("# head: %u splits, first sub-model %u -> %u, top_gen %u, %u "
	       "TT growths, widest window %.2f leaves, %u full trainings "
	       "needed\n", r.splits, first0, m ? m->first : 0,
	       m ? m->top_gen : 0, r.grows, r.max_err / 256.0, r.full);
	if (m)
		chunks_free(&ch);
	ordo_model_free(old);
	ordo_model_free(m);
	sim_free(&s);
	tap("a growing head is cut and extended in front within the epoch");
}

/*
 * A hotspot: keys land in random order in a narrow range inside one
 * sub-model's domain, far from either end of the top level.  Its splits
 * crowd fences into shared cells until one line cannot keep them apart;
 * retraining then cuts the sub-model as a full training would and moves
 * the sub-models on one side to other indices for the pieces.  No
 * split calls for a full training; an image of the older top level
 * refuses the patch (-EXDEV) untouched, and the new image loads as the
 * trainer's model; a client that held the first top level keeps every
 * slice but the hot sub-model's, found by pivot at their new indices.
 */
static void test_middle_cut(void)
{
	const u32 bulk = 20000, inserts = 6000;
	struct ordo_model_params p;
	struct ordo_model *m, *c, *old = NULL;
	struct ordo_model_health h;
	struct chunks ch;
	struct sim s;
	u32 i, sp, sub, nsub0 = 0, first0 = 0, splits = 0, full = 0;
	u32 rewrites = 0, kept = 0, fetched = 0, moved = 0;
	u64 lo, hi = 0, x;
	int err;

	m = train_small(&s, &p, bulk, 1ULL << 40, 9);
	if (!m) {
		sim_free(&s);
		tap("a hotspot's sub-model is cut in the middle of the top level");
		return;
	}
	nsub0 = m->nsub;
	first0 = m->first;
	chunks_init(&ch, 4 * ordo_region_bytes(m), 12);
	CHECK(!ordo_region_write(&ch.rg, m), "write");
	CHECK(!ordo_model_load_image(&old, chunks_flat(&ch), ch.size, true),
	      "first image");
	sub = m->first + ordo_model_count(m) / 2;
	ordo_model_sub_domain(m, sub, &lo, &hi);
	x = lo + (hi - lo) / 2;
	for (i = 0; i < inserts; i++) {
		if (!sim_insert(&s, x + rnd() % (1ULL << 20), &sp))
			continue;
		splits++;
		sub = ordo_model_sub_of(m, s.lv[sp + 1].low);
		{
			struct ordo_leaf_set set = sim_domain(&s, m, sub);
			u32 renum = m->renum_gen;

			err = ordo_model_retrain_sub(m, sub, &set, &p);
			CHECK(!err, "retrain after split %u: %d", splits, err);
			if (!err && m->renum_gen != renum) {
				u8 *before = malloc(ch.size);

				memcpy(before, chunks_flat(&ch), ch.size);
				CHECK(ordo_region_patch(&ch.rg, m, sub) ==
				      -EXDEV, "patched a renumbered top level");
				CHECK(!memcmp(before, chunks_flat(&ch),
					      ch.size), "refused patch wrote");
				free(before);
				CHECK(!ordo_region_write(&ch.rg, m), "rewrite");
				rewrites++;
			} else if (!err) {
				CHECK(!ordo_region_patch(&ch.rg, m, sub),
				      "patch");
			}
		}
		health_after_round(m, &ch, &p, &h);
		full += ordo_model_needs_rebuild(&h, &p);
	}
	CHECK(rewrites > 0 && m->nsub - m->first > nsub0 - first0,
	      "never cut: %u sub-models", ordo_model_count(m));
	CHECK(!full, "%u of %u splits called for a full training", full,
	      splits);
	check_model(m, &s, 1000);
	check_image(&ch, m, &s, "cuts");
	if (old) {
		c = refresh_top(&ch, old, &kept, &fetched, &moved);
		CHECK(kept == ordo_model_count(old) - 1 && moved &&
		      fetched == ordo_model_count(m) - kept,
		      "%u slices kept (%u moved), %u read", kept, moved,
		      fetched);
		if (c)
			check_same(m, c, &s);
		ordo_model_free(c);
	}
	printf("# middle: %u splits, sub-models %u -> %u (first %u -> %u), "
	       "%u new images, %u full trainings needed, %u slices kept "
	       "(%u at new indices), %u read\n", splits, nsub0 - first0,
	       ordo_model_count(m), first0, m->first, rewrites, full, kept,
	       moved, fetched);
	chunks_free(&ch);
	ordo_model_free(old);
	ordo_model_free(m);
	sim_free(&s);
	tap("a hotspot's sub-model is cut in the middle of the top level");
}

/*
 * The trainer after a retirement: the sub-model holding @key, widened by
 * a neighbour while a leaf reaches across a pivot at either end of the
 * leaves taken (the snapshot starts at the leaf holding the range's
 * first key and ends with the last leaf starting before its end), then
 * retrained alone or merged.  *@joined: sub-models dropped by the merge.
 */
static int retrain_widened(struct sim *s, struct ordo_model *m,
			   const struct ordo_model_params *p, u64 key,
			   struct chunks *ch, u32 *joined)
{
	u32 a = ordo_model_sub_of(m, key), b = a, i, j;
	struct ordo_leaf_set set;
	u64 lo, end = 0, x;
	bool bounded;
	int err;

	for (;;) {
		ordo_model_sub_domain(m, a, &lo, &x);
		bounded = ordo_model_sub_domain(m, b, &x, &end);
		i = sim_find(s, lo);
		j = bounded ? sim_find(s, end - 1) + 1 : s->n;
		if (s->lv[i].low < lo && a > m->first)
			a--;
		else if (bounded && ((s->lv[j - 1].flags & ORDO_LEAF_LAST) ||
				     s->lv[j - 1].high > end))
			b++;
		else
			break;
	}
	set = sim_set_range(s, i, j);
	*joined = b - a;
	err = a == b ? ordo_model_retrain_sub(m, a, &set, p) :
		       ordo_model_merge_subs(m, a, b, &set, p);
	if (!err && ch)
		err = publish(ch, m, a);
	return err;
}

/* The whole native state of a model, to show an error changed nothing. */
static bool same_state(const struct ordo_model *m, const struct ordo_model *c)
{
	return m->first == c->first && m->nsub == c->nsub &&
	       m->nleaves == c->nleaves && m->top_gen == c->top_gen &&
	       m->renum_gen == c->renum_gen && m->tt_used == c->tt_used &&
	       !memcmp(m->pivots, c->pivots, sizeof(u64) * m->nsub_cap) &&
	       !memcmp(m->subs, c->subs, sizeof(*m->subs) * m->nsub_cap) &&
	       !memcmp(m->meta, c->meta, sizeof(*m->meta) * m->nsub_cap);
}

static struct ordo_model *copy_state(const struct ordo_model *m)
{
	struct ordo_model *c = malloc(sizeof(*c));

	*c = *m;
	c->pivots = malloc(sizeof(u64) * m->nsub_cap);
	c->subs = malloc(sizeof(*m->subs) * m->nsub_cap);
	c->meta = malloc(sizeof(*m->meta) * m->nsub_cap);
	memcpy(c->pivots, m->pivots, sizeof(u64) * m->nsub_cap);
	memcpy(c->subs, m->subs, sizeof(*m->subs) * m->nsub_cap);
	memcpy(c->meta, m->meta, sizeof(*m->meta) * m->nsub_cap);
	return c;
}

static void free_state(struct ordo_model *c)
{
	free(c->pivots);
	free(c->subs);
	free(c->meta);
	free(c);
}

/*
 * Deletes empty leaves at sub-model boundaries and the tree retires
 * them: the first leaf of a sub-model to its left neighbour, the last
 * one to its right neighbour, every leaf of a sub-model one by one, or
 * its first and last leaves (three sub-models merge).
 * A leaf then reaches across a pivot, so neither domain can be retrained
 * alone (-ERANGE); the sub-models are merged instead: no full training
 * is called for, every key stays exact, each merge writes a new image
 * that loads as the trainer's model, and a client keeps the slices of
 * the other sub-models.  A merge that fails (no TT room, bad arguments,
 * leaves that do not tile the union) changes nothing.
 */
static void test_retired_boundary(void)
{
	const u32 rounds = 30;
	struct ordo_model_params p, q;
	struct ordo_model *m, *c, *old = NULL, *st;
	struct ordo_model_health h;
	struct ordo_leaf_set set;
	struct chunks ch;
	struct sim s;
	u32 r, i, sub, n, nsub0, joined, merges = 0, full = 0, widest = 0;
	u32 kept = 0, fetched = 0;
	u64 lo, hi = 0, x;
	int err;

	m = train_small(&s, &p, 20000, 1ULL << 40, 9);
	if (!m) {
		sim_free(&s);
		tap("a leaf retired at a sub-model boundary merges sub-models");
		return;
	}
	nsub0 = ordo_model_count(m);
	chunks_init(&ch, 4 * ordo_region_bytes(m), 12);
	CHECK(!ordo_region_write(&ch.rg, m), "write");
	CHECK(!ordo_model_load_image(&old, chunks_flat(&ch), ch.size, true),
	      "first image");
	/* Failed merges change nothing. */
	st = copy_state(m);
	sub = m->first + ordo_model_count(m) / 2;
	set = sim_domain(&s, m, sub);
	CHECK(ordo_model_merge_subs(m, sub, sub, &set, &p) == -EINVAL &&
	      ordo_model_merge_subs(m, m->nsub - 1, m->nsub, &set, &p) ==
	      -EINVAL, "bad indices");
	CHECK(ordo_model_merge_subs(m, sub, sub + 1, &set, &p) == -ERANGE,
	      "leaves of one domain merged as two");
	ordo_model_sub_domain(m, sub, &lo, &x);
	CHECK(ordo_model_sub_domain(m, sub + 1, &x, &hi), "sub-model %u last",
	      sub + 1);
	set = sim_set_range(&s, sim_find(&s, lo), sim_find(&s, hi));
	q = p;
	q.expand_err_x = 0;	/* no cut: the union needs slots */
	m->tt_cap = m->tt_used;
	CHECK(ordo_model_merge_subs(m, sub, sub + 1, &set, &q) == -ENOSPC,
	      "merged without TT room");
	m->tt_cap = st->tt_cap;
	CHECK(same_state(m, st), "a failed merge changed the model");
	free_state(st);

	for (r = 0; r < rounds && ordo_model_count(m) > 4; r++) {
		sub = m->first + 1 + rnd() % (ordo_model_count(m) - 2);
		ordo_model_sub_domain(m, sub, &lo, &hi);
		i = sim_find(&s, lo);
		n = sim_find(&s, hi) - i;	/* the sub-model's leaves */
		if (r % 4 == 0 || i == 1 || (r % 4 == 3 && n < 2)) {
			sim_retire(&s, i, true);
		} else if (r % 4 == 1) {
			sim_retire(&s, i - 1, false);
		} else if (r % 4 == 2) {
			for (; n; n--)
				sim_retire(&s, i, true);
		} else {	/* across both of its pivots: three merge */
			sim_retire(&s, i, true);
			sim_retire(&s, sim_find(&s, hi) - 1, false);
		}
		set = sim_domain(&s, m, sub);
		CHECK(ordo_model_retrain_sub(m, sub, &set, &p) == -ERANGE,
		      "round %u: sub-model %u retrained alone", r, sub);
		/* The trainer queues both sides of the retired fence. */
		err = retrain_widened(&s, m, &p, lo, &ch, &joined);
		CHECK(!err && joined, "round %u: merge %d", r, err);
		merges += joined;
		widest = max(widest, joined + 1);
		err = retrain_widened(&s, m, &p, lo - 1, &ch, &joined);
		CHECK(!err && !joined, "round %u: left side %d", r, err);
		if (!r && old) {	/* all but the two merged slices kept */
			c = refresh_top(&ch, old, &kept, &fetched, NULL);
			CHECK(kept == ordo_model_count(old) - 2 &&
			      kept + fetched == ordo_model_count(m),
			      "%u slices kept, %u read", kept, fetched);
			if (c)
				check_same(m, c, &s);
			ordo_model_free(c);
		}
		health_after_round(m, &ch, &p, &h);
		/* The trainer's health check after each round. */
		full += ordo_model_needs_rebuild(&h, &p) ||
			ordo_model_needs_expand(&h, &p) ||
			ordo_model_needs_shrink(&h, &p);
	}
	CHECK(!full, "%u of %u merges called for a full training", full,
	      rounds);
	CHECK(widest >= 3, "at most %u sub-models merged at once", widest);
	check_model(m, &s, 1000);
	check_image(&ch, m, &s, "merges");

	printf("# retired: %u rounds, %u sub-models merged away (up to %u "
	       "at once), sub-models %u -> %u, %u full trainings needed; "
	       "after the first, %u slices kept, %u read\n", rounds, merges,
	       widest, nsub0, ordo_model_count(m), full, kept, fetched);
	chunks_free(&ch);
	ordo_model_free(old);
	ordo_model_free(m);
	sim_free(&s);
	tap("a leaf retired at a sub-model boundary merges sub-models");
}

static void test_enospc(void)
{
	struct ordo_model_params p;
	struct ordo_model_health h;
	struct ordo_model *m;
	struct sim s;
	int err = 0;
	u32 i, sp;

	sim_init(&s, 4);
	sim_fill(&s, D_DENSE, 400);
	ordo_model_params_default(&p);
	p.leaves_per_sub = 0;
	p.eps = 256;
	p.tt_slack_pct = 0;
	p.tt_spare_pct = 10;
	m = train(&s, &p, 2);
	for (i = 0; m && i < 100000 && !err; i++) {
		struct ordo_leaf_set set;
		u32 sub, used = m->tt_used, ntt;

		if (!sim_insert(&s, 1000 + rnd() % 800, &sp))
			continue;
		sub = ordo_model_sub_of(m, s.lv[sp].low);
		ntt = m->subs[sub].ntt;
		set = sim_domain(&s, m, sub);
		err = ordo_model_retrain_sub(m, sub, &set, &p);
		if (err) {
			CHECK(err == -ENOSPC, "err %d", err);
			CHECK(m->tt_used == used && m->subs[sub].ntt == ntt,
			      "model changed by a failed retrain");
			/* The trainer trains anew on any failed retraining. */
			ordo_model_health(m, &h);
			CHECK(h.tt_used == used, "health");
		}
	}
	CHECK(err == -ENOSPC, "never ran out of TT space");
	ordo_model_free(m);
	sim_free(&s);
	tap("a full TT area fails retraining with -ENOSPC, model unchanged");
}

static void test_stale(void)
{
	struct ordo_model_params p;
	u64 matched = 0, mismatched = 0;
	u32 d, i, j, k, sp;

	for (d = 0; d < D_NDIST; d++) {
		struct ordo_model *m;
		struct sim s;
		u32 *byno;

		sim_init(&s, 8);
		sim_fill(&s, d, 3000);
		ordo_model_params_default(&p);
		p.leaves_per_sub = 4;
		m = train(&s, &p, 13);
		if (!m) {
			sim_free(&s);
			continue;
		}
		for (i = 0; i < 3000; i++)
			sim_insert(&s, gen_key(d, rnd() % 12000), &sp);
		byno = calloc(s.next_no, sizeof(u32));
		for (i = 0; i < s.n; i++)
			byno[s.lv[i].leaf] = i;
		for (i = 0; i < 20000 + s.n; i++) {
			struct ordo_pred pr;
			const struct ordo_leaf_info *l;
			u64 key;

			if (i < s.n)
				key = s.lv[i].low;
			else if (i < 2 * s.n && s.lv[i - s.n].count)
				key = s.k[(size_t)(i - s.n) * s.slots];
			else
				key = gen_key(d, rnd() % 12000);
			if (ordo_model_lookup(m, key, &pr))
				continue;
			/* What a client does: accept a leaf by its fences. */
			for (k = 0, l = NULL; k < pr.ncand && !l; k++) {
				l = &s.lv[byno[ordo_pred_ent(&pr, k).leaf]];
				if (key < l->low || (!(l->flags & ORDO_LEAF_LAST) &&
						     key >= l->high))
					l = NULL;
			}
			if (!l) {
				mismatched++;
				continue;
			}
			matched++;
			j = sim_find(&s, key);
			CHECK(&s.lv[j] == l, "stale TT names leaf %u for %llx",
			      l->leaf, (unsigned long long)key);
		}
		free(byno);
		ordo_model_free(m);
		sim_free(&s);
	}
	CHECK(matched && mismatched, "%llu/%llu", (unsigned long long)matched,
	      (unsigned long long)mismatched);
	printf("# stale model: %llu lookups still answered, %llu sent back\n",
	       (unsigned long long)matched, (unsigned long long)mismatched);
	tap("stale model: a candidate whose fences hold the key is its leaf");
}

/* ---- hostile bytes ------------------------------------------------------ */

/*
 * A model that loads is usable: every lookup stays inside its window and
 * its TT, with at least one candidate.  (Whether its codes lie only the
 * leaves' own fences can tell.)  Keys: both ends, random ones, and each
 * pivot and the key just below it.
 */
static void check_sane(const struct ordo_model *m)
{
	u32 i;

	for (i = 0; i < 400; i++) {
		const struct ordo_sub *s;
		struct ordo_pred p;
		u64 key = i < 2 ? (i ? U64_MAX : 0) : rnd();

		if (i >= 200)
			key = m->pivots[m->first +
					(i / 2) % ordo_model_count(m)] - (i & 1);
		if (ordo_model_lookup(m, key, &p))
			continue;
		s = &m->subs[p.sub];
		CHECK(ordo_model_has_sub(m, p.sub) && p.ncand >= 1 &&
		      p.lln + p.ncand <= s->ntt &&
		      p.win_lo <= p.lln && p.lln + p.ncand - 1 <= p.win_hi &&
		      p.m == m &&
		      s->tt + s->ntt <= m->tt_cap,
		      "lookup out of range");
	}
}

static struct ordo_model *small_model(struct sim *s, struct chunks *ch,
				      u64 *live_end)
{
	struct ordo_model_params p;
	struct ordo_model *m;
	u32 i;

	sim_init(s, 4);
	sim_fill(s, D_UNIFORM, 60);
	ordo_model_params_default(&p);
	p.leaves_per_sub = 3;
	m = train(s, &p, 77);
	chunks_init(ch, ordo_region_bytes(m), 12);
	CHECK(!ordo_region_write(&ch->rg, m), "write");
	chunks_flat(ch);
	*live_end = 0;
	for (i = m->first; i < m->nsub; i++)
		*live_end = max(*live_end, ordo_model_tt_off(m->nsub_cap) +
				(u64)ORDO_TT_ENTRY_SIZE *
				(m->subs[i].tt + m->subs[i].ntt));
	return m;
}

/* Put a little-endian 64-bit word at byte @off of @b. */
static void put64(u8 *b, size_t off, u64 w)
{
	for (int i = 0; i < 8; i++)
		b[off + i] = (u8)(w >> (8 * i));
}

/*
 * The test vector of Documentation/model.rst ("Checksums"), byte for
 * byte: its two sums are what the code computes, and the image loads.
 */
#define DOC_TOP_SUM	0x753d770b4e387764ULL
#define DOC_SUB_SUM	0x6d918e786c173a51ULL

static void doc_image(u8 *img)
{
	put64(img, 0, 0x008000074c444d4fULL);
	put64(img, 8, 0x0000000800000020ULL);
	put64(img, 16, 1);
	put64(img, 24, 0x108);
	put64(img, 32, 0x80);
	put64(img, 40, 0xc0);
	put64(img, 48, 0x100);
	put64(img, 56, 0x0000000100000001ULL);
	put64(img, 64, 0x0000001000000001ULL);
	put64(img, 88, 1);			/* nsub_cap 1, top_gen 0 */
	put64(img, 120, DOC_TOP_SUM);
	put64(img, 200, 0);			/* slope 0, tt_start 0 */
	put64(img, 208, 1);			/* ntt 1, gen 0 */
	put64(img, 216, 0x00000010ffffffffULL);	/* errors 0xffff, grid 16 */
	put64(img, 192, DOC_SUB_SUM);		/* sum */
	/* leaf 1; code 2^32 >> 18 (U = O = 2^32, s = 18), tie flag, inca 1 */
	put64(img, 256, 0x0180400000000001ULL);
}

static void test_doc_vector(void)
{
	static u8 img[264], rgn[64 + 264];
	struct ordo_model *m = NULL;
	struct ordo_pred p;
	int err;

	doc_image(img);
	CHECK(ordo_model_top_checksum(img, img + 128, 0, 1) ==
	      DOC_TOP_SUM, "top_sum %llx",
	      (unsigned long long)ordo_model_top_checksum(img, img + 128, 0,
							  1));
	CHECK(ordo_sub_checksum(1, 0, 0, img + 192, img + 256, 1) ==
	      DOC_SUB_SUM, "sum %llx",
	      (unsigned long long)ordo_sub_checksum(1, 0, 0, img + 192,
						    img + 256, 1));
	err = ordo_model_from_image(&m, img, sizeof(img));
	CHECK(!err, "from_image %d", err);
	if (!err) {
		CHECK(!ordo_model_lookup(m, 12345, &p) &&
		      ordo_pred_ent(&p, 0).leaf == 1,
		      "lookup");
		ordo_model_free(m);
	}
	/* The region of the same vector: the anchor, the image at 64. */
	memset(rgn, 0, sizeof(rgn));
	put64(rgn, 0, 0x0040000741444d4fULL);
	put64(rgn, 16, 64);
	put64(rgn, 24, 1);
	memcpy(rgn + 64, img, sizeof(img));
	err = ordo_model_from_region(&m, rgn, sizeof(rgn));
	CHECK(!err, "from_region %d", err);
	if (!err)
		ordo_model_free(m);
	put64(rgn, 24, 2);	/* the anchor's epoch is not the image's */
	err = ordo_model_from_region(&m, rgn, sizeof(rgn));
	CHECK(err == -EBADMSG, "epoch mismatch: %d", err);
	put64(rgn, 16, 0);
	put64(rgn, 24, 0);	/* nothing published */
	err = ordo_model_from_region(&m, rgn, sizeof(rgn));
	CHECK(err == -ENODATA, "no image: %d", err);
	put64(rgn, 16, 96);	/* not 64-byte aligned */
	put64(rgn, 24, 1);
	err = ordo_model_from_region(&m, rgn, sizeof(rgn));
	CHECK(err == -EINVAL, "misaligned: %d", err);
	img[120] ^= 1;
	err = ordo_model_from_image(&m, img, sizeof(img));
	CHECK(err == -EBADMSG, "flipped top_sum: %d", err);
	if (!err)
		ordo_model_free(m);
	tap("doc_test_vector");
}

/* F of Documentation/model.rst, with a 128-bit product and a compare. */
static u64 ref_sat(u64 dx, u64 mant, u32 shift, u32 ntt, u32 over)
{
	unsigned __int128 v = ((unsigned __int128)dx * mant) >> shift;
	u64 cap = (u64)ntt << ORDO_MODEL_POS_SHIFT;

	cap += over == ORDO_MODEL_ERR_UNBOUNDED ? cap : (u64)over << 24;
	return v > cap ? cap : (u64)v;
}

/*
 * F is the exact product shifted right, saturated past the last fence: it
 * never wraps, so it is monotone for any slope.  Random slopes (steep ones
 * included) against the reference at sorted keys; then the test vector's
 * image with a slope whose product passes 2^64 (a wrapping F would put the
 * end back inside its bounds and run far ahead between the fences): it
 * loads, and every key is predicted truly.
 */
static void test_saturation(void)
{
	const u64 slope = (55ULL << ORDO_MODEL_MANT_BITS) | 0x800001;
	struct ordo_model *m = NULL;
	static u8 img[264];
	u32 i, k;
	int err;

	for (i = 0; i < 20000; i++) {
		struct ordo_sub s = {
			.ntt = 1 + rnd() % ORDO_MODEL_MAX_SUB_LEAVES,
			.over = rnd() % (ORDO_MODEL_ERR_UNBOUNDED + 1),
		};
		u64 prev = 0, dx = 0;

		ordo_sub_set_slope(&s, rnd() & (ORDO_MODEL_MANT_MASK >>
						(rnd() % 24)),
				   rnd() % (ORDO_MODEL_SHIFT_MAX + 1));
		for (k = 0; k < 16; k++) {
			u64 f;

			dx += rnd() >> (rnd() % 64) >> 4;
			f = ordo_sub_pos(&s, dx);
			CHECK(f == ref_sat(dx, ordo_sub_mant(&s),
					   ordo_sub_shift(&s), s.ntt, s.over) &&
			      f >= prev, "F(%llx) mant %llx shift %u",
			      (unsigned long long)dx,
			      (unsigned long long)ordo_sub_mant(&s),
			      ordo_sub_shift(&s));
			prev = f;
		}
	}
	doc_image(img);
	put64(img, 200, slope);	/* tt_start 0 */
	put64(img, 216, 16ULL << 32);	/* over 0, under 0, grid 16 */
	put64(img, 256, 0x0180000000000001ULL);	/* code U >> s = 0 */
	put64(img, 192, ordo_sub_checksum(1, 0, 0, img + 192, img + 256, 1));
	err = ordo_model_from_image(&m, img, sizeof(img));
	CHECK(!err, "steep slope: %d", err);
	if (m) {
		struct ordo_sub *s = &m->subs[0];

		CHECK(ordo_sub_pos(s, U64_MAX) == 1ULL << 32 &&
		      ordo_sub_pos(s, 1ULL << 63) == 1ULL << 32,
		      "F saturates at (ntt << 32) + O");
		check_sane(m);
		ordo_model_free(m);
	}
	tap("F saturates past the last fence: monotone for any slope");
}

static void test_garbage(void)
{
	u8 *buf = malloc(1 << 16);
	struct ordo_model *c;
	u32 i, j, len;
	int err;

	for (i = 0; i < 6000; i++) {
		len = rnd() % (1 << 16);
		for (j = 0; j < len; j += 8) {
			u64 w = rnd();

			memcpy(buf + j, &w, min_t(u32, 8, len - j));
		}
		if (i & 1 && len >= ORDO_MODEL_HDR_SIZE) {
			/* Plausible header, garbage elsewhere. */
			struct ordo_model_hdr *h = (void *)buf;
			u32 nsub = rnd() % 40 + 1, first = rnd() % nsub;

			h->magic = cpu_to_le32(ORDO_MODEL_MAGIC);
			h->version = cpu_to_le16(ORDO_MODEL_VERSION);
			h->hdr_size = cpu_to_le16(ORDO_MODEL_HDR_SIZE);
			h->desc_size = cpu_to_le32(ORDO_MODEL_DESC_SIZE);
			h->tt_entry_size = cpu_to_le32(ORDO_TT_ENTRY_SIZE);
			h->nsub = cpu_to_le32(nsub);
			h->nsub_cap = cpu_to_le32(nsub);
			h->top_gen = 0;
			h->sub_first = cpu_to_le32(first);
			h->reserved1 = 0;
			h->tt_cap = cpu_to_le32(nsub + rnd() % 100);
			h->nleaves = cpu_to_le32(nsub - first);
			h->flags = 0;
			memset(h->reserved, 0, sizeof(h->reserved));
			h->piv_off = cpu_to_le64(ORDO_MODEL_HDR_SIZE);
			h->desc_off = cpu_to_le64(ordo_model_desc_off(nsub));
			h->tt_off = cpu_to_le64(ordo_model_tt_off(nsub));
			h->region_size = cpu_to_le64(ordo_model_region_size(
				nsub, le32_to_cpu(h->tt_cap)));
			/* Valid pivots: garbage descriptors and slices. */
			if (i & 2 && len >= ORDO_MODEL_HDR_SIZE + 8 * nsub) {
				__le64 *piv = (void *)(buf + ORDO_MODEL_HDR_SIZE);

				/* Any first pivot: keys below it go there. */
				for (j = 0; j < nsub; j++)
					piv[j] = cpu_to_le64(((u64)j << 40) +
							     (j == first ?
							      rnd() % 99 : 0));
			}
			h->top_sum = cpu_to_le64(ordo_model_top_checksum(h,
				buf + ORDO_MODEL_HDR_SIZE, min_t(u32, first,
					(len - 128) / 8),
				min_t(u32, nsub, (len - 128) / 8)));
		}
		err = ordo_model_from_image(&c, buf, len);
		if (!err) {
			check_sane(c);
			ordo_model_free(c);
		}
	}
	free(buf);
	tap("random garbage is refused or yields an in-range model");
}

static void test_truncated(void)
{
	struct ordo_model *m, *c;
	struct chunks ch;
	struct sim s;
	u64 live, len;
	int err;

	m = small_model(&s, &ch, &live);
	for (len = 0; m && len <= ch.size; len++) {
		err = ordo_model_from_image(&c, ch.flat, len);
		if (len < live) {
			CHECK(err, "truncated at %llu accepted",
			      (unsigned long long)len);
		}
		if (!err) {
			check_same_n(m, c, &s, 20);
			ordo_model_free(c);
		}
	}
	chunks_free(&ch);
	ordo_model_free(m);
	sim_free(&s);
	tap("truncated images are refused");
}

static void test_bitflip(void)
{
	struct ordo_model *m, *c;
	struct chunks ch;
	struct sim s;
	u64 live, bit, pad_lo, pad_hi, pad2_lo, pad2_hi, head_hi, head2_hi;
	int err;

	m = small_model(&s, &ch, &live);
	/* Room in front of the first sub-model and behind the last: unused. */
	head_hi = ORDO_MODEL_HDR_SIZE + 8ULL * m->first;
	pad_lo = ORDO_MODEL_HDR_SIZE + 8ULL * m->nsub;
	pad_hi = ordo_model_desc_off(m->nsub_cap);
	head2_hi = pad_hi + 32ULL * m->first;
	pad2_lo = pad_hi + 32ULL * m->nsub;
	pad2_hi = ordo_model_tt_off(m->nsub_cap);
	for (bit = 0; m && bit < live * 8; bit++) {
		u64 byte = bit / 8;
		bool unused = (byte >= ORDO_MODEL_HDR_SIZE && byte < head_hi) ||
			      (byte >= pad_lo && byte < pad_hi) ||
			      (byte >= pad_hi && byte < head2_hi) ||
			      (byte >= pad2_lo && byte < pad2_hi);
		u32 i;

		/* Slack slots of the TT are not part of any slice. */
		if (byte >= pad2_hi) {
			u64 e = (byte - pad2_hi) / ORDO_TT_ENTRY_SIZE;

			unused = true;
			for (i = m->first; i < m->nsub; i++)
				if (e >= m->subs[i].tt &&
				    e < m->subs[i].tt + m->subs[i].ntt)
					unused = false;
		}
		ch.flat[byte] ^= 1 << (bit % 8);
		err = ordo_model_from_image(&c, ch.flat, ch.size);
		ch.flat[byte] ^= 1 << (bit % 8);
		if (!unused)
			CHECK(err, "flip of bit %llu accepted",
			      (unsigned long long)bit);
		if (!err) {
			check_same_n(m, c, &s, 20);
			ordo_model_free(c);
		}
	}
	chunks_free(&ch);
	ordo_model_free(m);
	sim_free(&s);
	tap("every single bit flip of live bytes is refused");
}

/* Re-seal a descriptor after tampering, as a hostile server could. */
static void reseal(u8 *img, const struct ordo_model *m, u32 sub)
{
	struct ordo_model_layout lay;
	u8 *d;
	u64 off, n;

	if (ordo_model_parse_hdr(img, ORDO_MODEL_HDR_SIZE, &lay))
		return;
	d = img + lay.desc_off + ORDO_MODEL_DESC_SIZE * sub;
	if (ordo_model_desc_slice(&lay, d, &off, &n))
		return;
	((struct ordo_model_desc *)d)->sum =
		cpu_to_le64(ordo_sub_checksum(m->epoch, sub, m->pivots[sub], d,
					      img + off, n / ORDO_TT_ENTRY_SIZE));
}

/*
 * A packed copy's entries take the fewest bits its leaf numbers need: a
 * slice whose leaf numbers need more (the store's node count passed a
 * power of two) widens every entry, and a slice adopted from a copy of
 * another width is rewritten entry by entry.
 */
static void test_packed_widths(void)
{
	static const u32 big[] = { 0x1234, 0x123456, 0x12345678 };
	struct ordo_model *m, *o, *c, *u, *w;
	struct ordo_model_params p;
	struct ordo_model_layout lay;
	struct chunks ch;
	struct sim s;
	u32 k, i, sub, was;
	u64 off, n;
	u8 *img, *d;
	__le32 le;

	sim_init(&s, 16);
	sim_fill(&s, D_UNIFORM, 1000);
	ordo_model_params_default(&p);
	p.leaves_per_sub = 8;
	m = train(&s, &p, 7);
	CHECK(m && ordo_model_count(m) >= 4 && leaf_bits_of(m) <= 8,
	      "a model of leaf numbers below 256");
	if (!m || ordo_model_count(m) < 4)
		goto out;
	chunks_init(&ch, ordo_region_bytes(m), 12);
	CHECK(!ordo_region_write(&ch.rg, m), "region_write");
	img = chunks_flat(&ch);
	CHECK(!ordo_model_parse_hdr(img, ORDO_MODEL_HDR_SIZE, &lay), "hdr");
	for (k = 0; k < ARRAY_SIZE(big); k++) {
		o = c = u = w = NULL;
		was = k ? bits_of(big[k - 1]) : leaf_bits_of(m);
		CHECK(!ordo_model_load_image(&o, img, ch.size, true) &&
		      !ordo_model_load_image(&c, img, ch.size, true) &&
		      o->leaf_bits == was, "copies of %u-bit leaves", was);
		if (!o || !c) {
			ordo_model_free(o);
			ordo_model_free(c);
			break;
		}
		/* One slice names a leaf number that needs more bits. */
		sub = m->first + 1 + k;
		d = img + lay.desc_off + ORDO_MODEL_DESC_SIZE * sub;
		CHECK(!ordo_model_desc_slice(&lay, d, &off, &n), "slice");
		le = cpu_to_le32(big[k]);
		memcpy(img + off, &le, sizeof(le));	/* entry 0's leaf */
		reseal(img, m, sub);
		CHECK(!ordo_model_load_sub(c, sub, d, img + off, n) &&
		      c->leaf_bits == bits_of(big[k]), "widened to %u bits",
		      c->leaf_bits);
		CHECK(!ordo_model_load_image(&u, img, ch.size, false),
		      "full copy");
		if (u) {
			CHECK(same_entries(u, c), "entries after widening");
			check_same(u, c, &s);
		}
		check_client_bytes(c, bits_of(big[k]));
		/* A copy of the new width adopts the narrow copy's slices. */
		CHECK(!ordo_model_load_top(&w, img, ch.size) &&
		      !ordo_model_pack(w) &&
		      !ordo_model_load_sub(w, sub, d, img + off, n) &&
		      w->leaf_bits == bits_of(big[k]), "wide copy");
		for (i = m->first; w && i < m->nsub; i++)
			if (i != sub)
				CHECK(!ordo_model_adopt_sub(w, i,
					img + lay.desc_off +
					ORDO_MODEL_DESC_SIZE * i, o),
				      "adopt %u", i);
		if (u && w)
			CHECK(same_entries(u, w), "entries adopted across widths");
		ordo_model_free(o);
		ordo_model_free(c);
		ordo_model_free(u);
		ordo_model_free(w);
	}
	chunks_free(&ch);
out:
	ordo_model_free(m);
	sim_free(&s);
	tap("packed entries widen with the leaf numbers, loaded or adopted");
}

/* A copy of @m's image in @ch, and in it @sub's descriptor and entries. */
static u8 *image_sub(const struct chunks *ch, const struct ordo_model *m,
		     u32 sub, struct ordo_model_desc **d,
		     struct ordo_tt_entry **e)
{
	u8 *img = malloc(ch->size);

	memcpy(img, ch->flat, ch->size);
	*d = (void *)(img + ordo_model_desc_off(m->nsub_cap) +
		      ORDO_MODEL_DESC_SIZE * sub);
	*e = (void *)(img + ordo_model_tt_off(m->nsub_cap) +
		      (u64)ORDO_TT_ENTRY_SIZE * le32_to_cpu((*d)->tt_start));
	return img;
}

static void test_lying_server(void)
{
	struct ordo_model *m, *c;
	struct chunks ch;
	struct sim s;
	u64 live;
	u32 i, refused = 0;
	int err;

	m = small_model(&s, &ch, &live);
	for (i = 0; m && i < 4000; i++) {
		u32 sub = m->first + rnd() % ordo_model_count(m);
		struct ordo_model_desc *d;
		struct ordo_tt_entry *e;
		u8 *img = image_sub(&ch, m, sub, &d, &e);

		switch (rnd() % 7) {
		case 0:
			d->ntt = cpu_to_le32(rnd() % 8);
			break;
		case 1:
			d->tt_start = cpu_to_le32(rnd() % 64);
			break;
		case 2:
			d->slope = cpu_to_le32(rnd());
			break;
		case 3:
			d->err_over = cpu_to_le16(rnd() % 3);
			d->err_under = cpu_to_le16(rnd() % 3);
			break;
		case 4:
			e[rnd() % 3].code_inca = cpu_to_le32(rnd());
			break;
		case 5:
			d->slope = cpu_to_le32(le32_to_cpu(d->slope) ^
					       (1U << (rnd() % 32)));
			break;
		default:
			d->ntt = cpu_to_le32(le32_to_cpu(d->ntt) + 1);
			break;
		}
		reseal(img, m, sub);
		err = ordo_model_from_image(&c, img, ch.size);
		if (err) {
			refused++;
		} else {
			check_sane(c);
			ordo_model_free(c);
		}
		free(img);
	}
	CHECK(refused > 1000, "only %u refused", refused);
	/*
	 * Descriptors with a grid out of range, a nonzero padding byte or
	 * slope bit 31 set; a slice with a code above 2^grid.
	 */
	for (i = 0; m && i < 64; i++) {
		u32 sub = m->first + rnd() % ordo_model_count(m);
		struct ordo_model_desc *d;
		struct ordo_tt_entry *e;
		u8 *img = image_sub(&ch, m, sub, &d, &e);
		u32 ci;

		switch (i % 4) {
		case 0:
			d->grid = rnd() % 2 ? ORDO_MODEL_GRID_MIN - 1 - rnd() %
					      ORDO_MODEL_GRID_MIN :
					      ORDO_MODEL_GRID_MAX + 1 +
					      rnd() % 200;
			break;
		case 1:
			d->zero[rnd() % 3] = 1 + rnd() % 255;
			break;
		case 2:
			d->slope = cpu_to_le32(le32_to_cpu(d->slope) |
					       1U << 31);
			break;
		default:
			e += rnd() % le32_to_cpu(d->ntt);
			ci = le32_to_cpu(e->code_inca) & ~ORDO_TT_CODE_MASK;
			e->code_inca = cpu_to_le32(ci | ORDO_TT_CODE_MASK);
			break;
		}
		reseal(img, m, sub);
		err = ordo_model_from_image(&c, img, ch.size);
		CHECK(err == -EINVAL, "case %u: %d", i % 4, err);
		if (!err)
			ordo_model_free(c);
		free(img);
	}
	chunks_free(&ch);
	ordo_model_free(m);
	sim_free(&s);
	tap("consistent-but-wrong descriptors are refused or stay in range; "
	    "grids out of range, bits that must be zero and codes past the "
	    "grid are refused");
}

/*
 * A code of exactly 2^grid, which the reader allows (G(j) up to ((j << 32)
 * + span) >> s) though a writer makes none with a shift of 32 or less:
 * two leaves, both bounds 3 leaves, grid 2, so span = 7 << 32 and s = 33;
 * leaf 1's code is ((1 << 32) + span) >> 33 = 4.  A packed copy gives the
 * slice one more code bit and reads the same entries and leaves as a
 * full copy, for keys on both sides of the fence.
 */
static void test_wide_codes(void)
{
	static u8 img[272];
	struct ordo_model *full = NULL, *packed = NULL;
	struct ordo_pred a, b;
	u64 k;
	u32 j;
	int err;

	doc_image(img);
	put64(img, 24, sizeof(img));		/* region_size */
	put64(img, 56, 0x0000000200000001ULL);	/* nsub 1, tt_cap 2 */
	put64(img, 64, 0x0000001000000002ULL);	/* nleaves 2, slots 16 */
	put64(img, 120, ordo_model_top_checksum(img, img + 128, 0, 1));
	put64(img, 200, 0x20000001);		/* mant 1, shift 32: F(k) = k */
	put64(img, 208, 2);			/* ntt 2, gen 0 */
	put64(img, 216, 0x0000000203000300ULL);	/* errors 3 leaves, grid 2 */
	put64(img, 256, 0x0080000100000001ULL);	/* leaf 1, code 1, tie */
	put64(img, 264, 0x0000000400000002ULL);	/* leaf 2, code 4 */
	put64(img, 192, ordo_sub_checksum(1, 0, 0, img + 192, img + 256, 2));
	err = ordo_model_load_image(&full, img, sizeof(img), false);
	CHECK(!err, "full copy: %d", err);
	err = ordo_model_load_image(&packed, img, sizeof(img), true);
	CHECK(!err, "packed copy: %d", err);
	if (!full || !packed)
		goto out;
	CHECK(packed->subs[0].wide && packed->subs[0].grid == 2,
	      "wide %u grid %u", packed->subs[0].wide, packed->subs[0].grid);
	for (j = 0; j < 2; j++)
		CHECK(ordo_model_entry(packed, 0, j).leaf ==
		      ordo_model_entry(full, 0, j).leaf &&
		      ordo_model_entry(packed, 0, j).code_inca ==
		      (ordo_model_entry(full, 0, j).code_inca &
		       ~(ORDO_TT_INCA_MASK << ORDO_TT_INCA_SHIFT)), "entry %u", j);
	for (k = 0; k < 6ULL << 32; k += 1ULL << 28) {
		CHECK(!ordo_model_lookup(full, k, &a) &&
		      !ordo_model_lookup(packed, k, &b) && a.lln == b.lln &&
		      a.ncand == b.ncand &&
		      ordo_pred_ent(&a, 0).leaf == ordo_pred_ent(&b, 0).leaf,
		      "key %llx", (unsigned long long)k);
	}
	CHECK(!ordo_model_lookup(packed, 5ULL << 32, &b) &&
	      ordo_pred_ent(&b, 0).leaf == 2, "a key past the fence's cell");
out:
	ordo_model_free(full);
	ordo_model_free(packed);
	tap("a code of 2^grid: packed one bit wider, read as a full copy reads it");
}

/*
 * Double buffering: a full training writes its image where it does not
 * overlap the live one and then moves the anchor.  The live image stays
 * byte for byte the same through the write and the move, so a client
 * holding it keeps loading valid sub-models; the region reads as the old
 * model until the anchor moves and as the new one after.  Images of any
 * sizes placed one after another never overlap their predecessor.
 */
static void test_double_buffer(void)
{
	static const u32 fills[] = { 3000, 12000, 2000, 2500, 40000, 500 };
	struct ordo_model_params p;
	struct ordo_model *m[ARRAY_SIZE(fills)], *c;
	struct chunks ch;
	struct sim s;
	u64 live = 0, live_bytes = 0, total = 64, i, t;
	u8 *before;
	int err;

	/* Placement alone: random sizes, never overlapping, aligned. */
	for (t = 0; t < 100000; t++) {
		u64 bytes = 128 + (rnd() % 100000) * 64 + (rnd() & 63);
		u64 b = ordo_region_place(live, live_bytes, bytes);

		CHECK(b >= ORDO_MODEL_ANCHOR_SIZE && b % ORDO_MODEL_ALIGN == 0 &&
		      (!live || b + bytes <= live || b >= live + live_bytes),
		      "place(%llu, %llu, %llu) = %llu",
		      (unsigned long long)live, (unsigned long long)live_bytes,
		      (unsigned long long)bytes, (unsigned long long)b);
		live = b;
		live_bytes = bytes;
	}

	sim_init(&s, 16);
	ordo_model_params_default(&p);
	p.leaves_per_sub = 8;
	for (i = 0; i < ARRAY_SIZE(fills); i++) {
		sim_fill(&s, D_SKEW, fills[i]);
		m[i] = train(&s, &p, 100 + i);
		total += ordo_region_bytes(m[i]) + 64;
	}
	chunks_init(&ch, total, 12);
	before = malloc(ch.size);
	live = live_bytes = 0;
	for (i = 0; i < ARRAY_SIZE(fills); i++) {
		u64 bytes = ordo_region_bytes(m[i]);

		ch.rg.base = ordo_region_place(live, live_bytes, bytes);
		memcpy(before, chunks_flat(&ch), ch.size);
		CHECK(!ordo_region_write(&ch.rg, m[i]), "write %llu",
		      (unsigned long long)i);
		chunks_flat(&ch);
		if (live) {
			CHECK(!memcmp(before + live, ch.flat + live, live_bytes),
			      "image %llu changed the live one",
			      (unsigned long long)i);
			err = ordo_model_from_region(&c, ch.flat, ch.size);
			CHECK(!err && c->epoch == 100 + i - 1,
			      "before the move: %d", err);
			if (!err)
				ordo_model_free(c);
		}
		CHECK(!ordo_region_publish(&ch.rg, m[i]->epoch), "publish");
		chunks_flat(&ch);
		if (live) {
			CHECK(!memcmp(before + live, ch.flat + live, live_bytes),
			      "the move changed the old image");
			/* A client of the old image still loads it whole. */
			err = ordo_model_from_image(&c, ch.flat + live,
						    live_bytes);
			CHECK(!err && c->epoch == 100 + i - 1,
			      "old image after the move: %d", err);
			if (!err)
				ordo_model_free(c);
		}
		err = ordo_model_from_region(&c, ch.flat, ch.size);
		CHECK(!err && c->epoch == 100 + i, "after the move: %d", err);
		if (!err) {
			check_same_n(m[i], c, &s, 1000);
			ordo_model_free(c);
		}
		live = ch.rg.base;
		live_bytes = bytes;
	}
	CHECK(ordo_region_publish(&ch.rg, 0) == -EINVAL, "epoch 0");
	ch.rg.base = 0;
	CHECK(ordo_region_publish(&ch.rg, 5) == -EINVAL, "over the anchor");
	for (i = 0; i < ARRAY_SIZE(fills); i++)
		ordo_model_free(m[i]);
	free(before);
	chunks_free(&ch);
	sim_free(&s);
	tap("double buffering: the live image is untouched until the anchor moves");
}

/*
 * A reader fetches the descriptor and the slice with separate reads, each
 * possibly torn, while a patch rewrites both: any mix is either one
 * consistent version or refused.
 */
static void patch_race(u32 inserts)
{
	struct ordo_model_params p;
	struct ordo_model *m, *c;
	struct chunks ch;
	struct sim s;
	u8 *old, *new;
	u32 t, sub, sp, i;
	int err;

	sim_init(&s, 4);
	sim_fill(&s, D_UNIFORM, 300);
	ordo_model_params_default(&p);
	p.leaves_per_sub = 6;
	m = train(&s, &p, 21);
	chunks_init(&ch, ordo_region_bytes(m), 12);
	CHECK(!ordo_region_write(&ch.rg, m), "write");
	old = malloc(ch.size);
	new = malloc(ch.size);
	memcpy(old, chunks_flat(&ch), ch.size);
	/* Split leaves of one sub-model, retrain and patch it. */
	sub = m->first + ordo_model_count(m) / 2;
	for (i = 0; i < inserts; i++) {
		u64 lo, hi = U64_MAX;

		ordo_model_sub_domain(m, sub, &lo, &hi);
		sim_insert(&s, lo + rnd() % (hi - lo), &sp);
	}
	{
		struct ordo_leaf_set set = sim_domain(&s, m, sub);

		CHECK(!ordo_model_retrain_sub(m, sub, &set, &p), "retrain");
		CHECK(!ordo_region_patch(&ch.rg, m, sub), "patch");
	}
	memcpy(new, chunks_flat(&ch), ch.size);
	err = ordo_model_load_top(&c, old, ch.size);
	/* Packed, as libordo's: its slices move and repack the same way. */
	if (!err)
		err = ordo_model_pack(c);
	CHECK(!err, "load_top");
	for (t = 0; !err && t < 20000; t++) {
		u64 doff = ordo_model_desc_off(m->nsub_cap) + 32ULL * sub;
		u8 desc[32], *slice;
		struct ordo_model_layout lay;
		u64 off, n, j;
		int e;

		/* Torn descriptor: each 8-byte word from old or new. */
		for (j = 0; j < 4; j++)
			memcpy(desc + 8 * j, (rnd() & 1 ? new : old) + doff + 8 * j,
			       8);
		ordo_model_parse_hdr(old, ch.size, &lay);
		if (ordo_model_desc_slice(&lay, desc, &off, &n))
			continue;
		/* Torn slice: each 8-byte word from old or new. */
		slice = malloc(n);
		for (j = 0; j < n; j += 8)
			memcpy(slice + j, (rnd() % 3 ? new : old) + off + j, 8);
		e = ordo_model_load_sub(c, sub, desc, slice, n);
		if (!e) {
			bool is_new = !memcmp(desc, new + doff, 32) &&
				      !memcmp(slice, new + off, n);
			bool is_old = !memcmp(desc, old + doff, 32) &&
				      !memcmp(slice, old + off, n);

			CHECK(is_new || is_old, "torn read accepted");
		} else {
			CHECK(e == -EBADMSG, "torn read: %d", e);
		}
		free(slice);
	}
	/* Another epoch's descriptor is refused too. */
	if (!err) {
		struct ordo_model *m2 = train(&s, &p, 22);
		struct chunks ch2;
		u64 off, n;
		struct ordo_model_layout lay;
		u8 *img, *d2;

		chunks_init(&ch2, ordo_region_bytes(m2), 12);
		ordo_region_write(&ch2.rg, m2);
		img = chunks_flat(&ch2);
		ordo_model_parse_hdr(img, ch2.size, &lay);
		d2 = img + lay.desc_off + ORDO_MODEL_DESC_SIZE * c->first;
		if (!ordo_model_desc_slice(&lay, d2, &off, &n))
			CHECK(ordo_model_load_sub(c, c->first, d2, img + off,
						  n) == -EBADMSG,
			      "other epoch accepted");
		CHECK(ordo_region_patch(&ch2.rg, m, m->first) == -ESTALE,
		      "patch into another epoch's region");
		chunks_free(&ch2);
		ordo_model_free(m2);
	}
	ordo_model_free(c);
	free(old);
	free(new);
	chunks_free(&ch);
	ordo_model_free(m);
	sim_free(&s);
}

static void test_patch_race(void)
{
	patch_race(2);
	patch_race(40);
	tap("reads racing with a patch are consistent or refused (-EBADMSG)");
}

static void test_leaf_set_check(void)
{
	struct ordo_leaf_info lv[3] = {
		{ .low = 0, .high = 10, .leaf = 1, .count = 2 },
		{ .low = 10, .high = 20, .leaf = 2, .count = 1 },
		{ .low = 20, .leaf = 3, .count = 1, .flags = ORDO_LEAF_LAST },
	};
	u64 keys[4] = { 1, 5, 15, 25 };
	struct ordo_leaf_set set = { lv, keys, 3 };
	struct ordo_model_params p;
	struct ordo_model *m;

	ordo_model_params_default(&p);
	CHECK(!ordo_leaf_set_check(&set, 0, 0, true), "valid set");
	CHECK(ordo_leaf_set_check(&set, 0, 30, false) == -ERANGE, "end");
	CHECK(ordo_leaf_set_check(&set, 5, 0, true) == -ERANGE, "start");
	keys[1] = 11;
	CHECK(ordo_leaf_set_check(&set, 0, 0, true) == -EINVAL, "key > high");
	keys[1] = 1;
	CHECK(ordo_leaf_set_check(&set, 0, 0, true) == -EINVAL, "dup key");
	keys[1] = 5;
	lv[1].low = 11;
	CHECK(ordo_leaf_set_check(&set, 0, 0, true) == -EINVAL, "fence gap");
	CHECK(ordo_model_train(&m, &set, &p, 1) == -EINVAL && !m, "train");
	lv[1].low = 10;
	lv[1].flags = ORDO_LEAF_LAST;
	CHECK(ordo_leaf_set_check(&set, 0, 0, true) == -EINVAL, "early last");
	lv[1].flags = 0x80;
	CHECK(ordo_leaf_set_check(&set, 0, 0, true) == -EINVAL, "flags");
	lv[1].flags = 0;
	set.nleaves = 0;
	CHECK(ordo_leaf_set_check(&set, 0, 0, true) == -EINVAL, "empty");
	set.nleaves = 3;
	CHECK(ordo_model_train(&m, &set, &p, 0) == -EINVAL, "epoch 0");
	tap("inconsistent leaf snapshots are refused");
}

static void test_thresholds(void)
{
	struct ordo_model_params p;
	struct ordo_model_health h = {
		.nsub = 100, .nleaves = 51200, .tt_cap = 100000,
		.tt_used = 60000, .max_sub_leaves = 900, .max_err = 2048,
		.eps = 1024,
	};
	struct ordo_model *m, *m2;
	struct sim s;
	u32 t;

	ordo_model_params_default(&p);
	CHECK(!ordo_model_needs_expand(&h, &p) &&
	      !ordo_model_needs_shrink(&h, &p) &&
	      !ordo_model_needs_rebuild(&h, &p), "healthy model");
	CHECK(ordo_model_resize_target(&h, &p) == 100, "steady target");
	h.nleaves = 2 * 512 * 100 + 1;
	CHECK(ordo_model_needs_expand(&h, &p), "avg leaves per sub");
	CHECK(ordo_model_resize_target(&h, &p) >= 200, "doubling");
	h.nleaves = 51200;
	h.max_err = 4 * 2 * 1024 + 1;
	CHECK(ordo_model_needs_expand(&h, &p), "error growth");
	CHECK(ordo_model_resize_target(&h, &p) == 200, "error growth doubles");
	/* Mostly cuts (1000 sub-models, 100 wanted): one target more. */
	h.nsub = 1000;
	CHECK(ordo_model_resize_target(&h, &p) == 1100, "cut count grows");
	h.nsub = 100;
	h.max_err = 2048;
	h.unbounded = 1;
	CHECK(ordo_model_needs_expand(&h, &p), "unbounded");
	h.unbounded = 0;
	h.max_sub_leaves = 2 * 4096 + 1;
	CHECK(ordo_model_needs_expand(&h, &p), "oversized sub-model");
	h.max_sub_leaves = 900;
	h.nleaves = 100 * 512 / 4 - 1;
	h.trained_leaves = 2 * h.nleaves;
	CHECK(!ordo_model_needs_shrink(&h, &p), "trained that sparse");
	h.trained_leaves = 2 * h.nleaves + 1;
	CHECK(ordo_model_needs_shrink(&h, &p), "shrink");
	t = ordo_model_resize_target(&h, &p);
	CHECK(t < 100 && t >= 1, "shrink target %u", t);
	h.nleaves = 51200;
	h.trained_leaves = 0;
	h.tt_used = 100000 * 7 / 8 + 1;
	CHECK(ordo_model_needs_rebuild(&h, &p) &&
	      !ordo_model_needs_expand(&h, &p), "spare exhausted");
	/* A rebuild after growth short of expansion keeps pace with it. */
	h.trained_leaves = 51200;
	h.nleaves = 76800;
	CHECK(ordo_model_needs_rebuild(&h, &p) &&
	      !ordo_model_needs_expand(&h, &p) &&
	      ordo_model_resize_target(&h, &p) == 150, "rebuild target %u",
	      ordo_model_resize_target(&h, &p));
	h.nleaves = 51200;

	/* Expansion: a complete new model with another count, same input. */
	sim_init(&s, 16);
	sim_fill(&s, D_SKEW, 20000);
	p.leaves_per_sub = 16;
	m = train(&s, &p, 1);
	p.leaves_per_sub = 0;
	p.target_subs = m ? 2 * ordo_model_count(m) : 2;
	m2 = train(&s, &p, 2);
	if (m && m2) {
		u32 n1 = ordo_model_count(m), n2 = ordo_model_count(m2);

		CHECK(n2 > n1 && n2 <= 2 * n1, "expanded %u -> %u", n1, n2);
		CHECK(m2->eps <= m->eps, "eps did not shrink");
		check_model(m2, &s, 1000);
	}
	ordo_model_free(m);
	ordo_model_free(m2);
	sim_free(&s);
	tap("expand/shrink/rebuild thresholds and resized training");
}

static void test_navigation(void)
{
	struct ordo_model_params p;
	struct ordo_model *m;
	struct ordo_tt t;
	struct sim s;
	u32 sub, lln = 0, i = 0;
	int err = 0;

	sim_init(&s, 8);
	sim_fill(&s, D_CLUSTER, 3000);
	ordo_model_params_default(&p);
	p.leaves_per_sub = 5;
	m = train(&s, &p, 4);
	sub = m ? m->first : 0;
	while (m && !err) {
		CHECK(ordo_model_tt(m, sub, lln, &t) && i < s.n &&
		      t.leaf == s.lv[i].leaf, "leaf %u", i);
		i++;
		err = ordo_model_next(m, &sub, &lln);
	}
	CHECK(err == -ENOENT && i == s.n, "walked %u of %u leaves", i, s.n);
	CHECK(!ordo_model_tt(m, m->nsub, 0, &t) &&
	      !ordo_model_tt(m, m->first, 1 << 30, &t) &&
	      (!m->first || !ordo_model_tt(m, m->first - 1, 0, &t)),
	      "out of range");
	ordo_model_free(m);
	sim_free(&s);
	tap("ordo_model_next walks every leaf in key order (SCAN)");
}

/* The last pivot in use <= @key, else the first: by a plain scan. */
static u32 ref_sub_of(const struct ordo_model *m, u64 key)
{
	u32 i = m->first;

	while (i + 1 < m->nsub && m->pivots[i + 1] <= key)
		i++;
	return i;
}

static void check_sub_of(const struct ordo_model *m, u64 key)
{
	u32 got = ordo_model_sub_of(m, key), want = ref_sub_of(m, key);

	CHECK(got == want, "key %llx: sub %u, want %u (%u in use, %u levels)",
	      (unsigned long long)key, got, want, m->nsub - m->first,
	      m->nlevels);
}

static void test_pivot_levels(void)
{
	static const u32 lens[] = { 1, 2, 16, 17, 31, 256, 257, 4095, 4096, 4097,
				    65537, 70001 };
	struct ordo_model_params p;
	struct ordo_model *m, *c;
	struct chunks ch;
	struct sim s;
	u32 li, i;

	for (li = 0; li < ARRAY_SIZE(lens); li++) {
		u32 len = lens[li], first = li % 3 ? rnd() % 100 : 0;
		u64 x = rnd() % 1000;

		m = ordo_model_alloc_cap(first + len, first + len + 8, 0);
		m->first = first;
		for (i = first; i < first + len; i++) {
			m->pivots[i] = x;
			/* Runs of dense pivots between wide gaps. */
			x += 1 + (i % 97 < 90 ? rnd() % 4 : rnd() >> 24);
		}
		CHECK(!ordo_model_index_top(m), "index %u", len);
		CHECK(!m->nlevels == (len <= ORDO_PIVOT_FAN),
		      "%u pivots, %u levels", len, m->nlevels);
		check_sub_of(m, 0);
		check_sub_of(m, U64_MAX);
		for (i = first; i < first + len; i += 1 + len / 4000) {
			check_sub_of(m, m->pivots[i]);
			check_sub_of(m, m->pivots[i] - 1);
			check_sub_of(m, m->pivots[i] + 1);
		}
		check_sub_of(m, m->pivots[first + len - 1]);
		for (i = 0; i < 3000; i++)
			check_sub_of(m, rnd() % (x + 100));
		ordo_model_free(m);
	}

	/* A client copy of a trained model has the levels. */
	sim_init(&s, 8);
	sim_fill(&s, D_CLUSTER, 200000);
	ordo_model_params_default(&p);
	p.leaves_per_sub = 8;
	m = train(&s, &p, 7);
	CHECK(m && m->nsub - m->first > ORDO_PIVOT_FAN * ORDO_PIVOT_FAN &&
	      !m->nlevels, "trainer's copy: %u sub-models, %u levels",
	      m ? m->nsub - m->first : 0, m ? m->nlevels : 0);
	if (m) {
		chunks_init(&ch, ordo_region_bytes(m), 20);
		CHECK(!ordo_region_write(&ch.rg, m), "region write");
		CHECK(!ordo_model_from_image(&c, chunks_flat(&ch), ch.size),
		      "from image");
		CHECK(c->nlevels >= 2, "client copy: %u levels", c->nlevels);
		check_same(m, c, &s);
		for (i = 0; i < 20000; i++)
			check_sub_of(c, i & 1 ? rnd() : s.lv[rnd() % s.n].low);
		ordo_model_free(c);
		chunks_free(&ch);
		ordo_model_free(m);
	}
	sim_free(&s);
	tap("client copies find sub-models through pivot search levels");
}

/* ---- the free-intercept fit against an O(n^2) reference ---------------- */

/* The pivot fence's tolerance (Documentation/model.rst, Segmentation). */
static u64 ref_eps0(u64 eps)
{
	u64 top = (u64)(ORDO_MODEL_ERR_UNBOUNDED - 2) << 24;

	return eps < top ? min(eps, top - eps) : 0;
}

/* A slope bound n/d, d > 0. */
struct ref_frac {
	__int128 n;
	__int128 d;
};

static bool ref_lt(struct ref_frac a, struct ref_frac b)
{
	return a.n * b.d < b.n * a.d;	/* |n| < 2^63, d < 2^64 */
}

/*
 * The cell bound's rise (Documentation/model.rst, Cuts for the fence
 * codes): 16 cells of 2^shift, plus one; shift the code shift of a window
 * 2 * eps + 2/256.
 */
static u64 ref_cell(u64 eps)
{
	u64 span = (1ULL << 32) + 2 * eps + (2ULL << 24);
	int bits = 64 - __builtin_clzll(span);

	return (16ULL << (bits > ORDO_MODEL_GRID_MAX ?
			 bits - ORDO_MODEL_GRID_MAX : 0)) + 1;
}

/*
 * Is there a line within the tolerance of fences [0, m) of @lv (pivot
 * @x0, y_j = j << 32, tolerance eps0 at fence 0 and @eps elsewhere), with
 * a slope s >= 0, passing no more than @eps below the end point (@fx,
 * m << 32), unless !@floor, and rising at least @cell between any two
 * consecutive fences?  Every pair i < j bounds the slope:
 * y_j - y_i - t_i - t_j <= s * (x_j - x_i) <= y_j - y_i + t_i + t_j, the
 * end point bounds it below against every fence, and each consecutive
 * pair by @cell / (x_j - x_{j-1}); a line exists iff the largest lower
 * bound is at most the smallest upper one.  *@lo gets the largest lower
 * bound, *@hi the smallest upper one (d = 0: none).
 */
static bool ref_fits(const struct ordo_leaf_info *lv, u32 m, u64 x0,
		     u64 eps, bool floor, u64 fx, u64 cell,
		     struct ref_frac *lo, struct ref_frac *hi)
{
	struct ref_frac l = { 0, 1 }, h = { 1, 0 }, f;
	__int128 ti, tj, yi, yj, fy = ((__int128)m << 32) - eps;
	u32 i, j;

	for (i = 0; i < m; i++) {
		u64 xi = ordo_model_dx(lv[i].low, x0);

		ti = i ? eps : ref_eps0(eps);
		yi = (__int128)i << 32;
		for (j = i + 1; j < m; j++) {
			u64 dx = ordo_model_dx(lv[j].low, x0) - xi;

			tj = eps;
			yj = (__int128)j << 32;
			f = (struct ref_frac){ yj - yi + ti + tj, dx };
			if (h.d == 0 || ref_lt(f, h))
				h = f;
			f = (struct ref_frac){ yj - yi - ti - tj, dx };
			if (ref_lt(l, f))
				l = f;
			f = (struct ref_frac){ cell, dx };
			if (j == i + 1 && ref_lt(l, f))
				l = f;
		}
		if (!floor)
			continue;
		if (fx == xi) {
			if (fy > yi + ti)
				return false;
			continue;
		}
		f = (struct ref_frac){ fy - yi - ti, fx - xi };
		if (ref_lt(l, f))
			l = f;
	}
	*lo = l;
	*hi = h;
	return h.d == 0 || !ref_lt(h, l);
}

/* Random fences from 0: equal, random, clustered, near 2^64, curved. */
static u32 ref_fences(struct ordo_leaf_info *lv, u32 max)
{
	u32 mode = rnd() % 5, n = 2 + rnd() % (max - 1), i;
	u64 g = 1 + (rnd() >> (rnd() % 64)), x = 0, gap;

	for (i = 0; i < n; i++) {
		memset(&lv[i], 0, sizeof(lv[i]));
		lv[i].low = x;
		lv[i].leaf = i;
		switch (mode) {
		case 0:		/* equal, now and then a jitter */
			gap = g + (rnd() % 4 ? 0 : rnd() % (g / 8 + 1));
			break;
		case 1:
			gap = 1 + (rnd() >> (rnd() % 64));
			break;
		case 2:		/* dense clusters, huge gaps between */
			gap = rnd() % 6 ? 1 + rnd() % 3 : rnd() >> (rnd() % 8);
			break;
		case 3:		/* towards 2^64 */
			gap = (U64_MAX - x) / (1 + rnd() % 3);
			break;
		default:	/* convex or concave: long hulls */
			gap = g + (u64)(g & 1 ? i : n - i) * (i + 1) *
				  (1 + (g >> 20));
			break;
		}
		if (i + 1 < n && (!gap || gap > U64_MAX - x ||
				  (rnd() % 16 == 0 && i + 2 == n)))
			gap = U64_MAX - x;	/* the last leaf at U64_MAX */
		if (i + 1 < n && !gap) {
			n = i + 1;
			break;
		}
		x += gap;
		lv[i].high = x;
	}
	lv[n - 1].flags = ORDO_LEAF_LAST;
	lv[n - 1].high = 0;
	return n;
}

/*
 * Is the slope the middle of [lo, hi] as published: a multiple of u =
 * 2^(32 - shift) (a 24-bit mantissa), the middle one of those in the
 * interval, else the one just above lo?  The interval's ends are known
 * to within f = 2^-shift (the fit's 56-bit fixed point).  long double is
 * ample for that.
 */
static bool slope_mid(const struct ordo_sub *s, struct ref_frac lo,
		      struct ref_frac hi)
{
	long double l = (long double)lo.n / lo.d, h = (long double)hi.n / hi.d;
	int sh = ordo_sub_shift(s);
	long double q = ldexpl(ordo_sub_mant(s), -sh), mid = (l + h) / 2;
	long double f = ldexpl(1, -sh), u = ldexpl(1, 32 - sh);
	long double tiny = ldexpl(mid, -50);

	if (ceill((l - f) / u) * u <= h + f)
		return q >= l - f - tiny && q <= h + f + tiny &&
		       fabsl(q - mid) <= u + f + tiny;
	return q >= l - f - tiny && q <= l + u + f + tiny;
}

/*
 * A full training's grid (Documentation/model.rst, The grid of a slice):
 * consecutive fences at least 16 cells apart; cells that hold a fence at
 * most 1/64 of their leaf's key range on average (the trainer's integer
 * sum may fall short by 2^(shift - 40) a gap), unless the grid is the
 * finest; and one grid bit fewer would break one of the two (the
 * trainer's sum is never more than the exact one).
 */
static void check_grid(const struct ordo_sub *s,
		       const struct ordo_leaf_info *lv, u64 x0)
{
	u64 base, prev = 0, pos, d = ~0ULL;
	long double share = 0;
	u32 sh, j;

	ordo_sub_code_params(s, &base, &sh);
	for (j = 0; j < s->ntt; j++) {
		pos = ordo_sub_pos(s, ordo_model_dx(lv[j].low, x0));
		if (j) {
			d = pos - prev < d ? pos - prev : d;
			share += ldexpl(1, sh) / (pos - prev);
		}
		prev = pos;
	}
	if (s->ntt < 2)
		return;
	share /= s->ntt - 1;
	CHECK(d >= 16ULL << sh, "fences %llu apart, cells of 2^%u",
	      (unsigned long long)d, sh);
	CHECK(s->grid == ORDO_MODEL_GRID_MAX ||
	      share <= ldexpl(1, -6) + ldexpl(1, (int)sh - 40),
	      "tie share %Lg at grid %u", share, s->grid);
	CHECK(s->grid == ORDO_MODEL_GRID_MIN || d < 32ULL << sh ||
	      2 * share > ldexpl(1, -6),
	      "grid %u is not the coarsest (gap %llu, share %Lg)", s->grid,
	      (unsigned long long)d, share);
}

/*
 * Each run a training cuts fits one line at its eps (the O(n^2) reference)
 * that rises a cell between consecutive fences, with a window of at most
 * 2 * eps and the middle slope, its fences in distinct grid cells, and is
 * the longest that does unless the cap ended it: its next fence breaks
 * the hull (counted as longest) or only the cell bound (cut).
 */
static void test_fit_reference(void)
{
	static const u32 epss[] = { 16, 256, 1024, 24576, 40000, 65024, 65534 };
	static const u32 caps[] = { 0, 5, 13 };
	u64 runs = 0, longest = 0, capped = 0, cut = 0;
	struct ordo_leaf_info lv[48];
	struct ordo_model_params p;
	u32 iter, e, c, i, j;

	for (iter = 0; iter < 1500; iter++) {
		u32 n = ref_fences(lv, ARRAY_SIZE(lv));
		struct ordo_leaf_set set = { .leaves = lv, .nleaves = n };

		for (e = 0; e < ARRAY_SIZE(epss); e++)
			for (c = 0; c < ARRAY_SIZE(caps); c++) {
				struct ordo_model *m = NULL;
				struct ordo_model_health h;
				u64 eps = (u64)epss[e] << 24;
				u64 cell = ref_cell(eps);
				u32 a = 0, cap;

				ordo_model_params_default(&p);
				p.leaves_per_sub = 0;
				p.eps = epss[e];
				p.max_sub_leaves = caps[c];
				cap = caps[c] ? caps[c] : ORDO_MODEL_MAX_SUB_LEAVES;
				CHECK(!ordo_model_train(&m, &set, &p, 1),
				      "train");
				if (!m)
					continue;
				ordo_model_health(m, &h);
				CHECK(!h.tied, "set %u eps %u: %u tied",
				      iter, epss[e], h.tied);
				for (i = m->first; i < m->nsub; i++) {
					const struct ordo_sub *s = &m->subs[i];
					u32 b = a + s->ntt;
					u64 x0 = m->pivots[i];
					u64 fx = b < n ? lv[b].low : U64_MAX;
					u64 e0 = ref_eps0(eps) >> 24;
					struct ref_frac lo, hi;
					u64 base, g, prev = 0;
					u32 sh;

					runs++;
					CHECK(ref_fits(lv + a, s->ntt, x0, eps,
						       fx != x0,
						       ordo_model_dx(fx, x0),
						       cell, &lo, &hi),
					      "set %u eps %u cap %u: [%u, %u) "
					      "does not fit", iter, epss[e],
					      caps[c], a, b);
					CHECK(s->over + s->under <= 2 * epss[e] + 2 &&
					      s->over <= epss[e] + e0 + 1 &&
					      s->under <= epss[e] + e0 + 1,
					      "window %u + %u at eps %u",
					      s->over, s->under, epss[e]);
					CHECK(hi.d == 0 || slope_mid(s, lo, hi),
					      "slope %llu >> %u",
					      (unsigned long long)ordo_sub_mant(s),
					      ordo_sub_shift(s));
					ordo_sub_code_params(s, &base, &sh);
					for (j = 0; j < s->ntt; j++) {
						g = (ordo_sub_pos(s,
							ordo_model_dx(lv[a + j].low,
								      x0)) +
						     base) >> sh;
						CHECK(!j || g > prev,
						      "set %u eps %u: fences "
						      "%u, %u share a cell",
						      iter, epss[e], a + j - 1,
						      a + j);
						prev = g;
					}
					check_grid(s, lv + a, x0);
					if (b == n || s->ntt == cap) {
						capped += b < n;
						a = b;
						continue;
					}
					fx = b + 1 < n ? lv[b + 1].low : U64_MAX;
					CHECK(!ref_fits(lv + a, s->ntt + 1, x0,
							eps, true,
							ordo_model_dx(fx, x0),
							cell, &lo, &hi),
					      "set %u eps %u cap %u: [%u, %u) "
					      "could be longer", iter, epss[e],
					      caps[c], a, b);
					if (ref_fits(lv + a, s->ntt + 1, x0, eps,
						     true, ordo_model_dx(fx, x0),
						     0, &lo, &hi))
						cut++;
					else
						longest++;
					a = b;
				}
				CHECK(a == n, "runs cover %u of %u leaves", a, n);
				ordo_model_free(m);
			}
	}
	printf("# %llu runs: %llu longest, %llu at the cap, %llu cut for "
	       "the fence codes, %llu last\n", (unsigned long long)runs,
	       (unsigned long long)longest, (unsigned long long)capped,
	       (unsigned long long)cut,
	       (unsigned long long)(runs - longest - capped - cut));
	CHECK(longest > runs / 10 && capped && cut, "cases not all reached");
	tap("each run fits one free line at eps and is the longest that does");
}

static double now(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec + t.tv_nsec * 1e-9;
}

/* Grid position of logical leaf @j, its entry at tt[j - lo]. */
static u64 pick_grid(const struct ordo_tt *tt, u32 lo, u32 j, u32 sh)
{
	return ordo_tt_code(&tt[j - lo]) + (((u64)j << ORDO_MODEL_POS_SHIFT) >> sh);
}

/* The last leaf of [lo, hi] whose grid position is <= a, by a plain scan. */
static u32 pick_top_ref(const struct ordo_tt *tt, u32 lo, u32 hi, u32 sh,
			u64 a)
{
	u32 j, top = lo;

	for (j = lo; j <= hi; j++)
		if (pick_grid(tt, lo, j, sh) <= a)
			top = j;
	return top;
}

/*
 * ordo_sub_pick() gallops from the window's middle.  Over a non-decreasing
 * TT it must find what a scan finds (the last leaf not above the key,
 * then down through undecided ties); over a scrambled one, some leaf not
 * above the key whose successor is, inside the window.
 */
static void test_pick_search(void)
{
	static struct ordo_tt tt[300];
	u32 iter;

	for (iter = 0; iter < 200000; iter++) {
		struct ordo_sub s = { .ntt = 1 + rnd() % 300 };
		bool scrambled = iter % 4 == 3;
		u32 lo, hi, sh, first, n, top, j, k;
		u64 base, pos, a, g = 0;

		s.over = rnd() % 2048;
		s.under = rnd() % 2048;
		/* a grid of 2^8 cells or more: a leaf is a cell or more */
		s.grid = 8 + rnd() % (ORDO_MODEL_GRID_MAX - 7);
		ordo_sub_code_params(&s, &base, &sh);
		lo = rnd() % s.ntt;
		hi = lo + rnd() % (s.ntt - lo);
		/* Codes whose grid positions rise slowly, with runs of ties. */
		for (j = lo; j <= hi; j++) {
			u64 step = ((u64)1 << ORDO_MODEL_POS_SHIFT) >> sh;
			u64 want = g + (rnd() % 3 ? rnd() % 3 : 0);

			if (scrambled)
				want = rnd() % (step * (hi + 2));
			k = want > ((u64)j << ORDO_MODEL_POS_SHIFT) >> sh ?
			    (u32)min_t(u64, want - (((u64)j <<
						ORDO_MODEL_POS_SHIFT) >> sh),
					ORDO_TT_CODE_MASK) : 0;
			tt[j - lo] = (struct ordo_tt){
				.leaf = j,
				.code_inca = k | (rnd() % 4 ? 0 :
						  ORDO_TT_TIE_RIGHT) };
			g = pick_grid(tt, lo, j, sh);
		}
		pos = rnd() % (((u64)s.ntt + 2) << ORDO_MODEL_POS_SHIFT);
		if (iter % 2)	/* on a fence's cell */
			pos = ((pick_grid(tt, lo, lo + rnd() % (hi - lo + 1),
					  sh) << sh) - base);
		a = (pos + base) >> sh;
		ordo_sub_pick(&s, pos, tt, lo, hi, &first, &n);
		top = first + n - 1;
		CHECK(first >= lo && top <= hi && n >= 1, "%u %u [%u %u]",
		      first, n, lo, hi);
		if (pick_grid(tt, lo, lo, sh) > a) {
			CHECK(first == lo && n == 1, "stale: %u %u", first, n);
			continue;
		}
		CHECK(pick_grid(tt, lo, top, sh) <= a &&
		      (top == hi || pick_grid(tt, lo, top + 1, sh) > a),
		      "top %u of [%u %u]", top, lo, hi);
		if (scrambled)
			continue;
		CHECK(top == pick_top_ref(tt, lo, hi, sh, a), "top %u want %u",
		      top, pick_top_ref(tt, lo, hi, sh, a));
		for (j = top; j > lo && top - j < 64; j--)
			if (pick_grid(tt, lo, j, sh) < a ||
			    (tt[j - lo].code_inca & ORDO_TT_TIE_RIGHT))
				break;
		CHECK(first == j, "first %u want %u", first, j);
	}
	tap("the leaf search from the window's middle finds what a scan finds");
}

#define RUN(t) do {							\
	double t0 = now();						\
	t();								\
	printf("#   %.2fs\n", now() - t0);				\
} while (0)

int main(void)
{
	printf("1..30\n");
	RUN(test_tiny);
	RUN(test_edges);
	RUN(test_distributions);
	RUN(test_roundtrip);
	RUN(test_packed_widths);
	RUN(test_determinism);
	RUN(test_retrain);
	RUN(test_retrain_identity);
	RUN(test_appends);
	RUN(test_tail_extension);
	RUN(test_head_extension);
	RUN(test_middle_cut);
	RUN(test_retired_boundary);
	RUN(test_enospc);
	RUN(test_stale);
	RUN(test_doc_vector);
	RUN(test_saturation);
	RUN(test_wide_codes);
	RUN(test_garbage);
	RUN(test_truncated);
	RUN(test_bitflip);
	RUN(test_lying_server);
	RUN(test_patch_race);
	RUN(test_double_buffer);
	RUN(test_leaf_set_check);
	RUN(test_thresholds);
	RUN(test_navigation);
	RUN(test_pivot_levels);
	RUN(test_pick_search);
	RUN(test_fit_reference);
	printf("# %d passed, %d failed\n", n_tests - n_failed, n_failed);
	return n_failed ? 1 : 0;
}
