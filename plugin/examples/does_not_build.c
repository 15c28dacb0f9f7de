/* A plug-in with a wrong call: tools/hammer must exit 2 and show the
 * compiler's message (implicit declarations are errors). */

pte_t contpte_ptep_get_lockless(pte_t *orig_ptep)
{
	return __ptep_get_nonexistent(orig_ptep);
}
