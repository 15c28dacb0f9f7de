/*
 * sanitizers/planted_stack_oob.c - a plug-in reader (kernel dialect, built
 * on the kernel-tree shim) with a planted out-of-bounds store: it keeps the
 * block's entries in a local array one entry short, so gathering the last
 * entry writes past the array. The store goes to the reader's own stack,
 * not to a table, so the harness's own checks never see it;
 * AddressSanitizer must (//sanitizers:asan_reports_test, --config=asan).
 */
pte_t contpte_ptep_get_lockless(pte_t *orig_ptep)
{
	pte_t *first = contpte_align_down(orig_ptep);
	pte_t seen[CONT_PTES - 1];      /* planted: one entry short */
	pte_t head = __ptep_get(orig_ptep);
	int i;

	if (!pte_valid_cont(head))
		return head;
	for (i = 0; i < CONT_PTES; i++)
		seen[i] = __ptep_get(first + i);
	for (i = 0; i < CONT_PTES - 1; i++) {
		if (pte_young(seen[i]))
			head = pte_mkyoung(head);
		if (pte_dirty(seen[i]))
			head = pte_mkdirty(head);
	}
	return head;
}
