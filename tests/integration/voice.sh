#!/usr/bin/env bash
# One voice per series version (bot/reply_policy.c, db/voice.c) on real
# linux-hwmon mail (tests/corpus/README.md): a series draws one reply,
# threaded to its cover letter; a later version draws a reply only for
# what is new in it and says what it fixed; resent identical copies draw
# one reply; no-reply addresses get no copy; replies carry
# X-Patchwork-Hint: ignore.  "patchwarden preview" replays the same mail
# without touching the user's store.
. "$(dirname "$0")/../lib.sh"
q() { sqlite3 -batch -noheader "$1" "$2"; }
PY=/usr/bin/python3

HW=$CORPUS/lore-linux-hwmon
LIST=linux-hwmon.vger.kernel.org
printf '[reply]\nmax_age = 0\n[list %s]\nmail = author+cc\n' "$LIST" >"$T/pw.conf"

# answer NAME MBOX: the mail run as it arrives (ingest, reply, send to
# the dry-run mbox beside NAME's store); sets DB and BOX.
answer() {
	mkdir -p "$T/$1"
	DB=$T/$1/pw.db
	BOX=$T/$1/outbox.mbox
	$PW run --config "$T/pw.conf" --db "$DB" "$2" >"$T/$1/out" 2>"$T/$1/err"
}
pending() { q "$DB" "SELECT count(*) FROM outbox WHERE state IN ('pending','sending','sent')"; }

# ---- a series and its versions: the it87 lineage ----
# [PATCH] (2025-12-26, 9 symbolic modes), [PATCH v3 0/5] (cover and five
# patches; 3/5 has 18, 9 of them new), [PATCH v4 0/5] (the same 18).
answer it87 "$HW/it87-lineage.mbox"
is "it87: two replies, not one per patch nor one per version" "$(pending)" 2
is "it87: the v3 reply answers the series, threaded to its cover letter" \
	"$(q "$DB" "SELECT kind || '|' || in_reply_to FROM outbox WHERE answers LIKE 'series:%'")" \
	"series|20260110012405.47906-1-yahoo@perenite.com"
is "it87: no reply to a v3 patch on its own" \
	"$(q "$DB" "SELECT count(*) FROM outbox WHERE in_reply_to LIKE '20260110012613.%'")" 0
is "it87: v4, whose findings were all reported, draws none" \
	"$(q "$DB" "SELECT count(*) FROM outbox WHERE in_reply_to LIKE '20260114221210.%'")" 0
body=$(tr -d '\r' <"$BOX" | awk '/^From patchwarden@/ {n++} n == 2' | tr '\n' ' ' | tr -s ' ')
contains "it87: the v3 reply lists only the 9 new findings" "$body" \
	"found 9 things worth a second look"
contains "it87: grouped by rule, its places named by patch" "$body" \
	"PERM_SYMBOLIC (warning), 9 lines: patch 3/5: drivers/hwmon/it87.c:"
contains "it87: and says, in one line, what the earlier version was told" "$body" \
	"v3 still has the 9 findings reported on v1"
check "it87: each reply under 60 lines" $PY -c '
import sys, mailbox
for m in mailbox.mbox(sys.argv[1]):
    n = len(m.get_payload(decode=True).decode().splitlines())
    assert n < 60, n
' "$BOX"
is "it87: every reply says X-Patchwork-Hint: ignore" \
	"$(grep -c '^X-Patchwork-Hint: ignore' "$BOX")" 2
is "it87: what each reply reported is kept" \
	"$(q "$DB" "SELECT count(*) FROM reply_item")" 18

# A v4 that changed one of the lines v3 was told about
# (it87-v4-changed.mbox: temp4_type's S_IRUGO | S_IWUSR made
# S_IRUSR | S_IWUSR): its reply lists only that line and says, in one
# line, what it fixed.
mkdir -p "$T/fix"
$PY - "$HW/it87-lineage.mbox" "$T/fix/v1v3.mbox" <<'EOF2'
import sys
raw = open(sys.argv[1], "rb").read().split(b"From mboxrd@z ")
keep = [m for m in raw[1:] if b"20260114221210.98071-" not in m.split(b"\n\n", 1)[0]]
open(sys.argv[2], "wb").write(b"".join(b"From mboxrd@z " + m for m in keep))
EOF2
DB=$T/fix/pw.db
$PW run --config "$T/pw.conf" --db "$DB" "$T/fix/v1v3.mbox" >/dev/null 2>"$T/fix/err"
is "fix: v1 and v3 answered" "$(pending)" 2
$PW run --config "$T/pw.conf" --db "$DB" "$HW/it87-v4-changed.mbox" >/dev/null 2>>"$T/fix/err"
is "fix: v4 answered once, threaded to its cover" \
	"$(q "$DB" "SELECT count(*) FROM outbox WHERE in_reply_to = '20260114221210.98071-1-yahoo@perenite.com'")" 1
body=$(tr -d '\r' <"$T/fix/outbox.mbox" | awk '/^From patchwarden@/ {n++} n == 3' | tr '\n' ' ' | tr -s ' ')
contains "fix: it says what v4 fixed of what v3 was told" "$body" \
	"Thanks for v4: it fixes 1 of the 9 findings reported on v3 (PERM_SYMBOLIC)"
contains "fix: and lists only the changed line" "$body" \
	"found one thing worth a second look"
contains "fix: the changed line quoted" "$body" "S_IRUSR | S_IWUSR"

# A reply held (the hourly limit) and released after a maintainer's
# decision is composed again from what it reported: the findings the
# earlier version was told do not come back with it.
mkdir -p "$T/held"
printf '[reply]\nmax_age = 0\nper_recipient_per_hour = 1\n[list %s]\nmail = author+cc\n' "$LIST" >"$T/held/pw.conf"
$PY - "$HW/it87-lineage.mbox" "$T/held/in.mbox" <<'EOF2'
import sys
raw = open(sys.argv[1], "rb").read().split(b"From mboxrd@z ")[1:]
keep = [m for m in raw if b"20251226222001.41914-1-" in m or b"20260110012613.48150-3-" in m]
open(sys.argv[2], "wb").write(b"".join(b"From mboxrd@z " + m for m in keep))
EOF2
DB=$T/held/pw.db
$PW ingest -q --reply --config "$T/held/pw.conf" --db "$DB" "$T/held/in.mbox" >/dev/null 2>"$T/held/err"
rid=$(q "$DB" "SELECT id FROM outbox WHERE state = 'suppressed' AND in_reply_to LIKE '20260110012613.48150-3-%'")
is "held: v3's 3/5 answered for its 9 new findings, held by the hourly limit" \
	"$(q "$DB" "SELECT count(*) FROM reply_item WHERE outbox = '$rid'")" 9
fid=$(q "$DB" "SELECT f.id FROM finding f JOIN patch p ON p.id = f.patch
	JOIN message m ON m.id = p.message JOIN finding_line l ON l.finding = f.id
	JOIN reply_item r ON r.outbox = '$rid' AND r.added = l.text
	WHERE m.msgid = '20260110012613.48150-3-yahoo@perenite.com' ORDER BY f.id LIMIT 1")
$PW triage wrong "$fid" --by linux@roeck-us.net --db "$DB" --config "$T/held/pw.conf" >/dev/null 2>>"$T/held/err"
$PW outbox retry "$rid" --db "$DB" --config "$T/held/pw.conf" >/dev/null 2>>"$T/held/err"
$PW outbox send --db "$DB" --config "$T/held/pw.conf" >/dev/null 2>>"$T/held/err"
body=$(tr -d '\r' <"$T/held/outbox.mbox" | awk '/^From patchwarden@/ {n++} n == 2' | tr '\n' ' ' | tr -s ' ')
contains "held: sent without the finding marked wrong, nor the 9 v1 was told" "$body" \
	"PERM_SYMBOLIC (warning), 8 lines: drivers/hwmon/it87.c:"

# ---- a series arriving now waits until it is whole ----
# The v3 series, dated now: its reply waits while 4/5 and 5/5 are
# missing (the patch with findings, 3/5, has come), then answers the
# whole series once.
mkdir -p "$T/wait"
$PY - "$HW/it87-lineage.mbox" "$T/wait" <<'EOF2'
import email.utils, re, sys, time
raw = open(sys.argv[1], "rb").read().split(b"From mboxrd@z ")[1:]
v3 = [m for m in raw if b"[PATCH v3 " in m]
now = email.utils.formatdate(time.time() - 60).encode()
v3 = [re.sub(rb"(?m)^Date:.*$", b"Date: " + now, m, count=1) for m in v3]
for name, part in (("first", v3[:4]), ("rest", v3[4:])):
    open("%s/%s.mbox" % (sys.argv[2], name), "wb").write(
        b"".join(b"From mboxrd@z " + m for m in part))
EOF2
DB=$T/wait/pw.db
$PW ingest -q --reply --config "$T/pw.conf" --db "$DB" "$T/wait/first.mbox" >/dev/null 2>"$T/wait/err"
is "wait: cover and 1-3/5 of five: no reply yet, the series waits" \
	"$(q "$DB" "SELECT count(*) FROM outbox")|$(q "$DB" "SELECT count(*) FROM reply_wait")" "0|1"
$PW ingest -q --reply --config "$T/pw.conf" --db "$DB" "$T/wait/rest.mbox" >/dev/null 2>>"$T/wait/err"
is "wait: whole, it is answered once, threaded to its cover" \
	"$(q "$DB" "SELECT count(*) || '|' || max(in_reply_to) FROM outbox")|$(q "$DB" "SELECT count(*) FROM reply_wait")" \
	"1|20260110012405.47906-1-yahoo@perenite.com|0"

# ---- resent identical copies: the same patch three times in 26 minutes ----
answer resent "$HW/oxp-platform-resent.mbox"
is "resent: three copies stored" \
	"$(q "$DB" "SELECT count(*) FROM message WHERE kind = 'patch'")" 3
is "resent: one reply, to the first" \
	"$(pending)|$(q "$DB" "SELECT in_reply_to FROM outbox")" \
	"1|20221029225051.1171795-1-samsagax@gmail.com"

# The veml6030 patch posted four times in 17 minutes (linux-iio, real):
# the first has no finding, the copies RESEND_IDENTICAL; one reply says
# so, the later copies add nothing.
printf '[reply]\nmax_age = 0\n[list linux-iio.vger.kernel.org]\nmail = author+cc\n' >"$T/iio.conf"
mkdir -p "$T/veml"
DB=$T/veml/pw.db
$PW run --config "$T/iio.conf" --db "$DB" "$CORPUS/lore-linux-iio/veml6030-resent.mbox" >/dev/null 2>"$T/veml/err"
is "veml6030: four copies stored, three with RESEND_IDENTICAL" \
	"$(q "$DB" "SELECT count(*) FROM message WHERE kind = 'patch'")|$(q "$DB" "SELECT count(*) FROM finding WHERE rule = 'RESEND_IDENTICAL'")" "4|3"
is "veml6030: one reply, to the first copy that drew a finding" \
	"$(pending)|$(q "$DB" "SELECT in_reply_to FROM outbox")" \
	"1|20250623201035.14775-1-gabriellimamoraes@gmail.com"

# ---- no-reply addresses ----
answer noreply "$HW/oxp-platform-noreply.mbox"
rcpt=$(q "$DB" "SELECT replace(recipients, char(10), ' ') FROM outbox")
contains "noreply: the reply still copies the people and lists" "$rcpt" "linux-hwmon@vger.kernel.org"
check "noreply: no no-reply address among its recipients ($rcpt)" \
	bash -c '! grep -qiE "no-?reply|do-not-reply" <<<"$1"' _ "$rcpt"
check "noreply: nor in its headers" bash -c '! grep -qiE "^(To|Cc):.*(noreply|do-not-reply)" "$1"' _ "$BOX"
# A flood sent from a no-reply domain (a noreply local part is
# automated mail, in no flood): found, its summary mailed to no one.
mkdir -p "$T/nrflood"
for i in $(seq 1 20); do
	printf 'From nr Mon Jan  1 00:00:00 2024\nFrom: Dev <dev@users.noreply.github.com>\nTo: %s\nSubject: [PATCH] foo%d: Replace numeric parameter like 0444 with macro\nMessage-ID: <nr%d@ci.example.org>\nDate: %s\nList-Id: <%s>\n\nReplace numeric parameter like 0444 with macro.\n---\ndiff --git a/drivers/foo%d.c b/drivers/foo%d.c\n--- a/drivers/foo%d.c\n+++ b/drivers/foo%d.c\n@@ -9,3 +9,3 @@\n {\n-module_param(debug, int, 0444);\n+module_param(debug, int, S_IRUGO);\n }\n\n' \
		"$LIST" "$i" "$i" "$(date -R)" "$LIST" "$i" "$i" "$i" "$i"
done >"$T/nrflood/in.mbox"
answer nrflood "$T/nrflood/in.mbox"
is "noreply: a flood from a no-reply address is found" \
	"$(q "$DB" "SELECT count(*) FROM flood_group WHERE detected_at IS NOT NULL")" 1
is "noreply: and no mail goes to it, its summary neither" "$(pending)" 0

# ---- preview: the same history, replayed; nothing written to the store ----
answer store "$HW/it87-lineage.mbox"
before=$(q "$DB" "SELECT count(*) FROM outbox")
out=$($PW preview --config "$T/pw.conf" --db "$DB" --since 60d 2>"$T/preview.err")
contains "preview: what would be mailed, counted" "$out" \
	"would mail: 2 replies, 10 copies to 5 addresses; body lines: median"
contains "preview: the window and the policy named" "$out" "13 messages, 11 patches replayed"
contains "preview: each reply listed with its recipients" "$out" \
	"Re: [PATCH v3 0/5] hwmon: it87: prep for IT8613E support"
is "preview: the user's store untouched" "$(q "$DB" "SELECT count(*) FROM outbox")" "$before"
out=$($PW preview --config "$T/pw.conf" --since 60d --per-patch "$HW/it87-lineage.mbox" 2>"$T/preview.err")
contains "preview --per-patch: the policy of before, one reply per patch with findings" "$out" \
	"would mail: 3 replies"
out=$($PW preview --config "$T/pw.conf" --since 60d --show 2 "$HW/it87-lineage.mbox" 2>"$T/preview.err")
contains "preview --show 2: the second reply in full" "$out" "Hello benoit.masson,"
out=$($PW preview --config "$T/pw.conf" --since 60d --show 9 "$HW/it87-lineage.mbox" 2>&1); rc=$?
is "preview --show past the end: usage error" "$rc" 2
check "preview: its temporary stores removed" \
	bash -c '! ls -d "${TMPDIR:-/tmp}"/patchwarden-preview-* 2>/dev/null | grep -q .'
# A flood found after its first patches were posted to Patchwork:
# tests/integration/patchwork.sh, against the stand-in and the real one.
