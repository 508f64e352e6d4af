#!/usr/bin/env bash
# The driver of "make fuzz".  For each harness tests/fuzz/fuzz_*.c (or
# those named as arguments, without .c):
#
#   with clang and its libFuzzer runtime: builds it with
#   -fsanitize=fuzzer,address,undefined and fuzzes it for FUZZ_SECONDS
#   (default 60), seeded by tests/fuzz/seeds.sh and the harness's crash
#   reproducers in tests/fuzz/regressions/HARNESS/.  What it learns goes
#   to BUILD/fuzz/corpus/HARNESS, crashes to BUILD/fuzz/crashes/HARNESS/.
#
#   without them: builds it standalone (tests/fuzz/replay.c) with CC under
#   ASan and UBSan and replays the seeds and reproducers once.
#
# Exits 1 when a harness crashed or failed to build, after trying all.
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
cd "$top" || exit 2
BUILD=${BUILD:-build}
FUZZ_SECONDS=${FUZZ_SECONDS:-60}
CC=${CC:-cc}
PKG_CONFIG=${PKG_CONFIG:-pkg-config}
out=$BUILD/fuzz
# The version as the Makefile says it: the whole program's harness
# (fuzz_http) builds bot/ files that print it.
version=$(sed -n 's/^VERSION *= *//p' Makefile)
STD="-std=c11 -D_GNU_SOURCE -DPW_VERSION=\"$version\" -Wall -Wextra -Wshadow -Wmissing-prototypes -Wno-unused-parameter -Werror -I."

if [ $# -gt 0 ]; then
	harnesses=("$@")
else
	harnesses=()
	for f in tests/fuzz/fuzz_*.c; do harnesses+=("$(basename "$f" .c)"); done
fi

# The sources and libraries a harness links: the mail harness needs
# GMime and bot/mail.c, the configuration harness bot/config.c and what
# it calls, the HTTP harness the whole program but main.c and every
# library; the others only checks/, GLib and Nettle.
sources() {
	case $1 in
	fuzz_mail) echo bot/mail.c checks/*.c ;;
	fuzz_config) echo bot/config.c bot/mail.c bot/reply.c checks/*.c ;;
	fuzz_http) ls checks/*.c db/*.c bot/*.c | grep -v '^bot/main\.c$' ;;
	*) echo checks/*.c ;;
	esac
}
pkgs() {
	case $1 in
	fuzz_mail|fuzz_config) echo gmime-3.0 nettle ;;
	fuzz_http) echo gmime-3.0 libcurl libgit2 sqlite3 json-glib-1.0 nettle libmicrohttpd libsystemd opendkim ;;
	*) echo glib-2.0 nettle ;;
	esac
}

# libFuzzer is there when clang can link a fuzzer with it.
libfuzzer=
if command -v clang >/dev/null 2>&1; then
	mkdir -p "$out"
	printf '#include <stddef.h>\n#include <stdint.h>\nint LLVMFuzzerTestOneInput(const uint8_t *d, size_t n);\nint LLVMFuzzerTestOneInput(const uint8_t *d, size_t n) { (void)d; (void)n; return 0; }\n' >"$out/probe.c"
	clang -fsanitize=fuzzer,address,undefined -o "$out/probe" "$out/probe.c" 2>/dev/null && libfuzzer=1
	rm -f "$out/probe" "$out/probe.c"
fi
[ -n "$libfuzzer" ] || echo "make fuzz: no clang with libFuzzer: replaying the seeds standalone with $CC"

failed=()
stats=()
for h in "${harnesses[@]}"; do
	[ -f "tests/fuzz/$h.c" ] || { echo "make fuzz: no harness tests/fuzz/$h.c"; failed+=("$h"); continue; }
	mkdir -p "$out/corpus/$h" "$out/crashes/$h"
	mapfile -t seeds < <(tests/fuzz/seeds.sh "$h" "$out/seeds")
	[ -d "tests/fuzz/regressions/$h" ] && seeds+=("tests/fuzz/regressions/$h")
	if [ -n "$libfuzzer" ]; then
		echo "make fuzz: $h, libFuzzer for ${FUZZ_SECONDS}s"
		clang -g -O1 -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined \
			$STD $($PKG_CONFIG --cflags $(pkgs "$h")) "tests/fuzz/$h.c" $(sources "$h") \
			-o "$out/$h" $($PKG_CONFIG --libs $(pkgs "$h")) ||
			{ failed+=("$h (build)"); continue; }
		UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 "$out/$h" \
			-max_len=65536 -max_total_time="$FUZZ_SECONDS" -timeout=25 \
			-print_final_stats=1 -artifact_prefix="$out/crashes/$h/" \
			"$out/corpus/$h" "${seeds[@]}" 2>&1 | tee "$out/$h.log" |
			grep -E '^#[0-9]+[[:space:]]+(INITED|DONE)|ERROR|SUMMARY|stat::(number_of_executed_units|average_exec_per_sec)|^artifact_prefix|Test unit written'
		rc=${PIPESTATUS[0]}
		stats+=("$h: $(sed -n 's/^stat::average_exec_per_sec: *//p' "$out/$h.log") execs/s, $(sed -n 's/^stat::number_of_executed_units: *//p' "$out/$h.log") runs")
	else
		echo "make fuzz: $h, standalone replay"
		$CC -g -O1 -fsanitize=address,undefined -fno-sanitize-recover=undefined \
			-DPW_FUZZ_STANDALONE $STD $($PKG_CONFIG --cflags $(pkgs "$h")) \
			"tests/fuzz/$h.c" tests/fuzz/replay.c $(sources "$h") \
			-o "$out/$h" $($PKG_CONFIG --libs $(pkgs "$h")) ||
			{ failed+=("$h (build)"); continue; }
		"$out/$h" "${seeds[@]}"
		rc=$?
	fi
	if [ "$rc" -ne 0 ]; then
		failed+=("$h")
		echo "make fuzz: $h crashed (status $rc); reproducers in $out/crashes/$h/, log $out/$h.log"
	fi
done
[ ${#stats[@]} -gt 0 ] && printf 'make fuzz: %s\n' "${stats[@]}"
if [ ${#failed[@]} -gt 0 ]; then
	echo "make fuzz: failed: ${failed[*]}"
	echo "make fuzz: keep each reproducer as tests/fuzz/regressions/HARNESS/NAME so the suite replays it"
	exit 1
fi
echo "make fuzz: ${#harnesses[@]} harnesses, no crash"
