#!/usr/bin/env bash
# Inputs built to make a checker work per pair of things (not CI): each
# at N and at 4N, the time of both and their ratio.  Work that grows
# linearly gives about 4; work per pair of things gives about 16.
#
#   tests/bench/hostile.sh [N]   (default 50,000)
#
# files:  a patch of N files, each hunk cut short (a problem per file,
#         each reported under its file's name);
# calls:  a hunk of N added lines "DEVICE_ATTR(" that never close;
# attrs:  check --file on a source file of N three-line DEVICE_ATTRs
#         (each finding's fix lies on an earlier line than the finding).
set -eu
top=$(cd "$(dirname "$0")/../.." && pwd)
PW=${PW:-$top/patchwarden}
n=${1:-50000}
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
printf '%-6s %12s %12s %8s\n' input "N=$n s" "N=$((4 * n)) s" ratio
for kind in files calls attrs; do
	ext=patch
	[ "$kind" = attrs ] && ext=c
	gen "$kind" "$n" "$T/a.$ext"
	gen "$kind" "$((4 * n))" "$T/b.$ext"
	flag=()
	[ "$kind" = attrs ] && flag=(--file)
	a=$(secs "${flag[@]}" "$T/a.$ext")
	b=$(secs "${flag[@]}" "$T/b.$ext")
	printf '%-6s %12s %12s %8s\n' "$kind" "$a" "$b" \
		"$(echo "$a $b" | awk '{ printf "%.1f", ($1 > 0 ? $2 / $1 : 0) }')"
done
echo "(about 4: linear; about 16: quadratic)"
