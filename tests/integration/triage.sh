#!/usr/bin/env bash
# Maintainers' decisions on real linux-hwmon patches (tests/corpus/
# lore-linux-hwmon/): "patchwarden triage", the dashboard's form (real
# HTTP, the [web] token required) and command mail in reply to the
# bot's replies (From a list maintainer or a MAINTAINERS maintainer,
# DKIM-signed with a key made here, read from [core] dkim_keys), each
# changing what later checks and replies do; forged senders refused.
. "$(dirname "$0")/../lib.sh"
. "$TOP/tests/web_lib.sh"

H=$TOP/tests/corpus/lore-linux-hwmon
A1=$H/asus-ec-sensors-v1.mbox	# 1 PERM_SYMBOLIC, drivers/hwmon/asus-ec-sensors.c
A2=$H/asus-ec-sensors-v2.mbox	# the next posting: the same finding
A3=$H/asus-ec-sensors-v3.mbox	# a later one by the same author
IT=$H/it87-symbolic-modes.mbox	# 18 PERM_SYMBOLIC in drivers/hwmon/it87.c
IT4=$H/it87-symbolic-modes-v4.mbox	# its v4: the same 18
OXP=$H/oxp-platform.mbox	# 2 PERM_SYMBOLIC in drivers/platform/x86/
A1_ID=20211216205303.768991-1-eugene.shalygin@gmail.com
A2_ID=20211217164307.1514192-2-eugene.shalygin@gmail.com
A3_ID=20220111160900.1150050-2-eugene.shalygin@gmail.com
IT_ID=20260110012613.48150-3-yahoo@perenite.com
IT4_ID=20260114221210.98071-4-yahoo@perenite.com
OXP_ID=20221029225051.1171795-1-samsagax@gmail.com
AUTHOR=eugene.shalygin@gmail.com
TOKEN=triage-token-0123456789abcdef
PY=/usr/bin/python3
q() { sqlite3 -batch -noheader "$1" "$2"; }

# The list's configuration: a maintainer address, a MAINTAINERS file
# (entries as the kernel's file writes them), DKIM keys from a file.
cat >"$T/MAINTAINERS" <<'EOF'
ASUS EC HARDWARE MONITOR DRIVER
M:	Eugene Shalygin <eugene.shalygin@gmail.com>
L:	linux-hwmon@vger.kernel.org
S:	Maintained
F:	drivers/hwmon/asus-ec-sensors.c

HARDWARE MONITORING
M:	Guenter Roeck <linux@roeck-us.net>
L:	linux-hwmon@vger.kernel.org
S:	Maintained
F:	drivers/hwmon/
F:	include/linux/hwmon*.h

THE REST
M:	Linus Torvalds <torvalds@linux-foundation.org>
L:	linux-kernel@vger.kernel.org
S:	Buried alive in reporters
F:	*
F:	*/
EOF
openssl genrsa -out "$T/dkim.key" 2048 2>/dev/null
pub=$(openssl rsa -in "$T/dkim.key" -pubout -outform DER 2>/dev/null | base64 -w0)
for d in roeck-us.net suse.com gmail.com example.org net; do
	printf 'sel._domainkey.%s v=DKIM1; k=rsa; p=%s\n' "$d" "$pub"
done >"$T/keys.txt"
cat >"$T/pw.conf" <<EOF
[core]
dkim_keys = keys.txt
[reply]
max_age = 0
min_severity = info
[web]
token = $TOKEN
[list hwmon]
mail = author
maintainer = jdelvare@suse.com
maintainers = MAINTAINERS
[list other]
mail = author
maintainer = olga@example.org
[list *]
mail = author
EOF
chmod 600 "$T/pw.conf"
C="--config $T/pw.conf"
out=$(cd / && $PW config check $C)
contains "config check: [list] maintainer" "$out" "maintainer = jdelvare@suse.com"
contains "config check: [list] maintainers, taken from the config's folder" "$out" "maintainers = $T/MAINTAINERS"
contains "config check: [core] dkim_keys, likewise" "$out" "dkim_keys = $T/keys.txt"

# The reply the bot queued to message MSGID: "state|reason".
reply_of() { q "$1" "SELECT o.state || '|' || coalesce(o.reason, '') FROM outbox o JOIN message m ON m.id = o.message WHERE m.msgid = '$2'"; }
# How many findings of message MSGID are stored.
findings_of() { q "$1" "SELECT count(*) FROM finding f JOIN patch p ON p.id = f.patch JOIN message m ON m.id = p.message WHERE m.msgid = '$2'"; }
# A value of the newest decision, from "query decisions --format json".
last_decision() {
	$PW query decisions --db "$1" --format json |
		$PY -c "import json,sys; d=json.load(sys.stdin); print(d[0]['$2'] if d else '')"
}
ndecisions() { $PW query decisions --db "$1" --format json | $PY -c "import json,sys; print(len(json.load(sys.stdin)))"; }

# ---- the command line ----
D=$T/cli.db
$PW ingest -q $C --db "$D" --list hwmon --reply "$A1" >/dev/null
is "a real patch: one PERM_SYMBOLIC finding, its reply pending" \
	"$(findings_of "$D" $A1_ID),$(reply_of "$D" $A1_ID)" "1,pending|"
fid=$(q "$D" "SELECT f.id FROM finding f JOIN patch p ON p.id = f.patch JOIN message m ON m.id = p.message WHERE m.msgid = '$A1_ID'")
out=$($PW triage $C --db "$D" wrong "$fid" --by linux@roeck-us.net --reason "octal or not, the mode is right" 2>&1)
contains "triage wrong FINDING_ID: a decision covering it" "$out" "covering 1 stored finding"
is "the reply written before is not sent: suppressed, with the decision" \
	"$(reply_of "$D" $A1_ID)" "suppressed|every finding it is about was marked wrong or ignored (decision 1)"
is "query decisions: who, how, why, what it covers" \
	"$(last_decision "$D" kind),$(last_decision "$D" by),$(last_decision "$D" via),$(last_decision "$D" reason),$(last_decision "$D" covers)" \
	"wrong,linux@roeck-us.net,cli,octal or not, the mode is right,1"
out=$($PW query decisions --db "$D")
contains "query decisions: one line for people" "$out" "1 wrong PERM_SYMBOLIC findings at drivers/hwmon/asus-ec-sensors.c:552 of <$A1_ID> by linux@roeck-us.net"
out=$($PW triage $C --db "$D" recheck "<$A1_ID>" --by linux@roeck-us.net 2>&1)
contains "triage recheck: the message checked again" "$out" "decision 2: recheck"
is "after the recheck, its finding is stored again and still marked wrong" \
	"$(findings_of "$D" $A1_ID),$($PW query decisions --db "$D" --format json | $PY -c "import json,sys; print([d['covers'] for d in json.load(sys.stdin) if d['kind']=='wrong'][0])")" "1,1"

# ignore: a later patch of that file gets no reply; its finding is stored.
$PW triage $C --db "$D" ignore PERM_SYMBOLIC --path 'drivers/hwmon/asus-*' --list hwmon \
	--by jdelvare@suse.com >"$T/out" 2>&1
contains "triage ignore RULE --path --list" "$(cat "$T/out")" "decision 3: ignore"
$PW ingest -q $C --db "$D" --list hwmon --reply "$A2" >/dev/null
is "ignored rule: the later patch is checked, its finding stored, no reply" \
	"$(findings_of "$D" $A2_ID),$(reply_of "$D" $A2_ID)" "1,"
$PW ingest -q $C --db "$T/control.db" --list hwmon --reply "$A2" >/dev/null
is "the same patch without the decision gets its reply" \
	"$(reply_of "$T/control.db" $A2_ID)" "pending|"
$PW ingest -q $C --db "$D" --list other --reply "$A3" >/dev/null
is "ignored on hwmon only: the same rule on another list is replied about" \
	"$(reply_of "$D" $A3_ID)" "pending|"
$PW triage $C --db "$D" ignore NO_SUCH_RULE --by x@y.org 2>/dev/null
is "triage ignore of a rule that does not exist: refused, status 2" "$?" 2
$PW triage $C --db "$D" undo 3 --by jdelvare@suse.com >/dev/null
is "undo: the decision stays, marked undone, covering nothing" \
	"$($PW query decisions --db "$D" --format json | $PY -c "import json,sys; d=[d for d in json.load(sys.stdin) if d['id']==3][0]; print(d['undone_by'], d['covers'])")" \
	"jdelvare@suse.com 0"
$PW triage $C --db "$D" undo 3 2>/dev/null
is "undo of a decision undone already: refused, status 2" "$?" 2

# stop: the author's later patches are still checked, never answered.
$PW triage $C --db "$D" stop "$AUTHOR" --list hwmon --by "$AUTHOR" >/dev/null
$PW ingest -q $C --db "$D.2" --list hwmon --reply "$A1" >/dev/null
$PW triage $C --db "$D.2" stop "$AUTHOR" --list hwmon --by "$AUTHOR" >/dev/null
$PW ingest -q $C --db "$D.2" --list hwmon --reply "$A3" >/dev/null
is "stop: the author's next patch is checked, its reply held: author opted out" \
	"$(findings_of "$D.2" $A3_ID),$(reply_of "$D.2" $A3_ID)" "1,suppressed|author opted out (decision 1)"

# ---- the dashboard ----
W=$T/web.db
$PW ingest -q $C --db "$W" --list hwmon --reply "$IT" >/dev/null
serve "$W" $C
page() {	# page PATH NEEDLE: the page, once it shows NEEDLE (the cache
	local i	# answers a page computed before a change once more)
	for i in $(seq 50); do
		get "$URL$1" >"$T/page"
		grep -qF -- "$2" "$T/page" && break
		sleep 0.1
	done
	cat "$T/page"
}
body=$(page "/message/$IT_ID" "Findings and decisions")
contains "patch page: its findings, each with a form" "$body" 'name="action" value="wrong"'
contains "patch page: ignore its rule for its file" "$body" 'name="path" value="drivers/hwmon/it87.c"'
fid=$(q "$W" "SELECT min(f.id) FROM finding f JOIN patch p ON p.id = f.patch JOIN message m ON m.id = p.message WHERE m.msgid = '$IT_ID'")
get -d "action=wrong&finding=$fid&by=linux@roeck-us.net&back=/message/$IT_ID" "$URL/api/triage" >/dev/null
is "POST /api/triage without the token: 401, nothing decided" "$(code),$(ndecisions "$W")" "401,0"
get -d "action=wrong&finding=$fid&by=linux@roeck-us.net&token=not-the-token-at-all" "$URL/api/triage" >/dev/null
is "with a wrong token: 401, nothing decided" "$(code),$(ndecisions "$W")" "401,0"
body=$(get -d "action=wrong&finding=$fid&by=linux@roeck-us.net&reason=fine+here&token=$TOKEN&back=/message/$IT_ID" "$URL/api/triage")
is "the form with the token: a decision, taken via the web" \
	"$(code),$(last_decision "$W" via),$(last_decision "$W" covers)" "200,web,1"
contains "it answers a page linking back" "$body" "href=\"/message/$IT_ID\""
check "the server's log: the decision, when, what and by whom" grep -qE \
	"^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9:.]{12}Z patchwarden: web: decision [0-9]+ \\(wrong .* by linux@roeck-us.net\\), covering 1 findings\$" \
	"$T/serve-${URL##*:}.err"
body=$(page "/message/$IT_ID" "marked wrong by")
contains "the patch page shows it: marked wrong by X on DATE" "$body" \
	"marked wrong by linux@roeck-us.net on $(date -u +%Y-%m-%d)"
contains "the other findings stay open" "$body" "<td>open</td>"
is "one finding of 18 decided: the pending reply still goes" "$(reply_of "$W" $IT_ID)" "pending|"
# The Authorization header serves programs; the answer is JSON.
body=$(get -H "Authorization: Bearer $TOKEN" \
	-d "action=ignore&rule=PERM_SYMBOLIC&path=drivers/hwmon/it87.c&list=hwmon&by=linux@roeck-us.net" "$URL/api/triage")
contains "ignore for this file, with the header: JSON" "$body" '"covers":18'
is "every finding decided now: the pending reply is held" \
	"$(reply_of "$W" $IT_ID | cut -d'|' -f1)" "suppressed"
$PW ingest -q $C --db "$W" --list hwmon --reply "$IT4" >/dev/null
is "the next version of the patch: checked (18 findings), no reply" \
	"$(findings_of "$W" $IT4_ID),$(reply_of "$W" $IT4_ID)" "18,"
body=$(page /decisions "ignore")
contains "/decisions lists them" "$body" "PERM_SYMBOLIC in drivers/hwmon/it87.c on hwmon"
contains "/decisions counts what is decided" "$body" "1 findings marked wrong, 36 ignored"
body=$(page "/api/decisions?list=hwmon" '"kind" : "ignore"')
contains "/api/decisions?list=hwmon" "$body" '"via" : "web"'
# Mail a form cannot inject: escaped in the page.
get -d "action=wrong&msgid=$IT_ID&by=%3Cscript%3Ex%40y&reason=%3Cb%3Ebold%3C%2Fb%3E&token=$TOKEN" "$URL/api/triage" >/dev/null
body=$(page /decisions "&lt;script&gt;")
check "what a form says is escaped on the page" bash -c "! grep -q '<script>\|<b>bold' '$T/page'"
# back names a page of this dashboard, or the answer links /decisions:
# no open redirect to another host, no header split.
for b in '//evil.example.org/x' 'https://evil.example.org/' 'https:/evil.example.org' \
	'/message//evil.example.org' '/%5Cevil.example.org' '/x%0D%0ALocation:%20http://evil.example.org' \
	'evil.example.org' '/x%09y'; do
	body=$(get -d "action=wrong&msgid=$IT_ID&by=linux@roeck-us.net&token=$TOKEN&back=$b" "$URL/api/triage")
	is "back=$b: the answer links back to /decisions, nowhere else" \
		"$(code),$(printf '%s' "$body" | grep -o 'href="[^"]*">back<' )" '200,href="/decisions">back<'
done

# ---- mail ----
M=$T/mail.db
$PW ingest -q $C --db "$M" --list hwmon --reply "$A1" "$OXP" >/dev/null
R1=$(q "$M" "SELECT o.msgid FROM outbox o JOIN message m ON m.id = o.message WHERE m.msgid = '$A1_ID'")
ROXP=$(q "$M" "SELECT o.msgid FROM outbox o JOIN message m ON m.id = o.message WHERE m.msgid = '$OXP_ID'")
# cmdmail OUT FROM MSGID IN_REPLY_TO MODE LINES...: a reply to the
# bot's reply, its text the quote and the lines.  MODE: "plain"
# (unsigned); "sign": signed for its From domain with the key made
# above, h= naming every header a command needs; "tamper": signed, then
# altered; "twofrom": signed, with another From header put above the
# signed one; "part": signed, h= leaving out Message-ID, In-Reply-To
# and References; "tld": signed by d=net, the public suffix above the
# From domain; "len": signed with l= (the whole body as it was signed);
# "len+": signed with l=, then a line "patchwarden: ignore
# PERM_SYMBOLIC" appended below the signed part, as anyone on the way
# can; "lenr", "lenr+": the same with the relaxed body canonicalization,
# blanks and empty lines at the end of the body; "retarget:MSGID":
# signed, then In-Reply-To and References naming MSGID put above the
# signed ones.
cmdmail() {
	local out=$1 from=$2 id=$3 irt=$4 mode=$5; shift 5
	$PY - "$out" "$from" "$id" "$irt" "$mode" "$T/dkim.key" "$@" <<'EOF'
import sys, dkim
out, frm, mid, irt, mode, key = sys.argv[1:7]
lines = sys.argv[7:]
body = "> PERM_SYMBOLIC: this list writes modes in octal\n> patchwarden: stop\n\n" + "\n".join(lines) + "\n"
msg = (f"From: {frm}\nTo: patchwarden@localhost\nCc: linux-hwmon@vger.kernel.org\n"
       f"Subject: Re: [PATCH 1/3] hwmon: (asus-ec-sensors) add driver for ASUS EC\n"
       f"Date: Thu, 17 Dec 2021 10:00:00 +0000\nMessage-ID: <{mid}>\n"
       f"In-Reply-To: <{irt}>\nReferences: <{irt}>\n\n{body}").replace("\n", "\r\n").encode()
if mode != "plain":
    dom = frm.rsplit("@", 1)[1].rstrip(">").encode()
    heads = [b"From", b"To", b"Subject", b"Date", b"Message-ID", b"In-Reply-To", b"References"]
    if mode == "part":
        heads = [b"From", b"To", b"Subject", b"Date"]
    if mode == "tld":
        dom = b"net"
    canon = (b"relaxed", b"simple")
    if mode.startswith("lenr"):
        # Relaxed body: blanks folded and dropped at line ends, empty
        # lines at the end not counted; the body is given all three.
        canon = (b"relaxed", b"relaxed")
        msg = msg.replace(b"\r\n\r\n>", b"\r\n\r\n>  \t") + b"  \r\n\r\n \t\r\n"
    sig = dkim.sign(msg, b"sel", dom, open(key, "rb").read(),
                    include_headers=heads, length=mode.startswith("len"),
                    canonicalize=canon)
    msg = sig + msg
    if mode == "twofrom":
        msg = b"From: Guenter Roeck <linux@roeck-us.net>\r\n" + msg
    if mode == "tamper":
        msg = msg.replace(b"patchwarden: wrong", b"patchwarden: wrong PERM_SYMBOLIC")
    if mode.startswith("retarget:"):
        # Another In-Reply-To and References put above the signed ones.
        other = mode.split(":", 1)[1].encode()
        msg = b"In-Reply-To: <" + other + b">\r\nReferences: <" + other + b">\r\n" + msg
    if mode in ("len+", "lenr+"):
        msg += b"patchwarden: ignore PERM_SYMBOLIC\r\n"
open(out, "wb").write(msg.replace(b"\r\n", b"\n"))
EOF
}
cmdmail "$T/forged.eml" "Mallory <mallory@example.org>" forged@example.org "$R1" sign "patchwarden: wrong"
err=$($PW ingest $C --db "$M" --list hwmon --reply "$T/forged.eml" 2>&1 >/dev/null)
contains "From someone else: refused and logged" "$err" "(wrong) from mallory@example.org refused: not a maintainer"
# A From header is a line anyone writes: unsigned, the maintainer's own
# address is refused ([core] dkim = required, the default).
cmdmail "$T/unsigned.eml" "Jean Delvare <jdelvare@suse.com>" unsigned@suse.com "$R1" plain "patchwarden: ignore PERM_SYMBOLIC"
err=$($PW ingest $C --db "$M" --list hwmon --reply "$T/unsigned.eml" 2>&1 >/dev/null)
contains "From the list's maintainer, unsigned: refused" "$err" "it carries no DKIM signature of its From domain"
# Mallory's own signed mail with the maintainer's From put above hers.
cmdmail "$T/twofrom.eml" "Mallory <mallory@example.org>" twofrom@example.org "$R1" twofrom "patchwarden: wrong"
err=$($PW ingest $C --db "$M" --list hwmon --reply "$T/twofrom.eml" 2>&1 >/dev/null)
contains "two From headers, the signed one below: refused" "$err" "refused"
is "nothing decided; the command mail not stored, not answered" \
	"$(ndecisions "$M"),$(q "$M" "SELECT count(*) FROM message WHERE msgid = 'forged@example.org'"),$(q "$M" "SELECT count(*) FROM outbox")" "0,0,2"
cmdmail "$T/tampered.eml" "Guenter Roeck <linux@roeck-us.net>" tampered@roeck-us.net "$R1" tamper "patchwarden: wrong"
err=$($PW ingest $C --db "$M" --list hwmon --reply "$T/tampered.eml" 2>&1 >/dev/null)
contains "From the maintainer with a failing DKIM signature: refused" "$err" "its DKIM signature does not verify"
is "nothing decided, the reply still pending" "$(ndecisions "$M"),$(reply_of "$M" $A1_ID)" "0,pending|"
cmdmail "$T/signed.eml" "Guenter Roeck <linux@roeck-us.net>" signed@roeck-us.net "$R1" sign \
	"Thanks, but the octal is not needed in this driver." "patchwarden: wrong the mode is what we want"
err=$($PW ingest $C --db "$M" --list hwmon --reply "$T/signed.eml" 2>&1 >/dev/null)
contains "signed, from the MAINTAINERS maintainer of the file: obeyed" "$err" "decision 1 (wrong by linux@roeck-us.net)"
is "a decision via mail, with the command mail's Message-ID and reason" \
	"$(last_decision "$M" via),$(last_decision "$M" via_msgid),$(last_decision "$M" reason),$(last_decision "$M" covers)" \
	"mail,signed@roeck-us.net,the mode is what we want,1"
is "the quoted '> patchwarden: stop' is not obeyed; the reply is held" \
	"$(ndecisions "$M"),$(reply_of "$M" $A1_ID | cut -d'|' -f1)" "1,suppressed"
$PW ingest -q $C --db "$M" --list hwmon --reply "$T/signed.eml" >/dev/null 2>&1
is "the same command mail again decides nothing more" "$(ndecisions "$M")" 1
# The MAINTAINERS file names who maintains each file: not the hwmon
# maintainer for drivers/platform/x86.
cmdmail "$T/oxp.eml" "Guenter Roeck <linux@roeck-us.net>" oxp@roeck-us.net "$ROXP" sign "patchwarden: wrong"
err=$($PW ingest $C --db "$M" --list hwmon --reply "$T/oxp.eml" 2>&1 >/dev/null)
contains "a file another entry covers: refused" "$err" "not a maintainer of every patched file (MAINTAINERS)"
# [list hwmon] maintainer may decide for the whole list.
cmdmail "$T/jean.eml" "Jean Delvare <jdelvare@suse.com>" jean@suse.com "$ROXP" sign \
	"patchwarden: ignore PERM_SYMBOLIC drivers/platform/x86/* platform drivers are not ours"
err=$($PW ingest $C --db "$M" --list hwmon --reply "$T/jean.eml" 2>&1 >/dev/null)
is "[list] maintainer: ignore RULE PATH, for the list" \
	"$(last_decision "$M" kind),$(last_decision "$M" path),$(last_decision "$M" list),$(last_decision "$M" covers)" \
	"ignore,drivers/platform/x86/*,hwmon,2"
cmdmail "$T/wide.eml" "Guenter Roeck <linux@roeck-us.net>" wide@roeck-us.net "$R1" sign "patchwarden: ignore PERM_SYMBOLIC"
err=$($PW ingest $C --db "$M" --list hwmon --reply "$T/wide.eml" 2>&1 >/dev/null)
contains "a list-wide ignore from a MAINTAINERS maintainer: refused" "$err" "a list-wide ignore is taken from a [list NAME] maintainer"
cmdmail "$T/recheck.eml" "Jean Delvare <jdelvare@suse.com>" recheck@suse.com "$R1" sign "patchwarden: recheck"
$PW ingest -q $C --db "$M" --list hwmon --reply "$T/recheck.eml" >/dev/null 2>&1
is "patchwarden: recheck: the message checked again, its decision kept" \
	"$(last_decision "$M" kind),$(findings_of "$M" $A1_ID),$(q "$M" "SELECT count(*) FROM finding_decision")" "recheck,1,3"
# stop: only the author's own address.
cmdmail "$T/stop-other.eml" "Jean Delvare <jdelvare@suse.com>" stop-other@suse.com "$R1" sign "patchwarden: stop"
err=$($PW ingest $C --db "$M" --list hwmon --reply "$T/stop-other.eml" 2>&1 >/dev/null)
contains "stop from someone not the author: refused" "$err" "stop is taken from the patch author's own address only"
n=$(ndecisions "$M")
cmdmail "$T/stop.eml" "Eugene Shalygin <$AUTHOR>" stop@gmail.com "$R1" sign "patchwarden: stop please"
# Through "run", as the service reads mail.
$PW run $C --db "$M" --list hwmon "$T/stop.eml" >/dev/null 2>&1
is "stop from the author, through run: decided for the list" \
	"$(($(ndecisions "$M") - n)),$(last_decision "$M" kind),$(last_decision "$M" addr),$(last_decision "$M" list)" \
	"1,stop,$AUTHOR,hwmon"
$PW ingest -q $C --db "$M" --list hwmon --reply "$A3" >/dev/null
is "the author's next patch: checked, reply held as opted out" \
	"$(findings_of "$M" $A3_ID),$(reply_of "$M" $A3_ID | cut -c1-27)" "1,suppressed|author opted out"
$PW triage $C --db "$M" undo "$(last_decision "$M" id)" --by "$AUTHOR" >/dev/null
$PW ingest -q $C --db "$M" --list hwmon --reply "$A2" >/dev/null
is "stop undone: the author is answered again" "$(reply_of "$M" $A2_ID)" "pending|"

# A maintainer of one list decides for that list only, not for another
# list the same patch was on.
$PW ingest -q $C --db "$M" --list other "$A1" >/dev/null 2>&1
n=$(ndecisions "$M")
cmdmail "$T/olga.eml" "Olga <olga@example.org>" olga@example.org "$R1" sign "patchwarden: ignore PERM_SYMBOLIC drivers/hwmon/*"
$PW ingest -q $C --db "$M" --list other --reply "$T/olga.eml" >/dev/null 2>&1
is "the other list's maintainer: decided for that list only" \
	"$(($(ndecisions "$M") - n)),$(q "$M" "SELECT group_concat(list) FROM decision WHERE by_addr = 'olga@example.org'")" "1,other"

# ---- command mail from the attacker's side, through the MTA pipe ----
# Each on a store of its own with the hwmon patch and its reply: what a
# maintainer signed cannot be stretched, moved or replayed, and a
# signature is no maintainer's unless its domain is the From domain's.
H2=$T/hostile.db
$PW ingest -q $C --db "$H2" --list hwmon --reply "$A1" >/dev/null
R2=$(q "$H2" "SELECT o.msgid FROM outbox o JOIN message m ON m.id = o.message WHERE m.msgid = '$A1_ID'")
pipe() { $PW run $C --db "$H2" - <"$1" 2>&1 >/dev/null; }
# l=: the maintainer signed "Thanks" and the length of that body; the
# list, or anyone on the way, appends a command below it.
cmdmail "$T/len+.eml" "Jean Delvare <jdelvare@suse.com>" len-plus@suse.com "$R2" len+ "Thanks."
err=$(pipe "$T/len+.eml")
contains "l= shorter than the body, a command appended: refused" "$err" "signs only part of the body (l=)"
is "nothing decided" "$(ndecisions "$H2")" 0
cmdmail "$T/lenr+.eml" "Jean Delvare <jdelvare@suse.com>" lenr-plus@suse.com "$R2" lenr+ "Thanks."
err=$(pipe "$T/lenr+.eml")
contains "the same under c=relaxed/relaxed: refused" "$err" "signs only part of the body (l=)"
cmdmail "$T/lenr.eml" "Jean Delvare <jdelvare@suse.com>" lenr@suse.com "$R2" lenr "patchwarden: recheck"
err=$(pipe "$T/lenr.eml")
contains "l= of the whole relaxed body (blanks, empty lines at its end): obeyed" "$err" "(recheck by jdelvare@suse.com)"
# An l= that covers the whole body hides nothing.
cmdmail "$T/len.eml" "Jean Delvare <jdelvare@suse.com>" len@suse.com "$R2" len "patchwarden: wrong the whole body signed"
err=$(pipe "$T/len.eml")
contains "l= covering the whole body: obeyed" "$err" "(wrong by jdelvare@suse.com)"
# h= without Message-ID, In-Reply-To and References: the signature
# would hold on a copy sent again under a new Message-ID, or answering
# another patch's reply.
cmdmail "$T/part.eml" "Jean Delvare <jdelvare@suse.com>" part@suse.com "$R2" part "patchwarden: ignore PERM_SYMBOLIC drivers/hwmon/*"
err=$(pipe "$T/part.eml")
contains "h= leaving out Message-ID, In-Reply-To, References: refused" "$err" "does not sign every header a command needs"
is "still two decisions (the recheck, the wrong)" "$(ndecisions "$H2")" 2
# A signed command mail is obeyed once: after its decision is undone,
# the same mail sent again decides nothing.
$PW triage $C --db "$H2" undo "$(last_decision "$H2" id)" --by jdelvare@suse.com >/dev/null
err=$(pipe "$T/len.eml")
contains "the same signed command mail after an undo: seen before" "$err" "seen before: a command mail is obeyed once"
is "the decision stays undone, none new" \
	"$(q "$H2" "SELECT count(*), count(undone_at) FROM decision"),$(q "$H2" "SELECT count(*) FROM mail_command")" "2|1,2"
# The signed mail pointed at another patch's reply by headers put above
# the signed ones.
$PW ingest -q $C --db "$H2" --list hwmon --reply "$OXP" >/dev/null
ROXP2=$(q "$H2" "SELECT o.msgid FROM outbox o JOIN message m ON m.id = o.message WHERE m.msgid = '$OXP_ID'")
n=$(q "$H2" "SELECT count(*) FROM decision")
cmdmail "$T/retarget.eml" "Jean Delvare <jdelvare@suse.com>" retarget@suse.com "$R2" "retarget:$ROXP2" "patchwarden: wrong"
err=$(pipe "$T/retarget.eml")
contains "In-Reply-To and References added above the signed ones: refused (one of each, strict header checks)" "$err" "its DKIM signature does not verify"
is "nothing decided" "$(q "$H2" "SELECT count(*) FROM decision")" "$n"
# d=net signs for every .net domain: not for roeck-us.net.
cmdmail "$T/tld.eml" "Guenter Roeck <linux@roeck-us.net>" tld@roeck-us.net "$R2" tld "patchwarden: wrong"
err=$(pipe "$T/tld.eml")
contains "d=net, a public suffix, for linux@roeck-us.net: refused" "$err" "d=net: verifies, but not for the From domain"
# A MAINTAINERS maintainer decides for the files of their folders: a
# path of a bare star is list-wide, as no path is.
for p in '*' '*.c' 'drivers/*'; do
	cmdmail "$T/star.eml" "Guenter Roeck <linux@roeck-us.net>" "star$RANDOM@roeck-us.net" "$R2" sign "patchwarden: ignore PERM_SYMBOLIC $p"
	err=$(pipe "$T/star.eml")
	contains "ignore RULE '$p' from a MAINTAINERS maintainer: list-wide, refused" "$err" "a list-wide ignore is taken from a [list NAME] maintainer"
done
is "nothing decided by them" "$(q "$H2" "SELECT count(*) FROM decision")" 2
cmdmail "$T/dir.eml" "Guenter Roeck <linux@roeck-us.net>" dir@roeck-us.net "$R2" sign "patchwarden: ignore PERM_SYMBOLIC drivers/hwmon/*"
err=$(pipe "$T/dir.eml")
is "ignore RULE under the maintainer's own folder: obeyed" \
	"$(last_decision "$H2" by),$(last_decision "$H2" path),$(last_decision "$H2" list)" "linux@roeck-us.net,drivers/hwmon/*,hwmon"
