// SPDX-License-Identifier: GPL-2.0
/*
 * ordo learned model, publication: writing a model image into the model
 * region (an array of chunks readable by clients while it changes), moving
 * the region's anchor to it, and encoding one sub-model for an RPC reply.
 * Readers validate with the checksums in the header and descriptors, so
 * the order in which they fetch bytes does not matter; writers only make
 * sure that what a descriptor (or the anchor) names is written before it.
 */
#include "compat.h"
#include "model.h"

/* Entries or pivots encoded per batch on the stack. */
#define BATCH	16

/* Is there room for @len bytes of image at @rg->base? */
static int rg_check(const struct ordo_region *rg, u64 len)
{
	u64 size;

	if (!rg || !rg->chunks || rg->chunk_shift < 6 ||
	    rg->chunk_shift > 40 || rg->base % ORDO_MODEL_ALIGN)
		return -EINVAL;
	size = (u64)rg->nchunks << rg->chunk_shift;
	if (rg->base > size || len > size - rg->base)
		return -ENOSPC;
	return 0;
}

static void *rg_ptr(const struct ordo_region *rg, u64 off)
{
	u64 mask = (1ULL << rg->chunk_shift) - 1;

	return (u8 *)rg->chunks[off >> rg->chunk_shift] + (off & mask);
}

/* Copy into the region, splitting at chunk boundaries; NULL: zero fill. */
static void rg_copy(const struct ordo_region *rg, u64 off, const void *src,
		    u64 len)
{
	u64 csize = 1ULL << rg->chunk_shift;
	const u8 *s = src;

	while (len) {
		u64 n = min(len, csize - (off & (csize - 1)));

		if (s) {
			memcpy(rg_ptr(rg, off), s, n);
			s += n;
		} else {
			memset(rg_ptr(rg, off), 0, n);
		}
		off += n;
		len -= n;
	}
}

static void rg_read(const struct ordo_region *rg, u64 off, void *dst,
		    u64 len)
{
	u64 csize = 1ULL << rg->chunk_shift;
	u8 *d = dst;

	while (len) {
		u64 n = min(len, csize - (off & (csize - 1)));

		memcpy(d, rg_ptr(rg, off), n);
		d += n;
		off += n;
		len -= n;
	}
}

/*
 * Descriptors are 32-byte aligned, so never split by a chunk boundary
 * (chunks are at least 64 bytes); word stores keep each field whole.
 */
static void rg_put_desc(const struct ordo_region *rg, u64 off,
			const struct ordo_model_desc *d)
{
	u64 *dst = rg_ptr(rg, off);
	u64 w[ORDO_MODEL_DESC_SIZE / 8];
	u32 i;

	memcpy(w, d, sizeof(w));
	for (i = 0; i < ARRAY_SIZE(w); i++)
		WRITE_ONCE(dst[i], w[i]);
}

static void rg_put_slice(const struct ordo_region *rg, u64 tt_off,
			 const struct ordo_model *m, const struct ordo_sub *s)
{
	struct ordo_tt_entry buf[BATCH];
	u32 j, k, x;

	for (j = 0; j < s->ntt; j += k) {
		k = min_t(u32, BATCH, s->ntt - j);
		for (x = 0; x < k; x++)
			ordo_tt_to_entry(&m->tt[s->tt + j + x], &buf[x]);
		rg_copy(rg, tt_off + (u64)ORDO_TT_ENTRY_SIZE * (s->tt + j),
			buf, sizeof(buf[0]) * k);
	}
}

/* Does sub-model @s have a slice, inside the TT area? */
static bool sub_placed(const struct ordo_model *m, const struct ordo_sub *s)
{
	return s->tt != ORDO_SUB_NO_TT && s->ntt <= m->tt_cap &&
	       s->tt <= m->tt_cap - s->ntt;
}

/* One sub-model: its slice, then (ordered) its descriptor. */
static void rg_put_sub(const struct ordo_region *rg,
		       const struct ordo_model *m, u32 sub)
{
	const struct ordo_sub *s = &m->subs[sub];
	struct ordo_model_desc d;

	rg_put_slice(rg, rg->base + ordo_model_tt_off(m->nsub_cap), m, s);
	ordo_sub_to_desc(s, m->meta[sub].sum, &d);
	/* The slice is in place before the descriptor that names it. */
	smp_wmb();
	rg_put_desc(rg, rg->base + ordo_model_desc_off(m->nsub_cap) +
		    (u64)ORDO_MODEL_DESC_SIZE * sub, &d);
}

/**
 * ordo_region_bytes() - image size of a model
 * @m: model
 *
 * Return: bytes from the image's header to the end of its TT area.
 */
u64 ordo_region_bytes(const struct ordo_model *m)
{
	return ordo_model_region_size(m->nsub_cap, m->tt_cap);
}

static void hdr_fill(const struct ordo_model *m, struct ordo_model_hdr *h)
{
	u64 sum;
	u32 i;

	memset(h, 0, sizeof(*h));
	h->magic = cpu_to_le32(ORDO_MODEL_MAGIC);
	h->version = cpu_to_le16(ORDO_MODEL_VERSION);
	h->hdr_size = cpu_to_le16(ORDO_MODEL_HDR_SIZE);
	h->desc_size = cpu_to_le32(ORDO_MODEL_DESC_SIZE);
	h->tt_entry_size = cpu_to_le32(ORDO_TT_ENTRY_SIZE);
	h->epoch = cpu_to_le64(m->epoch);
	h->region_size = cpu_to_le64(ordo_region_bytes(m));
	h->piv_off = cpu_to_le64(ORDO_MODEL_HDR_SIZE);
	h->desc_off = cpu_to_le64(ordo_model_desc_off(m->nsub_cap));
	h->tt_off = cpu_to_le64(ordo_model_tt_off(m->nsub_cap));
	h->nsub = cpu_to_le32(m->nsub);
	h->nsub_cap = cpu_to_le32(m->nsub_cap);
	h->top_gen = cpu_to_le32(m->top_gen);
	h->sub_first = cpu_to_le32(m->first);
	h->tt_cap = cpu_to_le32(m->tt_cap);
	h->nleaves = cpu_to_le32(m->nleaves);
	h->leaf_slots = cpu_to_le32(m->leaf_slots);
	h->nkeys = cpu_to_le64(m->nkeys);
	h->eps = cpu_to_le32(m->eps);
	sum = ordo_model_top_sum_head(h);
	for (i = m->first; i < m->nsub; i++)
		sum = ordo_model_mix(sum, m->pivots[i]);
	h->top_sum = cpu_to_le64(ordo_model_fmix(sum));
}

/**
 * ordo_region_write() - write a whole model (a new epoch) as an image
 * @rg: the region's chunks, with ordo_region_bytes() of room at @rg->base
 * @m: a model from ordo_model_train()
 *
 * Writes pivots, descriptors and slices, then the header, at @rg->base,
 * which must not overlap the live image: ordo_region_publish() then
 * makes it the live one.  (Base 0 writes a bare image, no anchor.)  The
 * bytes of unused TT slots are left as they are.
 *
 * Return: 0, -EINVAL or -ENOSPC (region too small).
 */
int ordo_region_write(const struct ordo_region *rg,
		      const struct ordo_model *m)
{
	u64 piv_end = ORDO_MODEL_HDR_SIZE + 8ULL * m->nsub;
	u64 desc_off = ordo_model_desc_off(m->nsub_cap);
	u64 desc_first = desc_off + (u64)ORDO_MODEL_DESC_SIZE * m->first;
	u64 desc_end = desc_off + (u64)ORDO_MODEL_DESC_SIZE * m->nsub;
	u64 tt_off = ordo_model_tt_off(m->nsub_cap);
	u64 b = rg ? rg->base : 0;
	struct ordo_model_hdr h;
	__le64 piv[BATCH];
	u32 i, k, x;
	int err;

	err = rg_check(rg, ordo_region_bytes(m));
	if (err)
		return err;
	if (m->first >= m->nsub || m->nsub > m->nsub_cap)
		return -EINVAL;
	for (i = m->first; i < m->nsub; i++)
		if (!sub_placed(m, &m->subs[i]))
			return -EINVAL;
	/* Pivots below the first in use are zero (no reader looks). */
	for (i = 0; i < m->nsub; i += k) {
		k = min_t(u32, BATCH, m->nsub - i);
		for (x = 0; x < k; x++)
			piv[x] = cpu_to_le64(i + x < m->first ? 0 :
					     m->pivots[i + x]);
		rg_copy(rg, b + ORDO_MODEL_HDR_SIZE + 8ULL * i, piv,
			sizeof(piv[0]) * k);
	}
	rg_copy(rg, b + piv_end, NULL, desc_first - piv_end);
	for (i = m->first; i < m->nsub; i++) {
		struct ordo_model_desc d;

		rg_put_slice(rg, b + tt_off, m, &m->subs[i]);
		ordo_sub_to_desc(&m->subs[i], m->meta[i].sum, &d);
		rg_put_desc(rg, b + desc_off + (u64)ORDO_MODEL_DESC_SIZE * i,
			    &d);
		if (!(i & 1023))
			ordo_cond_resched();
	}
	rg_copy(rg, b + desc_end, NULL, tt_off - desc_end);
	hdr_fill(m, &h);
	/* Everything the header describes is in place before the header. */
	smp_wmb();
	rg_copy(rg, b, &h, sizeof(h));
	return 0;
}

/* Sub-model @i (slice, then descriptor), then its pivot. */
static void rg_put_sub_pivot(const struct ordo_region *rg,
			     const struct ordo_model *m, u32 i)
{
	__le64 piv = cpu_to_le64(m->pivots[i]);

	rg_put_sub(rg, m, i);
	rg_copy(rg, rg->base + ORDO_MODEL_HDR_SIZE + 8ULL * i, &piv,
		sizeof(piv));
}

/*
 * Did @m move sub-models to other indices since the top level of the
 * image whose header is @h?  Then only a whole new image describes it.
 */
static bool hdr_before_renum(const struct ordo_model_hdr *h,
			     const struct ordo_model *m)
{
	return (s32)(le32_to_cpu(h->top_gen) - m->renum_gen) < 0;
}

/**
 * ordo_region_retop() - publish a retraining that changed the top level
 * @rg: the region; @rg->base is the image of @m's epoch
 * @m: the model after ordo_model_retrain_sub() cut the last or the first
 *	sub-model (@sub) or moved the first one's pivot
 * @sub: the retrained sub-model
 * @h: the image's header as it is now
 *
 * Called by ordo_region_patch() once it has checked the image's header
 * against @m.
 *
 * Writes the new sub-models (slices, descriptors, pivots) where no reader
 * of the current top level looks (outside its sub_first..nsub - 1, or its
 * tt_cap when the TT area grew with the cut), then @sub and its pivot,
 * then the header with the new sub_first, nsub, TT size and top_gen.  A
 * reader of the old top level meets @sub narrowed: keys past its new end
 * land on its last leaf, whose fences tell the reader it is stale; when
 * its pivot moved, the checksum binds the new pivot and fails against the
 * old top level's.
 *
 * Return: as ordo_region_patch().
 */
static int ordo_region_retop(const struct ordo_region *rg,
			     const struct ordo_model *m, u32 sub,
			     const struct ordo_model_hdr *h)
{
	u32 first = le32_to_cpu(h->sub_first), nsub = le32_to_cpu(h->nsub);
	struct ordo_model_hdr nh;
	u32 i;
	int err;

	if (m->first > first || m->nsub < nsub || m->nsub > m->nsub_cap ||
	    sub < first || sub >= nsub)
		return -ESTALE;
	for (i = m->first; i < m->nsub; i++)
		if ((i < first || i >= nsub) && !sub_placed(m, &m->subs[i]))
			return -EINVAL;
	err = rg_check(rg, ordo_region_bytes(m));
	if (err)
		return err;
	/* The new ones where the current top level has none, then @sub. */
	for (i = m->first; i < first; i++)
		rg_put_sub_pivot(rg, m, i);
	for (i = nsub; i < m->nsub; i++)
		rg_put_sub_pivot(rg, m, i);
	rg_put_sub_pivot(rg, m, sub);
	hdr_fill(m, &nh);
	/* The new sub-models and pivots are in place before the header. */
	smp_wmb();
	rg_copy(rg, rg->base, &nh, sizeof(nh));
	return 0;
}

/**
 * ordo_region_patch() - publish one retrained sub-model
 * @rg: the region; @rg->base is the image of @m's epoch
 * @m: the model after ordo_model_retrain_sub()
 * @sub: sub-model index
 *
 * Writes the slice (in place or in fresh slots, as the model placed it),
 * then the descriptor.  A reader racing with this pairs an old descriptor
 * with new entries or the reverse, or reads either one torn; the
 * descriptor's checksum covers both, so it retries.  When retraining
 * changed the top level (@m's top_gen is not the image's: sub-models cut
 * off either end, the first one's pivot moved), publishes the new
 * sub-models too and then the header (ordo_region_retop()).  A middle
 * cut moved sub-models to other indices (@m's renum_gen is past the
 * image's top_gen): nothing is written; write @m as a new image.
 *
 * Return: 0, -EINVAL, -ENOSPC, -ESTALE (the region holds another epoch
 * or layout) or -EXDEV (sub-models renumbered: write a new image).
 */
int ordo_region_patch(const struct ordo_region *rg,
		      const struct ordo_model *m, u32 sub)
{
	struct ordo_model_hdr h;
	int err;

	err = rg_check(rg, sizeof(h));
	if (err)
		return err;
	rg_read(rg, rg->base, &h, sizeof(h));
	if (le64_to_cpu(h.epoch) != m->epoch ||
	    le32_to_cpu(h.nsub_cap) != m->nsub_cap ||
	    le32_to_cpu(h.tt_cap) > m->tt_cap)
		return -ESTALE;
	/* Before @sub: a middle cut may have moved it out of range. */
	if (hdr_before_renum(&h, m))
		return -EXDEV;
	if (!ordo_model_has_sub(m, sub) || !sub_placed(m, &m->subs[sub]))
		return -EINVAL;
	if (le32_to_cpu(h.top_gen) != m->top_gen)
		return ordo_region_retop(rg, m, sub, &h);
	if (le32_to_cpu(h.sub_first) != m->first ||
	    le32_to_cpu(h.nsub) != m->nsub ||
	    le32_to_cpu(h.tt_cap) != m->tt_cap)
		return -ESTALE;
	err = rg_check(rg, ordo_region_bytes(m));
	if (err)
		return err;
	rg_put_sub(rg, m, sub);
	return 0;
}

/**
 * ordo_region_grow() - publish a TT area that grew within the epoch
 * @rg: the region; @rg->base is the image of @m's epoch, with room for
 *	ordo_region_bytes() of @m
 * @m: the model after ordo_model_tt_grow()
 *
 * Rewrites the header with the new tt_cap, region_size and top_gen; the
 * new entries are unused until a later patch hands them out, and that
 * patch's descriptor is written after this header.
 *
 * Return: 0, -EINVAL, -ENOSPC or -ESTALE (another epoch or layout).
 */
int ordo_region_grow(const struct ordo_region *rg,
		     const struct ordo_model *m)
{
	struct ordo_model_hdr h;
	int err;

	err = rg_check(rg, ordo_region_bytes(m));
	if (err)
		return err;
	rg_read(rg, rg->base, &h, sizeof(h));
	if (le64_to_cpu(h.epoch) != m->epoch ||
	    le32_to_cpu(h.sub_first) != m->first ||
	    le32_to_cpu(h.nsub) != m->nsub ||
	    le32_to_cpu(h.nsub_cap) != m->nsub_cap ||
	    le32_to_cpu(h.tt_cap) > m->tt_cap || hdr_before_renum(&h, m))
		return -ESTALE;
	hdr_fill(m, &h);
	/* Slots past the old tt_cap are named only after this header. */
	smp_wmb();
	rg_copy(rg, rg->base, &h, sizeof(h));
	return 0;
}

/**
 * ordo_region_place() - where the next image goes
 * @live: region offset of the live image, 0 if none
 * @live_bytes: its size
 * @bytes: size of the next image
 *
 * The next image must not overlap the live one, which its readers keep
 * using until the anchor moves.  It goes right after the anchor when it
 * fits before the live image, else right after the live image; so the
 * region never holds more than two images' worth beyond the larger of
 * the two placements, and alternate trainings reuse the same space.
 *
 * Return: the region offset for the next image.
 */
u64 ordo_region_place(u64 live, u64 live_bytes, u64 bytes)
{
	u64 first = ORDO_MODEL_ANCHOR_SIZE;

	if (!live || first + bytes <= live)
		return first;
	return (live + live_bytes + ORDO_MODEL_ALIGN - 1) &
	       ~(u64)(ORDO_MODEL_ALIGN - 1);
}

/**
 * ordo_region_publish() - make the image at @rg->base the live one
 * @rg: the region; an image of @epoch fully written at @rg->base
 * @epoch: that image's epoch
 *
 * Writes the anchor: its constant fields, then the epoch, then (the one
 * store that switches readers over) the image's offset.  Readers of the
 * previous image keep valid bytes until the next ordo_region_write().
 *
 * Return: 0, -EINVAL or -ENOSPC.
 */
int ordo_region_publish(const struct ordo_region *rg, u64 epoch)
{
	struct ordo_model_anchor a;
	u64 w[ORDO_MODEL_ANCHOR_SIZE / 8], *dst;
	u32 i, live = offsetof(struct ordo_model_anchor, live) / 8;
	int err;

	err = rg_check(rg, ORDO_MODEL_HDR_SIZE);
	if (err)
		return err;
	if (!epoch || rg->base < ORDO_MODEL_ANCHOR_SIZE)
		return -EINVAL;
	memset(&a, 0, sizeof(a));
	a.magic = cpu_to_le32(ORDO_MODEL_ANCHOR_MAGIC);
	a.version = cpu_to_le16(ORDO_MODEL_VERSION);
	a.anchor_size = cpu_to_le16(ORDO_MODEL_ANCHOR_SIZE);
	a.live = cpu_to_le64(rg->base);
	a.epoch = cpu_to_le64(epoch);
	memcpy(w, &a, sizeof(w));
	/* The anchor lies in chunk 0 (chunks are at least 64 bytes). */
	dst = rg_ptr(rg, 0);
	/* The image is in place before the anchor names it. */
	smp_wmb();
	for (i = 0; i < ARRAY_SIZE(w); i++)
		if (i != live)
			WRITE_ONCE(dst[i], w[i]);
	/*
	 * The epoch first: a reader that pairs it with the old offset fails
	 * the epoch check and reads again.
	 */
	smp_wmb();
	WRITE_ONCE(dst[live], w[live]);
	return 0;
}

/**
 * ordo_model_export_sub() - encode one sub-model for an RPC reply
 * @m: model
 * @sub: sub-model index
 * @buf: destination: the descriptor, then its TT entries
 * @len: in: bytes at @buf; out: bytes needed or written
 *
 * The client installs it with ordo_model_load_sub(m, sub, buf,
 * buf + %ORDO_MODEL_DESC_SIZE, *len - %ORDO_MODEL_DESC_SIZE).
 *
 * Return: 0, -EINVAL, or -ENOSPC with *@len set to the size needed.
 */
int ordo_model_export_sub(const struct ordo_model *m, u32 sub, void *buf,
			  size_t *len)
{
	const struct ordo_sub *s;
	struct ordo_model_desc d;
	struct ordo_tt_entry e;
	u8 *b = buf;
	u64 need;
	u32 j;

	if (!ordo_model_has_sub(m, sub) || m->subs[sub].tt == ORDO_SUB_NO_TT)
		return -EINVAL;
	s = &m->subs[sub];
	need = ORDO_MODEL_DESC_SIZE + (u64)ORDO_TT_ENTRY_SIZE * s->ntt;
	if (!buf || *len < need) {
		*len = need;
		return -ENOSPC;
	}
	ordo_sub_to_desc(s, m->meta[sub].sum, &d);
	memcpy(b, &d, sizeof(d));
	b += sizeof(d);
	for (j = 0; j < s->ntt; j++, b += sizeof(e)) {
		ordo_tt_to_entry(&m->tt[s->tt + j], &e);
		memcpy(b, &e, sizeof(e));
	}
	*len = need;
	return 0;
}
