#!/usr/bin/env bash
# Subscription throughput: the first poll of a 20,000-message public-inbox
# v2 inbox served by public-inbox-httpd on loopback (fetch, walk, parse,
# check, store), against patchwarden ingest of the same messages as one
# mbox; and a poll that finds nothing new.  Prints rates, peak RSS and
# the ratio; each time is the median of three runs, each into a new
# store (and a new mirror).  Targets (issue 14): >= 10,000 messages a
# second end to end, RSS < 64 MiB; a poll with nothing new: one fetch
# and milliseconds.
#
#   tests/bench/poll.sh [COUNT]   (default 20000)
#
# The inbox is made once with Debian's public-inbox library
# (tests/pi_deliver.pl) and kept in $PW_BENCH_CACHE/poll.
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
export PW=${PW:-$top/patchwarden} TOP=$top
count=${1:-20000}
cache=${PW_BENCH_CACHE:-/var/tmp/patchwarden-bench}/poll
mkdir -p "$cache"
. "$top/tests/lib.sh"
. "$top/tests/lib_pi.sh"
# The inbox lives in the cache, not in the scratch directory.
PI_DIR=$cache/pi PI_HOME=$cache/pi/home PI_CONFIG=$cache/pi/config
export PI_CONFIG
mkdir -p "$PI_HOME"

if [ ! -s "$cache/inbox-$count.done" ]; then
	rm -rf "$cache/pi" "$cache/msgs"; mkdir -p "$PI_HOME"
	echo "poll: making a $count-message inbox with public-inbox (once; some minutes)"
	copies=$(( count / 1900 + 1 ))
	$PY "$top/tests/bench/gen_ingest.py" "$CORPUS/lore-linux-mips/first-2000.mbox.xz" \
		"$cache/gen.mbox" "$copies" >/dev/null
	split_mbox "$cache/gen.mbox" "$cache/msgs" --unique --limit "$count" \
		--ids "$cache/ids" --mbox "$cache/poll-$count.mbox" >/dev/null
	rm -f "$cache/gen.mbox"
	pi_init bench || exit 1
	added=$(pi_deliver_fast bench "$cache/msgs")
	[ "$added" = "$(wc -l <"$cache/ids")" ] || { echo "poll: only $added messages went in"; exit 1; }
	rm -rf "$cache/msgs"
	echo "$added" >"$cache/inbox-$count.done"
fi
n=$(cat "$cache/inbox-$count.done")
mbox=$cache/poll-$count.mbox
echo "poll: $n messages, epoch 0 $(du -sm "$PI_DIR/bench/git/0.git" | cut -f1) MiB, mbox $(( $(stat -c %s "$mbox") / 1048576 )) MiB"
pi_serve || exit 1
url=$PI_URL/bench/

measure() {	# command...: prints seconds and peak RSS (KiB)
	/usr/bin/time -f '%e %M' -o "$T/time" "$@" >"$T/out" 2>"$T/err" || {
		echo "  $* failed:"; tail -n 5 "$T/err" | sed 's/^/    /'; return 1; }
	cat "$T/time"
}
median() { sort -n "$1" | sed -n "$(( ($(wc -l <"$1") + 1) / 2 ))p" | cut -d' ' -f1; }
maxrss() { sort -k2,2n "$1" | tail -n 1 | cut -d' ' -f2; }
runs=3
: >"$T/poll.times"; : >"$T/path.times"; : >"$T/ingest.times"; : >"$T/nothing.ms"
: >"$T/nothing-path.ms"; : >"$T/git-fetch.ms"; : >"$T/clone.times"; : >"$T/fetch.s"
# wall_ms FILE CMD...: appends CMD's wall time in ms to FILE.
wall_ms() {
	local f=$1 t0; shift
	t0=$(date +%s%N)
	"$@" >/dev/null 2>&1
	echo $(( ($(date +%s%N) - t0) / 1000000 )) >>"$f"
}
# The reference for "one fetch": git fetch of a mirror with nothing new.
git clone -q --mirror "${url}git/0.git" "$T/mirror.git" || exit 1
for r in $(seq "$runs"); do
	d=$T/run$r; mkdir -p "$d/http" "$d/path" "$d/ingest"
	sync
	$PW subscribe add --db "$d/http/pw.db" bench "$url" >/dev/null || exit 1
	read -r s rss < <(measure "$PW" -v poll --db "$d/http/pw.db") || exit 1
	echo "$s $rss" >>"$T/poll.times"
	# Of which the fetch (libgit2, in its child process), as -v logs it.
	sed -n 's/.*: fetched in \([0-9.]*\) s.*/\1/p' "$T/err" >>"$T/fetch.s"
	# The same fetch by git itself, for reference.
	read -r s rss < <(measure git clone -q --mirror "${url}git/0.git" "$d/clone.git") || exit 1
	echo "$s $rss" >>"$T/clone.times"
	got=$(stored "$d/http/pw.db")
	[ "$got" = "$n" ] || echo "  run $r: the poll stored $got of $n messages"
	# Nothing new: the wall time of a poll, five times.
	for i in 1 2 3 4 5; do
		wall_ms "$T/nothing.ms" "$PW" poll --db "$d/http/pw.db"
		wall_ms "$T/git-fetch.ms" git --git-dir="$T/mirror.git" fetch -q
	done
	$PW subscribe add --db "$d/path/pw.db" bench "$PI_DIR/bench" >/dev/null || exit 1
	read -r s rss < <(measure "$PW" poll --db "$d/path/pw.db") || exit 1
	echo "$s $rss" >>"$T/path.times"
	for i in 1 2 3 4 5; do wall_ms "$T/nothing-path.ms" "$PW" poll --db "$d/path/pw.db"; done
	sync
	read -r s rss < <(measure "$PW" ingest -q --db "$d/ingest/pw.db" "$mbox") || exit 1
	echo "$s $rss" >>"$T/ingest.times"
	rm -rf "$d"
done
echo "  runs, first poll over HTTP (s, KiB): $(tr '\n' ' ' <"$T/poll.times")"
echo "  runs, ingest of the mbox (s, KiB):   $(tr '\n' ' ' <"$T/ingest.times")"
poll_s=$(median "$T/poll.times"); path_s=$(median "$T/path.times"); ing_s=$(median "$T/ingest.times")
rate() { echo "scale=0; $n / $1" | bc; }
printf '  %-40s %8.2f s %8s msg/s  peak RSS %6d KiB\n' "first poll, HTTP (public-inbox-httpd)" "$poll_s" "$(rate "$poll_s")" "$(maxrss "$T/poll.times")"
printf '  %-40s %8.2f s\n' "  of which the fetch (libgit2)" "$(median "$T/fetch.s")"
printf '  %-40s %8.2f s                 peak RSS %6d KiB\n' "git clone --mirror of it (reference)" \
	"$(median "$T/clone.times")" "$(maxrss "$T/clone.times")"
printf '  %-40s %8.2f s %8s msg/s  peak RSS %6d KiB\n' "first poll, the inbox by path" "$path_s" "$(rate "$path_s")" "$(maxrss "$T/path.times")"
printf '  %-40s %8.2f s %8s msg/s  peak RSS %6d KiB\n' "patchwarden ingest of the same mbox" "$ing_s" "$(rate "$ing_s")" "$(maxrss "$T/ingest.times")"
spread() { printf '%8d ms (median of %d; min %d, max %d)' "$(median "$1")" "$(wc -l <"$1")" \
	"$(sort -n "$1" | head -n1)" "$(sort -n "$1" | tail -n1)"; }
printf '  %-40s %s\n' "poll, nothing new (HTTP)" "$(spread "$T/nothing.ms")"
printf '  %-40s %s\n' "poll, nothing new (by path)" "$(spread "$T/nothing-path.ms")"
printf '  %-40s %s\n' "git fetch, nothing new (HTTP, reference)" "$(spread "$T/git-fetch.ms")"
printf '  ratio: the first poll over HTTP runs at %.2fx the speed of ingest; target >= 10000 msg/s, RSS < 65536 KiB\n' \
	"$(echo "scale=3; $ing_s / $poll_s" | bc)"
