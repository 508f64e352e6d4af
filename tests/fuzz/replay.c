/*
 * Standalone replay for the fuzz harnesses: the main() that libFuzzer
 * would otherwise provide.  Built with -DPW_FUZZ_STANDALONE by any
 * compiler, beside one harness, it runs every file named on the command
 * line through that harness's LLVMFuzzerTestOneInput(), descending into
 * directories in name order, so seeds and crash reproducers can be
 * replayed in the test suite, under valgrind, or where clang is missing.
 *
 * Exit status: 0 when every input ran, 2 when one could not be read.  A
 * harness that finds a bug aborts, so the replay dies with it.
 */
#ifndef PW_FUZZ_STANDALONE
#error "tests/fuzz/replay.c is the main() of standalone builds only"
#endif

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <glib.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Files larger than this are cut, as libFuzzer's -max_len would. */
#define REPLAY_MAX (4u << 20)

static int replay(const char *path, unsigned *ran);

/* g_ptr_array_sort() hands over pointers to the elements. */
static int by_name(gconstpointer a, gconstpointer b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static int replay_dir(const char *path, unsigned *ran)
{
	GError *err = NULL;
	GDir *dir = g_dir_open(path, 0, &err);
	GPtrArray *names;
	const char *name;
	unsigned i;
	int rc = 0;

	if (!dir) {
		fprintf(stderr, "replay: %s: %s\n", path, err->message);
		g_error_free(err);
		return 2;
	}
	names = g_ptr_array_new_with_free_func(g_free);
	while ((name = g_dir_read_name(dir)))
		g_ptr_array_add(names, g_build_filename(path, name, NULL));
	g_dir_close(dir);
	g_ptr_array_sort(names, by_name);
	for (i = 0; i < names->len && !rc; i++)
		rc = replay(g_ptr_array_index(names, i), ran);
	g_ptr_array_free(names, TRUE);
	return rc;
}

static int replay(const char *path, unsigned *ran)
{
	GError *err = NULL;
	gchar *buf = NULL;
	gsize len = 0;
	uint8_t *copy;

	if (g_file_test(path, G_FILE_TEST_IS_DIR))
		return replay_dir(path, ran);
	if (!g_file_get_contents(path, &buf, &len, &err)) {
		fprintf(stderr, "replay: %s: %s\n", path, err->message);
		g_error_free(err);
		return 2;
	}
	/*
	 * An exact-size copy, as libFuzzer hands over, so that a harness
	 * reading past the end is caught by ASan or valgrind.
	 */
	if (len > REPLAY_MAX)
		len = REPLAY_MAX;
	copy = g_malloc(len ? len : 1);
	memcpy(copy, buf, len);
	g_free(buf);
	LLVMFuzzerTestOneInput(copy, len);
	g_free(copy);
	(*ran)++;
	return 0;
}

int main(int argc, char **argv)
{
	unsigned ran = 0;
	int i, rc = 0;
	char *name = g_path_get_basename(argv[0]);

	for (i = 1; i < argc && !rc; i++)
		rc = replay(argv[i], &ran);
	printf("%s: %u inputs ran\n", name, ran);
	g_free(name);
	return rc;
}
