/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ordoctl internals: one function per command.
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

int ctl_fail(int err, const char *what);
int ctl_parse_u64(const char *s, uint64_t *out);
int ctl_parse_key(const char *s, uint64_t *key);
const char *ctl_dist_names(void);

int ctl_get(struct ordo *o, int argc, char **argv);
int ctl_put(struct ordo *o, int argc, char **argv);
int ctl_insert(struct ordo *o, int argc, char **argv);
int ctl_update(struct ordo *o, int argc, char **argv);
int ctl_del(struct ordo *o, int argc, char **argv);
int ctl_scan(struct ordo *o, int argc, char **argv);
int ctl_stats(struct ordo *o, int argc, char **argv);
int ctl_load(struct ordo *o, int argc, char **argv);
int ctl_retrain(struct ordo *o, int argc, char **argv);

#endif /* ORDOCTL_CTL_H */
