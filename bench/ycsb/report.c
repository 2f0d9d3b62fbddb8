// SPDX-License-Identifier: GPL-2.0
/*
 * ordo-bench: names, the comparison table (ratios against the first mode)
 * and the JSON report.  Every per-operation figure divides the window's
 * counts by the operations completed in it.
 */
#include <inttypes.h>
#include <string.h>

#include "ycsb.h"

static const char *const wl_names[WL_COUNT] = {
	"a", "b", "c", "d", "e", "f", "append", "countdown",
};
static const char *const rdist_names[RD_COUNT] = {
	"uniform", "zipfian", "latest",
};
static const char *const bmode_names[BM_COUNT] = {
	"learned", "model-only", "walk", "rpc", "raw-read", "redis",
};

const char *wl_name(enum wl w) { return wl_names[w]; }
const char *rdist_name(enum rdist d) { return rdist_names[d]; }
const char *bmode_name(enum bmode m) { return bmode_names[m]; }

void run_set_label(struct run *r)
{
	uint64_t b = r->walk_cache;

	if (!b)
		snprintf(r->label, sizeof(r->label), "%s", bmode_name(r->mode));
	else if (!(b & ((1ULL << 20) - 1)))
		snprintf(r->label, sizeof(r->label), "%s@%" PRIu64 "M",
			 bmode_name(r->mode), b >> 20);
	else if (!(b & 1023))
		snprintf(r->label, sizeof(r->label), "%s@%" PRIu64 "K",
			 bmode_name(r->mode), b >> 10);
	else
		snprintf(r->label, sizeof(r->label), "%s@%" PRIu64,
			 bmode_name(r->mode), b);
}

static int parse(const char *s, const char *const *names, int n)
{
	int i;

	for (i = 0; i < n; i++)
		if (!strcasecmp(s, names[i]))
			return i;
	return -1;
}

int wl_parse(const char *s, enum wl *w)
{
	int i = parse(s, wl_names, WL_COUNT);

	if (i < 0)
		return -1;
	*w = i;
	return 0;
}

int rdist_parse(const char *s, enum rdist *d)
{
	int i = parse(s, rdist_names, RD_COUNT);

	if (i < 0)
		return -1;
	*d = i;
	return 0;
}

int bmode_parse(const char *s, enum bmode *m)
{
	int i = parse(s, bmode_names, BM_COUNT);

	if (i < 0)
		return -1;
	*m = i;
	return 0;
}

static double per(uint64_t x, uint64_t ops)
{
	return ops ? (double)x / (double)ops : 0;
}

static double ops_per_sec(const struct result *s)
{
	return s->seconds > 0 ? (double)s->ops / s->seconds : 0;
}

static double fallback_rate(const struct result *s)
{
	return per(s->c.fallbacks, s->c.gets + s->c.scans);
}

/* Server CPU: the host's busy time less the bench's own, per operation. */
static double srv_cpu_us(const struct result *s)
{
	double cpu = s->srv.cpu_busy_s - s->srv.bench_cpu_s;

	return s->ops ? (cpu > 0 ? cpu : 0) * 1e6 / (double)s->ops : 0;
}

void report_table(FILE *f, struct run *const *runs, uint32_t n)
{
	double base = n ? ops_per_sec(&runs[0]->res) : 0;
	uint32_t i;

	fprintf(f, "\nYCSB %s, %s, %" PRIu64 " %s keys, %u threads x depth %u, %.0f s\n",
		wl_name(runs[0]->wl), rdist_name(runs[0]->dist),
		runs[0]->cfg->keys, ordo_dist_name(runs[0]->cfg->key_dist),
		runs[0]->cfg->threads, runs[0]->cfg->depth,
		runs[0]->cfg->seconds);
	fprintf(f, "%-11s %9s %6s %8s %8s %6s %6s %7s %6s %6s %7s %8s %8s %8s\n",
		"mode", "ops/s", "ratio", "p50 us", "p99 us", "RT/op",
		"READ/op", "B/op", "RPC/op", "fb %", "srvRPC", "srvCPUus",
		"cliCPUus", "cacheKiB");
	for (i = 0; i < n; i++) {
		const struct result *s = &runs[i]->res;
		double ops = ops_per_sec(s);

		fprintf(f, "%-11s %9.0f %6.2f %8.1f %8.1f %6.3f %6.3f %7.0f %6.3f "
			"%6.2f ", runs[i]->label, ops,
			base > 0 ? ops / base : 0,
			hist_quantile(&s->hist, 0.50) / 1e3,
			hist_quantile(&s->hist, 0.99) / 1e3,
			per(s->c.round_trips, s->ops), per(s->c.reads, s->ops),
			per(s->c.bytes_read, s->ops), per(s->c.rpcs, s->ops),
			100 * fallback_rate(s));
		if (s->srv.valid)
			fprintf(f, "%7.3f %8.1f %8.1f", per(s->srv.rpcs, s->ops),
				srv_cpu_us(s), s->ops ? s->srv.bench_cpu_s *
				1e6 / (double)s->ops : 0);
		else
			fprintf(f, "%7s %8s %8s", "-", "-", "-");
		fprintf(f, " %8.0f%s\n", s->cache_bytes / 1024.0,
			s->errors ? "  ERRORS" : "");
	}
}

#define Q(k)	"\"" k "\": "

void report_json_run(FILE *f, const struct run *r, const char *in,
		     uint32_t group, double ratio)
{
	static const double cdf_q[] = {
		0.01, 0.05, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9,
		0.95, 0.99, 0.995, 0.999, 0.9999, 1.0,
	};
	const struct result *s = &r->res;
	const struct bench_cfg *c = r->cfg;
	size_t i;

	fprintf(f, "%s{" Q("mode") "\"%s\", " Q("label") "\"%s\", "
		Q("walk_cache_limit") "%" PRIu64 ", " Q("workload") "\"%s\", "
		Q("dist") "\"%s\", " Q("keys") "%" PRIu64 ", "
		Q("key_dist") "\"%s\", " Q("value_size") "%u, "
		Q("store_value_size") "%u, " Q("threads") "%u, "
		Q("depth") "%u, " Q("seconds") "%.3f,\n",
		in, bmode_name(r->mode), r->label, r->walk_cache ? r->walk_cache :
		c->walk_cache, wl_name(r->wl), rdist_name(r->dist),
		c->keys, ordo_dist_name(c->key_dist), c->value_size,
		c->store_vsize, c->threads, c->depth, s->seconds);
	fprintf(f, "%s " Q("ops") "%" PRIu64 ", " Q("ops_per_sec") "%.1f, "
		Q("p50_us") "%.2f, " Q("p99_us") "%.2f, " Q("p999_us") "%.2f, "
		Q("max_us") "%.2f,\n", in, s->ops, ops_per_sec(s),
		hist_quantile(&s->hist, 0.50) / 1e3,
		hist_quantile(&s->hist, 0.99) / 1e3,
		hist_quantile(&s->hist, 0.999) / 1e3, s->hist.max / 1e3);
	fprintf(f, "%s " Q("round_trips_per_op") "%.4f, " Q("reads_per_op")
		"%.4f, " Q("bytes_per_op") "%.1f, " Q("rpcs_per_op") "%.4f, "
		Q("gets") "%" PRIu64 ", " Q("scans") "%" PRIu64 ", "
		Q("writes") "%" PRIu64 ",\n", in,
		per(s->c.round_trips, s->ops), per(s->c.reads, s->ops),
		per(s->c.bytes_read, s->ops), per(s->c.rpcs, s->ops),
		s->c.gets, s->c.scans, s->c.writes);
	fprintf(f, "%s " Q("fallback_rate") "%.5f, " Q("speculative_rate")
		"%.5f, " Q("retries") "%" PRIu64 ", " Q("model_loads") "%"
		PRIu64 ", " Q("sub_refreshes") "%" PRIu64 ", " Q("top_refreshes")
		"%" PRIu64 ", " Q("client_cache_bytes") "%" PRIu64 ",\n", in,
		fallback_rate(s),
		per(s->c.speculative_reads, s->c.gets + s->c.scans),
		s->c.retries, s->c.model_loads, s->c.sub_refreshes,
		s->c.top_refreshes, s->cache_bytes);
	fprintf(f, "%s " Q("read_ops") "%" PRIu64 ", " Q("not_found") "%" PRIu64
		", " Q("errors") "%" PRIu64 ", " Q("first_error") "%d, "
		Q("inserts_skipped") "%" PRIu64 ", " Q("scan_pairs") "%" PRIu64
		",\n", in, s->reads, s->not_found, s->errors, s->first_error,
		s->inserts_skipped, s->scan_pairs);
	if (s->srv.valid)
		fprintf(f, "%s " Q("server") "{" Q("rpcs_per_op") "%.4f, "
			Q("retrains") "%" PRIu64 ", " Q("full_trains") "%" PRIu64
			", " Q("cpu_us_per_op") "%.3f, " Q("cpu_sys_us_per_op")
			"%.3f, " Q("bench_cpu_us_per_op") "%.3f, "
			Q("redis_cpu_us_per_op") "%.3f, "
			Q("cpu_s_per_mop") "%.3f},\n", in,
			per(s->srv.rpcs, s->ops), s->srv.retrains,
			s->srv.full_trains, srv_cpu_us(s),
			s->ops ? s->srv.cpu_sys_s * 1e6 / s->ops : 0,
			s->ops ? s->srv.bench_cpu_s * 1e6 / s->ops : 0,
			s->ops ? s->srv.redis_cpu_s * 1e6 / s->ops : 0,
			srv_cpu_us(s));
	else
		fprintf(f, "%s " Q("server") "null,\n", in);
	fprintf(f, "%s " Q("fallback_timeline") "[", in);
	for (i = 0; i < SLICES; i++)
		fprintf(f, "%s%.5f", i ? ", " : "", s->slice_fallback[i]);
	fprintf(f, "],\n%s " Q("latency_cdf") "[", in);
	for (i = 0; i < sizeof(cdf_q) / sizeof(cdf_q[0]); i++)
		fprintf(f, "%s[%.2f, %g]", i ? ", " : "",
			hist_quantile(&s->hist, cdf_q[i]) / 1e3, cdf_q[i]);
	fprintf(f, "],\n%s " Q("group") "%u, " Q("ratio_vs_first") "%.4f}", in,
		group, ratio);
}
