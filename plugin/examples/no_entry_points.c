/*
 * A plug-in file that defines none of the entry points of
 * core/kernel/entry_points.def: only a helper. It would test nothing of its
 * own, so it is refused (exit 2, saying so).
 *
 *   tools/hammer --reader-file plugin/examples/no_entry_points.c
 */

static inline bool entry_is_block(pte_t pte)
{
	return pte_valid_cont(pte);
}

bool my_helper(pte_t *ptep)
{
	return entry_is_block(__ptep_get(ptep));
}
