#!/usr/bin/env bash
# patchwarden subscribe and poll on a real IMAP server: Dovecot
# (dovecot-imapd) configured here on a loopback port.  Every message
# stored once; two UIDVALIDITY changes (the same UIDs under a new
# validity, and a mailbox deleted and made again, UIDs from 1) read
# safely; a wrong password reported in subscribe list, retried on the
# next poll, and not fatal to a Maildir source polled alongside (whose
# messages move from new/ to cur/ once stored).
. "$(dirname "$0")/../lib.sh"
. "$TOP/tests/lib_pi.sh"
pyq_start	# sub_field asks the one Python process of pyq

# The IMAP login comes from the configuration: [imap] user, password,
# starttls = no (plain on loopback), and the same keys in [imap NAME],
# the section of one subscription (bot/config.c reads both).
imap_conf() {	# FILE PASSWORD
	pwconf "$1" "[imap]" "user = $DC_USER" "password = $2" "starttls = no" \
		"[imap box]" "user = $DC_USER" "password = $2" "starttls = no"
}

n=$(split_mbox "$TOP/tests/data/sample.mbox" "$T/msgs" --unique --ids "$T/ids")
dc_start || exit 1
dc_mailbox lists
dc_append lists "$T"/msgs/*
is "fixture: the sample in the mailbox" "$(dc_status lists MESSAGES)" "$n"
DB=$T/pw.db
C=$T/pw.conf
imap_conf "$C" "$DC_PASS"
poll() { $PW poll --db "$DB" --config "$C" "$@" 2>"$T/poll.err"; }
list_json() { $PW subscribe list --db "$DB" --format json 2>/dev/null; }

$PW subscribe add --db "$DB" box "$DC_URL/lists" --interval 1s >/dev/null 2>"$T/err"
is "subscribe add imap://: exit 0" "$?" 0
is "list: kind imap" "$(sub_field "$(list_json)" box kind)" imap

# ---- stored once, backfill not answered ----
poll >/dev/null; rc=$?
is "first poll: exit 0" "$rc" 0
is "first poll: every message stored" "$(stored "$DB")" "$n"
is "first poll: none missing" "$(missing "$DB" "$T/ids")" 0
is "first poll: backfill, no reply" "$(replies "$DB")" 0
is "list: backfilled" "$(sub_field "$(list_json)" box backfilled)" true
poll >/dev/null; rc=$?
is "second poll: exit 0, nothing added" "$rc,$(stored "$DB")" "0,$n"

mkpatch "$T/p1.eml" p1@example.com
mkmail "$T/c1.eml" c1@example.com
dc_append lists "$T/p1.eml" "$T/c1.eml"
poll >/dev/null
is "new mail: stored" "$(stored "$DB")" $((n + 2))
is "new mail: the patch answered once" "$(replies_to "$DB" p1@example.com)" 1
is "list: $((n + 2)) messages brought" "$(sub_field "$(list_json)" box messages)" $((n + 2))

# ---- UIDVALIDITY changed, same UIDs (doveadm mailbox update) ----
v=$(dc_status lists UIDVALIDITY)
doveadm -c "$DC_DIR/dovecot.conf" mailbox update -u "$DC_USER" --uid-validity $((v - 7)) lists
is "fixture: a new UIDVALIDITY" "$(dc_status lists UIDVALIDITY)" $((v - 7))
mkmail "$T/c2.eml" c2@example.com
dc_append lists "$T/c2.eml"
poll >/dev/null; rc=$?
is "new UIDVALIDITY: exit 0" "$rc" 0
is "new UIDVALIDITY: the new message stored, nothing twice" "$(has "$DB" c2@example.com),$(stored "$DB")" "1,$((n + 3))"
is "new UIDVALIDITY: no second reply" "$(replies_to "$DB" p1@example.com)" 1

# ---- the mailbox deleted and made again: UIDs from 1, a new message at
# a UID below the last one stored ----
dc_recreate lists
mkmail "$T/c3.eml" c3@example.com
mkpatch "$T/p2.eml" p2@example.com "Bea Builder <bea@example.com>"
dc_append lists "$T/c3.eml" "$T/msgs/000001" "$T/p1.eml" "$T/p2.eml"
is "fixture: 4 messages, UIDs 1 to 4" "$(dc_status lists UIDNEXT)" 5
poll >/dev/null; rc=$?
is "recreated mailbox: exit 0" "$rc" 0
is "recreated mailbox: the new messages stored" "$(has "$DB" c3@example.com),$(has "$DB" p2@example.com)" 1,1
is "recreated mailbox: nothing stored twice" "$(stored "$DB")" $((n + 5))
is "recreated mailbox: the old patch read again is not answered again" "$(replies_to "$DB" p1@example.com)" 1
is "recreated mailbox: the new patch answered once" "$(replies_to "$DB" p2@example.com)" 1
poll >/dev/null
is "recreated mailbox: a poll again adds nothing" "$(stored "$DB")" $((n + 5))

# ---- a wrong password, beside a Maildir source ----
MD=$T/maildir
mkdir -p "$MD"/{new,cur,tmp}
for i in 1 2 3; do mkmail "$MD/new/17000000$i.M$i.pw" "md$i@example.com"; done
$PW subscribe add --db "$DB" md "$MD" >/dev/null 2>"$T/err"
is "subscribe add of a Maildir: exit 0" "$?" 0
is "list: kind maildir" "$(sub_field "$(list_json)" md kind)" maildir
imap_conf "$C" wrong
mkmail "$T/c4.eml" c4@example.com
dc_append lists "$T/c4.eml"
start=$SECONDS
out=$(poll); rc=$?
is "wrong password: poll exits 1" "$rc" 1
check "wrong password: poll does not hang (under 30 s)" test $((SECONDS - start)) -lt 30
is "wrong password: the Maildir still read" "$(has "$DB" md1@example.com)$(has "$DB" md2@example.com)$(has "$DB" md3@example.com)" 111
is "Maildir: stored messages moved to cur/" "$(ls "$MD/new" | wc -l),$(ls "$MD/cur" | wc -l)" 0,3
is "wrong password: nothing from the mailbox" "$(has "$DB" c4@example.com)" 0
js=$(list_json)
is "wrong password: one failure in subscribe list" "$(sub_field "$js" box failures)" 1
err=$(sub_field "$js" box last_error)
check "wrong password: the error says login/authentication ($err)" \
	bash -c "printf '%s' '$err' | grep -Eqi 'login|auth|password|credential|denied'"
is "wrong password: the Maildir has no failure" "$(sub_field "$js" md failures)" 0
poll >/dev/null; rc=$?
is "wrong password again: retried, two failures" "$rc,$(sub_field "$(list_json)" box failures)" 1,2
imap_conf "$C" "$DC_PASS"
poll >/dev/null; rc=$?
is "password fixed: exit 0" "$rc" 0
is "password fixed: the waiting message stored" "$(has "$DB" c4@example.com)" 1
js=$(list_json)
is "password fixed: failures back to 0" "$(sub_field "$js" box failures)" 0
is "password fixed: no last error" "$(sub_field "$js" box last_error)" ""
is "in all: nothing stored twice" "$(stored "$DB")" $((n + 9))
