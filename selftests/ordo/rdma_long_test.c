// SPDX-License-Identifier: GPL-2.0
/*
 * Values longer than value_size over the wire (version 3), byte by byte
 * through a raw connection: writes inline and by STAGE parts, GET and
 * LOOKUP replies with a part (length, extent ref and units), GETs of
 * parts from any offset, SCAN and BATCH lengths, hostile STAGE requests,
 * and the staged value given back to the pool when an upload is dropped
 * or its connection goes.  Then libordo's RDMA backend: its BATCH GETs of
 * long values and, once its front door takes them, ordo_put/ordo_get.
 */
#define _GNU_SOURCE
#pragma GCC diagnostic ignored "-Wclobbered"
#include <stdbool.h>
#include <pthread.h>

#include "ordo_test.h"
#include "kselftest_harness.h"
#include "raw_client.h"

/* Keys of this test binary live here, clear of other tests' keys. */
#define KBASE	0x7300000000000000ULL
#define MIB	(1u << 20)
#define PART	sizeof(struct ordo_wire_part)

FIXTURE(lv) {
	int fd;
	uint32_t vs;
	uint32_t vmax;
	struct rc_conn c;
	uint8_t *buf;
	uint8_t *back;
};

FIXTURE_SETUP(lv)
{
	ASSERT_TRUE(rc_available());
	ASSERT_EQ(0, rc_set_param("token", "\n"));
	self->fd = open(ORDO_DEV, O_RDWR);
	ASSERT_LE(0, self->fd);
	self->vs = t_value_size(self->fd);
	ASSERT_EQ(0, t_clear(self->fd));
	ASSERT_EQ(0, rc_connect(&self->c, NULL));
	self->vmax = le32toh(self->c.rep.value_max);
	ASSERT_EQ(ordo_value_len_max(le64toh(self->c.rep.chunk_size)),
		  self->vmax);
	self->buf = malloc(MIB + 64);
	self->back = malloc(MIB + 64);
	ASSERT_TRUE(self->buf && self->back);
}

FIXTURE_TEARDOWN(lv)
{
	rc_close(&self->c);
	free(self->buf);
	free(self->back);
	if (self->fd > 0) {
		t_clear(self->fd);
		close(self->fd);
	}
}

static void fill(uint8_t *v, uint32_t len, uint64_t key, uint32_t ver)
{
	uint32_t i;

	for (i = 0; i < len; i++)
		v[i] = (uint8_t)(key * 131 + ver * 17 + i * 7 + (i >> 8));
}

static uint64_t pool_used(int fd)
{
	struct ordo_info info;

	if (t_ioctl(fd, ORDO_IOC_INFO, &info))
		return 0;
	return info.pool_bytes_used;
}

/* A STAGE request with its fields as given; @data has @len bytes. */
static int stage(struct rc_conn *c, uint32_t total, uint32_t off,
		 const uint8_t *data, uint32_t len)
{
	uint32_t blen = sizeof(struct ordo_wire_stage) + ordo_wire_pad8(len);
	uint8_t *body = calloc(1, blen);
	struct ordo_wire_stage *st = (void *)body;
	int ret;

	st->total = htole32(total);
	st->offset = htole32(off);
	st->len = htole32(len);
	memcpy(st + 1, data, len);
	ret = rc_call(c, ORDO_WIRE_OP_STAGE, body, blen);
	free(body);
	return ret;
}

/* Bytes of value one STAGE request carries. */
static uint32_t stage_max(struct rc_conn *c)
{
	return (c->max_msg - sizeof(struct ordo_wire_hdr) -
		sizeof(struct ordo_wire_stage)) & ~7u;
}

/* A point op with value bytes, flags and arg as given. */
static int kv_call(struct rc_conn *c, uint8_t op, uint64_t key,
		   const uint8_t *val, uint32_t vlen, uint8_t flags,
		   uint32_t arg)
{
	uint32_t blen = sizeof(struct ordo_wire_kv) + ordo_wire_pad8(vlen);
	uint8_t *body = calloc(1, blen);
	struct ordo_wire_kv *kv = (void *)body;
	int ret;

	kv->key = htole64(key);
	kv->value_len = htole16(vlen);
	kv->op = op;
	kv->flags = flags;
	kv->arg = htole32(arg);
	if (vlen)
		memcpy(kv + 1, val, vlen);
	ret = rc_call(c, op, body, blen);
	free(body);
	return ret;
}

/* Write @len bytes: in the write if they fit, else STAGE parts first. */
static int put(struct rc_conn *c, uint8_t op, uint64_t key,
	       const uint8_t *val, uint32_t len)
{
	uint32_t at, n;
	int ret;

	if (sizeof(struct ordo_wire_hdr) + sizeof(struct ordo_wire_kv) +
	    ordo_wire_pad8(len) <= c->max_msg)
		return kv_call(c, op, key, val, len, 0, 0);
	for (at = 0; at < len; at += n) {
		n = len - at < stage_max(c) ? len - at : stage_max(c);
		ret = stage(c, len, at, val + at, n);
		if (ret)
			return ret;
	}
	return kv_call(c, op, key, NULL, 0, ORDO_WIRE_KV_STAGED, len);
}

/*
 * GET, from offset @off with KV_PART if @part: the reply as a part in
 * *@p (a plain reply as a part from 0, ref 0), its bytes copied to
 * @dst + offset.  -EBADMSG for a reply that breaks the protocol.
 */
static int get_part(struct rc_conn *c, uint64_t key, bool part, uint32_t off,
		    struct ordo_wire_part *p, uint8_t *dst)
{
	uint32_t vs = le32toh(c->rep.value_size), blen;
	const uint8_t *b;
	int ret;

	ret = kv_call(c, ORDO_WIRE_OP_GET, key, NULL, 0,
		      part ? ORDO_WIRE_KV_PART : 0, part ? off : 0);
	if (ret)
		return ret;
	b = rc_reply_body(c);
	blen = c->reply_len - sizeof(struct ordo_wire_hdr);
	if (!(le16toh(rc_reply_hdr(c)->flags) & ORDO_WIRE_F_PART)) {
		/* A plain reply: a whole value of at most value_size. */
		if (part || blen > vs)
			return -EBADMSG;
		memset(p, 0, sizeof(*p));
		p->len = htole32(blen);
		p->returned = htole32(blen);
		memcpy(dst, b, blen);
		return 0;
	}
	if (blen < PART)
		return -EBADMSG;
	memcpy(p, b, PART);
	if (le32toh(p->offset) != off ||
	    blen != PART + le32toh(p->returned))
		return -EBADMSG;
	memcpy(dst + off, b + PART, le32toh(p->returned));
	return 0;
}

/* GET a whole value by parts into @dst; *@ref: its ref. */
static int get_all(struct rc_conn *c, uint64_t key, uint8_t *dst,
		   uint32_t *len, uint64_t *ref)
{
	struct ordo_wire_part p;
	uint32_t at;
	int ret;

	ret = get_part(c, key, false, 0, &p, dst);
	if (ret)
		return ret;
	*len = le32toh(p.len);
	*ref = le64toh(p.ref);
	for (at = le32toh(p.returned); at < *len;
	     at += le32toh(p.returned)) {
		ret = get_part(c, key, true, at, &p, dst);
		if (ret)
			return ret;
		if (le64toh(p.ref) != *ref || le32toh(p.len) != *len ||
		    !p.returned)
			return -EBADMSG;
	}
	return 0;
}

TEST_F_TIMEOUT(lv, sizes_round_trip, 600)
{
	const uint32_t sizes[] = {
		0, 1, self->vs, self->vs + 1, 4096, 65536, MIB,
	};
	uint32_t i, len;
	uint64_t ref;

	for (i = 0; i < ARRAY_SIZE(sizes); i++) {
		uint64_t k = KBASE + i;
		uint32_t n = sizes[i];

		fill(self->buf, n, k, 1);
		ASSERT_EQ(0, put(&self->c, ORDO_WIRE_OP_PUT, k, self->buf, n))
			TH_LOG("put of %u bytes", n);
		memset(self->back, 0xee, n + 64);
		ASSERT_EQ(0, get_all(&self->c, k, self->back, &len, &ref))
			TH_LOG("get of %u bytes", n);
		EXPECT_EQ(n, len);
		EXPECT_EQ(0, memcmp(self->buf, self->back, n));
		EXPECT_EQ(0xee, self->back[n]);
		/* A long value is an extent: a ref, never one for a short. */
		EXPECT_EQ(n > self->vs, ref != 0) TH_LOG("%u bytes", n);
		if (n > self->vs)
			EXPECT_EQ(ordo_extent_units(n),
				  le32toh(((const struct ordo_wire_part *)
					   rc_reply_body(&self->c))->units));
	}
	/* Replace each with another length, by INSERT/UPDATE semantics. */
	fill(self->buf, 65536, KBASE, 2);
	EXPECT_EQ(-EEXIST, put(&self->c, ORDO_WIRE_OP_INSERT, KBASE,
			       self->buf, 65536));
	EXPECT_EQ(-ENOENT, put(&self->c, ORDO_WIRE_OP_UPDATE, KBASE + 100,
			       self->buf, 65536));
	EXPECT_EQ(0, put(&self->c, ORDO_WIRE_OP_UPDATE, KBASE, self->buf,
			 65536));
	ASSERT_EQ(0, get_all(&self->c, KBASE, self->back, &len, &ref));
	EXPECT_EQ(65536, len);
	EXPECT_EQ(0, memcmp(self->buf, self->back, 65536));
	EXPECT_EQ(0, put(&self->c, ORDO_WIRE_OP_INSERT, KBASE + 100,
			 self->buf, self->vmax));
	ASSERT_EQ(0, get_all(&self->c, KBASE + 100, self->back, &len, &ref));
	EXPECT_EQ(self->vmax, len);
	EXPECT_EQ(0, memcmp(self->buf, self->back, self->vmax));
	/* One byte over the store's bound: no STAGE takes it. */
	EXPECT_EQ(-EMSGSIZE, stage(&self->c, self->vmax + 1, 0, self->buf, 8));
	/* Deleting them gives every extent byte back. */
	ASSERT_EQ(0, t_clear(self->fd));
}

TEST_F(lv, parts_from_any_offset)
{
	struct ordo_wire_part p, q;
	uint64_t k = KBASE + 7;
	uint32_t len = 10000, offs[] = { 0, 1, 4095, 9999, 10000, 20000 };
	uint32_t i;

	fill(self->buf, len, k, 3);
	ASSERT_EQ(0, put(&self->c, ORDO_WIRE_OP_PUT, k, self->buf, len));
	for (i = 0; i < ARRAY_SIZE(offs); i++) {
		uint32_t off = offs[i];
		uint32_t want = off < len ? len - off : 0;

		ASSERT_EQ(0, get_part(&self->c, k, true, off, &p, self->back));
		EXPECT_EQ(len, le32toh(p.len));
		if (want > self->c.max_msg - sizeof(struct ordo_wire_hdr) - PART)
			want = self->c.max_msg - sizeof(struct ordo_wire_hdr) -
			       PART;
		EXPECT_EQ(want, le32toh(p.returned)) TH_LOG("offset %u", off);
		EXPECT_EQ(0, memcmp(self->buf + off, self->back + off, want));
		EXPECT_NE(0, p.ref);
	}
	/* A new value of the same key: another ref, so parts don't mix. */
	ASSERT_EQ(0, put(&self->c, ORDO_WIRE_OP_PUT, k, self->buf, len));
	ASSERT_EQ(0, get_part(&self->c, k, true, 0, &q, self->back));
	EXPECT_NE(le64toh(p.ref), le64toh(q.ref));
	/* An inline value answers parts too, with ref 0. */
	ASSERT_EQ(0, put(&self->c, ORDO_WIRE_OP_PUT, k, self->buf, 3));
	ASSERT_EQ(0, get_part(&self->c, k, true, 1, &q, self->back));
	EXPECT_EQ(0, q.ref);
	EXPECT_EQ(0, q.units);
	EXPECT_EQ(3, le32toh(q.len));
	EXPECT_EQ(2, le32toh(q.returned));
	EXPECT_EQ(-ENOENT, get_part(&self->c, k + 1, true, 0, &q, self->back));
}

TEST_F(lv, lookup_scan_and_batch_lengths)
{
	struct ordo_wire_lookup_req lr = { 0 };
	const struct ordo_wire_lookup_rep *rep;
	const struct ordo_wire_scan_rep *sr;
	struct ordo_wire_scan_req sq = { 0 };
	const struct ordo_wire_part *p;
	const uint32_t lens[] = { 5, 3000, 70000 };
	uint8_t body[256] = { 0 };
	const __le32 *wl;
	uint32_t i, off;

	for (i = 0; i < 3; i++) {
		fill(self->buf, lens[i], KBASE + i, 4);
		ASSERT_EQ(0, put(&self->c, ORDO_WIRE_OP_PUT, KBASE + i,
				 self->buf, lens[i]));
	}
	/* LOOKUP of a long value: a part, then model room. */
	lr.key = htole64(KBASE + 1);
	lr.flags = htole32(ORDO_WIRE_LOOKUP_NO_MODEL);
	ASSERT_EQ(0, rc_call(&self->c, ORDO_WIRE_OP_LOOKUP, &lr, sizeof(lr)));
	EXPECT_TRUE(le16toh(rc_reply_hdr(&self->c)->flags) & ORDO_WIRE_F_PART);
	rep = rc_reply_body(&self->c);
	p = (const void *)(rep + 1);
	EXPECT_EQ(1, le32toh(rep->found));
	EXPECT_EQ(3000, le32toh(p->len));
	EXPECT_EQ(PART + le32toh(p->returned), le32toh(rep->value_len));
	EXPECT_EQ(3000, le32toh(p->returned));
	fill(self->buf, 3000, KBASE + 1, 4);
	EXPECT_EQ(0, memcmp(p + 1, self->buf, 3000));
	/* SCAN: long values by length, zeros in their slot. */
	sq.start = htole64(KBASE);
	sq.count = htole32(3);
	ASSERT_EQ(0, rc_call(&self->c, ORDO_WIRE_OP_SCAN, &sq, sizeof(sq)));
	sr = rc_reply_body(&self->c);
	ASSERT_EQ(3, le32toh(sr->returned));
	wl = (const void *)((const uint8_t *)(sr + 1) + 3 * 8);
	for (i = 0; i < 3; i++) {
		const uint8_t *v = (const uint8_t *)(wl + 3) +
				   (size_t)i * self->vs;

		EXPECT_EQ(lens[i], le32toh(wl[i]));
		if (lens[i] > self->vs)
			EXPECT_EQ(0, v[0] | v[self->vs - 1]);
	}
	/* BATCH: GETs report long lengths and carry no bytes for them. */
	((struct ordo_wire_batch *)body)->count = htole32(3);
	for (i = 0, off = sizeof(struct ordo_wire_batch); i < 3; i++) {
		struct ordo_wire_kv *kv = (void *)(body + off);

		kv->key = htole64(KBASE + i);
		kv->op = ORDO_WIRE_OP_GET;
		off += sizeof(*kv);
	}
	ASSERT_EQ(0, rc_call(&self->c, ORDO_WIRE_OP_BATCH, body, off));
	{
		const struct ordo_wire_batch_res *res =
			(const void *)((const uint8_t *)rc_reply_body(&self->c) +
				       sizeof(struct ordo_wire_batch_rep));
		uint32_t bytes = lens[0] <= self->vs ? lens[0] : 0;

		for (i = 0; i < 3; i++) {
			EXPECT_EQ(0, res[i].status);
			EXPECT_EQ(lens[i], le32toh(res[i].value_len));
		}
		EXPECT_EQ(sizeof(struct ordo_wire_hdr) +
			  sizeof(struct ordo_wire_batch_rep) + 3 * sizeof(*res) +
			  bytes, self->c.reply_len);
	}
	/* A part in a batch is not a thing. */
	((struct ordo_wire_kv *)(body + sizeof(struct ordo_wire_batch)))->flags =
		ORDO_WIRE_KV_PART;
	EXPECT_EQ(-EINVAL, rc_call(&self->c, ORDO_WIRE_OP_BATCH, body, off));
}

TEST_F(lv, staged_write_in_batch)
{
	uint8_t body[128] = { 0 };
	struct ordo_wire_kv *kv;
	uint32_t len = 20000, got, off = sizeof(struct ordo_wire_batch);
	uint64_t ref;

	fill(self->buf, len, KBASE + 9, 5);
	ASSERT_EQ(0, stage(&self->c, len, 0, self->buf, 8000));
	ASSERT_EQ(0, stage(&self->c, len, 8000, self->buf + 8000, 8000));
	ASSERT_EQ(0, stage(&self->c, len, 16000, self->buf + 16000, 4000));
	((struct ordo_wire_batch *)body)->count = htole32(2);
	kv = (void *)(body + off);
	kv->key = htole64(KBASE + 9);
	kv->op = ORDO_WIRE_OP_PUT;
	kv->flags = ORDO_WIRE_KV_STAGED;
	kv->arg = htole32(len);
	off += sizeof(*kv);
	kv = (void *)(body + off);
	kv->key = htole64(KBASE + 9);
	kv->op = ORDO_WIRE_OP_GET;
	off += sizeof(*kv);
	ASSERT_EQ(0, rc_call(&self->c, ORDO_WIRE_OP_BATCH, body, off));
	ASSERT_EQ(0, get_all(&self->c, KBASE + 9, self->back, &got, &ref));
	EXPECT_EQ(len, got);
	EXPECT_EQ(0, memcmp(self->buf, self->back, len));
	/* Two staged entries in one batch: one staged value, EINVAL. */
	kv->op = ORDO_WIRE_OP_PUT;
	kv->flags = ORDO_WIRE_KV_STAGED;
	kv->arg = htole32(len);
	((struct ordo_wire_kv *)(body + sizeof(struct ordo_wire_batch)))->key =
		htole64(KBASE + 10);
	EXPECT_EQ(-EINVAL, rc_call(&self->c, ORDO_WIRE_OP_BATCH, body, off));
}

/* Hostile STAGE and staged writes: each a clear status, nothing kept. */
TEST_F(lv, hostile_stage)
{
	struct rc_conn *c = &self->c;
	uint32_t total = 100000, vs = self->vs;
	uint64_t base = pool_used(self->fd), k = KBASE + 20;
	uint8_t raw[64] = { 0 };
	struct ordo_wire_stage *st = (void *)raw;

	fill(self->buf, total, k, 6);
	/* Totals: at most value_size is not long; over value_max too long. */
	EXPECT_EQ(-EINVAL, stage(c, vs, 0, self->buf, 1));
	EXPECT_EQ(-EINVAL, stage(c, 0, 0, self->buf, 1));
	EXPECT_EQ(-EMSGSIZE, stage(c, self->vmax + 1, 0, self->buf, 1));
	EXPECT_EQ(-EMSGSIZE, stage(c, UINT32_MAX, 0, self->buf, 1));
	/* Empty parts, parts past the total. */
	EXPECT_EQ(-EINVAL, stage(c, total, 0, self->buf, 0));
	EXPECT_EQ(-EINVAL, stage(c, total, total - 4, self->buf, 8));
	EXPECT_EQ(-EINVAL, stage(c, total, UINT32_MAX - 3, self->buf, 8));
	/* Continuations of nothing. */
	EXPECT_EQ(-EINVAL, stage(c, total, 8, self->buf, 8));
	/* Out of order: the staged value is dropped, later parts fail. */
	ASSERT_EQ(0, stage(c, total, 0, self->buf, 1000));
	EXPECT_LT(base, pool_used(self->fd));
	EXPECT_EQ(-EINVAL, stage(c, total, 2000, self->buf, 8));
	EXPECT_EQ(-EINVAL, stage(c, total, 1000, self->buf + 1000, 8));
	EXPECT_EQ(base, pool_used(self->fd));
	/* Another total mid-value: dropped too. */
	ASSERT_EQ(0, stage(c, total, 0, self->buf, 1000));
	EXPECT_EQ(-EINVAL, stage(c, total + 8, 1000, self->buf, 8));
	EXPECT_EQ(base, pool_used(self->fd));
	/* Flags, a length the body does not have, padding, short bodies. */
	st->total = htole32(total);
	st->len = htole32(8);
	st->flags = htole32(1);
	EXPECT_EQ(-EINVAL, rc_call(c, ORDO_WIRE_OP_STAGE, raw, 24));
	st->flags = 0;
	EXPECT_EQ(-EINVAL, rc_call(c, ORDO_WIRE_OP_STAGE, raw, 32));
	EXPECT_EQ(-EINVAL, rc_call(c, ORDO_WIRE_OP_STAGE, raw, 16));
	EXPECT_EQ(-EINVAL, rc_call(c, ORDO_WIRE_OP_STAGE, raw, 8));
	st->len = htole32(5);
	raw[16 + 6] = 1;
	EXPECT_EQ(-EINVAL, rc_call(c, ORDO_WIRE_OP_STAGE, raw, 24));
	raw[16 + 6] = 0;
	st->len = htole32(UINT32_MAX - 2);
	EXPECT_EQ(-EINVAL, rc_call(c, ORDO_WIRE_OP_STAGE, raw, 16));
	st->len = htole32(UINT32_MAX - 6);
	EXPECT_EQ(-EINVAL, rc_call(c, ORDO_WIRE_OP_STAGE, raw, 24));
	EXPECT_EQ(base, pool_used(self->fd));
	/* Staged writes: no staged value, an incomplete one, another length. */
	EXPECT_EQ(-EINVAL, kv_call(c, ORDO_WIRE_OP_PUT, k, NULL, 0,
				   ORDO_WIRE_KV_STAGED, total));
	ASSERT_EQ(0, stage(c, total, 0, self->buf, 1000));
	EXPECT_EQ(-EINVAL, kv_call(c, ORDO_WIRE_OP_PUT, k, NULL, 0,
				   ORDO_WIRE_KV_STAGED, total));
	EXPECT_EQ(base, pool_used(self->fd));
	ASSERT_EQ(0, put(c, ORDO_WIRE_OP_PUT, k, self->buf, 5000));
	ASSERT_EQ(0, stage(c, 9000, 0, self->buf, 8000));
	ASSERT_EQ(0, stage(c, 9000, 8000, self->buf + 8000, 1000));
	EXPECT_EQ(-EINVAL, kv_call(c, ORDO_WIRE_OP_PUT, k, NULL, 0,
				   ORDO_WIRE_KV_STAGED, 9001));
	/* The failed write dropped it: no second chance. */
	EXPECT_EQ(-EINVAL, kv_call(c, ORDO_WIRE_OP_PUT, k, NULL, 0,
				   ORDO_WIRE_KV_STAGED, 9000));
	/* Staged with a value, on GET or DELETE, with a hint: EINVAL. */
	EXPECT_EQ(-EINVAL, kv_call(c, ORDO_WIRE_OP_PUT, k, self->buf, 8,
				   ORDO_WIRE_KV_STAGED, 9000));
	EXPECT_EQ(-EINVAL, kv_call(c, ORDO_WIRE_OP_GET, k, NULL, 0,
				   ORDO_WIRE_KV_STAGED, 9000));
	EXPECT_EQ(-EINVAL, kv_call(c, ORDO_WIRE_OP_DELETE, k, NULL, 0,
				   ORDO_WIRE_KV_STAGED, 9000));
	EXPECT_EQ(-EINVAL, kv_call(c, ORDO_WIRE_OP_UPDATE, k, NULL, 0,
				   ORDO_WIRE_KV_STAGED | ORDO_WIRE_KV_HINT,
				   9000));
	EXPECT_EQ(-EINVAL, kv_call(c, ORDO_WIRE_OP_PUT, k, NULL, 0,
				   ORDO_WIRE_KV_STAGED, 0));
	/* A failed INSERT of a staged value drops it, and stores nothing. */
	ASSERT_EQ(0, stage(c, 9000, 0, self->buf, 8000));
	ASSERT_EQ(0, stage(c, 9000, 8000, self->buf + 8000, 1000));
	EXPECT_EQ(-EEXIST, kv_call(c, ORDO_WIRE_OP_INSERT, k, NULL, 0,
				   ORDO_WIRE_KV_STAGED, 9000));
	/* The value stays the first one, and the connection lives. */
	{
		uint32_t got;
		uint64_t ref;

		ASSERT_EQ(0, get_all(c, k, self->back, &got, &ref));
		EXPECT_EQ(5000, got);
		EXPECT_EQ(0, memcmp(self->buf, self->back, 5000));
	}
	ASSERT_EQ(0, kv_call(c, ORDO_WIRE_OP_DELETE, k, NULL, 0, 0, 0));
	EXPECT_EQ(base, pool_used(self->fd));
}

/* A new STAGE at offset 0 replaces the staged value; it does not pile up. */
TEST_F(lv, stage_restart_replaces)
{
	uint64_t base = pool_used(self->fd), one;
	long long stages = rc_sysfs_u64("stats/rpc_stage");
	int i;

	fill(self->buf, MIB, KBASE, 7);
	ASSERT_EQ(0, stage(&self->c, MIB, 0, self->buf, 4000));
	one = pool_used(self->fd) - base;
	EXPECT_LE(MIB, one);
	for (i = 0; i < 20; i++)
		ASSERT_EQ(0, stage(&self->c, MIB, 0, self->buf, 4000));
	EXPECT_EQ(base + one, pool_used(self->fd));
	/* A failed part drops it. */
	EXPECT_EQ(-EINVAL, stage(&self->c, MIB, 5, self->buf, 8));
	EXPECT_EQ(base, pool_used(self->fd));
	/* Every STAGE counts, failed or not. */
	EXPECT_EQ(stages + 22, rc_sysfs_u64("stats/rpc_stage"));
}

/* A connection that goes mid-upload gives its staged value back. */
TEST_F_TIMEOUT(lv, disconnect_mid_upload, 120)
{
	uint64_t base = pool_used(self->fd);
	struct rc_conn c2;
	int i;

	fill(self->buf, MIB, KBASE, 8);
	ASSERT_EQ(0, rc_connect(&c2, NULL));
	ASSERT_EQ(0, stage(&c2, MIB, 0, self->buf, stage_max(&c2)));
	ASSERT_EQ(0, stage(&c2, MIB, stage_max(&c2), self->buf, 64));
	EXPECT_LE(base + MIB, pool_used(self->fd));
	rc_close(&c2);
	for (i = 0; i < 200 && pool_used(self->fd) != base; i++)
		usleep(50000);
	EXPECT_EQ(base, pool_used(self->fd));
	/* Our own connection is untouched by that. */
	ASSERT_EQ(0, put(&self->c, ORDO_WIRE_OP_PUT, KBASE, self->buf, 30000));
}

/*
 * Another geometry: value_size 1024, the smallest messages, 64 KiB
 * chunks, so value_max is 65512 (an extent stays inside a chunk).
 */
FIXTURE(small) {
	char params[256];
	struct rc_conn c;
	uint32_t vmax;
	uint8_t *buf;
	uint8_t *back;
};

FIXTURE_SETUP(small)
{
	ASSERT_TRUE(rc_available());
	t_module_params(self->params, sizeof(self->params));
	ASSERT_EQ(0, rc_module_reload(self->params,
				      " value_size=1024 msg_size=4096 chunk_kb=64"));
	ASSERT_EQ(0, rc_connect(&self->c, NULL));
	self->vmax = le32toh(self->c.rep.value_max);
	self->buf = malloc(MIB);
	self->back = malloc(MIB);
	ASSERT_TRUE(self->buf && self->back);
}

/* The rest of the suite runs on the geometry it was started with. */
FIXTURE_TEARDOWN(small)
{
	rc_close(&self->c);
	free(self->buf);
	free(self->back);
	ASSERT_EQ(0, rc_module_reload(self->params, ""));
}

TEST_F_TIMEOUT(small, value_max_of_a_small_chunk, 300)
{
	const uint32_t sizes[] = { 0, 1, 1024, 1025, 4096, 65512 };
	uint32_t i, len;
	uint64_t ref;

	ASSERT_EQ(1024, le32toh(self->c.rep.value_size));
	ASSERT_EQ(4096, self->c.max_msg);
	ASSERT_EQ(65536 - 24, self->vmax);
	for (i = 0; i < ARRAY_SIZE(sizes); i++) {
		uint64_t k = KBASE + i;

		fill(self->buf, sizes[i], k, 13);
		ASSERT_EQ(0, put(&self->c, ORDO_WIRE_OP_PUT, k, self->buf,
				 sizes[i])) TH_LOG("%u bytes", sizes[i]);
		ASSERT_EQ(0, get_all(&self->c, k, self->back, &len, &ref));
		EXPECT_EQ(sizes[i], len);
		EXPECT_EQ(0, memcmp(self->buf, self->back, sizes[i]));
		EXPECT_EQ(sizes[i] > 1024, ref != 0);
	}
	EXPECT_EQ(-EMSGSIZE, stage(&self->c, 65513, 0, self->buf, 8));
	EXPECT_EQ(-EMSGSIZE, stage(&self->c, 65536, 0, self->buf, 8));
}

/* libordo's RDMA backend in RPC mode. */
static struct ordo *lib_open(void)
{
	struct ordo_opts op = {
		.size = sizeof(op),
		.mode = ORDO_MODE_RPC,
		.timeout_ms = RC_TIMEOUT_MS,
	};

	return ordo_open_opts(RC_URI, &op);
}

TEST_F_TIMEOUT(lv, libordo_batch_get_long, 300)
{
	struct ordo_batch_op ops[3] = { 0 };
	uint8_t *dst[3];
	struct ordo *o;
	uint32_t i, lens[] = { 4, 6000, MIB };

	o = lib_open();
	ASSERT_NE(NULL, o);
	for (i = 0; i < 3; i++) {
		fill(self->buf, lens[i], KBASE + i, 9);
		ASSERT_EQ(0, put(&self->c, ORDO_WIRE_OP_PUT, KBASE + i,
				 self->buf, lens[i]));
		dst[i] = calloc(1, MIB);
		ops[i].op = ORDO_OP_GET;
		ops[i].kv.key = KBASE + i;
		ops[i].kv.value = (uintptr_t)dst[i];
		ops[i].kv.value_len = i == 1 ? 5999 : MIB;
	}
	ASSERT_EQ(3, ordo_batch(o, ops, 3));
	EXPECT_EQ(0, ops[0].result);
	EXPECT_EQ(4, ops[0].kv.value_len);
	/* Too small a buffer: ENOBUFS, with the length needed. */
	EXPECT_EQ(-ENOBUFS, ops[1].result);
	EXPECT_EQ(6000, ops[1].kv.value_len);
	EXPECT_EQ(0, ops[2].result);
	EXPECT_EQ(MIB, ops[2].kv.value_len);
	fill(self->buf, MIB, KBASE + 2, 9);
	EXPECT_EQ(0, memcmp(self->buf, dst[2], MIB));
	/* A long value that fits in one message goes in the batch. */
	fill(self->buf, 3000, KBASE + 5, 10);
	ops[0].op = ORDO_OP_PUT;
	ops[0].kv.key = KBASE + 5;
	ops[0].kv.value = (uintptr_t)self->buf;
	ops[0].kv.value_len = 3000;
	ASSERT_EQ(1, ordo_batch(o, ops, 1));
	EXPECT_EQ(0, ops[0].result);
	for (i = 0; i < 3; i++)
		free(dst[i]);
	ordo_close(o);
	{
		uint32_t got;
		uint64_t ref;

		ASSERT_EQ(0, get_all(&self->c, KBASE + 5, self->back, &got,
				     &ref));
		EXPECT_EQ(3000, got);
		EXPECT_EQ(0, memcmp(self->buf, self->back, 3000));
	}
}

/*
 * ordo_put/ordo_get of every size over RPC: staged uploads, GETs of
 * parts.  An upload's parts go out in waves as wide as the credits (at
 * most 16), the write with the last wave: 1 MiB over 8 KiB messages is
 * 129 parts and the write in 9 round trips, not 130.
 */
TEST_F_TIMEOUT(lv, libordo_put_get, 600)
{
	const uint32_t sizes[] = {
		0, 1, self->vs, self->vs + 1, 4096, 65536, MIB,
	};
	uint32_t part = (self->c.max_msg - 40) & ~7u;
	uint32_t wave = self->c.qd < 16 ? self->c.qd : 16;
	struct ordo *o = lib_open();
	struct ordo_counters a, b;
	uint32_t i;
	size_t got;

	ASSERT_NE(NULL, o);
	for (i = 0; i < ARRAY_SIZE(sizes); i++) {
		uint64_t k = KBASE + 100 + i;
		uint32_t parts = (sizes[i] + part - 1) / part;
		bool staged = 48 + ((sizes[i] + 7) & ~7u) > self->c.max_msg;

		fill(self->buf, sizes[i], k, 12);
		ordo_counters(o, &a);
		ASSERT_EQ(0, ordo_put(o, k, self->buf, sizes[i]));
		ordo_counters(o, &b);
		if (staged) {
			TH_LOG("%u bytes: %u parts and the write, %llu round trips",
			       sizes[i], parts, (unsigned long long)
			       (b.round_trips - a.round_trips));
			EXPECT_EQ(parts + 1, b.rpcs - a.rpcs);
			EXPECT_GE((parts + wave - 1) / wave + 1,
				  b.round_trips - a.round_trips);
		}
		memset(self->back, 0xee, MIB + 64);
		ASSERT_EQ(0, ordo_get_len(o, k, self->back, MIB, &got));
		EXPECT_EQ(sizes[i], got);
		EXPECT_EQ(0, memcmp(self->buf, self->back, sizes[i]));
	}
	ordo_close(o);
}

/* ordo_get_len() over RPC of values written raw: every size, by parts. */
TEST_F_TIMEOUT(lv, libordo_rpc_get_long, 300)
{
	const uint32_t sizes[] = {
		0, 1, self->vs, self->vs + 1, 4096, 65536, MIB,
	};
	uint32_t wave = self->c.qd < 16 ? self->c.qd : 16;
	struct ordo *o = lib_open();
	struct ordo_counters a, b;
	uint32_t i, parts;
	size_t got;

	ASSERT_NE(NULL, o);
	for (i = 0; i < ARRAY_SIZE(sizes); i++) {
		uint64_t k = KBASE + 200 + i;

		fill(self->buf, sizes[i], k, 15);
		ASSERT_EQ(0, put(&self->c, ORDO_WIRE_OP_PUT, k, self->buf,
				 sizes[i]));
		memset(self->back, 0xee, MIB + 64);
		ordo_counters(o, &a);
		ASSERT_EQ(0, ordo_get_len(o, k, self->back, MIB, &got));
		ordo_counters(o, &b);
		EXPECT_EQ(sizes[i], got);
		EXPECT_EQ(0, memcmp(self->buf, self->back, sizes[i]));
		EXPECT_EQ(0xee, self->back[sizes[i]]);
		/*
		 * One RPC per reply's worth of bytes; after the first, the
		 * parts go in waves as wide as the credits (at most 16).
		 */
		parts = sizes[i] <= self->vs ? 1 :
			(sizes[i] + self->c.max_msg - 49) /
			(self->c.max_msg - 48);
		EXPECT_EQ(parts, b.rpcs - a.rpcs) TH_LOG("%u bytes", sizes[i]);
		EXPECT_GE(1 + (parts - 1 + wave - 1) / wave,
			  b.round_trips - a.round_trips)
			TH_LOG("%u bytes: %u parts, %llu round trips", sizes[i],
			       parts, (unsigned long long)
			       (b.round_trips - a.round_trips));
	}
	/* A buffer one byte short: ENOBUFS. */
	EXPECT_EQ(-ENOBUFS, ordo_get_len(o, KBASE + 205, self->back, 65535,
					 &got));
	ordo_close(o);
}

struct rewriter {
	uint64_t key;
	uint32_t len;
	uint32_t writes;
	int err;
};

/* Write the key again and again, alternating two versions. */
static void *rewrite(void *arg)
{
	struct rewriter *rw = arg;
	uint8_t *v = malloc(rw->len);
	struct rc_conn w;
	uint32_t ver;

	rw->err = v ? rc_connect(&w, NULL) : -ENOMEM;
	for (ver = 1; !rw->err && ver <= rw->writes; ver++) {
		fill(v, rw->len, rw->key, ver & 1);
		rw->err = put(&w, ORDO_WIRE_OP_PUT, rw->key, v, rw->len);
	}
	if (v)
		rc_close(&w);
	free(v);
	return NULL;
}

/*
 * A value rewritten while a client reads it by parts: every GET returns
 * one whole version, never a mix (a part of another ref restarts it).
 */
TEST_F_TIMEOUT(lv, libordo_rpc_get_while_rewritten, 600)
{
	struct rewriter rw = { .key = KBASE + 300, .len = 200000,
			       .writes = 300 };
	struct ordo_counters cnt;
	struct ordo *o;
	int i, ok = 0, again = 0;
	pthread_t th;

	fill(self->buf, rw.len, rw.key, 0);
	ASSERT_EQ(0, put(&self->c, ORDO_WIRE_OP_PUT, rw.key, self->buf,
			 rw.len));
	o = lib_open();
	ASSERT_NE(NULL, o);
	ASSERT_EQ(0, pthread_create(&th, NULL, rewrite, &rw));
	for (i = 0; i < 60; i++) {
		size_t got;
		int ret = ordo_get_len(o, rw.key, self->back, MIB, &got);

		if (ret == -EAGAIN) {
			again++;
			continue;
		}
		ASSERT_EQ(0, ret);
		ASSERT_EQ(rw.len, got);
		/* Which version: byte 0 of version 0 and 1 differ. */
		fill(self->buf, 1, rw.key, 0);
		fill(self->buf, rw.len, rw.key,
		     self->back[0] == self->buf[0] ? 0 : 1);
		EXPECT_EQ(0, memcmp(self->buf, self->back, rw.len))
			TH_LOG("GET %d mixed two versions", i);
		ok++;
	}
	ordo_counters(o, &cnt);
	TH_LOG("%d whole GETs, %d gave up, %llu restarts", ok, again,
	       (unsigned long long)cnt.retries);
	ordo_close(o);
	pthread_join(th, NULL);
	EXPECT_EQ(0, rw.err);
	EXPECT_LT(0, ok);
}

static void req_done(struct ordo_req *r)
{
	++*(int *)r->user;
}

/*
 * Many long writes in flight at once on one handle: one stages at a time
 * (the connection has one staged value), the others wait their turn; then
 * as many long GETs at once, each assembling its parts.
 */
TEST_F_TIMEOUT(lv, libordo_async_long_writes, 600)
{
	enum { N = 12 };
	struct ordo_req r[N];
	uint8_t *vals[N], *outs[N];
	struct ordo *o = lib_open();
	int done = 0, i;

	ASSERT_NE(NULL, o);
	for (i = 0; i < N; i++) {
		uint32_t len = i % 3 ? 20000 + 9000 * i : 100 + i;

		vals[i] = malloc(len);
		outs[i] = calloc(1, 200000);
		fill(vals[i], len, KBASE + i, 14);
		memset(&r[i], 0, sizeof(r[i]));
		r[i].op = ORDO_OP_PUT;
		r[i].key = KBASE + i;
		r[i].val = vals[i];
		r[i].len = len;
		r[i].cb = req_done;
		r[i].user = &done;
	}
	for (i = 0; i < N; i++)
		ASSERT_EQ(0, ordo_submit(o, &r[i]));
	while (done < N)
		ASSERT_LT(0, ordo_poll(o, 1, -1));
	for (i = 0; i < N; i++) {
		EXPECT_EQ(0, r[i].result) TH_LOG("write %d", i);
		r[i].op = ORDO_OP_GET;
		r[i].val = outs[i];
		r[i].len = 200000;
	}
	done = 0;
	for (i = 0; i < N; i++)
		ASSERT_EQ(0, ordo_submit(o, &r[i]));
	while (done < N)
		ASSERT_LT(0, ordo_poll(o, 1, -1));
	for (i = 0; i < N; i++) {
		uint32_t len = i % 3 ? 20000 + 9000 * i : 100 + i;

		EXPECT_EQ(0, r[i].result) TH_LOG("read %d", i);
		EXPECT_EQ(len, r[i].val_len);
		EXPECT_EQ(0, memcmp(vals[i], outs[i], len)) TH_LOG("read %d", i);
		free(vals[i]);
		free(outs[i]);
	}
	ordo_close(o);
}

TEST_HARNESS_MAIN
