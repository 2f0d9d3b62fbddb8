// SPDX-License-Identifier: GPL-2.0
/*
 * Connections per peer address, for max_connections_per_peer: one entry
 * per IP address with admitted connections, under the server's lock, so a
 * single host cannot take every max_connections slot.
 */
#include <linux/in.h>
#include <linux/in6.h>
#include <linux/list.h>
#include <linux/slab.h>
#include <net/ipv6.h>

#include "listener.h"

struct ordo_rdma_peer {
	struct list_head node;
	struct in6_addr addr;
	u32 n;
};

/**
 * ordo_rdma_peer_addr - the address part of a socket address
 * @sa: IPv4 or IPv6 socket address
 * @a: out: the address, IPv4 as v4-mapped; ports and scope left out
 *
 * Return: false if @sa is not IP (then @a is all zero).
 */
bool ordo_rdma_peer_addr(const struct sockaddr *sa, struct in6_addr *a)
{
	memset(a, 0, sizeof(*a));
	if (sa->sa_family == AF_INET) {
		ipv6_addr_set_v4mapped(((const struct sockaddr_in *)sa)->sin_addr.s_addr,
				       a);
		return true;
	}
	if (sa->sa_family == AF_INET6) {
		*a = ((const struct sockaddr_in6 *)sa)->sin6_addr;
		return true;
	}
	return false;
}

static struct ordo_rdma_peer *ordo_rdma_peer_find(struct ordo_listener *l,
						  const struct in6_addr *a)
{
	struct ordo_rdma_peer *p;

	list_for_each_entry(p, &l->peers, node)
		if (ipv6_addr_equal(&p->addr, a))
			return p;
	return NULL;
}

/**
 * ordo_rdma_peer_get - count one more connection from @a, within @limit
 * @l: the listener, the server's lock held
 * @a: the peer's address
 * @limit: most connections from one address; 0: no limit
 * @fresh: a zeroed entry to use if @a has none; set to NULL if used
 *
 * Return: true if counted, false if @a has @limit connections already.
 */
bool ordo_rdma_peer_get(struct ordo_listener *l, const struct in6_addr *a,
			u32 limit, struct ordo_rdma_peer **fresh)
{
	struct ordo_rdma_peer *p = ordo_rdma_peer_find(l, a);

	if (p && limit && p->n >= limit)
		return false;
	if (!p) {
		p = *fresh;
		*fresh = NULL;
		p->addr = *a;
		list_add(&p->node, &l->peers);
	}
	p->n++;
	return true;
}

/**
 * ordo_rdma_peer_put - a connection from @a is gone
 * @l: the listener, the server's lock held
 * @a: the peer's address, as counted by ordo_rdma_peer_get()
 */
void ordo_rdma_peer_put(struct ordo_listener *l, const struct in6_addr *a)
{
	struct ordo_rdma_peer *p = ordo_rdma_peer_find(l, a);

	if (WARN_ON_ONCE(!p))
		return;
	if (!--p->n) {
		list_del(&p->node);
		kfree(p);
	}
}

/* A zeroed entry to pass to ordo_rdma_peer_get(); free it if unused. */
struct ordo_rdma_peer *ordo_rdma_peer_alloc(void)
{
	return kzalloc(sizeof(struct ordo_rdma_peer), GFP_KERNEL);
}
