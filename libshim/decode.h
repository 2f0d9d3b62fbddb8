/* SPDX-License-Identifier: GPL-2.0 */
/*
 * libordo: the decoders of bytes a server sent or a READ returned (wire
 * replies, connect private data, region tables, nodes, the model's
 * descriptors).  Pure functions of their arguments, no handle, no I/O, so
 * that the fuzzers (selftests/fuzz/) run exactly the code the library
 * runs.  A decoder that accepts its input guarantees what its comment
 * says: every offset it reports lies inside the bytes it was given, every
 * count is within the limits the caller passed.
 */
#ifndef LIBORDO_DECODE_H
#define LIBORDO_DECODE_H

#include <stdbool.h>
#include <stdint.h>

#include "compat.h"
#include "model.h"
#include "node.h"
#include <linux/ordo.h>
#include <linux/ordo_wire.h>

/**
 * struct region_tab - where one address space may be READ
 * @ent: entries in ascending offset order (host order), tiling
 *	[0, @covered) without gaps, overlaps or wrap-around.
 * @n: entries.
 * @covered: bytes the entries tile from 0.
 */
struct region_tab {
	struct region_ent {
		uint64_t off;
		uint64_t len;
		uint32_t rkey;
	} *ent;
	uint32_t n;
	uint64_t covered;
};

/**
 * struct shim_regions - a region table being fetched page by page
 * @ent: entries so far (malloc'd; the caller frees or keeps them).
 * @got: entries so far.
 * @total: entries the server said the table has.
 * @covered: bytes the server said the entries tile.
 */
struct shim_regions {
	struct region_ent *ent;
	uint32_t got;
	uint32_t total;
	uint64_t covered;
};

/**
 * struct shim_table - a region table decoded from one READ of it
 * @seq: its sequence word (even).
 * @pool_chunks: pool chunks @pool covers.
 * @nr_chunks: chunks the pool had when it was published.
 * @lease_ms: how long its keys may be used, at least 1.
 * @pool: the pool's regions (@pool.ent malloc'd, NULL when empty).
 * @model: the model region's (@model.ent likewise).
 */
struct shim_table {
	uint64_t seq;
	uint32_t pool_chunks;
	uint32_t nr_chunks;
	uint32_t lease_ms;
	struct region_tab pool;
	struct region_tab model;
};

/**
 * struct shim_lookup_rep - a decoded LOOKUP reply
 * @epoch: epoch of the attached model bytes.
 * @sub: their sub-model.
 * @found: the key is present; @val then holds @val_len bytes of it.
 * @val: the value (its first bytes when @total > @val_len), inside the
 *	reply.
 * @val_len: bytes at @val, at most @total.
 * @total: the value's length, at most value_max; more than value_size
 *	only with %ORDO_WIRE_F_PART (then @ref and @units describe it).
 * @ref: the value's extent reference, or 0.
 * @units: its extent's size in 64-byte units, or 0.
 * @model: @model_len bytes of descriptor (and slice), inside the reply.
 * @model_len: bytes at @model, at most @model_total.
 * @model_total: bytes of the descriptor and its whole slice.
 */
struct shim_lookup_rep {
	uint64_t epoch;
	uint32_t sub;
	bool found;
	const uint8_t *val;
	uint32_t val_len;
	uint32_t total;
	uint64_t ref;
	uint32_t units;
	const uint8_t *model;
	uint32_t model_len;
	uint32_t model_total;
};

/**
 * struct shim_scan_rep - a decoded SCAN reply
 * @n: pairs, at most the count asked for; keys ascending from the start.
 * @more: 0 or 1.
 * @next: the key to continue at when @more.
 * @vals: @n values value_size bytes apart, each zero past its length,
 *	inside the reply.
 * @lens: @n little-endian lengths, each at most value_max, inside the
 *	reply (a value longer than value_size has zeros in @vals).
 */
struct shim_scan_rep {
	uint32_t n;
	uint32_t more;
	uint64_t next;
	const uint8_t *vals;
	const __le32 *lens;
};

/**
 * struct shim_part - a decoded struct ordo_wire_part (or a plain GET
 *	reply, as a part of an inline value from offset 0)
 * @ref: the value's extent reference, 0 for a value of at most
 *	value_size bytes.
 * @len: the value's length, at most value_max.
 * @offset: the first byte at @bytes, the offset asked for.
 * @returned: bytes at @bytes, at most @len - @offset.
 * @units: ordo_extent_units(@len) for an extent, else 0.
 * @bytes: inside the reply.
 */
struct shim_part {
	uint64_t ref;
	uint32_t len;
	uint32_t offset;
	uint32_t returned;
	uint32_t units;
	const uint8_t *bytes;
};

/**
 * struct shim_req - an RPC request body to encode
 * @op: enum ordo_wire_op: GET to DELETE, SCAN or LOOKUP.
 * @key: the key (SCAN: the start).
 * @val: PUT, INSERT, UPDATE: @len bytes of value.
 * @len: bytes at @val, at most the store's value size (0: none).
 * @hint_leaf: UPDATE: the leaf the cache names, or 0 for no hint.
 * @count: SCAN: pairs wanted.
 * @epoch: LOOKUP: the cached model's epoch.
 * @flags: LOOKUP: ORDO_WIRE_LOOKUP_* bits.
 * @kv_flags: GET ... DELETE: %ORDO_WIRE_KV_PART (GET from offset @arg)
 *	or %ORDO_WIRE_KV_STAGED (store the staged value of @arg bytes;
 *	@len 0).
 * @arg: see @kv_flags.
 */
struct shim_req {
	uint8_t op;
	uint8_t kv_flags;
	uint32_t arg;
	uint64_t key;
	const void *val;
	uint32_t len;
	uint32_t hint_leaf;
	uint32_t count;
	uint64_t epoch;
	uint32_t flags;
};

/*
 * A GET reads a whole leaf in one READ up to this many bytes; a larger
 * leaf's key block first, then the one value it needs (Documentation/
 * client.rst).  On a NIC a READ of 4 KiB costs little more than one of
 * 64 bytes; a second round trip costs a whole one.
 */
#define SHIM_LEAF_WHOLE_MAX	4096u

/* Outcome of checking a leaf or inner copy against a key. */
enum vres {
	V_OK,		/* the node's fences hold the key */
	V_RIGHT,	/* the key is at or past the high fence */
	V_TORN,		/* read it again */
	V_STALE,	/* not the node we wanted any more */
	V_LEFT,		/* a good copy, but the key is below its low fence */
};

/**
 * struct shim_walk - a walk from the root to the leaf holding a key
 * @key: the key (a SCAN: its fence).
 * @node: the node to visit next.
 * @level: its level.
 * @rights: right moves since the walk (re)started.
 * @leaf_len: bytes read of a leaf (at @level 0): node_size, or the key
 *	block alone (shim_leaf_read_len()); 0 means node_size.
 */
struct shim_walk {
	uint64_t key;
	uint32_t node;
	uint32_t level;
	uint32_t rights;
	uint32_t leaf_len;
};

/* What the walk does after a node (shim_walk_step()). */
enum shim_walk_res {
	SHIM_WALK_LEAF,		/* @node is the key's leaf, validated */
	SHIM_WALK_DOWN,		/* descended: the node was a good inner node */
	SHIM_WALK_RIGHT,	/* moved right to @node at the same level */
	SHIM_WALK_TORN,		/* read @node again */
	SHIM_WALK_STALE,	/* restart from the root */
};

/*
 * Right moves one walk may make before it restarts from the root.  A
 * healthy tree needs a few (splits since the parent was read, or a stale
 * cached inner node); a server whose right links form a cycle would
 * otherwise keep the walk going forever.
 */
#define SHIM_WALK_RIGHTS_MAX	64

/**
 * struct shim_scan - a one-sided SCAN collecting pairs leaf by leaf
 * @keys: @count keys out.
 * @vals: @count values of value_size bytes out (each zero past its
 *	length), or NULL.
 * @lens: @count value lengths out, or NULL.
 * @count: pairs wanted, at least 1.
 * @have: pairs taken so far.
 * @fence: the next key to take from; keys taken are below it.
 * @right: the leaf to continue at (when shim_scan_take() returned 0).
 * @more: when complete: there may be keys after the last one.
 * @next: when complete with @more: the key to continue at.
 */
struct shim_scan {
	uint64_t *keys;
	uint8_t *vals;
	uint32_t *lens;
	uint32_t count;
	uint32_t have;
	uint64_t fence;
	uint32_t right;
	int more;
	uint64_t next;
};

uint32_t shim_enc_req(uint8_t *body, const struct shim_req *q);
uint32_t shim_stage_part_max(uint32_t max_msg);
uint32_t shim_enc_stage(uint8_t *body, uint32_t total, uint32_t offset,
			const void *part, uint32_t len);
int shim_dec_reply_hdr(const void *msg, uint32_t len);
int shim_dec_part(const uint8_t *b, uint32_t blen, uint32_t value_size,
		  uint32_t value_max, uint32_t offset, struct shim_part *p);
int shim_dec_get(const uint8_t *b, uint32_t blen, uint16_t hflags,
		 uint32_t value_size, uint32_t value_max, uint32_t offset,
		 struct shim_part *p);
int shim_dec_lookup(const uint8_t *b, uint32_t blen, uint16_t hflags,
		    uint32_t value_size, uint32_t value_max,
		    struct shim_lookup_rep *l);
int shim_dec_scan(const uint8_t *b, uint32_t blen, uint32_t value_size,
		  uint32_t value_max, uint64_t start, uint32_t count,
		  uint64_t *keys, struct shim_scan_rep *s);
int shim_dec_batch(const uint8_t *b, uint32_t blen, uint32_t value_size,
		   uint32_t value_max, struct ordo_batch_op *ops, uint32_t n);
int shim_dec_info(const uint8_t *b, uint32_t blen, struct ordo_info *info);
int shim_dec_regions(struct shim_regions *acc, uint16_t kind,
		     const uint8_t *b, uint32_t blen);
int shim_dec_regions_end(const struct shim_regions *acc);
int shim_dec_table(const uint8_t *b, uint64_t len, uint64_t server_id,
		   uint64_t chunk_size, struct shim_table *t);
const struct region_ent *shim_region_find(const struct region_tab *t,
					  uint64_t off, uint32_t len);
int shim_dec_conn_rep(const struct ordo_wire_conn_rep *rep, uint32_t max_qd,
		      const struct ordo_geo *have, struct ordo_geo *geo);
int shim_dec_conn_rej(const void *pdata, size_t len);
uint32_t shim_node_read_len(const struct ordo_geo *geo, uint32_t level,
			    bool whole_leaf);
uint32_t shim_leaf_read_len(const struct ordo_geo *geo);
enum vres shim_node_check(const struct ordo_geo *geo, const void *buf,
			  uint32_t len, uint32_t node, uint32_t level,
			  uint64_t key);
int shim_leaf_find(const struct ordo_geo *geo, const void *buf, uint64_t key,
		   uint32_t *slot);
int shim_leaf_get(const struct ordo_geo *geo, const void *buf, uint64_t key,
		  void *val, uint32_t *len);
bool shim_value_matches(const struct ordo_geo *geo, const void *block,
			uint32_t slot, const void *val);
enum shim_walk_res shim_walk_step(const struct ordo_geo *geo,
				  struct shim_walk *w, const void *buf);
int shim_scan_take(const struct ordo_geo *geo, struct shim_scan *s,
		   const void *leaf);
bool shim_model_same_layout(const struct ordo_model_layout *a,
			    const struct ordo_model_layout *b);
int shim_dec_model_only(const struct ordo_model_layout *lay,
			const uint8_t *img, size_t len,
			struct ordo_model **mp, uint32_t **starts,
			uint64_t *tt_off);

#endif /* LIBORDO_DECODE_H */
