#!/usr/bin/env bash
# patchwarden test runner.  Runs every unit binary (cmocka, TAP output)
# and every tests/integration/*.sh script (TAP lines through tests/lib.sh),
# then prints one closing line: "N passed, N failed".
#
#   tests/run.sh [PATTERN]     only suites whose name contains PATTERN
#   PW=path/to/patchwarden     the binary under test (default ./patchwarden)
#   UNIT_DIR=build/tests/unit  where the unit binaries are
#   VERBOSE=1                  show every suite's whole output
set -u
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/.." && pwd)
export PW=${PW:-$top/patchwarden}
export UNIT_DIR=${UNIT_DIR:-$top/build/tests/unit}
export TOP=$top
pattern=${1:-}

passed=0 failed=0
failures=()
logdir=$(mktemp -d "${TMPDIR:-/tmp}/pw-tests.XXXXXX")
trap 'rm -rf "$logdir"' EXIT

run_suite() {	# name, command...
	local name=$1; shift
	[ -n "$pattern" ] && [[ "$name" != *"$pattern"* ]] && return
	local log="$logdir/$(echo "$name" | tr '/' '_').log" start=$SECONDS rc
	"$@" >"$log" 2>&1 </dev/null
	rc=$?
	local ok nok
	ok=$(grep -cE '^ok ' "$log")
	nok=$(grep -cE '^not ok ' "$log")
	if [ "$rc" -ne 0 ] && [ "$nok" -eq 0 ]; then
		nok=1
		echo "not ok - $name exited with status $rc" >>"$log"
	fi
	passed=$((passed + ok)) failed=$((failed + nok))
	printf '%-44s %4d passed %4d failed %4ds\n' "$name" "$ok" "$nok" $((SECONDS - start))
	if [ "$nok" -gt 0 ] || [ -n "${VERBOSE:-}" ]; then
		grep -E '^not ok ' "$log" | sed 's/^/    /'
		[ "$nok" -gt 0 ] && failures+=("$name")
		[ -n "${VERBOSE:-}" ] || { echo "    --- last lines of $name:"; tail -n 25 "$log" | sed 's/^/    | /'; }
		[ -n "${VERBOSE:-}" ] && sed 's/^/    | /' "$log"
	fi
}

units=0
for t in "$UNIT_DIR"/test_*; do
	[ -x "$t" ] || continue
	units=$((units + 1))
	run_suite "unit/$(basename "$t")" env CMOCKA_MESSAGE_OUTPUT=TAP "$t"
done
if [ "$units" -eq 0 ] && { [ -z "$pattern" ] || [[ unit/ == *"$pattern"* ]]; }; then
	failed=$((failed + 1)) failures+=("unit")
	echo "not ok - no unit test binaries in $UNIT_DIR (make unit builds them)"
fi
for t in "$here"/integration/*.sh; do
	[ -f "$t" ] || continue
	run_suite "integration/$(basename "$t" .sh)" bash "$t"
done

[ ${#failures[@]} -gt 0 ] && echo "failed suites: ${failures[*]}"
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ] && [ "$passed" -gt 0 ]
