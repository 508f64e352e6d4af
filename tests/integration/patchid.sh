#!/usr/bin/env bash
# pw_flood_patch_id() against "git patch-id --stable" on real mail.
#
# For every patch mail in the corpus (patchwork mail/, series/ and fuzz/, b4,
# public-inbox and notmuch mail, and the
# first PATCHID_LORE_MAX patches, default 300, of the lore linux-mips
# mbox) git mailsplit and git mailinfo extract the patch; git patch-id
# prints the reference id; the unit binary test_fingerprint, run with
# PATCHID_DIR, compares every pair and prints the agreement.  The raw
# messages (headers and encoded bodies included) are compared too, since
# git patch-id skips whatever is not a diff.
#
# git's side is kept in the repository, as git's own t5100 keeps its
# expected files: tests/expected/patchid.tar.xz holds the prepared
# directories (each patch beside the id git printed for it), and
# tests/expected/patchid.ids lists every id for review.  The suite runs
# no git; UPDATE=1 prepares them again with git (git 2.39, Debian 12)
# and rewrites both files: review their diff before committing.
. "$(dirname "$0")/../lib.sh"

unit=$UNIT_DIR/test_fingerprint
fixture=$TOP/tests/expected/patchid.tar.xz
listing=$TOP/tests/expected/patchid.ids
lore_max=${PATCHID_LORE_MAX:-300}
if [ ! -x "$unit" ]; then
	not_ok "unit binary $unit is built (make unit)"
	exit 0
fi

# ids DIR: every id file under DIR with its id, one a line, sorted.
ids() { (cd "$1" && find . -name '*.id' | LC_ALL=C sort | xargs -d '\n' grep -H '' /dev/null | sed 's|^\./||'); }

# git_id FILE: the first id "git patch-id --stable" prints, or nothing.
# Run outside any repository: inside one, git 2.39 hashes bytes it never
# set for a binary file under an abbreviated "index" line (its ids then
# vary from run to run); outside, it hashes the names the line gives.
git_id() {
	local id rest
	read -r id rest < <(cd "$T" && GIT_CEILING_DIRECTORIES=$(dirname "$T") \
		git patch-id --stable <"$1") || true
	printf '%s\n' "$id"
}

# add_mail DIR NAME FILE: the mailinfo patch of FILE as DIR/patch/NAME.*,
# the raw message as DIR/raw/NAME.*; returns 1 when FILE carries no diff.
add_mail() {
	local dir=$1 name=$2 file=$3
	mkdir -p "$dir/patch" "$dir/raw"
	git mailinfo "$T/msg" "$dir/patch/$name.patch" <"$file" >/dev/null 2>&1 || true
	if [ ! -s "$dir/patch/$name.patch" ]; then
		rm -f "$dir/patch/$name.patch"
		return 1
	fi
	git_id "$dir/patch/$name.patch" >"$dir/patch/$name.id"
	cp "$file" "$dir/raw/$name.patch"
	git_id "$file" >"$dir/raw/$name.id"
	return 0
}

# split_into MBOX OUTDIR: one file per message (a bare message is one).
split_into() {
	mkdir -p "$2"
	if head -c 5 "$1" | grep -q '^From '; then
		git mailsplit -o"$2" "$1" >/dev/null 2>&1
	else
		cp "$1" "$2/0001"
	fi
}

# compare DESC DIR MIN: runs the unit comparison; ok when all agree and at
# least MIN pairs were compared.
compare() {
	local desc=$1 dir=$2 min=$3 out rc n
	n=$(find "$dir" -name '*.patch' | wc -l)
	if [ "$n" -lt "$min" ]; then
		not_ok "$desc: only $n patches prepared, want at least $min"
		return
	fi
	out=$(PATCHID_DIR=$dir "$unit" 2>&1)
	rc=$?
	printf '%s\n' "$out" | grep '^# \(patchid\|mismatch\)' | head -n 20
	local summary
	summary=$(printf '%s\n' "$out" | sed -n 's/^# patchid: //p')
	if [ "$rc" -eq 0 ] && [ -n "$summary" ]; then
		ok "$desc agrees with git patch-id --stable ($summary)"
	else
		not_ok "$desc agrees with git patch-id --stable (${summary:-no summary})"
	fi
}

# update: prepares every directory with git under $W and writes the
# fixture and its listing.
update() {
	W=$T/fx
	mkdir -p "$W"
	# patchwork mail/: one message per file.
	n=0
	for f in "$CORPUS"/patchwork/mail/*.mbox; do
		d=$W/split/mail/$(basename "$f" .mbox)
		split_into "$f" "$d"
		for m in "$d"/*; do
			add_mail "$W/mail" "$(basename "$f" .mbox)-$(basename "$m")" "$m" && n=$((n + 1))
		done
	done

	# patchwork series/: mboxes of threads.
	n=0
	for f in "$CORPUS"/patchwork/series/*.mbox; do
		d=$W/split/series/$(basename "$f" .mbox)
		split_into "$f" "$d"
		for m in "$d"/*; do
			add_mail "$W/series" "$(basename "$f" .mbox)-$(basename "$m")" "$m" && n=$((n + 1))
		done
	done

	# Everything else that may carry a patch: patchwork fuzz/ (mutated real
	# mail), b4 samples, public-inbox and notmuch mail.
	n=0 i=0
	while IFS= read -r f; do
		i=$((i + 1))
		d=$W/split/other/$i
		split_into "$f" "$d"
		for m in "$d"/*; do
			add_mail "$W/other" "$i-$(basename "$m")" "$m" && n=$((n + 1))
		done
	done < <(find "$CORPUS/patchwork/fuzz" "$CORPUS/b4" "$CORPUS/public-inbox" \
		"$CORPUS/notmuch" -type f \( -name '*.mbox' -o -name '*.eml' -o -path '*/notmuch/*' \) | sort)

	# lore linux-mips: the first $lore_max patch mails.
	mkdir -p "$W/split/lore"
	xz -dc "$CORPUS/lore-linux-mips/first-2000.mbox.xz" >"$W/lore.mbox"
	git mailsplit -o"$W/split/lore" "$W/lore.mbox" >/dev/null
	n=0
	for m in "$W"/split/lore/*; do
		[ "$n" -ge "$lore_max" ] && break
		add_mail "$W/lore" "$(basename "$m")" "$m" && n=$((n + 1))
	done

	# git format-patch output of a scratch repository: renames, copies, mode
	# changes, binary files, deletions, CRLF and missing final newlines.
	g=$W/repo
	git init -q "$g"
	gc() { git -C "$g" -c user.name=T -c user.email=t@example.org "$@"; }
	printf 'int a;\nint b;\nint c;\n' >"$g/a.c"
	printf '#!/bin/sh\necho hi\n' >"$g/run.sh"
	printf 'x\r\ny\r\n' >"$g/dos.txt"
	gc add -A && gc commit -qm base
	sed -i 's/int b;/int  b ;/' "$g/a.c" && gc commit -qam "white space only"
	chmod +x "$g/run.sh" && gc commit -qam "mode only"
	git -C "$g" mv a.c b.c && printf 'int d;' >>"$g/b.c" && gc add -A && gc commit -qm "rename and no final newline"
	head -c 300 /dev/zero | tr '\0' '\1' >"$g/blob.bin" && gc add -A && gc commit -qm "binary"
	printf 'x\r\nz\r\n' >"$g/dos.txt" && gc commit -qam "crlf"
	git -C "$g" rm -q run.sh && gc commit -qm "delete"
	for i in 1 2 3; do printf 'mod %d\n' "$i" >"$g/m$i.c"; done
	gc add -A && gc commit -qm "three files"
	mkdir -p "$W/fp/patch"
	git -C "$g" format-patch -q --binary -C -o "$W/fp/mails" --root HEAD
	for f in "$W"/fp/mails/*.patch; do
		b=$(basename "$f" .patch)
		cp "$f" "$W/fp/patch/$b.patch"
		git_id "$f" >"$W/fp/patch/$b.id"
	done

	# Generated diffs that bend the hunk rules: counts too small or too large
	# (git's counters then go negative and it reads on), "\\ " lines long and
	# short, CRLF, lines without a newline, binary and header lines in hunks.
	# Seeded: the same 400 files on every run.
	mkdir -p "$W/gen/patch"
	python3 - "$W/gen/patch" <<'PY'
import random, sys
out = sys.argv[1]
rnd = random.Random(20261203)
pieces = ["diff --git a/x.c b/x.c\n", "index 1234567..89abcde 100644\n",
	"--- a/x.c\n", "+++ b/x.c\n", "@@ -1,3 +1,3 @@\n", "@@ -1 +1 @@\n",
	"@@ -0,0 +1,2 @@\n", "@@ -5,2 +5,0 @@ fn\n", "@@ -1,2 +1,2\n",
	"@@ -3,1 +3,4 @@\n", " ctx line\n", "-\told = 0444;\n",
	"+\tnew = S_IRUGO;\n", "+int a;\n", "-int b ;\n", " \n", "+\n", "-\n",
	"\\ No newline at end of file\n", "\\ x\n", "\n", "-- \n", "2.39.0\n",
	"diff --git a/y.c b/y.c\n", "new file mode 100644\n",
	"Binary files a/z and b/z differ\n", "+  lots   of \t space  \r\n",
	"-x\r\n", " y\r\n", "+" + "long line " * 12 + "\n", "+", "-", " ", "\t"]
for i in range(400):
	text = ""
	if rnd.random() < 0.7:
		text = "diff --git a/x.c b/x.c\n--- a/x.c\n+++ b/x.c\n@@ -1,4 +1,4 @@\n"
	text += "".join(rnd.choice(pieces) for _ in range(rnd.randrange(40)))
	with open("%s/%03d.patch" % (out, i), "w", newline="") as f:
		f.write(text)
PY
	for f in "$W"/gen/patch/*.patch; do
		git_id "$f" >"${f%.patch}.id"
	done
	rm -rf "$W/split" "$W/repo" "$W/fp/mails" "$W/lore.mbox" "$W/msg"
	tar --sort=name --mtime=@0 --owner=0 --group=0 --numeric-owner \
		-C "$W" -cf - mail series other lore fp gen | xz -9e >"$fixture.new" &&
		mv "$fixture.new" "$fixture"
	ids "$W" >"$listing"
	echo "# UPDATE: wrote $fixture and $listing"
}

if [ -n "${UPDATE:-}" ]; then
	update
else
	mkdir -p "$T/fx"
	xz -dc "$fixture" | tar -x -C "$T/fx"
fi
check "the fixture's ids are those tests/expected/patchid.ids lists" \
	cmp -s <(ids "$T/fx") "$listing"
# n DIR: the patches prepared in DIR.
n() { find "$1" -name '*.patch' | wc -l; }
compare "patchwork mail/ patches ($(n "$T/fx/mail/patch"))" "$T/fx/mail/patch" 15
compare "patchwork mail/ raw messages ($(n "$T/fx/mail/raw"))" "$T/fx/mail/raw" 15
compare "patchwork series/ patches ($(n "$T/fx/series/patch"))" "$T/fx/series/patch" 30
compare "patchwork series/ raw messages ($(n "$T/fx/series/raw"))" "$T/fx/series/raw" 30
compare "other corpus patches ($(n "$T/fx/other/patch"))" "$T/fx/other/patch" 20
compare "other corpus raw messages ($(n "$T/fx/other/raw"))" "$T/fx/other/raw" 20
want=$lore_max
[ "$want" -gt 250 ] && want=250
compare "lore linux-mips patches ($(n "$T/fx/lore/patch"))" "$T/fx/lore/patch" "$want"
compare "lore linux-mips raw messages ($(n "$T/fx/lore/raw"))" "$T/fx/lore/raw" "$want"
compare "git format-patch files ($(n "$T/fx/fp/patch"))" "$T/fx/fp/patch" 8
compare "generated diffs with broken hunks ($(n "$T/fx/gen/patch"))" "$T/fx/gen/patch" 400

# The comparison can fail: a wrong id in an .id file must be reported.
mkdir -p "$T/bad"
first=$(find "$T/fx/lore/patch" -name '*.patch' | head -n 1)
cp "$first" "$T/bad/1.patch"
echo 0123456789012345678901234567890123456789 >"$T/bad/1.id"
if PATCHID_DIR=$T/bad "$unit" >"$T/bad.out" 2>&1; then
	not_ok "a wrong git id is reported as a mismatch"
else
	contains "a wrong git id is reported as a mismatch" "$(cat "$T/bad.out")" "# mismatch 1"
fi
