// SPDX-License-Identifier: GPL-2.0
/*
 * ordoctl stats: geometry from INFO, counters from sysfs.
 */
#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ctl.h"
#include <linux/ordo_node.h>

#define ORDO_SYSFS "/sys/class/misc/ordo"

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char * const *)a, *(char * const *)b);
}

/* Print every "name value" file of a sysfs directory, sorted by name. */
static void print_dir(const char *dir, const char *prefix)
{
	char *names[256], path[512], line[256];
	struct dirent *de;
	int n = 0, i;
	DIR *d;

	d = opendir(dir);
	if (!d)
		return;
	while ((de = readdir(d)) && n < 256)
		if (de->d_type == DT_REG)
			names[n++] = strdup(de->d_name);
	closedir(d);
	qsort(names, n, sizeof(names[0]), cmp_str);
	for (i = 0; i < n; i++) {
		FILE *f;

		snprintf(path, sizeof(path), "%s/%s", dir, names[i]);
		f = fopen(path, "r");
		if (f && fgets(line, sizeof(line), f))
			printf("%s%-24s %s", prefix, names[i], line);
		if (f)
			fclose(f);
		free(names[i]);
	}
}

struct stat_line {
	const char *name;
	uint64_t val;
};

static int cmp_line(const void *a, const void *b)
{
	return strcmp(((const struct stat_line *)a)->name,
		      ((const struct stat_line *)b)->name);
}

#define LINE(s, f)	{ #f, (uint64_t)(s)->f }

/*
 * The model's figures as the server reports them, under the names and in
 * the order of /sys/class/misc/ordo/model/ (for a store without sysfs).
 */
static void print_model_info(const struct ordo_model_info *m)
{
	struct stat_line l[] = {
		LINE(m, version), LINE(m, keys), LINE(m, sub_models),
		LINE(m, tt_entries), LINE(m, tt_capacity), LINE(m, eps),
		LINE(m, model_bytes), LINE(m, tt_bytes), LINE(m, region_bytes),
		LINE(m, err_pos_avg_milli), LINE(m, err_pos_max),
		LINE(m, err_leaf_avg_milli), LINE(m, err_leaf_max),
		LINE(m, window_avg_milli), LINE(m, window_max),
		LINE(m, one_leaf_ppm), LINE(m, cand_avg_milli),
		LINE(m, cand_max), LINE(m, cand_one_ppm),
		LINE(m, pending), LINE(m, wrong),
		LINE(m, retrains), LINE(m, full_trains), LINE(m, expansions),
		LINE(m, shrinks), LINE(m, last_full_train_us),
		LINE(m, last_full_train_ns),
	};
	size_t i, n = ARRAY_SIZE(l);

	qsort(l, n, sizeof(l[0]), cmp_line);
	for (i = 0; i < n; i++)
		printf("model.%-24s %" PRIu64 "\n", l[i].name, l[i].val);
}

/* What this handle did, in struct ordo_counters order. */
static void print_counters(const struct ordo_counters *c)
{
	const struct stat_line l[] = {
		LINE(c, gets), LINE(c, scans), LINE(c, writes),
		LINE(c, round_trips), LINE(c, reads), LINE(c, bytes_read),
		LINE(c, rpcs), LINE(c, fallbacks), LINE(c, speculative_reads),
		LINE(c, retries), LINE(c, cache_bytes), LINE(c, model_loads),
		LINE(c, sub_refreshes), LINE(c, reconnects),
		LINE(c, top_refreshes),
	};
	size_t i;

	for (i = 0; i < ARRAY_SIZE(l); i++)
		printf("client.%-24s %" PRIu64 "\n", l[i].name, l[i].val);
}

int ctl_stats(struct ordo *o, struct ctl_args *a)
{
	struct ordo_model_info model;
	struct ordo_counters cnt;
	struct ordo_info info;
	int ret;

	ret = ordo_info(o, &info);
	if (ret)
		return ctl_fail(ret, "stats");
	printf("version                  %.*s\n", (int)sizeof(info.version),
	       info.version);
	printf("abi_version              %u\n", info.abi_version);
	printf("node_size                %u\n", info.node_size);
	printf("leaf_slots               %u\n", info.leaf_slots);
	printf("inner_fanout             %u\n", info.inner_fanout);
	printf("value_size               %u\n", info.value_size);
	/* 0 from a server that does not say: the chunk size's bound. */
	printf("value_max                %u\n", info.value_max ?
	       info.value_max : ordo_value_len_max(info.chunk_size));
	printf("chunk_size               %u\n", info.chunk_size);
	printf("max_chunks               %u\n", info.max_chunks);
	printf("keys                     %" PRIu64 "\n", (uint64_t)info.keys);
	printf("height                   %u\n", info.height);
	printf("pool_bytes_used          %" PRIu64 "\n",
	       (uint64_t)info.pool_bytes_used);
	printf("pool_bytes_total         %" PRIu64 "\n",
	       (uint64_t)info.pool_bytes_total);
	if (ordo_fd(o) >= 0) {
		/* Local: the server's own counters and model figures. */
		print_dir(ORDO_SYSFS "/stats", "stats.");
		print_dir(ORDO_SYSFS "/model", "model.");
	} else {
		/* Remote: what the server answers over the wire. */
		ret = ordo_model_info(o, &model);
		if (!ret)
			print_model_info(&model);
		else if (ret != -ENODATA)	/* -ENODATA: no model yet */
			return ctl_fail(ret, "stats: model info");
	}
	ret = ordo_counters(o, &cnt);
	if (ret)
		return ctl_fail(ret, "stats: counters");
	printf("client.%-24s %s\n", "uri", a->uri);
	printf("client.%-24s %s\n", "mode", ordo_mode_name(ordo_mode(o)));
	print_counters(&cnt);
	return 0;
}
