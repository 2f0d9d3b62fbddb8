// SPDX-License-Identifier: GPL-2.0
/*
 * ordoctl stats: geometry from INFO, counters from sysfs.
 */
#include <dirent.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ctl.h"

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

int ctl_stats(struct ordo *o, int argc, char **argv)
{
	struct ordo_info info;
	int ret;

	(void)argv;
	if (argc != 1) {
		fprintf(stderr, "ordoctl: usage: stats\n");
		return CTL_EXIT_USAGE;
	}
	ret = ordo_info(o, &info);
	if (ret)
		return ctl_fail(ret, "stats");
	printf("version                  %s\n", info.version);
	printf("abi_version              %u\n", info.abi_version);
	printf("node_size                %u\n", info.node_size);
	printf("leaf_slots               %u\n", info.leaf_slots);
	printf("inner_fanout             %u\n", info.inner_fanout);
	printf("value_size               %u\n", info.value_size);
	printf("chunk_size               %u\n", info.chunk_size);
	printf("max_chunks               %u\n", info.max_chunks);
	printf("keys                     %" PRIu64 "\n", (uint64_t)info.keys);
	printf("height                   %u\n", info.height);
	printf("pool_bytes_used          %" PRIu64 "\n",
	       (uint64_t)info.pool_bytes_used);
	printf("pool_bytes_total         %" PRIu64 "\n",
	       (uint64_t)info.pool_bytes_total);
	if (ordo_fd(o) >= 0) {
		print_dir(ORDO_SYSFS "/stats", "stats.");
		print_dir(ORDO_SYSFS "/model", "model.");
	}
	return 0;
}
