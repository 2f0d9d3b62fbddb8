/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Raw access to a libordo RDMA connection, for the hostile tests, and raw
 * leaf reads for the benchmark's raw-read mode.  Not part of the public
 * API and not installed.
 *
 * A raw handle is connected by libordo's own transport -- one connect,
 * completion loop and region-table decoder for every client -- but its
 * owner chooses every byte it sends (forged private data, malformed or
 * oversized messages, more requests than credits, one-sided WRITEs and
 * atomics with any key) and sees every reply exactly as it arrived.
 * libordo's operations (ordo_get() and the rest) must not be used on it.
 */
#ifndef LIBORDO_RAW_H
#define LIBORDO_RAW_H

#include <stdbool.h>
#include <stdint.h>
#include <infiniband/verbs.h>
#include <linux/ordo_wire.h>

#include "ordo.h"

/* Send buffers of a raw handle: sends that may be in flight at once. */
#define ORDO_RAW_SEND_BUFS	64
/* Bytes of the local buffer of one-sided operations. */
#define ORDO_RAW_LOCAL_BYTES	(1u << 20)

/**
 * struct ordo_raw_cfg - how to open a raw handle
 * @priv: private data to connect with instead of libordo's request, or
 *	NULL.
 * @priv_len: bytes of @priv.
 * @bare: connect only: no region table, no superblock read.
 * @src_addr: numeric local IP address to connect from, or NULL for the
 *	one the route gives.
 * @no_recv: post no receive buffers at all: every reply of the server
 *	finds none (receiver-not-ready) and is retried for ever.
 * @rej: out: the server's reject message when the open was refused
 *	(zero when there was none or it was shorter).
 * @rej_status: out: the CM status of that reject (28: consumer defined).
 */
struct ordo_raw_cfg {
	const void *priv;
	uint32_t priv_len;
	bool bare;
	const char *src_addr;
	bool no_recv;
	struct ordo_wire_conn_rej rej;
	int rej_status;
};

/**
 * struct ordo_raw_region - one entry of a region table, in host order
 * @off: first byte of the address space the entry covers.
 * @len: bytes it covers.
 * @rkey: the key a READ there must carry.
 */
struct ordo_raw_region {
	uint64_t off;
	uint64_t len;
	uint32_t rkey;
};

/* Open rdma://HOST[:PORT] raw; @opts as for ordo_open_opts() (mode ignored). */
struct ordo *ordo_raw_open(const char *uri, const struct ordo_opts *opts,
			   struct ordo_raw_cfg *cfg);

/* The server's accept reply, as received. */
const struct ordo_wire_conn_rep *ordo_raw_accept(struct ordo *o);

/* Credits the server granted (its receive buffers for us). */
uint32_t ordo_raw_credits(struct ordo *o);

/* The server's message bound. */
uint32_t ordo_raw_max_msg(struct ordo *o);

/* Has the connection failed or been closed by the server? */
bool ordo_raw_dead(struct ordo *o);

/*
 * Send @len bytes as one message, exactly as given.  @len may exceed
 * max_msg (to test the server's bound) up to the send buffers left after
 * the next one.  Credits are not counted.
 */
int ordo_raw_send(struct ordo *o, const void *msg, uint32_t len);

/*
 * The same as a SEND with Invalidate of @rkey, which no client may send:
 * the server's device invalidates that key before the server sees it.
 */
int ordo_raw_send_inv(struct ordo *o, const void *msg, uint32_t len,
		      uint32_t rkey);

/*
 * Wait up to @ms for the next reply; *@msg (valid until the next call)
 * and *@len describe it.  -ECONNRESET once the connection is gone and no
 * reply is left, -ETIMEDOUT when none came.
 */
int ordo_raw_wait(struct ordo *o, int ms, const uint8_t **msg,
		  uint32_t *len);

/*
 * The region table of @kind (ORDO_WIRE_REGION_*) by REGIONS requests,
 * checked as libordo checks it.  *@tab is malloc()ed; the caller frees it.
 */
int ordo_raw_regions(struct ordo *o, uint16_t kind,
		     struct ordo_raw_region **tab, uint32_t *n);

/* The local buffer one-sided operations read into and write from. */
uint8_t *ordo_raw_local(struct ordo *o);

/*
 * One one-sided operation on the server's memory: READ or WRITE of @len
 * bytes at @addr with @rkey, or an 8-byte atomic (compare 1, swap or add a
 * pattern).  Returns 0, the failed completion's status (> 0), or a
 * negative errno when nothing could be posted or no completion came.
 */
int ordo_raw_rdma(struct ordo *o, enum ibv_wr_opcode opcode, uint64_t addr,
		  uint32_t len, uint32_t rkey);

/*
 * Raw reads on an ordinary handle (any backend), for ordo-bench's raw-read
 * mode: the same slots, read path and counters as a learned GET, minus
 * prediction and validation -- the device's ceiling on that connection.
 */

/*
 * Up to @max leaf node numbers, in key order, from the handle's learned
 * cache (a learned handle whose model is loaded).  Returns how many were
 * written, or -ENODATA when no model is cached.
 */
int ordo_raw_leaves(struct ordo *o, uint32_t *nodes, uint32_t max);

/*
 * Queue one read of node @node (node_size bytes, what a learned GET reads)
 * as request @r: @r->cb and @r->user as for ordo_submit(); @r->result
 * becomes 0 or the read's negative errno.  The bytes are not looked at.
 * Counted as a GET.  0, -EBUSY when queue_depth requests are in flight.
 */
int ordo_raw_submit(struct ordo *o, struct ordo_req *r, uint32_t node);

#endif /* LIBORDO_RAW_H */
