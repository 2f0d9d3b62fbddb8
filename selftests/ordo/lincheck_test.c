// SPDX-License-Identifier: GPL-2.0
/*
 * Linearizability stress of libordo's read paths (lincheck).
 *
 * Writer threads PUT, UPDATE, INSERT (fresh keys only, so leaves keep
 * splitting and sub-models keep being retrained) and DELETE keys they own,
 * while reader threads GET and SCAN through handles in the learned,
 * model-only or walk mode.  Every read is checked against the window of
 * values it could legally see: at least the version acknowledged (or
 * already returned by a finished read) before it began, at most the
 * version whose write had started before it ended; an absent key only if
 * its insert was not acknowledged before the read began or its delete had
 * started before the read ended; a deleted key never again.  SCANs must
 * also be strictly ascending and skip no key that was present throughout.
 * Each case runs once with fresh caches and once with caches frozen at open
 * (ORDO_OPT_FROZEN_CACHE) across a full retraining and a model expansion
 * (or a full training that came out larger, see model_grew()).
 *
 * Output is TAP: one line per backend, mode and cache case, plus the
 * checker's own self-tests (fabricated faults must be reported).
 * Documentation/testing.rst describes the method and the options.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "ordo.h"
#include "ordo_test.h"

#ifndef ORDO_OPT_FROZEN_CACHE
#define ORDO_OPT_FROZEN_CACHE	0x4
#endif

#define RDMA_CM		"/dev/infiniband/rdma_cm"
#define LOCAL_URI	"/dev/ordo"

/* Per-key state words: a version (1 = the insert) and a delete mark. */
#define DEL		(1ULL << 63)
#define VER		(DEL - 1)
#define VER8		((1ULL << 40) - 1)	/* versions in 8-byte values */

/* Key universe: slot j is BASE + j * GAP; the cluster sits after slot J0. */
#define BASE		(1ULL << 32)
#define GAP		(1ULL << 20)

#define MAX_THREADS	64
#define SCAN_MAX	64		/* pairs per SCAN, at most */
#define WIN_MAX		(16 * SCAN_MAX + 256)	/* window entries */
#define WALK_MAX	(1U << 16)	/* window positions */
#define VLOG_MAX	12		/* violations printed per case */
#define JOIN_GRACE_S	30		/* a thread must stop this soon */
#define CALL_LIMIT_S	120		/* retrain, model info: bounded */
#define CASE_LIMIT_S	150		/* default bound of one case */

enum vkind {
	V_OK,
	V_KEY,		/* a value written for another key */
	V_JUNK,		/* malformed value */
	V_PHANTOM,	/* a key that was never written */
	V_FUTURE,	/* a version whose write had not started */
	V_STALE,	/* older than a version acked before the read */
	V_STALE_SEEN,	/* older than a version an earlier read returned */
	V_RESURRECT,	/* a deleted key seen again */
	V_LOST,		/* GET: a present key reported absent */
	V_GAP,		/* SCAN: a present key skipped */
	V_ORDER,	/* SCAN: not strictly ascending, or below start */
	V_NEXT,		/* SCAN: count, more or next inconsistent */
	V_ERRNO,	/* unexpected error from a read */
	V_WRITE,	/* a write returned an unexpected result */
	V_SETUP,	/* the case could not be set up or run */
	V_MAX
};

static const char *const vname[V_MAX] = {
	[V_OK] = "ok", [V_KEY] = "wrong-key", [V_JUNK] = "malformed",
	[V_PHANTOM] = "phantom", [V_FUTURE] = "future",
	[V_STALE] = "stale", [V_STALE_SEEN] = "stale-after-newer-read",
	[V_RESURRECT] = "resurrected", [V_LOST] = "lost",
	[V_GAP] = "scan-gap", [V_ORDER] = "scan-order",
	[V_NEXT] = "scan-next", [V_ERRNO] = "errno", [V_WRITE] = "write",
	[V_SETUP] = "setup",
};

struct cfg {
	uint64_t reads;			/* reads per case */
	unsigned int readers, writers;
	unsigned int seconds;		/* bound of one case */
	unsigned int keys;		/* preloaded keys */
	unsigned int cluster;		/* cluster keys, at most */
	double write_ratio;		/* writes per read, at most */
	uint64_t seed;
	enum ordo_mode modes[4];
	unsigned int nmodes;
	const char *backends[4];
	unsigned int nbackends;
	bool fresh, stale;
	int selftest;			/* 0 skip, 1 with the cases, 2 only */
	unsigned int inject;		/* fault every N reads in the cases */
	bool long_values;		/* local: values longer than vs too */
};

/*
 * The keys a case may ever write, sorted, with their state.  A key's
 * writer alone stores @started (before the write is sent) and @acked (after
 * it returned 0); readers store @seen, the newest version a finished read
 * returned (DEL: a finished read proved it deleted).
 *
 * Slots come in groups of @grp: the first of a group is preloaded, the
 * others are fresh keys for INSERTs.  The @ncl cluster keys sit right after
 * slot @j0 (cl_off()) and are inserted in key order to force expansion.
 */
struct universe {
	uint64_t *keys;
	uint32_t n, nslots, grp, j0, ncl;
	_Atomic uint64_t *started, *acked, *seen;
};

struct rstats {
	uint64_t gets, found, absent, foreign, scans, pairs, gap_checked,
		 partial, unwindowed, long_gets, long_pairs;
};

struct wstats {
	uint64_t puts, updates, inserts, deletes;
};

struct lcase {
	const struct cfg *cfg;
	const char *uri;
	enum ordo_mode mode;
	bool stale;
	uint64_t target;		/* reads */
	unsigned int inject;
	size_t vs;
	size_t vbuf;		/* GET and write buffers: vs or long_max */
	struct universe u;
	uint64_t seed;
	uint64_t deadline;		/* ns, CLOCK_MONOTONIC */

	atomic_bool stop;
	atomic_uint_fast64_t reads;
	atomic_uint cl_acked;		/* cluster keys inserted */
	atomic_uint cl_started;		/* cluster keys whose insert started */
	atomic_uint_fast64_t writes;	/* for the writers' pacing */
	_Atomic uint32_t hot[MAX_THREADS];	/* last position a writer wrote */

	pthread_mutex_t lock;		/* protects the rest */
	uint64_t violations, injected, inj_reported;
	uint64_t kinds[V_MAX];
	unsigned int nlog;
	char log[VLOG_MAX][320];
	struct rstats rs;
	struct wstats ws;
	struct ordo_counters ctr;
};

struct worker {
	struct lcase *c;
	struct ordo *h;
	unsigned int id;
	uint64_t rng;
	pthread_t tid;
	atomic_bool done;
	_Atomic(const char *) doing;	/* the call in progress, for hangs */
	/* writers */
	uint32_t *live, nlive, *fresh, nfresh, nfresh_used, live_min;
	/* readers: the scan window */
	uint32_t *wpos;
	uint64_t *wa, *wsn;
	uint64_t *skeys;
	uint32_t *slens;
	uint8_t *val, *svals;
	struct ordo_counters ctr0;	/* right after open */
	struct rstats rs;
	struct wstats ws;
};

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

static uint64_t splitmix(uint64_t *s)
{
	uint64_t z = (*s += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

static uint64_t rnd(uint64_t *s, uint64_t n)
{
	return n ? splitmix(s) % n : 0;
}

static uint64_t ver_of(uint64_t w)
{
	return w & VER;
}

/* ---- values ---------------------------------------------------------- */

static uint64_t tag24(uint64_t key)
{
	return (key * 0x9e3779b97f4a7c15ULL) >> 40;
}

/*
 * Long values (longer than value_size, out of line): the longest a case
 * writes, 0 for none.  Set per case (local backend: writes of long values
 * over RDMA need the wire's staged upload).
 */
static size_t long_max;

/*
 * A value's length, a function of its key and version: every write of a
 * key changes it, 16..vs bytes (7 or 8 with 8-byte values), so a reader
 * that pairs one write's length with another's bytes is caught.  With
 * long values, one write in 8 after the insert is longer than vs:
 * vs + 1, 4096 or 65536 bytes, and one in 512 the store's longest.
 */
static size_t val_len(size_t vs, uint64_t key, uint64_t ver)
{
	uint64_t h = (key ^ (ver * 0x9e3779b97f4a7c15ULL)) *
		     0xff51afd7ed558ccdULL;
	static const size_t longs[] = { 0, 4096, 65536 };
	size_t l;

	/* The high bits: the low ones of a key ending in zeros are ver's. */
	if (long_max > vs && ver > 1 && (h >> 61) == 0) {
		l = (h >> 52) % 64 == 0 ? long_max : longs[(h >> 40) % 3];
		l = l > vs ? l : vs + 1;
		return l < long_max ? l : long_max;
	}
	h >>= 32;
	return vs >= 16 ? 16 + h % (vs - 15) : 7 + h % 2;
}

/* Byte @i of a long value: all of it depends on the key and version. */
static uint8_t long_byte(uint64_t key, uint64_t ver, size_t i)
{
	return (uint8_t)(key * 131 + ver * 29 + i * 7 + (i >> 8));
}

/*
 * A value is [key (8) | version (8) | zeros], val_len() bytes of it; with
 * 8-byte values (the module's default) it is one word, version (40 bits)
 * | tag of the key (24), of which the first 7 or 8 bytes.  The buffer of
 * vs bytes is zeroed past the value.  Return: the value's length.
 */
static size_t val_encode(void *val, size_t vs, uint64_t key, uint64_t ver)
{
	uint8_t *b = val;
	size_t len = val_len(vs, key, ver);

	size_t i, hdr = vs >= 16 ? 16 : 8;

	memset(val, 0, vs);
	if (vs >= 16) {
		memcpy(b, &key, 8);
		memcpy(b + 8, &ver, 8);
	} else {
		uint64_t w = (ver & VER8) | (tag24(key) << 40);

		memcpy(b, &w, len < 8 ? len : 8);
	}
	/* A long value: a header as above, then bytes of this write. */
	for (i = hdr; len > vs && i < len; i++)
		b[i] = long_byte(key, ver, i);
	return len;
}

/* val_decode() of a value longer than vs: header, then every byte. */
static int long_decode(const uint8_t *b, size_t len, size_t vs, uint64_t key,
		       uint64_t *ver)
{
	uint64_t k, v;
	size_t i, hdr = vs >= 16 ? 16 : 8;

	if (len > long_max)
		return V_JUNK;
	memcpy(&k, b, 8);
	if (vs >= 16) {
		memcpy(&v, b + 8, 8);
		if (k != key)
			return V_KEY;
	} else {
		if ((k >> 40) != tag24(key))
			return V_KEY;
		v = k & VER8;
	}
	for (i = hdr; i < len; i++)
		if (b[i] != long_byte(key, v, i))
			return V_JUNK;
	if (len != val_len(vs, key, v) || !v || v > VER)
		return V_JUNK;
	*ver = v;
	return V_OK;
}

/*
 * Decode the value of @len bytes at @val (a buffer of vs bytes, whose
 * bytes past @len are not looked at): V_KEY for another key's value,
 * V_JUNK for a malformed one or one whose length is not its version's.
 */
static int val_decode(const void *val, size_t len, size_t vs, uint64_t key,
		      uint64_t *ver)
{
	const uint8_t *b = val;
	uint64_t k = 0, v, mask;
	size_t i;

	if (len > vs)
		return long_decode(val, len, vs, key, ver);
	if (vs >= 16) {
		if (len < 16 || len > vs)
			return V_JUNK;
		memcpy(&k, b, 8);
		memcpy(&v, b + 8, 8);
		if (k != key)
			return V_KEY;
		for (i = 16; i < len; i++)
			if (b[i])
				return V_JUNK;
	} else {
		if (len < 7 || len > 8)
			return V_JUNK;
		memcpy(&k, b, len);
		mask = (1ULL << (8 * (len - 5))) - 1;
		if ((k >> 40) != (tag24(key) & mask))
			return V_KEY;
		v = k & VER8;
	}
	if (len != val_len(vs, key, v))
		return V_JUNK;
	if (!v || v > VER)
		return V_JUNK;
	*ver = v;
	return V_OK;
}

/*
 * A SCAN pair with a long value: its length only (a long length the
 * case writes) and value_size zero bytes; a GET checks its bytes.
 */
static bool long_scan_ok(const uint8_t *b, size_t len, size_t vs)
{
	size_t i;

	if (len > long_max)
		return false;
	for (i = 0; i < vs; i++)
		if (b[i])
			return false;
	return true;
}

/* ---- the checks (pure) ----------------------------------------------- */

/*
 * A pair read while @a0 (acked) and @sn0 (seen) were loaded before the read
 * began and @s1 (started) after it ended; 0 means "no lower bound known".
 */
static int check_present(uint64_t ver, uint64_t a0, uint64_t sn0, uint64_t s1)
{
	if (!ver_of(s1))
		return V_PHANTOM;
	if ((a0 & DEL) || (sn0 & DEL))
		return V_RESURRECT;
	if (ver > ver_of(s1))
		return V_FUTURE;
	if (ver < ver_of(a0))
		return V_STALE;
	if (ver < ver_of(sn0))
		return V_STALE_SEEN;
	return V_OK;
}

/* The key was reported absent (GET -ENOENT, or missing inside a scan). */
static int check_absent(uint64_t a0, uint64_t sn0, uint64_t s1)
{
	if ((ver_of(a0) || ver_of(sn0)) && !(s1 & DEL))
		return V_LOST;
	return V_OK;
}

/* After a checked read: later reads must not see anything older. */
static void seen_version(_Atomic uint64_t *seen, uint64_t ver)
{
	uint64_t cur = atomic_load(seen);

	while (!(cur & DEL) && ver_of(cur) < ver &&
	       !atomic_compare_exchange_weak(seen, &cur, ver))
		;
}

static void seen_absent(_Atomic uint64_t *seen, uint64_t a0, uint64_t sn0,
			uint64_t s1)
{
	/* Present before the read began, absent during it: deleted for good. */
	if ((ver_of(a0) || ver_of(sn0)) && (s1 & DEL))
		atomic_fetch_or(seen, DEL);
}

/* ---- universe -------------------------------------------------------- */

static int64_t upos(const struct universe *u, uint64_t key)
{
	uint32_t lo = 0, hi = u->n;

	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;

		if (u->keys[mid] < key)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < u->n && u->keys[lo] == key ? (int64_t)lo : -1;
}

static uint32_t ulower(const struct universe *u, uint64_t key)
{
	uint32_t lo = 0, hi = u->n;

	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;

		if (u->keys[mid] < key)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

static uint32_t slot_pos(const struct universe *u, uint32_t j)
{
	return j <= u->j0 ? j : j + u->ncl;
}

/*
 * Offset of cluster key @c from slot j0's key: the gaps widen from 1 to
 * 1 + c / 512, so no one line fits the cluster's fences.  Evenly spaced
 * keys would: once a training gave the cluster a sub-model of its own,
 * further keys would only extend a line that still fits, and no error
 * window would ever grow past the expansion bound.
 */
static uint64_t cl_off(uint64_t c)
{
	return 1 + c + (c * c >> 10);
}

static uint32_t cl_pos(const struct universe *u, uint32_t c)
{
	return u->j0 + 1 + c;
}

/* The slot at position @q, or UINT32_MAX for a cluster key. */
static uint32_t slot_of(const struct universe *u, uint32_t q)
{
	if (q <= u->j0)
		return q;
	return q > u->j0 + u->ncl ? q - u->ncl : UINT32_MAX;
}

/* Preloaded keys of every fourth group are never deleted. */
static bool is_anchor(const struct universe *u, uint32_t j)
{
	return j != UINT32_MAX && j % u->grp == 0 && (j / u->grp) % 4 == 0;
}

static int universe_init(struct universe *u, uint32_t keys, uint32_t grp,
			 uint32_t ncl)
{
	uint32_t j, c;

	memset(u, 0, sizeof(*u));
	u->grp = grp;
	u->nslots = keys * grp;
	u->ncl = ncl;
	u->j0 = keys / 2 * grp;
	u->n = u->nslots + ncl;
	u->keys = calloc(u->n, sizeof(*u->keys));
	u->started = calloc(u->n, sizeof(*u->started));
	u->acked = calloc(u->n, sizeof(*u->acked));
	u->seen = calloc(u->n, sizeof(*u->seen));
	if (!u->keys || !u->started || !u->acked || !u->seen)
		return -ENOMEM;
	for (j = 0; j < u->nslots; j++)
		u->keys[slot_pos(u, j)] = BASE + (uint64_t)j * GAP;
	for (c = 0; c < ncl; c++)
		u->keys[cl_pos(u, c)] = BASE + (uint64_t)u->j0 * GAP +
					cl_off(c);
	return 0;
}

static void universe_free(struct universe *u)
{
	free(u->keys);
	free((void *)u->started);
	free((void *)u->acked);
	free((void *)u->seen);
}

/* ---- reporting ------------------------------------------------------- */

static void violation(struct lcase *c, int kind, const char *fmt, ...)
{
	va_list ap;

	pthread_mutex_lock(&c->lock);
	c->violations++;
	c->kinds[kind]++;
	if (c->nlog < VLOG_MAX) {
		int n = snprintf(c->log[c->nlog], sizeof(c->log[0]), "%s: ",
				 vname[kind]);

		va_start(ap, fmt);
		vsnprintf(c->log[c->nlog] + n, sizeof(c->log[0]) - n, fmt, ap);
		va_end(ap);
		c->nlog++;
	}
	pthread_mutex_unlock(&c->lock);
}

static void wst(const char *what, uint64_t w, char *buf, size_t len)
{
	snprintf(buf, len, "%s=%" PRIu64 "%s", what, ver_of(w),
		 w & DEL ? "+del" : "");
}

/* Log a failed pair check with the window it was checked against. */
static void report_pair(struct lcase *c, int kind, const char *op,
			uint64_t key, int64_t ver, uint64_t a0, uint64_t sn0,
			uint64_t s1)
{
	char a[40], s[40], t[40];

	wst("acked_before", a0, a, sizeof(a));
	wst("seen_before", sn0, s, sizeof(s));
	wst("started_after", s1, t, sizeof(t));
	if (ver >= 0)
		violation(c, kind, "%s key %#" PRIx64 " returned version %" PRId64
			  " (%s %s %s)", op, key, ver, a, s, t);
	else
		violation(c, kind, "%s key %#" PRIx64 " absent (%s %s %s)", op,
			  key, a, s, t);
}

/* ---- readers --------------------------------------------------------- */

static uint32_t pick_pos(struct worker *w)
{
	struct lcase *c = w->c;
	const struct universe *u = &c->u;
	unsigned int ncl = atomic_load_explicit(&c->cl_acked,
						memory_order_relaxed);
	uint64_t r = rnd(&w->rng, 100);

	if (r < 25 && c->cfg->writers) {
		uint32_t p = atomic_load_explicit(
			&c->hot[rnd(&w->rng, c->cfg->writers)],
			memory_order_relaxed);

		if (p < u->n)
			return p;
	}
	if (r < 45 && ncl)
		return cl_pos(u, rnd(&w->rng, ncl + ncl / 8 + 1 < u->ncl ?
					      ncl + ncl / 8 + 1 : u->ncl));
	/* Half of them preloaded keys, half fresh ones. */
	return slot_pos(u, rnd(&w->rng, u->nslots / u->grp) * u->grp +
			   (r & 1 ? rnd(&w->rng, u->grp) : 0));
}

/* A key outside the universe: never written, must never be found. */
static uint64_t pick_foreign(struct worker *w)
{
	const struct universe *u = &w->c->u;
	uint64_t r = rnd(&w->rng, 64);

	if (r == 0)
		return 0;
	if (r == 1)
		return UINT64_MAX;
	if (r == 2)
		return rnd(&w->rng, BASE);
	return BASE + rnd(&w->rng, u->nslots) * GAP + GAP / 2 +
	       rnd(&w->rng, GAP / 2);
}

/* Count a fabricated fault as reported (@bad) or missed. */
static void injected(struct lcase *c, bool bad)
{
	pthread_mutex_lock(&c->lock);
	c->injected++;
	if (bad)
		c->inj_reported++;
	pthread_mutex_unlock(&c->lock);
}

static void do_get(struct worker *w)
{
	struct lcase *c = w->c;
	struct universe *u = &c->u;
	uint64_t key, a0 = 0, sn0 = 0, s1 = 0, ver = 0;
	bool inject = false;
	size_t vlen = 0;
	int64_t p = -1;
	int ret, k;

	if (rnd(&w->rng, 100) < 8) {
		key = pick_foreign(w);
	} else {
		p = pick_pos(w);
		key = u->keys[p];
		a0 = atomic_load(&u->acked[p]);
		sn0 = atomic_load(&u->seen[p]);
	}
	atomic_thread_fence(memory_order_seq_cst);
	atomic_store_explicit(&w->doing, "ordo_get", memory_order_relaxed);
	ret = ordo_get_len(w->h, key, w->val, c->vbuf, &vlen);
	atomic_thread_fence(memory_order_seq_cst);
	if (p >= 0)
		s1 = atomic_load(&u->started[p]);
	w->rs.gets++;
	if (p < 0)
		w->rs.foreign++;

	if (ret == 0 && c->inject && p >= 0 && w->rs.gets % c->inject == 0 &&
	    !val_decode(w->val, vlen, c->vs, key, &ver)) {
		/* Self-test: an older version than allowed, or another key. */
		uint64_t lb = ver_of(a0) > ver_of(sn0) ? ver_of(a0) : ver_of(sn0);

		if (lb >= 2 && !((a0 | sn0) & DEL))
			vlen = val_encode(w->val, c->vs, key, lb - 1);
		else
			vlen = val_encode(w->val, c->vs, key ^ 0x100, ver);
		inject = true;
	}

	if (ret == 0) {
		w->rs.found++;
		w->rs.long_gets += vlen > c->vs;
		k = val_decode(w->val, vlen, c->vs, key, &ver);
		if (k)
			violation(c, k, "GET key %#" PRIx64 " returned a value not written for it",
				  key);
		else if (p < 0)
			violation(c, k = V_PHANTOM, "GET key %#" PRIx64 " (never written) returned version %" PRIu64,
				  key, ver);
		else if ((k = check_present(ver, a0, sn0, s1)))
			report_pair(c, k, "GET", key, ver, a0, sn0, s1);
		else
			seen_version(&u->seen[p], ver);
	} else if (ret == -ENOENT) {
		w->rs.absent++;
		if (p < 0)
			k = V_OK;
		else if ((k = check_absent(a0, sn0, s1)))
			report_pair(c, k, "GET", key, -1, a0, sn0, s1);
		else
			seen_absent(&u->seen[p], a0, sn0, s1);
	} else {
		violation(c, k = V_ERRNO, "GET key %#" PRIx64 ": %s", key,
			  strerror(-ret));
	}
	if (inject)
		injected(c, k != V_OK);
}

/*
 * One SCAN and its window: the acked/seen words @wa/@wsn of the universe
 * positions @wpos (ascending, @nw of them), loaded before the scan began.
 * Every position in [p0, p1) not listed had both words 0 then.
 */
struct scan_obs {
	uint64_t start;
	uint32_t n;
	int ret, more;
	uint64_t next;
	const uint64_t *keys;
	const uint8_t *vals;
	const uint32_t *lens;
	uint32_t p0, p1, nw;
	const uint32_t *wpos;
	const uint64_t *wa, *wsn;
};

/* The words of position @q before the scan; false if outside the window. */
static bool win_find(const struct scan_obs *o, uint32_t q, uint64_t *a0,
		     uint64_t *sn0)
{
	uint32_t lo = 0, hi = o->nw;

	*a0 = *sn0 = 0;
	if (q < o->p0 || q >= o->p1)
		return false;
	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;

		if (o->wpos[mid] < q)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo < o->nw && o->wpos[lo] == q) {
		*a0 = o->wa[lo];
		*sn0 = o->wsn[lo];
	}
	return true;
}

/* Check one SCAN; returns the violations found. */

static unsigned int check_scan(struct lcase *c, const struct scan_obs *o,
			       struct rstats *rs)
{
	struct universe *u = &c->u;
	uint64_t end, last = 0;
	unsigned int bad = 0;
	uint32_t i, e;
	bool ordered = true;
	int k;

	if (o->ret < 0) {
		violation(c, V_ERRNO, "SCAN start %#" PRIx64 " n %u: %s",
			  o->start, o->n, strerror(-o->ret));
		return 1;
	}
	if ((uint32_t)o->ret > o->n) {
		violation(c, V_NEXT, "SCAN start %#" PRIx64 " n %u returned %d pairs",
			  o->start, o->n, o->ret);
		return 1;
	}
	rs->pairs += o->ret;
	if (o->ret)
		last = o->keys[o->ret - 1];
	if (o->more && (o->ret ? o->next <= last : o->next <= o->start)) {
		violation(c, V_NEXT, "SCAN start %#" PRIx64 " n %u: %d pairs, last %#" PRIx64
			  ", more with next %#" PRIx64, o->start, o->n, o->ret,
			  last, o->next);
		bad++;
	}
	/* The range the scan answered for: up to next - 1, or to the end. */
	end = o->more ? (o->next > last ? o->next - 1 : last) : UINT64_MAX;

	for (i = 0; i < (uint32_t)o->ret; i++) {
		uint64_t key = o->keys[i], ver, a0 = 0, sn0 = 0, s1;
		int64_t q;

		if (key < o->start || (i && key <= o->keys[i - 1])) {
			violation(c, V_ORDER, "SCAN start %#" PRIx64 " n %u: pair %u key %#" PRIx64
				  " after %#" PRIx64, o->start, o->n, i, key,
				  i ? o->keys[i - 1] : o->start);
			ordered = false;
			bad++;
			continue;
		}
		if (o->lens[i] > c->vs) {
			/* Long: by length only, zero bytes; any version. */
			rs->long_pairs++;
			if (!long_scan_ok(o->vals + (size_t)i * c->vs,
					  o->lens[i], c->vs)) {
				violation(c, V_JUNK, "SCAN pair %u key %#" PRIx64 " long value of %u bytes malformed",
					  i, key, o->lens[i]);
				bad++;
			} else if (upos(u, key) < 0) {
				violation(c, V_PHANTOM, "SCAN pair %u key %#" PRIx64 " (never written)",
					  i, key);
				bad++;
			}
			continue;
		}
		k = val_decode(o->vals + (size_t)i * c->vs, o->lens[i], c->vs,
			       key, &ver);
		if (k) {
			violation(c, k, "SCAN pair %u key %#" PRIx64 " holds a value not written for it",
				  i, key);
			bad++;
			continue;
		}
		q = upos(u, key);
		if (q < 0) {
			violation(c, V_PHANTOM, "SCAN pair %u key %#" PRIx64 " (never written) version %" PRIu64,
				  i, key, ver);
			bad++;
			continue;
		}
		if (!win_find(o, q, &a0, &sn0))
			rs->unwindowed++;
		s1 = atomic_load(&u->started[q]);
		k = check_present(ver, a0, sn0, s1);
		if (k) {
			report_pair(c, k, "SCAN", key, ver, a0, sn0, s1);
			bad++;
			continue;
		}
		seen_version(&u->seen[q], ver);
	}
	if (!ordered)
		return bad;

	/* No gaps: every key present throughout must have been returned. */
	i = 0;
	for (e = 0; e < o->nw && u->keys[o->wpos[e]] <= end; e++) {
		uint32_t p = o->wpos[e];
		uint64_t key = u->keys[p], s1;

		while (i < (uint32_t)o->ret && o->keys[i] < key)
			i++;
		if (i < (uint32_t)o->ret && o->keys[i] == key)
			continue;
		if (key < o->start)
			continue;
		rs->gap_checked++;
		s1 = atomic_load(&u->started[p]);
		k = check_absent(o->wa[e], o->wsn[e], s1);
		if (k) {
			char a[40], s[40], t[40];

			wst("acked_before", o->wa[e], a, sizeof(a));
			wst("seen_before", o->wsn[e], s, sizeof(s));
			wst("started_after", s1, t, sizeof(t));
			violation(c, V_GAP, "SCAN start %#" PRIx64 " n %u (%d pairs, more %d) skipped key %#" PRIx64
				  " (%s %s %s)", o->start, o->n, o->ret,
				  o->more, key, a, s, t);
			bad++;
			continue;
		}
		seen_absent(&u->seen[p], o->wa[e], o->wsn[e], s1);
	}
	/* Keys past the window were not gap-checked. */
	if (o->p1 < u->n && u->keys[o->p1] <= end)
		rs->partial++;
	return bad;
}

static void do_scan(struct worker *w)
{
	struct lcase *c = w->c;
	struct universe *u = &c->u;
	struct scan_obs o = { .wpos = w->wpos, .wa = w->wa, .wsn = w->wsn };
	uint32_t want, present = 0, cls;
	uint64_t r = rnd(&w->rng, 100);
	bool inject = false;
	unsigned int bad;

	o.n = 1 + rnd(&w->rng, SCAN_MAX);
	if (r < 50)
		o.start = u->keys[pick_pos(w)];
	else if (r < 90)
		o.start = pick_foreign(w);
	else
		o.start = rnd(&w->rng, BASE);
	/*
	 * Lower bounds for the keys this scan can return, before it begins:
	 * enough positions to hold n keys present now, and then some for
	 * deletes during the scan.  Cluster keys whose insert has not started
	 * are skipped (their words are 0), and so are keys with both words 0.
	 */
	cls = atomic_load(&c->cl_started);
	o.p0 = ulower(u, o.start);
	want = o.n + o.n / 2 + 8;
	o.nw = 0;
	for (o.p1 = o.p0; o.p1 < u->n && o.p1 - o.p0 < WALK_MAX &&
	     o.nw < WIN_MAX && present < want; o.p1++) {
		uint64_t a, sn;

		if (cls < u->ncl && o.p1 == cl_pos(u, cls)) {
			o.p1 = u->j0 + u->ncl;	/* the loop steps past it */
			continue;
		}
		a = atomic_load(&u->acked[o.p1]);
		sn = atomic_load(&u->seen[o.p1]);
		if (!a && !sn)
			continue;
		w->wpos[o.nw] = o.p1;
		w->wa[o.nw] = a;
		w->wsn[o.nw] = sn;
		o.nw++;
		if (ver_of(a) && !(a & DEL))
			present++;
	}
	atomic_thread_fence(memory_order_seq_cst);
	atomic_store_explicit(&w->doing, "ordo_scan", memory_order_relaxed);
	o.more = 0;
	o.next = 0;
	o.ret = ordo_scan_len(w->h, o.start, o.n, w->skeys, w->svals,
			      w->slens, &o.more, &o.next);
	atomic_thread_fence(memory_order_seq_cst);
	w->rs.scans++;

	if (c->inject && o.ret > 0 && w->rs.scans % c->inject == 0) {
		/* Self-test: drop a never-deleted key, or spoil a value. */
		int i, drop = -1;

		for (i = 0; i < o.ret && drop < 0; i++) {
			int64_t q = upos(u, w->skeys[i]);
			uint64_t a0, sn0;

			if (q >= 0 && win_find(&o, q, &a0, &sn0) &&
			    is_anchor(u, slot_of(u, q)) && ver_of(a0))
				drop = i;
		}
		if (drop >= 0) {
			memmove(w->skeys + drop, w->skeys + drop + 1,
				(o.ret - drop - 1) * sizeof(uint64_t));
			memmove(w->svals + (size_t)drop * c->vs,
				w->svals + (size_t)(drop + 1) * c->vs,
				(size_t)(o.ret - drop - 1) * c->vs);
			memmove(w->slens + drop, w->slens + drop + 1,
				(o.ret - drop - 1) * sizeof(uint32_t));
			o.ret--;
			inject = true;
		} else {
			uint64_t ver;

			/*
			 * Only a pair whose value SCAN returned, spoiled into
			 * one that fits too: a long value comes by length
			 * alone, and svals holds vs bytes a pair.
			 */
			if (w->slens[0] <= c->vs &&
			    !val_decode(w->svals, w->slens[0], c->vs,
					w->skeys[0], &ver) &&
			    val_len(c->vs, w->skeys[0] ^ 0x100, ver) <= c->vs) {
				w->slens[0] = val_encode(w->svals, c->vs,
							 w->skeys[0] ^ 0x100,
							 ver);
				inject = true;
			}
		}
	}
	o.keys = w->skeys;
	o.vals = w->svals;
	o.lens = w->slens;
	bad = check_scan(c, &o, &w->rs);
	if (inject)
		injected(c, bad > 0);
}

static void *reader_main(void *arg)
{
	struct worker *w = arg;
	struct lcase *c = w->c;

	while (!atomic_load_explicit(&c->stop, memory_order_relaxed)) {
		if (rnd(&w->rng, 100) < 75)
			do_get(w);
		else
			do_scan(w);
		atomic_fetch_add_explicit(&c->reads, 1, memory_order_relaxed);
	}
	atomic_store(&w->doing, "exit");
	atomic_store(&w->done, true);
	return NULL;
}

/* ---- writers --------------------------------------------------------- */

enum { W_PUT, W_UPDATE, W_INSERT, W_DELETE };

/* One write of key position @p, with the per-key state around it. */
static int write_one(struct lcase *c, struct ordo *h, int op, uint32_t p,
		     uint8_t *val, _Atomic(const char *) *doing)
{
	struct universe *u = &c->u;
	uint64_t key = u->keys[p], cur = atomic_load(&u->started[p]), nv;
	static const char *const name[] = { "PUT", "UPDATE", "INSERT", "DELETE" };
	size_t len = 0;
	int ret;

	nv = op == W_DELETE ? cur | DEL : ver_of(cur) + 1;
	if (op != W_DELETE)
		len = val_encode(val, c->vs, key, nv);
	atomic_store(&u->started[p], nv);
	atomic_thread_fence(memory_order_seq_cst);
	switch (op) {
	case W_PUT:
		atomic_store_explicit(doing, "ordo_put", memory_order_relaxed);
		ret = ordo_put(h, key, val, len);
		break;
	case W_UPDATE:
		atomic_store_explicit(doing, "ordo_update", memory_order_relaxed);
		ret = ordo_update(h, key, val, len);
		break;
	case W_INSERT:
		atomic_store_explicit(doing, "ordo_insert", memory_order_relaxed);
		ret = ordo_insert(h, key, val, len);
		break;
	default:
		atomic_store_explicit(doing, "ordo_delete", memory_order_relaxed);
		ret = ordo_delete(h, key);
		break;
	}
	atomic_thread_fence(memory_order_seq_cst);
	if (ret == 0)
		atomic_store(&u->acked[p], nv);
	else
		violation(c, V_WRITE, "%s key %#" PRIx64 " version %" PRIu64 ": %s",
			  name[op], key, ver_of(nv), strerror(-ret));
	return ret;
}

static void *writer_main(void *arg)
{
	struct worker *w = arg;
	struct lcase *c = w->c;
	uint8_t *val = w->val;

	while (!atomic_load_explicit(&c->stop, memory_order_relaxed)) {
		uint64_t r = rnd(&w->rng, 100);
		uint32_t i, p;

		/* Pacing: at most write_ratio writes per read. */
		if (atomic_fetch_add(&c->writes, 1) >
		    atomic_load(&c->reads) * c->cfg->write_ratio + 256) {
			atomic_fetch_sub(&c->writes, 1);
			usleep(200);
			continue;
		}

		int op = r < 40 ? W_PUT : r < 55 ? W_UPDATE : r < 80 ?
			 W_INSERT : W_DELETE;

		if (op == W_INSERT && w->nfresh_used == w->nfresh)
			op = W_PUT;
		if (!w->nlive)
			op = W_INSERT;
		if (op == W_INSERT && w->nfresh_used == w->nfresh)
			break;
		if (op == W_INSERT) {
			p = w->fresh[w->nfresh_used++];
			if (!write_one(c, w->h, W_INSERT, p, val, &w->doing))
				w->live[w->nlive++] = p;
			w->ws.inserts++;
		} else {
			i = rnd(&w->rng, w->nlive);
			p = w->live[i];
			if (op == W_DELETE &&
			    (is_anchor(&c->u, slot_of(&c->u, p)) ||
			     w->nlive <= w->live_min))
				op = W_PUT;
			if (write_one(c, w->h, op, p, val, &w->doing) &&
			    op != W_DELETE)
				continue;
			if (op == W_DELETE) {
				w->live[i] = w->live[--w->nlive];
				w->ws.deletes++;
			} else if (op == W_PUT) {
				w->ws.puts++;
			} else {
				w->ws.updates++;
			}
		}
		atomic_store_explicit(&c->hot[w->id], p, memory_order_relaxed);
	}
	atomic_store(&w->doing, "exit");
	atomic_store(&w->done, true);
	return NULL;
}

/* ---- the control handle: clear, preload, cluster --------------------- */

/* Insert the keys at @pos (fresh ones) by batches, with their state. */
static int batch_insert(struct lcase *c, struct ordo *h, const uint32_t *pos,
			uint32_t n)
{
	struct universe *u = &c->u;
	struct ordo_batch_op ops[ORDO_BATCH_MAX];
	uint8_t *vals = calloc(ORDO_BATCH_MAX, c->vs);
	uint32_t i, b = 0, done;
	int ret = 0;

	if (!vals)
		return -ENOMEM;
	for (done = 0; done < n && !ret; done += b) {
		b = n - done < ORDO_BATCH_MAX ? n - done : ORDO_BATCH_MAX;
		memset(ops, 0, sizeof(ops));
		for (i = 0; i < b; i++) {
			uint32_t p = pos[done + i];

			ops[i].kv.value_len = val_encode(vals + (size_t)i * c->vs,
							 c->vs, u->keys[p], 1);
			ops[i].op = ORDO_OP_INSERT;
			ops[i].kv.key = u->keys[p];
			ops[i].kv.value = (uintptr_t)(vals + (size_t)i * c->vs);
			atomic_store(&u->started[p], 1);
		}
		atomic_thread_fence(memory_order_seq_cst);
		ret = ordo_batch(h, ops, b);
		atomic_thread_fence(memory_order_seq_cst);
		if (ret < 0) {
			violation(c, V_WRITE, "BATCH of %u inserts at key %#" PRIx64 ": %s",
				  b, ops[0].kv.key, strerror(-ret));
			break;
		}
		ret = 0;
		for (i = 0; i < b; i++) {
			uint32_t p = pos[done + i];

			if (ops[i].result == 0) {
				atomic_store(&u->acked[p], 1);
			} else {
				violation(c, V_WRITE, "BATCH insert of fresh key %#" PRIx64 ": %s",
					  ops[i].kv.key,
					  strerror(-ops[i].result));
				ret = ops[i].result;
			}
		}
	}
	free(vals);
	return ret;
}

/* Delete every key: the store is shared by all tests of a run. */
static int clear_store(struct lcase *c, struct ordo *h, uint64_t deadline)
{
	uint64_t keys[1024];
	struct ordo_batch_op ops[ORDO_BATCH_MAX];
	int n, i, b, j, ret, more;
	uint64_t next;

	for (;;) {
		if (now_ns() > deadline)
			return -ETIMEDOUT;
		n = ordo_scan(h, 0, 1024, keys, NULL, &more, &next);
		if (n <= 0)
			return n;
		for (i = 0; i < n; i += b) {
			b = n - i < ORDO_BATCH_MAX ? n - i : ORDO_BATCH_MAX;
			memset(ops, 0, sizeof(ops));
			for (j = 0; j < b; j++) {
				ops[j].op = ORDO_OP_DELETE;
				ops[j].kv.key = keys[i + j];
			}
			ret = ordo_batch(h, ops, b);
			if (ret < 0)
				return ret;
			for (j = 0; j < b; j++)
				if (ops[j].result && ops[j].result != -ENOENT)
					return ops[j].result;
		}
	}
}

/* ---- bounded admin calls --------------------------------------------- */

struct admin_call {
	pthread_mutex_t lock;
	pthread_cond_t cond;
	struct ordo *h;
	bool retrain, finished, abandoned;
	int ret;
	uint64_t version;
	struct ordo_model_info mi;
};

static void *admin_main(void *arg)
{
	struct admin_call *a = arg;
	bool abandoned;
	int ret;

	if (a->retrain)
		ret = ordo_retrain(a->h, &a->version);
	else
		ret = ordo_model_info(a->h, &a->mi);
	pthread_mutex_lock(&a->lock);
	a->ret = ret;
	a->finished = true;
	abandoned = a->abandoned;
	pthread_cond_signal(&a->cond);
	pthread_mutex_unlock(&a->lock);
	if (abandoned)
		free(a);
	return NULL;
}

/* ordo_retrain()/ordo_model_info() that give up after CALL_LIMIT_S. */
static int admin(struct ordo *h, bool retrain, uint64_t *version,
		 struct ordo_model_info *mi)
{
	struct admin_call *a = calloc(1, sizeof(*a));
	struct timespec ts;
	pthread_t tid;
	int ret = 0;

	if (!a)
		return -ENOMEM;
	pthread_mutex_init(&a->lock, NULL);
	pthread_cond_init(&a->cond, NULL);
	a->h = h;
	a->retrain = retrain;
	if (pthread_create(&tid, NULL, admin_main, a)) {
		free(a);
		return -EAGAIN;
	}
	pthread_detach(tid);
	clock_gettime(CLOCK_REALTIME, &ts);
	ts.tv_sec += CALL_LIMIT_S * t_time_scale();
	pthread_mutex_lock(&a->lock);
	while (!a->finished && ret != ETIMEDOUT)
		ret = pthread_cond_timedwait(&a->cond, &a->lock, &ts);
	if (!a->finished) {
		a->abandoned = true;	/* the thread frees it */
		pthread_mutex_unlock(&a->lock);
		return -ETIMEDOUT;
	}
	pthread_mutex_unlock(&a->lock);
	ret = a->ret;
	if (version)
		*version = a->version;
	if (mi)
		*mi = a->mi;
	free(a);
	return ret;
}

static bool unsupported(int ret)
{
	return ret == -EOPNOTSUPP || ret == -ENOSYS || ret == -ENOTTY ||
	       ret == -EPROTONOSUPPORT;
}

/* ---- one case -------------------------------------------------------- */

static struct ordo *open_handle(const char *uri, enum ordo_mode mode,
				uint32_t flags)
{
	/* libordo's default bound on a network wait, scaled like ours. */
	struct ordo_opts o = {
		.size = sizeof(o), .mode = mode, .flags = flags,
		.timeout_ms = 5000 * t_time_scale(),
	};

	return ordo_open_opts(uri, &o);
}

static void shuffle(uint32_t *a, uint32_t n, uint64_t *rng)
{
	uint32_t i;

	for (i = n; i > 1; i--) {
		uint32_t j = rnd(rng, i), t = a[i - 1];

		a[i - 1] = a[j];
		a[j] = t;
	}
}

static void counters_add(struct ordo_counters *s, const struct ordo_counters *x)
{
	s->gets += x->gets;
	s->scans += x->scans;
	s->writes += x->writes;
	s->round_trips += x->round_trips;
	s->reads += x->reads;
	s->bytes_read += x->bytes_read;
	s->rpcs += x->rpcs;
	s->fallbacks += x->fallbacks;
	s->speculative_reads += x->speculative_reads;
	s->retries += x->retries;
	s->cache_bytes += x->cache_bytes;
	s->model_loads += x->model_loads;
	s->sub_refreshes += x->sub_refreshes;
	s->reconnects += x->reconnects;
	s->top_refreshes += x->top_refreshes;
}

/* Wait, bounded by the case's deadline, until @reads reads were done. */
static bool wait_reads(struct lcase *c, uint64_t reads)
{
	while (atomic_load(&c->reads) < reads) {
		if (now_ns() > c->deadline)
			return false;
		usleep(2000);
	}
	return true;
}

struct phase_log {
	uint64_t epoch0, epoch_retrain, epoch1;
	uint64_t exp0, exp1, full0, full1, retr0, retr1;
	uint32_t subs0, subs_mid, subs1, eps_mid, eps1;
	unsigned int cluster;
	uint64_t r_retrain, r_expand, r_expanded;	/* reads done by then */
	double t_expand;
	bool retrained, expanded;
	const char *admin_uri;
};

/*
 * A larger model is out: an expansion, or a full training that came out
 * with more sub-models.  The latter is what a slow kernel (the debug lane)
 * does when the cluster's splits overflow the trainer's queue: it trains
 * afresh instead of retraining sub-models, and counts no expansion.  To a
 * reader both are the same event, a new epoch of another shape.
 */
static bool model_grew(const struct phase_log *pl,
		       const struct ordo_model_info *mi)
{
	return mi->expansions > pl->exp0 || mi->sub_models > pl->subs_mid;
}

/*
 * Insert cluster keys after slot J0 in key order, a few at a time, until
 * the trainer publishes a larger model: the clustered leaves push the
 * retrained sub-model's error window past model_expand_err_x times the
 * trained bound (Documentation/model.rst, "Expansion and shrinking").
 */
static int expand(struct lcase *c, struct ordo *ctl, struct ordo *adm,
		  struct phase_log *pl)
{
	struct ordo_model_info mi;
	uint64_t t0 = now_ns(), limit;
	uint32_t pos[32];
	unsigned int i, b;
	int ret;

	ret = admin(adm, false, NULL, &mi);
	if (ret)
		return ret;
	pl->exp0 = mi.expansions;
	pl->subs_mid = mi.sub_models;
	pl->eps_mid = mi.eps;
	limit = t0 < c->deadline ? t0 + (c->deadline - t0) / 2 : t0;
	while (pl->cluster < c->u.ncl && now_ns() < limit) {
		b = c->u.ncl - pl->cluster < 32 ? c->u.ncl - pl->cluster : 32;
		for (i = 0; i < b; i++)
			pos[i] = cl_pos(&c->u, pl->cluster + i);
		atomic_store(&c->cl_started, pl->cluster + b);
		ret = batch_insert(c, ctl, pos, b);
		if (ret)
			return ret;
		pl->cluster += b;
		atomic_store(&c->cl_acked, pl->cluster);
		ret = admin(adm, false, NULL, &mi);
		if (ret)
			return ret;
		if (model_grew(pl, &mi))
			break;
	}
	/* The trainer works in the background: poll, bounded. */
	while (!model_grew(pl, &mi) && now_ns() < limit) {
		usleep(20000);
		ret = admin(adm, false, NULL, &mi);
		if (ret)
			return ret;
	}
	pl->exp1 = mi.expansions;
	pl->expanded = model_grew(pl, &mi);
	pl->t_expand = (now_ns() - t0) / 1e9;
	return 0;
}

static void print_log(struct lcase *c)
{
	unsigned int i;

	for (i = 0; i < c->nlog; i++)
		printf("#   VIOLATION %s\n", c->log[i]);
	if (c->violations > c->nlog)
		printf("#   ... %" PRIu64 " violations in all\n", c->violations);
}

static int join_bounded(struct worker *w, unsigned int n, struct lcase *c)
{
	uint64_t limit = now_ns() + JOIN_GRACE_S * t_time_scale() * 1000000000ULL;
	unsigned int i;
	int hung = 0;

	for (i = 0; i < n; i++) {
		while (!atomic_load(&w[i].done) && now_ns() < limit)
			usleep(5000);
		if (!atomic_load(&w[i].done)) {
			violation(c, V_SETUP, "thread %u still in %s %d s after stop",
				  i, atomic_load(&w[i].doing),
				  JOIN_GRACE_S * t_time_scale());
			hung++;
			continue;
		}
		pthread_join(w[i].tid, NULL);
	}
	return hung;
}

static int tapno;

static bool run_case(const struct cfg *cfg, const char *uri,
		     enum ordo_mode mode, bool stale, uint64_t target,
		     unsigned int inject, bool phases, unsigned int idx)
{
	struct lcase *c = calloc(1, sizeof(*c));
	struct worker *rd = NULL, *wr = NULL;
	struct ordo *ctl = NULL, *adm = NULL, *local_adm = NULL;
	struct phase_log pl = { .admin_uri = uri };
	struct ordo_model_info mi;
	char name[160];
	uint64_t t0 = now_ns(), reads = 0;
	uint32_t *pos = NULL, j, n, grp;
	double fresh;
	unsigned int i, hung = 0;
	bool ok;
	int ret;

	if (inject)
		snprintf(name, sizeof(name), "self-test: faults injected into %s %s reads",
			 uri, ordo_mode_name(mode));
	else
		snprintf(name, sizeof(name), "%s %s %s", uri,
			 ordo_mode_name(mode), stale ? "stale" : "fresh");
	if (!c) {
		printf("not ok %d - %s: out of memory\n", ++tapno, name);
		return false;
	}
	c->cfg = cfg;
	c->uri = uri;
	c->mode = mode;
	c->stale = stale;
	c->target = target;
	c->inject = inject;
	c->seed = cfg->seed * 1000003 + idx;
	c->deadline = t0 + (uint64_t)cfg->seconds * 1000000000ULL;
	pthread_mutex_init(&c->lock, NULL);

	ctl = open_handle(uri, ORDO_MODE_RPC, 0);
	if (!ctl) {
		violation(c, V_SETUP, "open %s (rpc): %s", uri, strerror(errno));
		goto out;
	}
	adm = ctl;
	c->vs = ordo_value_size(ctl);
	if (c->vs < 8) {
		violation(c, V_SETUP, "value size %zu", c->vs);
		goto out;
	}
	/*
	 * Long values on both backends; over RDMA up to 64 KiB (a 1 MiB write
	 * is 129 STAGE calls at the default 8 KiB messages: too slow under
	 * TCG for the case's bound).
	 */
	long_max = cfg->long_values ? ordo_value_max(ctl) : 0;
	if (strcmp(uri, LOCAL_URI) && long_max > 65536)
		long_max = 65536;
	c->vbuf = long_max > c->vs ? long_max : c->vs;
	/* Fresh keys for the inserts: about a quarter of the writes. */
	fresh = target * cfg->write_ratio * 0.3 + 1024;
	grp = 2 + (uint32_t)(fresh / cfg->keys);
	if (universe_init(&c->u, cfg->keys, grp, phases ? cfg->cluster : 0)) {
		violation(c, V_SETUP, "out of memory");
		goto out;
	}
	ret = clear_store(c, ctl, c->deadline);
	if (ret) {
		violation(c, V_SETUP, "clearing the store: %s", strerror(-ret));
		goto out;
	}

	/* Preload a key per group, in key order: fences start out linear. */
	pos = calloc(c->u.nslots, sizeof(*pos));
	if (!pos)
		goto out;
	for (j = 0, n = 0; j < c->u.nslots; j += grp)
		pos[n++] = slot_pos(&c->u, j);
	if (batch_insert(c, ctl, pos, n))
		goto out;

	/* A model of the preloaded keys; remote stores may need /dev/ordo. */
	ret = admin(adm, true, &pl.epoch0, NULL);
	if (unsupported(ret) && strcmp(uri, LOCAL_URI)) {
		local_adm = open_handle(LOCAL_URI, ORDO_MODE_RPC, 0);
		if (local_adm) {
			adm = local_adm;
			pl.admin_uri = LOCAL_URI;
			ret = admin(adm, true, &pl.epoch0, NULL);
		}
	}
	if (!ret)
		ret = admin(adm, false, NULL, &mi);
	if (ret) {
		violation(c, V_SETUP, "retrain/model info via %s: %s",
			  pl.admin_uri, strerror(-ret));
		goto out;
	}
	pl.full0 = mi.full_trains;
	pl.retr0 = mi.retrains;
	pl.subs0 = mi.sub_models;

	/* Handles: readers in the mode under test, writers by RPC. */
	rd = calloc(cfg->readers, sizeof(*rd));
	wr = calloc(cfg->writers, sizeof(*wr));
	if (!rd || !wr)
		goto out;
	for (i = 0; i < cfg->readers; i++) {
		rd[i].c = c;
		rd[i].id = i;
		rd[i].rng = c->seed * 7919 + 100 + i;
		rd[i].h = open_handle(uri, mode,
				      stale ? ORDO_OPT_FROZEN_CACHE : 0);
		/*
		 * A stale case needs a model in the frozen cache.  An open
		 * that met the region mid-rewrite (the retraining just asked
		 * for, on a loaded machine) has none: open again, bounded.
		 */
		while (rd[i].h && stale && mode != ORDO_MODE_WALK &&
		       mode != ORDO_MODE_RPC && now_ns() < c->deadline) {
			ordo_counters(rd[i].h, &rd[i].ctr0);
			if (rd[i].ctr0.model_loads)
				break;
			ordo_close(rd[i].h);
			usleep(50000);
			rd[i].h = open_handle(uri, mode, ORDO_OPT_FROZEN_CACHE);
		}
		if (!rd[i].h) {
			violation(c, V_SETUP, "open %s (%s%s): %s", uri,
				  ordo_mode_name(mode), stale ? ", frozen cache" : "",
				  strerror(errno));
			goto out;
		}
		ordo_counters(rd[i].h, &rd[i].ctr0);
		if (stale && mode != ORDO_MODE_WALK && mode != ORDO_MODE_RPC &&
		    !rd[i].ctr0.model_loads) {
			violation(c, V_SETUP, "reader %u has no model cached at open",
				  i);
			goto out;
		}
		if (ordo_mode(rd[i].h) != mode) {
			violation(c, V_SETUP, "handle opened for %s reports mode %s",
				  ordo_mode_name(mode),
				  ordo_mode_name(ordo_mode(rd[i].h)));
			goto out;
		}
		rd[i].val = calloc(1, c->vbuf);
		rd[i].svals = calloc(SCAN_MAX, c->vs);
		rd[i].skeys = calloc(SCAN_MAX, sizeof(uint64_t));
		rd[i].slens = calloc(SCAN_MAX, sizeof(uint32_t));
		rd[i].wpos = calloc(WIN_MAX, sizeof(uint32_t));
		rd[i].wa = calloc(WIN_MAX, sizeof(uint64_t));
		rd[i].wsn = calloc(WIN_MAX, sizeof(uint64_t));
		if (!rd[i].val || !rd[i].svals || !rd[i].skeys ||
		    !rd[i].slens || !rd[i].wa ||
		    !rd[i].wsn || !rd[i].wpos)
			goto out;
	}
	for (i = 0; i < cfg->writers; i++) {
		struct worker *w = &wr[i];

		w->c = c;
		w->id = i;
		w->rng = c->seed * 7919 + 200 + i;
		w->h = open_handle(uri, ORDO_MODE_RPC, 0);
		if (!w->h) {
			violation(c, V_SETUP, "open %s (rpc): %s", uri,
				  strerror(errno));
			goto out;
		}
		w->val = calloc(1, c->vbuf);
		w->live = calloc(c->u.nslots, sizeof(uint32_t));
		w->fresh = calloc(c->u.nslots, sizeof(uint32_t));
		if (!w->val || !w->live || !w->fresh)
			goto out;
		for (j = 0; j < c->u.nslots; j++) {
			if ((j / grp) % cfg->writers != i)
				continue;
			if (j % grp == 0)
				w->live[w->nlive++] = slot_pos(&c->u, j);
			else
				w->fresh[w->nfresh++] = slot_pos(&c->u, j);
		}
		shuffle(w->fresh, w->nfresh, &w->rng);
		w->live_min = w->nlive / 2;
		atomic_store(&c->hot[i], UINT32_MAX);
	}

	for (i = 0; i < cfg->writers; i++)
		if (pthread_create(&wr[i].tid, NULL, writer_main, &wr[i]))
			atomic_store(&wr[i].done, true);
	for (i = 0; i < cfg->readers; i++)
		if (pthread_create(&rd[i].tid, NULL, reader_main, &rd[i]))
			atomic_store(&rd[i].done, true);

	/* Phases: a full retraining, then an expansion, readers running. */
	if (phases && wait_reads(c, target / 4)) {
		pl.r_retrain = atomic_load(&c->reads);
		ret = admin(adm, true, &pl.epoch_retrain, NULL);
		if (ret)
			violation(c, V_SETUP, "retrain: %s", strerror(-ret));
		pl.retrained = !ret;
		if (wait_reads(c, target / 2)) {
			pl.r_expand = atomic_load(&c->reads);
			ret = expand(c, ctl, adm, &pl);
			pl.r_expanded = atomic_load(&c->reads);
			if (ret)
				violation(c, V_SETUP, "expansion: %s",
					  strerror(-ret));
		}
	}
	wait_reads(c, target);
	atomic_store(&c->stop, true);
	hung = join_bounded(wr, cfg->writers, c) +
	       join_bounded(rd, cfg->readers, c);
	reads = atomic_load(&c->reads);

	for (i = 0; i < cfg->readers; i++) {
		struct ordo_counters x;
		struct rstats *s = &rd[i].rs;

		c->rs.gets += s->gets;
		c->rs.found += s->found;
		c->rs.absent += s->absent;
		c->rs.foreign += s->foreign;
		c->rs.scans += s->scans;
		c->rs.pairs += s->pairs;
		c->rs.gap_checked += s->gap_checked;
		c->rs.partial += s->partial;
		c->rs.unwindowed += s->unwindowed;
		c->rs.long_gets += s->long_gets;
		c->rs.long_pairs += s->long_pairs;
		if (hung || ordo_counters(rd[i].h, &x))
			continue;
		counters_add(&c->ctr, &x);
		/* The premise of a stale case: nothing refreshed the cache. */
		if (stale && (x.model_loads != rd[i].ctr0.model_loads ||
			      x.sub_refreshes != rd[i].ctr0.sub_refreshes))
			violation(c, V_SETUP, "reader %u's frozen cache was refreshed: model_loads %" PRIu64
				  " -> %" PRIu64 ", sub_refreshes %" PRIu64 " -> %" PRIu64,
				  i, rd[i].ctr0.model_loads, x.model_loads,
				  rd[i].ctr0.sub_refreshes, x.sub_refreshes);
	}
	for (i = 0; i < cfg->writers; i++) {
		c->ws.puts += wr[i].ws.puts;
		c->ws.updates += wr[i].ws.updates;
		c->ws.inserts += wr[i].ws.inserts;
		c->ws.deletes += wr[i].ws.deletes;
	}
	if (!hung && !admin(adm, false, NULL, &mi)) {
		pl.epoch1 = mi.version;
		pl.full1 = mi.full_trains;
		pl.retr1 = mi.retrains;
		pl.subs1 = mi.sub_models;
		pl.eps1 = mi.eps;
		if (!phases)
			pl.exp0 = pl.exp1 = mi.expansions;
	}
	if (reads < target)
		violation(c, V_SETUP, "only %" PRIu64 " of %" PRIu64 " reads within %u s",
			  reads, target, cfg->seconds);
	if (phases && !pl.retrained)
		violation(c, V_SETUP, "no full retraining during the run");
	if (phases && pl.retrained && pl.epoch1 <= pl.epoch0)
		violation(c, V_SETUP, "model epoch did not move (%" PRIu64 " -> %" PRIu64 ")",
			  pl.epoch0, pl.epoch1);
	if (phases && !pl.expanded)
		violation(c, V_SETUP, "no larger model after %u cluster keys",
			  pl.cluster);

out:
	if (!hung) {
		for (i = 0; rd && i < cfg->readers; i++) {
			ordo_close(rd[i].h);
			free(rd[i].val);
			free(rd[i].svals);
			free(rd[i].skeys);
			free(rd[i].slens);
			free(rd[i].wpos);
			free(rd[i].wa);
			free(rd[i].wsn);
		}
		for (i = 0; wr && i < cfg->writers; i++) {
			ordo_close(wr[i].h);
			free(wr[i].val);
			free(wr[i].live);
			free(wr[i].fresh);
		}
		if (ctl)
			clear_store(c, ctl, now_ns() + 60000000000ULL);
		ordo_close(local_adm);
		ordo_close(ctl);
	}

	printf("# %s: %" PRIu64 " reads in %.1f s: %" PRIu64 " GET (%" PRIu64 " found, %" PRIu64
	       " absent, %" PRIu64 " of never-written keys), %" PRIu64 " SCAN (%" PRIu64 " pairs, %" PRIu64
	       " absent keys checked, %" PRIu64 " pairs and %" PRIu64 " ranges past the window)\n",
	       name, reads, (now_ns() - t0) / 1e9, c->rs.gets, c->rs.found,
	       c->rs.absent, c->rs.foreign, c->rs.scans, c->rs.pairs,
	       c->rs.gap_checked, c->rs.unwindowed, c->rs.partial);
	printf("#   writes: %" PRIu64 " put, %" PRIu64 " update, %" PRIu64 " insert, %" PRIu64
	       " delete; %u cluster keys\n", c->ws.puts,
	       c->ws.updates, c->ws.inserts, c->ws.deletes, pl.cluster);
	if (long_max)
		printf("#   long values (up to %zu bytes): %" PRIu64 " found by GET, %" PRIu64
		       " SCAN pairs by length\n", long_max, c->rs.long_gets,
		       c->rs.long_pairs);
	if (phases)
		printf("#   model (via %s): epoch %" PRIu64 " -> retrain %" PRIu64 " -> %" PRIu64
		       ", expansions %" PRIu64 " -> %" PRIu64 " (%.1f s), sub-models %u -> %u -> %u, eps %u -> %u, full trains +%" PRIu64
		       ", sub-model retrains +%" PRIu64 "; retrain at read %" PRIu64
		       ", expansion reads %" PRIu64 "..%" PRIu64 "\n", pl.admin_uri,
		       pl.epoch0, pl.epoch_retrain, pl.epoch1, pl.exp0,
		       pl.exp1, pl.t_expand, pl.subs0, pl.subs_mid, pl.subs1,
		       pl.eps_mid, pl.eps1,
		       pl.full1 - pl.full0, pl.retr1 - pl.retr0, pl.r_retrain,
		       pl.r_expand, pl.r_expanded);
	printf("#   readers' counters: gets %" PRIu64 " scans %" PRIu64 " reads %" PRIu64
	       " round_trips %" PRIu64 " rpcs %" PRIu64 " fallbacks %" PRIu64 " retries %" PRIu64
	       " speculative %" PRIu64 " model_loads %" PRIu64 " sub_refreshes %" PRIu64
	       " reconnects %" PRIu64 "\n", c->ctr.gets, c->ctr.scans,
	       c->ctr.reads, c->ctr.round_trips, c->ctr.rpcs, c->ctr.fallbacks,
	       c->ctr.retries, c->ctr.speculative_reads, c->ctr.model_loads,
	       c->ctr.sub_refreshes, c->ctr.reconnects);
	/*
	 * With injected faults: every fault reported, nothing else (a read
	 * with a fault may show just that one violation).
	 */
	if (inject)
		printf("#   injected faults: %" PRIu64 ", reported %" PRIu64 ", other violations %" PRIu64 "\n",
		       c->injected, c->inj_reported,
		       c->violations - c->inj_reported);
	if (!inject || c->inj_reported != c->injected ||
	    c->violations != c->inj_reported)
		print_log(c);
	if (inject)
		ok = c->injected > 0 && c->inj_reported == c->injected &&
		     c->violations == c->inj_reported;
	else
		ok = c->violations == 0;
	if (inject)
		printf("%sok %d - %s: %" PRIu64 " reads, %" PRIu64 " faults, %" PRIu64 " reported\n",
		       ok ? "" : "not ", ++tapno, name, reads, c->injected,
		       c->inj_reported);
	else
		printf("%sok %d - %s: %" PRIu64 " reads, %" PRIu64 " violations\n",
		       ok ? "" : "not ", ++tapno, name, reads, c->violations);
	fflush(stdout);
	if (hung) {
		printf("Bail out! a thread hung in libordo\n");
		fflush(stdout);
		_exit(1);
	}
	universe_free(&c->u);
	free(pos);
	free(rd);
	free(wr);
	free(c);
	return ok;
}

/* ---- self-test of the checks on fabricated observations -------------- */

static bool selftest_checks(void)
{
	struct lcase *c = calloc(1, sizeof(*c));
	struct universe *u;
	struct rstats rs = { 0 };
	uint64_t keys[8], wa[64], wsn[64];
	uint32_t wpos[64];
	uint8_t vals[8 * 16];
	uint32_t lens[8];
	struct scan_obs o;
	unsigned int fails = 0, cases = 0, i;
	uint64_t v;
	size_t vs;

#define EXPECT(cond) do { cases++; if (!(cond)) { fails++; \
	printf("#   self-test failed: %s (line %d)\n", #cond, __LINE__); } } while (0)

	/*
	 * Values: both layouts, another key's value, stray bytes, a length
	 * that is not the version's.
	 */
	for (vs = 8; vs <= 16; vs += 8) {
		size_t l = val_encode(vals, vs, 77, 5);

		EXPECT(val_decode(vals, l, vs, 77, &v) == V_OK && v == 5);
		EXPECT(val_decode(vals, l, vs, 78, &v) == V_KEY);
		EXPECT(val_decode(vals, l == vs ? l - 1 : l + 1, vs, 77, &v) ==
		       V_JUNK);
		l = val_encode(vals, vs, 77, 0);
		EXPECT(val_decode(vals, l, vs, 77, &v) == V_JUNK);
	}
	val_encode(vals, 24, 77, 5);
	vals[16] = 1;
	EXPECT(val_decode(vals, 17, 24, 77, &v) == V_JUNK);

	/* Long values: every byte checked; by length only in a SCAN. */
	long_max = 8192;
	for (vs = 8; vs <= 16; vs += 8) {
		uint8_t *lv = calloc(1, long_max);
		uint64_t ver = 2;
		size_t l;

		while (val_len(vs, 77, ver) <= vs)
			ver++;
		l = val_encode(lv, vs, 77, ver);
		EXPECT(l > vs && val_decode(lv, l, vs, 77, &v) == V_OK &&
		       v == ver);
		EXPECT(val_decode(lv, l, vs, 78, &v) == V_KEY);
		lv[l - 1] ^= 1;
		EXPECT(val_decode(lv, l, vs, 77, &v) == V_JUNK);
		lv[l - 1] ^= 1;
		EXPECT(val_decode(lv, l - 1, vs, 77, &v) == V_JUNK);
		memset(lv, 0, vs);
		EXPECT(long_scan_ok(lv, l, vs));
		EXPECT(!long_scan_ok(lv, long_max + 1, vs));
		lv[0] = 1;
		EXPECT(!long_scan_ok(lv, l, vs));
		free(lv);
	}
	long_max = 0;

	/* GET windows: the bounds themselves are legal. */
	EXPECT(check_present(4, 4, 0, 6) == V_OK);
	EXPECT(check_present(6, 4, 0, 6) == V_OK);
	EXPECT(check_present(3, 4, 0, 6) == V_STALE);	/* stale value */
	EXPECT(check_present(7, 4, 0, 6) == V_FUTURE);
	EXPECT(check_present(4, 4, 5, 6) == V_STALE_SEEN);
	EXPECT(check_present(1, 0, 0, 0) == V_PHANTOM);
	EXPECT(check_present(6, 6 | DEL, 0, 6 | DEL) == V_RESURRECT);
	EXPECT(check_present(6, 6, DEL | 6, 6 | DEL) == V_RESURRECT);
	EXPECT(check_present(6, 6, 0, 6 | DEL) == V_OK);	/* delete in flight */
	EXPECT(check_absent(0, 0, 1) == V_OK);		/* insert in flight */
	EXPECT(check_absent(3, 0, 3 | DEL) == V_OK);	/* delete in flight */
	EXPECT(check_absent(3, 0, 4) == V_LOST);
	EXPECT(check_absent(0, 2, 2) == V_LOST);	/* an earlier read saw it */

	/* SCAN: a universe of 8 keys, 5 of them present for good. */
	if (!c || universe_init(&c->u, 8, 1, 0)) {
		printf("#   self-test: out of memory\n");
		return false;
	}
	pthread_mutex_init(&c->lock, NULL);
	u = &c->u;
	c->vs = vs = 16;
	for (i = 0; i < 8; i++) {
		uint64_t w = i == 3 ? 0 : i == 5 ? 2 | DEL : 2;

		atomic_store(&u->started[i], w);
		atomic_store(&u->acked[i], w);
		wpos[i] = i;
		wa[i] = w;
		wsn[i] = 0;
		lens[i] = val_encode(vals + i * vs, vs, u->keys[i], 2);
	}
	memset(&o, 0, sizeof(o));
	o.wpos = wpos;
	o.wa = wa;
	o.wsn = wsn;
	o.nw = 8;
	o.p0 = 0;
	o.p1 = 8;
	o.start = u->keys[0];
	o.n = 8;
	o.keys = keys;
	o.vals = vals;
	o.lens = lens;
	/* Correct: keys 0, 1, 2, 4, 6, 7 (3 never written, 5 deleted). */
	{
		static const int good[] = { 0, 1, 2, 4, 6, 7 };
		uint8_t gv[6 * 16];
		uint32_t gl[6];

		for (i = 0; i < 6; i++) {
			keys[i] = u->keys[good[i]];
			memcpy(gv + i * vs, vals + good[i] * vs, vs);
			gl[i] = lens[good[i]];
		}
		o.vals = gv;
		o.lens = gl;
		o.ret = 6;
		EXPECT(check_scan(c, &o, &rs) == 0);
		/* A gap: drop key 4. */
		keys[3] = keys[4];
		keys[4] = keys[5];
		memmove(gv + 3 * vs, gv + 4 * vs, 2 * vs);
		memmove(gl + 3, gl + 4, 2 * sizeof(*gl));
		o.ret = 5;
		EXPECT(check_scan(c, &o, &rs) == 1 && c->kinds[V_GAP] == 1);
		/* With more and next, the range ends at next - 1: no gap. */
		o.ret = 2;
		o.more = 1;
		o.next = u->keys[1] + 1;
		EXPECT(check_scan(c, &o, &rs) == 0);
		o.next = u->keys[1];
		EXPECT(check_scan(c, &o, &rs) == 1 && c->kinds[V_NEXT] == 1);
		/* Next past a present key: that key was skipped. */
		o.next = u->keys[3];
		EXPECT(check_scan(c, &o, &rs) == 1 && c->kinds[V_GAP] == 2);
		o.more = 0;
		/* Duplicate and descending keys. */
		keys[0] = u->keys[0];
		keys[1] = u->keys[0];
		o.vals = vals;
		o.lens = lens;
		o.ret = 2;
		EXPECT(check_scan(c, &o, &rs) >= 1 && c->kinds[V_ORDER] == 1);
		/* A stale pair, a phantom key. */
		keys[0] = u->keys[0];
		lens[0] = val_encode(vals, vs, u->keys[0], 1);
		o.ret = 1;
		o.more = 1;
		o.next = u->keys[0] + 1;
		EXPECT(check_scan(c, &o, &rs) == 1 && c->kinds[V_STALE] == 1);
		keys[0] = u->keys[0] + 1;
		lens[0] = val_encode(vals, vs, keys[0], 1);
		o.start = keys[0];
		o.next = keys[0] + 1;
		EXPECT(check_scan(c, &o, &rs) == 1 && c->kinds[V_PHANTOM] == 1);
		/* The deleted key 5 again. */
		keys[0] = u->keys[5];
		lens[0] = val_encode(vals, vs, keys[0], 2);
		o.start = u->keys[5];
		o.next = u->keys[5] + 1;
		EXPECT(check_scan(c, &o, &rs) == 1 &&
		       c->kinds[V_RESURRECT] == 1);
	}
	/* A read that saw a key deleted makes it gone for later reads. */
	atomic_store(&u->started[4], 2 | DEL);
	seen_absent(&u->seen[4], 2, 0, 2 | DEL);
	EXPECT(check_present(2, 2, atomic_load(&u->seen[4]), 2 | DEL) ==
	       V_RESURRECT);
	seen_version(&u->seen[2], 2);
	EXPECT(check_present(1, 1, atomic_load(&u->seen[2]), 2) ==
	       V_STALE_SEEN);
#undef EXPECT
	universe_free(&c->u);
	free(c);
	printf("%sok %d - self-test: %u/%u checks on fabricated reads behave\n",
	       fails ? "not " : "", ++tapno, cases - fails, cases);
	fflush(stdout);
	return !fails;
}

/* ---- main ------------------------------------------------------------ */

static void usage(FILE *f)
{
	fprintf(f,
		"usage: lincheck_test [options]\n"
		"  --reads N       reads per case (default 100000, or\n"
		"                  $ORDO_LINCHECK_READS if set)\n"
		"  --readers N     reader threads (default 2)\n"
		"  --writers N     writer threads (default 2)\n"
		"  --seconds S     bound of one case (default 150, times\n"
		"                  $ORDO_TIME_SCALE if set)\n"
		"  --keys N        keys preloaded per case (default 16384)\n"
		"  --cluster N     keys at most to force an expansion (default 16384)\n"
		"  --write-ratio X writes per read, at most (default 1)\n"
		"  --modes LIST    of learned,model-only,walk,rpc (default learned,model-only,walk)\n"
		"  --backends LIST of /dev/ordo,rdma://HOST[:PORT] (default both, 192.0.2.1)\n"
		"  --caches LIST   of fresh,stale (default both)\n"
		"  --seed S        (default 1)\n"
		"  --self-test     only the checker's self-tests\n"
		"  --no-self-test  skip them\n"
		"  --inject N      fabricate a fault every N reads in every case\n"
		"  --no-long-values  only values up to value_size (default: one\n"
		"                  write in 8 is longer, over RDMA up to 64 KiB)\n");
}

static int split(char *s, const char **out, unsigned int max)
{
	unsigned int n = 0;
	char *save = NULL, *t;

	for (t = strtok_r(s, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
		if (n == max)
			return -1;
		out[n++] = t;
	}
	return n;
}

int main(int argc, char **argv)
{
	static const struct option lo[] = {
		{ "reads", 1, NULL, 'r' }, { "readers", 1, NULL, 'R' },
		{ "writers", 1, NULL, 'W' }, { "seconds", 1, NULL, 's' },
		{ "keys", 1, NULL, 'k' }, { "cluster", 1, NULL, 'c' },
		{ "modes", 1, NULL, 'm' }, { "backends", 1, NULL, 'b' },
		{ "caches", 1, NULL, 'C' }, { "seed", 1, NULL, 'S' },
		{ "self-test", 0, NULL, 't' }, { "no-self-test", 0, NULL, 'T' },
		{ "inject", 1, NULL, 'i' }, { "write-ratio", 1, NULL, 'w' },
		{ "help", 0, NULL, 'h' }, { "no-long-values", 0, NULL, 'L' },
		{ NULL, 0, NULL, 0 },
	};
	struct cfg cfg = {
		.reads = 100000, .readers = 2, .writers = 2,
		.seconds = CASE_LIMIT_S * t_time_scale(),
		.keys = 16384, .cluster = 16384, .write_ratio = 1, .seed = 1,
		.modes = { ORDO_MODE_LEARNED, ORDO_MODE_MODEL_ONLY,
			   ORDO_MODE_WALK },
		.nmodes = 3,
		.backends = { LOCAL_URI, "rdma://192.0.2.1" }, .nbackends = 2,
		.fresh = true, .stale = true, .selftest = 1,
		.long_values = true,
	};
	const char *env = getenv("ORDO_LINCHECK_READS");

	/* make check-debug asks for less: KASAN and lockdep cost 10-30x. */
	if (env && strtoull(env, NULL, 0))
		cfg.reads = strtoull(env, NULL, 0);
	const char *list[4];
	uint64_t t0 = now_ns();
	unsigned int b, m, s, idx = 0, failed = 0, plan;
	bool have_cm;
	int opt, n, i;

	while ((opt = getopt_long(argc, argv, "h", lo, NULL)) != -1) {
		switch (opt) {
		case 'r': cfg.reads = strtoull(optarg, NULL, 0); break;
		case 'R': cfg.readers = atoi(optarg); break;
		case 'W': cfg.writers = atoi(optarg); break;
		case 's': cfg.seconds = atoi(optarg); break;
		case 'k': cfg.keys = atoi(optarg); break;
		case 'c': cfg.cluster = atoi(optarg); break;
		case 'S': cfg.seed = strtoull(optarg, NULL, 0); break;
		case 't': cfg.selftest = 2; break;
		case 'T': cfg.selftest = 0; break;
		case 'i': cfg.inject = atoi(optarg); break;
		case 'w': cfg.write_ratio = atof(optarg); break;
		case 'L': cfg.long_values = false; break;
		case 'm':
			n = split(optarg, list, 4);
			if (n <= 0)
				goto bad;
			cfg.nmodes = n;
			for (i = 0; i < n; i++)
				if (ordo_mode_parse(list[i], &cfg.modes[i]) ||
				    cfg.modes[i] == ORDO_MODE_DEFAULT)
					goto bad;
			break;
		case 'b':
			n = split(optarg, cfg.backends, 4);
			if (n <= 0)
				goto bad;
			cfg.nbackends = n;
			break;
		case 'C':
			n = split(optarg, list, 4);
			if (n <= 0)
				goto bad;
			cfg.fresh = cfg.stale = false;
			for (i = 0; i < n; i++) {
				if (!strcmp(list[i], "fresh"))
					cfg.fresh = true;
				else if (!strcmp(list[i], "stale"))
					cfg.stale = true;
				else
					goto bad;
			}
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			goto bad;
		}
	}
	if (optind != argc || !cfg.readers || !cfg.writers ||
	    cfg.readers + cfg.writers > MAX_THREADS || cfg.keys < 64 ||
	    cl_off(cfg.cluster) >= GAP / 2 || !cfg.reads || !cfg.seconds ||
	    !(cfg.write_ratio > 0))
		goto bad;
	setvbuf(stdout, NULL, _IOLBF, 0);
	/* The userspace CM device appears once rdma_ucm is loaded. */
	if (access(RDMA_CM, F_OK) && system("modprobe rdma_ucm >/dev/null 2>&1")) {
		/* checked below */
	}
	have_cm = access(RDMA_CM, F_OK) == 0;

	plan = cfg.selftest ? 2 : 0;
	if (cfg.selftest != 2)
		plan += cfg.nbackends * cfg.nmodes * (cfg.fresh + cfg.stale);
	printf("TAP version 13\n1..%u\n", plan);
	printf("# lincheck: %" PRIu64 " reads per case, %u readers, %u writers, %u keys, seed %" PRIu64 "\n",
	       cfg.reads, cfg.readers, cfg.writers, cfg.keys, cfg.seed);

	if (cfg.selftest) {
		struct cfg st = cfg;

		failed += !selftest_checks();
		/* The whole path, with faults fabricated in real reads. */
		st.writers = 2;
		st.readers = 2;
		if (!run_case(&st, LOCAL_URI, ORDO_MODE_RPC, false,
			      cfg.reads / 5 < 20000 ? cfg.reads / 5 : 20000,
			      50, false, idx++))
			failed++;
	}
	for (b = 0; cfg.selftest != 2 && b < cfg.nbackends; b++) {
		const char *uri = cfg.backends[b];
		bool rdma = !strncmp(uri, "rdma://", 7);

		for (m = 0; m < cfg.nmodes; m++) {
			for (s = 0; s < 2; s++) {
				if (!(s ? cfg.stale : cfg.fresh))
					continue;
				if (rdma && !have_cm) {
					printf("ok %d - %s %s %s # SKIP no %s\n",
					       ++tapno, uri,
					       ordo_mode_name(cfg.modes[m]),
					       s ? "stale" : "fresh", RDMA_CM);
					continue;
				}
				if (!run_case(&cfg, uri, cfg.modes[m], s,
					      cfg.reads, cfg.inject, true,
					      idx++))
					failed++;
			}
		}
	}
	printf("# lincheck: %u of %u failed, %.0f s\n", failed, plan,
	       (now_ns() - t0) / 1e9);
	return failed ? 1 : 0;
bad:
	usage(stderr);
	return 2;
}
