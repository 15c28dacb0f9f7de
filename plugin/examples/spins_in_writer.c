/*
 * A writer that never returns: write-protection waits for hardware to
 * clear a bit it never clears, spinning on its own copy of the entry (no
 * load in the loop, so nothing the harness instruments is reached). The
 * stress driver's watchdog reports a hang after the run; on the engine the
 * thread never reaches a scheduling point again, and the engine's watchdog
 * ends the run with the script saved. Expected: hang, within the run's
 * time plus the grace period.
 *
 *   tools/hammer --reader-file plugin/examples/spins_in_writer.c
 */

void contpte_wrprotect_ptes(struct mm_struct *mm, unsigned long addr, pte_t *ptep,
			    unsigned int nr)
{
	pte_t pte = __ptep_get(ptep);

	while (pte_write(pte))
		barrier();
	__wrprotect_ptes(mm, addr, ptep, nr);
}
