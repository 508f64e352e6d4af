#!/usr/bin/env bash
# tests/run.sh itself, on a throwaway suite folder (SUITE_DIR): counts,
# a suite whose process is killed without reporting (the run must not
# hang and must count it as failed), and seconds under a locale whose
# decimal mark is a comma.
. "$(dirname "$0")/../lib.sh"

s=$T/suites
mkdir -p "$s" "$T/unit"
printf '%s\n' 'echo "ok - one"' 'sleep 1' 'echo "ok - two"' >"$s/good.sh"
printf '%s\n' 'echo "ok - first"' 'echo "not ok - second"' >"$s/bad.sh"
printf '%s\n' 'echo "ok - before"' 'exit 3' >"$s/status.sh"
# The wrapper that would write this suite's status is its parent: kill it.
printf '%s\n' 'echo "ok - before the kill"' 'kill -KILL $PPID' 'sleep 0.2' >"$s/killed.sh"

# runner OUT [ENV...]: tests/run.sh over $s, at most 60 s; its status.
runner() {
	local out=$1; shift
	env "$@" SUITE_DIR="$s" UNIT_DIR="$T/unit" TEST_TIMES="$T/times" \
		timeout 60 bash "$TOP/tests/run.sh" -j 2 integration/ >"$out" 2>&1
}

runner "$T/out"
rc=$?
out=$(cat "$T/out")
isnt_timeout() { [ "$1" -ne 124 ] && [ "$1" -ne 137 ]; }
check "a killed suite's wrapper does not hang the run" isnt_timeout "$rc"
is "the run fails" "$rc" 1
contains "the closing line counts every suite" "$out" "5 passed, 3 failed"
contains "the killed suite is reported failed" "$out" \
	"not ok - integration/killed: its process ended (status 137) without reporting"
contains "a suite's own status counts" "$out" "not ok - integration/status exited with status 3"
contains "the failed suites are named" "$out" \
	"failed suites: integration/bad integration/killed integration/status"
good=$(grep -E '^integration/good ' "$T/out")
contains "the good suite passes" "$good" " 2 passed    0 failed"
# good.sh sleeps a second: its seconds are 1.0 or more (and a little).
secs_ok() { local x=${1%s}; [[ $x =~ ^[0-9]+\.[0-9]$ ]] && [ "${x%.*}" -ge 1 ] && [ "${x%.*}" -lt 30 ]; }
check "the good suite's seconds are about one" secs_ok "${good##* }"
check "the times file keeps the good suite's seconds" \
	grep -qE '^integration/good [1-9][0-9]*\.[0-9]$' "$T/times"

# A locale that writes EPOCHREALTIME with a comma: made here, from the
# system's locale sources, so that the machine need not have it.
mkdir -p "$T/loc"
if localedef -i de_DE -f UTF-8 "$T/loc/de_DE.UTF-8" >/dev/null 2>&1 &&
	[[ $(LOCPATH=$T/loc LC_NUMERIC=de_DE.UTF-8 bash -c 'echo $EPOCHREALTIME') == *,* ]]; then
	rm -f "$T/times"
	runner "$T/out.de" LOCPATH="$T/loc" LC_NUMERIC=de_DE.UTF-8
	out=$(cat "$T/out.de")
	contains "de_DE: the closing line counts every suite" "$out" "5 passed, 3 failed"
	good=$(grep -E '^integration/good ' "$T/out.de")
	check "de_DE: the good suite's seconds are about one" secs_ok "${good##* }"
	wall=$(sed -n 's/.* s of suites in \([0-9.]*\) s$/\1/p' "$T/out.de")
	check "de_DE: the wall seconds are about one or more" secs_ok "$wall"
	check "de_DE: the times file has a decimal point" \
		grep -qE '^integration/good [1-9][0-9]*\.[0-9]$' "$T/times"
else
	not_ok "de_DE: localedef could not make a de_DE locale with a comma"
fi
