/* SPDX-License-Identifier: GPL-2.0 */
/*
 * User-space environment of ordo's kernel-neutral core (kmod/core): the
 * kernel names the core uses, spelled with libc, pthreads and GCC builtins,
 * with the same semantics.  Included by kmod/core/compat.h outside the
 * kernel; the kernel half of compat.h must offer the same names.
 */
#ifndef LIBORDO_CORE_USER_H
#define LIBORDO_CORE_USER_H


#include <stdint.h>
#include <stddef.h>
#include <stdbool.h>
#include <string.h>
#include <stdlib.h>
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <sched.h>
#include <endian.h>
#include <sys/mman.h>
#include <linux/types.h>	/* __u64, __le64 as the uapi headers use them */

typedef uint8_t u8;
typedef uint16_t u16;
typedef uint32_t u32;
typedef uint64_t u64;
typedef int8_t s8;
typedef int16_t s16;
typedef int32_t s32;
typedef int64_t s64;

#ifndef U64_MAX
#define U64_MAX UINT64_MAX
#endif
#ifndef U32_MAX
#define U32_MAX UINT32_MAX
#endif
#ifndef S64_MAX
#define S64_MAX INT64_MAX
#endif

#ifndef likely
#define likely(x)		__builtin_expect(!!(x), 1)
#endif
#ifndef unlikely
#define unlikely(x)		__builtin_expect(!!(x), 0)
#endif
#ifndef READ_ONCE
#define READ_ONCE(x)		(*(const volatile __typeof__(x) *)&(x))
#endif
#ifndef WRITE_ONCE
#define WRITE_ONCE(x, v)	(*(volatile __typeof__(x) *)&(x) = (v))
#endif
#define smp_rmb()		__atomic_thread_fence(__ATOMIC_ACQUIRE)
#define smp_wmb()		__atomic_thread_fence(__ATOMIC_RELEASE)
#define smp_mb()		__atomic_thread_fence(__ATOMIC_SEQ_CST)
#define smp_load_acquire(p)	__atomic_load_n(p, __ATOMIC_ACQUIRE)
#define smp_store_release(p, v)	__atomic_store_n(p, v, __ATOMIC_RELEASE)
#define BUILD_BUG_ON(c)		_Static_assert(!(c), #c)
/* A broken invariant: the kernel warns; natively (tests) it stops. */
#define WARN_ON_ONCE(c)		({ if (c) abort(); 0; })
#ifndef ARRAY_SIZE
#define ARRAY_SIZE(a)		(sizeof(a) / sizeof((a)[0]))
#endif
#ifndef DIV_ROUND_UP
#define DIV_ROUND_UP(n, d)	(((n) + (d) - 1) / (d))
#endif
#ifndef ALIGN
#define ALIGN(x, a)		(((x) + (a) - 1) & ~((__typeof__(x))(a) - 1))
#endif
#ifndef min
#define min(a, b)		((a) < (b) ? (a) : (b))
#endif
#ifndef max
#define max(a, b)		((a) > (b) ? (a) : (b))
#endif
#define min_t(t, a, b)		((t)(a) < (t)(b) ? (t)(a) : (t)(b))
#define max_t(t, a, b)		((t)(a) > (t)(b) ? (t)(a) : (t)(b))
#define clamp_t(t, v, lo, hi)	min_t(t, max_t(t, v, lo), hi)
#ifndef container_of
#define container_of(p, t, m)	((t *)((char *)(p) - offsetof(t, m)))
#endif
#ifndef __must_check
#define __must_check		__attribute__((warn_unused_result))
#endif
#ifndef __always_inline
#define __always_inline		inline __attribute__((always_inline))
#endif
#ifndef fallthrough
#define fallthrough		__attribute__((fallthrough))
#endif

#define cpu_to_le16(x)		htole16(x)
#define cpu_to_le32(x)		htole32(x)
#define cpu_to_le64(x)		htole64(x)
#define le16_to_cpu(x)		le16toh(x)
#define le32_to_cpu(x)		le32toh(x)
#define le64_to_cpu(x)		le64toh(x)

/* Atomics with the kernel's names and (for the ones used) semantics. */
typedef struct { int counter; } atomic_t;
typedef struct { s64 counter; } atomic64_t;
#define atomic_read(a)		__atomic_load_n(&(a)->counter, __ATOMIC_RELAXED)
#define atomic_set(a, v)	__atomic_store_n(&(a)->counter, v, __ATOMIC_RELAXED)
#define atomic_inc(a)		__atomic_fetch_add(&(a)->counter, 1, __ATOMIC_SEQ_CST)
#define atomic_dec(a)		__atomic_fetch_sub(&(a)->counter, 1, __ATOMIC_SEQ_CST)
#define atomic_inc_return(a)	__atomic_add_fetch(&(a)->counter, 1, __ATOMIC_SEQ_CST)
#define atomic_add_return(n, a)	__atomic_add_fetch(&(a)->counter, n, __ATOMIC_SEQ_CST)
#define atomic64_read(a)	__atomic_load_n(&(a)->counter, __ATOMIC_RELAXED)
#define atomic64_set(a, v)	__atomic_store_n(&(a)->counter, v, __ATOMIC_RELAXED)
#define atomic64_inc(a)		__atomic_fetch_add(&(a)->counter, 1, __ATOMIC_SEQ_CST)
#define atomic64_dec(a)		__atomic_fetch_sub(&(a)->counter, 1, __ATOMIC_SEQ_CST)
#define atomic64_add(n, a)	__atomic_fetch_add(&(a)->counter, n, __ATOMIC_SEQ_CST)
#define atomic64_sub(n, a)	__atomic_fetch_sub(&(a)->counter, n, __ATOMIC_SEQ_CST)
#define atomic64_add_return(n, a) __atomic_add_fetch(&(a)->counter, n, __ATOMIC_SEQ_CST)
#define atomic64_inc_return(a)	__atomic_add_fetch(&(a)->counter, 1, __ATOMIC_SEQ_CST)
/* cmpxchg on a plain word: returns the old value, like the kernel's. */
#define cmpxchg(p, o, n) ({						\
	__typeof__(*(p)) __old = (o);					\
	__atomic_compare_exchange_n(p, &__old, n, false,		\
				    __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST); \
	__old; })
#define xchg(p, v)		__atomic_exchange_n(p, v, __ATOMIC_SEQ_CST)

/*
 * Large tables (a client's TT, pivots and sub-models) go on huge pages
 * where the system has them: each in a mapping of its own, 2 MiB aligned
 * and advised before its first touch.  From malloc they would often land
 * in memory it recycles, already touched on small pages (a client frees
 * its old model as it loads the next), and the advice would come too late.
 * A header in front of every block tells ordo_free() which kind it is.
 * Sanitizer builds keep malloc's blocks, whose redzones catch overruns.
 */
#if defined(__SANITIZE_ADDRESS__)
#define ORDO_MALLOC_PLAIN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(memory_sanitizer)
#define ORDO_MALLOC_PLAIN 1
#endif
#endif

#ifdef ORDO_MALLOC_PLAIN
static inline void *ordo_malloc(size_t sz) { return calloc(1, sz); }
static inline void ordo_free(void *p) { free(p); }
#else
#define ORDO_HUGE_PAGE	((size_t)2 << 20)

struct ordo_block {
	void *map;		/* start of the block's own mapping, or NULL */
	size_t map_len;		/* its length */
};

static inline void *ordo_malloc(size_t sz)
{
	struct ordo_block *b;
	size_t len;
	char *map, *p;

	if (sz < ORDO_HUGE_PAGE) {
		b = calloc(1, sizeof(*b) + sz);
		return b ? b + 1 : NULL;
	}
	/* Room for the header in front of the aligned start. */
	len = ALIGN(sz, ORDO_HUGE_PAGE) + ORDO_HUGE_PAGE;
	if (len < sz)
		return NULL;
	map = mmap(NULL, len, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (map == MAP_FAILED)
		return NULL;
	p = map + ORDO_HUGE_PAGE - ((uintptr_t)map & (ORDO_HUGE_PAGE - 1));
	madvise(p, ALIGN(sz, ORDO_HUGE_PAGE), MADV_HUGEPAGE);
	b = (struct ordo_block *)p - 1;
	b->map = map;
	b->map_len = len;
	return p;
}

static inline void ordo_free(void *p)
{
	struct ordo_block *b;

	if (!p)
		return;
	b = (struct ordo_block *)p - 1;
	if (b->map)
		munmap(b->map, b->map_len);
	else
		free(b);
}
#endif

/* The first byte of @s[0, n) that is not @c, or NULL: lib/string.c's. */
static inline void *memchr_inv(const void *s, int c, size_t n)
{
	const unsigned char *p = s;
	size_t i;

	for (i = 0; i < n; i++)
		if (p[i] != (unsigned char)c)
			return (void *)(p + i);
	return NULL;
}
#define ordo_cond_resched()	do { } while (0)
#define ordo_lock_enter()	do { } while (0)
#define ordo_lock_exit()	do { } while (0)
static inline void ordo_cpu_relax(void)
{
	static __thread unsigned int spins;

	/* Without preemption control a lock holder may be descheduled. */
	if (++spins % 64 == 0)
		sched_yield();
	else
		__builtin_ia32_pause();
}

typedef pthread_mutex_t ordo_mutex_t;
#define ordo_mutex_init(m)	pthread_mutex_init(m, NULL)
#define ordo_mutex_destroy(m)	pthread_mutex_destroy(m)
#define ordo_mutex_lock(m)	pthread_mutex_lock(m)
#define ordo_mutex_unlock(m)	pthread_mutex_unlock(m)

typedef pthread_spinlock_t ordo_spinlock_t;
#define ordo_spin_init(l)	pthread_spin_init(l, PTHREAD_PROCESS_PRIVATE)
#define ordo_spin_destroy(l)	pthread_spin_destroy(l)
#define ordo_spin_lock(l)	pthread_spin_lock(l)
#define ordo_spin_unlock(l)	pthread_spin_unlock(l)

/* math64.h equivalents; the kernel versions must give identical results. */
static inline u64 div64_u64(u64 a, u64 b) { return a / b; }
static inline u64 div_u64(u64 a, u32 b) { return a / b; }
static inline s64 div64_s64(s64 a, s64 b) { return a / b; }
static inline u64 mul_u64_u64_div_u64(u64 a, u64 b, u64 c)
{
	return (u64)(((unsigned __int128)a * b) / c);
}
static inline int fls64(u64 x)
{
	return x ? 64 - __builtin_clzll(x) : 0;
}
static inline u64 mul_u64_u64_shr(u64 a, u64 b, unsigned int shift)
{
	return (u64)(((unsigned __int128)a * b) >> shift);
}


#endif /* LIBORDO_CORE_USER_H */
