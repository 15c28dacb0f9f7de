/*
 * tools/tests/testdata/flags/fixture.c - a program whose usage and option
 * parser disagree both ways, for //tools/tests:flags_test_fixture_test:
 * it accepts --secret=N, which its usage does not name, and its usage names
 * --missing, which it does not accept. flags_test.sh must say both.
 */
#include <stdio.h>
#include <string.h>

static int usage(void)
{
	fprintf(stderr, "usage: fixture [--shown] [--missing=N]\n");
	return 2;
}

int main(int argc, char **argv)
{
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--shown"))
			continue;
		else if (!strncmp(argv[i], "--secret=", 9))
			continue;
		else
			return usage();
	}
	return 0;
}
