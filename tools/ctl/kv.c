// SPDX-License-Identifier: GPL-2.0
/*
 * ordoctl: get, put, insert, update, del, scan.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ctl.h"

/*
 * Values are printed as the stored bytes without the trailing zero padding;
 * bytes that are not printable ASCII (and backslash) are escaped as \xNN,
 * so binary values stay on one line.
 */
static void print_value(const unsigned char *v, size_t size)
{
	size_t i;

	while (size && !v[size - 1])
		size--;
	for (i = 0; i < size; i++) {
		if (v[i] >= 0x20 && v[i] < 0x7f && v[i] != '\\')
			putchar(v[i]);
		else
			printf("\\x%02x", v[i]);
	}
}

int ctl_get(struct ordo *o, int argc, char **argv)
{
	unsigned char *val;
	uint64_t key;
	int ret;

	if (argc != 2) {
		fprintf(stderr, "ordoctl: usage: get KEY\n");
		return CTL_EXIT_USAGE;
	}
	if (ctl_parse_key(argv[1], &key))
		return CTL_EXIT_USAGE;
	val = malloc(ordo_value_size(o));
	if (!val)
		return ctl_fail(-ENOMEM, "get");
	ret = ordo_get(o, key, val, ordo_value_size(o));
	if (!ret) {
		print_value(val, ordo_value_size(o));
		putchar('\n');
	}
	free(val);
	return ret ? ctl_fail(ret, "get") : 0;
}

static int kv_write(struct ordo *o, int argc, char **argv,
		    int (*op)(struct ordo *, uint64_t, const void *, size_t))
{
	uint64_t key;
	size_t len;
	int ret;

	if (argc != 3) {
		fprintf(stderr, "ordoctl: usage: %s KEY VALUE\n", argv[0]);
		return CTL_EXIT_USAGE;
	}
	if (ctl_parse_key(argv[1], &key))
		return CTL_EXIT_USAGE;
	len = strlen(argv[2]);
	if (!len || len > ordo_value_size(o)) {
		fprintf(stderr, "ordoctl: value must be 1..%zu bytes\n",
			ordo_value_size(o));
		return CTL_EXIT_USAGE;
	}
	ret = op(o, key, argv[2], len);
	return ret ? ctl_fail(ret, argv[0]) : 0;
}

int ctl_put(struct ordo *o, int argc, char **argv)
{
	return kv_write(o, argc, argv, ordo_put);
}

int ctl_insert(struct ordo *o, int argc, char **argv)
{
	return kv_write(o, argc, argv, ordo_insert);
}

int ctl_update(struct ordo *o, int argc, char **argv)
{
	return kv_write(o, argc, argv, ordo_update);
}

int ctl_del(struct ordo *o, int argc, char **argv)
{
	uint64_t key;
	int ret;

	if (argc != 2) {
		fprintf(stderr, "ordoctl: usage: del KEY\n");
		return CTL_EXIT_USAGE;
	}
	if (ctl_parse_key(argv[1], &key))
		return CTL_EXIT_USAGE;
	ret = ordo_delete(o, key);
	return ret ? ctl_fail(ret, "del") : 0;
}

/* Prints "KEY VALUE" lines; COUNT may exceed one call's limit. */
int ctl_scan(struct ordo *o, int argc, char **argv)
{
	size_t vsize = ordo_value_size(o);
	uint64_t start, count, *keys;
	unsigned char *vals;
	int ret = 0, more = 1;

	if (argc != 3) {
		fprintf(stderr, "ordoctl: usage: scan START COUNT\n");
		return CTL_EXIT_USAGE;
	}
	if (ctl_parse_key(argv[1], &start))
		return CTL_EXIT_USAGE;
	if (ctl_parse_u64(argv[2], &count) || !count) {
		fprintf(stderr, "ordoctl: bad count '%s'\n", argv[2]);
		return CTL_EXIT_USAGE;
	}
	keys = malloc(sizeof(*keys) * 4096);
	vals = malloc(vsize * 4096);
	if (!keys || !vals) {
		ret = -ENOMEM;
		goto out;
	}
	while (count && more) {
		uint32_t n = count > 4096 ? 4096 : (uint32_t)count;
		uint64_t next;
		int i;

		ret = ordo_scan(o, start, n, keys, vals, &more, &next);
		if (ret < 0)
			goto out;
		for (i = 0; i < ret; i++) {
			printf("%" PRIu64 " ", keys[i]);
			print_value(vals + (size_t)i * vsize, vsize);
			putchar('\n');
		}
		count -= (uint64_t)ret;
		start = next;
		ret = 0;
	}
out:
	free(keys);
	free(vals);
	return ret ? ctl_fail(ret, "scan") : 0;
}
