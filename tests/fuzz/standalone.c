// SPDX-License-Identifier: GPL-2.0
/*
 * Run a fuzz harness once on each file named on the command line (or each file of each
 * directory named): the regression corpus under tests/fuzz/regress/, run by make check with
 * the compiler and sanitizers of that build, without libFuzzer.
 */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include "fuzz.h"

static int run_file(const char *path)
{
	FILE *f = fopen(path, "rb");
	uint8_t *buf;
	long n;

	if (!f || fseek(f, 0, SEEK_END) || (n = ftell(f)) < 0 || fseek(f, 0, SEEK_SET)) {
		fprintf(stderr, "cannot read %s\n", path);
		if (f)
			fclose(f);
		return 1;
	}
	buf = malloc(n ? (size_t)n : 1);
	if (!buf || fread(buf, 1, (size_t)n, f) != (size_t)n) {
		fprintf(stderr, "cannot read %s\n", path);
		fclose(f);
		free(buf);
		return 1;
	}
	fclose(f);
	LLVMFuzzerTestOneInput(buf, (size_t)n);
	free(buf);
	return 0;
}

int main(int argc, char **argv)
{
	int bad = 0, n = 0;

	for (int i = 1; i < argc; i++) {
		struct stat st;
		DIR *d;
		struct dirent *e;

		if (stat(argv[i], &st) == 0 && S_ISDIR(st.st_mode) && (d = opendir(argv[i]))) {
			while ((e = readdir(d))) {
				char path[4096];

				if (e->d_name[0] == '.')
					continue;
				snprintf(path, sizeof(path), "%s/%s", argv[i], e->d_name);
				bad |= run_file(path);
				n++;
			}
			closedir(d);
		} else {
			bad |= run_file(argv[i]);
			n++;
		}
	}
	printf("%s: %d inputs\n", argv[0], n);
	return bad;
}
