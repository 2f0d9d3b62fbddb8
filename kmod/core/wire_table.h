/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The region table a server publishes for one-sided READs (struct
 * ordo_wire_table in linux/ordo_wire.h, Documentation/wire.rst): built in
 * a private staging copy, checksummed there, then copied into the live
 * table under its sequence word.  Kernel-neutral, so the native tests and
 * the fuzzers' seeds build tables with the server's own code.
 */
#ifndef ORDO_CORE_WIRE_TABLE_H
#define ORDO_CORE_WIRE_TABLE_H

#include "compat.h"
#include <linux/ordo_wire.h>

/**
 * struct ordo_wire_table_info - the header fields of one publication
 * @server_id: the server's id.
 * @cap: entries the table has room for.
 * @lease_ms: how long a client may use a copy's keys.
 * @pool_chunks: pool chunks the pool entries tile.
 * @nr_chunks: chunks the pool has.
 * @model_bytes: bytes the model entries tile.
 */
struct ordo_wire_table_info {
	u64 server_id;
	u32 cap;
	u32 lease_ms;
	u32 pool_chunks;
	u32 nr_chunks;
	u64 model_bytes;
};

/* Bytes of a table with room for @cap entries. */
static inline u64 ordo_wire_table_bytes(u32 cap)
{
	return sizeof(struct ordo_wire_table) +
	       (u64)cap * sizeof(struct ordo_wire_region);
}

void ordo_wire_table_entry(void *stage, u32 i, u16 kind, u64 offset,
			   u64 length, u32 rkey);
void ordo_wire_table_seal(void *stage, u64 seq, u32 nr,
			  const struct ordo_wire_table_info *ti);
void ordo_wire_table_publish(void *live, const void *stage);

#endif /* ORDO_CORE_WIRE_TABLE_H */
