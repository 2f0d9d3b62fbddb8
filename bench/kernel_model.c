// SPDX-License-Identifier: GPL-2.0
/*
 * kernel_model - the learned model as ordo.ko trains it, measured from user
 * space inside the vmrun guest (make bench runs it).  For each dataset: load
 * N keys through /dev/ordo, retrain, read the model's figures
 * (ORDO_IOC_MODEL_INFO) and resolve a sample of stored keys the way a client
 * does -- model and TT from the read-only mapped region, then the leaf from
 * the mapped node pool -- counting leaves read per GET; then insert 20% more
 * keys, let the trainer patch the sub-models, and measure again.
 * Prints one JSON object; bench/kernel_model.sh runs it once per dataset,
 * each on a freshly loaded module.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "ordo.h"
#include "datasets.h"
#include "model.h"
#include "node.h"

#define SAMPLE		100000

/* Bytes the pool and the model region may grow to: the module's limits. */
static size_t pool_len, model_len;

struct walk {
	uint64_t gets, leaves, stale;
};

static void die(const char *what, int err)
{
	fprintf(stderr, "kernel_model: %s: %s\n", what, strerror(-err));
	exit(1);
}

static int read_model(const uint8_t *region, struct ordo_model **m)
{
	struct ordo_model_layout lay;
	uint64_t live, epoch, len;
	int i, ret = -EAGAIN;

	/* The anchor names the live image; copy both and load. */
	for (i = 0; i < 100 && ret; i++) {
		uint8_t *img;

		ret = ordo_model_parse_anchor(region, ORDO_MODEL_ANCHOR_SIZE,
					      &live, &epoch);
		if (ret || live > model_len - ORDO_MODEL_HDR_SIZE)
			continue;
		ret = ordo_model_parse_hdr(region + live, ORDO_MODEL_HDR_SIZE,
					   &lay);
		len = live + lay.region_size;
		if (ret || len > model_len)
			continue;
		img = malloc(len);
		memcpy(img, region, len);
		ret = ordo_model_from_region(m, img, len);
		free(img);
	}
	return ret;
}

/*
 * A client's GET: the TT entry names a leaf; read it (one READ); if it no
 * longer covers the key, follow right links (more READs).
 */
static void read_leaf(uint8_t *copy, const uint8_t *pool,
		      const struct ordo_super_info *sb, uint32_t n)
{
	const struct ordo_geo *geo = &sb->geo;

	while (ordo_node_copy_validate(copy, pool +
		ordo_node_offset(n, sb->nodes_per_chunk, sb->chunk_size,
				 geo->node_size), geo) == -EAGAIN)
		;
}

static void client_get(const struct ordo_model *m, const uint8_t *pool,
		       const struct ordo_super_info *sb, uint64_t key,
		       struct walk *w)
{
	uint8_t copy[16384];
	const struct ordo_node_hdr *h = (const void *)copy;
	struct ordo_pred pr;
	struct ordo_tt e;
	uint32_t n, c;

	w->gets++;
	if (ordo_model_lookup(m, key, &pr))
		return;
	/* The candidates (one batch), then right links. */
	for (c = 0; c < pr.ncand; c++) {
		n = ordo_pred_ent(&pr, c).leaf;
		read_leaf(copy, pool, sb, n);
		w->leaves++;
		if (key < le64_to_cpu(h->low_key) && c == 0 &&
		    ordo_pred_try(&pr, pr.ncand, &e)) {
			/* A tie settled right: the leaf before. */
			read_leaf(copy, pool, sb, e.leaf);
			w->leaves++;
			break;
		}
		if (!(h->flags & ORDO_NODE_F_HAS_HIGH) ||
		    key < le64_to_cpu(h->high_key))
			break;
	}
	if (c < pr.ncand) {
		e = ordo_pred_ent(&pr, c);
		if (!ordo_tt_inca_matches(&e, le32_to_cpu(h->incarnation)))
			w->stale++;
	}
	while ((h->flags & ORDO_NODE_F_HAS_HIGH) &&
	       key >= le64_to_cpu(h->high_key) && h->right) {
		read_leaf(copy, pool, sb, le32_to_cpu(h->right));
		w->leaves++;
	}
}

/* A module parameter in MiB, as bytes. */
static size_t param_bytes(const char *name)
{
	char path[128];
	unsigned long mb = 0;
	FILE *f;

	snprintf(path, sizeof(path), "/sys/module/ordo/parameters/%s", name);
	f = fopen(path, "r");
	if (!f || fscanf(f, "%lu", &mb) != 1)
		die(path, -EIO);
	fclose(f);
	return (size_t)mb << 20;
}

static void put_keys(int fd, const uint64_t *keys, size_t n, size_t vs)
{
	struct ordo_batch_op ops[ORDO_BATCH_MAX];
	uint8_t *vals = calloc(ORDO_BATCH_MAX, vs);
	size_t i, j;

	for (i = 0; i < n; i += ORDO_BATCH_MAX) {
		size_t b = n - i < ORDO_BATCH_MAX ? n - i : ORDO_BATCH_MAX;
		struct ordo_batch bt = { .ops = (uintptr_t)ops, .count = b };

		memset(ops, 0, sizeof(ops));
		for (j = 0; j < b; j++) {
			ops[j].op = ORDO_OP_PUT;
			ops[j].kv.key = keys[i + j];
			ops[j].kv.value = (uintptr_t)(vals + j * vs);
			ops[j].kv.value_len = 8;
		}
		if (ioctl(fd, ORDO_IOC_BATCH, &bt))
			die("batch", -errno);
	}
	free(vals);
}

static void settle(int fd)
{
	struct ordo_model_info a, b;
	int i;

	for (i = 0; i < 120; i++) {
		ioctl(fd, ORDO_IOC_MODEL_INFO, &a);
		sleep(2);
		ioctl(fd, ORDO_IOC_MODEL_INFO, &b);
		if (!a.pending && !b.pending && a.retrains == b.retrains &&
		    a.full_trains == b.full_trains)
			return;
	}
}

static void report(const char *phase, int fd, const uint8_t *pool,
		   const uint8_t *region, const uint64_t *keys, size_t n,
		   size_t nkeys_store, int last)
{
	struct ordo_model_info mi;
	struct ordo_super_info sb;
	struct ordo_model *m;
	struct walk w = { 0 };
	size_t i, step = n / SAMPLE ? n / SAMPLE : 1;
	uint64_t cbytes;
	int ret;

	if (ioctl(fd, ORDO_IOC_MODEL_INFO, &mi))
		die("MODEL_INFO", -errno);
	ret = read_model(region, &m);
	if (ret)
		die("model region", ret);
	ret = ordo_super_read(pool, &sb);
	if (ret)
		die("superblock", ret);
	for (i = 0; i < n; i += step)
		client_get(m, pool, &sb, keys[i], &w);
	/* The cache as libordo holds it: packed, after the walk's checks. */
	ret = ordo_model_pack(m);
	if (ret)
		die("pack", ret);
	cbytes = ordo_model_mem_bytes(m);
	printf("  \"%s\": {\"version\": %" PRIu64 ", \"keys\": %zu, "
	       "\"sub_models\": %u, \"tt_entries\": %u, "
	       "\"model_bytes\": %" PRIu64 ", \"tt_bytes\": %" PRIu64 ", "
	       "\"region_bytes\": %" PRIu64 ", "
	       "\"client_cache_bytes_per_key\": %.3f, "
	       "\"published_bytes_per_key\": %.3f, "
	       "\"err_pos_avg\": %.3f, \"err_pos_max\": %" PRIu64 ", "
	       "\"err_leaf_avg\": %.3f, \"err_leaf_max\": %" PRIu64 ", "
	       "\"window_avg_leaves\": %.3f, \"one_leaf_share\": %.6f, "
	       "\"leaves_read_per_get\": %.4f, \"stale_tt_share\": %.6f, "
	       "\"retrains\": %" PRIu64 ", \"full_trains\": %" PRIu64 ", "
	       "\"expansions\": %" PRIu64 ", "
	       "\"last_full_train_us\": %" PRIu64 "}%s\n",
	       phase, (uint64_t)mi.version, nkeys_store, mi.sub_models, mi.tt_entries,
	       (uint64_t)mi.model_bytes, (uint64_t)mi.tt_bytes,
	       (uint64_t)mi.region_bytes,
	       (double)cbytes / nkeys_store,
	       (double)(mi.model_bytes + mi.tt_bytes) / nkeys_store,
	       mi.err_pos_avg_milli / 1000.0, (uint64_t)mi.err_pos_max,
	       mi.err_leaf_avg_milli / 1000.0, (uint64_t)mi.err_leaf_max,
	       mi.window_avg_milli / 1000.0, mi.one_leaf_ppm / 1e6,
	       (double)w.leaves / w.gets, (double)w.stale / w.gets,
	       (uint64_t)mi.retrains, (uint64_t)mi.full_trains,
	       (uint64_t)mi.expansions, (uint64_t)mi.last_full_train_us,
	       last ? "" : ",");
	ordo_model_free(m);
}

int main(int argc, char **argv)
{
	size_t n = argc > 2 ? strtoull(argv[2], NULL, 0) : 0, extra = n / 5;
	int fd = open("/dev/ordo", O_RDWR);
	struct ordo_retrain r = { 0 };
	const uint8_t *pool, *region;
	struct ordo_info info;
	enum ordo_dist d;
	uint64_t *keys;

	if (argc != 3 || ordo_dist_parse(argv[1], &d) || !n) {
		fprintf(stderr, "usage: kernel_model DIST KEYS\n");
		return 2;
	}
	if (fd < 0)
		die("/dev/ordo", -errno);
	if (ioctl(fd, ORDO_IOC_INFO, &info))
		die("INFO", -errno);
	if (info.keys)
		die("the store must be empty", -EEXIST);
	pool_len = param_bytes("max_memory_mb");
	/* model_max_mb 0: half the pool's limit, at least 64 MiB. */
	model_len = param_bytes("model_max_mb");
	if (!model_len)
		model_len = pool_len / 2 > (64UL << 20) ? pool_len / 2 :
							  64UL << 20;
	pool = mmap(NULL, pool_len, PROT_READ, MAP_SHARED, fd, ORDO_MMAP_POOL);
	region = mmap(NULL, model_len, PROT_READ, MAP_SHARED, fd,
		      ORDO_MMAP_MODEL);
	if (pool == MAP_FAILED || region == MAP_FAILED)
		die("mmap", -errno);
	keys = malloc((n + extra) * sizeof(*keys));
	/* The first n of a random-order set are a sample; the rest is +20%. */
	if (!keys || ordo_dataset_gen(d, n + extra, 1, ORDO_ORDER_RANDOM, keys))
		die("dataset", -ENOMEM);
	put_keys(fd, keys, n, info.value_size);
	if (ioctl(fd, ORDO_IOC_RETRAIN, &r))
		die("RETRAIN", -errno);
	printf("{\"dist\": \"%s\", \"leaf_slots\": %u,\n", argv[1],
	       info.leaf_slots);
	report("bulk", fd, pool, region, keys, n, n, 0);
	put_keys(fd, keys + n, extra, info.value_size);
	settle(fd);
	report("after_inserts", fd, pool, region, keys, n + extra, n + extra,
	       1);
	printf("}\n");
	free(keys);
	return 0;
}
