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

/* Steps of a long operation (rdma_long.c). */
enum rlong_phase {
	RL_NONE,	/* none: the call's own request */
	RL_WAIT,	/* a write waiting for the staged value to be free */
	RL_STAGE,	/* a STAGE part is in flight */
	RL_COMMIT,	/* the write of the staged value is in flight */
	RL_GET,		/* a GET of a part is in flight */
	RL_GETW,	/* GETs of parts are in flight in a wave of its own */
};

/* rlong_stager: no operation stages. */
#define RLONG_NONE	UINT32_MAX
/* STAGE parts of one upload sent together, at most: a wave, one round trip. */
#define RLONG_WAVE	16
/* A step of a long operation went out: the operation is not done. */
#define RLONG_MORE	1
/* rlong_reply(): decode the reply as the call's own. */
#define RLONG_DECODE	2

/**
 * struct rlong - a slot's long operation
 * @phase: enum rlong_phase.
 * @at: STAGE: bytes staged; GETW: the next offset to ask for.
 * @sent: STAGE: bytes of the part in flight.
 * @want: GET: the offset asked for.
 * @ref: GET: the ref of the parts taken so far.
 * @len: GET: their value's length.
 * @restarts: GET: times the value changed between parts.
 * @err: STAGE: the upload's first failed part, once its parts are all
 *	answered (the write then fails too); GETW: a malformed part.
 * @commit_back: the write's reply came before the last part's; its
 *	status is @commit_st.
 * @ids: GETW: request ids of the wave's GETs; 0 once answered.
 * @offs: GETW: the offset each asked for.
 * @wn: GETW: GETs in the wave; @wleft of them not answered yet.
 * @changed: GETW: a part of another value (or none) came: start again.
 * @waiting: GETW: the next wave waits for a credit.
 */
struct rlong {
	uint32_t phase;
	uint32_t at;
	uint32_t want;
	uint64_t ref;
	uint32_t len;
	uint32_t restarts;
	int err;
	bool commit_back;
	int commit_st;
	uint64_t ids[RLONG_WAVE];
	uint32_t offs[RLONG_WAVE];
	uint32_t wn;
	uint32_t wleft;
	bool changed;
	bool waiting;
};

/**
 * struct rlong_wave - the STAGE parts in flight (of the stager's upload)
 * @ids: request ids of the wave's parts; 0 once answered.
 * @n: parts in the wave.
 * @left: parts not answered yet.
 * @err: the first failure among the upload's parts (in the order sent).
 * @err_idx: the index in @ids of the part that failed first.
 * @waiting: the next wave waits for a credit.
 * @commit_joins: the write is being sent with the wave's parts.
 */
struct rlong_wave {
	uint64_t ids[RLONG_WAVE];
	uint32_t n;
	uint32_t left;
	int err;
	uint32_t err_idx;
	bool waiting;
	bool commit_joins;
};

/**
 * struct rdma_be - the RDMA backend's state
 * @host: server address; @port its port (text).
 * @ch, @id, @pd, @cc, @cq, @qp: the connection's verbs objects.
 * @mr: registered local memory @mem of @mem_len bytes: receive buffers,
 *	send buffers (one per slot, one for the sync call, then
 *	rlong_wave_bufs() for STAGE parts), the slots' read buffers, the
 *	bulk staging buffer.
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
 * @lv: per slot, its long operation (rdma_long.c).
 * @stager: the slot whose write uses the connection's staged value, or
 *	%RLONG_NONE.
 * @stage_q: slots whose long writes wait for it, in order; @nstage_q.
 * @wave: the stager's STAGE parts in flight.
 * @ngetw: operations reading a value's parts in waves (RL_GETW).
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
	struct rlong *lv;
	uint32_t stager;
	uint32_t *stage_q;
	uint32_t nstage_q;
	struct rlong_wave wave;
	uint32_t ngetw;
};

static inline struct rdma_be *rbe(struct ordo *o)
{
	return o->priv;
}

/* Send buffers for STAGE parts, after the slots' and the sync call's. */
static inline uint32_t rlong_wave_bufs(const struct rdma_be *r)
{
	return r->credits < RLONG_WAVE ? r->credits : RLONG_WAVE;
}

/* rdma_conn.c */
int rconn_connect(struct ordo *o);
void rconn_close(struct rdma_be *r);
uint8_t *rconn_send_buf(struct rdma_be *r, uint32_t slot);
uint8_t *rconn_recv_buf(struct rdma_be *r, uint32_t i);
uint8_t *rconn_bulk_buf(struct ordo *o);
int rconn_post_send(struct rdma_be *r, uint32_t slot, uint32_t len);
int rconn_post_send_at(struct rdma_be *r, uint32_t slot, uint32_t off,
		       uint32_t len);
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

/* rdma.c: requests in an operation's slot */
uint8_t *rdma_req_begin(struct ordo *o, uint32_t slot, uint8_t op,
			uint64_t *id);
int rdma_send_op(struct ordo *o, struct shim_op *op);
int rdma_send_at(struct ordo *o, uint32_t buf, uint32_t off, uint32_t len,
		 bool round_trip);

/* rdma_long.c: values longer than one message */
uint32_t rlong_value_max(struct ordo *o);
bool rlong_write_needed(struct ordo *o, const struct shim_call *c);
int rlong_write_start(struct ordo *o, struct shim_op *op);
uint8_t rlong_expect_op(struct ordo *o, struct shim_op *op, uint8_t call_op);
int rlong_got(struct ordo *o, struct shim_op *op, const struct shim_part *p);
int rlong_reply(struct ordo *o, struct shim_op *op,
		const struct ordo_wire_hdr *h, uint32_t len);
bool rlong_part_reply(struct ordo *o, struct shim_op *op,
		      const struct ordo_wire_hdr *h, uint32_t len);
int rlong_write_done(struct ordo *o, struct shim_op *op, int st);
bool rlong_joins_wave(struct ordo *o, uint32_t slot);
void rlong_pump(struct ordo *o);
void rlong_reset(struct ordo *o);
int rlong_init(struct ordo *o);
void rlong_free(struct rdma_be *r);

/* rdma.c: what the transport hands back */
void rdma_on_reply(struct ordo *o, const uint8_t *msg, uint32_t len);
void rdma_on_recv_posted(struct ordo *o);
void rdma_on_read(struct ordo *o, uint32_t slot, int status);
void rdma_fail_all(struct ordo *o, int err);

#endif /* LIBORDO_RDMA_H */
