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

#define ORDO_ABI_VERSION	1
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
 * @value_size: bytes per value
 * @chunk_size: bytes per node-pool chunk
 * @max_chunks: chunks the pool may grow to (max_memory_mb)
 * @pool_bytes_used: bytes of the pool handed out to nodes
 * @pool_bytes_total: bytes of the pool allocated as chunks
 * @keys: keys stored
 * @height: tree height (1: the root is a leaf)
 * @reserved: 0
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
	__u32 reserved;
};

/**
 * struct ordo_kv - one point operation (GET, PUT, INSERT, UPDATE, DELETE)
 * @key: the key; every u64 value is a valid key
 * @value: user pointer to the value buffer (unused by DELETE)
 * @value_len: bytes at @value.  Writes: 1..value_size, zero-padded to
 *	value_size (-EMSGSIZE if larger).  GET: at least value_size
 *	(-ENOBUFS if smaller); exactly value_size bytes are written.
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
};

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
 * @pad: must be 0
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

#define ORDO_IOC_INFO		_IOR(ORDO_IOC_MAGIC, 0x00, struct ordo_info)
#define ORDO_IOC_GET		_IOWR(ORDO_IOC_MAGIC, 0x01, struct ordo_kv)
#define ORDO_IOC_PUT		_IOW(ORDO_IOC_MAGIC, 0x02, struct ordo_kv)
#define ORDO_IOC_INSERT		_IOW(ORDO_IOC_MAGIC, 0x03, struct ordo_kv)
#define ORDO_IOC_UPDATE		_IOW(ORDO_IOC_MAGIC, 0x04, struct ordo_kv)
#define ORDO_IOC_DELETE		_IOW(ORDO_IOC_MAGIC, 0x05, struct ordo_kv)
#define ORDO_IOC_SCAN		_IOWR(ORDO_IOC_MAGIC, 0x06, struct ordo_scan)
#define ORDO_IOC_BATCH		_IOWR(ORDO_IOC_MAGIC, 0x07, struct ordo_batch)

#endif /* _UAPI_LINUX_ORDO_H */
