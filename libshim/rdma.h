/* SPDX-License-Identifier: GPL-2.0 */
/*
 * libordo's RDMA backend: one RC connection per handle (rdma_conn.c: the
 * verbs and rdma_cm side), the wire protocol and region tables (rdma.c).
 */
#ifndef LIBORDO_RDMA_H
#define LIBORDO_RDMA_H

#include <infiniband/verbs.h>
#include <rdma/rdma_cma.h>
#include <linux/ordo_wire.h>

#include "shim.h"

/* Bytes of the staging buffer of synchronous (bulk) reads. */
#define RDMA_BULK_BUF	(1u << 20)

/* wr_id tags: the low 32 bits are a slot or receive index. */
#define WR_RECV		(1ULL << 40)
#define WR_SEND		(2ULL << 40)
#define WR_READ		(3ULL << 40)
#define WR_BULK		(4ULL << 40)
#define WR_RAW_SEND	(5ULL << 40)	/* rdma_raw.c's */
#define WR_RAW_OP	(6ULL << 40)
#define WR_TAG(x)	((x) & (7ULL << 40))
#define WR_IDX(x)	((uint32_t)(x))

/* The request id's low 16 bits name the slot; this one is the sync call's. */
#define SYNC_SLOT	0xffffu

/**
 * struct rdma_be - the RDMA backend's state
 * @host: server address; @port its port (text).
 * @ch, @id, @pd, @cc, @cq, @qp: the connection's verbs objects.
 * @mr: registered local memory @mem of @mem_len bytes: receive buffers,
 *	send buffers (one per slot and one for the sync call), the slots'
 *	read buffers, the bulk staging buffer.
 * @credits: requests the server lets us have outstanding (granted).
 * @avail: credits free now.
 * @max_msg: the server's message bound.
 * @rep: the accept reply.
 * @dead: the connection failed: reconnect before the next I/O.
 * @seq: request sequence, in the id's high bits.
 * @pend: slots whose call waits for a credit, in order; @npend of them.
 * @pool, @model: region tables, from the last copy of the server's
 *	region table (or REGIONS listings of a raw handle).
 * @pool_chunks: chunks the last reply said are registered.
 * @table: where the server's region table is (REGIONS of kind TABLE);
 *	@table.len 0 until known.
 * @table_seq: sequence word of the copy in use.
 * @table_ms: when the READ of that copy started (shim_now_ms()).
 * @lease_ms: how long its keys may be used from then.
 * @table_stale: a reply says the server's table covers more of the pool.
 * @in_bulk: a synchronous READ waits: completions it reaps must not
 *	start another.
 * @sync_done: the sync call's reply arrived; @sync_len its bytes in @sync.
 * @bulk_done: the bulk READ completed; @bulk_status its status.
 * @per_slot: read-buffer bytes per slot.
 * @raw: a raw handle's state (rdma_raw.c), or NULL.
 */
struct rdma_be {
	char host[256];
	char port[8];
	struct rdma_event_channel *ch;
	struct rdma_cm_id *id;
	struct ibv_pd *pd;
	struct ibv_comp_channel *cc;
	struct ibv_cq *cq;
	struct ibv_qp *qp;
	struct ibv_mr *mr;
	uint8_t *mem;
	size_t mem_len;
	uint32_t credits;
	uint32_t avail;
	uint32_t max_msg;
	struct ordo_wire_conn_rep rep;
	bool dead;
	uint64_t seq;
	uint32_t *pend;
	uint32_t npend;
	struct region_tab pool;
	struct region_tab model;
	uint32_t pool_chunks;
	struct region_ent table;
	uint64_t table_seq;
	long long table_ms;
	uint32_t lease_ms;
	bool table_stale;
	bool in_bulk;
	bool sync_done;
	uint32_t sync_len;
	uint8_t *sync;
	bool bulk_done;
	int bulk_status;
	size_t per_slot;
	struct rdma_raw *raw;
};

static inline struct rdma_be *rbe(struct ordo *o)
{
	return o->priv;
}

/* rdma_conn.c */
int rconn_connect(struct ordo *o);
void rconn_close(struct rdma_be *r);
uint8_t *rconn_send_buf(struct rdma_be *r, uint32_t slot);
uint8_t *rconn_recv_buf(struct rdma_be *r, uint32_t i);
uint8_t *rconn_bulk_buf(struct ordo *o);
int rconn_post_send(struct rdma_be *r, uint32_t slot, uint32_t len);
int rconn_post_recv(struct rdma_be *r, uint32_t i);
int rconn_post_reads(struct ordo *o, struct shim_op *op,
		     const uint32_t *rkeys);
int rconn_post_bulk(struct ordo *o, uint64_t off, uint32_t len,
		    uint32_t rkey);
int rconn_poll(struct ordo *o, int ms);

/* rdma.c: the region tables */
int rdma_regions_fetch(struct ordo *o, uint16_t kind, struct region_tab *t);

/* rdma_raw.c: a raw handle's hooks into the transport */
int rdma_raw_init(struct ordo *o);
void rdma_raw_conn_data(struct rdma_be *r, const void **priv, uint8_t *len);
const char *rdma_raw_src(struct rdma_be *r);
bool rdma_raw_no_recv(struct rdma_be *r);
void rdma_raw_rejected(struct rdma_be *r, const struct rdma_cm_event *ev);
int rdma_raw_setup(struct ordo *o);
bool rdma_raw_wc(struct ordo *o, const struct ibv_wc *wc);
void rdma_raw_release(struct rdma_be *r);
void rdma_raw_free(struct rdma_be *r);

/* rdma.c: what the transport hands back */
void rdma_on_reply(struct ordo *o, const uint8_t *msg, uint32_t len);
void rdma_on_read(struct ordo *o, uint32_t slot, int status);
void rdma_fail_all(struct ordo *o, int err);

#endif /* LIBORDO_RDMA_H */
