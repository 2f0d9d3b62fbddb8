// SPDX-License-Identifier: GPL-2.0
/*
 * ordo learned model, trainer half.  The model is a list of sub-models, one
 * per run of leaves whose low fences a single line fits within an error
 * bound eps (an optimal free-intercept fit over convex hulls, exact in
 * integers with 128-bit cross products; the line is stored through the
 * run's first fence, its offset absorbed by the bounds) and rises at least
 * one fence-code grid cell between consecutive fences.  Sub-model
 * domains are cut at fences, so together they tile the whole key space and
 * no key falls between two sub-models.  After fitting, the bounds are
 * measured with the predictor's own arithmetic and stored.
 */
#include "compat.h"
#include "model.h"

#define ERR_TO_POS	(ORDO_MODEL_POS_SHIFT - ORDO_MODEL_ERR_SHIFT)

/* Error bounds (1/256 leaf) tried when training to a sub-model count. */
static const u32 eps_ladder[] = {
	16, 32, 64, 128, 192, 256, 384, 512, 768, 1024, 1536, 2048, 3072,
	4096, 6144, 8192, 12288, 16384, 24576, 32768, 49152, 65024,
};

/**
 * ordo_model_params_default() - defaults for 16-slot leaves
 * @p: parameters to fill
 *
 * 512 leaves per sub-model keep the model near 0.5% of the inner-node
 * bytes; the TT's fences make the leaf choice exact regardless.
 */
void ordo_model_params_default(struct ordo_model_params *p)
{
	memset(p, 0, sizeof(*p));
	p->leaf_slots = 16;
	p->leaves_per_sub = 512;
	p->max_sub_leaves = 4096;
	p->eps = 1024;
	p->tt_slack_pct = 25;
	p->tt_spare_pct = 50;
	p->expand_err_x = 4;
}

static int keys_check(const struct ordo_leaf_info *l, const u64 *k)
{
	u32 c;

	for (c = 0; c < l->count; c++) {
		if (k[c] < l->low || (c && k[c] <= k[c - 1]))
			return -EINVAL;
		if (!(l->flags & ORDO_LEAF_LAST) && k[c] >= l->high)
			return -EINVAL;
	}
	return 0;
}

/**
 * ordo_leaf_set_check() - validate a leaf snapshot against a key domain
 * @set: leaves (and optionally keys)
 * @lo: the domain's inclusive low end
 * @hi: the domain's exclusive high end, unless @last
 * @last: the domain runs to U64_MAX inclusive
 *
 * Return: 0; -ERANGE if the leaves do not start at @lo or end at @hi;
 * -EINVAL if fences, flags or keys are inconsistent.
 */
int ordo_leaf_set_check(const struct ordo_leaf_set *set, u64 lo, u64 hi,
			bool last)
{
	const struct ordo_leaf_info *lv = set->leaves;
	const u64 *k = set->keys;
	u32 i, n = set->nleaves;

	if (!lv || !n || n > ORDO_MODEL_MAX_TT)
		return -EINVAL;
	if (lv[0].low != lo)
		return -ERANGE;
	for (i = 0; i < n; i++) {
		const struct ordo_leaf_info *l = &lv[i];
		bool has_high = !(l->flags & ORDO_LEAF_LAST);

		if (l->flags & ~ORDO_LEAF_LAST)
			return -EINVAL;
		if (i + 1 < n) {
			if (!has_high || l->high <= l->low ||
			    l->high != lv[i + 1].low)
				return -EINVAL;
		} else if (last ? has_high : !has_high || l->high != hi) {
			return -ERANGE;
		} else if (has_high && l->high <= l->low) {
			return -EINVAL;
		}
		if (k) {
			if (keys_check(l, k))
				return -EINVAL;
			k += l->count;
		}
	}
	return 0;
}

/*
 * The free-intercept fit of a run (O'Rourke 1981; the PGM-index's
 * OptimalPiecewiseLinearModel).  Fence j of a run is the point (dx_j,
 * j << 32), dx_j = ordo_model_dx(fence, pivot), with ends eps above and
 * below (fence 0, the pivot's, has ends pla_eps0() away).  The lines
 * between the ends of every fence so far form a convex set; the fit keeps
 * its shallowest line, through an upper end and a later lower end (mn[]),
 * its steepest, through a lower end and a later upper end (mx[]), and the
 * vertices either can turn on next: the lower hull of the upper ends (up)
 * and the upper hull of the lower ends (lo), stored as fence indices.
 *
 * Coordinates are exact: dx < 2^64; y = (j << 32) +- eps with j < 2^30
 * (ORDO_MODEL_MAX_TT) and eps < 2^40, so |y| and every |dy| stay below
 * 2^63 and a product |dy| * dx below 2^127 in an unsigned 128-bit integer.
 */
struct pla_pt {
	u64 x;
	s64 y;
};

/* What pla_add() changes, for pla_undo(). */
struct pla_state {
	u32 up_s, up_e, lo_s, lo_e;	/* live hull vertices: [s, e) */
	u32 npts;			/* fences in the fit */
	u64 gap;			/* least dx between fences j - 1, j */
	struct pla_pt mn[2];		/* shallowest: up end, later lo end */
	struct pla_pt mx[2];		/* steepest: lo end, later up end */
};

/* A run's fit, its hulls' room and what pla_undo() needs. */
struct pla {
	const struct ordo_leaf_info *lv;	/* the run's leaves */
	u64 x0;				/* pivot */
	s64 eps, eps0;
	u64 cell;			/* pla_cell(), or 0: no cell bound */
	u32 *up, *lo;			/* room for a run's fences each */
	struct pla_state st;
	struct pla_state old;		/* before the last pla_add() */
	u32 up_at, lo_at;		/* slots it wrote, or U32_MAX */
	u32 up_was, lo_was;		/* and their former vertices */
	struct pla_pt fl;		/* the end point's lower end */
	bool has_fl;
};

/* Workspace for runs of up to @cap fences.  Return: 0 or -ENOMEM. */
static int pla_alloc(struct pla *pl, u32 cap)
{
	memset(pl, 0, sizeof(*pl));
	pl->up = ordo_malloc(2 * sizeof(*pl->up) * (size_t)cap);
	if (!pl->up)
		return -ENOMEM;
	pl->lo = pl->up + cap;
	return 0;
}

static void pla_free(struct pla *pl)
{
	ordo_free(pl->up);
}

/*
 * The tolerance at the pivot: a line within t of (0, 0) and eps of the
 * other fences, stored through (0, 0), runs at most eps + t ahead of or
 * behind any fence; t = eps keeps the window within 2 * eps, and t is
 * less where eps + eps would exceed the largest bound a descriptor holds
 * (one 1/256 leaf below it is left for the slope's rounding).
 */
static s64 pla_eps0(u64 eps)
{
	u64 top = (u64)(ORDO_MODEL_ERR_UNBOUNDED - 2) << ERR_TO_POS;

	return min(eps, eps < top ? top - eps : 0);
}

/* The upper (@up) or lower end of fence @j of the run. */
static struct pla_pt pla_end(const struct pla *pl, u32 j, bool up)
{
	s64 t = j ? pl->eps : pl->eps0;
	struct pla_pt p = {
		.x = ordo_model_dx(pl->lv[j].low, pl->x0),
		.y = ((s64)j << ORDO_MODEL_POS_SHIFT) + (up ? t : -t),
	};

	return p;
}

/*
 * Grid cells a line rises at least between two consecutive fences: a key
 * whose cell is its leaf's upper fence's cannot be ordered against that
 * fence and costs a second leaf in the read, so a leaf that spans CELL_RISE
 * cells sends at most about 1/CELL_RISE of its keys to two leaves.  One
 * cell would do for the fences alone (osm, 10M keys: 1.045 leaves per GET,
 * 37,148 sub-models); 16 reads 1.010 for 16% more sub-models (4: 1.019,
 * 9%).  Only lines shallow against their fences' gaps, dense clusters
 * inside wide windows, ever meet the bound.
 */
#define CELL_RISE	16

/*
 * The rise the line needs between two consecutive fences for their grid
 * cells to lie CELL_RISE apart, plus one: a run's window O + U (both
 * bounds rounded up to 1/256 leaf) is at most 2 * eps + 2/256 leaf, so its
 * code shift (ordo_sub_code_params()) is at most that of 2^32 + 2 * eps +
 * 2^25, and a rise of F of CELL_RISE << shift keeps (F + U) >> shift that
 * far apart.  The one more covers the floor in F and the slope's fixed
 * point (pla_slope()).
 */
static u64 pla_cell(u64 eps)
{
	u64 span = (1ULL << ORDO_MODEL_POS_SHIFT) + 2 * eps +
		   (2ULL << ERR_TO_POS);

	return ((u64)CELL_RISE << ordo_code_shift(span, ORDO_MODEL_GRID_MAX)) +
	       1;
}

/* Start a fit at fence 0; @sep: bound the slope below by pla_cell(). */
static void pla_init(struct pla *pl, const struct ordo_leaf_info *lv,
		     u64 x0, u64 eps, bool sep)
{
	pl->lv = lv;
	pl->x0 = x0;
	pl->eps = eps;
	pl->eps0 = pla_eps0(eps);
	pl->cell = sep ? pla_cell(eps) : 0;
	memset(&pl->st, 0, sizeof(pl->st));
	pl->st.npts = 1;
	pl->st.gap = U64_MAX;
	pl->st.up_e = 1;
	pl->st.lo_e = 1;
	pl->st.mn[0] = pla_end(pl, 0, true);
	pl->st.mx[0] = pla_end(pl, 0, false);
	pl->up[0] = 0;
	pl->lo[0] = 0;
	pl->has_fl = false;
}

/*
 * The sign of slope(p, q) - slope(r, t), for p.x < q.x and r.x < t.x:
 * the signs of the rises first, then their magnitudes cross-multiplied.
 */
static inline int slope_cmp(const struct pla_pt *p, const struct pla_pt *q,
			    const struct pla_pt *r, const struct pla_pt *t)
{
	s64 d1 = q->y - p->y, d2 = t->y - r->y;
	bool neg = d1 < 0, neg2 = d2 < 0;
	__uint128_t a, b;

	if (neg != neg2)
		return neg ? -1 : 1;
	a = (__uint128_t)(neg ? -(u64)d1 : (u64)d1) * (t->x - r->x);
	b = (__uint128_t)(neg ? -(u64)d2 : (u64)d2) * (q->x - p->x);
	if (a == b)
		return 0;
	return (a > b) != neg ? 1 : -1;
}

/*
 * The vertex of hull @h (ends @up) from index @s on whose line to @p is
 * the steepest (@dir 1) or the shallowest (-1), into *@best: the slopes
 * to @p are unimodal along a hull, so walk while they improve or tie.
 * Vertices at or right of @p (the fence of @p itself) bound nothing.
 * Return: its index.
 */
static u32 pla_tangent(const struct pla *pl, const u32 *h, u32 s, u32 e,
		       bool up, struct pla_pt p, int dir, struct pla_pt *best)
{
	struct pla_pt v;
	u32 i;

	*best = pla_end(pl, h[s], up);
	for (i = s + 1; i < e; i++) {
		v = pla_end(pl, h[i], up);
		if (v.x >= p.x || dir * slope_cmp(&v, &p, best, &p) < 0)
			break;
		*best = v;
		s = i;
	}
	return s;
}

/* Push fence @j (end @p) onto hull @h, popping what it hides. */
static void pla_push(struct pla *pl, u32 *h, u32 s, u32 *e, bool up,
		     u32 j, struct pla_pt p, u32 *at, u32 *was)
{
	struct pla_pt o, v;

	for (; *e >= s + 2; --*e) {
		o = pla_end(pl, h[*e - 2], up);
		v = pla_end(pl, h[*e - 1], up);
		/* up keeps left turns (a lower hull), lo right turns */
		if ((up ? 1 : -1) * slope_cmp(&o, &p, &o, &v) > 0)
			break;
	}
	*at = *e;
	*was = h[*e];
	h[(*e)++] = j;
}

/* Is the steepest line's slope below the cell bound pl->cell / gap? */
static bool pla_below_cell(const struct pla *pl)
{
	const struct pla_state *st = &pl->st;
	u64 rise = st->mx[1].y - st->mx[0].y;	/* > 0 */

	return pl->cell && (__uint128_t)rise * st->gap <
			   (__uint128_t)pl->cell * (st->mx[1].x - st->mx[0].x);
}

/* Take back the last pla_add() that succeeded (once). */
static void pla_undo(struct pla *pl)
{
	if (pl->up_at != U32_MAX)
		pl->up[pl->up_at] = pl->up_was;
	if (pl->lo_at != U32_MAX)
		pl->lo[pl->lo_at] = pl->lo_was;
	pl->st = pl->old;
}

/*
 * Add fence @j (right of every fence so far), whose lower end passed
 * pla_floor() as the end point: it lies on or below the steepest line.
 * Return: false, with nothing changed, if no line is within the bounds
 * of every fence, or (pl->cell) none of them is as steep as the cell
 * bound of the least gap between consecutive fences.
 */
static bool pla_add(struct pla *pl, u32 j)
{
	struct pla_state *st = &pl->st;
	struct pla_pt u = pla_end(pl, j, true), l = pla_end(pl, j, false);
	u64 gap = u.x - ordo_model_dx(pl->lv[j - 1].low, pl->x0);

	pl->old = *st;
	pl->up_at = U32_MAX;
	pl->lo_at = U32_MAX;
	st->gap = min(st->gap, gap);
	if (st->npts == 1) {	/* any two fences fit a line */
		st->mn[1] = l;
		st->mx[1] = u;
		pla_push(pl, pl->up, st->up_s, &st->up_e, true, j, u,
			 &pl->up_at, &pl->up_was);
		pla_push(pl, pl->lo, st->lo_s, &st->lo_e, false, j, l,
			 &pl->lo_at, &pl->lo_was);
		goto out;
	}
	/* Below the shallowest line: no line left. */
	if (slope_cmp(&st->mn[1], &u, &st->mn[0], &st->mn[1]) < 0) {
		pla_undo(pl);
		return false;
	}
	if (slope_cmp(&st->mx[0], &u, &st->mx[0], &st->mx[1]) < 0) {
		/* u is below the steepest line: it turns on the lo hull */
		st->lo_s = pla_tangent(pl, pl->lo, st->lo_s, st->lo_e, false,
				       u, -1, &st->mx[0]);
		st->mx[1] = u;
		pla_push(pl, pl->up, st->up_s, &st->up_e, true, j, u,
			 &pl->up_at, &pl->up_was);
	}
	if (slope_cmp(&st->mn[0], &l, &st->mn[0], &st->mn[1]) > 0) {
		/* l is above the shallowest line: it turns on the up hull */
		st->up_s = pla_tangent(pl, pl->up, st->up_s, st->up_e, true,
				       l, 1, &st->mn[0]);
		st->mn[1] = l;
		pla_push(pl, pl->lo, st->lo_s, &st->lo_e, false, j, l,
			 &pl->lo_at, &pl->lo_was);
	}
out:
	/* The steepest line is the steepest of the fit: none left. */
	if (pla_below_cell(pl)) {
		pla_undo(pl);
		return false;
	}
	st->npts++;
	return true;
}

/*
 * Make the end point (@dx, @y) the run's floor: some line of the fit
 * passes no more than eps below it.  The steepest line is the highest
 * one right of its upper end, hence at @dx.  Return: false, with the
 * floor unchanged, if none does.
 */
static bool pla_floor(struct pla *pl, u64 dx, u64 y)
{
	const struct pla_state *st = &pl->st;
	struct pla_pt f = { .x = dx, .y = (s64)y - pl->eps };

	if (st->npts > 1 &&
	    slope_cmp(&st->mx[0], &f, &st->mx[0], &st->mx[1]) > 0)
		return false;
	pl->fl = f;
	pl->has_fl = true;
	return true;
}

static unsigned int bitlen(u64 v)
{
	return v ? 64 - __builtin_clzll(v) : 0;
}

/*
 * The fit's slopes are fixed point with FIX_BITS of mantissa; the
 * published one keeps its top ORDO_MODEL_MANT_BITS (set_slope()).
 */
#define FIX_BITS	(ORDO_MODEL_MANT_BITS + ORDO_MODEL_MANT_SCALE)

/* Shift that gives p/q a mantissa just below 2^FIX_BITS. */
static unsigned int frac_shift(u64 p, u64 q)
{
	int sh = FIX_BITS - 1 - (int)bitlen(p) + (int)bitlen(q);

	return clamp_t(int, sh, 0, ORDO_MODEL_SHIFT_MAX);
}

/*
 * floor(p * 2^sh / q) for p/q * 2^sh < 2^FIX_BITS (sh from frac_shift() of a
 * ratio >= p/q): one 128-by-64 division whose quotient provably fits.
 */
static u64 frac_fix(u64 p, u64 q, unsigned int sh)
{
	unsigned int t1, t2;

	if (!p)
		return 0;
	t1 = min_t(unsigned int, sh, 64 - bitlen(p));
	t2 = sh - t1;
	return mul_u64_u64_div_u64(p << t1, 1ULL << t2, q);
}

/*
 * Publish a slope in [ml, mh] * 2^-sh (FIX_BITS fixed point): the middle
 * multiple of 2^32 in it, else the one just above ml (an interval that
 * narrow is rare; the bounds are measured on the stored line all the
 * same).  Never below ml, so the cell bound of pla_slope() still holds.
 */
static void set_slope(struct ordo_sub *s, u64 ml, u64 mh, unsigned int sh)
{
	u64 lo = (ml >> ORDO_MODEL_MANT_SCALE) +
		 !!(ml & ((1ULL << ORDO_MODEL_MANT_SCALE) - 1));
	u64 hi = mh >> ORDO_MODEL_MANT_SCALE;
	u64 m = lo <= hi ? lo + (hi - lo) / 2 : lo;

	if (m > ORDO_MODEL_MANT_MASK) {	/* ml rounded up to 2^24 */
		if (sh) {
			m >>= 1;
			sh--;
		} else {
			m = ORDO_MODEL_MANT_MASK;
		}
	}
	ordo_sub_set_slope(s, m, sh);
}

/* Rise and run of the line through @p and @q (p.x < q.x). */
static void pla_rise(struct pla_pt p, struct pla_pt q, s64 *dy, u64 *dx)
{
	*dy = q.y - p.y;
	*dx = q.x - p.x;
}

/*
 * The fit's slope as a fixed-point one: the middle of the slopes its
 * lines take, [max(shallowest, 0, cell / gap), steepest], the shallowest
 * raised by the floor where it passes more than eps below the end point,
 * cell / gap the cell bound (pla_cell(), 0 without it) of the least gap.
 * The fixed point rounds the low end down by less than 2^-shift, whose
 * product with any gap of the run is below 1 (mh >= 2^54 and the steepest
 * line rises less than 2^42 over a gap), so F still rises 2^shift there.  A lone
 * fence has no steepest line: the line through the pivot that meets the
 * floor, if any.  (Rising points need no negative slope: whatever fits
 * with s < 0 fits with s = 0 at its height over the pivot.)
 */
static void pla_slope(const struct pla *pl, struct ordo_sub *s)
{
	const struct pla_state *st = &pl->st;
	struct pla_pt mn0 = st->mn[0], f = pl->fl;
	unsigned int sh;
	u64 hd, ld, mh, ml;
	s64 hn, ln;

	s->slope = 0;
	if (st->npts == 1) {
		if (pl->has_fl && f.y > 0) {
			sh = frac_shift(f.y, f.x);
			ml = frac_fix(f.y, f.x, sh);
			set_slope(s, ml, ml, sh);
		}
		return;
	}
	pla_rise(st->mx[0], st->mx[1], &hn, &hd);
	if (pl->has_fl && slope_cmp(&mn0, &f, &mn0, &st->mn[1]) > 0)
		pla_tangent(pl, pl->up, st->up_s, st->up_e, true, f, 1, &mn0);
	else
		f = st->mn[1];
	pla_rise(mn0, f, &ln, &ld);
	if (ln < 0) {
		ln = 0;
		ld = 1;
	}
	/* the cell bound, steepest >= it (pla_add()) */
	if ((__uint128_t)pl->cell * ld > (__uint128_t)ln * st->gap) {
		ln = pl->cell;
		ld = st->gap;
	}
	/* hn > 0: a lower end rises to a later fence's upper end */
	sh = frac_shift(hn, hd);
	mh = frac_fix(hn, hd, sh);
	ml = frac_fix(ln, ld, sh);
	set_slope(s, ml, mh, sh);
}

/* The chord through (0, 0) and (@dx, @n leaves). */
static void chord_slope(struct ordo_sub *s, u32 n, u64 dx)
{
	u64 y = (u64)n << ORDO_MODEL_POS_SHIFT, m;
	unsigned int sh;

	s->slope = 0;
	if (!dx)
		return;
	sh = frac_shift(y, dx);
	m = frac_fix(y, dx, sh);
	set_slope(s, m, m, sh);
}

static u16 err_units(u64 e)
{
	u64 u = (e >> ERR_TO_POS) + !!(e & ((1ULL << ERR_TO_POS) - 1));

	return u >= ORDO_MODEL_ERR_UNBOUNDED ? ORDO_MODEL_ERR_UNBOUNDED : u;
}

/*
 * Keys that share a grid cell with a fence (ties) cost a second leaf, or
 * a second read when absent at training: a slice's grid keeps the cells
 * that hold fences to 1/2^TIE_SHARE of its leaves' key ranges on average.
 */
#define TIE_SHARE	6

/*
 * The coarsest grid whose cells keep @s's consecutive fences CELL_RISE
 * apart (@s's bounds final) and ties rare (TIE_SHARE).  The least rise
 * of F between two fences, d, allows the code shift sh with CELL_RISE <<
 * sh <= d, since (a >> sh) - (b >> sh) >= (a - b) >> sh; a cell of 2^sh
 * is 2^sh / g of a leaf whose fences lie g apart, so the mean of 2^sh / g
 * over the n - 1 gaps, r / (n - 1) with r the sum of 2^40 / g, stays
 * within 2^-TIE_SHARE while 2^sh * r <= (n - 1) << (40 - TIE_SHARE).  A
 * run fitted with the cell bound always has a grid (pla_cell() holds it
 * at %ORDO_MODEL_GRID_MAX); a retrained run that could not be cut takes
 * the finest.  A client keeps each slice's codes in about grid bits: a
 * slice of evenly spread keys on a coarse grid costs a few bits a leaf,
 * one that cuts through a dense cluster keeps fine codes.
 */
static void sub_grid(struct ordo_sub *s, const struct ordo_leaf_info *lv,
		     u32 n, u64 x0)
{
	u64 pos, prev = 0, d = U64_MAX, r = 0, q;
	u32 bits, sh, j;

	for (j = 0; j < n; j++) {
		pos = ordo_sub_pos(s, ordo_model_dx(lv[j].low, x0));
		if (j) {
			d = min(d, pos - prev);
			/* each term at most 2^38: r < 2^62 */
			r += pos - prev < 4 ? 1ULL << 38 :
			     div64_u64(1ULL << 40, pos - prev);
		}
		prev = pos;
	}
	s->grid = ORDO_MODEL_GRID_MAX;
	if (d < CELL_RISE)
		return;
	sh = bitlen(d / CELL_RISE) - 1;
	if (r) {
		q = div64_u64((u64)(n - 1) << (40 - TIE_SHARE), r);
		sh = min(sh, q ? bitlen(q) - 1 : 0);
	}
	bits = bitlen(ordo_sub_span(s));
	s->grid = bits <= sh + ORDO_MODEL_GRID_MIN ? ORDO_MODEL_GRID_MIN :
		  min_t(u32, bits - sh, ORDO_MODEL_GRID_MAX);
}

/*
 * Measure the bounds on the line: both at every fence, the under bound at
 * the domain's end too (F saturates above every fence, so over the end
 * it only ever reaches the cap); ordo_sub_window() relies on exactly these.
 * Then pick the grid of the fence codes (sub_grid()).
 */
static void sub_bounds(struct ordo_sub *s, const struct ordo_leaf_info *lv,
		       u32 n, u64 end, u64 x0)
{
	u64 over = 0, under = 0;
	u32 j;

	for (j = 0; j <= n; j++) {
		u64 x = j < n ? lv[j].low : end;
		u64 want = (u64)j << ORDO_MODEL_POS_SHIFT, pos;

		if (j == n && x == lv[n - 1].low)
			break;	/* the last leaf starts at U64_MAX */
		pos = ordo_sub_line(s, ordo_model_dx(x, x0));
		if (pos > want && j < n)
			over = max(over, pos - want);
		else if (pos < want)
			under = max(under, want - pos);
	}
	s->over = err_units(over);
	s->under = err_units(under);
	sub_grid(s, lv, n, x0);
}

/*
 * The anchor (pivot) of a run from lv[a]: its low fence, except for the
 * run of the leftmost leaf (fence 0), whose line starts one leaf width
 * (that of leaf a + 1) before the second fence.  Keys below the first
 * sub-model's pivot count as the pivot, so its line need not pass through
 * key 0: descending inserts pile leaves up far above 0, and a line
 * through 0 could follow them for a few leaves only.
 */
static u64 seg_anchor(const struct ordo_leaf_info *lv, u32 a, u32 n, u64 end)
{
	u64 f1, f2;

	if (lv[a].low || n - a < 2)
		return lv[a].low;
	f1 = lv[a + 1].low;
	f2 = n - a > 2 ? lv[a + 2].low : end;
	return f1 - min(f1, max(f2 - f1, 1ULL));
}

/*
 * Leaves [a, b) become one sub-model: the longest run (at most @cap leaves,
 * 0: no cap) whose fences one line fits within @eps (the pivot's fence
 * within pla_eps0(); @pl holds the fit, pivoted at @x0, seg_anchor()), and
 * whose end point (the next fence, or @end after the last leaf) lies no
 * more than @eps above that line: F saturates past the last fence, so a
 * line that runs past the end costs nothing there.  The last sub-model
 * thus fits its real fences however far @end lies.  With @sep the line
 * also rises a cell between consecutive fences (pla_cell()), so their
 * grid cells differ; a fence that breaks that ends the run as one off
 * the hull does.  Retraining the same leaves with the same @end replays
 * the same steps.
 */
static u32 seg_end(const struct ordo_leaf_info *lv, u32 a, u32 n, u64 end,
		   u64 x0, u64 eps, u32 cap, bool sep, struct pla *pl)
{
	u32 b = a + 1, e, lim = cap && cap < n - a ? a + cap : n;

	pla_init(pl, lv + a, x0, eps, sep);
	for (e = a + 1; e <= lim; e++) {
		u64 x = e < n ? lv[e].low : end;
		u64 y = (u64)(e - a) << ORDO_MODEL_POS_SHIFT;

		if (x == x0)
			break;	/* a single leaf at U64_MAX */
		/* Point e as the run's end: only a floor. */
		if (!pla_floor(pl, x - x0, y)) {
			pla_undo(pl);	/* fence e - 1 ends the run */
			break;
		}
		b = e;
		/* Point e as a fence inside a longer run. */
		if (e == lim || !pla_add(pl, e - a))
			break;
	}
	return b;
}

/* First j >= 1 whose fence shares leaf j - 1's grid cell, else 0. */
static u32 first_tie(const struct ordo_sub *s, const struct ordo_leaf_info *lv,
		     u32 n, u64 x0)
{
	u64 base, prev = 0, g;
	u32 sh, j;

	ordo_sub_code_params(s, &base, &sh);
	for (j = 0; j < n; j++) {
		g = (ordo_sub_pos(s, ordo_model_dx(lv[j].low, x0)) + base) >> sh;
		if (j && g == prev)
			return j;
		prev = g;
	}
	return 0;
}

/*
 * seg_end() for a full training, into @t and @tm: the run's slope, bounds,
 * ntt and tied (none: the cell bound keeps every two fences apart).
 */
static u32 seg_fit(const struct ordo_leaf_info *lv, u32 a, u32 n, u64 end,
		   u64 x0, u64 eps, u32 cap, struct ordo_sub *t,
		   struct ordo_sub_meta *tm, struct pla *pl)
{
	u32 b = seg_end(lv, a, n, end, x0, eps, cap, true, pl);

	memset(t, 0, sizeof(*t));
	t->ntt = b - a;
	pla_slope(pl, t);
	sub_bounds(t, lv + a, t->ntt, b < n ? lv[b].low : end, x0);
	tm->tied = !!first_tie(t, lv + a, t->ntt, x0);
	return b;
}

static u32 seg_count(const struct ordo_leaf_info *lv, u32 n, u64 eps,
		     u32 cap, u32 limit, struct pla *pl)
{
	u32 a = 0, cnt = 0;

	while (a < n && cnt <= limit) {
		a = seg_end(lv, a, n, U64_MAX, seg_anchor(lv, a, n, U64_MAX),
			    eps, cap, true, pl);
		cnt++;
	}
	return cnt;
}

/*
 * The smallest bound of the ladder whose full training cuts at most an
 * eighth more runs than the fewest: the fewest often come at a wide
 * bound, whose windows and cells cost every lookup more than the few
 * sub-models they save.
 */
static u32 fewest_eps(const struct ordo_leaf_info *lv, u32 n, u32 cap,
		      struct pla *pl)
{
	u32 i, best = 0, cnt, best_cnt = U32_MAX;

	for (i = 0; i < ARRAY_SIZE(eps_ladder); i++) {
		cnt = seg_count(lv, n, (u64)eps_ladder[i] << ERR_TO_POS, cap,
				best_cnt, pl);
		if (cnt < best_cnt) {
			best_cnt = cnt;
			best = i;
		}
		ordo_cond_resched();
	}
	/* The smallest bound within an eighth of the fewest. */
	best_cnt += best_cnt / 8;
	for (i = 0; i < best; i++) {
		cnt = seg_count(lv, n, (u64)eps_ladder[i] << ERR_TO_POS, cap,
				best_cnt, pl);
		if (cnt <= best_cnt)
			return eps_ladder[i];
		ordo_cond_resched();
	}
	return eps_ladder[best];
}

/* Smallest eps of the ladder whose segmentation meets the count target. */
static u32 pick_eps(const struct ordo_leaf_info *lv, u32 n,
		    const struct ordo_model_params *p, u32 cap, struct pla *pl)
{
	u32 lo = 0, hi = ARRAY_SIZE(eps_ladder) - 1;
	bool met = false;
	u64 target;

	if (p->target_subs)
		target = p->target_subs;
	else if (p->leaves_per_sub)
		target = DIV_ROUND_UP((u64)n, p->leaves_per_sub);
	else
		return p->eps ? min_t(u32, p->eps, ORDO_MODEL_ERR_UNBOUNDED - 1) :
				1024;
	target = max_t(u64, target, DIV_ROUND_UP((u64)n, cap));
	target = min_t(u64, target, ORDO_MODEL_MAX_SUBS);
	while (lo < hi) {
		u32 mid = (lo + hi) / 2;
		u64 eps = (u64)eps_ladder[mid] << ERR_TO_POS;

		if (seg_count(lv, n, eps, cap, target, pl) <= target) {
			hi = mid;
			met = true;
		} else {
			lo = mid + 1;
		}
		ordo_cond_resched();
	}
	/* hi only moves to a bound that met the target; the last is untried. */
	if (met || seg_count(lv, n, (u64)eps_ladder[lo] << ERR_TO_POS, cap,
			     target, pl) <= target)
		return eps_ladder[lo];
	/*
	 * Out of reach: wide bounds merge the fences of dense clusters and
	 * cost cuts of their own, so the count is least at some middle
	 * bound.  Take the bound of the fewest sub-models.
	 */
	return fewest_eps(lv, n, cap, pl);
}

static u32 sub_leaves_cap(const struct ordo_model_params *p)
{
	return p->max_sub_leaves ?
	       min_t(u32, p->max_sub_leaves, ORDO_MODEL_MAX_SUB_LEAVES) :
	       ORDO_MODEL_MAX_SUB_LEAVES;
}

static u32 slack_slots(u32 n, const struct ordo_model_params *p)
{
	u64 slots = n + DIV_ROUND_UP((u64)n * p->tt_slack_pct, 100);

	return min_t(u64, slots, ORDO_MODEL_MAX_SUB_LEAVES);
}

/*
 * TT entries of sub-model @s, whose slope and bounds are final.  A tie
 * (a key whose grid position equals fence j's) may be settled for the
 * right when no key stored left of the fence (within the domain) shares
 * the fence's grid cell: then only keys absent at training can lie in the
 * cell below the fence.  Without @keys (those of lv[0] on, in leaf order)
 * only leaf 0's is settled.
 */
static void tt_fill(struct ordo_tt *t, const struct ordo_sub *s,
		    const struct ordo_leaf_info *lv, const u64 *keys, u32 n,
		    u64 x0)
{
	u64 base, koff = 0;
	u32 sh, j, code;
	bool tie;

	ordo_sub_code_params(s, &base, &sh);
	for (j = 0; j < n; j++) {
		u64 pos = ordo_sub_pos(s, ordo_model_dx(lv[j].low, x0));

		tie = !j || (keys && !koff);
		if (!tie && keys) {
			/* the last key left of it */
			u64 last = keys[koff - 1];
			u64 lpos = ordo_sub_pos(s, ordo_model_dx(last, x0));

			tie = (lpos + base) >> sh < (pos + base) >> sh;
		}
		code = ordo_sub_code(s, j, pos);
		t[j].leaf = lv[j].leaf;
		t[j].code_inca = code | (tie ? ORDO_TT_TIE_RIGHT : 0) |
				 (lv[j].inca << ORDO_TT_INCA_SHIFT);
		koff += lv[j].count;
	}
}

/* Keys of leaf @a on, or NULL: the leaves before it hold the others. */
static const u64 *keys_from(const struct ordo_leaf_set *set, u32 a)
{
	u64 off = 0;
	u32 i;

	if (!set->keys)
		return NULL;
	for (i = 0; i < a; i++)
		off += set->leaves[i].count;
	return set->keys + off;
}

/* Compute the published checksum of a sub-model from its native form. */
static void sub_seal(struct ordo_model *m, u32 sub)
{
	struct ordo_sub *s = &m->subs[sub];
	struct ordo_model_desc d;
	struct ordo_tt_entry e;
	u64 h;
	u32 j;

	ordo_sub_to_desc(s, 0, &d);	/* the head leaves the sum out */
	h = ordo_sub_sum_head(m->epoch, sub, m->pivots[sub], &d);
	for (j = 0; j < s->ntt; j++) {
		ordo_tt_to_entry(&m->tt[s->tt + j], &e);
		h = ordo_sub_sum_entry(h, &e);
	}
	m->meta[sub].sum = ordo_model_fmix(h);
}

/* TT entries of a fresh model: slack per slice, then the spare room. */
static u64 tt_cap_for(u32 n, u32 nsub, const struct ordo_model_params *p)
{
	return (u64)n + DIV_ROUND_UP((u64)n * p->tt_slack_pct, 100) + nsub +
	       DIV_ROUND_UP((u64)n * p->tt_spare_pct, 100);
}

/*
 * Room for sub-models around the @nsub a training cuts: as many again as
 * half of them, at least 64, behind the last (appends, time series) and
 * in front of the first (descending inserts).  Return: the image's
 * nsub_cap; *@first: the first sub-model's index.
 */
static u32 nsub_cap_for(u32 nsub, u32 *first)
{
	u32 room = max(nsub / 2, 64U);

	*first = min(room, ORDO_MODEL_MAX_SUBS - nsub);
	return min_t(u64, (u64)*first + nsub + room, ORDO_MODEL_MAX_SUBS);
}

/**
 * ordo_model_image_floor() - the smallest image a training can produce
 * @nleaves: leaves of the tree
 * @p: training parameters
 *
 * A training over @nleaves leaves writes at least this many bytes (one
 * sub-model and the room around it; more add 60 bytes each), so a caller
 * can tell before it snapshots and trains that the region has no room.
 *
 * Return: bytes, or U64_MAX when no model can describe that many leaves.
 */
u64 ordo_model_image_floor(u32 nleaves, const struct ordo_model_params *p)
{
	u64 tt_cap = tt_cap_for(max(nleaves, 1U), 1, p);
	u32 first;

	if (tt_cap > ORDO_MODEL_MAX_TT)
		return U64_MAX;
	return ordo_model_region_size(nsub_cap_for(1, &first), tt_cap);
}

/**
 * ordo_model_train() - train a complete model over the whole leaf level
 * @mp: the new model
 * @set: every leaf in key order, the first at 0, the last without a high
 *	fence
 * @p: parameters; the sub-model count follows @p->target_subs or
 *	@p->leaves_per_sub, so expansion and shrinking just change them
 * @epoch: non-zero generation for the new model
 *
 * Runs in O(leaves * passes) with a handful of passes and a workspace of
 * 8 bytes per leaf of the longest run (max_sub_leaves); keys are only read
 * for validation when @set->keys is given.
 *
 * Return: 0, -EINVAL, -ERANGE, -ENOSPC (more leaves than a model can
 * hold) or -ENOMEM.
 */
int ordo_model_train(struct ordo_model **mp, const struct ordo_leaf_set *set,
		     const struct ordo_model_params *p, u64 epoch)
{
	const struct ordo_leaf_info *lv = set->leaves;
	struct ordo_model *m;
	const u64 *keys = set->keys;
	u32 n, cap, eps, nsub, nsub_cap, first, a, i;
	u64 epsf, tt_cap, nkeys = 0;
	struct pla pl;
	int err;

	*mp = NULL;
	if (!epoch || !p->leaf_slots)
		return -EINVAL;
	err = ordo_leaf_set_check(set, 0, 0, true);
	if (err)
		return err;
	n = set->nleaves;
	cap = sub_leaves_cap(p);
	if (pla_alloc(&pl, min(cap, n)))
		return -ENOMEM;
	eps = pick_eps(lv, n, p, cap, &pl);
	epsf = (u64)eps << ERR_TO_POS;
	nsub = seg_count(lv, n, epsf, cap, ORDO_MODEL_MAX_SUBS, &pl);
	tt_cap = tt_cap_for(n, nsub, p);
	if (nsub > ORDO_MODEL_MAX_SUBS || tt_cap > ORDO_MODEL_MAX_TT) {
		err = -ENOSPC;
		goto out;
	}
	nsub_cap = nsub_cap_for(nsub, &first);
	m = ordo_model_alloc_cap(first + nsub, nsub_cap, tt_cap);
	if (!m) {
		err = -ENOMEM;
		goto out;
	}
	m->first = first;
	m->epoch = epoch;
	m->leaf_slots = p->leaf_slots;
	m->eps = eps;
	m->nleaves = n;
	m->trained_leaves = n;
	for (a = 0, i = first; i < m->nsub; i++) {
		struct ordo_sub *s = &m->subs[i];
		u64 x0 = seg_anchor(lv, a, n, U64_MAX);
		u32 b = seg_fit(lv, a, n, U64_MAX, x0, epsf, cap, s,
				&m->meta[i], &pl);

		m->pivots[i] = x0;
		m->meta[i].cap = slack_slots(s->ntt, p);
		s->tt = m->tt_used;
		m->tt_used += m->meta[i].cap;
		tt_fill(m->tt + s->tt, s, lv + a, keys, s->ntt, x0);
		sub_seal(m, i);
		for (; keys && a < b; a++)
			keys += lv[a].count;
		a = b;
		if (!(i & 1023))
			ordo_cond_resched();
	}
	for (i = 0; i < n; i++)
		nkeys += lv[i].count;
	m->nkeys = nkeys;
	*mp = m;
out:
	pla_free(&pl);
	return err;
}

/*
 * Fit a whole domain into @pl: at @eps with the cell bound when one line
 * fits so (a domain that did not change replays its training), else
 * without it at @eps, else at the smallest larger bound of the ladder
 * that fits.  False if none does (then n > 1).
 */
static bool fit_domain(const struct ordo_leaf_info *lv, u32 n, u64 end,
		       u64 x0, u32 eps, struct pla *pl)
{
	u32 lo = 0, hi = ARRAY_SIZE(eps_ladder), mid;

	if (seg_end(lv, 0, n, end, x0, (u64)eps << ERR_TO_POS, 0, true,
		    pl) == n ||
	    seg_end(lv, 0, n, end, x0, (u64)eps << ERR_TO_POS, 0, false,
		    pl) == n)
		return true;
	while (lo < hi && eps_ladder[lo] <= eps)
		lo++;
	/* The first index in [lo, hi) whose bound fits, or hi. */
	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (seg_end(lv, 0, n, end, x0,
			    (u64)eps_ladder[mid] << ERR_TO_POS, 0, false,
			    pl) == n)
			hi = mid;
		else
			lo = mid + 1;
	}
	if (lo == ARRAY_SIZE(eps_ladder))
		return false;
	return seg_end(lv, 0, n, end, x0, (u64)eps_ladder[lo] << ERR_TO_POS,
		       0, false, pl) == n;
}

/* Fit leaves [0, @n) of @lv, ending at @end, anchored at @x0. */
static void fit_one(struct ordo_sub *t, const struct ordo_leaf_info *lv,
		    u32 n, u64 end, u64 x0, u32 eps, struct pla *pl)
{
	memset(t, 0, sizeof(*t));
	t->ntt = n;	/* F saturates at the slice's end */
	if (fit_domain(lv, n, end, x0, eps, pl))
		pla_slope(pl, t);
	else	/* first to last fence: @end may be far away */
		chord_slope(t, n - 1, ordo_model_dx(lv[n - 1].low, x0));
	sub_bounds(t, lv, n, end, x0);
}

/*
 * Sub-model @idx becomes leaves [a, b) of @set (domain end @end), fitted
 * at the model's eps as retraining fits, with TT room for them.  Return:
 * 0 or -ENOSPC; the caller counted the slots first.
 */
static int cut_piece(struct ordo_model *m, u32 idx,
		     const struct ordo_leaf_set *set, u32 a, u32 b, u64 end,
		     u32 gen, const struct ordo_model_params *p,
		     struct pla *pl)
{
	const struct ordo_leaf_info *lv = set->leaves;
	u64 x0 = seg_anchor(lv, a, set->nleaves, end);
	u64 pend = b < set->nleaves ? lv[b].low : end;
	struct ordo_sub t;
	int err;

	fit_one(&t, lv + a, b - a, pend, x0, m->eps, pl);
	err = ordo_model_tt_reserve(m, idx, t.ntt,
				    max_t(u32, t.ntt, slack_slots(t.ntt, p)));
	if (err)
		return err;
	m->meta[idx].tied = !!first_tie(&t, lv + a, b - a, x0);
	t.tt = m->subs[idx].tt;
	t.gen = gen;
	m->subs[idx] = t;
	m->pivots[idx] = x0;
	tt_fill(m->tt + t.tt, &t, lv + a, keys_from(set, a), t.ntt, x0);
	return 0;
}

/*
 * Make TT room for @need more slots, growing the area by at least the
 * spare share (the header that publishes the cut publishes both).
 */
static int cut_room(struct ordo_model *m, u64 need,
		    const struct ordo_model_params *p)
{
	u64 free = m->tt_cap - m->tt_used;

	if (need <= free)
		return 0;
	return ordo_model_tt_grow(m, max_t(u64, need - free,
					   DIV_ROUND_UP((u64)m->nleaves *
							p->tt_spare_pct, 100)));
}

/*
 * End of the piece from leaf @a of a sub-model's leaves (domain end
 * @end) that a cut makes: as a full training cuts (one line at the
 * model's eps, cell bound included, at most @cap leaves).
 */
static u32 cut_seg_end(const struct ordo_model *m,
		       const struct ordo_leaf_info *lv, u32 a, u32 n, u64 end,
		       u32 cap, struct pla *pl)
{
	return seg_end(lv, a, n, end, seg_anchor(lv, a, n, end),
		       (u64)m->eps << ERR_TO_POS, cap, true, pl);
}

/*
 * Appends grow the last sub-model (@sub).  When one line at the model's
 * eps within max_sub_leaves no longer covers its leaves, cut them as a
 * full training would and append the new sub-models behind it: their
 * pivots lie above every other, so no index changes; the TT area grows
 * when the new slices need it.  Return: 0 when cut; -EAGAIN when the
 * leaves stay one sub-model (one segment, or no room behind the last for
 * the new sub-models, or none for their TT slots); nothing changes then.
 */
static int extend_tail(struct ordo_model *m, u32 sub,
		       const struct ordo_leaf_set *set,
		       const struct ordo_model_params *p, struct pla *pl)
{
	const struct ordo_leaf_info *lv = set->leaves;
	u32 n = set->nleaves;
	struct ordo_sub *s = &m->subs[sub];
	u32 cap = sub_leaves_cap(p), a, b, k, old = s->ntt, gen = s->gen + 1;
	u64 need = 0;
	int err;

	if (m->nsub >= m->nsub_cap)
		return -EAGAIN;
	/* Count the segments and their TT slots first: all or nothing. */
	for (a = 0, k = 0; a < n; a = b, k++) {
		b = cut_seg_end(m, lv, a, n, U64_MAX, cap, pl);
		if (k || b - a > m->meta[sub].cap)
			need += max(b - a, slack_slots(b - a, p));
	}
	if (k == 1 || k - 1 > m->nsub_cap - m->nsub || cut_room(m, need, p))
		return -EAGAIN;
	for (a = 0, k = 0; a < n; a = b, k++) {
		b = cut_seg_end(m, lv, a, n, U64_MAX, cap, pl);
		err = cut_piece(m, k ? m->nsub + k - 1 : sub, set, a, b,
				U64_MAX, k ? 0 : gen, p, pl);
		if (err)	/* not after the count above */
			return err;
	}
	m->nsub += k - 1;
	for (a = 0; a < k; a++)
		sub_seal(m, a ? m->nsub - k + a : sub);
	m->nleaves = m->nleaves - old + n;
	m->top_gen++;
	return 0;
}

/* Does one line at @eps fit the run [a, b)? */
static bool run_fits(const struct ordo_leaf_info *lv, u32 a, u32 b, u32 n,
		     u64 end, u64 eps, struct pla *pl)
{
	return seg_end(lv, a, n, end, seg_anchor(lv, a, n, end), eps, b - a,
		       true, pl) == b;
}

/*
 * Start of the segment that ends at leaf @b of the first sub-model's
 * leaves: the earliest leaf at most @cap leaves before @b when the run
 * from there fits one line at @eps, else the smallest a whose run [a, b)
 * fits, found by bisection (a run that fits mostly still fits without
 * its first leaf; any answer found fits, a lone leaf always does).
 */
static u32 head_seg_start(const struct ordo_leaf_info *lv, u32 b, u32 n,
			  u64 end, u64 eps, u32 cap, struct pla *pl)
{
	u32 lo = b > cap ? b - cap : 0, hi = b - 1, mid;

	if (run_fits(lv, lo, b, n, end, eps, pl))
		return lo;
	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (run_fits(lv, mid, b, n, end, eps, pl))
			hi = mid;
		else
			lo = mid + 1;
	}
	return lo;
}

/*
 * Descending inserts grow the first sub-model (@sub) at its left.  When
 * one line at the model's eps within max_sub_leaves no longer covers its
 * leaves, cut them from the right end (so the leftmost piece, where the
 * inserts land, is the one left short) and put the new sub-models in
 * front of it: indices sub - 1, sub - 2, ..., whose pivots lie below
 * every other, so no index changes.  The piece that keeps @sub is the
 * rightmost.  Return as extend_tail() (-EAGAIN also without room in
 * front for the new sub-models).
 */
static int extend_head(struct ordo_model *m, u32 sub,
		       const struct ordo_leaf_set *set, u64 end,
		       const struct ordo_model_params *p, struct pla *pl)
{
	const struct ordo_leaf_info *lv = set->leaves;
	u32 n = set->nleaves;
	struct ordo_sub *s = &m->subs[sub];
	u32 cap = sub_leaves_cap(p), a, b, k, old = s->ntt, gen = s->gen + 1;
	u64 eps = (u64)m->eps << ERR_TO_POS, need = 0;
	int err;

	/* One line still covers it (as the training cut it): no cut. */
	if (!m->first || (n <= cap && run_fits(lv, 0, n, n, end, eps, pl)))
		return -EAGAIN;
	for (b = n, k = 0; b; b = a, k++) {
		a = head_seg_start(lv, b, n, end, eps, cap, pl);
		if (k || b - a > m->meta[sub].cap)
			need += max(b - a, slack_slots(b - a, p));
	}
	if (k == 1 || k - 1 > m->first || cut_room(m, need, p))
		return -EAGAIN;
	for (b = n, k = 0; b; b = a, k++) {
		a = head_seg_start(lv, b, n, end, eps, cap, pl);
		err = cut_piece(m, sub - k, set, a, b, end, k ? 0 : gen, p,
				pl);
		if (err)
			return err;
	}
	m->first = sub - (k - 1);
	for (a = m->first; a <= sub; a++)
		sub_seal(m, a);
	m->nleaves = m->nleaves - old + n;
	m->top_gen++;
	return 0;
}

/*
 * Move sub-models [@a, @b) to start at index @to, sealed again (the
 * checksum binds the index).
 */
static void subs_move(struct ordo_model *m, u32 a, u32 b, u32 to)
{
	u32 i;

	memmove(&m->pivots[to], &m->pivots[a], sizeof(*m->pivots) * (b - a));
	memmove(&m->subs[to], &m->subs[a], sizeof(*m->subs) * (b - a));
	memmove(&m->meta[to], &m->meta[a], sizeof(*m->meta) * (b - a));
	for (i = to; i < to + b - a; i++)
		sub_seal(m, i);
}

/* Sub-models [@a, @b) become unused: no pivot, no slots. */
static void subs_clear(struct ordo_model *m, u32 a, u32 b)
{
	for (; a < b; a++) {
		m->pivots[a] = 0;
		m->subs[a].tt = ORDO_SUB_NO_TT;
		memset(&m->meta[a], 0, sizeof(m->meta[a]));
	}
}

/*
 * Would retrained sub-model @t (@tied: its fences share a cell) make the
 * model's health call for a full training on its own?
 */
static bool sub_wants_full(const struct ordo_model *m,
			   const struct ordo_sub *t, bool tied,
			   const struct ordo_model_params *p)
{
	struct ordo_model_health h = {
		.eps = m->eps,
		.max_sub_leaves = t->ntt,
	};

	if (t->over == ORDO_MODEL_ERR_UNBOUNDED ||
	    t->under == ORDO_MODEL_ERR_UNBOUNDED)
		h.unbounded = 1;
	else
		h.max_err = (u32)t->over + t->under;
	return tied || ordo_model_needs_expand(&h, p);
}

/*
 * A retrained sub-model (@sub) that would call for a full training: a
 * hotspot's splits crowd its fences into shared cells, its window grew
 * past the expansion threshold or its leaves past twice the cap; or the
 * last or first one, cut at an end without room left there.  Cut its
 * leaves as a full training would (the cell bound keeps each piece
 * untied), the first piece in @sub's slice, the others in fresh slots,
 * and give the top level its room back evenly at both ends: the
 * sub-models move to new indices, so the image cannot be patched in
 * place, and the move costs no more than the cut's own new image
 * (renum_gen tells ordo_region_patch() to refuse).  Return: 0 when cut;
 * -EAGAIN when nothing changed (one piece, or no room for the pieces'
 * indices or TT slots).
 */
static int cut_middle(struct ordo_model *m, u32 sub,
		      const struct ordo_leaf_set *set, u64 end,
		      const struct ordo_model_params *p, struct pla *pl)
{
	const struct ordo_leaf_info *lv = set->leaves;
	u32 n = set->nleaves, cap = sub_leaves_cap(p), a, b, k, s0, to;
	u32 old = m->subs[sub].ntt, gen = m->subs[sub].gen + 1, count;
	u64 need = 0;
	int err;

	for (a = 0, k = 0; a < n; a = b, k++) {
		b = cut_seg_end(m, lv, a, n, end, cap, pl);
		if (k || b - a > m->meta[sub].cap)
			need += max(b - a, slack_slots(b - a, p));
	}
	count = m->nsub - m->first + k - 1;
	if (k == 1 || count > m->nsub_cap || cut_room(m, need, p))
		return -EAGAIN;
	/* [first, sub] to start at @to, the rest after the new pieces. */
	to = (m->nsub_cap - count) / 2;
	s0 = to + sub - m->first;
	if (s0 + k > sub + 1) {	/* the right part moves up: it goes first */
		subs_move(m, sub + 1, m->nsub, s0 + k);
		subs_move(m, m->first, sub + 1, to);
	} else {
		subs_move(m, m->first, sub + 1, to);
		subs_move(m, sub + 1, m->nsub, s0 + k);
	}
	m->first = to;
	m->nsub = to + count;
	/* The room and the new pieces' indices hold no slots. */
	subs_clear(m, 0, to);
	subs_clear(m, s0 + 1, s0 + k);
	subs_clear(m, m->nsub, m->nsub_cap);
	for (a = 0, k = 0; a < n; a = b, k++) {
		b = cut_seg_end(m, lv, a, n, end, cap, pl);
		err = cut_piece(m, s0 + k, set, a, b, end, k ? 0 : gen, p, pl);
		if (err)	/* not after the count above */
			return err;
		sub_seal(m, s0 + k);
	}
	m->nleaves = m->nleaves - old + n;
	m->renum_gen = ++m->top_gen;
	return 0;
}

/* ordo_model_retrain_sub() of a checked @set, domain end @end. */
static int retrain_sub(struct ordo_model *m, u32 sub,
		       const struct ordo_leaf_set *set,
		       const struct ordo_model_params *p, u64 end, bool last,
		       struct pla *pl)
{
	const struct ordo_leaf_info *lv = set->leaves;
	u32 n = set->nleaves, old;
	struct ordo_sub *s, t;
	bool tied;
	u64 x0;
	int err;

	if (last) {
		err = extend_tail(m, sub, set, p, pl);
		if (err != -EAGAIN)
			return err;
	}
	if (sub == m->first) {
		err = extend_head(m, sub, set, end, p, pl);
		if (err != -EAGAIN)
			return err;
	}
	/* A lone leaf fits any anchor: keep the pivot (and the top level). */
	x0 = n > 1 ? seg_anchor(lv, 0, n, end) : m->pivots[sub];
	fit_one(&t, lv, n, end, x0, m->eps, pl);
	tied = !!first_tie(&t, lv, n, x0);
	if (n > ORDO_MODEL_MAX_SUB_LEAVES || sub_wants_full(m, &t, tied, p)) {
		err = cut_middle(m, sub, set, end, p, pl);
		if (err != -EAGAIN)
			return err;
	}
	if (n > ORDO_MODEL_MAX_SUB_LEAVES)
		return -ENOSPC;
	s = &m->subs[sub];
	old = s->ntt;
	err = ordo_model_tt_reserve(m, sub, n, max(n, slack_slots(n, p)));
	if (err)
		return err;
	if (m->pivots[sub] != x0) {	/* only the first sub-model's moves */
		m->pivots[sub] = x0;
		m->top_gen++;
	}
	s->slope = t.slope;
	s->grid = t.grid;
	s->over = t.over;
	s->under = t.under;
	s->ntt = n;
	s->gen++;
	m->meta[sub].tied = tied;
	tt_fill(m->tt + s->tt, s, lv, set->keys, n, x0);
	sub_seal(m, sub);
	m->nleaves = m->nleaves - old + n;
	return 0;
}

/**
 * ordo_model_retrain_sub() - retrain one sub-model after its leaves changed
 * @m: the trainer's model
 * @sub: sub-model index, e.g. ordo_model_sub_of() of a split key
 * @set: a fresh snapshot of exactly the leaves tiling the sub-model's
 *	domain (splits never move a fence across a domain boundary)
 * @p: parameters (TT slack)
 *
 * Fits one line over the domain (at the model's eps, else at the smallest
 * larger bound that fits, else the chord from the first to the last
 * fence), measures the bounds and rewrites the TT slice, in
 * place when it fits its slots.  Retraining an unchanged domain reproduces
 * the sub-model bit for bit (its generation aside).  The last sub-model,
 * once one line at the model's eps within max_sub_leaves no longer covers
 * it, is cut as a full training would cut it and the new sub-models are
 * appended behind it (nsub grows, up to nsub_cap); the first one is cut
 * the same way from its right end and the new sub-models go in front of
 * it (first falls, down to 0).  Any other whose retraining would call
 * for a full training (fences sharing a cell, a window past the
 * expansion threshold, leaves past twice the cap) is cut the same way,
 * and the sub-models on one side move over for the pieces (renum_gen
 * records it).  The first sub-model's pivot follows its
 * leftmost leaves (seg_anchor()).  Whenever the top level changes,
 * top_gen counts it.  On error the model is unchanged.  Publish with
 * ordo_region_patch(), or as a new image after a middle cut.
 *
 * Return: 0; -ERANGE if @set does not tile the domain (a retired leaf's
 * heir reaches across a pivot: ordo_model_merge_subs()); -EINVAL;
 * -ENOSPC when the TT has no room left (train a new model);
 * -ENOMEM (the fit's workspace, 8 bytes per leaf of @set).
 */
int ordo_model_retrain_sub(struct ordo_model *m, u32 sub,
			   const struct ordo_leaf_set *set,
			   const struct ordo_model_params *p)
{
	u64 lo, hi = 0;
	struct pla pl;
	bool last;
	int err;

	if (!ordo_model_has_sub(m, sub) || m->subs[sub].tt == ORDO_SUB_NO_TT)
		return -EINVAL;
	last = !ordo_model_sub_domain(m, sub, &lo, &hi);
	err = ordo_leaf_set_check(set, lo, hi, last);
	if (err)
		return err;
	if (pla_alloc(&pl, set->nleaves))
		return -ENOMEM;
	err = retrain_sub(m, sub, set, p, last ? U64_MAX : hi, last, &pl);
	pla_free(&pl);
	return err;
}

/* A sub-model a merge removes, kept to put it back on error. */
struct merged_sub {
	u64 pivot;
	struct ordo_sub sub;
	struct ordo_sub_meta meta;
};

/**
 * ordo_model_merge_subs() - retrain adjacent sub-models as one
 * @m: the trainer's model
 * @a: first sub-model index (it keeps its index)
 * @b: last one, @a < @b
 * @set: a fresh snapshot of exactly the leaves tiling the domains of @a
 *	to @b together
 * @p: parameters (TT slack)
 *
 * Retiring an empty leaf hands its range to a neighbour, which then
 * reaches across a pivot when the retired leaf was the first or last of
 * its sub-model: the leaves tile neither domain any more, and
 * ordo_model_retrain_sub() refuses both (-ERANGE).  Dropping the pivots
 * of @a + 1 to @b joins the domains; the union is retrained as
 * ordo_model_retrain_sub() retrains one domain (cut again where one line
 * at the model's eps does not cover it).  The sub-models after @b move
 * down to close the gap, so the image cannot be patched in place
 * (renum_gen, as after a middle cut); the slots of the dropped slices
 * stay unused until the next full training, as those of any slice that
 * moved.
 *
 * Return: as ordo_model_retrain_sub(); on error the model is unchanged.
 */
int ordo_model_merge_subs(struct ordo_model *m, u32 a, u32 b,
			  const struct ordo_leaf_set *set,
			  const struct ordo_model_params *p)
{
	u32 k = b - a, nsub = m->nsub, nleaves = m->nleaves, i;
	struct merged_sub *gone;
	u64 lo, hi = 0, x;
	struct pla pl;
	bool last;
	int err;

	if (a >= b || !ordo_model_has_sub(m, a) || !ordo_model_has_sub(m, b))
		return -EINVAL;
	for (i = a; i <= b; i++)
		if (m->subs[i].tt == ORDO_SUB_NO_TT)
			return -EINVAL;
	ordo_model_sub_domain(m, a, &lo, &x);
	last = !ordo_model_sub_domain(m, b, &x, &hi);
	err = ordo_leaf_set_check(set, lo, hi, last);
	if (err)
		return err;
	gone = ordo_malloc(sizeof(*gone) * k);
	if (!gone)
		return -ENOMEM;
	if (pla_alloc(&pl, set->nleaves)) {
		ordo_free(gone);
		return -ENOMEM;
	}
	for (i = 0; i < k; i++) {
		gone[i].pivot = m->pivots[a + 1 + i];
		gone[i].sub = m->subs[a + 1 + i];
		gone[i].meta = m->meta[a + 1 + i];
		m->nleaves -= gone[i].sub.ntt;
	}
	subs_move(m, b + 1, nsub, a + 1);
	m->nsub -= k;
	subs_clear(m, m->nsub, nsub);
	err = retrain_sub(m, a, set, p, last ? U64_MAX : hi, last, &pl);
	if (err) {
		subs_move(m, a + 1, m->nsub, b + 1);
		m->nsub = nsub;
		for (i = 0; i < k; i++) {
			m->pivots[a + 1 + i] = gone[i].pivot;
			m->subs[a + 1 + i] = gone[i].sub;
			m->meta[a + 1 + i] = gone[i].meta;
		}
		m->nleaves = nleaves;
	} else {
		m->renum_gen = ++m->top_gen;
	}
	pla_free(&pl);
	ordo_free(gone);
	return err;
}

/**
 * ordo_model_eval() - measure a model against a leaf snapshot
 * @m: model
 * @set: leaves with keys (without keys only the sizes are filled)
 * @stride: evaluate every @stride-th key; 0: none
 * @st: result
 *
 * Errors are those of stored keys: position = logical leaf * leaf_slots +
 * slot.  @st->wrong counts keys whose leaf is not among the candidates
 * of their lookup (always 0 for a fresh model).
 *
 * Return: 0.
 */
int ordo_model_eval(const struct ordo_model *m,
		    const struct ordo_leaf_set *set, u32 stride,
		    struct ordo_model_stats *st)
{
	u64 ki = 0, next = 0;
	u32 g, c, j, lln;

	memset(st, 0, sizeof(*st));
	st->nsub = ordo_model_count(m);
	st->nleaves = m->nleaves;
	st->model_bytes = ordo_model_bytes(m->nsub);
	st->tt_bytes = (u64)ORDO_TT_ENTRY_SIZE * m->nleaves;
	if (!set->keys || !stride)
		return 0;
	for (g = 0; g < set->nleaves; g++) {
		const struct ordo_leaf_info *l = &set->leaves[g];

		for (c = 0; c < l->count; c++, ki++) {
			struct ordo_pred pr;
			u64 key = set->keys[ki], pos, tpos, ppos, win, e;
			u64 pleaf;

			if (ki != next)
				continue;
			next += stride;
			st->nkeys++;
			if (ordo_model_lookup(m, key, &pr)) {
				st->wrong++;
				continue;
			}
			win = pr.win_hi - pr.win_lo + 1;
			st->win_sum += win;
			st->win_max = max(st->win_max, win);
			st->win_one += win == 1;
			st->cand_sum += pr.ncand;
			st->cand_max = max_t(u64, st->cand_max, pr.ncand);
			st->cand_one += pr.ncand == 1;
			for (j = 0; j < pr.ncand &&
			     ordo_pred_ent(&pr, j).leaf != l->leaf;)
				j++;
			if (j == pr.ncand) {
				st->wrong++;
				continue;
			}
			lln = pr.lln + j;
			pos = ordo_model_pos(m, pr.sub, key);
			tpos = ((u64)lln * m->leaf_slots + c) <<
			       ORDO_MODEL_ERR_SHIFT;
			ppos = mul_u64_u64_shr(pos, m->leaf_slots, ERR_TO_POS);
			e = ppos > tpos ? ppos - tpos : tpos - ppos;
			st->err_pos_sum += e;
			st->err_pos_max = max(st->err_pos_max, e);
			pleaf = min_t(u64, pos >> ORDO_MODEL_POS_SHIFT,
				      m->subs[pr.sub].ntt - 1);
			e = pleaf > lln ? pleaf - lln : lln - pleaf;
			st->err_leaf_sum += e;
			st->err_leaf_max = max(st->err_leaf_max, e);
		}
	}
	return 0;
}

/**
 * ordo_model_health() - structural figures of a model
 * @m: model
 * @h: result
 */
void ordo_model_health(const struct ordo_model *m,
		       struct ordo_model_health *h)
{
	u32 i;

	memset(h, 0, sizeof(*h));
	h->nsub = ordo_model_count(m);
	h->nleaves = m->nleaves;
	h->trained_leaves = m->trained_leaves;
	h->tt_cap = m->tt_cap;
	h->tt_used = m->tt_used;
	h->eps = m->eps;
	for (i = m->first; i < m->nsub; i++) {
		const struct ordo_sub *s = &m->subs[i];

		if (s->tt == ORDO_SUB_NO_TT)
			continue;
		h->max_sub_leaves = max_t(u32, h->max_sub_leaves, s->ntt);
		h->tied += m->meta[i].tied;
		if (s->over == ORDO_MODEL_ERR_UNBOUNDED ||
		    s->under == ORDO_MODEL_ERR_UNBOUNDED)
			h->unbounded++;
		else
			h->max_err = max_t(u32, h->max_err,
					   (u32)s->over + s->under);
	}
}

/**
 * ordo_model_needs_expand() - should a full training add sub-models?
 * @h: figures from ordo_model_health()
 * @p: parameters the model was trained with
 *
 * True when splits have grown the average sub-model to twice the target
 * and the leaves to twice those trained, a sub-model to twice the cap, or
 * an error window beyond expand_err_x times the trained one (or past any
 * bound).
 *
 * Return: the verdict.
 */
bool ordo_model_needs_expand(const struct ordo_model_health *h,
			     const struct ordo_model_params *p)
{
	u64 trained = 2ULL * max_t(u32, h->eps, 1U << ORDO_MODEL_ERR_SHIFT);

	if (h->unbounded)
		return true;
	if (p->expand_err_x && h->max_err > p->expand_err_x * trained)
		return true;
	/*
	 * Growth to twice the target adds sub-models; growth, because easy
	 * data may train to fewer sub-models than the target, and a new
	 * training would find the same few (and be asked again).
	 */
	if (p->leaves_per_sub &&
	    h->nleaves > 2ULL * max_t(u64, (u64)p->leaves_per_sub * h->nsub,
				      h->trained_leaves))
		return true;
	return p->max_sub_leaves &&
	       h->max_sub_leaves > 2ULL * p->max_sub_leaves;
}

/**
 * ordo_model_needs_shrink() - should a full training drop sub-models?
 * @h: figures from ordo_model_health()
 * @p: parameters the model was trained with
 *
 * True when the average sub-model has fallen below a quarter of the target
 * because leaves were reclaimed (half of those trained are gone): a
 * training may cut more sub-models than the target on its own (dense
 * clusters get lines of their own), and training again would not help.
 *
 * Return: the verdict.
 */
bool ordo_model_needs_shrink(const struct ordo_model_health *h,
			     const struct ordo_model_params *p)
{
	if (!p->leaves_per_sub || h->nsub < 2 ||
	    2ULL * h->nleaves >= h->trained_leaves ||
	    ordo_model_needs_expand(h, p))
		return false;
	return 4ULL * h->nleaves < (u64)p->leaves_per_sub * h->nsub;
}

/**
 * ordo_model_needs_rebuild() - must the next change be a full training?
 * @h: figures from ordo_model_health()
 * @p: parameters the model was trained with
 *
 * True when the TT area is seven eighths used (patches would soon fail
 * with -ENOSPC) or a retraining left fences the codes cannot tell apart
 * (a training cuts such runs).  The sub-model count may stay.
 *
 * Return: the verdict.
 */
bool ordo_model_needs_rebuild(const struct ordo_model_health *h,
			      const struct ordo_model_params *p)
{
	return 8ULL * h->tt_used > 7ULL * h->tt_cap || h->tied ||
	       ordo_model_needs_expand(h, p) || ordo_model_needs_shrink(h, p);
}

/**
 * ordo_model_tt_room_due() - should the TT area grow instead?
 * @h: figures from ordo_model_health()
 * @p: parameters the model was trained with
 *
 * When the TT area alone calls for a rebuild (seven eighths used; no
 * expansion or shrink due), it can grow in place within the epoch by
 * tt_spare_pct of the leaves in use (at least an eighth of the area),
 * which costs a header write instead of a full training.
 *
 * Return: entries to add with ordo_model_tt_grow(), or 0.
 */
u32 ordo_model_tt_room_due(const struct ordo_model_health *h,
			   const struct ordo_model_params *p)
{
	if (8ULL * h->tt_used <= 7ULL * h->tt_cap ||
	    ordo_model_needs_expand(h, p) || ordo_model_needs_shrink(h, p))
		return 0;
	return ordo_model_tt_extra(h, p);
}

/**
 * ordo_model_tt_extra() - how much a TT area grows in place
 * @h: figures from ordo_model_health()
 * @p: parameters the model was trained with
 *
 * Return: entries to add with ordo_model_tt_grow(): tt_spare_pct of the
 * leaves in use, at least an eighth of the area.
 */
u32 ordo_model_tt_extra(const struct ordo_model_health *h,
			const struct ordo_model_params *p)
{
	u64 extra = max_t(u64, DIV_ROUND_UP((u64)h->nleaves * p->tt_spare_pct,
					    100), h->tt_cap / 8 + 1);

	return min_t(u64, extra, ORDO_MODEL_MAX_TT);
}

/**
 * ordo_model_resize_target() - sub-model count for the next full training
 * @h: figures from ordo_model_health()
 * @p: parameters the model was trained with
 *
 * Pass the result as ordo_model_params.target_subs.
 *
 * Return: when expanding, double the count (or the count plus the one
 * that meets leaves_per_sub, if smaller), at least that one; the count
 * that meets leaves_per_sub when shrinking; else the larger of the two
 * (a rebuild after growth keeps pace with the leaves, which the
 * expansion rule counts from this training on).
 */
u32 ordo_model_resize_target(const struct ordo_model_health *h,
			     const struct ordo_model_params *p)
{
	u64 want = p->leaves_per_sub ?
		   DIV_ROUND_UP((u64)h->nleaves, p->leaves_per_sub) : 0;
	u64 t = max_t(u64, h->nsub, want);

	/*
	 * Doubling, but by at most one target's worth of sub-models when
	 * the count is mostly cuts for the fence codes (clusters): doubling
	 * those would ask for a far smaller eps everywhere.
	 */
	if (ordo_model_needs_expand(h, p))
		t = max_t(u64, min_t(u64, 2ULL * h->nsub, (u64)h->nsub + want),
			  want);
	else if (ordo_model_needs_shrink(h, p))
		t = want;
	t = clamp_t(u64, t, 1, ORDO_MODEL_MAX_SUBS);
	return min_t(u64, t, max_t(u32, h->nleaves, 1));
}
