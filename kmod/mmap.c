// SPDX-License-Identifier: GPL-2.0
/*
 * Read-only mappings of the node pool (offset ORDO_MMAP_POOL) and of the
 * model region (ORDO_MMAP_MODEL): a local process runs the same one-sided
 * read path as a remote client, without a syscall per GET.
 * Writable mappings are refused, and VM_MAYWRITE is cleared so mprotect()
 * cannot add write access later.  Pages are inserted on fault because the
 * regions grow while mapped; a page of a chunk not yet allocated is SIGBUS.
 */
#include <linux/fs.h>
#include <linux/mm.h>

#include <linux/ordo.h>

#include "ordo.h"
#include "trainer.h"

#define ORDO_MODEL_PGOFF	(ORDO_MMAP_MODEL >> PAGE_SHIFT)

static vm_fault_t ordo_vm_fault(struct vm_fault *vmf)
{
	struct ordo_dev *od = vmf->vma->vm_private_data;
	struct page *page;

	if (vmf->pgoff >= ORDO_MODEL_PGOFF)
		page = ordo_chunks_page(&od->trainer->mem.chunks,
					vmf->pgoff - ORDO_MODEL_PGOFF);
	else
		page = ordo_chunks_page(&od->pool_mem, vmf->pgoff);
	if (!page)
		return VM_FAULT_SIGBUS;
	get_page(page);
	vmf->page = page;
	return 0;
}

static const struct vm_operations_struct ordo_vm_ops = {
	.fault = ordo_vm_fault,
};

int ordo_mmap(struct file *file, struct vm_area_struct *vma)
{
	if (vma->vm_flags & VM_WRITE)
		return -EPERM;
	vma->vm_flags &= ~(VM_MAYWRITE | VM_MAYEXEC);
	vma->vm_flags |= VM_DONTEXPAND | VM_DONTDUMP;
	vma->vm_private_data = ordo;
	vma->vm_ops = &ordo_vm_ops;
	return 0;
}
