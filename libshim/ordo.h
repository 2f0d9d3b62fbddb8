/* SPDX-License-Identifier: GPL-2.0 */
/*
 * libordo - the ordo client library.
 *
 * One handle talks to one ordo store: the local device ("/dev/ordo") or,
 * later, a remote server ("rdma://HOST[:PORT]").  Every call returns 0 (or
 * a count) on success and a negative errno on failure; the errnos are the
 * same ones the kernel module returns.
 */
#ifndef LIBORDO_ORDO_H
#define LIBORDO_ORDO_H

#include <stddef.h>
#include <stdint.h>
#include <linux/ordo.h>

#ifdef __cplusplus
extern "C" {
#endif

struct ordo;

/* Open a store; NULL for the default "/dev/ordo".  NULL + errno on error. */
struct ordo *ordo_open(const char *uri);
void ordo_close(struct ordo *o);

/* Module version and geometry. */
int ordo_info(struct ordo *o, struct ordo_info *info);
/* Bytes per value of this store (every value has exactly this size). */
size_t ordo_value_size(const struct ordo *o);

/* GET copies value_size bytes to @val; @len must be >= value_size. */
int ordo_get(struct ordo *o, uint64_t key, void *val, size_t len);
/* Writes take 1..value_size bytes; the rest of the value is zeroed. */
int ordo_put(struct ordo *o, uint64_t key, const void *val, size_t len);
int ordo_insert(struct ordo *o, uint64_t key, const void *val, size_t len);
int ordo_update(struct ordo *o, uint64_t key, const void *val, size_t len);
int ordo_delete(struct ordo *o, uint64_t key);

/*
 * SCAN: up to @n (1..ORDO_SCAN_MAX) pairs with key >= @start, in order, into
 * @keys and (unless NULL) @vals (n * value_size bytes).  Returns the number
 * of pairs written.  *@more (if not NULL) is set to 1 when keys past the last
 * one returned may exist; *@next (if not NULL) then holds the key at which
 * the following call should start.
 */
int ordo_scan(struct ordo *o, uint64_t start, uint32_t n, uint64_t *keys,
	      void *vals, int *more, uint64_t *next);

/* The learned model's figures (struct ordo_model_info). */
int ordo_model_info(struct ordo *o, struct ordo_model_info *info);
/* Full retraining of the model, waited for; *@version: its epoch. */
int ordo_retrain(struct ordo *o, uint64_t *version);

/* Several point operations in one call; see struct ordo_batch. */
int ordo_batch(struct ordo *o, struct ordo_batch_op *ops, uint32_t n);

/* The file descriptor of a local store (for mmap and io_uring), or -1. */
int ordo_fd(const struct ordo *o);

#ifdef __cplusplus
}
#endif

#endif /* LIBORDO_ORDO_H */
