#!/usr/bin/env bash
# Composing a reply to a dense patch (not CI): "patchwarden run" (ingest
# with replies, then the dry-run send) on one patch of N added lines,
# each with one finding, and on one of 4N, the time of both and their
# ratio.  The reply quotes the line of each finding it lists, read from
# the stored finding: work that grows linearly gives about 4; a search
# of the patch per finding gives about 16.
#
#   tests/bench/reply.sh [N] [RUNS]   (default 40,000; 3 runs, the median kept)
set -eu
top=$(cd "$(dirname "$0")/../.." && pwd)
PW=${PW:-$top/patchwarden}
n=${1:-40000}
runs=${2:-3}
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
gen() {	# COUNT FILE: one mbox message carrying a patch of COUNT added lines
	/usr/bin/python3 - "$@" <<'PY'
import sys
n, path = int(sys.argv[1]), sys.argv[2]
with open(path, "w") as f:
    f.write("From dense@example.org Mon Nov  2 10:00:00 2026\n"
            "From: Dee Dense <dense@example.org>\n"
            "To: linux-foo@vger.example.org\n"
            "Subject: [PATCH] foo: make every knob writable\n"
            f"Message-ID: <dense-{n}@example.org>\n"
            "Date: Mon, 2 Nov 2026 10:00:00 +0000\n"
            "List-Id: <linux-foo.vger.example.org>\n"
            "\n"
            "Every knob, world-writable.\n"
            "\n"
            "Signed-off-by: Dee Dense <dense@example.org>\n"
            "---\n"
            "diff --git a/drivers/foo/knobs.c b/drivers/foo/knobs.c\n"
            "new file mode 100644\n"
            "--- /dev/null\n"
            "+++ b/drivers/foo/knobs.c\n"
            f"@@ -0,0 +1,{n} @@\n")
    for i in range(n):
        f.write(f"+\tchmod(\"/sys/foo/k{i}\", 0666);\n")
    f.write("-- \n2.39.2\n\n")
PY
}
secs() {	# MBOX: seconds one run takes, on a new database
	local t0 t1 d
	d=$(mktemp -d "$T/run.XXXXXX")
	printf '[reply]\nmax_age = 0\n' >"$d/pw.conf"
	t0=$(date +%s.%N)
	"$PW" run --config "$d/pw.conf" --db "$d/pw.db" "$1" >/dev/null 2>"$d/err" ||
		{ cat "$d/err" >&2; exit 1; }
	t1=$(date +%s.%N)
	grep -q '^From ' "$d/outbox.mbox" || { echo "no reply written" >&2; exit 1; }
	rm -rf "$d"
	echo "$t0 $t1" | awk '{ printf "%.3f", $2 - $1 }'
}
median() { tr ' ' '\n' | sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
gen "$n" "$T/a.mbox"
gen "$((4 * n))" "$T/b.mbox"
ta=() tb=()
for _ in $(seq "$runs"); do
	ta+=("$(secs "$T/a.mbox")")
	tb+=("$(secs "$T/b.mbox")")
done
a=$(echo "${ta[*]}" | median)
b=$(echo "${tb[*]}" | median)
printf '%-8s %12s %12s %8s\n' input "N=$n s" "N=$((4 * n)) s" ratio
printf '%-8s %12s %12s %8s\n' reply "$a" "$b" \
	"$(echo "$a $b" | awk '{ printf "%.1f", ($1 > 0 ? $2 / $1 : 0) }')"
echo "(about 4: linear; about 16: quadratic)"
