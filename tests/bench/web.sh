#!/usr/bin/env bash
# The dashboard under load: patchwarden serve on a store of N real list
# messages (default 20,000: 10 copies of tests/corpus/lore-linux-mips,
# as tests/bench/ingest.sh), 16 concurrent clients with keep-alive
# connections (tests/bench/web_client.py), every page and API endpoint
# asked 200 times; p50, p99 and max per endpoint.  The target is a p99
# under 50 ms.  With WHILE_INGEST=1 (the default for 1,000,000), another
# ingest writes new messages to the store the whole time.
#
# First, the first uncached answer of the overview, senders and stats
# pages (a server just started, nothing kept): the target is under
# 200 ms on 1,200,000 messages, which the totals per list and day
# (db/totals.c) make possible; with PW_BEFORE=BINARY (one built before
# the totals, reading the store's schema) its times are printed too.
#
#   tests/bench/web.sh [MESSAGES]      (a multiple of 2,000)
set -eu
top=$(cd "$(dirname "$0")/../.." && pwd)
PW=${PW:-$top/patchwarden}
cache=${PW_BENCH_CACHE:-/var/tmp/patchwarden-bench}/web
n=${1:-20000}
copies=$((n / 2000))
while_ingest=${WHILE_INGEST:-$([ "$n" -ge 1000000 ] && echo 1 || echo 0)}
requests=${REQUESTS:-200}
corpus=$top/tests/corpus/lore-linux-mips/first-2000.mbox.xz
mkdir -p "$cache"
db=$cache/web-$n.db

# The store, built once (and again when it is no store: an older
# schema is migrated forward below, after PW_BEFORE has read it).
if [ -s "$db" ] && ! sqlite3 -readonly "$db" "SELECT count(*) FROM message" >/dev/null 2>&1; then
	rm -f "$db" "$db"-*
fi
if [ ! -s "$db" ]; then
	echo "web: building a store of $n messages in $db"
	start=$(date +%s)
	/usr/bin/python3 "$top/tests/bench/gen_ingest.py" "$corpus" /dev/stdout "$copies" |
		"$PW" ingest -q --db "$db.tmp" - >/dev/null
	for f in "$db.tmp"*; do mv "$f" "${f/.tmp/}"; done
	echo "  built in $(( $(date +%s) - start )) s"
fi
# first_uncached LABEL BINARY: a new server's first answer to each page.
first_uncached() {
	local label=$1 bin=$2 p port pid t line=""
	port=$(/usr/bin/python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
	"$bin" serve --db "$db" --listen "127.0.0.1:$port" 2>/dev/null &
	pid=$!
	for i in $(seq 100); do curl -s -o /dev/null "http://127.0.0.1:$port/healthz" && break; sleep 0.1; done
	for p in / /senders /stats; do
		t=$(curl -s -o /dev/null -w '%{time_total}' "http://127.0.0.1:$port$p")
		line="$line $p $(printf '%.0f' "$(echo "$t * 1000" | bc)") ms"
	done
	kill "$pid"; wait "$pid" 2>/dev/null || true
	echo "web: first uncached ($label):$line"
}
if [ -n "${PW_BEFORE:-}" ]; then
	first_uncached "before: $PW_BEFORE" "$PW_BEFORE"
fi
# A store built by an older version is migrated once, read-write.
"$PW" ingest -q --db "$db" /dev/null >/dev/null 2>&1 || true
echo "web: $("$PW" db stats --db "$db" | head -n 1)"

first_uncached "totals per list and day" "$PW"

port=$(/usr/bin/python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
"$PW" serve --db "$db" --listen "127.0.0.1:$port" 2>"$cache/serve.err" &
serve=$!
writer=
cleanup() {
	kill "$serve" 2>/dev/null || true
	[ -n "$writer" ] && kill "$writer" 2>/dev/null || true
	wait 2>/dev/null || true
}
trap cleanup EXIT
for i in $(seq 100); do curl -s -o /dev/null "http://127.0.0.1:$port/api/stats?limit=1" && break; sleep 0.1; done

# Real values for the filters: the busiest list, a series with patches,
# a patch, a sender.
q() { sqlite3 -readonly -batch -noheader "$db" "$1"; }
list=$(q "SELECT l.name FROM list l JOIN message_list ml ON ml.list = l.id GROUP BY l.id ORDER BY count(*) DESC LIMIT 1")
series=$(q "SELECT series FROM patch WHERE series IS NOT NULL GROUP BY series HAVING count(*) BETWEEN 3 AND 10 ORDER BY series DESC LIMIT 1")
msgid=$(q "SELECT m.msgid FROM message m JOIN patch p ON p.message = m.id ORDER BY m.id DESC LIMIT 1")
sender=$(q "SELECT from_addr FROM series GROUP BY from_addr ORDER BY count(*) DESC LIMIT 1")
enc() { /usr/bin/python3 -c 'import sys, urllib.parse; print(urllib.parse.quote(sys.argv[1], safe=""))' "$1"; }
paths=(
	/ /series "/series?list=$(enc "$list")" "/series/$series" /patches
	"/patches?from=$(enc "$sender")" /findings "/findings?rule=perm_symbolic"
	/floods /senders /stats /outbox "/list/$(enc "$list")"
	"/list/$(enc "$list")/atom" "/message/$(enc "$msgid")"
	"/api/series?list=$(enc "$list")&since=2016-01-01" "/api/findings?severity=warning"
	"/api/floods" "/api/patches?from=$(enc "$sender")&limit=100" /api/senders
	"/api/stats?per=week"
)
if [ "$while_ingest" = 1 ]; then
	# New copies (their Message-IDs carry the copy's number): numbered
	# past any a run before wrote.
	first=$(( copies + $(date +%s) % 100000 ))
	/usr/bin/python3 "$top/tests/bench/gen_ingest.py" "$corpus" /dev/stdout 50 "$first" |
		"$PW" ingest -q --db "$db" - >/dev/null 2>"$cache/writer.err" &
	writer=$!
	echo "web: ingest writing 100,000 new messages to the store meanwhile"
	sleep 2
fi
echo "web: 16 clients, each endpoint asked $requests times${writer:+, and on for a minute while ingest writes}"
rc=0
# With a writer: a minute of load while it writes.
MIN_SECONDS=${MIN_SECONDS:-$([ -n "$writer" ] && echo 60 || echo 0)} \
/usr/bin/python3 "$top/tests/bench/web_client.py" "http://127.0.0.1:$port" 16 "$requests" "${paths[@]}" | tee "$cache/result"
rc=${PIPESTATUS[0]}
if [ -n "$writer" ]; then
	if kill -0 "$writer" 2>/dev/null; then
		echo "  (ingest was still writing at the end)"
	else
		echo "  (ingest finished before the clients did)"
	fi
fi
worst=$(sed -n 's/^worst p99 \([0-9.]*\) ms$/\1/p' "$cache/result")
echo "web: worst p99 $worst ms; target < 50 ms; answers kept while the store is unchanged, and given while a newer one is made once it changed"
exit $rc
