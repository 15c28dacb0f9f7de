/*
 * A correct lockless reader (as plugin/examples/lockless_gather.c) and one
 * broken writer: contpte_wrprotect_ptes with an empty body. The range stays
 * writable; after fork that is a copy-on-write bypass (the child's writes
 * reach the parent's page). No reader can see it: it is caught by the
 * writers' postcondition as still_writable.
 *
 *   tools/hammer --reader-file plugin/examples/wrprotect_empty.c
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

void contpte_wrprotect_ptes(struct mm_struct *mm, unsigned long addr, pte_t *ptep,
			    unsigned int nr)
{
}
