/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/*
 * ordo - ordered key-value store for RDMA networks: /dev/ordo user API.
 *
 * Every ioctl argument struct is extensible: the kernel reads the size from
 * the ioctl number (_IOC_SIZE) and handles older (shorter) and newer (longer)
 * structs as copy_struct_from_user() does.  The same structs are the payload
 * of io_uring commands (IORING_OP_URING_CMD with cmd_op = the ioctl number,
 * on a ring set up with IORING_SETUP_SQE128).  Pointers travel as __u64.
 */
#ifndef _UAPI_LINUX_ORDO_H
#define _UAPI_LINUX_ORDO_H

#include <linux/types.h>
#include <linux/ioctl.h>

/* 2: values longer than value_size (value_max, ENOBUFS lengths, lens). */
#define ORDO_ABI_VERSION	2
#define ORDO_IOC_MAGIC		0xB8

/* Limits of one call; larger requests fail with -E2BIG. */
#define ORDO_SCAN_MAX		65536
#define ORDO_BATCH_MAX		256

/**
 * struct ordo_info - module version and store geometry (ORDO_IOC_INFO)
 * @abi_version: ORDO_ABI_VERSION of the running module
 * @flags: reserved, 0
 * @version: module version string, NUL-terminated
 * @node_size: bytes per tree node (leaf and inner)
 * @leaf_slots: key/value slots per leaf
 * @inner_fanout: children per inner node
 * @value_size: bytes per value slot: values up to this long sit in their
 *	leaf, longer ones out of line
 * @chunk_size: bytes per node-pool chunk
 * @max_chunks: chunks the pool may grow to (max_memory_mb)
 * @pool_bytes_used: bytes of the pool handed out to nodes and extents
 * @pool_bytes_total: bytes of the pool allocated as chunks
 * @keys: keys stored
 * @height: tree height (1: the root is a leaf)
 * @value_max: the longest value the store takes:
 *	min(%ORDO_VALUE_LEN_MAX, chunk_size - 24) (0 from modules before
 *	0.3.0, whose longest value is value_size)
 */
struct ordo_info {
	__u32 abi_version;
	__u32 flags;
	char version[32];
	__u32 node_size;
	__u32 leaf_slots;
	__u32 inner_fanout;
	__u32 value_size;
	__u32 chunk_size;
	__u32 max_chunks;
	__u64 pool_bytes_used;
	__u64 pool_bytes_total;
	__u64 keys;
	__u32 height;
	__u32 value_max;
};

/**
 * struct ordo_kv - one point operation (GET, PUT, INSERT, UPDATE, DELETE)
 * @key: the key; every u64 value is a valid key
 * @value: user pointer to the value buffer (unused by DELETE)
 * @value_len: bytes at @value.  Writes: the value's length, 0..value_max
 *	(-EMSGSIZE if larger); @value may be 0 for an empty value.  GET: in,
 *	the buffer's size, at least value_size (else -ENOBUFS, with
 *	@value_len set to value_size); out, the value's length, and exactly
 *	that many bytes are written.  A value longer than the buffer fails
 *	with -ENOBUFS, @value_len set to its length (the ioctl only: an
 *	io_uring command has nowhere to write it).
 * @flags: reserved, must be 0
 */
struct ordo_kv {
	__u64 key;
	__u64 value;
	__u32 value_len;
	__u32 flags;
};

/**
 * struct ordo_scan - ordered range read (ORDO_IOC_SCAN)
 * @start: first key of interest (inclusive)
 * @keys: user pointer to a __u64 array of @count entries (output)
 * @values: user pointer to @count * value_size bytes (output), or 0 to
 *	read keys only
 * @count: in: most pairs wanted, 1..ORDO_SCAN_MAX
 * @flags: reserved, must be 0
 * @returned: out: pairs written, in ascending key order
 * @more: out: 1 if keys past the last one returned may exist
 * @next: out: when @more, the key to start the next call at
 * @lens: user pointer to a __u32 array of @count entries (output): the
 *	length of each value returned, or 0 not to read them.  Each value
 *	still takes value_size bytes of @values, zero past its length; a
 *	value longer than value_size (up to value_max) has its length here
 *	and all value_size bytes zero: a GET reads it.
 *
 * The struct grew by @lens; the first version (%ORDO_SCAN_SIZE_VER0
 * bytes, up to @next) is still accepted.
 */
struct ordo_scan {
	__u64 start;
	__u64 keys;
	__u64 values;
	__u32 count;
	__u32 flags;
	__u32 returned;
	__u32 more;
	__u64 next;
	__u64 lens;
};

#define ORDO_SCAN_SIZE_VER0	48

/* Operation codes of batch entries (and of RPCs later). */
enum ordo_op {
	ORDO_OP_GET = 1,
	ORDO_OP_PUT = 2,	/* upsert */
	ORDO_OP_INSERT = 3,	/* -EEXIST if present */
	ORDO_OP_UPDATE = 4,	/* -ENOENT if absent */
	ORDO_OP_DELETE = 5,	/* -ENOENT if absent */
};

/**
 * struct ordo_batch_op - one entry of a batch
 * @op: enum ordo_op
 * @result: out: 0 or a negative errno for this entry
 * @kv: the operation's arguments, as for the single-op ioctls
 */
struct ordo_batch_op {
	__u32 op;
	__s32 result;
	struct ordo_kv kv;
};

/**
 * struct ordo_batch - several point operations in one call (ORDO_IOC_BATCH)
 * @ops: user pointer to @count struct ordo_batch_op
 * @count: 1..ORDO_BATCH_MAX
 * @flags: reserved, must be 0
 * @done: out: entries executed
 * @reserved: must be 0
 *
 * Every entry is validated and every value copied in before anything
 * executes, so a malformed batch fails as a whole and changes nothing.
 * Entries then run in order; each reports its own result.
 */
struct ordo_batch {
	__u64 ops;
	__u32 count;
	__u32 flags;
	__u32 done;
	__u32 reserved;
};

/**
 * struct ordo_model_info - the learned model (ORDO_IOC_MODEL_INFO)
 * @version: epoch of the published model; 0 while there is none (see
 *	struct ordo_model_hdr: random after each load, then counting up)
 * @keys: keys the last full training saw
 * @sub_models: sub-models of the published model
 * @tt_entries: translation-table entries in use (one per leaf)
 * @tt_capacity: translation-table entries the region has room for
 * @eps: error bound the sub-models were fitted to, in leaves
 * @model_bytes: bytes of the top level and sub-model descriptors
 * @tt_bytes: bytes of the translation-table entries in use
 * @region_bytes: bytes of the model region in use: from offset 0 (the
 *	anchor) to the end of the live image's TT area
 * @err_pos_avg_milli: average |predicted - true| position of a stored key,
 *	in thousandths of a slot (measured at the last full training)
 * @err_pos_max: maximum of the same, in slots (rounded up)
 * @err_leaf_avg_milli: average |predicted - true| leaf, in thousandths
 * @err_leaf_max: maximum of the same, in leaves
 * @window_avg_milli: average leaves in a stored key's error window, in
 *	thousandths (before the TT's fence codes pick the leaf)
 * @window_max: largest error window, in leaves
 * @one_leaf_ppm: share of stored keys whose window is exactly one leaf, in
 *	millionths
 * @wrong: stored keys the model did not resolve to their leaf (always 0
 *	for a fresh model; a self-check)
 * @retrains: sub-model retrains published since load
 * @pending: work the trainer has not published yet: queued splits and
 *	retired leaves, and a full training that is due or running
 * @full_trains: full trainings published since load
 * @expansions: full trainings that grew the sub-model count
 * @shrinks: full trainings that reduced it
 * @last_full_train_us: duration of the last full training, microseconds
 * @last_full_train_ns: CLOCK_BOOTTIME when it was published
 * @cand_avg_milli: average leaves a client with the fresh model reads for
 *	a stored key (the candidates the fence codes leave: one, or a few
 *	adjacent ones read in one batch), in thousandths (measured with the
 *	window figures)
 * @cand_max: most candidates for one stored key
 * @cand_one_ppm: share of stored keys with exactly one candidate, in
 *	millionths
 *
 * The struct grew by the last three fields; the first version
 * (%ORDO_MODEL_INFO_SIZE_VER0 bytes, up to @last_full_train_ns) is still
 * accepted and gets its fields only.
 */
struct ordo_model_info {
	__u64 version;
	__u64 keys;
	__u32 sub_models;
	__u32 tt_entries;
	__u32 tt_capacity;
	__u32 eps;
	__u64 model_bytes;
	__u64 tt_bytes;
	__u64 region_bytes;
	__u64 err_pos_avg_milli;
	__u64 err_pos_max;
	__u64 err_leaf_avg_milli;
	__u64 err_leaf_max;
	__u64 window_avg_milli;
	__u64 window_max;
	__u32 one_leaf_ppm;
	__u32 pending;
	__u64 wrong;
	__u64 retrains;
	__u64 full_trains;
	__u64 expansions;
	__u64 shrinks;
	__u64 last_full_train_us;
	__u64 last_full_train_ns;
	__u64 cand_avg_milli;
	__u32 cand_max;
	__u32 cand_one_ppm;
};

#define ORDO_MODEL_INFO_SIZE_VER0	168

/**
 * struct ordo_retrain - force a full training (ORDO_IOC_RETRAIN)
 * @flags: reserved, must be 0
 * @reserved: must be 0
 * @version: out: epoch of the model published by this training
 *
 * Waits until the trainer has published the new model.  Fails with
 * -ENODATA on an empty store (nothing to learn), and with -ENOSPC when the
 * model region (module parameter model_max_mb) has no room for the new
 * image beside the live one; the live model stays.
 */
struct ordo_retrain {
	__u32 flags;
	__u32 reserved;
	__u64 version;
};

/*
 * mmap offsets: the node pool starts at 0, the model region (layout in
 * <linux/ordo_model.h>) at ORDO_MMAP_MODEL.  Both are read-only.
 */
#define ORDO_MMAP_POOL		0ULL
#define ORDO_MMAP_MODEL		0x10000000000ULL	/* 1 TiB */

#define ORDO_IOC_INFO		_IOR(ORDO_IOC_MAGIC, 0x00, struct ordo_info)
#define ORDO_IOC_GET		_IOWR(ORDO_IOC_MAGIC, 0x01, struct ordo_kv)
#define ORDO_IOC_PUT		_IOW(ORDO_IOC_MAGIC, 0x02, struct ordo_kv)
#define ORDO_IOC_INSERT		_IOW(ORDO_IOC_MAGIC, 0x03, struct ordo_kv)
#define ORDO_IOC_UPDATE		_IOW(ORDO_IOC_MAGIC, 0x04, struct ordo_kv)
#define ORDO_IOC_DELETE		_IOW(ORDO_IOC_MAGIC, 0x05, struct ordo_kv)
#define ORDO_IOC_SCAN		_IOWR(ORDO_IOC_MAGIC, 0x06, struct ordo_scan)
#define ORDO_IOC_BATCH		_IOWR(ORDO_IOC_MAGIC, 0x07, struct ordo_batch)
#define ORDO_IOC_MODEL_INFO	_IOR(ORDO_IOC_MAGIC, 0x08, struct ordo_model_info)
#define ORDO_IOC_RETRAIN	_IOWR(ORDO_IOC_MAGIC, 0x09, struct ordo_retrain)

#endif /* _UAPI_LINUX_ORDO_H */
