/*
 * Fuzz harness for pw_diff_parse() (checks/diff.c): any bytes are a diff.
 *
 * The parser never fails on bad input, so the harness walks the whole
 * model it returns and traps when a documented promise of
 * checks/patch.h is broken: every line lies inside the patch's own copy
 * of the text, hunks cover lines of their file, kinds are '+', '-' or
 * ' ', line numbers are 0 exactly where patch.h says, and the caps on
 * files, hunks and line length hold.  Reading every byte of every line
 * lets ASan see a pointer that strays.
 *
 * Built and run by "make fuzz" (libFuzzer) and replayed standalone by
 * tests/integration/fuzz_replay.sh; see tests/fuzz/README.md.
 */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "checks/patch.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Traps unless every byte of [s, s + len) is inside the patch text. */
static unsigned touch(const struct pw_patch *p, const char *s, size_t len)
{
	unsigned sum = 0;
	size_t i;

	if (s < p->text || s > p->text + p->len || len > (size_t)(p->text + p->len - s))
		__builtin_trap();
	for (i = 0; i < len; i++)
		sum += (unsigned char)s[i];
	return sum;
}

static unsigned walk_file(const struct pw_patch *p, const struct pw_file *f)
{
	const char *path = pw_file_path(f);
	unsigned sum = path ? (unsigned)strlen(path) : 0;
	size_t i, next = 0;

	if (f->nhunks > PW_DIFF_MAX_HUNKS || (f->nhunks && !f->hunks) ||
	    (f->nlines && !f->lines))
		__builtin_trap();
	for (i = 0; i < f->nhunks; i++) {
		const struct pw_hunk *h = &f->hunks[i];

		/* Hunks follow one another over the file's lines. */
		if (h->first < next || h->first > f->nlines ||
		    h->n > f->nlines - h->first)
			__builtin_trap();
		next = h->first + h->n;
	}
	for (i = 0; i < f->nlines; i++) {
		const struct pw_dline *d = &f->lines[i];

		if (d->kind != '+' && d->kind != '-' && d->kind != ' ')
			__builtin_trap();
		if ((d->kind == '+' && d->old_no) || (d->kind == '-' && d->new_no))
			__builtin_trap();
		if (d->len > PW_DIFF_MAX_LINE || d->patch_no < 1)
			__builtin_trap();
		sum += touch(p, d->text, d->len);
	}
	return sum;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct pw_patch *p = pw_diff_parse((const char *)data, size);
	volatile unsigned sum = 0;
	size_t i;

	/* The model keeps its own copy of exactly the bytes it was given. */
	if (!p || p->len != size || p->text[size] != '\0' ||
	    (size && memcmp(p->text, data, size)))
		__builtin_trap();
	if (p->nfiles > PW_DIFF_MAX_FILES || (p->nfiles && !p->files))
		__builtin_trap();
	for (i = 0; i < p->nfiles; i++)
		sum += walk_file(p, &p->files[i]);
	for (i = 0; i < p->nproblems; i++) {
		if (!p->problems[i].message)
			__builtin_trap();
		sum += (unsigned)strlen(p->problems[i].message);
	}
	(void)sum;
	pw_patch_free(p);
	return 0;
}
