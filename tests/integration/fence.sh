#!/usr/bin/env bash
# The fence between the folders: `make check-includes` (which `make all`
# runs first) refuses a checks/ file that includes a library other than
# libc, GLib and Nettle, or a db/ or bot/ header, and a db/ file that
# includes bot/ or a network library; the tree as it is passes.
. "$(dirname "$0")/../lib.sh"

# fence DESC WANT [PATH:LINE...]: copies checks/ and db/, adds each
# file PATH holding LINE, runs the fence over the copy; WANT is 0 or 2.
fence() {
	local what=$1 want=$2 f; shift 2
	rm -rf "$T/tree"
	mkdir -p "$T/tree"
	cp -r "$TOP/checks" "$TOP/db" "$T/tree/"
	for f in "$@"; do
		printf '%s\n' "${f#*:}" >"$T/tree/${f%%:*}"
	done
	make -s -C "$TOP" check-includes FENCE_DIR="$T/tree" >"$T/out" 2>&1
	is "$what" "$?" "$want"
}

fence "the tree as it is passes" 0
fence "checks/ including sqlite3.h fails" 2 'checks/zz.c:#include <sqlite3.h>'
fence "checks/ including a db/ header fails" 2 'checks/zz.c:#include "db/db.h"'
fence "checks/ including a bot/ header fails" 2 'checks/zz.h:#include "bot/mail.h"'
fence "checks/ including GMime, spaced, fails" 2 'checks/zz.c:  #  include <gmime/gmime.h>'
fence "db/ including a bot/ header fails" 2 'db/zz.c:#include "bot/config.h"'
fence "db/ including libcurl fails" 2 'db/zz.h:#include <curl/curl.h>'
fence "db/ including checks/ and SQLite passes" 0 \
	'db/zz.c:#include "checks/patch.h"' 'db/zz.h:#include <sqlite3.h>'
fence "checks/ including libcurl fails" 2 'checks/zz.c:#include <curl/curl.h>'
contains "the message names the file and line" "$(cat "$T/out")" \
	"zz.c:1:#include <curl/curl.h>"

# No two files of checks/, db/ or bot/ call each other in a circle, even
# through others: from the symbols each object file defines and uses
# (nm), the strongly connected components of the call graph are single
# files.  A circle means two files that cannot be understood apart.
build=${UNIT_DIR%/tests/unit}
PY=python3; [ -x /usr/bin/python3 ] && PY=/usr/bin/python3
cycles=$($PY - "$build" <<'PY'
import glob, os, subprocess, sys
top = sys.argv[1]
objs = sorted(o for d in ("checks", "db", "bot")
              for o in glob.glob(os.path.join(top, d, "*.o"))
              if os.path.exists(os.path.join(d, os.path.basename(o)[:-2] + ".c")))
defs, uses = {}, {}
for o in objs:
    d, u = set(), set()
    for line in subprocess.run(["nm", o], capture_output=True, text=True).stdout.splitlines():
        f = line.split()
        if len(f) == 2 and f[0] == "U":
            u.add(f[1])
        elif len(f) == 3 and f[1] in "TDBR":
            d.add(f[2])
    defs[o], uses[o] = d, u
owner = {s: o for o in objs for s in defs[o]}
graph = {o: {owner[s] for s in uses[o] if owner.get(s, o) != o} for o in objs}
index, low, stack, on, n = {}, {}, [], set(), [0]
def visit(v):
    index[v] = low[v] = n[0]; n[0] += 1
    stack.append(v); on.add(v)
    for w in graph[v]:
        if w not in index:
            visit(w); low[v] = min(low[v], low[w])
        elif w in on:
            low[v] = min(low[v], index[w])
    if low[v] == index[v]:
        c = []
        while True:
            w = stack.pop(); on.discard(w); c.append(w)
            if w == v:
                break
        if len(c) > 1:
            print(" ".join(sorted(os.path.relpath(x, top) for x in c)))
sys.setrecursionlimit(10000)
for v in objs:
    if v not in index:
        visit(v)
print("objects=%d" % len(objs), file=sys.stderr)
PY
)
nobj=$($PY -c 'import glob,sys; print(len(glob.glob(sys.argv[1]+"/checks/*.o")))' "$build")
check "the object files are there to read ($build)" test "$nobj" -gt 10
is "no files call each other in a circle" "$cycles" ""
