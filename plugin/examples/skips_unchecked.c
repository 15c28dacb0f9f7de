/*
 * A plausible slip in a plug-in reader: once the target is known to head a
 * block, entries that fail the consistency check are skipped instead of
 * restarting the scan, and their bits are still gathered ("they are all
 * part of the same folio anyway"). Expected: the oracle reports a
 * phantom_bit (bits from an entry of another mapping) and exits 1.
 *
 *   tools/hammer --reader-file plugin/examples/skips_unchecked.c
 */

pte_t contpte_ptep_get_lockless(pte_t *orig_ptep)
{
	pte_t *first = PTR_ALIGN_DOWN(orig_ptep, sizeof(*orig_ptep) * CONT_PTES);
	pte_t head = __ptep_get(orig_ptep), pte;
	int i;

	if (!pte_valid_cont(head))
		return head;
	for (i = 0; i < CONT_PTES; i++) {
		pte = __ptep_get(first + i);
		if (pte_young(pte))
			head = pte_mkyoung(head);
		if (pte_dirty(pte))
			head = pte_mkdirty(head);
	}
	return head;
}
