// SPDX-License-Identifier: GPL-2.0
/*
 * libordo's upload of long values (STAGE parts, then the write of the
 * staged value) against a scripted server, natively (ASan, UBSan).  The
 * transport below is fake: a send is queued, and each wait is one round
 * trip in which the server answers everything queued, so the server
 * counts the handle's round trips itself.
 *
 * - The parts go out in waves of up to RLONG_WAVE (fewer with fewer
 *   credits), the write with the last wave: a 1 MiB value over 4 KiB
 *   messages is 260 requests in 17 round trips, not 260.
 * - A failed part ends the upload with its own status (the parts and the
 *   write after it fail EINVAL on the server), after the wave's last
 *   reply, and no wave follows it.
 * - Replies of a wave in any order, the write's before its parts': the
 *   operation ends with the last of them.
 * - Two uploads of one handle take turns with the connection's one
 *   staged value; a part answered twice or with a body is refused.
 *
 * rdma.c is included, not linked, for its backend table; the verbs side
 * (rdma_conn.c) is replaced by the fake.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core_test.h"
#include "../../libshim/rdma.c"

#define MSG	4096		/* the server's message bound */
#define QMAX	64
#define VAL_MAX	(1u << 20)

/* ---- the scripted server ---- */

static struct {
	uint8_t q[QMAX][MSG];	/* requests sent, not yet answered */
	uint32_t qlen[QMAX];
	uint32_t nq;
	uint32_t inflight_max;
	uint32_t round_trips;
	uint32_t stage_reqs;
	bool reverse;		/* answer a round trip's requests last first */
	int fail_part;		/* STAGE request number to fail ENOMEM, or -1 */
	bool dup_part;		/* answer the first part twice */
	bool part_body;		/* answer the first part with 8 bytes of body */
	uint8_t *staged;
	uint32_t total, have;
	uint64_t ref;		/* the stored value's extent reference */
	uint32_t get_parts;	/* GETs of parts served */
	int change_after;	/* GETs served, then the value is replaced */
	int delete_after;	/* GETs served, then the key is deleted */
	bool short_part;	/* one part 8 bytes short of what it must be */
	uint64_t key;		/* the last value stored */
	uint8_t *val;
	uint32_t vlen;
	uint32_t writes;
} srv;

static uint8_t *send_bufs;

uint8_t *rconn_send_buf(struct rdma_be *r, uint32_t slot)
{
	return send_bufs + (size_t)slot * r->max_msg;
}

int rconn_post_send_at(struct rdma_be *r, uint32_t slot, uint32_t off,
		       uint32_t len)
{
	if (srv.nq == QMAX || off + len > MSG)
		abort();
	memcpy(srv.q[srv.nq], rconn_send_buf(r, slot) + off, len);
	srv.qlen[srv.nq++] = len;
	if (srv.nq > srv.inflight_max)
		srv.inflight_max = srv.nq;
	return 0;
}

int rconn_post_send(struct rdma_be *r, uint32_t slot, uint32_t len)
{
	return rconn_post_send_at(r, slot, 0, len);
}

uint8_t *rconn_recv_buf(struct rdma_be *r, uint32_t i)
{
	return NULL;
}

uint8_t *rconn_bulk_buf(struct ordo *o)
{
	return NULL;
}

int rconn_post_recv(struct rdma_be *r, uint32_t i)
{
	return -EIO;
}

int rconn_post_reads(struct ordo *o, struct shim_op *op,
		     const uint32_t *rkeys)
{
	return -EIO;
}

int rconn_post_bulk(struct ordo *o, uint64_t off, uint32_t len,
		    uint32_t rkey)
{
	return -EIO;
}

int rconn_connect(struct ordo *o)
{
	return -ECONNREFUSED;
}

void rconn_close(struct rdma_be *r)
{
}

static void drop_staged(void)
{
	free(srv.staged);
	srv.staged = NULL;
	srv.total = srv.have = 0;
}

/* A STAGE request, checked as Documentation/wire.rst says (in short). */
static uint32_t serve_stage(const uint8_t *b, uint32_t blen)
{
	const struct ordo_wire_stage *s = (const void *)b;
	uint32_t total = le32toh(s->total), off = le32toh(s->offset);
	uint32_t len = le32toh(s->len);

	if (srv.fail_part == (int)srv.stage_reqs++) {
		drop_staged();
		return ORDO_WIRE_ENOMEM;
	}
	if (blen != sizeof(*s) + ordo_wire_pad8(len) || !len ||
	    total > VAL_MAX || off + len > total)
		goto inval;
	if (!off) {
		drop_staged();
		srv.staged = malloc(total);
		srv.total = total;
	} else if (!srv.staged || total != srv.total || off != srv.have) {
		goto inval;
	}
	memcpy(srv.staged + off, s + 1, len);
	srv.have += len;
	return 0;
inval:
	drop_staged();
	return ORDO_WIRE_EINVAL;
}

/* A GET (of a part, with KV_PART): the stored value from its offset. */
static uint32_t serve_get(const uint8_t *b, uint32_t blen, uint8_t *rep,
			  uint32_t *rlen)
{
	const struct ordo_wire_kv *kv = (const void *)b;
	struct ordo_wire_part *w = (void *)(rep + sizeof(struct ordo_wire_hdr));
	uint32_t off = kv->flags & ORDO_WIRE_KV_PART ? le32toh(kv->arg) : 0;
	uint32_t n, max = MSG - 48;

	if ((int)srv.get_parts == srv.change_after) {
		uint32_t i;

		for (i = 0; i < srv.vlen; i++)
			srv.val[i] ^= 0x5a;
		srv.ref++;
	}
	if ((int)srv.get_parts++ == srv.delete_after)
		srv.key = 0;
	if (blen != sizeof(*kv) || !srv.val || le64toh(kv->key) != srv.key)
		return ORDO_WIRE_ENOENT;
	n = off < srv.vlen ? srv.vlen - off : 0;
	if (n > max)
		n = max;
	if (srv.short_part && off && n == max) {
		srv.short_part = false;
		n -= 8;
	}
	w->ref = htole64(srv.ref);
	w->len = htole32(srv.vlen);
	w->offset = htole32(off);
	w->returned = htole32(n);
	w->units = htole32(ordo_extent_units(srv.vlen));
	memcpy(w + 1, srv.val + off, n);
	*rlen = sizeof(*w) + n;
	return 0;
}

/* The write of the staged value. */
static uint32_t serve_write(const uint8_t *b, uint32_t blen)
{
	const struct ordo_wire_kv *kv = (const void *)b;
	uint32_t st = ORDO_WIRE_EINVAL;

	if (blen == sizeof(*kv) && kv->flags == ORDO_WIRE_KV_STAGED &&
	    srv.staged && srv.have == srv.total &&
	    le32toh(kv->arg) == srv.total) {
		free(srv.val);
		srv.val = srv.staged;
		srv.vlen = srv.total;
		srv.key = le64toh(kv->key);
		srv.ref++;
		srv.staged = NULL;
		srv.writes++;
		st = 0;
	}
	drop_staged();
	return st;
}

static uint8_t reps[QMAX][MSG];

/* Deliver reply @msg to request @q: status @st, @body bytes of body. */
static void reply(struct ordo *o, uint8_t *msg, const struct ordo_wire_hdr *q,
		  uint32_t st, uint32_t body)
{
	struct ordo_wire_hdr *h = (void *)msg;

	h->id = q->id;
	h->version = ORDO_WIRE_VERSION;
	h->op = q->op;
	h->flags = htole16(body && q->op == ORDO_WIRE_OP_GET ?
			   ORDO_WIRE_F_PART : 0);
	h->status = htole32(st);
	h->length = htole32(sizeof(*h) + body);
	rdma_on_reply(o, msg, sizeof(*h) + body);
	rdma_on_recv_posted(o);
}

/*
 * One round trip: execute every request queued, in order, then deliver
 * the replies (requests sent from a reply wait for the next one).
 */
int rconn_poll(struct ordo *o, int ms)
{
	struct ordo_wire_hdr hs[QMAX];
	uint32_t st[QMAX], body[QMAX], n = srv.nq, i;

	if (!n)
		return -ETIMEDOUT;
	srv.round_trips++;
	for (i = 0; i < n; i++) {
		const struct ordo_wire_hdr *h = (const void *)srv.q[i];
		const uint8_t *b = (const uint8_t *)(h + 1);
		uint32_t blen = srv.qlen[i] - sizeof(*h);

		hs[i] = *h;
		body[i] = 0;
		memset(reps[i], 0, sizeof(struct ordo_wire_hdr));
		if (h->op == ORDO_WIRE_OP_STAGE)
			st[i] = serve_stage(b, blen);
		else if (h->op == ORDO_WIRE_OP_GET)
			st[i] = serve_get(b, blen, reps[i], &body[i]);
		else
			st[i] = serve_write(b, blen);
	}
	srv.nq = 0;
	for (i = 0; i < n; i++) {
		uint32_t k = srv.reverse ? n - 1 - i : i;
		bool first = hs[k].op == ORDO_WIRE_OP_STAGE &&
			     srv.stage_reqs - n + k == 0;

		reply(o, reps[k], &hs[k], st[k],
		      first && srv.part_body ? 8 : body[k]);
		if (first && srv.dup_part)
			reply(o, reps[k], &hs[k], st[k], 0);
	}
	return (int)n;
}

/* ---- the handle ---- */

static struct ordo *handle(uint32_t credits, uint32_t qd)
{
	struct ordo *o = calloc(1, sizeof(*o));
	struct rdma_be *r = calloc(1, sizeof(*r));
	size_t per;

	if (!o || !r || ordo_geo_init(&o->geo, 16, 64))
		abort();
	o->fd = -1;
	o->be = &rdma_backend;
	o->priv = r;
	o->mode = ORDO_MODE_RPC;
	o->opts.timeout_ms = 60000;
	o->opts.flags = ORDO_OPT_PRIVATE_CACHE;
	o->qd = qd;
	o->sup.geo = o->geo;
	o->sup.chunk_size = 2 << 20;
	r->credits = r->avail = credits;
	r->max_msg = MSG;
	r->rep.value_max = htole32(VAL_MAX);
	r->pool_chunks = UINT32_MAX;
	r->pend = calloc(qd, sizeof(*r->pend));
	per = shim_slot_bytes(&o->geo);
	send_bufs = calloc(qd + 1 + RLONG_WAVE, MSG);
	if (!r->pend || !send_bufs || rlong_init(o) ||
	    shim_slots_init(o, calloc(qd, per), per) || !o->ops[0].buf)
		abort();
	rlong_reset(o);
	memset(&srv, 0, sizeof(srv));
	srv.fail_part = srv.change_after = srv.delete_after = -1;
	return o;
}

static void handle_free(struct ordo *o)
{
	struct rdma_be *r = rbe(o);

	free(o->ops[0].buf);
	free(o->ops);
	free(r->pend);
	rlong_free(r);
	free(r);
	free(o);
	free(send_bufs);
	drop_staged();
	free(srv.val);
	srv.val = NULL;
}

static uint8_t *value(uint32_t len, uint32_t seed)
{
	uint8_t *v = malloc(len);
	uint32_t i;

	for (i = 0; i < len; i++)
		v[i] = (uint8_t)(i * 7 + (i >> 9) + seed);
	return v;
}

static uint32_t parts_of(uint32_t len)
{
	uint32_t p = shim_stage_part_max(MSG);

	return (len + p - 1) / p;
}

/* 1 MiB: every part and the write, in waves of RLONG_WAVE. */
static int one_mib_in_waves(void)
{
	struct ordo *o = handle(32, 4);
	uint8_t *v = value(VAL_MAX, 1);
	uint32_t parts = parts_of(VAL_MAX), waves;
	struct ordo_counters c;

	CHECK_EQ(ordo_put(o, 42, v, VAL_MAX), 0);
	CHECK_EQ(srv.writes, 1);
	CHECK_EQ(srv.key, 42);
	CHECK_EQ(srv.vlen, VAL_MAX);
	CHECK_EQ(memcmp(srv.val, v, VAL_MAX), 0);
	waves = (parts + RLONG_WAVE - 1) / RLONG_WAVE;
	printf("# 1 MiB over %u-byte messages: %u parts and the write, "
	       "%u round trips (one a request before)\n", MSG, parts,
	       srv.round_trips);
	CHECK_EQ(parts, 259);
	/* The write rides with the last wave when that has room. */
	CHECK_EQ(srv.round_trips, parts % RLONG_WAVE ? waves : waves + 1);
	CHECK_EQ(srv.inflight_max, RLONG_WAVE);
	ordo_counters(o, &c);
	CHECK_EQ(c.round_trips, srv.round_trips);
	CHECK_EQ(c.rpcs, parts + 1);
	CHECK_EQ(c.writes, 1);
	free(v);
	handle_free(o);
	return 0;
}

/* The handle's count of round trips is the server's. */
static int put_counted(struct ordo *o, uint64_t key, const uint8_t *v,
		       uint32_t len)
{
	struct ordo_counters c;

	CHECK_EQ(ordo_put(o, key, v, len), 0);
	CHECK_EQ(memcmp(srv.val, v, len), 0);
	ordo_counters(o, &c);
	CHECK_EQ(c.round_trips, srv.round_trips);
	return 0;
}

/*
 * Credits bound a wave; a value of two parts is one round trip.  A wave
 * that takes every credit leaves the write waiting for one: it goes
 * after the wave's first reply, a round trip more, and counts as one.
 */
static int waves_follow_credits(void)
{
	struct ordo *o = handle(3, 4);
	uint32_t len = 40000, parts = parts_of(len);
	uint8_t *v = value(16 * shim_stage_part_max(MSG), 2);

	CHECK_EQ(put_counted(o, 7, v, len), 0);
	CHECK_EQ(srv.inflight_max, 3);
	/* Three requests a round trip: the parts, then the write. */
	CHECK_EQ(srv.round_trips, (parts + 1 + 2) / 3);
	handle_free(o);

	o = handle(32, 4);
	len = shim_stage_part_max(MSG) + 1;
	CHECK_EQ(put_counted(o, 8, v, len), 0);
	CHECK_EQ(srv.round_trips, 1);
	CHECK_EQ(srv.inflight_max, 3);
	handle_free(o);

	o = handle(16, 4);
	len = 16 * shim_stage_part_max(MSG);
	CHECK_EQ(put_counted(o, 9, v, len), 0);
	CHECK_EQ(srv.round_trips, 2);
	CHECK_EQ(srv.inflight_max, 16);
	free(v);
	handle_free(o);
	return 0;
}

/* Part 20 fails: the upload's status is its, after the whole wave. */
static int failed_part_ends_the_upload(void)
{
	struct ordo *o = handle(32, 4);
	uint8_t *v = value(VAL_MAX, 3);
	struct ordo_counters c;

	srv.fail_part = 20;
	CHECK_EQ(ordo_put(o, 9, v, VAL_MAX), -ENOMEM);
	CHECK_EQ(srv.writes, 0);
	/* Its wave (parts 16..31) was answered; no wave went after it. */
	CHECK_EQ(srv.stage_reqs, 2 * RLONG_WAVE);
	CHECK_EQ(srv.round_trips, 2);
	CHECK_EQ(srv.nq, 0);
	ordo_counters(o, &c);
	CHECK_EQ(c.rpcs, 2 * RLONG_WAVE);
	/* The handle stages again. */
	srv.fail_part = -1;
	CHECK_EQ(ordo_put(o, 9, v, 100000), 0);
	CHECK_EQ(srv.vlen, 100000);
	CHECK_EQ(memcmp(srv.val, v, 100000), 0);
	free(v);
	handle_free(o);
	return 0;
}

/*
 * The last wave's failed part: its write was sent with it and fails
 * EINVAL on the server; the upload still says ENOMEM.  Replies come last
 * first, so the write's reply comes before its parts'.
 */
static int write_with_the_failed_wave(void)
{
	struct ordo *o = handle(32, 4);
	uint32_t len = 50000, parts = parts_of(len);
	uint8_t *v = value(len, 4);

	srv.reverse = true;
	srv.fail_part = (int)parts - 2;
	CHECK_EQ(ordo_put(o, 10, v, len), -ENOMEM);
	CHECK_EQ(srv.round_trips, 1);
	CHECK_EQ(srv.writes, 0);
	srv.fail_part = -1;
	CHECK_EQ(ordo_put(o, 10, v, len), 0);
	CHECK_EQ(srv.writes, 1);
	CHECK_EQ(memcmp(srv.val, v, len), 0);
	free(v);
	handle_free(o);
	return 0;
}

static unsigned int done;

static void cb(struct ordo_req *r)
{
	done++;
}

/* Two uploads in flight on one handle take turns; both land whole. */
static int uploads_take_turns(void)
{
	struct ordo *o = handle(32, 4);
	uint32_t la = 300000, lb = 70000;
	uint8_t *va = value(la, 5), *vb = value(lb, 6);
	struct ordo_req a = { .op = ORDO_OP_PUT, .key = 1, .val = va,
			      .len = la, .cb = cb };
	struct ordo_req b = { .op = ORDO_OP_PUT, .key = 2, .val = vb,
			      .len = lb, .cb = cb };

	done = 0;
	CHECK_EQ(ordo_submit(o, &a), 0);
	CHECK_EQ(ordo_submit(o, &b), 0);
	while (done < 1)
		CHECK(ordo_poll(o, 1, 1000) >= 0);
	/* a first: stored whole before b staged anything over it. */
	CHECK_EQ(a.result, 0);
	CHECK_EQ(srv.key, 1);
	CHECK_EQ(memcmp(srv.val, va, la), 0);
	while (done < 2)
		CHECK(ordo_poll(o, 1, 1000) >= 0);
	CHECK_EQ(b.result, 0);
	CHECK_EQ(srv.key, 2);
	CHECK_EQ(srv.vlen, lb);
	CHECK_EQ(memcmp(srv.val, vb, lb), 0);
	CHECK_EQ(srv.writes, 2);
	free(va);
	free(vb);
	handle_free(o);
	return 0;
}

/* A part answered twice counts once; one answered with a body: EPROTO. */
static int hostile_part_replies(void)
{
	struct ordo *o = handle(32, 4);
	uint32_t len = 60000;
	uint8_t *v = value(len, 7);

	srv.dup_part = true;
	CHECK_EQ(ordo_put(o, 11, v, len), 0);
	CHECK_EQ(memcmp(srv.val, v, len), 0);
	handle_free(o);

	o = handle(32, 4);
	srv.part_body = true;
	CHECK_EQ(ordo_put(o, 12, v, len), -EPROTO);
	CHECK_EQ(srv.nq, 0);
	free(v);
	handle_free(o);
	return 0;
}

/* Store @len bytes under @key as the server would hold them. */
static uint8_t *stored(uint64_t key, uint32_t len, uint32_t seed)
{
	uint8_t *v = value(len, seed);

	free(srv.val);
	srv.val = malloc(len);
	memcpy(srv.val, v, len);
	srv.vlen = len;
	srv.key = key;
	srv.ref = 0x4000000001ULL;
	return v;
}

/* GET 1 MiB by RPC: the first part, then the rest in waves. */
static int get_in_waves(void)
{
	struct ordo *o = handle(32, 4);
	uint8_t *v = stored(5, VAL_MAX, 8), *out = malloc(VAL_MAX);
	uint32_t parts = (VAL_MAX + MSG - 49) / (MSG - 48);
	struct ordo_counters c;
	size_t got = 0;

	CHECK_EQ(ordo_get_len(o, 5, out, VAL_MAX, &got), 0);
	CHECK_EQ(got, VAL_MAX);
	CHECK_EQ(memcmp(out, v, VAL_MAX), 0);
	printf("# GET of 1 MiB over %u-byte messages: %u parts in %u round "
	       "trips (one a part before)\n", MSG, parts, srv.round_trips);
	CHECK_EQ(parts, 260);
	CHECK_EQ(srv.round_trips, 1 + (parts - 1 + RLONG_WAVE - 1) /
				   RLONG_WAVE);
	CHECK_EQ(srv.inflight_max, RLONG_WAVE);
	ordo_counters(o, &c);
	CHECK_EQ(c.round_trips, srv.round_trips);
	CHECK_EQ(c.rpcs, parts);
	CHECK_EQ(c.retries, 0);
	free(v);
	free(out);
	handle_free(o);
	return 0;
}

/*
 * The value is replaced while its waves are out: the GET starts again
 * and returns the new one whole; the key deleted: ENOENT; a part short
 * of what the wire says: EPROTO.
 */
static int get_wave_sees_a_change(void)
{
	struct ordo *o = handle(32, 4);
	uint32_t len = 300000;
	uint8_t *v = stored(6, len, 9), *out = malloc(len);
	struct ordo_counters c;
	size_t got = 0;
	uint32_t i;

	srv.change_after = 20;
	CHECK_EQ(ordo_get_len(o, 6, out, len, &got), 0);
	CHECK_EQ(got, len);
	for (i = 0; i < len; i++)
		v[i] ^= 0x5a;
	CHECK_EQ(memcmp(out, v, len), 0);
	ordo_counters(o, &c);
	CHECK_EQ(c.retries, 1);
	CHECK_EQ(c.round_trips, srv.round_trips);

	srv.get_parts = 0;
	srv.change_after = -1;
	srv.delete_after = 5;
	CHECK_EQ(ordo_get_len(o, 6, out, len, &got), -ENOENT);

	srv.key = 6;
	srv.delete_after = -1;
	srv.short_part = true;
	CHECK_EQ(ordo_get_len(o, 6, out, len, &got), -EPROTO);
	free(v);
	free(out);
	handle_free(o);
	return 0;
}

/*
 * A GET's waves and an upload's at once: each has buffers of its own (the
 * GET's requests sit in its slot's send buffer), so both go on together.
 */
static int get_and_upload_waves_together(void)
{
	struct ordo *o = handle(32, 4);
	uint32_t len = 200000;
	uint8_t *v = stored(7, len, 10), *w = value(len, 11);
	uint8_t *out = malloc(len);
	struct ordo_req g = { .op = ORDO_OP_GET, .key = 7, .val = out,
			      .len = len, .cb = cb };
	struct ordo_req p = { .op = ORDO_OP_PUT, .key = 7, .val = w,
			      .len = len, .cb = cb };

	done = 0;
	CHECK_EQ(ordo_submit(o, &g), 0);
	/* One round trip: its first part, and its first wave goes. */
	CHECK_EQ(rconn_poll(o, 0), 1);
	CHECK_EQ(rbe(o)->lv[0].wleft, RLONG_WAVE);
	CHECK_EQ(ordo_submit(o, &p), 0);
	CHECK_EQ(rbe(o)->wave.left, RLONG_WAVE);
	CHECK_EQ(srv.inflight_max, 2 * RLONG_WAVE);
	while (done < 2)
		CHECK(ordo_poll(o, 1, 1000) >= 0);
	CHECK_EQ(p.result, 0);
	CHECK_EQ(memcmp(srv.val, w, len), 0);
	/* The GET returns one value whole, whichever it met. */
	CHECK_EQ(g.result, 0);
	CHECK_EQ(g.val_len, len);
	CHECK(!memcmp(out, v, len) || !memcmp(out, w, len));
	free(v);
	free(w);
	free(out);
	handle_free(o);
	return 0;
}

/* Two GETs of long values at once: a wave each, side by side. */
static int gets_wave_side_by_side(void)
{
	struct ordo *o = handle(32, 4);
	uint32_t len = 300000;
	uint8_t *v = stored(3, len, 12), *out[2];
	struct ordo_req g[2];
	int i;

	done = 0;
	for (i = 0; i < 2; i++) {
		out[i] = malloc(len);
		g[i] = (struct ordo_req){ .op = ORDO_OP_GET, .key = 3,
					  .val = out[i], .len = len,
					  .cb = cb };
		CHECK_EQ(ordo_submit(o, &g[i]), 0);
	}
	while (done < 2)
		CHECK(ordo_poll(o, 1, 1000) >= 0);
	for (i = 0; i < 2; i++) {
		CHECK_EQ(g[i].result, 0);
		CHECK_EQ(memcmp(out[i], v, len), 0);
		free(out[i]);
	}
	CHECK_EQ(srv.inflight_max, 2 * RLONG_WAVE);
	/* 75 parts each: the first, then 5 waves, both GETs together. */
	CHECK_EQ(srv.round_trips, 1 + (len / (MSG - 48) + RLONG_WAVE - 1) /
				   RLONG_WAVE);
	free(v);
	handle_free(o);
	return 0;
}

int main(void)
{
	printf("TAP version 13\n");
	run("1 MiB goes up in waves of parts, the write with the last",
	    one_mib_in_waves);
	run("a wave is as wide as the credits", waves_follow_credits);
	run("a failed part ends the upload with its status, after its wave",
	    failed_part_ends_the_upload);
	run("a write sent with a failed part reports the part's status",
	    write_with_the_failed_wave);
	run("two uploads of one handle take turns", uploads_take_turns);
	run("a part answered twice or with a body", hostile_part_replies);
	run("a long GET by RPC takes its parts in waves", get_in_waves);
	run("a GET's waves meet a new value, a delete, a short part",
	    get_wave_sees_a_change);
	run("two GETs read their waves side by side", gets_wave_side_by_side);
	run("a GET's waves and an upload's go on together",
	    get_and_upload_waves_together);
	return tap_done();
}
