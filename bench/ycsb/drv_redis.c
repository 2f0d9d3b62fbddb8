// SPDX-License-Identifier: GPL-2.0
/*
 * ordo-bench: the same workload against redis-server through hiredis, with
 * the same pipelining depth: what a user would run instead.  GET/SET for
 * point operations (SET NX for inserts, SET XX for updates); a sorted set
 * of fixed-width hex keys (score 0, so it orders by bytes, which is key
 * order) for scans, which a server-side script answers with the values in
 * one round trip.  The bench starts its own redis-server and stops it.
 * Replies are checked like any server's bytes: a wrong type or size is
 * -EPROTO, never an overrun.
 */
#include <errno.h>
#include <hiredis/hiredis.h>
#include <inttypes.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include "ycsb.h"

#ifndef fallthrough
#define fallthrough	__attribute__((__fallthrough__))
#endif

#define ZSET		"ordo-bench:keys"
#define LOAD_BATCH	1000
#define TIMEOUT_S	10

static const char scan_lua[] =
	"local ks = redis.call('ZRANGEBYLEX', KEYS[1], '[' .. ARGV[1], '+', "
	"'LIMIT', 0, tonumber(ARGV[2])) "
	"local vs = {} "
	"for i, k in ipairs(ks) do vs[i] = redis.call('GET', 'k' .. k) or '' end "
	"return {ks, vs}";

static pid_t server_pid;

/* One command in flight: its operation, and whether it is the last one. */
struct cmd {
	struct bop *op;
	bool last;
};

struct rstate {
	redisContext *c;
	struct cmd *fifo;
	uint32_t cap, head, n;
	char sha[41];
	uint64_t sent;
};

static int addr_split(const char *addr, char *host, size_t hlen, int *port)
{
	const char *colon = strrchr(addr, ':');
	size_t n = colon ? (size_t)(colon - addr) : strlen(addr);

	if (!n || n >= hlen)
		return -EINVAL;
	memcpy(host, addr, n);
	host[n] = 0;
	*port = colon ? atoi(colon + 1) : 6379;
	return *port > 0 && *port < 65536 ? 0 : -EINVAL;
}

static redisContext *connect_to(const char *addr)
{
	struct timeval tv = { .tv_sec = TIMEOUT_S };
	char host[256];
	redisContext *c;
	int port;

	if (addr_split(addr, host, sizeof(host), &port))
		return NULL;
	c = redisConnectWithTimeout(host, port, tv);
	if (c && (c->err || redisSetTimeout(c, tv) != REDIS_OK)) {
		redisFree(c);
		c = NULL;
	}
	return c;
}

static void hexkey(char out[17], uint64_t k)
{
	snprintf(out, 17, "%016" PRIx64, k);
}

static int reply_errno(redisReply *r)
{
	return !r ? -EIO : r->type == REDIS_REPLY_ERROR ? -EIO : -EPROTO;
}

int redis_pid(void)
{
	return server_pid;
}

int redis_start(const struct bench_cfg *cfg)
{
	char host[256], port[8];
	redisContext *c;
	int p, i;

	if (server_pid)
		return 0;
	if (addr_split(cfg->redis_addr, host, sizeof(host), &p))
		return -EINVAL;
	c = connect_to(cfg->redis_addr);
	if (c) {
		redisFree(c);
		fprintf(stderr, "ordo-bench: something already listens on %s; "
			"the bench starts its own redis-server\n",
			cfg->redis_addr);
		return -EADDRINUSE;
	}
	snprintf(port, sizeof(port), "%d", p);
	server_pid = fork();
	if (server_pid < 0) {
		server_pid = 0;
		return -errno;
	}
	if (!server_pid) {
		freopen("/dev/null", "w", stdout);
		execlp("redis-server", "redis-server", "--bind", host,
		       "--port", port, "--save", "", "--appendonly", "no",
		       "--protected-mode", "no", "--dir", "/tmp",
		       "--daemonize", "no", (char *)NULL);
		fprintf(stderr, "ordo-bench: cannot run redis-server (make deps "
			"installs it)\n");
		_exit(127);
	}
	for (i = 0; i < 200; i++) {
		int st;

		c = connect_to(cfg->redis_addr);
		if (c) {
			redisFree(c);
			return 0;
		}
		if (waitpid(server_pid, &st, WNOHANG) == server_pid) {
			server_pid = 0;
			return -ENOENT;
		}
		usleep(50000);
	}
	redis_stop();
	return -ETIMEDOUT;
}

void redis_stop(void)
{
	if (!server_pid)
		return;
	kill(server_pid, SIGTERM);
	waitpid(server_pid, NULL, 0);
	server_pid = 0;
}

/* Read @n replies that must be OK/integers; 0 or -errno. */
static int expect_ok(redisContext *c, uint32_t n)
{
	redisReply *r;

	while (n--) {
		int bad;

		if (redisGetReply(c, (void **)&r) != REDIS_OK)
			return -EIO;
		bad = r->type == REDIS_REPLY_ERROR;
		freeReplyObject(r);
		if (bad)
			return -EIO;
	}
	return 0;
}

int redis_load(const struct bench_cfg *cfg, const uint64_t *keys, uint64_t n)
{
	redisContext *c = connect_to(cfg->redis_addr);
	static char kbuf[LOAD_BATCH][18], mbuf[LOAD_BATCH][17];
	const char *zargv[2 + 2 * LOAD_BATCH];
	size_t zlen[2 + 2 * LOAD_BATCH];
	uint8_t *val = calloc(1, cfg->value_size);
	uint64_t done = 0;
	int ret = c && val ? 0 : -ENOMEM;

	while (!ret && done < n) {
		uint32_t b = n - done > LOAD_BATCH ? LOAD_BATCH :
			     (uint32_t)(n - done), i;

		zargv[0] = "ZADD";
		zargv[1] = ZSET;
		zlen[0] = 4;
		zlen[1] = strlen(ZSET);
		for (i = 0; i < b; i++) {
			const char *argv[3] = { "SET", kbuf[i], (char *)val };
			size_t len[3] = { 3, 17, cfg->value_size };

			kbuf[i][0] = 'k';
			hexkey(kbuf[i] + 1, keys[done + i]);
			hexkey(mbuf[i], keys[done + i]);
			fill_value(val, cfg->value_size, keys[done + i]);
			redisAppendCommandArgv(c, 3, argv, len);
			zargv[2 + 2 * i] = "0";
			zlen[2 + 2 * i] = 1;
			zargv[3 + 2 * i] = mbuf[i];
			zlen[3 + 2 * i] = 16;
		}
		redisAppendCommandArgv(c, 2 + 2 * b, zargv, zlen);
		ret = expect_ok(c, b + 1);
		done += b;
		if (!cfg->quiet)
			progress("redis load", done, n);
	}
	free(val);
	if (c)
		redisFree(c);
	return ret;
}

static struct rstate *rs(struct worker *w)
{
	return w->drv;
}

static int redis_drv_open(struct worker *w)
{
	struct rstate *s = calloc(1, sizeof(*s));
	redisReply *r;

	if (!s)
		return -ENOMEM;
	s->cap = 2 * w->run->cfg->depth + 2;
	s->fifo = calloc(s->cap, sizeof(*s->fifo));
	s->c = connect_to(w->run->cfg->redis_addr);
	w->drv = s;
	if (!s->fifo || !s->c)
		return s->fifo ? -ECONNREFUSED : -ENOMEM;
	r = redisCommand(s->c, "SCRIPT LOAD %s", scan_lua);
	if (!r || r->type != REDIS_REPLY_STRING || r->len != 40) {
		int ret = reply_errno(r);

		if (r)
			freeReplyObject(r);
		return ret;
	}
	memcpy(s->sha, r->str, 40);
	freeReplyObject(r);
	return 0;
}

static void push(struct rstate *s, struct bop *op, bool last)
{
	s->fifo[(s->head + s->n++) % s->cap] = (struct cmd){ op, last };
	s->sent++;
}

static int redis_drv_start(struct worker *w, struct bop *op)
{
	struct rstate *s = rs(w);
	uint32_t vs = w->run->cfg->value_size;
	char key[18], mem[17], cnt[12];

	if (s->n + 2 > s->cap)
		return -EBUSY;
	op->w = w;
	key[0] = 'k';
	hexkey(key + 1, op->key);
	hexkey(mem, op->key);
	switch (op->kind) {
	case OP_RMW:
		if (op->second)
			goto update;
		/* fall through */
	case OP_READ:
		redisAppendCommand(s->c, "GET %b", key, (size_t)17);
		push(s, op, true);
		break;
	case OP_UPDATE:
update:
		fill_value(op->val, vs, op->key ^ now_ns());
		redisAppendCommand(s->c, "SET %b %b XX", key, (size_t)17,
				   op->val, (size_t)vs);
		push(s, op, true);
		break;
	case OP_INSERT:
		fill_value(op->val, vs, op->key);
		redisAppendCommand(s->c, "SET %b %b NX", key, (size_t)17,
				   op->val, (size_t)vs);
		push(s, op, false);
		redisAppendCommand(s->c, "ZADD %s 0 %b", ZSET, mem, (size_t)16);
		push(s, op, true);
		break;
	case OP_SCAN:
		snprintf(cnt, sizeof(cnt), "%u", op->count);
		redisAppendCommand(s->c, "EVALSHA %s 1 %s %b %s", s->sha, ZSET,
				   mem, (size_t)16, cnt);
		push(s, op, true);
		break;
	}
	return 0;
}

/* A scan's reply: {keys, values}, ascending, at most count. */
static int scan_reply(struct worker *w, struct bop *op, redisReply *r)
{
	redisReply *k, *v;
	size_t i;

	if (r->type != REDIS_REPLY_ARRAY || r->elements != 2)
		return reply_errno(r);
	k = r->element[0];
	v = r->element[1];
	if (k->type != REDIS_REPLY_ARRAY || v->type != REDIS_REPLY_ARRAY ||
	    k->elements != v->elements || k->elements > op->count)
		return -EPROTO;
	for (i = 0; i < k->elements; i++) {
		redisReply *e = k->element[i];
		char *end;

		if (e->type != REDIS_REPLY_STRING || e->len != 16)
			return -EPROTO;
		op->keys[i] = strtoull(e->str, &end, 16);
		if (end != e->str + 16 || (i && op->keys[i] <= op->keys[i - 1]))
			return -EPROTO;
		e = v->element[i];
		if (e->type != REDIS_REPLY_STRING ||
		    e->len > w->run->cfg->store_vsize)
			return -EPROTO;
		memcpy(op->val + i * w->run->cfg->store_vsize, e->str, e->len);
	}
	return (int)k->elements;
}

static int decode(struct worker *w, struct bop *op, redisReply *r)
{
	if (r->type == REDIS_REPLY_ERROR)
		return -EIO;
	switch (op->kind) {
	case OP_SCAN:
		return scan_reply(w, op, r);
	case OP_READ:
	case OP_RMW:
		if (op->kind == OP_READ || !op->second) {
			if (r->type == REDIS_REPLY_NIL)
				return -ENOENT;
			if (r->type != REDIS_REPLY_STRING ||
			    r->len > w->run->cfg->store_vsize)
				return -EPROTO;
			memcpy(op->val, r->str, r->len);
			return 0;
		}
		/* The RMW's update. */
		fallthrough;
	case OP_UPDATE:
	case OP_INSERT:
		if (r->type == REDIS_REPLY_NIL)
			return op->kind == OP_INSERT ? -EEXIST : -ENOENT;
		return r->type == REDIS_REPLY_STATUS ||
		       r->type == REDIS_REPLY_INTEGER ? 0 : -EPROTO;
	}
	return -EPROTO;
}

/* One reply (waiting for it), then every one already buffered. */
static int redis_drv_poll(struct worker *w)
{
	struct rstate *s = rs(w);
	int done = 0;
	bool wait = true;

	while (s->n) {
		struct cmd *cm = &s->fifo[s->head];
		redisReply *r = NULL;
		int res;

		if (wait) {
			if (redisGetReply(s->c, (void **)&r) != REDIS_OK)
				return -EIO;
			wait = false;
		} else if (redisGetReplyFromReader(s->c, (void **)&r) !=
			   REDIS_OK) {
			return -EIO;
		}
		if (!r)
			break;
		res = decode(w, cm->op, r);
		freeReplyObject(r);
		s->head = (s->head + 1) % s->cap;
		s->n--;
		/* An insert's result is its SET's; the ZADD must not fail. */
		if (!cm->last) {
			cm->op->result = res;
			continue;
		}
		if (cm->op->kind != OP_INSERT || res < 0)
			cm->op->result = res;
		worker_done(w, cm->op);
		done++;
	}
	return done;
}

static int redis_drv_drain(struct worker *w)
{
	while (rs(w)->n) {
		int ret = redis_drv_poll(w);

		if (ret < 0)
			return ret;
	}
	return 0;
}

static void redis_drv_counters(struct worker *w, struct ordo_counters *c)
{
	struct rstate *s = rs(w);

	*c = (struct ordo_counters){ 0 };
	/* Every command is a request and a reply: a round trip, an RPC. */
	c->rpcs = s->sent;
	c->round_trips = s->sent;
}

static void redis_drv_close(struct worker *w)
{
	struct rstate *s = rs(w);

	if (!s)
		return;
	if (s->c)
		redisFree(s->c);
	free(s->fifo);
	free(s);
	w->drv = NULL;
}

const struct driver drv_redis = {
	.open = redis_drv_open,
	.start = redis_drv_start,
	.poll = redis_drv_poll,
	.drain = redis_drv_drain,
	.counters = redis_drv_counters,
	.close = redis_drv_close,
};
