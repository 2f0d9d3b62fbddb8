// SPDX-License-Identifier: GPL-2.0
/*
 * UPDATE at a hinted leaf.
 *
 * The hint is trusted only after it is checked under the leaf's lock: the
 * node must be a live leaf (not free, not the superblock, level 0) that
 * carries the hinted number, and its fences must cover the key.  Leaves
 * partition the key space, so such a leaf is the only place the key can
 * be, whatever happened to it since the client saw it (splits, even
 * retirement and reuse): no incarnation is needed.  Anything else sends
 * the caller back to the ordinary descent.
 */
#include "compat.h"
#include "tree_hint.h"

/**
 * ordo_tree_update_hint() - replace a key's value at a hinted leaf
 * @t: tree
 * @leaf: node number of the leaf believed to hold @key
 * @key: any u64
 * @val: the value; one longer than value_size is not taken here
 *
 * Never sleeps and never allocates; spins on the leaf's lock like any
 * writer.  An extent the slot named is freed.
 *
 * Return: 0 when the value was replaced at @leaf; -ENOENT when @leaf is
 * the leaf covering @key and @key is absent; -ESTALE when the hint does
 * not hold or the value is long (the caller then uses
 * ordo_tree_update_len()).
 */
int ordo_tree_update_hint(struct ordo_tree *t, u32 leaf, u64 key,
			  const struct ordo_value *val)
{
	const struct ordo_geo *g = &t->geo;
	struct ordo_node_hdr *h;
	u32 cnt, pos, units = 0;
	u64 ref = 0;
	int slot;
	u8 flags;

	if (leaf == ORDO_NODE_NONE || val->len > g->value_size)
		return -ESTALE;
	/*
	 * NULL for numbers past the published chunks; a number in a value
	 * chunk names extent bytes, one in an inner chunk maybe the middle
	 * of an inner node: neither may ever be locked as a node.
	 */
	h = ordo_pool_node(&t->pool, leaf);
	if (!h || !ordo_pool_is_leaf_slot(&t->pool, leaf))
		return -ESTALE;
	ordo_node_lock(h);
	flags = h->flags;
	/* A never-used node is all zeroes: its node_no is 0, not @leaf. */
	if (le32_to_cpu(h->node_no) != leaf || h->level ||
	    (flags & (ORDO_NODE_F_FREE | ORDO_NODE_F_SUPER)) ||
	    key < le64_to_cpu(h->low_key) ||
	    ((flags & ORDO_NODE_F_HAS_HIGH) &&
	     key >= le64_to_cpu(h->high_key))) {
		ordo_node_unlock_clean(h);
		return -ESTALE;
	}
	cnt = min_t(u32, le16_to_cpu(h->count), g->leaf_slots);
	slot = ordo_leaf_find(h, g, cnt, key, &pos);
	if (slot < 0) {
		ordo_node_unlock_clean(h);
		return -ENOENT;
	}
	units = ordo_leaf_extent_units(h, g, slot);
	if (units)
		ref = le64_to_cpu(ordo_leaf_checks(h, g)[slot]);
	ordo_leaf_set_value(h, g, slot, val->buf, val->len);
	ordo_node_unlock(h, g);
	if (units)
		ordo_extent_free(&t->extents, ref, units);
	return 0;
}
