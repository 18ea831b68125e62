/*
 * replay.c - the fuzz harness (fuzz_reader.c) without libFuzzer: calls
 * LLVMFuzzerTestOneInput on each file named, as libFuzzer does on a
 * corpus, and says how many it ran.  `make fuzz-replay` builds it from the
 * sources `make fuzz` uses and replays the seeds, so that make check
 * (tests/t_build.sh) sees a harness that no longer builds, or a seed that
 * crashes it.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* The whole of file path, malloc'd, its size in *size; NULL if unreadable. */
static uint8_t *slurp(const char *path, size_t *size)
{
	FILE *f = fopen(path, "rb");
	uint8_t *buf = NULL;
	size_t cap = 0, n = 0, got;
	if (!f)
		return NULL;
	do {
		if (n == cap) {
			uint8_t *bigger = realloc(buf, cap = cap ? 2 * cap : 65536);
			if (!bigger) {
				free(buf);
				fclose(f);
				return NULL;
			}
			buf = bigger;
		}
		got = fread(buf + n, 1, cap - n, f);
		n += got;
	} while (got > 0);
	fclose(f);
	*size = n;
	return buf;
}

int main(int argc, char **argv)
{
	int ran = 0;
	for (int i = 1; i < argc; i++) {
		size_t size = 0;
		uint8_t *data = slurp(argv[i], &size);
		if (!data) {
			fprintf(stderr, "replay: cannot read %s\n", argv[i]);
			return 1;
		}
		LLVMFuzzerTestOneInput(data, size);
		free(data);
		ran++;
	}
	printf("replayed %d inputs\n", ran);
	return 0;
}
