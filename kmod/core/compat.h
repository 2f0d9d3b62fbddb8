/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Thin compatibility layer for ordo's kernel-neutral core (tree, node pool,
 * model).  The same .c files build into ordo.ko and into native user-space
 * unit tests, fuzzers and benchmarks; everything environment-specific is
 * spelled here and nowhere else.
 */
#ifndef ORDO_CORE_COMPAT_H
#define ORDO_CORE_COMPAT_H

#ifdef __KERNEL__

#include <linux/types.h>
#include <linux/kernel.h>
#include <linux/errno.h>
#include <linux/string.h>
#include <linux/slab.h>
#include <linux/vmalloc.h>
#include <linux/gfp.h>
#include <linux/mm.h>
#include <linux/atomic.h>
#include <linux/spinlock.h>
#include <linux/mutex.h>
#include <linux/sched.h>
#include <linux/preempt.h>
#include <linux/math64.h>
#include <linux/bitops.h>
#include <linux/minmax.h>
#include <linux/compiler.h>
#include <linux/build_bug.h>
#include <asm/byteorder.h>

#define ordo_malloc(sz)		kvzalloc(sz, GFP_KERNEL)
#define ordo_free(p)		kvfree(p)
#define ordo_cond_resched()	cond_resched()
/* Section in which a node lock is held: never preempted while spinning. */
#define ordo_lock_enter()	preempt_disable()
#define ordo_lock_exit()	preempt_enable()
#define ordo_cpu_relax()	cpu_relax()

#define ordo_mutex_t		struct mutex
#define ordo_mutex_init(m)	mutex_init(m)
#define ordo_mutex_destroy(m)	mutex_destroy(m)
#define ordo_mutex_lock(m)	mutex_lock(m)
#define ordo_mutex_unlock(m)	mutex_unlock(m)

#define ordo_spinlock_t		spinlock_t
#define ordo_spin_init(l)	spin_lock_init(l)
#define ordo_spin_destroy(l)	do { } while (0)
#define ordo_spin_lock(l)	spin_lock(l)
#define ordo_spin_unlock(l)	spin_unlock(l)

#else
/* Native builds (tests, benchmarks, libordo): libshim/core_user.h. */
#include "core_user.h"
#endif /* __KERNEL__ */

#endif /* ORDO_CORE_COMPAT_H */
