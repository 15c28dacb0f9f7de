/*
 * core/where.h - where in the subject's source a finding was detected: a
 * finding's location for display (core/finding.h; not part of its
 * identity, since a patch moves lines).
 *
 * Read from the binary's own debug information (every build has -g) by
 * LLVM's tools, once per finding shown: llvm-symbolizer for an access's
 * code address (with the chain of inlined calls, so that a store made by
 * an asm/pgtable.h helper inlined into a contpte.c function names the
 * contpte.c line too), llvm-dwarfdump for a function's definition. The
 * #line directives of a tree's header pieces make those the header's own
 * lines. Paths of a kernel tree's files are given from arch/arm64/.
 */
#ifndef CORE_WHERE_H
#define CORE_WHERE_H

#include <stdbool.h>
#include <stddef.h>

/* The location of a finding detected in function (NULL: none known)
 * at the access whose code address is pc (NULL: judged on what function
 * returned or left). With pc: "FILE:LINE" of the access, in function's
 * frame when the access lies inside it (else the innermost frame in the
 * subject's own files), and in chain (may be NULL) the calls from there to
 * the access ("contpte_convert arch/arm64/mm/contpte.c:82 > __set_pte
 * arch/arm64/include/asm/pgtable.h:120"). Without: the line function is
 * defined at. False, with "" in where, if it cannot be told (no debug
 * information, LLVM's tools missing, CONTPTE_NO_WHERE=1 in the
 * environment: the fuzz harness under afl-fuzz sets nothing slow). */
bool where_of(const char *function, const void *pc, char *where, size_t wlen, char *chain,
	      size_t clen);

#endif
