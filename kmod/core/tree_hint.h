/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Position hints (XStore §5.3.1): a client that read a leaf remotely, or
 * holds its TT entry, knows its node number and sends it with an UPDATE,
 * so the server can skip the descent from the root while the hint still
 * holds.
 */
#ifndef ORDO_CORE_TREE_HINT_H
#define ORDO_CORE_TREE_HINT_H

#include "compat.h"
#include "tree.h"

int ordo_tree_update_hint(struct ordo_tree *t, u32 leaf, u64 key,
			  const struct ordo_value *val);

#endif /* ORDO_CORE_TREE_HINT_H */
