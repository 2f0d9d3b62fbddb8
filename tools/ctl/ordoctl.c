// SPDX-License-Identifier: GPL-2.0
/*
 * ordoctl - command-line client of an ordo store, local or remote, through
 * libordo only.
 *
 * Exit codes: 0 done, 1 not found / already exists, 2 usage, 3 server or
 * transport error; failures print one line on stderr.
 * Documentation/ordoctl.rst and ordoctl(1) are the contract.
 */
#include <ctype.h>
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/ordo_wire.h>

#include "ctl.h"

static const struct ctl_cmd cmds[] = {
	{ "get", "get KEY [--file F]", ctl_parse_get, ctl_get },
	{ "put", "put KEY VALUE | put KEY --file F", ctl_parse_write,
	  ctl_put },
	{ "insert", "insert KEY VALUE | insert KEY --file F", ctl_parse_write,
	  ctl_insert },
	{ "update", "update KEY VALUE | update KEY --file F", ctl_parse_write,
	  ctl_update },
	{ "del", "del KEY", ctl_parse_key_only, ctl_del },
	{ "scan", "scan START COUNT", ctl_parse_scan, ctl_scan },
	{ "stats", "stats", ctl_parse_none, ctl_stats },
	{ "load", "load --count N --dist DIST [--seed S]", ctl_parse_load,
	  ctl_load },
	{ "retrain", "retrain", ctl_parse_none, ctl_retrain },
};

#define NR_CMDS	ARRAY_SIZE(cmds)

static void print_help(void)
{
	printf(
		"usage: ordoctl [-s URI] [--token FILE] [--mode MODE]\n"
		"               [--timeout MS] CMD ...\n"
		"  URI: /dev/ordo (default, or $ORDO_URI) or rdma://HOST[:PORT]\n"
		"  --token FILE: access token of an rdma:// server (default\n"
		"                $ORDO_TOKEN)\n"
		"  --mode MODE: learned, model-only, walk or rpc (default\n"
		"               $ORDO_MODE, else learned)\n"
		"  --timeout MS: bound on each wait for an rdma:// server,\n"
		"                1 to 3600000 ms (default 5000)\n"
		"commands:\n"
		"  get KEY [--file F]   print the value of KEY, or write its\n"
		"                       raw bytes to F\n"
		"  put KEY VALUE        insert or replace\n"
		"  put KEY --file F     the same with the raw bytes of F\n"
		"  insert KEY VALUE|--file F  insert; fails if KEY exists\n"
		"  update KEY VALUE|--file F  replace; fails if KEY is absent\n"
		"  del KEY              delete\n"
		"  scan START COUNT     print up to COUNT pairs from START on\n"
		"  stats                print the store's and the client's figures\n"
		"  load --count N --dist DIST [--seed S]\n"
		"                       bulk-load N generated keys and train\n"
		"                       the model over them; DIST:\n"
		"                       %s\n"
		"  retrain              force a full retrain of the model\n"
		"KEY: decimal or 0x-hex u64.  F: a file, - for stdin/stdout.\n"
		"Exit: 0 done, 1 not found or already exists, 2 usage,\n"
		"3 server or transport error.\n",
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

int ctl_usage(const struct ctl_args *a)
{
	fprintf(stderr, "ordoctl: usage: %s\n", a->cmd->usage);
	return CTL_EXIT_USAGE;
}

/*
 * Decimal digits, or 0x and hex digits: nothing else (strtoull() alone
 * would skip blanks, take a sign, and read a leading 0 as octal: "010"
 * would name key 8).
 */
int ctl_parse_u64(const char *s, uint64_t *out)
{
	int base = 10;
	char *end;

	if ((s[0] == '0' && (s[1] == 'x' || s[1] == 'X'))) {
		base = 16;
		s += 2;
		if (!isxdigit((unsigned char)*s))
			return -1;
	} else if (!isdigit((unsigned char)*s)) {
		return -1;
	}
	errno = 0;
	*out = strtoull(s, &end, base);
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

/*
 * Split a command's arguments into positional ones and "--file F" (or
 * "--file=F"); "--" ends the options, so "put 1 -- --file" stores the
 * value "--file".  Any other argument is positional, whatever it looks like.
 */
int ctl_split(struct ctl_args *a, int argc, char **argv, int allow_file)
{
	int i, opts = 1;

	for (i = 0; i < argc; i++) {
		const char *s = argv[i];

		if (opts && i && !strcmp(s, "--")) {
			opts = 0;
			continue;
		}
		if (opts && i && (!strcmp(s, "--file") ||
				  !strncmp(s, "--file=", 7))) {
			if (!allow_file || a->file)
				return ctl_usage(a);
			if (s[6] == '=')
				a->file = s + 7;
			else if (i + 1 < argc)
				a->file = argv[++i];
			if (!a->file || !*a->file)
				return ctl_usage(a);
			continue;
		}
		if (a->npos == CTL_POS_MAX)
			return ctl_usage(a);
		a->pos[a->npos++] = s;
	}
	return 0;
}

/*
 * Read the token from @path: its bytes, one trailing newline removed.
 * At most ORDO_WIRE_TOKEN_MAX bytes, no NUL byte.  An empty file means
 * "no token".
 */
static int read_token(const char *path, char *buf)
{
	size_t n;
	FILE *f;

	f = fopen(path, "rb");
	if (!f) {
		fprintf(stderr, "ordoctl: --token %s: %s\n", path,
			strerror(errno));
		return -1;
	}
	n = fread(buf, 1, ORDO_WIRE_TOKEN_MAX + 2, f);
	if (ferror(f)) {
		fprintf(stderr, "ordoctl: --token %s: read error\n", path);
		fclose(f);
		return -1;
	}
	fclose(f);
	if (n && buf[n - 1] == '\n')
		n--;
	if (n > ORDO_WIRE_TOKEN_MAX) {
		fprintf(stderr, "ordoctl: --token %s: longer than %d bytes\n",
			path, ORDO_WIRE_TOKEN_MAX);
		return -1;
	}
	if (memchr(buf, '\0', n)) {
		fprintf(stderr, "ordoctl: --token %s: contains a NUL byte\n",
			path);
		return -1;
	}
	buf[n] = '\0';
	return 0;
}

static int parse_mode(const char *s, const char *what, enum ordo_mode *mode)
{
	if (ordo_mode_parse(s, mode)) {
		fprintf(stderr,
			"ordoctl: %s '%s': want learned, model-only, walk or rpc\n",
			what, s);
		return -1;
	}
	return 0;
}

/*
 * An absolute path, or rdma://HOST[:PORT] with HOST a name, an IPv4 address
 * or [an IPv6 address] and PORT 1..65535: what the library accepts.
 */
static int uri_ok(const char *uri)
{
	const char *h = uri + 7, *port, *end;
	unsigned long p;
	char *e;

	if (uri[0] == '/')
		return 1;
	if (strncmp(uri, "rdma://", 7))
		return 0;
	if (*h == '[') {
		end = strchr(h, ']');
		if (!end || end == h + 1 || (end[1] && end[1] != ':'))
			return 0;
		port = end[1] ? end + 2 : NULL;
	} else {
		port = strchr(h, ':');
		if (port == h || !*h)
			return 0;
		if (port)
			port++;
	}
	if (!port)
		return 1;
	if (*port < '0' || *port > '9')
		return 0;
	errno = 0;
	p = strtoul(port, &e, 10);
	return !errno && !*e && p >= 1 && p <= 65535;
}

/* --timeout MS: decimal milliseconds, 1 to an hour. */
static int parse_timeout(const char *s, uint32_t *ms)
{
	unsigned long v;
	char *e;

	errno = 0;
	v = strtoul(s, &e, 10);
	if (errno || e == s || *e || *s == '-' || v < 1 || v > 3600000) {
		fprintf(stderr,
			"ordoctl: bad --timeout '%s': want milliseconds, 1 to 3600000\n",
			s);
		return -1;
	}
	*ms = v;
	return 0;
}

int main(int argc, char **argv)
{
	static const struct option lopts[] = {
		{ "server", required_argument, NULL, 's' },
		{ "token", required_argument, NULL, 't' },
		{ "mode", required_argument, NULL, 'm' },
		{ "timeout", required_argument, NULL, 'T' },
		{ "help", no_argument, NULL, 'h' },
		{ }
	};
	char token[ORDO_WIRE_TOKEN_MAX + 2];
	struct ordo_opts opts = { .size = sizeof(opts) };
	enum ordo_mode mode = ORDO_MODE_DEFAULT;
	const char *uri = getenv("ORDO_URI");
	const char *env_mode = getenv("ORDO_MODE");
	const char *token_file = NULL;
	struct ctl_args a = { .seed = 1 };
	struct ordo *o;
	size_t i;
	int c, ret;

	if (!uri || !*uri)
		uri = "/dev/ordo";
	opterr = 0;	/* every failure is one line of ours */
	while ((c = getopt_long(argc, argv, "+s:t:m:T:h", lopts, NULL)) != -1) {
		switch (c) {
		case 's':
			uri = optarg;
			break;
		case 't':
			token_file = optarg;
			break;
		case 'm':
			if (parse_mode(optarg, "--mode", &mode))
				return CTL_EXIT_USAGE;
			break;
		case 'T':
			if (parse_timeout(optarg, &opts.timeout_ms))
				return CTL_EXIT_USAGE;
			break;
		case 'h':
			print_help();
			return CTL_EXIT_OK;
		default:
			fprintf(stderr,
				"ordoctl: bad option or missing argument: '%s' (see ordoctl --help)\n",
				argv[optind - 1]);
			return CTL_EXIT_USAGE;
		}
	}
	if (optind >= argc) {
		fprintf(stderr, "ordoctl: no command (see ordoctl --help)\n");
		return CTL_EXIT_USAGE;
	}
	for (i = 0; i < NR_CMDS; i++)
		if (!strcmp(argv[optind], cmds[i].name))
			break;
	if (i == NR_CMDS) {
		fprintf(stderr,
			"ordoctl: unknown command '%s' (see ordoctl --help)\n",
			argv[optind]);
		return CTL_EXIT_USAGE;
	}
	a.cmd = &cmds[i];
	a.uri = uri;
	ret = a.cmd->parse(&a, argc - optind, argv + optind);
	if (ret)
		return ret;

	if (!uri_ok(uri)) {
		fprintf(stderr,
			"ordoctl: bad URI '%s': want /dev/ordo or rdma://HOST[:PORT]\n",
			uri);
		return CTL_EXIT_USAGE;
	}
	/* A bad $ORDO_MODE is the caller's mistake too, not the store's. */
	if (mode == ORDO_MODE_DEFAULT && env_mode && *env_mode &&
	    parse_mode(env_mode, "$ORDO_MODE", &mode))
		return CTL_EXIT_USAGE;
	opts.mode = mode;
	if (token_file) {
		if (read_token(token_file, token))
			return CTL_EXIT_USAGE;
		opts.token = token;
	}

	o = ordo_open_opts(uri, &opts);
	if (!o) {
		fprintf(stderr, "ordoctl: %s: %s\n", uri, strerror(errno));
		return CTL_EXIT_ERROR;
	}
	ret = a.cmd->run(o, &a);
	ordo_close(o);
	return ret;
}
