/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The server's decoders of untrusted bytes from the network: RPC requests
 * (linux/ordo_wire.h, Documentation/wire.rst), the connect private data,
 * and the bounds of the replies built in the receive path.  Kernel-neutral,
 * so the same code runs in ordo.ko (kmod/rdma/rpc.c, listener.c) and in
 * the native fuzzers (selftests/fuzz/).  Nothing here touches the store:
 * a request is decoded and checked whole before anything executes.
 */
#ifndef ORDO_CORE_WIRE_H
#define ORDO_CORE_WIRE_H

#include "compat.h"
#include <linux/ordo_wire.h>

struct ordo_model_layout;

/**
 * struct ordo_wire_scan_args - a checked SCAN request
 * @start: first key of interest.
 * @count: pairs wanted, 1 to %ORDO_WIRE_SCAN_MAX.
 * @with_vals: the reply carries values.
 */
struct ordo_wire_scan_args {
	u64 start;
	u32 count;
	bool with_vals;
};

/**
 * struct ordo_wire_model_args - a checked MODEL_FETCH request
 * @part: enum ordo_wire_model_part.
 * @index: SUB: sub-model; TT: first entry.
 * @count: TT: entries wanted.
 * @offset: TOP: byte offset.
 */
struct ordo_wire_model_args {
	u32 part;
	u32 index;
	u32 count;
	u32 offset;
};

/**
 * struct ordo_wire_lookup_args - a checked LOOKUP request
 * @key: the key.
 * @flags: ORDO_WIRE_LOOKUP_* bits.
 */
struct ordo_wire_lookup_args {
	u64 key;
	u32 flags;
};

/**
 * struct ordo_wire_stage_args - a checked STAGE request
 * @total: the value's length, value_size + 1 to value_max.
 * @offset: where the part goes; @offset + @len <= @total.
 * @len: bytes of the part, at least 1.
 * @data: the part's bytes, inside the request.
 */
struct ordo_wire_stage_args {
	u32 total;
	u32 offset;
	u32 len;
	const u8 *data;
};

u32 ordo_wire_status(int err);
int ordo_wire_hdr_check(const void *msg, u32 len);
u16 ordo_wire_conn_req_check(const void *pdata, u32 len, u32 *want);
int ordo_wire_kv_check(const struct ordo_wire_kv *kv, u32 avail,
		       u32 value_max, bool batch, u32 *size);
int ordo_wire_point_check(u32 op, const void *body, u32 blen, u32 value_max);
int ordo_wire_stage_check(const void *body, u32 blen, u32 value_size,
			  u32 value_max, struct ordo_wire_stage_args *a);
int ordo_wire_stage_next(const struct ordo_wire_stage_args *a, u32 total,
			 u32 have);
int ordo_wire_staged_check(const struct ordo_wire_kv *kv, u32 total,
			   u32 have);
u32 ordo_wire_part_cap(u32 room);
u32 ordo_wire_lookup_part_cap(u32 room);
int ordo_wire_scan_check(const void *body, u32 blen,
			 struct ordo_wire_scan_args *a);
u32 ordo_wire_scan_fit(const struct ordo_wire_scan_args *a, u32 value_size,
		       u32 room);
u32 *ordo_wire_scan_lens(void *out, u32 n);
u8 *ordo_wire_scan_vals(void *out, u32 n);
u32 ordo_wire_scan_finish(void *out, u32 n, u32 ret, const u64 *keys,
			  u32 value_size, bool with_vals);
int ordo_wire_regions_check(const void *body, u32 blen, u32 *kind,
			    u32 *first);
int ordo_wire_regions_fit(u32 nr, u32 first, u32 room, u32 *n);
int ordo_wire_model_check(const void *body, u32 blen,
			  struct ordo_wire_model_args *a);
int ordo_wire_model_span(const struct ordo_wire_model_args *a,
			 const struct ordo_model_layout *lay, u32 room,
			 u64 *src, u64 *n, u64 *total);
int ordo_wire_lookup_check(const void *body, u32 blen,
			   struct ordo_wire_lookup_args *a);
u32 ordo_wire_lookup_room(u32 room, u32 vlen);
int ordo_wire_batch_check(const void *body, u32 blen, u32 value_size,
			  u32 value_max, u32 room, u32 *count);

#endif /* ORDO_CORE_WIRE_H */
