/*
 * A plug-in reader in kernel dialect (no #include lines: it is built on the
 * kernel-tree shim, kernel_tree/shim/kt_shim.h). It gathers the block's access/dirty state
 * with a consistency check and retries on any mismatch; every entry it
 * reads is checked before its bits are used. Expected: runs clean.
 *
 *   tools/hammer --reader-file plugin/examples/lockless_gather.c
 */

static bool same_block(pte_t pte, unsigned long pfn, pgprot_t prot)
{
	return pte_valid_cont(pte) && pte_pfn(pte) == pfn &&
	       pgprot_val(pte_pgprot(pte_mkold(pte_mkclean(pte)))) == pgprot_val(prot);
}

pte_t contpte_ptep_get_lockless(pte_t *orig_ptep)
{
	pte_t *first = PTR_ALIGN_DOWN(orig_ptep, sizeof(*orig_ptep) * CONT_PTES);
	pte_t head, pte;
	pgprot_t prot;
	unsigned long pfn;
	int i;

again:
	head = __ptep_get(orig_ptep);
	if (!pte_valid_cont(head))
		return head;
	prot = pte_pgprot(pte_mkold(pte_mkclean(head)));
	pfn = pte_pfn(head) - (orig_ptep - first);
	for (i = 0; i < CONT_PTES; i++) {
		pte = __ptep_get(first + i);
		if (!same_block(pte, pfn + i, prot))
			goto again;
		if (pte_young(pte))
			head = pte_mkyoung(head);
		if (pte_dirty(pte))
			head = pte_mkdirty(head);
	}
	return head;
}
EXPORT_SYMBOL_GPL(contpte_ptep_get_lockless);
