/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/*
 * ordo wire protocol: what a remote client and ordo.ko exchange over an
 * RDMA reliable connection.  Documentation/wire.rst describes the protocol.
 *
 * - Connection setup (rdma_cm, port %ORDO_WIRE_PORT): the client's connect
 *   request carries struct ordo_wire_conn_req as private data; the server
 *   accepts with struct ordo_wire_conn_rep or rejects with struct
 *   ordo_wire_conn_rej (consumer-defined reject).
 * - RPCs: the client SENDs a request, the server SENDs one reply per
 *   request.  Every message starts with struct ordo_wire_hdr.
 * - One-sided RDMA READs of the node pool and the model region at
 *   zero-based offsets, with the rkeys the region table lists (struct
 *   ordo_wire_table, itself READ one-sided where an %ORDO_WIRE_OP_REGIONS
 *   reply of kind %ORDO_WIRE_REGION_TABLE says).
 *
 * Every field is little-endian and naturally aligned, no struct has implicit
 * padding, and reserved fields and flags not defined here must be zero.  No
 * message carries a host address.
 */
#ifndef _UAPI_LINUX_ORDO_WIRE_H
#define _UAPI_LINUX_ORDO_WIRE_H

#include <linux/types.h>
#include <linux/errno.h>

/*
 * "ORDO" read as a little-endian 32-bit word.  Version 2: value lengths;
 * version 3: values longer than value_size (STAGE, parts, 32-bit lengths);
 * version 4: node layout 6 (inner nodes of their own size).
 */
#define ORDO_WIRE_MAGIC		0x4f44524fU
#define ORDO_WIRE_VERSION	4
/* Default rdma_cm port of the server (RDMA_PS_TCP). */
#define ORDO_WIRE_PORT		7471

/* Private data limits of the IB CM once rdma_cm's header is taken. */
#define ORDO_WIRE_CONN_REQ_MAX	56
#define ORDO_WIRE_CONN_REP_MAX	196
#define ORDO_WIRE_TOKEN_MAX	40

/* Bounds every server honours (the accept reply gives the actual ones). */
#define ORDO_WIRE_MSG_MIN	4096
#define ORDO_WIRE_MSG_MAX	65536
#define ORDO_WIRE_QUEUE_MAX	256
#define ORDO_WIRE_BATCH_MAX	256
#define ORDO_WIRE_SCAN_MAX	65536

/**
 * struct ordo_wire_conn_req - private data of a connect request (56 bytes)
 * @magic: %ORDO_WIRE_MAGIC.
 * @version: %ORDO_WIRE_VERSION.
 * @queue_depth: requests the client wants to have outstanding, 1 to
 *	%ORDO_WIRE_QUEUE_MAX, or 0 for the server's default.  The server may
 *	grant fewer (struct ordo_wire_conn_rep).
 * @flags: zero.
 * @token_len: bytes of @token that are the access token, 0 to
 *	%ORDO_WIRE_TOKEN_MAX.
 * @reserved: zero.
 * @token: the access token, zero-padded to %ORDO_WIRE_TOKEN_MAX bytes.
 *
 * A client always sends all 56 bytes.  Over IB CM (InfiniBand, RoCE) the
 * listener receives the private data zero-padded to 56 bytes; over iWARP
 * it receives exactly the bytes sent, so the server rejects fewer than 56
 * bytes (%ORDO_WIRE_REJ_MALFORMED) and ignores bytes past them.  Likewise
 * a client receives the accept and reject private data zero-padded (IB
 * CM: 196 and 148 bytes) or at their own length (iWARP), and reads the
 * first sizeof(struct ordo_wire_conn_rep) or sizeof(struct
 * ordo_wire_conn_rej) bytes.
 */
struct ordo_wire_conn_req {
	__le32 magic;
	__le16 version;
	__le16 queue_depth;
	__le32 flags;
	__le16 token_len;
	__le16 reserved;
	__u8 token[ORDO_WIRE_TOKEN_MAX];
};

/**
 * enum ordo_wire_rej_reason - why the server refused a connection
 * @ORDO_WIRE_REJ_MALFORMED: the private data is short, has a wrong magic,
 *	non-zero reserved bytes or an out-of-range field.
 * @ORDO_WIRE_REJ_VERSION: the server does not speak the requested version;
 *	struct ordo_wire_conn_rej.version is the one it speaks.
 * @ORDO_WIRE_REJ_TOKEN: the access token is wrong.
 * @ORDO_WIRE_REJ_BUSY: the server has max_connections clients already.
 * @ORDO_WIRE_REJ_RESOURCES: the server ran out of memory or queue pairs.
 * @ORDO_WIRE_REJ_SHUTDOWN: the server or its RDMA device is going away.
 * @ORDO_WIRE_REJ_DEVICE: the RDMA device cannot serve ordo (no fast
 *	memory registration, or its DMA needs cache syncs or bounce
 *	buffers).
 * @ORDO_WIRE_REJ_THROTTLED: too many wrong tokens came from the client's
 *	address lately; the token was not looked at.  Try again later.
 * @ORDO_WIRE_REJ_PEER_BUSY: the client's IP address has
 *	max_connections_per_peer connections already.
 */
enum ordo_wire_rej_reason {
	ORDO_WIRE_REJ_MALFORMED = 1,
	ORDO_WIRE_REJ_VERSION = 2,
	ORDO_WIRE_REJ_TOKEN = 3,
	ORDO_WIRE_REJ_BUSY = 4,
	ORDO_WIRE_REJ_RESOURCES = 5,
	ORDO_WIRE_REJ_SHUTDOWN = 6,
	ORDO_WIRE_REJ_DEVICE = 7,
	ORDO_WIRE_REJ_THROTTLED = 8,
	ORDO_WIRE_REJ_PEER_BUSY = 9,
};

#define ORDO_WIRE_REJ_MAX	ORDO_WIRE_REJ_PEER_BUSY

/**
 * struct ordo_wire_conn_rej - private data of a consumer-defined reject
 * @magic: %ORDO_WIRE_MAGIC.
 * @version: the protocol version the server speaks.
 * @reason: enum ordo_wire_rej_reason.
 * @limit: for %ORDO_WIRE_REJ_BUSY the server's max_connections, for
 *	%ORDO_WIRE_REJ_PEER_BUSY its max_connections_per_peer, else 0.
 * @reserved: zero.
 */
struct ordo_wire_conn_rej {
	__le32 magic;
	__le16 version;
	__le16 reason;
	__le32 limit;
	__le32 reserved;
};

/* ordo_wire_conn_rep.flags */
#define ORDO_WIRE_CONN_F_TOKEN	0x01	/* the server checked a token */

/**
 * struct ordo_wire_conn_rep - private data of the accept reply (72 bytes)
 * @magic: %ORDO_WIRE_MAGIC.
 * @version: %ORDO_WIRE_VERSION.
 * @queue_depth: credits: requests the client may have outstanding.  Each
 *	reply returns one credit.
 * @max_msg: bytes of the largest request the server receives and of the
 *	largest reply it sends; the client's receive buffers must hold it.
 * @flags: ORDO_WIRE_CONN_F_* bits.
 * @server_id: random number drawn when the module loaded: a client that
 *	sees it change talks to a restarted store.
 * @chunk_size: bytes per node-pool chunk.
 * @node_size: bytes per tree node.
 * @value_size: bytes per value.
 * @leaf_slots: key/value slots per leaf.
 * @inner_fanout: entries per inner node.
 * @nodes_per_chunk: nodes per chunk.
 * @max_chunks: chunks the pool may grow to.
 * @nr_chunks: chunks the pool has now (the region table says which of
 *	them are registered).
 * @conn_id: the server's number for this connection (sysfs
 *	``rdma/connections/<conn_id>``).
 * @batch_max: entries a batch may have.
 * @value_max: bytes of the longest value the store holds (at least
 *	@value_size); values longer than @value_size are out of line.
 */
struct ordo_wire_conn_rep {
	__le32 magic;
	__le16 version;
	__le16 queue_depth;
	__le32 max_msg;
	__le32 flags;
	__le64 server_id;
	__le64 chunk_size;
	__le32 node_size;
	__le32 value_size;
	__le32 leaf_slots;
	__le32 inner_fanout;
	__le32 nodes_per_chunk;
	__le32 max_chunks;
	__le32 nr_chunks;
	__le32 conn_id;
	__le32 batch_max;
	__le32 value_max;
};

/**
 * enum ordo_wire_op - RPC operation codes (ordo_wire_hdr.op)
 * @ORDO_WIRE_OP_GET: read a value (body: struct ordo_wire_kv; the reply's
 *	body is the value, exactly: its length is the value's; with
 *	%ORDO_WIRE_F_PART, a value longer than value_size or a part asked
 *	for with %ORDO_WIRE_KV_PART, struct ordo_wire_part and bytes).
 * @ORDO_WIRE_OP_PUT: insert or replace (struct ordo_wire_kv + value).
 * @ORDO_WIRE_OP_INSERT: insert an absent key (struct ordo_wire_kv + value).
 * @ORDO_WIRE_OP_UPDATE: replace a present key, optionally at a hinted
 *	leaf (struct ordo_wire_kv + value).
 * @ORDO_WIRE_OP_DELETE: remove a key (struct ordo_wire_kv).
 * @ORDO_WIRE_OP_SCAN: ordered range read (struct ordo_wire_scan_req).
 * @ORDO_WIRE_OP_INFO: geometry and counters (no body).
 * @ORDO_WIRE_OP_REGIONS: list the published regions of one kind on the
 *	connection's device (struct ordo_wire_regions_req); kind
 *	%ORDO_WIRE_REGION_TABLE tells where the region table is.
 * @ORDO_WIRE_OP_MODEL_FETCH: read part of the learned model
 *	(struct ordo_wire_model_req).
 * @ORDO_WIRE_OP_BATCH: several point operations (struct ordo_wire_batch).
 * @ORDO_WIRE_OP_LOOKUP: the learned client's fallback: a GET that also
 *	returns the current sub-model (descriptor and TT slice) of the key's
 *	range (struct ordo_wire_lookup_req).
 * @ORDO_WIRE_OP_STAGE: upload one part of a value too long for one
 *	message into the connection's staged value (struct
 *	ordo_wire_stage); a write with %ORDO_WIRE_KV_STAGED stores it.
 *
 * The point operations have the numbers of enum ordo_op (linux/ordo.h).
 */
enum ordo_wire_op {
	ORDO_WIRE_OP_GET = 1,
	ORDO_WIRE_OP_PUT = 2,
	ORDO_WIRE_OP_INSERT = 3,
	ORDO_WIRE_OP_UPDATE = 4,
	ORDO_WIRE_OP_DELETE = 5,
	ORDO_WIRE_OP_SCAN = 6,
	ORDO_WIRE_OP_INFO = 7,
	ORDO_WIRE_OP_REGIONS = 8,
	ORDO_WIRE_OP_MODEL_FETCH = 9,
	ORDO_WIRE_OP_BATCH = 10,
	ORDO_WIRE_OP_LOOKUP = 11,
	ORDO_WIRE_OP_STAGE = 12,
};

#define ORDO_WIRE_OP_MAX	ORDO_WIRE_OP_STAGE

/**
 * enum ordo_wire_status - result of an RPC (ordo_wire_hdr.status)
 * @ORDO_WIRE_OK: done.
 * @ORDO_WIRE_ENOENT: the key is absent (GET, UPDATE, DELETE); no model is
 *	published yet (MODEL_FETCH).
 * @ORDO_WIRE_EEXIST: the key is present (INSERT).
 * @ORDO_WIRE_EINVAL: a field is out of range or a reserved field is set.
 * @ORDO_WIRE_EMSGSIZE: a value is longer than the server's value_max.
 * @ORDO_WIRE_E2BIG: a count exceeds its limit, or the reply would not fit
 *	in max_msg.
 * @ORDO_WIRE_ENOMEM: the store is full (max_memory_mb) or the server is out
 *	of memory; nothing was changed.
 * @ORDO_WIRE_EIO: the server found its tree corrupt.
 * @ORDO_WIRE_EPROTO: bad header: unknown version, length not matching the
 *	bytes received, or non-zero status or reserved header fields.
 * @ORDO_WIRE_EOPNOTSUPP: unknown operation code; a REGIONS request whose
 *	kind is not one of enum ordo_wire_region_kind (checked after the
 *	body's length and flags); REGIONS of the model
 *	kind or MODEL_FETCH on a server that has no model (no trainer).
 *
 * Each maps to the errno the /dev/ordo ioctls return for the same
 * condition: see ordo_wire_errno().
 */
enum ordo_wire_status {
	ORDO_WIRE_OK = 0,
	ORDO_WIRE_ENOENT = 1,
	ORDO_WIRE_EEXIST = 2,
	ORDO_WIRE_EINVAL = 3,
	ORDO_WIRE_EMSGSIZE = 4,
	ORDO_WIRE_E2BIG = 5,
	ORDO_WIRE_ENOMEM = 6,
	ORDO_WIRE_EIO = 7,
	ORDO_WIRE_EPROTO = 8,
	ORDO_WIRE_EOPNOTSUPP = 9,
};

/* ordo_wire_hdr.flags of replies */
#define ORDO_WIRE_F_HINT_USED	0x0001	/* UPDATE: applied at the hinted leaf */
#define ORDO_WIRE_F_PART	0x0002	/* GET, LOOKUP: struct ordo_wire_part */

/**
 * struct ordo_wire_hdr - first 24 bytes of every request and reply
 * @id: chosen by the client; the reply carries the request's id.
 * @length: bytes of the whole message, this header included.
 * @version: %ORDO_WIRE_VERSION.
 * @op: enum ordo_wire_op; a reply carries its request's op.
 * @flags: requests: zero; replies: ORDO_WIRE_F_* bits.
 * @status: requests: zero; replies: enum ordo_wire_status.
 * @pool_chunks: requests: zero; replies: node-pool chunks the published
 *	region table of the connection's device covers (its @pool_chunks),
 *	so [0, pool_chunks * chunk_size) may be read.  When it exceeds what
 *	the client's copy of the table covers, the client READs the table
 *	again (struct ordo_wire_table).
 *
 * A reply with a non-zero status has no body.
 */
struct ordo_wire_hdr {
	__le64 id;
	__le32 length;
	__u8 version;
	__u8 op;
	__le16 flags;
	__le32 status;
	__le32 pool_chunks;
};

/* ordo_wire_kv.flags */
#define ORDO_WIRE_KV_HINT	0x01	/* UPDATE: hint_leaf valid */
#define ORDO_WIRE_KV_PART	0x02	/* GET: part from @arg, F_PART reply */
#define ORDO_WIRE_KV_STAGED	0x04	/* PUT..UPDATE: store the staged value */

/**
 * struct ordo_wire_kv - one point operation (24 bytes)
 * @key: the key; every u64 is a valid key.
 * @value_len: bytes of value following this struct.  PUT, INSERT and
 *	UPDATE: the value's length, 0 to value_max (the value is stored
 *	with it), or 0 with %ORDO_WIRE_KV_STAGED; GET and DELETE: 0.
 * @op: in a batch, the entry's operation (GET to DELETE); in a single
 *	request, the header's op.
 * @flags: ORDO_WIRE_KV_* bits: %ORDO_WIRE_KV_HINT only with UPDATE;
 *	%ORDO_WIRE_KV_PART only with a GET that is not in a batch;
 *	%ORDO_WIRE_KV_STAGED only with PUT, INSERT and UPDATE, without
 *	%ORDO_WIRE_KV_HINT.
 * @arg: GET with %ORDO_WIRE_KV_PART: the offset of the first value byte
 *	wanted; a write with %ORDO_WIRE_KV_STAGED: the length of the staged
 *	value (which must be complete); else zero.
 * @hint_leaf: UPDATE with %ORDO_WIRE_KV_HINT: node number of the leaf the
 *	client believes holds @key; else zero.  The server writes at the
 *	hinted leaf only if it is a live leaf whose fences cover @key, and
 *	otherwise searches the tree: a stale hint costs time, never
 *	correctness.
 * @hint_incarnation: zero without %ORDO_WIRE_KV_HINT; ignored with it
 *	(servers before this release compared its low 8 bits with the
 *	leaf's incarnation; the fences alone make a hint safe).
 *
 * The value follows, zero-padded to a multiple of 8 bytes.
 */
struct ordo_wire_kv {
	__le64 key;
	__le16 value_len;
	__u8 op;
	__u8 flags;
	__le32 arg;
	__le32 hint_leaf;
	__le32 hint_incarnation;
};

/* ordo_wire_scan_req.flags */
#define ORDO_WIRE_SCAN_KEYS_ONLY	0x01	/* reply without values */

/**
 * struct ordo_wire_scan_req - SCAN request body
 * @start: first key of interest (inclusive).
 * @count: most pairs wanted, 1 to %ORDO_WIRE_SCAN_MAX.  The reply holds
 *	fewer if max_msg bounds it; it then sets @more.
 * @flags: ORDO_WIRE_SCAN_* bits.
 */
struct ordo_wire_scan_req {
	__le64 start;
	__le32 count;
	__le32 flags;
};

/**
 * struct ordo_wire_scan_rep - SCAN reply body
 * @next: when @more, the key to continue at.
 * @returned: pairs in this reply, in ascending key order.
 * @more: 1 if keys past the last one returned may exist; only with
 *	@returned at least 1, and @next is then past the last key.
 *
 * Followed by ``__le64 keys[returned]`` and, unless
 * %ORDO_WIRE_SCAN_KEYS_ONLY, ``__le32 lens[returned]`` (each value's
 * length, at most value_max) and ``values[returned][value_size]``, each
 * zero past its length: a value longer than value_size is all zeros there
 * (GET it).
 */
struct ordo_wire_scan_rep {
	__le64 next;
	__le32 returned;
	__le32 more;
};

/**
 * struct ordo_wire_info - INFO reply body
 * @server_id: as in struct ordo_wire_conn_rep.
 * @keys: keys stored.
 * @pool_bytes_used: bytes of the pool handed out to nodes.
 * @pool_bytes_total: bytes of the pool allocated as chunks.
 * @chunk_size: bytes per node-pool chunk.
 * @node_size: bytes per tree node.
 * @value_size: bytes per value.
 * @leaf_slots: key/value slots per leaf.
 * @inner_fanout: entries per inner node.
 * @nodes_per_chunk: nodes per chunk.
 * @max_chunks: chunks the pool may grow to.
 * @nr_chunks: chunks the pool has now.
 * @height: tree height (1: the root is a leaf).
 * @queue_depth: credits of this connection.
 * @max_msg: as in struct ordo_wire_conn_rep.
 */
struct ordo_wire_info {
	__le64 server_id;
	__le64 keys;
	__le64 pool_bytes_used;
	__le64 pool_bytes_total;
	__le64 chunk_size;
	__le32 node_size;
	__le32 value_size;
	__le32 leaf_slots;
	__le32 inner_fanout;
	__le32 nodes_per_chunk;
	__le32 max_chunks;
	__le32 nr_chunks;
	__le32 height;
	__le32 queue_depth;
	__le32 max_msg;
};

/**
 * enum ordo_wire_region_kind - address spaces a client may READ
 * @ORDO_WIRE_REGION_POOL: the node pool: node n at ordo_node_offset(n)
 *	(linux/ordo_node.h).
 * @ORDO_WIRE_REGION_MODEL: the learned-model region (linux/ordo_model.h).
 * @ORDO_WIRE_REGION_TABLE: the region table (struct ordo_wire_table): the
 *	keys of the other two, readable with one RDMA READ.  Its REGIONS
 *	listing has one entry, or none while the device's first
 *	registration is still under way (ask again).
 */
enum ordo_wire_region_kind {
	ORDO_WIRE_REGION_POOL = 1,
	ORDO_WIRE_REGION_MODEL = 2,
	ORDO_WIRE_REGION_TABLE = 3,
};

/**
 * struct ordo_wire_regions_req - REGIONS request body
 * @kind: enum ordo_wire_region_kind.
 * @flags: zero.
 * @first: index of the first table entry wanted.
 */
struct ordo_wire_regions_req {
	__le16 kind;
	__le16 flags;
	__le32 first;
};

/**
 * struct ordo_wire_regions_rep - REGIONS reply body
 * @total: entries of this kind in the device's published region table
 *	(%ORDO_WIRE_REGION_TABLE: 1, or 0 while the table is not yet
 *	published).
 * @returned: entries in this reply, from the requested first one.
 * @covered: bytes of the kind's address space that are registered:
 *	the entries tile [0, covered) without gaps or overlap
 *	(%ORDO_WIRE_REGION_TABLE: the table's length).
 *
 * Followed by @returned struct ordo_wire_region in ascending @offset order.
 */
struct ordo_wire_regions_rep {
	__le32 total;
	__le32 returned;
	__le64 covered;
};

/**
 * struct ordo_wire_region - one registered region (a run of chunks)
 * @offset: zero-based offset of the region in its address space; it is
 *	also the remote address to READ it at.
 * @length: bytes.
 * @rkey: remote key, valid for RDMA READ only, on every connection to the
 *	same RDMA device of the server (struct ordo_wire_table, @lease_ms,
 *	says how long).
 * @kind: enum ordo_wire_region_kind.
 * @flags: zero.
 *
 * A READ of [addr, addr + len) uses the entry with offset <= addr and
 * addr + len <= offset + length, with remote address addr.
 */
struct ordo_wire_region {
	__le64 offset;
	__le64 length;
	__le32 rkey;
	__le16 kind;
	__le16 flags;
};

/* "ORDT" read as a little-endian 32-bit word. */
#define ORDO_WIRE_TABLE_MAGIC		0x5444524fU
#define ORDO_WIRE_TABLE_VERSION		1
/* Most entries a region table may have room for. */
#define ORDO_WIRE_TABLE_ENTRIES_MAX	65536

/**
 * struct ordo_wire_table - header of the region table (64 bytes)
 * @seq: even: the table is stable; odd: it is being rewritten.  Grows by 2
 *	with every publication and never goes back while the table's key
 *	(%ORDO_WIRE_REGION_TABLE) is valid.
 * @checksum: XXH64 (seed 0) of the bytes [0, 64 + 24 * @nr_entries)
 *	computed as if @checksum were 0; @seq is part of it with its even
 *	value.  A copy whose checksum does not match was torn by a
 *	publication: READ it again.
 * @magic: %ORDO_WIRE_TABLE_MAGIC.
 * @version: %ORDO_WIRE_TABLE_VERSION.
 * @hdr_size: 64, the bytes of this header.
 * @server_id: as in struct ordo_wire_conn_rep.
 * @cap_entries: entries the table has room for: the table is 64 + 24 *
 *	@cap_entries bytes long, at most %ORDO_WIRE_TABLE_ENTRIES_MAX.
 * @nr_entries: entries in use, at most @cap_entries.
 * @pool_chunks: node-pool chunks the %ORDO_WIRE_REGION_POOL entries tile
 *	from 0: [0, @pool_chunks * chunk_size) may be READ.
 * @nr_chunks: chunks the pool had when this table was published; at least
 *	@pool_chunks (more while the new ones are being registered).
 * @model_bytes: bytes of the model region the %ORDO_WIRE_REGION_MODEL
 *	entries tile from 0.
 * @lease_ms: a client uses the keys of a copy of this table for at most
 *	@lease_ms milliseconds after it started the READ that fetched it; the
 *	server keeps every key a table listed valid for at least 2 * @lease_ms
 *	after the publication that dropped it.
 * @reserved: zero.
 *
 * Followed by @nr_entries struct ordo_wire_region: first the
 * %ORDO_WIRE_REGION_POOL entries in ascending offset order, tiling [0,
 * @pool_chunks * chunk_size), then the %ORDO_WIRE_REGION_MODEL entries in
 * ascending offset order, tiling [0, @model_bytes).  Bytes past them are
 * not covered by @checksum and carry no meaning.
 */
struct ordo_wire_table {
	__le64 seq;
	__le64 checksum;
	__le32 magic;
	__le16 version;
	__le16 hdr_size;
	__le64 server_id;
	__le32 cap_entries;
	__le32 nr_entries;
	__le32 pool_chunks;
	__le32 nr_chunks;
	__le64 model_bytes;
	__le32 lease_ms;
	__le32 reserved;
};

/**
 * enum ordo_wire_model_part - what MODEL_FETCH reads (linux/ordo_model.h)
 * @ORDO_WIRE_MODEL_TOP: region bytes [0, model_size): header, pivots and
 *	descriptors, what ordo_model_load_top() takes; from the request's
 *	offset, as much as fits.
 * @ORDO_WIRE_MODEL_SUB: one descriptor followed by its TT slice, what
 *	ordo_model_load_sub() takes; the descriptor alone if the slice does
 *	not fit (then fetch the slice with %ORDO_WIRE_MODEL_TT).
 * @ORDO_WIRE_MODEL_TT: TT entries from the request's index, as many as
 *	asked for and fit.
 *
 * The bytes are copied from the published region as a one-sided READ
 * would see them; the region's checksums tell whether they are
 * consistent (a concurrent publication makes them fail: fetch again).
 */
enum ordo_wire_model_part {
	ORDO_WIRE_MODEL_TOP = 1,
	ORDO_WIRE_MODEL_SUB = 2,
	ORDO_WIRE_MODEL_TT = 3,
};

/**
 * struct ordo_wire_model_req - MODEL_FETCH request body
 * @part: enum ordo_wire_model_part.
 * @flags: zero.
 * @index: SUB: sub-model number; TT: first TT entry; TOP: zero.
 * @count: TT: entries wanted (at least 1); else zero.
 * @offset: TOP: byte offset to continue a top level larger than max_msg;
 *	else zero.
 * @epoch: the model epoch the client holds, or 0.
 */
struct ordo_wire_model_req {
	__le16 part;
	__le16 flags;
	__le32 index;
	__le32 count;
	__le32 offset;
	__le64 epoch;
};

/**
 * struct ordo_wire_model_rep - MODEL_FETCH reply body
 * @epoch: epoch of the model the data comes from.
 * @total: TOP: model_size bytes; SUB: bytes of the descriptor and its
 *	whole slice; TT: entries of the TT area (tt_cap).
 * @returned: bytes of data following.
 *
 * Status %ORDO_WIRE_ENOENT: no model is published yet (or its header was
 * being rewritten); %ORDO_WIRE_EINVAL: index, count or offset outside the
 * current model.
 */
struct ordo_wire_model_rep {
	__le64 epoch;
	__le32 total;
	__le32 returned;
};

/**
 * struct ordo_wire_batch - BATCH request body
 * @count: entries, 1 to batch_max (struct ordo_wire_conn_rep).
 * @flags: zero.
 *
 * Followed by @count entries, each a struct ordo_wire_kv and its value
 * zero-padded to a multiple of 8 bytes, filling the message exactly.  The
 * whole batch is validated before any entry runs, so a malformed batch
 * changes nothing; entries then run in order.
 */
struct ordo_wire_batch {
	__le32 count;
	__le32 flags;
};

/**
 * struct ordo_wire_batch_rep - BATCH reply body
 * @count: entries, as in the request.
 * @reserved: zero.
 *
 * Followed by @count struct ordo_wire_batch_res, in request order.
 */
struct ordo_wire_batch_rep {
	__le32 count;
	__le32 reserved;
};

/**
 * struct ordo_wire_batch_res - result of one batch entry (12 bytes)
 * @status: enum ordo_wire_status.
 * @value_len: the value's length for a GET that found its key, else 0.
 *	The values of at most value_size bytes follow the results packed
 *	back to back, in entry order; a longer value has no bytes there
 *	(GET it alone).
 * @flags: ORDO_WIRE_F_HINT_USED for this entry.
 * @reserved: zero.
 */
struct ordo_wire_batch_res {
	__le32 status;
	__le32 value_len;
	__u8 flags;
	__u8 reserved[3];
};

/* ordo_wire_lookup_req.flags */
#define ORDO_WIRE_LOOKUP_NO_MODEL	0x01	/* attach no model bytes */

/**
 * struct ordo_wire_lookup_req - LOOKUP request body (24 bytes)
 * @key: the key to read; every u64 is a valid key.
 * @epoch: the model epoch the client holds, or 0 for none.  Informational:
 *	the reply always carries the model published now.
 * @flags: ORDO_WIRE_LOOKUP_* bits; %ORDO_WIRE_LOOKUP_NO_MODEL: a plain GET
 *	that reports an absent key in @found instead of by status.
 * @reserved: zero.
 *
 * The body is exactly this struct.
 */
struct ordo_wire_lookup_req {
	__le64 key;
	__le64 epoch;
	__le32 flags;
	__le32 reserved;
};

/**
 * struct ordo_wire_lookup_rep - LOOKUP reply body (32 bytes)
 * @epoch: epoch of the model the attached bytes come from; 0 when
 *	@model_len is 0.
 * @found: 1 if the key is present, else 0.
 * @value_len: bytes of value following this struct: the value's length
 *	(0 to value_size) when @found, else 0.  With %ORDO_WIRE_F_PART in
 *	the reply header (a value longer than value_size): 24 + returned,
 *	the value being described by a struct ordo_wire_part and followed
 *	by its first returned bytes.
 * @sub: index of the sub-model whose domain holds the key (the largest i
 *	with pivot[i] <= key in that model); 0 when @model_len is 0.
 * @model_len: bytes of model data following the value: the sub-model's
 *	descriptor and its TT slice (what %ORDO_WIRE_MODEL_SUB returns), the
 *	descriptor alone if the slice does not fit in max_msg, or 0 when no
 *	model is attached (no trainer, no model published, or
 *	%ORDO_WIRE_LOOKUP_NO_MODEL).
 * @model_total: bytes of the descriptor and its whole slice (as
 *	struct ordo_wire_model_rep.total for %ORDO_WIRE_MODEL_SUB); 0 when
 *	@model_len is 0.
 * @reserved: zero.
 *
 * Followed by @value_len bytes of value zero-padded to a multiple of 8,
 * then @model_len bytes of model data.  The model bytes are copied after
 * the GET, as a one-sided READ would see them: the descriptor's checksum
 * tells whether they are consistent with the client's top level of the
 * same epoch.
 */
struct ordo_wire_lookup_rep {
	__le64 epoch;
	__le32 found;
	__le32 value_len;
	__le32 sub;
	__le32 model_len;
	__le32 model_total;
	__le32 reserved;
};

/**
 * struct ordo_wire_part - part of a value (24 bytes), %ORDO_WIRE_F_PART
 * @ref: the value's extent reference (its leaf slot's check word,
 *	linux/ordo_node.h), or 0 for a value of at most value_size bytes.
 *	Parts with the same @ref are bytes of the same stored value; when it
 *	differs between parts, the value changed: start again.
 * @len: the value's length, 0 to value_max.
 * @offset: the first byte returned: the request's offset (GET with
 *	%ORDO_WIRE_KV_PART) or 0.
 * @returned: bytes following this struct: at most @len - @offset (0 when
 *	@offset >= @len), fewer when the reply would not fit in max_msg.
 * @units: for an extent, ordo_extent_units(@len): bytes / 64 of the
 *	extent a one-sided reader READs at ordo_extent_ref_offset(@ref);
 *	else 0.
 *
 * GET replies: the body is this struct then @returned bytes (no padding).
 * LOOKUP replies: the value section is this struct then @returned bytes,
 * zero-padded to a multiple of 8.
 */
struct ordo_wire_part {
	__le64 ref;
	__le32 len;
	__le32 offset;
	__le32 returned;
	__le32 units;
};

/**
 * struct ordo_wire_stage - STAGE request body (16 bytes)
 * @total: the whole value's length: value_size < @total <= value_max.
 * @offset: where this part goes: 0 starts a new staged value (dropping
 *	the connection's earlier one); else exactly the bytes staged so far
 *	of a staged value of the same @total.
 * @len: bytes of this part following this struct, 1 to @total - @offset,
 *	zero-padded to a multiple of 8 and filling the message exactly.
 * @flags: zero.
 *
 * A connection has at most one staged value.  It is dropped by a failed
 * STAGE, by a well-formed write with %ORDO_WIRE_KV_STAGED (which stores
 * it, or fails and drops it), by a STAGE at offset 0, and when the
 * connection closes.  The reply has no body.
 */
struct ordo_wire_stage {
	__le32 total;
	__le32 offset;
	__le32 len;
	__le32 flags;
};

/**
 * ordo_wire_pad8() - round a byte count up to the wire's 8-byte alignment
 * @len: bytes
 *
 * Return: @len rounded up to a multiple of 8.
 */
static inline __u32 ordo_wire_pad8(__u32 len)
{
	return (len + 7) & ~7U;
}

/**
 * ordo_wire_errno() - the errno an RPC status stands for
 * @status: enum ordo_wire_status
 *
 * Return: 0 for %ORDO_WIRE_OK, else the negative errno the /dev/ordo
 * ioctls return for the same condition; -EPROTO for a status this header
 * does not know.
 */
static inline int ordo_wire_errno(__u32 status)
{
	switch (status) {
	case ORDO_WIRE_OK:
		return 0;
	case ORDO_WIRE_ENOENT:
		return -ENOENT;
	case ORDO_WIRE_EEXIST:
		return -EEXIST;
	case ORDO_WIRE_EINVAL:
		return -EINVAL;
	case ORDO_WIRE_EMSGSIZE:
		return -EMSGSIZE;
	case ORDO_WIRE_E2BIG:
		return -E2BIG;
	case ORDO_WIRE_ENOMEM:
		return -ENOMEM;
	case ORDO_WIRE_EIO:
		return -EIO;
	case ORDO_WIRE_EOPNOTSUPP:
		return -EOPNOTSUPP;
	}
	return -EPROTO;
}

/**
 * ordo_wire_rej_str() - text of a reject reason, for messages to users
 * @reason: enum ordo_wire_rej_reason
 *
 * Return: a static string.
 */
static inline const char *ordo_wire_rej_str(__u32 reason)
{
	switch (reason) {
	case ORDO_WIRE_REJ_MALFORMED:
		return "malformed connect request";
	case ORDO_WIRE_REJ_VERSION:
		return "unsupported protocol version";
	case ORDO_WIRE_REJ_TOKEN:
		return "wrong access token";
	case ORDO_WIRE_REJ_BUSY:
		return "too many connections";
	case ORDO_WIRE_REJ_RESOURCES:
		return "server out of resources";
	case ORDO_WIRE_REJ_SHUTDOWN:
		return "server shutting down";
	case ORDO_WIRE_REJ_DEVICE:
		return "RDMA device not usable";
	case ORDO_WIRE_REJ_THROTTLED:
		return "too many wrong tokens from this address; try later";
	case ORDO_WIRE_REJ_PEER_BUSY:
		return "too many connections from this address";
	}
	return "unknown reason";
}

#endif /* _UAPI_LINUX_ORDO_WIRE_H */
