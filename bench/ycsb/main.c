// SPDX-License-Identifier: GPL-2.0
/*
 * ordo-bench: options, the key set, the load, and groups of runs: each
 * group is one workload and distribution run in several modes back to
 * back against the same loaded store (--compare, --run), with ratios
 * against its first mode.  Documentation/benchmarking.rst is the guide.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "ordo_raw.h"
#include "ycsb.h"

#define GROUPS_MAX	16
#define MODES_MAX	8
#define DEFAULT_URI	"rdma://192.0.2.1"

struct group {
	enum wl wl;
	enum rdist dist;
	bool dist_set;
	enum bmode modes[MODES_MAX];
	uint64_t walk_cache[MODES_MAX];	/* walk@BYTES; 0: --walk-cache */
	uint32_t nmodes;
	struct run runs[MODES_MAX];
};

static struct bench_cfg cfg = {
	.uri = DEFAULT_URI,
	.key_dist = ORDO_DIST_LOGNORMAL,
	.keys = 100000,
	.seed = 1,
	.threads = 1,
	.depth = 8,
	.seconds = 5,
	.warmup = 1,
};
static struct group groups[GROUPS_MAX];
static uint32_t ngroups;
static struct keyset ks;
static struct items ordo_items, redis_items;
static bool redis_loaded;
static uint32_t *leaves;
static uint32_t nleaves;

static void usage(void)
{
	fprintf(stderr,
"usage: ordo-bench [-s URI] [--workload a|b|c|d|e|f|append|countdown]\n"
"                  [--dist uniform|zipfian|latest] [--keys N]\n"
"                  [--key-dist linear|noised|uniform|lognormal|maplike|\n"
"                              osm|fb|timeseries|books]\n"
"                  [--mode M | --compare M,M,...] [--run W:DIST:M,M,...]...\n"
"                  [--threads T] [--depth D] [--seconds S] [--min-ops N]\n"
"                  [--warmup S]\n"
"                  [--value-size B] [--seed S] [--redis HOST:PORT]\n"
"                  [--walk-cache BYTES] [--no-load] [--cleanup] [--quiet]\n"
"                  [--progress]\n"
"                  [--json[=FILE]]\n"
"modes: learned model-only walk rpc raw-read redis\n");
	exit(2);
}

static void sleep_s(double s)
{
	struct timespec ts = { (time_t)s, (long)((s - (time_t)s) * 1e9) };

	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
}

/* BYTES with an optional K, M or G suffix (powers of 1024), at least 4 KiB. */
static int parse_size(const char *s, uint64_t *v)
{
	char *end;
	unsigned long long x;

	errno = 0;
	x = strtoull(s, &end, 10);
	if (errno || end == s)
		return -1;
	switch (*end) {
	case 'K': x <<= 10; end++; break;
	case 'M': x <<= 20; end++; break;
	case 'G': x <<= 30; end++; break;
	}
	if (*end || x < 4096 || x > (1ULL << 40))
		return -1;
	*v = x;
	return 0;
}

/* MODE[,MODE...]; walk@BYTES limits that walk run's cache. */
static int parse_modes(char *list, struct group *g)
{
	char *save = NULL, *m;

	g->nmodes = 0;
	for (m = strtok_r(list, ",", &save); m; m = strtok_r(NULL, ",", &save)) {
		char *at = strchr(m, '@');

		if (g->nmodes == MODES_MAX)
			return -1;
		g->walk_cache[g->nmodes] = 0;
		if (at) {
			*at++ = 0;
			if (parse_size(at, &g->walk_cache[g->nmodes]))
				return -1;
		}
		if (bmode_parse(m, &g->modes[g->nmodes]) ||
		    (at && g->modes[g->nmodes] != BM_WALK))
			return -1;
		g->nmodes++;
	}
	return g->nmodes ? 0 : -1;
}

/* --run W:DIST:MODES (DIST may be empty: the workload's default). */
static int parse_run(char *spec, struct group *g)
{
	char *w = spec, *d = strchr(spec, ':'), *m;

	if (!d || !(m = strchr(d + 1, ':')))
		return -1;
	*d++ = 0;
	*m++ = 0;
	if (wl_parse(w, &g->wl))
		return -1;
	g->dist_set = *d;
	if (*d && rdist_parse(d, &g->dist))
		return -1;
	return parse_modes(m, g);
}

static uint64_t parse_u64(const char *s, uint64_t min, uint64_t max)
{
	char *end;
	unsigned long long v;

	errno = 0;
	v = strtoull(s, &end, 0);
	if (errno || *end || end == s || v < min || v > max)
		usage();
	return v;
}

static double parse_secs(const char *s, double min)
{
	char *end;
	double v = strtod(s, &end);

	if (*end || end == s || !(v >= min) || v > 86400)
		usage();
	return v;
}

/* The key set: loaded keys, then fresh ones for inserts, then room above. */
static int keyset_init(bool need_reserve)
{
	uint64_t total, i, max = 0, min = UINT64_MAX;

	ks.nkeys = cfg.keys;
	ks.nreserve = need_reserve ? (cfg.keys / 2 > 65536 ? cfg.keys / 2 :
				      65536) : 0;
	total = ks.nkeys + ks.nreserve;
	ks.keys = malloc(total * sizeof(*ks.keys));
	if (!ks.keys || ordo_dataset_gen(cfg.key_dist, total, cfg.seed,
					 ORDO_ORDER_RANDOM, ks.keys))
		return -ENOMEM;
	for (i = 0; i < total; i++) {
		if (ks.keys[i] > max)
			max = ks.keys[i];
		if (ks.keys[i] < min)
			min = ks.keys[i];
	}
	ks.append_base = max + 1;
	/* Countdown keys run from just below the smallest key towards 0. */
	ks.down_base = min ? min - 1 : 0;
	ks.down_room = min;
	if (ks.append_base + (1ULL << 32) < ks.append_base)
		return -ERANGE;	/* no room above the key set to append */
	ks.zeta_n = zeta(0, ks.nkeys, ZIPF_THETA, 0);
	return 0;
}

/* raw-read: the leaves the learned model names, to read at random. */
static int leaves_init(void)
{
	struct ordo_opts opts = { .size = sizeof(opts),
				  .mode = ORDO_MODE_LEARNED,
				  .flags = ORDO_OPT_PRIVATE_CACHE };
	struct ordo_model_info mi;
	struct ordo *o;
	int ret;

	if (leaves)
		return 0;
	o = ordo_open_opts(cfg.uri, &opts);
	if (!o)
		return -errno;
	ret = ordo_model_info(o, &mi);
	if (!ret && !mi.tt_entries)
		ret = -ENODATA;
	if (!ret) {
		leaves = calloc(mi.tt_entries, sizeof(*leaves));
		ret = leaves ? ordo_raw_leaves(o, leaves, mi.tt_entries) :
		      -ENOMEM;
		if (ret > 0) {
			nleaves = ret;
			ret = 0;
		}
	}
	ordo_close(o);
	return ret;
}

static void wait_gate(struct run *r)
{
	pthread_mutex_lock(&r->lock);
	while (r->arrived + r->exited < r->cfg->threads)
		pthread_cond_wait(&r->cond, &r->lock);
	pthread_mutex_unlock(&r->lock);
}

static void open_gate(struct run *r)
{
	pthread_mutex_lock(&r->lock);
	r->arrived = 0;
	pthread_cond_broadcast(&r->cond);
	pthread_mutex_unlock(&r->lock);
}

/* Operations completed so far in the timed phase, all workers. */
static uint64_t timed_ops(struct run *r)
{
	uint64_t n = 0;
	uint32_t i;

	for (i = 0; i < r->cfg->threads; i++)
		n += __atomic_load_n(&r->w[i].ops_done, __ATOMIC_RELAXED);
	return n;
}

/* Every worker left the run (each on an error): nothing more will come. */
static bool workers_gone(struct run *r)
{
	bool gone;

	pthread_mutex_lock(&r->lock);
	gone = r->exited >= r->cfg->threads;
	pthread_mutex_unlock(&r->lock);
	return gone;
}

static void collect(struct run *r, uint64_t t0, uint64_t t1)
{
	struct result *s = &r->res;
	uint32_t i, k;

	s->seconds = (double)(t1 - t0) / 1e9;
	for (i = 0; i < cfg.threads; i++) {
		struct worker *w = &r->w[i];
		const uint64_t *a = (const uint64_t *)&w->c0;
		const uint64_t *b = (const uint64_t *)&w->c1;
		uint64_t *sum = (uint64_t *)&s->c;

		for (k = 0; k < sizeof(s->c) / sizeof(uint64_t); k++)
			sum[k] += b[k] - a[k];
		hist_merge(&s->hist, &w->hist);
		s->ops += w->ops_done;
		s->reads += w->reads;
		s->not_found += w->not_found;
		s->errors += w->errors;
		s->scan_pairs += w->scan_pairs;
		s->inserts_skipped += w->gen.inserts_skipped;
		if (!s->first_error)
			s->first_error = w->first_error;
		/* Handles share the learned cache; walk caches are each's. */
		if (r->mode == BM_WALK)
			s->cache_bytes += w->c1.cache_bytes;
		else if (w->c1.cache_bytes > s->cache_bytes)
			s->cache_bytes = w->c1.cache_bytes;
		for (k = 0; k < SLICES; k++) {
			s->slice_lookups[k] += w->slice_lookups[k];
			s->slice_fallback[k] += w->slice_fallbacks[k];
		}
	}
	s->c.cache_bytes = s->cache_bytes;
	for (k = 0; k < SLICES; k++)
		s->slice_fallback[k] = s->slice_lookups[k] ?
			s->slice_fallback[k] / s->slice_lookups[k] : 0;
}

static int workers_init(struct run *r)
{
	/* A SCAN's value slots, or one long value. */
	size_t room = (size_t)SCAN_LEN_MAX * cfg.store_vsize;
	uint32_t i, j;
	int ret;

	r->w = calloc(cfg.threads, sizeof(*r->w));
	if (!r->w)
		return -ENOMEM;
	for (i = 0; i < cfg.threads; i++) {
		struct worker *w = &r->w[i];

		w->run = r;
		w->id = i;
		w->ops = calloc(cfg.depth, sizeof(*w->ops));
		w->free = calloc(cfg.depth, sizeof(*w->free));
		if (!w->ops || !w->free)
			return -ENOMEM;
		for (j = 0; j < cfg.depth; j++) {
			w->ops[j].val = calloc(1, room > cfg.value_size ?
						  room : cfg.value_size);
			w->ops[j].keys = calloc(SCAN_LEN_MAX, sizeof(uint64_t));
			if (!w->ops[j].val || !w->ops[j].keys)
				return -ENOMEM;
			w->free[w->nfree++] = &w->ops[j];
		}
		/* Every mode sees the same request sequence. */
		gen_init(&w->gen, r->wl, r->dist, cfg.seed * 1000003 + i + 1,
			 &ks, r->it);
		ret = r->drv->open(w);
		if (ret)
			return ret;
	}
	return 0;
}

static void workers_free(struct run *r)
{
	uint32_t i, j;

	for (i = 0; r->w && i < cfg.threads; i++) {
		struct worker *w = &r->w[i];

		if (w->drv)
			r->drv->close(w);
		for (j = 0; w->ops && j < cfg.depth; j++) {
			free(w->ops[j].val);
			free(w->ops[j].keys);
		}
		free(w->ops);
		free(w->free);
	}
	free(r->w);
	r->w = NULL;
}

static int run_one(struct run *r)
{
	struct srv_sample a, b;
	uint64_t t0 = 0, t1 = 0;
	uint32_t i, started = 0;
	int ret;

	pthread_mutex_init(&r->lock, NULL);
	pthread_cond_init(&r->cond, NULL);
	r->phase = PH_WARMUP;
	ret = workers_init(r);
	for (i = 0; !ret && i < cfg.threads; i++) {
		ret = -pthread_create(&r->w[i].tid, NULL, worker_main, &r->w[i]);
		started += !ret;
	}
	if (ret) {
		r->exited = cfg.threads - started;
		__atomic_store_n(&r->phase, PH_STOP, __ATOMIC_RELEASE);
		goto join;
	}
	sleep_s(cfg.warmup);
	__atomic_store_n(&r->phase, PH_TIMED, __ATOMIC_RELEASE);
	wait_gate(r);
	srv_sample(&a, redis_pid());
	r->slice_ns = (uint64_t)(cfg.seconds * 1e9 / SLICES);
	if (!r->slice_ns)
		r->slice_ns = 1;
	t0 = now_ns();
	r->t_timed = t0;
	open_gate(r);
	sleep_s(cfg.seconds);
	while (cfg.min_ops && timed_ops(r) < cfg.min_ops && !workers_gone(r))
		sleep_s(0.01);
	__atomic_store_n(&r->phase, PH_STOP, __ATOMIC_RELEASE);
	wait_gate(r);
	t1 = now_ns();
	srv_sample(&b, redis_pid());
	srv_delta(&a, &b, &r->res.srv);
join:
	for (i = 0; i < started; i++)
		pthread_join(r->w[i].tid, NULL);
	if (!ret)
		collect(r, t0, t1);
	workers_free(r);
	return ret;
}

static int prepare_mode(struct run *r)
{
	int ret = 0;

	if (r->mode == BM_REDIS) {
		r->drv = &drv_redis;
		r->it = &redis_items;
		if (!redis_loaded) {
			ret = redis_start(&cfg);
			if (!ret)
				ret = redis_load(&cfg, ks.keys, ks.nkeys);
			redis_loaded = !ret;
		}
		return ret;
	}
	r->drv = &drv_ordo;
	r->it = &ordo_items;
	if (r->mode == BM_RAW) {
		ret = leaves_init();
		r->leaves = leaves;
		r->nleaves = nleaves;
	}
	return ret;
}

static int run_group(struct group *g, FILE *json, bool table, bool *first)
{
	struct run *runs[MODES_MAX];
	double base = 0;
	uint32_t i;
	int status = 0;

	for (i = 0; i < g->nmodes; i++) {
		struct run *r = &g->runs[i];
		int ret;

		r->cfg = &cfg;
		r->mode = g->modes[i];
		r->walk_cache = g->walk_cache[i];
		run_set_label(r);
		r->wl = g->wl;
		r->dist = g->dist;
		r->ks = &ks;
		runs[i] = r;
		if (!cfg.quiet)
			fprintf(stderr, "ordo-bench: %s %s %s ...\n",
				wl_name(g->wl), rdist_name(g->dist),
				r->label);
		ret = prepare_mode(r);
		if (!ret)
			ret = run_one(r);
		if (ret) {
			fprintf(stderr, "ordo-bench: %s: %s\n", r->label,
				strerror(-ret));
			r->res.first_error = ret;
			r->res.errors++;
		}
		if (r->res.errors)
			status = 3;
	}
	if (table)
		report_table(stdout, runs, g->nmodes);
	for (i = 0; json && i < g->nmodes; i++) {
		const struct result *s = &g->runs[i].res;
		double ops = s->seconds > 0 ? s->ops / s->seconds : 0;

		if (!i)
			base = ops;
		fprintf(json, "%s", *first ? "" : ",\n");
		*first = false;
		report_json_run(json, &g->runs[i], "  ", (uint32_t)(g - groups),
				base > 0 ? ops / base : 0);
	}
	return status;
}

static char redis_default[300];

static void redis_addr_default(void)
{
	const char *h = cfg.uri + 7, *end;

	if (cfg.redis_addr)
		return;
	if (strncmp(cfg.uri, "rdma://", 7)) {
		cfg.redis_addr = "127.0.0.1:6379";
		return;
	}
	end = *h == '[' ? strchr(h, ']') : strchr(h, ':');
	if (*h == '[' && end)
		h++;
	if (!end)
		end = h + strlen(h);
	snprintf(redis_default, sizeof(redis_default), "%.*s:6379",
		 (int)(end - h), h);
	cfg.redis_addr = redis_default;
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "server", required_argument, NULL, 's' },
		{ "workload", required_argument, NULL, 'w' },
		{ "dist", required_argument, NULL, 'd' },
		{ "keys", required_argument, NULL, 'k' },
		{ "key-dist", required_argument, NULL, 'K' },
		{ "mode", required_argument, NULL, 'm' },
		{ "compare", required_argument, NULL, 'c' },
		{ "run", required_argument, NULL, 'r' },
		{ "threads", required_argument, NULL, 't' },
		{ "depth", required_argument, NULL, 'D' },
		{ "seconds", required_argument, NULL, 'S' },
		{ "min-ops", required_argument, NULL, 'O' },
		{ "warmup", required_argument, NULL, 'W' },
		{ "value-size", required_argument, NULL, 'v' },
		{ "seed", required_argument, NULL, 'e' },
		{ "redis", required_argument, NULL, 'R' },
		{ "no-load", no_argument, NULL, 'n' },
		{ "cleanup", no_argument, NULL, 'C' },
		{ "walk-cache", required_argument, NULL, 'H' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "progress", no_argument, NULL, 'P' },
		{ "json", optional_argument, NULL, 'j' },
		{ "help", no_argument, NULL, 'h' },
		{ }
	};
	struct group single = { .wl = WL_C, .modes = { BM_LEARNED }, .nmodes = 1 };
	bool json = false, reserve = false, need_ordo = false, first = true;
	const char *json_path = NULL;
	FILE *jf = NULL;
	char *modes = NULL;
	uint32_t i, j;
	int c, ret, status = 0;

	/* Tables show as each group ends, also through vmrun's log. */
	setvbuf(stdout, NULL, _IOLBF, 0);
	while ((c = getopt_long(argc, argv, "s:h", opts, NULL)) != -1) {
		switch (c) {
		case 's': cfg.uri = optarg; break;
		case 'w': if (wl_parse(optarg, &single.wl)) usage(); break;
		case 'd':
			if (rdist_parse(optarg, &single.dist))
				usage();
			single.dist_set = true;
			break;
		case 'k': cfg.keys = parse_u64(optarg, 1, 1ULL << 31); break;
		case 'K': if (ordo_dist_parse(optarg, &cfg.key_dist)) usage(); break;
		case 'm':
		case 'c': modes = optarg; break;
		case 'r':
			if (ngroups == GROUPS_MAX ||
			    parse_run(optarg, &groups[ngroups++]))
				usage();
			break;
		case 't': cfg.threads = parse_u64(optarg, 1, 64); break;
		case 'D': cfg.depth = parse_u64(optarg, 1, 256); break;
		case 'S': cfg.seconds = parse_secs(optarg, 0.1); break;
		case 'O': cfg.min_ops = parse_u64(optarg, 0, UINT64_MAX); break;
		case 'W': cfg.warmup = parse_secs(optarg, 0); break;
		case 'v': cfg.value_size = parse_u64(optarg, 1, 1 << 20); break;
		case 'e': cfg.seed = parse_u64(optarg, 0, UINT64_MAX); break;
		case 'R': cfg.redis_addr = optarg; break;
		case 'n': cfg.no_load = true; break;
		case 'C': cfg.cleanup = true; break;
		case 'H': cfg.walk_cache = parse_u64(optarg, 1, 1ULL << 40); break;
		case 'q': cfg.quiet = true; break;
		case 'P': progress_force = true; break;
		case 'j': json = true; json_path = optarg; break;
		default: usage();
		}
	}
	if (optind != argc || (modes && ngroups))
		usage();
	if (!ngroups) {
		if (modes && parse_modes(modes, &single))
			usage();
		groups[ngroups++] = single;
	}
	for (i = 0; i < ngroups; i++) {
		struct group *g = &groups[i];

		if (!g->dist_set)
			g->dist = g->wl == WL_D || g->wl == WL_APPEND ||
				  g->wl == WL_COUNTDOWN ? RD_LATEST : RD_UNIFORM;
		reserve |= g->wl == WL_D || g->wl == WL_E;
		for (j = 0; j < g->nmodes; j++)
			need_ordo |= g->modes[j] != BM_REDIS;
	}
	redis_addr_default();
	ret = keyset_init(reserve);
	if (!ret)
		ret = items_init(&ordo_items, &ks, 1 << 22);
	if (!ret)
		ret = items_init(&redis_items, &ks, 1 << 22);
	if (ret) {
		fprintf(stderr, "ordo-bench: key set: %s\n", strerror(-ret));
		return 3;
	}
	if (need_ordo) {
		struct ordo *o = ordo_open(cfg.uri);
		size_t vmax;

		if (!o) {
			fprintf(stderr, "ordo-bench: %s: %s\n", cfg.uri,
				strerror(errno));
			return 3;
		}
		cfg.store_vsize = ordo_value_size(o);
		vmax = ordo_value_max(o);
		ordo_close(o);
		if (!cfg.value_size)
			cfg.value_size = cfg.store_vsize;
		/* Longer than value_size: out of line, one more READ a GET. */
		if (cfg.value_size > vmax) {
			fprintf(stderr, "ordo-bench: --value-size %u: the store "
				"takes values up to %zu bytes\n",
				cfg.value_size, vmax);
			return 2;
		}
		ret = cfg.no_load ? 0 : load_ordo(&cfg, ks.keys, ks.nkeys);
		if (!ret)
			ret = wait_model(&cfg);
		if (ret) {
			fprintf(stderr, "ordo-bench: load: %s\n", strerror(-ret));
			return 3;
		}
	} else {
		if (!cfg.value_size)
			cfg.value_size = 8;
		cfg.store_vsize = cfg.value_size;
	}
	if (json && json_path) {
		jf = fopen(json_path, "w");
		if (!jf) {
			perror(json_path);
			return 2;
		}
	} else if (json) {
		jf = stdout;
	}
	if (jf)
		fprintf(jf, "{\"bench\": \"ycsb\", \"uri\": \"%s\", \"keys\": %"
			PRIu64 ", \"key_dist\": \"%s\", \"seed\": %" PRIu64
			", \"runs\": [\n", cfg.uri, cfg.keys,
			ordo_dist_name(cfg.key_dist), cfg.seed);
	for (i = 0; i < ngroups; i++)
		status |= run_group(&groups[i], jf, !json || json_path, &first);
	if (jf) {
		fprintf(jf, "\n]}\n");
		if (jf != stdout)
			fclose(jf);
	}
	redis_stop();
	if (need_ordo && cfg.cleanup) {
		ret = unload_ordo(&cfg, &ordo_items);
		if (ret) {
			fprintf(stderr, "ordo-bench: cleanup: %s\n",
				strerror(-ret));
			status = 3;
		}
	}
	return status;
}
