// SPDX-License-Identifier: GPL-2.0
/*
 * ordoctl load: bulk-load N generated keys through batches of PUTs.
 * Each key's value is its 8 little-endian bytes, so a loaded
 * store can be verified from the key set alone.
 */
#include <endian.h>
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ctl.h"
#include "datasets.h"

#define LOAD_MAX	(1ULL << 32)

const char *ctl_dist_names(void)
{
	static char names[128];
	size_t len = 0;
	int d;

	if (names[0])
		return names;
	for (d = 0; d < ORDO_DIST_COUNT; d++)
		len += snprintf(names + len, sizeof(names) - len, "%s%s",
				d ? "|" : "", ordo_dist_name(d));
	return names;
}

static void progress(uint64_t done, uint64_t total)
{
	int width = 40, fill = (int)(done * width / total);

	fprintf(stderr, "\rloading [%.*s%*s] %3d%% %" PRIu64 "/%" PRIu64,
		fill, "########################################",
		width - fill, "", (int)(done * 100 / total), done, total);
	if (done == total)
		fputc('\n', stderr);
}

/* Store keys[0..n) with batches of ORDO_BATCH_MAX PUTs. */
static int load_keys(struct ordo *o, const uint64_t *keys, uint64_t n,
		     int show)
{
	size_t vsize = ordo_value_size(o);
	struct ordo_batch_op ops[ORDO_BATCH_MAX];
	uint8_t *vals = calloc(ORDO_BATCH_MAX, vsize);
	uint64_t done = 0, last_shown = 0;
	int ret = 0;

	if (!vals)
		return -ENOMEM;
	while (done < n && !ret) {
		uint32_t b = n - done > ORDO_BATCH_MAX ? ORDO_BATCH_MAX :
			     (uint32_t)(n - done);
		uint32_t i;

		memset(ops, 0, sizeof(ops[0]) * b);
		for (i = 0; i < b; i++) {
			uint64_t le = htole64(keys[done + i]);

			memcpy(vals + i * vsize, &le, 8);
			ops[i].op = ORDO_OP_PUT;
			ops[i].kv.key = keys[done + i];
			ops[i].kv.value = (uintptr_t)(vals + i * vsize);
			ops[i].kv.value_len = 8;
		}
		ret = ordo_batch(o, ops, b);
		if (ret >= 0) {
			ret = 0;
			for (i = 0; i < b && !ret; i++)
				ret = ops[i].result;
		}
		done += b;
		if (show && (done - last_shown >= n / 200 || done == n)) {
			progress(done, n);
			last_shown = done;
		}
	}
	free(vals);
	return ret;
}

int ctl_parse_load(struct ctl_args *a, int argc, char **argv)
{
	static const struct option opts[] = {
		{ "count", required_argument, NULL, 'n' },
		{ "dist", required_argument, NULL, 'd' },
		{ "seed", required_argument, NULL, 's' },
		{ }
	};
	enum ordo_dist dist = ORDO_DIST_COUNT;
	int c;

	/* Start over: main() already ran getopt over its own options. */
	optind = 0;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "+", opts, NULL)) != -1) {
		switch (c) {
		case 'n':
			if (ctl_parse_u64(optarg, &a->count) || !a->count ||
			    a->count > LOAD_MAX)
				goto usage;
			break;
		case 'd':
			if (ordo_dist_parse(optarg, &dist))
				goto usage;
			break;
		case 's':
			if (ctl_parse_u64(optarg, &a->seed))
				goto usage;
			break;
		default:
			goto usage;
		}
	}
	if (optind != argc || !a->count || dist == ORDO_DIST_COUNT)
		goto usage;
	a->dist = dist;
	return 0;
usage:
	fprintf(stderr, "ordoctl: usage: load --count N --dist %s [--seed S]\n",
		ctl_dist_names());
	return CTL_EXIT_USAGE;
}

int ctl_load(struct ordo *o, struct ctl_args *a)
{
	uint64_t version, *keys;
	int ret;

	keys = malloc(a->count * sizeof(*keys));
	if (!keys)
		return ctl_fail(-ENOMEM, "load");
	if (ordo_dataset_gen(a->dist, a->count, a->seed, ORDO_ORDER_RANDOM,
			     keys)) {
		free(keys);
		return ctl_fail(-ENOMEM, "load");
	}
	ret = load_keys(o, keys, a->count, isatty(STDERR_FILENO));
	free(keys);
	if (ret)
		return ctl_fail(ret, "load");
	/* Learn the new key set now rather than when the trainer notices. */
	ret = ordo_retrain(o, &version);
	if (ret == -EOPNOTSUPP) {
		/* A remote server's trainer retrains when it sees fit. */
		printf("loaded %" PRIu64 " %s keys (seed %" PRIu64
		       "); the server retrains the model itself\n",
		       a->count, ordo_dist_name(a->dist), a->seed);
		return 0;
	}
	if (ret)
		return ctl_fail(ret, "load: retrain");
	printf("loaded %" PRIu64 " %s keys (seed %" PRIu64 "), model version %"
	       PRIu64 "\n", a->count, ordo_dist_name(a->dist), a->seed, version);
	return 0;
}

int ctl_retrain(struct ordo *o, struct ctl_args *a)
{
	uint64_t version;
	int ret;

	ret = ordo_retrain(o, &version);
	if (ret == -ENODATA) {
		fprintf(stderr, "ordoctl: retrain: the store is empty\n");
		return CTL_EXIT_MISSING;
	}
	if (ret == -EOPNOTSUPP) {
		fprintf(stderr,
			"ordoctl: retrain: not offered by %s (retrain on the server host)\n",
			a->uri);
		return CTL_EXIT_ERROR;
	}
	if (ret)
		return ctl_fail(ret, "retrain");
	printf("model version %" PRIu64 "\n", version);
	return 0;
}
