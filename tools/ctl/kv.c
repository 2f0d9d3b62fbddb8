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
 * Values are printed as their stored bytes, exactly their length; bytes
 * that are not printable ASCII (and backslash) are escaped as \xNN, so
 * binary values stay on one line.
 */
static void print_value(const unsigned char *v, size_t size)
{
	size_t i;

	for (i = 0; i < size; i++) {
		if (v[i] >= 0x20 && v[i] < 0x7f && v[i] != '\\')
			putchar(v[i]);
		else
			printf("\\x%02x", v[i]);
	}
}

/* Commands of one KEY and nothing else: del. */
int ctl_parse_key_only(struct ctl_args *a, int argc, char **argv)
{
	if (ctl_split(a, argc, argv, 0))
		return CTL_EXIT_USAGE;
	if (a->npos != 2)
		return ctl_usage(a);
	return ctl_parse_key(a->pos[1], &a->key) ? CTL_EXIT_USAGE : 0;
}

/* get KEY [--file F] */
int ctl_parse_get(struct ctl_args *a, int argc, char **argv)
{
	if (ctl_split(a, argc, argv, 1))
		return CTL_EXIT_USAGE;
	if (a->npos != 2)
		return ctl_usage(a);
	return ctl_parse_key(a->pos[1], &a->key) ? CTL_EXIT_USAGE : 0;
}

/* put|insert|update KEY VALUE, or KEY --file F */
int ctl_parse_write(struct ctl_args *a, int argc, char **argv)
{
	if (ctl_split(a, argc, argv, 1))
		return CTL_EXIT_USAGE;
	if (a->npos != (a->file ? 2 : 3))
		return ctl_usage(a);
	return ctl_parse_key(a->pos[1], &a->key) ? CTL_EXIT_USAGE : 0;
}

/* scan START COUNT */
int ctl_parse_scan(struct ctl_args *a, int argc, char **argv)
{
	if (ctl_split(a, argc, argv, 0))
		return CTL_EXIT_USAGE;
	if (a->npos != 3)
		return ctl_usage(a);
	if (ctl_parse_key(a->pos[1], &a->key))
		return CTL_EXIT_USAGE;
	if (ctl_parse_u64(a->pos[2], &a->count) || !a->count) {
		fprintf(stderr, "ordoctl: bad count '%s'\n", a->pos[2]);
		return CTL_EXIT_USAGE;
	}
	return 0;
}

/* Commands without arguments: stats, retrain. */
int ctl_parse_none(struct ctl_args *a, int argc, char **argv)
{
	(void)argv;
	return argc == 1 ? 0 : ctl_usage(a);
}

/*
 * Write the @n raw bytes of a value to @path ("-": stdout).  Problems with
 * the file are the caller's (exit 2), not the store's.
 */
static int write_value(const char *path, const void *buf, size_t n)
{
	int std = !strcmp(path, "-");
	FILE *f = std ? stdout : fopen(path, "wb");
	int ok;

	if (!f) {
		fprintf(stderr, "ordoctl: %s: %s\n", path, strerror(errno));
		return CTL_EXIT_USAGE;
	}
	ok = fwrite(buf, 1, n, f) == n;
	if (std)
		ok = !fflush(f) && ok;
	else
		ok = !fclose(f) && ok;
	if (!ok) {
		fprintf(stderr, "ordoctl: %s: write error: %s\n", path,
			strerror(errno));
		return CTL_EXIT_USAGE;
	}
	return 0;
}

/*
 * Read a value from @path ("-": stdin): 0..@vmax bytes, more is an error.
 * @buf has room for @vmax + 1 bytes.
 */
static int read_value(const char *path, void *buf, size_t vmax,
		      size_t *len)
{
	int std = !strcmp(path, "-");
	FILE *f = std ? stdin : fopen(path, "rb");
	int err;

	if (!f) {
		fprintf(stderr, "ordoctl: %s: %s\n", path, strerror(errno));
		return CTL_EXIT_USAGE;
	}
	*len = fread(buf, 1, vmax + 1, f);
	err = ferror(f);
	if (!std)
		fclose(f);
	if (err) {
		fprintf(stderr, "ordoctl: %s: read error\n", path);
		return CTL_EXIT_USAGE;
	}
	if (*len > vmax) {
		fprintf(stderr,
			"ordoctl: %s: longer than the store's longest value "
			"(%zu bytes)\n", path, vmax);
		return CTL_EXIT_USAGE;
	}
	return 0;
}

/*
 * GET into a buffer of the value's size: value_size bytes first, and
 * again with the length -ENOBUFS tells (a value may change in between).
 * *@val is the caller's to free.
 */
static int get_alloc(struct ordo *o, uint64_t key, unsigned char **val,
		     size_t *len)
{
	size_t cap = ordo_value_size(o);
	int ret, tries;

	*val = NULL;
	for (tries = 0; tries < 8; tries++) {
		unsigned char *b = realloc(*val, cap);

		if (!b)
			return -ENOMEM;
		*val = b;
		ret = ordo_get_len(o, key, b, cap, len);
		if (ret != -ENOBUFS)
			return ret;
		if (*len > cap)
			cap = *len;
	}
	return ret;
}

/* get KEY: the value as text; get KEY --file F: its bytes, raw. */
int ctl_get(struct ordo *o, struct ctl_args *a)
{
	unsigned char *val;
	size_t len;
	int ret;

	ret = get_alloc(o, a->key, &val, &len);
	if (ret) {
		ret = ctl_fail(ret, "get");
	} else if (a->file) {
		/* Only now: a missing key leaves F untouched. */
		ret = write_value(a->file, val, len);
	} else {
		print_value(val, len);
		putchar('\n');
	}
	free(val);
	return ret;
}

static int kv_write(struct ordo *o, struct ctl_args *a,
		    int (*op)(struct ordo *, uint64_t, const void *, size_t))
{
	size_t vmax = ordo_value_max(o), len;
	unsigned char *buf = NULL;
	const void *val;
	int ret;

	if (a->file) {
		buf = malloc(vmax + 1);
		if (!buf)
			return ctl_fail(-ENOMEM, a->cmd->name);
		ret = read_value(a->file, buf, vmax, &len);
		if (ret)
			goto out;
		val = buf;
	} else {
		val = a->pos[2];
		len = strlen(a->pos[2]);
		if (len > vmax) {
			fprintf(stderr, "ordoctl: value must be 0..%zu bytes\n",
				vmax);
			return CTL_EXIT_USAGE;
		}
	}
	ret = op(o, a->key, val, len);
	if (ret)
		ret = ctl_fail(ret, a->cmd->name);
out:
	free(buf);
	return ret;
}

int ctl_put(struct ordo *o, struct ctl_args *a)
{
	return kv_write(o, a, ordo_put);
}

int ctl_insert(struct ordo *o, struct ctl_args *a)
{
	return kv_write(o, a, ordo_insert);
}

int ctl_update(struct ordo *o, struct ctl_args *a)
{
	return kv_write(o, a, ordo_update);
}

int ctl_del(struct ordo *o, struct ctl_args *a)
{
	int ret = ordo_delete(o, a->key);

	return ret ? ctl_fail(ret, "del") : 0;
}

/*
 * A pair of a SCAN: a value longer than value_size comes by length only,
 * so its bytes are a GET's (a key deleted since is left out).
 */
static int print_pair(struct ordo *o, uint64_t key, const unsigned char *v,
		      uint32_t len)
{
	unsigned char *big;
	size_t blen;
	int ret;

	if (len <= ordo_value_size(o)) {
		printf("%" PRIu64 " ", key);
		print_value(v, len);
		putchar('\n');
		return 0;
	}
	ret = get_alloc(o, key, &big, &blen);
	if (!ret) {
		printf("%" PRIu64 " ", key);
		print_value(big, blen);
		putchar('\n');
	}
	free(big);
	return ret == -ENOENT ? 0 : ret;
}

/* Prints "KEY VALUE" lines; COUNT may exceed one call's limit. */
int ctl_scan(struct ordo *o, struct ctl_args *a)
{
	size_t vsize = ordo_value_size(o);
	uint64_t start = a->key, count = a->count, *keys;
	unsigned char *vals;
	int ret = 0, more = 1;
	uint32_t *lens;

	keys = malloc(sizeof(*keys) * 4096);
	vals = malloc(vsize * 4096);
	lens = malloc(sizeof(*lens) * 4096);
	if (!keys || !vals || !lens) {
		ret = -ENOMEM;
		goto out;
	}
	while (count && more) {
		uint32_t n = count > 4096 ? 4096 : (uint32_t)count;
		uint64_t next;
		int i;

		ret = ordo_scan_len(o, start, n, keys, vals, lens, &more,
				    &next);
		if (ret < 0)
			goto out;
		n = (uint32_t)ret;
		for (i = 0; i < (int)n; i++) {
			ret = print_pair(o, keys[i],
					 vals + (size_t)i * vsize, lens[i]);
			if (ret)
				goto out;
		}
		ret = (int)n;
		count -= (uint64_t)ret;
		start = next;
		ret = 0;
	}
out:
	free(keys);
	free(vals);
	free(lens);
	return ret ? ctl_fail(ret, "scan") : 0;
}
