// SPDX-License-Identifier: GPL-2.0
/*
 * A syzkaller-style random generator of /dev/ordo system calls, run in the
 * guest: several threads issue random ioctls (known and unknown command
 * numbers, right and wrong sizes and directions, random argument structs),
 * io_uring commands (SQEs filled by hand, IORING_OP_URING_CMD), mmaps of
 * random offsets, lengths, protections and flags (then touched, mprotect'ed,
 * partly unmapped), and close and reopen the shared descriptors under each
 * other's calls.  Every user pointer is drawn from: a good buffer, a
 * misaligned one, NULL, an unmapped page, a buffer running into an unmapped
 * page, a read-only page, a read-only mapping of /dev/ordo itself, a kernel
 * address, a non-canonical one, or any 64-bit value.
 *
 * A pointer's region is followed by GUARD pages without access, then a
 * canary page: whatever size a call declares (at most 16 KiB, the ioctl
 * size field), the kernel can only reach memory the harness owns or
 * memory that faults.  Without them, a read-only page followed by the
 * loader's own data made a "bad" buffer whose tail, declared by the call,
 * the kernel zeroed (Documentation/testing.rst).  Each call
 * is followed by a check of the canaries: a kernel write past a declared
 * length fails the run, naming the call.
 *
 * What must hold: the store holds SENT_N sentinel keys, written before the
 * run, that the generator never legitimately modifies: valid writes go to
 * the write range [W_BASE, W_BASE + W_N) only; the sentinels get only
 * calls that must be refused (an INSERT of a present key, writes with a
 * bad value pointer, length or flags, commands of the wrong size or with
 * non-zero bytes past the struct, batches with one bad entry anywhere,
 * which fail as a whole before anything runs), each of which is checked
 * to fail.  Afterwards every sentinel holds its value, its neighbours are
 * absent, and the store holds no key outside the sentinels and the write
 * range; mappings never become writable; the kernel is not tainted.  The
 * guest rig also fails the run on any kernel warning and checks rmmod.
 *
 * Options (or environment): --calls N (ORDO_SYZ_CALLS, default 1000000),
 * --threads N (ORDO_SYZ_THREADS, 4), --seed S (ORDO_SYZ_SEED, default 1;
 * 0 draws one from the clock; printed), --seconds S (ORDO_SYZ_SECONDS,
 * bound of the run, 1500).  The seed fixes every thread's choices; the interleaving is the
 * scheduler's.
 */
#define _GNU_SOURCE
#include <execinfo.h>
#include <link.h>
#include <liburing.h>
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <sys/mman.h>
#include <time.h>

#include "ordo_test.h"

#define SENT_BASE	(1ULL << 62)
#define SENT_STRIDE	977
#define SENT_N		512
#define W_BASE		(1ULL << 40)
#define W_N		4096
#define NSLOTS		4
#define SLOT_FD0	900	/* shared descriptors, above any open()'s */
#define ARENA		(1 << 20)
#define PAGE		4096
/* Pages without access after each region: past any 16 KiB struct. */
#define GUARD		5
#define ORDO_RO_PAGES	64
#define RING_DEPTH	32
#define MAX_THREADS	64

static struct {
	uint64_t calls, seed, seconds;
	unsigned int threads;
} cfg = { 1000000, 0, 1500, 4 };

static uint32_t vs, vmax;
static uint8_t *ordo_ro;		/* read-only mapping of the pool */
static uint8_t *ordo_ro_canary;
static uint8_t canary_pattern[PAGE];
static atomic_bool stop;
static atomic_ulong n_ioctl, n_uring, n_mmap, n_close, n_probe;
static atomic_ulong n_ok, n_sigbus;
static atomic_int failures;
static pthread_mutex_t fail_lock = PTHREAD_MUTEX_INITIALIZER;

static __thread sigjmp_buf jb;
static __thread volatile sig_atomic_t armed;
static __thread const char *volatile doing = "";

static void fail(const char *fmt, ...)
{
	va_list ap;

	if (atomic_fetch_add(&failures, 1) >= 20)
		return;
	pthread_mutex_lock(&fail_lock);
	printf("# FAIL: ");
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	fflush(stdout);
	pthread_mutex_unlock(&fail_lock);
}

static uint64_t sent_key(uint32_t i)
{
	return SENT_BASE + (uint64_t)i * SENT_STRIDE;
}

/* ---- per-thread state: PRNG, memory with holes ---- */

struct th {
	uint64_t rng;
	unsigned int id;
	uint64_t calls, done;
	uint8_t *arena;		/* ARENA bytes, read-write */
	uint8_t *edge;		/* a read-write page... */
	uint8_t *hole;		/* ...followed by GUARD pages without access */
	uint8_t *ro;		/* a read-only page of zeros, then a guard */
	uint8_t *canary[2];	/* the pages after the two guards */
	struct {		/* the call in progress, for reports */
		const char *what;
		uint32_t cmd;
		uint64_t arg;
		int kind;
	} last;
	struct io_uring ring;
	bool ring_ok;
};

static uint64_t rnd(struct th *t)
{
	uint64_t z = (t->rng += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

static uint32_t rn(struct th *t, uint32_t n)
{
	return n ? rnd(t) % n : 0;
}

static bool chance(struct th *t, uint32_t pct)
{
	return rn(t, 100) < pct;
}

static int slot_fd(struct th *t)
{
	return SLOT_FD0 + rn(t, NSLOTS);
}

/* Kinds of user pointer. */
enum pk {
	P_GOOD, P_MISALIGNED, P_NULL, P_HOLE, P_STRADDLE, P_RO, P_ORDO,
	P_KERNEL, P_NONCANON, P_RANDOM, P_NR,
};

/*
 * A pointer of kind @k to @need bytes.  Good and misaligned ones point
 * into the arena at @off with room for @need bytes (the caller keeps
 * @need <= ARENA - PAGE).
 */
static uint64_t ptr_of(struct th *t, enum pk k, size_t need, size_t off)
{
	switch (k) {
	case P_GOOD:
		return (uintptr_t)(t->arena + off);
	case P_MISALIGNED:
		return (uintptr_t)(t->arena + off + 1 + rn(t, 7));
	case P_NULL:
		return 0;
	case P_HOLE:
		return (uintptr_t)(t->hole + rn(t, PAGE));
	case P_STRADDLE:
		return (uintptr_t)(t->hole - 1 -
				   rn(t, need > 1 ? (need < PAGE ? need - 1 :
						     PAGE - 1) : 1));
	case P_RO:
		return (uintptr_t)(t->ro + rn(t, PAGE / 8) * 8);
	case P_ORDO:
		return ordo_ro ? (uintptr_t)(ordo_ro + rn(t, ORDO_RO_PAGES * PAGE)) :
				 0;
	case P_KERNEL:
		return 0xffff888000000000ULL + rn(t, 1 << 30);
	case P_NONCANON:
		return 0x8000000000000000ULL >> rn(t, 16);
	default:
		/* Never a user address: it could be our own memory. */
		return rn(t, 4) ? rnd(t) | (1ULL << 63) : rn(t, 1 << 16);
	}
}

static enum pk pick_kind(struct th *t, uint32_t good_pct)
{
	if (chance(t, good_pct))
		return chance(t, 90) ? P_GOOD : P_MISALIGNED;
	return (enum pk)(P_NULL + rn(t, P_NR - P_NULL));
}

/* ---- keys ---- */

static uint64_t key_write(struct th *t)
{
	return W_BASE + rn(t, W_N);
}

static uint64_t key_any(struct th *t)
{
	switch (rn(t, 6)) {
	case 0:
	case 1:
		return key_write(t);
	case 2:
		return sent_key(rn(t, SENT_N));
	case 3:
		return sent_key(rn(t, SENT_N)) + 1;
	case 4:
		return rn(t, 2) ? 0 : UINT64_MAX - rn(t, 3);
	default:
		return rnd(t);
	}
}

/* ---- command numbers ---- */

static const unsigned int known[] = {
	ORDO_IOC_INFO, ORDO_IOC_GET, ORDO_IOC_PUT, ORDO_IOC_INSERT,
	ORDO_IOC_UPDATE, ORDO_IOC_DELETE, ORDO_IOC_SCAN, ORDO_IOC_BATCH,
	ORDO_IOC_MODEL_INFO, ORDO_IOC_RETRAIN,
};

#define NKNOWN (sizeof(known) / sizeof(known[0]))

static unsigned int pick_cmd(struct th *t)
{
	unsigned int c = known[rn(t, NKNOWN)];

	switch (rn(t, 20)) {
	case 0: case 1: case 2:		/* a known one with any size */
		return _IOC(_IOC_DIR(c), ORDO_IOC_MAGIC, _IOC_NR(c),
			    rn(t, 3) ? rn(t, 256) : rn(t, _IOC_SIZEMASK + 1));
	case 3:				/* another direction */
		return _IOC(rn(t, 4), ORDO_IOC_MAGIC, _IOC_NR(c), _IOC_SIZE(c));
	case 4:				/* any number of ours */
		return _IOC(rn(t, 4), ORDO_IOC_MAGIC, rn(t, 256),
			    rn(t, 256));
	case 5:				/* anything */
		return (unsigned int)rnd(t);
	default:
		/* Not too many full trainings: they take milliseconds. */
		if (c == ORDO_IOC_RETRAIN && rn(t, 200))
			return ORDO_IOC_MODEL_INFO;
		return c;
	}
}

/* The known command @cmd is taken as (by number and direction), or NULL. */
static unsigned int known_base(unsigned int cmd)
{
	size_t i;

	if (_IOC_TYPE(cmd) != ORDO_IOC_MAGIC)
		return 0;
	for (i = 0; i < NKNOWN; i++)
		if (_IOC_NR(cmd) == _IOC_NR(known[i]) &&
		    _IOC_DIR(cmd) == _IOC_DIR(known[i]))
			return known[i];
	return 0;
}

static bool is_write_cmd(unsigned int base)
{
	return base == ORDO_IOC_PUT || base == ORDO_IOC_INSERT ||
	       base == ORDO_IOC_UPDATE || base == ORDO_IOC_DELETE;
}

/*
 * Arena layout: [0, 64K) argument structs, [64K, 96K) batch entries of
 * ioctls and probes, [96K, 128K) batch entries of io_uring commands,
 * [128K, 1M - 4K) values and scan buffers.  A ring torn down with commands
 * in flight leaves them running after the thread has moved on: the
 * entries they may still read are never rewritten with sentinel keys (a
 * probe's batch of sentinel writes read by such a command, its bad entry
 * past the command's count, would be valid).
 */
#define A_ARG	0
#define A_OPS	(64 << 10)
#define A_RING_OPS	(96 << 10)
#define A_BUF	(128 << 10)
#define A_BUF_LEN	(ARENA - A_BUF - PAGE)

static uint32_t pick_len(struct th *t)
{
	switch (rn(t, 10)) {
	case 0:
		return 0;
	case 1:
		return vs + 8 * (1 + rn(t, 4));
	case 2:
		return 1 + rn(t, vs);
	case 3:
		return (uint32_t)rnd(t);
	default:
		return vs;
	}
}

/*
 * Fill a struct ordo_kv for point operation command @base: a write goes
 * to the write range only.
 */
static void fill_kv(struct th *t, struct ordo_kv *kv, unsigned int base)
{
	bool w = is_write_cmd(base) || !base;

	kv->key = w ? key_write(t) : key_any(t);
	kv->value_len = pick_len(t);
	kv->value = ptr_of(t, pick_kind(t, 70), vs + 8,
			   A_BUF + rn(t, A_BUF_LEN / 8 - vs) * 8);
	kv->flags = chance(t, 5) ? (uint32_t)rnd(t) | 1 : 0;
}

/*
 * Every entry's key is a write-range key: any op may be accepted.  GETs
 * of other keys only in entries of synchronous calls (@ring false): a
 * command still in flight could read an entry half rewritten, an old
 * DELETE with a new GET's key.
 */
static void fill_batch_op(struct th *t, struct ordo_batch_op *e, bool ring)
{
	e->op = chance(t, 95) ? 1 + rn(t, 5) : (uint32_t)rnd(t);
	e->result = (int32_t)rnd(t);
	fill_kv(t, &e->kv, 0);
	if (e->op == ORDO_OP_GET && !ring && chance(t, 50))
		e->kv.key = key_any(t);
}

/*
 * Fill @len bytes of argument for @cmd at @arg: the struct of the command
 * it is taken as (if any), then mostly zeros, sometimes junk.  @ring: for
 * an io_uring command (batch entries in their own area).
 */
static void fill_arg(struct th *t, unsigned int cmd, uint8_t *arg, size_t len,
		     bool ring)
{
	unsigned int base = known_base(cmd);
	union {
		struct ordo_kv kv;
		struct ordo_scan sc;
		struct ordo_batch b;
		struct ordo_retrain r;
		uint8_t raw[256];
	} u;
	size_t i, n;
	enum pk k;

	memset(&u, 0, sizeof(u));
	if (!base) {
		for (i = 0; i < sizeof(u.raw); i++)
			u.raw[i] = rnd(t);
		/* Never a write-like struct by chance: keys of the range. */
		u.kv.key = key_write(t);
	} else if (base == ORDO_IOC_SCAN) {
		uint32_t cap;

		u.sc.start = key_any(t);
		switch (rn(t, 8)) {
		case 0:
			u.sc.count = 0;
			break;
		case 1:
			u.sc.count = ORDO_SCAN_MAX + rn(t, 2);
			break;
		case 2:
			u.sc.count = (uint32_t)rnd(t);
			break;
		default:
			u.sc.count = 1 + rn(t, 64);
		}
		u.sc.keys = ptr_of(t, pick_kind(t, 80), (size_t)u.sc.count * 8,
				   A_BUF);
		u.sc.values = chance(t, 50) ? 0 :
			      ptr_of(t, pick_kind(t, 80),
				     (size_t)u.sc.count * vs, A_BUF + A_BUF_LEN / 2);
		/* Good buffers must hold what the kernel may write. */
		cap = (A_BUF_LEN / 2 - 8) / (vs > 8 ? vs : 8);
		if ((u.sc.keys >= (uintptr_t)t->arena &&
		     u.sc.keys < (uintptr_t)t->arena + ARENA) ||
		    (u.sc.values >= (uintptr_t)t->arena &&
		     u.sc.values < (uintptr_t)t->arena + ARENA))
			if (u.sc.count > cap)
				u.sc.count = cap;
		u.sc.flags = chance(t, 5) ? 1 + rn(t, 7) : 0;
		u.sc.returned = rnd(t);
	} else if (base == ORDO_IOC_BATCH) {
		size_t off = ring ? A_RING_OPS : A_OPS;
		struct ordo_batch_op *ops = (void *)(t->arena + off);
		uint32_t room = (A_RING_OPS - A_OPS) / sizeof(*ops);

		switch (rn(t, 8)) {
		case 0:
			u.b.count = 0;
			break;
		case 1:
			u.b.count = ORDO_BATCH_MAX + rn(t, 2);
			break;
		case 2:
			u.b.count = (uint32_t)rnd(t);
			break;
		default:
			u.b.count = 1 + rn(t, 16);
		}
		n = u.b.count < room ? u.b.count : room;
		for (i = 0; i < n && i < ORDO_BATCH_MAX + 2; i++)
			fill_batch_op(t, &ops[i], ring);
		/* A good pointer with a count past what was filled: cap. */
		/*
		 * Entries are never read from memory the harness did not
		 * fill (a misaligned pointer would shift them, the pool's
		 * nodes would be taken for entries): good pointers are
		 * aligned, with a count within the entries filled; a
		 * straddling array has its first entry across the hole.
		 */
		k = pick_kind(t, 85);
		if (k == P_MISALIGNED || k == P_ORDO)
			k = P_GOOD;
		if (k == P_STRADDLE)
			u.b.ops = (uintptr_t)(t->hole - 16);
		else
			u.b.ops = ptr_of(t, k, n * sizeof(*ops), off);
		if (k == P_GOOD && u.b.count > i)
			u.b.count = i;
		u.b.flags = chance(t, 5) ? 1 : 0;
		u.b.reserved = chance(t, 5) ? 1 : 0;
	} else if (base == ORDO_IOC_RETRAIN) {
		u.r.flags = chance(t, 20) ? 1 + rn(t, 3) : 0;
		u.r.reserved = chance(t, 10);
		u.r.version = rnd(t);
	} else if (base == ORDO_IOC_INFO || base == ORDO_IOC_MODEL_INFO) {
		for (i = 0; i < sizeof(u.raw); i++)
			u.raw[i] = rnd(t);
	} else {
		fill_kv(t, &u.kv, base);
	}
	n = len < sizeof(u) ? len : sizeof(u);
	memcpy(arg, &u, n);
	if (len > n)
		memset(arg + n, 0, len - n);
	/* Sometimes junk past the struct: -E2BIG. */
	if (len > 48 && chance(t, 10))
		arg[len - 1 - rn(t, len - 48)] = 1 + rn(t, 255);
}

/* ---- ioctls ---- */

static void one_ioctl(struct th *t)
{
	unsigned int cmd = pick_cmd(t);
	size_t len = _IOC_SIZE(cmd);
	enum pk k = pick_kind(t, 85);
	unsigned int base = known_base(cmd);
	uint64_t arg;

	/*
	 * A write's struct read from the pool mapping would name keys the
	 * pool holds, the sentinels among them: such a DELETE is valid.
	 */
	if (k == P_ORDO && (is_write_cmd(base) || base == ORDO_IOC_BATCH))
		k = P_RO;
	fill_arg(t, cmd, t->arena + A_ARG + 8, len, false);
	if (k == P_GOOD || k == P_MISALIGNED) {
		if (k == P_MISALIGNED) {
			size_t s = 1 + rn(t, 7);

			memmove(t->arena + A_ARG + 8 + s, t->arena + A_ARG + 8,
				len);
			arg = (uintptr_t)(t->arena + A_ARG + 8 + s);
		} else {
			arg = (uintptr_t)(t->arena + A_ARG + 8);
		}
	} else if (k == P_STRADDLE && len) {
		size_t in = 1 + rn(t, len < PAGE ? len : PAGE - 1);

		memcpy(t->hole - in, t->arena + A_ARG + 8, in);
		arg = (uintptr_t)(t->hole - in);
	} else {
		arg = ptr_of(t, k, len, 0);
	}
	t->last.what = "ioctl";
	t->last.cmd = cmd;
	t->last.arg = arg;
	t->last.kind = k;
	if (ioctl(slot_fd(t), cmd, (void *)(uintptr_t)arg) >= 0)
		atomic_fetch_add(&n_ok, 1);
	atomic_fetch_add(&n_ioctl, 1);
	t->done++;
}

/* ---- probes that must be refused, aimed at the sentinels ---- */

static void probe_expect(const char *what, uint64_t key, int ret, int want)
{
	atomic_fetch_add(&n_probe, 1);
	if (ret == -EBADF)		/* a slot closed meanwhile */
		return;
	if (ret >= 0 || (want && ret != want))
		fail("%s on sentinel %#llx returned %d, want %d", what,
		     (unsigned long long)key, ret, want ? want : -1);
}

static int xioctl(int fd, unsigned long cmd, void *arg)
{
	int r = ioctl(fd, cmd, arg);

	return r < 0 ? -errno : r;
}

/* A batch of entries aimed at sentinels and one bad entry. */
static uint32_t bad_batch(struct th *t, struct ordo_batch_op *ops,
			  int *want)
{
	uint32_t n = 1 + rn(t, 16), bad = rn(t, n), i;

	for (i = 0; i < n; i++) {
		struct ordo_batch_op *e = &ops[i];

		memset(e, 0, sizeof(*e));
		e->op = 2 + rn(t, 4);	/* PUT, INSERT, UPDATE, DELETE */
		e->kv.key = sent_key(rn(t, SENT_N));
		e->kv.value = (uintptr_t)(t->arena + A_BUF);
		e->kv.value_len = vs;
	}
	switch (rn(t, 6)) {
	case 0:
		ops[bad].op = chance(t, 50) ? 0 : 6 + rn(t, 100);
		*want = -EINVAL;
		break;
	case 1:
		ops[bad].kv.flags = 1 + rn(t, 0xffff);
		*want = -EINVAL;
		break;
	case 2:
		ops[bad].op = 2 + rn(t, 3);
		ops[bad].kv.value = ptr_of(t, P_HOLE + rn(t, 2), vs, 0);
		*want = -EFAULT;
		break;
	case 3:
		ops[bad].op = 2 + rn(t, 3);
		ops[bad].kv.value_len = vs + 8;
		*want = -EMSGSIZE;
		break;
	case 4:
		ops[bad].op = ORDO_OP_GET;
		ops[bad].kv.value_len = vs - 1 - rn(t, vs);
		*want = -ENOBUFS;
		break;
	default:
		ops[bad].op = 2 + rn(t, 3);
		ops[bad].kv.value = 0;
		*want = -EFAULT;
	}
	return n;
}

static void probe_ioctl(struct th *t)
{
	uint64_t key = sent_key(rn(t, SENT_N));
	uint8_t *a = t->arena + A_ARG;
	struct ordo_kv kv = {
		.key = key, .value = (uintptr_t)(t->arena + A_BUF),
		.value_len = vs,
	};
	struct ordo_batch b = { 0 };
	int fd = slot_fd(t), want = 0, ret;
	unsigned int c = (unsigned int[]){ ORDO_IOC_PUT, ORDO_IOC_UPDATE,
					   ORDO_IOC_DELETE }[rn(t, 3)];
	static const enum pk bad[] = { P_NULL, P_HOLE, P_STRADDLE, P_KERNEL,
				       P_NONCANON };

	t->done++;
	switch (rn(t, 9)) {
	case 0:
		ret = xioctl(fd, ORDO_IOC_INSERT, &kv);
		probe_expect("INSERT", key, ret, -EEXIST);
		return;
	case 1:
		kv.value = ptr_of(t, bad[rn(t, 5)], vs, 0);
		ret = xioctl(fd, c == ORDO_IOC_DELETE ? ORDO_IOC_PUT : c, &kv);
		probe_expect("write with a bad value pointer", key, ret,
			     -EFAULT);
		return;
	case 2:
		/*
		 * Any length up to vmax is a value, even 0; past it is not
		 * (nor in a batch past vs).
		 */
		kv.value_len = chance(t, 50) ? vmax + 1 :
			       vmax + 8 * (1 + rn(t, 8));
		ret = xioctl(fd, c == ORDO_IOC_DELETE ? ORDO_IOC_UPDATE : c, &kv);
		probe_expect("write with a bad length", key, ret, -EMSGSIZE);
		return;
	case 3:
		kv.flags = 1 + rn(t, 0xffffff);
		ret = xioctl(fd, c, &kv);
		probe_expect("write with flags", key, ret, -EINVAL);
		return;
	case 4:		/* too small a struct */
		memcpy(a, &kv, sizeof(kv));
		ret = xioctl(fd, _IOC(_IOC_WRITE, ORDO_IOC_MAGIC, _IOC_NR(c),
				      rn(t, sizeof(kv))), a);
		probe_expect("short struct", key, ret, -EINVAL);
		return;
	case 5:		/* non-zero bytes past the struct */
	{
		size_t len = sizeof(kv) + 1 + rn(t, 200);

		memset(a, 0, len);
		memcpy(a, &kv, sizeof(kv));
		a[sizeof(kv) + rn(t, len - sizeof(kv))] = 1 + rn(t, 255);
		ret = xioctl(fd, _IOC(_IOC_WRITE, ORDO_IOC_MAGIC, _IOC_NR(c),
				      len), a);
		probe_expect("junk past the struct", key, ret, -E2BIG);
		return;
	}
	case 6:		/* the wrong direction: no such command */
		ret = xioctl(fd, _IOC(_IOC_READ | (rn(t, 2) ? _IOC_WRITE : 0),
				      ORDO_IOC_MAGIC, _IOC_NR(c), sizeof(kv)),
			     &kv);
		probe_expect("wrong direction", key, ret, -ENOTTY);
		return;
	case 7:		/* the struct runs into an unmapped page */
	{
		size_t in = 1 + rn(t, sizeof(kv) - 1);

		memcpy(t->hole - in, &kv, in);
		ret = xioctl(fd, c, t->hole - in);
		probe_expect("struct into a hole", key, ret, -EFAULT);
		return;
	}
	default:
		b.ops = (uintptr_t)(t->arena + A_OPS);
		b.count = bad_batch(t, (void *)(t->arena + A_OPS), &want);
		ret = xioctl(fd, ORDO_IOC_BATCH, &b);
		probe_expect("batch with a bad entry", key, ret, want);
	}
}

/* ---- io_uring ---- */

static void prep(struct io_uring_sqe *sqe, int fd, unsigned int op,
		 const void *payload, uint64_t ud)
{
	io_uring_prep_rw(IORING_OP_URING_CMD, sqe, fd, NULL, 0, 0);
	sqe->cmd_op = op;
	sqe->__pad1 = 0;
	memcpy(sqe->cmd, payload, 80);
	sqe->user_data = ud;
}

/* user_data of probes: the expected result in the low 32 bits. */
#define UD_PROBE	(1ULL << 63)

static int ring_reap(struct th *t, unsigned int n)
{
	struct __kernel_timespec ts = { .tv_sec = 120 };
	unsigned int i;

	for (i = 0; i < n; i++) {
		struct io_uring_cqe *cqe;
		int r = io_uring_wait_cqe_timeout(&t->ring, &cqe, &ts);

		if (r) {
			fail("thread %u: no CQE within 120 s (%d)", t->id, r);
			return -1;
		}
		if (cqe->user_data & UD_PROBE) {
			int want = (int32_t)(uint32_t)cqe->user_data;

			atomic_fetch_add(&n_probe, 1);
			if (cqe->res != -EBADF &&
			    (cqe->res >= 0 || (want && cqe->res != want)))
				fail("uring probe on a sentinel: res %d, want %d",
				     cqe->res, want);
		} else if (cqe->res >= 0) {
			atomic_fetch_add(&n_ok, 1);
		}
		io_uring_cqe_seen(&t->ring, cqe);
	}
	return 0;
}

static void ring_batch(struct th *t)
{
	unsigned int n = 1 + rn(t, RING_DEPTH), i;
	uint8_t pl[80];

	if (!t->ring_ok)
		return;
	for (i = 0; i < n; i++) {
		struct io_uring_sqe *sqe = io_uring_get_sqe(&t->ring);
		uint64_t key = sent_key(rn(t, SENT_N));
		unsigned int op;
		uint64_t ud = i;

		if (chance(t, 10)) {
			/* A probe: a sentinel write that must fail. */
			struct ordo_kv kv = { .key = key, .value_len = vs,
				.value = (uintptr_t)(t->arena + A_BUF) };
			int want;

			memset(pl, 0, sizeof(pl));
			switch (rn(t, 4)) {
			case 0:
				op = ORDO_IOC_INSERT;
				want = -EEXIST;
				break;
			case 1:
				op = ORDO_IOC_PUT;
				kv.value = ptr_of(t, P_HOLE, vs, 0);
				want = -EFAULT;
				break;
			case 2:
				op = _IOC(_IOC_WRITE, ORDO_IOC_MAGIC,
					  _IOC_NR(ORDO_IOC_DELETE), 80);
				pl[sizeof(kv) + rn(t, 80 - sizeof(kv))] = 1;
				want = -E2BIG;
				break;
			default:
				op = _IOC(_IOC_WRITE, ORDO_IOC_MAGIC,
					  _IOC_NR(ORDO_IOC_DELETE),
					  rn(t, sizeof(kv)));
				want = -EINVAL;
			}
			memcpy(pl, &kv, sizeof(kv));
			ud = UD_PROBE | (uint32_t)want;
		} else {
			op = pick_cmd(t);
			fill_arg(t, op, pl, sizeof(pl), true);
		}
		prep(sqe, !(ud & UD_PROBE) && chance(t, 2) ? t->ring.ring_fd :
			  slot_fd(t), op, pl, ud);
		if (chance(t, 10))
			sqe->flags |= IOSQE_ASYNC;
	}
	if (io_uring_submit(&t->ring) != (int)n) {
		fail("thread %u: io_uring_submit of %u failed", t->id, n);
		atomic_store(&stop, true);
		return;
	}
	atomic_fetch_add(&n_uring, n);
	t->done += n;
	/* Sometimes tear the ring down with the commands in flight. */
	if (chance(t, 3)) {
		io_uring_queue_exit(&t->ring);
		t->ring_ok = !io_uring_queue_init(RING_DEPTH, &t->ring,
						  IORING_SETUP_SQE128);
		return;
	}
	if (ring_reap(t, n))
		atomic_store(&stop, true);
}

/* A ring without 128-byte SQEs: its commands must be refused. */
static void small_ring(struct th *t)
{
	struct io_uring r;
	struct io_uring_sqe *sqe;
	struct io_uring_cqe *cqe;
	uint64_t key = sent_key(rn(t, SENT_N));

	if (io_uring_queue_init(4, &r, 0))
		return;
	sqe = io_uring_get_sqe(&r);
	io_uring_prep_rw(IORING_OP_URING_CMD, sqe, slot_fd(t), NULL, 0, 0);
	sqe->cmd_op = ORDO_IOC_DELETE;
	sqe->__pad1 = 0;
	memcpy(sqe->cmd, &key, sizeof(key));
	if (io_uring_submit(&r) == 1 && !io_uring_wait_cqe(&r, &cqe)) {
		probe_expect("DELETE on a 64-byte SQE ring", key, cqe->res,
			     -EINVAL);
		io_uring_cqe_seen(&r, cqe);
	}
	io_uring_queue_exit(&r);
	atomic_fetch_add(&n_uring, 1);
	t->done++;
}

/* ---- mmap ---- */

static void on_signal(int sig, siginfo_t *si, void *uc)
{
	char msg[96];
	int n;

	if (armed)
		siglongjmp(jb, sig);
	n = snprintf(msg, sizeof(msg), "Bail out! signal %d code %d at %p in %s (pool map %p)\n", sig,
		     si->si_code, si->si_addr, doing, ordo_ro);
	if (write(1, msg, n) < 0)
		n = 0;
	{
		void *bt[32];

		backtrace_symbols_fd(bt, backtrace(bt, 32), 1);
	}
	signal(sig, SIG_DFL);
	raise(sig);
}

/* Read one byte at @p; false if that faulted (SIGBUS past the chunks). */
static bool touch(volatile const uint8_t *p)
{
	bool ok = true;

	if (sigsetjmp(jb, 1)) {
		ok = false;
	} else {
		armed = 1;
		(void)*p;
	}
	armed = 0;
	return ok;
}

static void one_mmap(struct th *t)
{
	static const size_t lens[] = { PAGE, 2 * PAGE, 16 * PAGE, 64 * PAGE,
				       1 << 20 };
	uint64_t off;
	size_t len, tlen;
	int prot = PROT_READ, flags = MAP_SHARED, fd = slot_fd(t), i;
	uint8_t *p;

	switch (rn(t, 5)) {
	case 0:
	case 1:
		off = ORDO_MMAP_POOL + (uint64_t)rn(t, 512) * PAGE;
		break;
	case 2:
		off = ORDO_MMAP_MODEL + (uint64_t)rn(t, 512) * PAGE;
		break;
	case 3:
		off = (rnd(t) & ~(uint64_t)(PAGE - 1)) >> rn(t, 64);
		off &= ~(uint64_t)(PAGE - 1);
		break;
	default:
		off = ORDO_MMAP_MODEL - PAGE * rn(t, 4);
	}
	len = chance(t, 5) ? (size_t)rnd(t) >> rn(t, 64) :
	      lens[rn(t, 5)] + (chance(t, 10) ? rn(t, PAGE) : 0);
	if (chance(t, 10))
		prot |= PROT_WRITE;
	if (chance(t, 5))
		prot |= PROT_EXEC;
	if (chance(t, 10))
		flags = MAP_PRIVATE;
	if (chance(t, 5) && len <= (1 << 20))
		flags |= MAP_POPULATE;
	if (chance(t, 2))
		off |= 1 + rn(t, PAGE - 1);	/* misaligned offset */
	p = mmap(NULL, len, prot, flags, fd, (off_t)off);
	atomic_fetch_add(&n_mmap, 1);
	t->done++;
	if (p == MAP_FAILED)
		return;
	atomic_fetch_add(&n_ok, 1);
	if (prot & PROT_WRITE)
		fail("mmap(PROT_WRITE, %s) of /dev/ordo at %#llx succeeded",
		     flags & MAP_PRIVATE ? "private" : "shared",
		     (unsigned long long)off);
	tlen = len < (64u << 20) ? len : 64u << 20;
	for (i = 0; i < 4; i++)
		if (!touch(p + ((size_t)rn(t, (tlen + PAGE - 1) / PAGE) * PAGE)))
			atomic_fetch_add(&n_sigbus, 1);
	if (!mprotect(p, PAGE, PROT_READ | PROT_WRITE))
		fail("mprotect(PROT_WRITE) of a /dev/ordo mapping succeeded");
	if (chance(t, 20))
		madvise(p, len, MADV_DONTNEED);
	if (chance(t, 20)) {
		void *q = mremap(p, len, len + 16 * PAGE, MREMAP_MAYMOVE);

		if (q != MAP_FAILED) {
			fail("mremap grew a /dev/ordo mapping");
			p = q;
			len += 16 * PAGE;
		}
	}
	if (len >= 3 * PAGE && chance(t, 30)) {
		/*
		 * A hole in the middle, then the two parts: never the hole
		 * again, another thread may have mapped something there.
		 */
		munmap(p + PAGE, PAGE);
		if (!touch(p + 2 * PAGE))
			atomic_fetch_add(&n_sigbus, 1);
		munmap(p, PAGE);
		munmap(p + 2 * PAGE, len - 2 * PAGE);
		return;
	}
	munmap(p, len);
}

/* ---- descriptors closed and opened under the other threads ---- */

static void slot_open(struct th *t, int slot)
{
	int fd = open(ORDO_DEV, chance(t, 20) ? O_RDONLY : O_RDWR);

	if (fd < 0)
		return;
	dup2(fd, slot);
	close(fd);
}

static void one_close(struct th *t)
{
	int slot = slot_fd(t);

	atomic_fetch_add(&n_close, 1);
	t->done++;
	if (chance(t, 40))
		close(slot);
	else
		slot_open(t, slot);
}

/* ---- guards and canaries ---- */

/*
 * @len bytes with @prot, then GUARD pages without access, then a canary
 * page set to the pattern (*@canary).  NULL on failure.
 */
static uint8_t *guarded(size_t len, int prot, uint8_t **canary)
{
	uint8_t *m = mmap(NULL, len + (GUARD + 1) * PAGE, PROT_NONE,
			  MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (m == MAP_FAILED)
		return NULL;
	*canary = m + len + GUARD * PAGE;
	if ((prot != PROT_NONE && mprotect(m, len, prot)) ||
	    mprotect(*canary, PAGE, PROT_READ | PROT_WRITE))
		return NULL;
	memcpy(*canary, canary_pattern, PAGE);
	return m;
}

/*
 * The read-only page, words of W_BASE: a struct read from it anywhere is
 * refused (a point op's flags are 256), and names a write-range key at
 * most.  Zeros would be a valid PUT of key 0 with an empty value.
 */
static int ro_fill(uint8_t *ro)
{
	uint64_t w = W_BASE;
	size_t i;

	for (i = 0; i < PAGE; i += sizeof(w))
		memcpy(ro + i, &w, sizeof(w));
	return mprotect(ro, PAGE, PROT_READ);
}

/* Nothing wrote past a guard: the canaries of @t and of the pool map. */
static void check_canaries(struct th *t)
{
	uint8_t *c[3] = { t->canary[0], t->canary[1], ordo_ro_canary };
	int i;

	for (i = 0; i < 3; i++) {
		if (!c[i] || !memcmp(c[i], canary_pattern, PAGE))
			continue;
		fail("thread %u: the canary page past the %s guard changed by the end of a %s (cmd %#x, arg %#llx, pointer kind %d)",
		     t->id, (const char *[]){ "arena", "read-only page",
					      "pool mapping" }[i],
		     t->last.what, t->last.cmd,
		     (unsigned long long)t->last.arg, t->last.kind);
		memcpy(c[i], canary_pattern, PAGE);
		atomic_store(&stop, true);
	}
}

/*
 * The loader's list of loaded objects is intact (each entry's l_prev is
 * the one before it); its length, or -1.
 */
static int loaded_objects(void)
{
	struct link_map *l, *prev = NULL;
	int n = 0;

	for (l = _r_debug.r_map; l; prev = l, l = l->l_next)
		if (l->l_prev != prev || ++n > 1000)
			return -1;
	return n;
}

/* ---- the threads ---- */

static void *run(void *arg)
{
	struct th *t = arg;
	stack_t ss = { .ss_size = 1 << 16 };

	/* Report even a fault of the stack itself. */
	ss.ss_sp = malloc(ss.ss_size);
	sigaltstack(&ss, NULL);
	t->ring_ok = !io_uring_queue_init(RING_DEPTH, &t->ring,
					  IORING_SETUP_SQE128);
	while (t->done < t->calls && !atomic_load(&stop)) {
		uint32_t r = rn(t, 1000);

		t->last.cmd = 0;
		t->last.arg = 0;
		t->last.kind = -1;

		if (r < 60) {
			doing = "probe";
			t->last.what = doing;
			probe_ioctl(t);
		} else if (r < 100) {
			doing = "ring";
			t->last.what = doing;
			ring_batch(t);
		} else if (r < 101) {
			doing = "small ring";
			t->last.what = doing;
			small_ring(t);
		} else if (r < 125) {
			doing = "mmap";
			t->last.what = doing;
			one_mmap(t);
		} else if (r < 129) {
			doing = "close";
			t->last.what = doing;
			one_close(t);
		} else {
			doing = "ioctl";
			t->last.what = doing;
			one_ioctl(t);
		}
		check_canaries(t);
	}
	if (t->ring_ok)
		io_uring_queue_exit(&t->ring);
	return NULL;
}

/* ---- setup and checks ---- */

static int tap_n;

static void tap(bool ok, const char *fmt, ...)
{
	va_list ap;

	printf("%s %d - ", ok ? "ok" : "not ok", ++tap_n);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	fflush(stdout);
}

static uint64_t opt(int argc, char **argv, const char *name, const char *env,
		    uint64_t def)
{
	const char *v = getenv(env);
	int i;

	for (i = 1; i + 1 < argc; i++)
		if (!strcmp(argv[i], name))
			v = argv[i + 1];
	return v ? strtoull(v, NULL, 0) : def;
}

static unsigned long tainted(void)
{
	char buf[64];

	return t_read_file("/proc/sys/kernel/tainted", buf, sizeof(buf)) ? 0 :
	       strtoul(buf, NULL, 10);
}

/* Every sentinel holds its value, its neighbour is absent. */
static int check_sentinels(int fd, char *why, size_t len)
{
	uint8_t *v = malloc(vs);
	uint32_t i;
	int ret;

	for (i = 0; i < SENT_N; i++) {
		uint64_t k = sent_key(i);

		ret = t_kv(fd, ORDO_IOC_GET, k, v, vs);
		if (ret || t_version(v, vs, k) != 1) {
			snprintf(why, len, "sentinel %#llx: GET %d, version %lld",
				 (unsigned long long)k, ret,
				 ret ? -1LL : (long long)t_version(v, vs, k));
			free(v);
			return -1;
		}
		ret = t_kv(fd, ORDO_IOC_GET, k + 1, v, vs);
		if (ret != -ENOENT) {
			snprintf(why, len, "key %#llx next to a sentinel: GET %d",
				 (unsigned long long)k + 1, ret);
			free(v);
			return -1;
		}
	}
	free(v);
	return 0;
}

/*
 * The whole store in key order: keys only in the write range and the
 * sentinels, all sentinels there.  *@nwrite gets the write-range keys.
 */
static int check_keys(int fd, uint64_t *nwrite, char *why, size_t len)
{
	uint64_t *keys = malloc(1024 * sizeof(*keys)), prev = 0, nsent = 0;
	struct ordo_scan sc = { 0 };
	bool first = true;
	uint32_t i;
	int ret;

	*nwrite = 0;
	sc.start = 0;
	for (;;) {
		sc.keys = (uintptr_t)keys;
		sc.count = 1024;
		ret = t_ioctl(fd, ORDO_IOC_SCAN, &sc);
		if (ret) {
			snprintf(why, len, "SCAN: %d", ret);
			goto out;
		}
		for (i = 0; i < sc.returned; i++) {
			uint64_t k = keys[i];

			if (!first && k <= prev) {
				snprintf(why, len, "keys not ascending: %#llx after %#llx",
					 (unsigned long long)k,
					 (unsigned long long)prev);
				ret = -1;
				goto out;
			}
			first = false;
			prev = k;
			if (k >= W_BASE && k < W_BASE + W_N) {
				(*nwrite)++;
			} else if (k >= SENT_BASE &&
				   (k - SENT_BASE) % SENT_STRIDE == 0 &&
				   (k - SENT_BASE) / SENT_STRIDE < SENT_N) {
				nsent++;
			} else {
				snprintf(why, len, "a stray key %#llx",
					 (unsigned long long)k);
				ret = -1;
				goto out;
			}
		}
		if (!sc.more)
			break;
		sc.start = sc.next;
		sc.returned = 0;
	}
	ret = 0;
	if (nsent != SENT_N) {
		snprintf(why, len, "%llu sentinels, want %u",
			 (unsigned long long)nsent, SENT_N);
		ret = -1;
	}
out:
	free(keys);
	return ret;
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
	struct th th[MAX_THREADS];
	pthread_t tid[MAX_THREADS];
	struct sigaction sa = { .sa_sigaction = on_signal,
			       .sa_flags = SA_SIGINFO | SA_ONSTACK };
	unsigned long taint0, taint1;
	char why[256] = "";
	uint64_t nwrite, total;
	uint8_t *v;
	unsigned int i;
	double t0, dt;
	bool timed_out = false;
	int fd, ret, objects;

	cfg.calls = opt(argc, argv, "--calls", "ORDO_SYZ_CALLS", cfg.calls);
	cfg.threads = opt(argc, argv, "--threads", "ORDO_SYZ_THREADS",
			  cfg.threads);
	cfg.seconds = opt(argc, argv, "--seconds", "ORDO_SYZ_SECONDS",
			  cfg.seconds);
	/* make check repeats the same choices; seed 0 asks for new ones. */
	cfg.seed = opt(argc, argv, "--seed", "ORDO_SYZ_SEED", 1);
	if (!cfg.seed)
		cfg.seed = (uint64_t)time(NULL) ^ ((uint64_t)getpid() << 32);
	if (cfg.threads < 1)
		cfg.threads = 1;
	if (cfg.threads > MAX_THREADS)
		cfg.threads = MAX_THREADS;
	printf("TAP version 13\n1..5\n");
	printf("# syscall_fuzz: seed %llu (ORDO_SYZ_SEED=%llu reproduces the choices), %llu calls, %u threads\n",
	       (unsigned long long)cfg.seed, (unsigned long long)cfg.seed,
	       (unsigned long long)cfg.calls, cfg.threads);
	fflush(stdout);
	setvbuf(stdout, NULL, _IOLBF, 0);
	signal(SIGPIPE, SIG_IGN);
	sigaction(SIGBUS, &sa, NULL);
	sigaction(SIGSEGV, &sa, NULL);

	fd = open(ORDO_DEV, O_RDWR);
	if (fd < 0) {
		printf("Bail out! open %s: %s\n", ORDO_DEV, strerror(errno));
		return 1;
	}
	vs = t_value_size(fd);
	vmax = t_value_max(fd);
	ret = t_clear(fd);
	v = malloc(vs);
	for (i = 0; !ret && i < SENT_N; i++) {
		t_fill(v, vs, sent_key(i), 1);
		ret = t_kv(fd, ORDO_IOC_INSERT, sent_key(i), v, vs);
	}
	free(v);
	if (!ret)
		ret = check_sentinels(fd, why, sizeof(why));
	tap(!ret, "%u sentinel keys written and read back %s", SENT_N, why);
	if (ret)
		return 1;
	taint0 = tainted();
	for (i = 0; i < PAGE; i++)
		canary_pattern[i] = (uint8_t)(i * 131 + 7) | 1;
	objects = loaded_objects();
	/* The pool mapping, with its guard, in place of a reservation. */
	ordo_ro = guarded(ORDO_RO_PAGES * PAGE, PROT_NONE, &ordo_ro_canary);
	if (ordo_ro && mmap(ordo_ro, ORDO_RO_PAGES * PAGE, PROT_READ,
			    MAP_SHARED | MAP_FIXED, fd,
			    ORDO_MMAP_POOL) == MAP_FAILED)
		ordo_ro = NULL;
	for (i = 0; i < NSLOTS; i++)
		dup2(fd, SLOT_FD0 + i);

	for (i = 0; i < cfg.threads; i++) {
		uint8_t *m;

		memset(&th[i], 0, sizeof(th[i]));
		th[i].id = i;
		th[i].rng = cfg.seed * 0x2545f4914f6cdd1dULL + i + 1;
		th[i].calls = cfg.calls / cfg.threads +
			      (i < cfg.calls % cfg.threads);
		m = guarded(ARENA + PAGE, PROT_READ | PROT_WRITE,
			    &th[i].canary[0]);
		th[i].ro = guarded(PAGE, PROT_READ | PROT_WRITE,
				   &th[i].canary[1]);
		if (!m || !th[i].ro || ro_fill(th[i].ro)) {
			printf("Bail out! memory\n");
			return 1;
		}
		th[i].arena = m;
		th[i].edge = m + ARENA;
		th[i].hole = m + ARENA + PAGE;
	}
	t0 = now_s();
	for (i = 0; i < cfg.threads; i++)
		pthread_create(&tid[i], NULL, run, &th[i]);
	for (i = 0; i < cfg.threads; i++) {
		struct timespec dl;

		clock_gettime(CLOCK_REALTIME, &dl);
		dl.tv_sec += (time_t)(cfg.seconds - (now_s() - t0));
		if (pthread_timedjoin_np(tid[i], NULL, &dl)) {
			timed_out = true;
			atomic_store(&stop, true);
			clock_gettime(CLOCK_REALTIME, &dl);
			dl.tv_sec += 120;
			if (pthread_timedjoin_np(tid[i], NULL, &dl)) {
				printf("Bail out! thread %u did not stop\n", i);
				return 1;
			}
		}
	}
	for (i = 0; i < cfg.threads; i++)
		check_canaries(&th[i]);
	if (loaded_objects() != objects)
		fail("the loader's list of loaded objects changed: %d objects, was %d",
		     loaded_objects(), objects);
	dt = now_s() - t0;
	total = 0;
	for (i = 0; i < cfg.threads; i++)
		total += th[i].done;
	printf("# %llu calls in %.1f s (%.0f/s): %lu ioctls, %lu refusal probes, %lu io_uring commands, %lu mmaps (%lu SIGBUS), %lu closes and reopens; %lu succeeded\n",
	       (unsigned long long)total, dt, total / (dt > 0 ? dt : 1),
	       atomic_load(&n_ioctl), atomic_load(&n_probe),
	       atomic_load(&n_uring), atomic_load(&n_mmap),
	       atomic_load(&n_sigbus), atomic_load(&n_close),
	       atomic_load(&n_ok));
	tap(!timed_out && total >= cfg.calls && !atomic_load(&failures),
	    "%llu calls on %u threads, %d failures%s",
	    (unsigned long long)total, cfg.threads, atomic_load(&failures),
	    timed_out ? " (timed out)" : "");

	/* A fresh descriptor: the sentinels and the key set. */
	for (i = 0; i < NSLOTS; i++)
		close(SLOT_FD0 + i);
	if (ordo_ro)
		munmap(ordo_ro, ORDO_RO_PAGES * PAGE);
	close(fd);
	fd = open(ORDO_DEV, O_RDWR);
	why[0] = 0;
	ret = fd < 0 ? -errno : check_sentinels(fd, why, sizeof(why));
	tap(!ret, "the %u sentinels unchanged, their neighbours absent %s",
	    SENT_N, why);
	why[0] = 0;
	ret = fd < 0 ? -1 : check_keys(fd, &nwrite, why, sizeof(why));
	tap(!ret, "no key outside the sentinels and the write range (%llu written) %s",
	    (unsigned long long)(ret ? 0 : nwrite), why);
	taint1 = tainted();
	tap(taint1 == taint0, "kernel taint unchanged (%lu -> %lu)", taint0,
	    taint1);
	if (fd >= 0) {
		t_clear(fd);
		close(fd);
	}
	return atomic_load(&failures) || timed_out || ret ||
	       taint1 != taint0 ? 1 : 0;
}
