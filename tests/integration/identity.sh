#!/usr/bin/env bash
# Hostile senders, from the attacker's side (docs/security.md): forged
# mail through the MTA pipe (patchwarden run -), the genuine sender's
# mail DKIM-signed with a key made here and read from [core] dkim_keys.
#   framing: 20 unsigned mails in the name of a sender whose mail is
#     signed neither flood that sender's real patch nor mail the sender;
#   silencing: forged patches from many addresses spend the global
#     budget, a signed patch is answered all the same;
#   amplification: a forged patch's Cc draws a bounded number of
#     copies, and a Cc counts against its recipient's hourly limit.
. "$(dirname "$0")/../lib.sh"
PY=/usr/bin/python3
q() { sqlite3 -batch -noheader "$1" "$2"; }
LIST=lst.lists.example.org
SUBJ="[PATCH] foo: use octal modes"

openssl genrsa -out "$T/dkim.key" 2048 2>/dev/null
pub=$(openssl rsa -in "$T/dkim.key" -pubout -outform DER 2>/dev/null | base64 -w0)
printf 'sel._domainkey.kernel.example v=DKIM1; k=rsa; p=%s\n' "$pub" >"$T/keys.txt"

# patch OUT FROM MSGID SUBJECT FILE [key=PATH] [cc=A,B] [minute=M]
# [irt=MSGID] [inbody=FROM] [note=TEXT]: a patch adding a symbolic mode
# (one PERM_SYMBOLIC) to FILE, to the list, in reply to irt, with an
# in-body From: and TEXT below its "---" (a change-id, a changelog
# link), signed for the From domain with key when given.
patch() {
	$PY - "$@" <<'PYEOF'
import sys, dkim
out, frm, mid, subj, path = sys.argv[1:6]
opts = dict(a.split("=", 1) for a in sys.argv[6:])
hdr = (f"From: {frm}\nTo: lst@lists.example.org\n" +
       (f"Cc: {opts['cc']}\n" if opts.get("cc") else "") +
       f"Subject: {subj}\nDate: Sat, 05 Dec 2026 10:{int(opts.get('minute', 0)):02d}:00 +0000\n"
       f"Message-ID: <{mid}>\nList-Id: <lst.lists.example.org>\n" +
       (f"In-Reply-To: <{opts['irt']}>\nReferences: <{opts['irt']}>\n" if opts.get("irt") else ""))
body = ((f"From: {opts['inbody']}\n\n" if opts.get("inbody") else "") +
        f"Use octal modes in {path}.\n\nSigned-off-by: {frm}\n---\n" +
        (f"{opts['note']}\n\n" if opts.get("note") else "") +
        f"diff --git a/{path} b/{path}\n--- a/{path}\n+++ b/{path}\n"
        "@@ -1,3 +1,3 @@\n #include <linux/module.h>\n-static int debug;\n"
        "+module_param(debug, int, S_IRUGO);\n MODULE_LICENSE(\"GPL\");\n-- \n2.43.0\n")
msg = (hdr + "\n" + body).replace("\n", "\r\n").encode()
if "key" in opts:
    dom = frm.rsplit("@", 1)[1].rstrip(">").encode()
    msg = dkim.sign(msg, b"sel", dom, open(opts["key"], "rb").read(),
                    include_headers=[b"From", b"To", b"Cc", b"Subject", b"Date",
                                     b"Message-ID", b"List-Id"]) + msg
open(out, "wb").write(msg.replace(b"\r\n", b"\n"))
PYEOF
}
# store NAME [CONFIG LINES...]: a store and its configuration (the
# dry-run mbox beside it); sets DB and C.
store() {
	mkdir -p "$T/$1"
	DB=$T/$1/pw.db
	C=$T/$1/pw.conf
	shift
	{ printf '[core]\ndkim_keys = %s\n[reply]\nmax_age = 0\n' "$T/keys.txt"
	  printf '%s\n' "$@"; } >"$C"
	chmod 600 "$C"
}
# pipe FILE: one message through the MTA pipe, filed under the list
# (run --list: the operator names it, never the List-Id the sender wrote).
pipe() { $PW run --list "$LIST" --config "$C" --db "$DB" - <"$1" >>"$T/pipe.out" 2>&1 || echo "pipe $1: $?" >>"$T/pipe.fail"; }
# Replies that went out (pending or sent) to ADDR, as To or Cc.
mailed_to() { q "$DB" "SELECT count(*) FROM outbox WHERE state IN ('pending','sending','sent') AND (rcpt_to = '$1' OR instr(char(10) || recipients || char(10), char(10) || '$1' || char(10)) > 0)"; }
msg_id() { q "$DB" "SELECT id FROM message WHERE msgid = '$1'"; }
# Whether message MSGID is a member of a flood (1) or not (0).
in_flood() { q "$DB" "SELECT count(*) FROM flood_member fm JOIN flood_group g ON g.id = fm.grp WHERE g.detected_at IS NOT NULL AND fm.message = $(msg_id "$1")"; }

# ---- framing: a signed sender's name on 20 unsigned copies ----
store framing "[list $LIST]" "mail = author"
patch "$T/real.eml" "Dev <dev@kernel.example>" real@kernel.example "$SUBJ" drivers/foo/a.c key="$T/dkim.key"
pipe "$T/real.eml"
is "the real patch: signed, judged so" \
	"$(q "$DB" "SELECT auth FROM message_auth WHERE message = $(msg_id real@kernel.example)")" 1
for i in $(seq 1 20); do
	patch "$T/f$i.eml" "Dev <dev@kernel.example>" "forged$i@evil.example" "$SUBJ" "drivers/foo/f$i.c" minute="$i"
	pipe "$T/f$i.eml"
done
is "the pipe took every message (status 0)" "$(cat "$T/pipe.fail" 2>/dev/null)" ""
is "the forgeries: look-alikes of a signing sender" \
	"$(q "$DB" "SELECT count(*) FROM message_auth a JOIN message m ON m.id = a.message WHERE a.auth = 2 AND m.msgid LIKE 'forged%'")" 20
is "the real patch is no flood member" \
	"$(in_flood real@kernel.example)" 0
is "the real patch has no flood finding" \
	"$(q "$DB" "SELECT count(*) FROM finding f JOIN patch p ON p.id = f.patch WHERE p.message = $(msg_id real@kernel.example) AND f.rule LIKE 'FLOOD%'")" 0
is "the real patch stays in the attention queue" \
	"$(q "$DB" "SELECT count(*) FROM attention a JOIN patch p ON p.id = a.patch WHERE p.message = $(msg_id real@kernel.example)")" 1
is "the forgeries form a flood of their own, of all 20" \
	"$(q "$DB" "SELECT g.size FROM flood_group g WHERE g.detected_at IS NOT NULL")" 20
is "query floods marks it unauthenticated" \
	"$($PW query --db "$DB" floods --format json | $PY -c 'import json,sys; print([(f["size"], f["unauthenticated"]) for f in json.load(sys.stdin)])')" "[(20, True)]"
contains "and says so in its line" "$($PW query --db "$DB" floods)" "dev@kernel.example (unauthenticated) size=20"
is "its summary is held: answered to nobody" \
	"$(q "$DB" "SELECT state || '|' || substr(reason, 1, 16) FROM outbox WHERE kind = 'flood'")" "suppressed|unauthenticated:"
is "Dev got one mail: the reply to the real patch" "$(mailed_to dev@kernel.example)" 1
is "that mail answers the real patch" \
	"$(q "$DB" "SELECT in_reply_to FROM outbox WHERE state IN ('pending','sent')")" real@kernel.example
is "the dry-run mbox holds that one mail" "$(grep -c '^From patchwarden@' "$T/framing/outbox.mbox")" 1

# An in-body From: naming Dev, in mail Dev did not sign: Dev is not
# copied; a sender who never signed still is.
store inbody "[list $LIST]" "mail = author"
pipe "$T/real.eml"
patch "$T/inbody.eml" "Mallory <mallory@evil.example>" inbody@evil.example "[PATCH] baz: modes" drivers/baz/i.c \
	inbody="Dev <dev@kernel.example>" minute=50
patch "$T/inbody2.eml" "Mallory <mallory@evil.example>" inbody2@evil.example "[PATCH] baz2: modes" drivers/baz/j.c \
	inbody="Ann <ann@unsigned.example>" minute=51
pipe "$T/inbody.eml"
pipe "$T/inbody2.eml"
is "an in-body From: of a signing sender draws no copy to them" \
	"$(q "$DB" "SELECT state || '|' || rcpt_to || '|' || replace(recipients, char(10), ' ') FROM outbox WHERE in_reply_to = 'inbody@evil.example'")" \
	"sent|mallory@evil.example|mallory@evil.example"
is "an in-body From: of one who never signed: copied, as before" \
	"$(q "$DB" "SELECT replace(recipients, char(10), ' ') FROM outbox WHERE in_reply_to = 'inbody2@evil.example'")" \
	"mallory@evil.example ann@unsigned.example"
is "Dev got only the reply to the real patch" "$(mailed_to dev@kernel.example)" 1
store series "[list $LIST]" "mail = author"

# A series is its sender's: a forged 2/2 numbered into Dev's signed
# 1/2, or threaded under it, is no part of it.
series_of() { q "$DB" "SELECT p.series FROM patch p WHERE p.message = $(msg_id "$1")"; }
patch "$T/s1of2.eml" "Dev <dev@kernel.example>" s1of2@kernel.example "[PATCH 1/2] bar: modes" drivers/bar/a.c key="$T/dkim.key" minute=40
patch "$T/s2of2.eml" "Dev <dev@kernel.example>" s2of2@evil.example "[PATCH 2/2] bar: modes" drivers/bar/b.c minute=41
patch "$T/sreply.eml" "Dev <dev@kernel.example>" sreply@evil.example "[PATCH 2/2] bar: modes" drivers/bar/c.c minute=42 irt=s1of2@kernel.example
patch "$T/s2real.eml" "Dev <dev@kernel.example>" s2real@kernel.example "[PATCH 2/2] bar: modes" drivers/bar/b.c key="$T/dkim.key" minute=43
for f in s1of2 s2of2 sreply s2real; do pipe "$T/$f.eml"; done
check "a forged 2/2 of a signed series: a series of its own" test "$(series_of s2of2@evil.example)" != "$(series_of s1of2@kernel.example)"
check "a forged patch threaded under it: not in it either" test "$(series_of sreply@evil.example)" != "$(series_of s1of2@kernel.example)"
is "Dev's signed 2/2 joins Dev's 1/2" "$(series_of s2real@kernel.example)" "$(series_of s1of2@kernel.example)"

# The forgeries first, before anything of Dev's was seen signed: their
# flood, found then, is still not mailed to Dev once Dev is known to
# sign, and Dev's signed patch joins none of it.
store late "[flood]" "count = 5" "[list $LIST]" "mail = author"
for i in 1 2 3 4; do pipe "$T/f$i.eml"; done
pipe "$T/real.eml"
pipe "$T/f5.eml"
is "forgeries first: Dev's signed patch is in no flood" \
	"$(in_flood real@kernel.example)" 0
is "forgeries first: their flood found, its summary held" \
	"$(q "$DB" "SELECT g.size || '|' || o.state FROM flood_group g JOIN outbox o ON o.kind = 'flood' WHERE g.detected_at IS NOT NULL")" "5|suppressed"
is "forgeries first: Dev mailed for the real patch only (and the 4 forgeries before Dev signed)" \
	"$(q "$DB" "SELECT count(*) FROM outbox WHERE kind = 'flood' AND state <> 'suppressed'"),$(q "$DB" "SELECT state FROM outbox WHERE in_reply_to = 'real@kernel.example'")" "0,sent"

# A sender who never signs keeps what every sender had: flooded and
# told once (tests/gen_flood.py's 2016 flood, through ingest --reply).
store unsigned "[list *]" "mail = author"
$PY "$TOP/tests/gen_flood.py" --out "$T/gen" --flood-size 30 --noise 10 >/dev/null
$PW ingest -q --reply --config "$C" --db "$DB" "$T/gen/arrival.mbox" >/dev/null 2>&1
is "an unsigned sender: the flood found, its summary mailed to the sender" \
	"$(q "$DB" "SELECT count(*) FROM outbox WHERE kind = 'flood' AND state IN ('pending','sent')"),$(q "$DB" "SELECT count(*) FROM message_auth")" "1,0"
is "an unsigned sender's flood is not marked unauthenticated" \
	"$($PW query --db "$DB" floods --format json | $PY -c 'import json,sys; print(sorted(set(f["unauthenticated"] for f in json.load(sys.stdin))))')" "[False]"

# ---- silencing: the global budget spent by forged senders ----
store silence "per_recipient_per_hour = 5" "global_per_hour = 6" "[list $LIST]" "mail = author"
for i in $(seq 1 12); do
	patch "$T/s$i.eml" "Spam $i <spam$i@evil$i.example>" "spam$i@evil.example" "[PATCH] bar$i: modes" "drivers/bar/b$i.c" minute="$i"
	pipe "$T/s$i.eml"
done
is "forged senders: the global budget spent" \
	"$(q "$DB" "SELECT count(*) FROM outbox WHERE state IN ('pending','sent')"),$(q "$DB" "SELECT count(*) FROM outbox WHERE reason LIKE 'rate limit: % (global_per_hour = 6)'")" "6,6"
patch "$T/genuine.eml" "Dev <dev@kernel.example>" genuine@kernel.example "[PATCH] baz: modes" drivers/baz/c.c key="$T/dkim.key" minute=30
pipe "$T/genuine.eml"
is "then a signed patch: its reply still goes" \
	"$(q "$DB" "SELECT state || '|' || coalesce(reason, '') FROM outbox WHERE in_reply_to = 'genuine@kernel.example'")" "sent|"

# ---- Cc amplification under author+cc ----
store amplify "per_recipient_per_hour = 5" "global_per_hour = 1000" \
	"[list $LIST]" "mail = author+cc" "address = lst@lists.example.org" "maintainer = maint@lists.example.org"
cc=$(for i in $(seq 1 30); do printf 'victim%d@example.net,' "$i"; done)
patch "$T/cc30.eml" "Mallory <mallory@evil.example>" cc30@evil.example "[PATCH] qux: modes" drivers/qux/q.c \
	cc="${cc}maint@lists.example.org"
pipe "$T/cc30.eml"
row=$(q "$DB" "SELECT recipients FROM outbox WHERE in_reply_to = 'cc30@evil.example'")
n=$(printf '%s\n' "$row" | grep -c .)
is "30 chosen Cc's: the sender, the list, its maintainer and 4 others" "$n" 7
contains "the list is copied" "$row" lst@lists.example.org
contains "the list's maintainer is copied" "$row" maint@lists.example.org
is "of the 30, at most 4" "$(printf '%s\n' "$row" | grep -c '^victim')" 4
patch "$T/cc30s.eml" "Dev <dev@kernel.example>" cc30s@kernel.example "[PATCH] quux: modes" drivers/quux/q.c \
	cc="${cc}maint@lists.example.org" key="$T/dkim.key"
pipe "$T/cc30s.eml"
is "the same, DKIM-signed by its sender: 12 of the 30" \
	"$(q "$DB" "SELECT recipients FROM outbox WHERE in_reply_to = 'cc30s@kernel.example'" | grep -c '^victim')" 12
for i in $(seq 1 10); do
	patch "$T/v$i.eml" "Attacker $i <att$i@evil$i.example>" "v$i@evil.example" "[PATCH] q$i: modes" "drivers/q$i/q.c" \
		cc=target@example.net minute="$i"
	pipe "$T/v$i.eml"
done
is "ten mails Cc'ing one address: it gets the per-recipient limit, 5" "$(mailed_to target@example.net)" 5
is "the ten replies still went to their senders" \
	"$(q "$DB" "SELECT count(*) FROM outbox WHERE in_reply_to LIKE 'v%@evil.example' AND state = 'sent'")" 10

# ---- a forged "Applied": a maintainer who signs, unsigned in his name ----
store applied "[list $LIST]" "mail = author" "maintainer = boss@kernel.example"
patch "$T/work.eml" "Contributor <c@contrib.example>" work@contrib.example "[PATCH] bar: modes" drivers/bar/b.c
pipe "$T/work.eml"
patch "$T/boss.eml" "Boss <boss@kernel.example>" boss1@kernel.example "[PATCH] baz: modes" drivers/baz/z.c key="$T/dkim.key"
pipe "$T/boss.eml"
# verdict OUT MSGID [key=PATH]: the maintainer's "Applied" to work@.
verdict() {
	$PY - "$@" <<'PYEOF'
import sys, dkim
out, mid = sys.argv[1:3]
opts = dict(a.split("=", 1) for a in sys.argv[3:])
msg = ("From: Boss <boss@kernel.example>\nTo: lst@lists.example.org\n"
       "Subject: Re: [PATCH] bar: modes\nDate: Sat, 05 Dec 2026 11:00:00 +0000\n"
       f"Message-ID: <{mid}>\nIn-Reply-To: <work@contrib.example>\n"
       "References: <work@contrib.example>\nList-Id: <lst.lists.example.org>\n\n"
       "> Use octal modes in drivers/bar/b.c.\n\nApplied, thanks.\n").replace("\n", "\r\n").encode()
if "key" in opts:
    msg = dkim.sign(msg, b"sel", b"kernel.example", open(opts["key"], "rb").read(),
                    include_headers=[b"From", b"To", b"Subject", b"Date", b"Message-ID",
                                     b"In-Reply-To", b"References"]) + msg
open(out, "wb").write(msg.replace(b"\r\n", b"\n"))
PYEOF
}
state_of_work() { q "$DB" "SELECT coalesce((SELECT state FROM patch_state s JOIN patch p ON p.id = s.patch WHERE p.message = $(msg_id work@contrib.example)), 'new')"; }
in_queue() { q "$DB" "SELECT count(*) FROM attention a JOIN patch p ON p.id = a.patch WHERE p.message = $(msg_id work@contrib.example)"; }
is "the patch is live work before any verdict" "$(state_of_work),$(in_queue)" "new,1"
verdict "$T/forged-applied.eml" forged-applied@evil.example
pipe "$T/forged-applied.eml"
is "an unsigned \"Applied\" in the signing maintainer's name decides nothing" "$(state_of_work),$(in_queue)" "new,1"
verdict "$T/applied.eml" applied@kernel.example key="$T/dkim.key"
pipe "$T/applied.eml"
is "his signed \"Applied\" takes the patch out of the queue" "$(state_of_work),$(in_queue)" "applied,0"

# ---- another signer joins a signed series (db/series.c same_sender) ----
# evil.example signs its own mail with a key of its own (a second line
# of the key file): its [PATCH 2/3], threaded under the cover letter
# Vic signed, takes no slot of Vic's series, draws nothing into the
# series reply and does not make the series whole.
openssl genrsa -out "$T/evil.key" 2048 2>/dev/null
printf 'sel._domainkey.evil.example v=DKIM1; k=rsa; p=%s\n' \
	"$(openssl rsa -in "$T/evil.key" -pubout -outform DER 2>/dev/null | base64 -w0)" >>"$T/keys.txt"
# cover OUT FROM MSGID SUBJECT KEY CC: a signed cover letter.
cover() {
	$PY - "$@" <<'PYEOF'
import sys, dkim
out, frm, mid, subj, key, cc = sys.argv[1:7]
msg = (f"From: {frm}\nTo: lst@lists.example.org\nCc: {cc}\nSubject: {subj}\n"
       "Date: Sat, 05 Dec 2026 10:00:00 +0000\n"
       f"Message-ID: <{mid}>\nList-Id: <lst.lists.example.org>\n\n"
       "Three drivers move to octal modes.\n\n--\n2.43.0\n").replace("\n", "\r\n").encode()
msg = dkim.sign(msg, b"sel", frm.rsplit("@", 1)[1].rstrip(">").encode(), open(key, "rb").read(),
                include_headers=[b"From", b"To", b"Cc", b"Subject", b"Date", b"Message-ID",
                                 b"List-Id"]) + msg
open(out, "wb").write(msg.replace(b"\r\n", b"\n"))
PYEOF
}
store hijack "[list $LIST]" "mail = author+cc" "address = lst@lists.example.org"
VS="bar: octal modes"
cover "$T/h0.eml" "Vic <vic@kernel.example>" h0@kernel.example "[PATCH 0/3] $VS" "$T/dkim.key" vcc@example.net
patch "$T/h1.eml" "Vic <vic@kernel.example>" h1@kernel.example "[PATCH 1/3] $VS" drivers/bar/one.c \
	key="$T/dkim.key" irt=h0@kernel.example minute=1
patch "$T/hevil.eml" "Eve <eve@evil.example>" hevil@evil.example "[PATCH 2/3] $VS" drivers/bar/evil.c \
	key="$T/evil.key" irt=h0@kernel.example minute=2
patch "$T/h2.eml" "Vic <vic@kernel.example>" h2@kernel.example "[PATCH 2/3] $VS" drivers/bar/two.c \
	key="$T/dkim.key" irt=h0@kernel.example minute=3
patch "$T/h3.eml" "Vic <vic@kernel.example>" h3@kernel.example "[PATCH 3/3] $VS" drivers/bar/three.c \
	key="$T/dkim.key" irt=h0@kernel.example minute=4
# Read in one go, as a series that arrives together is: its reply
# waits until the series is whole.
for f in h0 h1 hevil h2 h3; do printf 'From mboxrd@z Thu Jan  1 00:00:00 1970\n'; cat "$T/$f.eml"; echo; done >"$T/hijack.mbox"
$PW run --list "$LIST" --config "$C" --db "$DB" "$T/hijack.mbox" >"$T/hijack.out" 2>&1
is "hijack: the run took every message" "$?" 0
is "hijack: Vic's and Eve's mail, each signed by its own domain" \
	"$(q "$DB" "SELECT group_concat(a.auth, ',') FROM (SELECT a.auth FROM message_auth a JOIN message m ON m.id = a.message ORDER BY m.id) a")" "1,1,1,1,1"
vic_series=$(q "$DB" "SELECT series FROM patch WHERE message = $(msg_id h1@kernel.example)")
is "hijack: Eve's signed 2/3 under Vic's cover is no part of Vic's series" \
	"$(q "$DB" "SELECT count(*) FROM patch WHERE message = $(msg_id hevil@evil.example) AND series = $vic_series")" 0
is "hijack: Vic's own 2/3 and 3/3 fill Vic's series" \
	"$(q "$DB" "SELECT group_concat(m.msgid, ' ') FROM (SELECT m.msgid FROM patch p JOIN message m ON m.id = p.message WHERE p.series = $vic_series ORDER BY p.number) m")" \
	"h1@kernel.example h2@kernel.example h3@kernel.example"
is "hijack: one series reply to Vic, on the cover letter" \
	"$(q "$DB" "SELECT count(*) || '|' || group_concat(in_reply_to) FROM outbox WHERE kind = 'series' AND state IN ('pending','sent') AND rcpt_to = 'vic@kernel.example'")" \
	"1|h0@kernel.example"
is "hijack: it lists Vic's three files and nothing of Eve's" \
	"$(q "$DB" "SELECT group_concat(f, ' ') FROM (SELECT DISTINCT r.file f FROM reply_item r JOIN outbox o ON o.id = r.outbox WHERE o.kind = 'series' ORDER BY 1)")" \
	"drivers/bar/one.c drivers/bar/three.c drivers/bar/two.c"
is "hijack: Eve's finding goes to Eve alone" \
	"$(q "$DB" "SELECT count(*) FROM outbox o JOIN reply_item r ON r.outbox = o.id WHERE r.file = 'drivers/bar/evil.c' AND o.rcpt_to = 'eve@evil.example' AND instr(o.recipients, 'vic@') = 0 AND instr(o.recipients, 'vcc@') = 0")" 1
# Unsigned threads keep what they had: another sender's 2/2 under an
# unsigned 1/2 joins its series.
patch "$T/u1.eml" "Ann <ann@unsigned.example>" u1@unsigned.example "[PATCH 1/2] qux: octal modes" drivers/qux/u1.c minute=30
patch "$T/u2.eml" "Bob <bob@other.example>" u2@other.example "[PATCH 2/2] qux: octal modes" drivers/qux/u2.c \
	irt=u1@unsigned.example minute=31
pipe "$T/u1.eml"
pipe "$T/u2.eml"
is "hijack: unsigned, another sender's 2/2 threaded under a 1/2 joins its series, as before" \
	"$(q "$DB" "SELECT count(DISTINCT series) || '|' || count(*) FROM patch WHERE message IN ($(msg_id u1@unsigned.example), $(msg_id u2@other.example))")" "1|2"

# ---- told to unsigned mail is not told to the signer (reply_item.author) ----
# Unsigned mail claiming Val's address, before Val was seen signed
# (judged as any sender: PW_AUTH_NONE), is answered; Val's first signed
# patch with the same added line in the same file is told it all the
# same.  A sender who never signs is still told a finding once.
store told "[list $LIST]" "mail = author"
patch "$T/t-forged.eml" "Val <val@kernel.example>" t-forged@evil.example "[PATCH] baz: octal modes" drivers/baz/t.c minute=10
patch "$T/t-real.eml" "Val <val@kernel.example>" t-real@kernel.example "[PATCH v2] baz: octal modes" drivers/baz/t.c \
	key="$T/dkim.key" minute=20
rm -f "$T/pipe.fail"
pipe "$T/t-forged.eml"
pipe "$T/t-real.eml"
is "told: the pipe took both" "$(cat "$T/pipe.fail" 2>/dev/null)" ""
is "told: the unsigned one judged as any sender, the signed one signed" \
	"$(q "$DB" "SELECT coalesce((SELECT auth FROM message_auth WHERE message = $(msg_id t-forged@evil.example)), 0) || ',' || (SELECT auth FROM message_auth WHERE message = $(msg_id t-real@kernel.example))")" "0,1"
is "told: the unsigned mail was answered, its finding recorded under the bare address" \
	"$(q "$DB" "SELECT o.state || '|' || r.author || '|' || r.rule FROM outbox o JOIN reply_item r ON r.outbox = o.id WHERE o.in_reply_to = 't-forged@evil.example'")" \
	"sent|val@kernel.example|PERM_SYMBOLIC"
is "told: Val's signed patch is answered with that finding, under Val's identity" \
	"$(q "$DB" "SELECT o.state || '|' || r.author || '|' || r.rule || '|' || r.file FROM outbox o JOIN reply_item r ON r.outbox = o.id WHERE o.in_reply_to = 't-real@kernel.example'")" \
	"sent|val@kernel.example dkim|PERM_SYMBOLIC|drivers/baz/t.c"
contains "told: and its mail says so" "$(tr -d '\r' <"$T/told/outbox.mbox" | awk '/^From patchwarden@/ {n++} n == 2' | tr '\n' ' ')" "PERM_SYMBOLIC"
patch "$T/t-again.eml" "Val <val@kernel.example>" t-again@kernel.example "[PATCH v3] baz: octal modes" drivers/baz/t.c \
	key="$T/dkim.key" minute=30
pipe "$T/t-again.eml"
is "told: Val's next signed version is not told it again" \
	"$(q "$DB" "SELECT count(*) FROM reply_item r JOIN outbox o ON o.id = r.outbox WHERE o.in_reply_to = 't-again@kernel.example' AND o.state IN ('pending','sent')")" 0
# ---- a forged next version: a signing sender's patch superseded ----
state_of() { q "$DB" "SELECT coalesce((SELECT state FROM patch_state s JOIN patch p ON p.id = s.patch WHERE p.message = $(msg_id "$1")), 'new')"; }
queued() { q "$DB" "SELECT count(*) FROM attention a JOIN patch p ON p.id = a.patch WHERE p.message = $(msg_id "$1")"; }
LSUBJ="bar: use octal modes in the bar driver"
store lineage "[list $LIST]" "mail = author"
patch "$T/lv1.eml" "Dev <dev@kernel.example>" lv1@kernel.example "[PATCH] $LSUBJ" drivers/bar/l.c key="$T/dkim.key"
pipe "$T/lv1.eml"
# Mallory's v99 names Dev as its author in an in-body From:.
patch "$T/lv99.eml" "Mallory <mallory@evil.example>" lv99@evil.example "[PATCH v99] $LSUBJ" drivers/bar/m.c \
	inbody="Dev <dev@kernel.example>" minute=10
pipe "$T/lv99.eml"
is "an in-body From: of a signing sender supersedes none of theirs" \
	"$(state_of lv1@kernel.example),$(queued lv1@kernel.example)" "new,1"
is "nor files its subject under them" \
	"$(q "$DB" "SELECT count(*) FROM lineage_key k JOIN patch p ON p.series = k.series WHERE k.sender = 'dev@kernel.example' AND p.message = $(msg_id lv99@evil.example)")" 0
patch "$T/lv2.eml" "Dev <dev@kernel.example>" lv2@kernel.example "[PATCH v2] $LSUBJ" drivers/bar/l.c key="$T/dkim.key" minute=20
pipe "$T/lv2.eml"
is "Dev's signed v2 follows Dev's v1, not the forgery" \
	"$(state_of lv1@kernel.example),$(state_of lv2@kernel.example),$(queued lv2@kernel.example)" "superseded,new,1"
is "and the forgery is in no lineage of Dev's" \
	"$(q "$DB" "SELECT count(*) FROM lineage a JOIN lineage b ON b.root = a.root JOIN patch p ON p.series = a.series JOIN patch v ON v.series = b.series WHERE p.message = $(msg_id lv99@evil.example) AND v.message = $(msg_id lv1@kernel.example)")" 0
# Dev's b4 change-id, or a changelog link to Dev's patch, copied into
# Mallory's own unsigned mail.
store changeid "[list $LIST]" "mail = author"
patch "$T/cv1.eml" "Dev <dev@kernel.example>" cv1@kernel.example "[PATCH] baz: octal modes for baz" drivers/baz/c.c \
	key="$T/dkim.key" note="change-id: 20261205-baz-0123abcd"
patch "$T/cv99.eml" "Mallory <mallory@evil.example>" cv99@evil.example "[PATCH v99] qux: something else entirely" drivers/qux/x.c \
	note="change-id: 20261205-baz-0123abcd" minute=10
patch "$T/kv1.eml" "Dev <dev@kernel.example>" kv1@kernel.example "[PATCH] quux: octal modes for quux" drivers/quux/c.c \
	key="$T/dkim.key" minute=11
patch "$T/kv99.eml" "Mallory <mallory@evil.example>" kv99@evil.example "[PATCH v99] corge: another thing again" drivers/corge/x.c \
	note="v1: https://lore.kernel.org/r/kv1@kernel.example" minute=12
for f in cv1 cv99 kv1 kv99; do pipe "$T/$f.eml"; done
is "a copied change-id supersedes no signed patch" \
	"$(state_of cv1@kernel.example),$(queued cv1@kernel.example)" "new,1"
is "a link to a signed patch supersedes it no more" \
	"$(state_of kv1@kernel.example),$(queued kv1@kernel.example)" "new,1"
patch "$T/cv2.eml" "Dev <dev@kernel.example>" cv2@kernel.example "[PATCH v2] baz: octal modes for baz" drivers/baz/c.c \
	key="$T/dkim.key" note="change-id: 20261205-baz-0123abcd" minute=20
pipe "$T/cv2.eml"
is "Dev's own signed v2 with the change-id still supersedes Dev's v1" \
	"$(state_of cv1@kernel.example),$(state_of cv2@kernel.example)" "superseded,new"
# One who never signs keeps today's lineage: an in-body From: of theirs
# is their next version.
patch "$T/uv1.eml" "Ann <ann@unsigned.example>" uv1@unsigned.example "[PATCH] grault: octal modes for grault" drivers/grault/c.c minute=30
patch "$T/uv2.eml" "Bob <bob@other.example>" uv2@other.example "[PATCH v2] grault: octal modes for grault" drivers/grault/c.c \
	inbody="Ann <ann@unsigned.example>" minute=31
for f in uv1 uv2; do pipe "$T/$f.eml"; done
is "an unsigned author's v2 posted by another supersedes the v1, as before" \
	"$(state_of uv1@unsigned.example),$(state_of uv2@other.example)" "superseded,new"

# ---- backfill: a verdict read without --reply ----
# The maintainer is known to sign (live mail); an archive read later
# holds an unsigned "Applied" in his name, and a signed one.
store backfill "[list $LIST]" "mail = author" "maintainer = boss@kernel.example"
pipe "$T/work.eml"
pipe "$T/boss.eml"
mbox() { for f in "$@"; do printf 'From mboxrd@z Thu Jan  1 00:00:00 1970\n'; cat "$f"; echo; done; }
verdict "$T/bf-forged.eml" bf-forged@evil.example
mbox "$T/bf-forged.eml" >"$T/bf-forged.mbox"
$PW ingest -q --config "$C" --db "$DB" --list "$LIST" "$T/bf-forged.mbox" >/dev/null 2>&1
is "backfilled: an unsigned \"Applied\" in the signing maintainer's name decides nothing" \
	"$(state_of work@contrib.example),$(queued work@contrib.example)" "new,1"
verdict "$T/bf-signed.eml" bf-signed@kernel.example key="$T/dkim.key"
mbox "$T/bf-signed.eml" >"$T/bf-signed.mbox"
$PW ingest -q --config "$C" --db "$DB" --list "$LIST" "$T/bf-signed.mbox" >/dev/null 2>&1
is "backfilled: his signed \"Applied\" is verified and decides" \
	"$(state_of work@contrib.example),$(queued work@contrib.example)" "applied,0"
# A maintainer never seen signing: backfilled verdicts as before.
store backfill2 "[list $LIST]" "mail = author" "maintainer = boss@kernel.example"
pipe "$T/work.eml"
$PW ingest -q --config "$C" --db "$DB" --list "$LIST" "$T/bf-forged.mbox" >/dev/null 2>&1
is "backfilled: an unsigned verdict of one never seen signing decides, as before" \
	"$(state_of work@contrib.example)" "applied"
# The other order: Mallory's copy of the change-id comes first, Dev's
# signed patch after it; Dev's patch is not made an earlier version.
store changeid2 "[list $LIST]" "mail = author"
pipe "$T/cv99.eml"
pipe "$T/cv1.eml"
is "a copied change-id sent first supersedes no signed patch either" \
	"$(state_of cv1@kernel.example),$(queued cv1@kernel.example)" "new,1"
