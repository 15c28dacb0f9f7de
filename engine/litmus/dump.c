/* Prints the IR of litmus files: bazel run //engine/litmus:dump -- FILE...
 * Exit 1 if any file is rejected (the message names file and line). */
#include <stdio.h>

#include "litmus.h"

int main(int argc, char **argv)
{
	static struct lit_test t;
	int bad = 0;
	for (int i = 1; i < argc; i++) {
		char err[300];
		if (lit_parse_file(argv[i], &t, err, sizeof err)) {
			fprintf(stderr, "%s\n", err);
			bad = 1;
			continue;
		}
		lit_dump(&t, stdout);
	}
	return bad;
}
