// SPDX-License-Identifier: GPL-2.0
/*
 * Building and publishing the region table (wire_table.h).
 *
 * A client READs the live table while it is rewritten, and the NIC may
 * read its bytes in any order, so nothing but the checksum proves a copy
 * whole: the table is built and checksummed in a staging buffer, and the
 * live one is rewritten with its sequence word odd, as the tree writes
 * nodes.  An odd word tells a reader early; a mixed copy fails the
 * checksum whatever it read first.
 */
#include "wire_table.h"
#include "node.h"

/**
 * ordo_wire_table_entry() - write entry @i of a staging table
 * @stage: the staging table
 * @i: entry index, below the table's capacity
 * @kind: enum ordo_wire_region_kind
 * @offset: zero-based offset of the region (and its remote address)
 * @length: bytes
 * @rkey: its remote key
 */
void ordo_wire_table_entry(void *stage, u32 i, u16 kind, u64 offset,
			   u64 length, u32 rkey)
{
	struct ordo_wire_region *e = (struct ordo_wire_region *)
		((u8 *)stage + sizeof(struct ordo_wire_table)) + i;

	e->offset = cpu_to_le64(offset);
	e->length = cpu_to_le64(length);
	e->rkey = cpu_to_le32(rkey);
	e->kind = cpu_to_le16(kind);
	e->flags = 0;
}

/**
 * ordo_wire_table_seal() - fill the header of a staging table and sum it
 * @stage: the staging table, its first @nr entries written
 * @seq: the publication's sequence word, even
 * @nr: entries in use
 * @ti: the header fields
 */
void ordo_wire_table_seal(void *stage, u64 seq, u32 nr,
			  const struct ordo_wire_table_info *ti)
{
	struct ordo_wire_table *t = stage;

	t->seq = cpu_to_le64(seq);
	t->checksum = 0;
	t->magic = cpu_to_le32(ORDO_WIRE_TABLE_MAGIC);
	t->version = cpu_to_le16(ORDO_WIRE_TABLE_VERSION);
	t->hdr_size = cpu_to_le16(sizeof(*t));
	t->server_id = cpu_to_le64(ti->server_id);
	t->cap_entries = cpu_to_le32(ti->cap);
	t->nr_entries = cpu_to_le32(nr);
	t->pool_chunks = cpu_to_le32(ti->pool_chunks);
	t->nr_chunks = cpu_to_le32(ti->nr_chunks);
	t->model_bytes = cpu_to_le64(ti->model_bytes);
	t->lease_ms = cpu_to_le32(ti->lease_ms);
	t->reserved = 0;
	t->checksum = cpu_to_le64(ordo_xxh64(stage, ordo_wire_table_bytes(nr),
					     0));
}

/**
 * ordo_wire_table_publish() - copy a sealed staging table to the live one
 * @live: the table clients READ
 * @stage: the sealed staging table; its sequence word is the live one's
 *	plus 2
 *
 * The caller serialises publications.
 */
void ordo_wire_table_publish(void *live, const void *stage)
{
	const struct ordo_wire_table *s = stage;
	struct ordo_wire_table *t = live;
	u64 seq = le64_to_cpu(s->seq);
	u32 nr = le32_to_cpu(s->nr_entries);
	size_t skip = sizeof(t->seq);

	WRITE_ONCE(t->seq, cpu_to_le64(seq - 1));
	/* The odd word goes out first: a hint; the checksum decides. */
	smp_wmb();
	memcpy((u8 *)live + skip, (const u8 *)stage + skip,
	       ordo_wire_table_bytes(nr) - skip);
	/* The even word last: a reader that sees it may find the bytes. */
	smp_wmb();
	WRITE_ONCE(t->seq, s->seq);
}
