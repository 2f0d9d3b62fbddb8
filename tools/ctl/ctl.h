/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ordoctl internals: every command is parsed before the store is opened
 * (so a usage error is exit 2 whatever the store's state), then run.
 */
#ifndef ORDOCTL_CTL_H
#define ORDOCTL_CTL_H

#include <stdint.h>
#include "ordo.h"

enum {
	CTL_EXIT_OK = 0,
	CTL_EXIT_MISSING = 1,	/* not found / already exists */
	CTL_EXIT_USAGE = 2,
	CTL_EXIT_ERROR = 3,	/* server or transport error */
};

#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))
#define CTL_POS_MAX	3

/**
 * struct ctl_args - one command line, parsed
 * @cmd: the command's table entry.
 * @uri: the store, as given.
 * @npos: positional arguments, the command's name included.
 * @pos: those arguments.
 * @file: --file F ("-": stdin or stdout), or NULL.
 * @key: get, put, insert, update, del: KEY; scan: START.
 * @count: scan: COUNT; load: --count.
 * @seed: load: --seed.
 * @dist: load: enum ordo_dist.
 */
struct ctl_args {
	const struct ctl_cmd *cmd;
	const char *uri;
	int npos;
	const char *pos[CTL_POS_MAX];
	const char *file;
	uint64_t key;
	uint64_t count;
	uint64_t seed;
	int dist;
};

/**
 * struct ctl_cmd - one command
 * @name: as typed.
 * @usage: its arguments, for messages.
 * @parse: check and convert @argv (argv[0] is the name); 0 or
 *	%CTL_EXIT_USAGE after printing why.
 * @run: do it; an exit code.
 */
struct ctl_cmd {
	const char *name;
	const char *usage;
	int (*parse)(struct ctl_args *a, int argc, char **argv);
	int (*run)(struct ordo *o, struct ctl_args *a);
};

int ctl_fail(int err, const char *what);
int ctl_usage(const struct ctl_args *a);
int ctl_parse_u64(const char *s, uint64_t *out);
int ctl_parse_key(const char *s, uint64_t *key);
int ctl_split(struct ctl_args *a, int argc, char **argv, int allow_file);
const char *ctl_dist_names(void);

int ctl_parse_key_only(struct ctl_args *a, int argc, char **argv);
int ctl_parse_get(struct ctl_args *a, int argc, char **argv);
int ctl_parse_write(struct ctl_args *a, int argc, char **argv);
int ctl_parse_scan(struct ctl_args *a, int argc, char **argv);
int ctl_parse_none(struct ctl_args *a, int argc, char **argv);
int ctl_parse_load(struct ctl_args *a, int argc, char **argv);

int ctl_get(struct ordo *o, struct ctl_args *a);
int ctl_put(struct ordo *o, struct ctl_args *a);
int ctl_insert(struct ordo *o, struct ctl_args *a);
int ctl_update(struct ordo *o, struct ctl_args *a);
int ctl_del(struct ordo *o, struct ctl_args *a);
int ctl_scan(struct ordo *o, struct ctl_args *a);
int ctl_stats(struct ordo *o, struct ctl_args *a);
int ctl_load(struct ordo *o, struct ctl_args *a);
int ctl_retrain(struct ordo *o, struct ctl_args *a);

#endif /* ORDOCTL_CTL_H */
