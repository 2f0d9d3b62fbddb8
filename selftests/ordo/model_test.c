// SPDX-License-Identifier: GPL-2.0
/*
 * The learned model in the kernel: a checker reads the model region and the
 * node pool through the read-only mappings, as a client would, and resolves
 * keys: model -> candidate TT entries -> leaf, validated by incarnation and
 * fences.
 * After heavy inserts with splits and concurrent retraining, the current
 * model resolves every key exactly; models kept from earlier versions
 * resolve each key or report a mismatch -- never entries that all look
 * fresh yet lead nowhere.
 */
#define _GNU_SOURCE
#include <endian.h>
#include <pthread.h>
#include <stdbool.h>
#include <sys/mman.h>
#include <sys/syscall.h>

#include "ordo_test.h"
#include "kselftest_harness.h"
#include "model.h"
#include "node.h"

#define POOL_LEN	(256UL << 20)
#define MODEL_LEN	(64UL << 20)	/* model_max_mb's default */

FIXTURE(model) {
	int fd;
	uint32_t vs;
	const uint8_t *pool, *region;
	struct ordo_super_info sb;
};

/*
 * Copy and parse the model region (the anchor, then the live image),
 * retrying torn copies.
 */
static int read_model(const uint8_t *region, struct ordo_model **m)
{
	struct ordo_model_layout lay;
	uint8_t buf[ORDO_MODEL_HDR_SIZE];
	uint64_t live, epoch, len;
	int i, ret = -EAGAIN;

	for (i = 0; i < 200 && ret; i++) {
		uint8_t *img;

		memcpy(buf, region, ORDO_MODEL_ANCHOR_SIZE);
		ret = ordo_model_parse_anchor(buf, ORDO_MODEL_ANCHOR_SIZE,
					      &live, &epoch);
		if (ret)
			continue;
		if (live > MODEL_LEN - sizeof(buf))
			return -EFBIG;
		memcpy(buf, region + live, sizeof(buf));
		ret = ordo_model_parse_hdr(buf, sizeof(buf), &lay);
		if (ret)
			continue;
		len = live + lay.region_size;
		if (len > MODEL_LEN)
			return -EFBIG;
		img = malloc(len);
		memcpy(img, region, len);
		ret = ordo_model_from_region(m, img, len);
		free(img);
	}
	return ret;
}

/* xorshift64: the tests' deterministic key stream. */
static uint64_t next_rand(uint64_t *x)
{
	*x ^= *x << 13;
	*x ^= *x >> 7;
	*x ^= *x << 17;
	return *x;
}

static int cmp_key(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/*
 * @n ascending keys on a curve: one line cannot cover them, so a model
 * has many sub-models (gaps of 64 * (2i + 1), jitter below 32).
 */
static void curved_keys(uint64_t *keys, uint32_t n, uint64_t *x)
{
	uint32_t i;

	for (i = 0; i < n; i++)
		keys[i] = (1ULL << 40) + 64ULL * i * i + next_rand(x) % 32;
}

struct resolve {
	long match;	/* a candidate covers the key, incarnation matched */
	long mismatch;	/* stale entry detected by incarnation */
	long wrong;	/* fresh-looking entries, but none covers the key */
	long missing;	/* a stored key absent from a matching leaf */
};

/*
 * Resolve @key with @m through the pool mapping; @stored: the key is in the
 * store, so a matching leaf must hold it.
 */
static void resolve(const struct ordo_model *m, const uint8_t *pool,
		    const struct ordo_super_info *sb, uint64_t key,
		    bool stored, struct resolve *r)
{
	const struct ordo_geo *geo = &sb->geo;
	uint8_t copy[8192];
	const struct ordo_node_hdr *h = (const void *)copy;
	struct ordo_tt ent, *e = NULL;
	struct ordo_pred pr;
	uint64_t low, high;
	uint32_t i, n, c;
	bool stale = false;
	int ret;

	if (ordo_model_lookup(m, key, &pr)) {
		r->wrong++;
		return;
	}
	/* The candidates, then the leaf before them (a tie settled right). */
	for (c = 0; (e = ordo_pred_try(&pr, c, &ent) ? &ent : NULL); c++) {
		do {
			ret = ordo_node_copy_validate(copy, pool +
				ordo_node_offset(e->leaf, sb->nodes_per_chunk,
						 sb->chunk_size,
						 geo->node_size), geo);
		} while (ret == -EAGAIN);
		stale |= ret || !ordo_tt_inca_matches(e,
					le32_to_cpu(h->incarnation));
		low = le64_to_cpu(h->low_key);
		high = le64_to_cpu(h->high_key);
		if (!ret && !h->level && !(h->flags & ORDO_NODE_F_FREE) &&
		    key >= low &&
		    (!(h->flags & ORDO_NODE_F_HAS_HIGH) || key < high))
			break;
	}
	if (!e || !ordo_tt_inca_matches(e, le32_to_cpu(h->incarnation))) {
		/* No entry leads to the key: stale if one says so. */
		if (stale || e)
			r->mismatch++;
		else
			r->wrong++;
		return;
	}
	r->match++;
	if (!stored)
		return;
	n = le16_to_cpu(h->count);
	for (i = 0; i < n; i++)
		if (ordo_leaf_key(h, geo, i) == key)
			return;
	r->missing++;
}

static void put_keys(struct __test_metadata *_metadata, int fd, uint32_t vs,
		     const uint64_t *keys, uint32_t n)
{
	struct ordo_batch_op ops[ORDO_BATCH_MAX];
	uint8_t *vals = calloc(ORDO_BATCH_MAX, vs);
	uint32_t i, j;

	for (i = 0; i < n; i += ORDO_BATCH_MAX) {
		uint32_t b = n - i < ORDO_BATCH_MAX ? n - i : ORDO_BATCH_MAX;
		struct ordo_batch bt = { .ops = (uintptr_t)ops, .count = b };

		memset(ops, 0, sizeof(ops));
		for (j = 0; j < b; j++) {
			ops[j].op = ORDO_OP_PUT;
			ops[j].kv.key = keys[i + j];
			ops[j].kv.value = (uintptr_t)(vals + j * vs);
			ops[j].kv.value_len = 8;
		}
		ASSERT_EQ(0, t_ioctl(fd, ORDO_IOC_BATCH, &bt));
	}
	free(vals);
}

static int model_info(int fd, struct ordo_model_info *mi)
{
	memset(mi, 0, sizeof(*mi));
	return t_ioctl(fd, ORDO_IOC_MODEL_INFO, mi);
}

static int retrain(int fd, uint64_t *version)
{
	struct ordo_retrain r = { 0 };
	int ret = t_ioctl(fd, ORDO_IOC_RETRAIN, &r);

	*version = r.version;
	return ret;
}

/* Wait until the trainer has caught up with every queued split. */
static void settle(int fd)
{
	struct ordo_model_info a, b;
	int i;

	for (i = 0; i < 100; i++) {
		usleep(300000);
		model_info(fd, &a);
		usleep(1500000);
		model_info(fd, &b);
		if (!a.pending && !b.pending && a.retrains == b.retrains &&
		    a.full_trains == b.full_trains)
			return;
	}
}

/* Open the device and map the pool and the model region read-only. */
static void open_mapped(struct __test_metadata *_metadata,
			FIXTURE_DATA(model) * self)
{
	void *p;

	self->fd = open(ORDO_DEV, O_RDWR);
	ASSERT_LE(0, self->fd);
	p = mmap(NULL, POOL_LEN, PROT_READ, MAP_SHARED, self->fd,
		 ORDO_MMAP_POOL);
	ASSERT_NE(MAP_FAILED, p);
	self->pool = p;
	p = mmap(NULL, MODEL_LEN, PROT_READ, MAP_SHARED, self->fd,
		 ORDO_MMAP_MODEL);
	ASSERT_NE(MAP_FAILED, p);
	self->region = p;
}

FIXTURE_SETUP(model)
{
	open_mapped(_metadata, self);
	self->vs = t_value_size(self->fd);
	ASSERT_EQ(0, t_clear(self->fd));
}

FIXTURE_TEARDOWN(model)
{
	if (!access("/sys/kernel/debug/ordo/fail_full_trainings", F_OK))
		t_write_file("/sys/kernel/debug/ordo/fail_full_trainings", "0");
	munmap((void *)self->pool, POOL_LEN);
	munmap((void *)self->region, MODEL_LEN);
	t_clear(self->fd);
	close(self->fd);
}

/* MODEL_INFO of the first version: its 168 bytes, nothing past them. */
TEST_F(model, model_info_first_version)
{
	const size_t v0 = ORDO_MODEL_INFO_SIZE_VER0;
	unsigned char old[ORDO_MODEL_INFO_SIZE_VER0 + 16];
	struct ordo_model_info mi;
	size_t i;

	EXPECT_EQ(v0, offsetof(struct ordo_model_info, cand_avg_milli));
	memset(old, 0xa5, sizeof(old));
	memset(&mi, 0x5a, sizeof(mi));
	ASSERT_EQ(0, t_ioctl(self->fd, _IOC(_IOC_READ, ORDO_IOC_MAGIC, 0x08,
					    v0), old));
	ASSERT_EQ(0, model_info(self->fd, &mi));
	EXPECT_EQ(0, memcmp(old, &mi, v0));
	for (i = v0; i < sizeof(old); i++)
		EXPECT_EQ(0xa5, old[i]);
	EXPECT_EQ(-EINVAL, t_ioctl(self->fd, _IOC(_IOC_READ, ORDO_IOC_MAGIC,
						  0x08, v0 - 1), old));
}

TEST_F(model, retrain_errors_and_readonly_region)
{
	struct ordo_retrain r = { .flags = 1 };
	uint64_t v;

	EXPECT_EQ(-ENODATA, retrain(self->fd, &v));
	EXPECT_EQ(-EINVAL, t_ioctl(self->fd, ORDO_IOC_RETRAIN, &r));
	EXPECT_EQ(-EINVAL, t_ioctl(self->fd, _IOC(_IOC_READ, ORDO_IOC_MAGIC,
						  0x08, 16), &r));
	EXPECT_EQ(-EFAULT, t_ioctl(self->fd, ORDO_IOC_MODEL_INFO, NULL));
	EXPECT_EQ(MAP_FAILED, mmap(NULL, 4096, PROT_READ | PROT_WRITE,
				   MAP_SHARED, self->fd, ORDO_MMAP_MODEL));
	EXPECT_EQ(-1, mprotect((void *)self->region, 4096,
			       PROT_READ | PROT_WRITE));
}

TEST_F_TIMEOUT(model, fresh_and_stale_models_resolve, 900)
{
	uint32_t n0 = 100000, n1 = 150000, i, nstale = 0;
	uint64_t *keys = malloc((n0 + n1) * 8), v1, v2, x = 88172645463325252ULL;
	struct ordo_model *stale[8] = { 0 }, *m = NULL;
	struct ordo_model_info mi;
	struct resolve r;

	/* A first model over a clustered key set. */
	for (i = 0; i < n0 + n1; i++) {
		next_rand(&x);
		keys[i] = (x % 50) * (1ULL << 40) + (x >> 40) % 5000000;
	}
	put_keys(_metadata, self->fd, self->vs, keys, n0);
	ASSERT_EQ(0, retrain(self->fd, &v1));
	ASSERT_LT(0, v1);
	ASSERT_EQ(0, model_info(self->fd, &mi));
	EXPECT_EQ(v1, mi.version);
	EXPECT_LT(0, mi.sub_models);
	EXPECT_EQ(t_sysfs_u64("stats/leaves"), mi.tt_entries);
	EXPECT_EQ(t_sysfs_u64("stats/keys"), mi.keys);
	EXPECT_EQ(0, mi.wrong);
	EXPECT_LT(0, mi.one_leaf_ppm + mi.window_avg_milli);
	/* A fresh model: about one leaf read per stored key. */
	EXPECT_LE(1000, mi.cand_avg_milli);
	EXPECT_GE(1050, mi.cand_avg_milli);
	EXPECT_LE(1, mi.cand_max);
	EXPECT_LT(500000, mi.cand_one_ppm);
	EXPECT_GE(1000000, mi.cand_one_ppm);
	EXPECT_EQ(mi.cand_avg_milli, t_sysfs_u64("model/cand_avg_milli"));
	EXPECT_EQ(mi.cand_one_ppm, t_sysfs_u64("model/cand_one_ppm"));
	EXPECT_EQ(mi.version, t_sysfs_u64("model/version"));
	ASSERT_EQ(0, read_model(self->region, &stale[nstale]));
	ASSERT_EQ(v1, stale[nstale]->epoch);
	nstale++;
	ASSERT_EQ(0, ordo_super_read(self->pool, &self->sb));

	/* The fresh model resolves stored and absent keys exactly. */
	memset(&r, 0, sizeof(r));
	for (i = 0; i < n0; i++) {
		resolve(stale[0], self->pool, &self->sb, keys[i], true, &r);
		resolve(stale[0], self->pool, &self->sb, keys[i] + 1, false, &r);
	}
	resolve(stale[0], self->pool, &self->sb, 0, false, &r);
	resolve(stale[0], self->pool, &self->sb, UINT64_MAX, false, &r);
	EXPECT_EQ(2 * n0 + 2, r.match);
	EXPECT_EQ(0, r.wrong + r.mismatch + r.missing);

	/*
	 * Heavy inserts with splits while the trainer retrains sub-models;
	 * the checker keeps the models it sees on the way, each with a batch
	 * of inserts still to come (their splits make it stale).
	 */
	for (i = n0; i < n0 + n1; i += 10000) {
		struct ordo_model *seen = NULL;

		put_keys(_metadata, self->fd, self->vs, keys + i, 10000);
		if (nstale < 8 && i + 10000 < n0 + n1 &&
		    !read_model(self->region, &seen)) {
			if (seen->epoch != stale[nstale - 1]->epoch)
				stale[nstale++] = seen;
			else
				ordo_model_free(seen);
		}
	}
	settle(self->fd);
	ASSERT_EQ(0, model_info(self->fd, &mi));
	TH_LOG("after inserts: version %llu, %u sub-models, %llu retrains, %llu full trains, %llu expansions",
	       (unsigned long long)mi.version, mi.sub_models,
	       (unsigned long long)mi.retrains,
	       (unsigned long long)mi.full_trains,
	       (unsigned long long)mi.expansions);
	EXPECT_LT(0, mi.retrains + mi.full_trains - 1);
	EXPECT_EQ(0, mi.pending);

	/* The current model, patched by retrains, resolves every key. */
	ASSERT_EQ(0, read_model(self->region, &m));
	ASSERT_EQ(0, ordo_super_read(self->pool, &self->sb));
	memset(&r, 0, sizeof(r));
	for (i = 0; i < n0 + n1; i++)
		resolve(m, self->pool, &self->sb, keys[i], true, &r);
	EXPECT_EQ(n0 + n1, r.match);
	EXPECT_EQ(0, r.wrong + r.mismatch + r.missing);

	/* Stale models: resolved or detected, never wrong. */
	for (v2 = 0; v2 < nstale; v2++) {
		memset(&r, 0, sizeof(r));
		for (i = 0; i < n0 + n1; i++)
			resolve(stale[v2], self->pool, &self->sb, keys[i],
				true, &r);
		TH_LOG("stale model %llu: %ld resolved, %ld detected stale",
		       (unsigned long long)stale[v2]->epoch, r.match,
		       r.mismatch);
		EXPECT_EQ(0, r.wrong);
		EXPECT_EQ(0, r.missing);
		EXPECT_LT(0, r.mismatch);
		ordo_model_free(stale[v2]);
	}
	ordo_model_free(m);
	free(keys);
}

static void reload(struct __test_metadata *_metadata,
		   FIXTURE_DATA(model) * self, const char *params);

TEST_F_TIMEOUT(model, expands_as_leaves_grow, 900)
{
	uint32_t n = 20000, i;
	uint64_t *keys = malloc(8 * n * 8), v;
	struct ordo_model_info a, b;
	char params[512];

	/*
	 * Leaves emptied by earlier tests (clustered keys) would still shape
	 * the first training: their clusters get sub-models of their own.
	 */
	t_module_params(params, sizeof(params));
	reload(_metadata, self, params);
	for (i = 0; i < 8 * n; i++)
		keys[i] = (uint64_t)i * 7919 * 1000003;
	put_keys(_metadata, self->fd, self->vs, keys, n);
	ASSERT_EQ(0, retrain(self->fd, &v));
	ASSERT_EQ(0, model_info(self->fd, &a));
	put_keys(_metadata, self->fd, self->vs, keys + n, 7 * n);
	settle(self->fd);
	ASSERT_EQ(0, model_info(self->fd, &b));
	TH_LOG("sub-models %u -> %u, expansions %llu -> %llu", a.sub_models,
	       b.sub_models, (unsigned long long)a.expansions,
	       (unsigned long long)b.expansions);
	EXPECT_LT(a.sub_models, b.sub_models);
	EXPECT_LT(a.expansions + a.full_trains, b.expansions + b.full_trains);
	free(keys);
}

/* One full training on another thread; @done when it returns. */
struct retrainer {
	int fd;
	int ret;
	uint64_t version;
	volatile int done;
};

static void *retrain_thread(void *arg)
{
	struct retrainer *r = arg;

	r->ret = retrain(r->fd, &r->version);
	__atomic_store_n(&r->done, 1, __ATOMIC_RELEASE);
	return NULL;
}

/*
 * Double buffering: a full training writes its image beside the live one
 * and then moves the anchor.  Every copy of the live image taken while the
 * training runs loads whole (a client keeps its model), every read through
 * the anchor loads some complete model, and after the move the anchor
 * names the new epoch while the old image is still intact.
 */
TEST_F_TIMEOUT(model, live_image_survives_full_training, 900)
{
	uint32_t n = 150000, i, during = 0, bad = 0, via_anchor = 0;
	uint64_t *keys = malloc(n * 8), v, live, epoch, len, x = 7;
	struct ordo_model_layout lay;
	struct retrainer r = { .fd = self->fd };
	struct ordo_model *m;
	uint8_t *img;
	pthread_t th;

	for (i = 0; i < n; i++)
		keys[i] = next_rand(&x);
	put_keys(_metadata, self->fd, self->vs, keys, n);
	ASSERT_EQ(0, retrain(self->fd, &v));
	ASSERT_EQ(0, ordo_model_parse_anchor(self->region,
					     ORDO_MODEL_ANCHOR_SIZE, &live,
					     &epoch));
	ASSERT_EQ(v, epoch);
	ASSERT_EQ(0, ordo_model_parse_hdr(self->region + live,
					  ORDO_MODEL_HDR_SIZE, &lay));
	len = lay.region_size;
	ASSERT_GE(MODEL_LEN, live + len);
	img = malloc(len);
	ASSERT_EQ(0, pthread_create(&th, NULL, retrain_thread, &r));
	while (!__atomic_load_n(&r.done, __ATOMIC_ACQUIRE)) {
		memcpy(img, self->region + live, len);
		if (ordo_model_from_image(&m, img, len)) {
			bad++;
		} else {
			bad += m->epoch != v;
			ordo_model_free(m);
		}
		during++;
		if (!read_model(self->region, &m)) {
			via_anchor++;
			ordo_model_free(m);
		}
	}
	pthread_join(th, NULL);
	TH_LOG("%u copies of the live image during the training, %u bad; "
	       "%u loads through the anchor", during, bad, via_anchor);
	ASSERT_EQ(0, r.ret);
	EXPECT_EQ(v + 1, r.version);
	EXPECT_LT(0, during);
	EXPECT_EQ(0, bad);
	EXPECT_EQ(during, via_anchor);
	/* The anchor names the new epoch; the old image is still whole. */
	ASSERT_EQ(0, read_model(self->region, &m));
	EXPECT_EQ(v + 1, m->epoch);
	ordo_model_free(m);
	memcpy(img, self->region + live, len);
	ASSERT_EQ(0, ordo_model_from_image(&m, img, len));
	EXPECT_EQ(v, m->epoch);
	ordo_model_free(m);
	free(img);
	free(keys);
}

/*
 * Load the module again with @params (t_module_params() and more): a
 * fresh store, no leaves of earlier tests still being retired.
 */
static void reload(struct __test_metadata *_metadata,
		   FIXTURE_DATA(model) * self, const char *params)
{
	char cmd[768];

	munmap((void *)self->region, MODEL_LEN);
	munmap((void *)self->pool, POOL_LEN);
	close(self->fd);
	ASSERT_EQ(0, syscall(SYS_delete_module, "ordo", O_NONBLOCK));
	snprintf(cmd, sizeof(cmd), "insmod kmod/ordo.ko%s", params);
	ASSERT_EQ(0, system(cmd));
	open_mapped(_metadata, self);
}

/*
 * The published model has @sub_models sub-models and resolves each of
 * @keys to the leaf that holds it.
 */
static void expect_resolved(struct __test_metadata *_metadata,
			    FIXTURE_DATA(model) * self, const uint64_t *keys,
			    uint32_t n, uint32_t sub_models)
{
	struct resolve r = { 0 };
	struct ordo_model *m;
	uint32_t i;

	ASSERT_EQ(0, read_model(self->region, &m));
	EXPECT_EQ(sub_models, ordo_model_count(m));
	ASSERT_EQ(0, ordo_super_read(self->pool, &self->sb));
	for (i = 0; i < n; i++)
		resolve(m, self->pool, &self->sb, keys[i], true, &r);
	EXPECT_EQ(n, r.match);
	EXPECT_EQ(0, r.wrong + r.mismatch + r.missing);
	ordo_model_free(m);
}

/*
 * Ids appended in order (auto-increment keys with small gaps) outgrow the
 * last sub-model (max_sub_leaves) and its TT room: the trainer cuts the
 * tail and appends sub-models, and grows the TT area, within the epoch --
 * seen in the region as a larger top_gen under the same epoch -- and the
 * patched region resolves every key.
 */
TEST_F_TIMEOUT(model, appends_extend_the_tail, 900)
{
	uint32_t n0 = 100000, n1 = 45000, i, top_gen = 0, nsub = 0;
	uint64_t *keys = malloc((n0 + n1) * 8), v, x = 5;
	struct ordo_model_info a, b;
	struct ordo_model *m;
	char params[512];

	/* Leaves emptied by earlier tests would be retired meanwhile. */
	t_module_params(params, sizeof(params));
	reload(_metadata, self, params);
	for (i = 0; i < n0 + n1; i++)
		keys[i] = 1000000 + 3ULL * i + next_rand(&x) % 3;
	put_keys(_metadata, self->fd, self->vs, keys, n0);
	ASSERT_EQ(0, retrain(self->fd, &v));
	ASSERT_EQ(0, model_info(self->fd, &a));
	/* Append in steps; after each, look for the tail's cuts. */
	for (i = 0; i < n1; i += 5000) {
		put_keys(_metadata, self->fd, self->vs, keys + n0 + i,
			 n1 - i < 5000 ? n1 - i : 5000);
		settle(self->fd);
		ASSERT_EQ(0, read_model(self->region, &m));
		if (m->epoch == a.version && m->top_gen > top_gen) {
			top_gen = m->top_gen;
			nsub = ordo_model_count(m);
		}
		ordo_model_free(m);
	}
	ASSERT_EQ(0, model_info(self->fd, &b));
	TH_LOG("sub-models %u -> %u (%u with top_gen %u in the first epoch), "
	       "full trainings %llu -> %llu, retrains %llu -> %llu",
	       a.sub_models, b.sub_models, nsub, top_gen,
	       (unsigned long long)a.full_trains,
	       (unsigned long long)b.full_trains,
	       (unsigned long long)a.retrains,
	       (unsigned long long)b.retrains);
	EXPECT_LT(0, top_gen);
	EXPECT_LT(a.sub_models, nsub);
	expect_resolved(_metadata, self, keys, n0 + n1, b.sub_models);
	free(keys);
}

/*
 * Countdown ids (keys below every stored key, arriving in decreasing
 * order) grow the first sub-model at its left: the trainer moves its
 * pivot with its leftmost leaves, cuts it from the right and puts new
 * sub-models in front of it within the epoch -- seen in the region as a
 * smaller sub_first under the same epoch -- instead of training again
 * and again (format 4 needed a full training every ~20 splits here), and
 * the patched region resolves every key.
 */
TEST_F_TIMEOUT(model, descending_inserts_extend_the_head, 900)
{
	uint32_t n0 = 100000, n1 = 60000, i, first0 = 0, first = 0;
	uint64_t *keys = malloc((n0 + n1) * 8), v, x = 7;
	struct ordo_model_info a, b;
	struct ordo_model *m;
	char params[512];

	t_module_params(params, sizeof(params));
	reload(_metadata, self, params);
	for (i = 0; i < n0; i++)
		keys[i] = 1000000000ULL + 3ULL * i + next_rand(&x) % 3;
	for (i = 0; i < n1; i++)
		keys[n0 + i] = 1000000000ULL - 3ULL * (i + 1) -
			       next_rand(&x) % 3;
	put_keys(_metadata, self->fd, self->vs, keys, n0);
	ASSERT_EQ(0, retrain(self->fd, &v));
	ASSERT_EQ(0, model_info(self->fd, &a));
	ASSERT_EQ(0, read_model(self->region, &m));
	first0 = first = m->first;
	ordo_model_free(m);
	/* Count down in steps; after each, look for the head's cuts. */
	for (i = 0; i < n1; i += 5000) {
		put_keys(_metadata, self->fd, self->vs, keys + n0 + i,
			 n1 - i < 5000 ? n1 - i : 5000);
		settle(self->fd);
		ASSERT_EQ(0, read_model(self->region, &m));
		if (m->epoch == a.version && m->first < first)
			first = m->first;
		ordo_model_free(m);
	}
	ASSERT_EQ(0, model_info(self->fd, &b));
	TH_LOG("sub-models %u -> %u, first sub-model %u -> %u in the first "
	       "epoch, full trainings %llu -> %llu, retrains %llu -> %llu",
	       a.sub_models, b.sub_models, first0, first,
	       (unsigned long long)a.full_trains,
	       (unsigned long long)b.full_trains,
	       (unsigned long long)a.retrains,
	       (unsigned long long)b.retrains);
	EXPECT_LT(first, first0);
	EXPECT_LE(b.full_trains, a.full_trains + 2);
	expect_resolved(_metadata, self, keys, n0 + n1, b.sub_models);
	free(keys);
}

/*
 * Sub-models of @prev (same epoch as @m) found at another index in @m:
 * only a middle cut moves sub-models (tail and head cuts add new ones
 * around them).  The first one's pivot may move, so it is left out.
 */
static uint32_t moved_subs(const struct ordo_model *prev,
			   const struct ordo_model *m)
{
	uint32_t i, j, moved = 0;

	if (prev->epoch != m->epoch)
		return 0;
	for (i = prev->first + 1; i < prev->nsub; i++) {
		j = ordo_model_sub_of(m, prev->pivots[i]);
		moved += m->pivots[j] == prev->pivots[i] && j != i;
	}
	return moved;
}

/*
 * A hotspot: keys arrive in random order inside one gap in the middle of
 * the store, inside one sub-model with neighbours on both sides.  Their
 * splits crowd its fences into shared cells; the trainer cuts it there,
 * moves the sub-models to new indices for the pieces and writes the
 * model as a new image within the epoch, instead of training afresh
 * (format 7 before the middle cut needed 12 to 17 full trainings per
 * million such keys on clustered sets), and the image resolves every key.
 * The allowance of two full trainings, as for countdown ids, is for a
 * round of splits that meets a TT area unable to grow in place (a
 * retraining short of TT room grows it and tries again since this test
 * first caught one); none was needed in the runs so far.
 */
TEST_F_TIMEOUT(model, hotspot_cuts_in_the_middle, 900)
{
	uint32_t n0 = 100000, n1 = 40000, i, j, moved = 0;
	uint64_t *keys = malloc((n0 + n1) * 8), v, x = 11, mid, t;
	struct ordo_model *m, *prev = NULL;
	struct ordo_model_info a, b;
	char params[512];

	t_module_params(params, sizeof(params));
	reload(_metadata, self, params);
	curved_keys(keys, n0, &x);
	mid = keys[n0 / 2] + 100;
	for (i = 0; i < n1; i++)
		keys[n0 + i] = mid + 25ULL * i;
	for (i = n1 - 1; i > 0; i--) {	/* random order */
		j = next_rand(&x) % (i + 1);
		t = keys[n0 + i];
		keys[n0 + i] = keys[n0 + j];
		keys[n0 + j] = t;
	}
	put_keys(_metadata, self->fd, self->vs, keys, n0);
	ASSERT_EQ(0, retrain(self->fd, &v));
	ASSERT_EQ(0, model_info(self->fd, &a));
	ASSERT_EQ(0, read_model(self->region, &prev));
	for (i = 0; i < n1; i += 5000) {
		put_keys(_metadata, self->fd, self->vs, keys + n0 + i,
			 n1 - i < 5000 ? n1 - i : 5000);
		settle(self->fd);
		ASSERT_EQ(0, read_model(self->region, &m));
		moved += moved_subs(prev, m);
		ordo_model_free(prev);
		prev = m;
	}
	ordo_model_free(prev);
	ASSERT_EQ(0, model_info(self->fd, &b));
	TH_LOG("sub-models %u -> %u, %u seen at new indices, full trainings "
	       "%llu -> %llu, retrains %llu -> %llu", a.sub_models,
	       b.sub_models, moved, (unsigned long long)a.full_trains,
	       (unsigned long long)b.full_trains,
	       (unsigned long long)a.retrains,
	       (unsigned long long)b.retrains);
	EXPECT_LT(2, a.sub_models);
	EXPECT_LT(0, moved);
	EXPECT_LE(b.full_trains, a.full_trains + 2);
	expect_resolved(_metadata, self, keys, n0 + n1, b.sub_models);
	free(keys);
}

/*
 * A full training first retires the empty leaves that can go, so the
 * model's size follows the keys stored, not how far background retirement
 * had got after a mass delete: a training right after the delete and one
 * after retirement has long finished pick the same sub-model count.
 */
TEST_F_TIMEOUT(model, size_does_not_follow_retirement, 900)
{
	uint32_t n = 200000, m = 20000, i;
	uint64_t *keys = malloc(n * 8), v, l0, l1;
	struct ordo_model_info a, b;
	int stable = 0;

	for (i = 0; i < n; i++)
		keys[i] = 5000000 + (uint64_t)i * 8;
	put_keys(_metadata, self->fd, self->vs, keys, n);
	ASSERT_EQ(0, t_clear(self->fd));
	for (i = 0; i < m; i++)
		keys[i] = 5000000 + (uint64_t)i * 80;
	put_keys(_metadata, self->fd, self->vs, keys, m);
	ASSERT_EQ(0, retrain(self->fd, &v));
	ASSERT_EQ(0, model_info(self->fd, &a));
	/* Background retirement has nothing left once leaves stop moving. */
	l0 = t_sysfs_u64("stats/leaves");
	for (i = 0; i < 240 && stable < 6; i++) {
		usleep(500000);
		l1 = t_sysfs_u64("stats/leaves");
		stable = l1 == l0 ? stable + 1 : 0;
		l0 = l1;
	}
	ASSERT_EQ(0, retrain(self->fd, &v));
	ASSERT_EQ(0, model_info(self->fd, &b));
	TH_LOG("sub-models %u and %u, TT entries %llu and %llu", a.sub_models,
	       b.sub_models, (unsigned long long)a.tt_entries,
	       (unsigned long long)b.tt_entries);
	EXPECT_EQ(a.sub_models, b.sub_models);
	EXPECT_EQ(a.tt_entries, b.tt_entries);
	free(keys);
}

/*
 * Mass deletes: the trainer retires the emptied leaves (their nodes go back
 * to the pool) and the retrained model still resolves every key.
 */
TEST_F_TIMEOUT(model, retires_empty_leaves, 900)
{
	uint32_t n = 60000, i, kept = 0;
	uint64_t *keys = malloc(n * 8), *rest = malloc(n * 8), v;
	unsigned long long leaves0, leaves1, retired0;
	struct ordo_model *m = NULL;
	struct resolve r = { 0 };

	for (i = 0; i < n; i++)
		keys[i] = 1000000 + (uint64_t)i * 16;
	put_keys(_metadata, self->fd, self->vs, keys, n);
	ASSERT_EQ(0, retrain(self->fd, &v));
	leaves0 = t_sysfs_u64("stats/leaves");
	retired0 = t_sysfs_u64("stats/leaves_retired");
	for (i = 0; i < n; i++) {
		if (i % 500 == 0) {
			rest[kept++] = keys[i];
			continue;
		}
		ASSERT_EQ(0, t_kv(self->fd, ORDO_IOC_DELETE, keys[i], NULL, 0));
	}
	settle(self->fd);
	leaves1 = t_sysfs_u64("stats/leaves");
	TH_LOG("leaves %llu -> %llu, %llu retired", leaves0, leaves1,
	       t_sysfs_u64("stats/leaves_retired"));
	/* Inner nodes are not retired, and each keeps at least one leaf. */
	EXPECT_GE(kept + t_sysfs_u64("stats/inner_nodes"), leaves1);
	EXPECT_LE(retired0 + leaves0 - leaves1,
		  t_sysfs_u64("stats/leaves_retired"));

	/* What is left is still found, by GET and through the model. */
	ASSERT_EQ(0, read_model(self->region, &m));
	ASSERT_EQ(0, ordo_super_read(self->pool, &self->sb));
	for (i = 0; i < kept; i++) {
		ASSERT_EQ(0, t_kv(self->fd, ORDO_IOC_GET, rest[i], keys,
				  self->vs));
		resolve(m, self->pool, &self->sb, rest[i], true, &r);
	}
	EXPECT_EQ(kept, r.match);
	EXPECT_EQ(0, r.wrong + r.missing);
	ordo_model_free(m);

	free(keys);
	free(rest);
}

/*
 * Deletes empty the leaves on both sides of some pivots and the trainer
 * retires them: a neighbour takes each one's range, and where the
 * retired leaf was the first or last of its sub-model, the neighbour's
 * range reaches across the pivot.  The trainer merges the sub-models on
 * both sides (cutting the union again where one line does not cover it)
 * and writes a new image within the epoch; before, each such retirement
 * cost a full training (this test saw the epoch change).  The image
 * resolves every key left.
 */
TEST_F_TIMEOUT(model, retired_boundaries_merge_sub_models, 900)
{
	uint32_t n = 60000, i, j, kept = 0, bounds = 0;
	uint64_t *keys = malloc(n * 8), *rest = malloc(n * 8), v, x = 7;
	uint8_t *gone = calloc(n, 1);
	unsigned long long retired0;
	struct ordo_model *m, *m2;
	struct ordo_model_info a, b;
	char params[512];

	/* A fresh store: its fences, hence the pivots, are stored keys. */
	t_module_params(params, sizeof(params));
	reload(_metadata, self, params);
	curved_keys(keys, n, &x);
	put_keys(_metadata, self->fd, self->vs, keys, n);
	ASSERT_EQ(0, retrain(self->fd, &v));
	ASSERT_EQ(0, model_info(self->fd, &a));
	ASSERT_EQ(0, read_model(self->region, &m));
	ASSERT_LT(4, ordo_model_count(m));
	retired0 = t_sysfs_u64("stats/leaves_retired");
	/* 40 keys on either side of every other pivot (a stored key). */
	for (i = m->first + 1; i < m->nsub; i += 2, bounds++) {
		uint64_t *at = bsearch(&m->pivots[i], keys, n, 8, cmp_key);

		ASSERT_NE(NULL, at);
		ASSERT_LT(40, at - keys);
		for (j = at - keys - 40; j < at - keys + 40 && j < n; j++) {
			ASSERT_EQ(0, t_kv(self->fd, ORDO_IOC_DELETE, keys[j],
					  NULL, 0));
			gone[j] = 1;
		}
	}
	for (i = 0; i < n; i++)
		if (!gone[i])
			rest[kept++] = keys[i];
	/* Retirement runs in the trainer's rounds, one a second at most. */
	for (i = 0; i < 240; i++) {
		if (t_sysfs_u64("stats/leaves_retired") > retired0)
			break;
		usleep(500000);
	}
	settle(self->fd);
	ASSERT_EQ(0, model_info(self->fd, &b));
	ASSERT_EQ(0, read_model(self->region, &m2));
	TH_LOG("%u boundaries emptied, %llu leaves retired; sub-models %u -> "
	       "%u, top_gen %u -> %u, full trainings %llu -> %llu, retrains "
	       "%llu -> %llu", bounds,
	       t_sysfs_u64("stats/leaves_retired") - retired0, a.sub_models,
	       b.sub_models, m->top_gen, m2->top_gen,
	       (unsigned long long)a.full_trains,
	       (unsigned long long)b.full_trains,
	       (unsigned long long)a.retrains,
	       (unsigned long long)b.retrains);
	EXPECT_LT(retired0, t_sysfs_u64("stats/leaves_retired"));
	EXPECT_EQ(a.full_trains, b.full_trains);
	EXPECT_EQ(m->epoch, m2->epoch);
	EXPECT_LT(m->top_gen, m2->top_gen);
	expect_resolved(_metadata, self, rest, kept, b.sub_models);
	ordo_model_free(m);
	ordo_model_free(m2);
	free(keys);
	free(rest);
	free(gone);
}

/*
 * No room for a new image beside the live one (a small model_max_mb):
 * RETRAIN fails with ENOSPC at once -- no snapshot, no training -- and the
 * live model stays published and whole.  The module is loaded again with
 * its parameters afterwards.
 */
TEST_F_TIMEOUT(model, full_region_fails_before_training, 900)
{
	/*
	 * 1.5M keys fill about 133,000 leaves, whose TT entries alone (8
	 * bytes each) outgrow the whole 1 MiB region: no image of them fits
	 * beside any live one, however small, whatever the trainer published
	 * while the keys went in.
	 */
	uint32_t n = 60000, more = 1440000, i;
	uint64_t *keys = malloc((n + more) * 8), v, v2, x = 99;
	char params[512], small[640];
	struct ordo_model_info a, b;
	struct ordo_model *m;
	int ret;

	/* 64 KiB chunks, 1 MiB of region. */
	t_module_params(params, sizeof(params));
	snprintf(small, sizeof(small), "%s chunk_kb=64 model_max_mb=1",
		 params);
	reload(_metadata, self, small);

	for (i = 0; i < n + more; i++)
		keys[i] = next_rand(&x);
	put_keys(_metadata, self->fd, self->vs, keys, n);
	ASSERT_EQ(0, retrain(self->fd, &v));
	ASSERT_EQ(0, retrain(self->fd, &v));	/* two images fit */
	put_keys(_metadata, self->fd, self->vs, keys + n, more);
	settle(self->fd);
	ASSERT_EQ(0, model_info(self->fd, &a));
	ret = retrain(self->fd, &v2);
	ASSERT_EQ(0, model_info(self->fd, &b));
	TH_LOG("%llu leaves: RETRAIN %d, full trainings %llu -> %llu",
	       (unsigned long long)t_sysfs_u64("stats/leaves"), ret,
	       (unsigned long long)a.full_trains,
	       (unsigned long long)b.full_trains);
	EXPECT_EQ(-ENOSPC, ret);
	EXPECT_EQ(a.full_trains, b.full_trains);
	EXPECT_EQ(a.last_full_train_ns, b.last_full_train_ns);
	EXPECT_EQ(a.version, b.version);
	/* The live model is still published and whole. */
	ASSERT_EQ(0, read_model(self->region, &m));
	EXPECT_EQ(b.version, m->epoch);
	ordo_model_free(m);
	free(keys);

	reload(_metadata, self, params);
}

#define FAIL_FULL	"/sys/kernel/debug/ordo/fail_full_trainings"

/* Wait up to @s seconds for @n full trainings to have failed. */
static unsigned long long failures_reach(unsigned long long n, int s)
{
	long long end = t_now_ms() + s * 1000LL;
	unsigned long long f;

	while ((f = t_sysfs_u64("model/full_train_failures")) < n &&
	       t_now_ms() < end)
		usleep(50000);
	return f;
}

/*
 * A full training that fails (its image finds no room: debugfs
 * fail_full_trainings) is not started again every round: the trainer
 * backs off 1 s, 2 s, 4 s, ... up to 64 s, so three more tries take 7 s
 * at least (it tried every second, each with a snapshot and a training
 * of the whole tree).  A RETRAIN is not held back; once trainings
 * succeed again the model is published.
 */
TEST_F_TIMEOUT(model, failed_full_trainings_back_off, 900)
{
	unsigned int scale = t_time_scale();
	uint32_t n = 20000, i;
	uint64_t *keys = malloc(n * 8), x = 7, v;
	unsigned long long f0, f1;
	struct ordo_model_info mi;
	long long t0, took;

	ASSERT_NE(NULL, keys);
	ASSERT_EQ(0, access(FAIL_FULL, W_OK));
	ASSERT_EQ(0, t_write_file(FAIL_FULL, "1"));
	f0 = t_sysfs_u64("model/full_train_failures");
	for (i = 0; i < n; i++)
		keys[i] = next_rand(&x);
	put_keys(_metadata, self->fd, self->vs, keys, n);
	/* The store goes quiet: the trainer tries a first model, which fails. */
	f1 = failures_reach(f0 + 1, 120 * scale);
	ASSERT_LE(f0 + 1, f1);
	t0 = t_now_ms();
	EXPECT_LE(f1 + 3, failures_reach(f1 + 3, 120 * scale));
	took = t_now_ms() - t0;
	TH_LOG("three more failed tries took %lld ms", took);
	EXPECT_LE(6000, took);
	/* A RETRAIN runs now, and fails the same way. */
	f1 = t_sysfs_u64("model/full_train_failures");
	EXPECT_EQ(-ENOSPC, retrain(self->fd, &v));
	EXPECT_EQ(f1 + 1, t_sysfs_u64("model/full_train_failures"));
	ASSERT_EQ(0, t_write_file(FAIL_FULL, "0"));
	ASSERT_EQ(0, retrain(self->fd, &v));
	ASSERT_EQ(0, model_info(self->fd, &mi));
	EXPECT_EQ(v, mi.version);
	EXPECT_NE(0, v);
	free(keys);
}

TEST_HARNESS_MAIN
