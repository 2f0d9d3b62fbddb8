// SPDX-License-Identifier: GPL-2.0
/*
 * io_uring commands: IORING_OP_URING_CMD with cmd_op = an ordo ioctl number
 * and the argument struct in the SQE's command area, so rings must be set
 * up with IORING_SETUP_SQE128 (80 bytes).  Operations may sleep (user
 * copies, pool growth), so the non-blocking first issue asks io_uring to
 * retry from its worker threads; the result is the CQE's res: 0 or -errno,
 * the value's length for GET, pairs for SCAN, entries for BATCH.  Results
 * are posted with io_uring_cmd_done(): on 6.1 a positive return from
 * ->uring_cmd() issued from a worker thread would never complete the
 * request.
 */
#include <linux/io_uring.h>

#include "ordo.h"
#include "ops.h"

int ordo_uring_cmd(struct io_uring_cmd *ioucmd, unsigned int issue_flags)
{
	long ret;

	if (!(issue_flags & IO_URING_F_SQE128))
		return -EINVAL;
	if (issue_flags & IO_URING_F_NONBLOCK)
		return -EAGAIN;
	ret = ordo_cmd_payload(ordo, ioucmd->cmd_op, ioucmd->cmd, 80);
	io_uring_cmd_done(ioucmd, ret, 0, issue_flags);
	return -EIOCBQUEUED;
}
