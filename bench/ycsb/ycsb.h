/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ordo-bench: YCSB A-F and an append workload against ordo (libordo's
 * async interface, every read mode), raw one-sided READs, and redis.
 *
 * main.c parses options and runs groups of modes; load.c fills the stores;
 * workload.c says which operation and which key comes next; worker.c runs
 * one thread's window over a driver (drv_ordo.c, drv_redis.c); hist.c is
 * the latency histogram; server.c samples the server's figures; report.c
 * prints the table and the JSON.
 */
#ifndef ORDO_BENCH_YCSB_H
#define ORDO_BENCH_YCSB_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "datasets.h"
#include "ordo.h"

/* Workloads: YCSB A-F as in XStore's Table 1, and append. */
enum wl {
	WL_A, WL_B, WL_C, WL_D, WL_E, WL_F, WL_APPEND, WL_COUNTDOWN, WL_COUNT
};
/* Request distributions over the items present. */
enum rdist { RD_UNIFORM, RD_ZIPFIAN, RD_LATEST, RD_COUNT };
/* What serves the requests. */
enum bmode {
	BM_LEARNED, BM_MODEL_ONLY, BM_WALK, BM_RPC, BM_RAW, BM_REDIS,
	BM_COUNT
};
/* One operation of a workload. */
enum bop_kind { OP_READ, OP_UPDATE, OP_INSERT, OP_SCAN, OP_RMW };

#define SCAN_LEN_MAX	100
#define ZIPF_THETA	0.99
/* Histogram: 64 linear sub-buckets per power of two above 128 ns. */
#define HIST_BUCKETS	(128 + 40 * 64)
/* Slices of the timed window for the fallback-over-time series. */
#define SLICES		20

struct hist {
	uint64_t n[HIST_BUCKETS];
	uint64_t count;
	uint64_t max;
};

void hist_add(struct hist *h, uint64_t ns);
void hist_merge(struct hist *to, const struct hist *from);
/* The value (ns) at or below which a fraction @q of samples lie. */
uint64_t hist_quantile(const struct hist *h, double q);

/*
 * struct items - the items a store holds, in insertion order: the loaded
 * keys, then every insert.  Reads pick items below @acked only, so no read
 * asks for a key whose insert is still in flight (YCSB's acknowledged
 * counter).  One per store (ordo, redis): their inserts differ.
 */
struct items {
	const uint64_t *loaded;		/* keys of items [0, nloaded) */
	uint64_t nloaded;
	uint64_t *ins;			/* keys of items nloaded + i */
	uint64_t cap;			/* room in @ins */
	uint64_t next;			/* next item to insert */
	uint64_t acked;			/* items below are all acknowledged */
	uint8_t *done;			/* ack flags of items acked.. (ring) */
	pthread_mutex_t lock;
};

/* The key set and what every store shares. */
struct keyset {
	uint64_t *keys;		/* nkeys loaded + nreserve fresh, random order */
	uint64_t nkeys;
	uint64_t nreserve;
	uint64_t reserve_next;	/* next fresh key for D/E inserts (atomic) */
	uint64_t append_base;	/* above every key: append's first key */
	uint64_t append_next;	/* (atomic) */
	uint64_t down_base;	/* below every key: countdown's first key */
	uint64_t down_room;	/* keys between 0 and down_base */
	uint64_t down_next;	/* (atomic) */
	double zeta_n;		/* zeta(nkeys, theta) for scrambled zipfian */
};

int items_init(struct items *it, const struct keyset *ks, uint64_t cap);
void items_free(struct items *it);
uint64_t items_key(const struct items *it, uint64_t item);
uint64_t items_acked(struct items *it);
/* Claim the next item for @key; false when out of room. */
bool items_claim(struct items *it, uint64_t key, uint64_t *item);
void items_ack(struct items *it, uint64_t item);

/* A thread's request generator. */
struct gen {
	enum wl wl;
	enum rdist dist;
	uint64_t rng;
	const struct keyset *ks;
	struct items *it;
	double zeta2, zeta_latest;	/* zeta(2), zeta(n_latest) */
	uint64_t n_latest;
	uint64_t inserts_skipped;
};

void gen_init(struct gen *g, enum wl wl, enum rdist dist, uint64_t seed,
	      const struct keyset *ks, struct items *it);
enum bop_kind gen_kind(struct gen *g);
/* The key of an item present, by the distribution. */
uint64_t gen_key(struct gen *g);
/* A fresh key for an insert (and its item), or false when none is left. */
bool gen_insert_key(struct gen *g, uint64_t *key, uint64_t *item);
uint32_t gen_scan_len(struct gen *g);
uint64_t gen_rand(struct gen *g);
double zeta(uint64_t from, uint64_t n, double theta, double start);

/* One operation in flight. */
struct bop {
	enum bop_kind kind;
	bool second;		/* RMW: the update after the read */
	uint64_t key;
	uint64_t item;		/* OP_INSERT */
	uint32_t count;		/* OP_SCAN */
	uint64_t t0;		/* ns */
	uint32_t raw_node;	/* raw-read */
	int result;
	struct ordo_req req;
	uint8_t *val;
	uint64_t *keys;
	struct worker *w;
	struct bop *next_done;
};

struct worker;

/**
 * struct driver - how a mode serves operations
 * @open: per thread: connect; 0 or -errno.
 * @start: begin @op (its kind, key, ...); 0, -EBUSY (retry later) or
 *	-errno.  Completion is reported through worker_done().
 * @poll: make progress, waiting a bounded while; completions or -errno.
 * @drain: wait for everything in flight; 0 or -errno.
 * @counters: what the thread's client did so far (struct ordo_counters).
 * @close: per thread.
 */
struct driver {
	int (*open)(struct worker *w);
	int (*start)(struct worker *w, struct bop *op);
	int (*poll)(struct worker *w);
	int (*drain)(struct worker *w);
	void (*counters)(struct worker *w, struct ordo_counters *c);
	void (*close)(struct worker *w);
};

extern const struct driver drv_ordo;
extern const struct driver drv_redis;

/* Phases of a run, set by the main thread. */
enum phase { PH_WARMUP, PH_TIMED, PH_STOP };

struct run;

/* One thread of a run. */
struct worker {
	struct run *run;
	uint32_t id;
	pthread_t tid;
	struct gen gen;
	struct bop *ops;
	struct bop *done;		/* completed, not yet handled */
	struct bop **free;
	uint32_t nfree;
	void *drv;			/* the driver's per-thread state */
	int phase_seen;
	struct ordo_counters c0, c1;	/* at the start and end of the window */
	struct ordo_counters cs;	/* at the start of the current slice */
	struct hist hist;
	uint64_t ops_done, reads, not_found, errors, scan_pairs;
	uint64_t slice_ops[SLICES], slice_fallbacks[SLICES];
	uint64_t slice_lookups[SLICES];
	int slice;
	int first_error;
	int fatal;
};

/* Options of the whole invocation. */
struct bench_cfg {
	const char *uri;
	const char *redis_addr;		/* HOST:PORT */
	enum ordo_dist key_dist;
	uint64_t keys;
	uint64_t seed;
	uint32_t value_size;		/* bytes written per value */
	uint32_t store_vsize;		/* the store's value size */
	uint32_t threads;
	uint32_t depth;
	double seconds;
	uint64_t min_ops;		/* timed operations at least; 0: none */
	double warmup;
	uint64_t walk_cache;		/* bytes; 0: libordo's default */
	bool no_load;
	bool cleanup;
	bool quiet;
};

/* One mode's run of one workload. */
struct run {
	const struct bench_cfg *cfg;
	const struct driver *drv;
	enum bmode mode;
	uint64_t walk_cache;		/* walk: cache bytes; 0: cfg->walk_cache */
	char label[24];			/* mode, or walk@SIZE */
	enum wl wl;
	enum rdist dist;
	struct keyset *ks;
	struct items *it;
	const uint32_t *leaves;		/* raw-read: leaf node numbers */
	uint32_t nleaves;
	volatile int phase;
	uint32_t arrived;		/* threads that drained at a transition */
	uint32_t exited;		/* threads that left early (errors) */
	pthread_mutex_t lock;
	pthread_cond_t cond;
	uint64_t slice_ns, t_timed;	/* window start (ns) */
	struct worker *w;
	/* results */
	struct result {
		double seconds;
		uint64_t ops, reads, not_found, errors, scan_pairs;
		uint64_t inserts_skipped;
		int first_error;
		struct hist hist;
		struct ordo_counters c;	/* summed deltas over the window */
		uint64_t cache_bytes;
		struct srv_delta {
			bool valid;
			uint64_t rpcs, retrains, full_trains;
			double cpu_busy_s, cpu_sys_s, bench_cpu_s;
			double redis_cpu_s;
		} srv;
		double slice_fallback[SLICES];
		uint64_t slice_lookups[SLICES];
	} res;
};

void worker_done(struct worker *w, struct bop *op);
void *worker_main(void *arg);
uint64_t now_ns(void);
int run_modes(struct run *r);

/* server.c */
struct srv_sample {
	bool sysfs;
	uint64_t rpcs, retrains, full_trains;
	uint64_t cpu_busy, cpu_sys;	/* clock ticks of /proc/stat */
	double bench_cpu_s;
	double redis_cpu_s;
};
void srv_sample(struct srv_sample *s, int redis_pid);
void srv_delta(const struct srv_sample *a, const struct srv_sample *b,
	       struct srv_delta *d);

/* load.c */
int load_ordo(const struct bench_cfg *cfg, const uint64_t *keys, uint64_t n);
int unload_ordo(const struct bench_cfg *cfg, const struct items *it);
int wait_model(const struct bench_cfg *cfg);
extern bool progress_force;
void progress(const char *what, uint64_t done, uint64_t total);
void fill_value(uint8_t *v, uint32_t len, uint64_t key);

/* drv_redis.c */
int redis_start(const struct bench_cfg *cfg);
void redis_stop(void);
int redis_pid(void);
int redis_load(const struct bench_cfg *cfg, const uint64_t *keys, uint64_t n);

/* report.c */
const char *wl_name(enum wl w);
const char *rdist_name(enum rdist d);
const char *bmode_name(enum bmode m);
/* r->label: the mode's name, or walk@256K for a walk with a set cache. */
void run_set_label(struct run *r);
int wl_parse(const char *s, enum wl *w);
int rdist_parse(const char *s, enum rdist *d);
int bmode_parse(const char *s, enum bmode *m);
void report_table(FILE *f, struct run *const *runs, uint32_t n);
void report_json_run(FILE *f, const struct run *r, const char *indent,
		     uint32_t group, double ratio);

#endif /* ORDO_BENCH_YCSB_H */
