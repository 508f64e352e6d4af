#!/usr/bin/env bash
# patchwarden run with no SOURCE, the service, on a public-inbox v2 inbox
# served by public-inbox-httpd, polled every second: it backfills without
# answering, a patch delivered while it runs gets its one reply in the
# dry-run mbox, SIGTERM and SIGINT end it with status 0 within 5 s;
# SIGTERM in the middle of a long first poll (5,000 messages) too, and a
# following poll stores the rest, every message exactly once.
. "$(dirname "$0")/../lib.sh"
. "$TOP/tests/lib_pi.sh"
pyq_start	# sub_field asks the one Python process of pyq

n=$(split_mbox "$TOP/tests/data/sample.mbox" "$T/msgs" --unique --ids "$T/ids")
pi_init foo || exit 1
pi_deliver_fast foo "$T"/msgs/* >/dev/null
# The big inbox for the long poll (public-inbox-httpd reads its inboxes
# when it starts).
start=$SECONDS
big=$(big_mail "$T/big" 5000 "$T/big.ids")
pi_init big || exit 1
is "fixture: 5,000 messages in the big inbox (git fast-import)" "$(pi_import_fast big "$T"/big/*)" "$big"
echo "# the big inbox made in $((SECONDS - start)) s"
pi_serve || exit 1
DB=$T/pw.db
C=$T/pw.conf
pwconf "$C"
OUTBOX=$T/outbox.mbox
list_json() { $PW subscribe list --db "$DB" --format json 2>/dev/null; }
backfilled() { [ "$(sub_field "$(list_json)" "$1" backfilled)" = true ]; }

$PW subscribe add --db "$DB" foo "$PI_URL/foo/" --interval 1s >/dev/null 2>"$T/err"
is "subscribed, every 1s" "$?" 0

# ---- the service: backfill, then a delivered patch answered once ----
svc_start "$T/svc.log" --db "$DB" --config "$C"
check "the service backfills within 20 s" wait_until 20 backfilled foo
check "the service is still running after its first poll" eval "! gone $SVC_PID"
is "backfill: every message stored" "$(stored "$DB")" "$n"
is "backfill: no reply" "$(replies "$DB")" 0
mkpatch "$T/p1.eml" p1@example.com
pi_deliver_fast foo "$T/p1.eml" >/dev/null
check "a delivered patch: its reply in the dry-run mbox within 15 s" \
	wait_until 15 eval '[ "$(mbox_replies "$OUTBOX" p1@example.com)" = 1 ]'
sleep 2.5	# two more intervals
is "a delivered patch: one reply, not more" \
	"$(mbox_replies "$OUTBOX" p1@example.com),$(replies_to "$DB" p1@example.com)" 1,1
is "the backfill still unanswered" "$(grep -c '^From ' "$OUTBOX" 2>/dev/null)" 1
check "the service logs on stderr" test -s "$T/svc.log"
svc_signal TERM; rc=$SIG_RC secs=$SIG_SECS
is "SIGTERM: exit status 0" "$rc" 0
check "SIGTERM: ended within 5 s ($secs s)" within 5 "$secs"

svc_start "$T/svc2.log" --db "$DB" --config "$C"
sleep 1.5
svc_signal INT; rc=$SIG_RC secs=$SIG_SECS
is "SIGINT: exit status 0" "$rc" 0
check "SIGINT: ended within 5 s ($secs s)" within 5 "$secs"
is "restarts: still one reply" "$(mbox_replies "$OUTBOX" p1@example.com)" 1
is "restarts: nothing stored twice" "$(stored "$DB")" $((n + 1))

# ---- SIGTERM during a long first poll ----
# Through a proxy that sends 2 MB a second, the fetch of the 5,000
# messages (about 14 MB) takes some seconds: SIGTERM comes while
# libgit2 is fetching (it has no timeout of its own).
DB2=$T/big.db
slow_proxy "$PI_PORT" 2000000 || exit 1
$PW subscribe add --db "$DB2" big "http://127.0.0.1:$SLOW_PORT/big/" --interval 1s >/dev/null 2>"$T/err"
svc_start "$T/svc3.log" --db "$DB2" --config "$C"
sleep 2
svc_signal TERM
is "SIGTERM during a slow fetch: exit status 0" "$SIG_RC" 0
check "SIGTERM during a slow fetch: ended within 5 s ($SIG_SECS s)" within 5 "$SIG_SECS"
is "SIGTERM during a slow fetch: the first poll not complete" \
	"$(sub_field "$($PW subscribe list --db "$DB2" --format json)" big backfilled)" false
$PW poll --db "$DB2" --config "$C" >"$T/poll.out" 2>"$T/poll.err"
is "the following poll: exit 0" "$?" 0
is "the following poll: every message stored" "$(stored "$DB2")" "$big"
is "the following poll: none missing" "$(missing "$DB2" "$T/big.ids")" 0
is "the following poll: backfill, no reply" "$(replies "$DB2")" 0

# Straight to the server: SIGTERM after 0.3 s, then 0.6 s, ... each time
# started again on the same store, until the first poll completes; each
# time status 0 within 5 s.  Wherever the signals land (fetch, walk,
# storing), the end is every message once.
DB3=$T/big3.db
$PW subscribe add --db "$DB3" big "$PI_URL/big/" --interval 1s >/dev/null 2>"$T/err"
bad= mid=0 d=0
for i in $(seq 15); do
	d=$(echo "$d + 0.3" | bc)
	svc_start "$T/svc4.log" --db "$DB3" --config "$C"
	sleep "$d"
	svc_signal TERM
	s=$(stored "$DB3")
	echo "# SIGTERM after $d s: status $SIG_RC in $SIG_SECS s, $s of $big stored"
	{ [ "$SIG_RC" = 0 ] && within 5 "$SIG_SECS"; } || bad="$bad $d:$SIG_RC/${SIG_SECS}s"
	[ "$s" != "?" ] && [ "$s" -gt 0 ] && [ "$s" -lt "$big" ] && mid=$((mid + 1))
	[ "$(sub_field "$($PW subscribe list --db "$DB3" --format json)" big backfilled)" = true ] && break
done
is "SIGTERM at growing delays: each time status 0 within 5 s" "${bad:-none}" none
echo "# $mid of $i signals landed while the backfill was half stored"
$PW poll --db "$DB3" --config "$C" >"$T/poll.out" 2>"$T/poll.err"
is "after the signals, a poll: exit 0" "$?" 0
is "after the signals: every message stored" "$(stored "$DB3")" "$big"
is "after the signals: none missing" "$(missing "$DB3" "$T/big.ids")" 0
is "after the signals: no reply" "$(replies "$DB3")" 0
is "after the signals: the subscription counts each message once" \
	"$(sub_field "$($PW subscribe list --db "$DB3" --format json)" big messages)" "$big"
