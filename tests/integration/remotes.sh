#!/usr/bin/env bash
# patchwarden against remotes that stall or hang up, real servers on
# loopback behind tests/stall_proxy.py: an SMTP server that greets and
# then says nothing (tests/smtp_server.py), public-inbox-httpd stalling
# or dropping the connection in the middle of a fetch, and Dovecot
# dropping it in the middle of a FETCH.  [smtp] timeout and [core]
# fetch_timeout end the wait; nothing is lost and nothing is done twice:
# the reply stays queued and is sent once to a healthy server, the next
# poll stores the rest, every message once, the cursors never pass a
# message that was not stored.
. "$(dirname "$0")/../lib.sh"
. "$TOP/tests/lib_pi.sh"
need curl sqlite3

# proxy NAME TO_PORT ARGS...: tests/stall_proxy.py to 127.0.0.1:TO_PORT;
# its port in ${NAME}_PORT, what it did in $T/NAME.log.
# proxy_stop NAME: stops it; "proxy NAME" again opens the same port.
proxy() {
	local name=$1 to=$2 port i pidv=${1}_PID portv=${1}_PORT
	shift 2
	port=${!portv:-$(free_port)}
	rm -f "$T/$name.out"
	$PY "$TOP/tests/stall_proxy.py" --port "$port" --to "$to" --log "$T/$name.log" "$@" \
		>"$T/$name.out" 2>"$T/$name.err" &
	printf -v "$pidv" %s $!
	at_exit "kill $! 2>/dev/null"
	printf -v "$portv" %s "$port"
	for i in $(seq 50); do
		grep -q ready "$T/$name.out" 2>/dev/null && return 0
		sleep 0.1
	done
	echo "# stall_proxy $name did not start:"; sed 's/^/#   /' "$T/$name.err"
	return 1
}
proxy_stop() {
	local pidv=${1}_PID
	kill "${!pidv}" 2>/dev/null
	wait "${!pidv}" 2>/dev/null
}
# misbehaved NAME: how many connections the proxy stalled or dropped.
misbehaved() { [ -f "$T/$1.log" ] && wc -l <"$T/$1.log" || echo 0; }
# timed VAR CMD...: runs CMD, its status in $rc and the seconds in VAR.
timed() {
	local var=$1 start
	shift
	start=$(date +%s)
	"$@"
	rc=$?
	printf -v "$var" %s $(( $(date +%s) - start ))
}
dupes() { q "$1" "SELECT count(*) - count(DISTINCT msgid) FROM message"; }

# ---- SMTP: a server that greets, then stalls ----------------------------
mkdir -p "$T/smtp"
SMTP_PORT=$(free_port)
$PY "$TOP/tests/smtp_server.py" --port "$SMTP_PORT" --dir "$T/smtp" >"$T/smtp.out" 2>"$T/smtp.err" &
at_exit "kill $! 2>/dev/null"
for _ in $(seq 100); do grep -q ready "$T/smtp.out" 2>/dev/null && break; sleep 0.1; done
received() { [ -f "$T/smtp/log.jsonl" ] && wc -l <"$T/smtp/log.jsonl" || echo 0; }
proxy smtpstall "$SMTP_PORT" --stall-after 1 || exit 1
smtpconf() {	# FILE PORT
	pwconf "$1" "[smtp]" "url = smtp://127.0.0.1:$2" "from = patchwarden <bot@example.org>" \
		"starttls = no" "timeout = 3" \
		"[list linux-foo]" "address = linux-foo@vger.example.org" "mail = author"
}
smtpconf "$T/stall.conf" "$smtpstall_PORT"
smtpconf "$T/good.conf" "$SMTP_PORT"
SDB=$T/smtp.db
mkpatch "$T/p1.eml" p1@example.com
$PW ingest -q --reply --list linux-foo --db "$SDB" --config "$T/good.conf" "$T/p1.eml" >/dev/null 2>"$T/err"
is "fixture: one reply queued" "$(q "$SDB" "SELECT count(*) FROM outbox WHERE state = 'pending'")" 1
timed secs $PW outbox send --db "$SDB" --config "$T/stall.conf" >/dev/null 2>"$T/send.err"
check "a stalled SMTP server: outbox send gives up after [smtp] timeout (took ${secs}s)" \
	test "$secs" -lt 20
check "a stalled SMTP server: the proxy stalled it" test "$(misbehaved smtpstall)" -ge 1
is "a stalled SMTP server: nothing reached the server" "$(received)" 0
is "a stalled SMTP server: the reply is still queued" \
	"$(q "$SDB" "SELECT state FROM outbox")" pending
contains "a stalled SMTP server: the failure is said" "$(cat "$T/send.err")" "deferred: Operation timed out"
# Due again at once: the retry waits for the time the failure set.
q "$SDB" "UPDATE outbox SET next_attempt = 0"
$PW outbox send --db "$SDB" --config "$T/good.conf" >/dev/null 2>"$T/send.err"
is "then a healthy server: sent" "$(q "$SDB" "SELECT state FROM outbox")" sent
is "then a healthy server: received once" "$(received)" 1
q "$SDB" "UPDATE outbox SET next_attempt = 0"
$PW outbox send --db "$SDB" --config "$T/good.conf" >/dev/null 2>"$T/send.err"
is "outbox send again: never twice" "$(received)" 1

# ---- public-inbox over HTTP: a fetch that stalls, one that drops -------
n=$(split_mbox "$TOP/tests/data/sample.mbox" "$T/msgs" --unique --ids "$T/ids")
pi_init foo || exit 1
is "fixture: the sample in the inbox" "$(pi_deliver_fast foo "$T"/msgs/*)" "$n"
# A second inbox (public-inbox-httpd reads its inboxes when it starts).
big_mail "$T/big" 300 "$T/bigids" >/dev/null || exit 1
pi_init bar || exit 1
is "fixture: 300 messages in a second inbox" "$(pi_deliver_fast bar "$T"/big/*)" 300
pi_serve || exit 1
# The first connection that carries more than 8 KiB (the pack) stalls.
proxy httpstall "$PI_PORT" --stall-after 8192 --times 1 || exit 1
PDB=$T/pi.db
pwconf "$T/pi.conf" "[core]" "fetch_timeout = 3"
$PW subscribe add --db "$PDB" foo "http://127.0.0.1:$httpstall_PORT/foo/" >/dev/null 2>"$T/err"
is "subscribe add through the proxy" "$?" 0
timed secs $PW poll --db "$PDB" --config "$T/pi.conf" >"$T/poll.out" 2>"$T/poll.err"
is "a stalled fetch: the proxy stalled it" "$(misbehaved httpstall)" 1
is "a stalled fetch: the poll says the source failed (status 1)" "$rc" 1
check "a stalled fetch: killed after [core] fetch_timeout (took ${secs}s)" test "$secs" -lt 30
contains "a stalled fetch: the failure is said" "$(cat "$T/poll.out" "$T/poll.err")" "foo: "
is "a stalled fetch: nothing stored" "$(stored "$PDB")" 0
$PW poll --db "$PDB" --config "$T/pi.conf" >/dev/null 2>"$T/poll.err"
is "the next poll: completes" "$?" 0
is "the next poll: every message stored" "$(stored "$PDB")" "$n"
is "the next poll: none missing" "$(missing "$PDB" "$T/ids")" 0
is "the next poll: none twice" "$(dupes "$PDB")" 0

# A second inbox, and a connection that drops in the middle of its pack.
proxy httpdrop "$PI_PORT" --drop-after 65536 --times 1 || exit 1
$PW subscribe add --db "$PDB" bar "http://127.0.0.1:$httpdrop_PORT/bar/" >/dev/null 2>"$T/err"
$PW poll --db "$PDB" --config "$T/pi.conf" >"$T/poll.out" 2>"$T/poll.err"
rc=$?
is "a dropped fetch: the proxy dropped it" "$(misbehaved httpdrop)" 1
[ "$rc" = 1 ] || sed 's/^/#   /' "$T/poll.out" "$T/poll.err"
is "a dropped fetch: the poll says the source failed (status 1)" "$rc" 1
$PW poll --db "$PDB" --config "$T/pi.conf" >"$T/poll.out" 2>"$T/poll.err"
rc=$?
is "the next poll: completes" "$rc" 0
[ "$rc" = 0 ] || sed 's/^/#   /' "$T/poll.out" "$T/poll.err"
# (The sample and the corpus share messages: each is stored once.)
is "the next poll: every message of both stored" "$(stored "$PDB")" \
	"$(sort -u "$T/ids" "$T/bigids" | wc -l)"
is "the next poll: none of the second missing" "$(missing "$PDB" "$T/bigids")" 0
is "the next poll: none twice" "$(dupes "$PDB")" 0

# ---- IMAP: a connection dropped in the middle of a FETCH ----------------
dc_start || exit 1
dc_mailbox lists
dc_append lists "$T"/big/*
is "fixture: 300 messages in the mailbox" "$(dc_status lists MESSAGES)" 300
# Every connection is dropped after 64 KiB: the poll's own reconnections
# (bot/imap.c asks again on a new connection, a few times) each bring a
# few messages, then it gives up.
proxy imapdrop "$DC_PORT" --drop-after 65536 || exit 1
IDB=$T/imap.db
pwconf "$T/imap.conf" "[imap]" "user = $DC_USER" "password = $DC_PASS" "starttls = no" "timeout = 5"
$PW subscribe add --db "$IDB" box "imap://127.0.0.1:$imapdrop_PORT/lists" >/dev/null 2>"$T/err"
is "subscribe add imap:// through the proxy" "$?" 0
cursor() { q "$IDB" "SELECT value FROM cursor WHERE source LIKE 'sub:%:imap'"; }
$PW poll --db "$IDB" --config "$T/imap.conf" >"$T/poll.out" 2>"$T/poll.err"
rc=$?
check "dropped FETCHes: the proxy dropped them ($(misbehaved imapdrop))" test "$(misbehaved imapdrop)" -ge 2
part=$(stored "$IDB")
# Whether the poll's reconnections get through depends on where in a
# transfer each drop lands (libcurl itself retries a request whose
# reused connection died before any answer): the status must tell
# which happened, 1 with some left, 0 with all stored.
if [ "$rc" = 1 ]; then
	check "dropped FETCHes: the poll says the source failed, fewer than all stored ($part)" test "$part" -lt 300
else
	is "dropped FETCHes: the poll got through its drops: status 0, all stored" "$rc,$part" "0,300"
fi
# The mailbox's UIDs run 1..300 in the order appended, and so do the
# stored messages: the cursor must be at the last one stored, not past.
cur=$(cursor); cur=${cur:-0:0}
is "dropped FETCHes: the cursor is at the last message stored" "${cur##*:}" "$part"
is "dropped FETCHes: none twice" "$(dupes "$IDB")" 0
# The remote is well again (the same address).
proxy_stop imapdrop
proxy imapdrop "$DC_PORT" --drop-after 65536 --times 0 || exit 1
$PW poll --db "$IDB" --config "$T/imap.conf" >/dev/null 2>"$T/poll.err"
is "the next poll: completes" "$?" 0
is "the next poll: every message stored" "$(stored "$IDB")" 300
is "the next poll: none missing" "$(missing "$IDB" "$T/bigids")" 0
is "the next poll: none twice" "$(dupes "$IDB")" 0
cur=$(cursor); cur=${cur:-0:0}
is "the next poll: the cursor at the last UID" "${cur##*:}" 300
