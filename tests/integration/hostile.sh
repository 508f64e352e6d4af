#!/usr/bin/env bash
# Hostile mail fed to run -, ingest - and ingest FILE: what is stored
# and the exit status, case by case from tests/hostile/ (its README.md
# gives the format).  From a pipe nothing is ever bounced (status 1).
. "$(dirname "$0")/../lib.sh"
# Everything below writes under $T (and mounts there): never elsewhere.
[ -d "${T:-}" ] || { echo "not ok - tests/lib.sh not loaded"; exit 1; }

dir=$TOP/tests/hostile
ncases=0

# run_block CASE INPUT CMD STATUS STDERR... -- STORED...: one block, on a
# store of its own.
run_block() {
	local name=$1 input=$2 cmd=$3 want=$4 db rc
	shift 4
	local greps=() stored=()
	while [ $# -gt 0 ] && [ "$1" != -- ]; do greps+=("$1"); shift; done
	[ $# -gt 0 ] && shift
	stored=("$@")
	db=$T/$name.$RANDOM
	mkdir -p "$db"
	local args=()
	read -r -a args <<<"$cmd"
	local i
	for i in "${!args[@]}"; do
		[ "${args[$i]}" = FILE ] && args[$i]=$input
	done
	(cd "$db" && "$PW" "${args[@]}" --db "$db/pw.db" <"$input" >"$db/out" 2>"$db/err")
	rc=$?
	is "$name [$cmd]: exit status" "$rc" "$want"
	local g
	for g in "${greps[@]}"; do
		if [ "$g" = "(none)" ]; then
			is "$name [$cmd]: nothing on stderr" "$(cat "$db/err")" ""
		else
			check "$name [$cmd]: stderr matches /$g/" grep -qE -- "$g" "$db/err"
		fi
	done
	local s sql val got
	for s in "${stored[@]}"; do
		sql=${s% => *}
		val=${s##* => }
		got=$(sqlite3 -batch -noheader "$db/pw.db" "$sql" | paste -sd ';')
		is "$name [$cmd]: $sql" "$got" "$val"
	done
	rm -rf "$db"
}

for expect in "$dir"/*.expect; do
	name=$(basename "$expect" .expect)
	ncases=$((ncases + 1))
	input=
	for f in "$dir/$name".eml "$dir/$name".mbox; do
		[ -f "$f" ] && input=$f
	done
	if [ -f "$dir/$name.gen" ]; then
		input=$T/$name.eml
		/usr/bin/python3 "$dir/$name.gen" >"$input"
	fi
	if [ -z "$input" ]; then
		not_ok "$name: no input ($name.eml, $name.mbox or $name.gen)"
		continue
	fi
	cmd= status= greps=() stored=()
	flush() {
		[ -n "$cmd" ] || return 0
		if [ -z "$status" ]; then
			not_ok "$name [$cmd]: no status: line"
		else
			run_block "$name" "$input" "$cmd" "$status" \
				"${greps[@]}" -- "${stored[@]}"
		fi
		cmd= status= greps=() stored=()
	}
	while IFS= read -r line || [ -n "$line" ]; do
		case $line in
		'#'* | '') ;;
		'cmd: '*) flush; cmd=${line#cmd: } ;;
		'status: '*) status=${line#status: } ;;
		'stderr: '*) greps+=("${line#stderr: }") ;;
		'stored: '*) stored+=("${line#stored: }") ;;
		*) not_ok "$name: a line that is no cmd:, status:, stderr: or stored:: $line" ;;
		esac
	done <"$expect"
	flush
	case $input in "$T"/*) rm -f "$input" ;; esac
done
check "tests/hostile/ holds at least ten cases ($ncases)" test "$ncases" -ge 10

# ---- bidirectional controls never reach a reply's subject ----
# U+202E (RIGHT-TO-LEFT OVERRIDE) in an encoded-word subject shows the
# text after it backwards in the reply a mail client lists; U+2066 opens
# an isolate that may never close.
mkdir -p "$T/bidi"
sed -e 's/^Subject: .*/Subject: =?utf-8?q?[PATCH]_fix_=E2=80=AEgpj.exe=E2=81=A6_x=E2=80=8Fy?=/' \
	-e 's/^Message-Id: .*/Message-Id: <bidi@example.org>/' \
	"$TOP/tests/data/hostile.eml" >"$T/bidi/in.eml"
printf '[reply]\nmax_age = 0\n[list *]\nmail = author\n' >"$T/bidi/pw.conf"
(cd "$T/bidi" && "$PW" run --config pw.conf --db pw.db - <in.eml >/dev/null 2>&1)
check "a reply to the bidi subject was mailed" test -s "$T/bidi/outbox.mbox"
subj=$(/usr/bin/python3 -c '
import mailbox, sys, email.header
m = next(iter(mailbox.mbox(sys.argv[1])))
print(str(email.header.make_header(email.header.decode_header(m["Subject"]))).encode("unicode_escape").decode())' "$T/bidi/outbox.mbox")
is "the reply's subject: the text kept, no bidi control (U+202E, U+2066, U+200F)" \
	"$subj" "Re: [PATCH] fix gpj.exe xy"
