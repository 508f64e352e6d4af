#!/usr/bin/env bash
# patchwarden check, end to end: output formats, exit codes, --fix,
# --file, standard input, mboxes, and use as git's sendemail-validate hook.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/../lib_fast.sh"
cases=$TOP/tests/cases

# A repository with one kernel-style file, and patches made by git itself.
repo=$T/repo
git init -q "$repo"
git -C "$repo" config user.name "A Developer"
git -C "$repo" config user.email dev@example.org
mkdir -p "$repo/drivers/misc"
cat >"$repo/drivers/misc/foo.c" <<'C'
// SPDX-License-Identifier: GPL-2.0
#include <linux/module.h>

static int debug;
static int level;

static int foo_init(void)
{
	debugfs_create_file("state",
			    0444, dir, NULL, &state_fops);
	return 0;
}
C
git -C "$repo" add . && git -C "$repo" commit -qm "foo: initial"
sed -i 's/^static int level;/static int level;\nmodule_param(debug, int, S_IRUGO | S_IWUSR);\nmodule_param(level, int, 0644);/; s/0444, dir/0666, dir/' "$repo/drivers/misc/foo.c"
git -C "$repo" commit -qam "foo: add parameters" -m "Signed-off-by: A Developer <dev@example.org>"
git -C "$repo" format-patch -q -1 -o "$T/out" HEAD
mail=$(ls "$T"/out/*.patch)
git -C "$repo" diff HEAD~1 HEAD >"$T/bare.diff"

# --- text format and exit codes -------------------------------------------
out=$("$PW" check "$T/bare.diff"); rc=$?
is "findings exit 1" "$rc" 1
is "two findings in the bare diff" "$(printf '%s\n' "$out" | wc -l)" 2
check "text lines are FILE:LINE: SEVERITY:RULE: message" \
	bash -c '! printf "%s\n" "$1" | grep -vqE "^[^: ]+:[0-9]+: (ERROR|WARNING|INFO):[A-Z_]+: ."' _ "$out"
contains "symbolic mode found with its line" "$out" \
	"drivers/misc/foo.c:6: WARNING:PERM_SYMBOLIC: S_IRUGO | S_IWUSR = 0644 (rw-r--r--)"
contains "continuation line found (checkpatch.pl misses it)" "$out" \
	"drivers/misc/foo.c:12: ERROR:PERM_WORLD_WRITABLE: 0666 (rw-rw-rw-)"

out=$("$PW" check "$mail"); rc=$?
is "format-patch mail: exit 1" "$rc" 1
is "format-patch mail: same findings" "$(printf '%s\n' "$out" | wc -l)" 2

"$PW" check "$cases/PERM_SYMBOLIC/clean-mask-test.patch" >/dev/null; is "clean patch exits 0" $? 0
"$PW" check --fail-on error "$cases/PERM_SYMBOLIC/module-param.patch" >/dev/null
is "--fail-on error ignores warnings" $? 0
"$PW" check --fail-on info "$cases/PERM_UNCOMMON/on.patch" --enable PERM_UNCOMMON >/dev/null
is "--fail-on info counts infos" $? 1
"$PW" check --disable PERM_SYMBOLIC "$cases/PERM_SYMBOLIC/module-param.patch" >/dev/null
is "--disable switches a rule off" $? 0
"$PW" check --disable PERM_WORLD_WRITABLE,PERM_INVERTED --disable PERM_SYMBOLIC "$T/bare.diff" >/dev/null
is "--disable takes lists and repeats" $? 0
"$PW" check "$T/no-such-file" 2>/dev/null; is "missing input exits 2" $? 2
"$PW" check 2>/dev/null; is "no input exits 2" $? 2
"$PW" check --format xml "$T/bare.diff" 2>/dev/null; is "bad --format exits 2" $? 2
"$PW" check --style hex "$T/bare.diff" 2>/dev/null; is "bad --style exits 2" $? 2
"$PW" check --disable NO_SUCH_RULE "$T/bare.diff" 2>/dev/null; is "unknown rule exits 2" $? 2
"$PW" check --bogus 2>/dev/null; is "unknown option exits 2" $? 2
rules=$("$PW" check --list-rules); is "--list-rules exits 0" $? 0
for id in PERM_SYMBOLIC PERM_NOT_OCTAL PERM_WORLD_WRITABLE PERM_SPECIAL_BITS PERM_INVERTED \
	  PERM_UNCOMMON PERM_MACRO_UNDEFINED SYSFS_MODE_CALLBACKS DEVICE_ATTR_FORM EXEC_SOURCE_FILE; do
	contains "--list-rules lists $id" "$rules" "$id"
done
contains "PERM_UNCOMMON is off by default" "$(grep PERM_UNCOMMON <<<"$rules")" " off "
# The rules about a patch's company are in the same table.
contains "--list-rules lists FLOOD, an error" "$(grep '^FLOOD ' <<<"$rules")" " error "
contains "--list-rules lists FLOOD_SERIES, info" "$(grep '^FLOOD_SERIES ' <<<"$rules")" " info "
for id in RESEND_IDENTICAL SERIES_OVERSIZED; do
	contains "--list-rules lists $id, a warning" "$(grep "^$id " <<<"$rules")" " warning "
done
"$PW" check --disable FLOOD,FLOOD_SERIES --disable RESEND_IDENTICAL,SERIES_OVERSIZED \
	"$cases/PERM_SYMBOLIC/module-param.patch" >/dev/null
is "--disable takes the flood rules (the patch's own findings stay)" $? 1
out=$("$PW" check --style perm-macros "$T/bare.diff")
contains "--style perm-macros suggests PERM_ names" "$out" "PERM_rw_r__r__"

# --- JSON -------------------------------------------------------------------
"$PW" check --format json "$T/bare.diff" >"$T/out.json"; is "json: exit 1" $? 1
check "json: findings with file, line, column, rule, fix" python3 - "$T/out.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
f = d["findings"]
assert len(f) == 2, f
s = [x for x in f if x["rule"] == "PERM_SYMBOLIC"][0]
assert s["file"] == "drivers/misc/foo.c" and s["line"] == 6 and s["column"] == 26, s
assert s["severity"] == "warning" and s["fix"] == "module_param(debug, int, 0644);", s
assert d["summary"]["error"] == 1 and d["summary"]["warning"] == 1, d["summary"]
PY
# A "+++" name whose quote does not close: said, and the file still checked.
printf 'diff --git a/x.c b/x.c\n--- a/x.c\n+++ "b/x.c\n@@ -1 +1,2 @@\n int a;\n+module_param(x, int, 0666);\n' >"$T/quote.diff"
out=$("$PW" check "$T/quote.diff"); rc=$?
contains "broken quoted name: said" "$out" "PATCH_MALFORMED: unreadable quoted file name"
contains "broken quoted name: the file still checked" "$out" "x.c:2: ERROR:PERM_WORLD_WRITABLE"
is "broken quoted name: exit 1" "$rc" 1

# A path that is not UTF-8 still gives strict JSON.
printf 'diff --git a/x\xff.c b/x\xff.c\n--- a/x\xff.c\n+++ b/x\xff.c\n@@ -1 +1,2 @@\n int a;\n+module_param(a, int, 0666);\n' >"$T/latin.diff"
"$PW" check --format json "$T/latin.diff" >"$T/latin.json"
is "json: a path that is not UTF-8 comes out valid" \
	"$(/usr/bin/python3 -c 'import json,sys; print(json.load(open(sys.argv[1], encoding="utf-8"))["findings"][0]["file"])' "$T/latin.json")" $'x\xef\xbf\xbd.c'
"$PW" check --format json "$mail" >"$T/mail.json"
check "json: mail subject and Message-ID" python3 - "$T/mail.json" <<'PY'
import json, sys
f = json.load(open(sys.argv[1]))["findings"][0]
assert "foo: add parameters" in f["subject"], f
assert f["message_id"], f
PY

# --- SARIF ------------------------------------------------------------------
"$PW" check --format sarif "$T/bare.diff" >"$T/out.sarif"; is "sarif: exit 1" $? 1
check "sarif: 2.1.0 log with rules, results, regions and fixes" python3 - "$T/out.sarif" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
assert d["version"] == "2.1.0" and "sarif" in d["$schema"]
run = d["runs"][0]
rules = [r["id"] for r in run["tool"]["driver"]["rules"]]
assert "PERM_WORLD_WRITABLE" in rules
res = run["results"]
assert len(res) == 2
for r in res:
    assert rules[r["ruleIndex"]] == r["ruleId"]
    assert r["level"] in ("error", "warning", "note")
    loc = r["locations"][0]["physicalLocation"]
    assert loc["artifactLocation"]["uri"] == "drivers/misc/foo.c"
    assert loc["region"]["startLine"] > 0
sym = [r for r in res if r["ruleId"] == "PERM_SYMBOLIC"][0]
rep = sym["fixes"][0]["artifactChanges"][0]["replacements"][0]
assert rep["insertedContent"]["text"] == "0644"
assert rep["deletedRegion"] == {"startLine": 6, "startColumn": 26, "endColumn": 43}, rep
PY

# --- --fix ------------------------------------------------------------------
"$PW" check --fix "$T/bare.diff" >"$T/fixed.diff" 2>"$T/fix.err"
is "--fix keeps the exit status" $? 1
contains "--fix prints findings on stderr" "$(cat "$T/fix.err")" "PERM_SYMBOLIC"
contains "--fix rewrites the added line" "$(cat "$T/fixed.diff")" "+module_param(debug, int, 0644);"
git -C "$repo" checkout -q HEAD~1 2>/dev/null
check "--fix output still applies" git -C "$repo" apply --check "$T/fixed.diff"
git -C "$repo" apply "$T/fixed.diff"
check "--fixed file has octal" grep -q "module_param(debug, int, 0644);" "$repo/drivers/misc/foo.c"
git -C "$repo" checkout -q -- . && git -C "$repo" checkout -q - 2>/dev/null
out=$("$PW" check "$T/fixed.diff")
is "only the world-writable mode (no clear fix) is left" "$out" \
	"$(grep PERM_WORLD_WRITABLE <<<"$("$PW" check "$T/bare.diff")")"
"$PW" check --fix-output "$T/fixed2.diff" "$T/bare.diff" >/dev/null 2>&1
check "--fix-output writes the file" cmp -s "$T/fixed.diff" "$T/fixed2.diff"
# --fix of a mail (what git format-patch writes) writes the mail whole:
# headers and commit message kept, the diff corrected; git am takes it.
"$PW" check --fix "$mail" >"$T/fixed.eml" 2>"$T/fix.err"
is "--fix mail: keeps the exit status" $? 1
is "--fix mail: only the diff line changed" \
	"$(diff "$mail" "$T/fixed.eml" | grep -c '^[<>]')" 2
contains "--fix mail: the corrected line" "$(cat "$T/fixed.eml")" "+module_param(debug, int, 0644);"
git -C "$repo" checkout -q -b fixmail HEAD~1
check "--fix mail: git am applies it" git -C "$repo" am -q "$T/fixed.eml"
is "--fix mail: the commit message came through" \
	"$(git -C "$repo" log -1 --format=%s)" "foo: add parameters"
check "--fix mail: the fix came through" grep -q "module_param(debug, int, 0644);" \
	"$repo/drivers/misc/foo.c"
git -C "$repo" checkout -q - && git -C "$repo" branch -q -D fixmail
"$PW" check --fix - <"$mail" >"$T/fixed-stdin.eml" 2>/dev/null
check "--fix mail on standard input: the same" cmp -s "$T/fixed.eml" "$T/fixed-stdin.eml"
# An mbox of two: each message's diff corrected in its place.
cat "$mail" "$mail" >"$T/two-same.mbox"
"$PW" check --fix "$T/two-same.mbox" >"$T/two-fixed.mbox" 2>/dev/null
is "--fix mbox: both messages corrected" \
	"$(grep -c '^+module_param(debug, int, 0644);' "$T/two-fixed.mbox")" 2
is "--fix mbox: nothing else changed" \
	"$(diff "$T/two-same.mbox" "$T/two-fixed.mbox" | grep -c '^[<>]')" 4
# A diff is looked for within its own message only: here message 1
# carries two diffs as attachments (so its diff is not there as one
# piece), the second being the diff of message 2; message 2 is corrected
# and message 1 left as it was.
/usr/bin/python3 - "$mail" "$T/split.mbox" <<'PY'
import sys
raw = open(sys.argv[1], "rb").read()
diff = raw[raw.index(b"\ndiff --git ") + 1:raw.index(b"\n-- \n") + 1]
other = (b"diff --git a/x.c b/x.c\n--- a/x.c\n+++ b/x.c\n@@ -1 +1 @@\n"
         b"-int a;\n+int b;\n")
msg1 = (b"From 0000000000000000000000000000000000000000 Mon Sep 17 00:00:00 2001\n"
        b"From: A Developer <dev@example.org>\nSubject: [PATCH] two attachments\n"
        b"Message-ID: <att@example.org>\nMIME-Version: 1.0\n"
        b"Content-Type: multipart/mixed; boundary=\"b\"\n\n--b\n"
        b"Content-Type: text/plain\n\nSee the attachments.\n--b\n"
        b"Content-Type: text/x-patch; name=x.patch\n\n" + other + b"--b\n"
        b"Content-Type: text/x-patch; name=foo.patch\n\n" + diff + b"--b--\n\n")
open(sys.argv[2], "wb").write(msg1 + raw)
PY
"$PW" check --fix "$T/split.mbox" >"$T/split-fixed.mbox" 2>"$T/split.err"
is "--fix mbox: only the inline message's diff corrected" \
	"$(diff "$T/split.mbox" "$T/split-fixed.mbox" | grep -c '^[<>]')" 2
is "--fix mbox: the correction lands in message 2" \
	"$(grep -n '^+module_param(debug, int, 0644);' "$T/split-fixed.mbox" | cut -d: -f1)" \
	"$(($(grep -n '^+module_param(debug, int, S_IRUGO' "$T/split.mbox" | tail -n 1 | cut -d: -f1)))"
contains "--fix mbox: message 1 said to be left as it was" "$(cat "$T/split.err")" "message 1: the diff is not in the mail as sent"

# A body in quoted-printable is not there verbatim: left as it is, said so.
/usr/bin/python3 - "$mail" "$T/qp.eml" <<'PY'
import sys, quopri
raw = open(sys.argv[1], "rb").read()
head, body = raw.split(b"\n\n", 1)
head += (b"\nMIME-Version: 1.0\nContent-Type: text/plain; charset=UTF-8"
         b"\nContent-Transfer-Encoding: quoted-printable")
open(sys.argv[2], "wb").write(head + b"\n\n" + quopri.encodestring(body, quotetabs=True))
PY
"$PW" check --fix "$T/qp.eml" >"$T/qp-fixed.eml" 2>"$T/qp.err"
check "--fix quoted-printable: written unchanged" cmp -s "$T/qp.eml" "$T/qp-fixed.eml"
contains "--fix quoted-printable: says so" "$(cat "$T/qp.err")" "written unchanged"
# --fix-output replaces its file whole, so it may name the input itself.
cp "$mail" "$T/inplace.eml"
"$PW" check --fix-output "$T/inplace.eml" "$T/inplace.eml" >/dev/null 2>&1
check "--fix-output onto the input: corrected in place" cmp -s "$T/fixed.eml" "$T/inplace.eml"
cp "$mail" "$T/private.eml" && chmod 640 "$T/private.eml"
"$PW" check --fix-output "$T/private.eml" "$T/private.eml" >/dev/null 2>&1
is "--fix-output keeps the file's permissions" "$(stat -c %a "$T/private.eml")" 640
cp "$mail" "$T/target.eml" && ln -sf target.eml "$T/link.eml"
"$PW" check --fix-output "$T/link.eml" "$T/link.eml" >/dev/null 2>&1
check "--fix-output through a symbolic link: the link stays" test -L "$T/link.eml"
check "--fix-output through a symbolic link: its file is corrected" cmp -s "$T/fixed.eml" "$T/target.eml"
"$PW" check --fix-output /dev/stdout "$mail" >"$T/devstdout.eml" 2>/dev/null
check "--fix-output /dev/stdout: written into, not replaced" cmp -s "$T/fixed.eml" "$T/devstdout.eml"
"$PW" check --fix "$mail" >/dev/full 2>"$T/err"; rc=$?
is "--fix to a full disk: exit 2" "$rc" 2
contains "--fix to a full disk: says so" "$(cat "$T/err")" "cannot write the corrected copy"
echo "keep me" >"$T/keep.patch"
"$PW" check --fix-output "$T/keep.patch" "$T/no-such-input.patch" >/dev/null 2>"$T/err"; rc=$?
is "--fix-output of an unreadable input: exit 2" "$rc" 2
is "--fix-output of an unreadable input: the file is not touched" "$(cat "$T/keep.patch")" "keep me"
"$PW" check --fix-output "$T/no-such-dir/x.patch" "$mail" >/dev/null 2>"$T/err"; rc=$?
is "--fix-output into a missing directory: exit 2" "$rc" 2
contains "--fix-output into a missing directory: says so" "$(cat "$T/err")" "cannot write"
"$PW" check --fix "$mail" "$T/bare.diff" >/dev/null 2>"$T/err"; rc=$?
is "--fix of two inputs: usage error" "$rc" 2
contains "--fix of two inputs: says why" "$(cat "$T/err")" "one input"

printf 'static DEVICE_ATTR(foo, S_IRUGO, foo_show, NULL);\nint x = S_IRUGO;\n' >"$T/src.c"
"$PW" check --file --fix "$T/src.c" >"$T/src-fixed.c" 2>/dev/null
is "--file --fix writes the corrected source" "$(cat "$T/src-fixed.c")" \
	"$(printf 'static DEVICE_ATTR_RO(foo);\nint x = 0444;')"

# --- --file, standard input, mboxes -----------------------------------------
out=$("$PW" check --file "$repo/drivers/misc/foo.c"); rc=$?
is "--file: findings exit 1" "$rc" 1
is "--file: every line counts" "$(printf '%s\n' "$out" | wc -l)" 2
contains "--file: names the file as given" "$out" "$repo/drivers/misc/foo.c:12:"
out=$("$PW" check - <"$T/bare.diff"); rc=$?
is "stdin diff: exit 1" "$rc" 1
is "stdin diff: same output" "$out" "$("$PW" check "$T/bare.diff")"
out=$("$PW" check - <"$mail"); rc=$?
is "stdin mail: exit 1" "$rc" 1
is "stdin mail: same findings" "$(printf '%s\n' "$out" | wc -l)" 2
out=$(printf 'chmod 777 /srv\n' | "$PW" check --file -); rc=$?
is "stdin --file: exit 0 (no language for stdin)" "$rc" 0
git -C "$repo" format-patch -q --stdout HEAD~1..HEAD >"$T/series.mbox"
cat "$T/series.mbox" "$cases/PERM_SYMBOLIC/baole-ni-mail.eml" >"$T/two.mbox"
out=$("$PW" check "$T/two.mbox"); rc=$?
is "mbox: every patch checked" "$(printf '%s\n' "$out" | wc -l)" 3
out=$("$PW" check "$cases/PERM_SYMBOLIC/clean-mask-test.patch" "$T/bare.diff" 2>&1)
is "several inputs in one run" "$(printf '%s\n' "$out" | wc -l)" 2
printf 'Subject: hello\n\nno patch here\n' >"$T/nopatch.eml"
err=$("$PW" check "$T/nopatch.eml" 2>&1 >/dev/null); rc=$?
is "mail without a patch: exit 0" "$rc" 0
contains "mail without a patch: says so" "$err" "no patch found"

# --- git's sendemail-validate hook --------------------------------------------
# git send-email runs .git/hooks/sendemail-validate with the mail's file
# name; a non-zero exit stops the sending.  This is the hook of patchwarden(1), EXAMPLES.
hook="$repo/.git/hooks/sendemail-validate"
cat >"$hook" <<HOOK
#!/bin/sh
exec "$PW" check "\$1"
HOOK
chmod +x "$hook"
"$hook" "$mail" >"$T/hook.out" 2>&1; is "hook stops a patch with findings" $? 1
contains "hook tells why" "$(cat "$T/hook.out")" "PERM_WORLD_WRITABLE"
sed -i 's/S_IRUGO | S_IWUSR/0644/; s/0666, dir/0444, dir/' "$repo/drivers/misc/foo.c"
git -C "$repo" commit -qam "foo: fix modes"
git -C "$repo" format-patch -q -1 -o "$T/out2" HEAD
"$hook" "$(ls "$T"/out2/*.patch)" >/dev/null 2>&1; is "hook lets a clean patch through" $? 0

# --- inputs built to make a checker work per pair of things -------------------
# Each once cost time that grew with the square of its size (seconds at a
# few MB); tests/bench/hostile.sh measures how the time grows, these check
# that the answers stay right.
/usr/bin/python3 - "$T" <<'PY'
import sys
t = sys.argv[1]
with open(t + "/files.patch", "w") as f:      # a cut-short hunk in every file
    for i in range(3000):
        f.write(f"diff --git a/f{i}.c b/f{i}.c\n--- a/f{i}.c\n+++ b/f{i}.c\n@@ -1,5 +1,5 @@\n+x\n")
with open(t + "/calls.patch", "w") as f:      # calls that never close, then one that does
    f.write("--- a/x.c\n+++ b/x.c\n@@ -0,0 +1,3002 @@\n" + "+DEVICE_ATTR(\n" * 3000 +
            "+static DEVICE_ATTR(y, 0666, y_show, y_store);\n+int z;\n")
with open(t + "/nested.patch", "w") as f:     # a call inside the arguments of another
    f.write("--- a/n.c\n+++ b/n.c\n@@ -0,0 +1,2 @@\n"
            "+x = f(module_param(a, int, 0666), g(h(1, 2), [3, 4]), {5});\n"
            "+debugfs_create_file(\"q\", (0666), d, (void *)(p, q), &fops);\n")
with open(t + "/big.c", "w") as f:            # a fix found before the line it is reported on
    f.write("int x;\n" * 20000)
    for i in range(2000):
        f.write(f"static DEVICE_ATTR(a{i},\n 0644,\n a{i}_show, a{i}_store);\n")
PY
# With no cap (--max-findings 0), every finding; by default, the first
# 1,000 and one that counts the rest.
out=$("$PW" check "$T/files.patch"); rc=$?
is "3,000 cut-short files, capped: exit 1" "$rc" 1
is "3,000 cut-short files, capped: 1,000 and a summary" \
	"$(printf '%s\n' "$out" | grep -c PATCH_MALFORMED),$(printf '%s\n' "$out" | tail -n 1)" \
	"1000,(diff):0: INFO:FINDINGS_CAPPED: 2000 more findings not shown"
out=$("$PW" check --max-findings 0 "$T/files.patch"); rc=$?
is "3,000 cut-short files: exit 1" "$rc" 1
is "3,000 cut-short files: a problem each" "$(printf '%s\n' "$out" | grep -c PATCH_MALFORMED)" 3000
is "3,000 cut-short files: each under its own name" \
	"$(printf '%s\n' "$out" | cut -d: -f1 | sort -u | wc -l)" 3000
is "3,000 cut-short files: the last one's" "$(printf '%s\n' "$out" | tail -n 1 | cut -d: -f1)" f2999.c
out=$("$PW" check "$T/calls.patch")
is "3,000 unclosed calls: only the closed one reported" "$(printf '%s\n' "$out" | wc -l)" 1
contains "3,000 unclosed calls: on its line" "$out" "x.c:3001: ERROR:PERM_WORLD_WRITABLE"
out=$("$PW" check "$T/nested.patch")
contains "a call inside another's arguments is judged" "$out" "n.c:1:"
contains "a mode in brackets of its own is judged" "$out" "n.c:2:"
is "nested calls: two findings" "$(printf '%s\n' "$out" | wc -l)" 2
out=$("$PW" check --max-findings 0 --file "$T/big.c")
is "2,000 attributes over three lines: a finding each" \
	"$(printf '%s\n' "$out" | grep -c DEVICE_ATTR_FORM)" 2000
contains "2,000 attributes: the last on its line" "$(printf '%s\n' "$out" | tail -n 1)" \
	"big.c:25999: WARNING:DEVICE_ATTR_FORM"

# --fix on every mail and patch of the corpus: a copy is always written,
# and where nothing has a fix it is the input byte for byte.
# One Python at the end reads every report, not one per file.  The
# copies go to $F (tests/lib_fast.sh): --fix-output syncs each, twice.
mkdir -p "$F/corpus-fix"
total=0
while IFS= read -r -d '' f; do
	total=$((total + 1))
	# With --fix the report goes to stderr, after any message about
	# the input.
	"$PW" check --fix-output "$F/corpus-fix/$total.out" --format json "$f" \
		>/dev/null 2>"$F/corpus-fix/$total.json"
	printf '%s\t%s\n' "$total" "$f" >>"$F/corpus-fix/index"
done < <(find "$CORPUS" \( -name '*.mbox' -o -name '*.eml' -o -name '*.patch' \) -type f -print0)
read -r written changed < <(/usr/bin/python3 - "$F/corpus-fix" <<'PY'
import json, os, sys
d = sys.argv[1]
written = changed = 0
for line in open(d + "/index", encoding="utf-8", errors="surrogateescape"):
    n, f = line.rstrip("\n").split("\t", 1)
    out = "%s/%s.out" % (d, n)
    written += os.path.exists(out)
    try:
        t = open("%s/%s.json" % (d, n), encoding="utf-8", errors="replace").read()
        rep = json.loads(t[0 if t.startswith("{") else t.index("\n{") + 1:])
        fixes = sum(1 for x in rep["findings"] if x.get("fix"))
    except (ValueError, KeyError):
        changed += 1
        print("# no report read: " + f, file=sys.stderr)
        continue
    if fixes == 0 and (not os.path.exists(out) or
                       open(out, "rb").read() != open(f, "rb").read()):
        changed += 1
        print("# changed without a fix: " + f, file=sys.stderr)
print(written, changed)
PY
)
check "--fix over the corpus: files found ($total)" test "$total" -ge 300
is "--fix over the corpus: a copy written for each" "$written" "$total"
is "--fix over the corpus: none changed without a fix" "$changed" 0
