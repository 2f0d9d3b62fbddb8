// SPDX-License-Identifier: GPL-2.0
/*
 * libordo against a server that lies, natively (ASan, UBSan): bytes it
 * was not asked for, or that disagree with what it said before.
 *
 * - A reply whose id names no call in flight (id 0, or a call already
 *   answered) is dropped: it was decoded with the slot's last call, whose
 *   caller's buffer may be gone, and completed a GET that was still
 *   reading.
 * - A model image whose header, read again with the descriptors, places
 *   them elsewhere (another nsub_cap) is a torn read: the refresh read
 *   descriptors 128 MiB past its buffer.
 * - A model header alone does not size an allocation (it set aside room
 *   for 2^27 TT entries, 1 GiB, before any slice came).
 * - A SCAN reply that says "more" must move past what it returned.
 * - The accept reply's value_max must be what its chunks can hold, and a
 *   region table listing has at most one entry.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core_test.h"
#include "rdma.h"

/* ---- the backend: scripted reads and calls, a model region ---- */

static struct {
	unsigned int reads, calls;
	uint64_t seq;
	/* Model region: @ra honest; @rb served for image reads when @evil. */
	uint8_t *ra, *rb;
	size_t ra_len, rb_len;
	bool evil;
} sc;

#define LIVE	64	/* region offset of the image */

/* The first read is out of range (the GET falls back); later ones post. */
static int be_read(struct ordo *o, struct shim_op *op)
{
	if (rbe(o)->dead)
		return -ECONNRESET;
	if (sc.reads++ == 0) {
		op->io_res = -ERANGE;
		return 1;
	}
	op->reading = true;
	return 0;
}

/* A call is sent: it gets an id as rdma_req_begin() makes them. */
static int be_call(struct ordo *o, struct shim_op *op)
{
	if (rbe(o)->dead)
		return -ECONNRESET;
	sc.calls++;
	op->call_id = (++sc.seq << 16) | op->slot;
	return 0;
}

static int be_wait(struct ordo *o, int ms)
{
	return -ECONNRESET;
}

static int be_refresh(struct ordo *o)
{
	return -EIO;
}

static int be_bulk(struct ordo *o, uint32_t kind, uint64_t off, void *dst,
		   size_t len)
{
	const uint8_t *r = sc.ra;
	size_t rl = sc.ra_len;

	if (kind != SHIM_MODEL || !r)
		return -EIO;
	/* The header alone is 128 bytes; a longer read at LIVE is the image. */
	if (sc.evil && off == LIVE && len > ORDO_MODEL_HDR_SIZE) {
		r = sc.rb;
		rl = sc.rb_len;
	}
	if (off > rl || len > rl - off)
		return -ERANGE;
	memcpy(dst, r + off, len);
	return 0;
}

static void be_close(struct ordo *o)
{
	struct rdma_be *r = rbe(o);

	if (!r)
		return;
	free(r->pend);
	free(r->lv);
	free(r->stage_q);
	free(r);
	free(o->ops[0].buf);
}

static const struct shim_backend scripted = {
	.read = be_read,
	.call = be_call,
	.wait = be_wait,
	.bulk = be_bulk,
	.refresh = be_refresh,
	.close = be_close,
};

/* A handle of one slot in @mode on the scripted backend. */
static struct ordo *handle(enum ordo_mode mode)
{
	struct ordo *o = calloc(1, sizeof(*o));
	struct rdma_be *r = calloc(1, sizeof(*r));
	size_t per;

	if (!o || !r || ordo_geo_init(&o->geo, 16, 64))
		abort();
	o->fd = -1;
	o->be = &scripted;
	o->priv = r;
	o->mode = mode;
	o->opts.timeout_ms = 5000;
	o->opts.flags = ORDO_OPT_PRIVATE_CACHE;
	o->qd = 1;
	o->sup.geo = o->geo;
	o->sup.chunk_size = 1 << 20;
	o->sup.nodes_per_chunk = (1 << 20) / o->geo.node_size;
	o->sup.max_chunks = o->sup.nr_chunks = 1;
	o->sup.root = o->sup.leftmost_leaf = 1;
	o->sup.height = 1;
	r->pend = calloc(1, sizeof(*r->pend));
	r->lv = calloc(1, sizeof(*r->lv));
	r->stage_q = calloc(1, sizeof(*r->stage_q));
	r->stager = RLONG_NONE;
	r->max_msg = 4096;
	r->pool_chunks = UINT32_MAX;
	per = shim_slot_bytes(&o->geo);
	if (!r->pend || !r->lv || !r->stage_q ||
	    shim_slots_init(o, calloc(1, per), per) || !o->ops[0].buf)
		abort();
	return o;
}

/* A LOOKUP reply for @id: found, value @val. */
static void reply_lookup(struct ordo *o, uint64_t id, const char *val)
{
	uint8_t msg[256] = { 0 };
	struct ordo_wire_hdr *h = (void *)msg;
	struct ordo_wire_lookup_rep *l = (void *)(h + 1);
	uint32_t vl = strlen(val);

	h->id = htole64(id);
	h->version = ORDO_WIRE_VERSION;
	h->op = ORDO_WIRE_OP_LOOKUP;
	l->found = htole32(1);
	l->value_len = htole32(vl);
	memcpy(l + 1, val, vl);
	h->length = htole32(sizeof(*h) + sizeof(*l) + ordo_wire_pad8(vl));
	rdma_on_reply(o, msg, le32toh(h->length));
}

static unsigned int cb_runs;

static void cb(struct ordo_req *r)
{
	cb_runs++;
}

/*
 * GET a falls back to a LOOKUP call and is answered.  GET b, in the same
 * slot, posts a READ.  Replies with id 0 and with a's id arrive: both are
 * dropped, a's buffer keeps its value and b goes on reading.
 */
static int replies_to_no_call(void)
{
	struct ordo *o = handle(ORDO_MODE_WALK);
	char va[64] = { 0 }, vb[64] = { 0 };
	struct ordo_req a = { .op = ORDO_OP_GET, .key = 7, .val = va,
			      .len = sizeof(va), .cb = cb };
	struct ordo_req b = { .op = ORDO_OP_GET, .key = 9, .val = vb,
			      .len = sizeof(vb), .cb = cb };
	uint64_t a_id;

	memset(&sc, 0, sizeof(sc));
	cb_runs = 0;
	CHECK_EQ(ordo_submit(o, &a), 0);
	CHECK_EQ(sc.calls, 1);
	a_id = o->ops[0].call_id;
	CHECK_EQ(a_id, (1 << 16) | 0);
	reply_lookup(o, a_id, "AAAA");
	CHECK_EQ(cb_runs, 1);
	CHECK_EQ(a.result, 0);
	CHECK_EQ(a.val_len, 4);
	CHECK_EQ(memcmp(va, "AAAA", 4), 0);

	CHECK_EQ(ordo_submit(o, &b), 0);
	CHECK_EQ(o->ops[0].reading, 1);
	CHECK_EQ(o->ops[0].call_id, 0);
	reply_lookup(o, 0, "EVIL-BYTES");
	reply_lookup(o, a_id, "LATE-BYTES");
	CHECK_EQ(memcmp(va, "AAAA\0", 5), 0);
	CHECK_EQ(cb_runs, 1);		/* b still reads */
	CHECK_EQ(o->ops[0].reading, 1);
	CHECK_EQ(sc.calls, 1);
	CHECK_EQ(memcmp(vb, "\0\0\0\0", 4), 0);

	/* The connection goes: b ends with its error, once. */
	rbe(o)->dead = true;
	rdma_fail_all(o, -ECONNRESET);
	CHECK_EQ(cb_runs, 2);
	CHECK_EQ(b.result, -ECONNRESET);
	CHECK_EQ(o->inflight, 0);
	ordo_close(o);
	return 0;
}

/* ---- model images ---- */

/* A one-leaf image of @cap descriptor slots at @img; returns its size. */
static size_t build_image(uint8_t *img, uint32_t cap, uint64_t epoch)
{
	struct ordo_model_hdr *h = (void *)img;
	struct ordo_model_desc *d;
	uint32_t sh, ci, leaf = 5;
	uint8_t *e;

	memset(h, 0, sizeof(*h));
	h->magic = htole32(ORDO_MODEL_MAGIC);
	h->version = htole16(ORDO_MODEL_VERSION);
	h->hdr_size = htole16(ORDO_MODEL_HDR_SIZE);
	h->desc_size = htole32(ORDO_MODEL_DESC_SIZE);
	h->tt_entry_size = htole32(ORDO_TT_ENTRY_SIZE);
	h->epoch = htole64(epoch);
	h->region_size = htole64(ordo_model_region_size(cap, 1));
	h->piv_off = htole64(ORDO_MODEL_HDR_SIZE);
	h->desc_off = htole64(ordo_model_desc_off(cap));
	h->tt_off = htole64(ordo_model_tt_off(cap));
	h->nsub = htole32(1);
	h->tt_cap = htole32(1);
	h->nleaves = htole32(1);
	h->leaf_slots = htole32(16);
	h->nsub_cap = htole32(cap);
	h->top_gen = htole32(1);
	memset(img + ORDO_MODEL_HDR_SIZE, 0, 8);	/* pivot 0 */
	h->top_sum = htole64(ordo_model_top_checksum(img, img +
						      ORDO_MODEL_HDR_SIZE,
						      0, 1));
	if (cap > 1)
		return 0;	/* the header and pivot alone */
	/* Unbounded window over one leaf: its code places the fence at 0. */
	d = (void *)(img + ordo_model_desc_off(cap));
	memset(d, 0, sizeof(*d));
	d->slope = htole32(1u << 24);
	d->ntt = htole32(1);
	d->err_over = htole16(ORDO_MODEL_ERR_UNBOUNDED);
	d->err_under = htole16(ORDO_MODEL_ERR_UNBOUNDED);
	d->grid = ORDO_MODEL_GRID_MAX;
	sh = ordo_code_shift(3ULL << 32, ORDO_MODEL_GRID_MAX);
	ci = (uint32_t)((1ULL << 32) >> sh) | ORDO_TT_TIE_RIGHT;
	e = img + ordo_model_tt_off(cap);
	memcpy(e, &leaf, 4);
	memcpy(e + 4, &ci, 4);
	d->sum = htole64(ordo_sub_checksum(epoch, 0, 0, d, e, 1));
	return ordo_model_region_size(cap, 1);
}

static void build_anchor(uint8_t *r, uint64_t epoch)
{
	struct ordo_model_anchor *a = (void *)r;

	memset(a, 0, sizeof(*a));
	a->magic = htole32(ORDO_MODEL_ANCHOR_MAGIC);
	a->version = htole16(ORDO_MODEL_VERSION);
	a->anchor_size = htole16(ORDO_MODEL_ANCHOR_SIZE);
	a->live = htole64(LIVE);
	a->epoch = htole64(epoch);
}

/*
 * A learned cache holds a one-leaf model.  Its header read alone says
 * nsub_cap 1; read with the descriptors it says 2^24 (checksums right):
 * the refresh treats that as torn and the full load refuses it; the
 * cached model stays.  Honest again, the refresh goes through.
 */
static int refresh_sees_another_layout(void)
{
	struct ordo *o = handle(ORDO_MODE_LEARNED);
	uint64_t loads, tops;

	memset(&sc, 0, sizeof(sc));
	sc.ra = calloc(1, 4096);
	sc.rb = calloc(1, 4096);
	if (!sc.ra || !sc.rb)
		abort();
	build_anchor(sc.ra, 5);
	sc.ra_len = LIVE + build_image(sc.ra + LIVE, 1, 5);
	memcpy(sc.rb, sc.ra, sc.ra_len);
	build_image(sc.rb + LIVE, 0x1000000, 5);
	sc.rb_len = 4096;
	CHECK_EQ(shim_cache_get(o, 1, "scripted://"), 0);
	CHECK_EQ(shim_cache_ready(o), 1);
	loads = o->cnt.model_loads;
	tops = o->cnt.top_refreshes;

	sc.evil = true;
	CHECK_EQ(shim_cache_load(o) < 0, 1);
	CHECK_EQ(o->cnt.model_loads, loads);
	CHECK_EQ(o->cnt.top_refreshes, tops);
	CHECK_EQ(shim_cache_ready(o), 1);

	sc.evil = false;
	CHECK_EQ(shim_cache_load(o), 0);
	CHECK_EQ(o->cnt.top_refreshes, tops + 1);
	shim_cache_put(o);
	ordo_close(o);
	free(sc.ra);
	free(sc.rb);
	return 0;
}

/*
 * A header and pivot (136 bytes) claiming 2^27 leaves: the top level
 * loads with little TT room; the whole image would have sized it.
 */
static int header_sizes_no_allocation(void)
{
	uint8_t img[512] = { 0 };
	struct ordo_model_hdr *h = (void *)img;
	struct ordo_model *m;
	uint32_t many = 1u << 27;

	build_image(img, 2, 5);
	h->tt_cap = htole32(many);
	h->nleaves = htole32(many);
	h->region_size = htole64(ordo_model_region_size(2, many));
	h->top_sum = htole64(ordo_model_top_checksum(img, img +
						      ORDO_MODEL_HDR_SIZE,
						      0, 1));
	CHECK_EQ(ordo_model_load_top(&m, img, ORDO_MODEL_HDR_SIZE + 8), 0);
	CHECK_EQ(m->tt_cap <= 64, 1);
	CHECK_EQ(m->nsub, 1);
	ordo_model_free(m);

	/* The image itself, one sub-model of one leaf: room as trained. */
	build_image(img, 1, 5);
	CHECK_EQ(ordo_model_load_top(&m, img, ordo_model_region_size(1, 1)),
		 0);
	CHECK_EQ(m->tt_cap, 1 + 64);
	ordo_model_free(m);
	return 0;
}

/* ---- replies decoded ---- */

/* SCAN replies of two pairs from start 10: "more" must move past 20. */
static int scan_reply_moves_on(void)
{
	uint8_t b[16 + 2 * (12 + 8)] = { 0 };
	struct ordo_wire_scan_rep *w = (void *)b;
	__le64 *k = (__le64 *)(w + 1);
	struct shim_scan_rep s;
	uint64_t keys[2];

	k[0] = htole64(10);
	k[1] = htole64(20);
	w->returned = htole32(2);
	w->more = htole32(1);
	w->next = htole64(21);
	CHECK_EQ(shim_dec_scan(b, sizeof(b), 8, 8, 10, 2, keys, &s), 0);
	CHECK_EQ(s.next, 21);
	w->next = htole64(20);
	CHECK_EQ(shim_dec_scan(b, sizeof(b), 8, 8, 10, 2, keys, &s), -EPROTO);
	w->next = htole64(5);
	CHECK_EQ(shim_dec_scan(b, sizeof(b), 8, 8, 10, 2, keys, &s), -EPROTO);
	/* Nothing returned, yet more: a scan that would never end. */
	w->returned = 0;
	w->next = htole64(11);
	CHECK_EQ(shim_dec_scan(b, 16, 8, 8, 10, 2, keys, &s), -EPROTO);
	w->more = 0;
	CHECK_EQ(shim_dec_scan(b, 16, 8, 8, 10, 2, keys, &s), 0);
	CHECK_EQ(s.n, 0);
	return 0;
}

/* An accept reply as a server of 16-slot, 8-byte-value leaves sends it. */
static void conn_rep(struct ordo_wire_conn_rep *r, uint64_t chunk)
{
	struct ordo_geo g;

	if (ordo_geo_init(&g, 16, 8))
		abort();
	memset(r, 0, sizeof(*r));
	r->magic = htole32(ORDO_WIRE_MAGIC);
	r->version = htole16(ORDO_WIRE_VERSION);
	r->queue_depth = htole16(8);
	r->max_msg = htole32(ORDO_WIRE_MSG_MIN);
	r->chunk_size = htole64(chunk);
	r->node_size = htole32(g.node_size);
	r->value_size = htole32(8);
	r->leaf_slots = htole32(16);
	r->inner_fanout = htole32(g.inner_fanout);
	r->nodes_per_chunk = htole32(chunk / g.node_size);
	r->max_chunks = r->nr_chunks = htole32(1);
	r->batch_max = htole32(ORDO_WIRE_BATCH_MAX);
	r->value_max = htole32(ordo_value_len_max(chunk));
}

static int accept_value_max(void)
{
	struct ordo_wire_conn_rep r;
	struct ordo_geo none = { 0 }, g;

	conn_rep(&r, 1 << 20);
	CHECK_EQ(shim_dec_conn_rep(&r, 8, &none, &g), 0);
	r.value_max = htole32(ordo_value_len_max(1 << 20) + 1);
	CHECK_EQ(shim_dec_conn_rep(&r, 8, &none, &g), -EPROTO);
	r.value_max = htole32(UINT32_MAX);
	CHECK_EQ(shim_dec_conn_rep(&r, 8, &none, &g), -EPROTO);
	r.value_max = htole32(7);	/* below value_size */
	CHECK_EQ(shim_dec_conn_rep(&r, 8, &none, &g), -EPROTO);
	/* Small chunks hold shorter values. */
	conn_rep(&r, 64 << 10);
	CHECK_EQ(shim_dec_conn_rep(&r, 8, &none, &g), 0);
	CHECK_EQ(le32toh(r.value_max), (64 << 10) - ORDO_EXTENT_HDR_SIZE);
	r.value_max = htole32(ORDO_VALUE_LEN_MAX);
	CHECK_EQ(shim_dec_conn_rep(&r, 8, &none, &g), -EPROTO);
	/* A chunk smaller than a node holds none. */
	conn_rep(&r, 1 << 20);
	r.chunk_size = htole64(16);
	CHECK_EQ(shim_dec_conn_rep(&r, 8, &none, &g), -EPROTO);
	return 0;
}

/* The region table's own listing: one entry, refused at a second. */
static int table_listing_is_one_entry(void)
{
	uint8_t b[sizeof(struct ordo_wire_regions_rep) +
		  sizeof(struct ordo_wire_region)] = { 0 };
	struct ordo_wire_regions_rep *rep = (void *)b;
	struct ordo_wire_region *e = (void *)(rep + 1);
	struct shim_regions acc = { 0 };

	rep->total = htole32(2);
	rep->returned = htole32(1);
	rep->covered = htole64(8192);
	e->kind = htole16(ORDO_WIRE_REGION_TABLE);
	e->length = htole64(4096);
	CHECK_EQ(shim_dec_regions(&acc, ORDO_WIRE_REGION_TABLE, b, sizeof(b)),
		 -EPROTO);
	free(acc.ent);
	memset(&acc, 0, sizeof(acc));
	rep->total = htole32(1);
	rep->covered = htole64(4096);
	CHECK_EQ(shim_dec_regions(&acc, ORDO_WIRE_REGION_TABLE, b, sizeof(b)),
		 0);
	CHECK_EQ(acc.got, 1);
	CHECK_EQ(shim_dec_regions_end(&acc), 0);
	free(acc.ent);
	return 0;
}

int main(void)
{
	printf("TAP version 13\n");
	run("a reply to no call in flight is dropped, however well formed",
	    replies_to_no_call);
	run("a model read again with another layout is torn, not decoded",
	    refresh_sees_another_layout);
	run("a model header alone sizes no TT room", header_sizes_no_allocation);
	run("a SCAN reply with more moves past its last key",
	    scan_reply_moves_on);
	run("the accept reply's value_max fits its chunks", accept_value_max);
	run("the region table's listing has one entry",
	    table_listing_is_one_entry);
	return tap_done();
}
