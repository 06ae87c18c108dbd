// SPDX-License-Identifier: MIT
/*
 * Runs a fuzz target over files (seeds, regressions) without libFuzzer,
 * so make check replays them with any compiler. Directories are walked.
 */
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int run_file(const char *path)
{
	FILE *f = fopen(path, "rb");
	uint8_t *buf;
	long n;

	if (!f)
		return perror(path), 1;
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	rewind(f);
	buf = malloc((size_t)n + 1);
	if (!buf || fread(buf, 1, (size_t)n, f) != (size_t)n) {
		fclose(f);
		return perror(path), 1;
	}
	fclose(f);
	LLVMFuzzerTestOneInput(buf, (size_t)n);
	free(buf);
	return 0;
}

static int run(const char *path, unsigned long *count)
{
	struct stat st;
	struct dirent *e;
	DIR *d;
	int r = 0;

	if (stat(path, &st))
		return perror(path), 1;
	if (!S_ISDIR(st.st_mode)) {
		(*count)++;
		return run_file(path);
	}
	d = opendir(path);
	if (!d)
		return perror(path), 1;
	while ((e = readdir(d))) {
		char sub[4096];

		if (e->d_name[0] == '.')
			continue;
		snprintf(sub, sizeof(sub), "%s/%s", path, e->d_name);
		r |= run(sub, count);
	}
	closedir(d);
	return r;
}

int main(int argc, char **argv)
{
	unsigned long count = 0;
	int r = 0;

	for (int i = 1; i < argc; i++)
		r |= run(argv[i], &count);
	printf("%lu inputs\n", count);
	return r;
}
