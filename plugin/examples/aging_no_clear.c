/*
 * A correct lockless reader (as plugin/examples/lockless_gather.c) and one
 * broken writer: block aging that returns the gathered young state but never
 * clears AF, so reclaim never sees the folio age. Caught by the writers'
 * postcondition as not_aged.
 *
 *   tools/hammer --reader-file plugin/examples/aging_no_clear.c
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

bool contpte_test_and_clear_young_ptes(struct vm_area_struct *vma, unsigned long addr,
				       pte_t *ptep, unsigned int nr)
{
	pte_t *first = contpte_align_down(ptep);
	bool young = false;
	int i;

	for (i = 0; i < CONT_PTES; i++)
		young |= pte_young(__ptep_get(first + i));
	return young;
}
