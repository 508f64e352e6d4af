#!/usr/bin/env bash
# The weekly digest of a list to its maintainers: a real mail through a
# real SMTP server (tests/smtp_server.py, aiosmtpd), each digest of the
# list threaded under the one before, nothing sent twice after a crash
# or a run again, nothing sent for a week with nothing new.  Real
# linux-hwmon mail (tests/corpus/lore-linux-hwmon/).
. "$(dirname "$0")/../lib.sh"
q() { sqlite3 -batch -noheader "$1" "$2"; }
PY=/usr/bin/python3
SERVER=$TOP/tests/smtp_server.py
HW=$CORPUS/lore-linux-hwmon
LIST=linux-hwmon.vger.kernel.org

start_server() {
	local i
	mkdir -p "$T/srv"
	$PY "$SERVER" --port "$PORT" --dir "$T/srv" --control "$T/srv.ctl" \
		>"$T/srv.out" 2>"$T/srv.err" &
	echo $! >"$T/srv.pid"
	at_exit "kill \$(cat '$T/srv.pid') 2>/dev/null"
	for i in $(seq 100); do
		grep -q ready "$T/srv.out" 2>/dev/null && return 0
		sleep 0.1
	done
	echo "# the SMTP server did not start:"; sed 's/^/#   /' "$T/srv.err"
	return 1
}
received() { [ -f "$T/srv/log.jsonl" ] && wc -l <"$T/srv/log.jsonl" || echo 0; }
# header N NAME: header NAME of the Nth message received (1-based).
header() {
	$PY - "$T/srv/log.jsonl" "$1" "$2" <<'EOF'
import email, email.policy, json, os, sys
rows = [json.loads(l) for l in open(sys.argv[1])]
m = email.message_from_binary_file(open(os.path.join(os.path.dirname(sys.argv[1]), rows[int(sys.argv[2]) - 1]["file"]), "rb"),
                                   policy=email.policy.default)
print(" ".join(str(m[sys.argv[3]] or "").split()))
EOF
}
body() {
	$PY - "$T/srv/log.jsonl" "$1" <<'EOF'
import email, email.policy, json, os, sys
rows = [json.loads(l) for l in open(sys.argv[1])]
m = email.message_from_binary_file(open(os.path.join(os.path.dirname(sys.argv[1]), rows[int(sys.argv[2]) - 1]["file"]), "rb"),
                                   policy=email.policy.default)
print(m.get_content())
EOF
}

PORT=$(free_port)
echo '{}' >"$T/srv.ctl"
start_server || exit 1
DB=$T/pw.db
C=$T/pw.conf
# The list's replies are off: the digest is the maintainers' own mail.
cat >"$C" <<EOF
[smtp]
url = smtp://127.0.0.1:$PORT
from = patchwarden <bot@example.org>
starttls = no
timeout = 20
[reply]
max_age = 0
[web]
url = https://pw.example.org/
[list $LIST]
maintainer = linux@roeck-us.net; jdelvare@suse.com
digest = true
EOF
chmod 600 "$C"

# Week one: the it87 patch, and the same patch as a machine posted it
# (the kernel test robot's address): its findings count, its sender is
# no top sender.
$PW run --config "$C" --db "$DB" "$HW/it87-symbolic-modes.mbox" >/dev/null 2>"$T/err"
$PY - "$HW/it87-symbolic-modes.mbox" "$T/robot.mbox" <<'EOF'
import sys
text = open(sys.argv[1], "rb").read()
text = text.replace(b"From: \"benoit.masson\" <yahoo@perenite.com>",
                    b"From: kernel test robot <lkp@intel.com>", 1)
text = text.replace(b"<20260110012613.48150-3-yahoo@perenite.com>",
                    b"<robot-1@intel.com>")
open(sys.argv[2], "wb").write(text)
EOF
$PW run --config "$C" --db "$DB" "$T/robot.mbox" >/dev/null 2>"$T/err"
is "mail off: no reply was mailed" "$(received)" 0

# A maintainer's decisions of the week (the robot's copy marked wrong:
# its findings are no longer counted), and one on another list.
$PW triage --config "$C" --db "$DB" ignore PERM_SYMBOLIC --path 'drivers/hwmon/nct*.c' \
	--list "$LIST" --by maint@example.org >/dev/null 2>"$T/err"
$PW triage --config "$C" --db "$DB" wrong '<robot-1@intel.com>' \
	--by maint@example.org >/dev/null 2>"$T/err"
$PW triage --config "$C" --db "$DB" ignore PERM_OCTAL --list linux-other \
	--by other@example.org >/dev/null 2>"$T/err"
$PW digest --config "$C" --db "$DB" --dry-run >"$T/dry.out" 2>"$T/err"
is "digest --dry-run: exit 0" "$?" 0
contains "digest: the decisions taken" "$(cat "$T/dry.out")" \
	"maint@example.org: PERM_SYMBOLIC ignored for drivers/hwmon/nct*.c"
check "digest: not another list's decision" sh -c "! grep -q other@example.org '$T/dry.out'"
contains "digest --dry-run: the digest on stdout" "$(cat "$T/dry.out")" "PERM_SYMBOLIC (warning): 18 in 1 patch"
is "digest --dry-run: nothing stored, nothing sent" \
	"$(q "$DB" "SELECT count(*) FROM digest"),$(received)" "0,0"

out=$($PW digest --config "$C" --db "$DB" 2>"$T/err")
is "digest: exit 0" "$?" 0
contains "digest: one queued" "$out" "queued=1"
is "digest: one mail received" "$(received)" 1
is "digest: to the list's maintainers" \
	"$($PY -c 'import json,sys; print(" ".join(json.loads(open(sys.argv[1]).readline())["rcpt_tos"]))' "$T/srv/log.jsonl")" \
	"linux@roeck-us.net jdelvare@suse.com"
contains "digest: its subject" "$(header 1 Subject)" "[patchwarden] $LIST digest, the week to"
is "digest: the first is threaded under nothing" "$(header 1 In-Reply-To)" ""
b1=$(body 1)
contains "digest: findings by severity, the decided ones left out" "$b1" "Findings: 18 warnings."
contains "digest: patches with open findings" "$b1" "Patches: 2, 1 with findings."
contains "digest: the sender, people only" "$b1" "benoit.masson <yahoo@perenite.com>: 1 patch, 1 with findings"
contains "digest: the machine's mail counted apart" "$b1" "1 message from machines left out"
check "digest: the robot is no top sender" sh -c "! grep -q lkp@intel.com <<'EOF'
$b1
EOF"
contains "digest: the held replies counted" "$b1" "Replies to its mail: 2, 2 of them held"
contains "digest: the dashboard's list page" "$b1" "https://pw.example.org/list/$LIST"
is "digest: the outbox row, sent, of kind digest" \
	"$(q "$DB" "SELECT kind || ',' || state FROM outbox WHERE kind = 'digest'")" "digest,sent"

# Run again at once: nothing new, nothing sent, the period recorded.
out=$($PW digest --config "$C" --db "$DB" 2>"$T/err")
contains "again: nothing new" "$out" "queued=0"
is "again: no second mail" "$(received)" 1

# Week two: the k10temp patch.  The SMTP server holds DATA while the
# digest command is killed mid-send (a crash after the digest was
# stored); "outbox send" then delivers it once.
sleep 1
$PW run --config "$C" --db "$DB" "$HW/k10temp-malformed.mbox" >/dev/null 2>"$T/err"
echo '{"delay": 5}' >"$T/srv.ctl"
$PW digest --config "$C" --db "$DB" >/dev/null 2>&1 &
pid=$!
for i in $(seq 50); do
	[ "$(q "$DB" "SELECT count(*) FROM outbox WHERE kind = 'digest' AND state = 'sending'")" = 1 ] && break
	sleep 0.1
done
kill -9 "$pid" 2>/dev/null; wait "$pid" 2>/dev/null
is "crash: the second digest was stored, caught sending" \
	"$(q "$DB" "SELECT count(*) FROM outbox WHERE kind = 'digest' AND state = 'sending'")" 1
echo '{}' >"$T/srv.ctl"
sleep 5.5	# the held DATA ends; the client is gone, nothing is stored
is "crash: the server stored nothing of it" "$(received)" 1
$PW digest --config "$C" --db "$DB" >"$T/again.out" 2>"$T/err"
contains "crash, then digest again: nothing new composed" "$(cat "$T/again.out")" "queued=0"
$PW outbox --config "$C" --db "$DB" send >/dev/null 2>"$T/err"
is "crash: the digest delivered once" "$(received)" 2
$PW outbox --config "$C" --db "$DB" send --all >/dev/null 2>"$T/err"
$PW digest --config "$C" --db "$DB" >/dev/null 2>"$T/err"
is "and never twice" "$(received)" 2
is "two digests stored, each once" \
	"$(q "$DB" "SELECT count(*) FROM outbox WHERE kind = 'digest'")" 2

# Threaded per list: the second answers the first.
first=$(header 1 Message-ID)
is "thread: the second's In-Reply-To is the first" "$(header 2 In-Reply-To)" "$first"
contains "thread: and its References" "$(header 2 References)" "$first"
b2=$(body 2)
contains "week two: its own patch" "$b2" "Lukas Zapletal <lzap@redhat.com>: 1 patch"
check "week two: not the first week's" sh -c "! grep -q perenite <<'EOF'
$b2
EOF"

# A list without maintainers is refused; --since is read.
$PW digest --config "$C" --db "$DB" --list linux-foo --dry-run >/dev/null 2>"$T/err"
is "--list of a list without maintainers: usage error" "$?" 2
contains "--list: says why" "$(cat "$T/err")" "has no maintainer"
$PW digest --config "$C" --db "$DB" --since 30d --list "$LIST" --dry-run >"$T/since.out" 2>&1
contains "--since 30d --dry-run: both weeks" "$(cat "$T/since.out")" "Patches: 3, 2 with findings."
contains "--since 30d: the subject says the period" "$(cat "$T/since.out")" "digest, the 30 days to"
contains "--since 30d: and so does the text" "$(tr '\n' ' ' <"$T/since.out")" "the mail it read in the 30 days, from"
check "--since 30d: not called weekly" sh -c "! grep -q 'weekly digest\|the week to' '$T/since.out'"
$PW digest --config "$C" --db "$DB" --since yesterdayish >/dev/null 2>&1
is "--since that does not parse: usage error" "$?" 2

# The service sends none before a week has passed since the last.
is "no digest is due yet: the service would queue none" \
	"$(q "$DB" "SELECT count(*) FROM digest WHERE until > strftime('%s','now') - 7 * 86400")" \
	"$(q "$DB" "SELECT count(*) FROM digest")"

# The service: the first digest of a list at once, the next a week
# after; SIGTERM stops it.
DB2=$T/svc.db
$PW run --config "$C" --db "$DB2" "$HW/it87-symbolic-modes.mbox" >/dev/null 2>&1
n=$(received)
$PW run --config "$C" --db "$DB2" >"$T/svc.log" 2>&1 &
svc=$!
at_exit "kill $svc 2>/dev/null"
for i in $(seq 100); do
	[ "$(received)" -gt "$n" ] && break
	sleep 0.1
done
is "service: the list's first digest sent" "$(received)" $((n + 1))
sleep 3
kill -TERM "$svc"; wait "$svc"
is "service: stopped cleanly" "$?" 0
is "service: none again within the week" "$(received)" $((n + 1))
contains "service: logged" "$(cat "$T/svc.log")" "digest: 1 queued"
is "service: the digest went to the maintainers" \
	"$($PY -c 'import json,sys; print(" ".join(json.loads(open(sys.argv[1]).readlines()[-1])["rcpt_tos"]))' "$T/srv/log.jsonl")" \
	"linux@roeck-us.net jdelvare@suse.com"

echo "# done"

# A digest held (by the hourly limit) was never read: the next one is
# not threaded under it.
DB3=$T/held.db
sed 's/^\[reply\]$/[reply]\nper_recipient_per_hour = 0/' "$C" >"$T/held.conf"
chmod 600 "$T/held.conf"
$PW run --config "$C" --db "$DB3" "$HW/it87-symbolic-modes.mbox" >/dev/null 2>&1
$PW digest --config "$T/held.conf" --db "$DB3" >/dev/null 2>"$T/err"
held=$(q "$DB3" "SELECT msgid FROM outbox WHERE kind = 'digest' AND state = 'suppressed'")
check "held: the digest is stored, held" test -n "$held"
n=$(received)
sleep 1
$PW digest --config "$C" --db "$DB3" --since 30d >/dev/null 2>"$T/err"
is "held: the next digest sent" "$(received)" $((n + 1))
is "held: the next is threaded under nothing" "$(header $((n + 1)) In-Reply-To)" ""
check "held: nor names it in References" sh -c "! printf '%s' '$(header $((n + 1)) References)' | grep -qF '$held'"
