#!/usr/bin/env bash
# patchwarden test runner.  Runs every unit binary (cmocka, TAP output)
# and every tests/integration/*.sh script (TAP lines through tests/lib.sh),
# N suites at a time, then prints one closing line: "N passed, N failed".
#
#   tests/run.sh [-j N] [PATTERN...]
#                              only suites whose name contains a PATTERN;
#                              -j N suites at once (default: the cores,
#                              nproc; also TEST_JOBS=N)
#   PW=path/to/patchwarden     the binary under test (default ./patchwarden)
#   UNIT_DIR=build/tests/unit  where the unit binaries are
#   SUITE_DIR=tests/integration where the integration scripts are
#   VERBOSE=1                  show every suite's whole output
#   UPDATE=1                   suites with expected files (tests/expected/)
#                              write them anew instead of comparing
#
# Each suite's output is kept in a file of its own and printed when the
# suite ends, in a stable order (units, then integration, by name)
# whatever order they finish in: one line per suite with its counts and
# seconds, and a failing suite's whole output below it.  The longest
# suites start first (their seconds of the last run are kept in
# BUILD/test-times, next to UNIT_DIR; a first run uses the estimates
# below), so that the wall time is about the longest suite's, not the
# sum.  Suites must therefore not share anything: tests/lib.sh gives each
# its own scratch folder and free_port its ports.  A suite whose process
# is gone without its status (killed by a signal, its wrapper failed)
# counts as failed, and the run goes on.
set -u
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/.." && pwd)
export PW=${PW:-$top/patchwarden}
export UNIT_DIR=${UNIT_DIR:-$top/build/tests/unit}
suite_dir=${SUITE_DIR:-$here/integration}
export TOP=$top

jobs=${TEST_JOBS:-}
patterns=()
while [ $# -gt 0 ]; do
	case $1 in
	-j) jobs=${2:-}; shift 2 || { echo "run.sh: -j needs a number" >&2; exit 2; } ;;
	-j*) jobs=${1#-j}; shift ;;
	-h|--help) sed -n '2,15s/^# \{0,1\}//p' "$0"; exit 0 ;;
	*) patterns+=("$1"); shift ;;
	esac
done
[ -n "$jobs" ] || jobs=$(nproc 2>/dev/null || echo 2)
case $jobs in ''|*[!0-9]*|0) echo "run.sh: -j wants a number of suites, not '$jobs'" >&2; exit 2 ;; esac

times_file=${TEST_TIMES:-$(dirname "$(dirname "$UNIT_DIR")")/test-times}
logdir=$(mktemp -d "${TMPDIR:-/tmp}/pw-tests.XXXXXX")
trap 'kill $(jobs -p) 2>/dev/null; rm -rf "$logdir"' EXIT
trap 'exit 130' INT TERM

# Seconds a suite took on a 2-core machine, for the order of a first run
# (no BUILD/test-times yet); a suite not named here counts as 5.
declare -A estimate=(
	[integration/crash]=70 [integration/subscribe_pi]=60 [integration/remotes]=60
	[integration/service]=60 [integration/parse]=60 [integration/ingest]=60
	[integration/web_browser]=50 [integration/pi_fixtures]=50
	[integration/subscribe_local]=50 [integration/valgrind]=40
	[integration/precision]=40 [integration/query]=40 [integration/check]=40
	[integration/fuzz_replay]=40 [integration/reply]=40 [integration/mailinfo]=30
	[integration/manpages]=30 [integration/run]=30 [integration/exit]=30
	[integration/readonly]=25 [integration/gen_flood]=25 [integration/flood]=25
	[integration/mailcases]=25 [integration/subscribe_imap]=25
	[integration/patchid]=20 [integration/web]=20 [integration/fence]=15
	[integration/cases]=12 [unit/test_db]=10
)
declare -A last=()
if [ -r "$times_file" ]; then
	while read -r n s; do [ -n "$n" ] && last[$n]=$s; done <"$times_file"
fi

names=() cmds=()
wanted() {
	local p
	[ ${#patterns[@]} -eq 0 ] && return 0
	for p in "${patterns[@]}"; do [[ "$1" == *"$p"* ]] && return 0; done
	return 1
}
add() {	# name, command...
	local name=$1; shift
	wanted "$name" || return 0
	names+=("$name") cmds+=("$(printf '%q ' "$@")")
}
units=0
for t in "$UNIT_DIR"/test_*; do
	[ -x "$t" ] || continue
	units=$((units + 1))
	add "unit/$(basename "$t")" env CMOCKA_MESSAGE_OUTPUT=TAP "$t"
done
for t in "$suite_dir"/*.sh; do
	[ -f "$t" ] || continue
	add "integration/$(basename "$t" .sh)" bash "$t"
done

passed=0 failed=0 sum=0
failures=()
if [ "$units" -eq 0 ] && wanted unit/; then
	failed=$((failed + 1)) failures+=("unit")
	echo "not ok - no unit test binaries in $UNIT_DIR (make unit builds them)"
fi

# The order to start them in: the longest first.
weight() { local w=${last[$1]:-${estimate[$1]:-5}}; printf '%s\n' "${w%.*}"; }
order=()
while read -r _ i; do order+=("$i"); done < <(
	for i in "${!names[@]}"; do printf '%s %s\n' "$(weight "${names[$i]}")" "$i"; done | sort -k1,1nr -k2,2n)

# now_us: microseconds since the epoch.  EPOCHREALTIME has the locale's
# decimal mark (a comma under LC_NUMERIC=de_DE): keep only the digits.
now_us() { local t=$EPOCHREALTIME; printf '%s\n' "${t//[!0-9]/}"; }

log() { printf '%s/%s' "$logdir" "$(printf '%s' "$1" | tr '/' '_')"; }
# start I: suite I in the background; its output, status and seconds
# go to files of its own.
start() {
	local i=$1 f
	f=$(log "${names[$i]}")
	(
		t0=$(now_us)
		eval "${cmds[$i]}" >"$f.log" 2>&1 </dev/null
		rc=$?
		t1=$(now_us)
		secs "$((t1 - t0))" >"$f.secs"
		echo "$rc" >"$f.rc"
		mv "$f.rc" "$f.done"
	) &
	pid_of[$!]=$i t0_of[$i]=$(now_us)
}
# secs MICROSECONDS: seconds with one decimal.
secs() { printf '%d.%d\n' $(($1 / 1000000)) $(($1 % 1000000 / 100000)); }
# gone I STATUS: suite I's process ended without writing its status (a
# signal, or its wrapper failed): record it as failed with STATUS.
gone() {
	local i=$1 st=$2 f
	f=$(log "${names[$i]}")
	[ -e "$f.done" ] && return 0
	[ "$st" -ne 0 ] || st=1
	echo "not ok - ${names[$i]}: its process ended (status $st) without reporting" >>"$f.log"
	secs "$(( $(now_us) - ${t0_of[$i]} ))" >"$f.secs"
	echo "$st" >"$f.done"
}

# report I: the suite's line, counts and (failing or VERBOSE) its output.
declare -A secs_of=()
report() {
	local name=${names[$1]} f rc ok nok secs
	f=$(log "$name")
	rc=$(cat "$f.done") secs=$(cat "$f.secs")
	secs_of[$name]=$secs
	ok=$(grep -cE '^ok ' "$f.log")
	nok=$(grep -cE '^not ok ' "$f.log")
	if [ "$rc" -ne 0 ] && [ "$nok" -eq 0 ]; then
		nok=1
		echo "not ok - $name exited with status $rc" >>"$f.log"
	fi
	passed=$((passed + ok)) failed=$((failed + nok))
	sum=$((sum + 10#${secs/./}))
	printf '%-44s %4d passed %4d failed %6ss\n' "$name" "$ok" "$nok" "$secs"
	if [ "$nok" -gt 0 ]; then
		failures+=("$name")
		grep -E '^not ok ' "$f.log" | sed 's/^/    /'
		echo "    --- the output of $name:"
	fi
	if [ "$nok" -gt 0 ] || [ -n "${VERBOSE:-}" ]; then
		sed 's/^/    | /' "$f.log"
	fi
}

declare -A pid_of=() t0_of=()
wall0=$(now_us)
next=0 shown=0 running=0
total=${#names[@]}
while [ "$shown" -lt "$total" ]; do
	while [ "$running" -lt "$jobs" ] && [ "$next" -lt "$total" ]; do
		start "${order[$next]}"
		next=$((next + 1)) running=$((running + 1))
	done
	if [ "$running" -gt 0 ]; then
		ended=
		wait -n -p ended
		st=$?
		# wait -p unsets its variable first, and leaves it unset when
		# a signal ends the wait: none ended then.
		ended=${ended:-}
		if [ -n "$ended" ] && [ -n "${pid_of[$ended]:-}" ]; then
			gone "${pid_of[$ended]}" "$st"
			unset "pid_of[$ended]"
			running=$((running - 1))
		elif [ -z "$ended" ] && [ "$st" -eq 127 ]; then
			# No child left to wait for: every suite still counted
			# as running is gone.
			for p in "${!pid_of[@]}"; do gone "${pid_of[$p]}" 127; done
			pid_of=() running=0
		fi
		# On a terminal, a line that says how far the run is while the
		# suites before in the order still run (overwritten, on stderr).
		[ -t 2 ] && printf '\r[%d of %d ended, %d running]\033[K' \
			$((next - running)) "$total" "$running" >&2
	fi
	# Print, in the stable order, every suite that has ended.
	while [ "$shown" -lt "$total" ] && [ -e "$(log "${names[$shown]}").done" ]; do
		[ -t 2 ] && printf '\r\033[K' >&2
		report "$shown"
		shown=$((shown + 1))
	done
done
wall=$(( $(now_us) - wall0 ))

# Keep this run's seconds for the next run's order.
if [ "$total" -gt 0 ] && mkdir -p "$(dirname "$times_file")" 2>/dev/null; then
	for n in "${!last[@]}"; do [ -n "${secs_of[$n]:-}" ] || secs_of[$n]=${last[$n]}; done
	for n in "${!secs_of[@]}"; do echo "$n ${secs_of[$n]}"; done | sort >"$times_file.$$" &&
		mv "$times_file.$$" "$times_file"
fi

printf '%d suites, -j %d: %d.%d s of suites in %d.%d s\n' "$total" "$jobs" \
	$((sum / 10)) $((sum % 10)) $((wall / 1000000)) $((wall % 1000000 / 100000))
[ ${#failures[@]} -gt 0 ] && echo "failed suites: ${failures[*]}"
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ] && [ "$passed" -gt 0 ]
