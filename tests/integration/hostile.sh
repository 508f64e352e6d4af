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
# ---- the dashboard, from the attacker's side ----
# Raw HTTP on loopback (tests/hostile_client.py, curl).  The server's
# CPU and peak memory are read from /proc; the servers are stopped,
# and checked, when the script ends.
. "$TOP/tests/web_lib.sh"
HC=$TOP/tests/hostile_client.py
cpu_ticks() { awk '{ print $14 + $15 }' "/proc/$1/stat"; }
peak_kb() { awk '/^VmHWM:/ { print $2 }' "/proc/$1/status"; }
# healthz_time: seconds /healthz takes to answer (5: not in 5 s).
healthz_time() {
	curl -s -o /dev/null --max-time 5 -w '%{time_total}' "$URL/healthz" || echo 5
}
$PW ingest -q --db "$T/web.db" "$TOP/tests/data/sample.mbox" >/dev/null 2>&1
printf '[web]\ntoken = 0123456789abcdef0123\n' >"$T/web.conf"
chmod 600 "$T/web.conf"
serve "$T/web.db" --config "$T/web.conf" || exit 1
port=${URL##*:}
# A 4 MiB mail of 2,000 nested multiparts over lines of "--": 7 s of
# CPU each, and five of them at once held every server thread.
/usr/bin/python3 - "$T/bomb4.eml" <<'PY'
import sys
out = [b"From: A <a@example.org>\nSubject: [PATCH] bomb\nMessage-ID: <b4@x>\n"
       b"MIME-Version: 1.0\nContent-Type: multipart/mixed; boundary=\"b0\"\n\n"]
for i in range(1, 2000):
    out.append(b"--b%d\nContent-Type: multipart/mixed; boundary=\"b%d\"\n\n" % (i - 1, i))
s = b"".join(out)
open(sys.argv[1], "wb").write(s + b"--\n" * (((4 << 20) - len(s)) // 3))
PY
t0=$(cpu_ticks "$SERVE_PID")
body=$(get --data-binary @"$T/bomb4.eml" "$URL/api/check")
is "hostile POST /api/check: 422" "$(code)" 422
contains "hostile POST /api/check: the message and why named" "$body" \
	"message 1: MIME parts nested deeper than 32: refused unread"
ticks=$(( $(cpu_ticks "$SERVE_PID") - t0 ))
# Bound: one hostile 4 MiB POST under 0.5 s of the server's CPU.
check "hostile POST /api/check: under 0.5 s of server CPU ($ticks/$(getconf CLK_TCK) s)" \
	test "$ticks" -lt $(( $(getconf CLK_TCK) / 2 ))
# Bound: with 8 such POSTs at once, /healthz answers within 2 s.
"$HC" posts "$port" /api/check 8 "$T/bomb4.eml" >"$T/bombs.out" &
hc=$!
sleep 0.1
ht=$(healthz_time)
check "/healthz under 8 hostile POSTs at once: under 2 s (${ht} s)" \
	awk -v t="$ht" 'BEGIN { exit !(t < 2) }'
wait "$hc"
is "8 hostile POSTs at once: each refused 422" "$(cat "$T/bombs.out")" \
	"422 422 422 422 422 422 422 422"

# Authentication on the headers: /api/submit needs the token, and 40
# unauthenticated POSTs of 10 MiB at once are refused before their
# bodies are read.  Bound: the server's peak memory stays under 60 MB
# (reading the bodies first took 1.5 GB for 150 of them), on a server
# of its own.
serve "$T/web.db" --config "$T/web.conf" || exit 1
port=${URL##*:}
head -c $((10 << 20)) /dev/zero | tr '\0' 'x' >"$T/big.body"
"$HC" posts "$port" /api/submit 40 "$T/big.body" >"$T/unauth.out"
is "40 unauthenticated 10 MiB POSTs: each answered 401" \
	"$(tr ' ' '\n' <"$T/unauth.out" | sort | uniq -c | awk '{ print $1 "x" $2 }')" "40x401"
kb=$(peak_kb "$SERVE_PID")
check "40 unauthenticated 10 MiB POSTs: server peak under 60 MB ($kb KiB)" test "$kb" -lt 60000
is "the server still answers" "$(curl -s -o /dev/null -w '%{http_code}' "$URL/healthz")" 200

# [web] client_connections (default 32): 600 half-open connections
# from one client (127.0.0.2, a header line each 10 s) no longer fill
# the server's 512; another client's /healthz answers within 2 s.
serve "$T/web.db" --config "$T/web.conf" || exit 1
port=${URL##*:}
"$HC" slow "$port" 600 127.0.0.2 >"$T/slow.out" &
hc=$!
for i in $(seq 100); do [ -s "$T/slow.out" ] && break; sleep 0.1; done
ht=$(healthz_time)
check "/healthz beside 600 slow connections of one client: under 2 s (${ht} s)" \
	awk -v t="$ht" 'BEGIN { exit !(t < 2) }'
check "the slow client holds at most 32 connections ($(cat "$T/slow.out"))" \
	test "$(awk '{ print $2 }' "$T/slow.out")" -le 32
kill "$hc" 2>/dev/null
wait "$hc" 2>/dev/null

# [web] client_posts: the sixth POST in a minute from one address
# without the token is answered 429, with Retry-After, before its body
# is read; with the token it is not counted.
printf '[web]\ntoken = 0123456789abcdef0123\nclient_posts = 5\n' >"$T/rate.conf"
chmod 600 "$T/rate.conf"
serve "$T/web.db" --config "$T/rate.conf" || exit 1
patch=$TOP/tests/cases/FINDINGS_CAPPED/capped.patch
for i in 1 2 3 4 5; do get --data-binary @"$patch" "$URL/api/check" >/dev/null; done
is "client_posts = 5: the fifth POST answered" "$(code)" 200
curl -s -D "$T/hdr" -o /dev/null --data-binary @"$patch" "$URL/api/check"
contains "client_posts = 5: the sixth answered 429" "$(head -n 1 "$T/hdr")" " 429"
contains "client_posts = 5: Retry-After" "$(cat "$T/hdr")" "Retry-After: 60"
get -H 'Authorization: Bearer 0123456789abcdef0123' --data-binary @"$patch" "$URL/api/check" >/dev/null
is "client_posts = 5: with the token, not counted" "$(code)" 200

# The table of counted clients (4,096) full of addresses that posted
# within the minute: a new address is refused, not every count forgotten
# (which let whoever holds many addresses reset everyone's, its own too).
# Loopback's 127.0.0.0/8 gives the addresses.
printf '[web]\nclient_posts = 1\n' >"$T/full.conf"
serve "$T/web.db" --config "$T/full.conf" || exit 1
get --data-binary @"$patch" "$URL/api/check" >/dev/null
is "client_posts = 1: 127.0.0.1's first POST answered" "$(code)" 200
out=$(/usr/bin/python3 - "${URL#http://}" <<'PY'
import http.client, sys
host, port = sys.argv[1].rsplit(":", 1)
def post(src):
    c = http.client.HTTPConnection(host, int(port), timeout=10, source_address=(src, 0))
    c.request("POST", "/api/check", body=b"x")
    s = c.getresponse().status
    c.close()
    return s
codes = [post("127.1.%d.%d" % (i // 250, i % 250 + 1)) for i in range(4095)]
print(sum(c == 429 for c in codes), post("127.2.0.1"))
PY
)
is "4,095 other addresses counted, none refused; the 4,097th refused" "$out" "0 429"
get --data-binary @"$patch" "$URL/api/check" >/dev/null
is "then 127.0.0.1's second POST: still past its limit" "$(code)" 429

# [web] check_cpu: an mbox of eight 5 MiB patches (about 2 s of CPU in
# all) under check_cpu = 1 stops between messages and is answered 413,
# naming the message it stopped before.
printf '[web]\nmax_body = 65536\ncheck_cpu = 1\n' >"$T/cpu.conf"
serve "$T/web.db" --config "$T/cpu.conf" || exit 1
/usr/bin/python3 - "$T/eight.mbox" <<'PY'
import sys
n = (5 << 20) // 40
with open(sys.argv[1], "w") as f:
    for i in range(8):
        f.write("From x Mon Jan  1 00:00:00 2024\nFrom: A <a@example.org>\n"
                "Subject: [PATCH] big %d\nMessage-ID: <big%d@x>\n\nx\n---\n"
                "diff --git a/f.c b/f.c\n--- a/f.c\n+++ b/f.c\n@@ -0,0 +1,%d @@\n" % (i, i, n))
        f.write('+\tchmod("f", 0777); /* xxxxxxxxxx */\n' * n)
        f.write("\n")
PY
body=$(get --data-binary @"$T/eight.mbox" "$URL/api/check")
is "check_cpu = 1, eight 5 MiB patches: 413" "$(code)" 413
contains "check_cpu = 1: says where it stopped" "$body" "s of CPU ([web] check_cpu): stopped before message"

# At most eight bodies of [web] max_body are read at once: twelve POSTs
# that announce 1 MiB (max_body = 1024) and send it slowly hold eight;
# the others, and one more, are answered 503 with Retry-After before
# their bodies are read.
printf '[web]\nmax_body = 1024\n' >"$T/bodies.conf"
serve "$T/web.db" --config "$T/bodies.conf" || exit 1
"$HC" slowpost "${URL##*:}" /api/check 12 $((1 << 20)) >"$T/slowpost.out" &
hc=$!
for i in $(seq 100); do [ -s "$T/slowpost.out" ] && break; sleep 0.1; done
is "twelve slow 1 MiB POSTs: eight are read at once" "$(cat "$T/slowpost.out")" "open 8"
curl -s -D "$T/hdr" -o /dev/null --data-binary @"$patch" "$URL/api/check"
contains "one more POST: 503" "$(head -n 1 "$T/hdr")" " 503"
contains "one more POST: Retry-After" "$(cat "$T/hdr")" "Retry-After: 60"
is "a GET is still answered" "$(curl -s -o /dev/null -w '%{http_code}' "$URL/healthz")" 200
kill "$hc" 2>/dev/null
wait "$hc" 2>/dev/null

# Off loopback every request needs the token: 40 unauthenticated 10 MiB
# POSTs to /api/check on a server listening on 0.0.0.0 (reached over
# loopback) are refused on their headers.  Bound: peak under 60 MB.
port=$(free_port)
$PW serve --db "$T/web.db" --config "$T/web.conf" --listen "0.0.0.0:$port" 2>"$T/serve-$port.err" &
pid=$!
at_exit "serve_stopped $pid $T/serve-$port.err"
for i in $(seq 100); do
	curl -s -o /dev/null "http://127.0.0.1:$port/healthz" && break
	sleep 0.1
done
"$HC" posts "$port" /api/check 40 "$T/big.body" >"$T/unauth.out"
is "off loopback, 40 unauthenticated 10 MiB POSTs: each answered 401" \
	"$(tr ' ' '\n' <"$T/unauth.out" | sort | uniq -c | awk '{ print $1 "x" $2 }')" "40x401"
kb=$(peak_kb "$pid")
check "off loopback, 40 unauthenticated 10 MiB POSTs: server peak under 60 MB ($kb KiB)" test "$kb" -lt 60000
