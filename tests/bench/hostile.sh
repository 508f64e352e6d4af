#!/usr/bin/env bash
# Inputs built to make a checker work per pair of things (not CI): each
# at N and at 4N, the time of both and their ratio, the growth of the
# work.  Work that grows linearly gives about 4; work per pair of things
# gives about 16.  "make bench" runs it (tests/bench/run.sh).
#
#   tests/bench/hostile.sh [N [KIND...]]   (default 50,000, every kind)
#
# files:   a patch of N files, each hunk cut short (a problem per file,
#          each reported under its file's name);
# calls:   a hunk of N added lines "DEVICE_ATTR(" that never close;
# attrs:   check --file on a source file of N three-line DEVICE_ATTRs
#          (each finding's fix lies on an earlier line than the finding);
# macro:   a hunk adding one #define continued with backslashes over N
#          lines, a DEVICE_ATTR on each (each asks which macro it is in);
# defines: a hunk adding N/500 lines, each of 6,500 "#define a(" that
#          never close (each '#' once looked for a macro to its line's
#          end: 100 such lines took 9 s);
# subject: 40 mails whose Subject leads with N/8 ':' then N/8 '(' (git
#          mailinfo's cleanup and the "(v2)" search); at most 16,000 and
#          64,000 bytes, as bot/mail.c keeps 64 KiB of a header.
# Findings beyond check's cap (1000 by default) are dropped as they are
# made; where check has --max-findings, the bench passes 0 (no cap), so
# that each input makes all of its findings.
set -eu
top=$(cd "$(dirname "$0")/../.." && pwd)
PW=${PW:-$top/patchwarden}
n=${1:-50000}
[ $# -gt 0 ] && shift
kinds=${*:-files calls attrs macro defines subject}
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
gen() {	# KIND COUNT FILE
	/usr/bin/python3 - "$@" <<'PY'
import sys
kind, n, path = sys.argv[1], int(sys.argv[2]), sys.argv[3]
with open(path, "w") as f:
    if kind == "files":
        for i in range(n):
            f.write(f"diff --git a/f{i}.c b/f{i}.c\n--- a/f{i}.c\n+++ b/f{i}.c\n@@ -1,5 +1,5 @@\n+x\n")
    elif kind == "calls":
        f.write(f"--- a/x.c\n+++ b/x.c\n@@ -0,0 +1,{n} @@\n" + "+DEVICE_ATTR(\n" * n)
    elif kind == "macro":
        f.write(f"--- a/x.c\n+++ b/x.c\n@@ -0,0 +1,{n + 1} @@\n+#define M(x) \\\n")
        for i in range(n):
            f.write(f"+DEVICE_ATTR(a{i}, 0644, a{i}_show, a{i}_store); \\\n")
    elif kind == "defines":
        k = max(1, n // 500)
        f.write(f"--- a/x.c\n+++ b/x.c\n@@ -0,0 +1,{k} @@\n" + ("+" + "#define a(" * 6500 + "\n") * k)
    elif kind == "subject":
        subj = ":" * (n // 2) + "(" * (n // 2) + ")"
        for i in range(40):
            f.write(f"From x@y Thu Jan  1 00:00:00 2026\nFrom: A <a@example.org>\n"
                    f"Message-ID: <{i}@example.org>\nSubject: {subj} [PATCH] x\n\n"
                    "x\n---\ndiff --git a/a.c b/a.c\n--- a/a.c\n+++ b/a.c\n"
                    "@@ -1 +1 @@\n-int x;\n+int y;\n\n")
    else:
        f.write("int x;\n" * n)
        for i in range(n):
            f.write(f"static DEVICE_ATTR(a{i},\n 0644,\n a{i}_show, a{i}_store);\n")
PY
}
secs() {	# ARGS...: seconds one check takes
	local t0 t1
	t0=$(date +%s.%N)
	"$PW" check "$@" >/dev/null 2>&1 || true
	t1=$(date +%s.%N)
	echo "$t0 $t1" | awk '{ printf "%.3f", $2 - $1 }'
}
# Where check takes --max-findings, no cap: every finding is made.
all=()
"$PW" check --help 2>&1 | grep -q -- --max-findings && all=(--max-findings 0)
printf '%-8s %12s %12s %8s\n' input "N s" "4N s" ratio
for kind in $kinds; do
	ext=patch size=$n
	[ "$kind" = attrs ] && ext=c
	if [ "$kind" = subject ]; then
		ext=mbox size=$((n / 4 > 16000 ? 16000 : n / 4))
	fi
	gen "$kind" "$size" "$T/a.$ext"
	gen "$kind" "$((4 * size))" "$T/b.$ext"
	flag=("${all[@]}")
	[ "$kind" = attrs ] && flag+=(--file)
	a=$(secs "${flag[@]}" "$T/a.$ext")
	b=$(secs "${flag[@]}" "$T/b.$ext")
	printf '%-8s %12s %12s %8s\n' "$kind" "$a" "$b" \
		"$(echo "$a $b" | awk '{ printf "%.1f", ($1 > 0 ? $2 / $1 : 0) }')"
done
echo "(about 4: linear; about 16: quadratic)"
