// SPDX-License-Identifier: GPL-2.0
/*
 * ib_client: learn about RDMA devices as they come and go (including ones
 * added after load with "rdma link add").
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <rdma/ib_verbs.h>

#include "ordo.h"

static int ordo_ib_add(struct ib_device *dev)
{
	pr_info("RDMA device %s added (node type %d, %u port(s))\n",
		dev_name(&dev->dev), dev->node_type, rdma_end_port(dev));
	return 0;
}

static void ordo_ib_remove(struct ib_device *dev, void *client_data)
{
	pr_info("RDMA device %s removed\n", dev_name(&dev->dev));
}

static struct ib_client ordo_ib_client = {
	.name	= "ordo",
	.add	= ordo_ib_add,
	.remove	= ordo_ib_remove,
};

int ordo_ib_register(void)
{
	return ib_register_client(&ordo_ib_client);
}

void ordo_ib_unregister(void)
{
	ib_unregister_client(&ordo_ib_client);
}
