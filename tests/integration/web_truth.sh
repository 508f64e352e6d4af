#!/usr/bin/env bash
# What the dashboard and "query" say about mail they cannot take at its
# word, each view the same: a message of unknown date reads "unknown",
# never 1970-01-01, and the stats count it in a row of their own; pull
# requests are counted as pulls, never as patches; a damaged diff (real
# linux-hwmon mail a mail client wrapped) is shown whole on the message
# page and in /api/message, the line git stops at marked and the
# finding under the hunk header it is about.
. "$(dirname "$0")/../lib.sh"
. "$TOP/tests/web_lib.sh"


db=$T/t.db
q() { sqlite3 -batch -noheader "$db" "$1"; }
# A real patch whose Date: header was lost on the way.
sed '/^Date: /d' "$CORPUS/lore-linux-hwmon/oxp-platform.mbox" >"$T/nodate.mbox"
$PW ingest -q --db "$db" "$T/nodate.mbox" "$CORPUS/lore-linux-hwmon/k10temp-malformed.mbox" \
	"$CORPUS"/patchwork/mail/*pull*.mbox >/dev/null
nodate=20221029225051.1171795-1-samsagax@gmail.com
broken=CAP80Qm2ORJ4cXukhH8oXeGv-C9LrADa1XyDuyq5LKeV_YaYxqA@mail.gmail.com
is "fixture: one message of unknown date" "$(q "SELECT count(*) FROM message WHERE date IS NULL")" 1
pulls=$(q "SELECT count(*) FROM message WHERE kind = 'pull'")
check "fixture: pull requests, each with a patch row" test "$pulls" -gt 0 -a \
	"$(q "SELECT count(*) FROM patch p JOIN message m ON m.id = p.message WHERE m.kind = 'pull'")" = "$pulls"
patches=$(q "SELECT count(*) FROM message WHERE kind = 'patch'")

# ---- query ----
out=$($PW query --db "$db" patches)
contains "query patches: an unknown date reads unknown" "$out" "unknown <$nodate>"
check "query patches: never 1970" eval '! grep -q 1970 <<<"$out"'
is "query patches: patches only, no pull request" "$(printf '%s\n' "$out" | grep -c .)" "$patches"
is "query patches --format json: an unknown date is null" \
	"$($PW query --db "$db" patches --format json | jq -r ".[] | select(.msgid == \"$nodate\") | .date")" null
stats=$($PW query --db "$db" stats)
contains "query stats: the unknown date in a row of its own, last" "$(printf '%s\n' "$stats" | tail -1)" "unknown linux-hwmon.vger.kernel.org messages=1 patches=1"
is "query stats: every message counted" "$($PW query --db "$db" stats --format json | jq '[.[].messages] | add')" "$(q "SELECT count(*) FROM message")"
is "query stats: pulls as pulls" "$($PW query --db "$db" stats --format json | jq '[.[].pulls] | add')" "$pulls"
is "query stats: patches as patches" "$($PW query --db "$db" stats --format json | jq '[.[].patches] | add')" "$patches"
is "query stats --from: the unknown row too (counted from the messages)" \
	"$($PW query --db "$db" stats --from samsagax@gmail.com --format json | jq -r '.[] | "\(.period) \(.messages)"')" "unknown 1"
is "query stats --since: no unknown row (its date is not after)" \
	"$($PW query --db "$db" stats --since 2000-01-01 --format json | jq '[.[] | select(.period == "unknown")] | length')" 0

serve "$db" || exit 1
# ---- the dashboard ----
page=$(get "$URL/patches")
contains "/patches: an unknown date reads unknown" "$page" "<td>unknown</td>"
check "/patches: never 1970" eval '! grep -q 1970 <<<"$page"'
is "/api/patches: as many as the overview's patches" "$(get "$URL/api/patches?limit=500" | jq length)" "$patches"
contains "/: pull requests counted apart" "$(get "$URL/")" "<th>patches</th><th>pull requests</th>"
page=$(get "$URL/stats")
contains "/stats: the unknown row" "$page" "<tr><td>unknown</td>"
is "/api/stats: every message" "$(get "$URL/api/stats" | jq '[.[].messages] | add')" "$(q "SELECT count(*) FROM message")"
contains "/message: an unknown date reads unknown" "$(get "$URL/message/$nodate")" "<th>date</th><td>unknown</td>"

# ---- a damaged diff, whole ----
page=$(get "$URL/message/$broken")
contains "/message: the diff past the damaged hunk is shown" "$page" "compensate and report the real temperature"
check "/message: where git stops, marked, with its line" grep -qE '<span class="note sev-warning stop" id="stop">git stops reading the patch here, at line [0-9]+' <<<"$page"
check "/message: the finding under the hunk header it is about" grep -q '<span class="hunk mark" id="L[0-9]*">@@ -21,10 +21,16 @@ Supported chips:</span><span class="note sev-warning"><b>PATCH_MALFORMED</b> <span class="where">hunk header at line [0-9]*:</span> the hunk header &quot;@@ -21,10 +21,16 @@&quot; announces' <<<"$page"
api=$(get "$URL/api/message/$broken")
contains "/api/message: the diff, whole" "$(jq -r .diff <<<"$api")" "compensate and report the real temperature"
contains "/api/message: the commit message" "$(jq -r .commit_message <<<"$api")" "k10temp documentation has been updated"
contains "query message: the diff whole too" "$($PW query --db "$db" message "$broken")" "compensate and report the real temperature"
contains "/findings: a finding about no line says so" "$(get "$URL/findings?rule=PATCH_MALFORMED")" "<code>Documentation/hwmon/k10temp.rst</code> (whole file)"
