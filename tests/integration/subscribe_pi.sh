#!/usr/bin/env bash
# patchwarden subscribe and poll on a real public-inbox v2 inbox (Debian's
# public-inbox tools), served by public-inbox-httpd on loopback and
# subscribed by URL: every message stored once, a second poll adds
# nothing, later deliveries arrive, an epoch roll-over is followed, a
# "d" removal is marked, the backfill is never answered and a later patch
# with a finding exactly once; subscribe list/pause/resume/remove; a
# subscription by path; a source that fails does not stop the others.
# (Later deliveries go through tests/pi_deliver.pl, public-inbox's own
# writer: the commits public-inbox-mda makes, as pi_fixtures.sh checks,
# without its start-up of seconds per message.)
. "$(dirname "$0")/../lib.sh"
. "$TOP/tests/lib_pi.sh"
pyq_start	# sub_field asks the one Python process of pyq

# The bundled sample (61 messages, one a patch with findings: with
# max_age = 0 it would be answered if the backfill were).
n=$(split_mbox "$TOP/tests/data/sample.mbox" "$T/msgs" --unique --ids "$T/ids")
pi_init foo || exit 1
is "fixture: the sample in the inbox" "$(pi_deliver_fast foo "$T"/msgs/*)" "$n"
pi_serve || exit 1
URL=$PI_URL/foo/
DB=$T/pw.db
C=$T/pw.conf
pwconf "$C"
OUTBOX=$T/outbox.mbox
poll() { $PW poll --db "$DB" --config "$C" "$@" 2>"$T/poll.err"; }
# poll leaves the replies in the outbox for "outbox send" (or the service).
sendout() { $PW outbox send --db "$DB" --config "$C" >/dev/null 2>>"$T/send.err"; }
list_json() { $PW subscribe list --db "$DB" --format json 2>/dev/null; }

# ---- subscribe add / list ----
out=$($PW subscribe add --db "$DB" foo "$URL" --interval 1s 2>"$T/err")
is "subscribe add by URL: exit 0" "$?" 0
js=$(list_json)
is "list: kind public-inbox" "$(sub_field "$js" foo kind)" public-inbox
contains "list: the URL" "$(sub_field "$js" foo url)" "127.0.0.1:$PI_PORT/foo"
is "list: not paused" "$(sub_field "$js" foo paused)" false
is "list: not backfilled before its first poll" "$(sub_field "$js" foo backfilled)" false
is "list: interval 1s is 1 second" "$(sub_field "$js" foo interval)" 1
$PW subscribe add --db "$DB" foo "$URL" >/dev/null 2>&1
is "subscribe add of a name taken: exit 2" "$?" 2
$PW subscribe add --db "$DB" bar "ftp://127.0.0.1/x" >/dev/null 2>&1
is "subscribe add of a URL it cannot read: exit 2" "$?" 2
$PW subscribe add --db "$DB" baz "$URL" --interval soon >/dev/null 2>&1
is "subscribe add with a bad --interval: exit 2" "$?" 2
is "list: only foo" "$(sub_field "$(list_json)" bar name)" missing

# ---- first poll: backfill, every message once, no reply ----
out=$(poll); rc=$?
is "first poll: exit 0" "$rc" 0
contains "first poll: says what foo added" "$out" "foo:"
is "first poll: every message stored" "$(stored "$DB")" "$n"
is "first poll: none missing" "$(missing "$DB" "$T/ids")" 0
is "backfill: no reply queued" "$(replies "$DB")" 0
is "backfill: nothing in the dry-run mbox" "$(mbox_replies "$OUTBOX" "20261103100000.1-sam@example.org")" 0
js=$(list_json)
is "list: backfilled after the first poll" "$(sub_field "$js" foo backfilled)" true
is "list: $n messages brought" "$(sub_field "$js" foo messages)" "$n"
is "list: no failures" "$(sub_field "$js" foo failures)" 0
is "list: no last error" "$(sub_field "$js" foo last_error)" ""
check "list: a last poll time" test -n "$(sub_field "$js" foo last_poll)"

# ---- second poll: nothing new ----
out=$(poll); rc=$?
is "second poll: exit 0" "$rc" 0
is "second poll: nothing added" "$(stored "$DB")" "$n"
is "second poll: says messages=0" "$(kv messages "$(printf '%s\n' "$out" | grep '^foo:')")" 0

# ---- delivered afterwards (public-inbox-mda): arrive, a patch answered once ----
mkpatch "$T/p1.eml" p1@example.com
mkmail "$T/c1.eml" c1@example.com
pi_deliver_fast foo "$T/p1.eml" "$T/c1.eml" >/dev/null
out=$(poll); rc=$?
is "after delivery: exit 0" "$rc" 0
is "after delivery: the 2 new messages stored" "$(stored "$DB")" $((n + 2))
is "after delivery: the patch answered once" "$(replies_to "$DB" p1@example.com)" 1
sendout
is "after delivery: the reply in the dry-run mbox" "$(mbox_replies "$OUTBOX" p1@example.com)" 1
is "after delivery: the comment not answered" "$(replies_to "$DB" c1@example.com)" 0
is "after delivery: still no reply to the backfill" \
	"$(replies_to "$DB" 20261103100000.1-sam@example.org)" 0
poll >/dev/null
sendout
is "poll again: still one reply" "$(replies_to "$DB" p1@example.com),$(mbox_replies "$OUTBOX" p1@example.com)" 1,1
is "poll again: nothing added" "$(stored "$DB")" $((n + 2))

# ---- epoch roll-over ----
mkpatch "$T/p2.eml" p2@example.com "Bea Builder <bea@example.com>"
mkmail "$T/c2.eml" c2@example.com
is "fixture: epoch 1 begins" "$(pi_new_epoch foo "$T/p2.eml" "$T/c2.eml"),$(pi_epochs foo)" "2,0 1"
out=$(poll); rc=$?
is "new epoch: exit 0" "$rc" 0
is "new epoch: its messages stored" "$(stored "$DB")" $((n + 4))
is "new epoch: its patch answered once" "$(replies_to "$DB" p2@example.com)" 1
mkmail "$T/c3.eml" c3@example.com
pi_deliver_fast foo "$T/c3.eml" >/dev/null
poll >/dev/null
is "new epoch: a later delivery there stored" "$(has "$DB" c3@example.com)" 1
is "new epoch: nothing twice" "$(stored "$DB")" $((n + 5))
is "new epoch: still one reply each" \
	"$(replies_to "$DB" p1@example.com),$(replies_to "$DB" p2@example.com)" 1,1

# ---- a removal (public-inbox-learn rm: a d commit) ----
rm_id=$(sed -n 3p "$T/ids")
pi_remove "$T/msgs/000003"
out=$(poll); rc=$?
is "removal: exit 0" "$rc" 0
is "removal: the message is kept" "$(has "$DB" "$rm_id")" 1
is "removal: the message is marked removed" "$(removed "$DB" "$rm_id")" 1
is "removal: the others are not" "$(removed "$DB" "$(sed -n 4p "$T/ids")"),$(removed "$DB" p1@example.com)" 0,0
is "removal: no message added or lost" "$(stored "$DB")" $((n + 5))
poll >/dev/null
is "removal: a poll again changes nothing" "$(removed "$DB" "$rm_id"),$(stored "$DB")" "1,$((n + 5))"

# ---- pause, resume ----
$PW subscribe pause --db "$DB" foo >/dev/null 2>&1
is "pause: exit 0" "$?" 0
is "pause: list says paused" "$(sub_field "$(list_json)" foo paused)" true
mkpatch "$T/p3.eml" p3@example.com
pi_deliver_fast foo "$T/p3.eml" >/dev/null
poll >/dev/null
is "paused: a poll of all does not read it" "$(has "$DB" p3@example.com)" 0
$PW subscribe pause --db "$DB" nosuch >/dev/null 2>&1
is "pause of no such subscription: exit 2" "$?" 2
$PW subscribe resume --db "$DB" foo >/dev/null 2>&1
is "resume: exit 0" "$?" 0
is "resume: list says not paused" "$(sub_field "$(list_json)" foo paused)" false
poll >/dev/null
is "resumed: the waiting patch stored" "$(has "$DB" p3@example.com)" 1
is "resumed: and answered once" "$(replies_to "$DB" p3@example.com)" 1

# ---- remove; added again it is a new subscription: backfill again ----
before=$(stored "$DB")
$PW subscribe remove --db "$DB" foo >/dev/null 2>&1
is "remove: exit 0" "$?" 0
is "remove: gone from the list" "$(sub_field "$(list_json)" foo name)" missing
is "remove: its messages stay" "$(stored "$DB")" "$before"
$PW subscribe remove --db "$DB" foo >/dev/null 2>&1
is "remove again: exit 2" "$?" 2
mkpatch "$T/p4.eml" p4@example.com
pi_deliver_fast foo "$T/p4.eml" >/dev/null
$PW subscribe add --db "$DB" foo2 "$URL" >/dev/null 2>&1
poll >/dev/null
is "added again: what it missed is stored" "$(has "$DB" p4@example.com)" 1
is "added again: its first poll is backfill, not answered" "$(replies_to "$DB" p4@example.com)" 0
is "added again: nothing stored twice" "$(stored "$DB")" $((before + 1))
is "added again: still one reply to each earlier patch" \
	"$(replies_to "$DB" p1@example.com),$(replies_to "$DB" p2@example.com),$(replies_to "$DB" p3@example.com)" 1,1,1
sendout
is "the dry-run mbox: three replies in all" "$(grep -c '^From ' "$OUTBOX")" 3

# ---- by path: the inbox folder, and one epoch's repository ----
DB2=$T/path.db
$PW subscribe add --db "$DB2" bypath "$PI_DIR/foo" >/dev/null 2>"$T/err"
is "subscribe add by path: exit 0" "$?" 0
is "by path: kind public-inbox" "$(sub_field "$($PW subscribe list --db "$DB2" --format json)" bypath kind)" public-inbox
$PW poll --db "$DB2" --config "$C" >/dev/null 2>"$T/err"
is "by path: exit 0" "$?" 0
is "by path: every message of both epochs" "$(stored "$DB2")" "$(stored "$DB")"
is "by path: the removed one marked" "$(removed "$DB2" "$rm_id")" 1
is "by path: backfill, no reply" "$(replies "$DB2")" 0
DB3=$T/epoch.db
$PW subscribe add --db "$DB3" epoch0 "$PI_DIR/foo/git/0.git" >/dev/null 2>"$T/err"
is "subscribe add of one epoch's repository: exit 0" "$?" 0
$PW poll --db "$DB3" --config "$C" >/dev/null 2>"$T/err"
is "one epoch: its messages" "$(stored "$DB3")" "$(pi_commits foo 0)"

# ---- a source that fails does not stop the others; poll exits 1 ----
$PW subscribe add --db "$DB2" dead "http://127.0.0.1:$(free_port)/nothing/" >/dev/null 2>&1
mkmail "$T/c5.eml" c5@example.com
pi_deliver_fast foo "$T/c5.eml" >/dev/null
out=$($PW poll --db "$DB2" --config "$C" 2>"$T/err"); rc=$?
is "a dead source: poll exits 1" "$rc" 1
is "a dead source: the other one still polled" "$(has "$DB2" c5@example.com)" 1
js=$($PW subscribe list --db "$DB2" --format json)
is "a dead source: one failure counted" "$(sub_field "$js" dead failures)" 1
check "a dead source: its error shown" test -n "$(sub_field "$js" dead last_error)"
is "a dead source: the good one has none" "$(sub_field "$js" bypath failures)" 0
$PW poll --db "$DB2" --config "$C" bypath >/dev/null 2>"$T/err"
is "poll NAME: only that one, exit 0" "$?" 0
is "poll NAME: the dead one not tried" "$(sub_field "$($PW subscribe list --db "$DB2" --format json)" dead failures)" 1
