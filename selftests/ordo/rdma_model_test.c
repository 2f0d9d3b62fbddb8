// SPDX-License-Identifier: GPL-2.0
/*
 * The learned model over RDMA: MODEL_FETCH of the top level, sub-models
 * and TT slices rebuilds the published model (checksums verified by the
 * client's own loader), the model region is registered as a second region
 * kind and readable by one-sided READ (read-only), and the fetched model
 * resolves keys to leaves that one-sided READs confirm -- the XStore GET
 * path end to end.
 */
#define _GNU_SOURCE
/*
 * The harness runs each test body after setjmp(); once the body is inlined
 * its locals look clobberable, but none is used after a longjmp().
 */
#pragma GCC diagnostic ignored "-Wclobbered"
#include <stdbool.h>

#include "ordo_test.h"
#include "kselftest_harness.h"
#include "model.h"
#include "node.h"
#include "raw_client.h"

#define KBASE	0x3300000000000000ULL
#define NKEYS	20000

FIXTURE(model) {
	int fd;
	uint32_t vs;
	uint64_t version;
	struct rc_conn c;
	struct ordo_geo geo;
};

/* Load NKEYS spread-out keys through /dev/ordo batches. */
static int load(int fd, uint32_t vs)
{
	static struct ordo_batch_op ops[ORDO_BATCH_MAX];
	static uint8_t vals[ORDO_BATCH_MAX][ORDO_VALUE_SIZE_MAX];
	struct ordo_batch b;
	uint32_t i = 0, j;
	int ret;

	while (i < NKEYS) {
		for (j = 0; j < ORDO_BATCH_MAX && i < NKEYS; j++, i++) {
			uint64_t k = KBASE + (uint64_t)i * i * 977;

			t_fill(vals[j], vs, k, 5);
			ops[j].op = ORDO_OP_PUT;
			ops[j].result = 0;
			ops[j].kv.key = k;
			ops[j].kv.value = (uintptr_t)vals[j];
			ops[j].kv.value_len = vs;
			ops[j].kv.flags = 0;
		}
		memset(&b, 0, sizeof(b));
		b.ops = (uintptr_t)ops;
		b.count = j;
		ret = t_ioctl(fd, ORDO_IOC_BATCH, &b);
		if (ret)
			return ret;
	}
	return 0;
}

FIXTURE_SETUP(model)
{
	struct ordo_retrain rt = { 0 };

	ASSERT_TRUE(rc_available());
	ASSERT_EQ(0, rc_set_param("token", "\n"));
	self->fd = open(ORDO_DEV, O_RDWR);
	ASSERT_LE(0, self->fd);
	self->vs = t_value_size(self->fd);
	ASSERT_EQ(0, t_clear(self->fd));
	ASSERT_EQ(0, load(self->fd, self->vs));
	ASSERT_EQ(0, t_ioctl(self->fd, ORDO_IOC_RETRAIN, &rt));
	self->version = rt.version;
	ASSERT_LT(0, self->version);
	ASSERT_EQ(0, rc_connect(&self->c, NULL));
	self->geo.node_size = le32toh(self->c.rep.node_size);
	self->geo.leaf_slots = le32toh(self->c.rep.leaf_slots);
	self->geo.inner_fanout = le32toh(self->c.rep.inner_fanout);
	self->geo.value_size = le32toh(self->c.rep.value_size);
}

FIXTURE_TEARDOWN(model)
{
	rc_close(&self->c);
	if (self->fd > 0) {
		t_clear(self->fd);
		close(self->fd);
	}
}

/*
 * Rebuild the published model by RPC alone: the top level in pieces, then
 * every sub-model with its slice (through TT fetches when it is large).
 */
static int fetch_model(struct rc_conn *c, struct ordo_model **mp,
		       uint64_t *epoch, uint32_t *rpcs)
{
	struct ordo_wire_model_rep rep;
	struct ordo_model_layout lay;
	uint32_t total, sub;
	uint8_t *top = NULL, *buf;
	int ret;

	buf = malloc(1 << 20);
	if (!buf)
		return -ENOMEM;
	*rpcs = 0;
	ret = rc_model_top(c, &top, &total, epoch, rpcs);
	if (ret)
		goto out;
	ret = ordo_model_parse_hdr(top, total, &lay);
	if (!ret)
		ret = ordo_model_load_top(mp, top, total);
	for (sub = lay.first; !ret && sub < lay.nsub; sub++) {
		uint32_t n;

		ret = rc_model_fetch(c, ORDO_WIRE_MODEL_SUB, sub, 0, 0, &rep,
				     buf, 1 << 20);
		++*rpcs;
		if (ret)
			break;
		n = le32toh(rep.returned);
		if (n < le32toh(rep.total)) {
			/* Too large for one reply: the slice by TT fetches. */
			uint64_t soff, slen;
			uint32_t first, cnt, have = 0;

			ret = ordo_model_desc_slice(&lay, buf, &soff, &slen);
			if (ret)
				break;
			first = (soff - lay.tt_off) / ORDO_TT_ENTRY_SIZE;
			cnt = slen / ORDO_TT_ENTRY_SIZE;
			while (!ret && have < cnt) {
				ret = rc_model_fetch(c, ORDO_WIRE_MODEL_TT,
					first + have, cnt - have, 0, &rep,
					buf + n + have * ORDO_TT_ENTRY_SIZE,
					(1 << 20) - n - have * ORDO_TT_ENTRY_SIZE);
				++*rpcs;
				have += le32toh(rep.returned) / ORDO_TT_ENTRY_SIZE;
				if (!rep.returned)
					ret = -EBADMSG;
			}
			n += have * ORDO_TT_ENTRY_SIZE;
			if (ret)
				break;
		}
		ret = ordo_model_load_sub(*mp, sub, buf, buf + ORDO_MODEL_DESC_SIZE,
					  n - ORDO_MODEL_DESC_SIZE);
	}
out:
	free(top);
	free(buf);
	return ret;
}

/* Resolve @key with @m and one-sided READs of the pool: 1 if found. */
static int resolve(struct rc_conn *conn, const struct ordo_geo *geo,
		   const struct ordo_model *m, uint64_t key)
{
	static uint8_t node[RC_NODE_MAX];
	const struct ordo_node_hdr *h = (const void *)node;
	struct ordo_pred pr;
	uint32_t i, n, c;
	int ret, tries;

	if (ordo_model_lookup(m, key, &pr))
		return -EINVAL;
	/* A fresh model: one of its candidates is the very leaf. */
	for (c = 0; c <= pr.ncand; c++) {
		struct ordo_tt ent, *e = &ent;

		if (!ordo_pred_try(&pr, c, &ent))
			return -ESTALE;
		for (tries = 0, ret = -EAGAIN; tries < 100 && ret == -EAGAIN;
		     tries++) {
			ret = rc_read(conn, rc_node_off(conn, e->leaf),
				      geo->node_size, node);
			if (!ret)
				ret = ordo_node_validate(node, geo);
		}
		if (ret)
			return ret;
		if (!h->level && key >= le64toh(h->low_key) &&
		    (!(h->flags & ORDO_NODE_F_HAS_HIGH) ||
		     key < le64toh(h->high_key))) {
			if (!ordo_tt_inca_matches(e, le32toh(h->incarnation)))
				return -ESTALE;
			break;
		}
	}
	n = le16toh(h->count);
	for (i = 0; i < n; i++)
		if (ordo_leaf_key(h, geo, i) == key)
			return 1;
	return 0;
}

TEST_F_TIMEOUT(model, fetch_rebuilds_the_model_and_resolves_keys, 300)
{
	struct ordo_model *m = NULL;
	uint64_t epoch = 0;
	uint32_t rpcs, i;
	int ret, tries;

	for (tries = 0, ret = -EBADMSG; tries < 10 && ret == -EBADMSG; tries++) {
		ordo_model_free(m);
		m = NULL;
		ret = fetch_model(&self->c, &m, &epoch, &rpcs);
	}
	ASSERT_EQ(0, ret);
	EXPECT_LE(self->version, epoch);
	TH_LOG("model epoch %llu: %u sub-models fetched in %u RPCs",
	       (unsigned long long)epoch, ordo_model_count(m), rpcs);
	ASSERT_EQ(0, rc_regions(&self->c));
	for (i = 0; i < NKEYS; i += 97) {
		uint64_t k = KBASE + (uint64_t)i * i * 977;

		ASSERT_EQ(1, resolve(&self->c, &self->geo, m, k));
		/* A key between stored keys resolves to a leaf without it. */
		if (i)
			EXPECT_EQ(0, resolve(&self->c, &self->geo, m, k - 1));
	}
	ordo_model_free(m);
}

TEST_F(model, model_region_by_one_sided_read)
{
	struct rc_conn *c = &self->c;
	struct ordo_wire_region *mt = NULL;
	struct ordo_wire_model_rep rep;
	struct ordo_model_layout lay;
	uint8_t hdr[ORDO_MODEL_HDR_SIZE], top[ORDO_MODEL_HDR_SIZE];
	static uint8_t big[65536];
	uint64_t covered = 0, live, epoch;
	uint32_t n = 0, i;
	int ret;

	ASSERT_EQ(0, rc_fetch_regions(&self->c, ORDO_WIRE_REGION_MODEL, &mt, &n));
	ASSERT_LE(1, n);
	for (i = 0; i < n; i++) {
		EXPECT_EQ(covered, le64toh(mt[i].offset));
		EXPECT_EQ(ORDO_WIRE_REGION_MODEL, le16toh(mt[i].kind));
		covered += le64toh(mt[i].length);
	}
	/*
	 * The anchor and the header it names by READ, the same header by
	 * RPC.  Registration follows the region's growth: wait for it.
	 */
	ASSERT_EQ(0, rc_read_region(&self->c,
				    rc_region_in(mt, n, 0, ORDO_MODEL_ANCHOR_SIZE),
				    0, ORDO_MODEL_ANCHOR_SIZE, hdr));
	ASSERT_EQ(0, ordo_model_parse_anchor(hdr, ORDO_MODEL_ANCHOR_SIZE, &live,
					     &epoch));
	ASSERT_EQ(0, rc_fetch_regions_min(c, ORDO_WIRE_REGION_MODEL,
					  live + sizeof(hdr), &mt, &n));
	ASSERT_EQ(0, rc_read_region(&self->c,
				    rc_region_in(mt, n, live, sizeof(hdr)),
				    live, sizeof(hdr), hdr));
	ASSERT_EQ(0, ordo_model_parse_hdr(hdr, sizeof(hdr), &lay));
	EXPECT_EQ(epoch, lay.epoch);
	EXPECT_LE(self->version, lay.epoch);
	ASSERT_EQ(0, rc_fetch_regions_min(c, ORDO_WIRE_REGION_MODEL,
					  live + lay.region_size, &mt, &n));
	for (covered = 0, i = 0; i < n; i++)
		covered += le64toh(mt[i].length);
	EXPECT_LE(live + lay.region_size, covered);
	ASSERT_EQ(0, rc_model_fetch(c, ORDO_WIRE_MODEL_TOP, 0, 0, 0, &rep, big,
			   sizeof(big)));
	ASSERT_LE(sizeof(top), le32toh(rep.returned));
	memcpy(top, big, sizeof(top));
	EXPECT_EQ(0, memcmp(hdr, top, sizeof(hdr)));
	/* The last byte of the region is readable; a WRITE is refused. */
	ASSERT_EQ(0, rc_read_region(&self->c, rc_region_in(mt, n, covered - 8, 8),
				    covered - 8, 8, hdr));
	memset(rc_read_buf(&self->c), 0x5a, 64);
	ret = rc_rdma_raw(&self->c, IBV_WR_RDMA_WRITE, 0, 64,
			  le32toh(mt[0].rkey));
	EXPECT_EQ(IBV_WC_REM_ACCESS_ERR, ret);
	rc_close(&self->c);
	ASSERT_EQ(0, rc_connect(&self->c, NULL));
	free(mt);
	mt = NULL;
	ASSERT_EQ(0, rc_fetch_regions(&self->c, ORDO_WIRE_REGION_MODEL, &mt, &n));
	ASSERT_EQ(0, rc_read_region(&self->c,
				    rc_region_in(mt, n, live, sizeof(hdr)),
				    live, sizeof(hdr), hdr));
	EXPECT_EQ(0, memcmp(hdr, top, sizeof(hdr)));
	free(mt);
}

TEST_F(model, fetch_bounds)
{
	struct rc_conn *c = &self->c;
	struct ordo_wire_model_rep rep;
	struct ordo_model_layout lay;
	uint8_t buf[65536];
	uint32_t total;

	ASSERT_EQ(0, rc_model_fetch(c, ORDO_WIRE_MODEL_TOP, 0, 0, 0, &rep, buf,
			   sizeof(buf)));
	ASSERT_EQ(0, ordo_model_parse_hdr(buf, le32toh(rep.returned), &lay));
	total = le32toh(rep.total);
	EXPECT_EQ(lay.model_size, total);
	/* Continuation at the very end: nothing; past it: EINVAL. */
	EXPECT_EQ(0, rc_model_fetch(c, ORDO_WIRE_MODEL_TOP, 0, 0, total, &rep, buf,
			   sizeof(buf)));
	EXPECT_EQ(0, rep.returned);
	EXPECT_EQ(-EINVAL, rc_model_fetch(c, ORDO_WIRE_MODEL_TOP, 0, 0, total + 1,
				 &rep, buf, sizeof(buf)));
	EXPECT_EQ(-EINVAL, rc_model_fetch(c, ORDO_WIRE_MODEL_SUB, lay.nsub, 0, 0,
				 &rep, buf, sizeof(buf)));
	/* The room in front of the first sub-model holds none. */
	if (lay.first)
		EXPECT_EQ(-EINVAL, rc_model_fetch(c, ORDO_WIRE_MODEL_SUB,
					 lay.first - 1, 0, 0, &rep, buf,
					 sizeof(buf)));
	EXPECT_EQ(-EINVAL, rc_model_fetch(c, ORDO_WIRE_MODEL_TT, lay.tt_cap, 1, 0,
				 &rep, buf, sizeof(buf)));
	EXPECT_EQ(-EINVAL, rc_model_fetch(c, ORDO_WIRE_MODEL_TT, 0, 0xffffffff, 0,
				 &rep, buf, sizeof(buf)));
	/* A huge count is bounded by the reply, not refused. */
	ASSERT_EQ(0, rc_model_fetch(c, ORDO_WIRE_MODEL_TT, 0, lay.tt_cap, 0, &rep,
			   buf, sizeof(buf)));
	EXPECT_GE(self->c.max_msg, self->c.reply_len);
	EXPECT_EQ(lay.tt_cap, le32toh(rep.total));
	EXPECT_EQ(lay.epoch, le64toh(rep.epoch));
}

TEST_HARNESS_MAIN
