// SPDX-License-Identifier: GPL-2.0
/*
 * libordo: the learned cache, shared by the handles of a process that talk
 * to the same store (same place, same server_id, same mode).
 *
 * learned: the whole model and TT, loaded from the model region with the
 * core's loader (checksums, bounds), refreshed one sub-model at a time
 * when a GET meets a stale TT entry, and reloaded when the epoch changes.
 * model-only: the top level and the descriptors; TT entries are read per
 * GET.  Readers take the lock shared; loads build outside it and swap.
 */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "shim.h"

#define STALE_RING	64
#define LOAD_TRIES	8
/* Leaves at the model's edges a cache remembers (16 bytes each). */
#define PAST_MAX	4096
/*
 * With more than this many, the model's last (or first) sub-model is
 * refreshed, at most every PAST_REFRESH_MS: appends and descending
 * inserts are learned by the server's trainer, and a refresh brings them
 * into the cache's TT in one slice.
 */
#define PAST_REFRESH_AT		(PAST_MAX / 8)
#define PAST_REFRESH_MS		100

/*
 * A leaf found right of the model's last one, or split off its first
 * (@head), as its copy showed it.
 */
struct shim_past {
	uint64_t low;
	uint32_t leaf;
	uint32_t head;
};

/**
 * struct shim_cache - one store's learned cache
 * @next: list of the process's caches.
 * @where: the store's URI.
 * @server_id: its identity.
 * @mode: %ORDO_MODE_LEARNED or %ORDO_MODE_MODEL_ONLY.
 * @refs: handles using it.
 * @lock: readers shared, loads exclusive.
 * @m: the model (learned: with every slice; model-only: none), or NULL.
 * @tt_start: model-only: each sub-model's first TT entry in the region.
 * @tt_off: model-only: offset of the TT area in the region.
 * @stale: per sub-model: a refresh is queued.
 * @ring: queued refreshes; @head, @tail index it.
 * @reload: load the whole model again: a new epoch was seen, or (model-
 *	only, whose descriptors are not refreshed one by one) a read met a
 *	stale entry.
 * @next_try_ms: no model yet: when to look for one again.
 * @past: leaves GETs found right of the model's last leaf (appends since
 *	the model was loaded) or right of its first leaf (split off it by
 *	descending inserts), sorted by low fence; @npast of them.  Hints
 *	like the TT: each leaf's own checks decide.  Trimmed when the
 *	model's edges move (a reload, the last or the first sub-model
 *	installed).
 * @past_refresh_ms: when the past list may next queue a refresh.
 */
struct shim_cache {
	struct shim_cache *next;
	char *where;
	uint64_t server_id;
	enum ordo_mode mode;
	int refs;
	pthread_rwlock_t lock;
	struct ordo_model *m;
	uint32_t *tt_start;
	uint64_t tt_off;
	uint8_t *stale;
	uint32_t ring[STALE_RING];
	uint32_t head, tail;
	bool reload;
	long long next_try_ms;
	struct shim_past *past;
	uint32_t npast;
	long long past_refresh_ms;
};

static pthread_mutex_t caches_lock = PTHREAD_MUTEX_INITIALIZER;
static struct shim_cache *caches;

/* Serialises loads and refreshes of all caches (rare, and each is a read). */
static pthread_mutex_t load_lock = PTHREAD_MUTEX_INITIALIZER;

static uint64_t model_bytes(const struct shim_cache *c)
{
	const struct ordo_model *m = c->m;
	uint64_t b;

	if (!m)
		return 0;
	/* The copy as allocated (a packed TT's room is in bytes), a flag each. */
	b = ordo_model_mem_bytes(m) + m->nsub;
	if (c->mode != ORDO_MODE_LEARNED)
		b += (uint64_t)m->nsub * sizeof(*c->tt_start);
	return b + (uint64_t)c->npast * sizeof(*c->past);
}

/* Index of remembered leaf @leaf, or npast if it is not remembered. */
static uint32_t past_index(const struct shim_cache *c, uint32_t leaf)
{
	uint32_t i;

	for (i = 0; i < c->npast; i++)
		if (c->past[i].leaf == leaf)
			break;
	return i;
}

/* Forget @n remembered leaves from index @i on. */
static void past_cut(struct shim_cache *c, uint32_t i, uint32_t n)
{
	memmove(c->past + i, c->past + i + n,
		(c->npast - i - n) * sizeof(*c->past));
	c->npast -= n;
}

/*
 * The model's end moved: forget the remembered leaves up to its new last
 * leaf, all of them if that leaf is not among them (it lies further
 * right, or the list is of another life of the store).  With @keep_head
 * (the last sub-model alone was installed) the leaves split off the
 * first one stay: the first sub-model did not change.
 */
static void past_trim(struct shim_cache *c, bool keep_head)
{
	const struct ordo_model *m = c->m;
	struct ordo_tt last;
	uint32_t i, j, n = 0;

	if (!c->npast)
		return;
	i = m && ordo_model_tt(m, m->nsub - 1, m->subs[m->nsub - 1].ntt - 1,
			       &last) ? past_index(c, last.leaf) : c->npast;
	for (j = 0; j < c->npast; j++)
		if (j > i || (keep_head && c->past[j].head))
			c->past[n++] = c->past[j];
	c->npast = n;
}

/* The first sub-model was installed: forget the leaves split off it. */
static void past_trim_head(struct shim_cache *c)
{
	uint32_t i, n = 0;

	for (i = 0; i < c->npast; i++)
		if (!c->past[i].head)
			c->past[n++] = c->past[i];
	c->npast = n;
}

/**
 * shim_model_layout() - where the published image is, and its header
 * @o: handle
 * @lay: out: the image's layout, its region offset in @lay->base
 *
 * Reads the anchor, then the header it names, which must carry the
 * anchor's epoch (else a publication is in progress: both are read again).
 *
 * Return: 0; -ENODATA if no model is published; -EAGAIN; a read's error.
 */
int shim_model_layout(struct ordo *o, struct ordo_model_layout *lay)
{
	uint8_t buf[ORDO_MODEL_HDR_SIZE];
	uint64_t live, epoch;
	int ret, tries;

	for (tries = 0; tries < LOAD_TRIES; tries++) {
		ret = o->be->bulk(o, SHIM_MODEL, 0, buf, ORDO_MODEL_ANCHOR_SIZE);
		if (ret)
			return ret;
		if (ordo_model_parse_anchor(buf, ORDO_MODEL_ANCHOR_SIZE, &live,
					    &epoch))
			return -ENODATA;
		ret = o->be->bulk(o, SHIM_MODEL, live, buf, sizeof(buf));
		if (ret)
			return ret;
		if (!ordo_model_parse_hdr(buf, sizeof(buf), lay) &&
		    lay->epoch == epoch) {
			lay->base = live;
			return 0;
		}
		o->cnt.retries++;
	}
	return -EAGAIN;
}

/*
 * Read and decode the model region: all of it for a learned cache (every
 * slice), the model part alone (header, pivots, descriptors) for a
 * model-only one.  A copy torn by a publication is read again.
 */
static int load_model(struct ordo *o, bool learned, struct ordo_model **mp,
		      uint32_t **starts, uint64_t *tt_off)
{
	struct ordo_model_layout lay;
	uint64_t len;
	uint8_t *img;
	int ret, tries;

	for (tries = 0; tries < LOAD_TRIES; tries++) {
		ret = shim_model_layout(o, &lay);
		if (ret)
			return ret;
		len = learned ? lay.region_size : lay.model_size;
		img = malloc(len);
		if (!img)
			return -ENOMEM;
		ret = o->be->bulk(o, SHIM_MODEL, lay.base, img, len);
		if (!ret && learned)
			ret = ordo_model_load_image(mp, img, len, true);
		else if (!ret)
			ret = shim_dec_model_only(&lay, img, len, mp, starts,
						  tt_off);
		free(img);
		if (ret != -EBADMSG)
			return ret;
		o->cnt.retries++;
	}
	return -EAGAIN;
}

/*
 * The top level changed within the cached epoch (sub-models added at
 * either end, the first pivot moved, the TT area grew): read header,
 * pivots and descriptors, keep the slices of the sub-models whose
 * descriptors did not change, and read only the others'.  The cache's
 * lock is held only to copy slices, never across a read.
 */
static int refresh_top(struct ordo *o, const struct ordo_model_layout *lay,
		       struct ordo_model **mp)
{
	struct shim_cache *c = o->cache;
	struct ordo_model_layout il;
	struct ordo_model *m = NULL;
	uint8_t *img, *slice = NULL;
	uint64_t off, len;
	uint32_t i;
	int ret;

	img = malloc(lay->model_size);
	if (!img)
		return -ENOMEM;
	ret = o->be->bulk(o, SHIM_MODEL, lay->base, img, lay->model_size);
	if (!ret)
		ret = ordo_model_parse_hdr(img, lay->model_size, &il);
	/*
	 * The header read first must describe these bytes: the same model
	 * and layout (nsub_cap places the descriptors, tt_cap the slices).
	 */
	if (!ret && (!shim_model_same_layout(&il, lay) ||
		     il.top_gen != lay->top_gen))
		ret = -EBADMSG;
	if (!ret)
		ret = ordo_model_load_top(&m, img, lay->model_size);
	if (!ret)
		ret = ordo_model_pack(m);
	if (ret)
		goto out;
	il.base = lay->base;
	pthread_rwlock_rdlock(&c->lock);
	for (i = m->first; i < m->nsub && c->m; i++)
		ordo_model_adopt_sub(m, i, img + il.desc_off +
				     (uint64_t)ORDO_MODEL_DESC_SIZE * i, c->m);
	pthread_rwlock_unlock(&c->lock);
	for (i = m->first; !ret && i < m->nsub; i++) {
		const uint8_t *d = img + il.desc_off +
				   (uint64_t)ORDO_MODEL_DESC_SIZE * i;

		if (m->subs[i].tt != ORDO_SUB_NO_TT)
			continue;
		ret = ordo_model_desc_slice(&il, d, &off, &len);
		if (!ret) {
			free(slice);
			slice = malloc(len);
			ret = slice ? 0 : -ENOMEM;
		}
		if (!ret)
			ret = o->be->bulk(o, SHIM_MODEL, off, slice, len);
		if (!ret)
			ret = ordo_model_load_sub(m, i, d, slice, len);
		if (!ret)
			o->cnt.sub_refreshes++;
	}
	/* Slices loaded one by one grew the room in steps: give it back. */
	if (!ret)
		ordo_model_tt_trim(m);
out:
	free(slice);
	free(img);
	if (ret)
		ordo_model_free(m);
	else
		*mp = m;
	return ret;
}

/**
 * shim_cache_load() - (re)load the handle's cache from the model region
 * @o: handle with a cache
 *
 * Return: 0; -ENODATA when the store has no model yet (the handle walks
 * meanwhile); another negative errno.
 */
int shim_cache_load(struct ordo *o)
{
	struct shim_cache *c = o->cache;
	struct ordo_model_layout lay;
	struct ordo_model *m = NULL, *old;
	uint32_t *starts = NULL, *old_starts;
	uint8_t *stale;
	uint64_t tt_off = 0;
	int ret, tries;

	pthread_mutex_lock(&load_lock);
	ret = -ESTALE;
	/*
	 * Only loads replace c->m, and load_lock holds them off.  A copy
	 * torn by a patch is read again; anything else loads it all.
	 */
	for (tries = 0; tries < LOAD_TRIES && c->mode == ORDO_MODE_LEARNED &&
	     c->m && !shim_model_layout(o, &lay) &&
	     lay.epoch == c->m->epoch; tries++) {
		ret = refresh_top(o, &lay, &m);
		if (ret != -EBADMSG)
			break;
		o->cnt.retries++;
	}
	if (!ret)
		o->cnt.top_refreshes++;
	else if (!(ret = load_model(o, c->mode == ORDO_MODE_LEARNED, &m,
				    &starts, &tt_off)))
		o->cnt.model_loads++;
	stale = ret ? NULL : calloc(m->nsub, 1);
	if (!ret && !stale) {
		ordo_model_free(m);
		free(starts);
		ret = -ENOMEM;
	}
	if (!ret) {
		pthread_rwlock_wrlock(&c->lock);
		old = c->m;
		old_starts = c->tt_start;
		free(c->stale);
		c->m = m;
		c->tt_start = starts;
		c->tt_off = tt_off;
		c->stale = stale;
		c->head = c->tail = 0;
		c->reload = false;
		past_trim(c, false);
		pthread_rwlock_unlock(&c->lock);
		if (old)
			ordo_model_free(old);
		free(old_starts);
	}
	pthread_mutex_unlock(&load_lock);
	return ret;
}

/**
 * shim_cache_get() - attach a handle to its store's cache, loading it
 * @o: handle (mode learned or model-only)
 * @server_id: the store's identity
 * @where: its URI
 *
 * Return: 0 (a store without a model yet is not an error), or -ENOMEM.
 */
int shim_cache_get(struct ordo *o, uint64_t server_id, const char *where)
{
	bool shared = !(o->opts.flags & ORDO_OPT_PRIVATE_CACHE) &&
		      !o->cache_frozen;
	struct shim_cache *c = NULL;
	int ret;

	pthread_mutex_lock(&caches_lock);
	if (shared)
		for (c = caches; c; c = c->next)
			if (c->server_id == server_id && c->mode == o->mode &&
			    !strcmp(c->where, where))
				break;
	if (c) {
		c->refs++;
		o->cache = c;
		pthread_mutex_unlock(&caches_lock);
		return 0;
	}
	c = calloc(1, sizeof(*c));
	if (c)
		c->where = strdup(where);
	if (!c || !c->where) {
		pthread_mutex_unlock(&caches_lock);
		free(c);
		return -ENOMEM;
	}
	c->server_id = server_id;
	c->mode = o->mode;
	c->refs = 1;
	pthread_rwlock_init(&c->lock, NULL);
	if (shared) {
		c->next = caches;
		caches = c;
	}
	o->cache = c;
	pthread_mutex_unlock(&caches_lock);
	ret = shim_cache_load(o);
	return ret == -ENOMEM ? ret : 0;
}

/* Detach a handle; the last one frees the cache. */
void shim_cache_put(struct ordo *o)
{
	struct shim_cache *c = o->cache, **pp;

	if (!c)
		return;
	o->cache = NULL;
	pthread_mutex_lock(&caches_lock);
	if (--c->refs) {
		pthread_mutex_unlock(&caches_lock);
		return;
	}
	for (pp = &caches; *pp; pp = &(*pp)->next)
		if (*pp == c) {
			*pp = c->next;
			break;
		}
	pthread_mutex_unlock(&caches_lock);
	if (c->m)
		ordo_model_free(c->m);
	pthread_rwlock_destroy(&c->lock);
	free(c->tt_start);
	free(c->stale);
	free(c->past);
	free(c->where);
	free(c);
}

bool shim_cache_ready(struct ordo *o)
{
	return o->cache && o->cache->m;
}

/* Tail extensions of the cached top level within its epoch. */
static uint32_t shim_cache_top_gen(struct ordo *o)
{
	uint32_t g = 0;

	pthread_rwlock_rdlock(&o->cache->lock);
	if (o->cache->m)
		g = o->cache->m->top_gen;
	pthread_rwlock_unlock(&o->cache->lock);
	return g;
}

uint64_t shim_cache_epoch(struct ordo *o)
{
	uint64_t e = 0;

	if (!o->cache)
		return 0;
	pthread_rwlock_rdlock(&o->cache->lock);
	if (o->cache->m)
		e = o->cache->m->epoch;
	pthread_rwlock_unlock(&o->cache->lock);
	return e;
}

uint64_t shim_cache_bytes(struct ordo *o)
{
	uint64_t b;

	if (!o->cache)
		return 0;
	pthread_rwlock_rdlock(&o->cache->lock);
	b = model_bytes(o->cache);
	pthread_rwlock_unlock(&o->cache->lock);
	return b;
}

/* Queue a refresh of sub-model @sub, once; the cache's lock held. */
static void queue_refresh(struct shim_cache *c, uint32_t sub)
{
	if (c->m && ordo_model_has_sub(c->m, sub) && !c->stale[sub] &&
	    c->tail - c->head < STALE_RING) {
		c->stale[sub] = 1;
		c->ring[c->tail++ % STALE_RING] = sub;
	}
}

/* Index of the last remembered leaf whose low fence is <= @key, or -1. */
static int past_find(const struct shim_cache *c, uint64_t key)
{
	int lo = 0, hi = (int)c->npast - 1, mid, found = -1;

	while (lo <= hi) {
		mid = lo + (hi - lo) / 2;
		if (c->past[mid].low <= key) {
			found = mid;
			lo = mid + 1;
		} else {
			hi = mid - 1;
		}
	}
	return found;
}

static struct ordo_tt past_ent(const struct shim_past *e)
{
	return (struct ordo_tt){ .leaf = e->leaf };
}

/*
 * The candidates end at the model's last leaf or start at its first
 * (@head), that leaf's entry @edge: a key inserted since may lie in a
 * leaf GETs found right of it.  Name the last one of that edge that
 * starts at or before the key instead, and the one before it (or @edge)
 * as @left.  Leaves split off the first leaf sort before those past the
 * last, so a key past the end must not take one of them: it would be
 * many leaves to the left.
 */
static bool past_pick(const struct shim_cache *c, uint64_t key, bool head,
		      const struct ordo_tt *edge, struct ordo_tt *ents,
		      struct ordo_tt *left)
{
	int i = past_find(c, key);

	if (i < 0 || !c->past[i].head != !head)
		return false;
	ents[0] = past_ent(&c->past[i]);
	if (left)
		*left = i && !c->past[i - 1].head == !head ?
			past_ent(&c->past[i - 1]) : *edge;
	return true;
}

/**
 * shim_cache_lookup() - the leaves the learned cache names for a key
 * @o: handle
 * @key: key
 * @p: prediction (sub-model, first candidate, candidates); @p->m is
 *	set to NULL (the copy may go once the lock is dropped)
 * @ents: copies of the first min(@p->ncand, @max) candidates' TT entries
 * @max: room in @ents, at least 1
 * @left: NULL, or a copy of the entry before the first candidate (its
 *	leaf %ORDO_NODE_NONE when there is none in the slice): a key
 *	absent at training may lie there (a tie settled for the right)
 * @edge: NULL, or out: %SHIM_EDGE_TAIL when the candidates end at the
 *	model's last leaf, %SHIM_EDGE_HEAD when they start at its first
 *	(leaves appended, or split off the first by descending inserts,
 *	since may hold the key further right); then a remembered leaf that
 *	starts at or before the key takes the candidates' place (and
 *	@p->ncand is 1)
 *
 * A reload in waiting does not stop the lookups: the model in hand still
 * names leaves, and each leaf's checks decide.
 *
 * Return: 0, or -ENODATA without a usable model.
 */
int shim_cache_lookup(struct ordo *o, uint64_t key, struct ordo_pred *p,
		      struct ordo_tt *ents, uint32_t max, struct ordo_tt *left,
		      uint8_t *edge)
{
	struct shim_cache *c = o->cache;
	const struct ordo_model *m;
	int ret = -ENODATA;

	if (!c || c->mode != ORDO_MODE_LEARNED)
		return -ENODATA;
	pthread_rwlock_rdlock(&c->lock);
	m = c->m;
	if (m)
		ret = ordo_model_lookup(m, key, p);
	if (!ret) {
		const struct ordo_tt first = ordo_pred_ent(p, 0);
		const struct ordo_tt last = ordo_pred_ent(p, p->ncand - 1);
		uint32_t i;

		for (i = 0; i < p->ncand && i < max; i++)
			ents[i] = ordo_pred_ent(p, i);
		if (left && !ordo_pred_try(p, p->ncand, left))
			*left = (struct ordo_tt){ .leaf = ORDO_NODE_NONE };
		p->m = NULL;
		if (edge) {
			bool tail = p->sub == m->nsub - 1 &&
				    p->lln + p->ncand >= m->subs[p->sub].ntt;

			*edge = tail ? SHIM_EDGE_TAIL :
				p->sub == m->first && !p->lln ? SHIM_EDGE_HEAD :
				0;
			if (*edge &&
			    past_pick(c, key, *edge == SHIM_EDGE_HEAD,
				      tail ? &last : &first, ents, left))
				p->ncand = 1;
		}
	}
	pthread_rwlock_unlock(&c->lock);
	return ret;
}

/**
 * shim_cache_past_add() - remember a leaf a GET found at a model's edge
 * @o: handle
 * @low: the leaf's low fence, @leaf its node number, as a validated copy
 *	showed them
 * @head: found right of the model's first leaf (else past its last)
 *
 * A leaf already known by number or by low fence is replaced; when the
 * list is full the leftmost entry goes (the model learns those first).
 * A frozen cache remembers them too: they are what reads found, not the
 * model, and each leaf's checks decide as for TT entries.
 */
void shim_cache_past_add(struct ordo *o, uint64_t low, uint32_t leaf,
			 bool head)
{
	struct shim_cache *c = o->cache;
	struct shim_past e = { low, leaf, head };
	uint32_t i;
	int at;

	if (!c || c->mode != ORDO_MODE_LEARNED)
		return;
	pthread_rwlock_wrlock(&c->lock);
	if (!c->past)
		c->past = malloc(PAST_MAX * sizeof(*c->past));
	if (!c->past)
		goto out;
	i = past_index(c, leaf);
	if (i < c->npast)
		past_cut(c, i, 1);
	at = past_find(c, low);
	if (at >= 0 && c->past[at].low == low) {
		c->past[at] = e;
		goto out;
	}
	at++;	/* the first entry above @low */
	if (c->npast == PAST_MAX) {
		if (!at)
			goto out;	/* left of everything kept */
		past_cut(c, 0, 1);
		at--;
	} else {
		memmove(c->past + at + 1, c->past + at,
			(c->npast - at) * sizeof(*c->past));
	}
	c->past[at] = e;
	c->npast++;
out:
	if (c->m && !o->cache_frozen && c->npast > PAST_REFRESH_AT &&
	    shim_now_ms() >= c->past_refresh_ms) {
		c->past_refresh_ms = shim_now_ms() + PAST_REFRESH_MS;
		queue_refresh(c, head ? c->m->first : c->m->nsub - 1);
	}
	pthread_rwlock_unlock(&c->lock);
}

/* Forget remembered leaf @leaf: a read found it stale (retired, reused). */
void shim_cache_past_drop(struct ordo *o, uint32_t leaf)
{
	struct shim_cache *c = o->cache;
	uint32_t i;

	if (!c || c->mode != ORDO_MODE_LEARNED)
		return;
	pthread_rwlock_wrlock(&c->lock);
	i = past_index(c, leaf);
	if (i < c->npast)
		past_cut(c, i, 1);
	pthread_rwlock_unlock(&c->lock);
}

/* The next leaf in key order after (@sub, @lln); 0 or -ENOENT/-ENODATA. */
int shim_cache_next(struct ordo *o, uint32_t *sub, uint32_t *lln,
		    struct ordo_tt *ent)
{
	struct shim_cache *c = o->cache;
	int ret = -ENODATA;

	if (!c || c->mode != ORDO_MODE_LEARNED)
		return -ENODATA;
	pthread_rwlock_rdlock(&c->lock);
	if (c->m && ordo_model_has_sub(c->m, *sub)) {
		ret = ordo_model_next(c->m, sub, lln);
		if (!ret && !ordo_model_tt(c->m, *sub, *lln, ent))
			ret = -ENODATA;
	}
	pthread_rwlock_unlock(&c->lock);
	return ret;
}

/**
 * shim_cache_tt_window() - model-only: where a key's TT window lies
 * @o: handle
 * @key: key
 * @w: the window: sub-model (a copy of its descriptor), the key's
 *	position and the window's logical leaves
 * @off: region offset of the window's first TT entry
 * @len: bytes of the window
 * @max: most entries to read
 *
 * Return: 0, or -ENODATA without a model or for a window over @max.
 */
int shim_cache_tt_window(struct ordo *o, uint64_t key, struct shim_window *w,
			 uint64_t *off, uint64_t *len, uint32_t max)
{
	struct shim_cache *c = o->cache;
	int ret = -ENODATA;

	if (!c || c->mode != ORDO_MODE_MODEL_ONLY)
		return -ENODATA;
	pthread_rwlock_rdlock(&c->lock);
	if (c->m && !c->reload) {
		w->sub = ordo_model_sub_of(c->m, key);
		w->s = c->m->subs[w->sub];
		w->pos = ordo_sub_pos(&w->s, ordo_model_dx(key,
						c->m->pivots[w->sub]));
		ordo_sub_window(&w->s, w->pos, &w->lo, &w->hi);
		if (w->hi - w->lo < max) {
			*off = c->tt_off + ((uint64_t)c->tt_start[w->sub] +
					    w->lo) * ORDO_TT_ENTRY_SIZE;
			*len = (uint64_t)(w->hi - w->lo + 1) *
			       ORDO_TT_ENTRY_SIZE;
			ret = 0;
		}
	}
	pthread_rwlock_unlock(&c->lock);
	return ret;
}

/**
 * shim_cache_mark_stale() - a read met a stale TT entry of @sub
 * @o: handle
 * @sub: sub-model
 *
 * Queues a refresh that shim_cache_refresh_stale() runs after the
 * operations in hand completed: of the sub-model (learned), or of the
 * descriptors (model-only).
 */
void shim_cache_mark_stale(struct ordo *o, uint32_t sub)
{
	struct shim_cache *c = o->cache;

	if (!c || o->cache_frozen)
		return;
	pthread_rwlock_wrlock(&c->lock);
	if (c->mode != ORDO_MODE_LEARNED)
		c->reload = true;	/* a few bytes per sub-model */
	else
		queue_refresh(c, sub);
	pthread_rwlock_unlock(&c->lock);
}

/* Install a descriptor + slice if they belong to the cached epoch. */
static int install_sub(struct ordo *o, uint64_t epoch, uint32_t sub,
		       const void *bytes, size_t len)
{
	struct shim_cache *c = o->cache;
	int ret = -ESTALE;

	if (len < ORDO_MODEL_DESC_SIZE)
		return -EINVAL;
	pthread_rwlock_wrlock(&c->lock);
	if (c->m && c->m->epoch == epoch && ordo_model_has_sub(c->m, sub)) {
		ret = ordo_model_load_sub(c->m, sub, bytes,
					  (const uint8_t *)bytes +
					  ORDO_MODEL_DESC_SIZE,
					  len - ORDO_MODEL_DESC_SIZE);
		if (!ret)
			c->stale[sub] = 0;
		if (!ret && sub == c->m->nsub - 1)
			past_trim(c, true);
		if (!ret && sub == c->m->first)
			past_trim_head(c);
	} else if (c->m && (c->m->epoch != epoch ||
			    !ordo_model_has_sub(c->m, sub))) {
		/* Another epoch, or sub-models added at either end. */
		c->reload = true;
	}
	pthread_rwlock_unlock(&c->lock);
	return ret;
}

/**
 * shim_cache_load_sub() - take a sub-model a LOOKUP reply carried
 * @o: handle
 * @epoch: the reply's epoch
 * @sub: sub-model index
 * @bytes: descriptor and slice
 * @len: their bytes
 *
 * Return: 0, or a negative errno (the cache is left as it was).
 */
int shim_cache_load_sub(struct ordo *o, uint64_t epoch, uint32_t sub,
			const void *bytes, size_t len)
{
	int ret;

	if (!o->cache || o->cache->mode != ORDO_MODE_LEARNED ||
	    o->cache_frozen || !epoch)
		return 0;
	ret = install_sub(o, epoch, sub, bytes, len);
	if (!ret)
		o->cnt.sub_refreshes++;
	return ret;
}

/*
 * The cache is shared by the handles of a process (threads): its flags
 * are read and written under its lock, like the model.
 */
static void set_reload(struct shim_cache *c)
{
	pthread_rwlock_wrlock(&c->lock);
	c->reload = true;
	pthread_rwlock_unlock(&c->lock);
}

/* Is a whole load due: no model yet (and its retry time came), a reload? */
static bool load_due(struct shim_cache *c, bool *has_model)
{
	bool due;

	pthread_rwlock_rdlock(&c->lock);
	*has_model = c->m;
	due = c->reload || (!c->m && shim_now_ms() >= c->next_try_ms);
	pthread_rwlock_unlock(&c->lock);
	return due;
}

/* Read one sub-model (descriptor, then its slice) and install it. */
static int refresh_one(struct ordo *o, uint32_t sub)
{
	struct ordo_model_layout lay;
	uint64_t off, len;
	uint8_t *buf;
	int ret;

	ret = shim_model_layout(o, &lay);
	if (ret)
		return ret;
	if (lay.epoch != shim_cache_epoch(o) ||
	    lay.top_gen != shim_cache_top_gen(o) || sub < lay.first ||
	    sub >= lay.nsub) {
		set_reload(o->cache);
		return -ESTALE;
	}
	buf = malloc(ORDO_MODEL_DESC_SIZE);
	if (!buf)
		return -ENOMEM;
	ret = o->be->bulk(o, SHIM_MODEL, lay.base + lay.desc_off +
			  (uint64_t)ORDO_MODEL_DESC_SIZE * sub, buf,
			  ORDO_MODEL_DESC_SIZE);
	if (!ret)
		ret = ordo_model_desc_slice(&lay, buf, &off, &len);
	if (!ret) {
		uint8_t *b = realloc(buf, ORDO_MODEL_DESC_SIZE + len);

		if (!b)
			ret = -ENOMEM;
		else
			buf = b;
	}
	if (!ret)
		ret = o->be->bulk(o, SHIM_MODEL, off,
				  buf + ORDO_MODEL_DESC_SIZE, len);
	if (!ret)
		ret = install_sub(o, lay.epoch, sub, buf,
				  ORDO_MODEL_DESC_SIZE + len);
	free(buf);
	if (!ret)
		o->cnt.sub_refreshes++;
	return ret;
}

/**
 * shim_cache_refresh_stale() - run the queued refreshes
 * @o: handle
 *
 * A sub-model whose checksum fails (a patch raced) stays queued for the
 * next call; a new epoch reloads the whole model.
 */
void shim_cache_refresh_stale(struct ordo *o)
{
	struct shim_cache *c = o->cache;
	uint32_t n = 0, sub;
	bool has_model, reload;

	if (!c || o->cache_frozen)
		return;
	if (load_due(c, &has_model)) {
		if (shim_cache_load(o)) {
			pthread_rwlock_wrlock(&c->lock);
			if (!c->m)
				c->next_try_ms = shim_now_ms() + 200;
			pthread_rwlock_unlock(&c->lock);
		}
		return;
	}
	/* No model yet: look again now and then, walking meanwhile. */
	if (!has_model)
		return;
	pthread_mutex_lock(&load_lock);
	while (n++ < 4) {
		pthread_rwlock_wrlock(&c->lock);
		if (c->head == c->tail) {
			pthread_rwlock_unlock(&c->lock);
			break;
		}
		sub = c->ring[c->head++ % STALE_RING];
		pthread_rwlock_unlock(&c->lock);
		if (refresh_one(o, sub)) {
			pthread_rwlock_wrlock(&c->lock);
			if (c->m && ordo_model_has_sub(c->m, sub))
				c->stale[sub] = 0;
			reload = c->reload;
			pthread_rwlock_unlock(&c->lock);
			if (reload)
				break;
		}
	}
	pthread_mutex_unlock(&load_lock);
	if (load_due(c, &has_model) && has_model)
		shim_cache_load(o);
}

/* Does the cache have work queued (refreshes, a reload)? */
bool shim_cache_pending(struct ordo *o)
{
	struct shim_cache *c = o->cache;
	bool ret;

	if (!c || o->cache_frozen)
		return false;
	pthread_rwlock_rdlock(&c->lock);
	ret = c->reload || c->head != c->tail ||
	      (!c->m && shim_now_ms() >= c->next_try_ms);
	pthread_rwlock_unlock(&c->lock);
	return ret;
}
