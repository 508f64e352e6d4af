#!/usr/bin/env bash
# tests/fuzz/seeds.sh HARNESS WORKDIR: prints, one a line, the files and
# directories that seed HARNESS (a tests/fuzz/fuzz_*.c name without .c).
# The mail harness starts from the mail of tests/corpus and the hostile
# cases of tests/hostile (deep and broken MIME); the diff, rule
# and fingerprint harnesses from the cases of tests/cases and that mail,
# which carries patches of every shape; the subject harness from every
# Subject line of both, one line a file, written under WORKDIR; the
# configuration harness from copies (libFuzzer takes folders only) of the
# example configuration and the test configurations of tests/data and
# tests/cases, written under WORKDIR.  Crash
# reproducers (tests/fuzz/regressions/HARNESS) are not seeds: callers add
# them where they want them.  The HTTP harness starts from the requests
# kept in tests/fuzz/seeds/http, one a file (see tests/fuzz/fuzz_http.c).
set -eu
top=$(cd "$(dirname "$0")/../.." && pwd)
[ $# -eq 2 ] || { echo "usage: tests/fuzz/seeds.sh HARNESS WORKDIR" >&2; exit 2; }
h=$1 work=$2
mail=("$top/tests/corpus/patchwork" "$top/tests/corpus/b4" \
	"$top/tests/corpus/public-inbox" "$top/tests/corpus/notmuch")
case $h in
fuzz_mail)
	printf '%s\n' "${mail[@]}" "$top/tests/hostile" ;;
fuzz_diff|fuzz_rules|fuzz_fingerprint)
	printf '%s\n' "$top/tests/cases" "${mail[@]}" ;;
fuzz_subject)
	d=$work/subject
	rm -rf "$d"
	mkdir -p "$d"
	i=0
	while IFS= read -r s; do
		i=$((i + 1))
		printf '%s' "$s" >"$d/$(printf '%04d' "$i")"
	done < <(grep -rahE '^Subject: ' "$top/tests/cases" "${mail[@]}" |
		sed 's/^Subject: //' | tr -d '\r' | LC_ALL=C sort -u)
	[ "$i" -gt 0 ] || { echo "seeds.sh: no Subject lines found" >&2; exit 1; }
	echo "$d" ;;
fuzz_config)
	d=$work/config
	rm -rf "$d"
	mkdir -p "$d"
	i=0
	while IFS= read -r f; do
		i=$((i + 1))
		cp "$f" "$d/$(printf '%04d' "$i")"
	done < <(printf '%s\n' "$top/deploy/patchwarden.conf.example" \
		"$top"/tests/data/*.conf; find "$top/tests/cases" -name '*.conf' | LC_ALL=C sort)
	echo "$d" ;;
fuzz_http)
	echo "$top/tests/fuzz/seeds/http" ;;
*)
	echo "seeds.sh: no seeds known for $h" >&2
	exit 2 ;;
esac
