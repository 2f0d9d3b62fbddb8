// SPDX-License-Identifier: GPL-2.0
/*
 * Wrong-token throttle: a peer address that presented ORDO_THROTTLE_FAILS
 * wrong tokens within ORDO_THROTTLE_WINDOW is refused, token unseen, until
 * that window (counted from its first failure) has passed.  Guessing a
 * token then costs a window per few guesses per address.  The table is
 * small and fixed: when it is full the entry whose window started first
 * is reused, so a flood of addresses cannot grow kernel memory.
 */
#include <linux/in.h>
#include <linux/in6.h>
#include <linux/jiffies.h>
#include <linux/spinlock.h>
#include <linux/string.h>
#include <net/ipv6.h>

#include "listener.h"

#define ORDO_THROTTLE_PEERS	64

struct ordo_throttle_peer {
	struct in6_addr addr;	/* IPv4 peers as v4-mapped */
	unsigned long since;	/* jiffies of the window's first failure */
	u32 fails;		/* 0: the slot is free */
};

static DEFINE_SPINLOCK(ordo_throttle_lock);
static struct ordo_throttle_peer ordo_throttle[ORDO_THROTTLE_PEERS];

static bool ordo_throttle_expired(const struct ordo_throttle_peer *p)
{
	return time_after_eq(jiffies, p->since + ORDO_THROTTLE_WINDOW);
}

/* The live entry of @a, or NULL; called with the lock held. */
static struct ordo_throttle_peer *ordo_throttle_find(const struct in6_addr *a)
{
	int i;

	for (i = 0; i < ORDO_THROTTLE_PEERS; i++) {
		struct ordo_throttle_peer *p = &ordo_throttle[i];

		if (!p->fails)
			continue;
		if (ordo_throttle_expired(p)) {
			p->fails = 0;
			continue;
		}
		if (ipv6_addr_equal(&p->addr, a))
			return p;
	}
	return NULL;
}

/**
 * ordo_throttle_blocked - may @peer's connect request have its token read?
 * @peer: the request's source address
 *
 * Return: true while @peer is throttled.
 */
bool ordo_throttle_blocked(const struct sockaddr *peer)
{
	struct ordo_throttle_peer *p;
	struct in6_addr a;
	bool blocked;

	if (!ordo_rdma_peer_addr(peer, &a))
		return false;
	spin_lock(&ordo_throttle_lock);
	p = ordo_throttle_find(&a);
	blocked = p && p->fails >= ORDO_THROTTLE_FAILS;
	spin_unlock(&ordo_throttle_lock);
	return blocked;
}

/**
 * ordo_throttle_fail - count a wrong token from @peer
 * @peer: the request's source address
 */
void ordo_throttle_fail(const struct sockaddr *peer)
{
	struct ordo_throttle_peer *p, *oldest = NULL;
	struct in6_addr a;
	int i;

	if (!ordo_rdma_peer_addr(peer, &a))
		return;
	spin_lock(&ordo_throttle_lock);
	p = ordo_throttle_find(&a);
	if (p) {
		p->fails++;
		goto out;
	}
	for (i = 0; i < ORDO_THROTTLE_PEERS; i++) {
		p = &ordo_throttle[i];
		if (!p->fails)
			break;
		if (!oldest || time_before(p->since, oldest->since))
			oldest = p;
	}
	if (i == ORDO_THROTTLE_PEERS)
		p = oldest;
	p->addr = a;
	p->since = jiffies;
	p->fails = 1;
out:
	spin_unlock(&ordo_throttle_lock);
}

/**
 * ordo_throttle_reset - forget every failure (the token was changed)
 */
void ordo_throttle_reset(void)
{
	spin_lock(&ordo_throttle_lock);
	memset(ordo_throttle, 0, sizeof(ordo_throttle));
	spin_unlock(&ordo_throttle_lock);
}
