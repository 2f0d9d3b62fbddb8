// SPDX-License-Identifier: GPL-2.0
/*
 * conn-figures: what a connection costs the RDMA server, measured in the
 * vmrun guest (Documentation/admin.rst, "Sizing").  Only libordo's public
 * API, /proc and iproute2's rdma tool are used, so the same program
 * measures any version of the server.
 *
 * 1. Opens CONNS handles one after the other (rpc mode: connect, region
 *    bootstrap, superblock READ) and times that.
 * 2. Counts the kernel's MRs of ordo ("rdma resource show mr", lines with
 *    "comm [ordo]") and the unreclaimable slab (/proc/meminfo SUnreclaim)
 *    with 0, 1, 32 and CONNS connections.
 * 3. With KEEP connections left, grows the pool by GROW chunks (writes
 *    through /dev/ordo), one INFO RPC on each connection after each
 *    chunk, and counts the MRs again, at once and after SETTLE seconds.
 *
 * Usage: conn-figures [-n CONNS] [-k KEEP] [-g GROW] [-s SETTLE] URI
 * Prints one JSON object.  Module parameters max_connections and
 * max_connections_per_peer are raised for the run and put back.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdbool.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "ordo.h"

#define PARAMS	"/sys/module/ordo/parameters/"
#define STATS	"/sys/class/misc/ordo/rdma/stats/"

static double now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static long read_long(const char *path)
{
	char buf[64] = "";
	FILE *f = fopen(path, "r");

	if (!f)
		return -1;
	if (!fgets(buf, sizeof(buf), f))
		buf[0] = 0;
	fclose(f);
	return strtol(buf, NULL, 10);
}

static int write_str(const char *path, const char *val)
{
	int fd = open(path, O_WRONLY);
	ssize_t n;

	if (fd < 0)
		return -errno;
	n = write(fd, val, strlen(val));
	close(fd);
	return n < 0 ? -errno : 0;
}

/* MRs the kernel holds for ordo on every device. */
static long ordo_mrs(void)
{
	char line[1024];
	long n = 0;
	FILE *f = popen("rdma resource show mr 2>/dev/null", "r");

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (strstr(line, "comm [ordo]"))
			n++;
	pclose(f);
	return n;
}

/* Unreclaimable slab of the whole guest, in KiB. */
static long slab_kb(void)
{
	char line[256];
	long kb = -1;
	FILE *f = fopen("/proc/meminfo", "r");

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "SUnreclaim: %ld kB", &kb) == 1)
			break;
	fclose(f);
	return kb;
}

struct sample {
	long conns;
	long mrs;
	long slab_kb;
};

static void take(struct sample *s, long conns)
{
	/* Let connection setup and registration settle. */
	usleep(300000);
	s->conns = conns;
	s->mrs = ordo_mrs();
	s->slab_kb = slab_kb();
}

static void print_sample(const char *name, const struct sample *s, bool comma)
{
	printf("  \"%s\": {\"connections\": %ld, \"mrs\": %ld, \"slab_kb\": %ld}%s\n",
	       name, s->conns, s->mrs, s->slab_kb, comma ? "," : "");
}

static uint64_t pool_chunks(struct ordo *local)
{
	struct ordo_info info;

	if (ordo_info(local, &info) || !info.chunk_size)
		return 0;
	return info.pool_bytes_total / info.chunk_size;
}

int main(int argc, char **argv)
{
	struct ordo_opts opts = { .size = sizeof(opts), .mode = ORDO_MODE_RPC,
				  .timeout_ms = 30000 };
	struct sample s0, s1, s32, sn, sg, ss;
	long n = 100, keep = 4, grow = 8, settle = 25, maxc, perpeer, i, j;
	double t0, t_open, t_first = 0;
	struct ordo **h, *local;
	uint64_t key = 0x7700000000000000ULL, c0;
	uint8_t val[1024];
	char buf[32];
	int opt;

	while ((opt = getopt(argc, argv, "n:k:g:s:")) != -1) {
		if (opt == 'n')
			n = strtol(optarg, NULL, 10);
		else if (opt == 'k')
			keep = strtol(optarg, NULL, 10);
		else if (opt == 'g')
			grow = strtol(optarg, NULL, 10);
		else if (opt == 's')
			settle = strtol(optarg, NULL, 10);
		else
			return 2;
	}
	if (optind + 1 != argc || n < 32 || keep < 1 || keep > n) {
		fprintf(stderr, "usage: conn-figures [-n CONNS>=32] [-k KEEP] [-g GROW] [-s SETTLE] URI\n");
		return 2;
	}
	h = calloc(n, sizeof(*h));
	local = ordo_open("/dev/ordo");
	if (!h || !local) {
		perror("open /dev/ordo");
		return 1;
	}
	maxc = read_long(PARAMS "max_connections");
	perpeer = read_long(PARAMS "max_connections_per_peer");
	snprintf(buf, sizeof(buf), "%ld", n + 8);
	if (write_str(PARAMS "max_connections", buf) ||
	    write_str(PARAMS "max_connections_per_peer", "0")) {
		fprintf(stderr, "cannot raise the connection limits\n");
		return 1;
	}
	take(&s0, 0);
	t0 = now_ms();
	for (i = 0; i < n; i++) {
		h[i] = ordo_open_opts(argv[optind], &opts);
		if (!h[i]) {
			fprintf(stderr, "connection %ld: %s\n", i + 1,
				strerror(errno));
			return 1;
		}
		if (!i)
			t_first = now_ms() - t0;
		if (i == 0) {
			t_open = now_ms();
			take(&s1, 1);
			t0 += now_ms() - t_open;	/* sampling is not connecting */
		} else if (i == 31) {
			t_open = now_ms();
			take(&s32, 32);
			t0 += now_ms() - t_open;
		}
	}
	t_open = now_ms() - t0;
	take(&sn, n);
	for (i = keep; i < n; i++)
		ordo_close(h[i]);
	for (i = 0; i < 100 && read_long(STATS "connections") > keep; i++)
		usleep(100000);

	/* Grow the pool chunk by chunk; one RPC on each open connection. */
	memset(val, 0x5a, sizeof(val));
	c0 = pool_chunks(local);
	for (i = 0; i < grow; i++) {
		uint64_t want = c0 + i + 1;

		while (pool_chunks(local) < want)
			if (ordo_put(local, key++, val, ordo_value_size(local))) {
				perror("put");
				return 1;
			}
		for (j = 0; j < keep; j++)
			if (ordo_info(h[j], &(struct ordo_info){ 0 }))
				return 1;
	}
	take(&sg, keep);
	sleep(settle);
	take(&ss, keep);
	for (j = 0; j < keep; j++)
		ordo_close(h[j]);
	snprintf(buf, sizeof(buf), "%ld", maxc);
	write_str(PARAMS "max_connections", buf);
	snprintf(buf, sizeof(buf), "%ld", perpeer);
	write_str(PARAMS "max_connections_per_peer", buf);

	printf("{\n  \"connections\": %ld,\n", n);
	printf("  \"first_connect_ms\": %.1f,\n", t_first);
	printf("  \"connect_all_ms\": %.1f,\n", t_open);
	printf("  \"connect_mean_ms\": %.2f,\n", t_open / n);
	print_sample("idle", &s0, true);
	print_sample("one", &s1, true);
	print_sample("thirty_two", &s32, true);
	print_sample("all", &sn, true);
	printf("  \"mrs_per_connection\": %.3f,\n",
	       (double)(sn.mrs - s1.mrs) / (n - 1));
	printf("  \"slab_kb_per_connection\": %.1f,\n",
	       (double)(sn.slab_kb - s1.slab_kb) / (n - 1));
	printf("  \"grow_chunks\": %ld,\n", grow);
	print_sample("after_growth", &sg, true);
	printf("  \"settle_s\": %ld,\n", settle);
	print_sample("after_settle", &ss, false);
	printf("}\n");
	ordo_close(local);
	free(h);
	return 0;
}
