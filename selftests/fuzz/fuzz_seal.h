/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Seal a fuzzed node copy as a server would publish it, so the fuzzer
 * reaches the checks behind the checksum: a server may be malicious, not
 * only torn.
 */
#ifndef ORDO_FUZZ_SEAL_H
#define ORDO_FUZZ_SEAL_H

#include "node.h"

/* A valid even version and the checksum over the first @len bytes. */
static inline void fz_seal_len(u8 *buf, u32 len)
{
	struct ordo_node_hdr *h = (void *)buf;
	u64 v = le64toh(h->version);

	if (!v || (v & 1))
		v = (v | 1) + 1;
	h->version = htole64(v);
	h->checksum = htole64(ordo_node_checksum(buf, len, v));
}

/*
 * Seal a node of @geo; with @checks also give the slots a leaf's order[]
 * names (ranks below count and leaf_slots) the check words of their
 * values (8-byte values have none: they sit in the key block), else keep
 * the fuzzer's check words so that a sealed key block with wrong ones is
 * tried too.
 */
static inline void fz_seal(u8 *buf, const struct ordo_geo *geo, bool checks)
{
	struct ordo_node_hdr *h = (void *)buf;
	const u8 *ord = ordo_leaf_corder(h, geo);
	u32 r, s, cnt = le16toh(h->count);

	if (checks && ordo_node_is_leaf(h) &&
	    !ordo_leaf_values_in_block(geo->value_size))
		for (r = 0; r < cnt && r < geo->leaf_slots; r++) {
			s = ord[r];
			if (s >= geo->leaf_slots)
				continue;
			/* Over the value's length, bounded as a reader does. */
			ordo_leaf_checks(h, geo)[s] = htole64(
				ordo_xxh64(ordo_leaf_cvalue(h, geo, s),
					   ordo_leaf_value_len(h, geo, s),
					   le64toh(ordo_node_ckeys(h)[s])));
		}
	fz_seal_len(buf, ordo_node_sum_len(h, geo));
}

#endif /* ORDO_FUZZ_SEAL_H */
