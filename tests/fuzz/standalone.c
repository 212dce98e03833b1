// SPDX-License-Identifier: (GPL-2.0 OR BSD-3-Clause)
/*
 * Replays fuzz inputs without libFuzzer: every file named on the command
 * line, and every regular file in every directory named (sorted, so runs
 * are repeatable). Each input is handed over in a heap block of exactly its
 * size, so ASan catches a read one byte past the end. An empty corpus is an
 * error: a replay of nothing proves nothing.
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
	struct stat st;
	uint8_t *buf;

	if (!f || fstat(fileno(f), &st)) {
		perror(path);
		return -1;
	}
	buf = malloc(st.st_size ? (size_t)st.st_size : 1);
	if (!buf || fread(buf, 1, (size_t)st.st_size, f) != (size_t)st.st_size) {
		perror(path);
		return -1;
	}
	fclose(f);
	LLVMFuzzerTestOneInput(buf, (size_t)st.st_size);
	free(buf);
	return 0;
}

static int by_name(const struct dirent **a, const struct dirent **b)
{
	return strcmp((*a)->d_name, (*b)->d_name);
}

/* Returns inputs replayed, or -1. */
static long run_dir(const char *dir)
{
	struct dirent **names;
	char path[4096];
	struct stat st;
	long count = 0;
	int n = scandir(dir, &names, NULL, by_name);

	if (n < 0) {
		perror(dir);
		return -1;
	}
	for (int i = 0; i < n; i++) {
		snprintf(path, sizeof(path), "%s/%s", dir, names[i]->d_name);
		if (!stat(path, &st) && S_ISREG(st.st_mode)) {
			if (run_file(path))
				return -1;
			count++;
		}
		free(names[i]);
	}
	free(names);
	return count;
}

int main(int argc, char **argv)
{
	long total = 0, n;
	struct stat st;

	for (int i = 1; i < argc; i++) {
		if (stat(argv[i], &st)) {
			perror(argv[i]);
			return 1;
		}
		n = S_ISDIR(st.st_mode) ? run_dir(argv[i]) :
		    run_file(argv[i]) ? -1 : 1;
		if (n < 0)
			return 1;
		total += n;
	}
	printf("%s: replayed %ld inputs, all properties held\n", argv[0], total);
	return total ? 0 : 1;
}
