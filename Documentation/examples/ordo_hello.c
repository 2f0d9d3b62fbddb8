// SPDX-License-Identifier: GPL-2.0
/*
 * ordo_hello - a complete libordo program: open a store, put, get, scan,
 * print what the handle counted, delete what it wrote.
 *
 *	cc -o ordo_hello ordo_hello.c $(pkg-config --cflags --libs libordo)
 *	./ordo_hello                      # the local store, /dev/ordo
 *	./ordo_hello rdma://10.0.0.1      # a server; token from $ORDO_TOKEN
 *
 * Exit status: 0, or 1 after a message on stderr.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <ordo.h>

#define FIRST_KEY	1000
#define NR_KEYS		3

/* Print a value: its bytes up to the zero padding. */
static void print_value(const char *val, size_t vsize)
{
	const char *end = memchr(val, '\0', vsize);

	printf("%.*s\n", (int)(end ? (size_t)(end - val) : vsize), val);
}

int main(int argc, char **argv)
{
	const char *uri = argc > 1 ? argv[1] : "/dev/ordo";
	/* Zero is "the default": mode $ORDO_MODE, token $ORDO_TOKEN. */
	struct ordo_opts opts = { .size = sizeof(opts) };
	uint64_t keys[NR_KEYS], next;
	struct ordo_counters c;
	int i, n, more, ret;
	char *val, *vals;
	size_t vsize;
	struct ordo *o;

	o = ordo_open_opts(uri, &opts);
	if (!o) {
		fprintf(stderr, "ordo_hello: %s: %s\n", uri, strerror(errno));
		return 1;
	}
	/* Every value of a store has exactly value_size bytes. */
	vsize = ordo_value_size(o);
	val = calloc(1, vsize);
	vals = calloc(NR_KEYS, vsize);
	if (!val || !vals) {
		ret = -ENOMEM;
		goto out;
	}

	/* A write takes 1..value_size bytes; the rest of the value is zero. */
	for (i = 0; i < NR_KEYS; i++) {
		char text[32];
		size_t len;

		len = snprintf(text, sizeof(text), "hello %d", i);
		ret = ordo_put(o, FIRST_KEY + i, text, len < vsize ? len : vsize);
		if (ret)
			goto out;
	}

	/* A GET copies value_size bytes; -ENOENT if the key is absent. */
	ret = ordo_get(o, FIRST_KEY + 1, val, vsize);
	if (ret)
		goto out;
	printf("get %d: ", FIRST_KEY + 1);
	print_value(val, vsize);

	/* A SCAN returns up to n pairs with key >= start, in key order. */
	n = ordo_scan(o, FIRST_KEY, NR_KEYS, keys, vals, &more, &next);
	if (n < 0) {
		ret = n;
		goto out;
	}
	for (i = 0; i < n; i++) {
		printf("scan %" PRIu64 ": ", keys[i]);
		print_value(vals + (size_t)i * vsize, vsize);
	}

	/* What this handle did: round trips, reads, fallbacks, ... */
	ret = ordo_counters(o, &c);
	if (ret)
		goto out;
	printf("mode %s: %" PRIu64 " gets, %" PRIu64 " scans, %" PRIu64
	       " writes, %" PRIu64 " round trips, %" PRIu64 " reads, %" PRIu64
	       " rpcs, %" PRIu64 " fallbacks, %" PRIu64 " cache bytes\n",
	       ordo_mode_name(ordo_mode(o)), c.gets, c.scans, c.writes,
	       c.round_trips, c.reads, c.rpcs, c.fallbacks, c.cache_bytes);

	/* Leave the store as we found it. */
	for (i = 0; i < NR_KEYS && !ret; i++)
		ret = ordo_delete(o, FIRST_KEY + i);
out:
	if (ret)
		fprintf(stderr, "ordo_hello: %s: %s\n", uri, strerror(-ret));
	free(vals);
	free(val);
	ordo_close(o);
	return ret ? 1 : 0;
}
