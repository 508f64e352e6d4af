/*
 * Fuzz harness for the flood fingerprints (checks/fingerprint.h):
 * pw_fingerprint_compute() and pw_flood_subject_normalise().
 *
 * The input is read the way a patch mail is laid out, so that mail and
 * patch seeds mean something: the first line is the subject, what
 * follows up to a line that starts with "---" or "diff " is the commit
 * message, and the rest is the diff, handed over in place (not
 * NUL-terminated, any bytes, as flood.h allows) so that a read past its
 * end is caught.
 *
 * Every digest must be empty or 40 lower-case hexadecimal digits, and
 * computing with the patch parsed here by pw_diff_parse() must give the
 * same fingerprint as letting pw_fingerprint_compute() parse it.
 *
 * Built and run by "make fuzz" (libFuzzer) and replayed standalone by
 * tests/integration/fuzz_replay.sh; see tests/fuzz/README.md.
 */
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <glib.h>

#include "checks/fingerprint.h"
#include "checks/patch.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check_digest(const char *d)
{
	size_t i, n = strnlen(d, PW_FP_HEX);

	if (n != 0 && n != PW_FP_HEX - 1)
		__builtin_trap();
	for (i = 0; i < n; i++)
		if (!g_ascii_isdigit(d[i]) && (d[i] < 'a' || d[i] > 'f'))
			__builtin_trap();
}

static void check_fingerprint(const struct pw_fingerprint *fp)
{
	check_digest(fp->subject);
	check_digest(fp->subject_nosys);
	check_digest(fp->body);
	check_digest(fp->shape);
	check_digest(fp->patch_id);
	if (fp->nedits < 0)
		__builtin_trap();
}

/* Where the line after the one starting at s begins, or end. */
static const char *next_line(const char *s, const char *end)
{
	const char *nl = memchr(s, '\n', (size_t)(end - s));

	return nl ? nl + 1 : end;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *s = (const char *)data, *end = s + size, *body, *diff;
	struct pw_fingerprint a, b;
	struct pw_patch *p;
	char *subject, *msg, *norm, *nosys;

	body = next_line(s, end);
	for (diff = body; diff < end; diff = next_line(diff, end)) {
		size_t left = (size_t)(end - diff);

		if ((left >= 3 && !memcmp(diff, "---", 3)) ||
		    (left >= 5 && !memcmp(diff, "diff ", 5)))
			break;
	}
	subject = g_strndup(s, (gsize)(body - s));
	msg = g_strndup(body, (gsize)(diff - body));

	norm = pw_flood_subject_normalise(subject);
	nosys = pw_flood_subject_strip_subsystem(norm);
	if (!norm || !nosys)
		__builtin_trap();

	memset(&a, 0x55, sizeof(a));
	memset(&b, 0xaa, sizeof(b));
	pw_fingerprint_compute(subject, msg, NULL, diff, (size_t)(end - diff), &a);
	p = pw_diff_parse(diff, (size_t)(end - diff));
	pw_fingerprint_compute(subject, msg, p, diff, (size_t)(end - diff), &b);
	check_fingerprint(&a);
	if (strcmp(a.subject, b.subject) || strcmp(a.subject_nosys, b.subject_nosys) ||
	    strcmp(a.body, b.body) || strcmp(a.shape, b.shape) ||
	    strcmp(a.patch_id, b.patch_id) || a.nedits != b.nedits)
		__builtin_trap();

	/* Empty input of every kind: NULL counts as empty. */
	if (size == 0) {
		pw_fingerprint_compute(NULL, NULL, NULL, NULL, 0, &a);
		check_fingerprint(&a);
		g_free(norm);
		norm = pw_flood_subject_normalise(NULL);
		if (!norm || *norm)
			__builtin_trap();
	}
	pw_patch_free(p);
	g_free(nosys);
	g_free(norm);
	g_free(msg);
	g_free(subject);
	return 0;
}
