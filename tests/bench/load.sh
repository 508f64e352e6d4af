#!/usr/bin/env bash
# Ingest under dashboard load: patchwarden ingest of N real list messages
# (default 100,000: copies of tests/corpus/lore-linux-mips, as
# tests/bench/ingest.sh makes them) into a new store, first quiet, then
# again into another new store while 16 dashboard clients read it
# through "patchwarden serve": threads of one process, paced like people
# (each one request every 0.5 to 1 s, over the pages and the JSON API).
# Prints both rates and their ratio, the clients' requests and errors
# (answers other than 200), and whether each store holds every message
# of the input once (the input repeats a few Message-IDs of the corpus:
# those are counted as duplicates, stored once).  Exits 1 when a count
# is wrong or a request failed.
#
#   [CLIENTS=16] tests/bench/load.sh [MESSAGES]   (a multiple of 2,000;
#   CLIENTS=0: the same runs without clients, for comparison)
set -eu
top=$(cd "$(dirname "$0")/../.." && pwd)
PW=${PW:-$top/patchwarden}
cache=${PW_BENCH_CACHE:-/var/tmp/patchwarden-bench}/load
n=${1:-100000}
copies=$((n / 2000))
clients=${CLIENTS:-16}
corpus=$top/tests/corpus/lore-linux-mips/first-2000.mbox.xz
mkdir -p "$cache"
mbox=$cache/load-$n.mbox
if [ ! -s "$mbox" ]; then
	echo "load: writing $n messages to $mbox"
	/usr/bin/python3 "$top/tests/bench/gen_ingest.py" "$corpus" "$mbox.tmp" "$copies" >/dev/null
	mv "$mbox.tmp" "$mbox"
fi
input=$(grep -c '^From ' "$mbox")
echo "load: $input messages, $(( $(stat -c %s "$mbox") / 1048576 )) MiB"

serve=
loops=()
cleanup() {
	local p
	for p in "${loops[@]}"; do kill "$p" 2>/dev/null || true; done
	[ -n "$serve" ] && kill "$serve" 2>/dev/null || true
	wait 2>/dev/null || true
	rm -f "$cache"/quiet.db* "$cache"/busy.db*
}
trap cleanup EXIT

# stored DB: the messages the store holds.
stored() { "$PW" db stats --db "$1" | head -n 1 | tr ' ' '\n' | sed -n 's/^messages=//p'; }

# ingest_timed DB OUT: ingests the mbox into DB, its counts to OUT;
# prints the seconds taken.
# Its CPU seconds (user + system) go to OUT.cpu.
ingest_timed() {
	local start
	start=$(date +%s.%N)
	/usr/bin/time -f '%U %S' -o "$2.cpu" "$PW" ingest -q --db "$1" "$mbox" >"$2" 2>"$cache/ingest.err" || {
		echo "load: ingest failed:" >&2; tail -n 5 "$cache/ingest.err" >&2; exit 1; }
	echo "$(date +%s.%N) - $start" | bc
}
cpu() { awk '{printf "%.1f", $1 + $2}' "$1.cpu"; }
# expected OUT: what a store must hold after the ingest that wrote OUT
# (every message read, less those it reported as duplicates), or "bad"
# when it did not read every message of the input.
expected() {
	local m d
	m=$(tr ' ' '\n' <"$1" | sed -n 's/^messages=//p')
	d=$(tr ' ' '\n' <"$1" | sed -n 's/^duplicates=//p')
	if [ "$m" = "$input" ]; then echo $((m - d)); else echo "bad ($m read)"; fi
}

# ---- quiet ----
rm -f "$cache"/quiet.db*
sync
quiet_s=$(ingest_timed "$cache/quiet.db" "$cache/quiet.out")
quiet_n=$(stored "$cache/quiet.db")
quiet_want=$(expected "$cache/quiet.out")
rm -f "$cache"/quiet.db*

# ---- under load ----
# The store exists before the server opens it, with one message of the
# input's list (whose filters and pages are asked from the start).
list=$(grep -m1 -i '^List-Id:' "$mbox" | sed 's/^[^<]*<//; s/>.*//')
rm -f "$cache"/busy.db*
printf 'From x\nFrom: a@example.org\nSubject: first\nList-Id: <%s>\nMessage-Id: <load.first@example.org>\n\nhello\n' "$list" >"$cache/first.mbox"
"$PW" ingest -q --db "$cache/busy.db" "$cache/first.mbox" >/dev/null
port=$(/usr/bin/python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
"$PW" serve --db "$cache/busy.db" --listen "127.0.0.1:$port" 2>"$cache/serve.err" &
serve=$!
url=http://127.0.0.1:$port
for _ in $(seq 100); do curl -s -o /dev/null "$url/api/stats?limit=1" && break; sleep 0.1; done

# Pages and API answers, with filters; a message of the input by its
# Message-ID (there once the ingest reaches it: 404 before).
msgid=$(grep -m1 -i '^Message-Id:' "$mbox" | sed 's/^[^<]*<//; s/>.*//')
enc() { /usr/bin/python3 -c 'import sys, urllib.parse; print(urllib.parse.quote(sys.argv[1], safe=""))' "$1"; }
paths=(
	/ /series /patches /findings /floods /senders /stats /outbox
	"/series?list=$(enc "$list")" "/findings?severity=warning" "/patches?since=2019-01-01"
	"/list/$(enc "$list")" "/list/$(enc "$list")/atom"
	/api/series "/api/patches?limit=50" "/api/findings?rule=perm_symbolic"
	/api/floods /api/senders "/api/stats?per=week" "/api/series?list=$(enc "$list")&since=2016-01-01"
)
# The clients: one process of CLIENTS threads (tests/bench/load_clients.py),
# each a request every 0.5 to 1 s until killed, a line "STATUS SECONDS
# PATH" each to client-I.log.  Not a shell loop starting a curl per
# request: that costs ~45 ms of CPU a request, 0.7 of a core for 16
# clients, taken from the ingest it measures (the server's own cost is
# ~8 ms a request); real readers are browsers on other machines.
rm -f "$cache"/client-*.log
if [ "$clients" -gt 0 ]; then
	/usr/bin/python3 "$top/tests/bench/load_clients.py" "$url" "$clients" "$cache" "${paths[@]}" &
	loops+=($!)
fi
sleep 2
busy_s=$(ingest_timed "$cache/busy.db" "$cache/busy.out")
busy_want=$(expected "$cache/busy.out")
for p in "${loops[@]}"; do kill "$p" 2>/dev/null || true; done
[ ${#loops[@]} -eq 0 ] || wait "${loops[@]}" 2>/dev/null || true
loops=()
# The message of the first store, and the input.
busy_n=$(( $(stored "$cache/busy.db") - 1 ))
# A message of the input, asked after the ingest: there now.
after=$(curl -s -o /dev/null -w '%{http_code}' "$url/message/$(enc "$msgid")")
serve_cpu=$(ps -o cputimes= -p "$serve" | tr -d ' ')
kill "$serve"; wait "$serve" || true; serve=

cat "$cache"/client-*.log >"$cache/requests" 2>/dev/null || true
reqs=$(wc -l <"$cache/requests")
errors=$(awk '$1 != 200' "$cache/requests" | wc -l)
p50=$(awk '{print $2}' "$cache/requests" | sort -n | awk '{a[NR]=$1} END {print a[int(NR*0.5)+1] * 1000}')
p99=$(awk '{print $2}' "$cache/requests" | sort -n | awk '{a[NR]=$1} END {i=int(NR*0.99)+1; if (i>NR) i=NR; print a[i] * 1000}')
rate() { echo "scale=0; $input / $1" | bc; }
printf '  %-44s %8.2f s %8s msg/s  (CPU %s s)  stored %s, want %s\n' "ingest, quiet" \
	"$quiet_s" "$(rate "$quiet_s")" "$(cpu "$cache/quiet.out")" "$quiet_n" "$quiet_want"
printf '  %-44s %8.2f s %8s msg/s  (CPU %s s)  stored %s, want %s\n' "ingest, $clients dashboard clients reading" \
	"$busy_s" "$(rate "$busy_s")" "$(cpu "$cache/busy.out")" "$busy_n" "$busy_want"
printf '  ratio: under load ingest runs at %.2f of its quiet rate\n' "$(echo "scale=4; $quiet_s / $busy_s" | bc)"
printf '  dashboard: %s requests, %s errors (not 200), p50 %.0f ms, p99 %.0f ms, serve CPU %s s; a message after the ingest: %s\n' \
	"$reqs" "$errors" "$p50" "$p99" "$serve_cpu" "$after"
if [ "$errors" -gt 0 ]; then
	echo "  errors by status and path:"
	awk '$1 != 200 {print "    " $1, $3}' "$cache/requests" | sort | uniq -c | sort -rn | head -n 10
fi
rc=0
[ "$quiet_n" = "$quiet_want" ] && [ "$busy_n" = "$busy_want" ] || { echo "load: a store does not hold every message once"; rc=1; }
[ "$errors" = 0 ] && [ "$after" = 200 ] || { echo "load: dashboard requests failed"; rc=1; }
exit "$rc"
