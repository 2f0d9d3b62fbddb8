// SPDX-License-Identifier: GPL-2.0
/*
 * ordo-bench: the server's figures, sampled around the timed window when
 * the bench runs on the server host (as in the vmrun guest): RPCs the
 * module executed and retrains from sysfs (Documentation/ABI), CPU time
 * of the whole host from /proc/stat, of the bench itself from getrusage,
 * and of redis-server from /proc/PID/stat.  Server CPU is the host's busy
 * time minus the bench's own.  Absent files leave the sample invalid.
 */
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include "ycsb.h"

#define RDMA_STATS	"/sys/class/misc/ordo/rdma/stats/"
#define MODEL		"/sys/class/misc/ordo/model/"

static const char *const rpc_files[] = {
	"rpc_get", "rpc_put", "rpc_insert", "rpc_update", "rpc_delete",
	"rpc_scan", "rpc_info", "rpc_regions", "rpc_model_fetch",
	"rpc_batch", "rpc_lookup", "rpc_unknown",
};

static int read_u64(const char *path, uint64_t *v)
{
	FILE *f = fopen(path, "r");
	unsigned long long x;
	int ok;

	if (!f)
		return -1;
	ok = fscanf(f, "%llu", &x) == 1;
	fclose(f);
	if (!ok)
		return -1;
	*v = x;
	return 0;
}

/* user nice system idle iowait irq softirq steal: busy and kernel ticks. */
static int proc_stat(uint64_t *busy, uint64_t *sys)
{
	unsigned long long u, n, s, id, io, irq, sirq, st;
	FILE *f = fopen("/proc/stat", "r");
	int ok;

	if (!f)
		return -1;
	ok = fscanf(f, "cpu %llu %llu %llu %llu %llu %llu %llu %llu",
		    &u, &n, &s, &id, &io, &irq, &sirq, &st) == 8;
	fclose(f);
	if (!ok)
		return -1;
	*busy = u + n + s + irq + sirq + st;
	*sys = s + irq + sirq;
	return 0;
}

/* utime + stime of a process, in seconds. */
static double proc_cpu(int pid)
{
	unsigned long ut, stm;
	char path[64], buf[1024], *p;
	FILE *f;
	size_t n;

	snprintf(path, sizeof(path), "/proc/%d/stat", pid);
	f = fopen(path, "r");
	if (!f)
		return 0;
	n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = 0;
	/* The command name may hold spaces: fields start after its ')'. */
	p = strrchr(buf, ')');
	if (!p || sscanf(p + 2, "%*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u "
			 "%lu %lu", &ut, &stm) != 2)
		return 0;
	return (double)(ut + stm) / (double)sysconf(_SC_CLK_TCK);
}

void srv_sample(struct srv_sample *s, int redis_pid)
{
	struct rusage ru;
	char path[128];
	uint64_t v;
	size_t i;

	memset(s, 0, sizeof(*s));
	s->sysfs = true;
	for (i = 0; i < sizeof(rpc_files) / sizeof(rpc_files[0]); i++) {
		snprintf(path, sizeof(path), RDMA_STATS "%s", rpc_files[i]);
		if (read_u64(path, &v))
			s->sysfs = false;
		else
			s->rpcs += v;
	}
	if (read_u64(MODEL "retrains", &s->retrains) ||
	    read_u64(MODEL "full_trains", &s->full_trains))
		s->sysfs = false;
	if (proc_stat(&s->cpu_busy, &s->cpu_sys))
		s->sysfs = false;
	getrusage(RUSAGE_SELF, &ru);
	s->bench_cpu_s = ru.ru_utime.tv_sec + ru.ru_stime.tv_sec +
			 (ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e6;
	if (redis_pid)
		s->redis_cpu_s = proc_cpu(redis_pid);
}

void srv_delta(const struct srv_sample *a, const struct srv_sample *b,
	       struct srv_delta *d)
{
	double tck = (double)sysconf(_SC_CLK_TCK);

	memset(d, 0, sizeof(*d));
	d->valid = a->sysfs && b->sysfs;
	if (!d->valid)
		return;
	d->rpcs = b->rpcs - a->rpcs;
	d->retrains = b->retrains - a->retrains;
	d->full_trains = b->full_trains - a->full_trains;
	d->cpu_busy_s = (double)(b->cpu_busy - a->cpu_busy) / tck;
	d->cpu_sys_s = (double)(b->cpu_sys - a->cpu_sys) / tck;
	d->bench_cpu_s = b->bench_cpu_s - a->bench_cpu_s;
	d->redis_cpu_s = b->redis_cpu_s - a->redis_cpu_s;
}
