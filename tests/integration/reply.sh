#!/usr/bin/env bash
# patchwarden replies: ingest --reply queues them under the policy, and
# "outbox send" delivers them to a real SMTP server on loopback
# (tests/smtp_server.py, aiosmtpd) that fails on command: server down,
# 4xx, 5xx, a slow server killed mid-batch, STARTTLS and smtps with a
# self-signed certificate made here, AUTH, hostile subjects, a burst of
# 1,000 patches from one author, and the dry-run mbox.
. "$(dirname "$0")/../lib.sh"

PY=/usr/bin/python3
SERVER=$TOP/tests/smtp_server.py
q() { sqlite3 -batch -noheader "$1" "$2"; }

# ---- helpers ----

# mkmail OUT START COUNT [key=value...]: an mbox of COUNT patch mails,
# each adding a world-writable debugfs file (PERM_WORLD_WRITABLE).
# Keys: from, prefix (Message-ID prefix), subject (with {i}), auto
# (Auto-Submitted value), rawsubject (a raw header value, as is).
cat >"$T/mk.py" <<'EOF'
import sys, time, email.utils
out, start, count = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
kw = dict(a.split("=", 1) for a in sys.argv[4:])
frm = kw.get("from", "Ada Author <ada@example.com>")
prefix = kw.get("prefix", "patch")
with open(out, "ab") as f:
    for i in range(start, start + count):
        subj = kw.get("subject", "[PATCH] foo{i}: add a knob").replace("{i}", str(i))
        hdr = kw.get("rawsubject", subj)
        extra = ""
        if "auto" in kw:
            extra += "Auto-Submitted: %s\n" % kw["auto"]
        # Recent mail: older mail is never answered ([reply] max_age).
        age = int(kw.get("age_days", "0")) * 86400
        date = email.utils.formatdate(time.time() - age - 3600 + i % 60 * 60)
        m = f"""From sender@example.com Thu Aug  4 10:00:00 2016
From: {frm}
To: linux-foo@vger.example.org
Cc: Other Person <other@example.com>
Subject: {hdr}
Date: {date}
Message-ID: <{prefix}{i}@example.com>
References: <cover-{prefix}@example.com>
In-Reply-To: <cover-{prefix}@example.com>
{extra}
Add a knob.

Signed-off-by: {frm}
---
 drivers/foo/foo{i}.c | 1 +
 1 file changed, 1 insertion(+)

diff --git a/drivers/foo/foo{i}.c b/drivers/foo/foo{i}.c
index 1111111..2222222 100644
--- a/drivers/foo/foo{i}.c
+++ b/drivers/foo/foo{i}.c
@@ -10,3 +10,4 @@ static int foo_init(void)
 {{
 \tstruct dentry *d = debugfs_create_dir("foo", NULL);
+\tdebugfs_create_file("knob", 0666, d, NULL, &knob_fops);
 \treturn 0;

"""
        f.write(m.encode("utf-8"))
EOF
mkmail() { local out=$1 start=$2 count=$3; shift 3; $PY "$T/mk.py" "$out" "$start" "$count" "$@"; }

# start_server NAME PORT [options]: runs smtp_server.py into $T/NAME.
start_server() {
	local name=$1 port=$2 i; shift 2
	mkdir -p "$T/$name"
	$PY "$SERVER" --port "$port" --dir "$T/$name" --control "$T/$name.ctl" "$@" \
		>"$T/$name.out" 2>"$T/$name.err" &
	echo $! >"$T/$name.pid"
	at_exit "kill \$(cat '$T/$name.pid') 2>/dev/null"
	for i in $(seq 100); do
		grep -q ready "$T/$name.out" 2>/dev/null && return 0
		sleep 0.1
	done
	echo "# server $name did not start:"; sed 's/^/#   /' "$T/$name.err"
	return 1
}
stop_server() {
	local pid; pid=$(cat "$T/$1.pid")
	kill "$pid" 2>/dev/null
	while kill -0 "$pid" 2>/dev/null; do sleep 0.1; done
}
# received NAME: how many messages the server NAME stored.
received() { [ -f "$T/$1/log.jsonl" ] && wc -l <"$T/$1/log.jsonl" || echo 0; }
# config FILE URL [extra lines]: a configuration file, mode 0600.
config() {
	local f=$1 url=$2; shift 2
	{
		echo "[smtp]"
		[ -n "$url" ] && echo "url = $url"
		echo "from = patchwarden <bot@example.org>"
		echo "timeout = 20"
		printf '%s\n' "$@"
		echo "[list linux-foo]"
		echo "address = linux-foo@vger.example.org"
		echo "cc_list = true"
	} >"$f"
	chmod 600 "$f"
}
state_of() { q "$1" "SELECT state || ',' || attempts FROM outbox WHERE id = $2"; }

# ---- 1. a delivered reply parses back and threads under the original ----
P1=$(free_port)
start_server s1 "$P1" || exit 1
DB=$T/main.db
C=$T/main.conf
config "$C" "smtp://127.0.0.1:$P1" "starttls = no" "[reply]" \
	"reply_to = maintainers@example.org" "[web]" "url = https://pw.example.org/"
mkmail "$T/one.mbox" 1 1
$PW ingest -q --list linux-foo --db "$DB" --config "$C" "$T/one.mbox" >/dev/null 2>"$T/err"
is "plain ingest (backfill) queues no reply" "$(q "$DB" 'SELECT count(*) FROM outbox')" 0
$PW ingest -q --list linux-foo --reply --db "$DB" --config "$C" "$T/one.mbox" >/dev/null 2>"$T/err"
is "ingest --reply of an already stored message queues nothing" \
	"$(q "$DB" 'SELECT count(*) FROM outbox')" 0
mkmail "$T/two.mbox" 2 1
$PW ingest -q --list linux-foo --reply --db "$DB" --config "$C" "$T/two.mbox" >/dev/null 2>"$T/err"
is "ingest --reply queues one pending reply" \
	"$(q "$DB" "SELECT state FROM outbox")" pending
$PW outbox --db "$DB" --config "$C" list --format json >"$T/list.json"
check "outbox list --format json has the documented fields" $PY -c '
import json, sys
rows = json.load(open(sys.argv[1]))
assert isinstance(rows, list) and len(rows) == 1, rows
r = rows[0]
for k in ("id", "state", "to", "in_reply_to", "subject", "attempts", "last_error"):
    assert k in r, k
assert r["to"] == "ada@example.com", r
assert r["in_reply_to"] == "patch2@example.com", r
assert r["subject"] == "Re: [PATCH] foo2: add a knob", r
assert r["attempts"] == 0 and r["last_error"] is None, r
' "$T/list.json"
out=$($PW outbox --db "$DB" --config "$C" send 2>"$T/err")
is "outbox send: one sent" "$out" "attempted=1 sent=1 deferred=0 failed=0 recovered=0"
is "the server got one message" "$(received s1)" 1
MID=$(q "$DB" "SELECT msgid FROM outbox")
check "the reply parses back with the right headers, body and threading" $PY -c '
import email, email.policy, json, sys
d, mid = sys.argv[1], sys.argv[2]
log = [json.loads(l) for l in open(d + "/log.jsonl")]
e = log[0]
assert e["mail_from"] == "bot@example.org", e
assert e["rcpt_tos"] == ["ada@example.com", "linux-foo@vger.example.org"], e
raw = open(d + "/" + e["file"], "rb").read()
assert b"\n" not in raw.replace(b"\r\n", b""), "bare LF"
m = email.message_from_bytes(raw, policy=email.policy.default)
assert m["Message-ID"] == "<%s>" % mid, m["Message-ID"]
assert m["In-Reply-To"] == "<patch2@example.com>", m["In-Reply-To"]
assert m["References"].split() == ["<cover-patch@example.com>", "<patch2@example.com>"], m["References"]
assert m["Subject"] == "Re: [PATCH] foo2: add a knob", m["Subject"]
assert m["Auto-Submitted"] == "auto-generated"
assert m["From"].addresses[0].addr_spec == "bot@example.org"
assert m["To"].addresses[0].addr_spec == "ada@example.com"
assert m["To"].addresses[0].display_name == "Ada Author"
assert [a.addr_spec for a in m["Cc"].addresses] == ["linux-foo@vger.example.org"]
assert m["Reply-To"].addresses[0].addr_spec == "maintainers@example.org"
body = m.get_content()
for want in ("Hello Ada Author,", "drivers/foo/foo2.c:12", "PERM_WORLD_WRITABLE",
             "> +\tdebugfs_create_file(\"knob\", 0666, d, NULL, &knob_fops);",
             "0666 (rw-rw-rw-)", "patchwarden check", "automated reply",
             "reply to this mail", "https://pw.example.org/message/patch2@example.com"):
    assert want in body, (want, body)
# The list by its configured posting address ([list linux-foo] address).
assert "a review bot for linux-foo@vger.example.org" in " ".join(body.split()), body
' "$T/s1" "$MID"
out=$($PW outbox --db "$DB" --config "$C" send 2>"$T/err")
is "a second send sends nothing" "$out" "attempted=0 sent=0 deferred=0 failed=0 recovered=0"
$PW ingest -q --list linux-foo --reply --db "$DB" --config "$C" "$T/two.mbox" >/dev/null 2>"$T/err"
is "the same message is never answered twice" "$(q "$DB" 'SELECT count(*) FROM outbox')" 1
is "the server still has one message" "$(received s1)" 1
$PW outbox --db "$DB" --config "$C" show 1 >"$T/show" 2>&1
check "outbox show prints the state and the stored message" \
	grep -q "^In-Reply-To: <patch2@example.com>" "$T/show"

# ---- 2. the policy: automated mail and the bot's own mail ----
mkmail "$T/auto.mbox" 10 1 prefix=auto auto=auto-generated
mkmail "$T/auto.mbox" 11 1 prefix=autono "auto=no"
mkmail "$T/auto.mbox" 12 1 prefix=own "from=patchwarden <bot@example.org>"
mkmail "$T/auto.mbox" 13 1 prefix=daemon "from=Mail Delivery <MAILER-DAEMON@example.com>"
$PW ingest -q --list linux-foo --reply --db "$DB" --config "$C" "$T/auto.mbox" >/dev/null 2>"$T/err"
is "Auto-Submitted: auto-generated is suppressed" \
	"$(q "$DB" "SELECT state || ': ' || reason FROM outbox WHERE in_reply_to = 'auto10@example.com'")" \
	"suppressed: automated mail (Auto-Submitted: auto-generated)"
is "Auto-Submitted: no is answered" \
	"$(q "$DB" "SELECT state FROM outbox WHERE in_reply_to = 'autono11@example.com'")" pending
is "the bot's own mail is suppressed" \
	"$(q "$DB" "SELECT state || ': ' || reason FROM outbox WHERE in_reply_to = 'own12@example.com'")" \
	"suppressed: the bot's own mail"
is "a known automated sender is suppressed" \
	"$(q "$DB" "SELECT state FROM outbox WHERE in_reply_to = 'daemon13@example.com'")" suppressed
$PW outbox --db "$DB" --config "$C" list --state suppressed --format json >"$T/sup.json"
is "suppressed replies are visible in list --state suppressed" \
	"$($PY -c 'import json,sys; print(len(json.load(open(sys.argv[1]))))' "$T/sup.json")" 3
$PW outbox --db "$DB" --config "$C" send >/dev/null 2>&1
is "suppressed replies are not sent" "$(received s1)" 2

# ---- 3. server down, then up: delivered exactly once after retry ----
stop_server s1
mkmail "$T/down.mbox" 20 1 prefix=down
$PW ingest -q --list linux-foo --reply --db "$DB" --config "$C" "$T/down.mbox" >/dev/null 2>"$T/err"
ID=$(q "$DB" "SELECT id FROM outbox WHERE in_reply_to = 'down20@example.com'")
out=$($PW outbox --db "$DB" --config "$C" send 2>"$T/err"); rc=$?
is "server down: deferred" "$out" "attempted=1 sent=0 deferred=1 failed=0 recovered=0"
is "server down: exit status 1" "$rc" 1
is "server down: pending after one attempt" "$(state_of "$DB" "$ID")" "pending,1"
check "server down: the error is recorded" test -n "$(q "$DB" "SELECT last_error FROM outbox WHERE id = $ID")"
check "server down: the next attempt is backed off" \
	test "$(q "$DB" "SELECT next_attempt - last_attempt FROM outbox WHERE id = $ID")" -ge 60
out=$($PW outbox --db "$DB" --config "$C" send 2>"$T/err")
is "not due yet: nothing attempted" "$out" "attempted=0 sent=0 deferred=0 failed=0 recovered=0"
start_server s1 "$P1" || exit 1
$PW outbox --db "$DB" --config "$C" send --all >/dev/null 2>"$T/err"
is "server up: sent" "$(state_of "$DB" "$ID")" "sent,2"
$PW outbox --db "$DB" --config "$C" send --all >/dev/null 2>"$T/err"
n=$($PY -c '
import json, sys
mid = sys.argv[2]
print(sum(1 for l in open(sys.argv[1]) if json.loads(l)["message_id"] == "<%s>" % mid))
' "$T/s1/log.jsonl" "$(q "$DB" "SELECT msgid FROM outbox WHERE id = $ID")")
is "server up: its Message-ID arrived exactly once" "$n" 1

# ---- 4. a 451 answer is retried; a 550 answer is final ----
mkmail "$T/t451.mbox" 30 1 prefix=t451
$PW ingest -q --list linux-foo --reply --db "$DB" --config "$C" "$T/t451.mbox" >/dev/null 2>"$T/err"
ID=$(q "$DB" "SELECT id FROM outbox WHERE in_reply_to = 't45130@example.com'")
echo '{"data": 451}' >"$T/s1.ctl"
$PW outbox --db "$DB" --config "$C" send >/dev/null 2>"$T/err"
is "451 to DATA: pending again" "$(state_of "$DB" "$ID")" "pending,1"
is "451 to DATA: the code is recorded" "$(q "$DB" "SELECT smtp_code FROM outbox WHERE id = $ID")" 451
rm -f "$T/s1.ctl"
$PW outbox --db "$DB" --config "$C" send --all >/dev/null 2>"$T/err"
is "451 to DATA: sent on retry" "$(state_of "$DB" "$ID")" "sent,2"

mkmail "$T/t550.mbox" 40 1 prefix=t550 "from=Rex Rejected <rex@example.com>"
$PW ingest -q --list linux-foo --reply --db "$DB" --config "$C" "$T/t550.mbox" >/dev/null 2>"$T/err"
ID=$(q "$DB" "SELECT id FROM outbox WHERE in_reply_to = 't55040@example.com'")
echo '{"rcpt": {"rex@example.com": 550, "linux-foo@vger.example.org": 550}}' >"$T/s1.ctl"
before=$(received s1)
$PW outbox --db "$DB" --config "$C" send >/dev/null 2>"$T/err"
is "550 to every recipient: failed" "$(state_of "$DB" "$ID")" "failed,1"
contains "550: the answer is recorded" "$(q "$DB" "SELECT smtp_code || ' ' || last_error FROM outbox WHERE id = $ID")" "550"
rm -f "$T/s1.ctl"
out=$($PW outbox --db "$DB" --config "$C" send --all 2>"$T/err")
is "550: never retried by send" "$out" "attempted=0 sent=0 deferred=0 failed=0 recovered=0"
is "550: nothing delivered" "$(received s1)" "$before"
$PW outbox --db "$DB" --config "$C" retry "$ID" >/dev/null 2>&1
$PW outbox --db "$DB" --config "$C" send >/dev/null 2>"$T/err"
is "outbox retry ID releases a failed reply" "$(state_of "$DB" "$ID")" "sent,2"
$PW outbox --db "$DB" --config "$C" retry "$ID" >/dev/null 2>&1
is "outbox retry refuses a sent reply" "$?" 2

mkmail "$T/d554.mbox" 42 1 prefix=d554 "from=Dee Data <dee@example.com>"
$PW ingest -q --list linux-foo --reply --db "$DB" --config "$C" "$T/d554.mbox" >/dev/null 2>"$T/err"
ID=$(q "$DB" "SELECT id FROM outbox WHERE in_reply_to = 'd55442@example.com'")
echo '{"data": 554}' >"$T/s1.ctl"
$PW outbox --db "$DB" --config "$C" send >/dev/null 2>"$T/err"
rm -f "$T/s1.ctl"
is "554 to DATA: failed for good" \
	"$(state_of "$DB" "$ID"),$(q "$DB" "SELECT smtp_code FROM outbox WHERE id = $ID")" "failed,1,554"

# A sender the server refuses (5xx to MAIL FROM) is the configuration's
# fault: every reply would fail alike.  None is failed, the batch stops,
# and the attempt is not counted against the reply.
mkmail "$T/m550.mbox" 43 2 prefix=m550 "from=Mo Sender <mo@example.com>"
$PW ingest -q --list linux-foo --reply --db "$DB" --config "$C" "$T/m550.mbox" >/dev/null 2>"$T/err"
ID=$(q "$DB" "SELECT id FROM outbox WHERE in_reply_to = 'm55043@example.com'")
echo '{"mail": 550}' >"$T/s1.ctl"
before=$(received s1)
out=$($PW outbox --db "$DB" --config "$C" send 2>"$T/err"); rc=$?
is "550 to MAIL FROM: a configuration error, exit status 2" "$rc" 2
is "550 to MAIL FROM: the batch stops at the first" "$out" \
	"attempted=1 sent=0 deferred=1 failed=0 recovered=0"
contains "550 to MAIL FROM: says the sender is refused" "$(cat "$T/err")" "refuses the sender"
is "550 to MAIL FROM: pending, the attempt not counted" "$(state_of "$DB" "$ID")" "pending,0"
is "550 to MAIL FROM: nothing failed" "$(q "$DB" "SELECT count(*) FROM outbox WHERE state = 'failed' AND in_reply_to LIKE 'm550%'")" 0
rm -f "$T/s1.ctl"
$PW outbox --db "$DB" --config "$C" send --all >/dev/null 2>"$T/err"
is "550 to MAIL FROM: both sent once the server takes the sender" \
	"$(q "$DB" "SELECT group_concat(state || ',' || attempts) FROM outbox WHERE in_reply_to LIKE 'm550%'")" "sent,1,sent,1"
is "550 to MAIL FROM: two delivered" "$(($(received s1) - before))" 2
mkmail "$T/m552.mbox" 45 1 prefix=m552 "from=Big Sender <big@example.com>"
$PW ingest -q --list linux-foo --reply --db "$DB" --config "$C" "$T/m552.mbox" >/dev/null 2>"$T/err"
ID=$(q "$DB" "SELECT id FROM outbox WHERE in_reply_to = 'm55245@example.com'")
echo '{"mail": 552}' >"$T/s1.ctl"
$PW outbox --db "$DB" --config "$C" send >/dev/null 2>"$T/err"
rm -f "$T/s1.ctl"
is "552 to MAIL FROM (too large): that reply fails for good" \
	"$(state_of "$DB" "$ID"),$(q "$DB" "SELECT smtp_code FROM outbox WHERE id = $ID")" "failed,1,552"

# -v logs each failed SMTP transaction; a password in the URL is not shown.
mkmail "$T/verb.mbox" 47 1 prefix=verb "from=Vee Verbose <vee@example.com>"
$PW ingest -q --list linux-foo --reply --db "$DB" --config "$C" "$T/verb.mbox" >/dev/null 2>"$T/err"
config "$T/verb.conf" "smtp://someone:hunter2@127.0.0.1:$P1" "starttls = no"
echo '{"data": 451}' >"$T/s1.ctl"
$PW -v outbox --db "$DB" --config "$T/verb.conf" send >/dev/null 2>"$T/err"
rm -f "$T/s1.ctl"
contains "-v: the failed transaction is logged" "$(cat "$T/err")" "smtp smtp://127.0.0.1:$P1"
is "-v: the URL's password is not" "$(grep -c hunter2 "$T/err")" 0
# A password with an unescaped '#' ends the host early: nothing shown.
config "$T/verb.conf" "smtp://bot:#hunter2@127.0.0.1:$P1" "starttls = no"
$PW -v outbox --db "$DB" --config "$T/verb.conf" send --all >/dev/null 2>"$T/err"
contains "-v, a URL curl misreads: the failure is logged" "$(cat "$T/err")" "the configured [smtp] url"
is "-v, a URL curl misreads: the password is not" "$(grep -c hunter2 "$T/err")" 0

echo '{"rcpt": {"linux-foo@vger.example.org": 550}}' >"$T/s1.ctl"
mkmail "$T/cc550.mbox" 41 1 prefix=cc550
$PW ingest -q --list linux-foo --reply --db "$DB" --config "$C" "$T/cc550.mbox" >/dev/null 2>"$T/err"
ID=$(q "$DB" "SELECT id FROM outbox WHERE in_reply_to = 'cc55041@example.com'")
$PW outbox --db "$DB" --config "$C" send >/dev/null 2>"$T/err"
rm -f "$T/s1.ctl"
is "a refused Cc does not block the reply to the author" "$(state_of "$DB" "$ID")" "sent,1"
contains "a refused Cc is recorded" "$(q "$DB" "SELECT last_error FROM outbox WHERE id = $ID")" \
	"linux-foo@vger.example.org> refused: 550"

# ---- 5. killed during a send batch, restarted: none lost, none twice ----
KDB=$T/kill.db
mkmail "$T/kill.mbox" 1 5 prefix=kill "from=Kim Killed <kim@example.com>"
mkmail "$T/kill.mbox" 6 5 prefix=kill "from=Lee Killed <lee@example.com>"
$PW ingest -q --list linux-foo --reply --db "$KDB" --config "$C" "$T/kill.mbox" >/dev/null 2>"$T/err"
is "kill: ten replies pending" "$(q "$KDB" "SELECT count(*) FROM outbox WHERE state = 'pending'")" 10
echo '{"delay": 0.6}' >"$T/s1.ctl"
base=$(received s1)
$PW outbox --db "$KDB" --config "$C" send >/dev/null 2>"$T/kill.err" &
kpid=$!
for i in $(seq 100); do [ "$(received s1)" -ge $((base + 3)) ] && break; sleep 0.1; done
sleep 0.3
kill -9 $kpid; wait $kpid 2>/dev/null
got=$(($(received s1) - base))
check "kill: the batch was interrupted part way ($got of 10 delivered)" test "$got" -ge 3 -a "$got" -lt 10
is "kill: the claimed reply is left in sending" \
	"$(q "$KDB" "SELECT count(*) FROM outbox WHERE state = 'sending'")" 1
rm -f "$T/s1.ctl"
out=$($PW outbox --db "$KDB" --config "$C" send 2>"$T/err")
contains "kill: the restart recovers the interrupted reply" "$out" "recovered=1"
is "kill: every reply sent" "$(q "$KDB" "SELECT count(*) FROM outbox WHERE state = 'sent'")" 10
check "kill: the server got each Message-ID exactly once" $PY -c '
import collections, json, sqlite3, sys
ids = [r[0] for r in sqlite3.connect(sys.argv[2]).execute("SELECT msgid FROM outbox")]
seen = collections.Counter(json.loads(l)["message_id"] for l in open(sys.argv[1]))
bad = [(i, seen["<%s>" % i]) for i in ids if seen["<%s>" % i] != 1]
assert not bad, bad
' "$T/s1/log.jsonl" "$KDB"

# ---- 6. CR/LF and very long encoded subjects ----
SDB=$T/subj.db
mkmail "$T/subj.mbox" 1 1 prefix=crlf \
	"rawsubject==?utf-8?q?[PATCH]_fix=0D=0ABcc:_victim@example.org=0D=0A=0D=0Abody?="
long=$($PY -c '
import base64
w = ("[PATCH 0001/1285] Replace numeric parameter like 0444 with macro caf\u00e9 \u00fcber " * 12).encode()
print(" ".join("=?utf-8?b?%s?=" % base64.b64encode(w[i:i+45]).decode() for i in range(0, len(w), 45)))')
# A day old: "0001/1285" announces a series, whose reply would wait an
# hour for the rest of it (one voice per series version).
mkmail "$T/subj.mbox" 2 1 prefix=long age_days=1 "rawsubject=$long"
$PW ingest -q --list linux-foo --reply --db "$SDB" --config "$C" "$T/subj.mbox" >/dev/null 2>"$T/err"
base=$(received s1)
$PW outbox --db "$SDB" --config "$C" send >/dev/null 2>"$T/err"
is "hostile subjects: both replies delivered" "$(($(received s1) - base))" 2
check "hostile subjects: valid messages, one logical line per header, no injection" $PY -c '
import email, email.policy, json, sys
log = [json.loads(l) for l in open(sys.argv[1] + "/log.jsonl")][-2:]
for e in log:
    raw = open(sys.argv[1] + "/" + e["file"], "rb").read()
    head = raw.split(b"\r\n\r\n", 1)[0]
    names = []
    for line in head.split(b"\r\n"):
        assert len(line) <= 998, len(line)
        assert b"\r" not in line and b"\n" not in line
        if line[:1] in (b" ", b"\t"):
            continue
        name = line.split(b":", 1)[0]
        assert name and b" " not in name, line
        names.append(name.lower())
    assert len(names) == len(set(names)), names
    assert b"bcc" not in names, names
    m = email.message_from_bytes(raw, policy=email.policy.default)
    s = str(m["Subject"])
    assert "\r" not in s and "\n" not in s, repr(s)
    assert s.startswith("Re: [PATCH"), s
    assert len(s) <= 260, len(s)
    assert m["In-Reply-To"] in ("<crlf1@example.com>", "<long2@example.com>")
    if m["In-Reply-To"] == "<crlf1@example.com>":
        assert s == "Re: [PATCH] fix Bcc: victim@example.org body", repr(s)
    else:
        assert "caf\u00e9 \u00fcber" in s and s.endswith("..."), s
' "$T/s1"

# ---- 7. rate limits hold over a burst of 1,000 patches from one author ----
RDB=$T/rate.db
RC=$T/rate.conf
# Flood detection is set out of reach here: such a burst is a flood (one
# summary, see flood.sh), and this part tests the rate limits alone.
config "$RC" "smtp://127.0.0.1:$P1" "starttls = no" "[reply]" \
	"per_recipient_per_hour = 5" "global_per_hour = 8" "[flood]" "count = 1000000"
mkmail "$T/burst.mbox" 1 1000 prefix=burst "from=Baole Burst <burst@example.com>"
$PW ingest -q --list linux-foo --reply --db "$RDB" --config "$RC" "$T/burst.mbox" >/dev/null 2>"$T/err"
is "burst: 1,000 patches stored with findings" \
	"$(q "$RDB" "SELECT count(DISTINCT patch) FROM finding")" 1000
is "burst: 5 replies pending for the author" \
	"$(q "$RDB" "SELECT count(*) FROM outbox WHERE state = 'pending'")" 5
is "burst: 995 suppressed by the per-recipient limit" \
	"$(q "$RDB" "SELECT count(*) FROM outbox WHERE state = 'suppressed' AND reason LIKE 'rate limit: % replies to burst@example.com%'")" 995
mkmail "$T/others.mbox" 1 6 prefix=oth "from=Other One <one@example.com>"
$PW ingest -q --list linux-foo --reply --db "$RDB" --config "$RC" "$T/others.mbox" >/dev/null 2>"$T/err"
is "global limit: 8 pending in all" "$(q "$RDB" "SELECT count(*) FROM outbox WHERE state = 'pending'")" 8
contains "global limit: the rest held with the reason" \
	"$(q "$RDB" "SELECT reason FROM outbox WHERE in_reply_to = 'oth6@example.com'")" "global_per_hour = 8"
base=$(received s1)
$PW outbox --db "$RDB" --config "$RC" send >/dev/null 2>"$T/err"
is "burst: exactly 8 sent" "$(($(received s1) - base))" 8
is "burst: the author got exactly 5" \
	"$(tail -n 8 "$T/s1/log.jsonl" | grep -c '"burst@example.com"')" 5
stop_server s1

# ---- 8. STARTTLS with a self-signed certificate, AUTH, smtps ----
openssl req -x509 -newkey rsa:2048 -nodes -days 2 -subj /CN=127.0.0.1 \
	-addext "subjectAltName=IP:127.0.0.1,DNS:localhost" \
	-keyout "$T/key.pem" -out "$T/cert.pem" >/dev/null 2>&1
P2=$(free_port)
start_server tls "$P2" --starttls "$T/cert.pem" "$T/key.pem" --auth bot:s3cret || exit 1
TDB=$T/tls.db
TC=$T/tls.conf
mkmail "$T/tls.mbox" 1 2 prefix=tls
$PW ingest -q --list linux-foo --reply --db "$TDB" --config "$C" "$T/tls.mbox" >/dev/null 2>"$T/err"
config "$TC" "smtp://127.0.0.1:$P2" "starttls = required" "user = bot" "password = s3cret"
$PW outbox --db "$TDB" --config "$TC" send --limit 1 >/dev/null 2>"$T/err"; rc=$?
is "STARTTLS, certificate not trusted: exit status 2" "$rc" 2
contains "STARTTLS, certificate not trusted: the reason is given" "$(cat "$T/err")" "certificate"
is "STARTTLS, certificate not trusted: the reply stays pending" \
	"$(q "$TDB" "SELECT state FROM outbox WHERE id = 1")" pending
config "$TC" "smtp://127.0.0.1:$P2" "starttls = required" "user = bot" \
	"password = s3cret" "cainfo = $T/cert.pem"
chmod 644 "$TC"
$PW outbox --db "$TDB" --config "$TC" send >/dev/null 2>"$T/err"; rc=$?
is "a password in a file others can read is refused (75: the configuration)" "$rc" 75
chmod 600 "$TC"
$PW outbox --db "$TDB" --config "$TC" send --all >/dev/null 2>"$T/err"
is "STARTTLS + AUTH with the certificate trusted: both sent" \
	"$(q "$TDB" "SELECT count(*) FROM outbox WHERE state = 'sent'")" 2
check "STARTTLS: the server saw TLS and AUTH" $PY -c '
import json, sys
log = [json.loads(l) for l in open(sys.argv[1])]
assert len(log) == 2 and all(e["tls"] and e["auth"] for e in log), log
' "$T/tls/log.jsonl"
config "$TC" "smtp://127.0.0.1:$P2" "starttls = required" "user = bot" \
	"password = wrong" "cainfo = $T/cert.pem"
mkmail "$T/tls2.mbox" 3 1 prefix=tls
$PW ingest -q --list linux-foo --reply --db "$TDB" --config "$C" "$T/tls2.mbox" >/dev/null 2>"$T/err"
$PW outbox --db "$TDB" --config "$TC" send >/dev/null 2>"$T/err"; rc=$?
is "a wrong password: exit status 2, reply kept pending, attempt not counted" \
	"$rc,$(q "$TDB" "SELECT state || ',' || attempts FROM outbox WHERE in_reply_to = 'tls3@example.com'")" "2,pending,0"
stop_server tls

P3=$(free_port)
start_server smtps "$P3" --smtps "$T/cert.pem" "$T/key.pem" || exit 1
config "$TC" "smtps://127.0.0.1:$P3" "cainfo = $T/cert.pem"
$PW outbox --db "$TDB" --config "$TC" send --all >/dev/null 2>"$T/err"
is "smtps:// with the certificate trusted: sent" \
	"$(q "$TDB" "SELECT state FROM outbox WHERE in_reply_to = 'tls3@example.com'")" sent
check "smtps: the server saw TLS" grep -q '"tls": true' "$T/smtps/log.jsonl"
stop_server smtps

# ---- 9. dry run: no [smtp] url, replies go to the mbox beside the database ----
mkdir -p "$T/dry"
DDB=$T/dry/pw.db
DC=$T/dry.conf
config "$DC" ""
mkmail "$T/dry.mbox" 1 2 prefix=dry
$PW ingest -q --list linux-foo --reply --db "$DDB" --config "$DC" "$T/dry.mbox" >/dev/null 2>"$T/err"
out=$($PW outbox --db "$DDB" --config "$DC" send 2>"$T/err")
is "dry run: both written" "$out" "attempted=2 sent=2 deferred=0 failed=0 recovered=0"
check "dry run: outbox.mbox beside the database holds both replies" $PY -c '
import mailbox, sys
msgs = list(mailbox.mbox(sys.argv[1]))
assert len(msgs) == 2, len(msgs)
assert sorted(m["In-Reply-To"] for m in msgs) == ["<dry1@example.com>", "<dry2@example.com>"]
assert all(m["Auto-Submitted"] == "auto-generated" for m in msgs)
' "$T/dry/outbox.mbox"
is "dry run: recorded as sent through the mbox" \
	"$(q "$DDB" "SELECT group_concat(transport) FROM outbox")" "mbox,mbox"

# ---- 10. too late: mail older than [reply] max_age is never answered ----
mkmail "$T/old.mbox" 60 1 prefix=old age_days=30
mkmail "$T/old.mbox" 61 1 prefix=recent age_days=2
$PW ingest -q --list linux-foo --reply --db "$DDB" --config "$DC" "$T/old.mbox" >/dev/null 2>"$T/err"
is "a 30-day-old patch is suppressed as too old" \
	"$(q "$DDB" "SELECT state || ': ' || reason FROM outbox WHERE in_reply_to = 'old60@example.com'")" \
	"suppressed: older than 7 days: too late to answer"
is "a 2-day-old patch is answered" \
	"$(q "$DDB" "SELECT state FROM outbox WHERE in_reply_to = 'recent61@example.com'")" "pending"

# ---- 11. the quoted line is stored with its finding ----
# A reply is composed from stored rows: each finding keeps the text of
# the added line it is about (finding_line), and "db recheck" stores it
# again (for findings stored before the schema kept it).
mkdir -p "$T/line"
LDB=$T/line/pw.db
mkmail "$T/line.mbox" 70 1 prefix=line
$PW ingest -q --list linux-foo --db "$LDB" "$T/line.mbox" >/dev/null 2>"$T/err"
is "the finding stores the line it quotes" \
	"$(q "$LDB" "SELECT file || ':' || line || ':' || col || ':' || text
		FROM finding JOIN finding_line ON finding = finding.id")" \
	"$(printf 'drivers/foo/foo70.c:12:30:\tdebugfs_create_file("knob", 0666, d, NULL, &knob_fops);')"
q "$LDB" "DELETE FROM finding_line"
out=$($PW db --db "$LDB" recheck 2>"$T/err")
is "db recheck: one patch rechecked" "$out" "rechecked=1 findings=1"
is "db recheck stores the line again" \
	"$(q "$LDB" "SELECT text FROM finding JOIN finding_line ON finding = finding.id")" \
	"$(printf '\tdebugfs_create_file("knob", 0666, d, NULL, &knob_fops);')"

# ---- 12. the in-body author in Cc counts against their own limit ----
# Three posters each forward a patch with the same in-body author: the
# replies go To each poster; the author is in Cc of the first only,
# since per_recipient_per_hour counts Cc as well as To.
mkdir -p "$T/incc"
printf '[smtp]\nfrom = bot@example.org\n[reply]\nper_recipient_per_hour = 1\nmax_age = 0\nmin_severity = info\n[list *]\nmail = author\n' >"$T/incc.conf"
$PW ingest -q --reply --db "$T/incc/pw.db" --config "$T/incc.conf" \
	"$TOP/tests/data/incc.mbox" >/dev/null 2>"$T/err"
is "three replies, one To each poster" \
	"$(q "$T/incc/pw.db" "SELECT group_concat(rcpt_to, ' ') FROM (SELECT rcpt_to FROM outbox WHERE state = 'pending' ORDER BY id)")" \
	"x1@example.net x2@example.net x3@example.net"
is "the in-body author is in Cc of the first only" \
	"$(q "$T/incc/pw.db" "SELECT count(*) FROM outbox WHERE instr(recipients, 'victim@elsewhere.example') > 0")" "1"

# ---- 13. real list mail: short, grouped replies that name the list ----
# Two real linux-hwmon patches (tests/corpus/lore-linux-hwmon/): the it87
# patch with 18 symbolic modes once drew 18 near-identical items (~190
# lines); its reply now holds one item for the rule, all 18 places, one
# fix, under 60 lines, and a link to the patch's dashboard page.  The
# footer names the list's posting address, found among the recipients
# by the List-Id, never the List-Id.
HW=$CORPUS/lore-linux-hwmon
mkdir -p "$T/hw"
printf '[reply]\nmax_age = 0\n[web]\nurl = https://pw.example.org/\n[list linux-hwmon.vger.kernel.org]\nmail = author\n' >"$T/hw.conf"
$PW run --db "$T/hw/pw.db" --config "$T/hw.conf" "$HW/it87-symbolic-modes.mbox" \
	"$HW/k10temp-malformed.mbox" >/dev/null 2>"$T/err"
is "real hwmon mail: two replies in the dry-run mbox" \
	"$(grep -c '^From patchwarden@' "$T/hw/outbox.mbox")" 2
q "$T/hw/pw.db" "SELECT message FROM finding WHERE rule = 'PATCH_MALFORMED'" >"$T/hw/malformed"
check "real hwmon mail: each reply short, grouped, and naming the list" $PY -c '
import mailbox, sys, email.policy
box = mailbox.mbox(sys.argv[1], factory=None)
msgs = {m["In-Reply-To"]: m for m in box}
it87 = msgs["<20260110012613.48150-3-yahoo@perenite.com>"]
k10 = msgs["<CAP80Qm2ORJ4cXukhH8oXeGv-C9LrADa1XyDuyq5LKeV_YaYxqA@mail.gmail.com>"]
malformed = " ".join(open(sys.argv[2]).read().split())
for m in (it87, k10):
    body = m.get_payload(decode=True).decode()
    flat = " ".join(body.split())
    assert body.count("\n") < 60, (body.count("\n"), body)
    assert m["Auto-Submitted"] == "auto-generated", m["Auto-Submitted"]
    assert "linux-hwmon.vger.kernel.org" not in body, body
    foot = flat[flat.index("-- "):]
    assert "a review bot for linux-hwmon@vger.kernel.org" in foot, foot
    assert "automated reply" in foot, foot
body = it87.get_payload(decode=True).decode()
flat = " ".join(body.split())
assert body.count("PERM_SYMBOLIC") == 1, body
assert "PERM_SYMBOLIC (warning), 18 lines: drivers/hwmon/it87.c:1261, 1263," in flat, flat
assert "2304, 2305, 2306" in flat, flat
assert body.count("> +") == 1 and body.count("Suggested:") == 1, body
assert "found 18 things worth a second look in its permission modes" in flat, flat
assert "https://pw.example.org/message/20260110012613.48150-3-yahoo@perenite.com" in body, body
body = k10.get_payload(decode=True).decode()
flat = " ".join(body.split())
assert "permission" not in flat, flat
assert "in the form of its diff:" in flat, flat
assert malformed and malformed in flat, (malformed, flat)
' "$T/hw/outbox.mbox" "$T/hw/malformed"

# The dashboard URL has one home, [web] url; [reply] dashboard_url, its
# old name, still works and config check names it as deprecated.
printf '[reply]\ndashboard_url = https://old.example.org/\n' >"$T/old.conf"
out=$($PW config check --config "$T/old.conf" 2>&1); rc=$?
is "config check: the old [reply] dashboard_url is no error" "$rc" 0
check "config check: it sets [web] url" grep -qx "url = https://old.example.org/" <<<"$out"
check "config check: it is named as deprecated, with the new key" \
	grep -q "old.conf:2: \[reply\] dashboard_url is deprecated: write it as \[web\] url" <<<"$out"
printf '[reply]\ndashboard_url = https://old.example.org/\n[web]\nurl = https://new.example.org/\n' >"$T/both.conf"
out=$($PW config check --config "$T/both.conf" 2>&1); rc=$?
is "config check: both keys at once is a problem" "$rc" 1
check "config check: the problem names [web] url" grep -q "old name of \[web\] url" <<<"$out"
printf '[web]\nurl = javascript:alert(1)\n' >"$T/bad.conf"
$PW config check --config "$T/bad.conf" >/dev/null 2>&1
is "config check: [web] url must be http or https" "$?" 1
