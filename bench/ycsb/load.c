// SPDX-License-Identifier: GPL-2.0
/*
 * ordo-bench: the load phase.  Keys go in through ordo_batch() (PUTs, as
 * many per batch as the transport takes: a batch refused as too big is
 * split), with a progress bar on a terminal; then the bench waits until
 * the server's model covers them, so that the timed window starts on a
 * static, trained store.
 */
#include <endian.h>
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ycsb.h"

#define MODEL_PENDING	"/sys/class/misc/ordo/model/pending"
#define WAIT_MODEL_MS	120000
#define STABLE_MS	2000

/* The key's 8 little-endian bytes, then a pattern of it. */
void fill_value(uint8_t *v, uint32_t len, uint64_t key)
{
	uint64_t le = htole64(key);
	uint32_t i;

	for (i = 0; i < len; i++)
		v[i] = i < 8 ? ((uint8_t *)&le)[i] : (uint8_t)(key >> (i % 8));
}

bool progress_force;

/* A bar on a terminal (or wherever --progress says), at most 200 steps. */
void progress(const char *what, uint64_t done, uint64_t total)
{
	static uint64_t last;
	int width = 40, fill;

	if ((!progress_force && !isatty(STDERR_FILENO)) || !total)
		return;
	if (done != total && done - last < total / 200 && done > last)
		return;
	last = done;
	fill = (int)(done * width / total);
	fprintf(stderr, "\r%-10s [%.*s%*s] %3d%% %" PRIu64 "/%" PRIu64, what,
		fill, "########################################",
		width - fill, "", (int)(done * 100 / total), done, total);
	if (done == total) {
		fputc('\n', stderr);
		last = 0;
	}
}

/* Bytes of values one batch of the load holds at most. */
#define BATCH_BYTES	(16u << 20)

/*
 * Batches of @op (PUT or DELETE) over keys[0..n).  ordo_batch() takes
 * values of any length (a long one goes as a write of its own).
 */
static int batch_all(const struct bench_cfg *cfg, uint32_t op,
		     const uint64_t *keys, uint64_t n)
{
	struct ordo_opts opts = { .size = sizeof(opts), .mode = ORDO_MODE_RPC };
	struct ordo_batch_op ops[ORDO_BATCH_MAX];
	uint32_t per = ORDO_BATCH_MAX, i;
	uint8_t *vals;
	struct ordo *o;
	uint64_t done = 0;
	int ret;

	if (cfg->value_size && BATCH_BYTES / cfg->value_size < per)
		per = BATCH_BYTES / cfg->value_size ?: 1;
	vals = calloc(per, cfg->value_size ?: 1);
	o = ordo_open_opts(cfg->uri, &opts);
	ret = o && vals ? 0 : -errno;
	while (!ret && done < n) {
		uint32_t b = n - done > per ? per : (uint32_t)(n - done);

		memset(ops, 0, sizeof(ops[0]) * b);
		for (i = 0; i < b; i++) {
			uint8_t *v = vals + (size_t)i * cfg->value_size;

			fill_value(v, cfg->value_size, keys[done + i]);
			ops[i].op = op;
			ops[i].kv.key = keys[done + i];
			ops[i].kv.value = (uintptr_t)v;
			ops[i].kv.value_len = op == ORDO_OP_PUT ?
					      cfg->value_size : 0;
		}
		ret = ordo_batch(o, ops, b);
		if (ret >= 0) {
			for (ret = 0, i = 0; i < b && !ret; i++)
				if (ops[i].result != -ENOENT ||
				    op != ORDO_OP_DELETE)
					ret = ops[i].result;
		}
		done += b;
		if (!cfg->quiet)
			progress(op == ORDO_OP_PUT ? "loading" : "deleting",
				 done, n);
	}
	free(vals);
	ordo_close(o);
	return ret;
}

int load_ordo(const struct bench_cfg *cfg, const uint64_t *keys, uint64_t n)
{
	return batch_all(cfg, ORDO_OP_PUT, keys, n);
}

/* --cleanup: the loaded keys and every insert, deleted. */
int unload_ordo(const struct bench_cfg *cfg, const struct items *it)
{
	int ret = batch_all(cfg, ORDO_OP_DELETE, it->loaded, it->nloaded);

	if (!ret && it->next > it->nloaded)
		ret = batch_all(cfg, ORDO_OP_DELETE, it->ins,
				it->next - it->nloaded);
	return ret;
}

/*
 * Ask the server host's device for a full training when we are on it;
 * then wait until the trainer has nothing pending and the model's epoch
 * held still for a while (a remote client sees only the epoch).
 */
int wait_model(const struct bench_cfg *cfg)
{
	struct ordo *o = ordo_open("/dev/ordo"), *r;
	struct ordo_model_info mi;
	uint64_t version = 0, pending, last = 0;
	long long t0 = now_ns() / 1000000, since = t0;

	if (o) {
		ordo_retrain(o, &version);
		ordo_close(o);
	}
	r = ordo_open(cfg->uri);
	if (!r)
		return -errno;
	for (;;) {
		long long t = now_ns() / 1000000;
		FILE *f = fopen(MODEL_PENDING, "r");
		bool busy = false;

		if (f) {
			busy = fscanf(f, "%" SCNu64, &pending) == 1 && pending;
			fclose(f);
		}
		if (ordo_model_info(r, &mi) || !mi.version)
			busy = true;
		if (busy || mi.version != last) {
			last = mi.version;
			since = t;
		}
		if (t - since >= STABLE_MS)
			break;
		if (t - t0 > WAIT_MODEL_MS) {
			ordo_close(r);
			return -ETIMEDOUT;
		}
		usleep(100000);
	}
	ordo_close(r);
	return 0;
}
