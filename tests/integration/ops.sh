#!/usr/bin/env bash
# An operator's signals, on a real public-inbox v2 inbox of real list
# mail (tests/lib_pi.sh): "poll --progress" and the service's log show a
# first poll's progress with the time left; a second service on one
# store is refused and names the first (its PID, since when), and the
# next one starts once the first is killed with -9; the dashboard's
# /healthz (200/503, text and JSON, curl -f) and /metrics (Prometheus
# text format 0.0.4, read by prometheus_client's own parser).
. "$(dirname "$0")/../lib.sh"
. "$TOP/tests/lib_pi.sh"
need curl sqlite3

N=3000
big=$(big_mail "$T/big" $N "$T/big.ids")
pi_init big || exit 1
is "fixture: $N messages in the inbox" "$(pi_import_fast big "$T"/big/*)" "$big"
C=$T/pw.conf
pwconf "$C"

# ---- poll --progress ----
DB=$T/pw.db
LIST='hw "odd" \list'
$PW subscribe add --db "$DB" --list "$LIST" big "$PI_DIR/big" >/dev/null
$PW poll --db "$DB" --config "$C" --progress 700 >"$T/poll.out" 2>"$T/poll.err"
is "poll --progress: status 0" "$?" 0
is "poll --progress: a line every 700 messages and one at the end" \
	"$(grep -c '^big: progress: messages=' "$T/poll.err")" 5
check "poll --progress: how far, of how many, the time left" \
	grep -qE '^big: progress: messages=700 total=700 seconds=[0-9.]+ .* rate=[0-9]+ read=700 expected=3000 eta=[0-9]+$' "$T/poll.err"
check "poll --progress: the last line, all read, none left" \
	grep -qE "^big: progress: messages=200 total=$N .* read=$N expected=$N eta=0$" "$T/poll.err"
check "poll: its summary on stdout as before" grep -q "^big: messages=$N " "$T/poll.out"
$PW poll --db "$DB" --config "$C" --progress -1 >/dev/null 2>&1
is "poll --progress -1: usage error" "$?" 2

# ---- one service per store ----
D2=$T/svc.db
$PW subscribe add --db "$D2" big "$PI_DIR/big" --interval 1s >/dev/null
svc_start "$T/svc1.log" --db "$D2" --config "$C"
first=$SVC_PID
check "the first service starts" wait_until 20 grep -q 'service: started' "$T/svc1.log"
check "its first poll's progress in its log, with the time left" \
	wait_until 30 grep -qE "big: progress: messages=[0-9]+ total=$N .* read=$N expected=$N eta=0" "$T/svc1.log"
$PW run --db "$D2" --config "$C" >"$T/svc2.out" 2>"$T/svc2.log"
rc=$?
is "a second service on the store: refused, status 75" "$rc" 75
contains "it names the first one's PID and since when" "$(cat "$T/svc2.log")" "process $first (since 20"
check "it polled nothing" eval '! grep -q "poll failed\|progress" "$T/svc2.log"'
# The same store through a symbolic link: the same store, refused too.
ln -s "$D2" "$T/link.db"
# (Bounded: a service that is not refused runs until stopped.)
timeout 20 $PW run --db "$T/link.db" --config "$C" >"$T/svc2l.out" 2>"$T/svc2l.log"
is "a second service through a symbolic link to the store: refused, status 75" "$?" 75
contains "it names the first one" "$(cat "$T/svc2l.log")" "process $first (since 20"
check "it polled nothing" eval '! grep -q "poll failed\|progress" "$T/svc2l.log"'
kill -9 "$first"; wait "$first" 2>/dev/null
wait_until 10 gone "$first"
svc_start "$T/svc3.log" --db "$D2" --config "$C"
check "after kill -9 of the first, the next one starts" \
	wait_until 20 grep -q "service: started (pid $SVC_PID)" "$T/svc3.log"
svc_signal TERM
is "it stops with status 0" "$SIG_RC" 0
is "every message stored once" "$(stored "$D2")" "$N"

# ---- the service's log ----
# Outside the journal each line starts with its time; a subscription
# that failed and polls again says so.
D3=$T/rec.db
mkdir -p "$T/box/cur" "$T/box/new" "$T/box/tmp"
$PW subscribe add --db "$D3" --interval 1s box "$T/box" >/dev/null
mv "$T/box" "$T/box.away"
svc_start "$T/rec.log" --db "$D3" --config "$C"
check "a folder gone: the poll fails" wait_until 20 grep -q 'box: poll failed (1 in a row' "$T/rec.log"
mv "$T/box.away" "$T/box"
q "$D3" "UPDATE subscription SET next_poll = 0"
check "the folder back: one line says it recovered" \
	wait_until 20 grep -qE 'patchwarden: box: recovered after 1 failed poll \([0-9]+ s without a successful poll\)' "$T/rec.log"
svc_signal TERM
is "it stops with status 0" "$SIG_RC" 0
check "the log has lines" test "$(grep -c . "$T/rec.log")" -ge 4
is "every line of the log starts with its time, ISO 8601 in UTC" \
	"$(grep -cvE '^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}\.[0-9]{3}Z patchwarden: ' "$T/rec.log")" 0

# ---- /healthz and /metrics ----
port=$(free_port)
serve() {
	$PW serve --db "$DB" --listen "127.0.0.1:$port" "$@" >"$T/serve.log" 2>&1 &
	SERVE=$!
	at_exit "kill $SERVE 2>/dev/null"
	wait_until 10 curl -s -o /dev/null "http://127.0.0.1:$port/healthz"
}
unserve() { kill "$SERVE"; wait "$SERVE" 2>/dev/null; }
U=http://127.0.0.1:$port
serve --config "$C"
out=$(curl -fsS "$U/healthz"); rc=$?
is "healthz: curl -f exits 0 when healthy" "$rc" 0
contains "healthz: says ok" "$out" "ok: the store is readable"
contains "healthz: the subscription's last successful poll and its age" "$out" "subscription big: ok, last successful poll 20"
is "healthz: 200" "$(curl -s -o /dev/null -w '%{http_code}' "$U/healthz")" 200
json=$(curl -s -H 'Accept: application/json' "$U/healthz")
is "healthz, Accept: application/json: JSON" \
	"$(printf '%s' "$json" | $PY -c 'import json,sys; d=json.load(sys.stdin); s=d["subscriptions"][0]; print(d["status"], d["store"], s["name"], s["state"], s["age"] >= 0, s["stale_after"])')" \
	"ok readable big ok True 900"
is "healthz?format=json: the same" "$(curl -s "$U/healthz?format=json" | $PY -c 'import json,sys; print(json.load(sys.stdin)["status"])')" ok

# Every page's latency is counted; a page twice, from the cache.
curl -s -o /dev/null "$U/"; curl -s -o /dev/null "$U/"; curl -s -o /dev/null "$U/message/nosuch@x"
# A message of the subscription that could not be read.
q "$DB" "INSERT INTO ingest_error(source, location, error, at) VALUES ('$PI_DIR/big', 'message 7', 'not a mail message', 1700000000)"
curl -s "$U/metrics" -D "$T/metrics.h" -o "$T/metrics.txt"
contains "metrics: the exposition format's content type" "$(cat "$T/metrics.h")" "text/plain; version=0.0.4"
$PY - "$T/metrics.txt" "$N" "$LIST" >"$T/parsed" 2>&1 <<'PYEOF'
import sys
from prometheus_client.parser import text_string_to_metric_families
text = open(sys.argv[1]).read()
n, lst = int(sys.argv[2]), sys.argv[3]
fams = {f.name: f for f in text_string_to_metric_families(text)}
def samples(name, suffix=""):
    return [s for s in fams[name].samples if s.name == name + suffix]
msgs = samples("patchwarden_messages")
print("messages", int(sum(s.value for s in msgs)) == n,
      {s.labels["list"] for s in msgs} == {lst},
      int(sum(s.value for s in samples("patchwarden_messages_stored"))) == n)
print("types", fams["patchwarden_polls"].type, fams["patchwarden_messages"].type,
      fams["patchwarden_http_request_duration_seconds"].type,
      fams["patchwarden_poll_duration_seconds"].type)
print("polls", [(s.labels["subscription"], s.value) for s in samples("patchwarden_polls", "_total")])
print("poll seconds", all(s.value > 0 for s in samples("patchwarden_poll_duration_seconds", "_sum")))
f = [s for s in samples("patchwarden_findings") if s.value > 0]
print("findings", len(f) > 0, all(s.labels["severity"] in ("info", "warning", "error") for s in f))
h = fams["patchwarden_http_request_duration_seconds"].samples
count = {s.labels["endpoint"]: s.value for s in h if s.name.endswith("_count")}
print("latency", count.get("/"), count.get("/message/MSGID"), count.get("/healthz", 0) >= 3)
inf = {s.labels["endpoint"]: s.value for s in h if s.name.endswith("_bucket") and s.labels["le"] == "+Inf"}
print("buckets", inf == count)
print("readable", samples("patchwarden_store_readable")[0].value)
PYEOF
is "metrics: parsed by prometheus_client" "$(cat "$T/parsed")" \
"messages True True True
types counter gauge histogram summary
polls [('big', 1.0)]
poll seconds True
findings True True
latency 2.0 1.0 True
buckets True
readable 1.0"
check "metrics: a label value's quote and backslash escaped" \
	grep -qF 'list="hw \"odd\" \\list"' "$T/metrics.txt"
# metric NAME: the sum of the family's samples (0 when none).
metric() { awk -v n="$1" '$1 == n || index($1, n "{") == 1 { s += $NF } END { print s + 0 }' "$T/metrics.txt"; }
is "metrics: the overview's queue, by list" "$(metric patchwarden_attention_patches)" \
	"$(q "$DB" "SELECT count(*) FROM attention WHERE errs > 0 OR warns > 0")"
check "metrics: the outbox's queue (empty)" grep -qx 'patchwarden_outbox_queue 0' "$T/metrics.txt"
check "metrics: the unreadable message, under its subscription" \
	grep -qx 'patchwarden_unreadable_messages{subscription="big"} 1' "$T/metrics.txt"
check "metrics: the Patchwork queue's family" grep -q '^# TYPE patchwarden_patchwork_queue gauge$' "$T/metrics.txt"
check "metrics: when the store last answered" grep -qE '^patchwarden_store_read_timestamp_seconds [1-9][0-9]+$' "$T/metrics.txt"
check "metrics: HELP and TYPE for every family" \
	test "$(grep -c '^# HELP ' "$T/metrics.txt")" = "$(grep -c '^# TYPE ' "$T/metrics.txt")"

# A subscription that has not polled for long: 503, curl -f fails.
q "$DB" "UPDATE subscription SET last_ok = last_ok - 100000"
out=$(curl -fsS "$U/healthz" 2>/dev/null); rc=$?
is "healthz, stale: curl -f exits 22" "$rc" 22
is "healthz, stale: 503" "$(curl -s -o /dev/null -w '%{http_code}' "$U/healthz")" 503
contains "healthz, stale: says which" "$(curl -s "$U/healthz")" "subscription big: STALE"
is "healthz, stale: JSON" "$(curl -s "$U/healthz?format=json" | $PY -c 'import json,sys; d=json.load(sys.stdin); print(d["status"], d["subscriptions"][0]["state"])')" "unhealthy stale"
# [web] stale_after sets the limit.
unserve
pwconf "$C" '[web]' 'stale_after = 200000'
serve --config "$C"
is "healthz, [web] stale_after = 200000: 200 again" "$(curl -s -o /dev/null -w '%{http_code}' "$U/healthz")" 200
# A paused subscription is not stale.
pwconf "$C"
unserve; serve --config "$C"
$PW subscribe pause --db "$DB" big >/dev/null
is "healthz, paused: 200" "$(curl -s -o /dev/null -w '%{http_code}' "$U/healthz")" 200
# The store unreadable: 503, and metrics say so.  Each of the server's
# four connections reads both first: a read whose table is gone then
# fails (preparing a statement on a table that is not there aborts, as
# a programming error).
for p in healthz healthz healthz healthz metrics metrics metrics metrics; do curl -s -o /dev/null "$U/$p"; done
q "$DB" "ALTER TABLE subscription RENAME TO subscription_gone"
is "healthz, the store unreadable: 503" "$(curl -s -o /dev/null -w '%{http_code}' "$U/healthz")" 503
contains "healthz, the store unreadable: says so" "$(curl -s "$U/healthz")" "unhealthy: the store cannot be read"
check "metrics, the store unreadable: patchwarden_store_readable 0" \
	eval 'curl -s "$U/metrics" | grep -qx "patchwarden_store_readable 0"'
curl -s "$U/metrics" >"$T/metrics.txt"
check "metrics, the store unreadable: the last success of each subscription still served" \
	grep -qE '^patchwarden_poll_last_success_timestamp_seconds\{subscription="big"\} [1-9]' "$T/metrics.txt"
check "metrics, the store unreadable: and its other families" grep -q '^patchwarden_messages_stored{kind=' "$T/metrics.txt"
unserve
