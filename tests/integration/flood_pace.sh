#!/usr/bin/env bash
# Burst or campaign (db/FLOODS.md): the owner's three real cases through
# ingest --reply, the outbox, Patchwork (a stand-in), the dashboard and
# the digest.
#  - Christophe JAILLET's 21 "Use devm_clk_get_enabled() helper" patches
#    to linux-watchdog over two days (tests/cases/FLOOD_CAMPAIGN/
#    watchdog-devm-clk.mbox, tests/corpus/README.md): a campaign, no
#    error, no mail, one row on the dashboard and in the digest.
#  - The same real patches re-dated into four minutes, as Cai Huoqing's
#    32 dev_err_probe() patches came: a flood, one summary mail.
#  - The 2016 shape (tests/gen_flood.py) spread two hours apart: a flood
#    all the same, by its reach of subsystems; a campaign with lists = 0.
. "$(dirname "$0")/../lib.sh"
. "$TOP/tests/web_lib.sh"

PY=/usr/bin/python3
q() { sqlite3 -batch -noheader "$1" "$2"; }
MBOX=$TOP/tests/cases/FLOOD_CAMPAIGN/watchdog-devm-clk.mbox
WD=linux-watchdog.vger.kernel.org
JAILLET=christophe.jaillet@wanadoo.fr

# A Patchwork stand-in (tests/patchwork_standin.py) holding the 21
# patches, to which each store posts its checks.
TOKEN=$(printf 'a%.0s' $(seq 40))
port=$(free_port)
$PY "$TOP/tests/patchwork_standin.py" serve --port "$port" --project wd \
	--user "maint:$TOKEN:wd" >"$T/standin.out" 2>&1 &
SPID=$!
at_exit "kill $SPID 2>/dev/null"
for i in $(seq 100); do grep -q ready "$T/standin.out" && break; sleep 0.1; done
$PY - "$MBOX" "$T/one" <<'EOF'
import os, sys
src = open(sys.argv[1], "rb").read()
os.makedirs(sys.argv[2])
for i, m in enumerate(src.split(b"\nFrom patchwarden ")):
    open(os.path.join(sys.argv[2], "%02d.eml" % i), "wb").write(
        m.split(b"\n", 1)[1])
EOF
for f in "$T"/one/*.eml; do
	curl -sf -o /dev/null --data-binary @"$f" "http://127.0.0.1:$port/_standin/mail?project=wd"
done
# checks STORE: the states of the checks posted for its patches.
checks() {
	q "$1" "SELECT state || ':' || check_state, count(*) FROM pwcheck GROUP BY 1 ORDER BY 1" | tr '\n' ' '
}

# Replies on for the list, to the author; mail of 2022 is not too old;
# checks to the stand-in.
C=$T/pw.conf
cat >"$C" <<EOF
[smtp]
url = smtp://127.0.0.1:9
from = patchwarden <bot@example.org>
[reply]
max_age = 36500
[list $WD]
address = linux-watchdog@vger.kernel.org
mail = author
maintainer = linux@roeck-us.net
digest = true
[patchwork wd]
url = http://127.0.0.1:$port
project = wd
token = $TOKEN
lists = $WD
min_severity = info
EOF
chmod 600 "$C"

# ---- 1. the campaign: real mail, default thresholds ----
DB=$T/campaign.db
$PW ingest -q --reply --db "$DB" --config "$C" "$MBOX" >/dev/null 2>"$T/err"
is "campaign: 21 patches stored" "$(q "$DB" "SELECT count(*) FROM patch")" 21
is "campaign: every patch carries FLOOD_CAMPAIGN, info" \
	"$(q "$DB" "SELECT count(DISTINCT patch) || ',' || max(severity) FROM finding WHERE rule = 'FLOOD_CAMPAIGN'")" 21,0
is "campaign: no error, no warning" \
	"$(q "$DB" "SELECT count(*) FROM finding WHERE severity > 0")" 0
is "campaign: no flood" "$($PW query --db "$DB" floods --format json | tr -d ' \n')" "[]"
is "campaign: nothing queued, nothing held (no summary, no reply)" \
	"$(q "$DB" "SELECT count(*) FROM outbox")" 0
is "campaign: one group, 21 members, a campaign since the 20th" \
	"$(q "$DB" "SELECT count(*) || ',' || max(g.size) || ',' || (max(c.campaign_at) = (SELECT date FROM flood_member ORDER BY date LIMIT 1 OFFSET 19)) FROM flood_campaign c JOIN flood_group g ON g.id = c.grp")" 1,21,1
is "campaign: one subsystem reached" \
	"$(q "$DB" "SELECT count(*) || ',' || group_concat(DISTINCT area) FROM flood_area")" 21,drivers/watchdog

# A recheck replaces a patch's findings, not those about its company.
$PW db recheck --db "$DB" >/dev/null 2>"$T/err"
is "campaign: db recheck keeps the 21 FLOOD_CAMPAIGN" \
	"$(q "$DB" "SELECT count(*) FROM finding WHERE rule = 'FLOOD_CAMPAIGN'")" 21

# The dashboard: one row, its pace and its 21 members.
serve "$DB" || exit 1
page=$(get "$URL/")
is "dashboard: GET / answers" "$(code)" 200
contains "dashboard: a Campaigns section" "$page" "<h2>Campaigns</h2>"
rows=$(printf '%s\n' "$page" | grep -c '<tr id="c[0-9]*">')
is "dashboard: one row per campaign" "$rows" 1
row=$(printf '%s\n' "$page" | grep '<tr id="c[0-9]*">')
contains "dashboard: the campaign's sender" "$row" "$JAILLET"
contains "dashboard: its pace" "$row" "21 patches over 22 hours"
is "dashboard: its 21 members, linked" \
	"$(printf '%s\n' "$row" | grep -o 'href="/message/[^"]*"' | wc -l)" 21

# The weekly digest lists it; it is the maintainers' mail, not the
# sender's.
$PW digest --config "$C" --db "$DB" --since 2022-12-25 --list "$WD" \
	--dry-run >"$T/digest" 2>"$T/err"
is "digest --dry-run: exit 0" "$?" 0
contains "digest: the campaign, with its pace" "$(cat "$T/digest")" \
	"21 patches over 22 hours from $JAILLET"
check "digest: no flood" sh -c "! grep -q '^Floods' '$T/digest'"

# ---- 2. the same patches in four minutes: a burst ----
$PY - "$MBOX" "$T/burst.mbox" <<'EOF'
import datetime, email.utils, re, sys
src = open(sys.argv[1], encoding="utf-8", errors="surrogateescape").read()
parts = src.split("\nFrom patchwarden ")
t0 = datetime.datetime(2022, 12, 31, 15, 30, tzinfo=datetime.timezone.utc)
out = []
for i, p in enumerate(parts):
    d = email.utils.format_datetime(t0 + datetime.timedelta(seconds=12 * i))
    out.append(re.sub(r"^Date:.*$", "Date: " + d, p, count=1, flags=re.M))
open(sys.argv[2], "w", encoding="utf-8", errors="surrogateescape").write(
    "\nFrom patchwarden ".join(out))
EOF
DB=$T/burst.db
$PW ingest -q --reply --db "$DB" --config "$C" "$T/burst.mbox" >/dev/null 2>"$T/err"
is "burst: every patch carries FLOOD, error, and no FLOOD_CAMPAIGN" \
	"$(q "$DB" "SELECT count(DISTINCT patch) || ',' || min(severity) || ',' || sum(rule = 'FLOOD_CAMPAIGN') FROM finding WHERE rule IN ('FLOOD', 'FLOOD_CAMPAIGN')")" 21,2,0
is "burst: one FLOOD of 21" \
	"$($PW query --db "$DB" floods --format json | $PY -c 'import json,sys; print(",".join("%s:%d" % (f["rule"], f["size"]) for f in json.load(sys.stdin)))')" FLOOD:21
is "burst: one summary mail to the sender, queued" \
	"$(q "$DB" "SELECT kind || ',' || state || ',' || rcpt_to FROM outbox WHERE state <> 'suppressed'")" \
	"flood,pending,$JAILLET"
is "burst: no campaign" "$(q "$DB" "SELECT count(*) FROM flood_campaign")" 0

# ---- Patchwork: fail for a flood's members, a campaign's unchanged ----
for s in campaign burst; do
	$PW patchwork post --db "$T/$s.db" --config "$C" >/dev/null 2>"$T/err"
done
is "Patchwork: a campaign's 21 patches pass (FLOOD_CAMPAIGN changes no check)" \
	"$(checks "$T/campaign.db")" "posted:success|21 "
is "Patchwork: a burst's 21 patches fail" "$(checks "$T/burst.db")" "posted:fail|21 "

# ---- 3. the 2016 shape, two hours apart: reach makes it a flood ----
$PY "$TOP/tests/gen_flood.py" --out "$T/g" --flood-size 60 --noise 50 --seed 5 \
	--flood-gap 7200 >/dev/null
printf '[flood]\n' >"$T/default.conf"
printf '[flood]\nlists = 0\n' >"$T/noreach.conf"
$PW ingest -q --db "$T/g1.db" -c "$T/default.conf" "$T/g/arrival.mbox" >/dev/null 2>"$T/err"
is "2016 shape, 2 h apart: a FLOOD of 60, an error, by its reach" \
	"$($PW query --db "$T/g1.db" floods --format json | $PY -c 'import json,sys; print(",".join("%s:%s:%d" % (f["rule"], f["severity"], f["size"]) for f in json.load(sys.stdin)))')" \
	FLOOD:error:60
check "2016 shape: more than three subsystems" test \
	"$(q "$T/g1.db" "SELECT count(DISTINCT a.area) FROM flood_member fm JOIN flood_area a ON a.message = fm.message WHERE fm.grp = (SELECT id FROM flood)")" -ge 3
$PW ingest -q --db "$T/g2.db" -c "$T/noreach.conf" "$T/g/arrival.mbox" >/dev/null 2>"$T/err"
is "2016 shape, 2 h apart, lists = 0: no flood" \
	"$($PW query --db "$T/g2.db" floods --format json | tr -d ' \n')" "[]"
is "2016 shape, 2 h apart, lists = 0: 60 FLOOD_CAMPAIGN" \
	"$(q "$T/g2.db" "SELECT count(*) FROM finding WHERE rule = 'FLOOD_CAMPAIGN'")" 60

# ---- 4. the thresholds are settings ----
printf '[flood]\nburst = -1\n' >"$T/bad.conf"
$PW ingest -q --db "$T/bad.db" -c "$T/bad.conf" "$MBOX" >/dev/null 2>"$T/err"
check "burst = -1 is refused" test $? -ne 0
contains "burst = -1: the key named" "$(cat "$T/err")" "burst"
shown=$($PW config check -c "$T/noreach.conf" 2>&1)
contains "config check: [flood] burst" "$shown" "burst = 21600"
contains "config check: [flood] lists" "$shown" "lists = 0"
