#!/usr/bin/env bash
# patchwarden fuzz harnesses, replayed: every tests/fuzz/fuzz_*.c is built
# standalone (tests/fuzz/replay.c is its main) with the suite's compiler,
# linked with the library the suite tests (under "make asan", the
# sanitized one), and runs its seeds (tests/fuzz/seeds.sh) and its crash
# reproducers (tests/fuzz/regressions/HARNESS/) once each.  A harness traps
# when a promise of the code it drives is broken, so a crash that came
# back fails here in seconds; "make fuzz" is the long search for new ones.
. "$(dirname "$0")/../lib.sh"

unit_dir=${UNIT_DIR:-$TOP/build/tests/unit}
lib=$(cd "$unit_dir/../.." 2>/dev/null && pwd)/libpatchwarden.a
check "the library the harnesses link with is built ($lib)" test -f "$lib"
# The library built by "make asan" needs the sanitizer runtimes at link.
san=
nm "$lib" 2>/dev/null | grep -q '__asan_' && san="-fsanitize=address,undefined"
# The mail and configuration harnesses need GMime, the HTTP harness every
# library of the program (the Makefile's BOT_PKGS); the others link only
# checks/, GLib, Nettle.
bot_pkgs=$(sed -n '/^BOT_PKGS *=/,/[^\\]$/p' "$TOP/Makefile" | sed 's/^BOT_PKGS *=//; s/\\$//' | tr -s ' \t\n' ' ')
pkgs() {
	case $1 in
	fuzz_mail|fuzz_config) echo gmime-3.0 nettle ;;
	fuzz_http) echo $bot_pkgs ;;
	*) echo glib-2.0 nettle ;;
	esac
}

# replay HARNESS DESC PATH...: the harness runs every file under PATH.
replay() {
	local h=$1 desc=$2 n rc
	shift 2
	n=$(find -L "$@" -type f | wc -l)	# a case may link to another's mail
	"$T/$h" "$@" >"$T/$h.out" 2>&1
	rc=$?
	if [ "$rc" -eq 0 ] && grep -qx "$h: $n inputs ran" "$T/$h.out"; then
		ok "$h: $desc ($n)"
	else
		not_ok "$h: $desc ($n): status $rc"
		tail -n 20 "$T/$h.out" | sed 's/^/#   /'
	fi
}

n=0
for src in "$TOP"/tests/fuzz/fuzz_*.c; do
	h=$(basename "$src" .c)
	n=$((n + 1))
	# shellcheck disable=SC2046
	if ! "${CC:-cc}" -std=c11 -D_GNU_SOURCE -Wall -Wextra -Wshadow \
		-Wmissing-prototypes -Wno-unused-parameter -Werror -g -O1 $san \
		-DPW_FUZZ_STANDALONE -I"$TOP" $(pkg-config --cflags $(pkgs "$h")) \
		"$src" "$TOP/tests/fuzz/replay.c" "$lib" \
		$(pkg-config --libs $(pkgs "$h")) -o "$T/$h" 2>"$T/$h.cc"; then
		not_ok "$h: builds standalone"
		head -n 20 "$T/$h.cc" | sed 's/^/#   /'
		continue
	fi
	ok "$h: builds standalone"
	if ! mapfile -t seeds < <("$TOP/tests/fuzz/seeds.sh" "$h" "$T/seeds") || [ ${#seeds[@]} -eq 0 ]; then
		not_ok "$h: tests/fuzz/seeds.sh names its seeds"
		continue
	fi
	replay "$h" "replays its seeds" "${seeds[@]}"
	reg=$TOP/tests/fuzz/regressions/$h
	if [ -d "$reg" ] && [ -n "$(find "$reg" -type f)" ]; then
		replay "$h" "replays its crash reproducers" "$reg"
	fi
done
check "harnesses found in tests/fuzz ($n)" test "$n" -ge 5

# "make fuzz" (tests/fuzz/run.sh) builds a harness from the sources, not
# the library: the one of the whole program too, which needs what the
# Makefile gives every file (PW_VERSION).  One second of it, in a
# folder of its own; once per suite run (it builds the same sanitized
# harness whichever library the suite tests, so not again under make
# asan).
if [ -z "$san" ]; then
	out=$(cd "$TOP" && BUILD="$T/fuzzbuild" FUZZ_SECONDS=1 tests/fuzz/run.sh fuzz_http 2>&1)
	contains "make fuzz builds the HTTP harness and runs it" "$out" "make fuzz: 1 harnesses, no crash"
fi
