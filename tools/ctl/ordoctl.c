// SPDX-License-Identifier: GPL-2.0
/*
 * ordoctl - command-line client of an ordo store.
 *
 * Exit codes: 0 done, 1 not found / already exists, 2 usage, 3 server or
 * transport error; failures print one line on stderr.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ctl.h"

static void usage(FILE *f)
{
	fprintf(f,
		"usage: ordoctl [-s URI] [--token FILE] CMD ...\n"
		"  URI: /dev/ordo (default) or rdma://HOST[:PORT]\n"
		"commands:\n"
		"  get KEY              print the value of KEY\n"
		"  put KEY VALUE        insert or replace\n"
		"  insert KEY VALUE     insert; fails if KEY exists\n"
		"  update KEY VALUE     replace; fails if KEY is absent\n"
		"  del KEY              delete\n"
		"  scan START COUNT     print up to COUNT pairs from START on\n"
		"  stats                print the store's statistics\n"
		"  load --count N --dist DIST [--seed S]\n"
		"                       bulk-load N generated keys (DIST: %s)\n"
		"                       and train the model over them\n"
		"  retrain              force a full retrain of the model\n"
		"KEY: decimal or 0x-hex u64.  Exit: 0 done, 1 not found or\n"
		"already exists, 2 usage, 3 server or transport error.\n",
		ctl_dist_names());
}

int ctl_fail(int err, const char *what)
{
	if (err == -ENOENT || err == -EEXIST) {
		fprintf(stderr, "ordoctl: %s: %s\n", what,
			err == -ENOENT ? "not found" : "already exists");
		return CTL_EXIT_MISSING;
	}
	fprintf(stderr, "ordoctl: %s: %s\n", what, strerror(-err));
	return CTL_EXIT_ERROR;
}

int ctl_parse_u64(const char *s, uint64_t *out)
{
	char *end;

	if (!*s || *s == '-' || *s == '+')
		return -1;
	errno = 0;
	*out = strtoull(s, &end, 0);
	if (errno || *end)
		return -1;
	return 0;
}

int ctl_parse_key(const char *s, uint64_t *key)
{
	if (ctl_parse_u64(s, key)) {
		fprintf(stderr, "ordoctl: bad key '%s': want decimal or 0x-hex u64\n",
			s);
		return -1;
	}
	return 0;
}

static const struct {
	const char *name;
	int (*fn)(struct ordo *o, int argc, char **argv);
} cmds[] = {
	{ "get", ctl_get },
	{ "put", ctl_put },
	{ "insert", ctl_insert },
	{ "update", ctl_update },
	{ "del", ctl_del },
	{ "scan", ctl_scan },
	{ "stats", ctl_stats },
	{ "load", ctl_load },
	{ "retrain", ctl_retrain },
};

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "server", required_argument, NULL, 's' },
		{ "token", required_argument, NULL, 't' },
		{ "help", no_argument, NULL, 'h' },
		{ }
	};
	const char *uri = getenv("ORDO_URI");
	struct ordo *o;
	size_t i;
	int c, ret;

	if (!uri)
		uri = "/dev/ordo";
	while ((c = getopt_long(argc, argv, "+s:t:h", opts, NULL)) != -1) {
		switch (c) {
		case 's':
			uri = optarg;
			break;
		case 't':
			setenv("ORDO_TOKEN_FILE", optarg, 1);
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			usage(stderr);
			return CTL_EXIT_USAGE;
		}
	}
	if (optind >= argc) {
		usage(stderr);
		return CTL_EXIT_USAGE;
	}
	for (i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++)
		if (!strcmp(argv[optind], cmds[i].name))
			break;
	if (i == sizeof(cmds) / sizeof(cmds[0])) {
		fprintf(stderr, "ordoctl: unknown command '%s'\n", argv[optind]);
		usage(stderr);
		return CTL_EXIT_USAGE;
	}
	o = ordo_open(uri);
	if (!o) {
		fprintf(stderr, "ordoctl: %s: %s\n", uri, strerror(errno));
		return CTL_EXIT_ERROR;
	}
	ret = cmds[i].fn(o, argc - optind, argv + optind);
	ordo_close(o);
	return ret;
}
