#!/usr/bin/env bash
# Ingest throughput: patchwarden ingest (parse, extract, check, store) on
# 20,000 real list messages, against git mailsplit + git mailinfo over the
# same messages, in one run.  Prints rates, peak RSS and the ratio;
# patchwarden's time is the median of three runs.
#
#   tests/bench/ingest.sh [COPIES]   (default 10: 10 x 2,000 messages)
set -eu
top=$(cd "$(dirname "$0")/../.." && pwd)
PW=${PW:-$top/patchwarden}
cache=${PW_BENCH_CACHE:-/var/tmp/patchwarden-bench}/ingest
copies=${1:-10}
mkdir -p "$cache"
mbox=$cache/ingest-$copies.mbox
if [ ! -s "$mbox" ]; then
	/usr/bin/python3 "$top/tests/bench/gen_ingest.py" \
		"$top/tests/corpus/lore-linux-mips/first-2000.mbox.xz" "$mbox.tmp" "$copies" >/dev/null
	mv "$mbox.tmp" "$mbox"
fi
n=$(grep -c '^From ' "$mbox")
mb=$(( $(stat -c %s "$mbox") / 1048576 ))
echo "ingest: $n messages, $mb MiB ($mbox)"

measure() {	# label, command...: prints seconds and peak RSS (KiB)
	/usr/bin/time -f '%e %M' -o "$cache/time" "$@" >"$cache/out" 2>"$cache/err" || {
		echo "$1 failed:"; tail -n 5 "$cache/err"; exit 1; }
	cat "$cache/time"
}

# Three runs into a new database each; the median time and the largest
# peak RSS count.  A sync first, so that one run's writes do not land
# in the next.
runs=3
: >"$cache/pw.times"
for r in $(seq "$runs"); do
	rm -f "$cache/bench.db" "$cache/bench.db"-*
	sync
	read -r s rss < <(measure "$PW" ingest -q --db "$cache/bench.db" "$mbox")
	echo "$s $rss" >>"$cache/pw.times"
done
echo "  patchwarden ingest: $(cat "$cache/out")"
echo "  runs (s, KiB): $(tr '\n' ' ' <"$cache/pw.times")"
pw_s=$(sort -n "$cache/pw.times" | sed -n "$(( (runs + 1) / 2 ))p" | cut -d' ' -f1)
pw_rss=$(sort -k2,2n "$cache/pw.times" | tail -n 1 | cut -d' ' -f2)
rm -f "$cache/bench.db" "$cache/bench.db"-*

rm -rf "$cache/split"; mkdir "$cache/split"
read -r split_s _ < <(measure git mailsplit -o"$cache/split" "$mbox")
start=$(date +%s.%N)
( cd "$cache/split" && for f in *; do git mailinfo -u "$cache/msg" "$cache/patch" <"$f" >/dev/null || true; done )
mi_s=$(echo "$(date +%s.%N) - $start + $split_s" | bc)

rate() { echo "scale=0; $n / $1" | bc; }
printf '  %-34s %8.2f s %8s msg/s  peak RSS %6d KiB\n' "patchwarden ingest (+store, median)" "$pw_s" "$(rate "$pw_s")" "$pw_rss"
printf '  %-34s %8.2f s %8s msg/s\n' "git mailsplit + mailinfo (no store)" "$mi_s" "$(rate "$mi_s")"
printf '  ratio: patchwarden is %.1fx the speed of git mailinfo; target >= 10000 msg/s, RSS < 65536 KiB\n' \
	"$(echo "scale=2; $mi_s / $pw_s" | bc)"
rm -rf "$cache/split"
