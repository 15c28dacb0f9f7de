/*
 * core/signature.h - a finding's signature "kind:op:function" as text,
 * and the lists of them a caller knows (--known, a known-signature file):
 * what both subjects' finding records share (core/finding.c for contpte,
 * stage2/runtime/finding.c for stage 2), each validating the kinds and ops
 * of its own subject.
 */
#ifndef CORE_SIGNATURE_H
#define CORE_SIGNATURE_H

#include <stdbool.h>
#include <stddef.h>

#define SIG_PART_MAX 64         /* a kind, op or function name, with its NUL */

/* "kind:op:function" into its three parts, each shorter than
 * SIG_PART_MAX: 0, or -1 with the reason in err (example: a signature of
 * the caller's subject the message shows). */
int sig_split(const char *sig, char kind[SIG_PART_MAX], char op[SIG_PART_MAX], char fn[SIG_PART_MAX],
	      const char *example, char *err, size_t errlen);
/* The op and function parts of sig: op "*" or one of ops (NULL-ended),
 * fn a C identifier, "-" (none) or "*" (any): 0, or -1 with the reason
 * (the valid ops listed) in err. */
int sig_check_op_fn(const char *sig, const char *op, const char *fn, const char *const *ops, char *err,
		    size_t errlen);
/* A known part matches a finding's: the same, or the pattern "*". */
bool sig_part_matches(const char *pattern, const char *s);

/* add() for each signature of a list "SIG[,SIG...]" (commas or blanks
 * between them), stopping at the first that fails: 0, or its -1. */
int sig_list_each(const char *list, int (*add)(const char *sig, char *err, size_t errlen), char *err,
		  size_t errlen);
/* ... of a file, one a line: each line's first word ('#' starts a comment,
 * blank lines skipped), so a table whose first column is the signature is
 * such a file; an error names the file and the line. */
int sig_file_each(const char *path, int (*add)(const char *sig, char *err, size_t errlen), char *err,
		  size_t errlen);

#endif
