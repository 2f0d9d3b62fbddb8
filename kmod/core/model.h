/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ordo learned model: error-bounded linear sub-models over the leaf level
 * plus a translation table (TT) carrying each leaf's number and a code of
 * its low fence's place on the sub-model's line.  One
 * integer-only implementation serves the kernel trainer and the client
 * predictor, so bounds computed by one hold bit for bit in the other.
 *
 * model_predict.c: lookup, navigation, region parsing (client side).
 * model_train.c:   training, per-sub-model retraining, evaluation.
 * model_region.c:  serialization into the model region (kernel side).
 */
#ifndef ORDO_CORE_MODEL_H
#define ORDO_CORE_MODEL_H

#include "compat.h"
#include <linux/ordo_model.h>

/* ordo_leaf_info.flags */
#define ORDO_LEAF_LAST		0x1	/* rightmost leaf: no high fence */

/**
 * struct ordo_leaf_info - one leaf of a consistent leaf-level snapshot
 * @low: inclusive low fence (0 for the leftmost leaf).
 * @high: exclusive high fence; ignored with %ORDO_LEAF_LAST.
 * @leaf: node number.
 * @inca: incarnation.
 * @count: keys in the leaf.
 * @flags: ORDO_LEAF_* bits.
 */
struct ordo_leaf_info {
	u64 low;
	u64 high;
	u32 leaf;
	u32 inca;
	u16 count;
	u16 flags;
};

/**
 * struct ordo_leaf_set - leaves in key order, the trainer's input
 * @leaves: the leaves; consecutive fences must match.
 * @keys: the sorted keys of all leaves, concatenated in leaf order (each
 *	leaf contributes @count keys), or NULL when keys are not needed.
 * @nleaves: number of leaves.
 */
struct ordo_leaf_set {
	const struct ordo_leaf_info *leaves;
	const u64 *keys;
	u32 nleaves;
};

/**
 * struct ordo_model_params - training knobs and resize thresholds
 * @leaf_slots: key slots per leaf (for positions and stats).
 * @leaves_per_sub: target average leaves per sub-model; the trainer picks
 *	the smallest error bound that keeps the sub-model count at or below
 *	nleaves / @leaves_per_sub.  0: use @target_subs or @eps.
 * @target_subs: explicit sub-model count target (overrides
 *	@leaves_per_sub); expansion and shrinking train with a new one.
 * @max_sub_leaves: hard cap on leaves per sub-model at training, which
 *	bounds the cost of retraining one sub-model.
 * @eps: error bound in 1/256 leaf when no count target is set.
 * @tt_slack_pct: spare TT slots per slice, in percent, so that patches
 *	after splits rewrite the slice in place.
 * @tt_spare_pct: spare TT area, in percent of the leaves, for slices
 *	that outgrow their slack.
 * @expand_err_x: expand when a sub-model's window (over + under) grows
 *	beyond this many times the trained window (2 * eps, at least two
 *	leaves); 0 disables the rule.
 */
struct ordo_model_params {
	u32 leaf_slots;
	u32 leaves_per_sub;
	u32 target_subs;
	u32 max_sub_leaves;
	u32 eps;
	u32 tt_slack_pct;
	u32 tt_spare_pct;
	u32 expand_err_x;
};

/**
 * struct ordo_tt - native translation table entry
 * @leaf: node number.
 * @code_inca: fence code (low 24 bits) and incarnation bits, as in the
 *	region.
 */
struct ordo_tt {
	u32 leaf;
	u32 code_inca;
};

#define ORDO_SUB_NO_TT		U32_MAX

/**
 * struct ordo_sub - native sub-model: what a lookup needs (20 bytes, the
 *	bulk of a client copy after the TT)
 * @slope: the descriptor's slope word: mantissa in the low
 *	%ORDO_MODEL_MANT_BITS bits, shift above (ordo_sub_mant(),
 *	ordo_sub_shift()).
 * @tt: index of the first TT entry in the model's TT (a packed copy: byte
 *	offset of the slice, ordo_model_entry()), or %ORDO_SUB_NO_TT while a
 *	client has not loaded the slice.
 * @ntt: leaves (TT entries) of the sub-model, at most
 *	%ORDO_MODEL_MAX_SUB_LEAVES.
 * @grid: the fence codes' grid (ordo_model_desc.grid).
 * @wide: a packed copy's codes take @grid + 1 bits (a code may be
 *	2^@grid).
 * @gen: patch generation within the epoch.
 * @over: error bound ahead, 1/256 leaf.
 * @under: error bound behind, 1/256 leaf.
 */
struct ordo_sub {
	u32 slope;
	u32 tt;
	u32 ntt : 25;
	u32 grid : 5;
	u32 wide : 1;
	u32 gen;
	u16 over;
	u16 under;
};

/**
 * struct ordo_sub_meta - the trainer's bookkeeping of a sub-model
 * @sum: checksum of the published descriptor and slice.
 * @cap: TT slots reserved at the sub-model's tt.
 * @tied: two fences share a grid cell (a retraining could not cut the
 *	run), so some keys have several candidate leaves.
 */
struct ordo_sub_meta {
	u64 sum;
	u32 cap;
	u8 tied;
};

/* The slope's multiplier: the mantissa, scaled (mant << 32). */
static inline u64 ordo_sub_mant(const struct ordo_sub *s)
{
	return (u64)(s->slope & ORDO_MODEL_MANT_MASK) << ORDO_MODEL_MANT_SCALE;
}

static inline u32 ordo_sub_shift(const struct ordo_sub *s)
{
	return s->slope >> ORDO_MODEL_MANT_BITS;
}

/* @mant: below 2^%ORDO_MODEL_MANT_BITS; @shift: at most 127. */
static inline void ordo_sub_set_slope(struct ordo_sub *s, u32 mant, u32 shift)
{
	s->slope = (mant & ORDO_MODEL_MANT_MASK) |
		   (shift << ORDO_MODEL_MANT_BITS);
}

/*
 * Pivot search levels of a client copy: level l + 1 holds every
 * ORDO_PIVOT_FAN-th entry of level l (level 0: the pivots), up to a top
 * level of at most ORDO_PIVOT_FAN entries.  16 pivots are two cache
 * lines; 16^6 covers %ORDO_MODEL_MAX_SUBS.
 */
#define ORDO_PIVOT_FAN		16
#define ORDO_PIVOT_LEVELS	6

/* ordo_model.flags */
#define ORDO_MODEL_F_COMPACT	0x1	/* client copy: TT may be compacted */
#define ORDO_MODEL_F_PACKED	0x2	/* TT in @ttp, without incarnations */

/*
 * A packed TT entry of sub-model s: the leaf number in ordo_model.leaf_bits
 * bits (the fewest that hold every leaf number the copy has met, 1 to
 * 32), then the fence code in s->grid + s->wide bits, then the tie flag.
 * A slice starts on a byte, at byte s->tt of the little-endian bit
 * string; its entry j at bit j * ordo_packed_bits() from there, so every
 * entry lies within the 8 bytes from its first one.  The incarnation bits
 * are dropped.  A client needs them for nothing the leaf's fences do not
 * settle, and a TT is the bulk of its cache: slices of sparse keys, on
 * coarse grids, cost a few code bits a leaf, dense clusters more.
 */
/* Bytes past a packed TT's last entry: its 8-byte window stays inside. */
#define ORDO_TT_PACK_PAD	8

/**
 * struct ordo_model - a model in memory (trainer's master or client copy)
 * @epoch: generation of the model.
 * @nkeys: keys at training.
 * @first: the first sub-model in use (the image's sub_first); the room
 *	below it is for sub-models added in front (descending inserts).
 * @nsub: one past the last sub-model in use: [@first, @nsub) are.
 * @nsub_cap: room for sub-models (@pivots, @subs; the image's nsub_cap).
 * @top_gen: top-level changes within the epoch (the image's top_gen).
 * @renum_gen: the trainer's only: @top_gen of the last change that moved
 *	sub-models to other indices (a middle cut); an image of an older
 *	top level cannot be patched, only written anew.
 * @leaf_slots: slots per leaf.
 * @eps: training error target, 1/256 leaf.
 * @flags: ORDO_MODEL_F_* bits.
 * @tt_cap: entries in @tt (a packed copy: bytes in @ttp, without the
 *	padding).
 * @tt_used: entries (bytes) handed out; those beyond it are free.
 * @nleaves: live TT entries (sum of ntt).
 * @trained_leaves: leaves at the full training (0 in a client copy).
 * @pivots: sorted pivots of [@first, @nsub) (room for nsub_cap); keys
 *	below pivots[@first] belong to sub-model @first, at position 0.
 * @subs: the sub-models (room for nsub_cap).
 * @base: the first sub-model @pivots and @subs hold: 0, or a client
 *	copy's @first (it keeps none of the room below; both pointers then
 *	sit @base entries before their allocations).
 * @meta: the trainer's per sub-model bookkeeping (room for nsub_cap);
 *	NULL in a client copy, whose slices hold exactly ntt slots.
 * @tt: the TT entries; the trainer's copy mirrors the region's indices.
 *	NULL in a packed copy.
 * @ttp: a packed copy's TT entries (ordo_packed_bits() each), else NULL.
 * @leaf_bits: bits of a leaf number in @ttp's entries; loading a leaf
 *	number that needs more widens every entry.
 * @levels: client copies only (NULL in the trainer's, whose pivots move):
 *	the pivot search levels, level 1 first; see ordo_model_index_top().
 * @nlevels: levels above the pivots in @levels (0: plain binary search).
 * @level_off: start of level l (1..@nlevels) in @levels.
 * @level_len: entries of level l (level 0: the pivots in use).
 */
struct ordo_model {
	u64 epoch;
	u64 nkeys;
	u32 first;
	u32 nsub;
	u32 nsub_cap;
	u32 top_gen;
	u32 renum_gen;
	u32 leaf_slots;
	u32 eps;
	u32 flags;
	u32 tt_cap;
	u32 tt_used;
	u32 nleaves;
	u32 trained_leaves;
	u64 *pivots;
	struct ordo_sub *subs;
	u32 base;
	struct ordo_sub_meta *meta;
	struct ordo_tt *tt;
	u8 *ttp;
	u32 leaf_bits;
	u64 *levels;
	u32 nlevels;
	u32 level_off[ORDO_PIVOT_LEVELS + 1];
	u32 level_len[ORDO_PIVOT_LEVELS + 1];
};

/**
 * struct ordo_pred - result of a lookup
 * @sub: sub-model index.
 * @lln: first logical leaf (index in the sub-model's TT) the fence codes
 *	leave possible.
 * @ncand: logical leaves from @lln on that may hold the key (>= 1); more
 *	than one when fence codes equal the key's.
 * @win_lo: first logical leaf of the error window.
 * @win_hi: last logical leaf of the error window.
 * @m: the model looked up (read the entries with ordo_pred_ent()).
 */
struct ordo_pred {
	u32 sub;
	u32 lln;
	u32 ncand;
	u32 win_lo;
	u32 win_hi;
	const struct ordo_model *m;
};

/**
 * struct ordo_model_health - structural figures for resize decisions
 * @nsub: sub-models.
 * @nleaves: live TT entries.
 * @trained_leaves: leaves at the full training.
 * @tt_cap: TT capacity.
 * @tt_used: TT entries handed out.
 * @max_sub_leaves: leaves of the largest sub-model.
 * @max_err: largest window (over + under) of a bounded sub-model.
 * @unbounded: sub-models without an error bound.
 * @tied: sub-models whose fences the codes cannot all tell apart.
 * @eps: error target the model was trained with.
 */
struct ordo_model_health {
	u32 nsub;
	u32 nleaves;
	u32 trained_leaves;
	u32 tt_cap;
	u32 tt_used;
	u32 max_sub_leaves;
	u32 max_err;
	u32 unbounded;
	u32 tied;
	u32 eps;
};

/**
 * struct ordo_model_stats - model quality measured against a leaf set
 * @nkeys: keys evaluated.
 * @nsub: sub-models.
 * @nleaves: live TT entries.
 * @model_bytes: header + pivots + descriptors, as published.
 * @tt_bytes: live TT entries, as published.
 * @err_pos_sum: sum of |predicted - true| logical position, 1/256 slot.
 * @err_pos_max: largest such error, 1/256 slot.
 * @err_leaf_sum: sum of |predicted - true| logical leaf.
 * @err_leaf_max: largest such error in leaves.
 * @win_sum: leaves in the error windows.
 * @win_max: largest error window, in leaves.
 * @win_one: keys whose error window is one leaf.
 * @cand_sum: leaves the fence codes leave possible (what a client reads).
 * @cand_max: most such leaves for one key.
 * @cand_one: keys with exactly one such leaf.
 * @wrong: keys whose leaf is not among them.
 *
 * A client reads @cand_sum / @nkeys leaves per GET (one round trip); one
 * ignoring the fence codes would read @win_sum / @nkeys.
 */
struct ordo_model_stats {
	u64 nkeys;
	u32 nsub;
	u32 nleaves;
	u64 model_bytes;
	u64 tt_bytes;
	u64 err_pos_sum;
	u64 err_pos_max;
	u64 err_leaf_sum;
	u64 err_leaf_max;
	u64 win_sum;
	u64 win_max;
	u64 win_one;
	u64 cand_sum;
	u64 cand_max;
	u64 cand_one;
	u64 wrong;
};

/**
 * struct ordo_region - where the model region lives on the kernel side
 * @chunks: @nchunks chunk pointers, each 1 << @chunk_shift bytes.
 * @nchunks: number of chunks.
 * @chunk_shift: log2 of the chunk size, at least 6.
 * @base: region offset of the image written or patched (the anchor's
 *	@live once published), a multiple of %ORDO_MODEL_ALIGN.
 */
struct ordo_region {
	void * const *chunks;
	u32 nchunks;
	u32 chunk_shift;
	u64 base;
};

/**
 * struct ordo_model_layout - a validated image header
 * @base: region offset of the image (0 for an image read on its own);
 *	set by the caller, ordo_model_parse_hdr() leaves it 0.
 * @epoch: model epoch.
 * @region_size: bytes of the image.
 * @piv_off: offset of the pivots in the image.
 * @desc_off: offset of the descriptors in the image.
 * @tt_off: offset of the TT area in the image.
 * @nsub_cap: room for sub-models.
 * @top_gen: top-level changes within the epoch.
 * @first: first sub-model in use.
 * @top_size: bytes of header plus pivots (one read, checksummed).
 * @model_size: bytes of header, pivots and descriptors (one read).
 * @nkeys: keys at training.
 * @nsub: one past the last sub-model in use.
 * @tt_cap: TT entries in the area.
 * @nleaves: TT entries in use at training.
 * @leaf_slots: slots per leaf.
 * @eps: training error target.
 */
struct ordo_model_layout {
	u64 base;
	u64 epoch;
	u64 region_size;
	u64 piv_off;
	u64 desc_off;
	u64 tt_off;
	u64 top_size;
	u64 model_size;
	u64 nkeys;
	u32 nsub;
	u32 nsub_cap;
	u32 top_gen;
	u32 first;
	u32 tt_cap;
	u32 nleaves;
	u32 leaf_slots;
	u32 eps;
};

/* Sub-models in use. */
static inline u32 ordo_model_count(const struct ordo_model *m)
{
	return m->nsub - m->first;
}

/* Is @sub a sub-model in use? */
static inline bool ordo_model_has_sub(const struct ordo_model *m, u32 sub)
{
	return sub >= m->first && sub < m->nsub;
}

/*
 * The line's argument for @key in a sub-model pivoted at @pivot: keys
 * below the first sub-model's pivot count as the pivot.
 */
static inline u64 ordo_model_dx(u64 key, u64 pivot)
{
	return key > pivot ? key - pivot : 0;
}

static inline u32 ordo_tt_code(const struct ordo_tt *e)
{
	return e->code_inca & ORDO_TT_CODE_MASK;
}

static inline u32 ordo_tt_inca(const struct ordo_tt *e)
{
	return e->code_inca >> ORDO_TT_INCA_SHIFT;
}

/**
 * ordo_tt_inca_matches() - does a leaf's incarnation match a TT entry?
 * @e: TT entry
 * @inca: the leaf's current (full) incarnation
 *
 * Return: true if the low %ORDO_TT_INCA_BITS bits agree.
 */
static inline bool ordo_tt_inca_matches(const struct ordo_tt *e, u32 inca)
{
	return ordo_tt_inca(e) == (inca & ORDO_TT_INCA_MASK);
}

/* Bits of a packed entry of @s in @m: leaf number, code, tie flag. */
static inline u32 ordo_packed_bits(const struct ordo_model *m,
				   const struct ordo_sub *s)
{
	return m->leaf_bits + s->grid + s->wide + 1;
}

/**
 * ordo_model_entry() - a TT entry of a loaded slice
 * @m: model
 * @sub: sub-model whose slice is loaded
 * @j: logical leaf, below its ntt
 *
 * Return: the entry; a packed copy's has incarnation bits 0.
 */
static inline struct ordo_tt ordo_model_entry(const struct ordo_model *m,
					      u32 sub, u32 j)
{
	const struct ordo_sub *s = &m->subs[sub];
	u32 cb = s->grid + s->wide;
	struct ordo_tt e;
	__le64 raw;
	u64 bit, w;

	if (!m->ttp)
		return m->tt[s->tt + j];
	bit = (u64)s->tt * 8 + (u64)j * ordo_packed_bits(m, s);
	memcpy(&raw, m->ttp + bit / 8, sizeof(raw));
	w = le64_to_cpu(raw) >> (bit % 8);
	e.leaf = (u32)(w & (((u64)1 << m->leaf_bits) - 1));
	w >>= m->leaf_bits;
	e.code_inca = (u32)(w & ((1U << cb) - 1));
	if ((w >> cb) & 1)
		e.code_inca |= ORDO_TT_TIE_RIGHT;
	return e;
}

/* The entry of candidate @i of a lookup (0 .. ncand - 1). */
static inline struct ordo_tt ordo_pred_ent(const struct ordo_pred *p, u32 i)
{
	return ordo_model_entry(p->m, p->sub, p->lln + i);
}

/**
 * ordo_pred_try() - the @i-th TT entry to try for a lookup's key
 * @p: the lookup
 * @i: 0 .. @p->ncand - 1: the candidates; @p->ncand: the leaf before them
 * @e: out: the entry
 *
 * A key absent at training may lie one leaf left of the candidates (a
 * tie settled for the right); logical leaf 0 has none before it.
 *
 * Return: true with @e set, false past them.
 */
static inline bool ordo_pred_try(const struct ordo_pred *p, u32 i,
				 struct ordo_tt *e)
{
	if (i < p->ncand)
		*e = ordo_pred_ent(p, i);
	else if (i == p->ncand && p->lln)
		*e = ordo_model_entry(p->m, p->sub, p->lln - 1);
	else
		return false;
	return true;
}

/* model_predict.c: shared math, lookup and parsing (no trainer needed) */
u64 ordo_model_mix(u64 h, u64 w);
u64 ordo_model_fmix(u64 h);
u64 ordo_model_pos(const struct ordo_model *m, u32 sub, u64 key);
u64 ordo_sub_line(const struct ordo_sub *s, u64 dx);
u64 ordo_sub_pos(const struct ordo_sub *s, u64 dx);
void ordo_sub_window(const struct ordo_sub *s, u64 pos, u32 *lo, u32 *hi);
u32 ordo_code_shift(u64 span, u32 grid);
u64 ordo_sub_span(const struct ordo_sub *s);
void ordo_sub_code_params(const struct ordo_sub *s, u64 *base, u32 *shift);
u32 ordo_sub_code(const struct ordo_sub *s, u32 j, u64 pos);
void ordo_sub_pick(const struct ordo_sub *s, u64 pos, const struct ordo_tt *tt,
		   u32 lo, u32 hi, u32 *first, u32 *n);
u32 ordo_model_sub_of(const struct ordo_model *m, u64 key);
int ordo_model_index_top(struct ordo_model *m);
bool ordo_model_sub_domain(const struct ordo_model *m, u32 sub, u64 *lo,
			   u64 *hi);
int ordo_model_lookup(const struct ordo_model *m, u64 key,
		      struct ordo_pred *p);
int ordo_model_next(const struct ordo_model *m, u32 *sub, u32 *lln);
bool ordo_model_tt(const struct ordo_model *m, u32 sub, u32 lln,
		   struct ordo_tt *e);
int ordo_model_pack(struct ordo_model *m);
int ordo_model_tt_trim(struct ordo_model *m);
void ordo_model_drop_tt(struct ordo_model *m);
u64 ordo_model_mem_bytes(const struct ordo_model *m);
struct ordo_model *ordo_model_alloc_cap(u32 nsub, u32 nsub_cap, u32 tt_cap);
void ordo_model_free(struct ordo_model *m);
u64 ordo_model_bytes(u32 nsub);
u64 ordo_sub_sum_head(u64 epoch, u32 sub, u64 pivot, const void *desc);
u64 ordo_sub_sum_entry(u64 h, const void *entry);
u64 ordo_sub_checksum(u64 epoch, u32 sub, u64 pivot, const void *desc,
		      const void *slice, u32 n);
u64 ordo_model_top_sum_head(const void *hdr);
u64 ordo_model_top_checksum(const void *hdr, const void *pivots, u32 first,
			    u32 nsub);
void ordo_sub_to_desc(const struct ordo_sub *s, u64 sum,
		      struct ordo_model_desc *d);
void ordo_tt_to_entry(const struct ordo_tt *t, struct ordo_tt_entry *e);
int ordo_model_parse_anchor(const void *buf, size_t len, u64 *live,
			    u64 *epoch);
int ordo_model_parse_hdr(const void *buf, size_t len,
			 struct ordo_model_layout *lay);
int ordo_model_desc_decode(const void *desc, struct ordo_sub *s);
int ordo_model_desc_slice(const struct ordo_model_layout *lay,
			  const void *desc, u64 *off, u64 *len);
int ordo_model_load_top(struct ordo_model **mp, const void *buf, size_t len);
int ordo_model_load_sub(struct ordo_model *m, u32 sub, const void *desc,
			const void *slice, size_t slice_len);
int ordo_model_adopt_sub(struct ordo_model *m, u32 sub, const void *desc,
			 const struct ordo_model *old);
int ordo_model_load_image(struct ordo_model **mp, const void *buf,
			  size_t len, bool packed);
int ordo_model_from_image(struct ordo_model **mp, const void *buf,
			  size_t len);
int ordo_model_from_region(struct ordo_model **mp, const void *buf,
			   size_t len);
int ordo_model_tt_reserve(struct ordo_model *m, u32 sub, u32 n, u32 cap);
int ordo_model_tt_grow(struct ordo_model *m, u32 extra);

/* model_train.c: training, retraining, evaluation, resize thresholds */
void ordo_model_params_default(struct ordo_model_params *p);
int ordo_leaf_set_check(const struct ordo_leaf_set *set, u64 lo, u64 hi,
			bool last);
int ordo_model_train(struct ordo_model **mp, const struct ordo_leaf_set *set,
		     const struct ordo_model_params *p, u64 epoch);
u64 ordo_model_image_floor(u32 nleaves, const struct ordo_model_params *p);
int ordo_model_retrain_sub(struct ordo_model *m, u32 sub,
			   const struct ordo_leaf_set *set,
			   const struct ordo_model_params *p);
int ordo_model_merge_subs(struct ordo_model *m, u32 a, u32 b,
			  const struct ordo_leaf_set *set,
			  const struct ordo_model_params *p);
int ordo_model_eval(const struct ordo_model *m,
		    const struct ordo_leaf_set *set, u32 stride,
		    struct ordo_model_stats *st);
void ordo_model_health(const struct ordo_model *m,
		       struct ordo_model_health *h);
bool ordo_model_needs_expand(const struct ordo_model_health *h,
			     const struct ordo_model_params *p);
bool ordo_model_needs_shrink(const struct ordo_model_health *h,
			     const struct ordo_model_params *p);
bool ordo_model_needs_rebuild(const struct ordo_model_health *h,
			      const struct ordo_model_params *p);
u32 ordo_model_tt_room_due(const struct ordo_model_health *h,
			   const struct ordo_model_params *p);
u32 ordo_model_tt_extra(const struct ordo_model_health *h,
			const struct ordo_model_params *p);
u32 ordo_model_resize_target(const struct ordo_model_health *h,
			     const struct ordo_model_params *p);

/* model_region.c: the kernel's side of publication */
u64 ordo_region_bytes(const struct ordo_model *m);
int ordo_region_write(const struct ordo_region *rg,
		      const struct ordo_model *m);
int ordo_region_patch(const struct ordo_region *rg,
		      const struct ordo_model *m, u32 sub);
int ordo_region_grow(const struct ordo_region *rg,
		     const struct ordo_model *m);
u64 ordo_region_place(u64 live, u64 live_bytes, u64 bytes);
int ordo_region_publish(const struct ordo_region *rg, u64 epoch);
int ordo_model_export_sub(const struct ordo_model *m, u32 sub, void *buf,
			  size_t *len);

#endif /* ORDO_CORE_MODEL_H */
