#!/usr/bin/env bash
# patchwarden run, the service, on a subscribed archive: the reply to an
# unthreaded patch of a series announced as large is held while it may
# be a flood, and released by the service itself once the flood window
# closes; SIGHUP reads the configuration again (a broken one is refused
# and the one in use stays); SIGTERM ends it with status 0.
. "$(dirname "$0")/../lib.sh"

q() { sqlite3 -batch -noheader "$1" "$2"; }
# wait_for SECONDS CMD...: until CMD succeeds, or false after SECONDS.
wait_for() {
	local end=$((SECONDS + $1)); shift
	until "$@"; do [ $SECONDS -ge $end ] && return 1; sleep 0.2; done
}
# answers_http PATH: whether the dashboard answers PATH with 200 now.
answers_http() { [ "$(http "$1")" = 200 ]; }
# answers SQL WANT: whether the store answers SQL with WANT now.
answers() { [ "$(q "$db" "$1")" = "$2" ]; }

db=$T/pw.db
conf=$T/pw.conf
port=$(free_port)
cat >"$conf" <<EOF
[list *]
mail = author
[reply]
max_age = 0
[flood]
count = 3
window = 5
[web]
listen = 127.0.0.1:$port
EOF
# http PATH: the status the service's dashboard answers PATH with.
http() { curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$port$1"; }
$PW archive "$T/inbox" "$TOP/tests/data/sample.mbox" >/dev/null
$PW subscribe --db "$db" add sample "$T/inbox" --interval 1s >/dev/null
$PW run --config "$conf" --db "$db" 2>"$T/log" &
pid=$!
at_exit "kill $pid 2>/dev/null"
check "service: the archive backfilled" wait_for 30 \
	answers "SELECT backfilled FROM subscription" 1
is "service: serves the dashboard ([web] listen)" "$(http /api/series)" 200
is "service: backfill answered nobody" \
	"$(q "$db" "SELECT count(*) FROM outbox WHERE state <> 'suppressed'")" 0

# One patch of a series of five, sent on its own: maybe the first of a
# flood, so its reply waits.
sed -e 's/^Subject: \[PATCH\]/Subject: [PATCH 1\/5]/' \
    -e 's/^Message-ID: .*/Message-ID: <held-1@example.org>/' \
    "$TOP/tests/data/arrival.eml" >"$T/held.eml"
$PW archive "$T/inbox" "$T/held.eml" >/dev/null
check "held: the patch is read" wait_for 30 \
	answers "SELECT count(*) FROM outbox WHERE answers = 'msg:held-1@example.org'" 1
reason=$(q "$db" "SELECT state || ': ' || reason FROM outbox WHERE answers = 'msg:held-1@example.org'")
contains "held: its reply waits, and says why" "$reason" "suppressed: an unthreaded patch of a series announced as large"
check "released when the window closes, and sent" wait_for 30 \
	answers "SELECT state FROM outbox WHERE answers = 'msg:held-1@example.org'" sent
is "released: written once to the dry-run mbox" "$(grep -c '^In-Reply-To: <held-1@example.org>' "$T/outbox.mbox")" 1
contains "released: the log says so" "$(cat "$T/log")" "held replies released"

# SIGHUP: a configuration read again; a broken one refused.
kill -HUP $pid
check "SIGHUP: read again" wait_for 10 grep -q "reload: configuration $conf read again" "$T/log"
check "SIGHUP: the dashboard serves again" wait_for 10 answers_http /
cp "$conf" "$T/good.conf"
printf '[flood]\ncount = 1\n' >"$conf"
kill -HUP $pid
check "SIGHUP: a broken configuration refused" wait_for 10 grep -q "the configuration in use stays" "$T/log"
check "and the service still runs" kill -0 $pid

start=$SECONDS
kill -TERM $pid
wait $pid
is "SIGTERM: exit status 0" "$?" 0
check "SIGTERM: within 5 s" test $((SECONDS - start)) -le 5
contains "SIGTERM: says it stopped" "$(cat "$T/log")" "service: stopped"
