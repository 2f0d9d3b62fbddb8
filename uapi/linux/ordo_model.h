/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/*
 * ordo model region byte layout: the single source of truth for the learned
 * model and translation table (TT) that the kernel publishes and clients
 * cache.  Documentation/model.rst describes the model, the training and the
 * publication protocol.
 *
 * The region is a zero-based address space (an array of chunks, like the
 * node pool); nothing in it is a pointer.  All fields are little-endian.
 * It starts with an anchor that names the published image; a full training
 * writes a new image beside the live one and then moves the anchor, so
 * the live image never changes under its readers except by single
 * sub-model patches:
 *
 *	0		struct ordo_model_anchor	(live, epoch)
 *	live		the image, offsets below relative to it:
 *	  0		  struct ordo_model_hdr
 *	  piv_off	  __le64 pivot[nsub_cap]	(in use: sub_first .. nsub - 1)
 *	  desc_off	  struct ordo_model_desc desc[nsub_cap]
 *	  tt_off	  struct ordo_tt_entry tt[tt_cap]
 *
 * The header and the pivots ("top level") are read together and change
 * within an epoch only when sub-models are added at either end, the first
 * one moves its pivot or the TT area grows (top_gen counts that); each
 * descriptor and each TT slice can be read alone.
 *
 * Sub-models sub_first .. nsub - 1 are in use, pivots strictly increasing.
 * Sub-model i owns the key domain [pivot[i], pivot[i + 1]) (the last one
 * up to and including U64_MAX; the first one from key 0, since keys below
 * its pivot count as the pivot) and the leaves that tile it: its TT slice
 * tt[tt_start, tt_start + ntt) lists them in key order.  Its logical
 * position of a key k is
 *
 *	F(k) = min(((max(k, pivot[i]) - pivot[i]) * (mant << 32)) >> shift,
 *		   (ntt << 32) + over)
 *
 * (a 128-bit product) in units of 2^-32 logical leaf.  For every key of
 * the domain the leaf holding it lies in the logical leaves
 *
 *	[ (F - over - 1) >> 32 (or 0 if F <= over),  (F + under) >> 32 ]
 *
 * with over = err_over << 24 and under = err_under << 24 (each ntt << 32
 * for %ORDO_MODEL_ERR_UNBOUNDED), clamped to [0, ntt - 1].  A TT entry
 * does not carry its leaf's fence but a code of F(fence) on the
 * sub-model's own grid (struct ordo_tt_entry), which narrows the window
 * to the leaf, or to a few adjacent leaves when a fence's code equals the
 * key's; the leaf's own fences are the final check.
 */
#ifndef _UAPI_LINUX_ORDO_MODEL_H
#define _UAPI_LINUX_ORDO_MODEL_H

#include <linux/types.h>

/* "OMDL" read as a little-endian 32-bit word. */
#define ORDO_MODEL_MAGIC		0x4c444d4f
/* "OMDA": the anchor's. */
#define ORDO_MODEL_ANCHOR_MAGIC		0x41444d4f
/*
 * Of the anchor and the image: 3 added the anchor (double buffering), 4
 * the 8-byte TT entry with fence codes, 5 sub_first (sub-models added in
 * front of the first) and a first pivot that may lie above key 0, 6 a
 * coarser code grid (2^16 cells a window instead of 2^22: 17-bit codes),
 * 7 a grid per sub-model (ordo_model_desc.grid) and 24-bit slopes.
 */
#define ORDO_MODEL_VERSION		7

#define ORDO_MODEL_ANCHOR_SIZE		64

#define ORDO_MODEL_HDR_SIZE		128
#define ORDO_MODEL_DESC_SIZE		32
#define ORDO_TT_ENTRY_SIZE		8
/* Descriptor and TT areas start on this boundary. */
#define ORDO_MODEL_ALIGN		64

#define ORDO_MODEL_MAX_SUBS		0x1000000
#define ORDO_MODEL_MAX_SUB_LEAVES	0x1000000
#define ORDO_MODEL_MAX_TT		0x40000000

/* Logical positions are fixed point: logical leaf << 32. */
#define ORDO_MODEL_POS_SHIFT		32
/* Error bounds are in 1/256 logical leaf. */
#define ORDO_MODEL_ERR_SHIFT		8
/* An error bound this large means "search the whole slice". */
#define ORDO_MODEL_ERR_UNBOUNDED	0xffff

/*
 * ordo_model_desc.slope: mantissa in bits 0-23, shift in bits 24-30, bit
 * 31 zero.  The line's slope is (mant << 32) / 2^shift.
 */
#define ORDO_MODEL_MANT_BITS		24
#define ORDO_MODEL_MANT_MASK		((1U << ORDO_MODEL_MANT_BITS) - 1)
#define ORDO_MODEL_MANT_SCALE		32
#define ORDO_MODEL_SHIFT_MAX		127

/*
 * ordo_model_desc.grid: a window's span is cut into 2^grid cells, grid in
 * [GRID_MIN, GRID_MAX]; codes lie in [0, 2^grid].
 */
#define ORDO_MODEL_GRID_MIN		2
#define ORDO_MODEL_GRID_MAX		22

/*
 * ordo_tt_entry.code_inca: the fence code (bits 0-22), the tie flag (bit
 * 23), incarnation bits (24-31).
 */
#define ORDO_TT_CODE_BITS		(ORDO_MODEL_GRID_MAX + 1)
#define ORDO_TT_CODE_MASK		((1U << ORDO_TT_CODE_BITS) - 1)
#define ORDO_TT_TIE_RIGHT		0x800000U	/* the bit above the code */
#define ORDO_TT_INCA_SHIFT		24
#define ORDO_TT_INCA_BITS		8
#define ORDO_TT_INCA_MASK		((1U << ORDO_TT_INCA_BITS) - 1)

/*
 * Seeds of the two checksums: the starting value of the running state h
 * (see ordo_model_hdr.top_sum, ordo_model_desc.sum).  "ordo-top" and
 * "ordo-sub" as big-endian ASCII.
 */
#define ORDO_MODEL_SUM_TOP		0x6f72646f2d746f70ULL
#define ORDO_MODEL_SUM_SUB		0x6f72646f2d737562ULL

/**
 * struct ordo_model_anchor - first 64 bytes of the model region
 * @magic: %ORDO_MODEL_ANCHOR_MAGIC.
 * @version: %ORDO_MODEL_VERSION.
 * @anchor_size: %ORDO_MODEL_ANCHOR_SIZE.
 * @flags: zero.
 * @reserved0: zero.
 * @live: region offset of the published image (its header), a multiple of
 *	%ORDO_MODEL_ALIGN and at least %ORDO_MODEL_ANCHOR_SIZE; 0 while no
 *	model is published.
 * @epoch: the epoch of the image at @live (0 with @live 0).  A reader
 *	accepts the anchor only together with a header at @live of this
 *	epoch; a mismatch is a publication in progress: read again.
 * @reserved: zero.
 *
 * The writer stores @epoch and then @live, each as one aligned 64-bit
 * word, after the whole new image is in place.  The image it replaces
 * stays intact until the next full training.
 */
struct ordo_model_anchor {
	__le32 magic;
	__le16 version;
	__le16 anchor_size;
	__le32 flags;
	__le32 reserved0;
	__le64 live;
	__le64 epoch;
	__le64 reserved[4];
};

/**
 * struct ordo_model_hdr - first 128 bytes of a model image
 * @magic: %ORDO_MODEL_MAGIC.
 * @version: %ORDO_MODEL_VERSION.
 * @hdr_size: %ORDO_MODEL_HDR_SIZE.
 * @desc_size: %ORDO_MODEL_DESC_SIZE.
 * @tt_entry_size: %ORDO_TT_ENTRY_SIZE.
 * @epoch: generation of the whole model; a full (re)training writes a new
 *	epoch (the previous one plus one), per-sub-model patches keep it.
 *	Never 0.  The first model after each module load starts from a
 *	random epoch below 2^63, so a client that outlives a reload does not
 *	meet the epoch it cached with other contents.
 * @region_size: bytes of the image, from its header to the end of the TT
 *	area.
 * @piv_off: byte offset of the pivot array in the image
 *	(%ORDO_MODEL_HDR_SIZE).
 * @desc_off: byte offset of the descriptor array in the image,
 *	%ORDO_MODEL_ALIGN aligned.
 * @tt_off: byte offset of the TT area in the image, %ORDO_MODEL_ALIGN
 *	aligned.
 * @nsub: one past the last sub-model in use: sub-models @sub_first ..
 *	@nsub - 1 are in use (at least one).
 * @tt_cap: TT entries the area holds, including room for patches.
 * @nleaves: TT entries in use after the full training.
 * @leaf_slots: key slots per leaf of the tree the model describes.
 * @nkeys: keys in the leaves at training time (informational).
 * @eps: error target of the training, in 1/256 leaf (informational).
 * @flags: zero.
 * @nsub_cap: pivots and descriptors the image has room for (>= @nsub):
 *	the pivot and descriptor arrays are sized by it, so sub-models can
 *	be appended within the epoch.
 * @top_gen: bumped each time the top level changes within the epoch
 *	(sub-models added behind the last or in front of the first, the
 *	first one's pivot moved, the TT area grown); 0 after the training.
 * @sub_first: the first sub-model in use (< @nsub).  A training leaves
 *	room in front of it (descending inserts add sub-models there);
 *	pivots and descriptors below it are not part of the model.
 * @reserved1: zero.
 * @reserved: zero.
 * @top_sum: checksum of the top level.  h = %ORDO_MODEL_SUM_TOP; then
 *	h = mix(h, w) for each w in order: the 15 little-endian 64-bit words
 *	at header bytes 0, 8, ..., 112 (everything before @top_sum, as
 *	stored), then pivot[sub_first] to pivot[nsub - 1];
 *	top_sum = fmix64(h).
 *	mix() and fmix64() are defined at ordo_model_desc.sum.
 */
struct ordo_model_hdr {
	__le32 magic;
	__le16 version;
	__le16 hdr_size;
	__le32 desc_size;
	__le32 tt_entry_size;
	__le64 epoch;
	__le64 region_size;
	__le64 piv_off;
	__le64 desc_off;
	__le64 tt_off;
	__le32 nsub;
	__le32 tt_cap;
	__le32 nleaves;
	__le32 leaf_slots;
	__le64 nkeys;
	__le32 eps;
	__le32 flags;
	__le32 nsub_cap;
	__le32 top_gen;
	__le32 sub_first;
	__le32 reserved1;
	__le64 reserved[2];
	__le64 top_sum;
};

/**
 * struct ordo_model_desc - one sub-model
 * @sum: checksum binding this descriptor to its TT slice, its pivot and
 *	the epoch.  Unsigned 64-bit arithmetic modulo 2^64, >> logical:
 *	mix(h, w) is ``h ^= w; h *= 0x9e3779b97f4a7c15; h ^= h >> 32;``
 *	and fmix64(h) (MurmurHash3's finaliser) is ``h ^= h >> 33;
 *	h *= 0xff51afd7ed558ccd; h ^= h >> 33; h *= 0xc4ceb9fe1a85ec53;
 *	h ^= h >> 33;``.  The seed is the starting value, not a word:
 *	h = %ORDO_MODEL_SUM_SUB, then h = mix(h, w) for each w in order:
 *	the header's epoch; the sub-model index i (zero-extended); pivot[i];
 *	the little-endian 64-bit words at bytes 8, 16 and 24 of this
 *	descriptor; then, for each of the @ntt TT entries of the slice in
 *	order, the entry's little-endian 64-bit word.
 *	sum = fmix64(h).  Documentation/model.rst has a test vector.  A
 *	reader that fetched the descriptor and the slice with separate reads
 *	accepts them only if the checksum matches, whatever order the bytes
 *	were read in.
 * @slope: mantissa mant (bits 0-23) and shift (bits 24-30, at most
 *	%ORDO_MODEL_SHIFT_MAX; bit 31 zero) of F(k) = min(((k - pivot) *
 *	(mant << 32)) >> shift, (@ntt << 32) + O) for k >= pivot and F(k) =
 *	0 below it (only keys of the first sub-model lie below its pivot),
 *	the product (below 2^120) and the shift exact in 128 bits (O as at
 *	struct ordo_tt_entry).
 * @tt_start: index of the first TT entry of the slice.
 * @ntt: leaves in the slice, 1 to %ORDO_MODEL_MAX_SUB_LEAVES; logical
 *	leaf j is tt[tt_start + j].
 * @gen: bumped by each patch of this sub-model within an epoch.
 * @err_over: how far F may run ahead of a leaf's logical position, in
 *	1/256 leaf; %ORDO_MODEL_ERR_UNBOUNDED: no bound.
 * @err_under: how far F may lag behind, same units.
 * @grid: the fence codes' grid: the window's span is cut into 2^@grid
 *	cells, @grid in [%ORDO_MODEL_GRID_MIN, %ORDO_MODEL_GRID_MAX]
 *	(struct ordo_tt_entry).  The writer takes the coarsest grid that
 *	keeps consecutive fences 16 cells apart and the cells that hold a
 *	fence within 1/64 of their leaves' key ranges on average, so a slice
 *	through a dense cluster keeps fine codes and an evenly spread one
 *	costs a client few bits.
 * @zero: zero.
 */
struct ordo_model_desc {
	__le64 sum;
	__le32 slope;
	__le32 tt_start;
	__le32 ntt;
	__le32 gen;
	__le16 err_over;
	__le16 err_under;
	__u8 grid;
	__u8 zero[3];
};

/**
 * struct ordo_tt_entry - one logical leaf of a sub-model
 * @leaf: node number of the leaf in the node pool.
 * @code_inca: bits 0-22: the fence code c of the leaf's low fence; bit 23:
 *	%ORDO_TT_TIE_RIGHT; bits 24-31: the low 8 bits of the leaf's
 *	incarnation at training time.
 *
 * The fence code places the leaf's low fence f on the sub-model's line
 * without storing it.  With U = err_under << 24 and O = err_over << 24
 * (each ntt << 32 instead when it is %ORDO_MODEL_ERR_UNBOUNDED), the
 * code shift is s = max(0, bitlen(2^32 + O + U) - grid), grid from the
 * descriptor, where bitlen(v) is the position of v's highest set bit
 * plus one (so the span, shifted by s, is below 2^grid: the window has
 * 2^grid grid cells or fewer); logical leaf j's grid position is G(j) =
 * c + ((j << 32) >> s), and the writer stores c = ((F(f) + U) >> s) -
 * ((j << 32) >> s), which lies in [0, 2^grid].
 * For a key k of the domain let A = (F(k) + U) >> s.  F being monotone,
 * G(j) < A proves f < k (the leaf starts left of k) and G(j) > A proves
 * f > k.  G(j) == A (always so for k == f) decides nothing by itself;
 * %ORDO_TT_TIE_RIGHT says to count it as f <= k: the writer sets it when
 * no key stored left of f in the domain at training shared f's grid
 * cell, so only keys absent then can be sent one leaf too far right (the
 * leaf's low fence shows it).  Logical leaf 0 starts at or below the
 * pivot (below only in the first sub-model), so F of its fence is 0: its
 * code is U >> s and its flag is set.  G never decreases along a slice.
 *
 * A client reading the leaf compares its incarnation with these bits and
 * the key with the leaf's own fences; any mismatch means the entry is
 * stale (split or reused leaf).  The entry is one little-endian 64-bit
 * word: leaf | code_inca << 32.
 */
struct ordo_tt_entry {
	__le32 leaf;
	__le32 code_inca;
};

/**
 * ordo_model_desc_off() - byte offset of the descriptor array
 * @nsub: room for sub-models (the header's nsub_cap)
 *
 * Return: the end of the pivots, rounded up to %ORDO_MODEL_ALIGN.
 */
static inline __u64 ordo_model_desc_off(__u32 nsub)
{
	__u64 end = ORDO_MODEL_HDR_SIZE + 8ULL * nsub;

	return (end + ORDO_MODEL_ALIGN - 1) & ~(__u64)(ORDO_MODEL_ALIGN - 1);
}

/**
 * ordo_model_tt_off() - byte offset of the TT area
 * @nsub: room for sub-models (the header's nsub_cap)
 *
 * Return: the end of the descriptors, rounded up to %ORDO_MODEL_ALIGN.
 */
static inline __u64 ordo_model_tt_off(__u32 nsub)
{
	__u64 end = ordo_model_desc_off(nsub) +
		    (__u64)ORDO_MODEL_DESC_SIZE * nsub;

	return (end + ORDO_MODEL_ALIGN - 1) & ~(__u64)(ORDO_MODEL_ALIGN - 1);
}

/**
 * ordo_model_region_size() - bytes of an image (header to end of the TT)
 * @nsub: room for sub-models (the header's nsub_cap)
 * @tt_cap: TT entries in the area
 *
 * Return: the end of the TT area.
 */
static inline __u64 ordo_model_region_size(__u32 nsub, __u32 tt_cap)
{
	return ordo_model_tt_off(nsub) + (__u64)ORDO_TT_ENTRY_SIZE * tt_cap;
}

#endif /* _UAPI_LINUX_ORDO_MODEL_H */
