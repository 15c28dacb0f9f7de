/*
 * A plug-in reader that reads the block's entries with plain C loads
 * (`first[i]`) instead of __ptep_get(): the compiler may tear, fuse or
 * re-load such a load, and the harness would not see it. Otherwise the
 * same gather as lockless_gather.c. Expected: a plain_access violation.
 *
 *   tools/hammer --reader-file plugin/examples/plain_loads.c
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
		pte = first[i];         /* the bug: a plain load of a live entry */
		if (!same_block(pte, pfn + i, prot))
			goto again;
		if (pte_young(pte))
			head = pte_mkyoung(head);
		if (pte_dirty(pte))
			head = pte_mkdirty(head);
	}
	return head;
}
