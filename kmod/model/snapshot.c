// SPDX-License-Identifier: GPL-2.0
/*
 * Leaf-level snapshots for training: consistent copies of the leaves that
 * tile a key domain, taken with the tree's lock-free leaf iterator while
 * writers go on.  Each leaf is a consistent copy; leaves that split after
 * being copied are reported by the split hook and retrained later.
 */
#include <linux/sched.h>
#include <linux/slab.h>

#include "trainer.h"

/*
 * A growing array is copied in steps of this many bytes with a
 * reschedule between them: at 100M keys the keys array is a gigabyte,
 * and one copy of it outlasts the soft-lockup watchdog on a slow CPU.
 */
#define GROW_COPY_STEP	(16UL << 20)

/* Room for @want elements at least, twice the old room if more. */
static int grow(void **p, u32 *cap, size_t elem, u32 want)
{
	u32 ncap = min_t(u64, U32_MAX,
			 max_t(u64, want, *cap ? (u64)*cap * 2 : 1024));
	size_t old = (size_t)*cap * elem, off;
	u8 *np = kvmalloc_array(ncap, elem, GFP_KERNEL);

	if (!np)
		return -ENOMEM;
	for (off = 0; off < old; off += GROW_COPY_STEP) {
		memcpy(np + off, (u8 *)*p + off,
		       min_t(size_t, GROW_COPY_STEP, old - off));
		cond_resched();
	}
	kvfree(*p);
	*p = np;
	*cap = ncap;
	return 0;
}

/**
 * ordo_snapshot_leaves - copy the leaves tiling [@lo, @hi) (or [@lo, max])
 * @t: the tree
 * @lo: first key of the domain; the first leaf copied contains it
 * @hi: end of the domain (exclusive), unless @last
 * @last: the domain runs to U64_MAX
 * @set: filled; free with ordo_snapshot_free()
 * @key_cap: in/out: capacity hint for the keys array
 *
 * Return: 0, -ENOMEM, -ENOSPC (over U32_MAX leaves or keys) or the
 * iterator's error.
 */
int ordo_snapshot_leaves(struct ordo_tree *t, u64 lo, u64 hi, bool last,
			 struct ordo_leaf_set *set, u32 *key_cap)
{
	struct ordo_leaf_info *leaves = NULL;
	u32 nleaves = 0, leaf_cap = 0, kcap = 0;
	struct ordo_leaf_iter it;
	struct ordo_leaf_snap s;
	u64 *keys = NULL, nkeys = 0;
	int ret;

	memset(set, 0, sizeof(*set));
	ret = ordo_leaf_iter_start(&it, t, lo);
	if (ret)
		return ret;
	ret = grow((void **)&keys, &kcap, sizeof(*keys), *key_cap);
	while (!ret) {
		ret = ordo_leaf_iter_next(&it, &s);
		if (ret <= 0)
			break;
		ret = 0;
		if (!last && s.low_key >= hi)
			break;
		if (nleaves == U32_MAX || nkeys + s.count > U32_MAX) {
			ret = -ENOSPC;
			break;
		}
		if (nleaves == leaf_cap)
			ret = grow((void **)&leaves, &leaf_cap, sizeof(*leaves),
				   0);
		if (!ret && nkeys + s.count > kcap)
			ret = grow((void **)&keys, &kcap, sizeof(*keys),
				   nkeys + s.count);
		if (ret)
			break;
		leaves[nleaves++] = (struct ordo_leaf_info){
			.low = s.low_key,
			.high = s.has_high ? s.high_key : 0,
			.leaf = s.node_no,
			.inca = s.incarnation,
			.count = s.count,
			.flags = s.has_high ? 0 : ORDO_LEAF_LAST,
		};
		memcpy(keys + nkeys, s.keys, s.count * sizeof(*keys));
		nkeys += s.count;
		cond_resched();
	}
	ordo_leaf_iter_end(&it);
	if (ret < 0) {
		kvfree(leaves);
		kvfree(keys);
		return ret;
	}
	set->leaves = leaves;
	set->keys = keys;
	set->nleaves = nleaves;
	*key_cap = kcap;
	return 0;
}

void ordo_snapshot_free(struct ordo_leaf_set *set)
{
	kvfree(set->leaves);
	kvfree(set->keys);
	memset(set, 0, sizeof(*set));
}
