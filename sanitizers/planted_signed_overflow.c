/*
 * sanitizers/planted_signed_overflow.c - a plug-in reader (kernel dialect,
 * built on the kernel-tree shim) with a planted signed overflow: it finds
 * the target's place in its block from the entry's output address computed
 * in an int, and the harness's pfns (2^20 and up) times the page size do
 * not fit. The wrapped value happens to give the right place, so the
 * harness's own checks never see it; UndefinedBehaviorSanitizer must
 * (//sanitizers:ubsan_reports_test, --config=ubsan).
 */
pte_t contpte_ptep_get_lockless(pte_t *orig_ptep)
{
	pte_t head = __ptep_get(orig_ptep);
	int phys, i;
	pte_t *first;

	if (!pte_valid_cont(head))
		return head;
	phys = (int)pte_pfn(head) * (int)PAGE_SIZE;      /* planted: int overflow */
	first = orig_ptep - (phys / (int)PAGE_SIZE) % CONT_PTES;
	for (i = 0; i < CONT_PTES; i++) {
		pte_t pte = __ptep_get(first + i);

		if (pte_young(pte))
			head = pte_mkyoung(head);
		if (pte_dirty(pte))
			head = pte_mkdirty(head);
	}
	return head;
}
