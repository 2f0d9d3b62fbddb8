// SPDX-License-Identifier: GPL-2.0
/*
 * Lehman-Yao B-link tree.
 *
 * Every node has a low fence, a high fence (except the rightmost of a
 * level) and a right link, so any node reached through a stale parent can
 * be corrected by moving right.  Readers never lock; writers lock the leaf,
 * and a split posts its separator to the parent level afterwards with no
 * lock held (Sagiv's variant), so at most two nodes are locked at once: a
 * full node and the new right node it is splitting into.  Empty leaves are
 * unlinked by ordo_tree_retire_empty() (see the comment above it), which
 * locks up to three neighbouring leaves and then their parent.
 *
 * Every reader accepts a node only after checking, on one consistent
 * publication of it, that it is a live node (not FREE, not the superblock)
 * of the level expected whose fences cover the key; otherwise it moves
 * right (key at or past the high fence) or restarts from the root.  That is
 * what makes node reuse safe: see "Why immediate reuse is safe" below.
 */
#include "compat.h"
#include "tree.h"

/* Bound on restarts from the root; reaching it means a corrupt tree. */
#define ORDO_TREE_MAX_RESTARTS	(16U * 1024 * 1024)

enum {
	W_PUT = ORDO_WRITE_PUT,
	W_INSERT = ORDO_WRITE_INSERT,
	W_UPDATE = ORDO_WRITE_UPDATE,
	W_DELETE,
};

/*
 * A value on its way into a slot: @len bytes at @buf, or (@units not 0)
 * a sealed extent.  A write also reports the extent its slot named before
 * (@old_ref, @old_units), freed once the leaf is unlocked.
 */
struct wval {
	const void *buf;
	u32 len;
	u32 units;
	u64 ref;
	u64 old_ref;
	u32 old_units;
};

enum { ROUTE_HERE, ROUTE_RIGHT, ROUTE_STALE };

/* Header fields used for routing, read under a seqlock or the lock. */
struct hsnap {
	u64 low;
	u64 high;
	u32 node_no;
	u32 right;
	u32 count;
	u32 level;
	u32 flags;
};

static inline struct ordo_node_hdr *tnode(struct ordo_tree *t, u32 n)
{
	return ordo_pool_node(&t->pool, n);
}

/*
 * Fetch the cache lines a search of node @n at @level touches first, on
 * the way down, at once: fetching them in parallel beats one miss after
 * another.  A leaf: its header and the start of its key block (a
 * default-sized leaf is all of it; prefetching all of a large one, up to
 * 263 KB, cost large geometries most of their lookup time).  An inner
 * node: its header only; inner_prefetch_probes() fetches the keys the
 * binary search probes once the count is known.
 */
#define NODE_PREFETCH_MAX	512

static inline void node_prefetch(struct ordo_tree *t, u32 n, u32 level)
{
	const u8 *p = (const u8 *)tnode(t, n);
	u32 off, end = level ? ORDO_NODE_HDR_SIZE :
		       min_t(u32, t->geo.node_size, NODE_PREFETCH_MAX);

	if (!p)
		return;
	for (off = 0; off < end; off += 64)
		__builtin_prefetch(p + off);
}

/*
 * The lines of an inner node's keys that a binary search over @cnt of
 * them probes first (its first two steps), fetched together; the search
 * touches about log2(cnt / 8) more, never the whole node.
 */
static inline void inner_prefetch_probes(const struct ordo_node_hdr *h,
					 u32 cnt)
{
	const __le64 *k = ordo_node_ckeys(h);

	__builtin_prefetch(k + cnt / 2);
	__builtin_prefetch(k + cnt / 4);
	__builtin_prefetch(k + cnt / 2 + cnt / 4);
}

static inline void hsnap_read(const struct ordo_node_hdr *h, struct hsnap *s)
{
	s->low = le64_to_cpu(READ_ONCE(h->low_key));
	s->high = le64_to_cpu(READ_ONCE(h->high_key));
	s->node_no = le32_to_cpu(READ_ONCE(h->node_no));
	s->right = le32_to_cpu(READ_ONCE(h->right));
	s->count = le16_to_cpu(READ_ONCE(h->count));
	s->level = READ_ONCE(h->level);
	s->flags = READ_ONCE(h->flags);
}

/*
 * Where @key goes from node @n, expected at @level.  A node that does not
 * carry its own number was never written (all zeroes, which would pass as
 * an open-fenced empty leaf): the number did not come from the tree.
 */
static inline int hsnap_route(const struct hsnap *s, u32 n, u64 key,
			      u32 level)
{
	if (s->node_no != n || s->level != level || key < s->low ||
	    (s->flags & (ORDO_NODE_F_FREE | ORDO_NODE_F_SUPER)))
		return ROUTE_STALE;
	if ((s->flags & ORDO_NODE_F_HAS_HIGH) && key >= s->high)
		return s->right ? ROUTE_RIGHT : ROUTE_STALE;
	return ROUTE_HERE;
}

static inline u32 hsnap_count(const struct ordo_tree *t, const struct hsnap *s)
{
	return min_t(u32, s->count, ordo_node_capacity(&t->geo, s->level));
}

static inline void keys_add(struct ordo_tree *t, u32 leaf, s64 delta)
{
	atomic64_add(delta, &t->keys[leaf % ORDO_TREE_KEY_STRIPES].n);
}

static inline atomic_t *post_slot(struct ordo_tree *t, u32 leaf)
{
	return &t->posting[leaf % ORDO_TREE_POST_SLOTS];
}

/*
 * A leaf split is about to publish new leaf @leaf, whose separator it will
 * post to the parent level later.  The release store that publishes the
 * leaf (ordo_node_unlock()) orders this increment before it, so whoever
 * locks the leaf, or its left neighbour once linked to it, sees the count.
 */
static inline void post_begin(struct ordo_tree *t, u32 leaf)
{
	atomic_inc(post_slot(t, leaf));
}

/* The split that created @leaf has finished posting its separator. */
static inline void post_end(struct ordo_tree *t, u32 leaf)
{
	/*
	 * Full barrier: the parent's publication (or the failed attempt)
	 * precedes the decrement; pairs with the barrier in post_idle().
	 */
	smp_mb();
	atomic_dec(post_slot(t, leaf));
}

/*
 * No separator of @leaf (locked by the caller) is on its way to the parent
 * level: the split that created it has posted it, so no later post can add
 * an entry for it back once the retirer removed it.  False negatives (slot
 * shared with another leaf's split) only postpone a retirement.
 */
static inline bool post_idle(struct ordo_tree *t, u32 leaf)
{
	bool idle = !atomic_read(post_slot(t, leaf));

	/* Pairs with post_end(): the post is complete before we go on. */
	smp_mb();
	return idle;
}

/*
 * Lock-free walk from the root to the node at level @stop covering @key.
 * Fills path[l] with the node the walk left level l from (l > @stop) and
 * *top with the root's level.  The node returned is not validated: callers
 * check its fences again under a seqlock or its lock.
 */
static int descend(struct ordo_tree *t, u64 key, u32 stop, u32 *path,
		   u32 *top, u32 *out)
{
	u32 restarts = 0, n;
	bool first;

restart:
	if (++restarts > ORDO_TREE_MAX_RESTARTS)
		return -EIO;
	/* Acquire pairs with grow_root(): the new root is fully written. */
	n = smp_load_acquire(&t->root);
	first = true;
	for (;;) {
		struct ordo_node_hdr *h = tnode(t, n);
		u32 lvl, child = 0, i;
		struct hsnap s;
		int route;
		u64 v;

		if (!h)
			return -EIO;
		/* A live node's level never changes: no seqlock needed. */
		lvl = READ_ONCE(h->level);
		if (first && top)
			*top = lvl;
		first = false;
		if (lvl == stop) {
			*out = n;
			return 0;
		}
		if (lvl < stop || lvl >= ORDO_MAX_HEIGHT) {
			atomic64_inc(&t->retries);
			goto restart;
		}
		v = ordo_node_read_begin(h);
		hsnap_read(h, &s);
		route = hsnap_route(&s, n, key, lvl);
		if (route == ROUTE_HERE) {
			const __le32 *ch = ordo_inner_cchildren(h, &t->geo);
			u32 cnt = max_t(u32, hsnap_count(t, &s), 1);

			inner_prefetch_probes(h, cnt);
			i = ordo_keys_upper_bound(ordo_node_ckeys(h), cnt, key);
			child = le32_to_cpu(READ_ONCE(ch[i ? i - 1 : 0]));
		}
		if (ordo_node_read_retry(h, v))
			continue;
		if (route == ROUTE_STALE) {
			atomic64_inc(&t->retries);
			goto restart;
		}
		if (route == ROUTE_RIGHT) {
			atomic64_inc(&t->retries);
			n = s.right;
			continue;
		}
		if (path)
			path[lvl] = n;
		n = child;
		node_prefetch(t, n, lvl - 1);
	}
}

/* Lock the node at @level covering @key, from *np moving right. */
static int lock_covering(struct ordo_tree *t, u32 *np, u64 key, u32 level,
			 struct ordo_node_hdr **hp)
{
	u32 n = *np;

	for (;;) {
		struct ordo_node_hdr *h = tnode(t, n);
		struct hsnap s;
		int route;

		if (!h)
			return -EIO;
		ordo_node_lock(h);
		hsnap_read(h, &s);
		route = hsnap_route(&s, n, key, level);
		if (route == ROUTE_HERE) {
			*np = n;
			*hp = h;
			return 0;
		}
		ordo_node_unlock_clean(h);
		atomic64_inc(&t->retries);
		if (route == ROUTE_STALE)
			return -EAGAIN;
		n = s.right;
	}
}

/* Give a node taken from the pool a new identity; caller holds its lock. */
static void node_reinit(struct ordo_node_hdr *h, u32 n, u32 level)
{
	h->low_key = 0;
	h->high_key = 0;
	h->node_no = cpu_to_le32(n);
	h->right = 0;
	h->incarnation = cpu_to_le32(le32_to_cpu(h->incarnation) + 1);
	h->count = 0;
	h->level = level;
	h->flags = 0;
	h->reserved[0] = 0;
	h->reserved[1] = 0;
}

/*
 * Move the leaf entries of ranks [from, from + nr) of @src to slots and
 * ranks [0, nr) of @dst (an empty leaf).  A check word binds a value to
 * its key, not to its slot, so it moves unchanged.  @src keeps the slots:
 * cutting its count frees them.
 */
static void leaf_move(const struct ordo_geo *g, struct ordo_node_hdr *dst,
		      struct ordo_node_hdr *src, u32 from, u32 nr)
{
	const u8 *so = ordo_leaf_corder(src, g);
	u8 *dord = ordo_leaf_order(dst, g);
	u32 i;

	for (i = 0; i < nr; i++) {
		u32 s = so[from + i];

		ordo_node_keys(dst)[i] = ordo_node_keys(src)[s];
		ordo_leaf_checks(dst, g)[i] = ordo_leaf_checks(src, g)[s];
		ordo_leaf_lens(dst, g)[i] = ordo_leaf_lens(src, g)[s];
		memcpy(ordo_leaf_value(dst, g, i), ordo_leaf_value(src, g, s),
		       ordo_leaf_value_len(src, g, s));
		dord[i] = i;
	}
}

/* The lowest slot that order[0..cnt) does not name; cnt < leaf_slots. */
static u32 leaf_free_slot(const struct ordo_geo *g,
			  const struct ordo_node_hdr *h, u32 cnt)
{
	const u8 *ord = ordo_leaf_corder(h, g);
	u64 used[(ORDO_LEAF_SLOTS_MAX + 64) / 64] = { 0 };
	u32 i;

	for (i = 0; i < cnt; i++)
		used[ord[i] / 64] |= 1ULL << (ord[i] % 64);
	for (i = 0; used[i / 64] & (1ULL << (i % 64)); i++)
		;
	return i;
}

/* Remember the extent slot @s of a locked leaf names, if any, to free. */
static void slot_forget(const struct ordo_geo *g,
			const struct ordo_node_hdr *h, u32 s, struct wval *val)
{
	val->old_units = ordo_leaf_extent_units(h, g, s);
	if (val->old_units)
		val->old_ref = le64_to_cpu(ordo_leaf_cchecks(h, g)[s]);
}

/* Store @val in slot @s of a locked leaf. */
static void slot_set(const struct ordo_geo *g, struct ordo_node_hdr *h,
		     u32 s, const struct wval *val)
{
	if (val->units)
		ordo_leaf_set_extent(h, g, s, val->ref, val->units);
	else
		ordo_leaf_set_value(h, g, s, val->buf, val->len);
}

/*
 * Insert at rank @pos of a leaf holding @cnt < leaf_slots entries: fill a
 * free slot and shift the order array, never a value.
 */
static void leaf_put_at(const struct ordo_geo *g, struct ordo_node_hdr *h,
			u32 pos, u32 cnt, u64 key, const struct wval *val)
{
	u32 s = leaf_free_slot(g, h, cnt);
	u8 *ord = ordo_leaf_order(h, g);

	ordo_node_keys(h)[s] = cpu_to_le64(key);
	slot_set(g, h, s, val);
	memmove(ord + pos + 1, ord + pos, cnt - pos);
	ord[pos] = s;
	h->count = cpu_to_le16(cnt + 1);
}

/* Remove rank @pos: its slot becomes free. */
static void leaf_remove_at(const struct ordo_geo *g, struct ordo_node_hdr *h,
			   u32 pos, u32 cnt)
{
	u8 *ord = ordo_leaf_order(h, g);

	memmove(ord + pos, ord + pos + 1, cnt - pos - 1);
	h->count = cpu_to_le16(cnt - 1);
}

static void inner_move(const struct ordo_geo *g, struct ordo_node_hdr *dst,
		       struct ordo_node_hdr *src, u32 from, u32 nr)
{
	memcpy(ordo_node_keys(dst), ordo_node_keys(src) + from, 8 * nr);
	memcpy(ordo_inner_children(dst, g), ordo_inner_children(src, g) + from,
	       4 * nr);
}

static void inner_put_at(const struct ordo_geo *g, struct ordo_node_hdr *h,
			 u32 pos, u32 cnt, u64 key, u32 child)
{
	__le64 *k = ordo_node_keys(h);
	__le32 *c = ordo_inner_children(h, g);

	memmove(k + pos + 1, k + pos, 8 * (cnt - pos));
	memmove(c + pos + 1, c + pos, 4 * (cnt - pos));
	k[pos] = cpu_to_le64(key);
	c[pos] = cpu_to_le32(child);
	h->count = cpu_to_le16(cnt + 1);
}

/* Remove entry @pos (> 0) of an inner node holding @cnt entries. */
static void inner_remove_at(const struct ordo_geo *g, struct ordo_node_hdr *h,
			    u32 pos, u32 cnt)
{
	__le64 *k = ordo_node_keys(h);
	__le32 *c = ordo_inner_children(h, g);

	memmove(k + pos, k + pos + 1, 8 * (cnt - pos - 1));
	memmove(c + pos, c + pos + 1, 4 * (cnt - pos - 1));
	h->count = cpu_to_le16(cnt - 1);
}

/*
 * Entries a full node keeps when a new entry lands at @pos.  Appending past
 * the last key of a level's rightmost node keeps it full, so ascending
 * loads leave full nodes behind instead of half-empty ones.
 */
static u32 split_point(const struct ordo_node_hdr *h, u32 cap, u32 pos)
{
	if (pos == cap && !(h->flags & ORDO_NODE_F_HAS_HIGH))
		return cap;
	return (cap + 1) / 2;
}

/*
 * Finish a split: @r (locked, entries in place) takes @l's upper range and
 * right link, is published, and only then is linked from @l.
 */
static u64 split_link(struct ordo_tree *t, struct ordo_node_hdr *l,
		      struct ordo_node_hdr *r, u32 rn)
{
	u64 sep = r->level ? le64_to_cpu(ordo_node_keys(r)[0]) :
			     ordo_leaf_key(r, &t->geo, 0);

	r->low_key = cpu_to_le64(sep);
	r->high_key = l->high_key;
	r->flags = l->flags & ORDO_NODE_F_HAS_HIGH;
	r->right = l->right;
	ordo_node_unlock(r, &t->geo);
	l->high_key = cpu_to_le64(sep);
	l->flags |= ORDO_NODE_F_HAS_HIGH;
	l->right = cpu_to_le32(rn);
	l->incarnation = cpu_to_le32(le32_to_cpu(l->incarnation) + 1);
	ordo_node_unlock(l, &t->geo);
	return sep;
}

/* Split full leaf @l (locked) while inserting @key at @pos; unlocks it. */
static u32 split_leaf(struct ordo_tree *t, struct ordo_node_hdr *l, u32 pos,
		      u64 key, const struct wval *val, u64 *sep)
{
	const struct ordo_geo *g = &t->geo;
	u32 cap = g->leaf_slots, m = split_point(l, cap, pos);
	u32 from = pos < m ? m - 1 : m, rn = ordo_pool_take(&t->pool);
	struct ordo_node_hdr *r = tnode(t, rn);

	post_begin(t, rn);
	ordo_node_lock(r);
	node_reinit(r, rn, 0);
	leaf_move(g, r, l, from, cap - from);
	l->count = cpu_to_le16(from);
	r->count = cpu_to_le16(cap - from);
	if (pos < m)
		leaf_put_at(g, l, pos, from, key, val);
	else
		leaf_put_at(g, r, pos - from, cap - from, key, val);
	*sep = split_link(t, l, r, rn);
	return rn;
}

/* Split full inner node @l (locked) while inserting at @pos; unlocks it. */
static u32 split_inner(struct ordo_tree *t, struct ordo_node_hdr *l, u32 pos,
		       u64 key, u32 child, u64 *sep)
{
	const struct ordo_geo *g = &t->geo;
	u32 cap = g->inner_fanout, m = split_point(l, cap, pos);
	u32 from = pos < m ? m - 1 : m, rn = ordo_pool_take_inner(&t->pool);
	struct ordo_node_hdr *r = tnode(t, rn);

	ordo_node_lock(r);
	node_reinit(r, rn, l->level);
	inner_move(g, r, l, from, cap - from);
	l->count = cpu_to_le16(from);
	r->count = cpu_to_le16(cap - from);
	if (pos < m)
		inner_put_at(g, l, pos, from, key, child);
	else
		inner_put_at(g, r, pos - from, cap - from, key, child);
	*sep = split_link(t, l, r, rn);
	return rn;
}

/*
 * Grow the tree by one level above @level - 1, which is the top level.  The
 * new root lists every node of that level (in key order, up to the fanout),
 * so splits of the old top level that are still on their way up find their
 * separators already posted.  Called with root_lock held.
 */
static int grow_root(struct ordo_tree *t, u32 level, u32 *nres)
{
	const struct ordo_geo *g = &t->geo;
	struct ordo_node_hdr *r;
	u32 rn, c, cnt = 0;
	__le32 *ch;
	__le64 *k;

	if (!*nres) {
		if (ordo_pool_reserve_inner(&t->pool, 1))
			return -ENOMEM;
		*nres = 1;
	}
	rn = ordo_pool_take_inner(&t->pool);
	(*nres)--;
	r = tnode(t, rn);
	ordo_node_lock(r);
	node_reinit(r, rn, level);
	k = ordo_node_keys(r);
	ch = ordo_inner_children(r, g);
	for (c = t->root; c && cnt < g->inner_fanout; cnt++) {
		struct ordo_node_hdr *h = tnode(t, c);
		struct hsnap s;
		u64 v;

		do {
			v = ordo_node_read_begin(h);
			hsnap_read(h, &s);
		} while (ordo_node_read_retry(h, v));
		k[cnt] = cpu_to_le64(s.low);
		ch[cnt] = cpu_to_le32(c);
		c = (s.flags & ORDO_NODE_F_HAS_HIGH) ? s.right : 0;
	}
	r->count = cpu_to_le16(cnt);
	r->low_key = k[0];
	ordo_node_unlock(r, g);
	/* Release: descents that load the new root see it written. */
	smp_store_release(&t->root, rn);
	/* Release: whoever sees the new height also sees the new root. */
	smp_store_release(&t->height, level + 1);
	ordo_pool_set_root(&t->pool, rn, level + 1, t->leftmost);
	atomic64_inc(&t->root_growths);
	atomic64_inc(&t->inner_nodes);
	return 0;
}

/*
 * Post separator *sep -> *child to the node at @level covering it.
 * Return: 0 when done, 1 when that node split (*sep and *child then name
 * the next separator to post one level up), negative on failure.
 */
static int post_sep(struct ordo_tree *t, u32 level, const u32 *path, u32 top,
		    u64 *sep, u32 *child, u32 *nres)
{
	struct ordo_node_hdr *h;
	u32 n, cnt, pos;
	int err;

	if (level <= top) {
		n = path[level];
	} else {
		ordo_mutex_lock(&t->root_lock);
		if (READ_ONCE(t->height) <= level) {
			err = grow_root(t, level, nres);
			ordo_mutex_unlock(&t->root_lock);
			return err;
		}
		ordo_mutex_unlock(&t->root_lock);
		err = descend(t, *sep, level, NULL, NULL, &n);
		if (err)
			return err;
	}
	for (;;) {
		err = lock_covering(t, &n, *sep, level, &h);
		if (err == -EAGAIN) {
			err = descend(t, *sep, level, NULL, NULL, &n);
			if (err)
				return err;
			continue;
		}
		if (err)
			return err;
		cnt = le16_to_cpu(h->count);
		pos = ordo_keys_upper_bound(ordo_node_keys(h), cnt, *sep);
		if (pos && le64_to_cpu(ordo_node_keys(h)[pos - 1]) == *sep) {
			/* Already posted by a root growth. */
			ordo_node_unlock_clean(h);
			return 0;
		}
		if (cnt < t->geo.inner_fanout) {
			inner_put_at(&t->geo, h, pos, cnt, *sep, *child);
			ordo_node_unlock(h, &t->geo);
			return 0;
		}
		if (!*nres) {
			/* The tree grew since the reservation was sized. */
			ordo_node_unlock_clean(h);
			if (ordo_pool_reserve_inner(&t->pool, 1))
				return -ENOMEM;
			*nres = 1;
			continue;
		}
		*child = split_inner(t, h, pos, *sep, *child, sep);
		(*nres)--;
		atomic64_inc(&t->inner_splits);
		atomic64_inc(&t->inner_nodes);
		return 1;
	}
}

/* Post a leaf split's separator up as far as splits cascade. */
static void propagate(struct ordo_tree *t, const u32 *path, u32 top, u64 sep,
		      u32 child, u32 *nres)
{
	u32 level;
	int ret = 1;

	for (level = 1; ret > 0 && level < ORDO_MAX_HEIGHT; level++)
		ret = post_sep(t, level, path, top, &sep, &child, nres);
	if (ret)
		atomic64_inc(&t->unlinked_splits);
}

static void call_split_hook(struct ordo_tree *t, u32 left, u32 right, u64 sep)
{
	/* Acquire pairs with ordo_tree_set_hooks(). */
	const struct ordo_tree_hooks *hk = smp_load_acquire(&t->hooks);

	if (hk && hk->leaf_split)
		hk->leaf_split(hk->ctx, left, right, sep);
}

/* Apply @mode to @key in leaf @h (locked); unlocks it. 1: needs a split. */
static int leaf_apply(struct ordo_tree *t, struct ordo_node_hdr *h, u32 n,
		      u64 key, struct wval *val, int mode, u32 *pos)
{
	const struct ordo_geo *g = &t->geo;
	u32 cnt = le16_to_cpu(h->count);
	bool found;
	int slot;

	slot = ordo_leaf_find(h, g, cnt, key, pos);
	found = slot >= 0;
	if (found && mode == W_INSERT) {
		ordo_node_unlock_clean(h);
		return -EEXIST;
	}
	if (!found && (mode == W_UPDATE || mode == W_DELETE)) {
		ordo_node_unlock_clean(h);
		return -ENOENT;
	}
	if (found)
		slot_forget(g, h, slot, val);
	if (found && mode == W_DELETE) {
		leaf_remove_at(g, h, *pos, cnt);
		keys_add(t, n, -1);
	} else if (found) {
		slot_set(g, h, slot, val);
	} else if (cnt < g->leaf_slots) {
		leaf_put_at(g, h, *pos, cnt, key, val);
		keys_add(t, n, 1);
	} else {
		return 1;
	}
	ordo_node_unlock(h, g);
	return 0;
}

static int tree_write(struct ordo_tree *t, u64 key, struct wval *val,
		      int mode)
{
	u32 path[ORDO_MAX_HEIGHT], top, n, rn, pos, lres = 0, nres = 0;
	struct ordo_node_hdr *h;
	u64 sep;
	int err;

	err = descend(t, key, 0, path, &top, &n);
	while (!err) {
		err = lock_covering(t, &n, key, 0, &h);
		if (err == -EAGAIN) {
			err = descend(t, key, 0, path, &top, &n);
			continue;
		}
		if (err)
			break;
		err = leaf_apply(t, h, n, key, val, mode, &pos);
		if (err <= 0)
			break;
		if (!lres) {
			/*
			 * Size the cascade (a leaf, an inner node a level
			 * and a root), then reserve with no lock held.
			 */
			ordo_node_unlock_clean(h);
			err = ordo_pool_reserve(&t->pool, 1);
			if (err)
				continue;
			nres = READ_ONCE(t->height);
			err = ordo_pool_reserve_inner(&t->pool, nres);
			if (err) {
				ordo_pool_unreserve(&t->pool, 1);
				nres = 0;
				continue;
			}
			lres = 1;
			continue;
		}
		rn = split_leaf(t, h, pos, key, val, &sep);
		lres--;
		keys_add(t, n, 1);
		atomic64_inc(&t->leaf_splits);
		atomic64_inc(&t->leaves);
		propagate(t, path, top, sep, rn, &nres);
		post_end(t, rn);
		call_split_hook(t, n, rn, sep);
		err = 0;
		break;
	}
	ordo_pool_unreserve(&t->pool, lres);
	ordo_pool_unreserve_inner(&t->pool, nres);
	/* The slot no longer names the old extent: no reader can reach it. */
	if (val->old_units)
		ordo_extent_free(&t->extents, val->old_ref, val->old_units);
	/* A write that failed never published its extent. */
	if (err && val->units)
		ordo_extent_free(&t->extents, val->ref, val->units);
	return err;
}

/**
 * ordo_tree_value_max() - the longest value the tree takes
 * @t: tree
 *
 * Return: ordo_value_len_max() of its chunk size.
 */
u32 ordo_tree_value_max(const struct ordo_tree *t)
{
	return ordo_value_len_max(t->pool.chunk_size);
}

/**
 * ordo_tree_stage() - allocate the extent of a value longer than value_size
 * @t: tree
 * @len: the value's length, value_size + 1 .. ordo_tree_value_max()
 * @st: receives the extent; fill st->bytes, then publish it with
 *	ordo_tree_write_staged() or drop it with ordo_tree_unstage()
 *
 * May sleep.
 *
 * Return: 0, -EINVAL for a length out of range, -ENOMEM.
 */
int ordo_tree_stage(struct ordo_tree *t, u32 len, struct ordo_staged *st)
{
	if (len <= t->geo.value_size || len > ordo_tree_value_max(t))
		return -EINVAL;
	return ordo_extent_alloc(&t->extents, len, st);
}

/**
 * ordo_tree_unstage() - drop a staged extent never published
 * @t: tree
 * @st: from ordo_tree_stage()
 */
void ordo_tree_unstage(struct ordo_tree *t, struct ordo_staged *st)
{
	ordo_extent_free(&t->extents, st->ref, ordo_extent_units(st->len));
}

/**
 * ordo_tree_write_staged() - publish a staged value under @key
 * @t: tree
 * @key: any u64
 * @st: from ordo_tree_stage(), its bytes filled; consumed whatever the
 *	outcome (its extent is freed on failure)
 * @mode: put, insert (absent keys only) or update (present keys only)
 *
 * May sleep.
 *
 * Return: 0, -EEXIST, -ENOENT, or -ENOMEM (the tree is then unchanged).
 */
int ordo_tree_write_staged(struct ordo_tree *t, u64 key,
			   struct ordo_staged *st, enum ordo_write_mode mode)
{
	struct wval v = {
		.len = st->len,
		.units = ordo_extent_units(st->len),
		.ref = st->ref,
	};

	ordo_extent_seal(&t->extents, st, key);
	return tree_write(t, key, &v, mode);
}

/* Write @val under @key: in its slot, or staged when it is longer. */
static int write_value(struct ordo_tree *t, u64 key,
		       const struct ordo_value *val, int mode)
{
	struct wval v = { .buf = val->buf, .len = val->len };
	struct ordo_staged st;
	int err;

	if (val->len <= t->geo.value_size)
		return tree_write(t, key, &v, mode);
	err = ordo_tree_stage(t, val->len, &st);
	if (err)
		return err;
	memcpy(st.bytes, val->buf, val->len);
	return ordo_tree_write_staged(t, key, &st, mode);
}

/* A whole slot of @value: the convenience of fixed-size users. */
static struct ordo_value slot_value(const struct ordo_tree *t,
				    const void *value)
{
	return (struct ordo_value){ .buf = value, .len = t->geo.value_size };
}

/**
 * ordo_tree_put_len() - insert or replace
 * @t: tree
 * @key: any u64
 * @val: the value, at most ordo_tree_value_max() bytes (the caller
 *	checks); one longer than value_size goes out of line
 *
 * May sleep.
 *
 * Return: 0 or -ENOMEM (the tree is then unchanged).
 */
int ordo_tree_put_len(struct ordo_tree *t, u64 key,
		      const struct ordo_value *val)
{
	return write_value(t, key, val, W_PUT);
}

/**
 * ordo_tree_insert_len() - insert a key that must be absent
 * @t: tree
 * @key: any u64
 * @val: the value, at most ordo_tree_value_max() bytes (the caller
 *	checks); one longer than value_size goes out of line
 *
 * May sleep.
 *
 * Return: 0, -EEXIST, or -ENOMEM.
 */
int ordo_tree_insert_len(struct ordo_tree *t, u64 key,
			 const struct ordo_value *val)
{
	return write_value(t, key, val, W_INSERT);
}

/**
 * ordo_tree_update_len() - replace the value of a key that must be present
 * @t: tree
 * @key: any u64
 * @val: the value, at most ordo_tree_value_max() bytes (the caller
 *	checks); one longer than value_size goes out of line
 *
 * May sleep.
 *
 * Return: 0, -ENOENT, or -ENOMEM.
 */
int ordo_tree_update_len(struct ordo_tree *t, u64 key,
			 const struct ordo_value *val)
{
	return write_value(t, key, val, W_UPDATE);
}

/* ordo_tree_put_len() of a value of value_size bytes. */
int ordo_tree_put(struct ordo_tree *t, u64 key, const void *value)
{
	struct ordo_value v = slot_value(t, value);

	return write_value(t, key, &v, W_PUT);
}

/* ordo_tree_insert_len() of a value of value_size bytes. */
int ordo_tree_insert(struct ordo_tree *t, u64 key, const void *value)
{
	struct ordo_value v = slot_value(t, value);

	return write_value(t, key, &v, W_INSERT);
}

/* ordo_tree_update_len() of a value of value_size bytes. */
int ordo_tree_update(struct ordo_tree *t, u64 key, const void *value)
{
	struct ordo_value v = slot_value(t, value);

	return write_value(t, key, &v, W_UPDATE);
}

/**
 * ordo_tree_delete() - remove a key; leaves are not merged (an empty leaf
 * stays until ordo_tree_retire_empty() retires it)
 * @t: tree
 * @key: any u64
 *
 * Return: 0 or -ENOENT.
 */
int ordo_tree_delete(struct ordo_tree *t, u64 key)
{
	struct wval v = { 0 };

	return tree_write(t, key, &v, W_DELETE);
}

/*
 * Copy value @slot of @h (seqlock-read: bounded) to @dst; zero it up to
 * value_size when @pad.  Return: the value's length.
 */
static u32 copy_value(const struct ordo_geo *g, const struct ordo_node_hdr *h,
		      u32 slot, u8 *dst, bool pad)
{
	u32 len = ordo_leaf_value_len(h, g, slot);

	memcpy(dst, ordo_leaf_cvalue(h, g, slot), len);
	if (pad)
		memset(dst + len, 0, g->value_size - len);
	return len;
}

/* Copy what @vp asks of an inline value (seqlock-read: bounded). */
static void copy_part(const struct ordo_geo *g, const struct ordo_node_hdr *h,
		      u32 slot, struct ordo_value_part *vp)
{
	vp->len = ordo_leaf_value_len(h, g, slot);
	vp->copied = vp->off < vp->len ? min(vp->cap, vp->len - vp->off) : 0;
	if (vp->copied)
		memcpy(vp->buf, ordo_leaf_cvalue(h, g, slot) + vp->off,
		       vp->copied);
}

/*
 * The header of the extent @ref names, if @ref and @units place it inside
 * a published chunk: a reference read under a seqlock may be torn.
 */
static const struct ordo_extent_hdr *extent_hdr(struct ordo_tree *t, u64 ref,
						u32 units)
{
	u64 off = ordo_extent_ref_offset(ref), cs = t->pool.chunk_size;

	if (div64_u64(off, cs) >= ordo_pool_nr_chunks(&t->pool) ||
	    (off & (cs - 1)) + (u64)units * ORDO_EXTENT_UNIT > cs)
		return NULL;
	return ordo_extent_at(&t->extents, ref);
}

/* The length in a sealed extent's header, or 0 if it is not units' own. */
static u32 extent_len(struct ordo_tree *t, const struct ordo_extent_hdr *e,
		      u32 units)
{
	u32 len = le32_to_cpu(READ_ONCE(e->len));

	if (len <= t->geo.value_size || len > ordo_tree_value_max(t) ||
	    ordo_extent_units(len) != units)
		return 0;
	return len;
}

/*
 * Find @key's value.  An inline one: its length in vp->len and its bytes
 * from vp->off copied (up to vp->cap; @pad zeroes a whole-slot buffer past
 * them).  An extent: its reference and units in vp->ref and vp->units.
 */
static int leaf_lookup(struct ordo_tree *t, u64 key,
		       struct ordo_value_part *vp, bool pad)
{
	const struct ordo_geo *g = &t->geo;
	u32 n;
	int err = descend(t, key, 0, NULL, NULL, &n);

	while (!err) {
		struct ordo_node_hdr *h = tnode(t, n);
		bool found = false;
		struct hsnap s;
		int route;
		u64 v;

		if (!h)
			return -EIO;
		v = ordo_node_read_begin(h);
		hsnap_read(h, &s);
		route = hsnap_route(&s, n, key, 0);
		vp->len = 0;
		vp->ref = 0;
		vp->units = 0;
		if (route == ROUTE_HERE) {
			u32 cnt = hsnap_count(t, &s), pos;
			int slot = ordo_leaf_find(h, g, cnt, key, &pos);

			found = slot >= 0;
			if (found && ordo_leaf_is_extent(h, g, slot)) {
				vp->ref = le64_to_cpu(ordo_leaf_cchecks(h, g)[slot]);
				vp->units = ordo_leaf_extent_units(h, g, slot);
			} else if (found) {
				copy_part(g, h, slot, vp);
			}
		}
		if (ordo_node_read_retry(h, v))
			continue;
		if (route == ROUTE_HERE) {
			if (!found)
				return -ENOENT;
			if (!vp->units && pad)
				memset((u8 *)vp->buf + vp->len, 0,
				       g->value_size - vp->len);
			return 0;
		}
		atomic64_inc(&t->retries);
		if (route == ROUTE_RIGHT)
			n = s.right;
		else
			err = descend(t, key, 0, NULL, NULL, &n);
	}
	return err;
}

/**
 * ordo_tree_get_part() - copy part of a key's value, of any length
 * @t: tree
 * @key: any u64
 * @vp: what to copy (@vp->off, @vp->cap, @vp->buf) and, on return, what
 *	the value is (length, reference, units) and how much was copied
 *
 * Lock-free.  An extent's bytes are copied, then the key is looked up
 * again: if its slot still names the same extent, the extent was never
 * freed meanwhile (an extent is freed only after no slot names it, and a
 * new one gets a new stamp), so the copy is of one publication.  Copies
 * that were retried may have written any of the @vp->cap bytes at
 * @vp->buf (an extent's, say, before the key's value turned inline), so
 * only the @vp->copied bytes returned are the value's.
 *
 * Return: 0, -ENOENT, or -EIO if the tree is corrupt.
 */
int ordo_tree_get_part(struct ordo_tree *t, u64 key,
		       struct ordo_value_part *vp)
{
	for (;;) {
		struct ordo_value_part again = { 0 };
		const struct ordo_extent_hdr *e;
		int err = leaf_lookup(t, key, vp, false);

		if (err || !vp->units)
			return err;
		e = extent_hdr(t, vp->ref, vp->units);
		if (!e)
			return -EIO;
		/* A header not the reference's: freed and reused since? */
		vp->len = extent_len(t, e, vp->units);
		vp->copied = vp->off < vp->len ?
			     min(vp->cap, vp->len - vp->off) : 0;
		if (vp->copied)
			memcpy(vp->buf, (const u8 *)(e + 1) + vp->off,
			       vp->copied);
		/* The copy is read before the slot is read again. */
		smp_rmb();
		err = leaf_lookup(t, key, &again, false);
		if (err && err != -ENOENT)
			return err;
		if (!err && again.ref == vp->ref)
			return vp->len ? 0 : -EIO;
		atomic64_inc(&t->retries);
		/* A key rewritten without pause costs copies, not the CPU. */
		ordo_cond_resched();
	}
}

/*
 * Look a key up; an inline value is copied, a longer one gives -ENOBUFS
 * and its length (read from its extent, which may have been replaced by
 * an inline value meanwhile: then look again).
 */
static int tree_get(struct ordo_tree *t, u64 key, void *value, u32 *len,
		    bool pad)
{
	for (;;) {
		struct ordo_value_part vp = {
			.cap = value ? t->geo.value_size : 0,
			.buf = value,
		};
		int err = leaf_lookup(t, key, &vp, pad && value);

		if (!err && vp.units) {
			struct ordo_value_part lp = { 0 };

			err = ordo_tree_get_part(t, key, &lp);
			if (!err && !lp.units) {
				atomic64_inc(&t->retries);
				continue;
			}
			vp.len = lp.len;
			if (!err)
				err = -ENOBUFS;
		}
		*len = vp.len;
		return err;
	}
}

/**
 * ordo_tree_get_len() - look a key up without locking
 * @t: tree
 * @key: any u64
 * @value: receives the value (up to value_size bytes) if found; may be NULL.
 *	Copies that were retried (a writer changed the leaf meanwhile) may
 *	have written any of its value_size bytes, so the bytes past the
 *	value's length are unspecified: callers that hand on the value (the
 *	ioctl, the RPC reply) pass on the length's bytes alone.
 * @len: set to the value's length if found (also for -ENOBUFS)
 *
 * Return: 0, -ENOENT, -ENOBUFS for a value longer than value_size (see
 * ordo_tree_get_part()), or -EIO if the tree is corrupt.
 */
int ordo_tree_get_len(struct ordo_tree *t, u64 key, void *value, u32 *len)
{
	return tree_get(t, key, value, len, false);
}

/**
 * ordo_tree_get() - look a key up without locking
 * @t: tree
 * @key: any u64
 * @value: receives value_size bytes if found, zero past the value's
 *	length; may be NULL
 *
 * Return: 0, -ENOENT, -ENOBUFS for a value longer than value_size, or
 * -EIO if the tree is corrupt.
 */
int ordo_tree_get(struct ordo_tree *t, u64 key, void *value)
{
	u32 len;

	return tree_get(t, key, value, &len, true);
}

/*
 * The length of value @slot of @h (seqlock-read): an extent's from its
 * header.  Sets *@bad if that header is not the reference's, which the
 * caller reports as corruption if its seqlock read then holds.
 */
static u32 scan_len(struct ordo_tree *t, const struct ordo_node_hdr *h,
		    u32 slot, bool *bad)
{
	const struct ordo_geo *g = &t->geo;
	const struct ordo_extent_hdr *e;
	u32 units, len = 0;

	if (!ordo_leaf_is_extent(h, g, slot))
		return ordo_leaf_value_len(h, g, slot);
	units = ordo_leaf_extent_units(h, g, slot);
	e = extent_hdr(t, le64_to_cpu(ordo_leaf_cchecks(h, g)[slot]), units);
	if (e)
		len = extent_len(t, e, units);
	if (!len)
		*bad = true;
	return len;
}

/**
 * ordo_tree_scan_len() - the first up to @n pairs with key >= @start, in order
 * @t: tree
 * @start: lowest key wanted
 * @n: pairs wanted (at most INT_MAX are returned)
 * @keys: receives up to @n keys
 * @values: receives up to @n values, value_size bytes apart, each zero
 *	past its length; may be NULL.  A value longer than value_size is
 *	not copied (its slot is zero): ordo_tree_get_part() reads it.
 * @lens: receives their lengths; may be NULL
 *
 * Each leaf is copied consistently; the scan then continues from that
 * copy's high fence through its right link, so concurrent splits cause
 * neither duplicates nor gaps.
 *
 * Return: number of pairs stored, or -EIO if the tree is corrupt.
 */
int ordo_tree_scan_len(struct ordo_tree *t, u64 start, u32 n, u64 *keys,
		       void *values, u32 *lens)
{
	const struct ordo_geo *g = &t->geo;
	u32 got = 0, node;
	u64 from = start;
	int err;

	n = min_t(u32, n, INT_MAX);
	if (!n)
		return 0;
	err = descend(t, from, 0, NULL, NULL, &node);
	while (!err) {
		struct ordo_node_hdr *h = tnode(t, node);
		u32 i, take = 0;
		bool bad = false;
		struct hsnap s;
		int route;
		u64 v;

		if (!h)
			return -EIO;
		v = ordo_node_read_begin(h);
		hsnap_read(h, &s);
		route = hsnap_route(&s, node, from, 0);
		if (route == ROUTE_HERE) {
			u32 cnt = hsnap_count(t, &s);
			u32 pos = ordo_leaf_lower_bound(h, g, cnt, from);

			take = min_t(u32, cnt - pos, n - got);
			for (i = 0; i < take; i++) {
				u32 slot = ordo_leaf_slot(h, g, pos + i);

				keys[got + i] = ordo_leaf_key(h, g, pos + i);
				if (values)
					copy_value(g, h, slot, (u8 *)values +
						   (size_t)(got + i) *
						   g->value_size, true);
				if (lens)
					lens[got + i] = scan_len(t, h, slot,
								 &bad);
			}
		}
		if (ordo_node_read_retry(h, v))
			continue;
		if (bad)
			return -EIO;
		if (route == ROUTE_RIGHT) {
			atomic64_inc(&t->retries);
			node = s.right;
			continue;
		}
		if (route == ROUTE_STALE) {
			atomic64_inc(&t->retries);
			err = descend(t, from, 0, NULL, NULL, &node);
			continue;
		}
		got += take;
		if (got == n || !(s.flags & ORDO_NODE_F_HAS_HIGH))
			return got;
		from = s.high;
		node = s.right;
	}
	return err;
}

/* ordo_tree_scan_len() without the lengths. */
int ordo_tree_scan(struct ordo_tree *t, u64 start, u32 n, u64 *keys,
		   void *values)
{
	return ordo_tree_scan_len(t, start, n, keys, values, NULL);
}

/**
 * ordo_leaf_iter_start() - start walking the leaves from the one holding
 * @start
 * @it: iterator
 * @t: tree
 * @start: key whose leaf comes first (0 for the whole tree)
 *
 * May sleep.  Release with ordo_leaf_iter_end().
 *
 * Return: 0, -ENOMEM or -EIO.
 */
int ordo_leaf_iter_start(struct ordo_leaf_iter *it, struct ordo_tree *t,
			 u64 start)
{
	int err;

	it->tree = t;
	it->next_key = start;
	it->next_node = 0;
	it->clip = false;
	it->keys = ordo_malloc(sizeof(*it->keys) * t->geo.leaf_slots);
	if (!it->keys)
		return -ENOMEM;
	err = descend(t, start, 0, NULL, NULL, &it->next_node);
	if (err)
		ordo_leaf_iter_end(it);
	return err;
}

/**
 * ordo_leaf_iter_next() - consistent snapshot of the next leaf
 * @it: iterator
 * @snap: filled in; snap->keys stays valid until the next call
 *
 * Leaves are visited in key order and the snapshots tile the key space:
 * each one's low fence is the previous one's high fence.  A leaf that splits
 * meanwhile is seen either before the split (its right half is then
 * skipped, being covered by this snapshot) or after it (the new right leaf
 * comes next).  A leaf that absorbed a retired neighbour after the iterator
 * passed its left part is reported clipped: from the previous high fence,
 * with its keys from there (snap->clipped).
 *
 * Return: 1 with @snap filled, 0 past the last leaf, -EIO.
 */
int ordo_leaf_iter_next(struct ordo_leaf_iter *it, struct ordo_leaf_snap *snap)
{
	struct ordo_tree *t = it->tree;
	u32 n = it->next_node;
	int err = 0;

	if (!n || !it->keys)
		return 0;
	while (!err) {
		struct ordo_node_hdr *h = tnode(t, n);
		u32 i, cnt = 0, inc = 0;
		struct hsnap s;
		int route;
		u64 v;

		if (!h)
			return -EIO;
		v = ordo_node_read_begin(h);
		hsnap_read(h, &s);
		route = hsnap_route(&s, n, it->next_key, 0);
		if (route == ROUTE_HERE) {
			cnt = hsnap_count(t, &s);
			for (i = 0; i < cnt; i++)
				it->keys[i] = ordo_leaf_key(h, &t->geo, i);
			inc = le32_to_cpu(READ_ONCE(h->incarnation));
		}
		if (ordo_node_read_retry(h, v))
			continue;
		if (route == ROUTE_RIGHT) {
			n = s.right;
			continue;
		}
		if (route == ROUTE_STALE) {
			err = descend(t, it->next_key, 0, NULL, NULL, &n);
			continue;
		}
		snap->node_no = n;
		snap->incarnation = inc;
		snap->low_key = s.low;
		snap->clipped = false;
		if (it->clip && s.low < it->next_key) {
			/* Keys below next_key belonged to an earlier snapshot. */
			i = 0;
			while (i < cnt && it->keys[i] < it->next_key)
				i++;
			cnt -= i;
			memmove(it->keys, it->keys + i, sizeof(*it->keys) * cnt);
			snap->low_key = it->next_key;
			snap->clipped = true;
		}
		snap->has_high = s.flags & ORDO_NODE_F_HAS_HIGH;
		snap->high_key = snap->has_high ? s.high : 0;
		snap->count = cnt;
		snap->keys = it->keys;
		it->next_node = snap->has_high ? s.right : 0;
		it->next_key = s.high;
		it->clip = true;
		return 1;
	}
	return err;
}

/**
 * ordo_leaf_iter_end() - release an iterator
 * @it: iterator
 */
void ordo_leaf_iter_end(struct ordo_leaf_iter *it)
{
	ordo_free(it->keys);
	it->keys = NULL;
	it->next_node = 0;
}

/*
 * Retiring empty leaves
 *
 * ordo_tree_retire_empty() walks the leaf level and unlinks empty leaves.
 * One empty leaf L (never the leftmost, so its low fence is above 0) goes
 * in one step, with every node involved locked, leaves left to right and
 * then their parent:
 *
 *   Lp  L's left neighbour (Lp.right == L), found by the key L.low - 1;
 *   L   checked again under its lock: a live, empty leaf;
 *   R   L's right neighbour, only when L is its parent's first child;
 *   P   the level-1 node covering L.low.
 *
 * P must hold L's entry (key L.low, child L); if it does not, L's separator
 * is still on its way up (or could not be posted for lack of memory) and L
 * stays for a later pass.  Then:
 *
 *   - L is not P's first child: the entry leaves P, and Lp takes L's range
 *     (high fence, HAS_HIGH, right link) and a new incarnation;
 *   - L is P's first child: P's next entry must be R's (key L.high); it
 *     leaves P, child[0] becomes R, and R takes L's range (low fence L.low)
 *     and a new incarnation, while Lp's right link skips L.  If P has no
 *     other entry, L stays: inner nodes are never retired;
 *   - L is marked FREE with a new incarnation.
 *
 * Everything is published, and L goes to the pool's free list at once.
 * This keeps the invariants the readers rely on: the live leaves are the
 * chain of right links from the leftmost one and their ranges tile the key
 * space; every level-1 entry (k, c) has c.low == k, so a leaf has at most
 * one entry, in the level-1 node covering its low fence; no entry and no
 * right link names a FREE node.
 *
 * No late separator.  A split posts its separator with no lock held
 * (Sagiv), and when the root grows from a leaf the new root lists every
 * leaf, so the split's own post may come later and find its entry there.
 * Had the retirer removed that entry meanwhile, the late post would add
 * back an entry naming a retired node.  So each leaf split counts its new
 * leaf in posting[] from before publishing it until its post is done, and
 * the retirer leaves a leaf alone while that slot is non-zero (see
 * post_begin(), post_idle()).  The retirer needs height >= 2 (read with
 * acquire), so no root growth that lists leaves is still running.
 *
 * No deadlock.  Retirements are serialised by retire_lock.  Leaf locks are
 * taken left to right, as a split takes them, and the parent's only while
 * holding leaves (the first-child case drops P before locking R).  Nobody
 * takes a leaf lock while holding an inner node's, and holders of inner
 * locks (posts, inner splits, root growth) never wait for a leaf.
 *
 * Why immediate reuse is safe (no grace period).  A reader may hold L's
 * number from a parent entry or right link read before the retirement, and
 * L may be free or reused (as a leaf or an inner node) when it gets there.
 * Chunks are never unmapped and version words never go back, so the reader
 * still gets exactly one publication of node L (a seqlock read, or a copy
 * validated by checksum), and it accepts it only if it is a live node of
 * the level expected whose fences cover its key.  Claim: during one
 * publication of a live leaf, the leaf is the only place where the keys in
 * its fences live.  Leaf ranges only change with every leaf involved
 * locked (a split keeps the left leaf locked until the new right leaf holds
 * its part; a retirement keeps the empty L locked until it is FREE and its
 * range belongs to the heir), and a writer of key k must lock the live
 * leaf covering k.  So a reader that accepts a reused L answers correctly.
 * Otherwise it sees FREE, another level or a low fence above its key and
 * restarts from the root, from which no entry and no right link lead to a
 * retired node any more; or it moves right from a live leaf along a chain
 * that covers every key above it.  A restart needs a concurrent
 * retirement, so no reader loops forever.  Remote readers and TT holders
 * make the same checks on validated copies, and L's incarnation changes
 * when it is freed and again when it is reused, so a stale {node,
 * incarnation} does not match (and were the TT's 24 bits to wrap, the
 * fences still decide).
 */

/* Nodes a retirement holds, in lock order; NULL when not held. */
struct retire_locks {
	struct ordo_node_hdr *lp;
	struct ordo_node_hdr *l;
	struct ordo_node_hdr *r;
	struct ordo_node_hdr *p;
};

static void retire_unlock_clean(struct retire_locks *lk)
{
	if (lk->p)
		ordo_node_unlock_clean(lk->p);
	if (lk->r)
		ordo_node_unlock_clean(lk->r);
	if (lk->l)
		ordo_node_unlock_clean(lk->l);
	if (lk->lp)
		ordo_node_unlock_clean(lk->lp);
}

/* A locked node is live leaf @n with low fence @low. */
static bool leaf_is(const struct ordo_node_hdr *h, u32 n, u64 low)
{
	return !h->level &&
	       !(h->flags & (ORDO_NODE_F_FREE | ORDO_NODE_F_SUPER)) &&
	       le32_to_cpu(h->node_no) == n && le64_to_cpu(h->low_key) == low;
}

/* Lock the node at @level covering @key, starting at @n (0: descend). */
static int lock_at(struct ordo_tree *t, u32 n, u64 key, u32 level,
		   u32 *np, struct ordo_node_hdr **hp)
{
	int err = 0;

	if (!n)
		err = descend(t, key, level, NULL, NULL, &n);
	while (!err) {
		err = lock_covering(t, &n, key, level, hp);
		if (err != -EAGAIN)
			break;
		err = descend(t, key, level, NULL, NULL, &n);
	}
	*np = n;
	return err;
}

/* Index of the entry (@key, @child) in a locked inner node, or -1. */
static int inner_find(const struct ordo_tree *t, struct ordo_node_hdr *h,
		      u64 key, u32 child)
{
	u32 cnt = min_t(u32, le16_to_cpu(h->count), t->geo.inner_fanout);
	u32 pos = ordo_keys_upper_bound(ordo_node_keys(h), cnt, key);

	if (!pos || le64_to_cpu(ordo_node_keys(h)[pos - 1]) != key ||
	    le32_to_cpu(ordo_inner_children(h, &t->geo)[pos - 1]) != child)
		return -1;
	return pos - 1;
}

/*
 * Retire empty leaf @n whose low fence is @low (> 0).  @hint: a leaf at or
 * left of @n's left neighbour, or 0.
 * Return: 1 when retired (*heir then covers its range), 0 when left alone,
 * -EIO if the tree is corrupt.
 */
static int retire_leaf(struct ordo_tree *t, u32 n, u64 low, u32 hint,
		       u32 *heir)
{
	const struct ordo_geo *g = &t->geo;
	struct retire_locks lk = { NULL, NULL, NULL, NULL };
	u32 lpn, pn, rn, cnt;
	u64 high;
	int err, idx;

	err = lock_at(t, hint, low - 1, 0, &lpn, &lk.lp);
	if (err)
		return err;
	if (!(lk.lp->flags & ORDO_NODE_F_HAS_HIGH) ||
	    le64_to_cpu(lk.lp->high_key) != low ||
	    le32_to_cpu(lk.lp->right) != n)
		goto skip;
	lk.l = tnode(t, n);
	ordo_node_lock(lk.l);
	if (!leaf_is(lk.l, n, low) || lk.l->count || !post_idle(t, n))
		goto skip;
	high = le64_to_cpu(lk.l->high_key);
	rn = (lk.l->flags & ORDO_NODE_F_HAS_HIGH) ?
	     le32_to_cpu(lk.l->right) : 0;
	for (;;) {
		err = lock_at(t, 0, low, 1, &pn, &lk.p);
		if (err)
			goto out;
		idx = inner_find(t, lk.p, low, n);
		if (idx < 0)
			goto skip;
		if (idx > 0)
			break;
		/* First child: R's entry must come next; R is locked first. */
		if (!rn || inner_find(t, lk.p, high, rn) != 1)
			goto skip;
		if (lk.r)
			break;
		ordo_node_unlock_clean(lk.p);
		lk.p = NULL;
		lk.r = tnode(t, rn);
		if (!lk.r) {
			err = -EIO;
			goto out;
		}
		ordo_node_lock(lk.r);
		if (!leaf_is(lk.r, rn, high) || !post_idle(t, rn))
			goto skip;
	}
	cnt = le16_to_cpu(lk.p->count);
	if (idx > 0) {
		inner_remove_at(g, lk.p, idx, cnt);
		lk.lp->high_key = lk.l->high_key;
		lk.lp->flags = (lk.lp->flags & ~ORDO_NODE_F_HAS_HIGH) |
			       (lk.l->flags & ORDO_NODE_F_HAS_HIGH);
		lk.lp->right = lk.l->right;
		lk.lp->incarnation =
			cpu_to_le32(le32_to_cpu(lk.lp->incarnation) + 1);
		*heir = lpn;
	} else {
		ordo_inner_children(lk.p, g)[0] = cpu_to_le32(rn);
		inner_remove_at(g, lk.p, 1, cnt);
		lk.r->low_key = cpu_to_le64(low);
		lk.r->incarnation =
			cpu_to_le32(le32_to_cpu(lk.r->incarnation) + 1);
		lk.lp->right = cpu_to_le32(rn);
		*heir = rn;
	}
	lk.l->flags = ORDO_NODE_F_FREE;
	lk.l->count = 0;
	lk.l->incarnation = cpu_to_le32(le32_to_cpu(lk.l->incarnation) + 1);
	ordo_node_unlock(lk.p, g);
	ordo_node_unlock(lk.l, g);
	if (lk.r && idx == 0)
		ordo_node_unlock(lk.r, g);
	else if (lk.r)
		ordo_node_unlock_clean(lk.r);
	ordo_node_unlock(lk.lp, g);
	/* Unreachable now; readers still holding its number see FREE. */
	ordo_pool_free(&t->pool, n);
	atomic64_dec(&t->leaves);
	atomic64_inc(&t->leaves_retired);
	return 1;
skip:
	err = 0;
out:
	retire_unlock_clean(&lk);
	return err;
}

static void call_retire_hook(struct ordo_tree *t, u32 heir, u32 gone,
			     u64 low)
{
	/* Acquire pairs with ordo_tree_set_hooks(). */
	const struct ordo_tree_hooks *hk = smp_load_acquire(&t->hooks);

	if (hk && hk->leaf_retired)
		hk->leaf_retired(hk->ctx, heir, gone, low);
}

/**
 * ordo_tree_retire_empty() - unlink up to @max empty leaves and free them
 * @t: tree
 * @max: most leaves to retire in this call
 * @retired: receives the number retired; may be NULL
 *
 * Walks the leaf level from where the previous call stopped, wrapping
 * around once, and retires empty leaves while readers and writers go on
 * (see the comment above retire_leaf() for the protocol).  Each retired
 * leaf's range goes to a neighbour, its node to the pool's free list for
 * later splits, and the leaf_retired hook is called.  The leftmost leaf
 * stays, and so does a leaf that is the only child of its parent (inner
 * nodes are never retired), or whose separator has not reached its parent
 * yet.  Concurrent calls are serialised.
 *
 * May sleep: call it in process context with no node lock held.
 *
 * Return: 0, or -EIO if the tree is corrupt.
 */
int ordo_tree_retire_empty(struct ordo_tree *t, u32 max, u32 *retired)
{
	u32 done = 0, prev = 0, n, heir = 0;
	u64 start, from;
	bool wrapped;
	int err;

	if (retired)
		*retired = 0;
	/* Acquire pairs with grow_root(): no growth from a leaf root runs. */
	if (!max || smp_load_acquire(&t->height) < 2)
		return 0;
	ordo_mutex_lock(&t->retire_lock);
	start = t->retire_from;
	from = start;
	wrapped = !start;
	err = descend(t, from, 0, NULL, NULL, &n);
	while (!err) {
		struct ordo_node_hdr *h = tnode(t, n);
		int route, ret = 0;
		struct hsnap s;
		u64 v;

		if (!h) {
			err = -EIO;
			break;
		}
		v = ordo_node_read_begin(h);
		hsnap_read(h, &s);
		if (ordo_node_read_retry(h, v))
			continue;
		route = hsnap_route(&s, n, from, 0);
		if (route == ROUTE_STALE) {
			prev = 0;
			err = descend(t, from, 0, NULL, NULL, &n);
			continue;
		}
		if (route == ROUTE_RIGHT) {
			prev = n;
			n = s.right;
			continue;
		}
		if (!s.count && s.low && n != t->leftmost) {
			ret = retire_leaf(t, n, s.low, prev, &heir);
			if (ret < 0) {
				err = ret;
				break;
			}
			if (ret) {
				done++;
				call_retire_hook(t, heir, n, s.low);
			}
		}
		prev = ret ? 0 : n;
		if (!(s.flags & ORDO_NODE_F_HAS_HIGH)) {
			/* End of the leaf level: wrap around once. */
			from = 0;
			if (wrapped)
				break;
			wrapped = true;
			prev = 0;
			n = t->leftmost;
			continue;
		}
		from = s.high;
		n = s.right;
		if (done >= max || (wrapped && start && from > start))
			break;
		ordo_cond_resched();
	}
	t->retire_from = from;
	ordo_mutex_unlock(&t->retire_lock);
	if (retired)
		*retired = done;
	return err;
}

/**
 * ordo_tree_set_hooks() - install (or with NULL remove) trainer callbacks
 * @t: tree
 * @hooks: must stay valid until replaced and all writers that may have
 *	seen it have returned
 */
void ordo_tree_set_hooks(struct ordo_tree *t,
			 const struct ordo_tree_hooks *hooks)
{
	/* Release: the callbacks' data is set up before they can run. */
	smp_store_release(&t->hooks, hooks);
}

/**
 * ordo_tree_get_stats() - read the counters
 * @t: tree
 * @st: filled in; exact when no writer runs
 */
void ordo_tree_get_stats(struct ordo_tree *t, struct ordo_tree_stats *st)
{
	s64 keys = 0;
	u32 i;

	for (i = 0; i < ORDO_TREE_KEY_STRIPES; i++)
		keys += atomic64_read(&t->keys[i].n);
	st->keys = keys > 0 ? keys : 0;
	st->leaves = atomic64_read(&t->leaves);
	st->inner_nodes = atomic64_read(&t->inner_nodes);
	st->height = READ_ONCE(t->height);
	st->leaf_splits = atomic64_read(&t->leaf_splits);
	st->inner_splits = atomic64_read(&t->inner_splits);
	st->root_growths = atomic64_read(&t->root_growths);
	st->retries = atomic64_read(&t->retries);
	st->unlinked_splits = atomic64_read(&t->unlinked_splits);
	st->leaves_retired = atomic64_read(&t->leaves_retired);
	st->extent_bytes = ordo_extents_bytes(&t->extents);
	st->pool_bytes_used = ordo_pool_node_bytes_used(&t->pool) +
			      st->extent_bytes;
	st->pool_bytes_total = (u64)ordo_pool_nr_chunks(&t->pool) *
			       t->pool.chunk_size;
	st->pool_bytes_max = (u64)t->pool.max_chunks * t->pool.chunk_size;
}

/**
 * ordo_tree_default_params() - defaults: 8-byte values, 16-slot leaves,
 * 2 MiB chunks, 1 GiB bound, no chunk hooks (the caller must set ops)
 * @params: filled in
 */
void ordo_tree_default_params(struct ordo_tree_params *params)
{
	memset(params, 0, sizeof(*params));
	params->value_size = ORDO_VALUE_SIZE_MIN;
	params->leaf_slots = ORDO_LEAF_SLOTS_DEFAULT;
	params->chunk_size = ORDO_CHUNK_SIZE_DEFAULT;
	params->max_bytes = 1ULL << 30;
}

/* The pool is full and the tree needs nodes: take an empty value chunk. */
static int tree_reclaim(void *ctx, bool inner)
{
	struct ordo_tree *t = ctx;

	return ordo_extents_release_chunk(&t->extents, inner);
}

/**
 * ordo_tree_init() - create an empty tree: one empty leaf as the root
 * @t: tree to initialise
 * @params: shape, bounds and chunk hooks
 *
 * May sleep.
 *
 * Return: 0, -EINVAL for a bad shape, or -ENOMEM.
 */
int ordo_tree_init(struct ordo_tree *t, const struct ordo_tree_params *params)
{
	struct ordo_node_hdr *h;
	u32 n;
	int err;

	memset(t, 0, sizeof(*t));
	err = ordo_geo_init(&t->geo, params->leaf_slots, params->value_size);
	if (err)
		return err;
	err = ordo_pool_init(&t->pool, &t->geo, params->chunk_size,
			     params->max_bytes, params->ops, params->ops_ctx);
	if (err)
		return err;
	err = ordo_extents_init(&t->extents, &t->pool, params->stamp_seed);
	if (err) {
		ordo_pool_destroy(&t->pool);
		return err;
	}
	ordo_pool_set_reclaim(&t->pool, tree_reclaim, t);
	err = ordo_pool_reserve(&t->pool, 1);
	if (err) {
		ordo_extents_destroy(&t->extents);
		ordo_pool_destroy(&t->pool);
		return err;
	}
	n = ordo_pool_take(&t->pool);
	h = tnode(t, n);
	ordo_node_lock(h);
	node_reinit(h, n, 0);
	ordo_node_unlock(h, &t->geo);
	t->root = n;
	t->leftmost = n;
	t->height = 1;
	atomic64_set(&t->leaves, 1);
	ordo_mutex_init(&t->root_lock);
	ordo_mutex_init(&t->retire_lock);
	ordo_pool_set_root(&t->pool, n, 1, n);
	return 0;
}

/**
 * ordo_tree_destroy() - free the tree's memory
 * @t: tree; no other user may remain
 */
void ordo_tree_destroy(struct ordo_tree *t)
{
	ordo_extents_destroy(&t->extents);
	ordo_pool_destroy(&t->pool);
	ordo_mutex_destroy(&t->root_lock);
	ordo_mutex_destroy(&t->retire_lock);
}
