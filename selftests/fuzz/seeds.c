// SPDX-License-Identifier: GPL-2.0
/*
 * Seed corpora for the fuzzers, from the real encoders: a B-link tree
 * built by the core (its superblock, inner nodes and leaves, as a READ
 * returns them), a model trained by the core and written into a region
 * by ordo_region_write() (whole image, top level, descriptor and slice),
 * RPC requests of every op as libordo sends them, replies built by the
 * server's builders (kmod/core/wire.c), accept and reject private data,
 * and /dev/ordo command payloads.  Deterministic.
 *
 * Usage: seeds DIR  (writes DIR/<target>/<name>)
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "core_test.h"
#include "tree.h"
#include "model.h"
#include "wire.h"
#include "wire_table.h"
#include <linux/ordo.h>

static const char *dir;

struct buf {
	u8 b[1 << 21];
	size_t n;
};

static struct buf out;

static void put(const void *p, size_t n)
{
	if (out.n + n > sizeof(out.b))
		abort();
	memcpy(out.b + out.n, p, n);
	out.n += n;
}

static void put_u8(u8 v) { put(&v, 1); }
static void put_u16(u16 v) { v = htole16(v); put(&v, 2); }
static void put_u32(u32 v) { v = htole32(v); put(&v, 4); }
static void put_u64(u64 v) { v = htole64(v); put(&v, 8); }

static void emit(const char *target, const char *name)
{
	char path[512];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, target);
	mkdir(dir, 0755);
	mkdir(path, 0755);
	snprintf(path, sizeof(path), "%s/%s/%s", dir, target, name);
	f = fopen(path, "wb");
	if (!f || fwrite(out.b, 1, out.n, f) != out.n || fclose(f))
		abort();
	out.n = 0;
}

/* ---- fuzz_node: a tree of 8-slot leaves, 8-byte values ---- */

static void node_seeds(void)
{
	struct ordo_tree_params p;
	struct ordo_super_info si;
	struct ordo_tree t;
	const struct ordo_node_hdr *h;
	u32 n, i;
	u64 v;
	char name[64];

	ordo_tree_default_params(&p);
	p.leaf_slots = 8;
	p.value_size = 8;
	p.chunk_size = 64 << 10;
	p.max_bytes = 16 << 20;
	p.ops = &chunk_ops;
	if (ordo_tree_init(&t, &p))
		abort();
	for (i = 0; i < 3000; i++) {
		v = i * 7;
		if (ordo_tree_put(&t, i * 7, &v))
			abort();
	}
	if (ordo_super_read(ordo_pool_node(&t.pool, 0), &si))
		abort();
	/* [mode][slots: 4 + 4 = 8][vs: 8 * (1 + 0)][fix][node][level][key] */
	put_u8(1); put_u8(4); put_u8(0); put_u8(0);
	put_u32(0); put_u8(0); put_u64(0);
	put(ordo_pool_node(&t.pool, 0), si.geo.node_size);
	emit("node", "super");
	put_u8(0); put_u8(4); put_u8(0); put_u8(0);
	put_u32(si.root); put_u8(si.height - 1); put_u64(700);
	put(ordo_pool_node(&t.pool, si.root), si.geo.node_size);
	emit("node", "root");
	for (n = si.leftmost_leaf, i = 0; n && i < 4; i++) {
		h = ordo_pool_node(&t.pool, n);
		put_u8(0); put_u8(4); put_u8(0); put_u8(0);
		put_u32(n); put_u8(0); put_u64(le64toh(h->low_key) + 7);
		put(h, si.geo.node_size);
		snprintf(name, sizeof(name), "leaf%u", i);
		emit("node", name);
		n = le32toh(h->right);
	}
	ordo_tree_destroy(&t);
}

/* ---- fuzz_read: walks and scans over the first nodes of a small tree ---- */

static void read_prefix(u8 mode, const struct ordo_super_info *si, u32 root,
			u64 key, u16 count, u32 npool)
{
	/* [mode][slots: 4 + 4 = 8][vs: 8][fix][height][root][key][count][n] */
	put_u8(mode); put_u8(4); put_u8(0); put_u8(0);
	put_u8(si->height - 1); put_u32(root); put_u64(key); put_u16(count - 1);
	put_u8(npool);
}

static void read_seeds(void)
{
	struct ordo_tree_params p;
	struct ordo_super_info si;
	struct ordo_tree t;
	u32 i, npool;
	u64 v;

	ordo_tree_default_params(&p);
	p.leaf_slots = 8;
	p.value_size = 8;
	p.chunk_size = 64 << 10;
	p.max_bytes = 16 << 20;
	p.ops = &chunk_ops;
	if (ordo_tree_init(&t, &p))
		abort();
	/* 120 keys: about 20 leaves and a root above them, all in 64 nodes. */
	for (i = 0; i < 120; i++) {
		v = i * 5;
		if (ordo_tree_put(&t, i * 5, &v))
			abort();
	}
	if (ordo_super_read(ordo_pool_node(&t.pool, 0), &si))
		abort();
	npool = t.pool.next;
	if (npool > 64)
		npool = 64;
	read_prefix(0, &si, si.root, 300, 1, npool);
	for (i = 0; i < npool; i++)
		put(ordo_pool_node(&t.pool, i), si.geo.node_size);
	emit("read", "walk");
	read_prefix(1, &si, si.leftmost_leaf, 0, 200, npool);
	for (i = 0; i < npool; i++)
		put(ordo_pool_node(&t.pool, i), si.geo.node_size);
	emit("read", "scan-all");
	read_prefix(1, &si, si.leftmost_leaf, 12, 7, npool);
	for (i = 0; i < npool; i++)
		put(ordo_pool_node(&t.pool, i), si.geo.node_size);
	emit("read", "scan-7");
	ordo_tree_destroy(&t);
}

/* ---- fuzz_model: a trained model in its region ---- */

static u8 *model_image(u32 nleaves, u64 epoch, u64 *size)
{
	struct ordo_leaf_info *lv = calloc(nleaves, sizeof(*lv));
	u64 *keys = calloc((size_t)nleaves * 16, sizeof(*keys));
	struct ordo_leaf_set set = { lv, keys, nleaves };
	struct ordo_model_params mp;
	struct ordo_model *m;
	struct ordo_region rg;
	void **chunks;
	u32 i, j, nch;
	u8 *img;

	for (i = 0; i < nleaves; i++) {
		lv[i].low = i ? (u64)i * 1000 + (i % 7) * 90 : 0;
		lv[i].high = (u64)(i + 1) * 1000 + ((i + 1) % 7) * 90;
		lv[i].leaf = i + 1;
		lv[i].inca = 1;
		lv[i].count = 16;
		lv[i].flags = i + 1 == nleaves ? ORDO_LEAF_LAST : 0;
		for (j = 0; j < 16; j++)
			keys[i * 16 + j] = lv[i].low + j * 20;
	}
	ordo_model_params_default(&mp);
	mp.leaf_slots = 32;
	/*
	 * A fixed bound below the fences' jitter (0.09 leaf): several
	 * sub-models, whatever the eps search would make of so few leaves.
	 */
	mp.leaves_per_sub = 0;
	mp.eps = 8;
	if (ordo_model_train(&m, &set, &mp, epoch))
		abort();
	*size = ordo_region_bytes(m);
	nch = (*size >> 16) + 1;
	chunks = calloc(nch, sizeof(*chunks));
	for (i = 0; i < nch; i++)
		chunks[i] = calloc(1, 1 << 16);
	rg.chunks = chunks;
	rg.nchunks = nch;
	rg.chunk_shift = 16;
	rg.base = 0;
	if (ordo_region_write(&rg, m))
		abort();
	img = malloc(*size);
	for (i = 0; i < nch; i++)
		memcpy(img + ((u64)i << 16), chunks[i],
		       min_t(u64, 1 << 16, *size - min_t(u64, *size,
							  (u64)i << 16)));
	for (i = 0; i < nch; i++)
		free(chunks[i]);
	free(chunks);
	ordo_model_free(m);
	free(lv);
	free(keys);
	return img;
}

static void model_keys(void)
{
	put_u64(0); put_u64(12345); put_u64(55555); put_u64(U64_MAX);
}

static void model_seeds(void)
{
	struct ordo_model_layout lay, lay2;
	struct ordo_model_anchor anc;
	u8 gap[2 * ORDO_MODEL_ALIGN - ORDO_MODEL_ANCHOR_SIZE];
	u64 size, size2, off, len;
	u8 *img = model_image(200, 3, &size);
	u8 *img2 = model_image(40, 4, &size2);

	if (ordo_model_parse_hdr(img, size, &lay) ||
	    ordo_model_parse_hdr(img2, size2, &lay2))
		abort();
	put_u8(0); put_u8(0); model_keys(); put(img, size);
	emit("model", "image");
	put_u8(0); put_u8(0); model_keys(); put(img2, size2);
	emit("model", "image-small");
	/* A region: the anchor, a gap (an old image's place), the image. */
	memset(&anc, 0, sizeof(anc));
	anc.magic = htole32(ORDO_MODEL_ANCHOR_MAGIC);
	anc.version = htole16(ORDO_MODEL_VERSION);
	anc.anchor_size = htole16(ORDO_MODEL_ANCHOR_SIZE);
	anc.live = htole64(2 * ORDO_MODEL_ALIGN);
	anc.epoch = htole64(lay.epoch);
	memset(gap, 0, sizeof(gap));
	put_u8(0); put_u8(0); model_keys(); put(&anc, sizeof(anc));
	put(gap, sizeof(gap)); put(img, size);
	emit("model", "region");
	put_u8(1); put_u8(0); model_keys();
	put(img, ORDO_MODEL_HDR_SIZE); put(img, lay.model_size);
	emit("model", "model-only");
	/* A retraining between the two reads: another model's top level. */
	put_u8(1); put_u8(0); model_keys();
	put(img2, ORDO_MODEL_HDR_SIZE); put(img2, lay2.model_size);
	emit("model", "model-only-small");
	/* The third sub-model in use (fuzz_model counts from sub_first). */
	if (ordo_model_desc_slice(&lay, img + lay.desc_off +
				  ORDO_MODEL_DESC_SIZE * (lay.first + 2),
				  &off, &len))
		abort();
	put_u8(2); put_u8(0); model_keys(); put_u32(2);
	put(img + lay.desc_off + ORDO_MODEL_DESC_SIZE * (lay.first + 2),
	    ORDO_MODEL_DESC_SIZE);
	put_u16(len); put(img + off, len); put(img, lay.model_size);
	emit("model", "sub");
	free(img);
	free(img2);
}

/* ---- fuzz_rpc: requests as libordo sends them ---- */

static void rpc_prefix(u8 mode)
{
	/* value_size 8, max_msg 4096, store answers a = 3, b = 0x0101... */
	put_u8(mode); put_u8(0); put_u16(0);
	put_u64(3); put_u64(0x0101010101010101ULL);
}

static void req_hdr(u8 op, u32 blen)
{
	put_u64(1ULL << 16); put_u32(sizeof(struct ordo_wire_hdr) + blen);
	put_u8(ORDO_WIRE_VERSION); put_u8(op); put_u16(0); put_u32(0);
	put_u32(0);
}

static void req_kv_arg(u8 op, u64 key, u16 vlen, u8 flags, u32 arg, u32 hl,
		       u32 hi)
{
	u8 val[8] = "value!!";

	put_u64(key); put_u16(vlen); put_u8(op); put_u8(flags); put_u32(arg);
	put_u32(hl); put_u32(hi);
	if (vlen)
		put(val, 8);
}

static void req_kv(u8 op, u64 key, u16 vlen, u8 flags, u32 hl, u32 hi)
{
	req_kv_arg(op, key, vlen, flags, 0, hl, hi);
}

static void rpc_seeds(void)
{
	static const char *names[] = { "", "get", "put", "insert", "update",
				       "delete" };
	char name[32];
	u8 op;
	u32 i;

	for (op = ORDO_WIRE_OP_GET; op <= ORDO_WIRE_OP_DELETE; op++) {
		u16 vlen = op == ORDO_WIRE_OP_GET ||
			   op == ORDO_WIRE_OP_DELETE ? 0 : 7;

		rpc_prefix(0);
		req_hdr(op, 24 + ordo_wire_pad8(vlen));
		req_kv(op, 42, vlen, 0, 0, 0);
		emit("rpc", names[op]);
	}
	rpc_prefix(0);
	req_hdr(ORDO_WIRE_OP_UPDATE, 32);
	req_kv(ORDO_WIRE_OP_UPDATE, 42, 8, ORDO_WIRE_KV_HINT, 17, 3);
	emit("rpc", "update-hint");
	rpc_prefix(0);
	req_hdr(ORDO_WIRE_OP_SCAN, 16);
	put_u64(1000); put_u32(100); put_u32(0);
	emit("rpc", "scan");
	rpc_prefix(0);
	req_hdr(ORDO_WIRE_OP_INFO, 0);
	emit("rpc", "info");
	for (i = 1; i <= 2; i++) {
		rpc_prefix(0);
		req_hdr(ORDO_WIRE_OP_REGIONS, 8);
		put_u16(i); put_u16(0); put_u32(0);
		snprintf(name, sizeof(name), "regions%u", i);
		emit("rpc", name);
	}
	for (i = ORDO_WIRE_MODEL_TOP; i <= ORDO_WIRE_MODEL_TT; i++) {
		rpc_prefix(0);
		req_hdr(ORDO_WIRE_OP_MODEL_FETCH, 24);
		put_u16(i); put_u16(0);
		put_u32(i == ORDO_WIRE_MODEL_TOP ? 0 : 5);
		put_u32(i == ORDO_WIRE_MODEL_TT ? 10 : 0);
		put_u32(0); put_u64(0);
		snprintf(name, sizeof(name), "model%u", i);
		emit("rpc", name);
	}
	rpc_prefix(0);
	req_hdr(ORDO_WIRE_OP_BATCH, 8 + 24 + 32 + 24);
	put_u32(3); put_u32(0);
	req_kv(ORDO_WIRE_OP_GET, 1, 0, 0, 0, 0);
	req_kv(ORDO_WIRE_OP_PUT, 2, 8, 0, 0, 0);
	req_kv(ORDO_WIRE_OP_DELETE, 3, 0, 0, 0, 0);
	emit("rpc", "batch");
	rpc_prefix(0);
	req_hdr(ORDO_WIRE_OP_LOOKUP, 24);
	put_u64(77); put_u64(3); put_u32(0); put_u32(0);
	emit("rpc", "lookup");
	/* Long values: a GET of a part, a staged write, STAGE parts. */
	rpc_prefix(0);
	req_hdr(ORDO_WIRE_OP_GET, 24);
	req_kv_arg(ORDO_WIRE_OP_GET, 42, 0, ORDO_WIRE_KV_PART, 4000, 0, 0);
	emit("rpc", "get-part");
	rpc_prefix(0);
	req_hdr(ORDO_WIRE_OP_PUT, 24);
	req_kv_arg(ORDO_WIRE_OP_PUT, 42, 0, ORDO_WIRE_KV_STAGED, 9000, 0, 0);
	emit("rpc", "put-staged");
	for (i = 0; i < 2; i++) {
		rpc_prefix(0);
		req_hdr(ORDO_WIRE_OP_STAGE, 16 + 8);
		put_u32(9000); put_u32(i * 4000); put_u32(i ? 5 : 8);
		put_u32(0);
		put(i ? "abcde\0\0\0" : "abcdefgh", 8);
		snprintf(name, sizeof(name), "stage%u", i);
		emit("rpc", name);
	}
	/* Requests for libordo's encoder: op index, key, len, hint, kind. */
	for (i = 0; i < 10; i++) {
		rpc_prefix(2);
		put_u8(i % 7); put_u64(1000 + i); put_u16(8);
		put_u32(i == 3 ? 9 : 0);
		put_u32(64); put_u64(5); put_u8(i & 1); put_u8(i / 7 + (i > 8));
		put("12345678", 8);
		snprintf(name, sizeof(name), "client%u", i);
		emit("rpc", name);
	}
	/* Connect private data, as rdma_conn.c builds it. */
	rpc_prefix(1);
	put_u32(ORDO_WIRE_MAGIC); put_u16(ORDO_WIRE_VERSION); put_u16(32);
	put_u32(0); put_u16(6); put_u16(0);
	put("secret", 6);
	for (i = 6; i < ORDO_WIRE_TOKEN_MAX; i++)
		put_u8(0);
	emit("rpc", "conn-req");
}

/* ---- fuzz_reply: replies built by the server's builders ---- */

static void reply_prefix(u8 sel, u64 p, u32 q)
{
	put_u8(sel); put_u8(0); put_u64(p); put_u32(q);
}

static void reply_seeds(void)
{
	static u8 rep[4096];
	struct ordo_wire_scan_args a = { .start = 10, .count = 20,
					 .with_vals = true };
	u64 keys[20];
	u32 n, i, len;

	/* SCAN: 20 pairs of 8-byte values. */
	n = ordo_wire_scan_fit(&a, 8, sizeof(rep));
	for (i = 0; i < 20; i++) {
		keys[i] = 10 + i * 3;
		memset(ordo_wire_scan_vals(rep, n) + i * 8, i, 8);
	}
	len = ordo_wire_scan_finish(rep, n, 20, keys, 8, true);
	reply_prefix(2, 10, 19); put(rep, len);
	emit("reply", "scan");
	/* LOOKUP: found, with a descriptor attached. */
	{
		struct ordo_wire_lookup_rep l = { 0 };

		l.epoch = htole64(3);
		l.found = htole32(1);
		l.value_len = htole32(8);
		l.sub = htole32(2);
		l.model_len = htole32(ORDO_MODEL_DESC_SIZE + 32);
		l.model_total = htole32(ORDO_MODEL_DESC_SIZE + 32);
		reply_prefix(1, 0, 0); put(&l, sizeof(l)); put_u64(99);
		for (i = 0; i < ORDO_MODEL_DESC_SIZE + 32; i++)
			put_u8(i);
		emit("reply", "lookup");
	}
	{
		struct ordo_wire_info w = { 0 };

		w.node_size = htole32(ordo_node_size(8, 8));
		w.value_size = htole32(8);
		w.leaf_slots = htole32(8);
		reply_prefix(3, 0, 0); put(&w, sizeof(w));
		emit("reply", "info");
	}
	/* REGIONS: two pages of a three-entry table. */
	{
		struct ordo_wire_region e = { 0 };

		reply_prefix(5, 0, 0);
		put_u16(16 + 2 * sizeof(e));
		put_u32(3); put_u32(2); put_u64(3 << 16);
		for (i = 0; i < 2; i++) {
			e.offset = htole64((u64)i << 16);
			e.length = htole64(1 << 16);
			e.rkey = htole32(100 + i);
			e.kind = htole16(1);
			put(&e, sizeof(e));
		}
		put_u16(16 + sizeof(e));
		put_u32(3); put_u32(1); put_u64(3 << 16);
		e.offset = htole64(2 << 16);
		put(&e, sizeof(e));
		/* lookups: off, len */
		put_u64(0x1fff0); put_u32(16); put_u64(0x2fff0); put_u32(32);
		emit("reply", "regions");
	}
	{
		struct ordo_wire_conn_rep r = { 0 };

		r.magic = htole32(ORDO_WIRE_MAGIC);
		r.version = htole16(ORDO_WIRE_VERSION);
		r.queue_depth = htole16(32);
		r.max_msg = htole32(65536);
		r.chunk_size = htole64(64 << 10);
		r.node_size = htole32(ordo_node_size(8, 8));
		r.value_size = htole32(8);
		r.leaf_slots = htole32(8);
		r.inner_fanout = htole32(ordo_inner_fanout(r.node_size));
		r.nodes_per_chunk = htole32((64 << 10) / ordo_node_size(8, 8));
		r.max_chunks = htole32(256);
		r.nr_chunks = htole32(1);
		r.batch_max = htole32(256);
		r.value_max = htole32(ordo_value_len_max(64 << 10));
		reply_prefix(4, 0, 31); put(&r, sizeof(r));
		emit("reply", "conn-rep");
	}
	{
		struct ordo_wire_conn_rej r = { 0 };

		r.magic = htole32(ORDO_WIRE_MAGIC);
		r.version = htole16(ORDO_WIRE_VERSION);
		r.reason = htole16(ORDO_WIRE_REJ_BUSY);
		r.limit = htole32(64);
		reply_prefix(6, 0, 0); put(&r, sizeof(r));
		emit("reply", "conn-rej");
	}
	reply_prefix(0, 0, 0); req_hdr(ORDO_WIRE_OP_GET, 8); put_u64(5);
	emit("reply", "hdr");
	/* BATCH: three GETs that found their keys (p = 0: every op a GET). */
	reply_prefix(7, 0, 2);
	put_u32(3); put_u32(0);
	for (i = 0; i < 3; i++) {
		put_u32(ORDO_WIRE_OK); put_u32(i == 1 ? 5000 : 8);
		put_u32(0);
	}
	for (i = 0; i < 3; i += 2)
		put_u64(100 + i);
	emit("reply", "batch");
	/* Long values (value_max 8 + 70000): a GET part, a LOOKUP part. */
	{
		struct ordo_wire_part pt = { 0 };
		struct ordo_wire_lookup_rep l = { 0 };
		u32 q = 1 | (70000u << 12);

		pt.ref = htole64(12345);
		pt.len = htole32(5000);
		pt.offset = htole32(4000);
		pt.returned = htole32(1000);
		pt.units = htole32(ordo_extent_units(5000));
		reply_prefix(6, (2ULL << 48) | (4000ULL << 16) | 0x100, q);
		put(&pt, sizeof(pt));
		for (i = 0; i < 1000; i++)
			put_u8(i);
		emit("reply", "get-part");
		pt.offset = 0;
		pt.returned = htole32(16);
		l.found = htole32(1);
		l.value_len = htole32(sizeof(pt) + 16);
		reply_prefix(1, 2ULL << 48, q);
		put(&l, sizeof(l)); put(&pt, sizeof(pt));
		for (i = 0; i < 16; i++)
			put_u8(i);
		emit("reply", "lookup-part");
	}
}

/* ---- fuzz_ioctl: argument structs as libordo passes them ---- */

static void ioctl_seeds(void)
{
	struct ordo_kv kv = { .key = 5, .value = 0x1000, .value_len = 8 };
	struct ordo_scan sc = { .start = 1, .keys = 0x2000, .count = 10 };
	struct ordo_batch b = { .ops = 0x3000, .count = 2 };
	struct ordo_batch_op op = { .op = ORDO_OP_PUT, .kv = kv };
	struct ordo_retrain r = { 0 };
	char name[32];
	u32 i;

	for (i = 1; i <= 5; i++) {
		put_u8(i); put_u8(0); put_u8(0); put(&kv, sizeof(kv));
		snprintf(name, sizeof(name), "kv%u", i);
		emit("ioctl", name);
	}
	put_u8(6); put_u8(0); put_u8(0); put(&sc, sizeof(sc));
	emit("ioctl", "scan");
	put_u8(7); put_u8(0); put_u8(0); put(&b, sizeof(b));
	put(&op, sizeof(op)); op.op = ORDO_OP_GET; put(&op, sizeof(op));
	emit("ioctl", "batch");
	put_u8(9); put_u8(0); put_u8(0); put(&r, sizeof(r));
	emit("ioctl", "retrain");
	/* A newer caller's longer struct, zero-extended (io_uring: 80). */
	put_u8(1); put_u8(sizeof(kv) + 8); put_u8(0); put(&kv, sizeof(kv));
	put_u64(0);
	emit("ioctl", "kv-longer");
}

/* ---- fuzz_table: region tables as the server publishes them ---- */

/* A table of @np pool and @nm model entries of 2 MiB chunks, cap @cap. */
static void table_seed(const char *name, u32 cap, u32 np, u32 nm, u64 seq)
{
	struct ordo_wire_table_info ti = {
		.server_id = 0x5eed, .cap = cap, .lease_ms = 5000,
	};
	u64 chunk = 2 << 20, len = ordo_wire_table_bytes(cap);
	u8 *stage = calloc(1, len);
	u32 i;

	for (i = 0; i < np; i++) {
		ordo_wire_table_entry(stage, i, ORDO_WIRE_REGION_POOL,
				      (u64)ti.pool_chunks * chunk,
				      (u64)(i + 1) * chunk, 0x100 + i);
		ti.pool_chunks += i + 1;
	}
	for (i = 0; i < nm; i++) {
		ordo_wire_table_entry(stage, np + i, ORDO_WIRE_REGION_MODEL,
				      ti.model_bytes, chunk, 0x200 + i);
		ti.model_bytes += chunk;
	}
	ti.nr_chunks = ti.pool_chunks + 1;
	ordo_wire_table_seal(stage, seq, np + nm, &ti);
	/* chunk shift 21, server id taken from the table, resealed, lookups */
	put_u8(21); put_u8(3);
	for (i = 0; i < 8; i++) {
		put_u64((u64)i * chunk + (i % 3) * 4096 - (i % 2) * 64);
		put_u32(4096 << (i % 3));
	}
	put(stage, len);
	free(stage);
	emit("table", name);
}

static void table_seeds(void)
{
	table_seed("empty", 4, 0, 0, 2);
	table_seed("pool", 8, 3, 0, 4);
	table_seed("pool-model", 16, 4, 3, 40);
	table_seed("full", 6, 4, 2, 1000);
}

/* ---- fuzz_extent: good extents of long values, and a short READ ---- */

static void extent_seed(const char *name, u32 len, u8 fix)
{
	u32 units = ordo_extent_units(len), i;
	u64 key = 0x1234567 + len, off = 3 * 4096 + (2ULL << 20);
	u64 ref = off / ORDO_EXTENT_UNIT | (u64)(len + 7) << ORDO_EXTENT_OFF_BITS;
	u8 *x = calloc(1, units * ORDO_EXTENT_UNIT);
	struct ordo_extent_hdr *h = (void *)x;

	if (!x)
		abort();
	h->key = htole64(key);
	h->len = htole32(len);
	h->stamp = htole32(len + 7);
	for (i = 0; i < len; i++)
		x[ORDO_EXTENT_HDR_SIZE + i] = (u8)(i * 7 + len);
	h->check = htole64(ordo_xxh64(x + 8, 16 + len, 0));
	/* vs byte 0: value_size 8; chunk byte 5: 2 MiB; 4 chunks */
	put_u8(0); put_u8(5); put_u16(3);
	put_u16(ORDO_LEN_EXTENT | units); put_u64(ref); put_u64(key);
	put_u8(fix); put_u32(len);
	put(x, units * ORDO_EXTENT_UNIT);
	free(x);
	emit("extent", name);
}

static void extent_seeds(void)
{
	extent_seed("9", 9, 0);
	extent_seed("4096", 4096, 0);
	extent_seed("65536-sealed", 65536, 1);
	extent_seed("1000-short", 1000, 2);
}

int main(int argc, char **argv)
{
	if (argc != 2) {
		fprintf(stderr, "usage: seeds DIR\n");
		return 2;
	}
	dir = argv[1];
	node_seeds();
	read_seeds();
	model_seeds();
	rpc_seeds();
	reply_seeds();
	ioctl_seeds();
	table_seeds();
	extent_seeds();
	return chunks_live ? 1 : 0;
}
