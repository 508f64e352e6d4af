# patchwarden: helpers for shell test scripts.  Source it; every check
# prints one TAP line ("ok - ..." or "not ok - ..."), which tests/run.sh
# counts.  Scripts get a private scratch directory in $T, removed at exit.
set -u
: "${PW:?PW must name the patchwarden binary}"
: "${TOP:=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)}"
# The mail the tests read, vendored with its provenance (tests/corpus/README.md).
CORPUS=$TOP/tests/corpus
T=$(mktemp -d "${TMPDIR:-/tmp}/pw-t.XXXXXX")
_pw_cleanup_hooks=()
_pw_cleanup() {
	local h
	for h in "${_pw_cleanup_hooks[@]}"; do eval "$h"; done
	rm -rf "$T"
}
trap _pw_cleanup EXIT
# at_exit CMD: run CMD when the script ends (stop servers and the like).
at_exit() { _pw_cleanup_hooks+=("$1"); }

ok() { echo "ok - $*"; }
not_ok() { echo "not ok - $*"; }
# check DESC CMD...: ok when CMD succeeds.
check() { local d=$1; shift; if "$@"; then ok "$d"; else not_ok "$d"; fi; }
# is DESC GOT WANT
is() {
	if [ "$2" = "$3" ]; then ok "$1"; else
		not_ok "$1"; printf '#   got:  %s\n#   want: %s\n' "$2" "$3"; fi
}
# contains DESC HAYSTACK NEEDLE
contains() {
	case "$2" in *"$3"*) ok "$1" ;; *) not_ok "$1"; printf '#   %s\n#   does not contain: %s\n' "$2" "$3" ;; esac
}
# kv KEY LINE: the value of KEY in a "k=v k=v" summary line.
kv() { printf '%s\n' "$2" | tr ' ' '\n' | sed -n "s/^$1=//p" | head -n 1; }
# free_port: a TCP port on loopback that no socket uses now, and that no
# other test script running at the same time got from free_port: drawn
# from 20000-31999 (below the kernel's ephemeral range, so an outgoing
# connection does not take it meanwhile), claimed by an atomic mkdir in
# $_PW_PORTS (the claim names this script's process, and goes when the
# script ends), then looked up in /proc/net/tcp{,6}.  In the shell, no
# Python to start: scripts call it often.
_PW_PORTS=${TMPDIR:-/tmp}/pw-ports
free_port() {
	local i p hex
	mkdir -p "$_PW_PORTS" 2>/dev/null
	for ((i = 0; i < 1000; i++)); do
		p=$((20000 + (RANDOM * 32768 + RANDOM) % 12000))
		mkdir "$_PW_PORTS/$p" 2>/dev/null || continue
		: >"$_PW_PORTS/$p/$$"
		printf -v hex ':%04X ' "$p"
		if [ -r /proc/net/tcp ]; then
			grep -qs -e "$hex" /proc/net/tcp /proc/net/tcp6 || { echo "$p"; return 0; }
		else
			(: <>"/dev/tcp/127.0.0.1/$p") 2>/dev/null || { echo "$p"; return 0; }
		fi
		rm -rf "${_PW_PORTS:?}/$p"
	done
	echo "free_port: no free port found" >&2
	return 1
}
_pw_release_ports() {
	local f
	for f in "$_PW_PORTS"/*/"$$"; do [ -e "$f" ] && rm -rf "${f%/*}"; done
	return 0
}
at_exit _pw_release_ports
# pyq FILE EXPR: the Python expression EXPR over m, the JSON of FILE,
# printed (a bool as yes or no; an error as its message).  One Python
# process answers every pyq of a script, not one per assertion: a
# coprocess that pyq_start starts, in the script's own shell (a pyq in
# a $(...) before it would start one per subshell).
pyq_start() {
	[ -n "${_PW_PYQ_PID:-}" ] && return 0
	coproc _PW_PYQ { /usr/bin/python3 -u -c '
import json, sys, traceback
inp, out = sys.stdin.buffer, sys.stdout.buffer
while True:
    path = inp.readline()
    expr = inp.readline()
    if not expr:
        break
    try:
        m = json.load(open(path.decode()[:-1].encode("utf-8", "surrogateescape"), encoding="utf-8"))
        r = eval(expr.decode("utf-8", "surrogateescape")[:-1], {"m": m, "json": json, "sys": sys})
        text = r if not isinstance(r, bool) else ("yes" if r else "no")
        text = str(text)
    except Exception:
        text = traceback.format_exc()
    data = (text + "\n").encode("utf-8", "surrogateescape")
    out.write(b"%d\n" % len(data) + data)
    out.flush()
' 2>&1; }
	# Copies of the coprocess's descriptors: bash closes its own in the
	# subshells of a pipeline ("pyq ... | grep"), not these.
	exec {_PW_PYQ_IN}>&"${_PW_PYQ[1]}" {_PW_PYQ_OUT}<&"${_PW_PYQ[0]}"
	at_exit "kill $_PW_PYQ_PID 2>/dev/null"
}
pyq() {
	local n out
	[ -n "${_PW_PYQ_PID:-}" ] || pyq_start
	case $1$2 in *$'\n'*) echo "pyq: a newline in FILE or EXPR"; return 1 ;; esac
	printf '%s\n%s\n' "$1" "$2" >&"$_PW_PYQ_IN"
	LC_ALL=C read -r n <&"$_PW_PYQ_OUT" || { echo "pyq: the Python process ended"; return 1; }
	LC_ALL=C read -r -d '' -N "$n" out <&"$_PW_PYQ_OUT"
	printf '%s\n' "${out%$'\n'}"
}
