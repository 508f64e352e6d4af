#!/usr/bin/env bash
# The dashboard's answers to "what needs my attention?": the overview's
# queue (patches with warnings or errors per list, floods in progress,
# subscriptions failing), its charts on a real time axis with scales
# (outlying dates left out), the senders page (people apart from
# machines, counts that say what they count), a series whose count is
# unknown, and /subscriptions with /api/subscriptions.
. "$(dirname "$0")/../lib.sh"
. "$TOP/tests/web_lib.sh"

db=$T/d.db
make_store "$db"
# Mail a machine sent: the stable trees' postings and bots (real hwmon
# and iio mail), filed under a list of their own.
$PW ingest -q --db "$db" --list linux-auto.example.org \
	"$CORPUS/lore-automated/automated.mbox" >/dev/null
q() { sqlite3 -batch -noheader "$db" "$1"; }

# Two subscriptions: one read, one whose folder went away (failing).
for n in good bad; do
	mkdir -p "$T/$n/cur" "$T/$n/new" "$T/$n/tmp"
	$PW subscribe --db "$db" add "$n" "$T/$n" >/dev/null
done
cp "$TOP/tests/cases/PERM_SYMBOLIC/baole-ni-mail.eml" "$T/good/new/1.1.host"
rm -rf "$T/bad"
$PW poll --db "$db" >/dev/null 2>"$T/poll.err"
check "one subscription failed its poll" test "$(q "SELECT count(*) FROM subscription WHERE failures > 0")" = 1
# An unreadable message of the good one's source.
q "INSERT INTO ingest_error(source, location, error, at) VALUES ('$T/good', 'x', 'not a mail message', 1700000000)"

serve "$db" || exit 1

# ---- the queue --------------------------------------------------------------
page=$(get "$URL/")
attn=$(printf '%s' "$page" | sed -n '/<section class="attention">/,/<\/section>/p')
check "/: the queue comes first, before the counts" /usr/bin/python3 -c '
import sys; p = sys.stdin.read(); a = p.find("<section class=\"attention\">"); c = p.find("<table class=\"counts\">")
sys.exit(0 if 0 <= a < c else 1)' <<<"$page"
# Patches with findings at warning and above, not automated, not in a
# flood, not flood detection's findings: per list.
queue_sql="SELECT l.name, count(DISTINCT p.id) FROM finding f JOIN patch p ON p.id = f.patch
	JOIN message m ON m.id = p.message JOIN message_list ml ON ml.message = m.id JOIN list l ON l.id = ml.list
	WHERE f.severity >= 1 AND f.rule NOT IN ('FLOOD','FLOOD_SERIES','RESEND_IDENTICAL','SERIES_OVERSIZED')
	AND m.automated IS NULL AND m.id NOT IN (SELECT fm.message FROM flood_member fm JOIN flood_group g ON g.id = fm.grp WHERE g.detected_at IS NOT NULL)
	GROUP BY l.name ORDER BY l.name"
want=$(q "$queue_sql" | tr '|' ' ')
got=$(printf '%s' "$attn" | sed -n 's|^<h3><a href="/list/[^"]*">\([^<]*\)</a>: <span class="queue-count">\([0-9]*\)</span>.*|\1 \2|p')
check "the store has patches to triage" test -n "$want"
is "/: the queue counts, per list, the patches with warnings or errors" "$got" "$want"
# The queue's patches, by Message-ID: none a machine sent, none a
# flood's member (the flood is one item of its own).
ids=$(printf '%s' "$attn" | grep -o '<td><a href="/message/[^"]*">' | sed 's|.*/message/||; s|">$||' |
	/usr/bin/python3 -c 'import sys, urllib.parse; print(",".join("\x27" + urllib.parse.unquote(l.strip()).replace("\x27", "\x27\x27") + "\x27" for l in sys.stdin))')
check "/: the queue lists patches" test -n "$ids"
is "/: no patch a machine sent in the queue" "$(q "SELECT count(*) FROM message WHERE msgid IN ($ids) AND automated IS NOT NULL")" 0
check "/: the store has a flood and automated patches with findings" test \
	"$(q "SELECT count(*) FROM message m JOIN patch p ON p.message = m.id JOIN finding f ON f.patch = p.id WHERE f.severity >= 1 AND (m.automated IS NOT NULL OR m.id IN (SELECT message FROM flood_member))")" -gt 0
is "/: no flood member in the queue" "$(q "SELECT count(*) FROM message m JOIN flood_member fm ON fm.message = m.id JOIN flood_group g ON g.id = fm.grp WHERE g.detected_at IS NOT NULL AND m.msgid IN ($ids)")" 0
contains "/: the hostile list's patch in its queue, as text" "$attn" "&lt;script&gt;document.title"
check "/: each list's rows newest first" /usr/bin/python3 -c '
import re, sys
for t in sys.stdin.read().split("<table class=\"queue\">")[1:]:
    d = re.findall(r"<tr class=\"sev-[a-z]+\"><td>([^<]*)</td>", t.split("</table>")[0])
    if d != sorted(d, reverse=True): sys.exit(1)' <<<"$attn"
contains "/: the failing subscription, with its error" "$attn" '<a href="/subscriptions#sub-'"$(q "SELECT id FROM subscription WHERE name = 'bad'")"'">bad</a>: <b class="bad">failing</b>: its last poll failed: '
contains "/: the unreadable message of the other" "$attn" '>good</a>: <a href="/errors">1 unreadable message</a>'
is "/: no flood in progress (the flood is from 2016)" "$(printf '%s' "$attn" | grep -c 'Floods in progress')" 0
# A flood whose latest patch came now is in progress.
cp "$db" "$T/now.db"; cp "$db-raw" "$T/now.db-raw" 2>/dev/null
sqlite3 "$T/now.db" "UPDATE flood_group SET last_seen = strftime('%s', 'now') WHERE detected_at IS NOT NULL"
# A patch of the queue triaged: every finding of it marked wrong.
first=$(printf '%s' "$attn" | grep -o '<td><a href="/message/[^"]*">' | head -1 | sed 's|.*/message/||; s|">$||' |
	/usr/bin/python3 -c 'import sys, urllib.parse; print(urllib.parse.unquote(sys.stdin.read().strip()))')
$PW triage --db "$T/now.db" wrong "$first" --by maint@example.org >/dev/null 2>"$T/triage.err"
is "a queued patch marked wrong" "$?" 0
old_url=$URL
serve "$T/now.db" || exit 1
page=$(get "$URL/")
check "/: a triaged patch leaves the queue" sh -c "! grep -qF '/message/$(printf '%s' "$first" | /usr/bin/python3 -c 'import sys, urllib.parse; print(urllib.parse.quote(sys.stdin.read().strip(), safe=\"\"))')\"' <<'EOF'
$(printf '%s' "$page" | sed -n '/<section class="attention">/,/<\/section>/p')
EOF"
contains "/: a flood whose latest patch is recent: in progress" "$page" '<h3>Floods in progress</h3>'
check "/: with its row" grep -q '<tr id="f[0-9]*"><td>[0-9]*</td><td>FLOOD' <<<"$page"
URL=$old_url

# ---- the charts ----------------------------------------------------------------
page=$(get "$URL/")
# svg_bars LABEL: "count sum x..." of the chart's bars.
bars() { /usr/bin/python3 -c '
import re, sys
p = sys.stdin.read()
svg = re.search(r"<svg class=\"chart\" role=\"img\" aria-label=\"" + sys.argv[1] + r" per [a-z]+\" data-total=\"(\d+)\".*?</svg>", p, re.S)
if not svg: print("none"); sys.exit()
rects = re.findall(r"<rect class=\"bar\" data-n=\"(\d+)\" x=\"([\d.]+)\"", svg.group(0))
ticks = re.findall(r"<text class=\"tick\"", svg.group(0))
print(svg.group(1), len(rects), sum(int(n) for n, x in rects), len(ticks))' "$1"; }
read -r total nbars sum nticks <<<"$(bars findings <<<"$page")"
want=$(q "SELECT count(*) FROM finding f JOIN patch p ON p.id = f.patch JOIN message m ON m.id = p.message WHERE f.severity >= 1 AND m.date >= 631152000 AND m.date < strftime('%s', 'now') + 86400")
is "findings chart: its total is the store's (warning and above)" "$total" "$want"
is "findings chart: its bars add up to it" "$sum" "$want"
check "findings chart: a scale and a dated axis" test "$nticks" -ge 4
read -r ftotal fbars fsum fticks <<<"$(bars floods <<<"$page")"
is "floods chart: every flood" "$ftotal $fsum" "$(q 'SELECT count(*) FROM flood_group WHERE detected_at IS NOT NULL') $(q 'SELECT count(*) FROM flood_group WHERE detected_at IS NOT NULL')"
check "floods chart: a scale (count ticks)" grep -q 'aria-label="floods per [a-z]*".*<g class="y-axis">.*<text class="tick"[^>]*>1</text>' <<<"$page"
# Bars stand where their time is: the gap between two bars is the time
# between them (a real axis, not bars packed by periods with mail).
check "findings chart: bars placed by time, gaps as gaps" /usr/bin/python3 -c '
import re, sys, datetime
p = sys.stdin.read()
svg = re.search(r"aria-label=\"findings per ([a-z]+)\".*?</svg>", p, re.S)
bars = re.findall(r"<rect class=\"bar\" data-n=\"\d+\" x=\"([\d.]+)\" y=\"[\d.]+\" width=\"([\d.]+)\"[^>]*><title>([0-9-]+):", svg.group(0))
def t(s):
    f = "%Y-%m" if len(s) == 7 else "%Y-%m-%d"
    return datetime.datetime.strptime(s, f).timestamp()
pts = sorted({(t(d), float(x), float(w)) for x, w, d in bars})
(t0, x0, w0), (t1, x1, w1) = pts[0], pts[-1]
scale = (x1 - x0) / (t1 - t0)
# every bar on the line through the first and last, within a day of the period (months vary)
ok = all(abs((x - x0) - (tt - t0) * scale) < 86400 * 31 * scale + 1 for tt, x, w in pts)
gaps = any(x2 - x1_ > w1_ + 2 for (_, x1_, w1_), (_, x2, _) in zip(pts, pts[1:]))
sys.exit(0 if ok and gaps and len(pts) > 2 else 1)' <<<"$page"
# Dates from a wrong clock (old stores keep them): left off the axis.
sqlite3 "$T/now.db" "UPDATE message SET date = 3644000000 WHERE id = (SELECT min(id) FROM message);
	UPDATE message SET date = 86400 WHERE id = (SELECT max(id) FROM message WHERE kind = 'comment')"
# A server of its own: the dates changed, not what the store holds.
serve "$T/now.db" || exit 1
page=$(get "$URL/")
contains "outlying dates: said, not charted" "$page" "2 messages dated before 1990 or in the future are not charted"
check "outlying dates: the axis ends this year, not in 2085" /usr/bin/python3 -c '
import re, sys, datetime
p = sys.stdin.read()
years = [int(y) for y in re.findall(r"<text class=\"tick\"[^>]*text-anchor=\"middle\">(\d{4})", p)]
sys.exit(0 if years and max(years) <= datetime.date.today().year and min(years) >= 1990 else 1)' <<<"$page"
read -r total nbars sum nticks <<<"$(bars findings <<<"$page")"
check "outlying dates: the chart still has its bars" test "$nbars" -gt 0 -a "$sum" = "$total"

# ---- senders ---------------------------------------------------------------------
page=$(get "$URL/senders")
is "/senders: 200" "$(code)" 200
contains "/senders: what each count counts" "$page" "<th>patches sent</th><th>patches with findings</th><th>findings</th>"
people=$(printf '%s' "$page" | sed -n '1,/<h2 id="automated">/p')
machines=$(printf '%s' "$page" | sed -n '/<h2 id="automated">/,$p')
auto=$(q "SELECT coalesce(ms.addr, m.from_addr) FROM message m JOIN patch p ON p.message = m.id LEFT JOIN message_sender ms ON ms.message = m.id WHERE m.automated IS NOT NULL GROUP BY 1 ORDER BY count(*) DESC LIMIT 1")
check "automated mail in the store" test -n "$auto"
contains "/senders: a machine's patches in the automated table" "$machines" ">$auto</a>"
is "/senders: people's patches add up (automated mail left out)" \
	"$(printf '%s' "$people" | grep -o '<td class="n">[0-9]*</td><td class="n">[0-9]*</td><td class="n">[0-9]*</td><td class="n">' | sed 's|<td class="n">\([0-9]*\)</td>.*|\1|' | paste -sd+ | bc)" \
	"$(q "SELECT count(*) FROM patch p JOIN message m ON m.id = p.message WHERE m.automated IS NULL")"
is "/senders: no sender shown as an offender (no red)" "$(printf '%s' "$page" | grep -c '<td class="n bad">')" 0
flooder=pat.flood@example.org
is "/api/senders: findings at warning and above, and the patches with them" \
	"$(get "$URL/api/senders?from=$flooder" | jq -r '.[0] | "\(.findings) \(.flagged_patches)"')" \
	"$(q "SELECT count(*) FROM finding f JOIN patch p ON p.id = f.patch JOIN message m ON m.id = p.message WHERE m.from_addr = '$flooder' AND f.severity >= 1") $(q "SELECT count(DISTINCT p.id) FROM finding f JOIN patch p ON p.id = f.patch JOIN message m ON m.id = p.message WHERE m.from_addr = '$flooder' AND f.severity >= 1")"
is "/api/senders?severity=info: every finding" \
	"$(get "$URL/api/senders?from=$flooder&severity=info" | jq -r '.[0].findings')" \
	"$(q "SELECT count(*) FROM finding f JOIN patch p ON p.id = f.patch JOIN message m ON m.id = p.message WHERE m.from_addr = '$flooder'")"

# ---- series -------------------------------------------------------------------------
sid=$(q "SELECT id FROM series WHERE total = 0 LIMIT 1")
check "a series with no announced count" test -n "$sid"
page=$(get "$URL/series/$sid")
is "/series/ID of no count: never 'of 0 patches'" "$(printf '%s' "$page" | grep -c ' of 0 patches')" 0
contains "/series/ID of no count: says so" "$page" "(no count announced)"
is "/series: no 'N/0' count" "$(get "$URL/series?limit=500" | grep -c '<td class="n">[0-9]*/0</td>')" 0
is "/api/series: findings counted at warning and above" \
	"$(get "$URL/api/series?limit=500" | jq '[.[].findings] | add')" \
	"$(q "SELECT count(*) FROM finding f JOIN patch p ON p.id = f.patch WHERE p.series IS NOT NULL AND f.severity >= 1 AND p.series IN (SELECT id FROM series ORDER BY last_date DESC LIMIT 500)")"

# ---- subscriptions ---------------------------------------------------------------------
page=$(get "$URL/subscriptions")
is "/subscriptions: 200 HTML" "$(code) $(ctype)" "200 text/html; charset=utf-8"
contains "/subscriptions: linked from every page" "$page" '<a href="/subscriptions">subscriptions</a>'
contains "/subscriptions: the failing one, its state and the reason" "$page" '<td class="state-failing bad"><b>failing</b>: <span class="why">its last poll failed: '
check "/subscriptions: the failing one's result" grep -q '<span class="bad">failed (1 in a row)</span>: ' <<<"$page"
check "/subscriptions: the unreadable message linked to /errors" grep -q '<td class="n bad"><a href="/errors">1</a></td>' <<<"$page"
api=$(get "$URL/api/subscriptions")
is "/api/subscriptions: 200 JSON" "$(code) $(ctype)" "200 application/json"
is "/api/subscriptions: each one's state, last result, messages, unreadable" \
	"$(echo "$api" | jq -r '[.[] | "\(.name):\(.state):\(.last_result):\(.messages):\(.unreadable):\(.failures)"] | join(" ")')" \
	"bad:failing:failed:0:0:1 good:ok:ok:1:1:0"
is "/api/subscriptions: the error of the failing one" "$(echo "$api" | jq -r '.[0].last_error | length > 0')" true
is "/api/subscriptions: when polled, as ISO 8601" "$(echo "$api" | jq -r '.[1].last_poll | test("^[0-9]{4}-[0-9]{2}-[0-9]{2}T")')" true
is "/api/subscriptions?x=1: 400" "$(get "$URL/api/subscriptions?x=1" >/dev/null; code)" 400

# ---- one truth: every view, one state ---------------------------------------------------
# states URL: "name:state ..." of /api/subscriptions, then of /healthz.
states() {
	printf '%s | %s\n' \
		"$(get "$1/api/subscriptions" | jq -r '[.[] | "\(.name):\(.state)"] | join(" ")')" \
		"$(get "$1/healthz?format=json" | jq -r '[.subscriptions[] | "\(.name):\(.state)"] | join(" ")')"
}
is "the failing subscription: failing on /api/subscriptions and /healthz alike" \
	"$(states "$URL")" "bad:failing good:ok | bad:failing good:ok"
is "subscribe list: the same states" \
	"$($PW subscribe --db "$db" list --format json | jq -r '[.[] | "\(.name):\(.state)"] | join(" ")')" "bad:failing good:ok"
contains "/healthz: the failing one said" "$(get "$URL/healthz")" "subscription bad: FAILING"
# No service polling: the last success long past, the next poll overdue.
cp "$db" "$T/stale.db"
sqlite3 "$T/stale.db" "UPDATE subscription SET last_ok = strftime('%s', 'now') - 100000,
	last_poll = strftime('%s', 'now') - 100000, next_poll = strftime('%s', 'now') - 99000 WHERE name = 'good'"
serve "$T/stale.db" || exit 1
is "no service polling: stale on /api/subscriptions and /healthz alike" \
	"$(states "$URL")" "bad:failing good:stale | bad:failing good:stale"
is "/healthz: 503" "$(get "$URL/healthz" >/dev/null; code)" 503
page=$(get "$URL/subscriptions")
contains "/subscriptions: stale, and why" "$page" '<td class="state-stale bad"><b>stale</b>: <span class="why">no successful poll for 27 h (stale after 15 min); its next poll was due 27 h ago: is the service running?</span>'
contains "/subscriptions: the next poll overdue, not a time in the past as if to come" "$page" '<span class="bad">overdue since '
page=$(get "$URL/")
contains "/: the stale subscription in the queue" "$page" '">good</a>: <b class="bad">stale</b>: no successful poll for 27 h'
contains "/: the subscriptions counted by state" "$page" "2 subscriptions: 1 failing, 1 stale ("
contains "subscribe list: stale, and why" "$($PW subscribe --db "$T/stale.db" list)" "  stale: no successful poll for 27 h"
# A state changes with time alone: a page kept while the store is
# unchanged is made again when a state it shows changes.
# (A server of its own, that has kept nothing yet: the store is changed
# once it has started, so that its start takes none of the margin.)
serve "$T/stale.db" || exit 1
sqlite3 "$T/stale.db" "UPDATE subscription SET last_ok = strftime('%s', 'now') - 890, next_poll = strftime('%s', 'now') + 100 WHERE name = 'good'"
is "/api/subscriptions: ok a moment before the limit" "$(get "$URL/api/subscriptions" | jq -r '.[1].state')" ok
check "/subscriptions: ok too" grep -q '<b>ok</b>' <(get "$URL/subscriptions")
sleep 11
# The first request after gives what was kept and has it made again.
get "$URL/api/subscriptions" >/dev/null; get "$URL/subscriptions" >/dev/null
sleep 1
is "/api/subscriptions: stale once past it, the store unchanged" "$(get "$URL/api/subscriptions" | jq -r '.[1].state')" stale
check "/subscriptions: the kept page made again, stale" grep -q '<b>stale</b>' <(get "$URL/subscriptions")
