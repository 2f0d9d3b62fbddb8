// SPDX-License-Identifier: GPL-2.0
/*
 * ordo learned model, shared half: the integer arithmetic of a prediction,
 * lookups, and parsing of region bytes.  Clients build this file without the
 * trainer; the trainer computes its error bounds with the same functions.
 * Every byte parsed here may be hostile: all counts and offsets are checked
 * before use, and fence codes that contradict the stored error bounds are
 * refused.  A TT entry codes its fence, so the leaf a client reads checks
 * the key against its real fences.
 */
#include "compat.h"
#include "model.h"

#define ERR_TO_POS	(ORDO_MODEL_POS_SHIFT - ORDO_MODEL_ERR_SHIFT)

static u64 ld_le64(const void *p)
{
	__le64 v;

	memcpy(&v, p, sizeof(v));
	return le64_to_cpu(v);
}

/**
 * ordo_model_mix() - absorb one word into a checksum
 * @h: running state
 * @w: word
 *
 * A bijection of @h for a fixed @w and of @w for a fixed @h, so changing any
 * single word always changes the final checksum.
 *
 * Return: the new state.
 */
u64 ordo_model_mix(u64 h, u64 w)
{
	h ^= w;
	h *= 0x9e3779b97f4a7c15ULL;
	return h ^ (h >> 32);
}

/**
 * ordo_model_fmix() - finish a checksum (MurmurHash3 fmix64)
 * @h: running state
 *
 * Return: the checksum.
 */
u64 ordo_model_fmix(u64 h)
{
	h ^= h >> 33;
	h *= 0xff51afd7ed558ccdULL;
	h ^= h >> 33;
	h *= 0xc4ceb9fe1a85ec53ULL;
	return h ^ (h >> 33);
}

/* The over bound in position units: ntt << 32 when unbounded. */
static u64 over_pos(const struct ordo_sub *s)
{
	return s->over == ORDO_MODEL_ERR_UNBOUNDED ?
	       (u64)s->ntt << ORDO_MODEL_POS_SHIFT : (u64)s->over << ERR_TO_POS;
}

/**
 * ordo_sub_line() - the sub-model's line, unsaturated
 * @s: sub-model
 * @dx: key minus the sub-model's pivot
 *
 * Return: the exact ((dx * mant) >> shift), or U64_MAX when that does
 * not fit 64 bits.
 */
u64 ordo_sub_line(const struct ordo_sub *s, u64 dx)
{
	u64 mant = ordo_sub_mant(s), hi = mul_u64_u64_shr(dx, mant, 64);
	u32 shift = ordo_sub_shift(s);

	if (shift < 64 && hi >> shift)
		return U64_MAX;
	return mul_u64_u64_shr(dx, mant, shift);
}

/**
 * ordo_sub_pos() - logical position predicted by a sub-model
 * @s: sub-model
 * @dx: key minus the sub-model's pivot
 *
 * The one prediction formula of ordo: the line ((dx * mant) >> shift),
 * exact in 128 bits, saturated at (ntt << 32) + O, O the over bound.
 * Monotone in @dx for any slope, integer only.  Every fence lies below
 * the cap (the over bound holds there), so saturation never merges two
 * fences, and it lets a line fit the real fences of the last sub-model:
 * its domain runs to 2^64 - 1, far past the last fence, and keys
 * appended there land at the end of the slice.
 *
 * Return: logical leaf in units of 2^-32.
 */
u64 ordo_sub_pos(const struct ordo_sub *s, u64 dx)
{
	u64 cap = ((u64)s->ntt << ORDO_MODEL_POS_SHIFT) + over_pos(s);

	return min(ordo_sub_line(s, dx), cap);
}

/**
 * ordo_model_pos() - logical position of a key in a given sub-model
 * @m: model
 * @sub: sub-model index in use
 * @key: key
 *
 * Return: logical leaf in units of 2^-32.
 */
u64 ordo_model_pos(const struct ordo_model *m, u32 sub, u64 key)
{
	return ordo_sub_pos(&m->subs[sub], ordo_model_dx(key, m->pivots[sub]));
}

/**
 * ordo_sub_window() - logical leaves that may hold a key
 * @s: sub-model with at least one TT entry
 * @pos: the key's predicted position
 * @lo: first logical leaf of the window
 * @hi: last logical leaf of the window
 *
 * A leaf j holding the key satisfies F(low_j) <= pos <= F(low_j+1), so
 * (j << 32) - under <= pos and pos <= ((j + 1) << 32) + over.
 */
void ordo_sub_window(const struct ordo_sub *s, u64 pos, u32 *lo, u32 *hi)
{
	u64 last = s->ntt - 1;
	u64 a = 0, b = last, e;

	if (s->over != ORDO_MODEL_ERR_UNBOUNDED) {
		e = (u64)s->over << ERR_TO_POS;
		if (pos > e)
			a = (pos - e - 1) >> ORDO_MODEL_POS_SHIFT;
	}
	if (s->under != ORDO_MODEL_ERR_UNBOUNDED) {
		e = (u64)s->under << ERR_TO_POS;
		if (pos <= U64_MAX - e)
			b = min_t(u64, (pos + e) >> ORDO_MODEL_POS_SHIFT, last);
	}
	*hi = b;
	*lo = min(a, b);
}

/**
 * ordo_code_shift() - fence-code shift for a window span
 * @span: 2^32 + O + U, in position units
 * @grid: grid bits
 *
 * Return: the shift that brings @span below 2^@grid: a window has at
 * most that many grid cells.
 */
u32 ordo_code_shift(u64 span, u32 grid)
{
	u32 bits = fls64(span);

	return bits > grid ? bits - grid : 0;
}

/* The under bound in position units: ntt << 32 when unbounded. */
static u64 under_pos(const struct ordo_sub *s)
{
	return s->under == ORDO_MODEL_ERR_UNBOUNDED ?
	       (u64)s->ntt << ORDO_MODEL_POS_SHIFT :
	       (u64)s->under << ERR_TO_POS;
}

/**
 * ordo_sub_span() - a window's span, 2^32 + O + U in position units
 * @s: sub-model
 *
 * Return: the span (below 2^58: ntt is at most 2^24).
 */
u64 ordo_sub_span(const struct ordo_sub *s)
{
	return (1ULL << ORDO_MODEL_POS_SHIFT) + over_pos(s) + under_pos(s);
}

/**
 * ordo_sub_code_params() - base and shift of a sub-model's fence codes
 * @s: sub-model
 * @base: U, the under bound in position units (ntt << 32 when unbounded)
 * @shift: code shift: the span 2^32 + O + U, shifted by it, fits the
 *	sub-model's grid bits
 */
void ordo_sub_code_params(const struct ordo_sub *s, u64 *base, u32 *shift)
{
	*base = under_pos(s);
	*shift = ordo_code_shift(ordo_sub_span(s), s->grid);
}

/**
 * ordo_sub_code() - fence code of logical leaf @j
 * @s: sub-model with its final bounds
 * @j: logical leaf
 * @pos: F of the leaf's low fence
 *
 * With bounds measured at every fence the code lies in [0, 2^grid]; it
 * is clamped to its field all the same.
 *
 * Return: the code.
 */
u32 ordo_sub_code(const struct ordo_sub *s, u32 j, u64 pos)
{
	u64 base, a, g;
	u32 sh;

	ordo_sub_code_params(s, &base, &sh);
	a = (pos + base) >> sh;
	g = ((u64)j << ORDO_MODEL_POS_SHIFT) >> sh;
	if (a < g)
		return 0;
	return min_t(u64, a - g, ORDO_TT_CODE_MASK);
}

/*
 * The TT entries a search reads, entry k for logical leaf lo + k: an
 * array (@tt), or sub-model @sub's of a packed model from leaf @lo on.
 */
struct tt_view {
	const struct ordo_tt *tt;
	const struct ordo_model *m;
	u32 sub;
	u32 lo;
};

static inline u32 view_code_inca(const struct tt_view *v, u32 k)
{
	return v->tt ? v->tt[k].code_inca :
		       ordo_model_entry(v->m, v->sub, v->lo + k).code_inca;
}

/* Grid position of logical leaf @j: its code plus (j << 32) >> shift. */
static u64 code_grid(u32 code_inca, u32 j, u32 sh)
{
	return (code_inca & ORDO_TT_CODE_MASK) +
	       (((u64)j << ORDO_MODEL_POS_SHIFT) >> sh);
}

/* code_grid() of logical leaf @j, whose entry is @j - @lo in @v. */
static inline u64 view_grid(const struct tt_view *v, u32 lo, u32 j, u32 sh)
{
	return code_grid(view_code_inca(v, j - lo), j, sh);
}

/* Ties left undecided scanned per lookup, at most (a lying TT). */
#define TIE_SCAN_MAX	64

/*
 * ordo_sub_pick() over the entries of @v (the window's, from leaf @lo on).
 *
 * Leaf j starts left of the key when its grid position is below the
 * key's (or equal, with %ORDO_TT_TIE_RIGHT), right of it when above;
 * equal ones without the flag are candidates.  The key's leaf is the last
 * one starting at or left of it: at least the last known to (else @lo),
 * at most the last whose position is not above.  If every leaf of the
 * window seems to start right of the key (a stale or lying TT), @lo alone.
 *
 * The search gallops from the middle of the window, where the fitted line
 * (whose intercept the bounds absorb) puts the key: most keys lie a few
 * leaves from it, a line or two of entries, while a binary search of the
 * window touches a line per halving.
 */
static void pick(const struct ordo_sub *s, u64 pos, const struct tt_view *v,
		 u32 lo, u32 hi, u32 *first, u32 *n)
{
	u64 base, a;
	u32 sh, l, r, top, j, step;

	ordo_sub_code_params(s, &base, &sh);
	a = (pos + base) >> sh;
	*first = lo;
	*n = 1;
	if (view_grid(v, lo, lo, sh) > a)
		return;
	/*
	 * Last leaf whose grid position is <= a: bracket it between l (at
	 * or below a) and r (above a, or hi + 1), then halve the bracket.
	 */
	j = lo + (hi - lo) / 2;
	l = lo;
	r = hi + 1;
	if (view_grid(v, lo, j, sh) <= a) {
		for (l = j, step = 1; step <= hi - l; step <<= 1) {
			if (view_grid(v, lo, l + step, sh) > a) {
				r = l + step;
				break;
			}
			l += step;
		}
	} else {
		for (r = j, step = 1; step < r - lo; step <<= 1) {
			if (view_grid(v, lo, r - step, sh) <= a) {
				l = r - step;
				break;
			}
			r -= step;
		}
	}
	while (r - l > 1) {
		u32 mid = l + (r - l) / 2;

		if (view_grid(v, lo, mid, sh) <= a)
			l = mid;
		else
			r = mid;
	}
	top = l;
	/* Down through the undecided ties to a leaf known to start left. */
	for (j = top; j > lo && top - j < TIE_SCAN_MAX; j--) {
		u32 ci = view_code_inca(v, j - lo);

		if (code_grid(ci, j, sh) < a || (ci & ORDO_TT_TIE_RIGHT))
			break;
	}
	*first = j;
	*n = top - j + 1;
}

/**
 * ordo_sub_pick() - the leaves of a window that may hold a key
 * @s: sub-model
 * @pos: the key's predicted position
 * @tt: TT entries of logical leaves @lo..@hi (tt[0] is leaf @lo)
 * @lo: first logical leaf of the window
 * @hi: last logical leaf of the window
 * @first: first logical leaf that may hold the key
 * @n: leaves from @first on that may (>= 1)
 *
 * As ordo_model_lookup() picks them, for entries read on their own (a
 * client that caches descriptors alone reads the window's entries).
 */
void ordo_sub_pick(const struct ordo_sub *s, u64 pos, const struct ordo_tt *tt,
		   u32 lo, u32 hi, u32 *first, u32 *n)
{
	const struct tt_view v = { .tt = tt };

	pick(s, pos, &v, lo, hi, first, n);
}

/* Index of the last of @n entries of @v that is <= @key, plus one. */
static u32 count_le(const u64 *v, u32 n, u64 key)
{
	u32 i, c = 0;

	for (i = 0; i < n; i++)
		c += v[i] <= key;
	return c;
}

/* Start fetching the @n sub-models from @s on: one of them is next. */
static void prefetch_subs(const struct ordo_sub *s, u32 n)
{
	const char *p = (const char *)s, *end = (const char *)(s + n);

	for (; p < end; p += 64)
		__builtin_prefetch(p);
	__builtin_prefetch(end - 1);
}

/*
 * Down the pivot search levels: in each, the block of ORDO_PIVOT_FAN
 * entries under the entry found above (the whole top level); the block's
 * first entry is that entry, so below the top the count is at least one.
 * Above the pivots the block of the next level tells which 16 sub-models
 * the key can reach: their descriptors load while the pivots are scanned,
 * instead of one cache miss after the other.
 */
static u32 sub_of_levels(const struct ordo_model *m, u64 key)
{
	u32 l = m->nlevels, b = 0, c;

	for (;;) {
		const u64 *v = l ? m->levels + m->level_off[l] :
				   m->pivots + m->first;
		u32 n = min_t(u32, m->level_len[l] - b, ORDO_PIVOT_FAN);

		if (!l)
			prefetch_subs(m->subs + m->first + b, n);
		c = count_le(v + b, n, key);
		if (!c)
			return m->first;
		b += c - 1;
		if (!l--)
			return m->first + b;
		b *= ORDO_PIVOT_FAN;
	}
}

/**
 * ordo_model_sub_of() - the sub-model whose domain holds a key
 * @m: model
 * @key: key
 *
 * Return: the largest i in use with pivots[i] <= key, else the first.
 */
u32 ordo_model_sub_of(const struct ordo_model *m, u64 key)
{
	const u64 *p = m->pivots;
	u32 base = m->first, n = m->nsub - m->first;

	if (m->nlevels)
		return sub_of_levels(m, key);
	while (n > 1) {
		u32 half = n / 2;

		if (p[base + half] <= key)
			base += half;
		n -= half;
	}
	return base;
}

/**
 * ordo_model_index_top() - build the pivot search levels of a client copy
 * @m: model whose top level (@first, @nsub, @pivots) no longer changes
 *
 * A binary search over hundreds of thousands of pivots misses the cache
 * at every step of its second half; the levels, 1/15 of the pivots'
 * bytes, leave about two lines per level to fetch.  Every copy of more
 * than 16 sub-models gets them, so that every client exercises them; a
 * copy of up to 16 needs none (its top level is the pivots).
 *
 * Return: 0 or -ENOMEM (the model still works, by binary search).
 */
int ordo_model_index_top(struct ordo_model *m)
{
	u32 len = m->nsub - m->first, total = 0, nl = 0, l, i;

	ordo_free(m->levels);
	m->levels = NULL;
	m->nlevels = 0;
	m->level_len[0] = len;
	if (len <= ORDO_PIVOT_FAN)
		return 0;
	while (len > ORDO_PIVOT_FAN && nl < ORDO_PIVOT_LEVELS) {
		len = DIV_ROUND_UP(len, ORDO_PIVOT_FAN);
		nl++;
		m->level_off[nl] = total;
		m->level_len[nl] = len;
		total += len;
	}
	if (len > ORDO_PIVOT_FAN)	/* beyond ORDO_MODEL_MAX_SUBS */
		return 0;
	m->levels = ordo_malloc(sizeof(*m->levels) * total);
	if (!m->levels)
		return -ENOMEM;
	for (l = 1; l <= nl; l++) {
		const u64 *src = l == 1 ? m->pivots + m->first :
				 m->levels + m->level_off[l - 1];

		for (i = 0; i < m->level_len[l]; i++)
			m->levels[m->level_off[l] + i] =
				src[(u64)i * ORDO_PIVOT_FAN];
	}
	m->nlevels = nl;
	return 0;
}

/**
 * ordo_model_sub_domain() - key domain of a sub-model
 * @m: model
 * @sub: sub-model index in use
 * @lo: inclusive low end (the pivot; 0 for the first sub-model)
 * @hi: exclusive high end, set only when there is one
 *
 * Return: false for the last sub-model, whose domain ends at U64_MAX
 * inclusive; true otherwise.
 */
bool ordo_model_sub_domain(const struct ordo_model *m, u32 sub, u64 *lo,
			   u64 *hi)
{
	*lo = sub == m->first ? 0 : m->pivots[sub];
	if (sub + 1 >= m->nsub)
		return false;
	*hi = m->pivots[sub + 1];
	return true;
}

/**
 * ordo_model_lookup() - predict the leaf of a key
 * @m: model
 * @key: any key, stored or not
 * @p: result
 *
 * With a fresh TT, the key's leaf is among the @p->ncand leaves from
 * @p->lln on (one, but for keys whose code equals a fence's), inside
 * [@p->win_lo, @p->win_hi].  With a stale TT they are the leaves that held
 * the range at training time; the caller checks the incarnation and
 * fences of what it reads.
 *
 * Return: 0, or -ENODATA if the sub-model's TT slice is not loaded.
 */
int ordo_model_lookup(const struct ordo_model *m, u64 key,
		      struct ordo_pred *p)
{
	u32 sub = ordo_model_sub_of(m, key);
	const struct ordo_sub *s = &m->subs[sub];
	struct tt_view v;
	u32 lo, hi;
	u64 pos;

	if (s->tt == ORDO_SUB_NO_TT)
		return -ENODATA;
	pos = ordo_sub_pos(s, ordo_model_dx(key, m->pivots[sub]));
	ordo_sub_window(s, pos, &lo, &hi);
	p->sub = sub;
	p->win_lo = lo;
	p->win_hi = hi;
	v.m = m;
	v.sub = sub;
	v.lo = lo;
	v.tt = m->ttp ? NULL : m->tt + s->tt + lo;
	pick(s, pos, &v, lo, hi, &p->lln, &p->ncand);
	p->m = m;
	return 0;
}

/**
 * ordo_model_next() - step to the next leaf in key order
 * @m: model
 * @sub: sub-model index, updated
 * @lln: logical leaf, updated
 *
 * Return: 0; -ENOENT past the last leaf; -ENODATA when the next sub-model's
 * slice is not loaded (then @sub and @lln name its first leaf); -EINVAL for
 * a position outside the model.
 */
int ordo_model_next(const struct ordo_model *m, u32 *sub, u32 *lln)
{
	if (!ordo_model_has_sub(m, *sub))
		return -EINVAL;
	if (m->subs[*sub].tt != ORDO_SUB_NO_TT &&
	    *lln + 1 < m->subs[*sub].ntt) {
		(*lln)++;
		return 0;
	}
	if (*sub + 1 >= m->nsub)
		return -ENOENT;
	(*sub)++;
	*lln = 0;
	return m->subs[*sub].tt == ORDO_SUB_NO_TT ? -ENODATA : 0;
}

/**
 * ordo_model_tt() - TT entry of a logical leaf
 * @m: model
 * @sub: sub-model index
 * @lln: logical leaf
 * @e: out: the entry
 *
 * Return: true with @e set; false if out of range or not loaded.
 */
bool ordo_model_tt(const struct ordo_model *m, u32 sub, u32 lln,
		   struct ordo_tt *e)
{
	const struct ordo_sub *s;

	if (!ordo_model_has_sub(m, sub))
		return false;
	s = &m->subs[sub];
	if (s->tt == ORDO_SUB_NO_TT || lln >= s->ntt)
		return false;
	*e = ordo_model_entry(m, sub, lln);
	return true;
}

/* The kind of @m's TT storage (also while it has none, after a drop). */
static bool tt_packed(const struct ordo_model *m)
{
	return m->flags & ORDO_MODEL_F_PACKED;
}

/* Bytes of a packed slice of @n entries of @bits bits each. */
static u64 slice_bytes(u64 n, u32 bits)
{
	return DIV_ROUND_UP(n * bits, 8);
}

/*
 * TT units (entries; a packed copy's bytes) of @n entries of @s's kind
 * and width in @m.
 */
static u64 tt_units(const struct ordo_model *m, const struct ordo_sub *s,
		    u64 n)
{
	return tt_packed(m) ? slice_bytes(n, ordo_packed_bits(m, s)) : n;
}

/* Bytes of storage for @n TT units of @m's kind. */
static size_t tt_bytes(const struct ordo_model *m, u64 n)
{
	return tt_packed(m) ? n + ORDO_TT_PACK_PAD :
			      sizeof(struct ordo_tt) * n;
}

/* TT storage for @n units (at least one), of @m's kind, zeroed. */
static void *tt_alloc(const struct ordo_model *m, u64 n)
{
	return ordo_malloc(tt_bytes(m, n ? n : 1));
}

/* The TT storage, whichever it is (for moving and freeing it). */
static void *tt_base(const struct ordo_model *m)
{
	return tt_packed(m) ? (void *)m->ttp : (void *)m->tt;
}

/*
 * Write a packed entry at bit @bit of @b: the leaf in @lb bits, the code
 * of @code_inca in @cb bits, its tie flag; into the 8 bytes that hold it
 * (the storage's padding keeps them inside).
 */
static void packed_put(u8 *b, u64 bit, u32 lb, u32 cb, u32 leaf,
		       u32 code_inca)
{
	u32 bits = lb + cb + 1;
	u64 mask, v, w;
	__le64 raw;

	v = (leaf & (((u64)1 << lb) - 1)) |
	    (u64)(code_inca & ((1U << cb) - 1)) << lb |
	    (u64)!!(code_inca & ORDO_TT_TIE_RIGHT) << (lb + cb);
	mask = (((u64)1 << bits) - 1) << (bit % 8);
	memcpy(&raw, b + bit / 8, sizeof(raw));
	w = (le64_to_cpu(raw) & ~mask) | v << (bit % 8);
	raw = cpu_to_le64(w);
	memcpy(b + bit / 8, &raw, sizeof(raw));
}

/*
 * Store entry @j of @sub's slice: a packed copy keeps the leaf, code and
 * tie flag (its leaf_bits hold @leaf, see tt_widen(); the sub-model's
 * grid and wide flag hold the code).
 */
static void tt_put(struct ordo_model *m, u32 sub, u32 j, u32 leaf,
		   u32 code_inca)
{
	const struct ordo_sub *s = &m->subs[sub];

	if (!tt_packed(m)) {
		m->tt[s->tt + j].leaf = leaf;
		m->tt[s->tt + j].code_inca = code_inca;
		return;
	}
	packed_put(m->ttp, (u64)s->tt * 8 + (u64)j * ordo_packed_bits(m, s),
		   m->leaf_bits, s->grid + s->wide, leaf, code_inca);
}

/* The fewest bits that hold leaf number @leaf (at least one). */
static u32 leaf_bits_for(u32 leaf)
{
	return leaf ? fls64(leaf) : 1;
}

/*
 * Client copies keep 1/32 of spare TT room after a repack or a trim (the
 * TT is most of a client's memory); one that runs out of room while it
 * loads slices grows by 1/8, so that loading a copy slice by slice moves
 * each entry a few times only (ordo_model_tt_trim() then gives the rest
 * back).
 */
#define CLIENT_TT_SLACK		32
#define CLIENT_TT_GROWTH	8

/* No sub-model to leave out of tt_rebuild(). */
#define NO_SKIP			U32_MAX

/*
 * Whether a packed copy needs a wider code field for @s's slice than its
 * grid: one code may be 2^grid.
 */
static bool slice_wide(const struct ordo_model *m, u32 sub)
{
	const struct ordo_sub *s = &m->subs[sub];
	u32 j;

	for (j = 0; j < s->ntt; j++)
		if ((ordo_model_entry(m, sub, j).code_inca &
		     ORDO_TT_CODE_MASK) >> s->grid)
			return true;
	return false;
}

/*
 * Move every loaded slice but @skip's (which is dropped) into new storage
 * of the kind @packed (with @lb leaf bits an entry), in sub-model order,
 * with @need more units free after them and 1/@slack of the slices' units
 * (plus 64) spare.  Return: 0, -ENOSPC or -ENOMEM (the copy is
 * unchanged).
 */
static int tt_rebuild(struct ordo_model *m, u32 skip, u64 need, bool packed,
		      u32 lb, u32 slack)
{
	struct ordo_model to = { .flags = packed ? ORDO_MODEL_F_PACKED : 0,
				 .leaf_bits = lb, .subs = m->subs };
	bool conv = packed && !tt_packed(m);
	u64 live = 0, cap, pos = 0;
	void *nt;
	u32 i, j;

	for (i = m->first; i < m->nsub; i++) {
		struct ordo_sub *s = &m->subs[i];

		if (i == skip || s->tt == ORDO_SUB_NO_TT)
			continue;
		/* An unpacked copy reads no wide flag: set it here, once. */
		if (conv)
			s->wide = slice_wide(m, i);
		live += tt_units(&to, s, s->ntt);
	}
	cap = live + need + live / slack + 64;
	if (cap > ORDO_MODEL_MAX_TT)
		return -ENOSPC;
	nt = tt_alloc(&to, cap);
	if (!nt)
		return -ENOMEM;
	to.tt = packed ? NULL : nt;
	to.ttp = packed ? nt : NULL;
	for (i = m->first; i < m->nsub; i++) {
		struct ordo_sub *s = &m->subs[i], ns = *s;

		if (s->tt == ORDO_SUB_NO_TT)
			continue;
		if (i == skip) {
			s->tt = ORDO_SUB_NO_TT;
			continue;
		}
		ns.tt = pos;
		for (j = 0; j < s->ntt; j++) {
			struct ordo_tt e = ordo_model_entry(m, i, j);

			if (packed)
				packed_put(nt, pos * 8 + (u64)j *
					   ordo_packed_bits(&to, &ns), lb,
					   ns.grid + ns.wide, e.leaf,
					   e.code_inca);
			else
				((struct ordo_tt *)nt)[pos + j] = e;
		}
		*s = ns;
		pos += tt_units(&to, &ns, ns.ntt);
	}
	ordo_free(tt_base(m));
	m->flags = (m->flags & ~ORDO_MODEL_F_PACKED) | to.flags;
	m->tt = to.tt;
	m->ttp = to.ttp;
	m->leaf_bits = lb;
	m->tt_cap = cap;
	m->tt_used = pos;
	return 0;
}

/*
 * Let a packed copy's entries hold leaf number @leaf: rewrite every entry
 * with more leaf bits when they cannot (a store whose node count passed a
 * power of two: once per doubling, so the rewrites of a copy's life cost
 * less than two of its largest).  Return: 0, -ENOSPC or -ENOMEM (the copy
 * is unchanged).
 */
static int tt_widen(struct ordo_model *m, u32 leaf)
{
	u32 lb = leaf_bits_for(leaf);

	if (!tt_packed(m) || lb <= m->leaf_bits)
		return 0;
	if (!m->ttp) {		/* no storage (dropped): nothing to move */
		m->leaf_bits = lb;
		return 0;
	}
	return tt_rebuild(m, NO_SKIP, 0, true, lb, CLIENT_TT_SLACK);
}

/**
 * ordo_model_pack() - keep a client copy's TT packed
 * @m: a client copy (ordo_model_load_top(), ordo_model_from_image())
 *
 * Its entries, and all it loads later, keep the leaf, the fence code and
 * the tie flag in the fewest bits that hold its leaf numbers and each
 * slice's codes (see ordo_packed_bits()); their incarnation bits read as
 * 0 from then on.  Idempotent.
 *
 * Return: 0, -ENOSPC or -ENOMEM (the copy is unchanged).
 */
int ordo_model_pack(struct ordo_model *m)
{
	u32 i, j, top = 0;

	if (tt_packed(m))
		return 0;
	for (i = m->first; i < m->nsub; i++)
		for (j = 0; m->subs[i].tt != ORDO_SUB_NO_TT &&
		     j < m->subs[i].ntt; j++)
			top = max(top, m->tt[m->subs[i].tt + j].leaf);
	return tt_rebuild(m, NO_SKIP, 0, true, leaf_bits_for(top),
			  CLIENT_TT_SLACK);
}

/**
 * ordo_model_tt_trim() - give back a client copy's spare TT room
 * @m: a client copy whose slices are loaded
 *
 * Loading slice by slice grows the room by steps (CLIENT_TT_GROWTH);
 * when more than 1/32 of it (and 64 units) is spare, repack the slices
 * with that much to spare.
 *
 * Return: 0, or -ENOMEM (the copy is unchanged and usable).
 */
int ordo_model_tt_trim(struct ordo_model *m)
{
	if (!(m->flags & ORDO_MODEL_F_COMPACT) || !tt_base(m) ||
	    m->tt_cap - m->tt_used <= m->tt_used / CLIENT_TT_SLACK + 64)
		return 0;
	return tt_rebuild(m, NO_SKIP, 0, tt_packed(m), m->leaf_bits,
			  CLIENT_TT_SLACK);
}

/*
 * A model whose arrays hold sub-models @lo..@nsub_cap - 1: a client copy
 * keeps none of the image's room below its first sub-model (@lo = first)
 * and no trainer bookkeeping (@meta false); pivots and subs then point @lo
 * entries before their allocations, so that indices stay the image's.
 */
static struct ordo_model *model_alloc(u32 lo, u32 nsub, u32 nsub_cap,
				      u32 tt_cap, bool meta)
{
	struct ordo_model *m;
	u32 i;

	if (!nsub || nsub > nsub_cap || nsub_cap > ORDO_MODEL_MAX_SUBS ||
	    tt_cap > ORDO_MODEL_MAX_TT || lo >= nsub)
		return NULL;
	m = ordo_malloc(sizeof(*m));
	if (!m)
		return NULL;
	memset(m, 0, sizeof(*m));
	m->nsub = nsub;
	m->nsub_cap = nsub_cap;
	m->base = lo;
	m->tt_cap = tt_cap;
	m->pivots = ordo_malloc(sizeof(*m->pivots) * (nsub_cap - lo));
	m->subs = ordo_malloc(sizeof(*m->subs) * (nsub_cap - lo));
	m->tt = tt_alloc(m, tt_cap);
	if (meta)
		m->meta = ordo_malloc(sizeof(*m->meta) * nsub_cap);
	if (!m->pivots || !m->subs || !m->tt || (meta && !m->meta)) {
		ordo_free(m->pivots);
		ordo_free(m->subs);
		m->pivots = NULL;
		m->subs = NULL;
		ordo_model_free(m);
		return NULL;
	}
	m->pivots -= lo;
	m->subs -= lo;
	for (i = lo; i < nsub_cap; i++) {
		m->pivots[i] = 0;
		m->subs[i].tt = ORDO_SUB_NO_TT;
	}
	if (meta)
		memset(m->meta, 0, sizeof(*m->meta) * nsub_cap);
	return m;
}

/**
 * ordo_model_alloc_cap() - allocate an empty model with room to grow
 * @nsub: one past the last sub-model, 1..@nsub_cap (the first is 0;
 *	callers that leave room in front raise ordo_model.first)
 * @nsub_cap: room for sub-models, at most %ORDO_MODEL_MAX_SUBS
 * @tt_cap: TT entries, at most %ORDO_MODEL_MAX_TT
 *
 * Every sub-model starts without a TT slice.
 *
 * Return: the model or NULL.
 */
struct ordo_model *ordo_model_alloc_cap(u32 nsub, u32 nsub_cap, u32 tt_cap)
{
	return model_alloc(0, nsub, nsub_cap, tt_cap, true);
}

/**
 * ordo_model_free() - free a model
 * @m: model or NULL
 */
void ordo_model_free(struct ordo_model *m)
{
	if (!m)
		return;
	if (m->pivots)
		ordo_free(m->pivots + m->base);
	if (m->subs)
		ordo_free(m->subs + m->base);
	ordo_free(m->meta);
	ordo_free(m->tt);
	ordo_free(m->ttp);
	ordo_free(m->levels);
	ordo_free(m);
}

/**
 * ordo_model_drop_tt() - keep the descriptors alone
 * @m: a client copy none of whose slices was loaded
 *
 * Frees the TT room ordo_model_load_top() set aside: a model-only client
 * reads TT entries from the server and keeps none.
 */
void ordo_model_drop_tt(struct ordo_model *m)
{
	ordo_free(tt_base(m));
	m->tt = NULL;
	m->ttp = NULL;
	m->tt_cap = 0;
	m->tt_used = 0;
}

/**
 * ordo_model_mem_bytes() - memory a model holds
 * @m: model
 *
 * Return: bytes of its pivots, sub-models (and a trainer's bookkeeping),
 * pivot search levels and TT storage: for a client copy, its cache
 * without the fixed struct.
 */
u64 ordo_model_mem_bytes(const struct ordo_model *m)
{
	u32 nl = m->nlevels;
	u64 lv = nl ? (u64)m->level_off[nl] + m->level_len[nl] : 0;

	return (u64)(m->nsub_cap - m->base) *
	       (sizeof(*m->pivots) + sizeof(*m->subs)) +
	       (m->meta ? (u64)m->nsub_cap * sizeof(*m->meta) : 0) +
	       lv * sizeof(*m->levels) + tt_bytes(m, m->tt_cap);
}

/**
 * ordo_model_bytes() - published size of a model without its TT
 * @nsub: sub-models
 *
 * Return: bytes of header, pivots and descriptors (with alignment).
 */
u64 ordo_model_bytes(u32 nsub)
{
	return ordo_model_tt_off(nsub);
}

/* TT units reserved for @sub: a client copy's slices hold exactly ntt. */
static u64 slice_cap(const struct ordo_model *m, u32 sub)
{
	const struct ordo_sub *s = &m->subs[sub];

	return m->meta ? m->meta[sub].cap : tt_units(m, s, s->ntt);
}

static void set_cap(struct ordo_model *m, u32 sub, u32 cap)
{
	if (m->meta)
		m->meta[sub].cap = cap;
}

/*
 * Reserve @cap units (>= @n, those the new slice needs) for @sub's slice;
 * see ordo_model_tt_reserve().
 */
static int tt_reserve_units(struct ordo_model *m, u32 sub, u64 n, u64 cap)
{
	struct ordo_sub *s = &m->subs[sub];
	int err;

	if (cap < n)
		return -EINVAL;
	if (s->tt != ORDO_SUB_NO_TT && n <= slice_cap(m, sub))
		return 0;
	/* The slice last handed out grows in place (appends land there). */
	if (s->tt != ORDO_SUB_NO_TT &&
	    s->tt + slice_cap(m, sub) == m->tt_used &&
	    (u64)s->tt + cap <= m->tt_cap) {
		set_cap(m, sub, cap);
		m->tt_used = s->tt + cap;
		return 0;
	}
	if ((u64)m->tt_used + cap > m->tt_cap) {
		if (!(m->flags & ORDO_MODEL_F_COMPACT))
			return -ENOSPC;
		err = tt_rebuild(m, sub, cap, tt_packed(m), m->leaf_bits,
				 CLIENT_TT_GROWTH);
		if (err)
			return err;
	}
	s->tt = m->tt_used;
	set_cap(m, sub, cap);
	m->tt_used += cap;
	return 0;
}

/**
 * ordo_model_tt_reserve() - make room for a sub-model's new TT slice
 * @m: model
 * @sub: sub-model index, < m->nsub
 * @n: entries the new slice needs
 * @cap: slots to reserve if the slice must move, >= @n
 *
 * Keeps the slice in place when @n fits its slots or the slice is the
 * last one handed out (it grows into the free slots after it), else hands
 * out fresh slots; old slots are never reused within an epoch.  Client copies
 * (%ORDO_MODEL_F_COMPACT) repack instead of failing.  The caller writes
 * the entries at m->tt[m->subs[sub].tt] and sets ntt.  Not for packed
 * copies, whose slices are sized in bytes.
 *
 * Return: 0, -EINVAL, -ENOSPC or -ENOMEM.
 */
int ordo_model_tt_reserve(struct ordo_model *m, u32 sub, u32 n, u32 cap)
{
	if (tt_packed(m))
		return -EINVAL;
	return tt_reserve_units(m, sub, n, cap);
}

/*
 * Room in a client copy for @ns's slice (ntt entries at its grid and
 * wide flag) at @sub: its new tt on success.
 */
static int client_reserve(struct ordo_model *m, u32 sub,
			  const struct ordo_sub *ns, u32 *tt)
{
	u64 n = tt_units(m, ns, ns->ntt);
	int err = tt_reserve_units(m, sub, n, n);

	*tt = m->subs[sub].tt;
	return err;
}

/**
 * ordo_model_tt_grow() - more TT room within the epoch
 * @m: the trainer's model
 * @extra: spare entries to add at the end of the TT area
 *
 * The image grows by as much at its end (ordo_region_bytes()); publish
 * the new size with ordo_region_grow().  Bumps top_gen.
 *
 * Return: 0, -ENOSPC past %ORDO_MODEL_MAX_TT, -ENOMEM.
 */
int ordo_model_tt_grow(struct ordo_model *m, u32 extra)
{
	u64 cap = (u64)m->tt_cap + extra;
	void *nt;

	if (cap > ORDO_MODEL_MAX_TT)
		return -ENOSPC;
	nt = tt_alloc(m, cap);
	if (!nt)
		return -ENOMEM;
	memcpy(nt, tt_base(m), tt_bytes(m, m->tt_used));
	ordo_free(tt_base(m));
	if (tt_packed(m))
		m->ttp = nt;
	else
		m->tt = nt;
	m->tt_cap = cap;
	m->top_gen++;
	return 0;
}

/**
 * ordo_sub_to_desc() - encode a sub-model's descriptor
 * @s: sub-model
 * @sum: its checksum (ordo_sub_meta.sum), for the sum field
 * @d: descriptor
 */
void ordo_sub_to_desc(const struct ordo_sub *s, u64 sum,
		      struct ordo_model_desc *d)
{
	memset(d, 0, sizeof(*d));
	d->sum = cpu_to_le64(sum);
	d->slope = cpu_to_le32(s->slope);
	d->tt_start = cpu_to_le32(s->tt);
	d->ntt = cpu_to_le32(s->ntt);
	d->gen = cpu_to_le32(s->gen);
	d->err_over = cpu_to_le16(s->over);
	d->err_under = cpu_to_le16(s->under);
	d->grid = s->grid;
}

/**
 * ordo_tt_to_entry() - encode a TT entry
 * @t: native entry
 * @e: encoded entry
 */
void ordo_tt_to_entry(const struct ordo_tt *t, struct ordo_tt_entry *e)
{
	e->leaf = cpu_to_le32(t->leaf);
	e->code_inca = cpu_to_le32(t->code_inca);
}

/**
 * ordo_sub_sum_head() - start the checksum of a sub-model
 * @epoch: model epoch
 * @sub: sub-model index
 * @pivot: the sub-model's pivot
 * @desc: encoded descriptor (its sum field is not read), any alignment
 *
 * Return: the running state; feed each encoded TT entry to
 * ordo_sub_sum_entry() and finish with ordo_model_fmix().
 */
u64 ordo_sub_sum_head(u64 epoch, u32 sub, u64 pivot, const void *desc)
{
	const u8 *d = desc;
	u64 h = ORDO_MODEL_SUM_SUB;
	u32 i;

	h = ordo_model_mix(h, epoch);
	h = ordo_model_mix(h, sub);
	h = ordo_model_mix(h, pivot);
	for (i = 8; i < ORDO_MODEL_DESC_SIZE; i += 8)
		h = ordo_model_mix(h, ld_le64(d + i));
	return h;
}

/**
 * ordo_sub_sum_entry() - absorb one encoded TT entry
 * @h: running state
 * @entry: %ORDO_TT_ENTRY_SIZE bytes, any alignment
 *
 * Return: the new state.
 */
u64 ordo_sub_sum_entry(u64 h, const void *entry)
{
	return ordo_model_mix(h, ld_le64(entry));
}

/**
 * ordo_sub_checksum() - checksum of a descriptor, its slice and epoch
 * @epoch: model epoch
 * @sub: sub-model index
 * @pivot: the sub-model's pivot
 * @desc: encoded descriptor (its sum field is not read)
 * @slice: @n encoded TT entries, any alignment
 * @n: entries
 *
 * Return: the value ordo_model_desc.sum must hold.
 */
u64 ordo_sub_checksum(u64 epoch, u32 sub, u64 pivot, const void *desc,
		      const void *slice, u32 n)
{
	const u8 *e = slice;
	u64 h = ordo_sub_sum_head(epoch, sub, pivot, desc);
	u32 i;

	for (i = 0; i < n; i++, e += ORDO_TT_ENTRY_SIZE)
		h = ordo_sub_sum_entry(h, e);
	return ordo_model_fmix(h);
}

/**
 * ordo_model_top_sum_head() - start the checksum of the top level
 * @hdr: encoded header (its top_sum field is not read), any alignment
 *
 * Return: the running state; mix in each pivot value with
 * ordo_model_mix() and finish with ordo_model_fmix().
 */
u64 ordo_model_top_sum_head(const void *hdr)
{
	const u8 *b = hdr;
	u64 h = ORDO_MODEL_SUM_TOP;
	u32 i;

	for (i = 0; i < offsetof(struct ordo_model_hdr, top_sum); i += 8)
		h = ordo_model_mix(h, ld_le64(b + i));
	return h;
}

/**
 * ordo_model_top_checksum() - checksum of the header and pivots
 * @hdr: encoded header (its top_sum field is not read)
 * @pivots: the encoded pivot array from pivot 0, any alignment
 * @first: first sub-model in use
 * @nsub: one past the last
 *
 * Return: the value ordo_model_hdr.top_sum must hold.
 */
u64 ordo_model_top_checksum(const void *hdr, const void *pivots, u32 first,
			    u32 nsub)
{
	const u8 *p = pivots;
	u64 h = ordo_model_top_sum_head(hdr);
	u32 i;

	for (i = first; i < nsub; i++)
		h = ordo_model_mix(h, ld_le64(p + 8 * i));
	return ordo_model_fmix(h);
}

/**
 * ordo_model_parse_anchor() - validate the region's anchor
 * @buf: bytes from offset 0 of the region
 * @len: bytes available, at least %ORDO_MODEL_ANCHOR_SIZE
 * @live: region offset of the published image
 * @epoch: its epoch; a header at @live must carry it
 *
 * Return: 0; -ENODATA when no model is published; -EINVAL (malformed).
 */
int ordo_model_parse_anchor(const void *buf, size_t len, u64 *live,
			    u64 *epoch)
{
	struct ordo_model_anchor a;
	u32 i;

	BUILD_BUG_ON(sizeof(a) != ORDO_MODEL_ANCHOR_SIZE);
	if (!buf || len < sizeof(a))
		return -EINVAL;
	memcpy(&a, buf, sizeof(a));
	if (le32_to_cpu(a.magic) != ORDO_MODEL_ANCHOR_MAGIC ||
	    le16_to_cpu(a.version) != ORDO_MODEL_VERSION ||
	    le16_to_cpu(a.anchor_size) != ORDO_MODEL_ANCHOR_SIZE ||
	    a.flags || a.reserved0)
		return -EINVAL;
	for (i = 0; i < ARRAY_SIZE(a.reserved); i++)
		if (a.reserved[i])
			return -EINVAL;
	*live = le64_to_cpu(a.live);
	*epoch = le64_to_cpu(a.epoch);
	if (!*live && !*epoch)
		return -ENODATA;
	if (*live < ORDO_MODEL_ANCHOR_SIZE || *live % ORDO_MODEL_ALIGN ||
	    !*epoch)
		return -EINVAL;
	return 0;
}

/**
 * ordo_model_parse_hdr() - validate an image header
 * @buf: bytes from offset 0 of the image
 * @len: bytes available, at least %ORDO_MODEL_HDR_SIZE
 * @lay: the layout, filled on success
 *
 * Checks every field against the one canonical layout; the checksum needs
 * the pivots too and is checked by ordo_model_load_top().
 *
 * Return: 0 or -EINVAL.
 */
int ordo_model_parse_hdr(const void *buf, size_t len,
			 struct ordo_model_layout *lay)
{
	struct ordo_model_hdr h;
	u32 first, nsub, nsub_cap, tt_cap, nleaves, slots, i;

	BUILD_BUG_ON(sizeof(struct ordo_model_hdr) != ORDO_MODEL_HDR_SIZE);
	BUILD_BUG_ON(sizeof(struct ordo_model_desc) != ORDO_MODEL_DESC_SIZE);
	BUILD_BUG_ON(sizeof(struct ordo_tt_entry) != ORDO_TT_ENTRY_SIZE);
	BUILD_BUG_ON(ORDO_TT_TIE_RIGHT != 1U << ORDO_TT_CODE_BITS);
	if (!buf || len < sizeof(h))
		return -EINVAL;
	memcpy(&h, buf, sizeof(h));
	first = le32_to_cpu(h.sub_first);
	nsub = le32_to_cpu(h.nsub);
	nsub_cap = le32_to_cpu(h.nsub_cap);
	tt_cap = le32_to_cpu(h.tt_cap);
	nleaves = le32_to_cpu(h.nleaves);
	slots = le32_to_cpu(h.leaf_slots);
	if (le32_to_cpu(h.magic) != ORDO_MODEL_MAGIC ||
	    le16_to_cpu(h.version) != ORDO_MODEL_VERSION ||
	    le16_to_cpu(h.hdr_size) != ORDO_MODEL_HDR_SIZE ||
	    le32_to_cpu(h.desc_size) != ORDO_MODEL_DESC_SIZE ||
	    le32_to_cpu(h.tt_entry_size) != ORDO_TT_ENTRY_SIZE ||
	    !le64_to_cpu(h.epoch) || h.flags || h.reserved1)
		return -EINVAL;
	for (i = 0; i < ARRAY_SIZE(h.reserved); i++)
		if (h.reserved[i])
			return -EINVAL;
	if (first >= nsub || nsub > nsub_cap ||
	    nsub_cap > ORDO_MODEL_MAX_SUBS || tt_cap > ORDO_MODEL_MAX_TT ||
	    nleaves < nsub - first || nleaves > tt_cap || !slots)
		return -EINVAL;
	if (le64_to_cpu(h.piv_off) != ORDO_MODEL_HDR_SIZE ||
	    le64_to_cpu(h.desc_off) != ordo_model_desc_off(nsub_cap) ||
	    le64_to_cpu(h.tt_off) != ordo_model_tt_off(nsub_cap) ||
	    le64_to_cpu(h.region_size) !=
	    ordo_model_region_size(nsub_cap, tt_cap))
		return -EINVAL;
	lay->base = 0;
	lay->epoch = le64_to_cpu(h.epoch);
	lay->region_size = le64_to_cpu(h.region_size);
	lay->piv_off = ORDO_MODEL_HDR_SIZE;
	lay->desc_off = ordo_model_desc_off(nsub_cap);
	lay->tt_off = ordo_model_tt_off(nsub_cap);
	lay->top_size = ORDO_MODEL_HDR_SIZE + 8ULL * nsub;
	lay->model_size = lay->desc_off + (u64)ORDO_MODEL_DESC_SIZE * nsub;
	lay->nkeys = le64_to_cpu(h.nkeys);
	lay->first = first;
	lay->nsub = nsub;
	lay->nsub_cap = nsub_cap;
	lay->top_gen = le32_to_cpu(h.top_gen);
	lay->tt_cap = tt_cap;
	lay->nleaves = nleaves;
	lay->leaf_slots = slots;
	lay->eps = le32_to_cpu(h.eps);
	return 0;
}

/**
 * ordo_model_desc_slice() - where a descriptor's TT slice lies
 * @lay: validated layout
 * @desc: encoded descriptor, not yet trusted
 * @off: region byte offset of the slice (@lay->base included)
 * @len: bytes of the slice
 *
 * Return: 0, or -EINVAL if the slice would leave the TT area.
 */
int ordo_model_desc_slice(const struct ordo_model_layout *lay,
			  const void *desc, u64 *off, u64 *len)
{
	struct ordo_model_desc d;
	u32 start, n;

	memcpy(&d, desc, sizeof(d));
	start = le32_to_cpu(d.tt_start);
	n = le32_to_cpu(d.ntt);
	if (!n || n > ORDO_MODEL_MAX_SUB_LEAVES || start > lay->tt_cap ||
	    n > lay->tt_cap - start)
		return -EINVAL;
	*off = lay->base + lay->tt_off + (u64)ORDO_TT_ENTRY_SIZE * start;
	*len = (u64)ORDO_TT_ENTRY_SIZE * n;
	return 0;
}

/**
 * ordo_model_load_top() - start a client copy from the top level
 * @mp: the new model (sub-models without TT slices)
 * @buf: image bytes from its offset 0: header and pivots at least
 * @len: bytes in @buf
 *
 * Return: 0; -EINVAL for a malformed layout or pivots; -EBADMSG when the
 * checksum fails (torn or concurrent read: fetch again); -ENOMEM.
 */
int ordo_model_load_top(struct ordo_model **mp, const void *buf, size_t len)
{
	struct ordo_model_layout lay;
	const u8 *piv;
	struct ordo_model *m;
	u64 prev = 0, sum, room;
	u32 i;
	int err;

	*mp = NULL;
	err = ordo_model_parse_hdr(buf, len, &lay);
	if (err)
		return err;
	if (len < lay.top_size)
		return -EINVAL;
	piv = (const u8 *)buf + lay.piv_off;
	sum = ordo_model_top_checksum(buf, piv, lay.first, lay.nsub);
	if (sum != ld_le64((const u8 *)buf +
			   offsetof(struct ordo_model_hdr, top_sum)))
		return -EBADMSG;
	for (i = lay.first; i < lay.nsub; i++) {
		u64 p = ld_le64(piv + 8 * i);

		if (i > lay.first && p <= prev)
			return -EINVAL;
		prev = p;
	}
	/*
	 * Room for the slices as trained when @buf holds the whole image,
	 * whose bytes bound it; else little (the header alone must not size
	 * an allocation).  A slice that outgrows it repacks them.
	 */
	room = len >= lay.region_size ? lay.nleaves + 64 : 64;
	m = model_alloc(lay.first, lay.nsub, lay.nsub,
			min_t(u64, room, ORDO_MODEL_MAX_TT), false);
	if (!m)
		return -ENOMEM;
	m->epoch = lay.epoch;
	m->first = lay.first;
	m->top_gen = lay.top_gen;
	m->nkeys = lay.nkeys;
	m->leaf_slots = lay.leaf_slots;
	m->eps = lay.eps;
	m->flags = ORDO_MODEL_F_COMPACT;
	for (i = lay.first; i < lay.nsub; i++)
		m->pivots[i] = ld_le64(piv + 8 * i);
	err = ordo_model_index_top(m);
	if (err) {
		ordo_model_free(m);
		return err;
	}
	*mp = m;
	return 0;
}

/* Decoded descriptor fields, checked for range but not yet trusted. */
struct desc_fields {
	u64 sum;
	struct ordo_sub s;
};

static int desc_decode(const void *desc, struct desc_fields *f)
{
	struct ordo_model_desc d;
	u32 slope, ntt;

	memcpy(&d, desc, sizeof(d));
	slope = le32_to_cpu(d.slope);
	ntt = le32_to_cpu(d.ntt);
	memset(f, 0, sizeof(*f));
	if (slope >> (ORDO_MODEL_MANT_BITS + 7) || !ntt ||
	    ntt > ORDO_MODEL_MAX_SUB_LEAVES || d.grid < ORDO_MODEL_GRID_MIN ||
	    d.grid > ORDO_MODEL_GRID_MAX || d.zero[0] || d.zero[1] ||
	    d.zero[2])
		return -EINVAL;
	f->sum = le64_to_cpu(d.sum);
	f->s.slope = slope;
	f->s.tt = le32_to_cpu(d.tt_start);
	f->s.ntt = ntt;
	f->s.grid = d.grid;
	f->s.gen = le32_to_cpu(d.gen);
	f->s.over = le16_to_cpu(d.err_over);
	f->s.under = le16_to_cpu(d.err_under);
	return 0;
}

/**
 * ordo_model_desc_decode() - decode one descriptor without its slice
 * @desc: the encoded descriptor (%ORDO_MODEL_DESC_SIZE bytes)
 * @s: the decoded sub-model; @s->tt is the region's tt_start
 *
 * For readers that cache descriptors alone (and read TT entries on
 * demand): the fields are range-checked but, without the slice, not
 * checksummed, so whatever they lead to must be validated.
 *
 * Return: 0, or -EINVAL for out-of-range fields.
 */
int ordo_model_desc_decode(const void *desc, struct ordo_sub *s)
{
	struct desc_fields f;
	int err = desc_decode(desc, &f);

	if (!err)
		*s = f.s;
	return err;
}

/*
 * No entry may set a bit that must be zero, leaf 0 must sit at position
 * 0, and the grid positions must never decrease nor place a fence
 * outside the window its leaf allows; the stored bounds must hold at the
 * domain's end.  What the codes cannot show (the fences themselves) the
 * leaves' own fences check.
 */
static int slice_check(const struct ordo_sub *s, u64 pivot, u64 end,
		       bool last, const u8 *e)
{
	u64 under = (u64)s->under << ERR_TO_POS;
	u64 base, prev = 0, span, g, want, pos;
	u32 sh, j;

	ordo_sub_code_params(s, &base, &sh);
	span = ordo_sub_span(s);
	for (j = 0; j < s->ntt; j++, e += ORDO_TT_ENTRY_SIZE) {
		u32 ci = (u32)(ld_le64(e) >> 32);

		want = (u64)j << ORDO_MODEL_POS_SHIFT;
		g = code_grid(ci, j, sh);
		if ((j == 0 && ((ci & ORDO_TT_CODE_MASK) != base >> sh ||
				!(ci & ORDO_TT_TIE_RIGHT))) || g < prev ||
		    g > (want + span) >> sh)
			return -EINVAL;
		prev = g;
	}
	if (last || s->under == ORDO_MODEL_ERR_UNBOUNDED)
		return 0;
	/* F saturates at ntt + O leaves: only the under bound can fail there. */
	pos = ordo_sub_pos(s, end - pivot);
	want = (u64)s->ntt << ORDO_MODEL_POS_SHIFT;
	return pos < want && want - pos > under ? -EINVAL : 0;
}

/**
 * ordo_model_load_sub() - install one sub-model and its TT slice
 * @m: client model from ordo_model_load_top()
 * @sub: sub-model index
 * @desc: the encoded descriptor (%ORDO_MODEL_DESC_SIZE bytes)
 * @slice: the encoded TT slice it names
 * @slice_len: bytes in @slice
 *
 * The descriptor and slice may come from separate reads: the checksum
 * binds them (and the epoch), so a read that raced with a patch fails.
 *
 * Return: 0; -EINVAL for malformed or inconsistent bytes; -EBADMSG when
 * the checksum fails (torn read, concurrent patch or other epoch: fetch
 * again); -ENOMEM.
 */
int ordo_model_load_sub(struct ordo_model *m, u32 sub, const void *desc,
			const void *slice, size_t slice_len)
{
	struct desc_fields f;
	struct ordo_sub *s;
	u64 end;
	u32 old, j, top = 0;
	const u8 *e = slice;
	bool last;
	int err;

	if (!ordo_model_has_sub(m, sub) || !desc || !slice)
		return -EINVAL;
	err = desc_decode(desc, &f);
	if (err)
		return err;
	if (slice_len < (u64)ORDO_TT_ENTRY_SIZE * f.s.ntt)
		return -EINVAL;
	if (ordo_sub_checksum(m->epoch, sub, m->pivots[sub], desc, slice,
			      f.s.ntt) != f.sum)
		return -EBADMSG;
	last = sub + 1 >= m->nsub;
	end = last ? U64_MAX : m->pivots[sub + 1];
	err = slice_check(&f.s, m->pivots[sub], end, last, slice);
	if (err)
		return err;
	for (j = 0; j < f.s.ntt; j++) {
		u64 w = ld_le64(e + (size_t)j * ORDO_TT_ENTRY_SIZE);

		top = max_t(u32, top, (u32)w);
		if (((w >> 32) & ORDO_TT_CODE_MASK) >> f.s.grid)
			f.s.wide = 1;
	}
	err = tt_widen(m, top);
	if (err)
		return err;
	s = &m->subs[sub];
	old = s->tt == ORDO_SUB_NO_TT ? 0 : s->ntt;
	err = client_reserve(m, sub, &f.s, &f.s.tt);
	if (err)
		return err;
	*s = f.s;
	for (j = 0; j < f.s.ntt; j++, e += ORDO_TT_ENTRY_SIZE)
		tt_put(m, sub, j, (u32)ld_le64(e), (u32)(ld_le64(e) >> 32));
	m->nleaves = m->nleaves - old + f.s.ntt;
	return 0;
}

/* Domain end of @sub: the next pivot, or U64_MAX for the last one. */
static u64 sub_end(const struct ordo_model *m, u32 sub)
{
	return sub + 1 < m->nsub ? m->pivots[sub + 1] : U64_MAX;
}

/* The sub-model of @m whose pivot is @piv, or U32_MAX. */
static u32 sub_with_pivot(const struct ordo_model *m, u64 piv)
{
	u32 lo = m->first, hi = m->nsub, mid;

	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (m->pivots[mid] < piv)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < m->nsub && m->pivots[lo] == piv ? lo : U32_MAX;
}

/**
 * ordo_model_adopt_sub() - keep a sub-model from the copy being replaced
 * @m: client copy from ordo_model_load_top()
 * @sub: sub-model index
 * @desc: @sub's encoded descriptor, from the bytes @m was loaded from
 * @old: a client copy of the same epoch, loaded before
 *
 * A top level that changed within the epoch (sub-models added at either
 * end or cut in the middle, which moves others to new indices; the first
 * one's pivot moved; the TT area grew) leaves most sub-models as they
 * were.  One whose descriptor matches @old's sub-model of the same pivot
 * and domain end in all but the TT offset and the checksum (slope,
 * bounds, leaf count, patch generation) takes @old's slice without
 * reading it again: within an epoch a slice changes only with a patch,
 * which bumps the generation, and cuts give their pieces pivots @old did
 * not have.  (Whatever a slice says, the leaves' checks decide: an
 * adopted slice can cost reads, never an answer.)
 *
 * Return: 0; -ESTALE when the sub-model is not @old's (read it); -ENOMEM
 * or -ENOSPC (no TT room).
 */
int ordo_model_adopt_sub(struct ordo_model *m, u32 sub, const void *desc,
			 const struct ordo_model *old)
{
	const struct ordo_sub *o;
	struct desc_fields f;
	struct ordo_sub *s;
	u32 j, top = 0, from;
	int err;

	if (!ordo_model_has_sub(m, sub) || old->epoch != m->epoch)
		return -ESTALE;
	from = sub_with_pivot(old, m->pivots[sub]);
	if (from == U32_MAX || sub_end(old, from) != sub_end(m, sub))
		return -ESTALE;
	o = &old->subs[from];
	if (o->tt == ORDO_SUB_NO_TT || desc_decode(desc, &f) ||
	    f.s.slope != o->slope || f.s.ntt != o->ntt || f.s.gen != o->gen ||
	    f.s.grid != o->grid || f.s.over != o->over ||
	    f.s.under != o->under)
		return -ESTALE;
	/* Entries of another kind: read the slice. */
	if ((m->flags ^ old->flags) & ORDO_MODEL_F_PACKED)
		return -ESTALE;
	for (j = 0; j < o->ntt; j++)
		top = max(top, ordo_model_entry(old, from, j).leaf);
	err = tt_widen(m, top);
	if (err)
		return err;
	s = &m->subs[sub];
	f.s.wide = o->wide;
	err = client_reserve(m, sub, &f.s, &f.s.tt);
	if (err)
		return err;
	*s = f.s;
	for (j = 0; j < o->ntt; j++) {
		struct ordo_tt e = ordo_model_entry(old, from, j);

		tt_put(m, sub, j, e.leaf, e.code_inca);
	}
	m->nleaves += o->ntt;
	return 0;
}

/**
 * ordo_model_from_image() - build a client copy from a whole image
 * @mp: the new model, every sub-model loaded
 * @buf: image bytes from its offset 0
 * @len: bytes in @buf
 *
 * Return: as ordo_model_load_top() and ordo_model_load_sub().
 */
int ordo_model_from_image(struct ordo_model **mp, const void *buf,
			  size_t len)
{
	return ordo_model_load_image(mp, buf, len, false);
}

/**
 * ordo_model_load_image() - ordo_model_from_image(), packed if asked
 * @mp: the new model, every sub-model loaded
 * @buf: image bytes from its offset 0
 * @len: bytes in @buf
 * @packed: pack the TT (ordo_model_pack()) before filling it
 *
 * Return: as ordo_model_from_image().
 */
int ordo_model_load_image(struct ordo_model **mp, const void *buf,
			  size_t len, bool packed)
{
	struct ordo_model_layout lay;
	struct ordo_model *m;
	const u8 *b = buf;
	u64 off, n;
	u32 i;
	int err;

	err = ordo_model_parse_hdr(buf, len, &lay);
	if (err)
		return err;
	if (len < lay.model_size)
		return -EINVAL;
	err = ordo_model_load_top(&m, buf, len);
	if (err)
		return err;
	if (packed)
		err = ordo_model_pack(m);
	for (i = lay.first; !err && i < lay.nsub; i++) {
		const u8 *d = b + lay.desc_off + ORDO_MODEL_DESC_SIZE * i;

		err = ordo_model_desc_slice(&lay, d, &off, &n);
		if (!err && (off > len || n > len - off))
			err = -EINVAL;
		if (!err)
			err = ordo_model_load_sub(m, i, d, b + off, n);
	}
	if (err) {
		ordo_model_free(m);
		return err;
	}
	ordo_model_tt_trim(m);	/* on -ENOMEM it keeps the spare room */
	*mp = m;
	return 0;
}

/**
 * ordo_model_from_region() - build a client copy from a whole region
 * @mp: the new model, every sub-model loaded
 * @buf: region bytes from offset 0 (the anchor and the live image)
 * @len: bytes in @buf
 *
 * Return: as ordo_model_from_image(); -ENODATA when no model is
 * published; -EBADMSG when the image at the anchor's offset has another
 * epoch (a publication in progress: read again).
 */
int ordo_model_from_region(struct ordo_model **mp, const void *buf,
			   size_t len)
{
	struct ordo_model_layout lay;
	const u8 *b = buf;
	u64 live, epoch;
	int err;

	*mp = NULL;
	err = ordo_model_parse_anchor(buf, len, &live, &epoch);
	if (err)
		return err;
	if (live > len)
		return -EINVAL;
	err = ordo_model_parse_hdr(b + live, len - live, &lay);
	if (err)
		return err;
	if (lay.epoch != epoch)
		return -EBADMSG;
	return ordo_model_from_image(mp, b + live, len - live);
}
