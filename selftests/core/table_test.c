// SPDX-License-Identifier: GPL-2.0
/*
 * The region table (linux/ordo_wire.h, struct ordo_wire_table): tables
 * built by the server's code (kmod/core/wire_table.c) decoded by the
 * client's (libshim/decode.c).  Random tables round-trip; copies torn
 * between two publications, in any byte order, decode to one of the two
 * or to "read again", never to a mixture; a writer publishing while a
 * reader copies never gets a mixture accepted; every single-bit flip is
 * caught; a server that lies with a valid checksum is refused.  Prints
 * TAP; exits non-zero on any failure.
 */
#pragma GCC diagnostic ignored "-Wunused-parameter"
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compat.h"
#include "node.h"
#include "wire_table.h"
#include "core_test.h"
#include "decode.h"

#define SID	0x0123456789abcdefULL

static u64 rnd(u64 *s)
{
	u64 z = (*s += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

/* What a table holds, as a test draws it. */
struct spec {
	u64 seq;
	u64 chunk;
	u32 cap;
	u32 np, nm;
	u32 pool_len[64];	/* chunks per pool entry */
	u64 model_len[64];	/* bytes per model entry */
	u32 rkey[128];
	u32 nr_chunks_extra;
	u32 lease_ms;
};

static void spec_draw(struct spec *sp, u64 seed, u32 cap)
{
	u64 s = seed;
	u32 i;

	memset(sp, 0, sizeof(*sp));
	sp->seq = 2 * (1 + rnd(&s) % 1000);
	sp->chunk = 1ULL << (12 + rnd(&s) % 19);
	sp->cap = cap;
	sp->np = rnd(&s) % (cap < 32 ? cap + 1 : 33);
	sp->nm = rnd(&s) % (cap - sp->np < 32 ? cap - sp->np + 1 : 33);
	for (i = 0; i < sp->np; i++)
		sp->pool_len[i] = 1 + rnd(&s) % 512;
	for (i = 0; i < sp->nm; i++)
		sp->model_len[i] = sp->chunk * (1 + rnd(&s) % 64);
	for (i = 0; i < sp->np + sp->nm; i++)
		sp->rkey[i] = (u32)rnd(&s);
	sp->nr_chunks_extra = rnd(&s) % 3;
	sp->lease_ms = 1 + rnd(&s) % 100000;
}

/* Build @sp sealed into @stage (ordo_wire_table_bytes(cap) bytes). */
static void spec_build(const struct spec *sp, void *stage)
{
	struct ordo_wire_table_info ti = {
		.server_id = SID,
		.cap = sp->cap,
		.lease_ms = sp->lease_ms,
	};
	u64 at = 0;
	u32 i;

	memset(stage, 0, ordo_wire_table_bytes(sp->cap));
	for (i = 0; i < sp->np; i++) {
		u64 len = (u64)sp->pool_len[i] * sp->chunk;

		ordo_wire_table_entry(stage, i, ORDO_WIRE_REGION_POOL, at, len,
				      sp->rkey[i]);
		at += len;
		ti.pool_chunks += sp->pool_len[i];
	}
	ti.nr_chunks = ti.pool_chunks + sp->nr_chunks_extra;
	for (at = 0, i = 0; i < sp->nm; i++) {
		ordo_wire_table_entry(stage, sp->np + i, ORDO_WIRE_REGION_MODEL,
				      at, sp->model_len[i], sp->rkey[sp->np + i]);
		at += sp->model_len[i];
	}
	ti.model_bytes = at;
	ordo_wire_table_seal(stage, sp->seq, sp->np + sp->nm, &ti);
}

static void table_free(struct shim_table *t)
{
	free(t->pool.ent);
	free(t->model.ent);
	memset(t, 0, sizeof(*t));
}

/* Does decoded @t say exactly what @sp does? */
static int spec_same(const struct spec *sp, const struct shim_table *t)
{
	u64 at = 0;
	u32 i, pc = 0;

	if (t->seq != sp->seq || t->pool.n != sp->np || t->model.n != sp->nm ||
	    t->lease_ms != sp->lease_ms)
		return 0;
	for (i = 0; i < sp->np; i++) {
		if (t->pool.ent[i].off != at ||
		    t->pool.ent[i].len != (u64)sp->pool_len[i] * sp->chunk ||
		    t->pool.ent[i].rkey != sp->rkey[i])
			return 0;
		at += t->pool.ent[i].len;
		pc += sp->pool_len[i];
	}
	if (t->pool_chunks != pc || t->nr_chunks != pc + sp->nr_chunks_extra ||
	    t->pool.covered != at)
		return 0;
	for (at = 0, i = 0; i < sp->nm; i++) {
		if (t->model.ent[i].off != at ||
		    t->model.ent[i].len != sp->model_len[i] ||
		    t->model.ent[i].rkey != sp->rkey[sp->np + i])
			return 0;
		at += sp->model_len[i];
	}
	return t->model.covered == at;
}

static int t_round_trip(void)
{
	struct shim_table t;
	struct spec sp;
	u64 seed;

	for (seed = 1; seed <= 2000; seed++) {
		u32 cap = 1 + seed % 97;
		u64 len = ordo_wire_table_bytes(cap);
		u8 *stage = malloc(len), *live = calloc(1, len);

		spec_draw(&sp, seed, cap);
		spec_build(&sp, stage);
		/* The live table starts one publication behind. */
		((struct ordo_wire_table *)live)->seq = htole64(sp.seq - 2);
		ordo_wire_table_publish(live, stage);
		CHECK_EQ(0, shim_dec_table(live, len, SID, sp.chunk, &t));
		CHECK(spec_same(&sp, &t));
		table_free(&t);
		/* Another server, or another geometry, is refused. */
		CHECK_EQ(-EPROTO, shim_dec_table(live, len, SID + 1, sp.chunk,
						 &t));
		if (sp.np)
			CHECK_EQ(-EPROTO, shim_dec_table(live, len, SID,
							 sp.chunk * 2, &t));
		/* The READ must be the table's whole length. */
		CHECK_EQ(-EPROTO, shim_dec_table(live, len - 24, SID, sp.chunk,
						 &t));
		free(stage);
		free(live);
	}
	return 0;
}

/*
 * A READ racing with the publication of @b over @a returns, byte by byte,
 * one or the other (the NIC reads in any order; a byte is either old or
 * new).  Every such copy decodes to @a, to @b or to "read again".
 */
static int t_torn_copies(void)
{
	struct shim_table t;
	struct spec a, b;
	u64 seed, s = 42;
	int round;

	for (seed = 1; seed <= 400; seed++) {
		u32 cap = 4 + seed % 40;
		u64 len = ordo_wire_table_bytes(cap), i;
		u8 *sa = malloc(len), *sb = malloc(len), *mix = malloc(len);

		spec_draw(&a, seed, cap);
		spec_draw(&b, seed + 100000, cap);
		b.seq = a.seq + 2;
		b.chunk = a.chunk;
		for (i = 0; i < b.nm; i++)
			b.model_len[i] = a.chunk * (1 + i);
		spec_build(&a, sa);
		spec_build(&b, sb);
		for (round = 0; round < 50; round++) {
			u64 p = rnd(&s) % 100;
			int ret;

			for (i = 0; i < len; i++)
				mix[i] = rnd(&s) % 100 < p ? sb[i] : sa[i];
			/* The writer's odd word may be what was read, too. */
			if (round % 5 == 0)
				((struct ordo_wire_table *)mix)->seq =
					htole64(b.seq - 1);
			ret = shim_dec_table(mix, len, SID, a.chunk, &t);
			if (ret == -EAGAIN)
				continue;
			CHECK_EQ(0, ret);
			CHECK(spec_same(&a, &t) || spec_same(&b, &t));
			table_free(&t);
		}
		free(sa);
		free(sb);
		free(mix);
	}
	return 0;
}

/* ---- a writer publishing while a reader copies ---- */

#define RACE_CAP	48
#define RACE_PUBS	20000

static u8 race_live[sizeof(struct ordo_wire_table) + RACE_CAP * 24];
static atomic_int race_done;

static void race_spec(struct spec *sp, u64 seq)
{
	spec_draw(sp, seq * 7919, RACE_CAP);
	sp->seq = seq;
	sp->chunk = 1 << 21;
}

static void *race_writer(void *arg)
{
	u8 stage[sizeof(race_live)];
	struct spec sp;
	u64 seq;

	(void)arg;
	for (seq = 4; seq < 4 + 2 * RACE_PUBS; seq += 2) {
		race_spec(&sp, seq);
		spec_build(&sp, stage);
		ordo_wire_table_publish(race_live, stage);
	}
	atomic_store(&race_done, 1);
	return NULL;
}

static int t_publish_race(void)
{
	u8 copy[sizeof(race_live)], stage[sizeof(race_live)];
	long accepted = 0, torn = 0;
	struct shim_table t;
	struct spec sp;
	pthread_t w;

	race_spec(&sp, 2);
	spec_build(&sp, stage);
	memcpy(race_live, stage, sizeof(stage));
	CHECK_EQ(0, pthread_create(&w, NULL, race_writer, NULL));
	do {
		size_t i;
		int ret;

		/* Byte by byte, as a NIC may read it, racing the writer. */
		for (i = 0; i < sizeof(copy); i++) {
			copy[i] = ((volatile u8 *)race_live)[i];
			/* Let the writer in halfway now and then. */
			if (i == sizeof(copy) / 2 && (accepted + torn) % 2)
				sched_yield();
		}
		ret = shim_dec_table(copy, sizeof(copy), SID, 1 << 21, &t);
		if (ret == -EAGAIN) {
			torn++;
			continue;
		}
		CHECK_EQ(0, ret);
		race_spec(&sp, t.seq);
		CHECK(spec_same(&sp, &t));
		table_free(&t);
		accepted++;
	} while (!atomic_load(&race_done));
	pthread_join(w, NULL);
	printf("# %ld copies accepted, %ld torn\n", accepted, torn);
	CHECK(accepted > 0);
	return 0;
}

/* Every single-bit flip: refused, or (past the entries) harmless. */
static int t_bit_flips(void)
{
	struct shim_table t;
	struct spec sp;
	u64 len, bit;
	u8 *stage;

	spec_draw(&sp, 77, 12);
	sp.np = 3;
	sp.nm = 2;
	len = ordo_wire_table_bytes(sp.cap);
	stage = malloc(len);
	spec_build(&sp, stage);
	for (bit = 0; bit < 8 * len; bit++) {
		int ret;

		stage[bit / 8] ^= 1 << (bit % 8);
		ret = shim_dec_table(stage, len, SID, sp.chunk, &t);
		if (!ret) {
			CHECK(bit / 8 >= ordo_wire_table_bytes(sp.np + sp.nm));
			CHECK(spec_same(&sp, &t));
			table_free(&t);
		} else {
			CHECK(ret == -EAGAIN || ret == -EPROTO);
		}
		stage[bit / 8] ^= 1 << (bit % 8);
	}
	free(stage);
	return 0;
}

/* Change @off of a sealed table by @fn, then seal it again honestly. */
static int lie(const struct spec *sp, void (*fn)(u8 *tab, const struct spec *sp))
{
	u64 len = ordo_wire_table_bytes(sp->cap), sum;
	struct ordo_wire_table *h;
	struct shim_table t;
	u8 *tab = malloc(len);
	int ret;

	spec_build(sp, tab);
	fn(tab, sp);
	h = (void *)tab;
	h->checksum = 0;
	sum = ordo_xxh64(tab, ordo_wire_table_bytes(le32toh(h->nr_entries) <=
						    sp->cap ?
						    le32toh(h->nr_entries) : 0),
			 0);
	h->checksum = htole64(sum);
	ret = shim_dec_table(tab, len, SID, sp->chunk, &t);
	if (!ret)
		table_free(&t);
	free(tab);
	return ret;
}

#define HDR(tab)	((struct ordo_wire_table *)(tab))
#define ENT(tab, i)	((struct ordo_wire_region *)((tab) + 64) + (i))

static void l_none(u8 *t, const struct spec *s) { }
static void l_magic(u8 *t, const struct spec *s) { HDR(t)->magic ^= 1; }
static void l_version(u8 *t, const struct spec *s) { HDR(t)->version = htole16(2); }
static void l_hdr(u8 *t, const struct spec *s) { HDR(t)->hdr_size = htole16(72); }
static void l_cap(u8 *t, const struct spec *s) { HDR(t)->cap_entries = htole32(s->cap - 1); }
static void l_nr(u8 *t, const struct spec *s) { HDR(t)->nr_entries = htole32(s->cap + 1); }
static void l_reserved(u8 *t, const struct spec *s) { HDR(t)->reserved = htole32(1); }
static void l_lease(u8 *t, const struct spec *s) { HDR(t)->lease_ms = 0; }
static void l_nr_chunks(u8 *t, const struct spec *s)
{
	HDR(t)->nr_chunks = htole32(le32toh(HDR(t)->pool_chunks) - 1);
}
static void l_pool_chunks(u8 *t, const struct spec *s)
{
	HDR(t)->pool_chunks = htole32(le32toh(HDR(t)->pool_chunks) + 1);
	HDR(t)->nr_chunks = HDR(t)->pool_chunks;
}
static void l_model_bytes(u8 *t, const struct spec *s)
{
	HDR(t)->model_bytes = htole64(le64toh(HDR(t)->model_bytes) - 1);
}
static void l_gap(u8 *t, const struct spec *s)
{
	ENT(t, 1)->offset = htole64(le64toh(ENT(t, 1)->offset) + s->chunk);
}
static void l_overlap(u8 *t, const struct spec *s)
{
	ENT(t, 1)->offset = htole64(le64toh(ENT(t, 1)->offset) - s->chunk);
}
static void l_empty(u8 *t, const struct spec *s) { ENT(t, 2)->length = 0; }
static void l_align(u8 *t, const struct spec *s)
{
	ENT(t, 2)->length = htole64(le64toh(ENT(t, 2)->length) - 8);
}
static void l_kind(u8 *t, const struct spec *s) { ENT(t, 0)->kind = htole16(3); }
static void l_flags(u8 *t, const struct spec *s) { ENT(t, 4)->flags = htole16(1); }
static void l_order(u8 *t, const struct spec *s)
{
	/* A model entry before the pool's. */
	struct ordo_wire_region e = *ENT(t, 0);

	*ENT(t, 0) = *ENT(t, 3);
	*ENT(t, 3) = e;
}
static void l_wrap(u8 *t, const struct spec *s)
{
	ENT(t, 4)->length = htole64(~0ULL - 5);
}

static int t_lies_refused(void)
{
	static void (*const lies[])(u8 *, const struct spec *) = {
		l_magic, l_version, l_hdr, l_cap, l_nr, l_reserved, l_lease,
		l_nr_chunks, l_pool_chunks, l_model_bytes, l_gap, l_overlap,
		l_empty, l_align, l_kind, l_flags, l_order, l_wrap,
	};
	struct spec sp;
	size_t i;

	spec_draw(&sp, 5, 8);
	sp.np = 3;
	sp.nm = 2;
	sp.chunk = 1 << 16;
	for (i = 0; i < 5; i++)
		sp.model_len[i] = sp.chunk * (i + 1);
	/* Sealed honestly, the spec itself is fine. */
	CHECK_EQ(0, lie(&sp, l_none));
	for (i = 0; i < sizeof(lies) / sizeof(lies[0]); i++) {
		int ret = lie(&sp, lies[i]);

		if (ret != -EPROTO)
			printf("# lie %zu: %d\n", i, ret);
		CHECK_EQ(-EPROTO, ret);
	}
	return 0;
}

int main(void)
{
	run("random tables round-trip", t_round_trip);
	run("torn copies decode to one table or none", t_torn_copies);
	run("a reader racing a writer never accepts a mixture", t_publish_race);
	run("every bit flip is caught", t_bit_flips);
	run("a lying server is refused", t_lies_refused);
	return tap_done();
}
